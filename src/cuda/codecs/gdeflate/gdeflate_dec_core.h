/*
 * gdeflate_dec_core.h - the GDeflate page decoder (docs/FORMAT.md,
 * "GDeflate") written once for two compilers: nvcc, where one WARP decodes
 * one page and thread t is the format's lane t, and a C11 compiler, where
 * one thread plays all 32 lanes (GDD_PER lanes a thread; the cross-lane
 * steps below are loops there and warp shuffles/ballots on the GPU).
 *
 * Why one source: CI has no GPU.  Compiled for the host this file is
 * tested against the CPU engine's decoder (src/cpu/codecs/gdeflate/) on
 * real data and damaged pages, under ASan/UBSan and libFuzzer
 * (tests/c/test_gdeflate_gpu_core.c, fuzz/fuzz_codec_gdeflate.c); compiled
 * by nvcc it is the kernel's body (gdeflate_kernels.cu).
 *
 * How the warp runs the format's decoder: a "round" is one visit of every
 * lane.  Each lane decodes its symbol from its own bit buffer (registers)
 * with tables the warp built together in shared memory (inflate_huff_core.h:
 * 10-bit literal/length, 8-bit distance tables, canonical decode beyond;
 * a lane owing a distance and the others run one body, one look-up in
 * either table: decoder v4, GDEFLATE_NOTES.md);
 * a prefix sum of the lanes' output sizes places literals and matches; the
 * first lane in visit order that fails or ends the block stops the round
 * (lanes after it are not visited: their reads are dropped); the lanes that
 * need words take the next words of the page in visit order (a ballot and
 * a population count), from a window of the next 64 words the warp holds in
 * registers (decoder v3, GDEFLATE_NOTES.md; v2's reader, a load at each
 * refill, is bench/gpu/dev/gdeflate_v2_core.h).
 * Matches are copied when their lane reads the
 * distance: the short ones whose source lies before the round's first
 * match by their own lanes, all at once; the others one match at a time in
 * lane order, by the whole warp (32 bytes a step; a source that overlaps
 * its destination repeats with period `distance`).  Dynamic code lengths go the same way (a round of 32 code
 * length symbols, repeats resolved from the nearest earlier lane).
 *
 * Statuses are the CPU decoder's, check for check and in its order (the
 * first lane in visit order that fails gives the page's status): CORRUPT,
 * TRUNCATED (a consumed bit lies past src's end: words past the end read
 * as zeros, with each lane counting its real bits), OUTPUT_TOO_SMALL
 * (checked before a byte is written).  Nothing is read outside src[0..n)
 * nor written outside dst[0..cap).
 */
#ifndef OC_GDEFLATE_DEC_CORE_H
#define OC_GDEFLATE_DEC_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../deflate/inflate_huff_core.h"

#define GDD_LANES 32u
#define GDD_PER (GDD_LANES / OC_NLANES) /* format lanes per thread: 1 on the GPU, 32 on the host */
#define GDD_G(j) ((j)*OC_NLANES + OC_LANE())

/* The warp's tables in shared memory (about 6.3 KiB). */
typedef struct gdd_tables {
    uint32_t lit[1u << INF_TB];
    uint32_t dist[1u << INF_DTB]; /* the precode table while code lengths are read */
    inf_canon lcan, dcan;
    uint16_t lsyms[INF_NLIT];
    uint16_t dsyms[INF_NDIST];
    uint8_t lens[INF_NLIT + INF_NDIST]; /* litlen then distance code lengths, back to back */
} gdd_tables;

/* One lane: its bit buffer (cnt bits, the low `real` of them from src) and
 * the match whose distance it owes. */
typedef struct gdd_lane {
    uint64_t bb;
    uint32_t cnt, real;
    uint32_t pend; /* length of the match waiting for its distance, 0: none */
    size_t at;     /* where that match goes */
} gdd_lane;

/* ---- cross-lane steps (per-thread arrays of GDD_PER lanes) ------------------- */

