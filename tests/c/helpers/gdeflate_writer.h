/*
 * gdeflate_writer.h - a GDeflate page writer for the tests, written from
 * the format's text (docs/FORMAT.md, "GDeflate") and independent of the
 * library's encoder and decoders: random pages of 1-4 fixed-Huffman and
 * stored blocks.  The library's encoder writes one block a page; other
 * writers (nvCOMP, DirectStorage) may write several, and a block's last
 * round starts at its end-of-block lane, so the rounds of later blocks no
 * longer line up with lane 0: these pages check that the decoders follow.
 * Matches use GDeflate's lengths (deflate_tables.h): up to 1024 bytes, the
 * long ones and some short ones through symbol 285 (3 + 16 extra bits).
 * Used by test_gdeflate_gpu_core.c (host) and test_cuda_gdeflate.c (GPU).
 */
#ifndef OC_TEST_GDEFLATE_WRITER_H
#define OC_TEST_GDEFLATE_WRITER_H

#include <stdint.h>
#include <string.h>

#include "common/deflate_tables.h"
#include "helpers/deflate_fixed_code.h"
#include "helpers/test_util.h"

/* Bits as lists per lane, a log of visits, and words serialised by
 * replaying the refills (a lane under 32 bits after a visit takes the next
 * word). */
typedef struct mb_page {
    uint8_t bit[32][8192];
    size_t nbits[32], since[32];
    uint8_t vlane[16384];
    uint16_t vbits[16384];
    size_t nvis;
} mb_page;

static mb_page g_mb;

static void mb_bits(unsigned t, uint32_t v, unsigned n) /* LSB first */
{
    for (unsigned i = 0; i < n; i++)
        g_mb.bit[t][g_mb.nbits[t]++] = (v >> i) & 1u;
    g_mb.since[t] += n;
}

static void mb_code(unsigned t, uint32_t code, unsigned len) /* Huffman codes: MSB first */
{
    for (unsigned i = len; i-- > 0;)
        g_mb.bit[t][g_mb.nbits[t]++] = (code >> i) & 1u;
    g_mb.since[t] += len;
}

static void mb_visit(unsigned t)
{
    g_mb.vlane[g_mb.nvis] = (uint8_t)t;
    g_mb.vbits[g_mb.nvis++] = (uint16_t)g_mb.since[t];
    g_mb.since[t] = 0;
}

static void mb_lit(unsigned t, unsigned sym) /* RFC 1951 3.2.6 */
{
    tu_huff_code c = tu_fixed_litlen(sym);
    mb_code(t, c.code, c.len);
}

static void mb_dist(unsigned t, uint32_t d)
{
    unsigned s = 31;
    while (gdeflate_dist_base[s] > d)
        s--;
    mb_code(t, s, 5);
    mb_bits(t, d - gdeflate_dist_base[s], gdeflate_dist_extra[s]);
}

/* A match length: symbols 257-284 as in RFC 1951 for 3..257, or (always for
 * 258 and more, and when `long_code`) GDeflate's 285, 3 + 16 extra bits. */
static void mb_len(unsigned t, uint32_t len, int long_code)
{
    unsigned s = 27;
    if (long_code || len > 257) {
        mb_lit(t, 285);
        mb_bits(t, len - 3, 16);
        return;
    }
    while (gdeflate_len_base[s] > len)
        s--;
    mb_lit(t, 257 + s);
    mb_bits(t, len - gdeflate_len_base[s], gdeflate_len_extra[s]);
}

