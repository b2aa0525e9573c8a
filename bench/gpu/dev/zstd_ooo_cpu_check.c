/*
 * zstd_ooo_cpu_check.c - the host check of v9's execution rule (zstd_dec_ooo.cuh, bench/gpu/zstd/
 * NOTES.md "Run 11"), before any GPU time: E threads stand for the E executor warps and run the
 * same schedule (a frame's batches round-robin, a raw/RLE block or a block without sequences one
 * unit; literals and ready independent matches first; the rest after the frontier covers the bytes
 * they read before the batch; publish the next unit's start, or the block's end), with the same
 * frontier (the minimum of the threads' published positions, C11 atomics, acquire/release).
 *
 * What it guards: every byte a copy reads must already be written (a per-byte written map, set
 * after each byte store with release, checked with acquire before each byte load; a read of an
 * unwritten byte is counted as a violation, whatever value it happened to find), and each frame's
 * output must equal libzstd's input.  Random pauses shuffle the threads' interleaving.  The entropy
 * step is the library's (zd_pf_entropy, into a slot per block: the ring's reuse is not what is
 * checked here), and the batch starts are recomputed the way oo_batch_starts does (sums of 32).
 * Frames: libzstd level 3 (and -1, 19) frames of 1 MiB and 4 MiB of every file given; each with v9's
 * rule and with v9s's (write stamps: a late match also runs once each source byte carries its stamp).
 *
 *   zstd_ooo_cpu_check [--stats] FILE...   exit 0 only if every frame matched with no violation;
 *     --stats: per file, what waits per batch (late_stats) and a napkin model of a frame's execution
 *     time in dependent round trips under four schedules (model_frame; MA and MP overridable with -D)
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "cuda/codecs/zstd/zstd_dec_frame.h"

typedef struct emu_frame {
    const uint8_t *src;
    zd_bp_frame f;
    zd_bp_block *blk;
    uint8_t **slot;    /* per block: literals, sequences */
    uint32_t **starts; /* per compressed block: batch i's (bop, lp) at [2i], [2i+1] */
    uint8_t *out;
    atomic_uchar *wr; /* byte written */
    size_t cap;
    int nexec;
    atomic_uint pub[8];
    atomic_int fail;
    atomic_ulong viol;
    atomic_ushort *stamp; /* v9s: OO_W write stamps (NULL: v9) */
} emu_frame;

typedef struct emu_arg {
    emu_frame *fr;
    uint32_t w;
    uint32_t total;
    int ok;
    unsigned rng;
} emu_arg;

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

static void pause_some(unsigned *s)
{
    unsigned r = rnd(s) & 63;
    if (r < 4)
        sched_yield();
    else if (r < 8)
        for (volatile unsigned k = 0; k < 200 * r; k++)
            ;
}

static uint32_t frontier(emu_frame *fr)
{
    uint32_t m = 0xFFFFFFFFu;
    for (int v = 0; v < fr->nexec; v++) {
        uint32_t p = atomic_load_explicit(&fr->pub[v], memory_order_acquire);
        m = p < m ? p : m;
    }
    return m;
}

static void publish(emu_frame *fr, uint32_t w, uint32_t p)
{
    uint32_t old = atomic_load_explicit(&fr->pub[w], memory_order_relaxed);
    if (p > old)
        atomic_store_explicit(&fr->pub[w], p, memory_order_release);
}

/* out[d + i] = from(i) with the written map: the source byte s must be written */
static void put(emu_frame *fr, size_t d, uint8_t v)
{
    fr->out[d] = v;
    atomic_store_explicit(&fr->wr[d], 1, memory_order_release);
}
static uint8_t get(emu_frame *fr, size_t s)
{
    if (!atomic_load_explicit(&fr->wr[s], memory_order_acquire))
        atomic_fetch_add(&fr->viol, 1);
    return fr->out[s];
}
static void copy_match(emu_frame *fr, size_t d, uint32_t off, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        put(fr, d + i, get(fr, d + i - off));
}
static void copy_lit(emu_frame *fr, size_t d, const uint8_t *s, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        put(fr, d + i, s[i]);
}

