/*
 * simple.c - the one-call layer (oc_compress, oc_decompress,
 * oc_compress_bound_simple of include/opencomp.h): the whole-buffer layer
 * with default options and a context made for the call, for users who want
 * ZSTD_compress's shape.
 */
#include "../common/oc_internal.h"

static oc_buffer_options simple_options(oc_algorithm algorithm, int level)
{
    oc_buffer_options o = OC_BUFFER_OPTIONS_INIT;
    o.algorithm = algorithm;
    o.level = level;
    return o;
}

size_t oc_compress_bound_simple(oc_algorithm algorithm, uint64_t src_size)
{
    oc_buffer_options o = simple_options(algorithm, 0);
    return oc_buffer_compress_bound(&o, src_size);
}

oc_status oc_compress(oc_algorithm algorithm, int level, const void *src, size_t src_size, void *dst,
                      size_t dst_capacity, size_t *dst_size)
{
    RETURN_ERROR_IF(!dst_size, OC_ERR_INVALID_ARGUMENT);
    *dst_size = 0;
    oc_buffer_options o = simple_options(algorithm, level);
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    oc_context *ctx = NULL;
    FORWARD_IF_ERROR(oc_context_create(&co, &ctx));
    uint64_t got = 0;
    oc_status st = oc_buffer_compress(ctx, &o, src, src_size, dst, dst_capacity, &got);
    oc_context_destroy(ctx);
    if (st == OC_OK)
        *dst_size = (size_t)got;
    return st;
}

oc_status oc_decompress(const void *src, size_t src_size, void *dst, size_t dst_capacity, size_t *dst_size)
{
    RETURN_ERROR_IF(!dst_size, OC_ERR_INVALID_ARGUMENT);
    *dst_size = 0;
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    oc_context *ctx = NULL;
    FORWARD_IF_ERROR(oc_context_create(&co, &ctx));
    uint64_t got = 0;
    oc_status st = oc_buffer_decompress(ctx, NULL, src, src_size, dst, dst_capacity, &got, NULL);
    oc_context_destroy(ctx);
    if (st == OC_OK)
        *dst_size = (size_t)got;
    return st;
}
