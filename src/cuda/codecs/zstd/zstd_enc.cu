/*
 * zstd_enc.cu - the GPU Zstandard compressor: the kernel around
 * zstd_enc_core.h (one warp per task) and its launcher (zstd_gpu.h).
 *
 * A task is a chunk, or at levels 1-3 one 128 KiB block of a larger chunk
 * (zstd_enc_core.h, "blocks compressed alone": a plan kernel counts each
 * chunk's tasks, the warp that finishes a chunk's last block gathers its
 * frame), so a batch of 1 MiB chunks runs 8 warps a chunk.
 * Each warp is a worker with its own slice of device scratch (match tables,
 * sequences, literals, entropy tables); workers take the next task from a
 * counter at the scratch's start (atomicAdd; zeroed by the launcher), so any
 * scratch size from one slice up serves any batch, and a worker that drew
 * quick chunks (raw, runs) takes more (a fixed chunk = worker, worker +
 * workers, ... left the last workers with up to ~2x the mean work on mixed
 * data: ENC_NOTES.md "Where the time goes").  The warp clears the hash table together and runs
 * the chunk together: the fast variant's match finder and the byte copies
 * use every lane; the level >= 6 match finder and the entropy coding's
 * serial parts (Huffman tree, FSE tables and state chain) run on lane 0
 * (zstd_enc_core.h).
 */
#include <stdlib.h>
#include <string.h>

#include "zstd_gpu.h"

#include "zstd_enc_core.h"
#include "../../runtime/chunk_of.cuh"

#define ZE_WARPS_PER_BLOCK 2
/* 20 warps an SM resident: 96 registers (the engine's scratch gives ~17 workers an SM;
 * without the bound ptxas takes 128, 16 an SM, and the last workers would wait) */
#define ZE_MIN_BLOCKS 10

#define ZE_COUNTER_BYTES 256 /* the next task to take (unsigned long long), before the plan */

static size_t ze_slice_bytes(void)
{
    size_t s = ZE_SCRATCH_BYTES + sizeof(ze_tables);
    return (s + 255) & ~(size_t)255;
}

/* The plan of n chunks (ze_plan_kernel): each chunk's first task (n + 1
 * unsigned long long, the last the number of tasks), then each chunk's
 * count of finished block tasks (n unsigned). */
static __host__ __device__ size_t ze_plan_bytes(size_t n)
{
    return ((n + 1) * sizeof(unsigned long long) + n * sizeof(unsigned) + 255) & ~(size_t)255;
}

/* Workers for n chunks at `level`: a task each (a chunk, or at levels 1-3
 * a 128 KiB block of a larger chunk: zstd_enc_core.h, ze_tasks), counted
 * from sizes_host when the host can read the sizes, else as if the chunks
 * were 1 MiB (8 tasks: the 2.5 GiB cap of zstd_gpu_codec.cu bounds it). */
extern "C" size_t oc_cuda_zstd_compress_scratch_size(size_t n, int level, const size_t *sizes_host)
{
    size_t tasks = n;
    ze_params P = ze_params_for_level(level);
    if (P.bucket && sizes_host) {
        tasks = 0;
        for (size_t i = 0; i < n && tasks < OC_ZSTD_ENC_MAX_WARPS; i++)
            tasks += ze_split(&P, sizes_host[i]) ? (sizes_host[i] + ZE_BLOCK - 1) / ZE_BLOCK : 1;
    } else if (P.bucket) {
        tasks = n < OC_ZSTD_ENC_MAX_WARPS ? 8 * n : n;
    }
    size_t w = tasks < OC_ZSTD_ENC_MAX_WARPS ? tasks : OC_ZSTD_ENC_MAX_WARPS;
    if (w == 0)
        w = 1;
    return ZE_COUNTER_BYTES + ze_plan_bytes(n) + w * ze_slice_bytes();
}

