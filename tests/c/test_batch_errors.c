/*
 * test_batch_errors.c - exact statuses on bad chunks, per algorithm:
 *   - output one byte too small: OUTPUT_TOO_SMALL (decode and encode);
 *   - every prefix tried of a valid chunk: TRUNCATED (LZ4 blocks have no
 *     end marker: a cut at a sequence boundary can be a valid shorter block,
 *     so for LZ4 a cut is TRUNCATED, CORRUPT, or OK with fewer bytes; a
 *     GDeflate page may lose its trailing lookahead words and decode whole);
 *   - flipped checksum bytes: CHECKSUM_MISMATCH (zlib Adler-32, gzip CRC-32
 *     and header CRC, zstd content checksum); gzip ISIZE: SIZE_MISMATCH;
 *   - dictionaries: zlib FDICT, zstd dictionary ID: NEEDS_DICTIONARY;
 *   - size fields above the table's max_expansion: the size query's CORRUPT;
 *   - random bytes: never a crash, never a write past the capacity; non-OK
 *     for every format with a header or an end to check;
 *   - one corrupt chunk among good ones: the others decode.
 * Every algorithm of the table runs (helpers/algo_list.h); the exceptions
 * above are the formats' own weaknesses, named where they apply.
 */
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "helpers/algo_list.h"
#include "helpers/batch_util.h"

static oc_context *ctx;
static ta_list algos; /* every algorithm of the table */

static oc_status decode1(oc_algorithm algo, const void *src, size_t n, void *dst, size_t cap, size_t *got)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    oc_status st;
    size_t g = 12345;
    CHECK_OK(oc_batch_decompress(ctx, &o, 1, &src, &n, &dst, &cap, &g, &st));
    if (st != OC_OK)
        CHECK_SIZE_EQ(g, 0);
    if (got)
        *got = g;
    return st;
}

static oc_status size1(oc_algorithm algo, const void *src, size_t n, size_t *size)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    oc_status st;
    CHECK_OK(oc_batch_decompressed_sizes(ctx, &o, 1, &src, &n, size, &st));
    return st;
}

static size_t encode1(oc_algorithm algo, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                      oc_status *st)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    size_t size = 0;
    const void *s = src;
    void *d = dst;
    CHECK_OK(oc_batch_compress(ctx, &o, 1, &s, &n, &d, &cap, &size, st));
    return size;
}

static void too_small(oc_algorithm algo, const uint8_t *data, size_t n)
{
    size_t cap = oc_compress_bound(algo, n);
    uint8_t *comp = tu_xmalloc(cap), *out = tu_xmalloc(n + 64);
    oc_status st;
    size_t c = encode1(algo, data, n, comp, cap, &st);
    CHECK_STATUS(st, OC_OK);
    /* decode into size - 1 bytes, guard after */
    tu_fill_guard(out, n + 64);
    CHECK_STATUS(decode1(algo, comp, c, out, n - 1, NULL), OC_ERR_OUTPUT_TOO_SMALL);
    CHECK_GUARD(out + n - 1, 65);
    CHECK_STATUS(decode1(algo, comp, c, out, 0, NULL), OC_ERR_OUTPUT_TOO_SMALL);
    /* encode into compressed size - 1 bytes */
    uint8_t *small = tu_xmalloc(c + 64);
    tu_fill_guard(small, c + 64);
    encode1(algo, data, n, small, c - 1, &st);
    CHECK_STATUS(st, OC_ERR_OUTPUT_TOO_SMALL);
    CHECK_GUARD(small + c - 1, 65);
    free(small);
    free(comp);
    free(out);
}