static int wait_for(emu_frame *fr, uint32_t need)
{
    while (frontier(fr) < need) {
        if (atomic_load(&fr->fail))
            return 0;
        sched_yield();
    }
    return 1;
}

/* v9s's stamps, as zstd_dec_ooo.cuh keeps them */
#define OO_WLOG 14
#define OO_W (1u << OO_WLOG)
static unsigned short ep(uint32_t y)
{
    return (unsigned short)(0x8000u | ((y >> OO_WLOG) & 0x7FFFu));
}
static void stamp(emu_frame *fr, uint32_t d, uint32_t len)
{
    if (!fr->stamp)
        return;
    if (len > OO_W) {
        d += len - OO_W;
        len = OO_W;
    }
    for (uint32_t i = 0; i < len; i++)
        atomic_store_explicit(&fr->stamp[(d + i) & (OO_W - 1)], ep(d + i), memory_order_release);
}
static int ready(emu_frame *fr, uint32_t s, uint32_t e, uint32_t f)
{
    if (e <= f)
        return 1;
    if (!fr->stamp)
        return 0;
    if (s < f)
        s = f;
    if (e - s > 64)
        return 0;
    for (uint32_t y = s; y < e; y++)
        if (atomic_load_explicit(&fr->stamp[y & (OO_W - 1)], memory_order_acquire) != ep(y))
            return 0;
    return 1;
}

