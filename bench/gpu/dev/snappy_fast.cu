/*
 * snappy_fast.cu - the GPU A/B of v10 (issue 13, bench/NOTES.md "v10"):
 * the library's Snappy split decoder (src/cuda/codecs/snappy/
 * snappy_kernels.cu, included whole, called as the engine calls it, with
 * a second stream of the greatest priority) against the same decoder with
 * the parse steps of dev_snappy_fast_parse.h: `v9` (the step before v10, a
 * branch per kind), `fast1` (one element a call on v10's fast path),
 * `fast2` and `fast4` (up to two or four elements a call).  Only the
 * parser type of the split decoder's template differs
 * (lz_common/lz_split_launch.cuh's oc_lzs_run<C>): the windows, the
 * copy, the waves and the streams are the library's.
 *
 * Why a harness of its own: lz_split.cu includes the LZ4 codec whole, and
 * the two codecs' files cannot share one translation unit.
 *
 * For each FILE the 64 KiB chunks are compressed by libsnappy (and read
 * back), the set repeated up to --min-bytes of output (1 GiB by default,
 * the issue's call), each variant's every output byte, size and status
 * checked, then timed (CUDA events around the call, a warm-up, median of
 * --repeats).  Then 2048 damaged copies (cut, a byte changed, a short
 * capacity) through every variant with the split decoder forced: statuses
 * and sizes equal across variants, and OK exactly where libsnappy decodes
 * within the capacity.  --only NAME runs one variant (once, after its
 * check) for a profiler; --split forces the split decoder on the whole
 * batch too (the library gives batches of fewer than 10,240 chunks to
 * the pipe: small sanitizer runs need it).
 *
 * `spec` and `spec9` are v11 (bench/NOTES.md "v11", dev_snappy_spec.cuh:
 * two lanes of one warp a chunk, the copy kernel at 6 or 9 blocks an SM);
 * `pairs` and `pairs9` v11b (dev_lz_pair.cuh, dev_snappy_pair_parse.h:
 * oc_lzs_parse_pair, the two lanes in two warps of a block; the second
 * lane's records in the top of the slot; once the library's, dormant);
 * `v10b` the library's one-lane walk, whatever the library's codec is;
 * `skew` v12 (dev_lz_skew.cuh, bench/NOTES.md "v12": the library's parse
 * with each lane's window a word further in shared memory than the last,
 * so that lanes at the same window offset read different banks), `clock`
 * the library's parse with a clock at each parse warp's start and end and
 * `skewclock` skew's with them (after the timing, the parse's span, the
 * warps' times by file and the SMs' last ends are printed); `word` the
 * library's layout with the header read as two words
 * (dev_snappy_word_parse.cuh), `skewword` both; `flat` v13 (NOTES.md
 * "v13": the library's step with no branch between the kinds in the fast
 * path, dev_snappy_fast_parse.h's oc_snapf_flat).  --variants
 * LIST (comma-separated, library among them) runs only those.
 *
 *   snappy_fast [--min-bytes N] [--repeats N] [--only NAME] [--variants LIST] [--split] FILE...
 *
 * Exits 1 if anything differs.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../src/cuda/codecs/snappy/snappy_kernels.cu"
#include "dev_lz_pair.cuh"
#include "dev_lz_skew.cuh"
#include "dev_snappy_word_parse.cuh"
#include "dev_snappy_fast_parse.h"
#include "dev_snappy_spec.cuh"

extern "C" {
int snappy_compress(const char *input, size_t input_length, char *compressed, size_t *compressed_length);
int snappy_uncompress(const char *compressed, size_t compressed_length, char *uncompressed,
                      size_t *uncompressed_length);
size_t snappy_max_compressed_length(size_t source_length);
}

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                      \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

/* v10's parsers: the library's Snappy parser type with another step. */
struct dev_snappy_v9 : oc_snappy_split_codec {
    static __device__ __forceinline__ int step(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                               uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_snapf_v9(s, wp, wshift, whi, srcn, cap, recs);
    }
};
struct dev_snappy_fast1 : oc_snappy_split_codec {
    static __device__ __forceinline__ int step(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                               uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_snapf_step(s, wp, wshift, whi, srcn, cap, recs);
    }
};
struct dev_snappy_fast2 : oc_snappy_split_codec {
    static __device__ __forceinline__ int step(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                               uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_snapf_step2(s, wp, wshift, whi, srcn, cap, recs);
    }
};
struct dev_snappy_fast4 : oc_snappy_split_codec {
    static __device__ __forceinline__ int step(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                               uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_snapf_step4(s, wp, wshift, whi, srcn, cap, recs);
    }
};

