/*
 * test_lz4_split_core.c - the parse half of the GPU LZ4 split decoder
 * (src/cuda/codecs/lz4/lz4_split_parse.h, the decoder of chunks of at most
 * 64 KiB) compiled for the host, one lane driven as the GPU's warp drives
 * it (lz_common/lz_split_warp.cuh): through windows of the input of many sizes and
 * alignments, refilled at the step's ip when it says NEED, and run on the
 * whole input when a phase is longer than a window.  CI has no GPU: this
 * is where the logic the kernel runs is checked on every commit
 * (tests/c/test_cuda_lz_codecs.c and test_cuda_truncation.c check the GPU
 * decoder against the CPU engine on a GPU).
 *
 * Guards:
 *   - real blocks (tu_corpus; liblz4's fast and HC compressors, chunks of
 *     64 KiB, 4 KiB and odd sizes) parse OK at their exact capacity and at
 *     64 KiB, with the CPU scanner's size, and their records, executed here,
 *     rebuild the input; one byte less of capacity is OUTPUT_TOO_SMALL;
 *   - damaged blocks (every prefix of short blocks, sampled prefixes of long
 *     ones, byte flips, random tails, hand-built edge blocks) get exactly
 *     the status and size of serial_walk below, a plain walk in the order
 *     of the pipe decoder's checks (lz4_decode_rounds.cuh: per sequence the
 *     literal length and literal TRUNCATED, the literal against the
 *     capacity, offset and match length TRUNCATED, offset CORRUPT, the
 *     match against the capacity, a block ending on a match TRUNCATED, then
 *     the end-of-block rules; the GPU run of bench/NOTES.md "v8" found the
 *     split decoder's statuses equal to the pipe's on damaged corpus
 *     chunks); and serial_walk agrees with the CPU scanner
 *     (src/cpu/codecs/lz4/lz4_scan.c) but for where the order differs:
 *     OUTPUT_TOO_SMALL where the output crosses the capacity first, and
 *     TRUNCATED where the scanner, which checks the offset before reading
 *     the match length's extension, says CORRUPT; CORRUPT, TRUNCATED,
 *     OUTPUT_TOO_SMALL and OK must each occur, so the comparisons cannot
 *     pass vacuously (the kernels then rescan every block they refuse in
 *     the scanner's order, lz4_kernels.cu's oc_lz4_cpu_verdict, so the
 *     statuses they report are the CPU engine's: test_cuda_lz_split.c);
 *   - the result does not depend on the window (sizes 16 to 512, every
 *     alignment), and the records never exceed OC_LZS_MAX_RECS(cap);
 *   - windows, inputs and record arrays are exactly-sized heap buffers: the
 *     ASan suite faults on any read or write out of bounds.
 */
#include <lz4.h>
#include <lz4hc.h>
#include <string.h>

#include "cpu/codecs/lz4/lz4_scan.h"
#include "cuda/codecs/lz4/lz4_fast_parse.h"
#include "helpers/test_util.h"
#include "helpers/lz_split_test.h"

static size_t g_seen[6]; /* statuses seen, by value (OK, CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL) */

/* the library's step (lz4_fast_parse.h), and the general step it falls back
 * to, alone: every parse below runs both and they must agree in everything */
LZS_TEST_PARSE_LANE(oc_lz4s_st, oc_lz4s_init, oc_lz4f_step)
LZS_TEST_PARSE_LANE_AS(parse_lane_general, oc_lz4s_st, oc_lz4s_init, oc_lz4s_step)

/* The reference: a plain walk in the pipe decoder's order of checks (see
 * the header), 64-bit sums.  Returns the status; *outn when OK. */
