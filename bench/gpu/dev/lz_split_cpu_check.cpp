/*
 * lz_split_cpu_check.cpp - the split decoder's logic (v7,
 * dev_lz_split_parse.h and dev_lz_split_copy.cuh) checked on the CPU, no
 * GPU needed: (1) the parse core, compiled as plain C, on every chunk of
 * the given files compressed by liblz4 and snappy, its records executed
 * one after another must rebuild the chunk; damaged copies (truncated, a
 * byte changed, a short output) must never decode OK where the reference
 * fails, nor differently where both succeed; (2) the copy half itself,
 * the .cuh compiled for the host with a warp emulator (32 threads, each
 * warp intrinsic a pair of barriers), on the first chunks of every file,
 * for each ring size the harness measures; (3) the parallel parse
 * (dev_lz_split_pp.h, passes A-D as loops) on the same chunks: its records
 * rebuild every chunk, the copy emulated on them too, and every damaged
 * chunk gets the serial parse's status.  Run under -fsanitize=address
 * (or thread) by the Makefile's check-split target.
 *
 * (4) the shared-memory parse's steps (v8, dev_lz_smem_parse.h) driven one
 * lane at a time through windows of 32, 64 and 256 bytes at varied
 * alignments, on every chunk and damaged chunk: the same statuses, sizes
 * and records as the serial parse; (5) the warp function itself
 * (dev_lz_smem_warp.cuh: refills, thresholds, slow phases) on the
 * emulator, 32 chunks of each of the first --smem-emu files, as they are
 * and damaged, against the serial parse.
 *
 *   lz_split_cpu_check [--chunk BYTES] [--emu-chunks N] [--smem-emu FILES] FILE...
 */
#include <initializer_list>
#include <lz4.h>
#include <pthread.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the warp emulator: what dev_lz_split_copy.cuh needs of CUDA ---- */
#define OC_SPLIT_EMU 1
#define OC_SPLIT_DEV static inline
#define OC_SPLIT_FULL 0xffffffffu
#define __restrict__
#define __ldg(p) (*(p))

static pthread_barrier_t emu_bar;
static uint64_t emu_slot[32];
static thread_local int emu_lane;

static inline void __syncwarp(void)
{
    pthread_barrier_wait(&emu_bar);
}
template <typename T> static inline T emu_exchange(T v, int from)
{
    emu_slot[emu_lane] = (uint64_t)v;
    pthread_barrier_wait(&emu_bar);
    T r = (T)emu_slot[from & 31];
    pthread_barrier_wait(&emu_bar);
    return r;
}
template <typename T> static inline T __shfl_sync(unsigned, T v, int from)
{
    return emu_exchange(v, from);
}
template <typename T> static inline T __shfl_up_sync(unsigned, T v, int d)
{
    T r = emu_exchange(v, emu_lane >= d ? emu_lane - d : emu_lane);
    return r;
}
static inline unsigned emu_fold(uint64_t mine, int is_or_of_preds)
{
    emu_slot[emu_lane] = mine;
    pthread_barrier_wait(&emu_bar);
    unsigned r = 0;
    for (int i = 0; i < 32; i++)
        r |= is_or_of_preds ? (emu_slot[i] ? 1u << i : 0u) : (unsigned)emu_slot[i];
    pthread_barrier_wait(&emu_bar);
    return r;
}
static inline unsigned __ballot_sync(unsigned, int pred)
{
    return emu_fold(pred != 0, 1);
}
static inline unsigned __reduce_or_sync(unsigned, unsigned v)
{
    return emu_fold(v, 0);
}
static inline int __ffs(unsigned x)
{
    return __builtin_ffs((int)x);
}
static inline int __popc(unsigned x)
{
    return __builtin_popcount(x);
}