#ifdef __CUDACC__
#define GDD_ALL 0xFFFFFFFFu
OC_CORE_FN uint32_t gdd_ballot(const int *p)
{
    return __ballot_sync(GDD_ALL, p[0]);
}
OC_CORE_FN uint32_t gdd_get32(const uint32_t *v, uint32_t g) /* lane g's v */
{
    return __shfl_sync(GDD_ALL, v[0], (int)g);
}
OC_CORE_FN size_t gdd_getsz(const size_t *v, uint32_t g)
{
    return (size_t)__shfl_sync(GDD_ALL, (unsigned long long)v[0], (int)g);
}
OC_CORE_FN void gdd_gather32(const uint32_t *v, const uint32_t *from,
                             uint32_t *out) /* out = v of lane from */
{
    out[0] = __shfl_sync(GDD_ALL, v[0], (int)from[0]);
}
/* Exclusive prefix sums of v in lane order; returns the total. */
OC_CORE_FN uint32_t gdd_scan(const uint32_t *v, uint32_t *excl)
{
    uint32_t x = v[0];
    for (uint32_t d = 1; d < 32; d <<= 1) {
        uint32_t y = __shfl_up_sync(GDD_ALL, x, d);
        if (OC_LANE() >= d)
            x += y;
    }
    excl[0] = x - v[0];
    return __shfl_sync(GDD_ALL, x, 31);
}
#else
OC_CORE_FN uint32_t gdd_ballot(const int *p)
{
    uint32_t m = 0;
    for (uint32_t j = 0; j < GDD_PER; j++)
        m |= (p[j] ? 1u : 0u) << j;
    return m;
}
OC_CORE_FN uint32_t gdd_get32(const uint32_t *v, uint32_t g)
{
    return v[g];
}
OC_CORE_FN size_t gdd_getsz(const size_t *v, uint32_t g)
{
    return v[g];
}
OC_CORE_FN void gdd_gather32(const uint32_t *v, const uint32_t *from, uint32_t *out)
{
    for (uint32_t j = 0; j < GDD_PER; j++)
        out[j] = v[from[j]];
}
OC_CORE_FN uint32_t gdd_scan(const uint32_t *v, uint32_t *excl)
{
    uint32_t s = 0;
    for (uint32_t j = 0; j < GDD_PER; j++) {
        excl[j] = s;
        s += v[j];
    }
    return s;
}
#endif

/* The lanes a round started at lane r0 visits before lane g. */
OC_CORE_FN uint32_t gdd_before(uint32_t g, uint32_t r0)
{
    uint32_t below_g = (1u << g) - 1u, below_r0 = (1u << r0) - 1u;
    return g >= r0 ? below_g & ~below_r0 : below_g | ~below_r0;
}

/* The first lane of mask m (m != 0) in a round started at r0. */
OC_CORE_FN uint32_t gdd_first(uint32_t m, uint32_t r0)
{
    uint32_t rot = r0 ? (m >> r0) | (m << (32u - r0)) : m;
    return ((uint32_t)oc_lowbit32(rot) + r0) & 31u;
}

/* ---- reading -------------------------------------------------------------------- */

/* Word k of the page (bytes 4k..4k+3 that lie in src[0..n), zeros past it);
 * *have its real bits. */
OC_CORE_FN uint32_t gdd_word(const uint8_t *src, size_t n, uint64_t k, uint32_t *have)
{
    uint64_t b = 4 * k;
    if (b >= n) {
        *have = 0;
        return 0;
    }
    uint64_t left = n - b;
    const uint8_t *p = src + b;
    if (left >= 4) {
        *have = 32;
#ifdef __CUDACC__
        if (((uintptr_t)p & 3u) == 0)
            return __ldg((const unsigned int *)p); /* the input is read-only during the kernel */
#endif
        return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    }
    uint32_t w = 0;
    for (uint32_t i = 0; i < (uint32_t)left; i++)
        w |= (uint32_t)p[i] << (8 * i);
    *have = (uint32_t)left * 8;
    return w;
}

/* The page's word stream: the next word to hand out.  The warp also holds
 * the 64 words from `base` in registers (GDEFLATE_NOTES.md, "Decoder v3"),
 * lane g words base + g (w0) and base + 32 + g (w1), so a refill is a
 * shuffle instead of a load on the round's critical path;
 * the window moves 32 words when the next word passes base + 32, loading
 * the words a window ahead (a refill takes at most 32 words, so the words
 * it takes lie below base + 64).  base itself is not kept: src and n move
 * with it. */
