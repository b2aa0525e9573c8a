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
 *
 *   lz_big_cpu_check [--chunk BYTES] [--nw WARPS] FILE...
 */
#include <lz4.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <chrono>
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
static int deps; /* --deps: v14b's readiness by the records the source overlaps */

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
        else if (!strcmp(argv[i], "--nw") && i + 1 < argc)
            nw = atoi(argv[++i]);
        else
            files.push_back(argv[i]);
    }
    for (int snappy = 0; snappy < 2; snappy++) {
        rounds_total = tiles_total = max_rounds = 0;
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
                if (sim_copy(comp.data(), recs.data(), (uint32_t)nrec, out.data(), (uint32_t)outn, nw) ||
                    memcmp(out.data(), &data[off], un) != 0) {
                    fprintf(stderr, "%s @%zu: output differs\n", fn, off);
                    bad = 1;
                }
                recs_total += (long long)nrec;
                chunks++;
            }
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
    }
    printf("lz_big_cpu_check: %s\n", bad || races ? "FAILED" : "OK");
    return bad || races ? 1 : 0;
}