static void *exec_thread(void *p)
{
    emu_arg *a = (emu_arg *)p;
    emu_frame *fr = a->fr;
    const uint32_t E = (uint32_t)fr->nexec, w = a->w;
    uint32_t rep[3] = {1, 4, 8}, pos = 0, g = 0;
    zd_tables *T = (zd_tables *)malloc(sizeof(zd_tables));
    a->ok = 0;
    for (uint32_t b = 0; b < fr->f.nb; b++) {
        const zd_bp_block *bk = &fr->blk[b];
        if (bk->type != 2) {
            if (bk->bsize > fr->cap - pos)
                goto out;
            if (g % E == w) {
                pause_some(&a->rng);
                for (uint32_t j = 0; j < bk->bsize; j++)
                    put(fr, pos + j, bk->type == 1 ? fr->src[bk->src] : fr->src[bk->src + j]);
                stamp(fr, pos, bk->bsize);
            }
            g++;
            pos += bk->bsize;
            publish(fr, w, pos);
            continue;
        }
        if (!bk->ok || bk->dsize > fr->cap - pos)
            goto out;
        uint32_t init[3], nr[3];
        for (int k = 0; k < 3; k++) {
            init[k] = rep[k];
            nr[k] = zd_bp_rep(bk->rep[k], rep);
            if (nr[k] == 0)
                goto out;
        }
        const uint8_t *lit = bk->lit_src ? fr->src + bk->lit_src - 1 : fr->slot[b];
        const zd_bp_seq *sq = (const zd_bp_seq *)(fr->slot[b] + ((bk->lsize + 15) & ~15u));
        const uint32_t *starts = fr->starts[b];
        uint32_t nseq = bk->nseq, nbt = (nseq + 31) / 32, units = nbt ? nbt : 1;
        for (uint32_t i = (w + E - g % E) % E; i < units; i += E) {
            pause_some(&a->rng);
            if (nbt == 0) {
                copy_lit(fr, pos, lit, bk->lsize);
                stamp(fr, pos, bk->lsize);
                break;
            }
            uint32_t bop = starts[2 * i], lp = starts[2 * i + 1], b0 = bop;
            publish(fr, w, pos + bop);
            uint32_t cnt = nseq - i * 32 < 32 ? nseq - i * 32 : 32;
            uint32_t mpos[32], off[32], ml[32];
            for (uint32_t t = 0; t < cnt; t++) {
                zd_bp_seq s = sq[i * 32 + t];
                off[t] = zd_bp_rep(s.off, init);
                uint32_t op = zd_stage_seq(T, t, cnt, s.ll, s.ml, off[t], &bop, &lp);
                if (off[t] == 0 || (uint64_t)off[t] > (uint64_t)pos + op + s.ll)
                    goto out;
                mpos[t] = op + s.ll;
                ml[t] = s.ml;
            }
            for (uint32_t t = 0; t < cnt; t++) /* literals */
                copy_lit(fr, pos + T->sq_op[t], lit + T->sq_lp[t], T->sq_ll[t]);
            uint32_t fr0 = frontier(fr), need = 0, bstart = pos + b0;
            int now[32], indep[32];
            for (uint32_t t = 0; t < cnt; t++) {
                indep[t] = zd_match_indep(mpos[t], off[t], ml[t], b0);
                uint32_t ss = pos + mpos[t] - off[t], se = ss + ml[t];
                now[t] = ml[t] == 0 || (indep[t] && ready(fr, ss, se, fr0));
                if (now[t])
                    copy_match(fr, pos + mpos[t], off[t], ml[t]);
                else if (ss < bstart) {
                    uint32_t x = se < bstart ? se : bstart;
                    need = x > need ? x : need;
                }
            }
            for (uint32_t t = 0; t < cnt; t++) {
                stamp(fr, pos + T->sq_op[t], T->sq_ll[t]);
                if (now[t])
                    stamp(fr, pos + mpos[t], ml[t]);
            }
            if (fr->stamp) { /* v9s: each deferred match once its own source bytes are written */
                for (int left = 1; left;) {
                    left = 0;
                    int did = 0;
                    uint32_t f = frontier(fr);
                    for (uint32_t t = 0; t < cnt; t++) {
                        if (now[t] || !indep[t])
                            continue;
                        uint32_t ss = pos + mpos[t] - off[t];
                        if (ready(fr, ss, ss + ml[t], f)) {
                            copy_match(fr, pos + mpos[t], off[t], ml[t]);
                            stamp(fr, pos + mpos[t], ml[t]);
                            now[t] = did = 1;
                        } else {
                            left = 1;
                        }
                    }
                    if (left && !did) {
                        if (atomic_load(&fr->fail))
                            goto out;
                        sched_yield();
                    }
                }
                for (uint32_t t = 0; t < cnt; t++) {
                    if (indep[t])
                        continue;
                    uint32_t ss = pos + mpos[t] - off[t], se = ss + ml[t] < bstart ? ss + ml[t] : bstart;
                    while (ss < bstart && !ready(fr, ss, se, frontier(fr))) {
                        if (atomic_load(&fr->fail))
                            goto out;
                        sched_yield();
                    }
                    copy_match(fr, pos + mpos[t], off[t], ml[t]);
                    stamp(fr, pos + mpos[t], ml[t]);
                }
            } else {
                if (!wait_for(fr, need))
                    goto out;
                for (uint32_t t = 0; t < cnt; t++)
                    if (!now[t] && indep[t])
                        copy_match(fr, pos + mpos[t], off[t], ml[t]);
                for (uint32_t t = 0; t < cnt; t++)
                    if (!indep[t])
                        copy_match(fr, pos + mpos[t], off[t], ml[t]);
            }
            if (i == nbt - 1) {
                copy_lit(fr, pos + bop, lit + lp, bk->lsize - lp);
                stamp(fr, pos + bop, bk->lsize - lp);
            }
        }
        for (int k = 0; k < 3; k++)
            rep[k] = nr[k];
        g += units;
        pos += bk->dsize;
        publish(fr, w, pos);
    }
    a->total = pos;
    a->ok = 1;
out:
    if (!a->ok)
        atomic_store(&fr->fail, 1);
    free(T);
    return NULL;
}

/* --stats: per batch of 32, what waits under v9 if the E - 1 batches before it are still running (the
 * frontier at the start of batch k - E + 1): in-batch dependent matches (zd_match_indep false, run in
 * order), independent matches deferred (source ending past that frontier), batches that wait at all */
static int g_stats;
static double g_st[4][6]; /* E = 1..4: batches, dependent, deferred, waiting, deferred or dependent
                           * reading literal bytes only (what a literal-aware frontier could free) */

