/*
 * host_alloc.c - host scratch memory through the context's host allocator
 * (malloc-like default, 64-byte aligned), so a caller's allocator (e.g. a
 * pool, or tracking for tests) sees every host allocation the library makes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "oc_internal.h"

void *oc_host_alloc(oc_context *ctx, size_t size)
{
    if (size == 0)
        size = 1;
    if (ctx && ctx->opts.host_alloc.alloc)
        return ctx->opts.host_alloc.alloc(ctx->opts.host_alloc.opaque, size, NULL);
    void *p = NULL;
    if (posix_memalign(&p, 64, size) != 0)
        return NULL;
    return p;
}

void oc_host_free(oc_context *ctx, void *ptr, size_t size)
{
    if (!ptr)
        return;
    if (size == 0)
        size = 1;
    if (ctx && ctx->opts.host_alloc.alloc) {
        ctx->opts.host_alloc.free(ctx->opts.host_alloc.opaque, ptr, size, NULL);
        return;
    }
    free(ptr);
}
