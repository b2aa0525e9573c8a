/*
 * lz4_fast_cpu_check.c - the host check of the library's LZ4 parse step
 * (src/cuda/codecs/lz4/lz4_fast_parse.h, v13's branch-free step carried over
 * from Snappy; bench/NOTES.md "LZ4's branch-free parse step"), no GPU
 * needed, on more data than CI's test: the fast step must be the general
 * step (oc_lz4s_step) in everything but speed.
 *
 *   1. the library's own host test, tests/c/test_lz4_split_core.c, run
 *      whole (it parses every block with both steps and compares them);
 *   2. each FILE given, cut into 64 KiB chunks compressed by liblz4 (the
 *      default and HC), as they are and damaged (cut, a byte changed, a
 *      short capacity), parsed through 512-byte windows (the GPU's) by both
 *      steps: status, size, record count and every record equal; every
 *      chunk as it is OK; the share of the valid chunks' sequences that took
 *      the fast path is printed (and must not be 0).
 *
 *   lz4_fast_cpu_check FILE...   (make -C bench/gpu/dev check-lz4-fast)
 */
#define main lz4_split_core_main
int lz4_split_core_main(void);
#include "../../../tests/c/test_lz4_split_core.c"
#undef main

typedef int (*step_fn)(oc_lz4s_st *, const uint8_t *, uint32_t, uint32_t, uint32_t, uint32_t, oc_lzs_rec *);

/* The step lane() runs, through the library test's window driver. */
static step_fn g_step = oc_lz4f_step;
static int dev_step(oc_lz4s_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                    uint32_t cap, oc_lzs_rec *recs)
{
    return g_step(s, wp, wshift, whi, srcn, cap, recs);
}
LZS_TEST_PARSE_LANE_AS(parse_lane_dev, oc_lz4s_st, oc_lz4s_init, dev_step)

#include <stdio.h>
#include <stdlib.h>

/* The fast step, counting the sequences the fast path takes (so that the
 * comparison cannot pass with a fast path that is never taken). */
static size_t g_fast, g_slow;
static int g_count; /* count this parse (the chunks as they are) */
static int counting_step(oc_lz4s_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                         uint32_t cap, oc_lzs_rec *recs)
{
    if (oc_lz4f_fast(s, wp, wshift, whi, cap, recs)) {
        g_fast += g_count;
        return OC_LZS_STEP;
    }
    if (s->phase == 0 && whi < srcn && (s->ip >= whi || whi - s->ip < OC_LZ4F_SPAN))
        return OC_LZS_NEED;
    g_slow += g_count;
    return oc_lz4s_step(s, wp, wshift, whi, srcn, cap, recs);
}

/* One lane through 512-byte windows (the GPU's), by the library test's driver. */
static int lane(step_fn step, const uint8_t *src, uint32_t n, uint32_t cap, oc_lzs_rec *recs, uint32_t *outn,
                uint32_t *nrec)
{
    g_step = step;
    return parse_lane_dev(src, n, cap, 512, 16, recs, outn, nrec);
}

int main(int argc, char **argv)
{
    int rc = lz4_split_core_main();
    if (rc)
        return rc;
    const uint32_t CH = 65536;
    int bound = LZ4_compressBound((int)CH);
    uint8_t *comp = malloc((size_t)bound), *dmg = malloc((size_t)bound);
    oc_lzs_rec *ra = malloc(OC_LZS_MAX_RECS(CH) * sizeof *ra), *rb = malloc(OC_LZS_MAX_RECS(CH) * sizeof *rb);
    size_t parses = 0, bad = 0, seen[6] = {0};
    uint32_t h = 1;
    for (int a = 1; a < argc; a++) {
        tu_buf file;
        if (tu_read_file(argv[a], 0, &file) != 0 || file.size == 0) {
            fprintf(stderr, "%s: cannot read\n", argv[a]);
            return 2;
        }
        const uint8_t *data = file.data;
        size_t n = file.size;
        for (size_t o = 0; o < n; o += CH) {
            uint32_t len = n - o < CH ? (uint32_t)(n - o) : CH;
            for (int hc = 0; hc < 2; hc++) {
                int cn = hc ? LZ4_compress_HC((const char *)data + o, (char *)comp, (int)len, bound, 9)
                            : LZ4_compress_default((const char *)data + o, (char *)comp, (int)len, bound);
                if (cn <= 0)
                    return 2;
                for (int v = 0; v < 4; v++) { /* as it is, cut, a byte changed, a short capacity */
                    memcpy(dmg, comp, (size_t)cn);
                    uint32_t sn = (uint32_t)cn, cap = len;
                    h = h * 1103515245u + 12345u;
                    if (v == 1)
                        sn = (h >> 8) % sn;
                    else if (v == 2)
                        dmg[(h >> 8) % sn] ^= (uint8_t)(1 + (h >> 3) % 255);
                    else if (v == 3)
                        cap = len - 1 - (h >> 8) % len;
                    uint8_t *in = malloc(sn ? sn : 1); /* exactly sized: ASan sees any read past it */
                    memcpy(in, dmg, sn);
                    uint32_t oa = 0, na = 0, ob = 0, nb = 0, oc = 0, nc = 0;
                    int sa = lane(oc_lz4s_step, in, sn, cap, ra, &oa, &na);
                    int sb = lane(oc_lz4f_step, in, sn, cap, rb, &ob, &nb);
                    g_count = v == 0;
                    int sc = lane(counting_step, in, sn, cap, rb, &oc, &nc);
                    if (sa != sb || oa != ob || na != nb || memcmp(ra, rb, (size_t)na * sizeof *ra) != 0 ||
                        sc != sb || oc != ob || nc != nb || (v == 0 && (sb != OC_LZS_OK || ob != len))) {
                        if (bad++ < 5)
                            fprintf(stderr,
                                    "%s chunk at %zu hc %d variant %d: general %d/%u/%u, fast %d/%u/%u\n",
                                    argv[a], o, hc, v, sa, oa, na, sb, ob, nb);
                    }
                    seen[sb < 6 ? sb : 5]++;
                    parses++;
                    free(in);
                }
            }
        }
        tu_buf_free(&file);
    }
    printf("lz4_fast_cpu_check: %zu parses of 64 KiB chunks (OK %zu, CORRUPT %zu, TRUNCATED %zu, "
           "OUTPUT_TOO_SMALL %zu); %.1f%% of the valid chunks' sequences on the fast path: %s\n",
           parses, seen[OC_LZS_OK], seen[OC_LZS_CORRUPT], seen[OC_LZS_TRUNCATED],
           seen[OC_LZS_OUTPUT_TOO_SMALL],
           100.0 * (double)g_fast / (double)(g_fast + g_slow + !(g_fast + g_slow)), bad ? "DIFFER" : "equal");
    if (!bad && g_fast == 0) {
        fprintf(stderr, "lz4_fast_cpu_check: the fast path was never taken\n");
        return 1;
    }
    free(comp), free(dmg), free(ra), free(rb);
    return bad ? 1 : 0;
}
