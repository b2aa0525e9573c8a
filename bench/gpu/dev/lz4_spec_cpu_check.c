/*
 * lz4_spec_cpu_check.c - the host check of v11's two-lane walk for LZ4
 * (dev_lz4_spec.h, bench/NOTES.md "v11: LZ4"), no GPU needed: A's walk to
 * the middle, B's speculative walk from there, and their join must give
 * the library's serial walk (lz4_split_parse.h's oc_lz4s_step through
 * 512-byte windows) in status, size, record count and every record, on
 * each FILE's 64 KiB chunks compressed by liblz4, as they are and damaged,
 * and at 16 KiB and 4 KiB; prints how often the walks joined and the
 * loop turns (phases) of the longest chunk, serial and in two lanes.
 * Made from lz4_spec_cpu_check.c.
 *
 *   lz4_spec_cpu_check FILE...   (make -C bench/gpu/dev check-lz4-spec)
 */
#include "dev_lz4_spec.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WIN 512u

/* Window driving, as lz_split_warp.cuh: a NEED refills at ip (16-byte
 * aligned start), a NEED right after a refill at the same ip reads from
 * the whole input. */
typedef struct win {
    uint32_t wshift, whi, refill_at;
} win;

static void refill(win *w, uint32_t ip, uint32_t n)
{
    uint32_t at = ip & ~15u;
    w->wshift = at;
    w->whi = n - at < WIN ? n : at + WIN;
    w->refill_at = ip;
}

/* The library's lane: status; *op, *nrec; turns counted. */
static int serial(const uint8_t *src, uint32_t n, uint32_t cap, oc_lzs_rec *recs, uint32_t *op,
                  uint32_t *nrec, size_t *turns)
{
    oc_lz4s_st s;
    oc_lz4s_init(&s);
    win w = {0, 0, 0xffffffffu};
    int r = n == 0 ? oc_lz4s_step(&s, src, 0, 0, n, cap, recs) : OC_LZS_NEED;
    while (r != OC_LZS_END) {
        if (r == OC_LZS_NEED)
            refill(&w, s.ip, n);
        r = oc_lz4s_step(&s, src + w.wshift, w.wshift, w.whi, n, cap, recs);
        if (r == OC_LZS_NEED && s.ip == w.refill_at)
            r = oc_lz4s_step(&s, src, 0, n, n, cap, recs);
        (*turns)++;
    }
    *op = s.status == OC_LZS_OK ? s.op : 0;
    *nrec = s.status == OC_LZS_OK ? s.nrec : 0;
    return s.status;
}

static size_t g_split, g_joined, g_nolog, g_bfail, g_joinfail, g_redo_total;
static size_t g_last_a, g_last_b; /* the last spec parse's loop turns, A and B */

/* The two lanes (B first to its end: on the GPU they run together, and A
 * waits for B's log and end, which gives the same result).  recs: A's
 * region; recsB: B's; the joined records are copied into out. */
static int spec(const uint8_t *src, uint32_t n, uint32_t cap, oc_lzs_rec *recs, oc_lzs_rec *recsB,
                oc_lzs_rec *out, uint32_t *op, uint32_t *nrec)
{
    oc_l4s_log log[OC_L4S_K];
    oc_l4s_b b;
    oc_l4s_b_init(&b, 0);
    int split = OC_L4S_SPLITS(n, cap);
    size_t tb = 0, ta = 0;
    if (split) {
        oc_l4s_b_init(&b, n / 2);
        win w = {0, 0, 0xffffffffu};
        int r = OC_LZS_NEED;
        while (r != OC_LZS_END) {
            if (r == OC_LZS_NEED)
                refill(&w, b.ip, n);
            r = oc_l4s_b_step(&b, log, src + w.wshift, w.wshift, w.whi, n, cap, recsB);
            if (r == OC_LZS_NEED && b.ip == w.refill_at)
                r = oc_l4s_b_step(&b, log, src, 0, n, n, cap, recsB);
            tb++;
        }
        g_split++;
        g_bfail += b.state != 1;
    }
    oc_lz4s_st s;
    oc_lz4s_init(&s);
    win w = {0, 0, 0xffffffffu};
    uint32_t lim = split ? n / 2 : 0xffffffffu, j = 0;
    int joined = 0, r = n == 0 ? oc_l4s_a_step(&s, src, 0, 0, n, cap, recs, lim) : OC_LZS_NEED;
    while (r != OC_LZS_END) {
        if (r == OC_LZS_STOP) {
            int f = b.state == 2 ? -1 : oc_l4s_find(&s, log, b.nlog, &j, &lim);
            if (f == 1) {
                if (oc_l4s_join(&s, log, b.nlog, j, &b, cap)) {
                    joined = 1;
                    break;
                }
                g_joinfail++;
                lim = 0xffffffffu;
            } else if (f != 0) {
                if (b.state != 2)
                    g_nolog++;
                lim = 0xffffffffu;
            }
        }
        if (r == OC_LZS_NEED)
            refill(&w, s.ip, n);
        r = oc_l4s_a_step(&s, src + w.wshift, w.wshift, w.whi, n, cap, recs, lim);
        if (r == OC_LZS_NEED && s.ip == w.refill_at)
            r = oc_l4s_a_step(&s, src, 0, n, n, cap, recs, lim);
        ta++;
    }
    g_last_a = ta, g_last_b = tb;
    g_joined += joined;
    *op = s.status == OC_LZS_OK ? s.op : 0;
    *nrec = s.status == OC_LZS_OK ? s.nrec : 0;
    if (s.status == OC_LZS_OK) {
        uint32_t na = joined ? s.nrec - (b.nrec - log[j].nrec) : s.nrec;
        memcpy(out, recs, (size_t)na * sizeof *out);
        if (joined)
            memcpy(out + na, recsB + log[j].nrec, (size_t)(b.nrec - log[j].nrec) * sizeof *out);
    }
    return s.status;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(len > 0 ? (size_t)len : 1);
    *n = p && len > 0 ? fread(p, 1, (size_t)len, f) : 0;
    fclose(f);
    return p;
}

