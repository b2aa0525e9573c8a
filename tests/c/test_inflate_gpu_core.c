/*
 * test_inflate_gpu_core.c - the GPU inflate core (src/cuda/codecs/deflate/inflate_core.h,
 * inflate_chunk_core.h, deflate_checksum_core.h) compiled for the host with
 * one lane, against zlib, libdeflate and the CPU engine.  CI has no GPU: this
 * is where the decoding logic the CUDA kernel runs is checked on every
 * commit (bench/gpu/dev/inflate_dev.cu checks that the GPU gives the same
 * statuses and bytes as this core).
 *
 * Guards: round trips of raw deflate, zlib and gzip from libdeflate levels
 * 0-12 and zlib levels 1/6/9 with every strategy (stored, fixed, dynamic and
 * Huffman-only/RLE blocks), window sizes 2^9..2^15, streams that mix the
 * three block types and empty flush blocks, on real files and generated
 * columns; exact statuses: OUTPUT_TOO_SMALL one byte short (with the size
 * needed) and at every capacity below the size of a 4 KiB stream (the
 * symbol loop's fast-path bound), TRUNCATED for every proper prefix (sampled for long streams),
 * CHECKSUM_MISMATCH for a damaged Adler-32 / CRC-32 / FHCRC, SIZE_MISMATCH
 * for a damaged ISIZE, NEEDS_DICTIONARY for a zlib preset dictionary, and
 * CORRUPT for the hand-built bad streams below (each commented field by
 * field); damaged inputs never read or write out of bounds (inputs and
 * outputs are exactly-sized heap buffers; ASan suite) and get the CPU
 * engine's status, and when accepted decode to zlib's bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "cuda/codecs/deflate/inflate_chunk_core.h"

#include "helpers/deflate_fixed_code.h"
#include "helpers/deflate_ref.h"
#include "helpers/soft_check.h"
#include "helpers/tu_rng.h"

static inf_tables g_tables;
static uint32_t g_crct[256];
static oc_context *g_cpu;

static const char *fmt_name(oc_algorithm a)
{
    return a == OC_ALGO_ZLIB ? "zlib" : a == OC_ALGO_GZIP ? "gzip" : "deflate";
}

/* The core on exactly-sized copies of the input and output. */
static oc_status dec(oc_algorithm a, const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *got)
{
    uint8_t *in = malloc(n ? n : 1), *out = malloc(cap ? cap : 1);
    REQUIRE(in && out);
    if (n)
        memcpy(in, src, n);
    oc_status st = inf_decode_chunk(&g_tables, g_crct, a, in, n, out, cap, got);
    if (dst && st == OC_OK)
        memcpy(dst, out, *got);
    free(in);
    free(out);
    return st;
}

/* The CPU engine's verdict on the same chunk. */
static oc_status cpu_dec(oc_algorithm a, const uint8_t *src, size_t n, size_t cap)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    uint8_t *out = malloc(cap ? cap : 1);
    const void *s = src;
    void *d = out;
    size_t got = 0;
    oc_status st = OC_ERR_INTERNAL;
    oc_status rc = oc_batch_decompress(g_cpu, &o, 1, &s, &n, &d, &cap, &got, &st);
    free(out);
    return rc == OC_OK ? st : rc;
}

/* zlib's inflate of a whole stream of format a into ref (cap bytes); the
 * size or -1. */
static long zlib_dec(oc_algorithm a, const uint8_t *src, size_t n, uint8_t *ref, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    int wb = a == OC_ALGO_ZLIB ? 15 : a == OC_ALGO_GZIP ? 31 : -15;
    if (inflateInit2(&z, wb) != Z_OK)
        return -1;
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = ref;
    z.avail_out = (uInt)cap;
    long r = -1;
    for (;;) {
        int ret = inflate(&z, Z_FINISH);
        if (ret == Z_STREAM_END && a == OC_ALGO_GZIP && z.avail_in > 0) { /* next member */
            uInt left = z.avail_in;
            Bytef *at = z.next_in;
            inflateReset(&z);
            z.next_in = at;
            z.avail_in = left;
            continue;
        }
        if (ret == Z_STREAM_END && z.avail_in == 0)
            r = (long)(cap - z.avail_out);
        break;
    }
    inflateEnd(&z);
    return r;
}

