/*
 * snappy_fast_cpu_check.c - the host check of v10's Snappy parse step
 * (oc_snaps_fast in snappy_split_parse.h, with the run lengths of
 * dev_snappy_fast_parse.h; bench/NOTES.md "v10"), no GPU needed: the fast
 * step must be the general step (oc_snaps_elem, the whole step before v10)
 * in everything but speed.
 *
 *   1. the library's own host test, tests/c/test_snappy_split_core.c, run
 *      whole with the fast step in place of oc_snaps_step (DEV_STEP:
 *      oc_snapf_step, oc_snapf_step2 or oc_snapf_step4): every status equal to the CPU
 *      engine's on real, damaged and hand-built streams, records that
 *      rebuild the input, REDO, windows of 16-512 bytes, ASan-sized
 *      buffers;
 *   2. each FILE given, cut into 64 KiB chunks compressed by libsnappy, as
 *      they are and damaged (cut, a byte changed, a short capacity), parsed
 *      through 512-byte windows (the GPU's) by the general step and the
 *      fast one: status, size,
 *      record count and every record equal, and the status OK exactly
 *      when libsnappy decodes the chunk within the capacity; the share of
 *      the valid chunks' elements that took the fast path is printed (and
 *      must not be 0).
 *
 *   snappy_fast_cpu_check FILE...   (make -C bench/gpu/dev check-snappy-fast)
 */
#include "dev_snappy_fast_parse.h"

#ifndef DEV_STEP
#define DEV_STEP oc_snapf_step
#endif
#define DEV_STR_(x) #x
#define DEV_STR(x) DEV_STR_(x)
#define DEV_NAME DEV_STR(DEV_STEP)
#define oc_snaps_step DEV_STEP
#define main snappy_split_core_main
int snappy_split_core_main(void);
#include "../../../tests/c/test_snappy_split_core.c"
#undef main
#undef oc_snaps_step

#include <stdio.h>
#include <stdlib.h>

/* The fast step, counting the elements the fast path takes (so that the
 * comparison cannot pass with a fast path that is never taken). */
static size_t g_fast, g_slow;
static int g_count; /* count this parse (the chunks as they are) */
static int counting_step(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                         uint32_t cap, oc_lzs_rec *recs)
{
    if (oc_snaps_fast(s, wp, wshift, whi, srcn, cap, recs)) {
        g_fast += g_count;
        return OC_LZS_STEP;
    }
    g_slow += g_count;
    return oc_snaps_elem(s, wp, wshift, whi, srcn, cap, recs);
}

typedef int (*step_fn)(oc_snaps_st *, const uint8_t *, uint32_t, uint32_t, uint32_t, uint32_t, oc_lzs_rec *);

/* One lane through 512-byte windows, as lz_split_warp.cuh drives it. */
static int lane(step_fn step, const uint8_t *src, uint32_t n, uint32_t cap, oc_lzs_rec *recs, uint32_t *outn,
                uint32_t *nrec, size_t *fast_steps)
{
    oc_snaps_st s;
    oc_snaps_init(&s);
    uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;
    int r = n == 0 ? step(&s, src, 0, 0, n, cap, recs) : OC_LZS_NEED;
    while (r != OC_LZS_END) {
        if (r == OC_LZS_NEED) {
            uint32_t at = s.ip & ~15u;
            wshift = at;
            whi = n - at < 512 ? n : at + 512;
            refill_at = s.ip;
        }
        r = step(&s, src + wshift, wshift, whi, n, cap, recs);
        if (r == OC_LZS_NEED && s.ip == refill_at)
            r = step(&s, src, 0, n, n, cap, recs);
        (*fast_steps)++;
    }
    *outn = s.status == OC_LZS_OK ? s.op : 0;
    *nrec = s.status == OC_LZS_OK ? s.nrec : 0;
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
    int rc = snappy_split_core_main();
    if (rc)
        return rc;
    const uint32_t CH = 65536;
    size_t bound = snappy_max_compressed_length(CH);
    uint8_t *comp = malloc(bound), *dmg = malloc(bound), *back = malloc(CH);
    oc_lzs_rec *ra = malloc(OC_LZS_MAX_RECS(CH) * sizeof *ra), *rb = malloc(OC_LZS_MAX_RECS(CH) * sizeof *rb);
    size_t parses = 0, bad = 0, seen[6] = {0}, steps_lib = 0, steps_fast = 0;
    uint32_t h = 1;
    for (int a = 1; a < argc; a++) {
        size_t n = 0;
        uint8_t *data = slurp(argv[a], &n);
        if (!data || !n) {
            fprintf(stderr, "%s: cannot read\n", argv[a]);
            return 2;
        }
        for (size_t o = 0; o < n; o += CH) {
            uint32_t len = n - o < CH ? (uint32_t)(n - o) : CH;
            size_t cn = bound;
            if (snappy_compress((const char *)data + o, len, (char *)comp, &cn) != SNAPPY_OK)
                return 2;
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
                int sa = lane(oc_snaps_elem, in, sn, cap, ra, &oa, &na, &steps_lib);
                int sb = lane(DEV_STEP, in, sn, cap, rb, &ob, &nb, &steps_fast);
                uint32_t oc = 0, nc = 0;
                size_t ignored = 0;
                g_count = v == 0;
                int sc = lane(counting_step, in, sn, cap, rb + 0, &oc, &nc, &ignored);
                if (sc != sb || oc != ob || nc != nb)
                    bad++;
                size_t dn = CH;
                int ref =
                    snappy_uncompress((const char *)in, sn, (char *)back, &dn) == SNAPPY_OK && dn <= cap;
                if (sa != sb || oa != ob || na != nb || memcmp(ra, rb, (size_t)na * sizeof *ra) != 0 ||
                    (sb == OC_LZS_OK) != ref) {
                    if (bad++ < 5)
                        fprintf(stderr,
                                "%s chunk at %zu variant %d: library %d/%u/%u, fast %d/%u/%u, libsnappy %s\n",
                                argv[a], o, v, sa, oa, na, sb, ob, nb, ref ? "ok" : "fails");
                }
                seen[sb < 6 ? sb : 5]++;
                parses++;
                free(in);
            }
        }
        free(data);
    }
    printf("snappy_fast_cpu_check: %zu parses of 64 KiB chunks (OK %zu, CORRUPT %zu, TRUNCATED %zu, "
           "OUTPUT_TOO_SMALL %zu), loop turns general step %zu, " DEV_NAME
           " %zu; %.1f%% of the valid chunks' steps on the fast path: %s\n",
           parses, seen[OC_LZS_OK], seen[OC_LZS_CORRUPT], seen[OC_LZS_TRUNCATED],
           seen[OC_LZS_OUTPUT_TOO_SMALL], steps_lib, steps_fast,
           100.0 * (double)g_fast / (double)(g_fast + g_slow + !(g_fast + g_slow)), bad ? "DIFFER" : "equal");
    if (!bad && (g_fast == 0 || steps_fast == 0)) {
        fprintf(stderr, "snappy_fast_cpu_check: the fast path was never taken\n");
        return 1;
    }
    free(comp), free(dmg), free(back), free(ra), free(rb);
    return bad ? 1 : 0;
}
