/*
 * ans_win_cpu_check.c - why this exists: ans_win_kernels.cuh (design (a) of
 * the ANS decoder: each lane's words through a window of its next R words,
 * topped up by cp.async and waited for only when needed) is correct only if
 * no step ever reads a window slot whose word has not landed or has been
 * overwritten, whatever the data.  A GPU run shows one timing of the copies;
 * this emulates the windows' logic on the CPU with the 32 lanes in lockstep
 * (answ_start, answ_top, answ_decode_tile line for line), copies that land
 * at random moments between their request and the wait that covers them,
 * and every slot tagged with the word it holds and whether it has landed, so
 * a read of the wrong word fails at once.  Chunks of the corpus's text and
 * bf16 weights (and generated data: skewed, uniform, constant, short) are
 * encoded by the core (ans_compress_chunk), decoded by the emulation for R
 * 16 and 32 in both layouts (columns, and the coalesced rows: answ_slot's
 * addresses, every slot tagged with its lane and word), and compared with the core's decoder
 * (ans_decompress_chunk): the same bytes and statuses, also with damaged tile words.  No GPU.
 *
 *   make -C bench/gpu/dev check-ans-win   (CORPUS=dir, default bench/corpus-data)
 *
 * Exit status 0 only if every comparison matched and no read was early.
 */