/* The one way the core may differ from the CPU engine: the CPU engine
 * decodes with libdeflate, which accepts a few streams that zlib (and the
 * core) reject - the reserved literal/length symbols 286-287 and distance
 * symbols 30-31 of the fixed code, an incomplete precode, and codewords
 * outside an incomplete code.  There the core says CORRUPT as zlib does. */
static long zlib_dec(oc_algorithm a, const uint8_t *src, size_t n, uint8_t *ref, size_t cap);
static int lenient_cpu(oc_algorithm a, oc_status core, oc_status cpu, const uint8_t *src, size_t n,
                       size_t cap)
{
    if (core != OC_ERR_CORRUPT || cpu == OC_ERR_CORRUPT)
        return 0;
    uint8_t *ref = malloc(cap + 1);
    long zr = zlib_dec(a, src, n, ref, cap);
    free(ref);
    return zr < 0;
}

static tu_rng g_rng = {0x2545F491u}; /* helpers/tu_rng.h */
static uint32_t rnd(void)
{
    return (uint32_t)tu_rng_next(&g_rng);
}

/* ---- checks of one stream (built by helpers/deflate_ref.h) ---------------------- */

static void check_stream(const char *name, oc_algorithm a, uint8_t *comp, size_t csize, const uint8_t *orig,
                         size_t n, int damage)
{
    const char *fn = fmt_name(a);
    uint8_t *out = malloc(n + 4097), *ref = malloc(n + 1);
    size_t got = 0;
    oc_status st = dec(a, comp, csize, out, n, &got);
    EXPECT(st == OC_OK && got == n && memcmp(out, orig, n) == 0, "%s %s: status %d, %zu of %zu bytes", name,
           fn, (int)st, got, n);
    if (n > 0) {
        st = dec(a, comp, csize, NULL, n - 1, &got);
        EXPECT(st == OC_ERR_OUTPUT_TOO_SMALL && (a == OC_ALGO_GZIP || got == n),
               "%s %s one byte short: status %d, needs %zu of %zu", name, fn, (int)st, got, n);
        st = dec(a, comp, csize, NULL, 0, &got);
        EXPECT(st == OC_ERR_OUTPUT_TOO_SMALL, "%s %s no room: status %d", name, fn, (int)st);
    }
    size_t step = csize > 600 ? csize / 150 + 1 : 1;
    for (size_t cut = 0; cut < csize; cut += step) {
        st = dec(a, comp, cut, NULL, n, &got);
        EXPECT(st == OC_ERR_TRUNCATED, "%s %s cut at %zu of %zu: status %d", name, fn, cut, csize, (int)st);
    }
    if (a != OC_ALGO_DEFLATE && n > 0) { /* trailer checks */
        size_t at = a == OC_ALGO_ZLIB ? csize - 1 : csize - 8;
        comp[at] ^= 0x40;
        st = dec(a, comp, csize, NULL, n, &got);
        EXPECT(st == OC_ERR_CHECKSUM_MISMATCH, "%s %s bad checksum: status %d", name, fn, (int)st);
        comp[at] ^= 0x40;
        if (a == OC_ALGO_GZIP) {
            comp[csize - 1] ^= 0x01;
            st = dec(a, comp, csize, NULL, n + 1000, &got);
            EXPECT(st == OC_ERR_SIZE_MISMATCH, "%s gzip bad ISIZE: status %d", name, (int)st);
            comp[csize - 1] ^= 0x01;
        }
    }
    /* bytes after the stream */
    uint8_t *more = malloc(csize + 1);
    memcpy(more, comp, csize);
    more[csize] = a == OC_ALGO_GZIP ? 0x1f : 0;
    st = dec(a, more, csize + 1, NULL, n, &got);
    EXPECT(st == (a == OC_ALGO_GZIP ? OC_ERR_TRUNCATED : OC_ERR_CORRUPT), "%s %s trailing byte: status %d",
           name, fn, (int)st);
    free(more);
    for (int t = 0; t < damage && csize > 0; t++) {
        uint8_t *bad = malloc(csize);
        memcpy(bad, comp, csize);
        int flips = 1 + (int)(rnd() % 3);
        for (int f = 0; f < flips; f++)
            bad[rnd() % csize] ^= (uint8_t)(1u << (rnd() % 8));
        size_t cap = n + (rnd() % 2 ? 0 : 4096);
        st = dec(a, bad, csize, out, cap, &got);
        oc_status cst = cpu_dec(a, bad, csize, cap);
        EXPECT(st == cst || lenient_cpu(a, st, cst, bad, csize, cap),
               "%s %s damaged #%d: status %d, CPU engine %d", name, fn, t, (int)st, (int)cst);
        if (st == OC_OK) {
            uint8_t *zref = malloc(cap + 1);
            long zr = zlib_dec(a, bad, csize, zref, cap);
            EXPECT(zr == (long)got && memcmp(zref, out, got) == 0,
                   "%s %s damaged #%d accepted, zlib disagrees", name, fn, t);
            free(zref);
        }
        free(bad);
    }
    free(out);
    free(ref);
}

