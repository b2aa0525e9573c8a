/*
 * ans_dev.cu - why this exists: the ANS GPU decoder (issue 18) ran at
 * 0.36-0.46x nVCOMP and nothing said where a group's ~100k cycles went.
 * This harness runs the library's own kernels
 * (src/cuda/codecs/ans/ans_kernels.cu, included whole, its codec table
 * renamed so the library's is not pulled in) beside the variants it was
 * measured against: the kernels before session 6
 * (ans_staged_kernels.cuh, namespace staged), on 1 GiB of 64 KiB chunks
 * of one file (--mib: M MiB instead), checks every output, and times, in
 * one process on one device (bench/gpu/owncodecs/NOTES.md has the numbers):
 *
 *   win4-32, win4-16, win2-32, win4c-32, win2c-32
 *                 design (a) of session 9 (ans_win_kernels.cuh): NW warps a
 *                 CTA sharing one decode table, each lane's words through a
 *                 window of its next R words, topped up when any lane runs
 *                 low (win<NW>-<R>; "c": each window a row, topped up
 *                 coalesced);
 *   library       the library's decoder (ans_k_groups: win4-16 since
 *                 session 10, CTAs of 4 warps, 10 an SM; the decode table
 *                 filled slot-parallel, ans_fill_table);
 *   pool          the library's decoder before (ans_pool_kernels.cuh: CTAs
 *                 of 2 warps, each staging its tile's words whole in
 *                 shared memory, 7 CTAs an SM, a tile that does not fit
 *                 taking its words through a ring at the pool's end);
 *   no-ringfb     pool before the ring fallback (a tile that does not fit
 *                 reads its words from global memory: text, 12.5% of
 *                 tiles);
 *   sizes-only    the same kernel without output (the size query's path:
 *                 every step but its store), to price the byte stores;
 *   occ-N         the library's kernel with extra dynamic shared memory so
 *                 that only N CTAs fit an SM (3/4, 1/2, 1/4 of its own):
 *                 how the rate scales with resident warps;
 *   staged        the decoder before session 6 (the table filled by a warp
 *                 per symbol over all 256);
 *   staged-fill   staged with the fill over present symbols only (ballot);
 *   prof          no-ringfb with clock64() probes: cycles per
 *                 group in the chunk search, the tile spans and table read,
 *                 the table fill, the staging wait, the tile decode (staged
 *                 tiles and tiles read from global memory apart, cycles per
 *                 step of 32 symbols), and the wait for the sibling warp.
 *
 *   ans_dev [--dtype u1|bf16] [--reps N] [--mib M] [--small] [--enc-only] [--no-staged] [--only V1,V2] FILE
 *
 * Compression: the library's encoder (ans_k_encode through the batch
 * driver; one pass since session 11, dev one-99f), `two-pass` (the
 * library's before: ans_enc2_kernels.cuh), the staged one (before session 6), staged-in
 * (ans_in_kernels.cuh: the chunk's symbols in shared memory first, 64 KiB
 * a CTA) and staged-in-32k (32 KiB: a <f2 chunk of 64 KiB staged at more
 * CTAs an SM, a |u1 chunk on the library's path) and norm-warp
 * (ans_norm_kernels.cuh: the library's encoder with its normalisation on
 * warp 0 instead of thread 0) and norm-warp-hist (the same, and 1-byte
 * data's histogram by per-warp shared atomics instead of match_any) are
 * timed and must write the same bytes.  --enc-only: stop after them;
 * --no-staged: skip the staged encoder (ncu: one launch of each kernel name).
 * --small: 16 MiB instead of 1 GiB (compute-sanitizer); --only: just
 * the decoder variants named (the first one named is the ratios' base).
 * Exit status 0
 * only if every output matched the input and every encoder wrote the
 * library's bytes (a differing encoder does not stop the decoders).
 * Session 11: one-99, one-99fs, one-99f, one-137f, one-61f and one-gf
 * (ans_one_kernels.cuh: each tile coded once, its words staged a lane at
 * a time in shared memory of 99, 137 or 61 words a lane, or in a global
 * slab, then copied to their places; "f": the fast step and a histogram
 * of 16-byte loads, "fs": the fast step alone; the count of
 * tiles coded twice because a stage overflowed is printed) are timed and
 * compared the same way; --enc E1,E2: only the
 * encoders named besides the library (the base).  one-lib (one-99f with
 * the library's duties: long chunks, faster re-coding) moved into the
 * library after call B of session 11 (with 61-word stages for 16-bit
 * data, one-61f's); --chunk BYTES: chunks of that size (1 MiB: 64 tiles a
 * chunk; an odd size: unaligned chunks and outputs) instead of 64 KiB.
 * w2-61, w2-75 (ans_w_kernels.cuh): the library's encoder in CTAs of 2
 * warps with stages of 61 or 75 words (for bf16's 2 tiles a chunk).
 * Session 12 (ans_e12_kernels.cuh: the library's encoder in CTAs of W
 * warps, chunks of more tiles than W in rounds of W tiles coded once):
 * e-base (W 4, S 99: the library's choices), e-prof (with clock64 probes:
 * cycles a chunk by phase, printed), e-hist (bytes counted into 32 lane
 * columns), e-deep (symbols loaded 3 blocks ahead), e-all (e-hist and
 * e-deep); for 16-bit data
 * e-prof61 (W 4, S 61, probed), r2-61 (W 2: both warps code a bf16 chunk's
 * 2 tiles), r2-61d (and loads 3 blocks ahead), r2-prof (r2-61 probed);
 * e-occ3, e-occ2: e-base held to 3 and 2 CTAs an SM (extra shared memory).
 * After call B: the library writes the table from shared memory, codes
 * 16-bit data in 2-warp CTAs and long chunks in rounds; e-base (text) and
 * e-base61 (16-bit) are its encoder before; e-tw (e-base with the table
 * from shared memory), e-tw-prof and r2-tw-prof (probed); r2-tw: the
 * library after call B (16-bit data's histogram by match_any, vectors only
 * from an aligned chunk), before its lane columns and vectors at any
 * alignment; e-tw-occ3, e-tw-occ2: e-tw held to 3 and 2 CTAs an SM.
 */
