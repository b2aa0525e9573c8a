/*
 * cuda_filter.h - the stand-alone filters (oc_codec_options.filter: byte
 * shuffle, bitshuffle) on the CUDA engine, around any GPU codec's launch,
 * so a filtered call on device data no longer goes through the host (the
 * CPU engine runs the same filters, src/common/shuffle.h, around its
 * codecs).  The engine (cuda_engine.cu) enqueues, on its stream:
 *
 *   compression:   before (each chunk filtered into the filter's slab) ->
 *                  the codec reads the slab;
 *   decompression: before (each chunk's output pointed at the slab) -> the
 *                  codec decodes into the slab -> after (each chunk that
 *                  decoded is unfiltered from the slab into its output;
 *                  sizes and statuses as the codec gave them).
 *
 * The slab lives in the engine's scratch (cuda_engine.cu's oc_scratch:
 * the context's allocator, cached and grown, ordered after its last use),
 * one part per chunk of its size (compression: the source size;
 * decompression: the capacity), each from a 64-byte boundary; so the host
 * must read those sizes to size the scratch (oc_filter_scratch_size): with
 * size or capacity arrays in device memory, the API layer stages the call
 * through the CPU engine (src/api/batch.c).  Nothing synchronises.
 * Statuses and bytes are the CPU engine's: the trailing size % typesize
 * bytes, and a bitshuffled chunk whose element count is not a multiple of
 * 8, are copied as they are.  Every pointer here is DEVICE-accessible.
 */
#ifndef OC_CUDA_FILTER_H
#define OC_CUDA_FILTER_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "../../common/oc_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The arrays the codec runs on (in scratch, or the caller's as given). */
typedef struct oc_filter_codec_args {
    const void *const *src_dev;
    const size_t *src_sizes_dev;
    void *const *dst_dev;
    const size_t *dst_caps_dev;
    size_t *dst_sizes_dev;   /* decompression: the filter's own array (read by _after) */
    oc_status *statuses_dev; /* decompression: the filter's own array */
} oc_filter_codec_args;

/* Bytes of device scratch the filter needs for n chunks whose slab parts
 * are sizes_host[i] bytes (HOST memory: the source sizes for compression,
 * the capacities for decompression); SIZE_MAX when the sum overflows. */
OC_HIDDEN size_t oc_filter_scratch_size(size_t n, const size_t *sizes_host);

/* Enqueues the kernels before the codec: mode 1 byte shuffle, 2
 * bitshuffle, elements of t bytes; decode 0 compression (each chunk
 * filtered into the slab), 1 decompression.  The caller's arrays as given
 * (src_dev ... dst_caps_dev; decompression: dst_sizes_dev and
 * statuses_dev, where _after writes, may be NULL); scratch_size: what
 * oc_filter_scratch_size gave.  Fills *args with the arrays to launch the
 * codec on. */
OC_HIDDEN oc_status oc_filter_launch_before(void *scratch_dev, size_t scratch_size, int decode, int mode,
                                            uint32_t t, size_t n, const void *const *src_dev,
                                            const size_t *src_sizes_dev, void *const *dst_dev,
                                            const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                            oc_status *statuses_dev, oc_filter_codec_args *args,
                                            cudaStream_t stream);

/* Enqueues the unfilter after a decompression's codec: each chunk the
 * codec decoded (OK) unfiltered from the slab into dst_dev[i]; then the
 * codec's sizes and statuses into dst_sizes_dev and statuses_dev (either
 * may be NULL). */
OC_HIDDEN oc_status oc_filter_launch_after(void *scratch_dev, int mode, uint32_t t, size_t n,
                                           void *const *dst_dev, size_t *dst_sizes_dev,
                                           oc_status *statuses_dev, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* OC_CUDA_FILTER_H */