/* v13: the library's step with no branch between the kinds in the fast path
 * (dev_snappy_fast_parse.h's oc_snapf_flat). */
struct dev_snappy_flat : oc_snappy_split_codec {
    static __device__ __forceinline__ int step(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                               uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_snapf_flat(s, wp, wshift, whi, srcn, cap, recs);
    }
};

/* v10b: the library's one-lane walk (oc_snaps_step, a lane a chunk), whatever the codec picks. */
struct dev_snappy_v10b : oc_snappy_split_codec {
};

/* v11b (dev_lz_pair.cuh's oc_lzs_parse_pair and oc_lzs_pair_kernel, the
 * walks of dev_snappy_pair_parse.h; they were the library's, dormant,
 * until they lost): two lanes a chunk in two warps, the copy at 6 or 9
 * blocks an SM (B). */
template <int B> struct dev_snappy_pairs_b : oc_snappy_split_codec {
    /* 4 parse blocks an SM at full scale at 127 registers */
    enum { K = OC_SNAPS_K, parse_blocks = 4, copy_blocks = B };
    typedef oc_snaps_b b_st;
    typedef oc_snaps_log log_t;
    static __device__ __forceinline__ uint32_t base(uint32_t cap) { return OC_SNAPS_BASE(cap); }
    static __device__ __forceinline__ int splits(uint32_t srcn, uint32_t cap)
    {
        return OC_SNAPS_SPLITS(srcn, cap);
    }
    static __device__ __forceinline__ void b_init(b_st *b, uint32_t p0) { oc_snaps_b_init(b, p0); }
    static __device__ __forceinline__ int b_step(b_st *b, log_t *log, const uint8_t *wp, uint32_t wshift,
                                                 uint32_t whi, uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_snaps_b_step(b, log, wp, wshift, whi, srcn, cap, recs);
    }
    static __device__ __forceinline__ int a_step(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                                 uint32_t srcn, uint32_t cap, oc_lzs_rec *recs, uint32_t lim)
    {
        return oc_snaps_a_step(s, wp, wshift, whi, srcn, cap, recs, lim);
    }
    static __device__ __forceinline__ int find(const st *s, const log_t *log, uint32_t nlog, uint32_t *j,
                                               uint32_t *lim)
    {
        return oc_snaps_find(s, log, nlog, j, lim);
    }
    static __device__ __forceinline__ int join(st *s, const log_t *log, uint32_t nlog, uint32_t j,
                                               uint32_t b_op, uint32_t b_nrec, uint32_t cap)
    {
        return oc_snaps_join(s, log, nlog, j, b_op, b_nrec, cap);
    }
};
typedef dev_snappy_pairs_b<6> dev_snappy_pairs;
typedef dev_snappy_pairs_b<9> dev_snappy_pairs9;

/* oc_snappy_decompress_run with parser C: the pipe (which leaves the split
 * decoder's chunks alone), then the split decoder. */
template <class C>
static oc_status dev_run(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, const oc_cuda_batch &b,
                         enum oc_lzs_mode mode, cudaStream_t stream)
{
    uint32_t split_cap = 0;
    size_t wave = oc_lzs_wave(scratch, scratch_size, cfg, b.n, mode, &split_cap);
    oc_snappy_decompress_pipe_kernel<<<(unsigned)b.n, 64, 0, stream>>>(b, wave > 0, split_cap);
    if (wave == 0 || cudaPeekAtLastError() != cudaSuccess)
        return oc_launched();
    return oc_lzs_run<C>(scratch, cfg->side, 1, b, split_cap, wave, stream);
}

