/*
 * fuzz_own_codec.h - what the fuzz targets of our own formats' cores
 * (fuzz_codec_cascaded.c, fuzz_codec_bitcomp.c, fuzz_codec_ans.c) share:
 * the round trip of data and the checks of a hostile stream, each core
 * reached through two small callbacks.  Input and output are exactly-sized
 * heap buffers (fuzz_common.h), so a one-byte overread or overwrite
 * faults under ASan.  fuzz_codec_gdeflate.c takes only the capacity table:
 * its checks compare two decoders (the CPU one and the GPU core) on the
 * size query and the round trip too, which these do not.
 */
#ifndef FUZZ_OWN_CODEC_H
#define FUZZ_OWN_CODEC_H

#include "fuzz_common.h"

/* A core's chunk compressor and decompressor run with nw warps (a core
 * with one way of running ignores nw); ctx: the target's own options. */
typedef struct fuzz_own_codec {
    oc_status (*compress)(const void *ctx, const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap,
                          uint64_t *out, uint32_t nw);
    oc_status (*decompress)(const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap, uint64_t *out,
                            uint32_t nw);
    uint32_t nw; /* > 1: the warp count that must agree with one warp; 0: run once */
} fuzz_own_codec;

/* DATA: compressed into cap bytes (the bound) with one warp and with c->nw
 * warps (the same bytes required), decoded (the same data required) and
 * decoded into one byte less (OUTPUT_TOO_SMALL required). */
static inline void fuzz_own_roundtrip(const fuzz_own_codec *c, const void *ctx, const uint8_t *data,
                                      size_t size, size_t cap)
{
    uint8_t *in = fuzz_copy(data, size);
    uint8_t *a = (uint8_t *)malloc(cap), *b = (uint8_t *)malloc(cap),
            *back = (uint8_t *)malloc(size ? size : 1);
    if (!a || !b || !back)
        abort();
    uint64_t na = 0, nb = 0, got = 0;
    if (c->compress(ctx, in, size, a, cap, &na, 1) != OC_OK || na > cap)
        abort();
    if (c->nw &&
        (c->compress(ctx, in, size, b, cap, &nb, c->nw) != OC_OK || na != nb || memcmp(a, b, (size_t)na)))
        abort();
    uint8_t *exact = fuzz_copy(a, (size_t)na);
    if (c->decompress(exact, (size_t)na, back, size, &got, 1) != OC_OK || got != size ||
        (size && memcmp(back, in, size)))
        abort();
    if (size && c->decompress(exact, (size_t)na, back, size - 1, &got, 1) != OC_ERR_OUTPUT_TOO_SMALL)
        abort();
    free(exact);
    free(in);
    free(a);
    free(b);
    free(back);
}

/* A STREAM, decoded into cap bytes: a failure reports no bytes, an OK
 * decode never more than the capacity; with c->nw warps the same status,
 * size and bytes as with one; the size query (no output) the same status
 * and size. */
static inline void fuzz_own_stream(const fuzz_own_codec *c, const uint8_t *data, size_t size, size_t cap)
{
    uint8_t *in = fuzz_copy(data, size);
    uint8_t *o1 = (uint8_t *)malloc(cap ? cap : 1), *o3 = (uint8_t *)malloc(cap ? cap : 1);
    if (!o1 || !o3)
        abort();
    uint64_t g1 = 0, g3 = 0, gs = 0;
    oc_status s1 = c->decompress(in, size, o1, cap, &g1, 1);
    if (g1 > cap || (s1 != OC_OK && g1 != 0))
        abort();
    if (c->nw) {
        oc_status s3 = c->decompress(in, size, o3, cap, &g3, c->nw);
        if (s1 != s3 || g1 != g3 || (s1 == OC_OK && g1 && memcmp(o1, o3, (size_t)g1)))
            abort();
    }
    oc_status ss = c->decompress(in, size, NULL, 0, &gs, 1);
    if (s1 != OC_ERR_OUTPUT_TOO_SMALL && (ss != s1 || (s1 == OC_OK && gs != g1)))
        abort();
    free(in);
    free(o1);
    free(o3);
}

/* Byte 0's bits 0-1 of every target: the output capacity of a stream. */
static inline size_t fuzz_own_capacity(unsigned mode)
{
    static const size_t caps[4] = {0, 100, 65536, 1 << 18};
    return caps[mode & 3];
}

#endif /* FUZZ_OWN_CODEC_H */