int main(int argc, char **argv)
{
    static const uint32_t chunks[] = {65536, 16384, 4096};
    size_t bound = (size_t)LZ4_compressBound(65536);
    uint8_t *comp = malloc(bound), *dmg = malloc(bound), *back = malloc(65536);
    size_t mr = OC_LZS_MAX_RECS(65536);
    oc_lzs_rec *ra = malloc(mr * sizeof *ra), *rs = malloc(mr * sizeof *ra), *rb = malloc(mr * sizeof *ra),
               *rj = malloc(mr * sizeof *ra);
    size_t parses = 0, bad = 0, seen[6] = {0}, valid64 = 0, joined64 = 0;
    size_t sum_serial = 0, sum_two = 0, max_serial = 0, max_two = 0, sum_a = 0, sum_b = 0;
    uint32_t h = 1;
    for (int c = 0; c < 3; c++) {
        uint32_t CH = chunks[c];
        for (int a = 1; a < argc; a++) {
            size_t n = 0;
            uint8_t *data = slurp(argv[a], &n);
            if (!data || !n) {
                fprintf(stderr, "%s: cannot read\n", argv[a]);
                return 2;
            }
            size_t lim_bytes = c == 0 ? n : n < (4u << 20) ? n : (4u << 20);
            for (size_t o = 0; o < lim_bytes; o += CH) {
                uint32_t len = n - o < CH ? (uint32_t)(n - o) : CH;
                size_t cn = bound;
                int ci = LZ4_compress_default((const char *)data + o, (char *)comp, (int)len, (int)bound);
                if (ci <= 0)
                    return 2;
                cn = (size_t)ci;
                for (int v = 0; v < 4; v++) { /* as it is, cut, a byte changed, a short capacity */
                    memcpy(dmg, comp, cn);
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
                    uint32_t oa = 0, na = 0, ob = 0, nb = 0;
                    size_t t = 0;
                    int sa = serial(in, sn, cap, ra, &oa, &na, &t);
                    size_t j0 = g_joined;
                    int sb = spec(in, sn, cap, rs, rb, rj, &ob, &nb);
                    if (c == 0 && v == 0 && OC_L4S_SPLITS(sn, cap)) {
                        valid64++;
                        joined64 += g_joined != j0;
                        size_t two = g_last_a > g_last_b ? g_last_a : g_last_b;
                        sum_serial += t, sum_two += two, sum_a += g_last_a, sum_b += g_last_b;
                        max_serial = t > max_serial ? t : max_serial;
                        max_two = two > max_two ? two : max_two;
                    }
                    /* liblz4 decodes blocks that break the end-of-block rules, which the library refuses:
                       only an OK of ours must be liblz4's */
                    int ref = sb != OC_LZS_OK || LZ4_decompress_safe((const char *)in, (char *)back, (int)sn,
                                                                     (int)cap) == (int)ob;
                    if (sa != sb || oa != ob || na != nb || memcmp(ra, rj, (size_t)na * sizeof *ra) != 0 ||
                        !ref) {
                        if (bad++ < 5)
                            fprintf(stderr,
                                    "%s chunk %u at %zu variant %d: library %d/%u/%u, two lanes %d/%u/%u, "
                                    "liblz4 %s\n",
                                    argv[a], CH, o, v, sa, oa, na, sb, ob, nb, ref ? "ok" : "fails");
                    }
                    seen[sb < 6 ? sb : 5]++;
                    parses++;
                    free(in);
                }
            }
            free(data);
        }
    }
    (void)g_redo_total;
    printf("lz4_spec_cpu_check: %zu parses (OK %zu, CORRUPT %zu, TRUNCATED %zu, OUTPUT_TOO_SMALL %zu): %s "
           "the library's serial walk\n",
           parses, seen[OC_LZS_OK], seen[OC_LZS_CORRUPT], seen[OC_LZS_TRUNCATED],
           seen[OC_LZS_OUTPUT_TOO_SMALL], bad ? "DIFFER from" : "equal to");
    printf(
        "  split %zu, joined %zu; not joined: B failed %zu, no entry matched %zu, join checks failed %zu\n",
        g_split, g_joined, g_bfail, g_nolog, g_joinfail);
    printf("  valid 64 KiB chunks split (>= %u B, ratio >= 8/7): %zu, joined %zu (%.2f%%); loop turns a "
           "chunk: serial %.0f, "
           "A %.0f, B %.0f, max(A, B) %.0f; the longest chunk: serial %zu, two lanes %zu (%.2fx)\n",
           OC_L4S_MIN, valid64, joined64, 100.0 * (double)joined64 / (double)(valid64 + !valid64),
           (double)sum_serial / (double)(valid64 + !valid64), (double)sum_a / (double)(valid64 + !valid64),
           (double)sum_b / (double)(valid64 + !valid64), (double)sum_two / (double)(valid64 + !valid64),
           max_serial, max_two, (double)max_serial / (double)(max_two + !max_two));
    if (!bad && g_joined == 0) {
        fprintf(stderr, "lz4_spec_cpu_check: no chunk joined\n");
        return 1;
    }
    free(comp), free(dmg), free(back), free(ra), free(rs), free(rb), free(rj);
    return bad ? 1 : 0;
}
