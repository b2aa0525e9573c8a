/*
 * test_snappy_split_core.c - the parse half of the GPU Snappy split
 * decoder (src/cuda/codecs/snappy/snappy_split_parse.h, the decoder of
 * chunks of at most 64 KiB) compiled for the host, one lane driven as the
 * GPU's warp drives it (lz_common/lz_split_warp.cuh): through windows of
 * the input of many sizes and alignments, refilled at the step's ip when
 * it says NEED.  CI has no GPU: this is where the logic the kernel runs is
 * checked on every commit (tests/c/test_cuda_snappy_split.c compares the
 * GPU paths with each other and with the CPU engine on a GPU).
 *
 * Guards:
 *   - real streams (tu_corpus compressed by libsnappy, chunks of 64 KiB,
 *     4 KiB, 1000 and 33 bytes) parse OK at their exact capacity and at
 *     64 KiB, with the CPU scanner's size, and their records, executed
 *     here, rebuild the input; one byte less of capacity is
 *     OUTPUT_TOO_SMALL;
 *   - damaged streams (prefixes, byte flips, random tails) and hand-built
 *     ones (preamble cut, six preamble bytes, five continued bytes at the
 *     end, a length above 2^32 - 1, a literal of 2^32 bytes, literal
 *     length bytes cut, a literal past the declared length and past the
 *     input, copy offsets 0 and before the start, a copy past the declared
 *     length, copy-4 cut, short of the declared length, a declared length
 *     above the capacity with a corrupt body) get exactly the CPU engine's
 *     verdict: oc_snappy_scan's status, and OUTPUT_TOO_SMALL when it says
 *     OK with a size above the capacity (src/cpu/codecs/snappy/
 *     codec_snappy.c); CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL and OK each
 *     occur, so the comparisons cannot pass vacuously;
 *   - a stream of 1-byte copies that needs more records than the slot
 *     holds (OC_LZS_MAX_RECS) ends with OC_LZS_REDO, storing no more than
 *     the slot holds (the GPU's copy warp then decodes it alone);
 *   - the result does not depend on the window (sizes 16 to 512, every
 *     alignment);
 *   - the two-lane walk (v11b, an experiment that lost: bench/gpu/dev/
 *     dev_snappy_pair_parse.h, included from there: A from the start, B
 *     speculatively from the middle, joined where their walks meet) gives
 *     the library's one-lane walk's status, size and every record on every
 *     stream above and every window, or gives the chunk back (A's record
 *     bound while B stores into the slot's top); some chunks join and some
 *     do not, so both ends run;
 *   - windows, inputs and record arrays are exactly-sized heap buffers: the
 *     ASan suite faults on any read or write out of bounds.
 */
#include <snappy-c.h>
#include <string.h>

#include "cpu/codecs/snappy/snappy_scan.h"
#include "../../bench/gpu/dev/dev_snappy_pair_parse.h" /* includes the library's snappy_split_parse.h */
#include "cuda/codecs/snappy/snappy_split_parse.h"
#include "helpers/test_util.h"
#include "helpers/lz_split_test.h"

static size_t g_seen[6]; /* statuses seen, by value (OK, CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL) */
static size_t g_redo;

LZS_TEST_PARSE_LANE(oc_snaps_st, oc_snaps_init, oc_snaps_step)

static size_t g_split, g_joined, g_pair_redo; /* two-lane walks; joined; given back by A's record bound */

/* A window of `win` bytes starting `align` bytes (at most) before ip, in
 * an exactly-sized heap copy (freed by the caller; NULL for n == 0). */
static uint8_t *pair_window(const uint8_t *src, uint32_t n, uint32_t ip, uint32_t win, uint32_t align,
                            uint32_t *wshift, uint32_t *whi)
{
    uint32_t back = align < ip ? align : ip;
    *wshift = ip - back;
    *whi = *wshift + win < n ? *wshift + win : n;
    uint8_t *w = (uint8_t *)tu_xmalloc(*whi - *wshift ? *whi - *wshift : 1);
    memcpy(w, src + *wshift, *whi - *wshift);
    return w;
}

/* The two-lane walk of a chunk (dev_snappy_pair_parse.h), each lane
 * through its own windows as the GPU's driver (bench/gpu/dev/
 * dev_lz_pair.cuh's oc_lzs_parse_pair) gives them: B first to its end, then A (on the GPU
 * they run together and A waits for B's log and end; A's record bound
 * stays at the slot's middle until A knows B has ended, which on the GPU
 * may come later than here, so A is held to it until it decides).  The
 * records, A's then B's from the joining entry, are copied into recs.
 * Returns A's status (OC_LZS_REDO when A gave the chunk back). */