/* The same with v12's parse kernel (dev_lz_skew.cuh): windows skewed a
 * word a lane (SKEW), clocks at each parse warp's start and end (CLOCK). */
/* v12's parser types: the library's step on the window, or `word`'s. */
struct dev_snappy_wlib : oc_snappy_split_codec {
    static __device__ __forceinline__ int wstep(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                                uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_snaps_step(s, wp, wshift, whi, srcn, cap, recs);
    }
};
struct dev_snappy_word : oc_snappy_split_codec {
    static __device__ __forceinline__ int wstep(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                                uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return dev_snapw_step(s, wp, wshift, whi, srcn, cap, recs);
    }
};

template <class C, int SKEW, int CLOCK>
static oc_status dev_run_skew(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                              const oc_cuda_batch &b, enum oc_lzs_mode mode, cudaStream_t stream)
{
    uint32_t split_cap = 0;
    size_t wave = oc_lzs_wave(scratch, scratch_size, cfg, b.n, mode, &split_cap);
    oc_snappy_decompress_pipe_kernel<<<(unsigned)b.n, 64, 0, stream>>>(b, wave > 0, split_cap);
    if (wave == 0 || cudaPeekAtLastError() != cudaSuccess)
        return oc_launched();
    return dev_lzs_skew_run<C, SKEW, CLOCK>(scratch, cfg->side, b, split_cap, wave, stream);
}

/* The same with v11b's pair kernels (dev_lz_pair.cuh). */
template <class C>
static oc_status dev_run_pairs(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                               const oc_cuda_batch &b, enum oc_lzs_mode mode, cudaStream_t stream)
{
    uint32_t split_cap = 0;
    size_t wave = oc_lzs_wave(scratch, scratch_size, cfg, b.n, mode, &split_cap);
    oc_snappy_decompress_pipe_kernel<<<(unsigned)b.n, 64, 0, stream>>>(b, wave > 0, split_cap);
    if (wave == 0 || cudaPeekAtLastError() != cudaSuccess)
        return oc_launched();
    return dev_lzs_pair_run<C>(scratch, cfg->side, b, split_cap, wave, stream);
}

enum {
    V_LIB,
    V_V10B,
    V_V9,
    V_FAST1,
    V_FAST2,
    V_FAST4,
    V_SPEC,
    V_SPEC9,
    V_PAIRS,
    V_PAIRS9,
    V_SKEW,
    V_CLOCK,
    V_SKEWCLOCK,
    V_WORD,
    V_SKEWWORD,
    V_FLAT,
    V_COUNT
};
static const char *const vname[V_COUNT] = {"library",   "v10b",  "v9",       "fast1",  "fast2", "fast4",
                                           "spec",      "spec9", "pairs",    "pairs9", "skew",  "clock",
                                           "skewclock", "word",  "skewword", "flat"};

struct ctx {
    oc_cuda_batch b;
    void *scratch;
    size_t bytes;
    void *spec_scratch; /* v11's: two record regions a chunk */
    size_t spec_bytes;
    oc_gpu_side side;
};

