/*
 * lz_big_cpu_check.cpp - v14's copy rounds (dev_lz_big.cuh, bench/NOTES.md
 * "v14") simulated on the CPU, no GPU needed: the kernel's schedule (tiles
 * of NW x 32 x OC_BIG_R records, literals first, then rounds of matches
 * ready below hwm or in their own thread's final run, lanes of a warp
 * slot by slot) run sequentially with a race detector: every byte a copy
 * reads must have been written in an earlier round, or earlier in this
 * round by the same warp in an earlier slot (a __syncwarp lies between), or
 * earlier by the same record (a short copy, ascending).  The records come
 * from v7b's parallel parse (dev_lz_split_pp.h's passes as loops) of each
 * chunk compressed by liblz4 / snappy; the output must equal the input.
 * Prints the rounds a tile needs (the cost model of the prediction).
 * --warp (v15a, session 12): the warp-ordered copy (each warp its tiles in
 * order, waiting on other warps' published progress) in lock step, with the
 * chunk's ideal depth; --flow (v15, dev_lz_flow.cuh): the copy by flag
 * bytes in lock step; --flowl (v15b): the same after every literal.  Both check every byte they read and the
 * output.
 *
 *   lz_big_cpu_check [--chunk BYTES] [--nw WARPS] [--deps|--warp|--flow|--flowl] FILE...
 */
#include <lz4.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <chrono>
#include <algorithm>
#include <vector>

static long long pp_rewalks;
#define OC_PP_REWALKS pp_rewalks

#define __restrict__
#include "dev_lz_split_pp.h"

#ifndef R
#define R 4 /* OC_BIG_R */
#endif
#define SHORT 32u

