/*
 * cuda_wus.h - the WITH_UNCOMPRESSED_SIZE kind (oc_codec_options.kind) on
 * the CUDA engine: small kernels around a codec's launch, so that any GPU
 * codec serves the kind without knowing of it.  The engine
 * (cuda_engine.cu) enqueues, on its stream:
 *
 *   compression:   before -> codec on dst + 8, capacity - 8 -> after (writes
 *                  the 8-byte size header of each chunk that compressed);
 *   decompression: before (reads each header: src/common/wus.h's
 *                  oc_wus_read, the CPU engine's check) -> codec on src + 8
 *                  -> after (SIZE_MISMATCH where the stream decoded to
 *                  another size than its header's);
 *   sizes:         one kernel reading the headers; no codec.
 *
 * And for RAW chunks, one kernel after a codec's size query: the same
 * hostile-size guard on the sizes the codec read (snappy preambles, zstd
 * content sizes), so no engine reports a size its stream cannot reach.
 *
 * Statuses are the CPU engine's (src/cpu/cpu_engine.c), in its order: a
 * NULL pointer with a nonzero size INVALID_ARGUMENT; compression into less
 * than 8 bytes OUTPUT_TOO_SMALL; decoding: TRUNCATED below 8 bytes,
 * CORRUPT for a size more than the stream can decode to, OUTPUT_TOO_SMALL
 * for a size above the capacity (nothing decoded), then the codec's status,
 * then SIZE_MISMATCH.  A chunk that failed before the codec is handed to it
 * with sizes 0 and its status kept.  Every pointer here is DEVICE-accessible
 * memory; nothing synchronises, nothing is allocated: the arrays live in the
 * engine's scratch (oc_wus_scratch_size bytes from a 256-byte boundary).
 */
#ifndef OC_CUDA_WUS_H
#define OC_CUDA_WUS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "../../common/oc_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The arrays the codec runs on: its inputs and outputs, in scratch. */
typedef struct oc_wus_codec_args {
    const void *const *src_dev;
    const size_t *src_sizes_dev;
    void *const *dst_dev;
    const size_t *dst_caps_dev;
    size_t *dst_sizes_dev;   /* the codec's sizes (the stream's alone) */
    oc_status *statuses_dev; /* the codec's statuses */
} oc_wus_codec_args;

/* Bytes of device scratch the kind needs around a codec launch of n chunks. */
OC_HIDDEN size_t oc_wus_scratch_size(size_t n);

/* Enqueues the kernel before the codec of a compression (decode 0) or a
 * decompression (decode 1) of n chunks, the caller's arrays as given
 * (src_dev ... dst_caps_dev), and fills *args with the arrays to launch
 * the codec on.  ratio: the algorithm's oc_algo_expansion (decoding). */
OC_HIDDEN oc_status oc_wus_launch_before(void *scratch_dev, int decode, uint32_t ratio, size_t n,
                                         const void *const *src_dev, const size_t *src_sizes_dev,
                                         void *const *dst_dev, const size_t *dst_caps_dev,
                                         oc_wus_codec_args *args, cudaStream_t stream);

/* Enqueues the kernel after the codec: the caller's results, sizes counting
 * the header (0 for a failed chunk).  src_sizes_dev and dst_dev: the
 * caller's arrays (compression writes each header at dst_dev[i]).
 * dst_sizes_dev and statuses_dev may be NULL. */
OC_HIDDEN oc_status oc_wus_launch_after(void *scratch_dev, int decode, size_t n, const size_t *src_sizes_dev,
                                        void *const *dst_dev, size_t *dst_sizes_dev, oc_status *statuses_dev,
                                        cudaStream_t stream);

/* Enqueues the size query of n chunks: each header, guarded as above (0 for
 * a failed chunk); the streams are not read.  statuses_dev may be NULL. */
OC_HIDDEN oc_status oc_wus_launch_sizes(uint32_t ratio, size_t n, const void *const *src_dev,
                                        const size_t *src_sizes_dev, size_t *sizes_dev,
                                        oc_status *statuses_dev, cudaStream_t stream);

/* Enqueues the hostile-size guard after a codec's size query of n RAW
 * chunks (the CPU engine's check): a size above oc_max_decoded_at(ratio,
 * src_sizes_dev[i]) becomes 0 and CORRUPT.  statuses_dev may be NULL. */
OC_HIDDEN oc_status oc_size_guard_launch(uint32_t ratio, size_t n, const size_t *src_sizes_dev,
                                         size_t *sizes_dev, oc_status *statuses_dev, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* OC_CUDA_WUS_H */
