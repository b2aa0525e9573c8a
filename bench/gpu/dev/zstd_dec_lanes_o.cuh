/*
 * zstd_dec_lanes_o.cuh - the library's lane kernel's group step (zl_group, src/cuda/codecs/zstd/
 * zstd_dec_lanes.h) as it was before session 12, frozen as the A/B baseline of the library's checksum
 * (bench/gpu/zstd/NOTES.md "Run 12"): the finish step hashes the group's chunks one after another on
 * lanes 0-3, byte loads a stripe (zdo_xxh64, zstd_dev_xxh.cuh).  The library's now hashes the group's
 * chunks at once with word loads ahead (zl_hash_group, zd_xxh64_acc).
 *
 * Used by the dev target zstd_lanes_o (zstd_lanes.cu built with ZL_OLDXXH=1: its v6 rows run zl_group_o,
 * its library rows the library).  GPU only.
 */
#ifndef OC_ZSTD_DEC_LANES_O_CUH
#define OC_ZSTD_DEC_LANES_O_CUH

#include "cuda/codecs/zstd/zstd_dec_lanes.h"
#include "zstd_dev_xxh.cuh" /* zdo_xxh64 */

/* Step 3 of zl_group_o: the library's finish before session 12 (each chunk's checksum in turn). */
static __device__ __forceinline__ uint32_t zlo_finish(zd_tables *T, zl_lane *L, size_t first, uint32_t g,
                                                      const void *const *src_ptrs, const size_t *src_sizes,
                                                      void *const *dst_ptrs, const size_t *dst_caps,
                                                      size_t *dst_sizes, oc_status *statuses, uint8_t *slot,
                                                      size_t litcap)
{
    ZL_EACH(l, g)
    {
        zl_lane *z = &L[ZL_SLOT(l)];
        if (z->state == ZL_DONE) {
            uint32_t tail = z->ls - z->lp;
            uint64_t op = (uint64_t)z->bop + tail;
            if (tail > z->bmax - z->bop || op > z->cap || (z->has_fcs && op != z->fcs))
                z->state = ZL_FAIL;
            else
                z->state = ZL_OK;
        }
    }
    uint32_t on_path = 0;
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        uint32_t state = ZL_U32(L, state, j);
        oc_status st = OC_OK;
        size_t out = 0;
        if (state == ZL_OK) {
            uint8_t *d = ZL_PTR(uint8_t *, L, dst, j);
            const uint8_t *lit = ZL_PTR(const uint8_t *, L, lit, j);
            uint32_t bop = ZL_U32(L, bop, j), lp = ZL_U32(L, lp, j), ls = ZL_U32(L, ls, j);
            OC_WARP_SYNC();
            if (!ZL_U32(L, lit_out, j))
                zd_copy(d + bop, lit + lp, ls - lp);
            out = bop + (ls - lp);
            OC_WARP_SYNC();
            if (ZL_U32(L, checksum, j) && (uint32_t)zdo_xxh64(T, d, out) != ZL_U32(L, want, j))
                state = ZL_FAIL;
        }
        on_path += state == ZL_OK;
        if (state != ZL_OK) {
            OC_WARP_SYNC();
            st = zd_decode_chunk(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
                                 dst_caps[c], &out, slot, litcap);
        }
        if (OC_LANE() == 0) {
            if (dst_sizes)
                dst_sizes[c] = out;
            if (statuses)
                statuses[c] = st;
        }
    }
    OC_WARP_SYNC();
    return on_path;
}

/* The library's zl_group as of session 12's main (out of line, its finish inline; steps 1 and 2
 * unchanged since), step 3 zlo_finish. */
static __device__ __noinline__ uint32_t zl_group_o(zd_tables *T, zl_lane *L, uint32_t *LG, uint32_t *sq,
                                                   uint16_t *slot3, size_t first, uint32_t g,
                                                   const void *const *src_ptrs, const size_t *src_sizes,
                                                   void *const *dst_ptrs, const size_t *dst_caps,
                                                   size_t *dst_sizes, oc_status *statuses, uint8_t *slot,
                                                   size_t litcap, zd_fse_entry *tabs)
{
    /* 1. prepare, chunk by chunk */
    ZL_EACH(l, ZL_G)
    {
        L[ZL_SLOT(l)].state = ZL_NONE;
    }
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        zl_lane rec;
        uint32_t logs = 0;
        int ok = zl_prepare(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
                            dst_caps[c], tabs + (size_t)j * ZL_TAB_ENTRIES, &rec, &logs);
        ZL_EACH(l, g)
        {
            if (l == j) {
                if (ok) {
                    L[ZL_SLOT(l)] = rec;
                    LG[ZL_SLOT(l)] = logs;
                } else {
                    L[ZL_SLOT(l)].state = ZL_FAIL;
                }
            }
        }
    }
    OC_WARP_SYNC();
    uint32_t *xt = zl_xt(T);
    for (uint32_t j = 0; j < g; j++) {
        if (ZL_U32(L, state, j) != ZL_RUN)
            continue;
        uint32_t logs = ZL_W32(LG, j);
        zl_convert(zl_tslot(T, slot3, j), tabs + (size_t)j * ZL_TAB_ENTRIES, logs);
    }
    for (uint32_t i = OC_LANE(); i < ZL_XT_ML + 53u; i += OC_NLANES)
        xt[i] = i < ZL_XT_ML ? oc_zstd_ll_base[i] | (uint32_t)oc_zstd_ll_bits[i] << 24
                             : oc_zstd_ml_base[i - ZL_XT_ML] | (uint32_t)oc_zstd_ml_bits[i - ZL_XT_ML] << 24;
    OC_WARP_SYNC();
    /* 2. rounds (the library's) */
    for (;;) {
        int any = 0;
        OC_WARP_SYNC();
        ZL_EACH(l, g)
        {
            zl_lane *z = &L[ZL_SLOT(l)];
            z->k = 0;
            if (z->state == ZL_RUN) {
                zl_decode_batch(z, zl_tslot(T, slot3, l), LG[ZL_SLOT(l)], xt, sq, l, g);
                any |= z->k > 0;
            }
        }
        int more = OC_WARP_ANY(any);
        if (!more)
            break;
        OC_WARP_SYNC();
        for (uint32_t j = 0; j < g; j++) {
            uint32_t k = ZL_U32(L, k, j);
            if (k == 0)
                continue;
            uint32_t bb = ZL_U32(L, batch_bop, j), blp = ZL_U32(L, batch_lp, j);
            uint32_t ordered = ZL_U32(L, ordered, j);
            uint8_t *d = ZL_PTR(uint8_t *, L, dst, j);
            const uint8_t *lit = ZL_PTR(const uint8_t *, L, lit, j);
            zl_stage_batch(T, sq, g, j, k, bb, blp);
            OC_WARP_SYNC();
            if (ordered)
                zl_exec_literals_ordered(T, d, lit, k);
            else
                zd_exec_literals(T, d, lit, k);
            zd_exec_matches(T, d, k, bb);
        }
    }
    /* 3. finish (out of line: the rounds keep the library's registers) */
    return zlo_finish(T, L, first, g, src_ptrs, src_sizes, dst_ptrs, dst_caps, dst_sizes, statuses, slot,
                      litcap);
}

#endif /* OC_ZSTD_DEC_LANES_O_CUH */