static void late_stats(const emu_frame *fr)
{
    uint32_t rep[3] = {1, 4, 8}, fpos = 0;
    /* which output bytes are literal (or raw/RLE block) bytes: prefix counts, lit[p] = such bytes below p */
    uint32_t *lit = (uint32_t *)calloc(fr->cap + 1, sizeof(uint32_t));
    for (uint32_t b = 0, q = 0; b < fr->f.nb && lit; b++) {
        const zd_bp_block *bk = &fr->blk[b];
        if (bk->type != 2) {
            for (uint32_t j = 0; j < bk->bsize && q < fr->cap; j++, q++)
                lit[q + 1] = lit[q] + 1;
            continue;
        }
        if (!bk->ok)
            break;
        const zd_bp_seq *sq = (const zd_bp_seq *)(fr->slot[b] + ((bk->lsize + 15) & ~15u));
        uint32_t lp = 0;
        for (uint32_t j = 0; j <= bk->nseq; j++) {
            uint32_t ll = j < bk->nseq ? sq[j].ll : bk->lsize - lp, ml = j < bk->nseq ? sq[j].ml : 0;
            lp += ll;
            for (uint32_t t = 0; t < ll + ml && q < fr->cap; t++, q++)
                lit[q + 1] = lit[q] + (t < ll);
        }
    }
    for (uint32_t b = 0; b < fr->f.nb && lit; b++) {
        const zd_bp_block *bk = &fr->blk[b];
        uint32_t bpos = fpos;
        fpos += bk->type == 2 ? bk->dsize : bk->bsize;
        if (bk->type != 2 || !bk->ok)
            continue;
        uint32_t init[3] = {rep[0], rep[1], rep[2]};
        for (int k = 0; k < 3; k++)
            rep[k] = zd_bp_rep(bk->rep[k], init);
        if (bk->nseq == 0)
            continue;
        const zd_bp_seq *sq = (const zd_bp_seq *)(fr->slot[b] + ((bk->lsize + 15) & ~15u));
        uint32_t nbt = (bk->nseq + 31) / 32;
        for (uint32_t i = 0; i < nbt; i++) {
            uint32_t b0 = fr->starts[b][2 * i], op = b0;
            uint32_t dep = 0, def[4] = {0, 0, 0, 0}, ldep = 0, ldef[4] = {0, 0, 0, 0};
            for (uint32_t j = i * 32; j < bk->nseq && j < i * 32 + 32; j++) {
                uint32_t off = zd_bp_rep(sq[j].off, init), mpos = op + sq[j].ll, ml = sq[j].ml;
                op += sq[j].ll + ml;
                uint32_t ss = bpos + mpos - off, litsrc = off >= ml && lit[ss + ml] - lit[ss] == ml;
                if (!zd_match_indep(mpos, off, ml, b0)) {
                    dep++;
                    ldep += litsrc;
                    continue;
                }
                for (uint32_t e = 1; e <= 4; e++) {
                    uint32_t k = i >= e - 1 ? i - (e - 1) : 0;
                    uint32_t fro = fr->starts[b][2 * k];
                    int d = (int64_t)mpos - off + ml > (int64_t)fro && e > 1;
                    def[e - 1] += d;
                    ldef[e - 1] += d && litsrc;
                }
            }
            for (int e = 0; e < 4; e++) {
                g_st[e][0] += 1;
                g_st[e][1] += dep;
                g_st[e][2] += def[e];
                g_st[e][3] += dep || def[e];
                g_st[e][4] += ldef[e];
                g_st[e][5] += ldep;
            }
        }
    }
    free(lit);
}

/* --model: a frame's execution time in dependent memory round trips, per schedule (a napkin, not a
 * simulator of the GPU): each batch of 32 costs MA rounds (stage, literals, the ready independent
 * matches), then one round for its deferred independent matches (if any) and one per in-order match;
 * a publish is seen MP rounds later.  "in order" = v8's one executor; "v9" = E warps round-robin, late
 * matches waiting for the contiguous frontier; "v9 seq" = the same with each late match waiting only
 * for the sequences that wrote its source bytes (per-sequence readiness, a design not built). */
#ifndef MA
#define MA 3.0
#endif
#ifndef MP
#define MP 1.0
#endif
static double g_model[4][9]; /* [in order, v9, v9 seq][E] summed over frames */

