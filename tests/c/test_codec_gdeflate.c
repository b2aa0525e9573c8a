/*
 * test_codec_gdeflate.c - GDeflate pages (docs/FORMAT.md, "GDeflate") on
 * the CPU engine, through the public batch API and the core directly.
 *
 * Guards:
 *   - round trips at levels 1, 6 and 9 on the real corpus (text, ELF,
 *     source, numeric, random, zeros) in pages of 64 KiB and odd sizes 0,
 *     1, 2, 3, 31-33, 100, 1000, 65535, 65536: decoded exactly, the size
 *     query agreeing, never above oc_compress_bound; one byte less of
 *     output is OUTPUT_TOO_SMALL; 65537 bytes are CHUNK_TOO_LARGE; text
 *     compresses (ratio regression guard);
 *   - a spec writer written here from the format's text (lanes as bit
 *     lists, visits logged, words serialised by replaying the refills;
 *     nothing shared with the core) builds pages by hand: an empty fixed
 *     page (whose 132 bytes are also spelled out), a stored page (136 bytes
 *     spelled out), a fixed page with a match whose distance comes in the
 *     last round after the end-of-block code, 70 literals and matches
 *     spread over every lane, and a dynamic page;
 *   - GDeflate's own lengths and distances (deflate_tables.h), by hand:
 *     symbol 285 is 3 + 16 extra bits (a match of 40000 and of 60000 bytes,
 *     and 258 written as 285 + 255), distance codes 30 and 31 are 32769
 *     and 49153 + 14 extra bits;
 *   - pages nvCOMP 6.0.0 wrote (tests/vectors/gdeflate/) decode to their
 *     recorded size and CRC-32, one byte less of room OUTPUT_TOO_SMALL, half
 *     a page TRUNCATED.  These pin the decoder's reading of symbol 285, and
 *     the round trips above then pin the encoder's (it writes 258 as 285 +
 *     255, as nvCOMP does: the zeros page is all such matches);
 *   - exact statuses on hostile pages: empty input and cut stored data
 *     TRUNCATED; BTYPE 3, literal/length 286, a distance (codes 1 and 30)
 *     before the page, an over-subscribed precode, a repeat (16) with
 *     nothing before it, a run past the last code length: CORRUPT; stored
 *     LEN above the capacity OUTPUT_TOO_SMALL;
 *   - every prefix of a page decodes to TRUNCATED or to the same bytes
 *     (bits never consumed may be missing), and one cut inside the bits is
 *     TRUNCATED; byte flips never crash or write past the capacity (the
 *     ASan suite runs this), the size query agreeing with decoding;
 *   - the CUDA engine claims GDeflate decoding (on a machine with a GPU),
 *     not encoding.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/codecs/gdeflate/gdeflate_core.h"
#include "helpers/deflate_fixed_code.h"
#include "helpers/gdeflate_vectors.h"
#define OWN_CODEC_TEST_ALGO OC_ALGO_GDEFLATE
#include "helpers/own_codec_test.h"

static oc_status compress1(const uint8_t *src, size_t n, int level, uint8_t *dst, size_t cap, size_t *got)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_GDEFLATE;
    o.level = level;
    const void *sp = src;
    void *dp = dst;
    oc_status st = OC_ERR_INTERNAL;
    *got = 0;
    CHECK_OK(oc_batch_compress(g_ctx, &o, 1, &sp, &n, &dp, &cap, got, &st));
    return st;
}

/* ---- round trips ----------------------------------------------------------- */

