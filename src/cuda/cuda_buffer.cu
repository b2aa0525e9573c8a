/*
 * cuda_buffer.cu - the whole-buffer layer (oc_buffer_*) for device buffers.
 *
 * Not yet on the GPU: the containers (src/format/) are host code, so for now
 * the CUDA engine reports UNSUPPORTED and the API layer is expected to stage
 * device buffers through host memory.  The batched layer (the part that
 * matters for speed) runs fully on the GPU.
 */
#include "cuda_internal.cuh"

extern "C" oc_status oc_cuda_buffer_compress(oc_context *ctx, const oc_buffer_options *options, const void *src,
                                             uint64_t src_size, void *dst, uint64_t dst_capacity,
                                             uint64_t *dst_size)
{
    (void)ctx, (void)options, (void)src, (void)src_size, (void)dst, (void)dst_capacity, (void)dst_size;
    return oc_cuda_available() ? OC_ERR_UNSUPPORTED : OC_ERR_NO_DEVICE;
}

extern "C" oc_status oc_cuda_buffer_decompress(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                                               uint64_t src_size, void *dst, uint64_t dst_capacity,
                                               uint64_t *dst_size, uint64_t *failed_chunk)
{
    (void)ctx, (void)hint, (void)src, (void)src_size, (void)dst, (void)dst_capacity, (void)dst_size;
    (void)failed_chunk;
    return oc_cuda_available() ? OC_ERR_UNSUPPORTED : OC_ERR_NO_DEVICE;
}