static int serial_walk(const uint8_t *src, size_t n, size_t cap, size_t *outn)
{
    size_t ip = 0, op = 0, last_ms = 0, last_me = 0;
    int any_match = 0;
    *outn = 0;
    for (;;) {
        if (ip >= n)
            return OC_LZS_TRUNCATED;
        uint32_t token = src[ip++];
        uint64_t lit = token >> 4, ml = token & 15;
        if (lit == 15) {
            uint32_t b;
            do {
                if (ip >= n)
                    return OC_LZS_TRUNCATED;
                b = src[ip++];
                lit += b;
            } while (b == 255);
        }
        if (lit > n - ip)
            return OC_LZS_TRUNCATED;
        if (lit > cap - op)
            return OC_LZS_OUTPUT_TOO_SMALL;
        ip += lit;
        op += lit;
        if (ip == n)
            break;
        if (n - ip < 2)
            return OC_LZS_TRUNCATED;
        uint32_t off = src[ip] | (uint32_t)src[ip + 1] << 8;
        ip += 2;
        if (ml == 15) {
            uint32_t b;
            do {
                if (ip >= n)
                    return OC_LZS_TRUNCATED;
                b = src[ip++];
                ml += b;
            } while (b == 255);
        }
        ml += 4;
        if (off == 0 || off > op)
            return OC_LZS_CORRUPT;
        if (ml > cap - op)
            return OC_LZS_OUTPUT_TOO_SMALL;
        if (ip >= n)
            return OC_LZS_TRUNCATED;
        last_ms = op;
        op += ml;
        last_me = op;
        any_match = 1;
    }
    if (op == 0 && (n != 1 || src[0] != 0))
        return OC_LZS_CORRUPT;
    if (any_match && (op - last_me < 5 || op - last_ms < 12))
        return OC_LZS_CORRUPT;
    *outn = op;
    return OC_LZS_OK;
}

/* One block (exactly-sized copy) at capacity cap, `windows` windows:
 * serial_walk's status and size, and the scanner's verdict as the file's
 * header says; `orig` (n_orig bytes) when the block is known to decode to
 * it.  Returns the status. */
static int check_block(const uint8_t *blk, size_t n, uint32_t cap, const uint8_t *orig, size_t n_orig,
                       int windows)
{
    static const uint32_t wins[] = {512, 16, 17, 32, 64, 100, 256};
    uint8_t *src = (uint8_t *)tu_xmalloc(n ? n : 1);
    memcpy(src, blk, n);
    size_t want_size = 0;
    oc_status want = oc_lz4_scan(src, n, &want_size);
    size_t ref_size = 0;
    int ref = serial_walk(src, n, cap, &ref_size);
    if (ref == OC_LZS_OK)
        CHECK_MSG(want == OC_OK && want_size == ref_size, "OK (%zu bytes) where the scanner says %s (%zu)",
                  ref_size, oc_status_name(want), want_size);
    else if (ref == OC_LZS_OUTPUT_TOO_SMALL)
        CHECK_MSG(want != OC_OK || want_size > cap, "OUTPUT_TOO_SMALL at capacity %u, the scanner: OK (%zu)",
                  cap, want_size);
    else
        CHECK_MSG((int)want == ref || (ref == OC_LZS_TRUNCATED && want == OC_ERR_CORRUPT),
                  "status %d where the scanner says %s", ref, oc_status_name(want));
    oc_lzs_rec *recs = (oc_lzs_rec *)tu_xmalloc(OC_LZS_MAX_RECS(cap) * sizeof(oc_lzs_rec));
    oc_lzs_rec *recs_g = (oc_lzs_rec *)tu_xmalloc(OC_LZS_MAX_RECS(cap) * sizeof(oc_lzs_rec));
    uint8_t *out = (uint8_t *)tu_xmalloc(cap ? cap : 1);
    int first = -1;
    uint32_t first_outn = 0;
    for (int k = 0; k < windows; k++) {
        uint32_t outn = 0, nrec = 0, outn_g = 0, nrec_g = 0;
        int st = parse_lane(src, (uint32_t)n, cap, wins[k % 7], (uint32_t)(k * 5) & 15, recs, &outn, &nrec);
        int st_g = parse_lane_general(src, (uint32_t)n, cap, wins[k % 7], (uint32_t)(k * 5) & 15, recs_g,
                                      &outn_g, &nrec_g);
        CHECK_EQ(st, st_g); /* the fast step is the general step but for speed */
        CHECK_SIZE_EQ(outn, outn_g);
        CHECK_SIZE_EQ(nrec, nrec_g);
        if (nrec && nrec == nrec_g)
            CHECK_MEM_EQ(recs, recs_g, nrec * sizeof(oc_lzs_rec));
        if (first < 0) {
            first = st, first_outn = outn;
        } else {
            CHECK_EQ(st, first); /* the window never matters */
            CHECK_SIZE_EQ(outn, first_outn);
        }
        CHECK_EQ(st, ref);
        CHECK_SIZE_EQ(outn, ref_size);
        if (st == OC_LZS_OK) {
            lzs_test_run_records(src, n, recs, nrec, out, outn);
            if (orig) {
                CHECK_SIZE_EQ(outn, n_orig);
                CHECK_MEM_EQ(out, orig, n_orig);
            }
        }
    }
    g_seen[first]++;
    free(src), free(recs), free(recs_g), free(out);
    return first;
}

