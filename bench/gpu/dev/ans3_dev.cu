/*
 * ans3_dev.cu - why this exists: ANS format version 3 (two interleaved
 * states a lane; bench/gpu/owncodecs/NOTES.md, "ANS format version 3") is a
 * format change, worth making only if its decoder beats the library's v2
 * decoder on a GPU by a clear margin at about the same ratio.  This harness
 * measures exactly that, in one process on one device: the input (one file,
 * repeated to 1 GiB of 64 KiB chunks; --mib M for M MiB) is compressed to v2
 * by the library's GPU encoder and to v3 by the CPU reference (ans3_ref.h;
 * the file's distinct chunks once, then repeated as the input is), v3 with
 * tiles of 16384 symbols ("v3") and of 32768 ("v3t": header flags 1, each
 * state coding 512 symbols a tile as v2's, so v2's ratio); the three
 * ratios are printed; then each decoder variant decodes its format, every
 * output is compared with the input (and every status and size checked),
 * and the median of --reps timed calls is printed in GB/s of decoded bytes
 * (--chunk N: chunks of N bytes instead of 64 KiB, for the v2 decoders only):
 *
 *   library       the library's v2 decoder (win4-16: CTAs of 4 warps, 16-word windows)
 *   library-w2    the library's v2 decoder for a caller's 16-bit data type (CTAs of 2 warps)
 *   library-c164, library-w2-c196, library-w2-c164, win2-16s-c164: those kernels with a preferred
 *                 shared memory carveout (164 or 196 KiB an SM): fewer CTAs, more L1 (session 12)
 *   lean4, lean2  the library's decoder (4 and 2 warps) with the lean renormalisation
 *                 (ans_lean_kernels.cuh: the next word reloaded every step, no guard, one LOP3 address)
 *   win2-32       v2, CTAs of 2 warps (ans_win_kernels.cuh; session 10's best on bf16)
 *   win2-16s      v2, CTAs of 2 warps, R 16, at 12 KiB of shared memory as v3-win2-16 (the
 *                 16 KiB floor for a PB 12 table dropped: the harness's chunks are PB 11)
 *   v3-win4-16    v3 (ans3_kernels.cuh): 4 warps, R 16, blocks of 4 steps (2 pairs), 10 CTAs an SM
 *   v3-win4-16m8  the same at 8 CTAs an SM (more registers a thread)
 *   v3-win4-32b8  v3: 4 warps, R 32, blocks of 8 steps (4 pairs), 8 CTAs an SM
 *   v3-win2-32    v3: CTAs of 2 warps (a bf16 chunk's 2 tiles), R 32, 12 CTAs an SM
 *   v3-win2-16    v3: CTAs of 2 warps, R 16 (12 KiB: 16 CTAs an SM)
 *   v3t-win2-16   v3t (a text chunk's 2 tiles a CTA): 2 warps, R 16, 16 CTAs an SM
 *   v3t-win2-32   v3t: 2 warps, R 32, 12 CTAs an SM
 *   v3t-win4-16   v3t: 4 warps, R 16 (a 64 KiB text chunk leaves half of them idle)
 *   v4-win4-16    v4 (ans4_kernels.cuh, ans4_ref.h: 32-bit states, per-lane 16-bit words): 4 warps, R 16
 *   v4-win2-16    v4: CTAs of 2 warps (a bf16 chunk's 2 tiles), R 16
 *   v4-win4-16m12 v4-win4-16 at 12 CTAs an SM (40 registers)
 *
 *   ans3_dev [--dtype u1|bf16] [--reps N] [--mib M] [--only V1,V2] FILE
 *
 * The first variant run is the ratios' base.  Exit status 0 only if every
 * output matched the input and the CPU reference round-tripped its chunks.
 */
#define oc_gpu_codec_ans oc_gpu_codec_ans_dev_copy
#include "cuda/codecs/ans/ans_kernels.cu"
#undef oc_gpu_codec_ans
#include "ans_win_kernels.cuh"
#include "ans_lean_kernels.cuh"
#include "ans3_kernels.cuh"
#include "ans4_kernels.cuh"

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

static ans3_ws g_ws3;