#define oc_gpu_codec_ans oc_gpu_codec_ans_dev_copy
#include "cuda/codecs/ans/ans_kernels.cu"
#undef oc_gpu_codec_ans
#include "ans_enc2_kernels.cuh"
#include "ans_in_kernels.cuh"
#include "ans_norm_kernels.cuh"
#include "ans_one_kernels.cuh"
#include "ans_w_kernels.cuh"
#include "ans_e12_kernels.cuh"
#include "ans_pool_kernels.cuh"
#include "ans_win_kernels.cuh"
namespace staged
{
#include "ans_staged_kernels.cuh"
}

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

/* ---- the probed copy of ans_k_groups --------------------------------------------- */

#define NPROF 16
__device__ unsigned long long g_prof[NPROF];
enum {
    P_GROUPS,
    P_FIND,
    P_SPAN_TABLE,
    P_FILL,
    P_WAIT,
    P_DEC_ST,
    P_N_ST,
    P_DEC_GL,
    P_N_GL,
    P_TAIL,
    P_TOTAL,
    P_STEPS_ST,
    P_STEPS_GL
};

static __device__ __forceinline__ unsigned long long dev_clock(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

namespace staged
{
/* The staged ans_k_groups (ans_staged_kernels.cuh) line for line, plus: PROF,
 * the probes; FILL, the decode table fill: 0 the staged one (a warp per
 * symbol), 1 over the present symbols only (a ballot over 32 symbols at a
 * time, then the warp's lanes over each present symbol's slots), 2 the
 * library's ans_fill_table (with 2 this is the library's decoder before
 * its ring fallback, no-ringfb). */
template <bool PROF, int FILL>
static __global__ void __launch_bounds__(POOL_DTHREADS)
    ans_k_groups_dev(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                     own_batch_scratch s)
{
    extern __shared__ uint32_t ans_sm[];
    __shared__ uint16_t f[256], c[256];
    __shared__ uint32_t pb;
    __shared__ size_t chunk;
    __shared__ ans_chunk k;
    uint32_t *dt = ans_sm;
    unsigned long long total = s.first[n];
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t pool = (uint32_t)__cvta_generic_to_shared(ans_sm + ANS_DT_FAST);
    (void)src_sizes;
    for (unsigned long long g = blockIdx.x; g < total; g += gridDim.x) {
        unsigned long long t0 = PROF ? dev_clock() : 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0;
        if (warp == 0) {
            size_t ci = oc_chunk_of_warp(s.first, n, g);
            if (lane == 0) {
                chunk = ci;
                ans_chunk_geometry((const uint8_t *)src[ci], &k);
            }
        }
        __syncthreads();
        if (PROF)
            t1 = dev_clock();
        size_t i = chunk;
        const uint8_t *p = (const uint8_t *)src[i];
        uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
        uint32_t group = (uint32_t)(g - s.first[i]);
        uint64_t first = (uint64_t)group * POOL_GROUP;
        uint64_t last = first + POOL_GROUP < k.sh.nsym ? first + POOL_GROUP : k.sh.nsym;
        bool staged = false, has = false;
        uint32_t cnt = 0;
        if (k.mode == 1) {
            uint32_t tile = group * POOL_DWARPS + warp, stage = 0;
            has = tile < k.sh.ntiles;
            uint64_t a = 0, b = 0, tfirst = (uint64_t)tile * ANS_TILE;
            oc_status st = OC_OK;
            if (has) {
                st = own_tile_span(p, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
                int64_t off = -1;
                if (st == OC_OK && k.version >= 2 && __ldg(p + k.tables) <= ANS_PB &&
                    ((uintptr_t)(p + a) & 3u) == 0 && b - a >= ANS2_TILE_HEAD)
                    off = (ans_pool_place)(p, &k, group * POOL_DWARPS, tile, a, b);
                staged = off >= 0;
                if (staged) {
                    const uint8_t *w = p + a + ANS2_TILE_HEAD;
                    uint32_t nwords = (uint32_t)((b - a - ANS2_TILE_HEAD) / 4u);
                    stage = pool + (uint32_t)off;
                    for (uint32_t j = lane; j < nwords; j += 32)
                        ans_stage_word(stage + 4u * j, w + 4ull * j);
                    asm volatile("cp.async.commit_group;" ::: "memory");
                }
            }
            if (warp == 0)
                ans_warp_table(p + k.tables, &pb, f, c);
            __syncthreads();
            if (PROF)
                t2 = dev_clock();
            bool fast = k.version >= 2 && pb <= 11u;
            if (FILL == 2) {
                pool::ans_fill_table(dt, f, c, pb, fast);
            } else if (FILL == 1) {
                for (uint32_t s0 = warp * 32u; s0 < 256; s0 += 32u * POOL_DWARPS) {
                    uint32_t fl = f[s0 + lane], cl = c[s0 + lane];
                    uint32_t m = __ballot_sync(OWN_FULL, fl != 0);
                    while (m) {
                        uint32_t b0 = (uint32_t)__ffs((int)m) - 1u;
                        m &= m - 1u;
                        uint32_t fs = __shfl_sync(OWN_FULL, fl, b0), cs = __shfl_sync(OWN_FULL, cl, b0);
                        uint32_t sym = s0 + b0;
                        for (uint32_t j = lane; j < fs; j += 32)
                            dt[cs + j] =
                                fast ? sym | (j << 8) | (fs << 20) : sym | ((fs - 1u) << 8) | (j << 20);
                    }
                }
            } else {
                for (uint32_t sym = warp; sym < 256; sym += POOL_DWARPS)
                    for (uint32_t j = lane; j < f[sym]; j += 32)
                        dt[c[sym] + j] = fast ? sym | (j << 8) | ((uint32_t)f[sym] << 20)
                                              : sym | ((uint32_t)(f[sym] - 1u) << 8) | (j << 20);
            }
            __syncthreads();
            if (PROF)
                t3 = dev_clock();
            if (has) {
                if (staged)
                    ans_stage_wait();
                if (PROF)
                    t4 = dev_clock();
                if (st == OC_OK) {
                    cnt = (uint32_t)(k.sh.nsym - tfirst < ANS_TILE ? k.sh.nsym - tfirst : ANS_TILE);
                    uint8_t *o = d ? d + (k.sh.split ? 2 * tfirst + 1 : tfirst) : NULL;
                    const uint8_t *lo = p + k.limit + tfirst;
                    st = o ? ans_decode_any<true>(k.version, dt, pb, p + a, b - a, cnt, o,
                                                  k.sh.split ? 2u : 1u, lo, staged, stage)
                           : ans_decode_any<false>(k.version, dt, pb, p + a, b - a, cnt, o, 1u, lo, staged,
                                                   stage);
                }
                if (PROF)
                    t5 = dev_clock();
                if (st != OC_OK && lane == 0)
                    atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
            }
        }
        if (d && (k.mode == 0 || (k.sh.split && k.version == 1))) {
            for (uint64_t j = first + threadIdx.x; j < last; j += POOL_DTHREADS) {
                if (k.sh.split) {
                    d[2 * j] = p[k.limit + j];
                    if (k.mode == 0)
                        d[2 * j + 1] = p[k.raw + j];
                } else if (k.mode == 0) {
                    d[j] = p[k.raw + j];
                }
            }
        }
        __syncthreads();
        if (PROF && lane == 0) {
            unsigned long long t6 = dev_clock();
            if (warp == 0) {
                atomicAdd(&g_prof[P_GROUPS], 1ull);
                atomicAdd(&g_prof[P_FIND], t1 - t0);
                atomicAdd(&g_prof[P_SPAN_TABLE], t2 - t1);
                atomicAdd(&g_prof[P_FILL], t3 - t2);
                atomicAdd(&g_prof[P_TOTAL], t6 - t0);
            }
            if (has && k.mode == 1) {
                atomicAdd(&g_prof[P_WAIT], t4 - t3);
                atomicAdd(&g_prof[staged ? P_DEC_ST : P_DEC_GL], t5 - t4);
                atomicAdd(&g_prof[staged ? P_N_ST : P_N_GL], 1ull);
                atomicAdd(&g_prof[staged ? P_STEPS_ST : P_STEPS_GL], (unsigned long long)(cnt + 31u) / 32u);
                atomicAdd(&g_prof[P_TAIL], t6 - t5);
            }
        }
    }
}
} // namespace staged

/* ---- harness ---------------------------------------------------------------------- */

static __global__ void k_count_diff(const uint8_t *a, const uint8_t *b, size_t n, unsigned long long *bad)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long c = 0;
    for (; i < n / 16; i += stride) {
        uint4 x = ((const uint4 *)a)[i], y = ((const uint4 *)b)[i];
        c += (x.x != y.x) + (x.y != y.y) + (x.z != y.z) + (x.w != y.w);
    }
    if (c)
        atomicAdd(bad, c);
}

/* smem for `kern` at `threads` so that at most `per` CTAs fit an SM (0: none found) */
static size_t smem_for_occupancy(const void *kern, int threads, size_t base, int per)
{
    for (size_t sm = base; sm <= 227 * 1024; sm += 256) {
        int got = 0;
        cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm);
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, kern, threads, sm) != cudaSuccess)
            return 0;
        if (got <= per)
            return got == per ? sm : 0;
    }
    return 0;
}