static void truncated(oc_algorithm algo, const uint8_t *data, size_t n)
{
    size_t cap = oc_compress_bound(algo, n);
    uint8_t *comp = tu_xmalloc(cap), *out = tu_xmalloc(n);
    oc_status st;
    size_t c = encode1(algo, data, n, comp, cap, &st);
    CHECK_STATUS(st, OC_OK);
    for (size_t cut = 0; cut < c; cut += (cut < 64 || c - cut < 64) ? 1 : 97) {
        uint8_t *copy = tu_xmalloc(cut); /* exactly `cut` bytes: ASan catches over-reads */
        memcpy(copy, comp, cut);
        size_t got = 0, size = 0;
        oc_status d = decode1(algo, copy, cut, out, n, &got);
        oc_status s = size1(algo, copy, cut, &size);
        if (algo == OC_ALGO_LZ4) {
            CHECK_MSG(d == OC_ERR_TRUNCATED || d == OC_ERR_CORRUPT || (d == OC_OK && got < n),
                      "lz4 cut %zu: %s", cut, oc_status_name(d));
        } else if (algo == OC_ALGO_GDEFLATE && d == OC_OK) {
            /* a page ends in its lanes' lookahead words: cutting into them
             * loses no bit the decoder reads */
            CHECK_MSG(got == n && s == OC_OK && size == n && cut + 64 * 4 + 8 >= c,
                      "gdeflate cut at %zu of %zu: OK with %zu bytes", cut, c, got);
        } else {
            CHECK_MSG(d == OC_ERR_TRUNCATED, "%s cut at %zu of %zu: %s", oc_algorithm_name(algo), cut, c,
                      oc_status_name(d));
            CHECK_MSG(s == OC_ERR_TRUNCATED, "%s size, cut at %zu of %zu: %s", oc_algorithm_name(algo), cut,
                      c, oc_status_name(s));
        }
        free(copy);
    }
    free(comp);
    free(out);
}

static void flip_check(oc_algorithm algo, uint8_t *comp, size_t c, size_t at, const uint8_t *data, size_t n,
                       oc_status want)
{
    uint8_t *out = tu_xmalloc(n);
    comp[at] ^= 0x10;
    size_t size;
    CHECK_STATUS(decode1(algo, comp, c, out, n, NULL), want);
    /* zstd sizes come from the frame header, without decoding: no checksum seen */
    CHECK_STATUS(size1(algo, comp, c, &size), algo == OC_ALGO_ZSTD ? OC_OK : want);
    comp[at] ^= 0x10;
    CHECK_STATUS(decode1(algo, comp, c, out, n, NULL), OC_OK);
    CHECK_MEM_EQ(out, data, n);
    free(out);
}

static void checksums(const uint8_t *data, size_t n)
{
    size_t cap = oc_compress_bound(OC_ALGO_GZIP, n) + 64;
    uint8_t *comp = tu_xmalloc(cap);
    oc_status st;
    size_t c = encode1(OC_ALGO_ZLIB, data, n, comp, cap, &st);
    CHECK_STATUS(st, OC_OK);
    for (size_t k = 1; k <= 4; k++)
        flip_check(OC_ALGO_ZLIB, comp, c, c - k, data, n, OC_ERR_CHECKSUM_MISMATCH);
    c = encode1(OC_ALGO_GZIP, data, n, comp, cap, &st);
    CHECK_STATUS(st, OC_OK);
    for (size_t k = 5; k <= 8; k++)
        flip_check(OC_ALGO_GZIP, comp, c, c - k, data, n, OC_ERR_CHECKSUM_MISMATCH);
    for (size_t k = 1; k <= 4; k++)
        flip_check(OC_ALGO_GZIP, comp, c, c - k, data, n, OC_ERR_SIZE_MISMATCH);

    /* gzip header CRC (FHCRC) from zlib's deflateSetHeader */
    z_stream z;
    memset(&z, 0, sizeof(z));
    CHECK_EQ(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
    gz_header h;
    memset(&h, 0, sizeof(h));
    h.name = (Bytef *)"x";
    h.hcrc = 1;
    CHECK_EQ(deflateSetHeader(&z, &h), Z_OK);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)n;
    z.next_out = comp;
    z.avail_out = (uInt)cap;
    CHECK_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
    c = z.total_out;
    deflateEnd(&z);
    flip_check(OC_ALGO_GZIP, comp, c, 12, data, n, OC_ERR_CHECKSUM_MISMATCH); /* 10 + "x\0": the CRC16 */
    flip_check(OC_ALGO_GZIP, comp, c, 4, data, n, OC_ERR_CHECKSUM_MISMATCH);  /* MTIME, covered by it */

    /* zstd content checksum: the last 4 bytes of a frame with the flag */
    ZSTD_CCtx *zc = ZSTD_createCCtx();
    CHECK(!ZSTD_isError(ZSTD_CCtx_setParameter(zc, ZSTD_c_checksumFlag, 1)));
    c = ZSTD_compress2(zc, comp, cap, data, n);
    CHECK(!ZSTD_isError(c));
    ZSTD_freeCCtx(zc);
    flip_check(OC_ALGO_ZSTD, comp, c, c - 1, data, n, OC_ERR_CHECKSUM_MISMATCH);
    free(comp);
}