static void check_input(const char *name, const uint8_t *src, size_t n, int thorough)
{
    static const oc_algorithm algos[3] = {OC_ALGO_DEFLATE, OC_ALGO_ZLIB, OC_ALGO_GZIP};
    for (int ai = 0; ai < 3; ai++) {
        oc_algorithm a = algos[ai];
        size_t cs;
        uint8_t *c;
        for (int lvl = 0; lvl <= 12; lvl += thorough ? 1 : 4) {
            c = libdeflate_comp(a, src, n, lvl, &cs);
            check_stream(name, a, c, cs, src, n, lvl == 6 ? 60 : 6);
            free(c);
        }
        static const int strategies[] = {Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED};
        for (int s = 0; s < 5; s++) {
            for (int lvl = 1; lvl <= 9; lvl += 4) {
                if (!thorough && lvl != 6)
                    continue;
                c = zlib_comp(a, src, n, lvl, strategies[s], 15, &cs);
                check_stream(name, a, c, cs, src, n, 6);
                free(c);
            }
        }
        for (int wb = 9; wb < 15 && thorough; wb++) { /* small windows */
            c = zlib_comp(a, src, n, 6, Z_DEFAULT_STRATEGY, wb, &cs);
            check_stream(name, a, c, cs, src, n, 2);
            free(c);
        }
        c = mixed_comp(a, src, n, &cs);
        check_stream(name, a, c, cs, src, n, 30);
        free(c);
    }
}

/* ---- hand-built streams --------------------------------------------------------- */

/* Bit writer for hand-built streams (LSB first, Huffman codes MSB first). */
typedef struct bw {
    uint8_t buf[512];
    size_t bits;
} bw;

static void put(bw *w, uint32_t v, int n)
{
    for (int i = 0; i < n; i++, w->bits++)
        if ((v >> i) & 1)
            w->buf[w->bits >> 3] |= (uint8_t)(1u << (w->bits & 7));
}

static void put_code(bw *w, uint32_t code, int n) /* Huffman code, first bit = MSB */
{
    for (int i = n - 1; i >= 0; i--)
        put(w, (code >> i) & 1, 1);
}

static size_t bw_bytes(const bw *w)
{
    return (w->bits + 7) / 8;
}

static void expect_raw(const char *what, const bw *w, oc_status want, const char *bytes, size_t nbytes)
{
    uint8_t out[300];
    size_t got = 0;
    oc_status st = dec(OC_ALGO_DEFLATE, w->buf, bw_bytes(w), out, sizeof out, &got);
    EXPECT(st == want, "%s: status %d, want %d", what, (int)st, (int)want);
    if (want == OC_OK && bytes)
        EXPECT(got == nbytes && memcmp(out, bytes, nbytes) == 0, "%s: %zu bytes", what, got);
    oc_status cst = cpu_dec(OC_ALGO_DEFLATE, w->buf, bw_bytes(w), sizeof out);
    EXPECT(cst == st || lenient_cpu(OC_ALGO_DEFLATE, st, cst, w->buf, bw_bytes(w), sizeof out),
           "%s: CPU engine %d, core %d", what, (int)cst, (int)st);
}

