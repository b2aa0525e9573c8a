/*
 * stream_device.c - device staging of the streaming reader and writer on a
 * CUDA-engine context (stream_device.h says why).
 */
#include "stream_device.h"

void oc_stream_dev_init(oc_stream_dev *d, oc_context *ctx)
{
    d->ctx = ctx->opts.engine == OC_ENGINE_CUDA ? ctx : NULL;
    d->in = d->out = NULL;
    d->in_cap = d->out_cap = 0;
}

static oc_status grow(oc_stream_dev *d, void **p, size_t *cap, size_t want)
{
    if (want == 0)
        want = 1;
    if (*cap >= want)
        return OC_OK;
    if (*p) {
        FORWARD_IF_ERROR(oc_context_synchronize(d->ctx)); /* nothing still reads it */
        oc_memory_free(d->ctx, OC_MEMORY_DEVICE, *p, *cap);
        *p = NULL;
        *cap = 0;
    }
    FORWARD_IF_ERROR(oc_memory_alloc(d->ctx, OC_MEMORY_DEVICE, want, p));
    *cap = want;
    return OC_OK;
}

oc_status oc_stream_dev_reserve(oc_stream_dev *d, size_t in, size_t out)
{
    FORWARD_IF_ERROR(grow(d, &d->in, &d->in_cap, in));
    return grow(d, &d->out, &d->out_cap, out);
}

oc_status oc_stream_dev_copy(oc_stream_dev *d, void *dst, const void *src, size_t n)
{
    if (n == 0)
        return OC_OK;
    FORWARD_IF_ERROR(oc_memory_copy(d->ctx, dst, src, n));
    return oc_context_synchronize(d->ctx);
}

void oc_stream_dev_free(oc_stream_dev *d)
{
    if (!d->ctx)
        return;
    oc_context_synchronize(d->ctx);
    if (d->in)
        oc_memory_free(d->ctx, OC_MEMORY_DEVICE, d->in, d->in_cap);
    if (d->out)
        oc_memory_free(d->ctx, OC_MEMORY_DEVICE, d->out, d->out_cap);
    d->in = d->out = NULL;
    d->in_cap = d->out_cap = 0;
}
