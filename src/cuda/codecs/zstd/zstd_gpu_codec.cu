/*
 * zstd_gpu_codec.cu - the GPU Zstandard codec (gpu_codec.h): the decoder
 * of zstd_decode.cu and the encoder of zstd_enc.cu, each with its device
 * scratch.  Kept apart from the kernels so the standalone harness
 * (bench/gpu/zstd/) links the decoder alone.  No GPU size query: the API
 * layer host-stages zstd size queries of device data.
 */
#include "zstd_gpu.h"

/* A literal buffer per warp: sized by the largest capacity when the engine
 * knows it (host capacities), else for 128 KiB blocks; at most 768 MiB
 * (fewer warps then loop over more chunks): the lane-parallel kernel with
 * 128 KiB literal buffers (capacities over 64 KiB and up to 128 KiB, or
 * unknown: device arrays) needs ~357 MiB at full scale (~221 MiB for 64 KiB
 * chunks with host capacities), the frame kernel (capacities over 128 KiB
 * or unknown, batches of at most 264 chunks) ~2.7 MiB a chunk, ~694 MiB for
 * 256 frames of 4 MiB (zstd_gpu.h; 384 MiB until its 8 slots a frame,
 * bench/gpu/zstd/NOTES.md "Run 11": with 384 MiB a batch of 256 frames
 * would no longer fit its CTAs at once and take the per-chunk kernel). */
static size_t zstd_decompress_scratch(const oc_gpu_config *cfg, size_t n)
{
    size_t b = oc_cuda_zstd_decompress_scratch_size(n, cfg->max_capacity);
    size_t cap = (size_t)768 << 20;
    return b < cap ? b : cap;
}

/* A worker slice (~0.9 MiB) per task (a chunk, or at levels 1-3 a 128
 * KiB block of a larger chunk), at most 2.5 GiB (~2800 warps: the
 * kernel's 20 resident warps an SM of an H100's 132, ~2640, all busy; the
 * match finder issues an instruction every ~7 cycles a warp, so each warp
 * more is throughput; ~550 warps left the SMs idle, 2 GiB gave ~17 an SM;
 * bench/gpu/zstd/ENC_NOTES.md "Workers", "Where the time goes"); workers
 * then take tasks from a counter. */
static size_t zstd_compress_scratch(const oc_gpu_config *cfg, size_t n)
{
    size_t b = oc_cuda_zstd_compress_scratch_size(n, cfg->level, cfg->src_sizes_host), cap = (size_t)5 << 29;
    return b < cap ? b : cap;
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_zstd = {
    zstd_compress_scratch, oc_cuda_zstd_compress, zstd_decompress_scratch, oc_cuda_zstd_decompress, NULL};

/* Tests only (oc_cuda_zstd_decompress_forced): the decoder with its kernel
 * named, the per-chunk one, the lane-parallel one or the frame kernel. */
static oc_status zstd_decompress_per_chunk(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                                           size_t n, const void *const *src, const size_t *src_sizes,
                                           void *const *dst, const size_t *dst_caps, size_t *dst_sizes,
                                           oc_status *statuses, cudaStream_t stream)
{
    return oc_cuda_zstd_decompress_with(scratch, scratch_size, cfg, OC_ZSTD_DEC_PER_CHUNK, n, src, src_sizes,
                                        dst, dst_caps, dst_sizes, statuses, stream);
}

static oc_status zstd_decompress_lanes(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                                       const void *const *src, const size_t *src_sizes, void *const *dst,
                                       const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses,
                                       cudaStream_t stream)
{
    return oc_cuda_zstd_decompress_with(scratch, scratch_size, cfg, OC_ZSTD_DEC_LANES, n, src, src_sizes, dst,
                                        dst_caps, dst_sizes, statuses, stream);
}

static oc_status zstd_decompress_frames(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                                        size_t n, const void *const *src, const size_t *src_sizes,
                                        void *const *dst, const size_t *dst_caps, size_t *dst_sizes,
                                        oc_status *statuses, cudaStream_t stream)
{
    return oc_cuda_zstd_decompress_with(scratch, scratch_size, cfg, OC_ZSTD_DEC_FRAMES, n, src, src_sizes,
                                        dst, dst_caps, dst_sizes, statuses, stream);
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_zstd_per_chunk = {
    zstd_compress_scratch, oc_cuda_zstd_compress, zstd_decompress_scratch, zstd_decompress_per_chunk, NULL};
extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_zstd_lanes = {
    zstd_compress_scratch, oc_cuda_zstd_compress, zstd_decompress_scratch, zstd_decompress_lanes, NULL};
extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_zstd_frames = {
    zstd_compress_scratch, oc_cuda_zstd_compress, zstd_decompress_scratch, zstd_decompress_frames, NULL};
