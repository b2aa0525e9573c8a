/*
 * context_api.c - creating and destroying an oc_context: options are checked
 * (struct_size, reserved words zero, enums in range, allocators complete),
 * defaults resolved (threads = online cores), and everything the engines
 * created lazily (thread pool, codec states, CUDA state) freed with it;
 * with OC_CONTEXT_OWN_STREAM, the context's own non-blocking stream.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/oc_internal.h"
#include "../cpu/cpu_engine.h"
#include "../cuda/runtime/cuda_engine.h"

#define OC_MAX_THREADS 1024

static int allocator_ok(const oc_allocator *a)
{
    return (a->alloc == NULL) == (a->free == NULL);
}

static int online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > OC_MAX_THREADS ? OC_MAX_THREADS : (int)n;
}

oc_status oc_context_create(const oc_context_options *options, oc_context **out)
{
    RETURN_ERROR_IF(out == NULL, OC_ERR_INVALID_ARGUMENT);
    oc_context_options opts = OC_CONTEXT_OPTIONS_INIT;
    if (options) {
        RETURN_ERROR_IF(!OC_OPTIONS_SIZE_OK(options, oc_context_options), OC_ERR_INVALID_ARGUMENT);
        opts = *options;
        opts.struct_size = sizeof opts;
    }
    for (size_t i = 0; i < sizeof(opts.reserved) / sizeof(opts.reserved[0]); i++)
        RETURN_ERROR_IF(opts.reserved[i] != 0, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF((unsigned)opts.engine > OC_ENGINE_CUDA, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(opts.num_threads < 0 || opts.num_threads > OC_MAX_THREADS, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(opts.device_id < 0, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(!allocator_ok(&opts.host_alloc) || !allocator_ok(&opts.pinned_alloc) ||
                        !allocator_ok(&opts.device_alloc),
                    OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(opts.engine == OC_ENGINE_CUDA && oc_cuda_forked(), OC_ERR_FORKED);
    RETURN_ERROR_IF(opts.engine == OC_ENGINE_CUDA && !oc_cuda_available(), OC_ERR_NO_DEVICE);
    RETURN_ERROR_IF((opts.flags & ~OC_CONTEXT_OWN_STREAM) != 0, OC_ERR_INVALID_ARGUMENT);

    oc_context *ctx = calloc(1, sizeof(*ctx));
    RETURN_ERROR_IF(ctx == NULL, OC_ERR_OUT_OF_MEMORY);
    ctx->opts = opts;
    ctx->num_threads = opts.num_threads ? opts.num_threads : online_cores();
    if ((opts.flags & OC_CONTEXT_OWN_STREAM) && opts.cuda_stream == NULL && oc_cuda_available()) {
        oc_status s = oc_cuda_stream_create(ctx, &ctx->own_stream);
        if (s != OC_OK) {
            free(ctx);
            return s;
        }
        ctx->opts.cuda_stream = ctx->own_stream;
    }
    *out = ctx;
    return OC_OK;
}

void oc_context_destroy(oc_context *ctx)
{
    if (!ctx)
        return;
    oc_context_destroy(ctx->staging_cpu);
    oc_cpu_engine_release(ctx);
    oc_cuda_context_release(ctx); /* scratch is freed on the stream: before the stream goes */
    oc_cuda_stream_destroy(ctx, ctx->own_stream);
    free(ctx);
}

oc_status oc_context_set_stream(oc_context *ctx, void *cuda_stream)
{
    RETURN_ERROR_IF(ctx == NULL, OC_ERR_INVALID_ARGUMENT);
    ctx->opts.cuda_stream = cuda_stream ? cuda_stream : ctx->own_stream;
    return OC_OK;
}

void *oc_context_stream(const oc_context *ctx)
{
    return ctx ? ctx->opts.cuda_stream : NULL;
}

oc_status oc_context_wait_stream(oc_context *ctx, void *other)
{
    RETURN_ERROR_IF(ctx == NULL, OC_ERR_INVALID_ARGUMENT);
    if (other == ctx->opts.cuda_stream)
        return OC_OK;
    return oc_cuda_wait_stream(ctx, other);
}

int oc_context_num_threads(const oc_context *ctx)
{
    return ctx ? ctx->num_threads : 0;
}