typedef struct gdd_in {
    const uint8_t *src; /* word `base` (src and n move with the window) */
    size_t n;           /* the page's bytes from src on (0 past its end) */
    uint32_t off;       /* the next word is base + off, off < 32 between refills */
    uint32_t w0[GDD_PER], w1[GDD_PER];
} gdd_in;

/* The real bits of word k (< 64) from src when n bytes are left there. */
OC_CORE_FN uint32_t gdd_have(size_t n, uint32_t k)
{
    uint32_t b = 4 * k;
    return b >= n ? 0 : n - b >= 4 ? 32 : (uint32_t)(n - b) * 8;
}

/* Words first + g from src into w of lane g (one window). */
OC_CORE_FN void gdd_win_load(gdd_in *in, uint32_t *w, uint32_t first)
{
    for (uint32_t j = 0; j < GDD_PER; j++) {
        uint32_t have;
        w[j] = gdd_word(in->src, in->n, first + GDD_G(j), &have);
    }
}

OC_CORE_FN void gdd_in_init(gdd_in *in, const uint8_t *src, size_t n)
{
    in->src = src;
    in->n = n;
    in->off = 0;
    gdd_win_load(in, in->w0, 0);
    gdd_win_load(in, in->w1, 32);
}

/* The lanes of `active` holding under 32 bits take the next words, one
 * each, in the visit order of a round started at r0. */
OC_CORE_FN void gdd_refill(gdd_lane *L, gdd_in *in, uint32_t active, uint32_t r0)
{
    int need[GDD_PER];
    for (uint32_t j = 0; j < GDD_PER; j++)
        need[j] = ((active >> GDD_G(j)) & 1u) && L[j].cnt < 32;
    uint32_t m = gdd_ballot(need);
    if (!m)
        return;
    uint32_t idx[GDD_PER], a[GDD_PER], b[GDD_PER];
    for (uint32_t j = 0; j < GDD_PER; j++)
        idx[j] = (in->off + oc_popc32(m & gdd_before(GDD_G(j), r0))) & 63u; /* < 64: see gdd_in */
    uint32_t lo[GDD_PER];
    for (uint32_t j = 0; j < GDD_PER; j++)
        lo[j] = idx[j] & 31u;
    gdd_gather32(in->w0, lo, a);
    gdd_gather32(in->w1, lo, b);
    for (uint32_t j = 0; j < GDD_PER; j++) {
        if (!need[j])
            continue;
        uint32_t w = idx[j] < 32 ? a[j] : b[j], have = gdd_have(in->n, idx[j]);
        if (L[j].real == L[j].cnt) /* real bits stay contiguous from the bottom */
            L[j].real += have;
        L[j].bb |= (uint64_t)w << L[j].cnt;
        L[j].cnt += 32;
    }
    in->off += oc_popc32(m);
    if (in->off >= 32) {
        for (uint32_t j = 0; j < GDD_PER; j++)
            in->w0[j] = in->w1[j];
        in->off -= 32;
        in->src += in->n >= 128 ? 128 : in->n; /* src + n stays the page's end */
        in->n -= in->n >= 128 ? 128 : in->n;
        gdd_win_load(in, in->w1, 32);
    }
}

OC_CORE_FN uint32_t gdd_take(gdd_lane *l, uint32_t nb) /* nb <= l->real, checked by the caller */
{
    uint32_t v = (uint32_t)(l->bb & (((uint64_t)1 << nb) - 1u));
    l->bb >>= nb;
    l->cnt -= nb;
    l->real -= nb;
    return v;
}

/* Lane 0 (thread 0's first lane in both builds) reads nb bits; every thread
 * gets them, or TRUNCATED. */
OC_CORE_FN oc_status gdd_pop0(gdd_lane *L, uint32_t nb, uint32_t *v)
{
    uint32_t ok = 1, val = 0;
    if (OC_LANE() == 0) {
        ok = L[0].real >= nb;
        if (ok)
            val = gdd_take(&L[0], nb);
    }
    ok = OC_WARP_BCAST(ok);
    *v = OC_WARP_BCAST(val);
    return ok ? OC_OK : OC_ERR_TRUNCATED;
}

/* What reading the code of entry e (from a lane with `real` real bits)
 * gives, in the CPU decoder's order: an unused codeword (or an empty code)
 * is refused unread, then the code's bits must be there, then a reserved
 * symbol is refused, then the extra bits must be there. */
