/*
 * zstd_gpu.h - the GPU Zstandard codec's launchers (gpu_codec.h's argument
 * order), for the codec (zstd_gpu_codec.cu) and the standalone harness
 * (bench/gpu/zstd/).
 *
 * Decoder (zstd_decode.cu): one warp decodes one chunk (every frame in it,
 * skippable frames skipped); the entropy decoding runs warp-uniform and the
 * byte copies are split over the lanes (zstd_decode_core.h).
 *
 * Encoder (zstd_enc.cu): one warp owns one chunk: the warp resets the
 * match tables together, lane 0 finds the matches and entropy-codes the
 * blocks (zstd_enc_core.h; the same source is the C build CI tests).
 * Output: one standard frame per chunk (content size in the header, window
 * = chunk size, no checksum), which libzstd and `zstd -d` decode.
 *
 * Everything is enqueued on `stream` without a host synchronisation: sizes
 * and statuses are valid once the stream reaches that point.
 */
#ifndef OC_ZSTD_GPU_H
#define OC_ZSTD_GPU_H

#include <stddef.h>

#include "../../runtime/gpu_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * oc_cuda_zstd_decompress_scratch_size returns the bytes of DEVICE scratch
 * that oc_cuda_zstd_decompress needs for `n` chunks whose output capacities
 * are at most `max_dst_capacity` bytes each: one literal buffer per
 * resident warp (min(max_dst_capacity, 128 KiB) bytes, 256-aligned) for at
 * most OC_ZSTD_GPU_MAX_WARPS warps, after 256 bytes holding the counter the
 * warps take chunks from.  Less scratch also works (fewer warps, each
 * decoding more chunks), down to one warp's buffer.  With max_dst_capacity
 * <= OC_ZSTD_GPU_LANE_MAX_CAPACITY (128 KiB), or SIZE_MAX (capacities
 * unknown on the host: 128 KiB literal buffers), it is at least what the
 * lane-parallel kernel takes (zstd_decode.cu): per warp, a literal buffer
 * as above and 8 FSE table slots of 5 KiB, for min(ceil(n / 4),
 * OC_ZSTD_GPU_LANE_WARPS) warps (~221 MiB for 64 KiB chunks at full scale,
 * ~357 MiB with 128 KiB buffers); given less than the warps the GPU
 * holds, the decoder uses the per-chunk kernel.  With max_dst_capacity
 * above 128 KiB (or SIZE_MAX) it also holds the frame kernel's (chunks that
 * are one frame of several blocks, zstd_dec_frame.h): a 256-byte counter and
 * a byte per chunk, then, for n <= 264, n CTA areas of ~2.7 MiB (block
 * records and 8 slots of 332 KiB) over the same bytes as the per-chunk
 * kernel's buffers, which run after it (~694 MiB for 256 frames of 4 MiB);
 * given less, fewer CTAs loop over the frames.
 */
#define OC_ZSTD_GPU_MAX_WARPS 4096
#define OC_ZSTD_GPU_LANE_WARPS 2176           /* 16 warps on each of 136 SMs */
#define OC_ZSTD_GPU_LANE_MAX_CAPACITY 131072u /* larger capacities: the per-chunk kernel */
OC_HIDDEN size_t oc_cuda_zstd_decompress_scratch_size(size_t n, size_t max_dst_capacity);

/*
 * oc_cuda_zstd_decompress decodes n Zstandard chunks on the GPU
 * (gpu_codec.h's launch).  Every array is in DEVICE memory with n entries.
 * Results: dst_sizes_dev[i] the bytes written, statuses_dev[i] one of OK,
 * CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL, CHECKSUM_MISMATCH (content checksum
 * present and wrong), NEEDS_DICTIONARY (the frame names a dictionary).  A
 * frame whose content size field disagrees with its blocks is CORRUPT.  An
 * empty chunk decodes to 0 bytes.
 *
 * `scratch_dev` is device memory of scratch_size bytes, at least
 * oc_cuda_zstd_decompress_scratch_size(1, cfg->max_capacity); it must stay
 * untouched until the stream passes this work.
 */
OC_HIDDEN oc_status oc_cuda_zstd_decompress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                            size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                            void *const *dst_dev, const size_t *dst_caps_dev,
                                            size_t *dst_sizes_dev, oc_status *statuses_dev,
                                            cudaStream_t stream);

