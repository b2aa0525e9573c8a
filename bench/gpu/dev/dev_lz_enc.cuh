/*
 * dev_lz_enc.cuh - variants of the library's LZ4 / Snappy GPU compressor
 * (issue 13, bench/NOTES.md "Compressors (issue 13)"), kept out of src/
 * until one wins.  Included by lz_enc_lz4.cu and lz_enc_snappy.cu after the
 * library's codec (lz4_kernels.cu or snappy_kernels.cu, included whole), so
 * the variants emit through the library's own oc_lz4_emit / oc_snappy_emit
 * and differ from the library's kernel only in the match finder:
 *
 *   HTL        hash table entries 2^HTL per warp (library 13 = 16 KiB a warp,
 *              which caps an SM at 12 resident warps; 12 -> 26, 11 -> 32
 *              (registers))
 *   skip       liblz4-style acceleration: after w windows of 32 positions in
 *              a row with no match, the lanes probe positions 1 + (w >> skip)
 *              apart (skip 31 = never, the library's scan)
 *   MANY       the library's __match_any_sync election of one writer per hash
 *              (false: every lane writes its own slot, the hardware keeps one
 *              of equal slots: the output may change from run to run)
 *   MULTI      1: one window's 32 probes serve every match that starts in it
 *              (after a match, the next is the first valid lane at or after
 *              its end, with its candidate from the table as it was before
 *              the window); then the window's positions that no match covers
 *              are inserted and the next window starts at max(p + 32, the
 *              last match's end).  2: as 1, and a lane whose 4 bytes equal an
 *              earlier lane's of the same window takes the latest such lane
 *              as its candidate (__match_any_sync on the bytes).  CPU model:
 *              bench/gpu/lz_compress_ref.cpp "multi" (the mix, LZ4, table 13:
 *              ratio 1.8778 vs the library's 1.8727, 1694 windows of 32
 *              probes per 64 KiB instead of 5961).
 *
 * LZE_SNAPPY (0/1) picks the format; LZE_LAUNCH names the launcher.
 */
#ifndef LZE_SNAPPY
#error "define LZE_SNAPPY before including dev_lz_enc.cuh"
#endif
#include "dev_lz_enc.h"

template <int HTL> __device__ __forceinline__ uint32_t lze_hash(uint32_t v)
{
    return (v * 2654435761u) >> (32 - HTL);
}

/* oc_find_match (lz_device.cuh, greedy) with lanes `stride` positions apart. */
template <int HTL, bool MANY>
__device__ __forceinline__ int lze_find_match(const uint8_t *__restrict__ src, uint16_t *table, size_t p,
                                              size_t stride, size_t start_end, size_t match_end, int lane,
                                              oc_match *m)
{
    size_t q = p + (size_t)lane * stride;
    int valid = 0;
    size_t cand = 0;
    uint32_t h = 0;
    if (q < start_end) {
        uint32_t v = oc_read32(src + q);
        h = lze_hash<HTL>(v);
        uint32_t dist = (uint16_t)(q - table[h]);
        if (dist != 0 && dist <= q) {
            cand = q - dist;
            valid = oc_read32(src + cand) == v;
        }
    }
    unsigned mask = __ballot_sync(OC_FULL_MASK, valid);
    int last = mask ? __ffs(mask) - 1 : 31;
    int ins = q < start_end && lane <= last;
    if (MANY) {
        unsigned same = __match_any_sync(OC_FULL_MASK, ins ? h : 0xffffffffu);
        __syncwarp();
        if (ins && lane == 31 - __clz(same))
            table[h] = (uint16_t)q;
    } else {
        __syncwarp();
        if (ins)
            table[h] = (uint16_t)q;
    }
    __syncwarp();
    if (!mask)
        return 0;
    int f = __ffs(mask) - 1;
    size_t len = 4;
    size_t mpos = p + (size_t)f * stride;
    size_t mref = __shfl_sync(OC_FULL_MASK, cand, f);
    size_t maxlen = match_end - mpos;
    for (;;) {
        size_t k = len + lane;
        int eq = k < maxlen && __ldg(src + mpos + k) == __ldg(src + mref + k);
        unsigned ne = __ballot_sync(OC_FULL_MASK, !eq);
        if (ne) {
            len += __ffs(ne) - 1;
            break;
        }
        len += 32;
    }
    m->pos = mpos;
    m->ref = mref;
    m->len = len;
    return 1;
}

/* One MULTI window at p: every match starting in it is emitted (see the
 * top).  Returns 0 when a sequence does not fit the output. */
