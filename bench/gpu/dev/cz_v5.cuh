/*
 * cz_v5.cuh - why this exists: the library's Cascaded tile loop (czg_tiles,
 * cascaded_tile_decode.cuh) runs 3 CTAs an SM, held there by the
 * workspace (two 16 KiB stages: the tile decoding and the next one coming
 * in by cp.async) and by 80 registers a thread.  Session 10's profile:
 * issue-bound at 0.64-0.68 issued a cycle a scheduler with 21.5 warps an
 * SM.  `onestage` (session 11, bench/gpu/owncodecs/NOTES.md) tries 4 CTAs:
 * one stage (the workspace less the second stage: 49.4 KiB, czg_ws keeps
 * its stages last for this), the next tile's bytes prefetched into L2
 * (prefetch.global.L2 a 128-byte line a thread) instead of shared memory,
 * and __launch_bounds__(256, 4) (64 registers: ptxas spills more, 328
 * bytes in the tile loop against 208, and 48-128 in the tile decoders).
 * The decoders are the library's (czg_decode_rdr, czg_decode_tile) on
 * stage 0.  A tile costs two barriers (the stage filled; every thread past
 * the tile before the stage is written again) instead of one.
 * `direct` and `onestage-direct` (session 11, after call B): the same
 * loops with the DIRECT instances of the library's tile decoders, which
 * write a thread's K elements from registers to the output (16-byte
 * stores, 64 bytes a thread: each store instruction half-fills 32 sectors,
 * the four together fill them) instead of through the workspace, a
 * barrier and czg_copy_out: one or two barriers and 8 shared-memory
 * accesses a thread fewer a tile, twice the L2 write requests.
 * Included by cz_dev.cu after the library's cascaded_kernels.cu.
 */

/* Bytes of dynamic shared memory of the one-stage loop. */
#define CZ5_SMEM (offsetof(czg_ws, stage) + CZG_STAGE_BYTES)

/* Prefetches tile T's bytes into L2 (a 128-byte line a thread). */
static __device__ __forceinline__ void cz5_prefetch(const czg_tile &T)
{
    if (!T.valid || T.st != OC_OK || T.n >= T.cnt * T.w)
        return;
    uintptr_t g = (uintptr_t)T.src & ~(uintptr_t)127u, ge = (uintptr_t)T.src + T.n;
    for (uintptr_t a = g + 128u * threadIdx.x; a < ge; a += 128u * CZG_THREADS)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
}

template <bool DIRECT>
static __device__ __forceinline__ void cz5_tiles(size_t n, const void *const *src, const size_t *src_sizes,
                                                 void *const *dst, own_batch_scratch s)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    unsigned long long total = s.first[n];
    unsigned long long per = (total + gridDim.x - 1) / gridDim.x;
    unsigned long long t0 = blockIdx.x * per, end = t0 + per < total ? t0 + per : total;
    uint32_t sa0 = (uint32_t)__cvta_generic_to_shared(ws->stage[0]);
    czg_tile cur, nxt;
    czg_chunk C;
    C.first = C.next = 0;
    czg_locate_kept(n, src, src_sizes, dst, s, t0, end, &C, &cur);
    for (unsigned long long t = t0; t < end; t++) {
        uint32_t cidx = ~0u, cval = 0;
        czg_issue(sa0, cur, &cidx, &cval);
        czg_locate_kept(n, src, src_sizes, dst, s, t + 1, end, &C, &nxt);
        cz5_prefetch(nxt);
        if (cidx != ~0u)
            ws->stage[0][cidx] = cval;
        asm volatile("cp.async.wait_all;" ::: "memory");
        __syncthreads(); /* stage 0 is whole */
        oc_status st = (oc_status)cur.st;
        if (st == OC_OK) {
            uint32_t o = (uint32_t)((uintptr_t)cur.src & 15u);
            switch (cur.w) {
            case 1:
                st = czg_decode_tile<uint32_t, 1>(0, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            case 2:
                st = czg_decode_tile<uint32_t, 2>(0, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            case 4:
                st = czg_decode_rdr<uint32_t, 4, DIRECT>(0, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            default:
                st = czg_decode_rdr<uint64_t, 8, DIRECT>(0, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            }
        }
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[cur.chunk], own_key((unsigned long long)cur.tile + 1, st));
        cur = nxt;
        __syncthreads(); /* every thread past the tile (the stage and the buffers) */
    }
}

static __global__ void __launch_bounds__(CZ_THREADS, 4)
    cz5_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                own_batch_scratch s)
{
    cz5_tiles<false>(n, src, src_sizes, dst, s);
}

static __global__ void __launch_bounds__(CZ_THREADS, 4)
    cz5d_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    cz5_tiles<true>(n, src, src_sizes, dst, s);
}

/* The library's loop (czg_tiles: two stages, 3 CTAs an SM) with the DIRECT decoders. */
static __device__ __forceinline__ void cz6_tiles(size_t n, const void *const *src, const size_t *src_sizes,
                                                 void *const *dst, own_batch_scratch s)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    unsigned long long total = s.first[n];
    unsigned long long per = (total + gridDim.x - 1) / gridDim.x;
    unsigned long long t0 = blockIdx.x * per, end = t0 + per < total ? t0 + per : total;
    uint32_t sa0 = (uint32_t)__cvta_generic_to_shared(ws->stage[0]);
    czg_tile cur, nxt;
    czg_chunk C;
    C.first = C.next = 0;
    uint32_t cidx = ~0u, cval = 0, sb = 0;
    czg_locate_kept(n, src, src_sizes, dst, s, t0, end, &C, &cur);
    czg_issue(sa0, cur, &cidx, &cval);
    for (unsigned long long t = t0; t < end; t++) {
        czg_locate_kept(n, src, src_sizes, dst, s, t + 1, end, &C, &nxt);
        if (cidx != ~0u)
            ws->stage[sb][cidx] = cval;
        cidx = ~0u;
        asm volatile("cp.async.wait_all;" ::: "memory");
        __syncthreads(); /* stage sb is whole; every thread is past the tile before (stage sb ^ 1 free) */
        czg_issue(sa0 + (sb ^ 1u) * CZG_STAGE_BYTES, nxt, &cidx, &cval);
        oc_status st = (oc_status)cur.st;
        if (st == OC_OK) {
            uint32_t o = (uint32_t)((uintptr_t)cur.src & 15u);
            switch (cur.w) {
            case 1:
                st = czg_decode_tile<uint32_t, 1>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            case 2:
                st = czg_decode_tile<uint32_t, 2>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            case 4:
                st = czg_decode_rdr<uint32_t, 4, true>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            default:
                st = czg_decode_rdr<uint64_t, 8, true>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            }
        }
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[cur.chunk], own_key((unsigned long long)cur.tile + 1, st));
        cur = nxt;
        sb ^= 1u;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
}

static __global__ void __launch_bounds__(CZ_THREADS, 3)
    cz6_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                own_batch_scratch s)
{
    cz6_tiles(n, src, src_sizes, dst, s);
}
