/*
 * bench_ref.c - the `reference-cpu` contender of `opencomp bench`: each
 * format's reference library called directly, one chunk at a time, on one
 * thread, with its state allocated once (as a careful user would):
 * LZ4_compress_fast_extState / LZ4_compress_HC_extStateHC and
 * LZ4_decompress_safe, snappy_compress / snappy_uncompress, libdeflate for
 * deflate, zlib and gzip, ZSTD_compressCCtx / ZSTD_decompressDCtx,
 * libblosc's blosc_compress_ctx / blosc_decompress_ctx on one internal
 * thread (lz4 inner codec, no shuffle: opencomp's defaults).  This
 * is the baseline opencomp's CPU engine must beat with threads.
 */
#include <stdlib.h>

#include <blosc.h>
#include <libdeflate.h>
#include <lz4.h>
#include <lz4hc.h>
#include <snappy-c.h>
#include <zstd.h>

#include "bench.h"

struct bench_ref {
    oc_algorithm algorithm;
    int level;
    void *lz4_state;
    struct libdeflate_compressor *dc;
    struct libdeflate_decompressor *dd;
    ZSTD_CCtx *zc;
    ZSTD_DCtx *zd;
};

int cli_ref_available(oc_algorithm algorithm)
{
    switch (algorithm) {
    case OC_ALGO_LZ4:
    case OC_ALGO_SNAPPY:
    case OC_ALGO_DEFLATE:
    case OC_ALGO_ZLIB:
    case OC_ALGO_GZIP:
    case OC_ALGO_ZSTD:
    case OC_ALGO_BLOSC:
        return 1;
    default: /* opencomp's own formats: no reference library */
        return 0;
    }
}

bench_ref *cli_ref_create(oc_algorithm algorithm, int level)
{
    bench_ref *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->algorithm = algorithm;
    r->level = level;
    int ok = 1;
    switch (algorithm) {
    case OC_ALGO_LZ4:
        r->lz4_state = malloc(level >= 2 ? (size_t)LZ4_sizeofStateHC() : (size_t)LZ4_sizeofState());
        ok = r->lz4_state != NULL;
        break;
    case OC_ALGO_SNAPPY:
        break;
    case OC_ALGO_DEFLATE:
    case OC_ALGO_ZLIB:
    case OC_ALGO_GZIP:
        r->dc = libdeflate_alloc_compressor(level);
        r->dd = libdeflate_alloc_decompressor();
        ok = r->dc && r->dd;
        break;
    case OC_ALGO_ZSTD:
        r->zc = ZSTD_createCCtx();
        r->zd = ZSTD_createDCtx();
        ok = r->zc && r->zd;
        break;
    case OC_ALGO_BLOSC:
        break;
    default:
        ok = 0;
    }
    if (!ok) {
        cli_ref_destroy(r);
        return NULL;
    }
    return r;
}

void cli_ref_destroy(bench_ref *r)
{
    if (!r)
        return;
    free(r->lz4_state);
    if (r->dc)
        libdeflate_free_compressor(r->dc);
    if (r->dd)
        libdeflate_free_decompressor(r->dd);
    ZSTD_freeCCtx(r->zc);
    ZSTD_freeDCtx(r->zd);
    free(r);
}

size_t cli_ref_bound(bench_ref *r, size_t n)
{
    switch (r->algorithm) {
    case OC_ALGO_LZ4:
        return n > LZ4_MAX_INPUT_SIZE ? 0 : (size_t)LZ4_compressBound((int)n);
    case OC_ALGO_SNAPPY:
        return snappy_max_compressed_length(n);
    case OC_ALGO_DEFLATE:
        return libdeflate_deflate_compress_bound(r->dc, n);
    case OC_ALGO_ZLIB:
        return libdeflate_zlib_compress_bound(r->dc, n);
    case OC_ALGO_GZIP:
        return libdeflate_gzip_compress_bound(r->dc, n);
    case OC_ALGO_ZSTD:
        return ZSTD_compressBound(n);
    case OC_ALGO_BLOSC:
        return n > (size_t)BLOSC_MAX_BUFFERSIZE ? 0 : n + BLOSC_MAX_OVERHEAD;
    default:
        return 0;
    }
}

