/*
 * deflate_ref.h - the reference compressors the deflate-family GPU tests
 * (test_inflate_gpu_core.c, test_cuda_deflate.c) build their streams with,
 * written once: zlib with any level, strategy and window, libdeflate at
 * any level, and one stream mixing stored, fixed and dynamic blocks with
 * empty flush blocks.  Each returns a malloc'd stream of format a (DEFLATE,
 * ZLIB or GZIP) and its size in *csize; a failure stops the test
 * (soft_check.h's REQUIRE).
 */
#ifndef OC_DEFLATE_REF_H
#define OC_DEFLATE_REF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "opencomp.h"
#include "soft_check.h"

static inline uint8_t *zlib_comp(oc_algorithm a, const uint8_t *src, size_t n, int level, int strategy,
                                 int wbits, size_t *csize)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    int wb = a == OC_ALGO_ZLIB ? wbits : a == OC_ALGO_GZIP ? wbits + 16 : -wbits;
    REQUIRE(deflateInit2(&z, level, Z_DEFLATED, wb, 8, strategy) == Z_OK);
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    uint8_t *out = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    *csize = z.total_out;
    deflateEnd(&z);
    return out;
}

static inline uint8_t *libdeflate_comp(oc_algorithm a, const uint8_t *src, size_t n, int level, size_t *csize)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    REQUIRE(c);
    size_t cap = libdeflate_gzip_compress_bound(c, n) + 64;
    uint8_t *out = malloc(cap);
    *csize = a == OC_ALGO_ZLIB   ? libdeflate_zlib_compress(c, src, n, out, cap)
             : a == OC_ALGO_GZIP ? libdeflate_gzip_compress(c, src, n, out, cap)
                                 : libdeflate_deflate_compress(c, src, n, out, cap);
    libdeflate_free_compressor(c);
    REQUIRE(*csize > 0);
    return out;
}

/* One stream with stored, fixed and dynamic blocks and empty flush blocks:
 * zlib with its parameters changed every part. */
static inline uint8_t *mixed_comp(oc_algorithm a, const uint8_t *src, size_t n, size_t *csize)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    int wb = a == OC_ALGO_ZLIB ? 15 : a == OC_ALGO_GZIP ? 31 : -15;
    REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, wb, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    size_t cap = 2 * n + 4096;
    uint8_t *out = malloc(cap);
    z.next_out = out;
    z.avail_out = (uInt)cap;
    size_t part = n / 7 + 1, pos = 0;
    static const int levels[] = {0, 6, 1, 9, 0, 3};
    static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FIXED, Z_DEFAULT_STRATEGY,
                                     Z_HUFFMAN_ONLY,     Z_RLE,   Z_FIXED};
    for (int i = 0; pos < n; i++) {
        size_t m = n - pos < part ? n - pos : part;
        z.next_in = (Bytef *)(uintptr_t)(src + pos);
        z.avail_in = (uInt)m;
        REQUIRE(deflate(&z, i % 2 ? Z_SYNC_FLUSH : Z_FULL_FLUSH) == Z_OK);
        pos += m;
        REQUIRE(deflateParams(&z, levels[i % 6], strategies[i % 6]) == Z_OK);
    }
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    *csize = z.total_out;
    deflateEnd(&z);
    return out;
}

#endif /* OC_DEFLATE_REF_H */