static size_t pp_rewalks, pp_segs, pp_doubts, pp_valid_rewalks, pp_valid_segs;
#define OC_PP_REWALKS pp_rewalks
#include "dev_lz_split_copy.cuh"
#include "dev_lz_split_pp.h"
#include "dev_lz_smem_warp.cuh"
#if defined(__has_include)
#if __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>
#endif
#endif
#ifndef ASAN_POISON_MEMORY_REGION
#define ASAN_POISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(a, n) ((void)(a), (void)(n))
#endif

/* (4) the shared-memory parse's steps (dev_lz_smem_parse.h) driven as the
 * warp drives them, one lane alone: a window of W bytes from the 16-byte
 * aligned address at or below the phase that missed (the address's low
 * bits are `mis` + the position, as if src were misaligned by mis), the
 * step again from the whole stream when a phase is longer than a window.
 * Returns the status; *nrec, *outn as the serial parse. */
static size_t smem_refills, smem_slow;
static int smem_host_parse(int snappy, const uint8_t *src, size_t srcn, size_t cap, uint32_t W, uint32_t mis,
                           oc_split_rec *recs, size_t *nrec, size_t *outn)
{
    static uint8_t win[4096];
    oc_smem_st s;
    oc_smem_init(&s);
    uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;
    int need = srcn > 0;
    for (;;) {
        if (need) {
            uint32_t off = (mis + s.ip) & 15;
            int64_t lo = (int64_t)s.ip - off;
            memset(win, 0xa5, W);
            for (int64_t p = lo < 0 ? 0 : lo; p < lo + W && p < (int64_t)srcn; p++)
                win[p - lo] = src[p];
            wshift = s.ip - off;
            whi = (uint64_t)(lo + W) < srcn ? (uint32_t)(lo + W) : (uint32_t)srcn;
            refill_at = s.ip;
            need = 0;
            smem_refills++;
        }
        int r = snappy ? oc_smem_snappy_step(&s, win, wshift, whi, (uint32_t)srcn, (uint32_t)cap, recs)
                       : oc_smem_lz4_step(&s, win, wshift, whi, (uint32_t)srcn, (uint32_t)cap, recs);
        if (r == OC_SMEM_NEED && s.ip == refill_at) {
            smem_slow++;
            r = snappy ? oc_smem_snappy_step(&s, src, 0, (uint32_t)srcn, (uint32_t)srcn, (uint32_t)cap, recs)
                       : oc_smem_lz4_step(&s, src, 0, (uint32_t)srcn, (uint32_t)srcn, (uint32_t)cap, recs);
        }
        if (r == OC_SMEM_NEED)
            need = 1;
        else if (r == OC_SMEM_END)
            break;
    }
    *nrec = s.nrec;
    *outn = oc_smem_outn(&s);
    return s.status;
}

/* Compares a parse with the serial one: same status, and when OK the same
 * size and records.  Returns 0 when equal. */
static int smem_same(int snappy, const uint8_t *src, size_t srcn, size_t cap, int st, size_t nrec,
                     size_t outn, const oc_split_rec *recs, oc_split_rec *tmp)
{
    size_t sn = 0, sout = 0;
    int sst = snappy ? oc_split_parse_snappy(src, srcn, cap, tmp, &sn, &sout)
                     : oc_split_parse_lz4(src, srcn, cap, tmp, &sn, &sout);
    if (st != sst)
        return 1;
    if (st != OC_SPLIT_OK)
        return 0;
    return nrec != sn || outn != sout || memcmp(recs, tmp, sn * sizeof(oc_split_rec)) != 0;
}

/* (5) the warp function itself on the emulator: 32 lanes, a chunk each,
 * each stream in its own allocation ending where the stream ends and
 * starting `lane % 16` bytes in (poisoned for ASan, as far as its 8-byte
 * granules allow, before the stream), so
 * that the refill's alignment and bounds are exercised. */
struct smem_job {
    int snappy, lane, have;
    const uint8_t *src;
    uint32_t srcn, cap, W, T4;
    oc_split_rec *recs;
    uint8_t *win;
    int st;
    uint32_t nrec, outn;
};

