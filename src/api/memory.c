/*
 * memory.c - the public memory helpers (oc_pointer_kind, oc_pointer_device, oc_memory_*,
 * oc_context_synchronize).  Host memory is handled here; device and pinned
 * memory go to the CUDA engine (whose stub answers NO_DEVICE in builds
 * without CUDA), so callers without CUDA bindings can still move data.
 */
#include <string.h>

#include "../common/oc_internal.h"
#include "../cuda/runtime/cuda_engine.h"

oc_memory_kind oc_pointer_kind(const void *p)
{
    if (!p)
        return OC_MEMORY_HOST;
    return oc_cuda_pointer_kind(p);
}

int oc_pointer_device(const void *p)
{
    return p ? oc_cuda_pointer_device(p) : -1;
}

oc_status oc_memory_alloc(oc_context *ctx, oc_memory_kind kind, size_t size, void **out)
{
    RETURN_ERROR_IF(ctx == NULL || out == NULL, OC_ERR_INVALID_ARGUMENT);
    switch (kind) {
    case OC_MEMORY_HOST: {
        void *p = oc_host_alloc(ctx, size);
        RETURN_ERROR_IF(p == NULL, OC_ERR_OUT_OF_MEMORY);
        *out = p;
        return OC_OK;
    }
    case OC_MEMORY_DEVICE:
    case OC_MEMORY_PINNED:
        return oc_cuda_memory_alloc(ctx, kind, size, out);
    default: /* MANAGED is only ever reported, never allocated */
        return OC_ERR_INVALID_ARGUMENT;
    }
}

void oc_memory_free(oc_context *ctx, oc_memory_kind kind, void *ptr, size_t size)
{
    if (!ctx || !ptr)
        return;
    if (kind == OC_MEMORY_HOST)
        oc_host_free(ctx, ptr, size);
    else if (kind == OC_MEMORY_DEVICE || kind == OC_MEMORY_PINNED)
        oc_cuda_memory_free(ctx, kind, ptr, size);
}

oc_status oc_memory_copy(oc_context *ctx, void *dst, const void *src, size_t n)
{
    RETURN_ERROR_IF(ctx == NULL, OC_ERR_INVALID_ARGUMENT);
    if (n == 0)
        return OC_OK;
    RETURN_ERROR_IF(dst == NULL || src == NULL, OC_ERR_INVALID_ARGUMENT);
    oc_memory_kind kd = oc_pointer_kind(dst), ks = oc_pointer_kind(src);
    if ((kd == OC_MEMORY_HOST || kd == OC_MEMORY_PINNED) &&
        (ks == OC_MEMORY_HOST || ks == OC_MEMORY_PINNED)) {
        memmove(dst, src, n);
        return OC_OK;
    }
    return oc_cuda_memory_copy(ctx, dst, src, n);
}

oc_status oc_context_synchronize(oc_context *ctx)
{
    RETURN_ERROR_IF(ctx == NULL, OC_ERR_INVALID_ARGUMENT);
    return oc_cuda_synchronize(ctx);
}