static size_t roundtrip(const char *name, const uint8_t *data, size_t n, int level)
{
    size_t cap = oc_compress_bound(OC_ALGO_GDEFLATE, n);
    CHECK(cap >= n && cap == gd_bound(n));
    uint8_t *c = tu_xmalloc(cap);
    size_t cn = 0;
    oc_status st = compress1(data, n, level, c, cap, &cn);
    CHECK_MSG(st == OC_OK, "%s (%zu bytes) level %d: compress %s", name, n, level, oc_status_name(st));
    CHECK(cn <= cap && cn % 4 == 0 && cn >= 128);
    CHECK_MSG(decode_copy(c, cn, n, data, n) == OC_OK, "%s (%zu bytes) level %d", name, n, level);
    if (n)
        CHECK_STATUS(decode_copy(c, cn, n - 1, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);
    free(c);
    return cn;
}

static void real_data(void)
{
    tu_buf corpus[TU_CORPUS_MAX];
    size_t nc = tu_corpus(corpus, TU_CORPUS_MAX, 65536);
    CHECK(nc >= 4);
    static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 100, 1000, 4097, 65535, 65536};
    static const int levels[] = {1, 6, 9};
    for (size_t i = 0; i < nc; i++) {
        for (size_t l = 0; l < 3; l++) {
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                size_t n = sizes[s] < corpus[i].size ? sizes[s] : corpus[i].size;
                size_t cn = roundtrip(corpus[i].name, corpus[i].data, n, levels[l]);
                if (n == 65536 && !strcmp(corpus[i].name, "text"))
                    CHECK_MSG(cn * 2 < n, "text at level %d: %zu bytes", levels[l], cn);
                if (n == 65536 && !strcmp(corpus[i].name, "zeros"))
                    CHECK_MSG(cn < 1024, "zeros: %zu bytes", cn);
            }
        }
        tu_buf_free(&corpus[i]);
    }
    /* several pages in one call, on two threads */
    tu_buf big;
    tu_big_real(4 * 65536 + 1000, &big);
    const void *sp[5];
    size_t sn[5], cn[5], cap[5];
    void *dp[5];
    oc_status st[5];
    for (int k = 0; k < 5; k++) {
        sp[k] = big.data + (size_t)k * 65536;
        sn[k] = k < 4 ? 65536 : 1000;
        cap[k] = oc_compress_bound(OC_ALGO_GDEFLATE, sn[k]);
        dp[k] = tu_xmalloc(cap[k]);
    }
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_GDEFLATE;
    CHECK_OK(oc_batch_compress(g_ctx, &o, 5, sp, sn, dp, cap, cn, st));
    for (int k = 0; k < 5; k++) {
        CHECK_OK(st[k]);
        CHECK(decode_copy(dp[k], cn[k], sn[k], sp[k], sn[k]) == OC_OK);
        free(dp[k]);
    }
    tu_buf_free(&big);
    /* one byte over a page */
    uint8_t *over = tu_xmalloc(65537), *c = tu_xmalloc(1 << 17);
    memset(over, 'x', 65537);
    size_t n = 0;
    CHECK_STATUS(compress1(over, 65537, 0, c, 1 << 17, &n), OC_ERR_CHUNK_TOO_LARGE);
    CHECK_SIZE_EQ(oc_compress_bound(OC_ALGO_GDEFLATE, 65537), 0);
    /* a capacity too small for the page */
    CHECK_STATUS(compress1(over, 65536, 1, c, 100, &n), OC_ERR_OUTPUT_TOO_SMALL);
    free(over);
    free(c);
}

/* ---- a spec writer, from the format's text ------------------------------------ */

/* Lanes as lists of bits; a log of visits (the lane, the bits it took since
 * its last refill); serialised by replaying the decoder: 32 words first,
 * then after each visit one word for the lane if it holds under 32 bits. */
typedef struct spec {
    uint8_t bit[32][4096];
    size_t nbits[32];
    size_t since[32];
    uint16_t vlane[8192], vbits[8192];
    size_t nvis;
} spec;

static spec g_spec;

static void sp_reset(void)
{
    memset(&g_spec, 0, sizeof g_spec);
}

static void sp_bits(unsigned t, uint32_t v, unsigned n) /* LSB first: header fields, extra bits */
{
    for (unsigned i = 0; i < n; i++)
        g_spec.bit[t][g_spec.nbits[t]++] = (v >> i) & 1;
    g_spec.since[t] += n;
}

static void sp_code(unsigned t, uint32_t code, unsigned len) /* Huffman codes: MSB first */
{
    for (unsigned i = len; i-- > 0;)
        g_spec.bit[t][g_spec.nbits[t]++] = (code >> i) & 1;
    g_spec.since[t] += len;
}