/* whether `name` is one of the comma-separated names of `list` */
static bool name_listed(const char *list, const char *name)
{
    size_t L = strlen(name);
    const char *at = strstr(list, name);
    while (at && !((at == list || at[-1] == ',') && (at[L] == ',' || at[L] == 0)))
        at = strstr(at + 1, name);
    return at != NULL;
}

int main(int argc, char **argv)
{
    const char *file = NULL, *only = NULL, *enc = NULL;
    int reps = 5, small = 0, mib = 1024, enc_only = 0, no_staged = 0;
    size_t chunk = 65536;
    oc_data_type dtype = OC_TYPE_U8;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--dtype") && a + 1 < argc) {
            a++;
            dtype = !strcmp(argv[a], "bf16") ? OC_TYPE_BF16 : OC_TYPE_U8;
        } else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--mib") && a + 1 < argc) {
            mib = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--small")) {
            small = 1;
        } else if (!strcmp(argv[a], "--enc-only")) {
            enc_only = 1;
        } else if (!strcmp(argv[a], "--no-staged")) {
            no_staged = 1;
        } else if (!strcmp(argv[a], "--only") && a + 1 < argc) {
            only = argv[++a];
        } else if (!strcmp(argv[a], "--enc") && a + 1 < argc) {
            enc = argv[++a];
        } else if (!strcmp(argv[a], "--chunk") && a + 1 < argc) {
            chunk = (size_t)strtoull(argv[++a], NULL, 10);
        } else {
            file = argv[a];
        }
    }
    if (!file) {
        fprintf(stderr, "usage: ans_dev [--dtype u1|bf16] [--reps N] [--mib M] [--small] [--enc-only] "
                        "[--no-staged] [--only V1,V2] [--enc E1,E2] [--chunk BYTES] FILE\n");
        return 2;
    }
    FILE *fp = fopen(file, "rb");
    if (!fp) {
        perror(file);
        return 2;
    }
    if (chunk < 1024 || chunk > (64u << 20)) {
        fprintf(stderr, "--chunk: 1 KiB to 64 MiB\n");
        return 2;
    }
    const size_t CH = chunk, want = small ? (16u << 20) : (size_t)(mib > 0 ? mib : 1024) << 20, n = want / CH,
                 total = n * CH;
    std::vector<uint8_t> host(64u << 20);
    size_t got = fread(host.data(), 1, host.size(), fp);
    fclose(fp);
    got -= got % CH;
    if (got == 0) {
        fprintf(stderr, "%s: under 64 KiB\n", file);
        return 2;
    }
    uint8_t *in, *comp, *out, *fdev;
    CUDA_OK(cudaMalloc(&fdev, got));
    CUDA_OK(cudaMemcpy(fdev, host.data(), got, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&in, total));
    for (size_t at = 0; at < total; at += got)
        CUDA_OK(cudaMemcpy(in + at, fdev, std::min(got, total - at), cudaMemcpyDeviceToDevice));
    const size_t CAP = CH + 4096;
    CUDA_OK(cudaMalloc(&comp, n * CAP));
    CUDA_OK(cudaMalloc(&out, total));
    std::vector<const void *> hin(n), hcomp(n);
    std::vector<void *> hcompw(n), hout(n);
    std::vector<size_t> hsz(n, CH), hcap(n, CAP), hocap(n, CH);
    for (size_t i = 0; i < n; i++) {
        hin[i] = in + i * CH;
        hcompw[i] = comp + i * CAP;
        hout[i] = out + i * CH;
    }
    void **d_in, **d_comp, **d_out;
    size_t *d_sz, *d_cap, *d_csz, *d_ocap, *d_osz;
    oc_status *d_st;
    CUDA_OK(cudaMalloc(&d_in, n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d_comp, n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d_out, n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d_sz, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_cap, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_csz, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_ocap, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_osz, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_st, n * sizeof(oc_status)));
    CUDA_OK(cudaMemcpy(d_in, hin.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_comp, hcompw.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_out, hout.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_sz, hsz.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_cap, hcap.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_ocap, hocap.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));

    oc_gpu_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.typed.data_type = dtype;
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    std::vector<oc_status> hst(n);
    std::vector<size_t> hcsz(n);

    /* compress: the library's encoder and the variants (each must write the library's bytes),
     * each timed (median of reps after a warm-up) */
    /* the library's encoder before session 11 (ans_enc2_kernels.cuh): two passes a tile */
    own_gpu_kernels kenc_two = ans_kernels;
    kenc_two.encode = (const void *)ans_k_encode_two;
    kenc_two.encode_smem = 0;
    own_gpu_kernels kenc_staged = ans_kernels;
    kenc_staged.encode = (const void *)staged::ans_k_encode;
    kenc_staged.encode_smem = 0;
    kenc_staged.encode_args = staged::ans_encode_args;
    /* staged-in with a 64 KiB stage (any 64 KiB chunk staged), and with 32 KiB (a bf16 chunk
     * staged, more CTAs an SM; a |u1 chunk takes the library's path: that path's bytes) */
    own_gpu_kernels kenc_in = ans_kernels, kenc_in32 = ans_kernels;
    kenc_in.encode = kenc_in32.encode = (const void *)ans_k_encode_in;
    kenc_in.encode_smem = 65536;
    kenc_in32.encode_smem = 32768;
    own_gpu_kernels kenc_nw = ans_kernels, kenc_nwh = ans_kernels;
    kenc_nw.encode = (const void *)ans_k_encode_nw<false>;
    kenc_nwh.encode = (const void *)ans_k_encode_nw<true>;
    kenc_nw.encode_smem = kenc_nwh.encode_smem = 0;
    /* one pass (ans_one_kernels.cuh): shared stages of S words a lane (4, 3 and 6 CTAs an SM),
     * or a global slab; "f": the fast step (one 16-byte entry, no branch, unguarded blocks) and
     * the histogram from 16-byte loads; "fs": the fast step with the histogram of one-99 */
    own_gpu_kernels kone99 = ans_kernels, kone99fs = ans_kernels, kone99f = ans_kernels,
                    kone137f = ans_kernels, kone61f = ans_kernels, konegf = ans_kernels;
    kone99.encode = (const void *)ans_k_encode_one<99, false, false, false>;
    kone99.encode_smem = 99u * 512u;
    kone99fs.encode = (const void *)ans_k_encode_one<99, false, true, false>;
    kone99fs.encode_smem = 99u * 512u;
    kone99f.encode = (const void *)ans_k_encode_one<99, false, true, true>;
    kone99f.encode_smem = 99u * 512u;
    kone137f.encode = (const void *)ans_k_encode_one<137, false, true, true>;
    kone137f.encode_smem = 137u * 512u;
    kone61f.encode = (const void *)ans_k_encode_one<61, false, true, true>;
    kone61f.encode_smem = 61u * 512u;
    konegf.encode = (const void *)ans_k_encode_one<513, true, true, true>;
    konegf.encode_smem = 0;
    {
        int dev = 0, sms = 0, per = 0;
        CUDA_OK(cudaGetDevice(&dev));
        CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, konegf.encode, (int)ANS_THREADS, 0));
        uint32_t *gst;
        CUDA_OK(cudaMalloc(&gst, (size_t)sms * per * ANS_WARPS * 32u * 513u * 4u));
        CUDA_OK(cudaMemcpyToSymbol(ans_one_gstage, &gst, sizeof gst));
    }
    /* the library's encoder with CTAs of 2 warps (ans_w_kernels.cuh): bf16's 2 tiles a chunk */
    own_gpu_kernels kw261 = ans_kernels, kw275 = ans_kernels;
    kw261.encode = (const void *)ans_k_encode_w<61, 2>;
    kw261.encode_threads = 64;
    kw261.encode_smem = 2u * 32u * 61u * 4u;
    kw275.encode = (const void *)ans_k_encode_w<75, 2>;
    kw275.encode_threads = 64;
    kw275.encode_smem = 2u * 32u * 75u * 4u;
    /* session 12 (ans_e12_kernels.cuh): the library's encoder with probes, lane-column histogram,
     * paired stages */
    own_gpu_kernels kebase = ans_kernels, keprof = ans_kernels, kehist = ans_kernels, kedeep = ans_kernels,
                    keall = ans_kernels, keprof61 = ans_kernels, kr261 = ans_kernels, kr261d = ans_kernels,
                    kr2prof = ans_kernels;
    kebase.encode = (const void *)ans_k_encode_e<99, 4, 0, false, false, 1>;
    keprof.encode = (const void *)ans_k_encode_e<99, 4, 0, false, true, 1>;
    kehist.encode = (const void *)ans_k_encode_e<99, 4, 1, false, false, 1>;
    kedeep.encode = (const void *)ans_k_encode_e<99, 4, 0, false, false, 3>;
    keall.encode = (const void *)ans_k_encode_e<99, 4, 1, false, false, 3>;
    keprof61.encode = (const void *)ans_k_encode_e<61, 4, 0, false, true, 1>;
    keprof61.encode_smem = ANS_ENC_SMEM(61u);
    kr261.encode = (const void *)ans_k_encode_e<61, 2, 0, false, false, 1>;
    kr261d.encode = (const void *)ans_k_encode_e<61, 2, 0, false, false, 3>;
    kr2prof.encode = (const void *)ans_k_encode_e<61, 2, 0, false, true, 1>;
    kr261.encode_threads = kr261d.encode_threads = kr2prof.encode_threads = 64;
    kr261.encode_smem = kr261d.encode_smem = kr2prof.encode_smem = 2u * 32u * 61u * 4u;
    /* the table written from shared memory (the library's since session 12; e-base: thread 0's writer) */
    own_gpu_kernels ketw = ans_kernels, ketwprof = ans_kernels, kebase61 = ans_kernels,
                    kr2twprof = ans_kernels;
    ketw.encode = (const void *)ans_k_encode_e<99, 4, 0, false, false, 1, true>;
    ketwprof.encode = (const void *)ans_k_encode_e<99, 4, 0, false, true, 1, true>;
    kebase61.encode = (const void *)ans_k_encode_e<61, 4, 0, false, false, 1, false>;
    kebase61.encode_smem = ANS_ENC_SMEM(61u);
    kr2twprof.encode = (const void *)ans_k_encode_e<61, 2, 0, false, true, 1, true>;
    kr2twprof.encode_threads = 64;
    kr2twprof.encode_smem = 2u * 32u * 61u * 4u;
    /* e-tw held to 3 and 2 CTAs an SM: the warps' worth once the table no longer serialises the chunk */
    own_gpu_kernels ketwocc3 = ketw, ketwocc2 = ketw;
    ketwocc3.encode_smem = smem_for_occupancy(ketw.encode, (int)ANS_THREADS, ketw.encode_smem, 3);
    ketwocc2.encode_smem = smem_for_occupancy(ketw.encode, (int)ANS_THREADS, ketw.encode_smem, 2);
    if (!ketwocc3.encode_smem)
        ketwocc3.encode_smem = ketw.encode_smem;
    if (!ketwocc2.encode_smem)
        ketwocc2.encode_smem = ketw.encode_smem;
    own_gpu_kernels kr2tw = kr2twprof; /* the library after call B, before its 16-bit lane-column histogram */
    kr2tw.encode = (const void *)ans_k_encode_e<61, 2, 0, false, false, 1, true>;
    /* e-base held to 3 and 2 CTAs an SM by more dynamic shared memory: how the rate follows the warps */
    own_gpu_kernels keocc3 = kebase, keocc2 = kebase;
    keocc3.encode_smem = smem_for_occupancy(kebase.encode, (int)ANS_THREADS, kebase.encode_smem, 3);
    keocc2.encode_smem = smem_for_occupancy(kebase.encode, (int)ANS_THREADS, kebase.encode_smem, 2);
    if (!keocc3.encode_smem)
        keocc3.encode_smem = kebase.encode_smem;
    if (!keocc2.encode_smem)
        keocc2.encode_smem = kebase.encode_smem;
    /* the library's encoder for the data's width (its 16-bit table: smaller stages) */
    const own_gpu_kernels *klib = dtype == OC_TYPE_BF16 ? &ans_kernels_w2 : &ans_kernels;
    const own_gpu_kernels *eks[] = {
        klib,      &kenc_staged, &kenc_in,   &kenc_in32, &kenc_nw,  &kenc_nwh, &kone99, &kone99fs, &kone99f,
        &kone137f, &kone61f,     &konegf,    &kenc_two,  &kw261,    &kw275,    &kebase, &keprof,   &kehist,
        &kedeep,   &keall,       &keprof61,  &kr261,     &kr261d,   &kr2prof,  &keocc3, &keocc2,   &ketw,
        &ketwprof, &kebase61,    &kr2twprof, &kr2tw,     &ketwocc3, &ketwocc2};
    const char *enames[] = {
        "library",  "staged",     "staged-in", "staged-in-32k", "norm-warp", "norm-warp-hist", "one-99",
        "one-99fs", "one-99f",    "one-137f",  "one-61f",       "one-gf",    "two-pass",       "w2-61",
        "w2-75",    "e-base",     "e-prof",    "e-hist",        "e-deep",    "e-all",          "e-prof61",
        "r2-61",    "r2-61d",     "r2-prof",   "e-occ3",        "e-occ2",    "e-tw",           "e-tw-prof",
        "e-base61", "r2-tw-prof", "r2-tw",     "e-tw-occ3",     "e-tw-occ2"};
    const int NE = (int)(sizeof eks / sizeof eks[0]);
    /* the encoders to run: the library always (the base), the others unless --no-staged (staged)
     * or --enc names a list without them */
    auto eskip = [&](int e) {
        if (e == 0)
            return false;
        if (no_staged && e == 1)
            return true;
        return enc && !name_listed(enc, enames[e]);
    };
    std::vector<uint8_t *> ecomp(NE);
    std::vector<void **> edst(NE);
    std::vector<size_t *> esz(NE);
    std::vector<double> cgbs(NE, 0.0);
    ecomp[0] = comp;
    edst[0] = d_comp;
    esz[0] = d_csz;
    CUDA_OK(cudaMemset(comp, 0, n * CAP));
    for (int e = 1; e < NE; e++) {
        if (eskip(e))
            continue;
        CUDA_OK(cudaMalloc(&ecomp[e], n * CAP));
        CUDA_OK(cudaMemset(ecomp[e], 0, n * CAP));
        CUDA_OK(cudaMalloc(&esz[e], n * sizeof(size_t)));
        std::vector<void *> hc(n);
        for (size_t i = 0; i < n; i++)
            hc[i] = ecomp[e] + i * CAP;
        CUDA_OK(cudaMalloc(&edst[e], n * sizeof(void *)));
        CUDA_OK(cudaMemcpy(edst[e], hc.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    }
    float ms = 0;
    for (int e = 0; e < NE; e++) {
        if (eskip(e))
            continue;
        std::vector<float> t;
        int per = 0;
        CUDA_OK(cudaFuncSetAttribute(eks[e]->encode, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)eks[e]->encode_smem));
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per, eks[e]->encode, (int)eks[e]->encode_threads, eks[e]->encode_smem));
        printf("encoder %-14s: %d CTAs an SM, %zu bytes of dynamic shared memory\n", enames[e], per,
               eks[e]->encode_smem);
        unsigned long long ovf = 0, pz[10] = {0};
        CUDA_OK(cudaMemcpyToSymbol(ans_one_overflows, &ovf, sizeof ovf));
        CUDA_OK(cudaMemcpyToSymbol(ans_e_prof, pz, sizeof pz));
        for (int r = 0; r < reps + 1; r++) {
            CUDA_OK(cudaEventRecord(e0));
            if (oc_own_gpu_compress(eks[e], &cfg, n, (const void *const *)d_in, d_sz, edst[e], d_cap, esz[e],
                                    d_st, 0) != OC_OK) {
                fprintf(stderr, "compress launch failed\n");
                return 2;
            }
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (r || reps == 0) /* --reps 0: one call (ncu) */
                t.push_back(ms);
        }
        CUDA_OK(cudaMemcpyFromSymbol(&ovf, ans_one_overflows, sizeof ovf));
        if ((e >= 6 && e <= 11) || e >= 15)
            printf("encoder %-14s: %llu tiles of %zu re-coded (a lane's stage overflowed)\n", enames[e],
                   ovf / (unsigned long long)(reps + 1),
                   n * ((CH / (dtype == OC_TYPE_BF16 ? 2 : 1) + ANS_TILE - 1) / ANS_TILE));
        if (strstr(enames[e], "prof")) { /* cycles a chunk by phase, over all runs */
            unsigned long long h[10];
            CUDA_OK(cudaMemcpyFromSymbol(h, ans_e_prof, sizeof h));
            double W = h[7] ? (double)h[7] : 1.0, Cw = h[8] ? (double)h[8] : 1.0;
            printf(
                "encoder %-14s: cycles a warp a chunk (%llu warp-chunks, %llu coded tiles, %llu overflowed): "
                "total %.0f = histogram %.0f + table %.0f + coding %.0f (a coding warp: %.0f, %.1f a step) "
                "+ wait at the rounds' barriers %.0f + places/copy-out/re-code %.0f + the rest %.0f\n",
                enames[e], h[7], h[8], h[9], h[6] / W, h[0] / W, h[1] / W, h[2] / W, h[2] / Cw,
                h[2] / Cw / 512.0, h[3] / W, h[4] / W, h[5] / W);
        }
        std::sort(t.begin(), t.end());
        cgbs[e] = total / (t[t.size() / 2] * 1e6);
        CUDA_OK(cudaMemcpy(hst.data(), d_st, n * sizeof(oc_status), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++) {
            if (hst[i] != OC_OK) {
                fprintf(stderr, "%s encoder, chunk %zu: compress status %d\n", enames[e], i, (int)hst[i]);
                return 1;
            }
        }
    }
    CUDA_OK(cudaMemcpy(hcsz.data(), d_csz, n * sizeof(size_t), cudaMemcpyDeviceToHost));
    size_t csum = 0;
    for (size_t i = 0; i < n; i++)
        csum += hcsz[i];
    unsigned long long *d_cbad;
    CUDA_OK(cudaMalloc(&d_cbad, sizeof *d_cbad));
    printf("%s %s: %zu chunks of %zu bytes, ratio %.4f, compress: library %.1f GB/s\n", file,
           dtype == OC_TYPE_BF16 ? "bf16" : "|u1", n, CH, (double)total / (double)csum, cgbs[0]);
    int enc_fail = 0;
    for (int e = 1; e < NE; e++) {
        if (eskip(e))
            continue;
        std::vector<size_t> hz(n);
        CUDA_OK(cudaMemcpy(hz.data(), esz[e], n * sizeof(size_t), cudaMemcpyDeviceToHost));
        int same = 1;
        for (size_t i = 0; i < n; i++)
            same &= hz[i] == hcsz[i];
        unsigned long long cbad = 0;
        /* whole slots compared: all were zeroed, and the encoders wrote the same sizes */
        CUDA_OK(cudaMemset(d_cbad, 0, sizeof *d_cbad));
        k_count_diff<<<1024, 256>>>(comp, ecomp[e], n * CAP, d_cbad);
        CUDA_OK(cudaMemcpy(&cbad, d_cbad, sizeof cbad, cudaMemcpyDeviceToHost));
        printf("compress %-14s %.1f GB/s (%.2fx library); %s\n", enames[e], cgbs[e],
               cgbs[0] ? cgbs[e] / cgbs[0] : 0.0, same && !cbad ? "writes the library's bytes" : "DIFFERS");
        enc_fail |= !same || cbad;
    }
    if (enc_only)
        return enc_fail;

    size_t scr_size = oc_own_gpu_decompress_scratch(&cfg, n);
    void *scr;
    CUDA_OK(cudaMalloc(&scr, scr_size));
    unsigned long long *d_bad;
    CUDA_OK(cudaMalloc(&d_bad, sizeof *d_bad));

    struct variant {
        const char *name;
        own_gpu_kernels k;
        int sizes_only, prof;
    };
    std::vector<variant> vs;
    vs.push_back({"library", ans_kernels, 0, 0});
    own_gpu_kernels kpool = ans_kernels; /* the library before session 10 */
    kpool.headers = (const void *)pool::ans_k_headers;
    kpool.tiles = (const void *)pool::ans_k_groups;
    kpool.tile_threads = POOL_DTHREADS;
    kpool.tile_smem = POOL_SMEM;
    vs.push_back({"pool", kpool, 0, 0});
    /* design (a): per-lane word windows, NW warps a CTA sharing the table (ans_win_kernels.cuh) */
    own_gpu_kernels kw432 = ans_kernels, kw416 = ans_kernels, kw232 = ans_kernels;
    kw432.headers = (const void *)ans_k_headers_w<4>;
    kw432.tiles = (const void *)ans_k_groups_win<4, 32, false>;
    kw432.tile_threads = 4 * 32;
    kw432.tile_smem = ANSW_SMEM(4u, 32u);
    kw416.headers = (const void *)ans_k_headers_w<4>;
    kw416.tiles = (const void *)ans_k_groups_win<4, 16, false>;
    kw416.tile_threads = 4 * 32;
    kw416.tile_smem = ANSW_SMEM(4u, 16u);
    kw232.headers = (const void *)ans_k_headers_w<2>;
    kw232.tiles = (const void *)ans_k_groups_win<2, 32, false>;
    kw232.tile_threads = 2 * 32;
    kw232.tile_smem = ANSW_SMEM(2u, 32u);
    own_gpu_kernels kw432c = kw432, kw232c = kw232;
    kw432c.tiles = (const void *)ans_k_groups_win<4, 32, true>;
    kw232c.tiles = (const void *)ans_k_groups_win<2, 32, true>;
    vs.push_back({"win4-32", kw432, 0, 0});
    vs.push_back({"win4c-32", kw432c, 0, 0});
    vs.push_back({"win2c-32", kw232c, 0, 0});
    vs.push_back({"win4-16", kw416, 0, 0});
    vs.push_back({"win2-32", kw232, 0, 0});
    own_gpu_kernels knr = ans_kernels;                 /* the library before its ring fallback */
    knr.headers = (const void *)staged::ans_k_headers; /* groups of 2 tiles */
    knr.tiles = (const void *)staged::ans_k_groups_dev<false, 2>;
    knr.tile_threads = POOL_DTHREADS;
    knr.tile_smem = STAGED_SMEM;
    vs.push_back({"no-ringfb", knr, 0, 0});
    vs.push_back({"sizes-only", ans_kernels, 1, 0});
    int per = 0;
    CUDA_OK(cudaFuncSetAttribute(ans_kernels.tiles, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)ans_kernels.tile_smem));
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per, ans_kernels.tiles, (int)ans_kernels.tile_threads, ans_kernels.tile_smem));
    printf("library: %d CTAs of %u threads an SM, %zu bytes of dynamic shared memory\n", per,
           ans_kernels.tile_threads, ans_kernels.tile_smem);
    static char names[3][16];
    int targets[3] = {per * 3 / 4, per / 2, per / 4};
    for (int j = 0; j < 3; j++) {
        int occ = targets[j];
        if (occ < 1 || occ >= per)
            continue;
        size_t sm =
            smem_for_occupancy(ans_kernels.tiles, (int)ans_kernels.tile_threads, ans_kernels.tile_smem, occ);
        if (!sm)
            continue;
        own_gpu_kernels k2 = ans_kernels;
        k2.tile_smem = sm;
        snprintf(names[j], sizeof names[j], "occ-%d", occ);
        vs.push_back({names[j], k2, 0, 0});
    }
    own_gpu_kernels ks = ans_kernels; /* the decoder before session 6 */
    ks.headers = (const void *)staged::ans_k_headers;
    ks.tiles = (const void *)staged::ans_k_groups;
    ks.tile_threads = POOL_DTHREADS;
    ks.tile_smem = STAGED_SMEM;
    vs.push_back({"staged", ks, 0, 0});
    own_gpu_kernels kf = ks;
    kf.tiles = (const void *)staged::ans_k_groups_dev<false, 1>;
    vs.push_back({"staged-fill", kf, 0, 0});
    own_gpu_kernels kp = ks;
    kp.tiles = (const void *)staged::ans_k_groups_dev<true, 2>;
    vs.push_back({"prof", kp, 0, 1});

    int fails = 0;
    double base = 0;
    const char *base_name = "library";
    for (const variant &v : vs) {
        if (only && !name_listed(only, v.name))
            continue;
        auto launch = [&]() {
            return v.sizes_only ? oc_own_gpu_sizes(&v.k, scr, scr_size, n, (const void *const *)d_comp, d_csz,
                                                   d_osz, d_st, 0)
                                : oc_own_gpu_decompress(&v.k, scr, scr_size, n, (const void *const *)d_comp,
                                                        d_csz, d_out, d_ocap, d_osz, d_st, 0);
        };
        if (strncmp(v.name, "win", 3) == 0) {
            int vper = 0;
            CUDA_OK(cudaFuncSetAttribute(v.k.tiles, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)v.k.tile_smem));
            CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&vper, v.k.tiles, (int)v.k.tile_threads,
                                                                  v.k.tile_smem));
            printf("%s: %d CTAs of %u threads an SM, %zu bytes of dynamic shared memory\n", v.name, vper,
                   v.k.tile_threads, v.k.tile_smem);
        }
        /* check */
        CUDA_OK(cudaMemset(out, 0, total));
        CUDA_OK(cudaMemset(d_st, 0xff, n * sizeof(oc_status)));
        if (launch() != OC_OK) {
            printf("%-12s launch failed\n", v.name);
            fails++;
            continue;
        }
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemcpy(hst.data(), d_st, n * sizeof(oc_status), cudaMemcpyDeviceToHost));
        std::vector<size_t> hosz(n);
        CUDA_OK(cudaMemcpy(hosz.data(), d_osz, n * sizeof(size_t), cudaMemcpyDeviceToHost));
        size_t badst = 0;
        for (size_t i = 0; i < n; i++)
            badst += hst[i] != OC_OK || hosz[i] != CH;
        unsigned long long bad = 0;
        if (!v.sizes_only) {
            CUDA_OK(cudaMemset(d_bad, 0, sizeof *d_bad));
            k_count_diff<<<1024, 256>>>(in, out, total, d_bad);
            CUDA_OK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        }
        if (badst || bad) {
            printf("%-12s FAILED: %zu chunks with a bad status or size, %llu words differ\n", v.name, badst,
                   bad);
            fails++;
            continue;
        }
        /* time */
        std::vector<float> t;
        unsigned long long zero[NPROF] = {0};
        for (int r = 0; r < reps; r++) {
            if (v.prof)
                CUDA_OK(cudaMemcpyToSymbol(g_prof, zero, sizeof zero));
            CUDA_OK(cudaEventRecord(e0));
            launch();
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        double gbs = total / (t[t.size() / 2] * 1e6);
        if (!base) {
            base = gbs;
            base_name = v.name;
        }
        printf("%-12s %8.1f GB/s  %.2fx %s\n", v.name, gbs, base ? gbs / base : 0.0, base_name);
        if (v.prof) {
            unsigned long long h[NPROF];
            CUDA_OK(cudaMemcpyFromSymbol(h, g_prof, sizeof h));
            double G = (double)(h[P_GROUPS] ? h[P_GROUPS] : 1), NT = (double)(h[P_N_ST] + h[P_N_GL]);
            printf(
                "  per group (cycles, %llu groups, last run): total %.0f = find+geometry %.0f, spans+stage "
                "issue+table read %.0f, fill %.0f, then per tile: staging wait %.0f, tail %.0f\n",
                h[P_GROUPS], h[P_TOTAL] / G, h[P_FIND] / G, h[P_SPAN_TABLE] / G, h[P_FILL] / G,
                NT ? h[P_WAIT] / NT : 0.0, NT ? h[P_TAIL] / NT : 0.0);
            printf("  tile decode: staged %llu tiles, %.0f cycles a tile, %.1f a step; global %llu tiles, "
                   "%.0f a "
                   "tile, %.1f a step\n",
                   h[P_N_ST], h[P_N_ST] ? (double)h[P_DEC_ST] / h[P_N_ST] : 0.0,
                   h[P_STEPS_ST] ? (double)h[P_DEC_ST] / h[P_STEPS_ST] : 0.0, h[P_N_GL],
                   h[P_N_GL] ? (double)h[P_DEC_GL] / h[P_N_GL] : 0.0,
                   h[P_STEPS_GL] ? (double)h[P_DEC_GL] / h[P_STEPS_GL] : 0.0);
        }
    }
    printf("%s\n", fails      ? "FAILED"
                   : enc_fail ? "all outputs checked; AN ENCODER DIFFERS"
                              : "all outputs checked");
    return fails || enc_fail ? 1 : 0;
}
