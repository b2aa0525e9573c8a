/*
 * zstd_dec_lanes_x.cuh - "v6x", a dev variant of the library's lane kernel for 64 KiB zstd chunks
 * (src/cuda/codecs/zstd/zstd_dec_lanes.h, zl_group): the content checksums (XXH64) of a group's chunks
 * with word loads in flight and the group's chunks hashed at once (bench/gpu/zstd/NOTES.md "Run 12").
 *
 * Why: call B's ncu of the library's lane kernel on 1 GiB of libzstd -3 frames (content checksums on,
 * as numcodecs and zarr write them) put 19% of its stall samples in zd_xxh64 (long scoreboard 72%):
 * lanes 0-3 each walk the chunk's 2048 stripes one after another, each stripe's 8 bytes as 8 byte
 * loads that the next round waits for (~600 warp cycles a stripe), chunk after chunk.  Here lane 4j + k
 * computes accumulator k of chunk j (the group's 4 chunks at once), with 8-byte loads (when the output
 * is 8-aligned; else the byte loads) eight stripes ahead of the rounds (zstd_dev_xxh.cuh).  Same hash,
 * same rule.
 *
 * Used by the dev target zstd_lanes_x (zstd_lanes.cu built with ZL_FASTXXH=1: its v6 rows run
 * zl_group_x, its library rows the library).  GPU only; the harness compares every output with the
 * input and, with --damage (bad checksums among the damage), every status and size with the per-chunk
 * kernel's.
 */
#ifndef OC_ZSTD_DEC_LANES_X_CUH
#define OC_ZSTD_DEC_LANES_X_CUH

#include "cuda/codecs/zstd/zstd_dec_lanes.h"
#include "zstd_dev_xxh.cuh"

/* The content checksums of the group's chunks on the path, at once: lane 4j + k computes accumulator k
 * of chunk j; lane 4j returns 1 if chunk j's XXH64 differs from its frame's (every lane calls it; out of
 * line, so its registers do not weigh on the rounds). */
static __device__ __noinline__ uint32_t zlx_hash_group(const zl_lane *L, uint32_t g)
{
    uint32_t lane = OC_LANE(), hj = lane / 4, hk = lane % 4, hs = hj < g ? hj : 0;
    uint32_t h_state = ZL_U32(L, state, hs), h_sum = ZL_U32(L, checksum, hs), h_want = ZL_U32(L, want, hs);
    uint32_t h_out = ZL_U32(L, bop, hs) + (ZL_U32(L, ls, hs) - ZL_U32(L, lp, hs));
    const uint8_t *h_d = ZL_PTR(const uint8_t *, L, dst, hs);
    int hashed = hj < g && h_state == ZL_OK && h_sum;
    uint64_t acc = hashed && h_out >= 32 ? zdx_xxh64_acc(h_d, h_out / 32, hk) : 0;
    uint64_t v[4];
#pragma unroll
    for (uint32_t q = 0; q < 4; q++)
        v[q] = __shfl_sync(0xFFFFFFFFu, acc, (int)(hj * 4 + q) & 31);
    uint32_t bad = 0;
    if (hashed && hk == 0)
        bad = (uint32_t)oc_xxh64_finish(v, h_d + 32 * (size_t)(h_out / 32), h_out, 0) != h_want;
    return bad;
}

/* Step 3 of zl_group_x: the library's finish with the checksums of the group's chunks at once. */
static __device__ __noinline__ uint32_t zlx_finish(zd_tables *T, zl_lane *L, size_t first, uint32_t g,
                                                   const void *const *src_ptrs, const size_t *src_sizes,
                                                   void *const *dst_ptrs, const size_t *dst_caps,
                                                   size_t *dst_sizes, oc_status *statuses, uint8_t *slot,
                                                   size_t litcap)
{
    /* 3. finish: zd_block's trailing literals, zd_frame's content size */
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
    /* 3a. the trailing literals of every chunk on the path, chunk by chunk (the warp) */
    for (uint32_t j = 0; j < g; j++) {
        if (ZL_U32(L, state, j) != ZL_OK || ZL_U32(L, lit_out, j))
            continue;
        uint8_t *d = ZL_PTR(uint8_t *, L, dst, j);
        const uint8_t *lit = ZL_PTR(const uint8_t *, L, lit, j);
        uint32_t bop = ZL_U32(L, bop, j), lp = ZL_U32(L, lp, j), ls = ZL_U32(L, ls, j);
        OC_WARP_SYNC();
        zd_copy(d + bop, lit + lp, ls - lp);
    }
    OC_WARP_SYNC();
    /* 3b. the checksums, the group's chunks at once */
    uint32_t bad = zlx_hash_group(L, g);
    OC_WARP_SYNC();
    uint32_t on_path = 0;
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        uint32_t state = ZL_U32(L, state, j);
        oc_status st = OC_OK;
        size_t out = 0;
        if (state == ZL_OK) {
            out = ZL_U32(L, bop, j) + (ZL_U32(L, ls, j) - ZL_U32(L, lp, j));
            if (__shfl_sync(0xFFFFFFFFu, bad, (int)(4 * j)))
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

/* The library's zl_group (zstd_dec_lanes.h, session 12's main) with step 3's checksums computed for
 * the group's chunks at once (zdx_xxh64_acc); steps 1 and 2 unchanged. */
static __device__ uint32_t zl_group_x(zd_tables *T, zl_lane *L, uint32_t *LG, uint32_t *sq, uint16_t *slot3,
                                      size_t first, uint32_t g, const void *const *src_ptrs,
                                      const size_t *src_sizes, void *const *dst_ptrs, const size_t *dst_caps,
                                      size_t *dst_sizes, oc_status *statuses, uint8_t *slot, size_t litcap,
                                      zd_fse_entry *tabs)
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
    return zlx_finish(T, L, first, g, src_ptrs, src_sizes, dst_ptrs, dst_caps, dst_sizes, statuses, slot,
                      litcap);
}

#endif /* OC_ZSTD_DEC_LANES_X_CUH */
