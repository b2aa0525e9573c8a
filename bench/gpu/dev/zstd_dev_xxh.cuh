/*
 * zstd_dev_xxh.cuh - the GPU zstd decoders' content checksum as it was before session 12 (bench/gpu/zstd/
 * NOTES.md "Run 12"), frozen as the A/B baseline of the library's zd_xxh64_acc / zl_hash_group.
 *
 * Why: call B's ncu put 19% of the 64 KiB lane kernel's stall samples in zd_xxh64: lanes 0-3 each walked
 * the stripes one after another, 8 byte loads a stripe that the round waited for (~600 warp cycles a
 * stripe), chunk after chunk; the frame kernel's warp 0 hashed a whole 4 MiB frame that way after its last
 * byte was written.  The library now loads 8-byte words eight stripes ahead (8-aligned outputs) and hashes
 * a lane group's chunks at once; these copies keep the old way so one process can time both:
 * zstd_dec_lanes_o.cuh (zstd_lanes_o: the lane kernel with the old finish) and zstd_dec_ooo.cuh
 * (zstd_bigframe --v9cfg 11: v9 3+5 with the old end).
 */
#ifndef ZSTD_DEV_XXH_CUH
#define ZSTD_DEV_XXH_CUH

#include "cuda/codecs/zstd/zstd_dec_frame.h"

/* zd_xxh64 before session 12: lanes 0-3, byte loads (oc_xxh64_lane). */
static __device__ __noinline__ uint64_t zdo_xxh64(zd_tables *T, const uint8_t *p, size_t len)
{
    size_t stripes = len / 32;
    if (len >= 32) {
        __syncwarp();
        uint32_t l = threadIdx.x & 31;
        if (l < 4)
            T->xxh[l] = oc_xxh64_lane(p, stripes, l, 0);
        __syncwarp();
    }
    return oc_xxh64_finish(T->xxh, p + 32 * stripes, len, 0);
}

/* zd_pf_end (zstd_dec_frame.h) with zdo_xxh64. */
static __device__ int zdo_pf_end(zd_tables *T, const uint8_t *src, const zd_bp_frame *f, const uint8_t *dst,
                                 uint64_t total)
{
    if (f->has_fcs && total != f->fcs)
        return 0;
    __syncwarp();
    if (f->checksum) {
        uint32_t want = oc_load_le32(src + f->end);
        uint64_t got = zdo_xxh64(T, dst, total);
        if ((uint32_t)got != want)
            return 0;
    }
    return 1;
}

#endif /* ZSTD_DEV_XXH_CUH */