OC_CORE_FN oc_status gdd_check(uint32_t e, uint32_t real)
{
    uint32_t k = INF_KIND(e);
    if (k == INF_K_BAD && (e & 0x1FFu) == 0)
        return OC_ERR_CORRUPT;
    if (INF_CLEN(e) > real)
        return OC_ERR_TRUNCATED;
    if (k == INF_K_BAD)
        return OC_ERR_CORRUPT;
    if (INF_TOTAL(e) > real)
        return OC_ERR_TRUNCATED;
    return OC_OK;
}

/* A lane's distance: *used bits, *dist, or the status. */
OC_CORE_FN oc_status gdd_distance(const gdd_tables *T, const gdd_lane *l, uint32_t *used, uint32_t *dist)
{
    uint32_t e = T->dist[(uint32_t)l->bb & ((1u << INF_DTB) - 1u)];
    if (INF_KIND(e) == INF_K_SLOW)
        e = inf_slow(&T->dcan, T->dsyms, INF_TABLE_GDIST, INF_DTB, l->bb);
    oc_status st = gdd_check(e, l->real);
    if (st != OC_OK)
        return st;
    uint32_t x = INF_GXTRA(e);
    *dist = (e & 0xFFFFu) + ((uint32_t)(l->bb >> INF_CLEN(e)) & ((1u << x) - 1u));
    *used = INF_TOTAL(e);
    return (size_t)*dist <= l->at ? OC_OK : OC_ERR_CORRUPT; /* before the start of the page */
}

/* The warp copies len bytes to dst + at from `dist` bytes back (all
 * written before); an overlapping source repeats with period dist. */
OC_CORE_FN void gdd_copy(uint8_t *dst, size_t at, uint32_t len, uint32_t dist)
{
    uint8_t *o = dst + at;
    const uint8_t *s = o - dist;
    if (dist >= len) {
        for (uint32_t k = OC_LANE(); k < len; k += OC_NLANES)
            o[k] = s[k];
    } else {
        for (uint32_t k = OC_LANE(); k < len; k += OC_NLANES)
            o[k] = s[k % dist];
    }
    OC_WARP_SYNC();
}

/* A lane copies its own match, GDD_SHORT bytes at most, whose source lies
 * wholly before `a0`: GDD_UNROLL loads in flight, then their stores. */
#define GDD_SHORT 32u
#define GDD_UNROLL 8u
OC_CORE_FN void gdd_copy_own(uint8_t *dst, size_t at, uint32_t len, uint32_t dist)
{
    uint8_t *o = dst + at;
    const uint8_t *s = o - dist;
    for (uint32_t k = 0; k < len; k += GDD_UNROLL) {
        uint8_t v[GDD_UNROLL];
        for (uint32_t i = 0; i < GDD_UNROLL; i++)
            v[i] = k + i < len ? s[k + i] : 0;
        for (uint32_t i = 0; i < GDD_UNROLL; i++)
            if (k + i < len)
                o[k + i] = v[i];
    }
}

/* Copies the matches of the lanes in `m`, in the visit order of a round
 * started at r0 (which is their order in the output), and clears them.
 * First every match of GDD_SHORT bytes or fewer whose source ends at or
 * before the round's first match (a0) is copied by its own lane, all at
 * once: such a source reads nothing this call writes.  Then the others
 * (sources reaching into this call's ranges, overlaps, long matches) are
 * copied one at a time by the warp, in output order, each after the ones
 * before it (GDEFLATE_NOTES.md, "v2: a round's short matches at once"). */