/* Fixed-code literal (RFC 1951 3.2.6). */
static void put_fixed_lit(bw *w, uint32_t sym)
{
    tu_huff_code c = tu_fixed_litlen(sym);
    put_code(w, c.code, (int)c.len);
}

/* A dynamic header: 257 litlen lengths, ndist distance lengths, given as a
 * list of (length, count) runs, all sent as plain precode symbols 0..15 with
 * a precode giving every used length a 4-bit code... kept simple: precode
 * lengths 4 for symbols 0..15 (16 codes of 4 bits = complete). */
static void put_dynamic_header(bw *w, int final, const uint8_t *lens, int nlit, int ndist)
{
    put(w, (uint32_t) final, 1);
    put(w, 2, 2);
    put(w, (uint32_t)(nlit - 257), 5);
    put(w, (uint32_t)(ndist - 1), 5);
    put(w, 15, 4); /* HCLEN = 19 */
    static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    for (int i = 0; i < 19; i++)
        put(w, order[i] < 16 ? 4 : 0, 3);
    for (int i = 0; i < nlit + ndist; i++)
        put_code(w, lens[i], 4); /* precode: symbol s has code s (4 bits, canonical) */
}

static void check_hand_built(void)
{
    bw w;
    /* stored, final, "hi" */
    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 0, 2);
    w.bits = 8;
    put(&w, 2, 16);
    put(&w, 0xFFFD, 16);
    put(&w, 'h', 8);
    put(&w, 'i', 8);
    expect_raw("stored block", &w, OC_OK, "hi", 2);
    w.buf[3] ^= 1; /* NLEN no longer ~LEN */
    expect_raw("stored NLEN mismatch", &w, OC_ERR_CORRUPT, NULL, 0);
    /* empty stored block, not final, then an empty fixed final block */
    memset(&w, 0, sizeof w);
    put(&w, 0, 3);
    w.bits = 8;
    put(&w, 0, 16);
    put(&w, 0xFFFF, 16);
    put(&w, 1, 1);
    put(&w, 1, 2);
    put_fixed_lit(&w, 256);
    expect_raw("empty stored + empty fixed", &w, OC_OK, "", 0);
    /* BTYPE 3 */
    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 3, 2);
    expect_raw("block type 3", &w, OC_ERR_CORRUPT, NULL, 0);
    /* fixed: 'a', then length 3 distance 1 ("aaaa"), end */
    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 1, 2);
    put_fixed_lit(&w, 'a');
    put_fixed_lit(&w, 257);
    put_code(&w, 0, 5);
    put_fixed_lit(&w, 256);
    expect_raw("fixed run", &w, OC_OK, "aaaa", 4);
    /* the same with distance 2: beyond the one byte written */
    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 1, 2);
    put_fixed_lit(&w, 'a');
    put_fixed_lit(&w, 257);
    put_code(&w, 1, 5);
    put_fixed_lit(&w, 256);
    expect_raw("distance too far", &w, OC_ERR_CORRUPT, NULL, 0);
    /* fixed distance symbol 30 */
    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 1, 2);
    put_fixed_lit(&w, 'a');
    put_fixed_lit(&w, 257);
    put_code(&w, 30, 5);
    put_fixed_lit(&w, 256);
    expect_raw("distance symbol 30", &w, OC_ERR_CORRUPT, NULL, 0);
    /* fixed literal/length symbol 286 */
    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 1, 2);
    put_fixed_lit(&w, 'a');
    put_fixed_lit(&w, 286);
    put_code(&w, 0, 5);
    put_fixed_lit(&w, 256);
    expect_raw("length symbol 286", &w, OC_ERR_CORRUPT, NULL, 0);
    /* length 258 (symbol 285) at distance 1 */
    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 1, 2);
    put_fixed_lit(&w, 'z');
    put_fixed_lit(&w, 285);
    put_code(&w, 0, 5);
    put_fixed_lit(&w, 256);
    {
        char z[259];
        memset(z, 'z', sizeof z);
        expect_raw("length 258", &w, OC_OK, z, 259);
    }
    /* dynamic: literals 'a','b' (1 bit each would need EOB too): lengths
     * a=1, b=2, EOB=2; distance code: one code of length 1 (allowed
     * incomplete); data "ab" */
    {
        uint8_t lens[257 + 1];
        memset(lens, 0, sizeof lens);
        lens['a'] = 1;
        lens['b'] = 2;
        lens[256] = 2;
        lens[257] = 1; /* distance 0 */
        memset(&w, 0, sizeof w);
        put_dynamic_header(&w, 1, lens, 257, 1);
        put_code(&w, 0, 1); /* a */
        put_code(&w, 2, 2); /* b */
        put_code(&w, 3, 2); /* EOB */
        expect_raw("dynamic, single distance code", &w, OC_OK, "ab", 2);
        lens[257] = 0; /* empty distance code, literals only: allowed */
        memset(&w, 0, sizeof w);
        put_dynamic_header(&w, 1, lens, 257, 1);
        put_code(&w, 0, 1);
        put_code(&w, 2, 2);
        put_code(&w, 3, 2);
        expect_raw("dynamic, empty distance code", &w, OC_OK, "ab", 2);
        lens[256] = 0; /* no end-of-block code */
        lens['c'] = 2;
        memset(&w, 0, sizeof w);
        put_dynamic_header(&w, 1, lens, 257, 1);
        expect_raw("dynamic, no end-of-block code", &w, OC_ERR_CORRUPT, NULL, 0);
        lens[256] = 2;
        lens['c'] = 2; /* a=1 b=2 c=2 EOB=2: over-subscribed */
        memset(&w, 0, sizeof w);
        put_dynamic_header(&w, 1, lens, 257, 1);
        expect_raw("dynamic, over-subscribed code", &w, OC_ERR_CORRUPT, NULL, 0);
        lens['c'] = 0;
        lens['a'] = 2; /* a=2 b=2 EOB=2: incomplete with 3 codes */
        memset(&w, 0, sizeof w);
        put_dynamic_header(&w, 1, lens, 257, 1);
        expect_raw("dynamic, incomplete code", &w, OC_ERR_CORRUPT, NULL, 0);
    }
    /* dynamic: HLIT = 30 (287 lengths) */
    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 2, 2);
    put(&w, 30, 5);
    put(&w, 0, 5);
    put(&w, 15, 4);
    expect_raw("dynamic, 287 litlen lengths", &w, OC_ERR_CORRUPT, NULL, 0);
    /* dynamic: the first code length is "repeat previous" (16) */
    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 2, 2);
    put(&w, 0, 5);
    put(&w, 0, 5);
    put(&w, 15, 4);
    /* precode lengths in order 16, 17, 18, 0, 8, ...: the first four get 2
     * bits (complete); canonical codes: 0 -> 00, 16 -> 01, 17 -> 10, 18 -> 11 */
    for (int i = 0; i < 19; i++)
        put(&w, i < 4 ? 2 : 0, 3);
    put_code(&w, 1, 2); /* symbol 16 first */
    put(&w, 0, 2);
    expect_raw("dynamic, repeat with nothing before", &w, OC_ERR_CORRUPT, NULL, 0);
}