static void sp_visit(unsigned t)
{
    g_spec.vlane[g_spec.nvis] = (uint16_t)t;
    g_spec.vbits[g_spec.nvis++] = (uint16_t)g_spec.since[t];
    g_spec.since[t] = 0;
}

static uint32_t sp_word(unsigned t, size_t k)
{
    uint32_t w = 0;
    for (unsigned i = 0; i < 32; i++)
        if (32 * k + i < g_spec.nbits[t])
            w |= (uint32_t)g_spec.bit[t][32 * k + i] << i;
    return w;
}

static size_t sp_serialise(uint8_t *out)
{
    size_t o = 0, next[32];
    long cnt[32];
    for (unsigned t = 0; t < 32; t++) {
        uint32_t w = sp_word(t, 0);
        memcpy(out + o, &w, 4); /* the tests run little-endian */
        o += 4;
        cnt[t] = 32;
        next[t] = 1;
    }
    for (size_t v = 0; v < g_spec.nvis; v++) {
        unsigned t = g_spec.vlane[v];
        cnt[t] -= g_spec.vbits[v];
        CHECK(cnt[t] >= 0);
        if (cnt[t] < 32) {
            uint32_t w = sp_word(t, next[t]++);
            memcpy(out + o, &w, 4);
            o += 4;
            cnt[t] += 32;
        }
    }
    return o;
}

/* The last round of a Huffman or stored block, from lane t: `dist` >= 0
 * lanes send a fixed distance code (5 bits) first. */
static void sp_last_round(unsigned t, const int *dist_code_of_lane)
{
    for (unsigned r = 0; r < 32; r++, t = (t + 1) % 32) {
        if (dist_code_of_lane && dist_code_of_lane[t] >= 0)
            sp_code(t, (uint32_t)dist_code_of_lane[t], 5);
        sp_visit(t);
    }
}

/* Fixed literal/length codes (RFC 1951 3.2.6). */
static void sp_fixed_lit(unsigned t, unsigned sym)
{
    tu_huff_code c = tu_fixed_litlen(sym);
    sp_code(t, c.code, c.len);
}

/* A stored page of "ab" whose LEN field says len: lane 0 holds BFINAL 1
 * BTYPE 0, LEN (16 bits, no NLEN, no alignment) and 'a'; lane 1 'b'. */
static size_t stored_ab_page(uint8_t *page, uint32_t len)
{
    sp_reset();
    sp_bits(0, 1, 3);
    sp_visit(0);
    sp_bits(0, len, 16);
    sp_bits(0, 'a', 8);
    sp_visit(0);
    sp_bits(1, 'b', 8);
    sp_visit(1);
    sp_last_round(2, NULL);
    return sp_serialise(page);
}

