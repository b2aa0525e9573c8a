/*
 * lz_split_test.h - what the host tests of the LZ4 and Snappy split
 * decoders' parse half (test_lz4_split_core.c, test_snappy_split_core.c)
 * share: one lane driven through windows of the input as the GPU's warp
 * drives it (lz_common/lz_split_warp.cuh), the copy half's meaning of the
 * records, and the prefixes and damaged copies of a real stream.  Each
 * format keeps its own reference (the CPU scanner, a serial walk) and its
 * hand-built streams.  Include after test_util.h and the format's
 * *_split_parse.h.
 */
#ifndef OC_TEST_LZ_SPLIT_TEST_H
#define OC_TEST_LZ_SPLIT_TEST_H

#include <stdlib.h>
#include <string.h>

/* Defines static int parse_lane(src, n, cap, win, align, recs, *outn,
 * *nrec) for the format's parse state st_t, its init and step: one lane's
 * parse of src[0..n) with capacity cap through windows of `win` bytes, the
 * window's start `align` (0..15) bytes before the refill point where the
 * input allows (as the warp: an empty input parses at once, a phase
 * longer than a window runs on the whole input).  Returns the status;
 * *outn, *nrec when OK. */
#define LZS_TEST_PARSE_LANE(st_t, init, step) LZS_TEST_PARSE_LANE_AS(parse_lane, st_t, init, step)
/* The same under another name (a second step of the same format). */
#define LZS_TEST_PARSE_LANE_AS(name, st_t, init, step)                                                       \
    static int name(const uint8_t *src, uint32_t n, uint32_t cap, uint32_t win, uint32_t align,              \
                    oc_lzs_rec *recs, uint32_t *outn, uint32_t *nrec)                                        \
    {                                                                                                        \
        st_t s;                                                                                              \
        init(&s);                                                                                            \
        uint8_t *w = NULL;                                                                                   \
        uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;                                               \
        int r = OC_LZS_NEED;                                                                                 \
        if (n == 0)                                                                                          \
            r = step(&s, w, 0, 0, n, cap, recs);                                                             \
        while (r != OC_LZS_END) {                                                                            \
            if (r == OC_LZS_NEED) {                                                                          \
                free(w);                                                                                     \
                uint32_t back = align < s.ip ? align : s.ip;                                                 \
                wshift = s.ip - back;                                                                        \
                whi = wshift + win < n ? wshift + win : n;                                                   \
                w = (uint8_t *)tu_xmalloc(whi - wshift);                                                     \
                memcpy(w, src + wshift, whi - wshift);                                                       \
                refill_at = s.ip;                                                                            \
            }                                                                                                \
            r = step(&s, w, wshift, whi, n, cap, recs);                                                      \
            if (r == OC_LZS_NEED && s.ip == refill_at) /* a window too small for an element */               \
                r = step(&s, src, 0, n, n, cap, recs);                                                       \
        }                                                                                                    \
        free(w);                                                                                             \
        CHECK(s.nrec <= OC_LZS_MAX_RECS(cap));                                                               \
        *outn = s.status == OC_LZS_OK ? s.op : 0;                                                            \
        *nrec = s.status == OC_LZS_OK ? s.nrec : 0;                                                          \
        return s.status;                                                                                     \
    }

/* The copy half's meaning of the records, on the host: every literal
 * within src[0..n), every match within what is already out. */
static inline void lzs_test_run_records(const uint8_t *src, size_t n, const oc_lzs_rec *recs, uint32_t nrec,
                                        uint8_t *out, uint32_t outn)
{
    uint32_t op = 0;
    for (uint32_t i = 0; i < nrec; i++) {
        CHECK(recs[i].lit_len <= outn - op);
        CHECK(recs[i].lit_src <= n && recs[i].lit_len <= n - recs[i].lit_src);
        memcpy(out + op, src + recs[i].lit_src, recs[i].lit_len);
        op += recs[i].lit_len;
        CHECK(recs[i].m_len <= outn - op);
        CHECK(recs[i].m_len == 0 || (recs[i].m_off >= 1 && recs[i].m_off <= op));
        for (uint32_t j = 0; j < recs[i].m_len; j++, op++)
            out[op] = out[op - recs[i].m_off];
    }
    CHECK_SIZE_EQ(op, outn);
}

/* A format's check of one stream (blk[0..n)) at capacity cap with
 * `windows` windows, `orig` when known to decode to it: its status. */
typedef int (*lzs_test_check_fn)(const uint8_t *blk, size_t n, uint32_t cap, const uint8_t *orig,
                                 size_t n_orig, int windows);

/* Prefixes of a real stream blk[0..cn) of n decoded bytes (all of a short
 * one, a sample of a long one), then 60 damaged copies: a byte or three
 * changed, one of the first 32 bytes (the first elements' fields) set, or
 * a random tail; at capacities of the most, n, and below n.  Each goes
 * through check, which compares it with the format's reference. */
static inline void lzs_test_damaged(const uint8_t *blk, size_t cn, size_t n, tu_rng *rng,
                                    lzs_test_check_fn check)
{
    size_t step = cn <= 300 ? 1 : cn / 97 + 1;
    for (size_t p = 0; p < cn; p += step)
        check(blk, p, OC_LZS_MAX_CAP, NULL, 0, 2);
    uint8_t *bad = (uint8_t *)tu_xmalloc(cn + 64);
    for (int k = 0; k < 60; k++) {
        memcpy(bad, blk, cn);
        size_t m = cn;
        int kind = k % 4;
        if (kind == 0 || kind == 3) {
            for (int j = 0; j < (kind ? 3 : 1); j++)
                bad[tu_rng_below(rng, cn)] ^= (uint8_t)(1 + tu_rng_below(rng, 255));
        } else if (kind == 1) {
            bad[tu_rng_below(rng, cn < 32 ? cn : 32)] = (uint8_t)tu_rng_next(rng);
        } else {
            size_t at = tu_rng_below(rng, cn);
            m = at + tu_rng_below(rng, 64);
            for (size_t j = at; j < m; j++)
                bad[j] = (uint8_t)tu_rng_next(rng);
        }
        uint32_t caps[3] = {OC_LZS_MAX_CAP, (uint32_t)n, (uint32_t)tu_rng_below(rng, n + 1)};
        check(bad, m, caps[k % 3], NULL, 0, 2);
    }
    free(bad);
}

#endif /* OC_TEST_LZ_SPLIT_TEST_H */
