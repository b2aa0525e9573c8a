/*
 * zstd_enc_phases.cu - where the GPU zstd compressor's time goes: the
 * library's encoder core (zstd_enc_core.h) in a copy of the library's kernel
 * (zstd_enc.cu: one warp per chunk, workers loop over chunks, the same
 * scratch slice) whose ZE_PHASE hook counts lane 0's clock64 cycles in each
 * phase of a block: match finding, the literals section, the sequences
 * section, the block's output and the rest, and the hash table's reset per
 * chunk (bench/gpu/zstd/ENC_NOTES.md, "Where the time goes").  It exists
 * because the library's kernel has no such counters and ncu's stall
 * sampling does not split the time by phase.
 *
 * Usage: zstd_enc_phases [--levels 1,2,3] [--chunks 65536,1048576]
 *                        [--bytes B] [--scratch-cap B] [--reps N] [--libzstd L]
 *                        [--whole] [--static] [--reset-each] FILE...
 * The files (concatenated, repeated to --bytes, default 256 MiB) are cut
 * into chunks; per level and chunk size it prints the speed (CUDA events,
 * median of --reps, default 3; GB/s of input, phases counted too), the
 * ratio, and each phase's share of the summed cycles; every chunk's frame
 * is decoded with libzstd and compared (exit 1 on any mismatch).
 * --libzstd LIST: also libzstd (ZSTD_compressCCtx per chunk, a thread
 * per host core) at those levels on the same chunks: GB/s and ratio.
 * --scratch-cap (default 2 GiB, as the engine gives) bounds the workers.
 * By default the tasks are the library's (since session 8): a chunk, or at
 * levels 1-3 a 128 KiB block of a larger chunk (zep_task_kernel); --whole
 * runs a warp a chunk (ze_compress_chunk: the library's path when a
 * chunk's capacity is short of its frame of Raw blocks, and the library
 * before session 8 for chunks of one block); with --whole, --static takes
 * the fixed chunk = worker + k workers (the library before session 6)
 * instead of the counter, and --reset-each clears the hash heads before
 * every chunk (the library before session 6) instead of moving W.base past
 * the chunk before.  (--split, session 7's experiment of a warp a block,
 * became the library's tasks: its numbers are in ENC_NOTES.md.)
 * Built several times: zstd_enc_phases (the library's core as it is),
 * zstd_enc_phases_serial (ZE_ENTROPY_LANES=1, ZE_COUNT_STEP=1,
 * ZE_LINK_EARLY=0, ZE_WIN_MULTI=0, ZE_BUCKET_MAX_LEVEL=1, ZE_L1_DEPTH=0:
 * the entropy coding on lane 0, match lengths byte by byte, chain links
 * loaded after the compare, one sequence a lazy window: the core before
 * session 6),
 * zstd_enc_phases_win1 (ZE_WIN_MULTI=0 only) and zstd_enc_phases_chain
 * (ZE_BUCKET_MAX_LEVEL=1 only: hash chains at levels 2-3, the core before
 * session 7's buckets), zstd_enc_phases_words (ZEP_MATCH_WORDS: the
 * match finders of zstd_enc_match_words.h, a frozen copy whose bucket
 * search and probes read aligned words; left the library), zstd_enc_phases_l1fast/_l1b2 (ZE_L1_DEPTH
 * 0/2: level 1 by the fast variant / bucket windows of depth 2) and
 * zstd_enc_phases_rows8k (ZE_BUCKET_ROWS 8192), so the A/Bs run in one
 * call.  The switches that left the library (ZE_ENTROPY_LANES, ZE_COUNT_STEP,
 * ZE_LINK_EARLY, ZE_WIN_MULTI, ZE_SKIP_LOG, ZE_SKIP_BURST) live in frozen
 * copies of its match finders and entropy coding (zstd_enc_match_knobs.h,
 * zstd_enc_entropy_knobs.h), which _serial, _win1, _skip and _burst take
 * (ZEP_KNOBS).
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <zstd.h>

#define ZE_NPH 5 /* match, literals, sequences, output/other, reset */
#define ZEP_WARPS 2
__shared__ unsigned long long zep_acc[ZEP_WARPS][ZE_NPH];
__shared__ unsigned long long zep_t0[ZEP_WARPS];
__shared__ int zep_cur[ZEP_WARPS];
#define ZE_PHASE(k)                                                                                          \
    do {                                                                                                     \
        if ((threadIdx.x & 31u) == 0) {                                                                      \
            unsigned w_ = threadIdx.x >> 5;                                                                  \
            unsigned long long t_ = clock64();                                                               \
            zep_acc[w_][zep_cur[w_]] += t_ - zep_t0[w_];                                                     \
            zep_t0[w_] = t_;                                                                                 \
            zep_cur[w_] = (k);                                                                               \
        }                                                                                                    \
    } while (0)