size_t cli_ref_compress(bench_ref *r, const void *src, size_t n, void *dst, size_t cap)
{
    switch (r->algorithm) {
    case OC_ALGO_LZ4: {
        if (n > LZ4_MAX_INPUT_SIZE || cap > (size_t)INT32_MAX)
            return 0;
        int got;
        if (r->level >= 2)
            got = LZ4_compress_HC_extStateHC(r->lz4_state, src, dst, (int)n, (int)cap, r->level);
        else
            got = LZ4_compress_fast_extState(r->lz4_state, src, dst, (int)n, (int)cap,
                                             r->level < 0 ? -r->level : 1);
        return got > 0 || n == 0 ? (size_t)got : 0;
    }
    case OC_ALGO_SNAPPY: {
        size_t len = cap;
        return snappy_compress(src, n, dst, &len) == SNAPPY_OK ? len : 0;
    }
    case OC_ALGO_DEFLATE:
        return libdeflate_deflate_compress(r->dc, src, n, dst, cap);
    case OC_ALGO_ZLIB:
        return libdeflate_zlib_compress(r->dc, src, n, dst, cap);
    case OC_ALGO_GZIP:
        return libdeflate_gzip_compress(r->dc, src, n, dst, cap);
    case OC_ALGO_ZSTD: {
        size_t got = ZSTD_compressCCtx(r->zc, dst, cap, src, n, r->level);
        return ZSTD_isError(got) ? 0 : got;
    }
    case OC_ALGO_BLOSC: {
        int got = blosc_compress_ctx(r->level < 0 ? 0 : r->level, BLOSC_NOSHUFFLE, 1, n, src, dst, cap, "lz4",
                                     0, 1);
        return got > 0 ? (size_t)got : 0;
    }
    default:
        return 0;
    }
}

int cli_ref_decompress(bench_ref *r, const void *src, size_t src_n, void *dst, size_t n)
{
    size_t got = 0;
    switch (r->algorithm) {
    case OC_ALGO_LZ4: {
        if (src_n > (size_t)INT32_MAX || n > (size_t)INT32_MAX)
            return -1;
        int g = LZ4_decompress_safe(src, dst, (int)src_n, (int)n);
        return g >= 0 && (size_t)g == n ? 0 : -1;
    }
    case OC_ALGO_SNAPPY:
        got = n;
        return snappy_uncompress(src, src_n, dst, &got) == SNAPPY_OK && got == n ? 0 : -1;
    case OC_ALGO_DEFLATE:
        return libdeflate_deflate_decompress(r->dd, src, src_n, dst, n, &got) == LIBDEFLATE_SUCCESS &&
                       got == n
                   ? 0
                   : -1;
    case OC_ALGO_ZLIB:
        return libdeflate_zlib_decompress(r->dd, src, src_n, dst, n, &got) == LIBDEFLATE_SUCCESS && got == n
                   ? 0
                   : -1;
    case OC_ALGO_GZIP:
        return libdeflate_gzip_decompress(r->dd, src, src_n, dst, n, &got) == LIBDEFLATE_SUCCESS && got == n
                   ? 0
                   : -1;
    case OC_ALGO_ZSTD:
        got = ZSTD_decompressDCtx(r->zd, dst, n, src, src_n);
        return !ZSTD_isError(got) && got == n ? 0 : -1;
    case OC_ALGO_BLOSC:
        return n <= (size_t)INT32_MAX && blosc_decompress_ctx(src, dst, n, 1) == (int)n ? 0 : -1;
    default:
        return -1;
    }
}
