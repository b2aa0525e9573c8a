/*
 * chunk_of.cuh - which chunk of a batch owns work item t, given each
 * chunk's first item (first[0..n], nondecreasing, first[n] = the total):
 * the last i with first[i] <= t.  Written once for the kernels that spread
 * a batch's items over warps without a launch per chunk: the zstd
 * encoder's block tasks (zstd_enc.cu), Blosc's blocks and split streams
 * (blosc_kernels.cu), and the own formats' tiles (own_tiles.cuh, ANS,
 * Cascaded).
 */
#ifndef OC_CUDA_CHUNK_OF_CUH
#define OC_CUDA_CHUNK_OF_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* One thread's binary search (first strictly increasing or not). */
static __device__ size_t oc_chunk_of(const unsigned long long *first, size_t n, unsigned long long t)
{
    size_t lo = 0, hi = n; /* first[lo] <= t < first[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (first[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The same, found by the 32 lanes of a warp (each with the same t): each
 * round probes 31 places of the interval at once, so 16384 chunks take 3
 * dependent loads instead of a binary search's 14 (~4000 cycles of L2
 * latency that the whole CTA waited for on every tile).  Every lane returns
 * the same i.  (Written for ANS's groups, f8a9b81.) */
static __device__ size_t oc_chunk_of_warp(const unsigned long long *first, size_t n, unsigned long long t)
{
    uint32_t lane = threadIdx.x & 31u;
    size_t lo = 0, hi = n; /* first[lo] <= t < first[hi] (first[n] = total > t) */
    while (hi - lo > 1) {
        size_t pos = lo + (hi - lo) * (lane + 1) / 32; /* nondecreasing over the lanes, < hi */
        bool le = lane < 31 && (pos <= lo || first[pos] <= t);
        uint32_t m = __ballot_sync(0xffffffffu, le);
        int top = m ? 31 - __clz((int)m) : -1; /* the last lane whose place is <= t (they come first) */
        size_t nlo = __shfl_sync(0xffffffffu, pos, top < 0 ? 0 : top);
        size_t nhi = __shfl_sync(0xffffffffu, pos, top + 1 <= 30 ? top + 1 : 0);
        lo = top < 0 ? lo : nlo;
        hi = top + 1 <= 30 ? nhi : hi;
    }
    return lo;
}

#endif /* OC_CUDA_CHUNK_OF_CUH */