static void model_frame(const emu_frame *fr)
{
    /* the frame's sequences in order: frame position, ll, ml, off; batch of each */
    size_t ns = 0;
    for (uint32_t b = 0; b < fr->f.nb; b++)
        ns += fr->blk[b].type == 2 && fr->blk[b].ok ? fr->blk[b].nseq : 0;
    uint32_t *mp = malloc(ns * sizeof(uint32_t)), *so = malloc(ns * sizeof(uint32_t)),
             *ml = malloc(ns * sizeof(uint32_t)), *bs = malloc((ns / 32 + fr->f.nb + 2) * sizeof(uint32_t)),
             *bi = malloc(ns * sizeof(uint32_t)), *bf = malloc((ns / 32 + fr->f.nb + 2) * sizeof(uint32_t));
    double *fin = malloc(ns * sizeof(double)), *done = malloc((ns / 32 + fr->f.nb + 2) * sizeof(double));
    uint32_t *wr = calloc(fr->cap + 1, sizeof(uint32_t)); /* writer sequence + 1 of each match byte */
    if (!mp || !so || !ml || !bs || !bi || !bf || !fin || !done || !wr)
        exit(2);
    uint32_t rep[3] = {1, 4, 8}, pos = 0, q = 0, nb = 0;
    for (uint32_t b = 0; b < fr->f.nb; b++) {
        const zd_bp_block *bk = &fr->blk[b];
        if (bk->type != 2) {
            pos += bk->bsize;
            continue;
        }
        uint32_t init[3] = {rep[0], rep[1], rep[2]};
        for (int k = 0; k < 3; k++)
            rep[k] = zd_bp_rep(bk->rep[k], init);
        const zd_bp_seq *sq = (const zd_bp_seq *)(fr->slot[b] + ((bk->lsize + 15) & ~15u));
        uint32_t op = pos;
        for (uint32_t j = 0; j < bk->nseq; j++, q++) {
            if (j % 32 == 0) {
                bf[nb] = q;
                bs[nb++] = op;
            }
            bi[q] = nb - 1;
            mp[q] = op + sq[j].ll;
            ml[q] = sq[j].ml;
            so[q] = mp[q] - zd_bp_rep(sq[j].off, init);
            for (uint32_t t = 0; t < ml[q]; t++)
                wr[mp[q] + t] = q + 1;
            op += sq[j].ll + sq[j].ml;
        }
        pos += bk->dsize;
    }
    bs[nb] = pos;
    for (int v = 0; v < 4; v++)
        for (uint32_t E = 1; E <= 8; E++) {
            if ((v == 0) != (E == 1))
                continue;
            double tw[8] = {0}, front_t = 0; /* front_t: when all batches before the current one are done */
            uint32_t k0 = 0;
            for (uint32_t k = 0; k < nb; k++) {
                uint32_t w = k % E;
                double s0 = tw[w], t = s0 + MA;
                /* the contiguous frontier at t: the batches done (in order) by then */
                while (k0 < k && done[k0] + MP <= t)
                    k0++;
                uint32_t fpos = bs[k0];
                int anydef = 0;
                double last = t;
                for (uint32_t x = bf[k]; x < ns && bi[x] == k; x++) {
                    int indep = zd_match_indep(mp[x] - bs[k], mp[x] - so[x], ml[x], 0);
                    if (indep && so[x] + ml[x] <= fpos && E > 1) {
                        fin[x] = t;
                        continue;
                    }
                    if (E == 1) {
                        fin[x] = indep ? t : (last += 1.0);
                        continue;
                    }
                    double ready;
                    if (v == 1) {
                        ready = k ? done[k - 1] + MP : 0; /* approximately: everything before the batch */
                        if (so[x] >= bs[k])
                            ready = 0;
                    } else if (v == 2) {
                        ready = 0;
                        for (uint32_t y = so[x]; y < so[x] + ml[x] && y < mp[x]; y++)
                            if (wr[y] && wr[y] - 1 != x && bi[wr[y] - 1] != k)
                                ready = fin[wr[y] - 1] + MP > ready ? fin[wr[y] - 1] + MP : ready;
                    } else { /* per batch: the batches holding the source bytes */
                        ready = 0;
                        for (uint32_t y = so[x]; y < so[x] + ml[x] && y < bs[k]; y++) {
                            uint32_t j = k;
                            while (j > 0 && bs[j] > y)
                                j--;
                            ready = done[j] + MP > ready ? done[j] + MP : ready;
                        }
                    }
                    if (indep) {
                        anydef = 1;
                        fin[x] = (ready > t ? ready : t) + 1.0;
                        last = fin[x] > last ? fin[x] : last;
                    } else {
                        double st = ready > last ? ready : last;
                        fin[x] = st + 1.0;
                        last = fin[x];
                    }
                }
                (void)anydef;
                done[k] = last > t ? last : t;
                if (k && done[k] < done[k - 1] && v == 1)
                    done[k] = done[k - 1]; /* the frontier is contiguous */
                tw[w] = done[k];
                front_t = done[k] > front_t ? done[k] : front_t;
            }
            g_model[v][E] += front_t;
        }
    free(mp);
    free(so);
    free(ml);
    free(bs);
    free(bi);
    free(bf);
    free(fin);
    free(done);
    free(wr);
}