template <int HTL, int MULTI>
__device__ __forceinline__ int lze_multi_window(const uint8_t *__restrict__ src, uint16_t *table, size_t *pp,
                                                size_t *anchorp, size_t start_end, size_t match_end,
                                                uint8_t *dst, size_t cap, size_t *op, int lane)
{
    size_t p = *pp, anchor = *anchorp;
    size_t q = p + lane;
    int inq = q < start_end;
    int valid = 0;
    size_t cand = 0;
    uint32_t v = 0, h = 0;
    if (inq) {
        v = oc_read32(src + q);
        h = lze_hash<HTL>(v);
        uint32_t dist = (uint16_t)(q - table[h]);
        if (dist != 0 && dist <= q) {
            cand = q - dist;
            valid = oc_read32(src + cand) == v;
        }
    }
    if (MULTI == 2) {
        /* in-range lanes are a prefix; out-of-range ones (v 0) leave the sets */
        unsigned in_mask = __ballot_sync(OC_FULL_MASK, inq);
        unsigned lower = __match_any_sync(OC_FULL_MASK, v) & in_mask & ((1u << lane) - 1);
        if (inq && lower) {
            cand = p + (31 - __clz(lower));
            valid = 1;
        }
    }
    unsigned mask = __ballot_sync(OC_FULL_MASK, valid);
    __syncwarp(); /* the probes' table reads before lane 0's writes below */
    size_t cur = p;
    int covered = 0;
    for (;;) {
        unsigned avail = mask & (OC_FULL_MASK << (unsigned)(cur - p)); /* cur - p < 32 here */
        if (!avail)
            break;
        int f = __ffs(avail) - 1;
        oc_match m;
        m.pos = p + f;
        m.ref = __shfl_sync(OC_FULL_MASK, cand, f);
        size_t len = 4, maxlen = match_end - m.pos;
        for (;;) {
            size_t k = len + lane;
            int eq = k < maxlen && __ldg(src + m.pos + k) == __ldg(src + m.ref + k);
            unsigned ne = __ballot_sync(OC_FULL_MASK, !eq);
            if (ne) {
                len += __ffs(ne) - 1;
                break;
            }
            len += 32;
        }
        m.len = len;
        oc_extend_back(src, anchor, &m);
#if LZE_SNAPPY
        if (!oc_snappy_emit(dst, cap, op, src + anchor, m.pos - anchor, 1, (uint32_t)(m.pos - m.ref), m.len,
                            lane))
#else
        if (!oc_lz4_emit(dst, cap, op, src + anchor, m.pos - anchor, 1, (uint32_t)(m.pos - m.ref), m.len,
                         lane))
#endif
            return 0;
        size_t end = m.pos + m.len;
        covered |= q > m.pos && q < end;
        anchor = cur = end;
        if (lane == 0 && end - 2 < start_end)
            table[lze_hash<HTL>(oc_read32(src + end - 2))] = (uint16_t)(end - 2);
        __syncwarp();
        if (cur - p >= 32)
            break;
    }
    int ins = inq && !covered;
    unsigned same = __match_any_sync(OC_FULL_MASK, ins ? h : 0xffffffffu);
    __syncwarp();
    if (ins && lane == 31 - __clz(same))
        table[h] = (uint16_t)q;
    __syncwarp();
    *pp = cur > p + 32 ? cur : p + 32;
    *anchorp = anchor;
    return 1;
}

