/*
 * reference_codecs.c - liblz4, snappy, libdeflate and libzstd over a batch
 * on POSIX threads (reference_codecs.h).  Each thread takes every
 * threads-th chunk and keeps its own zstd and libdeflate contexts.
 *
 * The stock zstd frame is what numcodecs' Zstd(level=3, checksum=True)
 * (and so zarr's zstd codec with a checksum) writes: ZSTD_compress2 at
 * level 3 with the content checksum flag, the content size recorded.
 *
 * The stock gzip member is what `gzip -6 FILE` writes, through zlib's
 * gzip wrapper (deflateInit2 with windowBits 31, memLevel 8, level 6): the
 * header carries FNAME ("corpus.bin") and an MTIME, as the tool's does; the
 * trailer the CRC-32 and ISIZE.  zlib and gzip streams are checked by
 * libdeflate's zlib and gzip decoders (Adler-32, CRC-32 and ISIZE included).
 */
#include "reference_codecs.h"

#include <libdeflate.h>
#include <lz4.h>
#include <pthread.h>
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define STOCK_ZSTD_LEVEL 3
#define STOCK_GZIP_LEVEL 6
#define STOCK_GZIP_NAME "corpus.bin"
#define STOCK_GZIP_MTIME 1764316800u /* 2025-11-28, any fixed time */

const char *ocb_ref_stock_label(const char *codec)
{
    if (strcmp(codec, "lz4") == 0)
        return "liblz4 LZ4_compress_default";
    if (strcmp(codec, "zstd") == 0)
        return "libzstd level 3, checksum, content size (numcodecs Zstd(level=3, checksum=True))";
    if (strcmp(codec, "gzip") == 0)
        return "zlib level 6 gzip members, FNAME and MTIME in the header (gzip -6)";
    return "";
}

size_t ocb_ref_stock_bound(const char *codec, size_t n)
{
    if (strcmp(codec, "lz4") == 0)
        return n <= (size_t)LZ4_MAX_INPUT_SIZE ? (size_t)LZ4_compressBound((int)n) : 0;
    if (strcmp(codec, "zstd") == 0)
        return ZSTD_compressBound(n);
    if (strcmp(codec, "gzip") == 0) /* deflate's stored-block bound + header with the name + trailer */
        return n + n / 1000 + (n >> 12) * 5 + 64 + sizeof STOCK_GZIP_NAME + 8;
    return 0;
}

int ocb_ref_can_decode(const char *codec)
{
    return strcmp(codec, "lz4") == 0 || strcmp(codec, "snappy") == 0 || strcmp(codec, "deflate") == 0 ||
           strcmp(codec, "zlib") == 0 || strcmp(codec, "gzip") == 0 || strcmp(codec, "zstd") == 0;
}

typedef struct job {
    const char *codec;
    int encode, threads, index;
    size_t n;
    const uint8_t *const *in;
    const size_t *in_sizes;
    uint8_t *const *dst; /* encode */
    size_t dst_cap;
    size_t *dst_sizes;
    const uint8_t *const *expect; /* check */
    const size_t *expect_sizes;
    size_t first_bad; /* SIZE_MAX: none */
    int no_memory;
} job;