static void dictionaries(void)
{
    size_t size;
    uint8_t out[16];
    /* zlib: CMF 0x78 (deflate, 32K window), FLG 0xBB (FDICT set, FCHECK ok), DICTID */
    static const uint8_t zfdict[] = {0x78, 0xBB, 0x12, 0x34, 0x56, 0x78, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01};
    CHECK_STATUS(decode1(OC_ALGO_ZLIB, zfdict, sizeof(zfdict), out, sizeof(out), NULL),
                 OC_ERR_NEEDS_DICTIONARY);
    CHECK_STATUS(size1(OC_ALGO_ZLIB, zfdict, sizeof(zfdict), &size), OC_ERR_NEEDS_DICTIONARY);
    /* zstd: magic; FHD 0x21 = single segment, 1-byte dictionary ID; DictID 7;
     * FCS 5; one raw last block of 5 bytes (header (5 << 3) | 1) */
    static const uint8_t zsdict[] = {0x28, 0xB5, 0x2F, 0xFD, 0x21, 0x07, 0x05, 0x29,
                                     0x00, 0x00, 'h',  'e',  'l',  'l',  'o'};
    CHECK_STATUS(decode1(OC_ALGO_ZSTD, zsdict, sizeof(zsdict), out, sizeof(out), NULL),
                 OC_ERR_NEEDS_DICTIONARY);
    CHECK_STATUS(size1(OC_ALGO_ZSTD, zsdict, sizeof(zsdict), &size), OC_ERR_NEEDS_DICTIONARY);
    /* the same frame with dictionary ID flag 0 (FHD 0x20, no DictID byte) is fine */
    static const uint8_t zsplain[] = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x05, 0x29,
                                      0x00, 0x00, 'h',  'e',  'l',  'l',  'o'};
    size_t got;
    CHECK_STATUS(decode1(OC_ALGO_ZSTD, zsplain, sizeof(zsplain), out, sizeof(out), &got), OC_OK);
    CHECK_SIZE_EQ(got, 5);
    CHECK_MEM_EQ(out, "hello", 5);
}

/* Size fields that claim more than the stream can decode to: the size
 * query says CORRUPT (the table's max_expansion, + 64 KiB), exactly at
 * the bound's edge, so callers may allocate the sizes it reports. */
static void hostile_sizes(void)
{
    /* zstd: FHD 0xE0 (single segment, 8-byte content size), one raw last
     * block of 1 byte; the query reads the content size alone (snappy's
     * CPU query scans the stream, so its preamble cannot lie). */
    uint8_t zs[] = {0x28, 0xB5, 0x2F, 0xFD, 0xE0, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x00, 0x00, 'x'};
    uint64_t edge = sizeof zs * ta_info(OC_ALGO_ZSTD).max_expansion + 65536;
    for (int k = 0; k < 3; k++) {
        uint64_t v = k == 2 ? (uint64_t)1 << 40 : edge + (uint64_t)k;
        for (int i = 0; i < 8; i++)
            zs[5 + i] = (uint8_t)(v >> (8 * i));
        size_t size = 1;
        CHECK_STATUS(size1(OC_ALGO_ZSTD, zs, sizeof zs, &size), k ? OC_ERR_CORRUPT : OC_OK);
        CHECK_SIZE_EQ(size, k ? 0 : edge);
        /* detection: the largest ratio of all, zstd's */
        CHECK_STATUS(size1(OC_ALGO_NONE, zs, sizeof zs, &size), k ? OC_ERR_CORRUPT : OC_OK);
    }
}

/* Random bytes may decode OK only in formats with neither a header nor a
 * checksum: a bare LZ4 block, Snappy buffer, deflate stream or GDeflate
 * page.  Every other format, a new one included, must refuse them. */
static int rejects_random(oc_algorithm algo)
{
    return algo != OC_ALGO_LZ4 && algo != OC_ALGO_SNAPPY && algo != OC_ALGO_DEFLATE &&
           algo != OC_ALGO_GDEFLATE;
}

