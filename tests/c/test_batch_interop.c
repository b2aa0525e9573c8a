/*
 * test_batch_interop.c - opencomp's chunks are the standard formats, both
 * ways: what oc_batch_compress writes decodes with the reference libraries
 * directly (LZ4_decompress_safe, snappy_uncompress, zlib's inflate for raw
 * deflate / zlib / gzip, ZSTD_decompress), and what those libraries write
 * decodes with oc_batch_decompress - including gzip headers with FEXTRA,
 * FNAME, FCOMMENT and FHCRC, several gzip members in one chunk, zstd frames
 * without a content size, with a checksum, concatenated with skippable
 * frames, and format detection (OC_ALGO_NONE) for zstd, gzip and zlib.
 */
#include <lz4.h>
#include <lz4hc.h>
#include <snappy-c.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "helpers/test_util.h"

static oc_context *ctx;

static void oc_store_le32_test(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Decodes one chunk with opencomp into exactly `expect_size` bytes and
 * compares; also checks oc_batch_decompressed_sizes. */
static void oc_decode_check(oc_algorithm algo, const void *comp, size_t comp_size, const uint8_t *expect,
                            size_t expect_size)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    uint8_t *out = tu_xmalloc(expect_size + 16);
    tu_fill_guard(out + expect_size, 16);
    void *d = out;
    size_t cap = expect_size, got = 0, size = 0;
    oc_status st;
    CHECK_OK(oc_batch_decompress(ctx, &o, 1, &comp, &comp_size, &d, &cap, &got, &st));
    CHECK_MSG(st == OC_OK, "%s: %s", oc_algorithm_name(algo), oc_status_name(st));
    CHECK_SIZE_EQ(got, expect_size);
    CHECK_MEM_EQ(out, expect, expect_size);
    CHECK_GUARD(out + expect_size, 16);
    CHECK_OK(oc_batch_decompressed_sizes(ctx, &o, 1, &comp, &comp_size, &size, &st));
    CHECK_STATUS(st, OC_OK);
    CHECK_SIZE_EQ(size, expect_size);
    free(out);
}

static size_t oc_encode(oc_algorithm algo, int level, const uint8_t *src, size_t n, uint8_t **out)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    o.level = level;
    size_t cap = oc_compress_bound(algo, n), size = 0;
    *out = tu_xmalloc(cap);
    const void *s = src;
    void *d = *out;
    oc_status st;
    CHECK_OK(oc_batch_compress(ctx, &o, 1, &s, &n, &d, &cap, &size, &st));
    CHECK_STATUS(st, OC_OK);
    return size;
}

/* zlib inflate with the given windowBits (-15 raw, 15 zlib, 31 gzip). */
static void zlib_inflate_check(int window_bits, const uint8_t *comp, size_t n, const uint8_t *expect,
                               size_t size)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    CHECK_EQ(inflateInit2(&z, window_bits), Z_OK);
    uint8_t *out = tu_xmalloc(size + 1);
    z.next_in = (Bytef *)comp;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)size + 1;
    CHECK_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
    CHECK_SIZE_EQ(z.total_out, size);
    CHECK_SIZE_EQ(z.avail_in, 0);
    CHECK_MEM_EQ(out, expect, size);
    inflateEnd(&z);
    free(out);
}

static void ours_to_reference(const uint8_t *data, size_t n)
{
    uint8_t *comp, *out = tu_xmalloc(n + 1);
    size_t c;

    c = oc_encode(OC_ALGO_LZ4, 0, data, n, &comp);
    CHECK_EQ(LZ4_decompress_safe((const char *)comp, (char *)out, (int)c, (int)n), (int)n);
    CHECK_MEM_EQ(out, data, n);
    free(comp);
    c = oc_encode(OC_ALGO_LZ4, 9, data, n, &comp);
    CHECK_EQ(LZ4_decompress_safe((const char *)comp, (char *)out, (int)c, (int)n), (int)n);
    CHECK_MEM_EQ(out, data, n);
    free(comp);

    c = oc_encode(OC_ALGO_SNAPPY, 0, data, n, &comp);
    size_t len = n;
    CHECK_EQ(snappy_uncompress((const char *)comp, c, (char *)out, &len), SNAPPY_OK);
    CHECK_SIZE_EQ(len, n);
    CHECK_MEM_EQ(out, data, n);
    free(comp);

    c = oc_encode(OC_ALGO_DEFLATE, 0, data, n, &comp);
    zlib_inflate_check(-15, comp, c, data, n);
    free(comp);
    c = oc_encode(OC_ALGO_ZLIB, 9, data, n, &comp);
    uLongf ulen = n + 1;
    CHECK_EQ(uncompress(out, &ulen, comp, c), Z_OK);
    CHECK_SIZE_EQ(ulen, n);
    CHECK_MEM_EQ(out, data, n);
    zlib_inflate_check(15, comp, c, data, n);
    free(comp);
    c = oc_encode(OC_ALGO_GZIP, 1, data, n, &comp);
    zlib_inflate_check(31, comp, c, data, n);
    free(comp);

    c = oc_encode(OC_ALGO_ZSTD, 0, data, n, &comp);
    CHECK_SIZE_EQ(ZSTD_decompress(out, n, comp, c), n);
    CHECK_MEM_EQ(out, data, n);
    CHECK_SIZE_EQ(ZSTD_getFrameContentSize(comp, c), n);
    free(comp);
    c = oc_encode(OC_ALGO_ZSTD, -3, data, n, &comp);
    CHECK_SIZE_EQ(ZSTD_decompress(out, n, comp, c), n);
    CHECK_MEM_EQ(out, data, n);
    free(comp);
    free(out);
}

