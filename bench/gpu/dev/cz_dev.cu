/*
 * cz_dev.cu - why this exists: the Cascaded GPU decoder stops short of
 * nVCOMP; this harness A/Bs its tile kernel (v4 since session 10:
 * nVCOMP's layers undone in one pass) against the ones before (cz_v3.cuh,
 * cz_v2.cuh) on the same data and checks all.  It runs the library's Cascaded kernels
 * (src/cuda/codecs/cascaded/cascaded_kernels.cu, included whole, its codec
 * table renamed so the library's is not pulled in; the decoder v3 since
 * session 7: the next tile copied in by cp.async during the current one,
 * every warp parsing for itself) beside v2 (cz_v2.cuh: the CTA stages the
 * tile and waits, warp 0 parses while seven warps wait) on 1 GiB of 64 KiB
 * chunks of one file (--mib M: M MiB instead), through the batch driver:
 *
 *   - compresses with the library's encoder (its GB/s printed);
 *   - decodes with the library, v3 and v2, checking every output and
 *     status, then times each (median of --reps; --reps 0: checks only);
 *   - hostile input: a copy of the chunks (the first 4096, or all with
 *     --small) with one byte of each changed (a seeded generator: position
 *     and value), or cut short (every 8th chunk): every decoder must give
 *     every chunk the library's status and, where OK, its bytes, in a
 *     decode and in a size query.
 *
 *   - compresses with the library's encoder (one writing pass since
 *     session 8) and with the two-pass encoder before it (cz_enc0.h,
 *     `two-pass`), checking that they write the same bytes, and times each
 *     (median of --reps).
 *
 *   cz_dev [--dtype i32|i64|u8|u16] [--layers R,D|auto] [--reps N] [--mib M] [--small] [--no-decode]
 *          [--only NAME[,NAME]] FILE
 *
 * --small: 16 MiB (M MiB when --mib M is given too) and every chunk in
 * the hostile part.  --only NAME[,NAME]: the library and those decoders
 * only (v3, v2, onestage: the library's decoders in a tile loop of one
 * stage at 4 CTAs an SM; direct: the library's loop, the outputs stored
 * from registers; onestage-direct: both; cz_v5.cuh; pair: two full
 * 8-byte tiles a CTA per round of barriers, 16 elements a thread,
 * cz_v7.cuh; pair-2cta: the same at 2 CTAs an SM, without spills;
 * single: the library's tile loop before session 12's lean one (every
 * warp locating every tile, the tiles in registers); lean-pair,
 * lean-pair-2cta: pair's items in the lean loop; lean: the lean loop
 * with two stages at 3 CTAs an SM, the library's in call B2 before its
 * one-stage loop).
 *
 * --no-decode: the compression rows only (no decoders, no hostile input).
 *
 * --dtype defaults from the file's extension (.i64: <i8, .i32: <i4);
 * --layers defaults to nVCOMP's (2 RLEs, 1 delta).  Exit status 0 only if
 * every check passed.  bench/gpu/owncodecs/NOTES.md has the numbers.
 */
#define oc_gpu_codec_cascaded oc_gpu_codec_cascaded_dev_copy
#include "cuda/codecs/cascaded/cascaded_kernels.cu"
#undef oc_gpu_codec_cascaded
#include "cz_v2.cuh"
#include "cz_v3.cuh"
#include "cz_v5.cuh"
#include "cz_v7.cuh"
#include "cz_enc0.h"

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

/* The library's encode kernel with the two-pass tile encoder (cz_enc0.h). */
static __global__ void __launch_bounds__(CZ_THREADS)
    cz0_k_encode(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, cz_layers L)
{
    extern __shared__ __align__(16) unsigned char cz_smem[];
    cz_ws *ws = (cz_ws *)cz_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         return cz0_compress_chunk(ws, p, len, dtype, L, d, cap, out, CZ_WARPS);
                     });
}

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