/* one frame with E executor threads: 1 if it decoded to ref with no violation */
static int check_frame(const uint8_t *z, size_t zn, const uint8_t *ref, size_t rn, int E, int S,
                       unsigned seed, unsigned long *viol)
{
    emu_frame fr;
    memset(&fr, 0, sizeof fr);
    fr.src = z;
    fr.cap = rn;
    fr.nexec = E;
    zd_bp_frame f2;
    if (!zd_bp_scan(z, zn, rn, &fr.f, NULL)) {
        fprintf(stderr, "frame not on the path\n");
        return 0;
    }
    fr.blk = (zd_bp_block *)calloc(fr.f.nb, sizeof(zd_bp_block));
    zd_bp_scan(z, zn, rn, &f2, fr.blk);
    fr.slot = (uint8_t **)calloc(fr.f.nb, sizeof(uint8_t *));
    fr.starts = (uint32_t **)calloc(fr.f.nb, sizeof(uint32_t *));
    fr.out = (uint8_t *)malloc(rn + 1);
    fr.wr = (atomic_uchar *)calloc(rn + 1, 1);
    fr.stamp = S ? (atomic_ushort *)calloc(OO_W, sizeof(atomic_ushort)) : NULL;
    zd_tables *T = (zd_tables *)malloc(sizeof(zd_tables));
    for (uint32_t b = 0; b < fr.f.nb; b++) {
        zd_bp_block *bk = &fr.blk[b];
        if (bk->type != 2)
            continue;
        uint64_t need = zd_pf_slot_need(bk);
        fr.slot[b] = (uint8_t *)malloc(need + 16);
        zd_pf_entropy(T, z, &fr.f, bk, fr.slot[b], need + 16, bk);
        uint32_t nbt = (bk->nseq + 31) / 32, o = 0, l = 0;
        fr.starts[b] = (uint32_t *)malloc((2 * nbt + 1) * sizeof(uint32_t));
        const zd_bp_seq *sq = (const zd_bp_seq *)(fr.slot[b] + ((bk->lsize + 15) & ~15u));
        for (uint32_t i = 0; bk->ok && i < nbt; i++) {
            fr.starts[b][2 * i] = o;
            fr.starts[b][2 * i + 1] = l;
            for (uint32_t j = i * 32; j < bk->nseq && j < i * 32 + 32; j++) {
                o += sq[j].ll + sq[j].ml;
                l += sq[j].ll;
            }
        }
    }
    if (g_stats && E == 1 && !S) {
        late_stats(&fr);
        model_frame(&fr);
    }
    pthread_t th[8];
    emu_arg arg[8];
    for (int w = 0; w < E; w++) {
        arg[w].fr = &fr;
        arg[w].w = (uint32_t)w;
        arg[w].rng = seed * 7919u + (unsigned)w;
        pthread_create(&th[w], NULL, exec_thread, &arg[w]);
    }
    int ok = 1;
    for (int w = 0; w < E; w++) {
        pthread_join(th[w], NULL);
        ok &= arg[w].ok && arg[w].total == rn;
    }
    ok = ok && zd_pf_end(T, z, &fr.f, fr.out, rn) && memcmp(fr.out, ref, rn) == 0;
    *viol += atomic_load(&fr.viol);
    ok = ok && atomic_load(&fr.viol) == 0;
    for (uint32_t b = 0; b < fr.f.nb; b++) {
        free(fr.slot[b]);
        free(fr.starts[b]);
    }
    free(fr.slot);
    free(fr.starts);
    free(fr.blk);
    free(fr.out);
    free((void *)fr.wr);
    free((void *)fr.stamp);
    free(T);
    return ok;
}