OC_CORE_FN void gdd_copies(gdd_lane *L, uint8_t *dst, uint32_t m, uint32_t r0, const uint32_t *dist)
{
    size_t at[GDD_PER];
    uint32_t len[GDD_PER];
    for (uint32_t j = 0; j < GDD_PER; j++) {
        at[j] = L[j].at;
        len[j] = L[j].pend;
    }
    OC_WARP_SYNC(); /* the bytes written before, by every thread */
    if (!m)
        return;
    size_t a0 = gdd_getsz(at, gdd_first(m, r0));
    int own[GDD_PER];
    for (uint32_t j = 0; j < GDD_PER; j++) {
        uint32_t g = GDD_G(j);
        own[j] = ((m >> g) & 1u) && len[j] <= GDD_SHORT && at[j] + len[j] <= a0 + dist[j];
        if (own[j]) {
            if (dst)
                gdd_copy_own(dst, at[j], len[j], dist[j]);
            L[j].pend = 0;
        }
    }
    m &= ~gdd_ballot(own);
    if (!m)
        return;
    OC_WARP_SYNC(); /* the lanes' own copies, read by the matches after them */
    while (m) {
        uint32_t g = gdd_first(m, r0);
        m &= ~(1u << g);
        size_t a = gdd_getsz(at, g);
        uint32_t ln = gdd_get32(len, g), d = gdd_get32(dist, g);
        if (dst)
            gdd_copy(dst, a, ln, d);
        for (uint32_t j = 0; j < GDD_PER; j++)
            if (GDD_G(j) == g)
                L[j].pend = 0;
    }
}

/* ---- block headers ------------------------------------------------------------------ */

/* The code lengths of a dynamic block (after BFINAL/BTYPE) and its tables. */
OC_CORE_FN oc_status gdd_dynamic(gdd_tables *T, gdd_lane *L, gdd_in *in)
{
    uint32_t h;
    oc_status st = gdd_pop0(L, 14, &h);
    if (st != OC_OK)
        return st;
    gdd_refill(L, in, 1u, 0);
    uint32_t nlit = (h & 31u) + 257, ndist = ((h >> 5) & 31u) + 1, npre = (h >> 10) + 4;
    /* the precode lengths: 3 bits in each of lanes 0..npre-1 */
    uint32_t act = (1u << npre) - 1u, pv[GDD_PER];
    int bad[GDD_PER];
    for (uint32_t j = 0; j < GDD_PER; j++) {
        uint32_t g = GDD_G(j);
        bad[j] = g < npre && L[j].real < 3;
        pv[j] = g < npre && !bad[j] ? gdd_take(&L[j], 3) : 0;
    }
    if (gdd_ballot(bad))
        return OC_ERR_TRUNCATED;
    OC_WARP_SYNC(); /* the previous block's tables are no longer read */
    for (uint32_t s = OC_LANE(); s < 19; s += OC_NLANES)
        T->lens[s] = 0;
    OC_WARP_SYNC();
    for (uint32_t j = 0; j < GDD_PER; j++)
        if (GDD_G(j) < npre)
            T->lens[rfc1951_precode_order[GDD_G(j)]] = (uint8_t)pv[j];
    OC_WARP_SYNC();
    gdd_refill(L, in, act, 0);
    st = inf_build(T->lens, 19, INF_TABLE_GPRE, T->dist, INF_PTB, &T->dcan, T->dsyms);
    if (st != OC_OK)
        return st;
    /* the code lengths: a symbol (and its extra bits) a visit, rounds from lane 0 */
    uint32_t total = nlit + ndist, i = 0, prev = 0;
    while (i < total) {
        uint32_t rep[GDD_PER], val[GDD_PER], used[GDD_PER], is16[GDD_PER];
        oc_status err[GDD_PER], xerr[GDD_PER];
        for (uint32_t j = 0; j < GDD_PER; j++) {
            const gdd_lane *l = &L[j];
            uint32_t e = T->dist[(uint32_t)l->bb & ((1u << INF_PTB) - 1u)];
            err[j] = gdd_check(e, l->real); /* the code */
            uint32_t sym = e & 0x1Fu, clen = INF_CLEN(e);
            uint32_t xb = sym == 16 ? 2 : sym == 17 ? 3 : sym == 18 ? 7 : 0;
            xerr[j] = clen + xb > l->real ? OC_ERR_TRUNCATED : OC_OK; /* its extra bits */
            uint32_t x = (uint32_t)(l->bb >> clen) & ((1u << xb) - 1u);
            rep[j] = err[j] != OC_OK || xerr[j] != OC_OK ? 0 : sym < 16 ? 1 : sym == 18 ? 11 + x : 3 + x;
            val[j] = sym < 16 ? sym : 0;
            is16[j] = err[j] == OC_OK && sym == 16;
            used[j] = clen + xb;
        }
        uint32_t ex[GDD_PER], from[GDD_PER], got[GDD_PER];
        gdd_scan(rep, ex);
        int fail[GDD_PER], vis[GDD_PER], not16[GDD_PER];
        for (uint32_t j = 0; j < GDD_PER; j++) {
            uint32_t at = i + ex[j];
            vis[j] = at < total;
            if (err[j] == OC_OK && is16[j] && at == 0)
                err[j] = OC_ERR_CORRUPT; /* nothing to repeat (refused before the extra bits are read) */
            if (err[j] == OC_OK)
                err[j] = xerr[j];
            if (err[j] == OC_OK && rep[j] > total - at)
                err[j] = OC_ERR_CORRUPT; /* a run past the last length */
            fail[j] = vis[j] && err[j] != OC_OK;
            not16[j] = !is16[j];
        }
        uint32_t fm = gdd_ballot(fail);
        if (fm) {
            uint32_t e32[GDD_PER];
            for (uint32_t j = 0; j < GDD_PER; j++)
                e32[j] = (uint32_t)err[j];
            return (oc_status)gdd_get32(e32, (uint32_t)oc_lowbit32(fm));
        }
        /* a repeat (16) takes the value of the nearest earlier lane's run */
        uint32_t n16 = gdd_ballot(not16), vm = gdd_ballot(vis);
        for (uint32_t j = 0; j < GDD_PER; j++) {
            uint32_t below = n16 & ((1u << GDD_G(j)) - 1u);
            from[j] = below ? (uint32_t)oc_highbit32(below) : GDD_G(j);
        }
        gdd_gather32(val, from, got);
        for (uint32_t j = 0; j < GDD_PER; j++) {
            if (is16[j])
                val[j] = (n16 & ((1u << GDD_G(j)) - 1u)) ? got[j] : prev;
            if (vis[j]) {
                for (uint32_t k = 0; k < rep[j]; k++)
                    T->lens[i + ex[j] + k] = (uint8_t)val[j];
                gdd_take(&L[j], used[j]);
            }
        }
        uint32_t last = (uint32_t)oc_highbit32(vm), end[GDD_PER];
        for (uint32_t j = 0; j < GDD_PER; j++)
            end[j] = i + ex[j] + rep[j];
        i = gdd_get32(end, last);
        prev = gdd_get32(val, last);
        gdd_refill(L, in, vm, 0);
    }
    OC_WARP_SYNC();
    st = inf_build(T->lens, nlit, INF_TABLE_GLIT, T->lit, INF_TB, &T->lcan, T->lsyms);
    if (st == OC_OK)
        st = inf_build(T->lens + nlit, ndist, INF_TABLE_GDIST, T->dist, INF_DTB, &T->dcan, T->dsyms);
    return st;
}