static void *smem_lane_main(void *p)
{
    smem_job *j = (smem_job *)p;
    emu_lane = j->lane;
#define SMEM_CALL(SN, W_, T_)                                                                                \
    j->st = oc_smem_parse_warp<SN, W_, T_>(j->lane, j->have, j->src, j->srcn, j->cap, j->recs, j->win,       \
                                           &j->nrec, &j->outn)
    if (j->W == 256 && j->T4 == 2)
        j->snappy ? SMEM_CALL(true, 256, 2) : SMEM_CALL(false, 256, 2);
    else if (j->W == 512 && j->T4 == 2)
        j->snappy ? SMEM_CALL(true, 512, 2) : SMEM_CALL(false, 512, 2);
    else
        j->snappy ? SMEM_CALL(true, 32, 1) : SMEM_CALL(false, 32, 1);
#undef SMEM_CALL
    return NULL;
}

static size_t smem_emu_lanes;
/* srcs[l], srcn[l], cap[l] for l < n (n <= 32); returns the number of lanes
 * whose result differs from the serial parse. */
static int smem_emu_group(int snappy, int n, const uint8_t *const *srcs, const size_t *srcn,
                          const size_t *cap, uint32_t W, uint32_t T4)
{
    static uint8_t win[32 * 512] __attribute__((aligned(16)));
    pthread_t t[32];
    smem_job jobs[32];
    uint8_t *bufs[32];
    oc_split_rec *recs[32];
    pthread_barrier_init(&emu_bar, NULL, 32);
    for (int l = 0; l < 32; l++) {
        int have = l < n;
        size_t sn = have ? srcn[l] : 0, lead = (size_t)l % 16;
        bufs[l] = (uint8_t *)malloc(lead + sn ? lead + sn : 1); /* ends where the stream ends */
        memcpy(bufs[l] + lead, have ? srcs[l] : bufs[l], sn);
        ASAN_POISON_MEMORY_REGION(bufs[l], lead);
        recs[l] = (oc_split_rec *)malloc(OC_SPLIT_MAX_RECS(sn) * sizeof(oc_split_rec));
        jobs[l] = {
            snappy, l, have, bufs[l] + lead, (uint32_t)sn, have ? (uint32_t)cap[l] : 0, W, T4, recs[l], win,
            -1,     0, 0};
    }
    for (int l = 0; l < 32; l++)
        pthread_create(&t[l], NULL, smem_lane_main, &jobs[l]);
    for (int l = 0; l < 32; l++)
        pthread_join(t[l], NULL);
    pthread_barrier_destroy(&emu_bar);
    int bad = 0;
    oc_split_rec *tmp = (oc_split_rec *)malloc(32 * sizeof(oc_split_rec));
    for (int l = 0; l < n; l++) {
        tmp = (oc_split_rec *)realloc(tmp, OC_SPLIT_MAX_RECS(srcn[l]) * sizeof(oc_split_rec));
        if (smem_same(snappy, srcs[l], srcn[l], cap[l], jobs[l].st, jobs[l].nrec, jobs[l].outn, recs[l],
                      tmp)) {
            fprintf(
                stderr,
                "emulated smem parse (W %u, T4 %u) %s lane %d: status %d, differs from the serial parse\n", W,
                T4, snappy ? "snappy" : "lz4", l, jobs[l].st);
            bad++;
        }
        smem_emu_lanes++;
    }
    for (int l = 0; l < 32; l++) {
        ASAN_UNPOISON_MEMORY_REGION(bufs[l], (size_t)l % 16);
        free(bufs[l]), free(recs[l]);
    }
    free(tmp);
    return bad;
}

/* (3) the parallel parse's passes A-D run as loops over the segments and the
 * chunk; returns the status, *nrec and *outn as the serial parse. */