static void random_input(void)
{
    uint8_t src[2048], out[4096 + 32];
    for (int r = 0; r < 400; r++) {
        size_t n = (size_t)(r * 37) % sizeof(src);
        tu_fill_random(src, n, (uint64_t)r);
        if (r % 3 == 0 && n >= 4) { /* a plausible magic number in front */
            static const uint8_t magics[3][4] = {
                {0x28, 0xB5, 0x2F, 0xFD}, {0x1f, 0x8b, 8, 0}, {0x78, 0x9c, 0, 0}};
            memcpy(src, magics[r % 9 / 3], (r % 9 / 3) == 0 ? 4 : 2);
        }
        for (size_t a = 0; a < algos.n; a++) {
            size_t cap = (size_t)(r * 13) % 4096, got = 0, size = 0;
            tu_fill_guard(out + cap, 32);
            oc_algorithm algo = algos.info[a].algorithm;
            oc_status st = decode1(algo, src, n, out, cap, &got);
            CHECK_GUARD(out + cap, 32);
            (void)size1(algo, src, n, &size);
            if (rejects_random(algo))
                CHECK_MSG(st != OC_OK || n == 0, "%s accepted random bytes", oc_algorithm_name(algo));
            if (st == OC_OK)
                CHECK(got <= cap);
        }
    }
}

static void one_bad_chunk(const uint8_t *data, size_t n)
{
    for (size_t a = 0; a < algos.n; a++) {
        tu_chunks c;
        tu_chunks_split(&c, data, n, 4096);
        CHECK(c.n >= 8);
        oc_algorithm algo = algos.info[a].algorithm;
        tu_chunks_compress(&c, ctx, algo, 0);
        /* chunk 3: garbage; chunk 5: truncated to half */
        tu_fill_random(c.comp[3], c.comp_sizes[3], 99);
        memcpy(c.comp[3], "\x00\x00\x00\x00\x00", 5 < c.comp_sizes[3] ? 5 : c.comp_sizes[3]);
        c.comp_sizes[5] /= 2;
        void **dst = tu_xmalloc(c.n * sizeof(void *));
        size_t *sizes = tu_xmalloc(c.n * sizeof(size_t));
        oc_status *st = tu_xmalloc(c.n * sizeof(oc_status));
        uint8_t *big = tu_xmalloc(n);
        for (size_t i = 0; i < c.n; i++)
            dst[i] = big + (size_t)((const uint8_t *)c.src[i] - data);
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = algo;
        CHECK_OK(oc_batch_decompress(ctx, &o, c.n, (const void *const *)c.comp, c.comp_sizes, dst,
                                     c.src_sizes, sizes, st));
        for (size_t i = 0; i < c.n; i++) {
            if (i == 3 || i == 5) {
                CHECK_MSG(st[i] != OC_OK || algo == OC_ALGO_LZ4 || algo == OC_ALGO_DEFLATE,
                          "%s chunk %zu accepted", oc_algorithm_name(algo), i);
                continue;
            }
            CHECK_STATUS(st[i], OC_OK);
            CHECK_SIZE_EQ(sizes[i], c.src_sizes[i]);
            CHECK_MEM_EQ((uint8_t *)dst[i], (const uint8_t *)c.src[i], c.src_sizes[i]);
        }
        CHECK(st[5] != OC_OK || algo == OC_ALGO_LZ4);
        free(dst);
        free(sizes);
        free(st);
        free(big);
        tu_chunks_free(&c);
    }
}

int main(void)
{
    oc_context_options opts = OC_CONTEXT_OPTIONS_INIT;
    opts.num_threads = 2;
    CHECK_OK(oc_context_create(&opts, &ctx));
    tu_buf text, elf, num;
    tu_corpus_get("text", 0, &text);
    tu_corpus_get("elf", 200000, &elf);
    tu_corpus_get("numeric", 100000, &num);
    ta_algorithms(&algos);
    for (size_t a = 0; a < algos.n; a++) {
        oc_algorithm algo = algos.info[a].algorithm;
        too_small(algo, text.data, ta_clamp_chunk(algo, text.size));
        too_small(algo, elf.data, ta_clamp_chunk(algo, 70000));
        too_small(algo, text.data, 1);
        truncated(algo, text.data, 20000);
        truncated(algo, num.data, 30000);
    }
    checksums(text.data, text.size);
    checksums(elf.data, elf.size);
    dictionaries();
    hostile_sizes();
    random_input();
    one_bad_chunk(elf.data, 100000);
    tu_buf_free(&text);
    tu_buf_free(&elf);
    tu_buf_free(&num);
    oc_context_destroy(ctx);
    printf("test_batch_errors: OK\n");
    return 0;
}