/* The fixed codes (RFC 1951 3.2.6), distance symbols 30-31 included (GDeflate's 32769 and 49153). */
OC_CORE_FN oc_status gdd_fixed(gdd_tables *T)
{
    OC_WARP_SYNC();
    for (uint32_t s = OC_LANE(); s < INF_NLIT + INF_NDIST; s += OC_NLANES)
        T->lens[s] = (uint8_t)(s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : s < 288 ? 8 : 5);
    OC_WARP_SYNC();
    oc_status st = inf_build(T->lens, INF_NLIT, INF_TABLE_GLIT, T->lit, INF_TB, &T->lcan, T->lsyms);
    if (st == OC_OK)
        st = inf_build(T->lens + INF_NLIT, INF_NDIST, INF_TABLE_GDIST, T->dist, INF_DTB, &T->dcan, T->dsyms);
    return st;
}

/* ---- a page ------------------------------------------------------------------------ */

/* The symbols of a Huffman block, through its end-of-block symbol; *eob
 * gets the lane that read it (the last round starts there). */
OC_CORE_FN oc_status gdd_huffman(const gdd_tables *T, gdd_lane *L, gdd_in *in, uint8_t *dst, size_t cap,
                                 size_t *posp, uint32_t *eob)
{
    size_t pos = *posp;
    for (;;) {
        uint32_t emit[GDD_PER], used[GDD_PER], dist[GDD_PER], lit[GDD_PER];
        int copy[GDD_PER], stop[GDD_PER];
        oc_status err[GDD_PER];
        /* One body for both kinds of visit: a lane owing a distance looks
         * its code up in the distance table, the others in the
         * literal/length table (one load from either), and the entry
         * decodes the same way (base + extra bits; gdd_distance's checks
         * in its order) */
        for (uint32_t j = 0; j < GDD_PER; j++) {
            const gdd_lane *l = &L[j];
            emit[j] = dist[j] = 0;
            lit[j] = 256;
            copy[j] = l->pend != 0;
            stop[j] = 0;
            const uint32_t *tab = copy[j] ? T->dist : T->lit;
            uint32_t e = tab[(uint32_t)l->bb & (copy[j] ? (1u << INF_DTB) - 1u : (1u << INF_TB) - 1u)];
            if (INF_KIND(e) == INF_K_SLOW)
                e = inf_slow(copy[j] ? &T->dcan : &T->lcan, copy[j] ? T->dsyms : T->lsyms,
                             copy[j] ? INF_TABLE_GDIST : INF_TABLE_GLIT, copy[j] ? INF_DTB : INF_TB, l->bb);
            err[j] = gdd_check(e, l->real);
            used[j] = INF_TOTAL(e);
            uint32_t k = INF_KIND(e);
            uint32_t val = (e & 0xFFFFu) + ((uint32_t)(l->bb >> INF_CLEN(e)) & ((1u << INF_GXTRA(e)) - 1u));
            if (copy[j]) {
                dist[j] = val;
                if (err[j] == OC_OK && (size_t)val > l->at)
                    err[j] = OC_ERR_CORRUPT; /* before the start of the page */
            } else if (err[j] == OC_OK) {
                if (k == INF_K_LIT1) {
                    emit[j] = 1;
                    lit[j] = val; /* a literal's entry: its symbol, no extra bits */
                } else if (k == INF_K_LEN) {
                    emit[j] = val;
                } else {
                    stop[j] = 1; /* end of block */
                }
            }
        }
        uint32_t ex[GDD_PER];
        uint32_t sum = gdd_scan(emit, ex);
        for (uint32_t j = 0; j < GDD_PER; j++) {
            size_t start = pos + ex[j];
            if (err[j] == OC_OK && emit[j] && (start > cap || emit[j] > cap - start))
                err[j] = OC_ERR_OUTPUT_TOO_SMALL;
            stop[j] |= err[j] != OC_OK;
        }
        uint32_t sm = gdd_ballot(stop);
        uint32_t f = sm ? (uint32_t)oc_lowbit32(sm) : 32;
        if (sm) {
            uint32_t e32[GDD_PER];
            for (uint32_t j = 0; j < GDD_PER; j++)
                e32[j] = (uint32_t)err[j];
            oc_status st = (oc_status)gdd_get32(e32, f);
            if (st != OC_OK)
                return st;
        }
        /* lanes before f visited (and f, which read the end of block) */
        uint32_t before = f < 32 ? (1u << f) - 1u : 0xFFFFFFFFu;
        int cp[GDD_PER];
        for (uint32_t j = 0; j < GDD_PER; j++) {
            uint32_t g = GDD_G(j);
            cp[j] = copy[j] && g < f;
            if (g > f)
                continue;
            gdd_lane *l = &L[j];
            gdd_take(l, used[j]);
            if (g == f)
                continue;
            size_t start = pos + ex[j];
            if (lit[j] < 256) {
                if (dst)
                    dst[start] = (uint8_t)lit[j];
            } else if (emit[j]) {
                l->pend = emit[j];
                l->at = start;
            }
        }
        gdd_copies(L, dst, gdd_ballot(cp), 0, dist);
        pos += f < 32 ? gdd_get32(ex, f) : sum;
        OC_WARP_SYNC(); /* this round's literals, for the next round's copies */
        gdd_refill(L, in, before, 0);
        if (f < 32) {
            *posp = pos;
            *eob = f;
            return OC_OK;
        }
    }
}