/* CPU time of the passes (ns): A's longest segment and all of A, B, C's longest segment, D */
static double t_a_max, t_a_sum, t_b, t_c_max, t_d;
static long long segs_total;
static double now_ns(void)
{
    return (double)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static int parse_pp(int snappy, const uint8_t *src, size_t srcn, size_t cap, oc_split_rec *out_recs,
                    size_t *nrec, size_t *outn)
{
    size_t nseg = oc_pp_nsegs(srcn);
    std::vector<oc_split_rec> recs(nseg * OC_PP_SEG_RECS);
    std::vector<uint32_t> pos(nseg * OC_PP_SEG_RECS), cum(nseg * OC_PP_SEG_RECS);
    std::vector<oc_pp_seg> segs(nseg);
    oc_pp_chunk ch;
    memset(&ch, 0, sizeof ch);
    double ta_max_chunk = 0, tc_max_chunk = 0;
    double t0 = now_ns();
    for (size_t k = 0; k < nseg; k++) {
        double a0 = now_ns();
        oc_pp_pass_a(snappy, src, srcn, cap, k, &recs[k * OC_PP_SEG_RECS], &pos[k * OC_PP_SEG_RECS],
                     &cum[k * OC_PP_SEG_RECS], &segs[k]);
        double a1 = now_ns() - a0;
        if (a1 > ta_max_chunk)
            ta_max_chunk = a1;
    }
    double t1 = now_ns();
    oc_pp_pass_b(snappy, src, srcn, cap, nseg, recs.data(), pos.data(), cum.data(), segs.data(), &ch);
    double t2 = now_ns();
    for (size_t k = 0; k < nseg; k++) {
        double c0 = now_ns();
        oc_pp_pass_c(snappy, cap, k, recs.data(), &segs[k], &ch, out_recs);
        double c1 = now_ns() - c0;
        if (c1 > tc_max_chunk)
            tc_max_chunk = c1;
    }
    double t3 = now_ns();
    t_a_sum += t1 - t0, t_b += t2 - t1;
    t_a_max += ta_max_chunk, t_c_max += tc_max_chunk;
    segs_total += (long long)nseg;
    (void)t3;
    double d0 = now_ns();
    int st = oc_pp_pass_d(snappy, src, srcn, cap, &ch, out_recs, nrec, outn);
    t_d += now_ns() - d0;
    return st;
}

static long long races;
static long long rounds_total, tiles_total;
static long long max_rounds;
static int warp_mode; /* --warp: v15's warp-ordered copy (sim_warp) */
static int deps;      /* --deps: v14b's readiness by the records the source overlaps */

/* written: the round a byte was written in (-1: not yet), by which warp, in which slot */
struct wmark {
    int round, warp, slot;
    uint32_t rec;
};

static int sim_copy(const uint8_t *src, const oc_split_rec *cr, uint32_t n, uint8_t *dst, uint32_t outn,
                    int nw)
{
    const uint32_t nthr = (uint32_t)nw * 32, tile = nthr * R;
    std::vector<wmark> wm(outn, wmark{-1, -1, -1, 0});
    uint32_t base = 0;
    int G = 0; /* rounds so far, over all tiles (marks compare across tiles) */
    auto rd = [&](uint32_t q, int round, int warp, int slot, uint32_t rec, bool own_ok) {
        const wmark &m = wm[q];
        bool ok = m.round >= 0 && (m.round < round || (m.round == round && m.warp == warp && m.slot < slot) ||
                                   (own_ok && m.round == round && m.rec == rec && m.slot == slot));
        if (!ok && races++ < 5)
            fprintf(stderr,
                    "race: byte %u read in round %d (warp %d slot %d), written round %d warp %d slot %d\n", q,
                    round, warp, slot, m.round, m.warp, m.slot);
        return dst[q];
    };
    for (uint32_t t0 = 0; t0 < n; t0 += tile) {
        std::vector<uint32_t> lo(tile), ll(tile), ls(tile), mo(tile), ml(tile), myend(nthr);
        std::vector<uint32_t> pend(nthr, 0);
        uint32_t o = base;
        for (uint32_t t = 0; t < nthr; t++) {
            for (int r = 0; r < R; r++) {
                uint32_t i = t0 + t * R + r, k = t * R + r;
                oc_split_rec x = {0, 0, 0, 0};
                if (i < n)
                    x = cr[i];
                ls[k] = x.lit_src, ll[k] = x.lit_len, mo[k] = x.m_off, ml[k] = x.m_len, lo[k] = o;
                o += x.lit_len + x.m_len;
                if (x.m_len)
                    pend[t] |= 1u << r;
            }
            myend[t] = o;
        }
        base = o;
        for (uint32_t k = 0; k < tile; k++)
            for (uint32_t j = 0; j < ll[k]; j++) {
                dst[lo[k] + j] = src[ls[k] + j];
                wm[lo[k] + j] = wmark{G, -1, -1, k};
            }
        int round = G;
        std::vector<int> done(tile, 0); /* the round record k's match was copied in (0: pending) */
        for (;;) {
            round++;
            std::vector<uint32_t> f(nthr);
            uint32_t hwm = 0xffffffffu;
            for (uint32_t t = 0; t < nthr; t++) {
                f[t] = myend[t];
                for (int r = R - 1; r >= 0; r--)
                    if (pend[t] >> r & 1)
                        f[t] = lo[t * R + r] + ll[t * R + r];
                if (pend[t] && f[t] < hwm)
                    hwm = f[t];
            }
            if (hwm == 0xffffffffu)
                break;
            for (int w = 0; w < nw; w++)
                for (int r = 0; r < R; r++) {
                    /* short copies of the slot's lanes, then long ones by the warp (after a __syncwarp) */
                    std::vector<int> rdy(32);
                    for (int pass = 0; pass < 2; pass++)
                        for (int l = 0; l < 32; l++) {
                            uint32_t t = (uint32_t)w * 32 + l, k = t * R + r;
                            uint32_t lo0 = lo[t * R];
                            uint32_t mp = lo[k] + ll[k], from = mp - mo[k];
                            uint32_t end = mo[k] < ml[k] ? mp : from + ml[k];
                            if (pass == 0) {
                                rdy[l] = (pend[t] >> r & 1) &&
                                         (end <= hwm || (end <= f[t] && (from >= lo0 || lo0 <= hwm)));
                                if (deps && (pend[t] >> r & 1) && !rdy[l]) {
                                    /* every tile record whose match part overlaps [from, end) copied before
                                       this round, or by this warp in an earlier slot of it */
                                    bool ok = true;
                                    if (end > lo[0]) {
                                        uint32_t a = 0,
                                                 b = tile; /* last record with lo <= max(from, lo[0]) */
                                        uint32_t x = from > lo[0] ? from : lo[0];
                                        while (b - a > 1) {
                                            uint32_t m = (a + b) / 2;
                                            if (lo[m] <= x)
                                                a = m;
                                            else
                                                b = m;
                                        }
                                        for (uint32_t q = a; q < tile && lo[q] < end && ok; q++) {
                                            uint32_t qs = lo[q] + ll[q], qe = qs + ml[q];
                                            if (ml[q] == 0 || qe <= from || qs >= end)
                                                continue;
                                            int dr = done[q];
                                            uint32_t qt = q / R;
                                            ok = dr &&
                                                 (dr < round || ((int)(qt / 32) == w && (int)(q % R) < r));
                                        }
                                    }
                                    rdy[l] = ok;
                                }
                            }
                            if (!rdy[l])
                                continue;
                            bool lng = ml[k] > SHORT;
                            if (lng != (pass == 1))
                                continue;
                            for (uint32_t j = 0; j < ml[k]; j++) {
                                uint32_t q = lng && mo[k] < ml[k] ? from + j % mo[k] : from + j;
                                dst[mp + j] = rd(q, round, w, 2 * r + pass, k, !lng);
                                wm[mp + j] = wmark{round, w, 2 * r + pass, k};
                            }
                        }
                    for (int l = 0; l < 32; l++) { /* the lanes' state after the slot */
                        uint32_t t = (uint32_t)w * 32 + l, k = t * R + r;
                        if (!rdy[l])
                            continue;
                        pend[t] &= ~(1u << r);
                        done[k] = round;
                        if (f[t] == lo[k] + ll[k]) {
                            f[t] = myend[t];
                            for (int q = R - 1; q > r; q--)
                                if (pend[t] >> q & 1)
                                    f[t] = lo[t * R + q] + ll[t * R + q];
                        }
                    }
                }
        }
        rounds_total += round - 1 - G;
        tiles_total++;
        if (round - 1 - G > max_rounds)
            max_rounds = round - 1 - G;
        G = round;
    }
    return base == outn ? 0 : -1;
}

/* v15 (session 12, bench/NOTES.md "v15"): the warp-ordered copy simulated in lock step.  A tile is now
 * 32 x R records of ONE warp; tile k belongs to warp k % nw, each warp takes its tiles in order.  A step
 * of a warp is either a tile's start (the warp's scan and its literals) or one round of its matches
 * (slots 0..R-1, a __syncwarp between, short copies by their lane then long ones by the warp).  A match
 * is ready when (i) the part of its source inside its own tile lies below the warp's hwm (the tile's
 * first pending match, at the round's start) or in its lane's own final run (v14's rule), and (ii) the
 * part before its tile is final by the owners' PUBLISHED progress (end of the previous step): tile j,
 * owner j % nw, is final to position P when the owner works on a later tile, or on j with hwm >= P.
 * Every read is checked as in sim_copy (written in an earlier step, or earlier in this step by the same
 * warp in an earlier sub-slot, or by the same short copy).  Counts: steps a chunk (the makespan), the
 * same schedule with one warp (serial), rounds where a warp copied nothing (waits: on another warp's
 * progress or on its own tile), matches whose source reaches before their tile, and of those the ones
 * that found it not yet final (cross waits) with their distance in tiles. */
static long long w_depth, w_steps, w_steps1, w_rounds, w_wait_x, w_wait_own, w_xref, w_xwait, w_xdist,
    w_matches;
static int sim_warp(const uint8_t *src, const oc_split_rec *cr, uint32_t n, uint8_t *dst, uint32_t outn,
                    int nw, long long *steps_out, int count)
{
    const uint32_t T = 32u * R, nt = (n + T - 1) / T;
    std::vector<uint32_t> ts(nt + 1, 0);
    for (uint32_t k = 0, i = 0; k < nt; k++) {
        uint32_t o = ts[k];
        for (uint32_t q = 0; q < T && i < n; q++, i++)
            o += cr[i].lit_len + cr[i].m_len;
        ts[k + 1] = o;
    }
    if (ts[nt] != outn)
        return -1;
    struct wm2 {
        long long step;
        int warp, sub;
        uint32_t rec;
    };
    std::vector<wm2> wm(outn, wm2{-1, -1, -1, 0});
    struct wst {
        uint32_t k; /* current tile */
        int phase;  /* 0: start the tile, 1: rounds */
        uint32_t pend[32];
        uint32_t hwm; /* published: own tile final to here (ts[k] when the tile is not started) */
    };
    std::vector<wst> W(nw), P(nw);
    for (int w = 0; w < nw; w++) {
        W[w].k = (uint32_t)w, W[w].phase = 0, W[w].hwm = w < (int)nt ? ts[w] : outn;
        memset(W[w].pend, 0, sizeof W[w].pend);
    }
    auto rec = [&](uint32_t k, uint32_t q) { /* record q (0..T-1) of tile k */
                                             uint32_t i = k * T + q;
                                             oc_split_rec x = {0, 0, 0, 0};
                                             if (i < n)
                                                 x = cr[i];
                                             return x;
    };
    auto xfinal = [&](uint32_t from, uint32_t e,
                      uint32_t k) { /* [from, e) before tile k, by P */
                                    uint32_t j = k;
                                    while (j > 0 && ts[j] > from)
                                        j--;
                                    for (; j < k && ts[j] < e; j++) {
                                        const wst &o = P[j % nw];
                                        uint32_t need = e < ts[j + 1] ? e : ts[j + 1];
                                        if (!(o.k > j || (o.k == j && o.phase == 1 && o.hwm >= need)))
                                            return false;
                                    }
                                    return true;
    };
    long long step = 0;
    int live = nw;
    while (live > 0) {
        step++;
        P = W;
        live = 0;
        for (int w = 0; w < nw; w++) {
            wst &s = W[w];
            if (s.k >= nt)
                continue;
            live++;
            uint32_t k = s.k, t0 = ts[k];
            if (s.phase == 0) { /* scan and literals */
                uint32_t o = t0;
                for (uint32_t q = 0; q < T; q++) {
                    oc_split_rec x = rec(k, q);
                    for (uint32_t j = 0; j < x.lit_len; j++) {
                        dst[o + j] = src[x.lit_src + j];
                        wm[o + j] = wm2{step, w, -1, q};
                    }
                    o += x.lit_len + x.m_len;
                    if (x.m_len)
                        s.pend[q / R] |= 1u << (q % R);
                }
                s.phase = 1;
            } else { /* a round */
                uint32_t lo[T], f[32], hwm = 0xffffffffu, myend[32];
                for (uint32_t q = 0, o = t0; q < T; q++) {
                    oc_split_rec x = rec(k, q);
                    lo[q] = o;
                    o += x.lit_len + x.m_len;
                    if (q % R == R - 1)
                        myend[q / R] = o;
                }
                for (int l = 0; l < 32; l++) {
                    f[l] = myend[l];
                    for (int r = R - 1; r >= 0; r--)
                        if (s.pend[l] >> r & 1)
                            f[l] = lo[l * R + r] + rec(k, l * R + r).lit_len;
                    if (s.pend[l] && f[l] < hwm)
                        hwm = f[l];
                }
                int copied = 0, xblocked = 0;
                for (int r = 0; r < R; r++) {
                    int rdy[32];
                    for (int pass = 0; pass < 2; pass++)
                        for (int l = 0; l < 32; l++) {
                            uint32_t q = (uint32_t)l * R + r;
                            oc_split_rec x = rec(k, q);
                            uint32_t mp = lo[q] + x.lit_len, from = mp - x.m_off;
                            uint32_t end = x.m_off < x.m_len ? mp : from + x.m_len;
                            if (pass == 0) {
                                rdy[l] = 0;
                                if (!(s.pend[l] >> r & 1))
                                    continue;
                                uint32_t lo0 = lo[l * R];
                                bool own =
                                    end <= t0 || end <= hwm || (end <= f[l] && (from >= lo0 || lo0 <= hwm));
                                bool xr = from < t0, xo = !xr || xfinal(from, end < t0 ? end : t0, k);
                                rdy[l] = own && xo;
                                if (!xo)
                                    xblocked = 1;
                            }
                            if (!rdy[l])
                                continue;
                            bool lng = x.m_len > SHORT;
                            if (lng != (pass == 1))
                                continue;
                            for (uint32_t j = 0; j < x.m_len; j++) {
                                uint32_t qq = lng && x.m_off < x.m_len ? from + j % x.m_off : from + j;
                                const wm2 &m = wm[qq];
                                int sub = 2 * r + pass;
                                bool ok =
                                    m.step >= 0 && (m.step < step || (m.warp == w && m.sub < sub) ||
                                                    (!lng && m.warp == w && m.rec == q && m.sub == sub));
                                if (!ok && races++ < 5)
                                    fprintf(stderr,
                                            "v15 race: byte %u read step %lld warp %d, written %lld %d\n", qq,
                                            step, w, m.step, m.warp);
                                dst[mp + j] = dst[qq];
                                wm[mp + j] = wm2{step, w, sub, q};
                            }
                        }
                    for (int l = 0; l < 32; l++) {
                        uint32_t q = (uint32_t)l * R + r;
                        if (!rdy[l])
                            continue;
                        copied++;
                        s.pend[l] &= ~(1u << r);
                        oc_split_rec x = rec(k, q);
                        if (f[l] == lo[q] + x.lit_len) {
                            f[l] = myend[l];
                            for (int qq = R - 1; qq > r; qq--)
                                if (s.pend[l] >> qq & 1)
                                    f[l] = lo[l * R + qq] + rec(k, l * R + qq).lit_len;
                        }
                    }
                }
                if (count) {
                    w_rounds++;
                    if (!copied)
                        (xblocked ? w_wait_x : w_wait_own)++;
                }
            }
            /* publish: the tile's hwm after this step, or the next tile */
            uint32_t h = 0xffffffffu;
            uint32_t o = t0;
            for (uint32_t q = 0; q < T; q++) {
                oc_split_rec x = rec(k, q);
                if ((s.pend[q / R] >> (q % R) & 1) && o + x.lit_len < h)
                    h = o + x.lit_len;
                o += x.lit_len + x.m_len;
            }
            if (h == 0xffffffffu && s.phase == 1) {
                s.k += (uint32_t)nw, s.phase = 0;
                s.hwm = s.k < nt ? ts[s.k] : outn;
            } else
                s.hwm = h == 0xffffffffu ? ts[k] : h;
        }
    }
    if (count) {
        /* the ideal: a match's depth is 1 + the deepest byte it reads (literals 0); the chunk's depth is the
           fewest rounds any schedule of whole-match copies needs */
        std::vector<uint16_t> dep(outn, 0);
        long long dmax = 0;
        for (uint32_t i = 0, o = 0; i < n; i++) {
            oc_split_rec x = cr[i];
            uint32_t mp = o + x.lit_len, from = mp - x.m_off;
            o += x.lit_len + x.m_len;
            if (!x.m_len)
                continue;
            uint32_t end = x.m_off < x.m_len ? mp : from + x.m_len;
            uint32_t d = 0;
            for (uint32_t q = from; q < end; q++)
                d = dep[q] > d ? dep[q] : d;
            d = d + 1 > 65535 ? 65535 : d + 1;
            for (uint32_t j = 0; j < x.m_len; j++)
                dep[mp + j] = (uint16_t)d;
            if (d > dmax)
                dmax = d;
        }
        w_depth += dmax;
        /* static counts: matches whose source reaches before their tile, and how far */
        for (uint32_t k = 0; k < nt; k++)
            for (uint32_t q = 0, o = ts[k]; q < T; q++) {
                oc_split_rec x = rec(k, q);
                uint32_t mp = o + x.lit_len, from = mp - x.m_off;
                o += x.lit_len + x.m_len;
                if (!x.m_len)
                    continue;
                w_matches++;
                if (from < ts[k]) {
                    uint32_t j = k;
                    while (j > 0 && ts[j] > from)
                        j--;
                    w_xref++;
                    w_xdist += k - j;
                    if (k - j < (uint32_t)nw)
                        w_xwait++; /* its source's tile may be in flight (owned by another live warp) */
                }
            }
    }
    *steps_out = step - 1;
    return 0;
}

/* v15 (dev_lz_flow.cuh) simulated in lock step: warp w takes batches k = w, w + nw, ... of 32 records;
 * a step of a warp is either a batch's start (its scan, the chain word, its literals and their flags;
 * the chain needs batch k - 1's start published in an earlier step) or one poll of its pending
 * matches: each lane whose source bytes all have flags set in an earlier step copies its match (lane
 * copies read and write in the same step as the kernel: after the poll).  Flags are set at the end of
 * the step.  Counts the makespan in steps, the polls, the polls in which the warp copied nothing, and
 * checks the output. */
static long long f_steps, f_polls, f_idle, f_chainwait;
static int sim_flow(const uint8_t *src, const oc_split_rec *cr, uint32_t n, uint8_t *dst, uint32_t outn,
                    int nw, int lit1)
{
    const uint32_t nb = (n + 31) / 32;
    std::vector<long long> fl(outn, -1);         /* the step a byte's flag was set in */
    std::vector<long long> chain_at(nb + 1, -1); /* the step batch k's start was published in */
    std::vector<uint32_t> bstart(nb + 1, 0);
    chain_at[0] = 0;
    if (lit1) { /* v15b: every literal (and every batch's start) before the first step */
        uint32_t o = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (i % 32 == 0)
                bstart[i / 32] = o, chain_at[i / 32] = 0;
            memcpy(dst + o, src + cr[i].lit_src, cr[i].lit_len);
            for (uint32_t j = 0; j < cr[i].lit_len; j++)
                fl[o + j] = 0;
            o += cr[i].lit_len + cr[i].m_len;
        }
        bstart[nb] = o;
    }
    struct fw {
        uint32_t k;
        int phase; /* 0: start, 1: polls */
        uint32_t pend, lo[32];
    };
    std::vector<fw> W(nw);
    for (int w = 0; w < nw; w++)
        W[w].k = (uint32_t)w, W[w].phase = 0, W[w].pend = 0;
    long long step = 0;
    int live = nw;
    std::vector<std::pair<uint32_t, uint32_t>> setf; /* flags set at the end of this step */
    while (live) {
        step++;
        live = 0;
        setf.clear();
        std::vector<int> ord(nw); /* the chain costs no step: warps in batch order, a start may follow its
                                     predecessor's start in the same step */
        for (int w = 0; w < nw; w++)
            ord[w] = w;
        std::sort(ord.begin(), ord.end(), [&](int a, int b2) { return W[a].k < W[b2].k; });
        for (int wi = 0; wi < nw; wi++) {
            fw &s = W[ord[wi]];
            if (s.k >= nb)
                continue;
            live++;
            if (s.phase == 0) {
                if (chain_at[s.k] < 0 || chain_at[s.k] > step) {
                    f_chainwait++;
                    continue;
                }
                uint32_t o = bstart[s.k];
                for (int l = 0; l < 32; l++) {
                    uint32_t i = s.k * 32 + l;
                    oc_split_rec x = i < n ? cr[i] : oc_split_rec{0, 0, 0, 0};
                    s.lo[l] = o;
                    if (!lit1) {
                        memcpy(dst + o, src + x.lit_src, x.lit_len);
                        setf.push_back({o, x.lit_len});
                    }
                    if (x.m_len)
                        s.pend |= 1u << l;
                    o += x.lit_len + x.m_len;
                }
                if (!lit1)
                    bstart[s.k + 1] = o, chain_at[s.k + 1] = step;
                s.phase = 1;
                if (!s.pend) {
                    s.k += (uint32_t)nw, s.phase = 0;
                    continue;
                }
                if (!lit1)
                    continue; /* v15b: the batch's load is part of its first poll */
            }
            f_polls++;
            uint32_t got = 0;
            for (int l = 0; l < 32; l++) {
                if (!(s.pend >> l & 1))
                    continue;
                oc_split_rec x = cr[s.k * 32 + l];
                uint32_t mp = s.lo[l] + x.lit_len, from = mp - x.m_off;
                uint32_t end = x.m_off < x.m_len ? mp : from + x.m_len;
                bool ok = true;
                for (uint32_t q = from; q < end && ok; q++)
                    ok = fl[q] >= 0 && fl[q] < step;
                if (ok)
                    got |= 1u << l;
            }
            for (int l = 0; l < 32; l++) {
                if (!(got >> l & 1))
                    continue;
                oc_split_rec x = cr[s.k * 32 + l];
                uint32_t mp = s.lo[l] + x.lit_len, from = mp - x.m_off;
                for (uint32_t j = 0; j < x.m_len; j++)
                    dst[mp + j] = dst[x.m_off < x.m_len ? from + j % x.m_off : from + j];
                setf.push_back({mp, x.m_len});
            }
            if (!got)
                f_idle++;
            s.pend &= ~got;
            if (!s.pend)
                s.k += (uint32_t)nw, s.phase = 0;
        }
        for (auto &r : setf)
            for (uint32_t j = 0; j < r.second; j++)
                fl[r.first + j] = step;
    }
    f_steps += step - 1;
    for (uint32_t q = 0; q < outn; q++)
        if (fl[q] < 0)
            return -1;
    return bstart[nb] == outn ? 0 : -1;
}