#ifdef ZEP_MATCH_WORDS /* the word loads (a frozen copy; its guard keeps the library's match finders out) */
#include "zstd_enc_match_words.h"
#endif
#ifdef ZEP_KNOBS /* the switches that left the library (ZE_ENTROPY_LANES, ZE_COUNT_STEP, ZE_LINK_EARLY,      \
                    ZE_WIN_MULTI, ZE_SKIP_LOG, ZE_SKIP_BURST): frozen copies whose guards keep the library's \
                    out */
#include "zstd_enc_entropy_knobs.h"
#include "zstd_enc_match_knobs.h"
#endif
#ifndef ZE_ENTROPY_LANES /* the library's entropy coding: the warp */
#define ZE_ENTROPY_LANES 32
#endif
#include "cuda/codecs/zstd/zstd_enc_core.h"
#include "cuda/codecs/zstd/zstd_gpu.h"

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

static size_t zep_slice(void)
{
    return (ZE_SCRATCH_BYTES + sizeof(ze_tables) + 255) & ~(size_t)255;
}

/* The library's kernel (zstd_enc.cu) with the phase counters. */
__global__ void __launch_bounds__(ZEP_WARPS * 32, 10) /* as zstd_enc.cu */
    zep_kernel(size_t n, const uint8_t *in, size_t chunk, size_t total, uint8_t *out, size_t bound,
               size_t *sizes, int *status, int level, uint8_t *scratch, size_t slice, size_t nwarps,
               unsigned long long *phases, unsigned long long *next, int fixed, int reset_each)
{
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    uint32_t lane = threadIdx.x & 31u, wi = threadIdx.x >> 5;
    if (lane == 0) {
        for (int k = 0; k < ZE_NPH; k++)
            zep_acc[wi][k] = 0;
        zep_cur[wi] = 4;
        zep_t0[wi] = clock64();
    }
    __syncwarp();
    if (warp < nwarps) {
        uint8_t *mem = scratch + warp * slice;
        ze_work W = ze_work_from(mem);
        ze_tables *T = (ze_tables *)(mem + ZE_SCRATCH_BYTES);
        if (lane == 0)
            ze_tables_init(T);
        __syncwarp();
        size_t done = 0;
        int clear = 1;
        for (size_t k = 0;; k++) { /* the library's counter, or (--static) chunk = warp + k nwarps */
            unsigned long long c = warp + k * nwarps;
            if (!fixed) {
                if (lane == 0)
                    c = atomicAdd(next, 1ull);
                c = __shfl_sync(0xffffffffu, c, 0);
            }
            if (c >= n)
                break;
            ZE_PHASE(4);
            size_t off = c * chunk, sn = total - off < chunk ? total - off : chunk, o = 0;
            if (!clear) /* as the library: heads go stale by W.base; --reset-each: cleared per chunk */
                clear = reset_each || ze_next_chunk(&W, done, sn);
            if (clear) {
                W.base = 0;
                ze_reset(&W, lane, 32);
                __syncwarp();
                clear = 0;
            }
            done = sn;
            oc_status st = ze_compress_chunk(&W, T, in + off, sn, out + c * bound, bound, &o, level);
            ZE_PHASE(3);
            if (lane == 0) {
                sizes[c] = st == OC_OK ? o : 0;
                status[c] = (int)st;
            }
            __syncwarp();
        }
    }
    ZE_PHASE(3);
    if (lane == 0)
        for (int k = 0; k < ZE_NPH; k++)
            atomicAdd(&phases[k], zep_acc[wi][k]);
}

/* The library's kernel as it runs levels 1-3 since session 8 (zstd_enc.cu,
 * ze_compress_kernel with a plan), with the phase counters: a task is a
 * chunk, or one 128 KiB block of a chunk that ze_tasks splits
 * (ze_compress_task; the warp that finishes the chunk's last block gathers
 * its frame).  first[]: each chunk's first task (the host's plan: the
 * library's ze_plan_kernel computes the same on the GPU), first[n] the
 * tasks; finished[]: zeroed before each run. */
