/*
 * zstd_dev_xxh.cuh - session 12's dev XXH64 for the GPU zstd decoders (bench/gpu/zstd/NOTES.md "Run 12"):
 * the content checksum with 8-byte loads issued eight stripes ahead of the rounds.
 *
 * Why: call B's ncu put 19% of the 64 KiB lane kernel's stall samples in zd_xxh64 (long scoreboard 72%):
 * each of lanes 0-3 walks the stripes one after another, 8 byte loads a stripe that the round waits for
 * (~600 warp cycles a stripe).  The frame kernel's warp 0 hashes a whole 4 MiB frame that way after its
 * last byte is written.  Same hash (common/xxh.h), same values; outputs that are not 8-aligned keep the
 * byte loads.  Used by zstd_dec_lanes_x.cuh (zstd_lanes_x) and zstd_dec_ooo.cuh (zstd_bigframe, v9 with
 * FX = 1).
 */
#ifndef ZSTD_DEV_XXH_CUH
#define ZSTD_DEV_XXH_CUH

#include "cuda/codecs/zstd/zstd_dec_frame.h"

#define ZDX_AHEAD 8 /* stripes loaded before their rounds */

/* XXH64 accumulator k (0..3) over the `stripes` full stripes at p, on the calling lane. */
static __device__ __forceinline__ uint64_t zdx_xxh64_acc(const uint8_t *p, uint64_t stripes, unsigned k)
{
    if (((uintptr_t)p & 7u) != 0)
        return oc_xxh64_lane(p, stripes, k, 0);
    uint64_t v = oc_xxh64_lane_init(k, 0);
    const uint64_t *q = (const uint64_t *)(const void *)p + k; /* little-endian: oc_load_le64's value */
    uint64_t s = 0;
    for (; s + ZDX_AHEAD <= stripes; s += ZDX_AHEAD) {
        uint64_t x[ZDX_AHEAD];
#pragma unroll
        for (int u = 0; u < ZDX_AHEAD; u++)
            x[u] = q[4 * (s + (uint64_t)u)];
#pragma unroll
        for (int u = 0; u < ZDX_AHEAD; u++)
            v = oc_xxh64_round(v, x[u]);
    }
    for (; s < stripes; s++)
        v = oc_xxh64_round(v, q[4 * s]);
    return v;
}

/* zd_xxh64 (a warp, lanes 0-3 the accumulators) with zdx_xxh64_acc. */
static __device__ __noinline__ uint64_t zdx_xxh64(zd_tables *T, const uint8_t *p, size_t len)
{
    size_t stripes = len / 32;
    if (len >= 32) {
        __syncwarp();
        uint32_t l = threadIdx.x & 31;
        if (l < 4)
            T->xxh[l] = zdx_xxh64_acc(p, stripes, l);
        __syncwarp();
    }
    return oc_xxh64_finish(T->xxh, p + 32 * stripes, len, 0);
}

/* zd_pf_end (zstd_dec_frame.h) with zdx_xxh64. */
static __device__ int zdx_pf_end(zd_tables *T, const uint8_t *src, const zd_bp_frame *f, const uint8_t *dst,
                                 uint64_t total)
{
    if (f->has_fcs && total != f->fcs)
        return 0;
    __syncwarp();
    if (f->checksum) {
        uint32_t want = oc_load_le32(src + f->end);
        uint64_t got = zdx_xxh64(T, dst, total);
        if ((uint32_t)got != want)
            return 0;
    }
    return 1;
}

#endif /* ZSTD_DEV_XXH_CUH */