/* Variant v over the batch; forced: the split decoder whatever the batch's size. */
static void launch(int v, const ctx &c, size_t max_cap, int forced, cudaStream_t s)
{
    oc_gpu_config cfg{};
    cfg.algorithm = OC_ALGO_SNAPPY;
    cfg.max_capacity = max_cap;
    cfg.side = &c.side;
    oc_status r;
    enum oc_lzs_mode mode = forced ? OC_LZS_SPLIT : OC_LZS_AUTO;
    if (v == V_LIB)
        r = (forced ? oc_gpu_codec_snappy_split : oc_gpu_codec_snappy)
                .decompress(c.scratch, c.bytes, &cfg, c.b.n, (const void *const *)c.b.src, c.b.src_sizes,
                            (void *const *)c.b.dst, c.b.dst_caps, c.b.dst_sizes, (oc_status *)c.b.statuses,
                            s);
    else if (v == V_V9)
        r = dev_run<dev_snappy_v9>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_V10B)
        r = dev_run<dev_snappy_v10b>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_PAIRS)
        r = dev_run_pairs<dev_snappy_pairs>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_SKEW)
        r = dev_run_skew<dev_snappy_wlib, 1, 0>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_CLOCK)
        r = dev_run_skew<dev_snappy_wlib, 0, 1>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_SKEWCLOCK)
        r = dev_run_skew<dev_snappy_wlib, 1, 1>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_FLAT)
        r = dev_run<dev_snappy_flat>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_WORD)
        r = dev_run_skew<dev_snappy_word, 0, 0>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_SKEWWORD)
        r = dev_run_skew<dev_snappy_word, 1, 0>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_PAIRS9)
        r = dev_run_pairs<dev_snappy_pairs9>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_FAST1)
        r = dev_run<dev_snappy_fast1>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_FAST2)
        r = dev_run<dev_snappy_fast2>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    else if (v == V_SPEC)
        r = spec_run<6>(c.spec_scratch, c.spec_bytes, &cfg, c.b, mode, s);
    else if (v == V_SPEC9)
        r = spec_run<9>(c.spec_scratch, c.spec_bytes, &cfg, c.b, mode, s);
    else
        r = dev_run<dev_snappy_fast4>(c.scratch, c.bytes, &cfg, c.b, mode, s);
    if (r != OC_OK) {
        fprintf(stderr, "%s: launch status %d\n", vname[v], (int)r);
        exit(1);
    }
    CUDA_OK(cudaGetLastError());
}

/* The parse warps' clocks of the last CLOCK call (dev_lz_skew.cuh): the
 * parse's span, each warp's time as a share of it, and by file (a warp's
 * file: its first chunk's) the warps' mean and longest time and their
 * latest end; the SMs' last ends (how long the SMs sit idle at the end). */