/* Real blocks: OK at exact and roomy capacity, OUTPUT_TOO_SMALL one short,
 * then damaged copies. */
static void check_real(const uint8_t *data, size_t n, int hc, tu_rng *rng)
{
    int bound = LZ4_compressBound((int)n);
    uint8_t *blk = (uint8_t *)tu_xmalloc((size_t)bound);
    int c = hc ? LZ4_compress_HC((const char *)data, (char *)blk, (int)n, bound, 9)
               : LZ4_compress_default((const char *)data, (char *)blk, (int)n, bound);
    CHECK(c > 0);
    size_t cn = (size_t)c;
    CHECK_EQ(check_block(blk, cn, (uint32_t)n, data, n, 7), OC_LZS_OK);
    CHECK_EQ(check_block(blk, cn, OC_LZS_MAX_CAP, data, n, 2), OC_LZS_OK);
    if (n > 0)
        CHECK_EQ(check_block(blk, cn, (uint32_t)n - 1, NULL, 0, 2), OC_LZS_OUTPUT_TOO_SMALL);
    lzs_test_damaged(blk, cn, n, rng, check_block);
    free(blk);
}

/* Hand-built blocks, field by field (the rules the CPU scanner and the pipe
 * decoder enforce; issue 11). */
static void check_edges(void)
{
    /* token 0x00: no literal, the block's end: 0 bytes, OK (only as the
     * whole block) */
    static const uint8_t empty[] = {0x00};
    CHECK_EQ(check_block(empty, 1, 16, NULL, 0, 3), OC_LZS_OK);
    /* token 0x01 alone: 0 literals then the end, but a match nibble set:
     * CORRUPT (issue 11 item 12) */
    static const uint8_t one[] = {0x01};
    CHECK_EQ(check_block(one, 1, 16, NULL, 0, 3), OC_LZS_CORRUPT);
    /* 0 bytes: TRUNCATED */
    CHECK_EQ(check_block(empty, 0, 16, NULL, 0, 1), OC_LZS_TRUNCATED);
    /* token 0x10, literal 'a', offset 0x0000: offset 0 is CORRUPT */
    static const uint8_t off0[] = {0x10, 'a', 0x00, 0x00, 0x50, 'a', 'b', 'c', 'd', 'e'};
    CHECK_EQ(check_block(off0, sizeof off0, 64, NULL, 0, 3), OC_LZS_CORRUPT);
    /* token 0x1F (1 literal, match 15 + ext): 'a', offset 1, ext 255 255 0
     * (match 4 + 15 + 510 = 529), then token 0x50 and 5 literals: 535
     * bytes, the match ends 5 bytes before the end and starts >= 12 before */
    static const uint8_t run[] = {0x1F, 'a', 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x50, 'v', 'w', 'x', 'y', 'z'};
    CHECK_EQ(check_block(run, sizeof run, 1024, NULL, 0, 7), OC_LZS_OK);
    CHECK_EQ(check_block(run, sizeof run, 534, NULL, 0, 3), OC_LZS_OUTPUT_TOO_SMALL);
    /* the same with the last literal run cut to 4 bytes: the match ends 4
     * bytes before the end, CORRUPT (end-of-block rules) */
    static const uint8_t late[] = {0x1F, 'a', 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x40, 'w', 'x', 'y', 'z'};
    CHECK_EQ(check_block(late, sizeof late, 1024, NULL, 0, 3), OC_LZS_CORRUPT);
    /* a block that ends on a match: TRUNCATED */
    CHECK_EQ(check_block(run, 7, 1024, NULL, 0, 3), OC_LZS_TRUNCATED);
    /* the common kind, which the fast step takes in one step (so that the
     * comparisons with the general step above cannot pass with a fast path
     * never taken): token 0x34 (3 literals, match 4 + 4), "abc", offset 3,
     * then token 0xC0 and 12 literals: 19 bytes, 23 out */
    static const uint8_t common[] = {0x34, 'a', 'b', 'c', 0x03, 0x00, 0xC0, 'l', 'm', 'n',
                                     'o',  'p', 'q', 'r', 's',  't',  'u',  'v', 'w'};
    CHECK_EQ(check_block(common, sizeof common, 64, NULL, 0, 7), OC_LZS_OK);
    oc_lz4s_st s;
    oc_lzs_rec rec[OC_LZS_MAX_RECS(64)];
    oc_lz4s_init(&s);
    CHECK_EQ(oc_lz4f_fast(&s, common, 0, sizeof common, 64, rec), 1);
    CHECK_EQ(s.ip, 6);
    CHECK_EQ(s.op, 11);
    /* and declines what it must leave to the general step: a window of
     * fewer than 18 bytes, a literal run of 15 and more */
    oc_lz4s_init(&s);
    CHECK_EQ(oc_lz4f_fast(&s, common, 0, 17, 64, rec), 0);
    CHECK_EQ(s.ip, 0);
    CHECK_EQ(oc_lz4f_fast(&s, run, 0, sizeof run, 1024, rec), 0);
}