static size_t mb_serialise(uint8_t *out)
{
    size_t o = 0, next[32];
    long cnt[32];
    for (unsigned t = 0; t < 32; t++) {
        next[t] = 0;
        cnt[t] = 0;
    }
    for (size_t v = 0; v <= g_mb.nvis; v++) {
        for (unsigned r = 0; r < 32; r++) { /* the first 32 words, then one refill a visit */
            unsigned t = v == 0 ? r : g_mb.vlane[v - 1];
            if (v > 0 && r > 0)
                break;
            if (v > 0)
                cnt[t] -= g_mb.vbits[v - 1];
            CHECK(cnt[t] >= 0);
            if (cnt[t] < 32) {
                uint32_t w = 0;
                for (unsigned i = 0; i < 32; i++)
                    if (32 * next[t] + i < g_mb.nbits[t])
                        w |= (uint32_t)g_mb.bit[t][32 * next[t] + i] << i;
                next[t]++;
                for (unsigned i = 0; i < 4; i++)
                    out[o++] = (uint8_t)(w >> (8 * i));
                cnt[t] += 32;
            }
        }
    }
    return o;
}

/* A random page of 1..4 blocks into page (at most 64 KiB); *dn its decoded
 * bytes, in data (at most MB_MAX_DATA). */
#define MB_MAX_DATA (4 * 200 * 1024 + 4 * 100)
static size_t mb_random_page(tu_rng *r, uint8_t *page, uint8_t *data, size_t *dn)
{
    memset(&g_mb, 0, sizeof g_mb);
    size_t pos = 0;
    unsigned blocks = 1 + (unsigned)tu_rng_below(r, 4);
    for (unsigned b = 0; b < blocks; b++) {
        unsigned final = b + 1 == blocks, t = 0;
        if (tu_rng_below(r, 4) == 0) { /* stored: LEN in lane 0, bytes round-robin from lane 0 */
            uint32_t len = (uint32_t)tu_rng_below(r, 100);
            mb_bits(0, final, 3);
            mb_visit(0);
            mb_bits(0, len, 16);
            for (uint32_t i = 0; i < len; i++, t = (t + 1) % 32) {
                data[pos] = (uint8_t)tu_rng_next(r);
                mb_bits(t, data[pos++], 8);
                mb_visit(t);
            }
            for (unsigned k = 0; k < 32; k++, t = (t + 1) % 32)
                mb_visit(t);
            continue;
        }
        uint32_t owed[32] = {0}; /* a lane's distance still to send */
        mb_bits(0, final | 1u << 1, 3);
        mb_visit(0);
        unsigned nsym = (unsigned)tu_rng_below(r, 200);
        for (unsigned k = 0; k < nsym; k++, t = (t + 1) % 32) {
            if (owed[t]) {
                mb_dist(t, owed[t]);
                owed[t] = 0;
            } else if (pos == 0 || tu_rng_below(r, 3) == 0) {
                data[pos] = (uint8_t)("abcdefgh"[tu_rng_below(r, 8)] + (tu_rng_below(r, 9) == 0 ? 100 : 0));
                mb_lit(t, data[pos++]);
            } else {
                unsigned kind = (unsigned)tu_rng_below(r, 16); /* long (3..1024) 1 in 16, else short */
                uint32_t len = 3 + (uint32_t)tu_rng_below(r, kind == 0 ? 1022 : kind < 4 ? 256 : 12);
                uint32_t dist = 1 + (uint32_t)tu_rng_below(r, pos < 40 ? pos : 40);
                mb_len(t, len, kind == 1);
                for (uint32_t i = 0; i < len; i++, pos++)
                    data[pos] = data[pos - dist];
                owed[t] = dist;
            }
            mb_visit(t);
        }
        for (; owed[t]; t = (t + 1) % 32) { /* a lane owing a distance reads it, not a symbol */
            mb_dist(t, owed[t]);
            owed[t] = 0;
            mb_visit(t);
        }
        mb_lit(t, 256); /* the end of block: its visit opens the last round */
        for (unsigned k = 0; k < 32; k++, t = (t + 1) % 32) {
            if (owed[t])
                mb_dist(t, owed[t]);
            mb_visit(t);
        }
    }
    *dn = pos;
    return mb_serialise(page);
}

#endif /* OC_TEST_GDEFLATE_WRITER_H */