static int pair_lanes(const uint8_t *src, uint32_t n, uint32_t cap, uint32_t win, uint32_t align,
                      oc_lzs_rec *recs, uint32_t *outn, uint32_t *nrec)
{
    oc_lzs_rec *slot = (oc_lzs_rec *)tu_xmalloc(OC_LZS_MAX_RECS(cap) * sizeof(oc_lzs_rec));
    oc_snaps_log log[OC_SNAPS_K];
    oc_snaps_b b;
    oc_snaps_b_init(&b, n / 2);
    int split = OC_SNAPS_SPLITS(n, cap);
    uint8_t *w = NULL;
    uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;
    if (split) {
        g_split++;
        int r = OC_LZS_NEED;
        while (r != OC_LZS_END) {
            if (r == OC_LZS_NEED) {
                free(w);
                w = pair_window(src, n, b.ip, win, align, &wshift, &whi);
                refill_at = b.ip;
            }
            r = oc_snaps_b_step(&b, log, w, wshift, whi, n, cap, slot + OC_SNAPS_BASE(cap));
            if (r == OC_LZS_NEED && b.ip == refill_at)
                r = oc_snaps_b_step(&b, log, src, 0, n, n, cap, slot + OC_SNAPS_BASE(cap));
        }
        CHECK(b.nlog <= OC_SNAPS_K && b.nrec <= OC_LZS_MAX_RECS(cap) - OC_SNAPS_BASE(cap));
    }
    oc_snaps_st s;
    oc_snaps_init(&s);
    if (split)
        s.rmax = OC_SNAPS_BASE(cap);
    uint32_t lim = split ? n / 2 : 0xffffffffu, j = 0;
    int joined = 0, r = OC_LZS_NEED;
    refill_at = 0xffffffffu;
    if (n == 0)
        r = oc_snaps_a_step(&s, w, 0, 0, n, cap, slot, lim);
    while (r != OC_LZS_END) {
        if (r == OC_LZS_STOP) {
            int f = b.state == 2 ? -1 : oc_snaps_find(&s, log, b.nlog, &j, &lim);
            if (f == 1 && oc_snaps_join(&s, log, b.nlog, j, b.op, b.nrec, cap)) {
                joined = 1;
                break;
            }
            if (f != 0) { /* A alone from here, B having ended */
                lim = 0xffffffffu;
                s.rmax = 0xffffffffu;
            }
        }
        if (r == OC_LZS_NEED) {
            free(w);
            w = pair_window(src, n, s.ip, win, align, &wshift, &whi);
            refill_at = s.ip;
        }
        r = oc_snaps_a_step(&s, w, wshift, whi, n, cap, slot, lim);
        if (r == OC_LZS_NEED && s.ip == refill_at)
            r = oc_snaps_a_step(&s, src, 0, n, n, cap, slot, lim);
    }
    free(w);
    CHECK(s.nrec <= OC_LZS_MAX_RECS(cap));
    g_joined += joined;
    if (s.status == OC_LZS_OK) {
        uint32_t nb = joined ? b.nrec - log[j].nrec : 0, na = s.nrec - nb;
        CHECK(na <= (joined ? OC_SNAPS_BASE(cap) : OC_LZS_MAX_RECS(cap)));
        memcpy(recs, slot, (size_t)na * sizeof *recs);
        memcpy(recs + na, slot + OC_SNAPS_BASE(cap) + (joined ? log[j].nrec : 0), (size_t)nb * sizeof *recs);
    }
    free(slot);
    *outn = s.status == OC_LZS_OK ? s.op : 0;
    *nrec = s.status == OC_LZS_OK ? s.nrec : 0;
    return s.status;
}

/* One stream (exactly-sized copy) at capacity cap, `windows` windows: the
 * CPU engine's status and size; `orig` (n_orig bytes) when the stream is
 * known to decode to it.  Returns the status (OC_LZS_REDO when given
 * back). */