/*
 * oc_cuda_zstd_decompress_with is oc_cuda_zstd_decompress with the kernel
 * named by `kernel`: OC_ZSTD_DEC_AUTO (what oc_cuda_zstd_decompress does:
 * the lane-parallel kernel for batches that fill the GPU; else, for
 * batches whose capacities exceed a block or are unknown and that get a
 * frame-kernel CTA per chunk at once (up to 264: e.g. 1 GiB of 4 MiB
 * frames), the frame kernel for the multi-block frames and the per-chunk
 * kernel for the rest; else the per-chunk kernel; see zstd_decode.cu),
 * OC_ZSTD_DEC_PER_CHUNK (always the per-chunk kernel), OC_ZSTD_DEC_LANES
 * (the lane-parallel kernel in groups of 4 whatever the batch's size,
 * wherever the capacities and the scratch allow it; else the per-chunk
 * kernel) or OC_ZSTD_DEC_FRAMES (the frame kernel for multi-block frames
 * where capacities exceed a block or are unknown, whatever the batch's
 * size, then the per-chunk kernel for what it left; never the lane kernel).  Results are the same in
 * all four, chunk by chunk;
 * the tests (test_cuda_zstd_lanes.c) and the harness
 * (bench/gpu/dev/zstd_lanes.cu) compare them.  An OK chunk's output is
 * written up to its size only; a chunk that fails may have bytes written
 * anywhere below its content size (and capacity).
 */
enum { OC_ZSTD_DEC_AUTO = 0, OC_ZSTD_DEC_PER_CHUNK = 1, OC_ZSTD_DEC_LANES = 2, OC_ZSTD_DEC_FRAMES = 3 };
/* The codec with the kernel named (oc_cuda_zstd_decompress_forced's). */
OC_HIDDEN extern const oc_gpu_codec oc_gpu_codec_zstd_per_chunk;
OC_HIDDEN extern const oc_gpu_codec oc_gpu_codec_zstd_lanes;
OC_HIDDEN extern const oc_gpu_codec oc_gpu_codec_zstd_frames;
OC_HIDDEN oc_status oc_cuda_zstd_decompress_with(void *scratch_dev, size_t scratch_size,
                                                 const oc_gpu_config *cfg, int kernel, size_t n,
                                                 const void *const *src_dev, const size_t *src_sizes_dev,
                                                 void *const *dst_dev, const size_t *dst_caps_dev,
                                                 size_t *dst_sizes_dev, oc_status *statuses_dev,
                                                 cudaStream_t stream);

/*
 * oc_cuda_zstd_compress_scratch_size returns the bytes of DEVICE scratch that
 * oc_cuda_zstd_compress needs at `level` to give each task its own worker
 * (one warp with ~1 MiB of match tables, sequence and literal buffers) for
 * at most OC_ZSTD_ENC_MAX_WARPS workers: a task is a chunk, or at levels
 * 1-3 a 128 KiB block of a larger chunk (counted from sizes_host, the
 * chunks' sizes in host memory, or NULL: as if they were 1 MiB), plus 12
 * bytes a chunk for the plan of the tasks.  Less scratch also works (fewer
 * workers, each compressing more tasks), down to one worker's slice.
 */
#define OC_ZSTD_ENC_MAX_WARPS 4096
OC_HIDDEN size_t oc_cuda_zstd_compress_scratch_size(size_t n, int level, const size_t *sizes_host);

/*
 * oc_cuda_zstd_compress compresses n chunks on the GPU at cfg->level (<= 1
 * the fast variant, >= 2 the lazy variants: see zstd_enc_core.h and
 * bench/gpu/zstd/ENC_NOTES.md).  Results: dst_sizes_dev[i] the frame's
 * size, statuses_dev[i] OK, OUTPUT_TOO_SMALL (the frame does not fit;
 * nothing is written past the capacity), CHUNK_TOO_LARGE (>= 4 GiB) or
 * INVALID_ARGUMENT (NULL chunk pointer).  At levels 1-3 a chunk over 128
 * KiB whose capacity holds its frame of Raw blocks runs a warp a block:
 * its blocks are staged in that frame's places and then moved down, so
 * the bytes past the frame (up to that size) are overwritten.  scratch_dev:
 * at least oc_cuda_zstd_compress_scratch_size(1, 0, NULL) bytes.
 */
OC_HIDDEN oc_status oc_cuda_zstd_compress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                          size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                          void *const *dst_dev, const size_t *dst_caps_dev,
                                          size_t *dst_sizes_dev, oc_status *statuses_dev,
                                          cudaStream_t stream);

/* Harness only: picks the kernel compiled for 3, 4 (default) or 5 resident
 * blocks of 4 warps per SM (fewer registers per thread).  Not thread-safe. */
OC_HIDDEN void oc_cuda_zstd_debug_set_min_blocks(int min_blocks);

#ifdef ZD_PROFILE
/* Harness only, builds with -DZD_PROFILE: cycles per phase summed over
 * warps (see zstd_decode_core.h); reset != 0 zeroes the counters after. */
OC_HIDDEN void oc_cuda_zstd_debug_profile(unsigned long long out[8], int reset);
#endif

#ifdef __cplusplus
}
#endif
#endif /* OC_ZSTD_GPU_H */
