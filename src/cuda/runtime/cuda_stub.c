/*
 * cuda_stub.c - the CUDA engine boundary for builds without CUDA: every
 * entry point reports that the engine is unavailable, so the API layer needs
 * no #ifdefs.
 */
#include "cuda_engine.h"
#include "../../format/plan.h"

int oc_cuda_forked(void)
{
    return 0;
}
int oc_cuda_available(void)
{
    return 0;
}
int oc_cuda_algorithm_available(oc_algorithm algorithm)
{
    (void)algorithm;
    return 0;
}
int oc_cuda_has_op(oc_algorithm algorithm, int op)
{
    (void)algorithm, (void)op;
    return 0;
}
int oc_cuda_is_device_pointer(const void *p)
{
    (void)p;
    return 0;
}
void oc_cuda_context_release(oc_context *ctx)
{
    (void)ctx;
}
const char *oc_cuda_build_info(void)
{
    return "cuda: none";
}

oc_status oc_cuda_batch_compress(oc_context *ctx, const oc_codec_options *options, size_t n,
                                 const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                                 const size_t *dst_capacities, size_t *dst_sizes, oc_status *statuses)
{
    (void)ctx, (void)options, (void)n, (void)src_ptrs, (void)src_sizes, (void)dst_ptrs, (void)dst_capacities;
    (void)dst_sizes, (void)statuses;
    return OC_ERR_NO_DEVICE;
}
oc_status oc_cuda_batch_decompress(oc_context *ctx, const oc_codec_options *options, size_t n,
                                   const void *const *src_ptrs, const size_t *src_sizes,
                                   void *const *dst_ptrs, const size_t *dst_capacities, size_t *dst_sizes,
                                   oc_status *statuses)
{
    (void)ctx, (void)options, (void)n, (void)src_ptrs, (void)src_sizes, (void)dst_ptrs, (void)dst_capacities;
    (void)dst_sizes, (void)statuses;
    return OC_ERR_NO_DEVICE;
}
oc_status oc_cuda_batch_decompress_packed(oc_context *ctx, const oc_codec_options *options, size_t n,
                                          const void *src, size_t src_bytes, const size_t *src_offsets,
                                          const size_t *src_sizes, void *dst, size_t dst_bytes,
                                          const size_t *dst_offsets, const size_t *dst_capacities,
                                          size_t *dst_sizes, oc_status *statuses)
{
    (void)ctx, (void)options, (void)n, (void)src, (void)src_bytes, (void)src_offsets, (void)src_sizes;
    (void)dst, (void)dst_bytes, (void)dst_offsets, (void)dst_capacities, (void)dst_sizes, (void)statuses;
    return OC_ERR_NO_DEVICE;
}
oc_status oc_cuda_batch_compress_packed(oc_context *ctx, const oc_codec_options *options, size_t n,
                                        const void *src, size_t src_bytes, const size_t *src_offsets,
                                        const size_t *src_sizes, void *dst, size_t dst_bytes,
                                        const size_t *dst_offsets, const size_t *dst_capacities,
                                        size_t *dst_sizes, oc_status *statuses)
{
    (void)ctx, (void)options, (void)n, (void)src, (void)src_bytes, (void)src_offsets, (void)src_sizes;
    (void)dst, (void)dst_bytes, (void)dst_offsets, (void)dst_capacities, (void)dst_sizes, (void)statuses;
    return OC_ERR_NO_DEVICE;
}
oc_status oc_cuda_batch_decompressed_sizes(oc_context *ctx, const oc_codec_options *options, size_t n,
                                           const void *const *src_ptrs, const size_t *src_sizes,
                                           size_t *sizes, oc_status *statuses)
{
    (void)ctx, (void)options, (void)n, (void)src_ptrs, (void)src_sizes, (void)sizes, (void)statuses;
    return OC_ERR_NO_DEVICE;
}
oc_status oc_cuda_lz_decompress_forced(oc_context *ctx, oc_algorithm algo, int copy_only, size_t n,
                                       const void *const *src_ptrs, const size_t *src_sizes,
                                       void *const *dst_ptrs, const size_t *dst_capacities, size_t *dst_sizes,
                                       oc_status *statuses)
{
    (void)ctx, (void)algo, (void)copy_only, (void)n, (void)src_ptrs, (void)src_sizes, (void)dst_ptrs,
        (void)dst_capacities, (void)dst_sizes, (void)statuses;
    return OC_ERR_NO_DEVICE;
}
oc_status oc_cuda_zstd_decompress_forced(oc_context *ctx, int lanes, size_t n, const void *const *src_ptrs,
                                         const size_t *src_sizes, void *const *dst_ptrs,
                                         const size_t *dst_capacities, size_t *dst_sizes, oc_status *statuses)
{
    (void)ctx, (void)lanes, (void)n, (void)src_ptrs, (void)src_sizes, (void)dst_ptrs, (void)dst_capacities,
        (void)dst_sizes, (void)statuses;
    return OC_ERR_NO_DEVICE;
}
oc_status oc_cuda_native_begin(oc_context *ctx, const oc_buffer_options *options, const struct oc_native *nt,
                               const void *src, uint64_t src_size, void *dst, uint64_t dst_capacity,
                               void **self, size_t *per_group)
{
    (void)ctx, (void)options, (void)nt, (void)src, (void)src_size, (void)dst, (void)dst_capacity;
    *self = NULL;
    *per_group = 0;
    return OC_ERR_NO_DEVICE;
}
const oc_native_steps oc_cuda_native_steps = {0}; /* never used: no compression begins */
oc_status oc_cuda_plan_begin(oc_context *ctx, const struct oc_container_plan *plan,
                             const struct oc_sparse *sh, int verify, const void *src, uint64_t src_size,
                             void *dst, uint64_t dst_capacity, void **self)
{
    (void)ctx, (void)plan, (void)sh, (void)verify, (void)src, (void)src_size, (void)dst, (void)dst_capacity;
    *self = NULL;
    return OC_ERR_NO_DEVICE;
}
const oc_plan_steps oc_cuda_plan_steps = {0}; /* never used: no plan begins */

