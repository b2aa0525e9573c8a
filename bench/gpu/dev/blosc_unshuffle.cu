/*
 * blosc_unshuffle.cu - the Blosc decoder's bit unshuffle of typesize 8
 * (blosc_kernels.cu, bl_bitunshuffle_words: a lane per 8-element group,
 * single-byte loads, a warp's groups staged in shared memory) beside a
 * variants reading a 16- or 32-bit word per bit row and lane (2 or 4
 * groups a lane: 2-4x fewer load requests, 64- or 128-byte pieces a warp).  It exists
 * because ncu (session 6, call A) put the library's at 1.77 ms a GiB and
 * 36% of DRAM peak against 1.07 ms for the byte unshuffle, and the next
 * step should be measured before it goes into the library
 * (bench/gpu/blosc/NOTES.md).
 *
 * Usage: blosc_unshuffle [MiB]   (default 512: blocks of 1 MiB, 131072
 * elements of 8 bytes).  Random elements are bitshuffled on the host
 * (src/common/shuffle.h), each variant unshuffles all blocks on the GPU,
 * the output is compared with the elements (exit 1 on a mismatch), then
 * each is timed (CUDA events, median of 7) and printed in ms and GB/s of
 * output.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/shuffle.h"

#define CK(x)                                                                                                \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

#define EL ((size_t)131072) /* elements a block */
#define STAGE (32 * 9)

/* The library's (blosc_kernels.cu at 6f6c116), T = 8, reading the slab. */
__global__ void __launch_bounds__(256) k_lib(uint64_t *out, const uint8_t *slab, size_t nblocks)
{
    __shared__ uint64_t stage[8 * STAGE];
    const size_t row = EL / 8;
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    uint64_t *st = stage + warp * STAGE;
    for (size_t blk = blockIdx.x; blk < nblocks; blk += gridDim.x) {
        const uint8_t *s = slab + blk * EL * 8;
        uint64_t *dst = out + blk * EL;
        for (size_t g0 = (size_t)warp * 32; g0 < row; g0 += (size_t)nwarps * 32) {
            size_t g = g0 + lane;
            uint64_t w[8];
#pragma unroll
            for (int r = 0; r < 8; r++)
                w[r] = 0;
#pragma unroll
            for (int j = 0; j < 8; j++) {
                uint64_t x = 0;
#pragma unroll
                for (int b = 0; b < 8; b++)
                    x |= (uint64_t)s[(8 * (size_t)j + b) * row + g] << (8 * b);
                x = oc_transpose8x8(x);
#pragma unroll
                for (int r = 0; r < 8; r++)
                    w[r] |= ((x >> (8 * r)) & 0xFF) << (8 * j);
            }
#pragma unroll
            for (int r = 0; r < 8; r++)
                st[lane * 9 + r] = w[r];
            __syncwarp();
            for (size_t k = lane; k < 256; k += 32)
                dst[g0 * 8 + k] = st[(k >> 3) * 9 + (k & 7)];
            __syncwarp();
        }
    }
}

/* Variant: a lane takes Q (2 or 4) consecutive groups, reading one
 * Q-byte word of each of the 64 bit rows (byte q of the word: group q); a
 * warp takes 32 words of a block's rows (32 Q groups), grid-stride over
 * all blocks; the groups go through shared memory in Q passes of 32
 * groups and are stored as consecutive elements (64-byte runs). */