/* gzip with every optional header field, through zlib's deflateSetHeader. */
static size_t zlib_gzip_full_header(const uint8_t *data, size_t n, uint8_t *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    CHECK_EQ(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    static unsigned char extra[] = {'O', 'C', 4, 0, 1, 2, 3, 4};
    gz_header h;
    memset(&h, 0, sizeof(h));
    h.extra = extra;
    h.extra_len = sizeof(extra);
    h.name = (Bytef *)"file.txt";
    h.comment = (Bytef *)"a comment";
    h.hcrc = 1;
    CHECK_EQ(deflateSetHeader(&z, &h), Z_OK);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    CHECK_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t c = z.total_out;
    deflateEnd(&z);
    return c;
}

static size_t zlib_raw_deflate(const uint8_t *data, size_t n, uint8_t *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    CHECK_EQ(deflateInit2(&z, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY), Z_OK);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    CHECK_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t c = z.total_out;
    deflateEnd(&z);
    return c;
}

/* A zstd frame written by the streaming API: no content size. */
static size_t zstd_stream_frame(const uint8_t *data, size_t n, uint8_t *out, size_t cap, int checksum)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    CHECK(c);
    CHECK(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum)));
    CHECK(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)));
    ZSTD_inBuffer in = {data, n, 0};
    ZSTD_outBuffer o = {out, cap, 0};
    CHECK_SIZE_EQ(ZSTD_compressStream2(c, &o, &in, ZSTD_e_end), 0);
    ZSTD_freeCCtx(c);
    return o.pos;
}

static void reference_to_ours(const uint8_t *data, size_t n)
{
    size_t cap = 2 * n + 1024, c;
    uint8_t *comp = tu_xmalloc(2 * cap + 64);

    c = (size_t)LZ4_compress_HC((const char *)data, (char *)comp, (int)n, (int)cap, 12);
    oc_decode_check(OC_ALGO_LZ4, comp, c, data, n);
    c = (size_t)LZ4_compress_fast((const char *)data, (char *)comp, (int)n, (int)cap, 50);
    oc_decode_check(OC_ALGO_LZ4, comp, c, data, n);

    c = cap;
    CHECK_EQ(snappy_compress((const char *)data, n, (char *)comp, &c), SNAPPY_OK);
    oc_decode_check(OC_ALGO_SNAPPY, comp, c, data, n);

    c = zlib_raw_deflate(data, n, comp, cap);
    oc_decode_check(OC_ALGO_DEFLATE, comp, c, data, n);
    uLongf zl = cap;
    CHECK_EQ(compress2(comp, &zl, data, n, 1), Z_OK);
    oc_decode_check(OC_ALGO_ZLIB, comp, zl, data, n);
    oc_decode_check(OC_ALGO_NONE, comp, zl, data, n); /* detected as zlib */

    c = zlib_gzip_full_header(data, n, comp, cap);
    oc_decode_check(OC_ALGO_GZIP, comp, c, data, n);
    oc_decode_check(OC_ALGO_NONE, comp, c, data, n);

    /* Two gzip members in one chunk: the halves of data, concatenated. */
    size_t half = n / 2;
    size_t c1 = zlib_gzip_full_header(data, half, comp, cap);
    size_t c2 = zlib_gzip_full_header(data + half, n - half, comp + c1, cap);
    oc_decode_check(OC_ALGO_GZIP, comp, c1 + c2, data, n);

    c = ZSTD_compress(comp, cap, data, n, 5);
    CHECK(!ZSTD_isError(c));
    oc_decode_check(OC_ALGO_ZSTD, comp, c, data, n);
    oc_decode_check(OC_ALGO_NONE, comp, c, data, n);
    c = zstd_stream_frame(data, n, comp, cap, 1);
    oc_decode_check(OC_ALGO_ZSTD, comp, c, data, n);
    /* skippable frame + frame without size + skippable + frame with size */
    size_t pos = 0;
    oc_store_le32_test(comp, 0x184D2A53u);
    oc_store_le32_test(comp + 4, 5);
    memcpy(comp + 8, "skip!", 5);
    pos = 13;
    pos += zstd_stream_frame(data, half, comp + pos, cap, 0);
    oc_store_le32_test(comp + pos, 0x184D2A5Eu);
    oc_store_le32_test(comp + pos + 4, 0);
    pos += 8;
    size_t r = ZSTD_compress(comp + pos, cap, data + half, n - half, 1);
    CHECK(!ZSTD_isError(r));
    pos += r;
    oc_decode_check(OC_ALGO_ZSTD, comp, pos, data, n);
    oc_decode_check(OC_ALGO_NONE, comp, pos, data, n); /* starts with a skippable frame */
    free(comp);
}

int main(void)
{
    CHECK_OK(oc_context_create(NULL, &ctx));
    tu_buf corpus[TU_CORPUS_MAX];
    size_t ncorpus = tu_corpus(corpus, TU_CORPUS_MAX, 300000);
    static const size_t sizes[] = {0, 1, 1000, 65536, 300000};
    for (size_t d = 0; d < ncorpus; d++) {
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            size_t n = sizes[s] < corpus[d].size ? sizes[s] : corpus[d].size;
            ours_to_reference(corpus[d].data, n);
            reference_to_ours(corpus[d].data, n);
        }
    }
    for (size_t d = 0; d < ncorpus; d++)
        tu_buf_free(&corpus[d]);
    oc_context_destroy(ctx);
    printf("test_batch_interop: OK\n");
    return 0;
}
