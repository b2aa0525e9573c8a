/*
 * zstd_ref.h - libzstd frames for the zstd GPU-core tests, written once
 * (test_zstd_gpu_blocks.c and test_zstd_gpu_lanes.c need the same frames):
 * a level, a content checksum or not, the content size stated or not, and
 * a block boundary every `flush` bytes (0: none forced).  Include after
 * soft_check.h (REQUIRE).  The frame is malloc'ed; its size goes to *zn.
 */
#ifndef OC_TEST_ZSTD_REF_H
#define OC_TEST_ZSTD_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <zstd.h>

static uint8_t *zstd_ref_compress(const uint8_t *src, size_t n, int level, int checksum, int pledge,
                                  size_t flush, size_t *zn)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
    if (pledge)
        ZSTD_CCtx_setPledgedSrcSize(c, n);
    else
        ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
    size_t cap = ZSTD_compressBound(n) + n / 64 + 1024;
    uint8_t *out = malloc(cap);
    REQUIRE(out);
    ZSTD_outBuffer o = {out, cap, 0};
    size_t step = flush ? flush : n;
    for (size_t at = 0;;) {
        size_t m = n - at < step ? n - at : step;
        ZSTD_inBuffer in = {src + at, m, 0};
        int end = at + m == n;
        size_t r;
        do {
            r = ZSTD_compressStream2(c, &o, &in, end ? ZSTD_e_end : ZSTD_e_flush);
            REQUIRE(!ZSTD_isError(r));
        } while (r != 0 || in.pos < in.size);
        at += m;
        if (end)
            break;
    }
    ZSTD_freeCCtx(c);
    *zn = o.pos;
    return out;
}

#endif /* OC_TEST_ZSTD_REF_H */
