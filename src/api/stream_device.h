/*
 * stream_device.h - device staging for the streaming reader and writer on a
 * CUDA-engine context (issue 19: groups "compressed in parallel batches on
 * the CPU or the GPU").  The caller's bytes are in host memory; a context
 * whose engine is OC_ENGINE_CUDA runs its kernels on device memory only.
 * So a group goes to the device in one copy, runs as one batched call of
 * device buffers, and its results come back in one copy; everything else
 * (checksums, container bytes, the index) stays on the host, as on the CPU
 * engine.  The device buffers grow to the largest group and are kept until
 * the stream is destroyed.  A context of another engine (CPU, AUTO) needs
 * none of this: AUTO runs host data on the CPU engine.
 */
#ifndef OC_STREAM_DEVICE_H
#define OC_STREAM_DEVICE_H

#include <stddef.h>

#include "../common/oc_internal.h"

typedef struct oc_stream_dev {
    oc_context *ctx; /* NULL: the stream runs on host memory (no staging) */
    void *in, *out;  /* device memory */
    size_t in_cap, out_cap;
} oc_stream_dev;

/* Sets d up for ctx: staging when the context's engine is CUDA. */
OC_HIDDEN void oc_stream_dev_init(oc_stream_dev *d, oc_context *ctx);

/* Makes d->in hold at least `in` bytes and d->out at least `out` (at
 * least one byte each, so that empty chunks have a valid address). */
OC_HIDDEN oc_status oc_stream_dev_reserve(oc_stream_dev *d, size_t in, size_t out);

/* Copies n bytes between host and device memory and waits for it. */
OC_HIDDEN oc_status oc_stream_dev_copy(oc_stream_dev *d, void *dst, const void *src, size_t n);

OC_HIDDEN void oc_stream_dev_free(oc_stream_dev *d);

#endif /* OC_STREAM_DEVICE_H */