int main(int argc, char **argv)
{
    size_t chunk = 1 << 20;
    int nw = 8, bad = 0;
    std::vector<const char *> files;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--chunk") && i + 1 < argc)
            chunk = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--deps"))
            deps = 1;
        else if (!strcmp(argv[i], "--flow"))
            warp_mode = 2;
        else if (!strcmp(argv[i], "--flowl"))
            warp_mode = 3;
        else if (!strcmp(argv[i], "--warp"))
            warp_mode = 1;
        else if (!strcmp(argv[i], "--nw") && i + 1 < argc)
            nw = atoi(argv[++i]);
        else
            files.push_back(argv[i]);
    }
    for (int snappy = 0; snappy < 2; snappy++) {
        rounds_total = tiles_total = max_rounds = 0;
        f_steps = f_polls = f_idle = f_chainwait = 0;
        w_depth = w_steps = w_steps1 = w_rounds = w_wait_x = w_wait_own = w_xref = w_xwait = w_xdist =
            w_matches = 0;
        t_a_max = t_a_sum = t_b = t_c_max = t_d = 0, segs_total = pp_rewalks = 0;
        long long recs_total = 0, chunks = 0;
        for (const char *fn : files) {
            FILE *fp = fopen(fn, "rb");
            if (!fp)
                return 2;
            std::vector<uint8_t> data;
            uint8_t buf[1 << 16];
            size_t got;
            while ((got = fread(buf, 1, sizeof buf, fp)) > 0)
                data.insert(data.end(), buf, buf + got);
            fclose(fp);
            long long fr = rounds_total, ft = tiles_total;
            for (size_t off = 0; off < data.size(); off += chunk) {
                size_t un = data.size() - off < chunk ? data.size() - off : chunk;
                size_t bound = snappy ? snappy_max_compressed_length(un) : (size_t)LZ4_compressBound((int)un);
                std::vector<uint8_t> comp(bound), out(un + 1);
                size_t cn = bound;
                if (snappy)
                    snappy_compress((const char *)&data[off], un, (char *)comp.data(), &cn);
                else
                    cn = (size_t)LZ4_compress_default((const char *)&data[off], (char *)comp.data(), (int)un,
                                                      (int)bound);
                std::vector<oc_split_rec> recs(OC_SPLIT_MAX_RECS(cn));
                size_t nrec = 0, outn = 0;
                int st = parse_pp(snappy, comp.data(), cn, un, recs.data(), &nrec, &outn);
                if (st != OC_SPLIT_OK || outn != un) {
                    fprintf(stderr, "%s @%zu: parse status %d size %zu\n", fn, off, st, outn);
                    bad = 1;
                    continue;
                }
                if (warp_mode >= 2) {
                    if (sim_flow(comp.data(), recs.data(), (uint32_t)nrec, out.data(), (uint32_t)outn, nw,
                                 warp_mode == 3))
                        bad = 1;
                } else if (warp_mode) {
                    long long s1 = 0, sn = 0;
                    std::vector<uint8_t> o1(un + 1);
                    if (sim_warp(comp.data(), recs.data(), (uint32_t)nrec, out.data(), (uint32_t)outn, nw,
                                 &sn, 1) ||
                        sim_warp(comp.data(), recs.data(), (uint32_t)nrec, o1.data(), (uint32_t)outn, 1, &s1,
                                 0) ||
                        memcmp(o1.data(), &data[off], un) != 0) {
                        fprintf(stderr, "%s @%zu: v15 output differs\n", fn, off);
                        bad = 1;
                    }
                    w_steps += sn, w_steps1 += s1;
                } else if (sim_copy(comp.data(), recs.data(), (uint32_t)nrec, out.data(), (uint32_t)outn, nw))
                    bad = 1;
                if (memcmp(out.data(), &data[off], un) != 0) {
                    fprintf(stderr, "%s @%zu: output differs\n", fn, off);
                    bad = 1;
                }
                recs_total += (long long)nrec;
                chunks++;
            }
            if (warp_mode)
                continue;
            printf("  %-6s %-28s rounds a tile %.1f\n", snappy ? "snappy" : "lz4",
                   strrchr(fn, '/') ? strrchr(fn, '/') + 1 : fn,
                   tiles_total > ft ? (double)(rounds_total - fr) / (double)(tiles_total - ft) : 0.0);
        }
        printf("%s, %zu-byte chunks, %d warps: %lld chunks, %.1f records a chunk, %lld tiles, %.1f rounds a "
               "tile "
               "(max %lld), races %lld\n",
               snappy ? "snappy" : "lz4", chunk, nw, chunks,
               chunks ? (double)recs_total / (double)chunks : 0.0, tiles_total,
               tiles_total ? (double)rounds_total / (double)tiles_total : 0.0, max_rounds, races);
        printf(
            "  parse passes, CPU us a chunk: A's longest segment %.1f (all segments %.1f), B (serial) %.1f, "
            "C's longest segment %.1f, D %.1f; segments %.1f a chunk, rewalked in B %.2f%%\n",
            chunks ? t_a_max / 1e3 / (double)chunks : 0.0, chunks ? t_a_sum / 1e3 / (double)chunks : 0.0,
            chunks ? t_b / 1e3 / (double)chunks : 0.0, chunks ? t_c_max / 1e3 / (double)chunks : 0.0,
            chunks ? t_d / 1e3 / (double)chunks : 0.0, chunks ? (double)segs_total / (double)chunks : 0.0,
            segs_total ? 100.0 * (double)pp_rewalks / (double)segs_total : 0.0);
        if (warp_mode >= 2 && chunks)
            printf("  v15%s flow, %d warps, batches of 32 records: steps a chunk %.0f, polls %.0f a chunk "
                   "(%.0f a "
                   "warp), of which idle %.1f%%; chain waits %.0f a chunk\n",
                   warp_mode == 3 ? "b (literals first)" : "", nw, (double)f_steps / chunks,
                   (double)f_polls / chunks, (double)f_polls / chunks / nw,
                   f_polls ? 100.0 * f_idle / f_polls : 0.0, (double)f_chainwait / chunks);
        if (warp_mode == 1 && chunks)
            printf(
                "  v15 warp-ordered, %d warps, tiles of %d records: steps a chunk %.0f (one warp %.0f: "
                "%.2fx); "
                "rounds %.0f a chunk, waits on another warp %.1f%%, on its own tile %.1f%%; matches %.0f a "
                "chunk, source before its tile %.1f%% (of those within %d tiles %.1f%%, mean distance %.2f "
                "tiles); ideal depth (rounds of whole matches) %.0f a chunk\n",
                nw, 32 * R, (double)w_steps / chunks, (double)w_steps1 / chunks,
                w_steps ? (double)w_steps1 / (double)w_steps : 0.0, (double)w_rounds / chunks,
                w_rounds ? 100.0 * w_wait_x / w_rounds : 0.0, w_rounds ? 100.0 * w_wait_own / w_rounds : 0.0,
                (double)w_matches / chunks, w_matches ? 100.0 * w_xref / w_matches : 0.0, nw,
                w_xref ? 100.0 * w_xwait / w_xref : 0.0, w_xref ? (double)w_xdist / w_xref : 0.0,
                (double)w_depth / chunks);
    }
    printf("lz_big_cpu_check: %s\n", bad || races ? "FAILED" : "OK");
    return bad || races ? 1 : 0;
}