#include "cores/ans/ans_core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ans_ws g_ws;
static long g_cases, g_fail, g_early, g_waits, g_tops, g_tiles;
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static uint64_t rng_next(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* ---- the emulated windows ---------------------------------------------------------- */

#define NL 32u
#define RMAX 32u

typedef struct wslot {
    uint32_t l;       /* the lane whose word it holds */
    uint32_t j;       /* the word it holds or will hold */
    int landed;       /* 0: a copy of word j is in flight */
    int used;         /* ever written */
    uint32_t pending; /* the copy's group (when not landed) */
} wslot;

typedef struct warp {
    uint32_t R, TOP, CO; /* CO: ans_win_kernels.cuh's coalesced layout (rows), else columns */
    const uint8_t *wb[NL];
    uint32_t s[NL], kw[NL], fe[NL], fc[NL], r[NL], nw[NL];
    uint64_t x[NL];
    wslot ring[NL * RMAX]; /* the warp's windows, slot by slot as answ_slot addresses them */
    uint32_t groups;       /* committed so far */
    int bad_read;
} warp;

/* copies land: every one of a group < upto; others at random (p in 1/8) */
static void land(warp *w, uint32_t upto, uint32_t p8)
{
    for (uint32_t l = 0; l < NL; l++)
        for (uint32_t i = 0; i < w->R; i++) {
            wslot *s = &w->ring[l * w->R + i];
            if (s->used && !s->landed && (s->pending < upto || (p8 && rng_next() % 8 < p8)))
                s->landed = 1;
        }
}

/* answ_slot's address of word j of lane l, in slots (4 bytes) from the windows' base */
static uint32_t phys(const warp *w, uint32_t l, uint32_t j)
{
    return w->CO ? l * w->R + ((j + l) & (w->R - 1u)) : l + 32u * (j & (w->R - 1u));
}

static void request(warp *w, uint32_t l, uint32_t j)
{
    wslot *s = &w->ring[phys(w, l, j)];
    /* the word it overwrites must be taken (< r: nw already holds W[r]) and landed (a copy in
     * flight to the same slot would race) */
    if (s->used && (s->j >= w->r[l] || !s->landed)) {
        if (!w->bad_read)
            printf("  request of word %u of lane %u over word %u (r %u, landed %d)\n", j, l, s->j, w->r[l],
                   s->landed);
        w->bad_read = 1;
    }
    s->l = l;
    s->j = j;
    s->landed = 0;
    s->used = 1;
    s->pending = w->groups;
}

static uint32_t readw(warp *w, uint32_t l, uint32_t j)
{
    wslot *s = &w->ring[phys(w, l, j)];
    if (!s->used || s->l != l || s->j != j || !s->landed) {
        if (!w->bad_read)
            printf("  early read: lane %u word %u (slot holds %u, landed %d)\n", l, j, s->j, s->landed);
        w->bad_read = 1;
        g_early++;
    }
    return oc_load_le32(w->wb[l] + 4ull * j);
}

/* answ_start */
static oc_status em_start(warp *w, const uint8_t *src, uint64_t n)
{
    uint32_t incl = 0;
    for (uint32_t l = 0; l < NL; l++) {
        w->s[l] = oc_load_le32(src + 4 * l);
        w->kw[l] = oc_load_le16(src + 4 * ANS_LANES + 2 * l);
        w->fe[l] = 0;
    }
    uint32_t tot = 0;
    for (uint32_t l = 0; l < NL; l++)
        tot += w->kw[l];
    if (ANS2_TILE_HEAD + 4ull * tot != n)
        return OC_ERR_CORRUPT;
    for (uint32_t l = 0; l < NL; l++) {
        w->wb[l] = src + ANS2_TILE_HEAD + 4ull * incl;
        incl += w->kw[l];
        w->r[l] = 0;
        w->fe[l] = w->kw[l] < w->R ? w->kw[l] : w->R;
        for (uint32_t j = 0; j < w->fe[l]; j++)
            request(w, l, j);
    }
    w->groups++;
    return OC_OK;
}

/* answ_top */
static void em_top(warp *w)
{
    uint32_t old[NL];
    int any = 0, issued = 0;
    land(w, 0, 2); /* copies land whenever they like */
    for (uint32_t l = 0; l < NL; l++) {
        old[l] = w->fe[l];
        any |= w->fe[l] < w->kw[l] && w->fe[l] - w->r[l] < w->TOP;
    }
    if (any) {
        for (uint32_t l = 0; l < NL; l++) {
            uint32_t want = w->r[l] + w->R < w->kw[l] ? w->r[l] + w->R : w->kw[l];
            for (uint32_t j = w->fe[l]; j < want; j++)
                request(w, l, j);
            w->fe[l] = want;
        }
        w->groups++;
        issued = 1;
        g_tops++;
    }
    int wait = 0;
    for (uint32_t l = 0; l < NL; l++) {
        uint32_t need = w->r[l] + 5u < w->kw[l] ? w->r[l] + 5u : w->kw[l];
        wait |= w->fc[l] < need;
    }
    if (wait) {
        g_waits++;
        if (issued) {
            land(w, w->groups - 1, 0); /* cp.async.wait_group 1 */
            for (uint32_t l = 0; l < NL; l++)
                w->fc[l] = old[l];
        } else {
            land(w, w->groups, 0); /* cp.async.wait_group 0 */
            for (uint32_t l = 0; l < NL; l++)
                w->fc[l] = w->fe[l];
        }
    }
}

static void em_step(warp *w, uint32_t l, const uint32_t *dt, uint32_t pb, uint8_t *o)
{
    uint32_t e = dt[w->x[l] & ((1u << pb) - 1u)];
    w->x[l] = (uint64_t)(((e >> 8) & 0xfffu) + 1u) * (w->x[l] >> pb) + (e >> 20);
    if (o)
        *o = (uint8_t)e;
    if (w->x[l] < ANS2_L) {
        w->x[l] = (w->x[l] << 32) | w->nw[l];
        w->r[l]++;
        if (w->r[l] < w->kw[l])
            w->nw[l] = readw(w, l, w->r[l]);
    }
}

/* answ_decode_tile (bytes: out[i * stride]) */
static oc_status em_decode(warp *w, const uint32_t *dt, uint32_t pb, uint32_t cnt, uint8_t *out,
                           uint32_t stride)
{
    land(w, w->groups, 0); /* the first window */
    for (uint32_t l = 0; l < NL; l++) {
        w->fc[l] = w->fe[l];
        w->r[l] = 0;
        w->nw[l] = w->kw[l] ? readw(w, l, 0) : 0u;
        w->x[l] = w->s[l];
        if (w->x[l] < ANS2_L) {
            w->x[l] = (w->x[l] << 32) | w->nw[l];
            w->r[l]++;
            if (w->r[l] < w->kw[l])
                w->nw[l] = readw(w, l, w->r[l]);
        }
    }
    uint32_t full = cnt / NL, k = 0;
    for (; k + 4 <= full; k += 4) {
        em_top(w);
        for (uint32_t i = 0; i < 4; i++)
            for (uint32_t l = 0; l < NL; l++)
                em_step(w, l, dt, pb, out ? out + (size_t)((k + i) * NL + l) * stride : NULL);
    }
    em_top(w);
    for (uint32_t i = 0; i + 1 < 4; i++)
        if (k + i < full)
            for (uint32_t l = 0; l < NL; l++)
                em_step(w, l, dt, pb, out ? out + (size_t)((k + i) * NL + l) * stride : NULL);
    int bad = 0;
    for (uint32_t l = 0; l < NL; l++) {
        if (full * NL + l < cnt) {
            uint32_t e = dt[w->x[l] & ((1u << pb) - 1u)];
            w->x[l] = (uint64_t)(((e >> 8) & 0xfffu) + 1u) * (w->x[l] >> pb) + (e >> 20);
            if (out)
                out[(size_t)(full * NL + l) * stride] = (uint8_t)e;
            if (w->x[l] < ANS2_L) {
                w->x[l] = (w->x[l] << 32) | w->nw[l];
                w->r[l]++;
            }
        }
        bad |= w->s[l] == 0 || w->r[l] != w->kw[l] || w->x[l] != ANS2_L;
    }
    land(w, w->groups, 0); /* cp.async.wait_all */
    return bad ? OC_ERR_CORRUPT : OC_OK;
}

static warp g_w;

/* ans_decompress_chunk with v2 tiles through the emulated windows (R words a lane) */
static oc_status em_chunk(const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap, uint64_t *out, uint32_t R,
                          uint32_t CO)
{
    ans_chunk k = {0};
    ans_table t = {0};
    *out = 0;
    oc_status st = ans_chunk_check(src, n, cap, &k, &t);
    if (st != OC_OK)
        return st;
    if (k.mode == 1) {
        for (uint32_t slot = 0; slot < (1u << t.pb); slot++)
            g_ws.dt[slot] = ans_dentry(&t, slot);
        for (uint32_t tile = 0; tile < k.sh.ntiles; tile++) {
            uint64_t a, b, first = (uint64_t)tile * ANS_TILE;
            uint32_t cnt = own_tile_elems(k.sh.nsym, ANS_TILE, tile);
            st = own_tile_span(src, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
            if (st == OC_OK) {
                uint8_t *o = dst + (k.sh.split ? 2 * first + 1 : first);
                uint32_t stride = k.sh.split ? 2u : 1u;
                if (k.version >= 2 && t.pb <= ANS_PB && b - a >= ANS2_TILE_HEAD) {
                    memset(&g_w, 0, sizeof g_w);
                    g_w.R = R;
                    g_w.CO = CO;
                    g_w.TOP = R / 2u + 2u;
                    g_tiles++;
                    st = em_start(&g_w, src + a, b - a);
                    if (st == OC_OK)
                        st = em_decode(&g_w, g_ws.dt, t.pb, cnt, o, stride);
                    if (g_w.bad_read)
                        g_fail++;
                } else {
                    st = k.version == 1 ? ans_decode_tile(g_ws.dt, t.pb, src + a, b - a, cnt, o, stride)
                                        : ans2_decode_tile(g_ws.dt, t.pb, src + a, b - a, cnt, o, stride);
                }
            }
            if (st != OC_OK)
                return st;
        }
    }
    ans_copy_stored(src, &k, dst, 0, k.sh.split ? k.sh.lo : (k.mode == 0 ? k.sh.nsym : 0));
    if (k.sh.tail)
        dst[k.size - 1] = src[n - 1];
    *out = k.size;
    return OC_OK;
}

/* ---- the cases ---------------------------------------------------------------------- */

static uint8_t g_comp[2u << 20], g_a[1u << 20], g_b[1u << 20];

/* One chunk: encode, then the core's decode and the emulation's (R 16 and 32), intact and with
 * `damage` random bytes of the chunk's tile area flipped. */
static void one(const uint8_t *data, uint64_t n, uint32_t dtype, int damage)
{
    uint64_t csz = 0;
    if (ans_compress_chunk(&g_ws, data, n, dtype, g_comp, sizeof g_comp, &csz) != OC_OK) {
        printf("compress failed (n %llu)\n", (unsigned long long)n);
        g_fail++;
        return;
    }
    for (int d = 0; d <= damage; d++) {
        if (d) { /* flip a byte past the header and table (the tiles' heads and words) */
            ans_chunk k = {0};
            ans_table t = {0};
            if (ans_chunk_check(g_comp, csz, n, &k, &t) != OC_OK || k.mode != 1)
                return;
            uint64_t lo = (uint64_t)k.tile_tab + 4ull * k.sh.ntiles, span = k.limit - lo;
            if (!span)
                return;
            g_comp[lo + rng_next() % span] ^= (uint8_t)(1u + rng_next() % 255u);
        }
        uint64_t oa = 0, ob = 0;
        memset(g_a, 0xaa, n);
        oc_status sa = ans_decompress_chunk(&g_ws, g_comp, csz, g_a, n, &oa);
        for (uint32_t v = 0; v < 4; v++) {
            uint32_t R = v & 1 ? 32u : 16u, CO = v >> 1;
            memset(g_b, 0x55, n);
            oc_status sb = em_chunk(g_comp, csz, g_b, n, &ob, R, CO);
            g_cases++;
            if (sa != sb || (sa == OC_OK && (oa != ob || memcmp(g_a, g_b, n) != 0)) ||
                (!d && (sa != OC_OK || memcmp(data, g_b, n) != 0))) {
                printf("MISMATCH: n %llu dtype %u damage %d R %u CO %u: core %d, windows %d\n",
                       (unsigned long long)n, dtype, d, R, CO, (int)sa, (int)sb);
                g_fail++;
            }
        }
    }
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *b = malloc(8u << 20);
    *len = b ? fread(b, 1, 8u << 20, f) : 0;
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../../corpus-data";
    char path[4096];
    size_t len = 0;
    uint8_t *buf;
    const uint64_t CH = 65536;
    /* text: every 64 KiB chunk of the first 4 MiB, a few damaged */
    snprintf(path, sizeof path, "%s/text_linux_docs.txt", dir);
    buf = read_file(path, &len);
    if (!buf || len < CH) {
        printf("%s: missing\n", path);
        return 2;
    }
    for (uint64_t at = 0; at + CH <= len && at < (4u << 20); at += CH)
        one(buf + at, CH, OC_TYPE_U8, (at / CH) % 4 == 0 ? 3 : 0);
    one(buf, 1000, OC_TYPE_U8, 2);  /* a short tail tile */
    one(buf, 40000, OC_TYPE_U8, 2); /* 2 tiles and a partial */
    free(buf);
    /* bf16: the high halves of the f32 weights */
    snprintf(path, sizeof path, "%s/weights_minilm_l0-1.f32", dir);
    buf = read_file(path, &len);
    if (buf && len >= 2 * CH) {
        size_t m = len / 2;
        uint8_t *bf = malloc(m);
        for (size_t i = 0; i + 1 < m; i += 2) {
            bf[i] = buf[2 * i + 2];
            bf[i + 1] = buf[2 * i + 3];
        }
        for (uint64_t at = 0; at + CH <= m && at < (2u << 20); at += CH)
            one(bf + at, CH, OC_TYPE_BF16, (at / CH) % 4 == 0 ? 3 : 0);
        one(bf, 3001, OC_TYPE_BF16, 2); /* odd: the tail byte */
        free(bf);
    } else {
        printf("%s: missing (bf16 cases skipped)\n", path);
        g_fail++;
    }
    free(buf);
    /* generated: skewed (many words a lane: up to 1 a step), uniform (about 1 a step), constant */
    static uint8_t gen[65536];
    for (int kind = 0; kind < 4; kind++) {
        for (size_t i = 0; i < sizeof gen; i++) {
            uint64_t v = rng_next();
            gen[i] = kind == 0   ? (uint8_t)v
                     : kind == 1 ? (uint8_t)(v % 7 == 0 ? v >> 8 : 'e')
                     : kind == 2 ? (uint8_t)(__builtin_ctzll(v | (1ull << 40)) * 6)
                                 : 'a';
        }
        for (int rep = 0; rep < 3; rep++)
            one(gen, sizeof gen, OC_TYPE_U8, 2);
    }
    printf("ans_win_cpu_check: %ld cases (%ld tiles through the windows, %ld top-ups, %ld waits), %ld early "
           "reads, %ld failures\n",
           g_cases, g_tiles, g_tops, g_waits, g_early, g_fail);
    return g_fail ? 1 : 0;
}
