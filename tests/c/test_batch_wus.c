/*
 * test_batch_wus.c - the WITH_UNCOMPRESSED_SIZE kind of the batched layer
 * (oc_codec_options.kind), which the library owns since issue 12 (the
 * Python extension used to write and parse the headers itself):
 *   - round trips of every algorithm: the header is the chunk's size, the
 *     bytes after it are exactly the RAW stream, the size query reads the
 *     header, and the whole-buffer layer writes and reads the same bytes;
 *   - exact statuses: a chunk of 0..7 bytes is TRUNCATED; a header claiming
 *     one byte more than the stream can decode to (max_expansion) is
 *     CORRUPT, exactly that much is accepted by the size query; a header
 *     above the capacity is OUTPUT_TOO_SMALL with nothing written; a header
 *     that disagrees with the stream is SIZE_MISMATCH; compression into
 *     fewer than 8 bytes is OUTPUT_TOO_SMALL;
 *   - detection (OC_ALGO_NONE) of zstd, gzip and zlib behind a header, the
 *     detected row's bound applied; a bad chunk among good ones;
 *   - headers before streams of the stock libraries (the fuzz seeds);
 *   - the CUDA engine without a GPU: NO_DEVICE, never a misread header
 *     (on a GPU, tests/c/test_cuda_wus.c compares it with the CPU engine).
 */
#include <string.h>

#include "helpers/test_util.h"

static oc_context *ctx;

static oc_codec_options wus_options(oc_algorithm a)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    o.kind = OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
    return o;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The most n stream bytes of `a` decode to, from the public table row. */
static uint64_t max_decoded(oc_algorithm a, uint64_t n)
{
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    CHECK_OK(oc_algorithm_get_info(a, &info));
    return n * info.max_expansion + 65536;
}

static oc_status decode1(const oc_codec_options *o, const void *src, size_t n, void *dst, size_t cap,
                         size_t *got)
{
    oc_status st = OC_OK;
    size_t g = 12345;
    CHECK_OK(oc_batch_decompress(ctx, o, 1, &src, &n, &dst, &cap, &g, &st));
    if (st != OC_OK)
        CHECK_SIZE_EQ(g, 0);
    if (got)
        *got = g;
    return st;
}

static oc_status size1(const oc_codec_options *o, const void *src, size_t n, size_t *size)
{
    oc_status st = OC_OK;
    CHECK_OK(oc_batch_decompressed_sizes(ctx, o, 1, &src, &n, size, &st));
    return st;
}

/* Three chunks of `a` with the WUS kind against RAW and the whole-buffer
 * layer; then the statuses of damaged headers on the middle chunk. */