int oc_cuda_device_count(void)
{
    return 0;
}
oc_status oc_cuda_stream_device(void *cuda_stream, int *device)
{
    (void)cuda_stream;
    return device ? OC_ERR_NO_DEVICE : OC_ERR_INVALID_ARGUMENT;
}
oc_memory_kind oc_cuda_pointer_kind(const void *p)
{
    (void)p;
    return OC_MEMORY_HOST;
}
int oc_cuda_pointer_device(const void *p)
{
    (void)p;
    return -1;
}
oc_status oc_cuda_memory_alloc(oc_context *ctx, oc_memory_kind kind, size_t size, void **out)
{
    (void)ctx, (void)kind, (void)size, (void)out;
    return OC_ERR_NO_DEVICE;
}
void oc_cuda_memory_free(oc_context *ctx, oc_memory_kind kind, void *ptr, size_t size)
{
    (void)ctx, (void)kind, (void)ptr, (void)size;
}
oc_status oc_cuda_memory_copy(oc_context *ctx, void *dst, const void *src, size_t n)
{
    (void)ctx, (void)dst, (void)src, (void)n;
    return OC_ERR_NO_DEVICE;
}
oc_status oc_cuda_synchronize(oc_context *ctx)
{
    (void)ctx;
    return OC_OK;
}
oc_status oc_cuda_stream_create(oc_context *ctx, void **out)
{
    (void)ctx, (void)out;
    return OC_ERR_NO_DEVICE;
}
void oc_cuda_stream_destroy(oc_context *ctx, void *stream)
{
    (void)ctx, (void)stream;
}
oc_status oc_cuda_wait_stream(oc_context *ctx, void *other)
{
    (void)ctx, (void)other;
    return OC_ERR_NO_DEVICE;
}
