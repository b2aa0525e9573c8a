/*
 * bc_dev.cu - why this exists: Bitcomp-class compression on the GPU runs at
 * 0.06-0.25x nVCOMP and its encoder is issue-bound (ncu: 4.1
 * warp-instructions a byte on orderkey.i64, 2 CTAs an SM at 115
 * registers).  This harness times the library's Bitcomp kernels
 * (src/cuda/codecs/bitcomp/bitcomp_kernels.cu, included whole, its codec
 * table renamed) on 1 GiB of 64 KiB chunks of one file (--mib M: M MiB)
 * through the batch driver: the encoder as the library builds it (3 CTAs
 * an SM since session 7: __launch_bounds__(256, 3), 80 registers, ptxas
 * spills ~64 bytes) and the same encoder compiled without the bound (2
 * CTAs an SM at 96 registers), global-in (the library's encoder before
 * session 9, whose passes read the tile from global memory; the library's
 * copies it into shared memory first, bc_ws_in, and keeps the block
 * statistics of 1-4 byte elements in 32-bit arithmetic, bc_enc_choose32)
 * and staged-64 (the staged tile with the core's 64-bit statistics), and
 * s9 (the library's after session 9: bc_enc_ab.cuh; session 10 moved its
 * write pass and the end of its choice to 32-bit arithmetic) - all must
 * write the same bytes - then the library's decoder (since session 10 its
 * element loops and stage are the GPU's own, bitcomp_dec_gpu.cuh), core
 * (the core's tile decoder: the library's before) and 4-ctas (the
 * library's without its bound of 6 CTAs an SM, the library's before
 * session 12; bc_dec_ab.cuh), and patch-core (format
 * version 2's patched blocks by the core's loop, the library's before
 * patch32 moved in) and patch32 (the library's before xrank moved in; both
 * bc_patch_ab.cuh), every output checked.
 * --no-2ctas: skip the unbounded encoder; --new-only: skip 2-ctas,
 * global-in and staged-64; --dec-only: only the library's encoder (its
 * output feeds the decoders); --enc-only: the encoders only; --reps 0: one
 * call of each (for ncu).  Session 12 measured "onepass" (the block read
 * once into registers, every statistic from them) and "onepass-pw" (and the
 * patched blocks' write pass in 32-bit arithmetic), moved them into the
 * library and keeps the encoder before as "s11" (bc_enc_one.cuh); and
 * "regtile" (bc_enc_reg.cuh: the tile from global memory into registers
 * once, chosen and written from them) and "lanepick" (the tile's 32 picks
 * by one warp, a lane a block), moved into the library too, keeping the
 * encoder before it as "pw" (bc_enc_lane.cuh).
 *
 *   bc_dev [--dtype i64|i32|f64|f32|bf16] [--algo 0|1] [--reps N] [--mib M] [--no-2ctas] [--new-only]
 *          [--dec-only] [--enc-only] FILE
 *
 * --dtype defaults from the extension (.i64 .i32 .f64 .f32; bf16 files are
 * the high halves of f32 weights, made by the caller).  Exit status 0 only
 * if every check passed.  bench/gpu/owncodecs/NOTES.md has the numbers.
 */
#define oc_gpu_codec_bitcomp oc_gpu_codec_bitcomp_dev_copy
#include "cuda/codecs/bitcomp/bitcomp_kernels.cu"
#undef oc_gpu_codec_bitcomp
/* The library's pick in lane 0 of the block's warp, as the encoders below
 * (written before session 12 moved the pick to a lane a block) call it. */
static __device__ __forceinline__ void bc_enc_pick32(const bc_ws *ws, bc_block *bl, const uint8_t *p,
                                                     uint32_t w, uint32_t cnt, uint32_t m, uint32_t umin,
                                                     uint32_t umax, uint32_t and_, uint32_t or_,
                                                     const uint32_t *f, uint32_t nnz, const uint32_t *bm,
                                                     const bc_patch *pd, const bc_patch *pf)
{
    if (OWN_LANE() == 0)
        bc_enc_pick32_one(ws, bl, p, w, cnt, m, umin, umax, and_, or_, f, nnz, bm, pd, pf);
}
#include "bc_dec_ab.cuh"
#include "bc_enc_ab.cuh"
#include "bc_patch_ab.cuh"
#include "bc_enc_hist.cuh"
#include "bc_enc_one.cuh"
#include "bc_enc_reg.cuh"
#include "bc_enc_lane.cuh"

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

