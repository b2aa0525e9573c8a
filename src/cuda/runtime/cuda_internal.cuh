/*
 * cuda_internal.cuh - what the runtime's .cu files share with the codecs
 * and the container kernels, and nothing outside src/cuda sees: the
 * host-staged path.  Codecs themselves are
 * reached through gpu_codec.h.
 *
 * No C++ runtime features (new, exceptions, guarded statics) are used in
 * src/cuda, so the static library links into plain C programs.
 */
#ifndef OC_CUDA_INTERNAL_CUH
#define OC_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_engine.h"

/* Host-staged path (cuda_staged.cu) for algorithms without kernels; op is
 * 0 compress, 1 decompress, 2 decompressed sizes.  Synchronises. */
oc_status oc_cuda_staged_batch(oc_context *ctx, const oc_codec_options *options, int op, size_t n,
                               const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                               const size_t *dst_caps, size_t *out_sizes, oc_status *statuses);
/* The slot of the engine state that holds the staged path's CPU context
 * (creates the engine state if needed; NULL when out of memory). */
oc_context **oc_cuda_state_cpu_ctx(oc_context *ctx);

#endif /* OC_CUDA_INTERNAL_CUH */