static int pp_parse(int snappy, const uint8_t *src, size_t srcn, size_t cap, oc_split_rec *out_recs,
                    size_t *nrec, size_t *outn)
{
    size_t nseg = oc_pp_nsegs(srcn);
    oc_split_rec *recs = (oc_split_rec *)malloc(nseg * OC_PP_SEG_RECS * sizeof(oc_split_rec));
    uint32_t *pos = (uint32_t *)malloc(nseg * OC_PP_SEG_RECS * 4),
             *cum = (uint32_t *)malloc(nseg * OC_PP_SEG_RECS * 4);
    oc_pp_seg *segs = (oc_pp_seg *)calloc(nseg, sizeof(oc_pp_seg));
    oc_pp_chunk ch;
    memset(&ch, 0, sizeof ch);
    for (size_t k = 0; k < nseg; k++)
        oc_pp_pass_a(snappy, src, srcn, cap, k, recs + k * OC_PP_SEG_RECS, pos + k * OC_PP_SEG_RECS,
                     cum + k * OC_PP_SEG_RECS, segs + k);
    oc_pp_pass_b(snappy, src, srcn, cap, nseg, recs, pos, cum, segs, &ch);
    for (size_t k = 0; k < nseg; k++)
        oc_pp_pass_c(snappy, cap, k, recs, segs + k, &ch, out_recs);
    pp_segs += nseg;
    pp_doubts += ch.doubt;
    int st = oc_pp_pass_d(snappy, src, srcn, cap, &ch, out_recs, nrec, outn);
    free(recs), free(pos), free(cum), free(segs);
    return st;
}

/* ---- (2) the copy half on the emulator ---- */
struct emu_job {
    const oc_split_rec *recs;
    uint32_t nrec;
    const uint8_t *src;
    uint8_t *dst;
    oc_split_slot *q;
    uint8_t *ring;
    uint32_t R;
    int lane;
};

static void *emu_lane_main(void *p)
{
    emu_job *j = (emu_job *)p;
    emu_lane = j->lane;
    if (j->R == 16384)
        oc_split_copy_chunk<16384>(j->recs, j->nrec, j->src, j->dst, j->q, j->ring, j->lane);
    else if (j->R == 4096)
        oc_split_copy_chunk<4096>(j->recs, j->nrec, j->src, j->dst, j->q, j->ring, j->lane);
    else
        oc_split_copy_chunk<0>(j->recs, j->nrec, j->src, j->dst, j->q, j->ring, j->lane);
    return NULL;
}

/* steps per copy way (bytes, parallel, serial) in the emulated chunks, by
 * oc_split_copy_chunk's rule, so the summary shows every way was run */
static size_t emu_ways[3][3];

static void emu_count_ways(const oc_split_rec *recs, uint32_t nrec, int ri, uint32_t R)
{
    for (uint32_t g = 0; g < nrec; g += 32) {
        uint32_t cnt = nrec - g < 32 ? nrec - g : 32, total = 0;
        for (uint32_t i = 0; i < cnt; i++)
            total += recs[g + i].lit_len + recs[g + i].m_len;
        int way = total <= OC_SPLIT_BYTES_MAX && total <= 48u * cnt ? 0 : R == 0 || total <= R ? 1 : 2;
        emu_ways[ri][way]++;
    }
}

static void emu_copy(const oc_split_rec *recs, uint32_t nrec, const uint8_t *src, uint8_t *dst, uint32_t R)
{
    emu_count_ways(recs, nrec, R == 16384 ? 0 : R == 4096 ? 1 : 2, R);
    static oc_split_slot q;
    static uint8_t ring[16384];
    pthread_t t[32];
    emu_job jobs[32];
    pthread_barrier_init(&emu_bar, NULL, 32);
    for (int l = 0; l < 32; l++) {
        jobs[l] = {recs, nrec, src, dst, &q, ring, R, l};
        pthread_create(&t[l], NULL, emu_lane_main, &jobs[l]);
    }
    for (int l = 0; l < 32; l++)
        pthread_join(t[l], NULL);
    pthread_barrier_destroy(&emu_bar);
}