template <int Q, typename U>
__global__ void __launch_bounds__(128) k_word(uint64_t *out, const uint8_t *slab, size_t nblocks)
{
    __shared__ uint64_t stage[4 * STAGE];
    const size_t row = EL / 8, rw = row / Q; /* row in words */
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    uint64_t *st = stage + warp * STAGE;
    size_t tiles = nblocks * (rw / 32);
    for (size_t t = (size_t)blockIdx.x * nwarps + warp; t < tiles; t += (size_t)gridDim.x * nwarps) {
        size_t blk = t / (rw / 32), u0 = (t % (rw / 32)) * 32;
        const U *s = (const U *)(slab + blk * EL * 8);
        uint64_t *dst = out + blk * EL;
        size_t u = u0 + lane; /* word column: groups Q u .. Q u + Q - 1 */
        uint64_t w[Q][8];
#pragma unroll
        for (int q = 0; q < Q; q++)
#pragma unroll
            for (int r = 0; r < 8; r++)
                w[q][r] = 0;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            uint32_t v[8];
#pragma unroll
            for (int b = 0; b < 8; b++)
                v[b] = s[(8 * (size_t)j + b) * rw + u];
#pragma unroll
            for (int q = 0; q < Q; q++) {
                uint64_t x = 0;
#pragma unroll
                for (int b = 0; b < 8; b++)
                    x |= (uint64_t)((v[b] >> (8 * q)) & 0xFF) << (8 * b);
                x = oc_transpose8x8(x);
#pragma unroll
                for (int r = 0; r < 8; r++)
                    w[q][r] |= ((x >> (8 * r)) & 0xFF) << (8 * j);
            }
        }
        /* pass q: lane l holds group Q (u0 + l) + q, elements 8 (Q (u0 + l) + q) + r */
#pragma unroll
        for (int q = 0; q < Q; q++) {
#pragma unroll
            for (int r = 0; r < 8; r++)
                st[lane * 9 + r] = w[q][r];
            __syncwarp();
            for (size_t k = lane; k < 256; k += 32) {
                size_t l = k >> 3, r = k & 7;
                dst[((size_t)Q * (u0 + l) + q) * 8 + r] = st[l * 9 + r];
            }
            __syncwarp();
        }
    }
}

static float time_it(void (*launch)(uint64_t *, const uint8_t *, size_t), uint64_t *d_out,
                     const uint8_t *d_in, size_t nb)
{
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<float> t;
    for (int i = 0; i < 8; i++) {
        CK(cudaEventRecord(a));
        launch(d_out, d_in, nb);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (i > 0)
            t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return t[t.size() / 2];
}

static void run_lib(uint64_t *o, const uint8_t *i, size_t nb)
{
    k_lib<<<(unsigned)std::min<size_t>(nb, 2048), 256>>>(o, i, nb);
}
static void run_word2(uint64_t *o, const uint8_t *i, size_t nb)
{
    k_word<2, uint16_t><<<4096, 128>>>(o, i, nb);
}
static void run_word4(uint64_t *o, const uint8_t *i, size_t nb)
{
    k_word<4, uint32_t><<<4096, 128>>>(o, i, nb);
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
    size_t nb = mib, bytes = nb * EL * 8;
    if (nb == 0)
        return 2;
    std::vector<uint8_t> plain(bytes), filt(bytes), back(bytes);
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < bytes; i += 8) { /* xorshift: random elements */
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        memcpy(&plain[i], &s, 8);
    }
    for (size_t b = 0; b < nb; b++)
        oc_bitshuffle_groups(&filt[b * EL * 8], &plain[b * EL * 8], EL, 8, 0, EL / 8);
    uint8_t *d_in;
    uint64_t *d_out;
    CK(cudaMalloc(&d_in, bytes));
    CK(cudaMalloc(&d_out, bytes));
    CK(cudaMemcpy(d_in, filt.data(), bytes, cudaMemcpyHostToDevice));
    struct {
        const char *name;
        void (*fn)(uint64_t *, const uint8_t *, size_t);
    } v[] = {{"library (byte loads)", run_lib},
             {"u16 loads (2 groups a lane)", run_word2},
             {"u32 loads (4 groups a lane)", run_word4}};
    int bad = 0;
    for (auto &x : v) {
        CK(cudaMemset(d_out, 0, bytes));
        x.fn(d_out, d_in, nb);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(back.data(), d_out, bytes, cudaMemcpyDeviceToHost));
        int ok = memcmp(back.data(), plain.data(), bytes) == 0;
        bad |= !ok;
        float ms = time_it(x.fn, d_out, d_in, nb);
        printf("%-30s %s  %.3f ms for %zu MiB: %.1f GB/s of output (%.2f ms a GiB)\n", x.name,
               ok ? "output OK " : "MISMATCH", ms, mib, bytes / (ms * 1e-3) / 1e9, ms * 1024.0 / (double)mib);
    }
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    return bad;
}