static int check_stream(const uint8_t *blk, size_t n, uint32_t cap, const uint8_t *orig, size_t n_orig,
                        int windows)
{
    static const uint32_t wins[] = {512, 16, 17, 32, 64, 100, 256};
    uint8_t *src = (uint8_t *)tu_xmalloc(n ? n : 1);
    memcpy(src, blk, n);
    size_t want_size = 0;
    int want = (int)oc_snappy_scan(src, n, &want_size);
    if (want == OC_OK && want_size > cap)
        want = OC_ERR_OUTPUT_TOO_SMALL;
    if (want != OC_OK)
        want_size = 0;
    oc_lzs_rec *recs = (oc_lzs_rec *)tu_xmalloc(OC_LZS_MAX_RECS(cap) * sizeof(oc_lzs_rec));
    oc_lzs_rec *recs2 = (oc_lzs_rec *)tu_xmalloc(OC_LZS_MAX_RECS(cap) * sizeof(oc_lzs_rec));
    uint8_t *out = (uint8_t *)tu_xmalloc(cap ? cap : 1);
    int first = -1;
    for (int k = 0; k < windows; k++) {
        uint32_t outn = 0, nrec = 0, outn2 = 0, nrec2 = 0;
        int st = parse_lane(src, (uint32_t)n, cap, wins[k % 7], (uint32_t)(k * 5) & 15, recs, &outn, &nrec);
        if (first < 0)
            first = st;
        CHECK_EQ(st, first); /* the window never matters */
        /* two lanes: the one lane's status, size and records, or given back by A's record bound */
        int st2 =
            pair_lanes(src, (uint32_t)n, cap, wins[k % 7], (uint32_t)(k * 3) & 15, recs2, &outn2, &nrec2);
        if (st2 == OC_LZS_REDO && st != OC_LZS_REDO) {
            g_pair_redo++;
        } else {
            CHECK_MSG(st2 == st, "two lanes: status %d where one lane says %d (%zu bytes, capacity %u)", st2,
                      st, n, cap);
            CHECK_SIZE_EQ(outn2, outn);
            CHECK_SIZE_EQ(nrec2, nrec);
            if (st == OC_LZS_OK)
                CHECK_MEM_EQ(recs2, recs, (size_t)nrec * sizeof *recs);
        }
        if (st == OC_LZS_REDO)
            continue;
        CHECK_MSG(st == want, "status %d where the CPU engine says %s (%zu bytes, capacity %u)", st,
                  oc_status_name((oc_status)want), n, cap);
        CHECK_SIZE_EQ(outn, want_size);
        if (st == OC_LZS_OK) {
            lzs_test_run_records(src, n, recs, nrec, out, outn);
            if (orig) {
                CHECK_SIZE_EQ(outn, n_orig);
                CHECK_MEM_EQ(out, orig, n_orig);
            }
        }
    }
    if (first == OC_LZS_REDO)
        g_redo++;
    else
        g_seen[first]++;
    free(src), free(recs), free(recs2), free(out);
    return first;
}

/* Real streams: OK at exact and roomy capacity, OUTPUT_TOO_SMALL one short,
 * then damaged copies. */
static void check_real(const uint8_t *data, size_t n, tu_rng *rng)
{
    size_t bound = snappy_max_compressed_length(n), cn = bound;
    uint8_t *blk = (uint8_t *)tu_xmalloc(bound);
    CHECK(snappy_compress((const char *)data, n, (char *)blk, &cn) == SNAPPY_OK);
    CHECK_EQ(check_stream(blk, cn, (uint32_t)n, data, n, 7), OC_LZS_OK);
    CHECK_EQ(check_stream(blk, cn, OC_LZS_MAX_CAP, data, n, 2), OC_LZS_OK);
    if (n > 0)
        CHECK_EQ(check_stream(blk, cn, (uint32_t)n - 1, NULL, 0, 2), OC_LZS_OUTPUT_TOO_SMALL);
    lzs_test_damaged(blk, cn, n, rng, check_stream);
    free(blk);
}

/* Hand-built streams, field by field (snappy's format_description.txt; the
 * CPU scanner's rules). */
