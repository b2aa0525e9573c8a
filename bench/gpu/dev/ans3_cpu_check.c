/*
 * ans3_cpu_check.c - why this exists: the v3 reference (ans3_ref.h) is what
 * the GPU's v3 decoder is checked against, so it must itself round-trip on
 * real data, reject damage without reading outside its buffers, and cost
 * only what the NOTES predicted in ratio.  For each file (64 KiB chunks as
 * |u1; a .f32 file also as bf16, its values' high halves, as <f2): v3
 * compress -> decompress == input; the v2 core's size beside it (the ratio
 * of both is printed); generated edge cases (lengths around 32, 64 and a
 * tile, constant, two symbols, odd bf16 lengths); and damaged chunks (a
 * byte flipped, the chunk truncated) under ASan/UBSan: a status, never a
 * fault.  No GPU.
 *
 *   make -C bench/gpu/dev check-ans3   (CORPUS=dir, default bench/corpus-data)
 *
 * Exit status 0 only if every round trip matched.
 */
#include "ans4_ref.h"

#include <stdio.h>
#include <stdlib.h>

#define CH 65536u

static ans3_ws g_ws3;
static ans_ws g_ws2;
static long g_fail, g_cases, g_emu;
static uint64_t g_rng = 0x2545f4914f6cdd1dull;