/* One block of 1024 threads: each chunk's tasks (ze_tasks) and the first
 * one's number, an exclusive scan by 1024 chunks a step; clears the
 * finished-block counts. */
__global__ void __launch_bounds__(1024)
    ze_plan_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                   const size_t *dst_caps, int level, unsigned long long *first, unsigned *finished)
{
    __shared__ unsigned long long wsum[32];
    __shared__ unsigned long long carry;
    uint32_t lane = threadIdx.x & 31u, wid = threadIdx.x >> 5;
    if (threadIdx.x == 0)
        carry = 0;
    __syncthreads();
    for (size_t b = 0; b < n; b += 1024) {
        size_t i = b + threadIdx.x;
        unsigned long long t = 0;
        if (i < n) {
            size_t sn = src_sizes[i];
            t = (src_ptrs[i] == nullptr && sn != 0) || dst_ptrs[i] == nullptr
                    ? 1
                    : ze_tasks(sn, dst_caps[i], level);
            finished[i] = 0;
        }
        unsigned long long x = t;
        for (int d = 1; d < 32; d <<= 1) {
            unsigned long long y = __shfl_up_sync(0xffffffffu, x, d);
            if (lane >= (uint32_t)d)
                x += y;
        }
        if (lane == 31)
            wsum[wid] = x;
        __syncthreads();
        if (wid == 0) {
            unsigned long long s = wsum[lane];
            for (int d = 1; d < 32; d <<= 1) {
                unsigned long long y = __shfl_up_sync(0xffffffffu, s, d);
                if (lane >= (uint32_t)d)
                    s += y;
            }
            wsum[lane] = s;
        }
        __syncthreads();
        unsigned long long excl = carry + (wid ? wsum[wid - 1] : 0) + x - t;
        if (i < n)
            first[i] = excl;
        __syncthreads();
        if (threadIdx.x == 1023)
            carry = excl + t;
        __syncthreads();
    }
    if (threadIdx.x == 0)
        first[n] = carry;
}

/* Workers take tasks from the counter: with a plan (first != NULL, levels
 * 1-3) a task is a chunk (ze_compress_chunk) or one block of a chunk that
 * runs a task a block (ze_compress_task; the warp that finishes the
 * chunk's last block gathers its frame); without one a task is a chunk. */
__global__ void __launch_bounds__(ZE_WARPS_PER_BLOCK * 32, ZE_MIN_BLOCKS)
    ze_compress_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                       const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, int level,
                       uint8_t *scratch, size_t slice, size_t nwarps, const unsigned long long *first,
                       unsigned *finished)
{
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    uint32_t lane = threadIdx.x & 31u;
    if (warp >= nwarps)
        return;
    unsigned long long *next = (unsigned long long *)(void *)scratch;
    uint8_t *mem = scratch + ZE_COUNTER_BYTES + (first ? ze_plan_bytes(n) : 0) + warp * slice;
    ze_work W = ze_work_from(mem);
    ze_tables *T = (ze_tables *)(mem + ZE_SCRATCH_BYTES);
    unsigned long long ntasks = first ? first[n] : n;
    int init = 1;
    size_t done = 0; /* the worker's chunk before: its heads go stale by W.base, not by clearing */
    int clear = 1;
    for (;;) {
        unsigned long long t = 0;
        if (lane == 0)
            t = atomicAdd(next, 1ull);
        t = __shfl_sync(0xffffffffu, t, 0);
        if (t >= ntasks)
            break;
        if (init) {
            if (lane == 0)
                ze_tables_init(T);
            __syncwarp();
            init = 0;
        }
        size_t c = first ? oc_chunk_of(first, n, t) : (size_t)t;
        size_t k = first ? (size_t)(t - first[c]) : 0, nk = first ? (size_t)(first[c + 1] - first[c]) : 1;
        const uint8_t *src = (const uint8_t *)src_ptrs[c];
        size_t sn = src_sizes[c];
        if (!clear)
            clear = ze_next_chunk(&W, done, sn);
        if (clear) {
            ze_reset(&W, lane, 32);
            __syncwarp();
            clear = 0;
        }
        done = sn;
        uint8_t *dst = (uint8_t *)dst_ptrs[c];
        size_t out = 0;
        oc_status st;
        if (nk > 1) { /* one block: the last of the chunk's tasks to finish gathers the frame */
            ze_compress_task(&W, T, src, sn, (uint32_t)k, dst, level);
            __threadfence();
            unsigned f = 0;
            if (lane == 0)
                f = atomicAdd(&finished[c], 1u);
            f = __shfl_sync(0xffffffffu, f, 0);
            if (f + 1 < nk)
                continue;
            __threadfence();
            out = ze_gather(dst, sn);
            st = OC_OK;
        } else if ((src == nullptr && sn != 0) || dst == nullptr) {
            st = OC_ERR_INVALID_ARGUMENT;
        } else { /* the whole warp: matching by lanes, entropy coding on lane 0 */
            st = ze_compress_chunk(&W, T, src, sn, dst, dst_caps[c], &out, level);
        }
        if (lane == 0) {
            if (dst_sizes)
                dst_sizes[c] = st == OC_OK ? out : 0;
            if (statuses)
                statuses[c] = st;
        }
        __syncwarp();
    }
}

