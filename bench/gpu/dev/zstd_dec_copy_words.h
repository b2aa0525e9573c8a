/*
 * zstd_dec_copy_words.h - a dev variant (issue 16; bench/gpu/zstd/NOTES.md "Run 10") of the GPU zstd
 * decoder core's three copies (zd_copy, zd_match, zd_copy_lane of src/cuda/codecs/zstd/zstd_dec_block.h)
 * that move 4-byte words instead of bytes.  It LOST its A/B (H200, session 9 call A3: 0.44-0.73x the
 * library on every row, 64 KiB to 4 MiB): the executors are latency-bound single warps, and its
 * unrolled word/byte edge logic (~10x the instructions of the byte loop for the typical <= 16-byte
 * copy, divergent between lanes) costs more dependent-instruction latency than the load round trips
 * it saves.  Kept as the losing variant (issue 12's rule); nothing in the library includes it.
 *
 * What it does: one lane moves up to 32 bytes with one round of loads (aligned words where a source
 * word lies inside the copied range, bytes at its two edges), then its stores (aligned words where the
 * destination word lies inside the range, bytes at its edges); the warp-wide copies give each lane 16
 * destination-aligned bytes, 512 bytes a round trip.  Every copy reads and writes exactly the bytes
 * the byte copies do.  zd_match with an offset below the length keeps the byte rule.
 *
 * To time it again: the A/B's hook (zstd_dec_block.h including the header named by ZD_DEV_COPIES in
 * place of its own copies) and the dev targets opencomp_static_wc, oc_gpu_bench_wc and
 * test_cuda_zstd_*_wc are in the commit "zstd decoder: copies by 4-byte words as a dev variant"
 * (issue 16); the script that ran them is bench/results/zstd-ab/zstd-s9-callA3-h200.sh.  Host check:
 * make -C bench/gpu/zstd check-zstd-words (zstd_copy_words_check.c).
 */
#ifndef OC_ZSTD_DEC_COPY_WORDS_H
#define OC_ZSTD_DEC_COPY_WORDS_H

#include <stdint.h>
#ifndef __CUDACC__
#include <string.h>
#endif

#define ZDW_PIECE 32u /* most bytes one lane moves with one round of loads */
#define ZDW_NW                                                                                               \
    (ZDW_PIECE / 4u + 2u) /* words a piece's source or destination can touch (9), and one spare              \
                           */

OC_CORE_FN uint32_t zdw_ld32(const uint8_t *p)
{
#ifdef __CUDACC__
    return *(const uint32_t *)p;
#else
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#endif
}

OC_CORE_FN void zdw_st32(uint8_t *p, uint32_t v)
{
#ifdef __CUDACC__
    *(uint32_t *)p = v;
#else
    memcpy(p, &v, 4);
#endif
}

/* bytes sh/8 .. sh/8 + 3 of hi:lo (sh in {0, 8, 16, 24}) */
OC_CORE_FN uint32_t zdw_funnel(uint32_t lo, uint32_t hi, uint32_t sh)
{
#ifdef __CUDACC__
    return __funnelshift_r(lo, hi, sh);
#else
    return (uint32_t)((((uint64_t)hi << 32) | lo) >> sh);
#endif
}

/* Copies len <= ZDW_PIECE bytes from s to d on this lane (not overlapping): every load, then every
 * store.  Source word i (bytes 4i .. 4i + 3 from s's aligned word) lands in v[i + 1] (v[0] = 0), so
 * destination word k (bytes 4k .. 4k + 3 from d's aligned word) is bytes r + 4k .. r + 4k + 3 of v,
 * r = 4 + (s mod 4) - (d mod 4) in 1..7: a funnel shift of v[k + r/4] and the next. */