static void check_edges(void)
{
    /* preamble 3, literal tag 0x08 (3 bytes) "abc": OK; capacity 2: too small */
    static const uint8_t abc[] = {0x03, 0x08, 'a', 'b', 'c'};
    CHECK_EQ(check_stream(abc, sizeof abc, 16, NULL, 0, 3), OC_LZS_OK);
    CHECK_EQ(check_stream(abc, sizeof abc, 2, NULL, 0, 3), OC_LZS_OUTPUT_TOO_SMALL);
    /* nothing at all; a preamble cut (continued, then the end) */
    CHECK_EQ(check_stream(abc, 0, 16, NULL, 0, 1), OC_LZS_TRUNCATED);
    static const uint8_t cut[] = {0x80};
    CHECK_EQ(check_stream(cut, 1, 16, NULL, 0, 1), OC_LZS_TRUNCATED);
    /* five continued bytes and the end: TRUNCATED (the end comes first);
     * with a sixth byte: CORRUPT */
    static const uint8_t six[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    CHECK_EQ(check_stream(six, 5, 16, NULL, 0, 2), OC_LZS_TRUNCATED);
    CHECK_EQ(check_stream(six, 6, 16, NULL, 0, 2), OC_LZS_CORRUPT);
    /* a 5-byte preamble above 2^32 - 1: CORRUPT */
    static const uint8_t big[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x1F};
    CHECK_EQ(check_stream(big, sizeof big, 16, NULL, 0, 2), OC_LZS_CORRUPT);
    /* preamble 0: OK, 0 bytes */
    static const uint8_t zero[] = {0x00};
    CHECK_EQ(check_stream(zero, 1, 16, NULL, 0, 2), OC_LZS_OK);
    /* preamble 2^32 - 1 (above any capacity), then a literal tag 0xFC
     * (4 length bytes) FF FF FF FF: 2^32 bytes, CORRUPT (not TRUNCATED, and
     * not OUTPUT_TOO_SMALL: the body's verdict first) */
    static const uint8_t huge[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF};
    CHECK_EQ(check_stream(huge, sizeof huge, 64, NULL, 0, 3), OC_LZS_CORRUPT);
    /* the same with preamble 5: a literal of 2^32 bytes is CORRUPT too */
    static const uint8_t huge5[] = {0x05, 0xFC, 0xFF, 0xFF, 0xFF, 0xFF, 'x'};
    CHECK_EQ(check_stream(huge5, sizeof huge5, 64, NULL, 0, 3), OC_LZS_CORRUPT);
    /* literal tag 0xF0 (1 length byte) with the byte cut: TRUNCATED */
    static const uint8_t lcut[] = {0x40, 0xF0};
    CHECK_EQ(check_stream(lcut, sizeof lcut, 64, NULL, 0, 2), OC_LZS_TRUNCATED);
    /* preamble 2, literal of 3 bytes, cut after 1: past the declared length
     * (CORRUPT) before past the input */
    static const uint8_t lpast[] = {0x02, 0x08, 'a'};
    CHECK_EQ(check_stream(lpast, sizeof lpast, 64, NULL, 0, 2), OC_LZS_CORRUPT);
    /* preamble 5, literal 'a', copy-1 length 4 offset 0: CORRUPT */
    static const uint8_t off0[] = {0x05, 0x00, 'a', 0x01, 0x00};
    CHECK_EQ(check_stream(off0, sizeof off0, 64, NULL, 0, 2), OC_LZS_CORRUPT);
    /* preamble 5, literal 'a', copy-2 length 4 offset 2 (before the start) */
    static const uint8_t before[] = {0x05, 0x00, 'a', 0x0E, 0x02, 0x00};
    CHECK_EQ(check_stream(before, sizeof before, 64, NULL, 0, 2), OC_LZS_CORRUPT);
    /* preamble 4, literal 'a', copy-1 length 4 offset 1: past the declared length */
    static const uint8_t past[] = {0x04, 0x00, 'a', 0x01, 0x01};
    CHECK_EQ(check_stream(past, sizeof past, 64, NULL, 0, 2), OC_LZS_CORRUPT);
    /* preamble 5, literal 'a', copy-1 length 4 offset 1: "aaaaa", OK; the
     * same declaring 6: short of it, TRUNCATED */
    static const uint8_t ok5[] = {0x05, 0x00, 'a', 0x01, 0x01};
    CHECK_EQ(check_stream(ok5, sizeof ok5, 5, NULL, 0, 3), OC_LZS_OK);
    static const uint8_t short6[] = {0x06, 0x00, 'a', 0x01, 0x01};
    CHECK_EQ(check_stream(short6, sizeof short6, 64, NULL, 0, 2), OC_LZS_TRUNCATED);
    /* copy-4 (tag 0x0F: length 4) with 2 of its 4 offset bytes: TRUNCATED */
    static const uint8_t c4cut[] = {0x05, 0x00, 'a', 0x0F, 0x01, 0x00};
    CHECK_EQ(check_stream(c4cut, sizeof c4cut, 64, NULL, 0, 2), OC_LZS_TRUNCATED);
    /* copy-4 complete (offset 1): OK */
    static const uint8_t c4[] = {0x05, 0x00, 'a', 0x0F, 0x01, 0x00, 0x00, 0x00};
    CHECK_EQ(check_stream(c4, sizeof c4, 64, NULL, 0, 3), OC_LZS_OK);
    /* declared 100 at capacity 8, body with offset 0: CORRUPT (not OUTPUT_TOO_SMALL) */
    static const uint8_t over_bad[] = {0x64, 0x00, 'a', 0x01, 0x00};
    CHECK_EQ(check_stream(over_bad, sizeof over_bad, 8, NULL, 0, 2), OC_LZS_CORRUPT);
    /* two literals in a row, then a copy: records of their own */
    static const uint8_t two[] = {0x08, 0x04, 'a', 'b', 0x00, 'c', 0x05, 0x03}; /* copy-1: 5 bytes at 3 */
    CHECK_EQ(check_stream(two, sizeof two, 8, (const uint8_t *)"abcabcab", 8, 7), OC_LZS_OK);
}

/* A stream of 1-byte copies (copy-2, length 1, offset 1): 65,536 bytes in
 * 65,535 records, past OC_LZS_MAX_RECS(65536) = 16,385: given back; at a
 * capacity of 64, 64 records fit the 17 slots of cap / 4 + 1 just as badly. */
static void check_redo(void)
{
    size_t count = 65535, n = 3 + 1 + 1 + 3 * count;
    uint8_t *s = (uint8_t *)tu_xmalloc(n);
    s[0] = 0x80, s[1] = 0x80, s[2] = 0x04; /* 65536 */
    s[3] = 0x00, s[4] = 'z';               /* literal 'z' */
    for (size_t i = 0; i < count; i++)
        s[5 + 3 * i] = 0x02, s[6 + 3 * i] = 0x01, s[7 + 3 * i] = 0x00;
    CHECK_EQ(oc_snappy_scan(s, n, &(size_t){0}), OC_OK);
    CHECK_EQ(check_stream(s, n, 65536, NULL, 0, 2), OC_LZS_REDO);
    /* 64 bytes: preamble 64, 'z', 63 copies */
    s[0] = 0x40, s[1] = 0x00, s[2] = 'z';
    for (size_t i = 0; i < 63; i++)
        s[3 + 3 * i] = 0x02, s[4 + 3 * i] = 0x01, s[5 + 3 * i] = 0x00;
    CHECK_EQ(check_stream(s, 3 + 3 * 63, 64, NULL, 0, 2), OC_LZS_REDO);
    /* a corrupt stream still gives its status when it fails before the slot fills */
    s[4 + 3 * 5] = 0x00; /* the sixth copy's offset 0 */
    CHECK_EQ(check_stream(s, 3 + 3 * 63, 64, NULL, 0, 2), OC_LZS_CORRUPT);
    free(s);
}

int main(void)
{
    tu_buf corpus[TU_CORPUS_MAX];
    size_t nc = tu_corpus(corpus, TU_CORPUS_MAX, 1 << 20);
    CHECK(nc >= 4);
    tu_rng rng;
    tu_rng_seed(&rng, 13);
    check_edges();
    check_redo();
    static const size_t sizes[] = {65536, 4096, 1000, 33};
    size_t blocks = 0;
    for (size_t f = 0; f < nc; f++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            size_t cs = sizes[z];
            size_t nchunks = (corpus[f].size + cs - 1) / cs, every = nchunks / 6 + 1;
            for (size_t k = 0; k < nchunks; k += every) {
                size_t o = k * cs, len = corpus[f].size - o < cs ? corpus[f].size - o : cs;
                check_real(corpus[f].data + o, len, &rng);
                blocks++;
            }
        }
    for (size_t f = 0; f < nc; f++)
        tu_buf_free(&corpus[f]);
    printf("test_snappy_split_core: %zu real streams and their damaged copies: OK %zu, CORRUPT %zu, "
           "TRUNCATED %zu, OUTPUT_TOO_SMALL %zu, given back %zu\n",
           blocks, g_seen[OC_LZS_OK], g_seen[OC_LZS_CORRUPT], g_seen[OC_LZS_TRUNCATED],
           g_seen[OC_LZS_OUTPUT_TOO_SMALL], g_redo);
    CHECK(g_seen[OC_LZS_OK] && g_seen[OC_LZS_CORRUPT] && g_seen[OC_LZS_TRUNCATED] &&
          g_seen[OC_LZS_OUTPUT_TOO_SMALL] && g_redo);
    printf("test_snappy_split_core: two lanes: %zu walks split, %zu joined, %zu given back by the first "
           "lane's record bound\n",
           g_split, g_joined, g_pair_redo);
    CHECK(g_joined > 0 && g_joined < g_split); /* both ends of the join run */
    return 0;
}
