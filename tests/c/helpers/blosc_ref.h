/*
 * blosc_ref.h - a Blosc 1.x decoder built from the cores the GPU engine
 * runs (src/common/blosc_format.h's layout walk, blosclz.h, shuffle.h's
 * unshuffles, and for zlib streams the GPU inflate core with c-blosc's
 * rules, src/cuda/codecs/blosc/blosc_zlib_core.h, on one lane), with the
 * inner LZ4/Snappy/Zstd streams decoded by their libraries: the GPU
 * decoder's rules on the host.  An inner stream that fails is CORRUPT,
 * as both engines report it (libblosc gives no reason).  Shared by
 * tests/c/test_blosc_core.c (every libblosc chunk must decode with it) and
 * fuzz/fuzz_container_blosc.c (on any bytes it must give a status, stay
 * inside the chunk and the output, and agree with the CPU engine).
 * Header-only: the fuzz targets link no test helpers.
 */
#ifndef OC_TEST_BLOSC_REF_H
#define OC_TEST_BLOSC_REF_H

#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <snappy-c.h>
#include <zstd.h>

#include "common/blosc_format.h"
#include "common/blosclz.h"
#include "common/shuffle.h"
#include "cuda/codecs/blosc/blosc_zlib_core.h"

/* The one-lane inflate core's tables (the host tests are single-threaded). */
static inf_tables blosc_ref_inf;

/* One inner stream s[0..n) of the chunk's codec into exactly dn bytes. */
static oc_status blosc_ref_inner(int format, const uint8_t *s, size_t n, uint8_t *d, size_t dn)
{
    size_t got = 0;
    switch (format) {
    case OC_BLOSC_FMT_BLOSCLZ: {
        if (oc_blosclz_decode(s, n, d, dn, &got) != OC_OK)
            return OC_ERR_CORRUPT;
        break;
    }
    case OC_BLOSC_FMT_LZ4: {
        int r = LZ4_decompress_safe((const char *)s, (char *)d, (int)n, (int)dn);
        if (r < 0)
            return OC_ERR_CORRUPT;
        got = (size_t)r;
        break;
    }
    case OC_BLOSC_FMT_SNAPPY:
        got = dn;
        if (snappy_uncompress((const char *)s, n, (char *)d, &got) != SNAPPY_OK)
            return OC_ERR_CORRUPT;
        break;
    case OC_BLOSC_FMT_ZLIB:
        if (blz_zlib_decode(&blosc_ref_inf, s, n, d, dn, &got) != OC_OK)
            return OC_ERR_CORRUPT;
        break;
    default:
        got = ZSTD_decompress(d, dn, s, n);
        if (ZSTD_isError(got))
            return OC_ERR_CORRUPT;
    }
    return got == dn ? OC_OK : OC_ERR_CORRUPT;
}

/* Decodes chunk p[0..n) into out (cap bytes) the way the GPU engine does:
 * header, then every stream found by walking from its block start, then
 * the block's unshuffle.  *size: the header's nbytes once it is read. */
static oc_status blosc_ref_decode(const uint8_t *p, size_t n, uint8_t *out, size_t cap, size_t *size)
{
    oc_blosc_header h;
    oc_status st = oc_blosc_parse_header(p, n, &h);
    if (st != OC_OK)
        return st;
    if (h.nbytes > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    *size = h.nbytes;
    if (h.flags & OC_BLOSC_F_MEMCPYED) {
        if (h.nbytes)
            memcpy(out, p + OC_BLOSC_HEADER_SIZE, h.nbytes);
        return OC_OK;
    }
    /* an empty chunk may name any block size: its blocks are none */
    uint8_t *tmp = (uint8_t *)malloc(h.nblocks ? h.blocksize : 1);
    if (!tmp)
        abort();
    for (uint32_t b = 0; b < h.nblocks && st == OC_OK; b++) {
        uint32_t bsz = oc_blosc_block_size(&h, b), ns = oc_blosc_block_streams(&h, b);
        uint8_t *blk = out + (size_t)b * h.blocksize;
        int filter = oc_blosc_block_filter(&h, bsz);
        uint8_t *target = filter ? tmp : blk;
        for (uint32_t s = 0; s < ns && st == OC_OK; s++) {
            oc_blosc_stream str;
            st = oc_blosc_find_stream(p, &h, b, s, &str);
            if (st != OC_OK)
                break;
            uint8_t *d = target + (size_t)s * str.dsize;
            if (str.stored)
                memcpy(d, p + str.offset, str.dsize);
            else
                st = blosc_ref_inner(h.format, p + str.offset, str.csize, d, str.dsize);
        }
        if (st == OC_OK && filter)
            oc_filter_buffer(blk, tmp, bsz, h.typesize, filter, 1);
    }
    free(tmp);
    return st;
}

#endif /* OC_TEST_BLOSC_REF_H */