/* ---- (1) the records executed one after another ---- */
static int run_records(const oc_split_rec *recs, size_t nrec, const uint8_t *src, uint8_t *dst, size_t cap)
{
    size_t op = 0;
    for (size_t i = 0; i < nrec; i++) {
        const oc_split_rec *r = recs + i;
        if (r->lit_len > cap - op)
            return 1;
        memcpy(dst + op, src + r->lit_src, r->lit_len);
        op += r->lit_len;
        if (r->m_len > cap - op || (r->m_len && (r->m_off == 0 || r->m_off > op)))
            return 1;
        for (uint32_t k = 0; k < r->m_len; k++, op++)
            dst[op] = dst[op - r->m_off];
    }
    return 0;
}

/* (5) on one file: its first 32 chunks as they are, then damaged (as the
 * main loop damages them, and lanes 30, 31 with 0 and 1 input bytes), for
 * each window size and refill threshold the GPU harness measures and a
 * 32-byte window that forces refills and slow phases all the time. */
static int smem_emu_file(const uint8_t *data, size_t size, size_t chunk, int snappy)
{
    size_t bound = snappy ? snappy_max_compressed_length(chunk) : (size_t)LZ4_compressBound((int)chunk);
    int n = (int)((size + chunk - 1) / chunk);
    n = n < 32 ? n : 32;
    uint8_t *comp = (uint8_t *)malloc(32 * bound);
    const uint8_t *srcs[32];
    size_t cn[32], cap[32];
    for (int l = 0; l < n; l++) {
        size_t o = (size_t)l * chunk, un = size - o < chunk ? size - o : chunk;
        uint8_t *c = comp + (size_t)l * bound;
        cn[l] = bound;
        if (snappy)
            snappy_compress((const char *)data + o, un, (char *)c, &cn[l]);
        else
            cn[l] = (size_t)LZ4_compress_default((const char *)data + o, (char *)c, (int)un, (int)bound);
        srcs[l] = c;
        cap[l] = un;
    }
    int bad = 0;
    static const uint32_t cfg[3][2] = {{256, 2}, {512, 2}, {32, 1}};
    for (int k = 0; k < 3; k++)
        bad += smem_emu_group(snappy, n, srcs, cn, cap, cfg[k][0], cfg[k][1]);
    for (int l = 0; l < n; l++) { /* damaged */
        uint32_t h = (uint32_t)((l * 7919u + 13u) * 2654435761u);
        if (l % 3 == 0)
            cn[l] = cn[l] ? h % cn[l] : 0;
        else if (cn[l])
            comp[(size_t)l * bound + h % cn[l]] ^= (uint8_t)(1u + (h >> 24) % 255);
        if (l % 3 == 2)
            cap[l] /= 2;
    }
    if (n == 32) {
        cn[30] = 0;
        cn[31] = 1;
    }
    for (int k = 0; k < 3; k++)
        bad += smem_emu_group(snappy, n, srcs, cn, cap, cfg[k][0], cfg[k][1]);
    free(comp);
    return bad;
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = (uint8_t *)malloc(len > 0 ? (size_t)len : 1);
    *n = p && len > 0 ? fread(p, 1, (size_t)len, f) : 0;
    fclose(f);
    return p;
}