int main(void)
{
    tu_buf corpus[TU_CORPUS_MAX];
    size_t nc = tu_corpus(corpus, TU_CORPUS_MAX, 1 << 20);
    CHECK(nc >= 4);
    tu_rng rng;
    tu_rng_seed(&rng, 13);
    check_edges();
    static const size_t sizes[] = {65536, 4096, 1000, 33};
    size_t blocks = 0;
    for (size_t f = 0; f < nc; f++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            size_t cs = sizes[z];
            /* up to 6 chunks a file and size, spread over the file */
            size_t nchunks = (corpus[f].size + cs - 1) / cs, every = nchunks / 6 + 1;
            for (size_t k = 0; k < nchunks; k += every) {
                size_t o = k * cs, len = corpus[f].size - o < cs ? corpus[f].size - o : cs;
                check_real(corpus[f].data + o, len, (int)(k / every) & 1, &rng);
                blocks++;
            }
        }
    for (size_t f = 0; f < nc; f++)
        tu_buf_free(&corpus[f]);
    printf(
        "test_lz4_split_core: %zu real blocks and their damaged copies: OK %zu, CORRUPT %zu, TRUNCATED %zu, "
        "OUTPUT_TOO_SMALL %zu\n",
        blocks, g_seen[OC_LZS_OK], g_seen[OC_LZS_CORRUPT], g_seen[OC_LZS_TRUNCATED],
        g_seen[OC_LZS_OUTPUT_TOO_SMALL]);
    CHECK(g_seen[OC_LZS_OK] && g_seen[OC_LZS_CORRUPT] && g_seen[OC_LZS_TRUNCATED] &&
          g_seen[OC_LZS_OUTPUT_TOO_SMALL]);
    return 0;
}