static uint64_t rng_next(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* One decoding step of state *x with ans_dentry's table: the entry (symbol in bits 0-7). */
static uint32_t ans_dstep_e(const uint32_t *dt, uint32_t mask, uint32_t pb, uint64_t *x)
{
    uint32_t e = dt[*x & mask];
    *x = (uint64_t)(((e >> 8) & 0xfffu) + 1u) * (*x >> pb) + (e >> 20);
    return e;
}

static void emu_chunk(const uint8_t *src, uint64_t n, const uint8_t *ref, oc_status ref_st);

/* One chunk: v3 round trip, v2 size; damaged copies decode to a status. Returns the v3 size. */
static uint64_t one(const uint8_t *src, uint64_t n, uint32_t dtype, uint32_t tshift, uint64_t *v2size,
                    int damage)
{
    static uint8_t comp[2 * CH + 64], comp2[2 * CH + 64], dec[CH + 64], bad[2 * CH + 64];
    uint64_t c3 = 0, c2 = 0, got = 0;
    g_cases++;
    if (ans3_compress_chunk(&g_ws3, src, n, dtype, tshift, comp, sizeof comp, &c3) != OC_OK ||
        ans_compress_chunk_v(&g_ws2, 2, src, n, dtype, comp2, sizeof comp2, &c2) != OC_OK) {
        fprintf(stderr, "compress failed (n %llu)\n", (unsigned long long)n);
        g_fail++;
        return 0;
    }
    *v2size = c2;
    oc_status st = ans3_decompress_chunk(&g_ws3, comp, c3, dec, CH, &got);
    if (st != OC_OK || got != n || memcmp(dec, src, n) != 0) {
        fprintf(stderr, "v3 round trip failed: n %llu dtype %u tiles of 16384 << %u, status %d got %llu\n",
                (unsigned long long)n, dtype, tshift, (int)st, (unsigned long long)got);
        g_fail++;
    }
    emu_chunk(comp, c3, dec, st);
    /* the v2 decoder must refuse v3 (a version it does not know) */
    if (ans_decompress_chunk(&g_ws2, comp, c3, dec, CH, &got) != OC_ERR_CORRUPT) {
        fprintf(stderr, "the v2 core accepted a v3 chunk\n");
        g_fail++;
    }
    for (int d = 0; d < damage; d++) {
        uint64_t len = c3;
        memcpy(bad, comp, c3);
        if (d % 4 == 3)
            len = rng_next() % c3;
        else
            bad[8 + rng_next() % (c3 - 8)] ^= (uint8_t)(1u << (rng_next() % 8));
        /* exactly-sized heap copy: ASan catches any read past its end */
        uint8_t *h = (uint8_t *)malloc(len ? len : 1);
        memcpy(h, bad, len);
        static uint8_t dref[CH + 64];
        memset(dref, 0, sizeof dref);
        oc_status dst_ = ans3_decompress_chunk(&g_ws3, h, len, dref, CH, &got);
        emu_chunk(h, len, dref, dst_);
        free(h);
    }
    return c3;
}

/* ---- ans3_kernels.cuh's lane loop, emulated (one lane at a time) --------------------------
 * ans3_decode_tile's order of steps, pairs, prefetched words nw0/nw1, tail and
 * end check, for blocks of BS steps; the window is a column of the lane's
 * words where a slot past K holds garbage (as a ring slot would).  Its bytes
 * and status must be ans3_decode_tile's (the reference's). */
static uint32_t emu_word(const uint8_t *w, uint32_t nw, uint32_t r)
{
    return r < nw ? oc_load_le32(w + 4ull * r) : 0xdeadbeefu ^ r;
}

static int emu_take(uint64_t *x, uint32_t w)
{
    int rn = *x < ANS2_L;
    if (rn)
        *x = (*x << 32) | w;
    return rn;
}

static int emu_lane(const uint32_t *dt, uint32_t pb, uint32_t sa, uint32_t sb, const uint8_t *w, uint32_t nw,
                    uint32_t lane, uint32_t cnt, uint8_t *out, uint32_t stride, uint32_t BS)
{
    uint32_t r = 0, nw0 = emu_word(w, nw, 0), nw1 = emu_word(w, nw, 1), mask = (1u << pb) - 1u;
    uint64_t xa = sa, xb = sb;
    int ra = emu_take(&xa, nw0), rb = emu_take(&xb, ra ? nw1 : nw0);
    r += (uint32_t)(ra + rb);
    if (ra || rb) {
        nw0 = emu_word(w, nw, r);
        nw1 = emu_word(w, nw, r + 1);
    }
    uint32_t full = cnt / ANS_LANES, k = 0;
    for (; k + BS <= full; k += BS) {
        for (uint32_t i = 0; i < BS; i += 2) {
            uint32_t ea = ans_dstep_e(dt, mask, pb, &xa), eb = ans_dstep_e(dt, mask, pb, &xb);
            if (out) {
                out[(uint64_t)((k + i) * ANS_LANES + lane) * stride] = (uint8_t)ea;
                out[(uint64_t)((k + i + 1) * ANS_LANES + lane) * stride] = (uint8_t)eb;
            }
            ra = emu_take(&xa, nw0);
            rb = emu_take(&xb, ra ? nw1 : nw0);
            r += (uint32_t)(ra + rb);
            if (ra || rb) {
                nw0 = emu_word(w, nw, r);
                nw1 = emu_word(w, nw, r + 1);
            }
        }
    }
    for (uint32_t i = 0; i + 1 < BS; i++) {
        if (k + i < full) {
            uint64_t *x = (i & 1u) ? &xb : &xa;
            uint32_t e = ans_dstep_e(dt, mask, pb, x);
            if (out)
                out[(uint64_t)((k + i) * ANS_LANES + lane) * stride] = (uint8_t)e;
            if (emu_take(x, nw0)) {
                r++;
                nw0 = emu_word(w, nw, r);
                nw1 = emu_word(w, nw, r + 1);
            }
        }
    }
    if (full * ANS_LANES + lane < cnt) {
        uint64_t *x = (full & 1u) ? &xb : &xa;
        uint32_t e = ans_dstep_e(dt, mask, pb, x);
        if (out)
            out[(uint64_t)(full * ANS_LANES + lane) * stride] = (uint8_t)e;
        if (emu_take(x, nw0))
            r++;
    }
    return sa == 0 || sb == 0 || r != nw || xa != ANS2_L || xb != ANS2_L;
}

/* A v3 chunk through the emulated loop (BS 4 and 8) against the reference: same bytes, same status. */
static void emu_chunk(const uint8_t *src, uint64_t n, const uint8_t *ref, oc_status ref_st)
{
    static uint8_t dec[CH + 64];
    static uint32_t dt[1u << ANS_PB_MAX];
    ans_chunk k;
    ans_table t;
    memset(&k, 0, sizeof k);
    memset(&t, 0, sizeof t);
    oc_status st = ans3_chunk_check(src, n, CH, &k, &t);
    if (st != OC_OK || k.mode != 1)
        return; /* chunk-level statuses are the reference's own code */
    for (uint32_t slot = 0; slot < (1u << t.pb); slot++)
        dt[slot] = ans_dentry(&t, slot);
    for (uint32_t BS = 4; BS <= 8; BS += 4) {
        memset(dec, 0, sizeof dec);
        oc_status got = OC_OK;
        const uint32_t TS = ans3_tile_of(src[3]);
        for (uint32_t tile = 0; tile < k.sh.ntiles && got == OC_OK; tile++) {
            uint64_t a, b, first = (uint64_t)tile * TS;
            uint32_t cnt = own_tile_elems(k.sh.nsym, TS, tile);
            got = own_tile_span(src, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
            if (got != OC_OK)
                break;
            const uint8_t *ts = src + a;
            uint64_t at = ANS3_TILE_HEAD;
            for (uint32_t l = 0; l < ANS_LANES; l++)
                at += 4ull * oc_load_le16(ts + 8 * ANS_LANES + 2 * l);
            if (b - a < ANS3_TILE_HEAD || at != b - a) {
                got = OC_ERR_CORRUPT;
                break;
            }
            uint8_t *o = dec + (k.sh.split ? 2 * first + 1 : first);
            at = ANS3_TILE_HEAD;
            int bad = 0;
            for (uint32_t l = 0; l < ANS_LANES; l++) {
                uint32_t nw = oc_load_le16(ts + 8 * ANS_LANES + 2 * l);
                bad |= emu_lane(dt, t.pb, oc_load_le32(ts + 4 * l), oc_load_le32(ts + 4 * (ANS_LANES + l)),
                                ts + at, nw, l, cnt, o, k.sh.split ? 2u : 1u, BS);
                at += 4ull * nw;
            }
            if (bad)
                got = OC_ERR_CORRUPT;
        }
        g_emu++;
        if (got != ref_st) {
            fprintf(stderr, "emulated GPU loop (BS %u): status %d, reference %d\n", BS, (int)got,
                    (int)ref_st);
            g_fail++;
        } else if (got == OC_OK) {
            for (uint64_t i = 0; i < k.sh.nsym; i++) {
                uint64_t j = k.sh.split ? 2 * i + 1 : i;
                if (dec[j] != ref[j]) {
                    fprintf(stderr, "emulated GPU loop (BS %u): byte %llu differs\n", BS,
                            (unsigned long long)j);
                    g_fail++;
                    break;
                }
            }
        }
    }
}

/* ---- v4 (ans4_ref.h): round trip, damage, and ans4_kernels.cuh's lane loop emulated ---------- */

/* The GPU loop's word at counter u = r x 64: the unit's half; a unit past the lane's holds garbage. */
static uint32_t emu4_word(const uint8_t *w, uint32_t units, uint32_t u)
{
    uint32_t unit = u >> 7;
    uint32_t v = unit < units ? oc_load_le32(w + 4ull * unit) : 0xdeadbeefu ^ unit;
    return (v >> ((u >> 2) & 16u)) & 0xffffu;
}

static int emu4_lane(const uint32_t *dt, uint32_t pb, uint32_t s, const uint8_t *w, uint32_t K, uint32_t lane,
                     uint32_t cnt, uint8_t *out, uint32_t stride)
{
    uint32_t units = (K + 1u) / 2u, u = 0, x = s, mask = (1u << pb) - 1u;
    uint32_t nw = emu4_word(w, units, 0);
    uint32_t full = cnt / ANS_LANES, k = 0;
    for (; k < full; k++) { /* blocks and tail: the same steps in order */
        uint32_t e = dt[x & mask];
        x = (((e >> 8) & 0xfffu) + 1u) * (x >> pb) + (e >> 20);
        if (out)
            out[(uint64_t)(k * ANS_LANES + lane) * stride] = (uint8_t)e;
        if (x < ANS4_L) {
            x = (x << 16) | nw;
            u += 64u;
            nw = emu4_word(w, units, u);
        }
    }
    if (full * ANS_LANES + lane < cnt) {
        uint32_t e = dt[x & mask];
        x = (((e >> 8) & 0xfffu) + 1u) * (x >> pb) + (e >> 20);
        if (out)
            out[(uint64_t)(full * ANS_LANES + lane) * stride] = (uint8_t)e;
        if (x < ANS4_L) {
            x = (x << 16) | nw;
            u += 64u;
        }
    }
    return s < ANS4_L || u != (K << 6) || x != ANS4_L;
}

static void emu4_chunk(const uint8_t *src, uint64_t n, const uint8_t *ref, oc_status ref_st)
{
    static uint8_t dec[CH + 64];
    static uint32_t dt[1u << ANS_PB_MAX];
    ans_chunk k;
    ans_table t;
    memset(&k, 0, sizeof k);
    memset(&t, 0, sizeof t);
    if (ans4_chunk_check(src, n, CH, &k, &t) != OC_OK || k.mode != 1)
        return;
    for (uint32_t slot = 0; slot < (1u << t.pb); slot++)
        dt[slot] = ans_dentry(&t, slot);
    memset(dec, 0, sizeof dec);
    oc_status got = OC_OK;
    for (uint32_t tile = 0; tile < k.sh.ntiles && got == OC_OK; tile++) {
        uint64_t a, b, first = (uint64_t)tile * ANS_TILE;
        uint32_t cnt = own_tile_elems(k.sh.nsym, ANS_TILE, tile);
        got = own_tile_span(src, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
        if (got != OC_OK)
            break;
        const uint8_t *ts = src + a;
        uint64_t at = ANS4_TILE_HEAD;
        if (b - a < ANS4_TILE_HEAD) {
            got = OC_ERR_CORRUPT;
            break;
        }
        for (uint32_t l = 0; l < ANS_LANES; l++)
            at += 4ull * ((oc_load_le16(ts + 4 * ANS_LANES + 2 * l) + 1u) / 2u);
        if (at != b - a) {
            got = OC_ERR_CORRUPT;
            break;
        }
        at = ANS4_TILE_HEAD;
        int bad = 0;
        for (uint32_t l = 0; l < ANS_LANES; l++) { /* the pads first, as ans4_start */
            uint32_t K = oc_load_le16(ts + 4 * ANS_LANES + 2 * l);
            if (K & 1u)
                bad |= (oc_load_le32(ts + at + 4ull * (K / 2u)) >> 16) != 0;
            at += 4ull * ((K + 1u) / 2u);
        }
        at = ANS4_TILE_HEAD;
        uint8_t *o = dec + (k.sh.split ? 2 * first + 1 : first);
        for (uint32_t l = 0; l < ANS_LANES && !bad; l++) {
            uint32_t K = oc_load_le16(ts + 4 * ANS_LANES + 2 * l);
            bad |= emu4_lane(dt, t.pb, oc_load_le32(ts + 4 * l), ts + at, K, l, cnt, o, k.sh.split ? 2u : 1u);
            at += 4ull * ((K + 1u) / 2u);
        }
        if (bad)
            got = OC_ERR_CORRUPT;
    }
    g_emu++;
    if (got != ref_st) {
        fprintf(stderr, "emulated v4 GPU loop: status %d, reference %d\n", (int)got, (int)ref_st);
        g_fail++;
    } else if (got == OC_OK) {
        for (uint64_t i = 0; i < k.sh.nsym; i++) {
            uint64_t j = k.sh.split ? 2 * i + 1 : i;
            if (dec[j] != ref[j]) {
                fprintf(stderr, "emulated v4 GPU loop: byte %llu differs\n", (unsigned long long)j);
                g_fail++;
                break;
            }
        }
    }
}

/* A v4 round trip (and damaged copies); returns the v4 size. */
static uint64_t one4(const uint8_t *src, uint64_t n, uint32_t dtype, int damage)
{
    static uint8_t comp[2 * CH + 64], dec[CH + 64], bad[2 * CH + 64], dref[CH + 64];
    uint64_t c4 = 0, got = 0;
    g_cases++;
    if (ans4_compress_chunk(&g_ws3, src, n, dtype, comp, sizeof comp, &c4) != OC_OK) {
        fprintf(stderr, "v4 compress failed (n %llu)\n", (unsigned long long)n);
        g_fail++;
        return 0;
    }
    oc_status st = ans4_decompress_chunk(&g_ws3, comp, c4, dec, CH, &got);
    if (st != OC_OK || got != n || memcmp(dec, src, n) != 0) {
        fprintf(stderr, "v4 round trip failed: n %llu dtype %u status %d\n", (unsigned long long)n, dtype,
                (int)st);
        g_fail++;
    }
    emu4_chunk(comp, c4, dec, st);
    for (int d = 0; d < damage; d++) {
        uint64_t len = c4;
        memcpy(bad, comp, c4);
        if (d % 4 == 3)
            len = rng_next() % c4;
        else
            bad[8 + rng_next() % (c4 - 8)] ^= (uint8_t)(1u << (rng_next() % 8));
        uint8_t *h = (uint8_t *)malloc(len ? len : 1);
        memcpy(h, bad, len);
        memset(dref, 0, sizeof dref);
        oc_status dst_ = ans4_decompress_chunk(&g_ws3, h, len, dref, CH, &got);
        emu4_chunk(h, len, dref, dst_);
        free(h);
    }
    return c4;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = (uint8_t *)malloc(sz ? (size_t)sz : 1);
    *n = fread(b, 1, (size_t)sz, f);
    fclose(f);
    return b;
}

static void file_rows(const char *name, const uint8_t *b, size_t n, uint32_t dtype)
{
    uint64_t t3[2] = {0, 0}, t2 = 0, t4 = 0, raw = 0;
    for (size_t at = 0; at < n; at += CH) {
        uint64_t len = n - at < CH ? n - at : CH, c2 = 0;
        for (uint32_t ts = 0; ts <= ANS3_TSHIFT_MAX; ts++)
            t3[ts] += one(b + at, len, dtype, ts, &c2, at % (8 * CH) == 0 ? 8 : 0);
        t4 += one4(b + at, len, dtype, at % (8 * CH) == 0 ? 8 : 0);
        t2 += c2;
        raw += len;
    }
    double nc = (double)((n + CH - 1) / CH);
    printf("%-28s %-4s %8llu bytes: ratio v2 %.4f, v3 %.4f (%+.1f bytes a chunk), v3 tiles of 32768 %.4f "
           "(%+.1f)\n",
           name, dtype == OC_TYPE_BF16 ? "bf16" : "|u1", (unsigned long long)raw, (double)raw / (double)t2,
           (double)raw / (double)t3[0], ((double)t3[0] - (double)t2) / nc, (double)raw / (double)t3[1],
           ((double)t3[1] - (double)t2) / nc);
    printf("%-28s %-4s v4 %.4f (%+.1f bytes a chunk)\n", name, dtype == OC_TYPE_BF16 ? "bf16" : "|u1",
           (double)raw / (double)t4, ((double)t4 - (double)t2) / nc);
}

int main(int argc, char **argv)
{
    static uint8_t g[CH];
    uint64_t c2;
    /* generated: skewed bytes at lengths around lanes, pairs of steps and tiles */
    const uint64_t lens[] = {1,   2,    31,    32,    33,    63,    64,    65,    95,    96,    97, 127,
                             129, 1000, 16383, 16384, 16385, 16448, 32767, 32768, 32769, 40000, CH};
    for (uint64_t i = 0; i < CH; i++) {
        uint64_t r = rng_next();
        g[i] = (uint8_t)((r & 7) ? 'a' + (r >> 8) % 5 : (r >> 16) & 0xff);
    }
    for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
        for (uint32_t ts = 0; ts <= ANS3_TSHIFT_MAX; ts++) {
            one(g, lens[j], OC_TYPE_U8, ts, &c2, 8);
            one(g, lens[j], OC_TYPE_BF16, ts, &c2, 4);
        }
        one4(g, lens[j], OC_TYPE_U8, 8);
        one4(g, lens[j], OC_TYPE_BF16, 4);
    }
    memset(g, 'x', CH);
    one(g, CH, OC_TYPE_U8, 1, &c2, 4);
    one4(g, CH, OC_TYPE_U8, 4);
    for (uint64_t i = 0; i < CH; i++)
        g[i] = (uint8_t)(rng_next() & 1 ? 'p' : 'q');
    one(g, CH, OC_TYPE_U8, 1, &c2, 4);
    one(g, 5000, OC_TYPE_U8, 0, &c2, 4);
    for (uint64_t i = 0; i < CH; i++)
        g[i] = (uint8_t)rng_next();
    one(g, CH, OC_TYPE_U8, 1, &c2, 4); /* stored (mode 0) */
    for (int a = 1; a < argc; a++) {
        size_t n = 0;
        uint8_t *b = slurp(argv[a], &n);
        if (!b) {
            fprintf(stderr, "cannot read %s\n", argv[a]);
            return 2;
        }
        const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        file_rows(base, b, n, OC_TYPE_U8);
        size_t L = strlen(argv[a]);
        if (L > 4 && strcmp(argv[a] + L - 4, ".f32") == 0) {
            size_t m = n / 4;
            uint8_t *bf = (uint8_t *)malloc(2 * m + 1);
            for (size_t i = 0; i < m; i++) {
                bf[2 * i] = b[4 * i + 2];
                bf[2 * i + 1] = b[4 * i + 3];
            }
            file_rows(base, bf, 2 * m, OC_TYPE_BF16);
            free(bf);
        }
        free(b);
    }
    printf("%ld chunks, %ld emulated GPU-loop decodes, %ld failures\n", g_cases, g_emu, g_fail);
    return g_fail ? 1 : 0;
}
