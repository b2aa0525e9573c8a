/*
 * own_cpu.h - what the CPU codecs of our own formats (Cascaded, Bitcomp,
 * ANS) share, so each writes only the calls into its core: the core's
 * workspace as the worker's state in the codec's slot, the chunk size
 * limit, the call's typed options (the defaults when it has none), and
 * the size query as a decode that writes nothing (its statuses are
 * decoding's, as on the GPU).
 */
#ifndef OC_OWN_CPU_H
#define OC_OWN_CPU_H

#include "../../../common/typed_options.h"
#include "../../../cores/own_format.h"
#include "../../cpu_codec.h"

/* A codec: its slot and workspace size, and its core's chunk functions
 * run as one one-lane warp (out: the bytes written, or the decoded size). */
typedef struct own_cpu_codec {
    unsigned slot;  /* the algorithm: the worker's state slot */
    size_t ws_size; /* the core's workspace */
    oc_status (*compress)(void *ws, const oc_typed_options *typed, const uint8_t *src, size_t n, uint8_t *dst,
                          size_t cap, uint64_t *out);
    oc_status (*decompress)(void *ws, const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap,
                            uint64_t *out); /* dst NULL: checks only */
} own_cpu_codec;

static inline oc_status own_cpu_compress(const own_cpu_codec *k, oc_cpu_worker *w, const uint8_t *src,
                                         size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    RETURN_ERROR_IF(n > OWN_MAX_CHUNK, OC_ERR_CHUNK_TOO_LARGE);
    void *ws = oc_worker_state(w, k->slot, k->ws_size);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    static const oc_typed_options defaults = {OC_TYPE_DEFAULT, 0, 0, 0};
    const oc_typed_options *typed = w->opts ? &w->opts->typed : &defaults;
    uint64_t got = 0;
    oc_status st = k->compress(ws, typed, src, n, dst, cap, &got);
    *out = (size_t)got;
    return st;
}

/* dst NULL and cap 0: the size query. */
static inline oc_status own_cpu_decompress(const own_cpu_codec *k, oc_cpu_worker *w, const uint8_t *src,
                                           size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    void *ws = oc_worker_state(w, k->slot, k->ws_size);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    uint64_t got = 0;
    oc_status st = k->decompress(ws, src, n, dst, cap, &got);
    *out = (size_t)got;
    return st;
}

/* The workspace is plain memory in the worker's slot, freed with it. */
static inline void own_cpu_release(oc_cpu_worker *w)
{
    (void)w;
}

/* cpu_codec.h's compress, decompress and decompressed_size of the codec
 * `k` (an own_cpu_codec), named prefix_compress, prefix_decompress and
 * prefix_size, for its oc_cpu_codec (whose release is own_cpu_release). */
#define OWN_CPU_ENTRY_POINTS(prefix, k)                                                                      \
    static oc_status prefix##_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src,   \
                                       size_t n, uint8_t *dst, size_t cap, size_t *out)                      \
    {                                                                                                        \
        (void)algo, (void)level;                                                                             \
        return own_cpu_compress(&(k), w, src, n, dst, cap, out);                                             \
    }                                                                                                        \
    static oc_status prefix##_decompress(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,  \
                                         uint8_t *dst, size_t cap, size_t *out)                              \
    {                                                                                                        \
        (void)algo;                                                                                          \
        return own_cpu_decompress(&(k), w, src, n, dst, cap, out);                                           \
    }                                                                                                        \
    static oc_status prefix##_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,        \
                                   size_t *size)                                                             \
    {                                                                                                        \
        (void)algo;                                                                                          \
        return own_cpu_decompress(&(k), w, src, n, NULL, 0, size);                                           \
    }

#endif /* OC_OWN_CPU_H */