/* Every capacity from 0 to the size and one past it, for the first 4 KiB of
 * src as raw deflate (dynamic, fixed and Huffman-only blocks): the symbol
 * loop's fast paths test one 32-bit bound (room left in the capacity and the
 * 2 KiB batch) and leave the rest to a slow path, so the capacity is passed
 * by a literal, a literal pair and a match at every offset, before, at and
 * after a batch flush.  Each must be OUTPUT_TOO_SMALL with the size needed,
 * and a capacity that fits must decode zlib's bytes. */
static void check_capacity_sweep(const uint8_t *src, size_t n)
{
    if (n > 4096)
        n = 4096;
    static const int strategies[3] = {Z_DEFAULT_STRATEGY, Z_FIXED, Z_HUFFMAN_ONLY};
    uint8_t *out = malloc(n + 1);
    for (int k = 0; k < 3; k++) {
        size_t cs;
        uint8_t *comp = zlib_comp(OC_ALGO_DEFLATE, src, n, 6, strategies[k], 15, &cs);
        long bad = 0;
        for (size_t cap = 0; cap <= n + 1; cap++) {
            size_t got = 0;
            oc_status st = inf_decode_chunk(&g_tables, g_crct, OC_ALGO_DEFLATE, comp, cs, out, cap, &got);
            int ok = cap >= n ? st == OC_OK && got == n && memcmp(out, src, n) == 0
                              : st == OC_ERR_OUTPUT_TOO_SMALL && got == n;
            if (!ok && bad++ == 0)
                EXPECT(0, "capacity sweep, strategy %d: capacity %zu of %zu: status %d, size %zu",
                       strategies[k], cap, n, (int)st, got);
        }
        free(comp);
    }
    free(out);
}

