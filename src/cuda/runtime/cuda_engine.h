/*
 * cuda_engine.h - the boundary between the API layer and the CUDA engine.
 *
 * The API layer (src/api/) calls only these functions.  When the library is
 * built without CUDA, src/cuda/runtime/cuda_stub.c provides them and every one
 * reports "unavailable"; with CUDA, the .cu files of src/cuda do.  Arguments mirror the
 * public batched calls (include/opencomp.h) one for one.
 */
#ifndef OC_CUDA_ENGINE_H
#define OC_CUDA_ENGINE_H

#include "../../common/oc_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 in a process forked after its parent initialised CUDA (never in builds
 * without CUDA): the engine is then unavailable, explicit requests for it
 * are OC_ERR_FORKED. */
OC_HIDDEN int oc_cuda_forked(void);
/* 1 if this build has the CUDA engine and a driver with >= 1 GPU is usable. */
OC_HIDDEN int oc_cuda_available(void);
/* 1 if the engine can run `algorithm` (compress and decompress). */
OC_HIDDEN int oc_cuda_algorithm_available(oc_algorithm algorithm);
/* 1 if the algorithm's GPU codec has operation `op` (0 compress, 1
 * decompress, 2 decompressed sizes); else the API layer stages the work
 * through the CPU engine (src/api/staging.c). */
OC_HIDDEN int oc_cuda_has_op(oc_algorithm algorithm, int op);
/* 1 if p points into device (or managed) memory; 0 for host or unknown. */
OC_HIDDEN int oc_cuda_is_device_pointer(const void *p);
/* Free ctx->cuda_state (called by oc_context_destroy). */
OC_HIDDEN void oc_cuda_context_release(oc_context *ctx);
/* One-line description for oc_build_info ("cuda: sm_80,sm_90,sm_100" or "cuda: none"). */
OC_HIDDEN const char *oc_cuda_build_info(void);

OC_HIDDEN oc_status oc_cuda_batch_compress(oc_context *ctx, const oc_codec_options *options, size_t n,
                                           const void *const *src_ptrs, const size_t *src_sizes,
                                           void *const *dst_ptrs, const size_t *dst_capacities,
                                           size_t *dst_sizes, oc_status *statuses);
OC_HIDDEN oc_status oc_cuda_batch_decompress(oc_context *ctx, const oc_codec_options *options, size_t n,
                                             const void *const *src_ptrs, const size_t *src_sizes,
                                             void *const *dst_ptrs, const size_t *dst_capacities,
                                             size_t *dst_sizes, oc_status *statuses);
/* oc_batch_decompress_packed on the CUDA engine: the four arrays (offsets,
 * sizes, offsets, capacities) GPU-reachable or pageable (staged through
 * pinned scratch); the pointer arrays built and bounds-checked on the
 * device (oc_packed_build_kernel), out-of-range chunks INVALID_ARGUMENT
 * after the codec. */
OC_HIDDEN oc_status oc_cuda_batch_decompress_packed(oc_context *ctx, const oc_codec_options *options,
                                                    size_t n, const void *src, size_t src_bytes,
                                                    const size_t *src_offsets, const size_t *src_sizes,
                                                    void *dst, size_t dst_bytes, const size_t *dst_offsets,
                                                    const size_t *dst_capacities, size_t *dst_sizes,
                                                    oc_status *statuses);
OC_HIDDEN oc_status oc_cuda_batch_compress_packed(oc_context *ctx, const oc_codec_options *options, size_t n,
                                                  const void *src, size_t src_bytes,
                                                  const size_t *src_offsets, const size_t *src_sizes,
                                                  void *dst, size_t dst_bytes, const size_t *dst_offsets,
                                                  const size_t *dst_capacities, size_t *dst_sizes,
                                                  oc_status *statuses);
/* Tests only (tests/c/test_cuda_lz4_split.c, test_cuda_snappy_split.c):
 * LZ4 or Snappy decompression (algo OC_ALGO_LZ4 or OC_ALGO_SNAPPY, else
 * INVALID_ARGUMENT), options at their defaults, as oc_cuda_batch_decompress
 * but with the split decoder for every chunk of at most 64 KiB whatever
 * the batch's size (the public path gives small batches to the pipe
 * alone); copy_only: with its parse never run, so that its copy kernel
 * decodes every such chunk alone (the self-decode path,
 * lz_common/lz_split_launch.cuh). */
OC_HIDDEN oc_status oc_cuda_lz_decompress_forced(oc_context *ctx, oc_algorithm algo, int copy_only, size_t n,
                                                 const void *const *src_ptrs, const size_t *src_sizes,
                                                 void *const *dst_ptrs, const size_t *dst_capacities,
                                                 size_t *dst_sizes, oc_status *statuses);