OC_CORE_FN void zdw_piece(uint8_t *d, const uint8_t *s, uint32_t len)
{
    uint32_t s0 = (uint32_t)((uintptr_t)s & 3u), d0 = (uint32_t)((uintptr_t)d & 3u);
    uint32_t nw = (s0 + len + 3u) >> 2, nd = (d0 + len + 3u) >> 2;
    uint32_t v[ZDW_NW + 2];
    v[0] = 0;
#ifdef __CUDACC__
#pragma unroll
#endif
    for (uint32_t i = 0; i < ZDW_NW; i++) {
        uint32_t x = 0, lo = 4u * i;
        if (i < nw) {
            if (lo >= s0 && lo + 4u <= s0 + len) {
                x = zdw_ld32(s + (lo - s0));
            } else {
#ifdef __CUDACC__
#pragma unroll
#endif
                for (uint32_t b = 0; b < 4; b++)
                    if (lo + b >= s0 && lo + b < s0 + len)
                        x |= (uint32_t)s[lo + b - s0] << (8u * b);
            }
        }
        v[i + 1] = x;
    }
    v[ZDW_NW + 1] = 0;
    uint32_t r = 4u + s0 - d0, q = r >> 2, sh = (r & 3u) * 8u;
#ifdef __CUDACC__
#pragma unroll
#endif
    for (uint32_t k = 0; k < ZDW_NW; k++) {
        if (k < nd) {
            uint32_t lo = q ? v[k + 1] : v[k], hi = q ? v[k + 2] : v[k + 1];
            uint32_t w = zdw_funnel(lo, hi, sh), a = 4u * k;
            if (a >= d0 && a + 4u <= d0 + len) {
                zdw_st32(d + (a - d0), w);
            } else {
#ifdef __CUDACC__
#pragma unroll
#endif
                for (uint32_t b = 0; b < 4; b++)
                    if (a + b >= d0 && a + b < d0 + len)
                        d[a + b - d0] = (uint8_t)(w >> (8u * b));
            }
        }
    }
}

/* Copies len bytes to out from src (never overlapping) with the whole warp: lane l takes the
 * destination's 16-byte-aligned windows l, l + 32, ... (the first and last clipped to the range). */
OC_CORE_FN void zd_copy(uint8_t *out, const uint8_t *src, size_t len)
{
    size_t head = (size_t)((uintptr_t)out & 15u), span = head + len;
    for (size_t w = (size_t)OC_LANE() * 16u; w < span; w += (size_t)OC_NLANES * 16u) {
        size_t a = w < head ? head : w, b = w + 16u < span ? w + 16u : span;
        zdw_piece(out + (a - head), src + (a - head), (uint32_t)(b - a));
    }
}

/* Copies a match of len bytes at distance off (>= 1) ending before out.  Not overlapping itself (off
 * >= len): zd_copy.  Else byte i takes out[i - off] = out[(i mod off) - off], as the library's. */
OC_CORE_FN void zd_match(uint8_t *out, size_t off, size_t len)
{
    if (off >= len) {
        zd_copy(out, out - off, len);
        return;
    }
    uint32_t lane = OC_LANE();
    size_t r, step;
    if (off >= OC_NLANES) {
        r = lane;
        step = OC_NLANES;
    } else {
        r = lane % off;
        step = OC_NLANES % off;
    }
    const uint8_t *src = out - off;
    for (size_t i = lane; i < len; i += OC_NLANES) {
        out[i] = src[r];
        r += step;
        if (r >= off)
            r -= off;
    }
}

/* Copies len bytes on this lane alone, ZDW_PIECE bytes a round of loads.  Source and destination must
 * not overlap. */
OC_CORE_FN void zd_copy_lane(uint8_t *d, const uint8_t *src, uint32_t len)
{
    for (uint32_t t = 0; t < len; t += ZDW_PIECE)
        zdw_piece(d + t, src + t, len - t < ZDW_PIECE ? len - t : ZDW_PIECE);
}

#endif /* OC_ZSTD_DEC_COPY_WORDS_H */