static void check_wrappers(const uint8_t *src, size_t n)
{
    size_t got;
    uint8_t *out = malloc(n + 1);
    /* gzip with every header field: FTEXT FHCRC FEXTRA FNAME FCOMMENT */
    size_t cs;
    uint8_t *body = zlib_comp(OC_ALGO_DEFLATE, src, n, 6, Z_DEFAULT_STRATEGY, 15, &cs);
    uint8_t hdr[64] = {0x1f, 0x8b, 8, 0x1f, 1, 2, 3, 4, 0, 3};
    size_t h = 10;
    hdr[h++] = 4;
    hdr[h++] = 0;
    memcpy(hdr + h, "AB\2\0", 4);
    h += 4;
    memcpy(hdr + h, "name.txt", 9);
    h += 9;
    memcpy(hdr + h, "a comment", 10);
    h += 10;
    uint32_t hc = (uint32_t)crc32(0, hdr, (uInt)h) & 0xFFFF;
    hdr[h++] = (uint8_t)hc;
    hdr[h++] = (uint8_t)(hc >> 8);
    size_t total = 2 * (h + cs + 8);
    uint8_t *gz = malloc(total);
    uint32_t crc = (uint32_t)crc32(0, src, (uInt)n);
    for (int m = 0; m < 2; m++) { /* two members */
        uint8_t *p = gz + m * (h + cs + 8);
        memcpy(p, hdr, h);
        memcpy(p + h, body, cs);
        for (int i = 0; i < 4; i++) {
            p[h + cs + i] = (uint8_t)(crc >> (8 * i));
            p[h + cs + 4 + i] = (uint8_t)((uint32_t)n >> (8 * i));
        }
    }
    uint8_t *two = malloc(2 * n + 1);
    oc_status st = dec(OC_ALGO_GZIP, gz, total, two, 2 * n, &got);
    EXPECT(st == OC_OK && got == 2 * n && memcmp(two, src, n) == 0 && memcmp(two + n, src, n) == 0,
           "gzip, two members with every header field: status %d, %zu bytes", (int)st, got);
    check_stream("gzip all fields", OC_ALGO_GZIP, gz, total / 2, src, n, 40);
    gz[h - 1] ^= 1; /* FHCRC */
    st = dec(OC_ALGO_GZIP, gz, total, NULL, 2 * n, &got);
    EXPECT(st == OC_ERR_CHECKSUM_MISMATCH, "gzip bad FHCRC: status %d", (int)st);
    gz[h - 1] ^= 1;
    gz[3] |= 0x20; /* reserved flag */
    st = dec(OC_ALGO_GZIP, gz, total, NULL, 2 * n, &got);
    EXPECT(st == OC_ERR_CORRUPT, "gzip reserved flag: status %d", (int)st);
    gz[3] &= 0x1F;
    gz[2] = 7; /* method */
    st = dec(OC_ALGO_GZIP, gz, total, NULL, 2 * n, &got);
    EXPECT(st == OC_ERR_CORRUPT, "gzip method 7: status %d", (int)st);
    gz[2] = 8;
    for (size_t cut = 1; cut < h; cut++) { /* inside the header */
        st = dec(OC_ALGO_GZIP, gz, cut, NULL, 2 * n, &got);
        EXPECT(st == OC_ERR_TRUNCATED, "gzip header cut at %zu: status %d", cut, (int)st);
    }
    st = dec(OC_ALGO_GZIP, gz, total / 2 + 5, NULL, 2 * n, &got); /* second header cut */
    EXPECT(st == OC_ERR_TRUNCATED, "second member header cut: status %d", (int)st);
    { /* zero padding after a member (gzip -d, Python's gzip), then maybe another member */
        size_t half = total / 2;
        uint8_t *pad = malloc(total + 40);
        memcpy(pad, gz, half);
        memset(pad + half, 0, 20);
        st = dec(OC_ALGO_GZIP, pad, half + 20, two, 2 * n, &got);
        EXPECT(st == OC_OK && got == n, "gzip + zero padding: status %d, %zu bytes", (int)st, got);
        memcpy(pad + half + 20, gz + half, half);
        st = dec(OC_ALGO_GZIP, pad, total + 20, two, 2 * n, &got);
        EXPECT(st == OC_OK && got == 2 * n, "gzip + zero padding + member: status %d, %zu bytes", (int)st,
               got);
        pad[half + 19] = 7;
        st = dec(OC_ALGO_GZIP, pad, total + 20, two, 2 * n, &got);
        EXPECT(st == OC_ERR_CORRUPT, "gzip + padding ending in garbage: status %d", (int)st);
        EXPECT(cpu_dec(OC_ALGO_GZIP, pad, total + 20, 2 * n) == st,
               "gzip padding garbage: CPU engine differs");
        free(pad);
    }
    gz[total / 2] = 0; /* garbage in place of the second member */
    st = dec(OC_ALGO_GZIP, gz, total, NULL, 2 * n, &got);
    EXPECT(st == OC_ERR_CORRUPT, "garbage after a member: status %d", (int)st);
    /* zlib: preset dictionary */
    uint8_t zd[16] = {0x78, 0x20};
    zd[1] = (uint8_t)(0x20 + (31 - ((0x78u << 8 | 0x20u) % 31)) % 31);
    st = dec(OC_ALGO_ZLIB, zd, sizeof zd, NULL, 100, &got);
    EXPECT(st == OC_ERR_NEEDS_DICTIONARY, "zlib FDICT: status %d", (int)st);
    z_stream z;
    memset(&z, 0, sizeof z);
    REQUIRE(deflateInit(&z, 6) == Z_OK);
    REQUIRE(deflateSetDictionary(&z, src, 1000) == Z_OK);
    uint8_t *zc = malloc(n + 1000);
    z.next_in = (Bytef *)(uintptr_t)(src + 1000);
    z.avail_in = (uInt)(n - 1000);
    z.next_out = zc;
    z.avail_out = (uInt)(n + 1000);
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    st = dec(OC_ALGO_ZLIB, zc, z.total_out, NULL, n, &got);
    EXPECT(st == OC_ERR_NEEDS_DICTIONARY, "zlib stream with a real dictionary: status %d", (int)st);
    deflateEnd(&z);
    free(zc);
    /* zlib header checks */
    uint8_t bad1[2] = {0x79, 0x9C}; /* method 9 */
    EXPECT(dec(OC_ALGO_ZLIB, bad1, 2, NULL, 10, &got) == OC_ERR_CORRUPT, "zlib method 9");
    uint8_t bad2[2] = {0x88, 0x1C}; /* window 2^16 */
    EXPECT(dec(OC_ALGO_ZLIB, bad2, 2, NULL, 10, &got) == OC_ERR_CORRUPT, "zlib window 64K");
    uint8_t bad3[2] = {0x78, 0x9D}; /* FCHECK */
    EXPECT(dec(OC_ALGO_ZLIB, bad3, 2, NULL, 10, &got) == OC_ERR_CORRUPT, "zlib FCHECK");
    EXPECT(dec(OC_ALGO_ZLIB, bad1, 0, NULL, 10, &got) == OC_ERR_TRUNCATED, "zlib empty");
    EXPECT(dec(OC_ALGO_GZIP, bad1, 0, NULL, 10, &got) == OC_ERR_TRUNCATED, "gzip empty");
    EXPECT(dec(OC_ALGO_DEFLATE, bad1, 0, NULL, 10, &got) == OC_ERR_TRUNCATED, "deflate empty");
    free(body);
    free(gz);
    free(two);
    free(out);
}