template <int HTL, bool MANY, int MULTI = 0>
__global__ void __launch_bounds__(OC_COMPRESS_WARPS * 32) lze_compress_kernel(oc_cuda_batch b, int skip)
{
    __shared__ uint16_t tables[OC_COMPRESS_WARPS][1 << HTL];
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    size_t chunk = (size_t)blockIdx.x * OC_COMPRESS_WARPS + warp;
    if (chunk >= b.n)
        return;
    uint16_t *table = tables[warp];
    const uint8_t *src = b.src[chunk];
    size_t n = b.src_sizes[chunk];
    uint8_t *dst = b.dst[chunk];
    size_t cap = b.dst_caps[chunk];
    size_t op = 0;
    int st = OC_D_OK;
    if ((src == nullptr && n != 0) || dst == nullptr) {
        st = OC_D_INVALID_ARGUMENT;
        goto done;
    }
#if LZE_SNAPPY
    if (n > 0xffffffffull) {
        st = OC_D_CHUNK_TOO_LARGE;
        goto done;
    }
    {
        uint32_t v = (uint32_t)n;
        size_t pre = 1;
        while (v >= 128) {
            v >>= 7;
            pre++;
        }
        if (pre > cap) {
            st = OC_D_OUTPUT_TOO_SMALL;
            goto done;
        }
        if (lane == 0) {
            uint32_t x = (uint32_t)n;
            for (size_t j = 0; j < pre; j++, x >>= 7)
                dst[j] = (uint8_t)((x & 0x7f) | (j + 1 < pre ? 0x80 : 0));
        }
        op = pre;
    }
#else
    if (n > OC_LZ4_MAX_INPUT) {
        st = OC_D_CHUNK_TOO_LARGE;
        goto done;
    }
#endif
    {
        for (int j = lane; j < (1 << HTL) / 2; j += 32)
            ((uint32_t *)table)[j] = 0;
        __syncwarp();
        size_t start_end = n >= 13 ? n - 11 : 0;
        size_t match_end = n >= 5 ? n - 5 : 0;
        size_t anchor = 0, p = 0, miss = 0;
        oc_match m;
        size_t mark = 0;
        while (MULTI && p < start_end) {
            oc_prefetch_ahead(src, n, p, &mark, lane);
            if (!lze_multi_window<HTL, MULTI>(src, table, &p, &anchor, start_end, match_end, dst, cap, &op,
                                              lane)) {
                st = OC_D_OUTPUT_TOO_SMALL;
                goto done;
            }
        }
        while (!MULTI && p < start_end) {
            oc_prefetch_ahead(src, n, p, &mark, lane);
            size_t stride = 1 + (miss >> skip);
            if (!lze_find_match<HTL, MANY>(src, table, p, stride, start_end, match_end, lane, &m)) {
                p += 32 * stride;
                miss++;
                continue;
            }
            miss = 0;
            oc_extend_back(src, anchor, &m);
#if LZE_SNAPPY
            if (!oc_snappy_emit(dst, cap, &op, src + anchor, m.pos - anchor, 1, (uint32_t)(m.pos - m.ref),
                                m.len, lane)) {
#else
            if (!oc_lz4_emit(dst, cap, &op, src + anchor, m.pos - anchor, 1, (uint32_t)(m.pos - m.ref), m.len,
                             lane)) {
#endif
                st = OC_D_OUTPUT_TOO_SMALL;
                goto done;
            }
            p = m.pos + m.len;
            anchor = p;
            if (lane == 0 && p - 2 < start_end)
                table[lze_hash<HTL>(oc_read32(src + p - 2))] = (uint16_t)(p - 2);
            __syncwarp();
        }
#if LZE_SNAPPY
        if (!oc_snappy_emit(dst, cap, &op, src + anchor, n - anchor, 0, 0, 0, lane))
#else
        if (!oc_lz4_emit(dst, cap, &op, src + anchor, n - anchor, 0, 0, 0, lane))
#endif
            st = OC_D_OUTPUT_TOO_SMALL;
    }
done:
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? op : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

/* The variants (dev_lz_enc.h's table; index 0 is the library's kernel). */
static const lze_variant lze_table[] = {
    {"library", 13, 31, 1, 0},     {"dev-copy", 13, 31, 1, 0},    {"ht12", 12, 31, 1, 0},
    {"ht11", 11, 31, 1, 0},        {"skip1", 13, 1, 1, 0},        {"skip3", 13, 3, 1, 0},
    {"ht12-skip3", 12, 3, 1, 0},   {"ht11-skip3", 11, 3, 1, 0},   {"nomany", 13, 31, 0, 0},
    {"ht12-nomany", 12, 31, 0, 0}, {"multi1", 13, 31, 1, 1},      {"multi2", 13, 31, 1, 2},
    {"ht12-multi2", 12, 31, 1, 2}, {"ht11-multi2", 11, 31, 1, 2},
};

extern "C" int LZE_LAUNCH(int v, const oc_cuda_batch *b, cudaStream_t s, const lze_variant **info)
{
    const int nv = (int)(sizeof lze_table / sizeof lze_table[0]);
    if (info)
        *info = v >= 0 && v < nv ? &lze_table[v] : nullptr;
    if (v < 0 || v >= nv)
        return -1;
    if (!b)
        return 0;
    unsigned blocks = (unsigned)((b->n + OC_COMPRESS_WARPS - 1) / OC_COMPRESS_WARPS);
    const lze_variant &t = lze_table[v];
    if (t.multi == 1) {
        lze_compress_kernel<13, true, 1><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b, t.skip);
    } else if (t.multi == 2 && t.ht_log == 13) {
        lze_compress_kernel<13, true, 2><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b, t.skip);
    } else if (t.multi == 2 && t.ht_log == 11) {
        lze_compress_kernel<11, true, 2><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b, t.skip);
    } else if (t.multi == 2) {
        lze_compress_kernel<12, true, 2><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b, t.skip);
    } else if (v == 0) {
#if LZE_SNAPPY
        oc_snappy_compress_kernel<<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b);
#else
        oc_lz4_compress_kernel<false><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b);
#endif
    } else if (t.ht_log == 13 && t.many) {
        lze_compress_kernel<13, true><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b, t.skip);
    } else if (t.ht_log == 12 && t.many) {
        lze_compress_kernel<12, true><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b, t.skip);
    } else if (t.ht_log == 11 && t.many) {
        lze_compress_kernel<11, true><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b, t.skip);
    } else if (t.ht_log == 13) {
        lze_compress_kernel<13, false><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b, t.skip);
    } else {
        lze_compress_kernel<12, false><<<blocks, OC_COMPRESS_WARPS * 32, 0, s>>>(*b, t.skip);
    }
    return cudaGetLastError() == cudaSuccess ? 0 : -2;
}