/* The last round of a block, from lane r0: the lanes owing a distance read
 * it and copy their match; every lane is refilled. */
OC_CORE_FN oc_status gdd_last_round(const gdd_tables *T, gdd_lane *L, gdd_in *in, uint8_t *dst, uint32_t r0)
{
    uint32_t used[GDD_PER] = {0}, dist[GDD_PER] = {0}, e32[GDD_PER];
    int bad[GDD_PER], cp[GDD_PER];
    for (uint32_t j = 0; j < GDD_PER; j++) {
        cp[j] = L[j].pend != 0;
        oc_status st = cp[j] ? gdd_distance(T, &L[j], &used[j], &dist[j]) : OC_OK;
        e32[j] = (uint32_t)st;
        bad[j] = st != OC_OK;
    }
    uint32_t bm = gdd_ballot(bad);
    if (bm)
        return (oc_status)gdd_get32(e32, gdd_first(bm, r0));
    for (uint32_t j = 0; j < GDD_PER; j++)
        if (cp[j])
            gdd_take(&L[j], used[j]);
    gdd_copies(L, dst, gdd_ballot(cp), r0, dist);
    gdd_refill(L, in, 0xFFFFFFFFu, r0);
    return OC_OK;
}

/* A stored block after BFINAL/BTYPE: LEN in lane 0, bytes round-robin. */
OC_CORE_FN oc_status gdd_stored(gdd_lane *L, gdd_in *in, uint8_t *dst, size_t cap, size_t *posp, uint32_t *r0)
{
    uint32_t len;
    oc_status st = gdd_pop0(L, 16, &len);
    if (st != OC_OK)
        return st;
    size_t pos = *posp;
    if (len > cap - pos)
        return OC_ERR_OUTPUT_TOO_SMALL;
    for (uint32_t b = 0; b < len; b += GDD_LANES) {
        uint32_t m = len - b >= GDD_LANES ? 0xFFFFFFFFu : (1u << (len - b)) - 1u;
        int bad[GDD_PER];
        uint32_t v[GDD_PER];
        for (uint32_t j = 0; j < GDD_PER; j++) {
            uint32_t g = GDD_G(j);
            bad[j] = ((m >> g) & 1u) && L[j].real < 8;
            v[j] = ((m >> g) & 1u) && !bad[j] ? gdd_take(&L[j], 8) : 0;
            if (((m >> g) & 1u) && dst)
                dst[pos + b + g] = (uint8_t)v[j];
        }
        if (gdd_ballot(bad))
            return OC_ERR_TRUNCATED;
        gdd_refill(L, in, m, 0);
    }
    *posp = pos + len;
    *r0 = len % GDD_LANES;
    return OC_OK;
}