static void round_trip(oc_algorithm a, const uint8_t *data)
{
    static const size_t sizes[3] = {4096, 30000, 40000};
    const void *src[3];
    void *raw[3], *wus[3], *out[3];
    size_t caps[3], wcaps[3], raw_sizes[3], wus_sizes[3], got[3], qs[3];
    oc_status st[3];
    size_t off = 0;
    for (int i = 0; i < 3; i++) {
        src[i] = data + off;
        off += sizes[i];
        caps[i] = oc_compress_bound(a, sizes[i]);
        CHECK(caps[i] > 0);
        wcaps[i] = caps[i] + 8;
        raw[i] = tu_xmalloc(caps[i]);
        wus[i] = tu_xmalloc(wcaps[i]);
        out[i] = tu_xmalloc(sizes[i] + 64);
    }
    oc_codec_options ro = OC_CODEC_OPTIONS_INIT, wo = wus_options(a);
    ro.algorithm = a;
    ro.kind = OC_BITSTREAM_RAW;
    CHECK_OK(oc_batch_compress(ctx, &ro, 3, src, sizes, raw, caps, raw_sizes, st));
    for (int i = 0; i < 3; i++)
        CHECK_STATUS(st[i], OC_OK);
    CHECK_OK(oc_batch_compress(ctx, &wo, 3, src, sizes, wus, wcaps, wus_sizes, st));
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(st[i], OC_OK);
        CHECK_SIZE_EQ(wus_sizes[i], raw_sizes[i] + 8);
        CHECK_EQ(le64(wus[i]), (uint64_t)sizes[i]);
        CHECK_MEM_EQ((uint8_t *)wus[i] + 8, raw[i], raw_sizes[i]);
    }
    /* the whole-buffer layer's WITH_UNCOMPRESSED_SIZE is the same layout */
    oc_buffer_options bo = OC_BUFFER_OPTIONS_INIT;
    bo.algorithm = a;
    bo.kind = OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
    uint8_t *whole = tu_xmalloc(wcaps[1]);
    uint64_t wsize = 0;
    CHECK_OK(oc_buffer_compress(ctx, &bo, src[1], sizes[1], whole, wcaps[1], &wsize));
    CHECK_SIZE_EQ((size_t)wsize, wus_sizes[1]);
    CHECK_MEM_EQ(whole, wus[1], wus_sizes[1]);
    free(whole);
    uint64_t bsize = 0;
    CHECK_OK(oc_buffer_decompress(ctx, &bo, wus[2], wus_sizes[2], out[2], sizes[2], &bsize, NULL));
    CHECK_SIZE_EQ((size_t)bsize, sizes[2]);
    /* size query and decode */
    CHECK_OK(oc_batch_decompressed_sizes(ctx, &wo, 3, (const void *const *)wus, wus_sizes, qs, st));
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(st[i], OC_OK);
        CHECK_SIZE_EQ(qs[i], sizes[i]);
    }
    size_t ocaps[3] = {sizes[0], sizes[1] + 64, sizes[2]};
    CHECK_OK(oc_batch_decompress(ctx, &wo, 3, (const void *const *)wus, wus_sizes, out, ocaps, got, st));
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(st[i], OC_OK);
        CHECK_SIZE_EQ(got[i], sizes[i]);
        CHECK_MEM_EQ(out[i], src[i], sizes[i]);
    }

    /* damaged headers, on a copy of chunk 1 */
    size_t n = wus_sizes[1], want = sizes[1];
    uint8_t *c = tu_xmalloc(n);
    uint8_t *dst = out[1];
    memcpy(c, wus[1], n);
    for (size_t k = 0; k < 8; k++) {
        size_t q = 99;
        CHECK_STATUS(decode1(&wo, c, k, dst, want, NULL), OC_ERR_TRUNCATED);
        CHECK_STATUS(size1(&wo, c, k, &q), OC_ERR_TRUNCATED);
    }
    uint64_t most = max_decoded(a, n - 8);
    put_le64(c, most + 1);
    size_t q = 0;
    CHECK_STATUS(decode1(&wo, c, n, dst, want + 64, NULL), OC_ERR_CORRUPT);
    CHECK_STATUS(size1(&wo, c, n, &q), OC_ERR_CORRUPT);
    put_le64(c, UINT64_MAX);
    CHECK_STATUS(decode1(&wo, c, n, dst, want + 64, NULL), OC_ERR_CORRUPT);
    CHECK_STATUS(size1(&wo, c, n, &q), OC_ERR_CORRUPT);
    put_le64(c, most); /* possible for a stream of that size: the query trusts it */
    CHECK_STATUS(size1(&wo, c, n, &q), OC_OK);
    CHECK_EQ((uint64_t)q, most);
    tu_fill_guard(dst, want + 64);
    CHECK_STATUS(decode1(&wo, c, n, dst, want + 64, NULL), OC_ERR_OUTPUT_TOO_SMALL);
    CHECK_GUARD(dst, want + 64); /* nothing written */
    put_le64(c, want + 1);       /* more than the stream holds */
    CHECK_STATUS(decode1(&wo, c, n, dst, want + 64, NULL), OC_ERR_SIZE_MISMATCH);
    put_le64(c, want - 1); /* less: the stream does not fit its own header's size */
    CHECK_STATUS(decode1(&wo, c, n, dst, want + 64, NULL), OC_ERR_SIZE_MISMATCH);
    put_le64(c, want);
    tu_fill_guard(dst, want + 64);
    CHECK_STATUS(decode1(&wo, c, n, dst, want - 1, NULL), OC_ERR_OUTPUT_TOO_SMALL);
    CHECK_GUARD(dst, want + 64);
    size_t g = 0;
    CHECK_STATUS(decode1(&wo, c, n, dst, want, &g), OC_OK);
    CHECK_SIZE_EQ(g, want);

    /* compression into fewer than 8 bytes, or just the header */
    for (size_t cap = 0; cap <= 8; cap++) {
        uint8_t small[8 + 64];
        tu_fill_guard(small, sizeof small);
        const void *s = src[0];
        void *d = small;
        size_t ds = 77;
        oc_status cs;
        CHECK_OK(oc_batch_compress(ctx, &wo, 1, &s, &sizes[0], &d, &cap, &ds, &cs));
        CHECK_STATUS(cs, OC_ERR_OUTPUT_TOO_SMALL);
        CHECK_SIZE_EQ(ds, 0);
        CHECK_GUARD(small + cap, sizeof small - cap);
    }

    /* one bad chunk among good ones: the others decode */
    memcpy(c, wus[1], n);
    put_le64(c, most + 1);
    const void *mix[3] = {wus[0], c, wus[2]};
    size_t mix_sizes[3] = {wus_sizes[0], n, wus_sizes[2]};
    CHECK_OK(oc_batch_decompress(ctx, &wo, 3, mix, mix_sizes, out, ocaps, got, st));
    CHECK_STATUS(st[0], OC_OK);
    CHECK_STATUS(st[1], OC_ERR_CORRUPT);
    CHECK_STATUS(st[2], OC_OK);
    CHECK_MEM_EQ(out[2], src[2], sizes[2]);

    /* self-identifying streams decode behind a header with OC_ALGO_NONE,
     * under their own row's bound */
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    CHECK_OK(oc_algorithm_get_info(a, &info));
    oc_codec_options none = wus_options(OC_ALGO_NONE);
    memcpy(c, wus[1], n);
    if (info.self_identifying) {
        CHECK_STATUS(decode1(&none, c, n, dst, want, &g), OC_OK);
        CHECK_SIZE_EQ(g, want);
        CHECK_MEM_EQ(dst, src[1], want);
        CHECK_STATUS(size1(&none, c, n, &q), OC_OK);
        CHECK_SIZE_EQ(q, want);
        put_le64(c, most + 1);
        CHECK_STATUS(size1(&none, c, n, &q), OC_ERR_CORRUPT);
    } else if (a == OC_ALGO_LZ4 || a == OC_ALGO_SNAPPY || a == OC_ALGO_DEFLATE) {
        /* no magic number: nothing to detect (the stream is never guessed) */
        CHECK_STATUS(size1(&none, c, n, &q), OC_ERR_INVALID_ARGUMENT);
    }
    free(c);
    for (int i = 0; i < 3; i++) {
        free(raw[i]);
        free(wus[i]);
        free(out[i]);
    }
}