/* The level comes resolved (the algorithm table's default, 3, for 0). */
extern "C" oc_status oc_cuda_zstd_compress(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                                           size_t n, const void *const *src_ptrs_dev,
                                           const size_t *src_sizes_dev, void *const *dst_ptrs_dev,
                                           const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                           oc_status *statuses_dev, cudaStream_t stream)
{
    int level = cfg->level;
    if (n == 0)
        return OC_OK;
    if (!src_ptrs_dev || !src_sizes_dev || !dst_ptrs_dev || !dst_caps_dev || !scratch)
        return OC_ERR_INVALID_ARGUMENT;
    size_t slice = ze_slice_bytes();
    /* levels 1-3 plan the tasks (a chunk, or a block of a larger chunk) when the scratch holds the plan
     * and a worker; else a task a chunk (the same bytes: ze_compress_chunk) */
    ze_params P = ze_params_for_level(level);
    size_t plan = P.bucket ? ze_plan_bytes(n) : 0;
    if (plan && scratch_size < ZE_COUNTER_BYTES + plan + slice)
        plan = 0;
    size_t w = scratch_size > ZE_COUNTER_BYTES + plan ? (scratch_size - ZE_COUNTER_BYTES - plan) / slice : 0;
    if (!plan && w > n)
        w = n;
    if (w > OC_ZSTD_ENC_MAX_WARPS)
        w = OC_ZSTD_ENC_MAX_WARPS;
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    if (cudaMemsetAsync(scratch, 0, sizeof(unsigned long long), stream) != cudaSuccess)
        return OC_ERR_CUDA;
    unsigned long long *first = nullptr;
    unsigned *finished = nullptr;
    if (plan) {
        first = (unsigned long long *)(void *)((uint8_t *)scratch + ZE_COUNTER_BYTES);
        finished = (unsigned *)(void *)(first + n + 1);
        ze_plan_kernel<<<1, 1024, 0, stream>>>(n, src_ptrs_dev, src_sizes_dev, dst_ptrs_dev, dst_caps_dev,
                                               level, first, finished);
    }
    unsigned blocks = (unsigned)((w + ZE_WARPS_PER_BLOCK - 1) / ZE_WARPS_PER_BLOCK);
    ze_compress_kernel<<<blocks, ZE_WARPS_PER_BLOCK * 32, 0, stream>>>(
        n, src_ptrs_dev, src_sizes_dev, dst_ptrs_dev, dst_caps_dev, dst_sizes_dev, statuses_dev, level,
        (uint8_t *)scratch, slice, w, first, finished);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}