/* Tests only (test_cuda_zstd_lanes.c, test_cuda_zstd_frames.c): Zstandard decompression,
 * options at their defaults, as oc_cuda_batch_decompress but with the GPU
 * decoder's kernel named: lanes == 1 the lane-parallel kernel (groups of 4)
 * whatever the batch's size, where the capacities and scratch allow it;
 * lanes == 2 the frame kernel for multi-block frames, then the per-chunk
 * kernel for the rest (tests/c/test_cuda_zstd_frames.c); lanes == 0 the
 * per-chunk kernel (zstd_gpu.h, oc_cuda_zstd_decompress_with). */
OC_HIDDEN oc_status oc_cuda_zstd_decompress_forced(oc_context *ctx, int lanes, size_t n,
                                                   const void *const *src_ptrs, const size_t *src_sizes,
                                                   void *const *dst_ptrs, const size_t *dst_capacities,
                                                   size_t *dst_sizes, oc_status *statuses);
OC_HIDDEN oc_status oc_cuda_batch_decompressed_sizes(oc_context *ctx, const oc_codec_options *options,
                                                     size_t n, const void *const *src_ptrs,
                                                     const size_t *src_sizes, size_t *sizes,
                                                     oc_status *statuses);

/* The whole-buffer layer's primitives on device buffers (src and dst in
 * device memory), which src/api/buffer.c drives.  Compression of a NATIVE
 * container (src/format/container.h's oc_native), when the chunks have a
 * GPU compressor: oc_cuda_native_begin gives the state that buffer.c's
 * compress_native hands to the steps of oc_cuda_native_steps (one group
 * of *per_group chunks: all of them).  A plan of
 * src/format/sparse_plan.c (from src's head and tail) that the GPU runs:
 * oc_cuda_plan_begin copies its chunk list to the device and launches its
 * device checks (probes, in-chunk checks: CORRUPT where the CPU parser
 * would reject src) and gives the state that buffer.c's run_plan hands to
 * the steps of oc_cuda_plan_steps (src/format/plan.h; statuses, failed
 * chunk and checksums as the host's steps'). */
struct oc_container_plan;
struct oc_sparse;
struct oc_plan_steps;
struct oc_native;
struct oc_native_steps;
OC_HIDDEN oc_status oc_cuda_native_begin(oc_context *ctx, const oc_buffer_options *options,
                                         const struct oc_native *nt, const void *src, uint64_t src_size,
                                         void *dst, uint64_t dst_capacity, void **self, size_t *per_group);
OC_HIDDEN extern const struct oc_native_steps oc_cuda_native_steps;
OC_HIDDEN oc_status oc_cuda_plan_begin(oc_context *ctx, const struct oc_container_plan *plan,
                                       const struct oc_sparse *sh, int verify, const void *src,
                                       uint64_t src_size, void *dst, uint64_t dst_capacity, void **self);
OC_HIDDEN extern const struct oc_plan_steps oc_cuda_plan_steps;

/* Memory helpers behind oc_pointer_kind, oc_pointer_device, oc_memory_*, oc_context_synchronize.
 * (oc_cuda_device_count is public and defined by the engine or the stub.) */
OC_HIDDEN oc_memory_kind oc_cuda_pointer_kind(const void *p);
OC_HIDDEN int oc_cuda_pointer_device(const void *p);
OC_HIDDEN oc_status oc_cuda_memory_alloc(oc_context *ctx, oc_memory_kind kind, size_t size, void **out);
OC_HIDDEN void oc_cuda_memory_free(oc_context *ctx, oc_memory_kind kind, void *ptr, size_t size);
OC_HIDDEN oc_status oc_cuda_memory_copy(oc_context *ctx, void *dst, const void *src, size_t n);
OC_HIDDEN oc_status oc_cuda_synchronize(oc_context *ctx);
/* For the engine's own .cu files (the whole-buffer layer, src/cuda/container/):
 * the context's device made current (*prev gets the caller's, -1 for none)
 * and the caller's given back; device memory of one call through the
 * context's allocator, stream-ordered (size > 0). */
OC_HIDDEN oc_status oc_cuda_enter(oc_context *ctx, int *prev);
OC_HIDDEN void oc_cuda_leave(oc_context *ctx, int prev);
OC_HIDDEN void *oc_cuda_dev_alloc(oc_context *ctx, size_t size);
OC_HIDDEN void oc_cuda_dev_free(oc_context *ctx, void *p, size_t size);
/* OC_CONTEXT_OWN_STREAM: a non-blocking stream on the context's device, and its end. */
OC_HIDDEN oc_status oc_cuda_stream_create(oc_context *ctx, void **out);
OC_HIDDEN void oc_cuda_stream_destroy(oc_context *ctx, void *stream);
/* oc_context_wait_stream's GPU side. */
OC_HIDDEN oc_status oc_cuda_wait_stream(oc_context *ctx, void *other);

#ifdef __cplusplus
}
#endif
#endif /* OC_CUDA_ENGINE_H */