static void hand_built(void)
{
    uint8_t page[8192];
    size_t n;

    /* An empty page: one fixed block, BFINAL 1 BTYPE 1 (3 bits of lane 0,
     * then lane 0 refills: word 32), the end-of-block code 0000000. */
    sp_reset();
    sp_bits(0, 1 | 1 << 1, 3);
    sp_visit(0);
    sp_fixed_lit(0, 256);
    sp_last_round(0, NULL);
    n = sp_serialise(page);
    uint8_t expect_empty[132] = {3};
    CHECK_SIZE_EQ(n, 132);
    CHECK_MEM_EQ(page, expect_empty, 132);
    CHECK_STATUS(decode_copy(page, n, 0, (const uint8_t *)"", 0), OC_OK);
    CHECK_STATUS(decode_copy(page, n, 10, (const uint8_t *)"", 0), OC_OK);

    /* A stored page "ab": lane 0 holds BFINAL 1 BTYPE 0, LEN 2 (16 bits,
     * no NLEN, no alignment) and 'a'; lane 1 'b'.  Words: lane 0 (1 | 2 << 3
     * | 'a' << 19), lane 1 'b', 30 zero words, then lane 0's refill after
     * its header (word 32) and lane 1's after its byte (word 33). */
    uint8_t expect_ab[136] = {0};
    uint32_t w0 = 1u | 2u << 3 | (uint32_t)'a' << 19;
    memcpy(expect_ab, &w0, 4);
    expect_ab[4] = 'b';
    n = stored_ab_page(page, 2);
    CHECK_SIZE_EQ(n, 136);
    CHECK_MEM_EQ(page, expect_ab, 136);
    CHECK_STATUS(decode_copy(page, n, 2, (const uint8_t *)"ab", 2), OC_OK);
    CHECK_STATUS(decode_copy(page, n, 1, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);

    /* "aaaaa": lane 0 'a', lane 1 a length of 4 (symbol 258), lane 2 the end
     * of block; lane 1's distance (1: code 0) comes in the last round. */
    int dist_of[32];
    for (int t = 0; t < 32; t++)
        dist_of[t] = -1;
    sp_reset();
    sp_bits(0, 1 | 1 << 1, 3);
    sp_visit(0);
    sp_fixed_lit(0, 'a');
    sp_visit(0);
    sp_fixed_lit(1, 258);
    sp_visit(1);
    sp_fixed_lit(2, 256);
    dist_of[1] = 0;
    sp_last_round(2, dist_of);
    n = sp_serialise(page);
    CHECK_STATUS(decode_copy(page, n, 5, (const uint8_t *)"aaaaa", 5), OC_OK);
    CHECK_STATUS(decode_copy(page, n, 4, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);

    /* 70 literals 'A'+i%26 in lanes 0..31, 0..31, 0..5, then in lane 6 a match
     * of length 10 at distance 5 (code 4, 1 extra bit 0), lane 7 literal 'z',
     * lane 8 end of block; the distance in lane 6's next visit, the last round. */
    uint8_t expect70[81];
    for (int i = 0; i < 70; i++)
        expect70[i] = (uint8_t)('A' + i % 26);
    for (int i = 0; i < 10; i++)
        expect70[70 + i] = expect70[65 + i % 5];
    expect70[80] = 'z';
    sp_reset();
    sp_bits(0, 1 | 1 << 1, 3);
    sp_visit(0);
    for (int i = 0; i < 70; i++) {
        sp_fixed_lit((unsigned)i % 32, expect70[i]);
        sp_visit((unsigned)i % 32);
    }
    sp_fixed_lit(6, 264); /* length 10 */
    sp_visit(6);
    sp_fixed_lit(7, 'z');
    sp_visit(7);
    sp_fixed_lit(8, 256);
    for (int t = 0; t < 32; t++)
        dist_of[t] = -1;
    /* the distance needs an extra bit: written in the last round by hand */
    for (unsigned r = 0, t = 8; r < 32; r++, t = (t + 1) % 32) {
        if (t == 6) {
            sp_code(6, 4, 5);
            sp_bits(6, 0, 1);
        }
        sp_visit(t);
    }
    n = sp_serialise(page);
    CHECK_STATUS(decode_copy(page, n, 81, expect70, 81), OC_OK);
}

/* GDeflate's lengths and distances: "abc", a match of `len` bytes at
 * distance 3 through symbol 285 (3 + 16 extra bits), 'X', then a match of 3
 * bytes whose distance has code `dcode` (30 or 31: 32769 or 49153 + 14 extra
 * bits, here + 100), every distance in the last round after the end of
 * block. */
static size_t long_page(uint8_t *page, uint32_t len, unsigned dcode)
{
    sp_reset();
    sp_bits(0, 1 | 1 << 1, 3);
    sp_visit(0);
    for (unsigned t = 0; t < 3; t++) {
        sp_fixed_lit(t, 'a' + t);
        sp_visit(t);
    }
    sp_fixed_lit(3, 285);
    sp_bits(3, len - 3, 16);
    sp_visit(3);
    sp_fixed_lit(4, 'X');
    sp_visit(4);
    sp_fixed_lit(5, 257); /* length 3 */
    sp_visit(5);
    sp_fixed_lit(6, 256);
    for (unsigned r = 0, t = 6; r < 32; r++, t = (t + 1) % 32) {
        if (t == 3)
            sp_code(3, 2, 5); /* distance 3 */
        if (t == 5) {
            sp_code(5, dcode, 5);
            sp_bits(5, 100, 14);
        }
        sp_visit(t);
    }
    return sp_serialise(page);
}

static void long_matches(void)
{
    uint8_t page[8192];
    static const uint32_t lens[2] = {40000, 60000};
    for (unsigned k = 0; k < 2; k++) {
        uint32_t len = lens[k], dist = (k ? 49153u : 32769u) + 100, n_out = 3 + len + 1 + 3;
        uint8_t *expect = tu_xmalloc(n_out);
        for (uint32_t i = 0; i < 3 + len; i++)
            expect[i] = (uint8_t)('a' + i % 3);
        expect[3 + len] = 'X';
        for (uint32_t i = 4 + len; i < n_out; i++)
            expect[i] = expect[i - dist];
        size_t n = long_page(page, len, 30 + k);
        CHECK_STATUS(decode_copy(page, n, n_out, expect, n_out), OC_OK);
        CHECK_STATUS(decode_copy(page, n, 2 + len, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL); /* the long match */
        free(expect);
    }
    /* a match too long for the capacity is refused before anything is written */
    size_t n = long_page(page, 65538, 30);
    CHECK_STATUS(decode_copy(page, n, 65536, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);
}

static void nvcomp_vectors(void)
{
    for (size_t i = 0; i < GDV_COUNT; i++) {
        const gdv_vector *v = &gdv_vectors[i];
        tu_buf b;
        CHECK_MSG(gdv_load(v, &b) == 0, "missing test vector %s", v->file);
        uint8_t *out = tu_xmalloc(v->raw_size);
        size_t got = 0;
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = OC_ALGO_GDEFLATE;
        const void *sp = b.data;
        void *dp = out;
        size_t cap = v->raw_size;
        oc_status st = OC_ERR_INTERNAL;
        CHECK_OK(oc_batch_decompress(g_ctx, &o, 1, &sp, &b.size, &dp, &cap, &got, &st));
        CHECK_MSG(st == OC_OK, "%s (%s): %s", v->file, v->what, oc_status_name(st));
        CHECK_SIZE_EQ(got, v->raw_size);
        CHECK_MSG(gdv_crc32(out, got) == v->crc32, "%s: CRC-32 %08x, recorded %08x", v->file,
                  (unsigned)gdv_crc32(out, got), (unsigned)v->crc32);
        CHECK_STATUS(decode_copy(b.data, b.size, v->raw_size, out, got),
                     OC_OK); /* exact buffers, size query */
        CHECK_STATUS(decode_copy(b.data, b.size, v->raw_size - 1, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);
        CHECK_STATUS(decode_copy(b.data, b.size / 2, v->raw_size, NULL, 0), OC_ERR_TRUNCATED);
        free(out);
        tu_buf_free(&b);
    }
}

/* The dynamic page, cleanly: code lengths 'a' 1, 'b' 2, 256 2, distance 0 1. */
static size_t dynamic_page(uint8_t *page, int mode)
{
    sp_reset();
    sp_bits(0, 1 | 2 << 1, 3);
    sp_visit(0);
    sp_bits(0, 0, 5);                  /* HLIT = 257 */
    sp_bits(0, 0, 5);                  /* HDIST = 1 */
    sp_bits(0, mode == 1 ? 0 : 15, 4); /* HCLEN = 19 (mode 1: 4) */
    sp_visit(0);
    static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    /* precode: 1, 2 length 2; 0, 16, 17, 18 length 3: codes 1=00 2=01 0=100 16=101 17=110 18=111 */
    uint8_t plen[19] = {0};
    plen[0] = plen[16] = plen[17] = plen[18] = 3;
    plen[1] = plen[2] = 2;
    if (mode == 1) /* HCLEN 4: 16 17 18 0 all of length 1: over-subscribed */
        plen[16] = plen[17] = plen[18] = plen[0] = 1;
    unsigned nclen = mode == 1 ? 4 : 19;
    for (unsigned i = 0; i < nclen; i++) {
        sp_bits(i, plen[order[i]], 3);
        sp_visit(i);
    }
    unsigned t = 0;
#define PRE(code, len, xv, xn)                                                                               \
    do {                                                                                                     \
        sp_code(t, code, len);                                                                               \
        sp_bits(t, xv, xn);                                                                                  \
        sp_visit(t);                                                                                         \
        t = (t + 1) % 32;                                                                                    \
    } while (0)
    if (mode == 2)
        PRE(5, 3, 0, 2);                      /* 16 first: nothing to repeat */
    PRE(7, 3, 97 - 11, 7);                    /* 18: 97 zeros (0..96) */
    PRE(0, 2, 0, 0);                          /* 97 'a': 1 */
    PRE(1, 2, 0, 0);                          /* 98 'b': 2 */
    PRE(7, 3, mode == 3 ? 127 : 138 - 11, 7); /* 18: 138 zeros (99..236); mode 3: 138 then more */
    if (mode == 3)
        PRE(7, 3, 127, 7); /* 138 more: past the 258 lengths */
    PRE(7, 3, 19 - 11, 7); /* 18: 19 zeros (237..255) */
    PRE(1, 2, 0, 0);       /* 256: 2 */
    PRE(0, 2, 0, 0);       /* distance 0: 1 */
#undef PRE
    /* symbols: a b a b ... 'a' = 0, 'b' = 10, EOB = 11 (MSB first) */
    for (unsigned i = 0; i < 40; i++) {
        if (i % 2 == 0)
            sp_code(i % 32, 0, 1);
        else
            sp_code(i % 32, 2, 2);
        sp_visit(i % 32);
    }
    sp_code(40 % 32, 3, 2);
    sp_last_round(40 % 32, NULL);
    return sp_serialise(page);
}

static void hand_built_dynamic(void)
{
    uint8_t page[8192], expect[40];
    for (int i = 0; i < 40; i++)
        expect[i] = i % 2 ? 'b' : 'a';
    size_t n = dynamic_page(page, 0);
    CHECK_STATUS(decode_copy(page, n, 40, expect, 40), OC_OK);
    n = dynamic_page(page, 1);
    CHECK_STATUS(decode_copy(page, n, 40, NULL, 0), OC_ERR_CORRUPT);
    n = dynamic_page(page, 2);
    CHECK_STATUS(decode_copy(page, n, 40, NULL, 0), OC_ERR_CORRUPT);
    n = dynamic_page(page, 3);
    CHECK_STATUS(decode_copy(page, n, 40, NULL, 0), OC_ERR_CORRUPT);
}

static void hostile(void)
{
    uint8_t page[8192] = {0};
    size_t n;
    CHECK_STATUS(decode_copy(page, 0, 100, NULL, 0), OC_ERR_TRUNCATED);

    /* BTYPE 3 */
    sp_reset();
    sp_bits(0, 1 | 3 << 1, 3);
    sp_visit(0);
    sp_last_round(0, NULL);
    n = sp_serialise(page);
    CHECK_STATUS(decode_copy(page, n, 100, NULL, 0), OC_ERR_CORRUPT);

    /* fixed literal/length symbol 286 */
    sp_reset();
    sp_bits(0, 1 | 1 << 1, 3);
    sp_visit(0);
    sp_fixed_lit(0, 286);
    sp_visit(0);
    sp_fixed_lit(1, 256);
    sp_last_round(1, NULL);
    n = sp_serialise(page);
    CHECK_STATUS(decode_copy(page, n, 100, NULL, 0), OC_ERR_CORRUPT);

    /* distance code 30 (32769 + 14 extra bits) or 1 (2): before the start of the page */
    for (int which = 0; which < 2; which++) {
        int dist_of[32];
        for (int t = 0; t < 32; t++)
            dist_of[t] = -1;
        sp_reset();
        sp_bits(0, 1 | 1 << 1, 3);
        sp_visit(0);
        sp_fixed_lit(0, 'q');
        sp_visit(0);
        sp_fixed_lit(1, 257); /* length 3 */
        sp_visit(1);
        sp_fixed_lit(2, 256);
        dist_of[1] = which == 0 ? 30 : 1; /* code 1: distance 2 at position 1 */
        sp_last_round(2, dist_of);
        n = sp_serialise(page);
        CHECK_STATUS(decode_copy(page, n, 100, NULL, 0), OC_ERR_CORRUPT);
    }

    /* stored LEN 200: above a capacity of 199; with only 136 bytes of page
     * lanes 2-31 (a word each, 6 or 7 bytes due) run out of bits */
    n = stored_ab_page(page, 200);
    CHECK_STATUS(decode_copy(page, n, 199, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);
    CHECK_STATUS(decode_copy(page, n, 200, NULL, 0), OC_ERR_TRUNCATED);
}

/* Prefixes and byte flips of real pages. */
static void cuts_and_flips(void)
{
    tu_buf text;
    tu_corpus_get("text", 20000, &text);
    size_t cap = gd_bound(text.size), cn = 0;
    uint8_t *c = tu_xmalloc(cap);
    CHECK_OK(compress1(text.data, text.size, 6, c, cap, &cn));
    for (size_t k = 0; k < cn; k += (k < 256 ? 1 : 97)) {
        oc_status st = decode_copy(c, k, text.size, text.data, text.size);
        CHECK_MSG(st == OC_OK || st == OC_ERR_TRUNCATED, "prefix %zu of %zu: %s", k, cn, oc_status_name(st));
    }
    CHECK_STATUS(decode_copy(c, cn / 2, text.size, NULL, 0), OC_ERR_TRUNCATED);
    CHECK_STATUS(decode_copy(c, 127, text.size, NULL, 0), OC_ERR_TRUNCATED);
    /* trailing bytes after the page are not read */
    uint8_t *longer = tu_xmalloc(cn + 8);
    memcpy(longer, c, cn);
    memset(longer + cn, 0xff, 8);
    CHECK_STATUS(decode_copy(longer, cn + 8, text.size, text.data, text.size), OC_OK);
    free(longer);
    tu_rng r;
    tu_rng_seed(&r, 15);
    uint8_t *m = tu_xmalloc(cn);
    for (int i = 0; i < 400; i++) {
        memcpy(m, c, cn);
        int flips = 1 + (int)tu_rng_below(&r, 4);
        for (int f = 0; f < flips; f++)
            m[tu_rng_below(&r, cn)] ^= (uint8_t)(1u << tu_rng_below(&r, 8));
        size_t caps[3] = {text.size, text.size / 2, 70000};
        oc_status st = decode_copy(m, cn, caps[i % 3], NULL, 0);
        CHECK(st == OC_OK || st == OC_ERR_CORRUPT || st == OC_ERR_TRUNCATED || st == OC_ERR_OUTPUT_TOO_SMALL);
    }
    free(m);
    free(c);
    tu_buf_free(&text);
}

static void engines(void)
{
    oc_algorithm a = OC_ALGO_NONE;
    CHECK_OK(oc_algorithm_from_name("GDeflate", &a));
    CHECK_EQ(a, OC_ALGO_GDEFLATE);
    CHECK(strcmp(oc_algorithm_name(OC_ALGO_GDEFLATE), "gdeflate") == 0);
    CHECK(oc_algorithm_available(OC_ENGINE_CPU, OC_ALGO_GDEFLATE));
    /* the CUDA engine decodes GDeflate (where it runs: a GPU is there) but does not encode it */
    CHECK_EQ(oc_algorithm_available(OC_ENGINE_CUDA, OC_ALGO_GDEFLATE), 0);
    CHECK_EQ(oc_algorithm_decode_available(OC_ENGINE_CUDA, OC_ALGO_GDEFLATE),
             oc_engine_available(OC_ENGINE_CUDA));
    int lo, hi, def;
    CHECK_OK(oc_level_range(OC_ALGO_GDEFLATE, &lo, &hi, &def));
    CHECK(lo == 1 && hi == 9 && def == 6);
}

int main(void)
{
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.num_threads = 2;
    CHECK_OK(oc_context_create(&co, &g_ctx));
    engines();
    hand_built();
    hand_built_dynamic();
    long_matches();
    nvcomp_vectors();
    hostile();
    real_data();
    cuts_and_flips();
    oc_context_destroy(g_ctx);
    printf("test_codec_gdeflate: ok\n");
    return 0;
}