template <typename T> static std::vector<T> hcopy(const T *d, size_t n)
{
    std::vector<T> v(n);
    CUDA_OK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    int reps = 7, small = 0, mib = 0, nodec = 0;
    const char *only = NULL;
    oc_data_type dtype = OC_TYPE_DEFAULT;
    uint32_t layers = OC_CASCADED_DEFAULT;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--dtype") && a + 1 < argc) {
            a++;
            dtype = !strcmp(argv[a], "i64")   ? OC_TYPE_I64
                    : !strcmp(argv[a], "i32") ? OC_TYPE_I32
                    : !strcmp(argv[a], "u16") ? OC_TYPE_U16
                                              : OC_TYPE_U8;
        } else if (!strcmp(argv[a], "--layers") && a + 1 < argc) {
            a++;
            int r = 0, d = 0;
            layers = !strcmp(argv[a], "auto")                ? OC_CASCADED_AUTO
                     : sscanf(argv[a], "%d,%d", &r, &d) == 2 ? OC_CASCADED_LAYERS(r, d, 1)
                                                             : OC_CASCADED_DEFAULT;
        } else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--mib") && a + 1 < argc) {
            mib = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--small")) {
            small = 1;
        } else if (!strcmp(argv[a], "--no-decode")) {
            nodec = 1;
        } else if (!strcmp(argv[a], "--only") && a + 1 < argc) {
            only = argv[++a];
        } else {
            file = argv[a];
        }
    }
    if (!file) {
        fprintf(stderr, "usage: cz_dev [--dtype i32|i64|u8|u16] [--layers R,D|auto] [--reps N] [--mib M] "
                        "[--small] FILE\n");
        return 2;
    }
    if (dtype == OC_TYPE_DEFAULT) {
        size_t L = strlen(file);
        dtype = L > 4 && !strcmp(file + L - 4, ".i64")   ? OC_TYPE_I64
                : L > 4 && !strcmp(file + L - 4, ".i32") ? OC_TYPE_I32
                                                         : OC_TYPE_U8;
    }
    FILE *fp = fopen(file, "rb");
    if (!fp) {
        perror(file);
        return 2;
    }
    const size_t CH = 65536, total = (size_t)(mib > 0 ? mib : small ? 16 : 1024) << 20, n = total / CH;
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
    uint8_t *comp = dmalloc<uint8_t>(n * CAP);
    std::vector<const void *> hin(n);
    std::vector<void *> hcomp(n), hout(n);
    std::vector<size_t> hsz(n, CH), hcap(n, CAP), hocap(n, CH);
    for (size_t i = 0; i < n; i++) {
        hin[i] = in + i * CH;
        hcomp[i] = comp + i * CAP;
        hout[i] = out + i * CH;
    }
    const void **d_in = dcopy(hin);
    void **d_comp = dcopy(hcomp), **d_out = dcopy(hout);
    size_t *d_sz = dcopy(hsz), *d_cap = dcopy(hcap), *d_ocap = dcopy(hocap), *d_csz = dmalloc<size_t>(n),
           *d_osz = dmalloc<size_t>(n);
    oc_status *d_st = dmalloc<oc_status>(n);

    oc_gpu_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.typed.data_type = dtype;
    cfg.typed.cascaded = layers;
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    float ms = 0;

    /* compress (the library's encoder), timed */
    std::vector<float> t;
    for (int r = 0; r < reps + 1; r++) {
        CUDA_OK(cudaEventRecord(e0));
        if (oc_own_gpu_compress(&cz_kernels, &cfg, n, (const void *const *)d_in, d_sz, d_comp, d_cap, d_csz,
                                d_st, 0) != OC_OK) {
            fprintf(stderr, "compress launch failed\n");
            return 2;
        }
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaEventSynchronize(e1));
        CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
        if (r)
            t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    double cgbs = t.empty() ? 0.0 : total / (t[t.size() / 2] * 1e6);
    std::vector<oc_status> hst = hcopy(d_st, n);
    std::vector<size_t> hcsz = hcopy(d_csz, n);
    size_t csum = 0;
    for (size_t i = 0; i < n; i++) {
        if (hst[i] != OC_OK) {
            fprintf(stderr, "chunk %zu: compress status %d\n", i, (int)hst[i]);
            return 1;
        }
        csum += hcsz[i];
    }
    printf("%s (type %d, layers 0x%x): %zu chunks of 64 KiB, ratio %.3f, compress (library) %.1f GB/s\n",
           file, (int)dtype, layers, n, (double)total / (double)csum, cgbs);

    /* the encoder before (cz_enc0.h): the library's bytes, timed */
    int fails = 0;
    {
        own_gpu_kernels k0 = cz_kernels;
        k0.encode = (const void *)cz0_k_encode;
        struct {
            const char *name;
            const own_gpu_kernels *k;
        } es[1] = {{"two-pass", &k0}};
        uint8_t *comp2 = dmalloc<uint8_t>(n * CAP);
        std::vector<uint8_t> ref(n * CAP), got2(n * CAP);
        CUDA_OK(cudaMemcpy(ref.data(), comp, n * CAP, cudaMemcpyDeviceToHost));
        std::vector<void *> hcomp2(n);
        for (size_t i = 0; i < n; i++)
            hcomp2[i] = comp2 + i * CAP;
        void **d_comp2 = dcopy(hcomp2);
        size_t *d_csz2 = dmalloc<size_t>(n);
        for (const auto &e : es) {
            CUDA_OK(cudaMemset(comp2, 0, n * CAP));
            CUDA_OK(cudaMemset(d_st, 0xff, n * sizeof(oc_status)));
            if (oc_own_gpu_compress(e.k, &cfg, n, (const void *const *)d_in, d_sz, d_comp2, d_cap, d_csz2,
                                    d_st, 0) != OC_OK) {
                printf("compress %-10s launch failed\n", e.name);
                fails++;
                continue;
            }
            CUDA_OK(cudaDeviceSynchronize());
            std::vector<oc_status> st2 = hcopy(d_st, n);
            std::vector<size_t> sz2 = hcopy(d_csz2, n);
            CUDA_OK(cudaMemcpy(got2.data(), comp2, n * CAP, cudaMemcpyDeviceToHost));
            size_t bad = 0;
            for (size_t i = 0; i < n; i++)
                bad += st2[i] != OC_OK || sz2[i] != hcsz[i] || memcmp(&got2[i * CAP], &ref[i * CAP], hcsz[i]);
            t.clear();
            for (int r = 0; r < reps; r++) {
                CUDA_OK(cudaEventRecord(e0));
                oc_own_gpu_compress(e.k, &cfg, n, (const void *const *)d_in, d_sz, d_comp2, d_cap, d_csz2,
                                    d_st, 0);
                CUDA_OK(cudaEventRecord(e1));
                CUDA_OK(cudaEventSynchronize(e1));
                CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
                t.push_back(ms);
            }
            std::sort(t.begin(), t.end());
            double gbs = t.empty() ? 0.0 : total / (t[t.size() / 2] * 1e6);
            printf("compress %-10s %8.1f GB/s  %.2fx library  %s\n", e.name, gbs, cgbs > 0 ? gbs / cgbs : 0.0,
                   bad ? "DIFFERS from the library's bytes" : "the library's bytes");
            fails += bad != 0;
        }
        CUDA_OK(cudaFree(comp2));
        CUDA_OK(cudaFree(d_comp2));
        CUDA_OK(cudaFree(d_csz2));
    }
    if (nodec) {
        printf("%s\n", fails ? "FAILED" : "all outputs checked");
        return fails ? 1 : 0;
    }

    size_t scr_size = oc_own_gpu_decompress_scratch(&cfg, n);
    void *scr;
    CUDA_OK(cudaMalloc(&scr, scr_size));
    unsigned long long *d_bad = dmalloc<unsigned long long>(1);
    own_gpu_kernels k2 = cz_kernels;
    k2.tiles = (const void *)cz2_k_tiles;
    k2.tile_smem = sizeof(cz_ws);
    own_gpu_kernels k3 = cz_kernels;
    k3.tiles = (const void *)cz3_k_tiles;
    k3.tile_smem = sizeof(czg_ws); /* two stages (the library: one) */
    own_gpu_kernels k5 = cz_kernels;
    k5.tiles = (const void *)cz5_k_tiles;
    k5.tile_smem = CZ5_SMEM;
    own_gpu_kernels k5d = k5;
    k5d.tiles = (const void *)cz5d_k_tiles;
    own_gpu_kernels k6 = cz_kernels;
    k6.tiles = (const void *)cz6_k_tiles;
    k6.tile_smem = sizeof(czg_ws);
    own_gpu_kernels k7 = cz_kernels;
    k7.tiles = (const void *)cz7_k_tiles;
    own_gpu_kernels k7b = cz_kernels;
    k7b.tiles = (const void *)cz7b_k_tiles;
    own_gpu_kernels k8 = cz_kernels, k8p = cz_kernels, k8p2 = cz_kernels;
    k8.tiles = (const void *)cz7s_k_tiles;
    k8p.tiles = (const void *)cz8p_k_tiles;
    k8p2.tiles = (const void *)cz8p2_k_tiles;
    own_gpu_kernels k9 = cz_kernels;
    k9.tiles = (const void *)cz8l_k_tiles;
    k7.tile_smem = k7b.tile_smem = k8.tile_smem = k8p.tile_smem = k8p2.tile_smem = k9.tile_smem =
        sizeof(czg_ws); /* two stages */
    struct variant {
        const char *name;
        const own_gpu_kernels *k;
    } all[12] = {{"library", &cz_kernels},
                 {"v3", &k3},
                 {"v2", &k2},
                 {"onestage", &k5},
                 {"direct", &k6},
                 {"onestage-direct", &k5d},
                 {"pair", &k7},
                 {"pair-2cta", &k7b},
                 {"single", &k8},
                 {"lean-pair", &k8p},
                 {"lean-pair-2cta", &k8p2},
                 {"lean", &k9}},
      vs[12];
    size_t nvs = 0;
    for (const variant &v : all) {
        bool named = false; /* --only: a comma-separated list */
        for (const char *o = only; o && *o;) {
            size_t L = strcspn(o, ",");
            named |= L == strlen(v.name) && !strncmp(o, v.name, L);
            o += L + (o[L] == ',');
        }
        if (!only || v.k == &cz_kernels || named)
            vs[nvs++] = v;
    }
    double base = 0;
    for (size_t vi = 0; vi < nvs; vi++) {
        const variant &v = vs[vi];
        int per = 0;
        CUDA_OK(cudaFuncSetAttribute(v.k->tiles, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)v.k->tile_smem));
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, v.k->tiles, (int)v.k->tile_threads,
                                                              v.k->tile_smem));
        CUDA_OK(cudaMemset(out, 0, total));
        CUDA_OK(cudaMemset(d_st, 0xff, n * sizeof(oc_status)));
        if (oc_own_gpu_decompress(v.k, scr, scr_size, n, (const void *const *)d_comp, d_csz, d_out, d_ocap,
                                  d_osz, d_st, 0) != OC_OK) {
            printf("%-12s launch failed\n", v.name);
            fails++;
            continue;
        }
        CUDA_OK(cudaDeviceSynchronize());
        hst = hcopy(d_st, n);
        std::vector<size_t> hosz = hcopy(d_osz, n);
        size_t badst = 0;
        for (size_t i = 0; i < n; i++)
            badst += hst[i] != OC_OK || hosz[i] != CH;
        unsigned long long bad = 0;
        CUDA_OK(cudaMemset(d_bad, 0, sizeof *d_bad));
        k_count_diff<<<1024, 256>>>(in, out, total, d_bad);
        CUDA_OK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        if (badst || bad) {
            printf("%-12s FAILED: %zu chunks with a bad status or size, %llu words differ\n", v.name, badst,
                   bad);
            fails++;
            continue;
        }
        t.clear();
        for (int r = 0; r < reps; r++) {
            CUDA_OK(cudaEventRecord(e0));
            oc_own_gpu_decompress(v.k, scr, scr_size, n, (const void *const *)d_comp, d_csz, d_out, d_ocap,
                                  d_osz, d_st, 0);
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            t.push_back(ms);
        }
        if (t.empty()) {
            printf("%-12s the input's bytes and statuses\n", v.name);
            continue;
        }
        std::sort(t.begin(), t.end());
        double gbs = total / (t[t.size() / 2] * 1e6);
        if (!base)
            base = gbs;
        printf("%-12s %8.1f GB/s  %.2fx library  (%d CTAs an SM, %zu bytes of dynamic shared memory)\n",
               v.name, gbs, gbs / base, per, v.k->tile_smem);
    }

    /* hostile input: every decoder, the library's statuses and bytes */
    size_t nh = small ? n : std::min(n, (size_t)4096);
    std::vector<uint8_t> hc(nh * CAP);
    CUDA_OK(cudaMemcpy(hc.data(), comp, nh * CAP, cudaMemcpyDeviceToHost));
    std::vector<size_t> hhsz(hcsz.begin(), hcsz.begin() + nh);
    unsigned long long rng = 0x9e3779b97f4a7c15ull;
    auto next = [&]() {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    for (size_t i = 0; i < nh; i++) {
        if (i % 8 == 7) {
            hhsz[i] = next() % hhsz[i];
        } else {
            size_t at = next() % hhsz[i];
            hc[i * CAP + at] = (uint8_t)(hc[i * CAP + at] + 1 + next() % 255);
        }
    }
    uint8_t *hcomp_d = dmalloc<uint8_t>(nh * CAP);
    CUDA_OK(cudaMemcpy(hcomp_d, hc.data(), nh * CAP, cudaMemcpyHostToDevice));
    std::vector<void *> hp(nh);
    for (size_t i = 0; i < nh; i++)
        hp[i] = hcomp_d + i * CAP;
    void **d_hp = dcopy(hp);
    size_t *d_hsz = dcopy(hhsz);
    std::vector<oc_status> hs[12], ss[12];
    std::vector<size_t> ho[12];
    std::vector<uint8_t> oh[12];
    for (size_t j = 0; j < nvs; j++) {
        CUDA_OK(cudaMemset(out, 0, nh * CH));
        if (oc_own_gpu_decompress(vs[j].k, scr, scr_size, nh, (const void *const *)d_hp, d_hsz, d_out, d_ocap,
                                  d_osz, d_st, 0) != OC_OK) {
            printf("hostile: %s launch failed\n", vs[j].name);
            return 1;
        }
        CUDA_OK(cudaDeviceSynchronize());
        hs[j] = hcopy(d_st, nh);
        ho[j] = hcopy(d_osz, nh);
        oh[j].resize(nh * CH);
        CUDA_OK(cudaMemcpy(oh[j].data(), out, nh * CH, cudaMemcpyDeviceToHost));
        if (oc_own_gpu_sizes(vs[j].k, scr, scr_size, nh, (const void *const *)d_hp, d_hsz, d_osz, d_st, 0) !=
            OC_OK) {
            printf("hostile: %s size query failed\n", vs[j].name);
            return 1;
        }
        CUDA_OK(cudaDeviceSynchronize());
        ss[j] = hcopy(d_st, nh);
    }
    size_t okc = 0, nst[16] = {0};
    for (size_t i = 0; i < nh; i++) {
        okc += hs[0][i] == OC_OK;
        nst[(unsigned)hs[0][i] & 15u]++;
    }
    printf("hostile: %zu chunks (one byte changed, every 8th cut short): %zu decode OK, %zu CORRUPT, %zu "
           "TRUNCATED\n",
           nh, okc, nst[(unsigned)OC_ERR_CORRUPT & 15u], nst[(unsigned)OC_ERR_TRUNCATED & 15u]);
    for (size_t j = 1; j < nvs; j++) {
        size_t differ = 0;
        for (size_t i = 0; i < nh; i++) {
            bool same = hs[0][i] == hs[j][i] && ss[0][i] == ss[j][i] && ho[0][i] == ho[j][i];
            if (same && hs[0][i] == OC_OK)
                same = !memcmp(&oh[0][i * CH], &oh[j][i * CH], CH);
            if (!same && differ++ < 5)
                printf("hostile chunk %zu: library %d/%d, %s %d/%d\n", i, (int)hs[0][i], (int)ss[0][i],
                       vs[j].name, (int)hs[j][i], (int)ss[j][i]);
        }
        printf("hostile: %s %s\n", vs[j].name, differ ? "DIFFERS" : "the same statuses and bytes");
        fails += differ != 0;
    }
    printf("%s\n", fails ? "FAILED" : "all outputs checked");
    return fails ? 1 : 0;
}