/* The fuzz seeds of fuzz_batch_decompress with the WUS kind: a header and
 * a stream written by the stock libraries (liblz4, snappy, zlib, libzstd
 * through Python), byte 0 - 6 the algorithm, byte 1 8 (one chunk). */
static void stock_seeds(void)
{
    static const char *names[6] = {"lz4", "snappy", "deflate", "zlib", "gzip", "zstd"};
    for (int i = 0; i < 6; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/fuzz/seeds/batch_decompress/wus_%s", OC_SOURCE_DIR, names[i]);
        tu_buf b;
        CHECK_MSG(tu_read_file(path, 1 << 20, &b) == 0, "cannot read %s", path);
        CHECK(b.size > 10 && b.data[0] == 6 + i && b.data[1] == 8);
        oc_codec_options o = wus_options((oc_algorithm)(1 + i));
        const uint8_t *c = b.data + 2;
        size_t n = b.size - 2, want = (size_t)le64(c), q = 0, g = 0;
        uint8_t *out = tu_xmalloc(want);
        CHECK_STATUS(size1(&o, c, n, &q), OC_OK);
        CHECK_SIZE_EQ(q, want);
        CHECK_STATUS(decode1(&o, c, n, out, want, &g), OC_OK);
        CHECK_SIZE_EQ(g, want);
        CHECK(memcmp(out, "opencomp WITH_UNCOMPRESSED_SIZE seed", 36) == 0);
        free(out);
        tu_buf_free(&b);
    }
}

/* The CUDA engine asked for where no GPU answers: NO_DEVICE for every call
 * of the kind.  (With a GPU these host chunks are not the engine's to
 * read: test_cuda_wus.c runs it on device memory.) */
static void cuda_engine(const uint8_t *data)
{
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CUDA;
    oc_context *g = NULL;
    if (oc_engine_available(OC_ENGINE_CUDA) || oc_context_create(&co, &g) != OC_OK)
        return;
    oc_status expect = OC_ERR_NO_DEVICE;
    oc_codec_options o = wus_options(OC_ALGO_LZ4);
    const void *s = data;
    size_t n = 1000, cap = 2000, ds = 0, q = 0;
    uint8_t *d = tu_xmalloc(cap);
    void *dp = d;
    oc_status st;
    CHECK_STATUS(oc_batch_compress(g, &o, 1, &s, &n, &dp, &cap, &ds, &st), expect);
    CHECK_STATUS(oc_batch_decompress(g, &o, 1, &s, &n, &dp, &cap, &ds, &st), expect);
    CHECK_STATUS(oc_batch_decompressed_sizes(g, &o, 1, &s, &n, &q, &st), expect);
    free(d);
    oc_context_destroy(g);
}

int main(void)
{
    oc_context_options opts = OC_CONTEXT_OPTIONS_INIT;
    opts.num_threads = 2;
    CHECK_OK(oc_context_create(&opts, &ctx));
    size_t total = 4096 + 30000 + 40000;
    uint8_t *data = tu_xmalloc(total);
    tu_fill_numeric_column(data, total, 12);
    int ran = 0;
    for (int a = 1; a <= OC_ALGO_BITCOMP; a++) {
        if (!oc_algorithm_available(OC_ENGINE_CPU, (oc_algorithm)a))
            continue;
        round_trip((oc_algorithm)a, data);
        ran++;
    }
    CHECK(ran >= 9);
    stock_seeds();
    cuda_engine(data);
    free(data);
    oc_context_destroy(ctx);
    printf("test_batch_wus: OK (%d algorithms)\n", ran);
    return 0;
}