static void clock_report(const char *name, size_t n, size_t nu, const int *u_fidx, int nfiles,
                         const char *const *u_name)
{
    size_t nw = (n + 31) / 32;
    if (nw > DEV_CLOCK_WARPS)
        nw = DEV_CLOCK_WARPS;
    dev_warp_clock_t *c = (dev_warp_clock_t *)malloc(nw * sizeof *c);
    CUDA_OK(cudaMemcpyFromSymbol(c, dev_warp_clock, nw * sizeof *c));
    unsigned long long t0 = ~0ull, t1 = 0;
    for (size_t w = 0; w < nw; w++) {
        t0 = c[w].t0 < t0 ? c[w].t0 : t0;
        t1 = c[w].t1 > t1 ? c[w].t1 : t1;
    }
    double span = (double)(t1 - t0), sum = 0;
    double fsum[64] = {0}, fmax[64] = {0}, fend[64] = {0};
    size_t fcnt[64] = {0};
    double smend[1024] = {0};
    for (size_t w = 0; w < nw; w++) {
        double d = (double)(c[w].t1 - c[w].t0), e = (double)(c[w].t1 - t0);
        int f = u_fidx[c[w].chunk0 % nu];
        sum += d;
        fsum[f] += d, fcnt[f]++;
        fmax[f] = d > fmax[f] ? d : fmax[f];
        fend[f] = e > fend[f] ? e : fend[f];
        if (c[w].sm < 1024)
            smend[c[w].sm] = e > smend[c[w].sm] ? e : smend[c[w].sm];
    }
    printf("%s clocks: parse span %.3f ms over %zu warps; a warp's mean time %.3f ms (%.0f%% of the span)\n",
           name, span * 1e-6, nw, sum / (double)nw * 1e-6, 100.0 * sum / (double)nw / span);
    for (int f = 0; f < nfiles; f++)
        if (fcnt[f])
            printf("  %-28s %4zu warps  mean %.3f ms  longest %.3f ms  last end %.3f ms\n", u_name[f],
                   fcnt[f], fsum[f] / (double)fcnt[f] * 1e-6, fmax[f] * 1e-6, fend[f] * 1e-6);
    int nsm = 0;
    double smsum = 0, smmin = span;
    for (int i = 0; i < 1024; i++)
        if (smend[i] > 0) {
            nsm++;
            smsum += smend[i];
            smmin = smend[i] < smmin ? smend[i] : smmin;
        }
    printf("  SMs' last parse end: %d SMs, mean %.3f ms, earliest %.3f ms (the span %.3f)\n", nsm,
           nsm ? smsum / nsm * 1e-6 : 0.0, smmin * 1e-6, span * 1e-6);
    /* parse warps per SM, and those sharing a scheduler (slot % 4) with another parse warp: their
       mean time against the others' (a shared scheduler issues for both) */
    static int per_sm[1024], per_sched[1024][4];
    memset(per_sm, 0, sizeof per_sm), memset(per_sched, 0, sizeof per_sched);
    for (size_t w = 0; w < nw; w++)
        if (c[w].sm < 1024)
            per_sm[c[w].sm]++, per_sched[c[w].sm][c[w].slot % 4]++;
    int hist[9] = {0};
    for (int i = 0; i < 1024; i++)
        if (per_sm[i])
            hist[per_sm[i] < 8 ? per_sm[i] : 8]++;
    double sh = 0, al = 0;
    size_t nsh = 0, nal = 0;
    for (size_t w = 0; w < nw; w++) {
        if (c[w].sm >= 1024)
            continue;
        double d = (double)(c[w].t1 - c[w].t0);
        if (per_sched[c[w].sm][c[w].slot % 4] > 1)
            sh += d, nsh++;
        else
            al += d, nal++;
    }
    printf(
        "  parse warps an SM: 1:%d 2:%d 3:%d 4:%d 5:%d 6:%d 7:%d 8+:%d SMs; sharing a scheduler: %zu warps, "
        "mean %.3f ms; alone: %zu, mean %.3f ms\n",
        hist[1], hist[2], hist[3], hist[4], hist[5], hist[6], hist[7], hist[8], nsh,
        nsh ? sh / nsh * 1e-6 : 0.0, nal, nal ? al / nal * 1e-6 : 0.0);
    free(c);
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
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
    const size_t CH = 65536;
    size_t min_bytes = (size_t)1 << 30;
    int repeats = 5, only = -1, forced = 0, skip[V_COUNT] = {0};
    const uint8_t *u_file[64];
    const char *u_name[64];
    size_t u_fsize[64];
    int nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--min-bytes") && i + 1 < argc) {
            min_bytes = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--split")) {
            forced = 1;
        } else if (!strcmp(argv[i], "--variants") && i + 1 < argc) {
            i++;
            for (int v = 0; v < V_COUNT; v++) { /* a comma-separated list of names */
                const char *p = strstr(argv[i], vname[v]);
                size_t l = strlen(vname[v]);
                while (p && !((p == argv[i] || p[-1] == ',') && (p[l] == 0 || p[l] == ',')))
                    p = strstr(p + 1, vname[v]);
                skip[v] = p == NULL;
            }
            if (skip[V_LIB]) {
                fprintf(stderr, "--variants: the list must hold library (the reference)\n");
                return 2;
            }
        } else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
            i++;
            for (int v = 0; v < V_COUNT; v++)
                if (!strcmp(argv[i], vname[v]))
                    only = v;
            if (only < 0) {
                fprintf(stderr, "--only %s: no such variant\n", argv[i]);
                return 2;
            }
        } else if (nfiles < 64) {
            u_file[nfiles] = read_file(argv[i], &u_fsize[nfiles]);
            u_name[nfiles] = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
            if (!u_file[nfiles] || !u_fsize[nfiles]) {
                fprintf(stderr, "%s: cannot read (or empty)\n", argv[i]);
                return 2;
            }
            nfiles++;
        }
    }
    if (nfiles == 0 || repeats < 1) {
        fprintf(stderr,
                "usage: snappy_fast [--min-bytes N] [--repeats N] [--only NAME] [--variants LIST] [--split] "
                "FILE...\n");
        return 2;
    }
    /* the unique chunks, compressed by the reference and read back */
    size_t bound = snappy_max_compressed_length(CH), nu = 0;
    for (int f = 0; f < nfiles; f++)
        nu += (u_fsize[f] + CH - 1) / CH;
    const uint8_t **u_data = (const uint8_t **)malloc(nu * sizeof(void *));
    size_t *u_size = (size_t *)malloc(nu * sizeof(size_t)), *c_size = (size_t *)malloc(nu * sizeof(size_t));
    int *u_fidx = (int *)malloc(nu * sizeof(int)); /* the file of each unique chunk */
    uint8_t *comp = (uint8_t *)malloc(nu * bound), *back = (uint8_t *)malloc(CH);
    size_t k = 0, cycle_u = 0, cycle_c = 0;
    for (int f = 0; f < nfiles; f++)
        for (size_t o = 0; o < u_fsize[f]; o += CH, k++) {
            u_data[k] = u_file[f] + o;
            u_fidx[k] = f;
            u_size[k] = u_fsize[f] - o < CH ? u_fsize[f] - o : CH;
            size_t c = bound, dn = CH;
            char *cp = (char *)comp + k * bound;
            if (snappy_compress((const char *)u_data[k], u_size[k], cp, &c) != 0 ||
                snappy_uncompress(cp, c, (char *)back, &dn) != 0 || dn != u_size[k] ||
                memcmp(back, u_data[k], dn) != 0) {
                fprintf(stderr, "chunk %zu: libsnappy does not round-trip\n", k);
                return 1;
            }
            c_size[k] = c;
            cycle_u += u_size[k];
            cycle_c += c;
        }
    size_t cycles = (min_bytes + cycle_u - 1) / cycle_u, n = nu * cycles;
    size_t total_u = cycle_u * cycles, total_c = cycle_c * cycles;
    size_t *h_srcn = (size_t *)malloc(n * sizeof(size_t)), *h_cap = (size_t *)malloc(n * sizeof(size_t));
    size_t *h_uoff = (size_t *)malloc(n * sizeof(size_t));
    const uint8_t **h_src = (const uint8_t **)malloc(n * sizeof(void *));
    uint8_t **h_dst = (uint8_t **)malloc(n * sizeof(void *));
    uint8_t *d_comp, *d_out;
    CUDA_OK(cudaMalloc(&d_comp, total_c));
    CUDA_OK(cudaMalloc(&d_out, total_u));
    uint8_t *h_comp = (uint8_t *)malloc(total_c);
    size_t co = 0, uo = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = i % nu;
        memcpy(h_comp + co, comp + j * bound, c_size[j]);
        h_src[i] = d_comp + co;
        h_dst[i] = d_out + uo;
        h_srcn[i] = c_size[j];
        h_cap[i] = u_size[j];
        h_uoff[i] = uo;
        co += c_size[j];
        uo += u_size[j];
    }
    CUDA_OK(cudaMemcpy(d_comp, h_comp, total_c, cudaMemcpyHostToDevice));
    free(h_comp);
    ctx c;
    memset(&c, 0, sizeof c);
    void *arrays;
    CUDA_OK(cudaMalloc(&arrays, n * (4 * sizeof(size_t) + 2 * sizeof(void *) + sizeof(int32_t))));
    c.b.n = n;
    c.b.src = (const uint8_t *const *)arrays;
    c.b.dst = (uint8_t *const *)(c.b.src + n);
    c.b.src_sizes = (const size_t *)(c.b.dst + n);
    c.b.dst_caps = c.b.src_sizes + n;
    c.b.dst_sizes = (size_t *)(c.b.dst_caps + n);
    c.b.statuses = (int32_t *)(c.b.dst_sizes + n);
    CUDA_OK(cudaMemcpy((void *)c.b.src, h_src, n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)c.b.dst, h_dst, n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)c.b.src_sizes, h_srcn, n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)c.b.dst_caps, h_cap, n * sizeof(size_t), cudaMemcpyHostToDevice));
    /* the library's scratch and second stream, as the engine makes them (cuda_engine.cu) */
    oc_gpu_config cfg{};
    cfg.algorithm = OC_ALGO_SNAPPY;
    cfg.max_capacity = CH;
    c.bytes = oc_gpu_codec_snappy_split.decompress_scratch(&cfg, n);
    CUDA_OK(cudaMalloc(&c.scratch, c.bytes));
    c.spec_bytes = spec_scratch(n, (uint32_t)CH);
    CUDA_OK(cudaMalloc(&c.spec_scratch, c.spec_bytes));
    int least = 0, greatest = 0;
    CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_OK(cudaStreamCreateWithPriority(&c.side.stream, cudaStreamNonBlocking, greatest));
    CUDA_OK(cudaEventCreateWithFlags(&c.side.fork, cudaEventDisableTiming));
    CUDA_OK(cudaEventCreateWithFlags(&c.side.join, cudaEventDisableTiming));
    CUDA_OK(cudaDeviceGetAttribute(&c.side.sm_count, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    printf("snappy_fast: %s, %d SMs; %d files, %zu chunks of 64 KiB, %.2f GiB per call (ratio %.2f), median "
           "of %d\n",
           prop.name, prop.multiProcessorCount, nfiles, n, (double)total_u / (1 << 30),
           (double)total_u / (double)total_c, repeats);

    cudaStream_t s;
    cudaEvent_t t0, t1;
    CUDA_OK(cudaStreamCreate(&s));
    CUDA_OK(cudaEventCreate(&t0));
    CUDA_OK(cudaEventCreate(&t1));
    uint8_t *out = (uint8_t *)malloc(total_u);
    int32_t *st = (int32_t *)malloc(n * sizeof(int32_t));
    size_t *got = (size_t *)malloc(n * sizeof(size_t));
    float *ms = (float *)malloc((size_t)repeats * sizeof(float));
    float rate[V_COUNT] = {0};
    int bad = 0;
    for (int v = 0; v < V_COUNT; v++) {
        if ((only >= 0 && v != only) || skip[v])
            continue;
        CUDA_OK(cudaMemset(d_out, 0, total_u));
        CUDA_OK(cudaMemset(c.b.statuses, 0xff, n * sizeof(int32_t)));
        launch(v, c, CH, forced, s);
        CUDA_OK(cudaStreamSynchronize(s));
        CUDA_OK(cudaMemcpy(out, d_out, total_u, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(st, c.b.statuses, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(got, c.b.dst_sizes, n * sizeof(size_t), cudaMemcpyDeviceToHost));
        size_t wrong = 0, first = 0;
        for (size_t i = 0; i < n; i++) {
            size_t j = i % nu;
            if (st[i] != OC_D_OK || got[i] != u_size[j] || memcmp(out + h_uoff[i], u_data[j], u_size[j]) != 0)
                if (wrong++ == 0)
                    first = i;
        }
        if (wrong) {
            fprintf(stderr, "%s: %zu of %zu chunks wrong (first: chunk %zu, status %d, size %zu of %zu)\n",
                    vname[v], wrong, n, first, st[first], got[first], u_size[first % nu]);
            bad = 1;
            continue;
        }
        if (only >= 0) { /* one more call, for a profiler */
            launch(v, c, CH, forced, s);
            CUDA_OK(cudaStreamSynchronize(s));
            printf("%-8s checked, and run once more\n", vname[v]);
            continue;
        }
        launch(v, c, CH, forced, s); /* warm-up */
        for (int r = 0; r < repeats; r++) {
            CUDA_OK(cudaEventRecord(t0, s));
            launch(v, c, CH, forced, s);
            CUDA_OK(cudaEventRecord(t1, s));
            CUDA_OK(cudaEventSynchronize(t1));
            CUDA_OK(cudaEventElapsedTime(&ms[r], t0, t1));
        }
        if (v == V_CLOCK || v == V_SKEWCLOCK) /* the last call's parse warps (one wave: n <= OC_LZS_WAVE) */
            clock_report(vname[v], n, nu, u_fidx, nfiles, u_name);
        qsort(ms, (size_t)repeats, sizeof(float), cmp_float);
        rate[v] = (float)total_u / (ms[repeats / 2] * 1e-3f) / 1e9f;
        printf("%-8s %8.1f GB/s  %6.3f ms (min %.3f, max %.3f)  %5.2fx library\n", vname[v], rate[v],
               ms[repeats / 2], ms[0], ms[repeats - 1], rate[V_LIB] > 0 ? rate[v] / rate[V_LIB] : 0.0);
        fflush(stdout);
    }

    /* damaged chunks, the split decoder forced: every variant the library's, OK where libsnappy is */
    size_t nd = n < 2048 ? n : 2048;
    uint8_t *tmp = (uint8_t *)malloc(bound);
    int *ref = (int *)malloc(nd * sizeof(int));
    for (size_t i = 0; i < nd; i++) {
        size_t j = i % nu;
        memcpy(tmp, comp + j * bound, c_size[j]);
        uint32_t h = (uint32_t)(i * 2654435761u);
        if (i % 3 == 0)
            h_srcn[i] = c_size[j] ? h % c_size[j] : 0; /* cut */
        else if (c_size[j])
            tmp[h % c_size[j]] ^= (uint8_t)(1u + (h >> 24) % 255); /* a byte changed */
        if (i % 3 == 2)
            h_cap[i] = u_size[j] / 2; /* and a short capacity */
        size_t dn = CH;
        ref[i] = snappy_uncompress((const char *)tmp, h_srcn[i], (char *)back, &dn) == 0 && dn <= h_cap[i];
        CUDA_OK(cudaMemcpy((void *)h_src[i], tmp, c_size[j], cudaMemcpyHostToDevice));
    }
    CUDA_OK(cudaMemcpy((void *)c.b.src_sizes, h_srcn, nd * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)c.b.dst_caps, h_cap, nd * sizeof(size_t), cudaMemcpyHostToDevice));
    ctx cd = c;
    cd.b.n = nd;
    int32_t *st_lib = (int32_t *)malloc(nd * sizeof(int32_t));
    size_t *got_lib = (size_t *)malloc(nd * sizeof(size_t));
    size_t mismatch = 0, failing = 0, refdiff = 0;
    for (int v = 0; v < V_COUNT; v++) {
        if (skip[v])
            continue;
        launch(v, cd, CH, 1, s);
        CUDA_OK(cudaStreamSynchronize(s));
        CUDA_OK(
            cudaMemcpy(v == V_LIB ? st_lib : st, c.b.statuses, nd * sizeof(int32_t), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(v == V_LIB ? got_lib : got, c.b.dst_sizes, nd * sizeof(size_t),
                           cudaMemcpyDeviceToHost));
        if (v == V_LIB) {
            for (size_t i = 0; i < nd; i++) {
                failing += st_lib[i] != OC_D_OK;
                if ((st_lib[i] == OC_D_OK) != ref[i] && refdiff++ < 5)
                    fprintf(stderr, "damaged chunk %zu: library status %d, libsnappy %s\n", i, st_lib[i],
                            ref[i] ? "ok" : "fails");
            }
            continue;
        }
        for (size_t i = 0; i < nd; i++)
            if (st[i] != st_lib[i] || got[i] != got_lib[i])
                if (mismatch++ < 5)
                    fprintf(stderr, "%s damaged chunk %zu: status %d size %zu, library %d size %zu\n",
                            vname[v], i, st[i], got[i], st_lib[i], got_lib[i]);
    }
    printf("damaged: %zu chunks (%zu fail), every variant's statuses and sizes %s the library's; library %s "
           "libsnappy\n",
           nd, failing, mismatch ? "DIFFER from" : "equal to", refdiff ? "DIFFERS from" : "agrees with");
    bad |= mismatch != 0 || refdiff != 0 || failing == 0;
    printf("snappy_fast: %s\n",
           bad ? "FAILED (see above)" : "every output byte, size and status checked: OK");
    return bad;
}
