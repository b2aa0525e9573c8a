/*
 * staging.h - host staging of device data through the CPU engine
 * (staging.c), the API layer's fallback engine for device data.
 */
#ifndef OC_API_STAGING_H
#define OC_API_STAGING_H

#include "../common/oc_internal.h"

/* A batched call (op: 0 compress, 1 decompress, 2 decompressed sizes) on
 * device data, run by the CPU engine.  Synchronises. */
OC_HIDDEN oc_status oc_staged_batch(oc_context *ctx, const oc_codec_options *options, int op, size_t n,
                                    const void *const *src_ptrs, const size_t *src_sizes,
                                    void *const *dst_ptrs, const size_t *dst_caps, size_t *out_sizes,
                                    oc_status *statuses);
/* The whole-buffer calls on device (or mixed) buffers, run on the host. */
OC_HIDDEN oc_status oc_staged_buffer_compress(oc_context *ctx, const oc_buffer_options *options,
                                              const void *src, uint64_t src_size, void *dst,
                                              uint64_t dst_capacity, uint64_t *dst_size);
OC_HIDDEN oc_status oc_staged_buffer_decompress(oc_context *ctx, const oc_buffer_options *hint,
                                                const void *src, uint64_t src_size, void *dst,
                                                uint64_t dst_capacity, uint64_t *dst_size,
                                                uint64_t *failed_chunk);

#endif /* OC_API_STAGING_H */