/* a name in a comma-separated list */
static bool listed(const char *only, const char *name)
{
    if (!only)
        return true;
    size_t L = strlen(name);
    for (const char *at = strstr(only, name); at; at = strstr(at + 1, name))
        if ((at == only || at[-1] == ',') && (at[L] == ',' || at[L] == 0))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    const char *file = NULL, *only = NULL;
    int reps = 5, mib = 1024;
    size_t chunk = 65536; /* --chunk: other sizes run the v2 decoders only (no v3/v4 reference) */
    oc_data_type dtype = OC_TYPE_U8;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--dtype") && a + 1 < argc) {
            a++;
            dtype = !strcmp(argv[a], "bf16") ? OC_TYPE_BF16 : OC_TYPE_U8;
        } else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--chunk") && a + 1 < argc) {
            chunk = (size_t)atol(argv[++a]);
        } else if (!strcmp(argv[a], "--mib") && a + 1 < argc) {
            mib = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--only") && a + 1 < argc) {
            only = argv[++a];
        } else {
            file = argv[a];
        }
    }
    if (!file || reps < 1 || chunk < 65536 || chunk > ((size_t)16 << 20) || chunk % 2) {
        fprintf(stderr, "usage: ans3_dev [--dtype u1|bf16] [--reps N>=1] [--mib M] [--chunk 65536..16M, "
                        "even] [--only V1,V2] FILE\n");
        return 2;
    }
    FILE *fp = fopen(file, "rb");
    if (!fp) {
        perror(file);
        return 2;
    }
    const size_t CH = chunk, CAP = CH + CH / 16 + 4096, total = (size_t)(mib > 0 ? mib : 1024) << 20,
                 n = total / CH;
    std::vector<uint8_t> host(64u << 20);
    size_t got = fread(host.data(), 1, host.size(), fp);
    fclose(fp);
    got -= got % CH;
    if (got == 0) {
        fprintf(stderr, "%s: under one chunk\n", file);
        return 2;
    }
    if (got > total)
        got = total;
    const size_t nf = got / CH; /* chunk i of the input is the file's chunk i mod nf */

    /* v3 by the CPU reference (tiles of 16384 << tshift), the file's chunks once, each decoded back */
    int ref_fail = 0;
    auto encode3 =
        [&](uint32_t tshift, std::vector<uint8_t> &h3,
            std::vector<size_t>
                &c3) { /* tshift 2: v4 */
                       std::vector<uint8_t> back(CH);
                       h3.assign(nf * CAP, 0);
                       c3.assign(nf, 0);
                       for (size_t j = 0; j < nf; j++) {
                           uint64_t sz = 0, dsz = 0;
                           uint8_t *cj = h3.data() + j * CAP;
                           const uint8_t *ij = host.data() + j * CH;
                           oc_status es =
                               tshift == 2 ? ans4_compress_chunk(&g_ws3, ij, CH, dtype, cj, CAP, &sz)
                                           : ans3_compress_chunk(&g_ws3, ij, CH, dtype, tshift, cj, CAP, &sz);
                           if (es != OC_OK ||
                               (tshift == 2 ? ans4_decompress_chunk(&g_ws3, cj, sz, back.data(), CH, &dsz)
                                            : ans3_decompress_chunk(&g_ws3, cj, sz, back.data(), CH, &dsz)) !=
                                   OC_OK ||
                               dsz != CH || memcmp(back.data(), host.data() + j * CH, CH) != 0) {
                               fprintf(stderr, "CPU reference failed on chunk %zu (tiles of 16384 << %u)\n",
                                       j, tshift);
                               ref_fail = 1;
                           }
                           c3[j] = sz;
                       }
        };
    std::vector<uint8_t> h3, h3t, hv4;
    std::vector<size_t> c3, c3t, c4;
    const bool refs = CH == 65536; /* the v3/v4 references: 64 KiB chunks only */
    if (refs) {
        encode3(0, h3, c3);
        encode3(1, h3t, c3t);
        encode3(2, hv4, c4);
    } else {
        h3.assign(nf * CAP, 0), h3t.assign(nf * CAP, 0), hv4.assign(nf * CAP, 0);
        c3.assign(nf, 1), c3t.assign(nf, 1), c4.assign(nf, 1);
    }

    uint8_t *in, *comp2, *comp3, *comp3t, *comp4, *out, *fdev;
    CUDA_OK(cudaMalloc(&fdev, got));
    CUDA_OK(cudaMemcpy(fdev, host.data(), got, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&in, total));
    for (size_t at = 0; at < total; at += got)
        CUDA_OK(cudaMemcpy(in + at, fdev, std::min(got, total - at), cudaMemcpyDeviceToDevice));
    CUDA_OK(cudaMalloc(&comp2, n * CAP));
    CUDA_OK(cudaMalloc(&comp3, n * CAP));
    CUDA_OK(cudaMalloc(&comp3t, n * CAP));
    CUDA_OK(cudaMalloc(&comp4, n * CAP));
    CUDA_OK(cudaMemcpy(comp4, hv4.data(), nf * CAP, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&out, total));
    CUDA_OK(cudaMemcpy(comp3, h3.data(), nf * CAP, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(comp3t, h3t.data(), nf * CAP, cudaMemcpyHostToDevice));
    for (size_t at = nf; at < n; at += nf) {
        CUDA_OK(cudaMemcpy(comp3 + at * CAP, comp3, std::min(nf, n - at) * CAP, cudaMemcpyDeviceToDevice));
        CUDA_OK(cudaMemcpy(comp3t + at * CAP, comp3t, std::min(nf, n - at) * CAP, cudaMemcpyDeviceToDevice));
        CUDA_OK(cudaMemcpy(comp4 + at * CAP, comp4, std::min(nf, n - at) * CAP, cudaMemcpyDeviceToDevice));
    }
    std::vector<const void *> hin(n);
    std::vector<void *> hc2(n), hc3(n), hc3t(n), hc4(n), hout(n);
    std::vector<size_t> hsz(n, CH), hcap(n, CAP), hocap(n, CH), hcsz3(n), hcsz3t(n), hcsz4(n);
    for (size_t i = 0; i < n; i++) {
        hin[i] = in + i * CH;
        hc2[i] = comp2 + i * CAP;
        hc3[i] = comp3 + i * CAP;
        hc3t[i] = comp3t + i * CAP;
        hcsz3t[i] = c3t[i % nf];
        hc4[i] = comp4 + i * CAP;
        hcsz4[i] = c4[i % nf];
        hout[i] = out + i * CH;
        hcsz3[i] = c3[i % nf];
    }
    void **d_in, **d_c2, **d_c3, **d_c3t, **d_c4, **d_out;
    size_t *d_sz, *d_cap, *d_csz2, *d_csz3, *d_csz3t, *d_csz4, *d_ocap, *d_osz;
    oc_status *d_st;
    CUDA_OK(cudaMalloc(&d_in, n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d_c2, n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d_c3, n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d_c3t, n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d_csz3t, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_c4, n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d_csz4, n * sizeof(size_t)));
    CUDA_OK(cudaMemcpy(d_c4, hc4.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_csz4, hcsz4.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&d_out, n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d_sz, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_cap, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_csz2, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_csz3, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_ocap, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_osz, n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d_st, n * sizeof(oc_status)));
    CUDA_OK(cudaMemcpy(d_in, hin.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_c2, hc2.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_c3, hc3.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_c3t, hc3t.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_csz3t, hcsz3t.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_out, hout.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_sz, hsz.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_cap, hcap.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_csz3, hcsz3.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_ocap, hocap.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));

    oc_gpu_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.typed.data_type = dtype;
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    std::vector<oc_status> hst(n);

    /* v2 by the library's GPU encoder */
    if (oc_own_gpu_compress(&ans_kernels, &cfg, n, (const void *const *)d_in, d_sz, d_c2, d_cap, d_csz2, d_st,
                            0) != OC_OK) {
        fprintf(stderr, "compress launch failed\n");
        return 2;
    }
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(hst.data(), d_st, n * sizeof(oc_status), cudaMemcpyDeviceToHost));
    std::vector<size_t> hcsz2(n);
    CUDA_OK(cudaMemcpy(hcsz2.data(), d_csz2, n * sizeof(size_t), cudaMemcpyDeviceToHost));
    size_t sum2 = 0, sum3 = 0, sum3t = 0, sum4 = 0;
    for (size_t i = 0; i < n; i++) {
        if (hst[i] != OC_OK) {
            fprintf(stderr, "v2 compress status %d on chunk %zu\n", (int)hst[i], i);
            return 1;
        }
        sum2 += hcsz2[i];
        sum3 += hcsz3[i];
        sum3t += hcsz3t[i];
        sum4 += hcsz4[i];
    }
    printf(
        "%s %s: %zu chunks of %zu KiB (%zu distinct), ratio v2 %.4f, v3 %.4f (%+.1f bytes a chunk), v3t %.4f "
        "(%+.1f), v4 %.4f (%+.1f)%s\n",
        file, dtype == OC_TYPE_BF16 ? "bf16" : "|u1", n, CH >> 10, nf, (double)total / (double)sum2,
        (double)total / (double)sum3, ((double)sum3 - (double)sum2) / (double)n,
        (double)total / (double)sum3t, ((double)sum3t - (double)sum2) / (double)n,
        (double)total / (double)sum4, ((double)sum4 - (double)sum2) / (double)n,
        !refs      ? "; v3/v4 not made (64 KiB chunks only): their ratios mean nothing"
        : ref_fail ? "; CPU REFERENCE FAILED"
                   : "; CPU reference round trips checked");

    size_t scr_size = oc_own_gpu_decompress_scratch(&cfg, n);
    void *scr;
    CUDA_OK(cudaMalloc(&scr, scr_size));
    unsigned long long *d_bad;
    CUDA_OK(cudaMalloc(&d_bad, sizeof *d_bad));

    struct variant {
        const char *name;
        own_gpu_kernels k;
        int v3;         /* 0: the v2 chunks, 1: v3, 2: v3t, 3: v4 */
        int carve = -1; /* the kernel's preferred shared memory carveout, % of 228 KiB (-1: default) */
    };
    std::vector<variant> vs;
    vs.push_back({"library", ans_kernels, 0});
    vs.push_back({"library-w2", ans_kernels_w2, 0}); /* what the library launches for 16-bit data */
    own_gpu_kernels kl4 = ans_kernels, kl2 = ans_kernels_w2;
    kl4.tiles = (const void *)ans_k_groups_lean<4>;
    kl4.tile_smem = ANS_LEAN_SMEM(4u);
    kl2.tiles = (const void *)ans_k_groups_lean<2>;
    kl2.tile_smem = ANS_LEAN_SMEM(2u);
    /* the same kernels with less shared memory an SM, so more L1: 71% -> 164 KiB, 85% -> 196 KiB */
    vs.push_back({"library-c164", ans_kernels, 0, 71});
    vs.push_back({"library-w2-c196", ans_kernels_w2, 0, 85});
    vs.push_back({"library-w2-c164", ans_kernels_w2, 0, 71});
    vs.push_back({"lean4", kl4, 0});
    vs.push_back({"lean2", kl2, 0});
    vs.push_back({"lean4-c196", kl4, 0, 85}); /* 9 CTAs, 60 KiB of L1 */
    vs.push_back({"lean2-c196", kl2, 0, 85}); /* 10 CTAs */
    own_gpu_kernels kw232 = ans_kernels;
    kw232.headers = (const void *)ans_k_headers_w<2>;
    kw232.tiles = (const void *)ans_k_groups_win<2, 32, false>;
    kw232.tile_threads = 2 * 32;
    kw232.tile_smem = ANSW_SMEM(2u, 32u);
    vs.push_back({"win2-32", kw232, 0});
    own_gpu_kernels kw216 = kw232; /* v2 at v3-win2-16's shared memory (no PB 12 floor: this data is PB 11) */
    kw216.tiles = (const void *)ans_k_groups_win<2, 16, false>;
    kw216.tile_smem = ANS3_SMEM(2u, 16u);
    vs.push_back({"win2-16s", kw216, 0});
    vs.push_back({"win2-16s-c164", kw216, 0, 71});
    /* v3 variants: NW warps a CTA, windows of R words, blocks of BS steps, MINB CTAs an SM */
    auto v3k = [&](const void *headers, const void *tiles, uint32_t nw, uint32_t r) {
        own_gpu_kernels k = ans_kernels;
        k.headers = headers;
        k.tiles = tiles;
        k.tile_threads = nw * 32;
        k.tile_smem = ANS3_SMEM(nw, r);
        return k;
    };
    const void *h4 = (const void *)ans3_k_headers<4>, *h2 = (const void *)ans3_k_headers<2>;
    vs.push_back({"v3-win4-16", v3k(h4, (const void *)ans3_k_groups<4, 16, 4, 10>, 4, 16), 1});
    vs.push_back({"v3-win4-16m8", v3k(h4, (const void *)ans3_k_groups<4, 16, 4, 8>, 4, 16), 1});
    vs.push_back({"v3-win4-32b8", v3k(h4, (const void *)ans3_k_groups<4, 32, 8, 8>, 4, 32), 1});
    vs.push_back({"v3-win2-32", v3k(h2, (const void *)ans3_k_groups<2, 32, 4, 12>, 2, 32), 1});
    vs.push_back({"v3-win2-16", v3k(h2, (const void *)ans3_k_groups<2, 16, 4, 16>, 2, 16), 1});
    vs.push_back({"v3t-win2-16", v3k(h2, (const void *)ans3_k_groups<2, 16, 4, 16>, 2, 16), 2});
    vs.push_back({"v3t-win2-32", v3k(h2, (const void *)ans3_k_groups<2, 32, 4, 12>, 2, 32), 2});
    vs.push_back({"v3t-win4-16", v3k(h4, (const void *)ans3_k_groups<4, 16, 4, 10>, 4, 16), 2});
    const void *g4 = (const void *)ans4_k_headers<4>, *g2 = (const void *)ans4_k_headers<2>;
    vs.push_back({"v4-win4-16", v3k(g4, (const void *)ans4_k_groups<4, 16, 10>, 4, 16), 3});
    vs.push_back({"v4-win2-16", v3k(g2, (const void *)ans4_k_groups<2, 16, 16>, 2, 16), 3});
    vs.push_back({"v4-win4-16m12", v3k(g4, (const void *)ans4_k_groups<4, 16, 12>, 4, 16), 3});

    int fails = ref_fail;
    double base = 0;
    const char *base_name = "";
    float ms = 0;
    for (const variant &v : vs) {
        if (!listed(only, v.name) || (v.v3 && !refs))
            continue;
        void **dc = v.v3 == 3 ? d_c4 : v.v3 == 2 ? d_c3t : v.v3 ? d_c3 : d_c2;
        size_t *dcs = v.v3 == 3 ? d_csz4 : v.v3 == 2 ? d_csz3t : v.v3 ? d_csz3 : d_csz2;
        auto launch = [&]() {
            return oc_own_gpu_decompress(&v.k, scr, scr_size, n, (const void *const *)dc, dcs, d_out, d_ocap,
                                         d_osz, d_st, 0);
        };
        int vper = 0;
        CUDA_OK(
            cudaFuncSetAttribute(v.k.tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)v.k.tile_smem));
        CUDA_OK(cudaFuncSetAttribute(v.k.tiles, cudaFuncAttributePreferredSharedMemoryCarveout, v.carve));
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&vper, v.k.tiles, (int)v.k.tile_threads,
                                                              v.k.tile_smem));
        cudaFuncAttributes fa;
        CUDA_OK(cudaFuncGetAttributes(&fa, v.k.tiles));
        printf(
            "%s: %d CTAs of %u threads an SM, %zu bytes of dynamic shared memory (%zu static), %d registers, "
            "%zu bytes local, carveout %d%%\n",
            v.name, vper, v.k.tile_threads, v.k.tile_smem, (size_t)fa.sharedSizeBytes, fa.numRegs,
            (size_t)fa.localSizeBytes, v.carve);
        CUDA_OK(cudaMemset(out, 0, total));
        CUDA_OK(cudaMemset(d_st, 0xff, n * sizeof(oc_status)));
        if (launch() != OC_OK) {
            printf("%-13s launch failed\n", v.name);
            fails++;
            continue;
        }
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemcpy(hst.data(), d_st, n * sizeof(oc_status), cudaMemcpyDeviceToHost));
        std::vector<size_t> hosz(n);
        CUDA_OK(cudaMemcpy(hosz.data(), d_osz, n * sizeof(size_t), cudaMemcpyDeviceToHost));
        size_t badst = 0;
        int first_bad = -1;
        for (size_t i = 0; i < n; i++) {
            bool b = hst[i] != OC_OK || hosz[i] != CH;
            badst += b;
            if (b && first_bad < 0)
                first_bad = (int)i;
        }
        unsigned long long bad = 0;
        CUDA_OK(cudaMemset(d_bad, 0, sizeof *d_bad));
        k_count_diff<<<1024, 256>>>(in, out, total, d_bad);
        CUDA_OK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
        if (badst || bad) {
            printf("%-13s FAILED: %zu chunks with a bad status or size (first %d: status %d), %llu words "
                   "differ\n",
                   v.name, badst, first_bad, first_bad >= 0 ? (int)hst[first_bad] : 0, bad);
            fails++;
            continue;
        }
        std::vector<float> t;
        for (int r = 0; r < reps; r++) {
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
        printf("%-13s %8.1f GB/s  %.2fx %s  (min %.3f ms, max %.3f ms)\n", v.name, gbs, gbs / base, base_name,
               t.front(), t.back());
    }
    printf("%s\n", fails ? "FAILED" : "all outputs checked");
    return fails ? 1 : 0;
}