/* gdd_decode decodes one page src[0..n) into dst[0..cap): OK with *out the
 * decoded size; CORRUPT, TRUNCATED or OUTPUT_TOO_SMALL otherwise (*out 0),
 * exactly as the CPU engine's gd_decode.  dst NULL decodes without writing
 * (the size query; cap is then ignored).  Every thread of the warp calls
 * it and gets the same status and size; T is the warp's. */
OC_CORE_FN oc_status gdd_decode(gdd_tables *T, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                size_t *out)
{
    gdd_lane L[GDD_PER];
    for (uint32_t j = 0; j < GDD_PER; j++) {
        L[j].bb = 0;
        L[j].cnt = L[j].real = L[j].pend = 0;
        L[j].at = 0;
    }
    gdd_in in;
    gdd_in_init(&in, src, n);
    gdd_refill(L, &in, 0xFFFFFFFFu, 0);
    if (!dst)
        cap = SIZE_MAX;
    size_t pos = 0;
    *out = 0;
    for (;;) {
        uint32_t hdr, r0 = 0;
        oc_status st = gdd_pop0(L, 3, &hdr);
        if (st != OC_OK)
            return st;
        gdd_refill(L, &in, 1u, 0);
        uint32_t type = hdr >> 1;
        if (type == 0) {
            st = gdd_stored(L, &in, dst, cap, &pos, &r0);
        } else if (type == 3) {
            st = OC_ERR_CORRUPT;
        } else {
            st = type == 2 ? gdd_dynamic(T, L, &in) : gdd_fixed(T);
            if (st == OC_OK)
                st = gdd_huffman(T, L, &in, dst, cap, &pos, &r0);
        }
        if (st == OC_OK)
            st = gdd_last_round(T, L, &in, dst, r0);
        if (st != OC_OK)
            return st;
        if (hdr & 1u)
            break;
    }
    OC_WARP_SYNC(); /* the output, written by every thread */
    *out = pos;
    return OC_OK;
}

#endif /* OC_GDEFLATE_DEC_CORE_H */