static uint8_t *read_file(const char *path, size_t max, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = malloc(max ? max : 1);
    size_t n = fread(buf, 1, max, f);
    fclose(f);
    *size = n;
    return buf;
}

/* A checksum of odd sizes and alignments against zlib's. */
static void check_checksums(const uint8_t *src, size_t n)
{
    for (size_t len = 0; len < n && len < 70000; len = len * 3 + 1) {
        for (size_t off = 0; off < 4; off++) {
            uint32_t c = dck_crc32(g_crct, src + off, len), zc = (uint32_t)crc32(0, src + off, (uInt)len);
            uint32_t a = dck_adler32(src + off, len), za = (uint32_t)adler32(1, src + off, (uInt)len);
            EXPECT(c == zc && a == za, "checksums of %zu bytes at +%zu: crc %08x/%08x adler %08x/%08x", len,
                   off, c, zc, a, za);
        }
    }
}

int main(void)
{
    dck_crc_table_fill(g_crct, 0, 1);
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    co.num_threads = 1;
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    check_hand_built();
    static const char *files[] = {OC_SOURCE_DIR "/include/opencomp.h",
                                  OC_SOURCE_DIR "/src/cuda/codecs/deflate/inflate_core.h", "/bin/sh",
                                  OC_SOURCE_DIR "/bench/corpus-data/tpch_l_comment.txt"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t n;
        uint8_t *data = read_file(files[f], 140000, &n);
        if (!data)
            continue;
        check_input(files[f], data, n, f == 0);
        if (f == 0) {
            check_capacity_sweep(data, n);
            check_wrappers(data, n);
            check_checksums(data, n);
        }
        free(data);
    }
    /* generated columns: sorted int64 keys (long matches), noisy float32
     * (Huffman-only), random bytes (stored), zeros (runs), records */
    size_t n = 300000;
    uint8_t *col = malloc(n);
    for (size_t i = 0; i < n / 8; i++) {
        uint64_t v = i / 3 * 7 + 1000000;
        memcpy(col + 8 * i, &v, 8);
    }
    check_input("sorted i64", col, n, 0);
    for (size_t i = 0; i < n / 4; i++) {
        float v = 100.0f + (float)(rnd() % 1000) / 64.0f;
        memcpy(col + 4 * i, &v, 4);
    }
    check_input("f32 column", col, n, 0);
    for (size_t i = 0; i < n; i++)
        col[i] = (uint8_t)rnd();
    check_input("random", col, 70000, 0);
    memset(col, 0, n);
    check_input("zeros", col, n, 0);
    check_input("one byte", col, 1, 1);
    check_input("empty", col, 0, 1);
    size_t pos = 0;
    while (pos + 64 < n)
        pos += (size_t)snprintf((char *)col + pos, 64, "id=%u,name=user%u,score=%u;", rnd() % 5000,
                                rnd() % 300, rnd() % 100);
    check_input("records", col, pos, 0);
    free(col);
    oc_context_destroy(g_cpu);
    if (g_failures) {
        fprintf(stderr, "%d failures\n", g_failures);
        return 1;
    }
    printf("inflate GPU core: all checks passed\n");
    return 0;
}