int main(int argc, char **argv)
{
    int bad = 0, frames = 0;
    unsigned long viol = 0;
    static const int levels[3] = {3, -1, 19};
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--stats")) {
            g_stats = 1;
            continue;
        }
        memset(g_st, 0, sizeof g_st);
        memset(g_model, 0, sizeof g_model);
        FILE *fp = fopen(argv[a], "rb");
        if (!fp) {
            fprintf(stderr, "cannot open %s\n", argv[a]);
            return 2;
        }
        size_t cap = (size_t)8 << 20;
        uint8_t *data = (uint8_t *)malloc(cap);
        size_t n = fread(data, 1, cap, fp);
        fclose(fp);
        for (int li = 0; li < 3; li++) {
            for (size_t cs = (size_t)1 << 20; cs <= ((size_t)4 << 20); cs <<= 2) {
                /* level 19 is slow on 2 shared cores: one 1 MiB frame a file */
                for (size_t p = 0; p + cs <= n && !(li == 2 && (cs > (1u << 20) || p > 0)); p += cs) {
                    size_t zc = ZSTD_compressBound(cs);
                    uint8_t *z = (uint8_t *)malloc(zc);
                    ZSTD_CCtx *cc = ZSTD_createCCtx();
                    ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, levels[li]);
                    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
                    size_t zn = ZSTD_compress2(cc, z, zc, data + p, cs);
                    ZSTD_freeCCtx(cc);
                    if (ZSTD_isError(zn))
                        return 2;
                    for (int E = 1; E <= 5; E += (cs > (1u << 20) ? 3 : 1))
                        for (int S = 0; S <= 1; S++) {
                            frames++;
                            if (!check_frame(z, zn, data + p, cs, E, S, (unsigned)(frames + p), &viol)) {
                                bad++;
                                fprintf(stderr, "FAIL %s level %d chunk %zu at %zu, %d executors%s\n",
                                        argv[a], levels[li], cs, p, E, S ? ", stamps (v9s)" : "");
                            }
                        }
                    free(z);
                }
            }
        }
        free(data);
        if (g_stats)
            printf("  model (rounds a frame, summed): in order %.0f; v9 E=2 %.2fx, 4 %.2fx, 8 %.2fx; per "
                   "batch E=2 "
                   "%.2fx, 4 %.2fx, 8 %.2fx; per sequence E=2 %.2fx, 4 %.2fx, 8 %.2fx\n",
                   g_model[0][1], g_model[0][1] / g_model[1][2], g_model[0][1] / g_model[1][4],
                   g_model[0][1] / g_model[1][8], g_model[0][1] / g_model[3][2],
                   g_model[0][1] / g_model[3][4], g_model[0][1] / g_model[3][8],
                   g_model[0][1] / g_model[2][2], g_model[0][1] / g_model[2][4],
                   g_model[0][1] / g_model[2][8]);
        for (int e = 0; g_stats && e < 4; e++)
            printf("  E=%d: per batch %.2f dependent (%.2f reading literal bytes only), %.2f deferred "
                   "independent "
                   "(%.2f), %.1f%% of batches wait\n",
                   e + 1, g_st[e][1] / g_st[e][0], g_st[e][5] / g_st[e][0], g_st[e][2] / g_st[e][0],
                   g_st[e][4] / g_st[e][0], 100 * g_st[e][3] / g_st[e][0]);
        printf("%s: %d frame runs so far, %d failed, %lu reads of unwritten bytes\n", argv[a], frames, bad,
               viol);
        fflush(stdout);
    }
    printf(bad ? "FAILED\n" : "all frames matched, every read after its write\n");
    return bad != 0;
}