int main(int argc, char **argv)
{
    size_t chunk = 65536;
    int emu_chunks = 2, bad = 0, files = 0, smem_emu = 0;
    size_t smem_checked = 0, smem_diff = 0;
    size_t rec_total[2] = {0, 0}, out_total[2] = {0, 0}, max_recs[2] = {0, 0};
    size_t chunks = 0, damaged = 0, damaged_ok = 0, emu_done = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--chunk") && a + 1 < argc) {
            chunk = strtoull(argv[++a], NULL, 10);
            continue;
        }
        if (!strcmp(argv[a], "--smem-emu") && a + 1 < argc) {
            smem_emu = atoi(argv[++a]);
            continue;
        }
        if (!strcmp(argv[a], "--emu-chunks") && a + 1 < argc) {
            emu_chunks = atoi(argv[++a]);
            continue;
        }
        size_t size = 0;
        uint8_t *data = read_file(argv[a], &size);
        if (!data || !size) {
            fprintf(stderr, "%s: cannot read\n", argv[a]);
            return 2;
        }
        files++;
        size_t bound = snappy_max_compressed_length(chunk) + (size_t)LZ4_compressBound((int)chunk);
        uint8_t *comp = (uint8_t *)malloc(bound), *out = (uint8_t *)malloc(chunk),
                *ref = (uint8_t *)malloc(chunk);
        oc_split_rec *recs = (oc_split_rec *)malloc(OC_SPLIT_MAX_RECS(bound) * sizeof(oc_split_rec));
        for (size_t o = 0, ci = 0; o < size; o += chunk, ci++) {
            size_t un = size - o < chunk ? size - o : chunk;
            for (int snappy = 0; snappy < 2; snappy++) {
                size_t cn = bound;
                if (snappy)
                    snappy_compress((const char *)data + o, un, (char *)comp, &cn);
                else
                    cn = (size_t)LZ4_compress_default((const char *)data + o, (char *)comp, (int)un,
                                                      (int)bound);
                size_t nrec = 0, outn = 0;
                int st = snappy ? oc_split_parse_snappy(comp, cn, un, recs, &nrec, &outn)
                                : oc_split_parse_lz4(comp, cn, un, recs, &nrec, &outn);
                memset(out, 0, un);
                if (st != OC_SPLIT_OK || outn != un || nrec > OC_SPLIT_MAX_RECS(cn) ||
                    run_records(recs, nrec, comp, out, un) || memcmp(out, data + o, un)) {
                    fprintf(stderr, "%s chunk %zu %s: parse status %d, %zu of %zu bytes, records wrong\n",
                            argv[a], ci, snappy ? "snappy" : "lz4", st, outn, un);
                    bad = 1;
                    continue;
                }
                {
                    size_t pn = 0, pout = 0;
                    size_t rw0 = pp_rewalks, sg0 = pp_segs;
                    int pst = pp_parse(snappy, comp, cn, un, recs, &pn, &pout);
                    pp_valid_rewalks += pp_rewalks - rw0;
                    pp_valid_segs += pp_segs - sg0;
                    memset(out, 0, un);
                    if (pst != OC_SPLIT_OK || pout != un || pn > OC_SPLIT_MAX_RECS(cn) ||
                        run_records(recs, pn, comp, out, un) || memcmp(out, data + o, un)) {
                        fprintf(stderr,
                                "%s chunk %zu %s: parallel parse status %d, %zu of %zu bytes, wrong\n",
                                argv[a], ci, snappy ? "snappy" : "lz4", pst, pout, un);
                        bad = 1;
                    }
                    if ((int)ci < emu_chunks &&
                        pst == OC_SPLIT_OK) { /* the copy of the parallel parse's records */
                        memset(out, 0, un);
                        emu_copy(recs, (uint32_t)pn, comp, out, 4096);
                        if (memcmp(out, data + o, un)) {
                            fprintf(
                                stderr,
                                "%s chunk %zu %s: emulated copy of the parallel parse's records differs\n",
                                argv[a], ci, snappy ? "snappy" : "lz4");
                            bad = 1;
                        }
                        emu_done++;
                    }
                    /* the serial records again (the emulated copies below use them) */
                    st = snappy ? oc_split_parse_snappy(comp, cn, un, recs, &nrec, &outn)
                                : oc_split_parse_lz4(comp, cn, un, recs, &nrec, &outn);
                }
                /* (4) the shared-memory parse, three window sizes, as many alignments */
                for (uint32_t W : {32u, 64u, 256u}) {
                    size_t mn = 0, mout = 0;
                    oc_split_rec *mrecs =
                        (oc_split_rec *)malloc(OC_SPLIT_MAX_RECS(cn) * sizeof(oc_split_rec));
                    int mst = smem_host_parse(snappy, comp, cn, un, W, (uint32_t)(ci * 5 + W / 32), mrecs,
                                              &mn, &mout);
                    smem_checked++;
                    if (mst != OC_SPLIT_OK || mout != un || mn != nrec ||
                        memcmp(mrecs, recs, nrec * sizeof(oc_split_rec))) {
                        if (smem_diff++ < 5)
                            fprintf(stderr, "%s chunk %zu %s: smem parse (W %u) status %d, records differ\n",
                                    argv[a], ci, snappy ? "snappy" : "lz4", W, mst);
                        bad = 1;
                    }
                    free(mrecs);
                }
                chunks++;
                rec_total[snappy] += nrec;
                out_total[snappy] += un;
                max_recs[snappy] = nrec > max_recs[snappy] ? nrec : max_recs[snappy];
                if ((int)ci < emu_chunks) {
                    for (uint32_t R : {16384u, 4096u, 0u}) {
                        memset(out, 0, un);
                        emu_copy(recs, (uint32_t)nrec, comp, out, R);
                        if (memcmp(out, data + o, un)) {
                            fprintf(stderr, "%s chunk %zu %s: emulated copy (ring %u) differs\n", argv[a], ci,
                                    snappy ? "snappy" : "lz4", R);
                            bad = 1;
                        }
                        emu_done++;
                    }
                }
                /* damaged copies: truncated, one byte changed, a short output */
                for (int d = 0; d < 6; d++) {
                    uint32_t h = (uint32_t)((o + d * 7919 + ci) * 2654435761u);
                    size_t dn = cn, cap = un;
                    uint8_t saved = 0;
                    size_t at = cn ? h % cn : 0;
                    if (d < 2)
                        dn = cn ? h % cn : 0;
                    else if (cn) {
                        saved = comp[at];
                        comp[at] ^= (uint8_t)(1u + (h >> 24) % 255);
                    }
                    if (d >= 4)
                        cap = un / 2;
                    uint8_t *tight = (uint8_t *)malloc(dn ? dn : 1); /* ASan sees any overread */
                    memcpy(tight, comp, dn);
                    int dst_ = snappy ? oc_split_parse_snappy(tight, dn, cap, recs, &nrec, &outn)
                                      : oc_split_parse_lz4(tight, dn, cap, recs, &nrec, &outn);
                    size_t rn = cap;
                    int ref_ok =
                        snappy ? snappy_uncompress((const char *)tight, dn, (char *)ref, &rn) == SNAPPY_OK &&
                                     rn <= cap
                               : (int)(rn = (size_t)LZ4_decompress_safe((const char *)tight, (char *)ref,
                                                                        (int)dn, (int)cap)) >= 0;
                    damaged++;
                    {
                        oc_split_rec *precs =
                            (oc_split_rec *)malloc(OC_SPLIT_MAX_RECS(dn) * sizeof(oc_split_rec));
                        size_t pn = 0, pout = 0, sn = 0, sout = 0;
                        int pst = pp_parse(snappy, tight, dn, cap, precs, &pn, &pout);
                        int sst = snappy ? oc_split_parse_snappy(tight, dn, cap, recs, &sn, &sout)
                                         : oc_split_parse_lz4(tight, dn, cap, recs, &sn, &sout);
                        if (pst != sst || (pst == OC_SPLIT_OK && pout != sout)) {
                            fprintf(stderr,
                                    "%s chunk %zu %s damage %d: parallel parse status %d, serial %d\n",
                                    argv[a], ci, snappy ? "snappy" : "lz4", d, pst, sst);
                            bad = 1;
                        }
                        for (uint32_t W : {32u, 64u, 256u}) { /* (4) on the damaged chunk */
                            size_t mn = 0, mout = 0;
                            int mst = smem_host_parse(snappy, tight, dn, cap, W, (uint32_t)(h >> 8), precs,
                                                      &mn, &mout);
                            smem_checked++;
                            if (smem_same(snappy, tight, dn, cap, mst, mn, mout, precs, recs)) {
                                if (smem_diff++ < 5)
                                    fprintf(stderr,
                                            "%s chunk %zu %s damage %d: smem parse (W %u) status %d, "
                                            "differs from the serial parse\n",
                                            argv[a], ci, snappy ? "snappy" : "lz4", d, W, mst);
                                bad = 1;
                            }
                        }
                        free(precs);
                    }
                    if (dst_ == OC_SPLIT_OK) {
                        damaged_ok++;
                        memset(out, 0, cap);
                        if (nrec > OC_SPLIT_MAX_RECS(dn) || run_records(recs, nrec, tight, out, cap) ||
                            !ref_ok || rn != outn || memcmp(out, ref, rn)) {
                            fprintf(stderr, "%s chunk %zu %s damage %d: parse OK where the reference %s\n",
                                    argv[a], ci, snappy ? "snappy" : "lz4", d,
                                    ref_ok ? "decodes otherwise" : "fails");
                            bad = 1;
                        }
                    }
                    free(tight);
                    if (d >= 2 && d < 6 && cn)
                        comp[at] = saved;
                }
            }
        }
        for (int sn = 0; sn < 2 && smem_emu > 0; sn++)
            if (smem_emu_file(data, size, chunk, sn))
                bad = 1;
        smem_emu -= smem_emu > 0;
        free(comp), free(out), free(ref), free(recs), free(data);
    }
    if (!files) {
        fprintf(stderr, "usage: lz_split_cpu_check [--chunk BYTES] [--emu-chunks N] FILE...\n");
        return 2;
    }
    printf("lz_split_cpu_check: %zu chunks of %zu bytes round-trip through the records (lz4 + snappy), "
           "%zu emulated warp copies, %zu damaged chunks (%zu decode OK, each as the reference): %s\n",
           chunks, chunk, emu_done, damaged, damaged_ok, bad ? "FAILED" : "OK");
    printf("parallel parse: valid chunks %zu segments, %zu walked again in the join (%.1f%%); all chunks %zu "
           "segments, %zu walked again, %zu chunks parsed serially\n",
           pp_valid_segs, pp_valid_rewalks,
           100.0 * (double)pp_valid_rewalks / (double)(pp_valid_segs ? pp_valid_segs : 1), pp_segs,
           pp_rewalks, pp_doubts);
    printf("smem parse: %zu parses (3 window sizes, valid and damaged chunks) equal to the serial parse's, "
           "%zu differ; %zu refills, %zu phases parsed from global memory; %zu lanes emulated as a warp\n",
           smem_checked - smem_diff, smem_diff, smem_refills, smem_slow, smem_emu_lanes);
    printf("records: lz4 %.1f output bytes each (at most %zu in a chunk), snappy %.1f (at most %zu)\n",
           (double)out_total[0] / (double)(rec_total[0] ? rec_total[0] : 1), max_recs[0],
           (double)out_total[1] / (double)(rec_total[1] ? rec_total[1] : 1), max_recs[1]);
    printf("emulated steps by way (bytes/parallel/serial): ring 16 KiB %zu/%zu/%zu, 4 KiB %zu/%zu/%zu, none "
           "%zu/%zu/%zu\n",
           emu_ways[0][0], emu_ways[0][1], emu_ways[0][2], emu_ways[1][0], emu_ways[1][1], emu_ways[1][2],
           emu_ways[2][0], emu_ways[2][1], emu_ways[2][2]);
    return bad;
}