/* The library's encoder without the bound of 3 CTAs an SM. */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_encode2(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws *ws = (bc_ws *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         return bc_compress_chunk(ws, p, len, dtype, algo, d, cap, out, BCK_WARPS);
                     });
}

/* global-in: the library's encoder before session 9 (the core's passes
 * reading the tile from global memory, no stage), 3 CTAs an SM. */
static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_g(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                  const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws *ws = (bc_ws *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         return bc_compress_chunk(ws, p, len, dtype, algo, d, cap, out, BCK_WARPS);
                     });
}

/* staged-64: the library's staged tile with the core's bc_enc_choose
 * (64-bit statistics for every width): the library between session 9's
 * two changes. */
static __device__ uint32_t bc_tile_encode_s64(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                              uint32_t dtype, uint32_t nw)
{
    bc_ws_in *W = (bc_ws_in *)ws;
    bc_in_stage(W->in, tile, cnt * own_type_width(dtype));
    return bc_encode_tile(&W->ws, (const uint8_t *)W->in, cnt, dtype, *(const uint32_t *)opts, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_s64(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                    const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws_in *ws = (bc_ws_in *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         *out = 0;
                         if (own_type_width(dtype) == 0 || algo > 1)
                             return OC_ERR_INVALID_ARGUMENT;
                         uint32_t a = algo;
                         return own_tiled_compress_v(ws, &a, p, len, OWN_ID_BITCOMP, BC_VERSION, dtype, algo,
                                                     BC_TILE, d, cap, out, BCK_WARPS, bc_tile_encode_s64,
                                                     bc_tile_put, bc_bytes_copy);
                     });
}

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

/* the encoders: the library's, 2-ctas, global-in, staged-64, s9, reread, s11, regtile, pw */
#define NENC 9
#define NDEC 5 /* the library's decoder, core, 4-ctas, patch-core, patch32 */

template <typename T> static T *dmalloc(size_t n)
{
    T *p;
    CUDA_OK(cudaMalloc(&p, n * sizeof(T)));
    return p;
}

template <typename T> static T *dcopy(const std::vector<T> &v)
{
    T *p = dmalloc<T>(v.size());
    CUDA_OK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    int reps = 7, mib = 1024, algo = 0, only_in = 0, dec_only = 0, new_only = 0, enc_only = 0;
    oc_data_type dtype = OC_TYPE_DEFAULT;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--dtype") && a + 1 < argc) {
            a++;
            dtype = !strcmp(argv[a], "i64")   ? OC_TYPE_I64
                    : !strcmp(argv[a], "i32") ? OC_TYPE_I32
                    : !strcmp(argv[a], "f64") ? OC_TYPE_F64
                    : !strcmp(argv[a], "f32") ? OC_TYPE_F32
                                              : OC_TYPE_BF16;
        } else if (!strcmp(argv[a], "--algo") && a + 1 < argc) {
            algo = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--mib") && a + 1 < argc) {
            mib = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--no-2ctas")) {
            only_in = 1;
        } else if (!strcmp(argv[a], "--new-only")) {
            new_only = 1;
        } else if (!strcmp(argv[a], "--dec-only")) {
            dec_only = 1;
        } else if (!strcmp(argv[a], "--enc-only")) {
            enc_only = 1;
        } else {
            file = argv[a];
        }
    }
    if (!file) {
        fprintf(stderr, "usage: bc_dev [--dtype i64|i32|f64|f32|bf16] [--algo 0|1] [--reps N] [--mib M] "
                        "[--no-2ctas] [--new-only] [--dec-only] [--enc-only] FILE\n");
        return 2;
    }
    if (dtype == OC_TYPE_DEFAULT) {
        size_t L = strlen(file);
        const char *x = L > 4 ? file + L - 4 : "";
        dtype = !strcmp(x, ".i64")   ? OC_TYPE_I64
                : !strcmp(x, ".i32") ? OC_TYPE_I32
                : !strcmp(x, ".f64") ? OC_TYPE_F64
                : !strcmp(x, ".f32") ? OC_TYPE_F32
                                     : OC_TYPE_BF16;
    }
    FILE *fp = fopen(file, "rb");
    if (!fp) {
        perror(file);
        return 2;
    }
    const size_t CH = 65536, total = (size_t)(mib > 0 ? mib : 1024) << 20, n = total / CH;
    std::vector<uint8_t> host(64u << 20);
    size_t got = fread(host.data(), 1, host.size(), fp);
    fclose(fp);
    got -= got % CH;
    if (got == 0) {
        fprintf(stderr, "%s: under 64 KiB\n", file);
        return 2;
    }
    uint8_t *fdev = dmalloc<uint8_t>(got), *in = dmalloc<uint8_t>(total), *out = dmalloc<uint8_t>(total);
    CUDA_OK(cudaMemcpy(fdev, host.data(), got, cudaMemcpyHostToDevice));
    for (size_t at = 0; at < total; at += got)
        CUDA_OK(cudaMemcpy(in + at, fdev, std::min(got, total - at), cudaMemcpyDeviceToDevice));
    const size_t CAP = CH + 4096;
    uint8_t *comp[NENC];
    for (int e = 0; e < NENC; e++) {
        comp[e] = dmalloc<uint8_t>(n * CAP);
        CUDA_OK(cudaMemset(comp[e], 0, n * CAP));
    }
    std::vector<const void *> hin(n);
    std::vector<void *> hc[NENC], hout(n);
    std::vector<size_t> hsz(n, CH), hcap(n, CAP), hocap(n, CH);
    for (size_t i = 0; i < n; i++) {
        hin[i] = in + i * CH;
        for (int e = 0; e < NENC; e++) {
            hc[e].resize(n);
            hc[e][i] = comp[e] + i * CAP;
        }
        hout[i] = out + i * CH;
    }
    const void **d_in = dcopy(hin);
    void **d_comp[NENC], **d_out = dcopy(hout);
    size_t *d_sz = dcopy(hsz), *d_cap = dcopy(hcap), *d_ocap = dcopy(hocap), *d_csz[NENC],
           *d_osz = dmalloc<size_t>(n);
    for (int e = 0; e < NENC; e++) {
        d_comp[e] = dcopy(hc[e]);
        d_csz[e] = dmalloc<size_t>(n);
    }
    oc_status *d_st = dmalloc<oc_status>(n);
    oc_gpu_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.typed.data_type = dtype;
    cfg.typed.algorithm_type = algo;
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    float ms = 0;
    own_gpu_kernels k2 = bc_kernels, k3 = bc_kernels, k4 = bc_kernels, k5 = bc_kernels, k6 = bc_kernels,
                    k7 = bc_kernels, k8 = bc_kernels, k9 = bc_kernels;
    k2.encode = (const void *)bc_k_encode2;
    k2.encode_smem = k3.encode_smem = sizeof(bc_ws);
    k3.encode = (const void *)bc_k_encode_g;
    k4.encode = (const void *)bc_k_encode_s64;
    k4.encode_smem = sizeof(bc_ws_in);
    k5.encode = (const void *)bc_k_encode_s9;
    k6.encode = (const void *)bc_k_encode_reread;
    k7.encode = (const void *)bc_k_encode_s11;
    k8.encode = (const void *)bc_k_encode_reg;
    k9.encode = (const void *)bc_k_encode_pw;
    const own_gpu_kernels *ks[NENC] = {&bc_kernels, &k2, &k3, &k4, &k5, &k6, &k7, &k8, &k9};
    const char *names[NENC] = {"library", "2-ctas", "global-in", "staged-64", "s9",
                               "reread",  "s11",    "regtile",   "pw"};
    double gbs[NENC] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
    /* encoders skipped: --no-2ctas the unbounded one, --new-only every one before this session's,
     * --dec-only all but the library's */
    auto skip = [&](int e) {
        return (only_in && e == 1) || (new_only && e >= 1 && e <= 3) || (dec_only && e > 0);
    };
    std::vector<size_t> csz[NENC];
    for (int e = 0; e < NENC; e++) {
        if (skip(e))
            continue;
        int per = 0;
        CUDA_OK(cudaFuncSetAttribute(ks[e]->encode, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)ks[e]->encode_smem));
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, ks[e]->encode, (int)ks[e]->encode_threads,
                                                              ks[e]->encode_smem));
        std::vector<float> t;
        for (int r = 0; r < reps + 1; r++) {
            CUDA_OK(cudaEventRecord(e0));
            if (oc_own_gpu_compress(ks[e], &cfg, n, (const void *const *)d_in, d_sz, d_comp[e], d_cap,
                                    d_csz[e], d_st, 0) != OC_OK) {
                fprintf(stderr, "compress launch failed\n");
                return 2;
            }
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (r || reps == 0) /* --reps 0: one call (ncu) */
                t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        gbs[e] = total / (t[t.size() / 2] * 1e6);
        std::vector<oc_status> hst(n);
        CUDA_OK(cudaMemcpy(hst.data(), d_st, n * sizeof(oc_status), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++)
            if (hst[i] != OC_OK) {
                fprintf(stderr, "%s: chunk %zu: compress status %d\n", names[e], i, (int)hst[i]);
                return 1;
            }
        csz[e].resize(n);
        CUDA_OK(cudaMemcpy(csz[e].data(), d_csz[e], n * sizeof(size_t), cudaMemcpyDeviceToHost));
        printf("compress %-11s %8.1f GB/s  %.2fx library  (%d CTAs an SM)\n", names[e], gbs[e],
               gbs[e] / gbs[0], per);
    }
    size_t csum = 0;
    bool same = true;
    for (size_t i = 0; i < n; i++)
        csum += csz[0][i];
    unsigned long long bad = 0, *d_bad = dmalloc<unsigned long long>(1);
    for (int e = 1; e < NENC; e++) { /* whole slots: all were zeroed */
        if (skip(e))
            continue;
        unsigned long long b = 0;
        CUDA_OK(cudaMemset(d_bad, 0, sizeof *d_bad));
        k_count_diff<<<1024, 256>>>(comp[0], comp[e], n * CAP, d_bad);
        CUDA_OK(cudaMemcpy(&b, d_bad, sizeof b, cudaMemcpyDeviceToHost));
        printf("  %s vs library: %s\n", names[e], csz[e] == csz[0] && !b ? "the same bytes" : "DIFFER");
        same = same && csz[e] == csz[0];
        bad += b;
    }
    printf("%s (type %d, algo %d): %zu chunks of 64 KiB, ratio %.3f; the encoders %s\n", file, (int)dtype,
           algo, n, (double)total / (double)csum, same && !bad ? "write the same bytes" : "DIFFER");
    if (enc_only) /* --enc-only: no decoder runs */
        return same && !bad ? 0 : 1;
    size_t scr_size = oc_own_gpu_decompress_scratch(&cfg, n);
    void *scr;
    CUDA_OK(cudaMalloc(&scr, scr_size));
    int fails = !(same && !bad);
    own_gpu_kernels dcore = bc_kernels, d6 = bc_kernels, dpc = bc_kernels, dxr = bc_kernels;
    dcore.tiles = (const void *)bc_k_tiles_core;
    d6.tiles = (const void *)bc_k_tiles_4;
    dpc.tiles = (const void *)bc_k_tiles_pcore;
    dxr.tiles = (const void *)bc_k_tiles_p32;
    const own_gpu_kernels *kd[NDEC] = {&bc_kernels, &dcore, &d6, &dpc, &dxr};
    const char *dnames[NDEC] = {"library", "core", "4-ctas", "patch-core", "patch32"};
    double dgbs[NDEC] = {0, 0, 0, 0, 0};
    for (int d = 0; d < NDEC; d++) {
        int per = 0;
        CUDA_OK(cudaFuncSetAttribute(kd[d]->tiles, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)kd[d]->tile_smem));
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kd[d]->tiles, (int)kd[d]->tile_threads,
                                                              kd[d]->tile_smem));
        CUDA_OK(cudaMemset(out, 0, total));
        std::vector<float> t;
        for (int r = 0; r < reps + 1; r++) {
            CUDA_OK(cudaEventRecord(e0));
            oc_own_gpu_decompress(kd[d], scr, scr_size, n, (const void *const *)d_comp[0], d_csz[0], d_out,
                                  d_ocap, d_osz, d_st, 0);
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (r || reps == 0)
                t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        CUDA_OK(cudaMemset(d_bad, 0, sizeof *d_bad));
        k_count_diff<<<1024, 256>>>(in, out, total, d_bad);
        CUDA_OK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        std::vector<oc_status> hst(n);
        CUDA_OK(cudaMemcpy(hst.data(), d_st, n * sizeof(oc_status), cudaMemcpyDeviceToHost));
        size_t badst = 0;
        for (size_t i = 0; i < n; i++)
            badst += hst[i] != OC_OK;
        dgbs[d] = total / (t[t.size() / 2] * 1e6);
        printf("decompress %-8s %8.1f GB/s  %.2fx library  (%d CTAs an SM); %s\n", dnames[d], dgbs[d],
               dgbs[d] / dgbs[0], per, bad || badst ? "OUTPUT DIFFERS" : "every output checked");
        fails += bad || badst;
    }
    return fails ? 1 : 0;
}