static __device__ size_t zep_chunk_of(const unsigned long long *first, size_t n, unsigned long long t)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (first[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

__global__ void __launch_bounds__(ZEP_WARPS * 32, 10)
    zep_task_kernel(size_t n, const uint8_t *in, size_t chunk, size_t total, uint8_t *out, size_t bound,
                    size_t *sizes, int *status, int level, uint8_t *scratch, size_t slice, size_t nwarps,
                    unsigned long long *phases, unsigned long long *next, const unsigned long long *first,
                    unsigned *finished)
{
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    uint32_t lane = threadIdx.x & 31u, wi = threadIdx.x >> 5;
    if (lane == 0) {
        for (int k = 0; k < ZE_NPH; k++)
            zep_acc[wi][k] = 0;
        zep_cur[wi] = 4;
        zep_t0[wi] = clock64();
    }
    __syncwarp();
    if (warp < nwarps) {
        uint8_t *mem = scratch + warp * slice;
        ze_work W = ze_work_from(mem);
        ze_tables *T = (ze_tables *)(mem + ZE_SCRATCH_BYTES);
        if (lane == 0)
            ze_tables_init(T);
        __syncwarp();
        size_t done = 0;
        int clear = 1;
        unsigned long long ntasks = first[n];
        for (;;) {
            unsigned long long t = 0;
            if (lane == 0)
                t = atomicAdd(next, 1ull);
            t = __shfl_sync(0xffffffffu, t, 0);
            if (t >= ntasks)
                break;
            ZE_PHASE(4);
            size_t c = zep_chunk_of(first, n, t);
            size_t k = (size_t)(t - first[c]), nk = (size_t)(first[c + 1] - first[c]);
            size_t off = c * chunk, sn = total - off < chunk ? total - off : chunk, o = 0;
            if (!clear)
                clear = ze_next_chunk(&W, done, sn);
            if (clear) {
                W.base = 0;
                ze_reset(&W, lane, 32);
                __syncwarp();
                clear = 0;
            }
            done = sn;
            oc_status st = OC_OK;
            if (nk > 1) {
                ze_compress_task(&W, T, in + off, sn, (uint32_t)k, out + c * bound, level);
                ZE_PHASE(3);
                __threadfence();
                unsigned f = 0;
                if (lane == 0)
                    f = atomicAdd(&finished[c], 1u);
                f = __shfl_sync(0xffffffffu, f, 0);
                if (f + 1 < nk)
                    continue;
                __threadfence();
                o = ze_gather(out + c * bound, sn);
            } else {
                st = ze_compress_chunk(&W, T, in + off, sn, out + c * bound, bound, &o, level);
            }
            ZE_PHASE(3);
            if (lane == 0) {
                sizes[c] = st == OC_OK ? o : 0;
                status[c] = (int)st;
            }
            __syncwarp();
        }
    }
    ZE_PHASE(3);
    if (lane == 0)
        for (int k = 0; k < ZE_NPH; k++)
            atomicAdd(&phases[k], zep_acc[wi][k]);
}

static std::vector<size_t> parse_list(const char *s)
{
    std::vector<size_t> v;
    while (*s) {
        v.push_back(strtoull(s, (char **)&s, 10));
        if (*s == ',')
            s++;
        else
            break;
    }
    return v;
}

int main(int argc, char **argv)
{
    std::vector<size_t> levels = {1, 2, 3}, chunks = {65536, 1048576}, zlevels;
    size_t bytes = (size_t)256 << 20, cap = (size_t)2 << 30;
    int reps = 3, fixed = 0, reset_each = 0, split = 1;
    std::vector<std::string> files;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--levels" && i + 1 < argc)
            levels = parse_list(argv[++i]);
        else if (a == "--chunks" && i + 1 < argc)
            chunks = parse_list(argv[++i]);
        else if (a == "--bytes" && i + 1 < argc)
            bytes = strtoull(argv[++i], nullptr, 10);
        else if (a == "--scratch-cap" && i + 1 < argc)
            cap = strtoull(argv[++i], nullptr, 10);
        else if (a == "--libzstd" && i + 1 < argc)
            zlevels = parse_list(argv[++i]);
        else if (a == "--static")
            fixed = 1, split = 0;
        else if (a == "--reset-each")
            reset_each = 1, split = 0;
        else if (a == "--whole")
            split = 0;
        else if (a == "--split")
            split = 1;
        else if (a == "--reps" && i + 1 < argc)
            reps = atoi(argv[++i]);
        else
            files.push_back(a);
    }
    std::vector<uint8_t> data;
    for (auto &f : files) {
        FILE *fp = fopen(f.c_str(), "rb");
        if (!fp) {
            fprintf(stderr, "cannot open %s\n", f.c_str());
            return 2;
        }
        uint8_t buf[1 << 16];
        size_t r;
        while ((r = fread(buf, 1, sizeof buf, fp)) > 0 && data.size() < bytes)
            data.insert(data.end(), buf, buf + r);
        fclose(fp);
    }
    if (data.empty()) {
        fprintf(stderr, "usage: zstd_enc_phases [options] FILE...\n");
        return 2;
    }
    const std::vector<uint8_t> once(data); /* (inserting a vector's own range into it is undefined) */
    while (data.size() < bytes)
        data.insert(data.end(), once.begin(), once.begin() + std::min(once.size(), bytes - data.size()));
    data.resize(bytes);
    uint8_t *d_in;
    CUDA_OK(cudaMalloc(&d_in, bytes));
    CUDA_OK(cudaMemcpy(d_in, data.data(), bytes, cudaMemcpyHostToDevice));
    cudaFuncAttributes fa;
    CUDA_OK(cudaFuncGetAttributes(&fa, zep_kernel));
    int bps = 0, sms = 0;
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, zep_kernel, ZEP_WARPS * 32, 0));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    printf("kernel: %d registers, %zu B local, %d warps/SM resident at most, %d SMs; entropy lanes %d\n",
           fa.numRegs, (size_t)fa.localSizeBytes, bps * ZEP_WARPS, sms, ZE_ENTROPY_LANES);
    int bad = 0;
    const char *names[ZE_NPH] = {"match", "literals", "sequences", "output+other", "reset"};
    for (size_t chunk : chunks) {
        size_t n = (bytes + chunk - 1) / chunk, bound = ZSTD_compressBound(chunk); /* >= ze_bound */
        size_t bpc = (chunk + ZE_BLOCK - 1) / ZE_BLOCK; /* tasks a chunk at most (a task a block) */
        size_t slice = zep_slice(),
               wmax = std::min(split ? n * bpc : n, std::min(cap / slice, (size_t)OC_ZSTD_ENC_MAX_WARPS));
        unsigned long long *d_first = nullptr;
        unsigned *d_fin = nullptr;
        if (split) {
            CUDA_OK(cudaMalloc(&d_first, (n + 1) * sizeof(unsigned long long)));
            CUDA_OK(cudaMalloc(&d_fin, n * sizeof(unsigned)));
        }
        uint8_t *d_out, *d_scr;
        size_t *d_sizes;
        int *d_st;
        unsigned long long *d_ph, *d_next;
        CUDA_OK(cudaMalloc(&d_out, n * bound));
        CUDA_OK(cudaMalloc(&d_scr, wmax * slice));
        CUDA_OK(cudaMalloc(&d_sizes, n * sizeof(size_t)));
        CUDA_OK(cudaMalloc(&d_st, n * sizeof(int)));
        CUDA_OK(cudaMalloc(&d_ph, ZE_NPH * sizeof(unsigned long long)));
        CUDA_OK(cudaMalloc(&d_next, sizeof(unsigned long long)));
        for (size_t level : levels) {
            size_t w = wmax;
            if (split) { /* the plan: a task a chunk, or a block of a chunk that ze_tasks splits */
                std::vector<unsigned long long> first(n + 1, 0);
                for (size_t c = 0; c < n; c++)
                    first[c + 1] = first[c] + ze_tasks(std::min(chunk, bytes - c * chunk), bound, (int)level);
                w = std::min(wmax, (size_t)first[n]);
                CUDA_OK(cudaMemcpy(d_first, first.data(), (n + 1) * sizeof(unsigned long long),
                                   cudaMemcpyHostToDevice));
            }
            unsigned blocks = (unsigned)((w + ZEP_WARPS - 1) / ZEP_WARPS);
            std::vector<float> ms;
            unsigned long long ph[ZE_NPH] = {0};
            cudaEvent_t e0, e1;
            CUDA_OK(cudaEventCreate(&e0));
            CUDA_OK(cudaEventCreate(&e1));
            for (int r = 0; r <= reps; r++) { /* the first run warms up */
                CUDA_OK(cudaMemset(d_ph, 0, ZE_NPH * sizeof(unsigned long long)));
                CUDA_OK(cudaMemset(d_next, 0, sizeof(unsigned long long)));
                CUDA_OK(cudaEventRecord(e0));
                if (split) {
                    CUDA_OK(cudaMemsetAsync(d_fin, 0, n * sizeof(unsigned)));
                    zep_task_kernel<<<blocks, ZEP_WARPS * 32>>>(n, d_in, chunk, bytes, d_out, bound, d_sizes,
                                                                d_st, (int)level, d_scr, slice, w, d_ph,
                                                                d_next, d_first, d_fin);
                } else {
                    zep_kernel<<<blocks, ZEP_WARPS * 32>>>(n, d_in, chunk, bytes, d_out, bound, d_sizes, d_st,
                                                           (int)level, d_scr, slice, w, d_ph, d_next, fixed,
                                                           reset_each);
                }
                CUDA_OK(cudaEventRecord(e1));
                CUDA_OK(cudaEventSynchronize(e1));
                CUDA_OK(cudaGetLastError());
                float t;
                CUDA_OK(cudaEventElapsedTime(&t, e0, e1));
                if (r > 0)
                    ms.push_back(t);
                CUDA_OK(cudaMemcpy(ph, d_ph, sizeof ph, cudaMemcpyDeviceToHost));
            }
            std::sort(ms.begin(), ms.end());
            float med = ms[ms.size() / 2];
            /* check every frame with libzstd */
            std::vector<uint8_t> out(n * bound), back(chunk);
            std::vector<size_t> sizes(n);
            std::vector<int> st(n);
            CUDA_OK(cudaMemcpy(out.data(), d_out, n * bound, cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(sizes.data(), d_sizes, n * sizeof(size_t), cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(st.data(), d_st, n * sizeof(int), cudaMemcpyDeviceToHost));
            size_t comp = 0, badhere = 0;
            for (size_t c = 0; c < n; c++) {
                size_t sn = std::min(chunk, bytes - c * chunk);
                size_t r = st[c] == 0 ? ZSTD_decompress(back.data(), chunk, out.data() + c * bound, sizes[c])
                                      : (size_t)-1;
                if (st[c] != 0 || ZSTD_isError(r) || r != sn ||
                    memcmp(back.data(), data.data() + c * chunk, sn))
                    badhere++;
                comp += sizes[c];
            }
            bad += badhere != 0;
            unsigned long long sum = 0;
            for (int k = 0; k < ZE_NPH; k++)
                sum += ph[k];
            printf(
                "level %zu, chunk %zu, %zu chunks, %zu workers%s: %.3f GB/s (median of %d), ratio %.3f, %s",
                level, chunk, n, w,
                fixed        ? " (static)"
                : reset_each ? " (reset each)"
                : split      ? ""
                             : " (whole: a warp a chunk)",
                bytes / (med * 1e6), reps, (double)bytes / comp, badhere ? "MISMATCH" : "all frames decode");
            printf("; cycles:");
            for (int k = 0; k < ZE_NPH; k++)
                printf(" %s %.1f%%", names[k], sum ? 100.0 * ph[k] / sum : 0.0);
            printf(" (%.2f Gcycles over all warps)\n", sum / 1e9);
            fflush(stdout);
            cudaEventDestroy(e0);
            cudaEventDestroy(e1);
        }
        /* libzstd on the host's cores, same chunks (ZSTD_compress per chunk, a thread per core) */
        unsigned nt = std::max(1u, std::thread::hardware_concurrency());
        for (size_t zl : zlevels) {
            std::vector<size_t> tot(nt, 0);
            std::vector<std::thread> th;
            auto t0 = std::chrono::steady_clock::now();
            for (unsigned t = 0; t < nt; t++)
                th.emplace_back([&, t]() {
                    std::vector<uint8_t> o(ZSTD_compressBound(chunk));
                    ZSTD_CCtx *cc = ZSTD_createCCtx();
                    for (size_t c = t; c < n; c += nt) {
                        size_t sn = std::min(chunk, bytes - c * chunk);
                        size_t r =
                            ZSTD_compressCCtx(cc, o.data(), o.size(), data.data() + c * chunk, sn, (int)zl);
                        tot[t] += ZSTD_isError(r) ? sn : r;
                    }
                    ZSTD_freeCCtx(cc);
                });
            for (auto &x : th)
                x.join();
            double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            size_t comp = 0;
            for (size_t v : tot)
                comp += v;
            printf("libzstd level %zu, chunk %zu, %u threads: %.3f GB/s, ratio %.3f\n", zl, chunk, nt,
                   bytes / sec / 1e9, (double)bytes / comp);
            fflush(stdout);
        }
        cudaFree(d_first);
        cudaFree(d_fin);
        cudaFree(d_out);
        cudaFree(d_scr);
        cudaFree(d_sizes);
        cudaFree(d_st);
        cudaFree(d_ph);
        cudaFree(d_next);
    }
    cudaFree(d_in);
    return bad ? 1 : 0;
}