/* One gzip member as `gzip -6` lays it out, through zlib (see the top). */
static int gzip_member(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    z_stream z;
    gz_header h;
    memset(&z, 0, sizeof z);
    memset(&h, 0, sizeof h);
    *out = 0;
    if (n > UINT32_MAX || cap > UINT32_MAX ||
        deflateInit2(&z, STOCK_GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    h.name = (Bytef *)STOCK_GZIP_NAME;
    h.time = STOCK_GZIP_MTIME;
    h.os = 3; /* Unix, as gzip on Linux writes */
    int rc = -1;
    if (deflateSetHeader(&z, &h) == Z_OK) {
        z.next_in = (Bytef *)(uintptr_t)src;
        z.avail_in = (uInt)n;
        z.next_out = dst;
        z.avail_out = (uInt)cap;
        if (deflate(&z, Z_FINISH) == Z_STREAM_END) {
            *out = z.total_out;
            rc = 0;
        }
    }
    deflateEnd(&z);
    return rc;
}

static int encode_one(const char *codec, ZSTD_CCtx *zc, const uint8_t *src, size_t n, uint8_t *dst,
                      size_t cap, size_t *out)
{
    if (strcmp(codec, "gzip") == 0)
        return gzip_member(src, n, dst, cap, out);
    if (strcmp(codec, "lz4") == 0) {
        if (n > (size_t)LZ4_MAX_INPUT_SIZE || cap > (size_t)INT32_MAX)
            return -1;
        int r = LZ4_compress_default((const char *)src, (char *)dst, (int)n, (int)cap);
        *out = r > 0 ? (size_t)r : 0;
        return r > 0 ? 0 : -1;
    }
    size_t r = ZSTD_compress2(zc, dst, cap, src, n);
    *out = ZSTD_isError(r) ? 0 : r;
    return ZSTD_isError(r) ? -1 : 0;
}

/* Decode one chunk into out (exactly `expect` bytes of room plus one, so
 * a stream that decodes to more is caught); 1 if it equals want. */
static int check_one(const char *codec, ZSTD_DCtx *zd, struct libdeflate_decompressor *dd, const uint8_t *src,
                     size_t n, uint8_t *out, const uint8_t *want, size_t want_n)
{
    size_t got = SIZE_MAX, cap = want_n + 1;
    if (strcmp(codec, "lz4") == 0) {
        if (n <= (size_t)INT32_MAX && cap <= (size_t)INT32_MAX) {
            int r = LZ4_decompress_safe((const char *)src, (char *)out, (int)n, (int)cap);
            got = r < 0 ? SIZE_MAX : (size_t)r;
        }
    } else if (strcmp(codec, "snappy") == 0) {
        size_t len = cap;
        got = snappy_uncompress((const char *)src, n, (char *)out, &len) == SNAPPY_OK ? len : SIZE_MAX;
    } else if (strcmp(codec, "deflate") == 0) {
        size_t len = 0;
        got =
            libdeflate_deflate_decompress(dd, src, n, out, cap, &len) == LIBDEFLATE_SUCCESS ? len : SIZE_MAX;
    } else if (strcmp(codec, "zlib") == 0) {
        size_t len = 0;
        got = libdeflate_zlib_decompress(dd, src, n, out, cap, &len) == LIBDEFLATE_SUCCESS ? len : SIZE_MAX;
    } else if (strcmp(codec, "gzip") == 0) {
        size_t len = 0, used = 0;
        got = libdeflate_gzip_decompress_ex(dd, src, n, out, cap, &used, &len) == LIBDEFLATE_SUCCESS &&
                      used == n
                  ? len
                  : SIZE_MAX;
    } else {
        size_t r = ZSTD_decompressDCtx(zd, out, cap, src, n);
        got = ZSTD_isError(r) ? SIZE_MAX : r;
    }
    return got == want_n && memcmp(out, want, want_n) == 0;
}

static void *worker(void *arg)
{
    job *j = (job *)arg;
    ZSTD_CCtx *zc = NULL;
    ZSTD_DCtx *zd = NULL;
    struct libdeflate_decompressor *dd = NULL;
    uint8_t *out = NULL;
    size_t out_cap = 0;
    if (j->encode && strcmp(j->codec, "zstd") == 0) {
        zc = ZSTD_createCCtx();
        if (!zc || ZSTD_isError(ZSTD_CCtx_setParameter(zc, ZSTD_c_compressionLevel, STOCK_ZSTD_LEVEL)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(zc, ZSTD_c_checksumFlag, 1)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(zc, ZSTD_c_contentSizeFlag, 1)))
            j->no_memory = 1;
    }
    if (!j->encode) {
        zd = ZSTD_createDCtx();
        dd = libdeflate_alloc_decompressor();
        for (size_t i = (size_t)j->index; i < j->n; i += (size_t)j->threads)
            if (j->expect_sizes[i] + 1 > out_cap)
                out_cap = j->expect_sizes[i] + 1;
        out = (uint8_t *)malloc(out_cap ? out_cap : 1);
        if (!zd || !dd || !out)
            j->no_memory = 1;
    }
    for (size_t i = (size_t)j->index; i < j->n && !j->no_memory; i += (size_t)j->threads) {
        int ok = j->encode ? encode_one(j->codec, zc, j->in[i], j->in_sizes[i], j->dst[i], j->dst_cap,
                                        &j->dst_sizes[i]) == 0
                           : check_one(j->codec, zd, dd, j->in[i], j->in_sizes[i], out, j->expect[i],
                                       j->expect_sizes[i]);
        if (!ok && i < j->first_bad) {
            j->first_bad = i;
            break; /* later chunks of this thread cannot lower first_bad */
        }
    }
    ZSTD_freeCCtx(zc);
    ZSTD_freeDCtx(zd);
    if (dd)
        libdeflate_free_decompressor(dd);
    free(out);
    return NULL;
}

/* Run `proto` on `threads` threads; 1 all fine, 0 a chunk failed, -1 no memory. */
static int run_jobs(const job *proto, int threads, size_t *first_bad)
{
    if (threads < 1)
        threads = 1;
    if ((size_t)threads > proto->n)
        threads = proto->n ? (int)proto->n : 1;
    job *jobs = (job *)calloc((size_t)threads, sizeof *jobs);
    pthread_t *tids = (pthread_t *)calloc((size_t)threads, sizeof *tids);
    if (!jobs || !tids) {
        free(jobs);
        free(tids);
        return -1;
    }
    int started = 0;
    for (int t = 0; t < threads; t++) {
        jobs[t] = *proto;
        jobs[t].threads = threads;
        jobs[t].index = t;
        jobs[t].first_bad = SIZE_MAX;
        if (pthread_create(&tids[t], NULL, worker, &jobs[t]) != 0)
            break;
        started++;
    }
    size_t bad = SIZE_MAX;
    int no_memory = started < threads;
    for (int t = 0; t < started; t++) {
        pthread_join(tids[t], NULL);
        if (jobs[t].first_bad < bad)
            bad = jobs[t].first_bad;
        no_memory |= jobs[t].no_memory;
    }
    free(jobs);
    free(tids);
    if (first_bad)
        *first_bad = bad;
    if (no_memory)
        return -1;
    return bad == SIZE_MAX;
}

int ocb_ref_stock_encode(const char *codec, int threads, size_t n, const uint8_t *const *src,
                         const size_t *src_sizes, uint8_t *const *dst, size_t dst_cap, size_t *dst_sizes)
{
    if (!ocb_ref_stock_label(codec)[0])
        return -1;
    job proto;
    memset(&proto, 0, sizeof proto);
    proto.codec = codec;
    proto.encode = 1;
    proto.n = n;
    proto.in = src;
    proto.in_sizes = src_sizes;
    proto.dst = dst;
    proto.dst_cap = dst_cap;
    proto.dst_sizes = dst_sizes;
    return run_jobs(&proto, threads, NULL) == 1 ? 0 : -1;
}

int ocb_ref_check(const char *codec, int threads, size_t n, const uint8_t *const *comp,
                  const size_t *comp_sizes, const uint8_t *const *expect, const size_t *expect_sizes,
                  size_t *first_bad)
{
    if (!ocb_ref_can_decode(codec))
        return -1;
    job proto;
    memset(&proto, 0, sizeof proto);
    proto.codec = codec;
    proto.n = n;
    proto.in = comp;
    proto.in_sizes = comp_sizes;
    proto.expect = expect;
    proto.expect_sizes = expect_sizes;
    return run_jobs(&proto, threads, first_bad);
}
