/*
 * lz_split_warp.cuh - the parse half of the split LZ decoder on the GPU,
 * for every format with a resumable parse step (lz4/lz4_split_parse.h,
 * snappy/snappy_split_parse.h): a warp parses 32 chunks, a lane each,
 * every lane reading its stream from its own OC_LZS_WIN-byte window in
 * shared memory.  A lane whose next phase is not in its window goes
 * dry; once at least a share of the lanes still parsing are dry (half
 * for LZ4, a quarter for Snappy: the parser's refill_quarters), the warp
 * refills every dry lane's window at once: the windows' 16-byte blocks are
 * spread over the 32 lanes, OC_LZS_U loads in flight per lane, each lane's
 * loads coalesced with its neighbours', then stored to shared memory.  A
 * block that straddles either end of the chunk is read byte by byte within
 * it: nothing outside [src, src + srcn) is read.
 *
 * Why: a lane walking its block with byte loads from global memory puts 32
 * lanes on 32 lines per load instruction; from shared memory the parse got
 * 25% faster at 64 KiB chunks (bench/NOTES.md "v8: outcome", variant
 * smem-w512-t2: 512-byte windows, refill at half the lanes dry, the fastest
 * for LZ4 there).  The walk itself (~1,000 cycles a sequence, a dependent
 * chain) is what bounds it, which is why the split path serves small
 * chunks only, and why the copy runs at the same time (bench/NOTES.md
 * "v9"): each lane publishes its record count in its chunk's state word
 * at every refill and at its end.  The format comes in as a parser type
 * (lz_split_launch.cuh describes it): its state and its step.
 */
#ifndef OC_LZ_SPLIT_WARP_CUH
#define OC_LZ_SPLIT_WARP_CUH

#include "lz_device.cuh"
#include "lz_split_rec.h"

#define OC_LZS_WIN 512u /* window bytes per lane */
#define OC_LZS_U 8      /* 16-byte loads in flight per lane during a refill */

/* The index of the j-th set bit of m (j < popc(m)). */
__device__ __forceinline__ uint32_t oc_lzs_nth_bit(uint32_t m, uint32_t j)
{
    uint32_t pos = 0;
    for (uint32_t w = 16; w; w >>= 1) {
        uint32_t c = (uint32_t)__popc(m & ((1u << w) - 1));
        if (j >= c) {
            j -= c;
            m >>= w;
            pos += w;
        }
    }
    return pos;
}

/* One 16-byte block at address a of the stream [s, e): a vector load when
 * it lies inside, else the bytes inside and zeros. */
__device__ __forceinline__ uint4 oc_lzs_block(uintptr_t a, uintptr_t s, uintptr_t e)
{
    if (a >= s && a + 16 <= e)
        return __ldg((const uint4 *)a);
    uint32_t w[4] = {0, 0, 0, 0};
    for (uint32_t k = 0; k < 16; k++)
        if (a + k >= s && a + k < e)
            w[k >> 2] |= (uint32_t)__ldg((const uint8_t *)(a + k)) << (8 * (k & 3));
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* The warp's refill: every lane of `dry` gets the OC_LZS_WIN bytes from its
 * stream's 16-byte-aligned address a (at or below its next byte). */
__device__ __forceinline__ void oc_lzs_refill(uint32_t dry, uintptr_t a, uintptr_t s, uintptr_t e,
                                              uint8_t *win, int lane)
{
    const uint32_t BPW = OC_LZS_WIN / 16; /* blocks per window */
    uint32_t nblk = (uint32_t)__popc(dry) * BPW;
    unsigned long long a64 = a, s64 = s, e64 = e;
    __syncwarp(); /* the dry lanes' last reads of their windows are done */
    for (uint32_t t0 = 0; t0 < nblk; t0 += 32 * OC_LZS_U) {
        uint4 v[OC_LZS_U];
        uint32_t at[OC_LZS_U];
#pragma unroll
        for (int u = 0; u < OC_LZS_U; u++) {
            uint32_t t = t0 + 32 * u + (uint32_t)lane;
            uint32_t j = t / BPW, b = t % BPW;
            int d = (int)oc_lzs_nth_bit(dry, t < nblk ? j : 0);
            uintptr_t wa = (uintptr_t)__shfl_sync(OC_FULL_MASK, a64, d);
            uintptr_t ws = (uintptr_t)__shfl_sync(OC_FULL_MASK, s64, d);
            uintptr_t we = (uintptr_t)__shfl_sync(OC_FULL_MASK, e64, d);
            at[u] = (uint32_t)d * OC_LZS_WIN + 16 * b;
            if (t < nblk)
                v[u] = oc_lzs_block(wa + 16 * b, ws, we);
        }
#pragma unroll
        for (int u = 0; u < OC_LZS_U; u++)
            if (t0 + 32 * u + (uint32_t)lane < nblk)
                *(uint4 *)(win + at[u]) = v[u];
    }
    __syncwarp();
}

/* The parse of up to 32 chunks by one warp, with parser C (C::st its
 * state, C::init, C::step, C::refill_quarters: lz_split_launch.cuh): lane `lane` parses its
 * chunk (have != 0) src[0 .. srcn) (srcn < 2^31) with output capacity cap
 * (<= OC_LZS_MAX_CAP) into recs (room for OC_LZS_MAX_RECS(cap) records),
 * with win the warp's 32 * OC_LZS_WIN bytes of shared memory (16-byte
 * aligned).  All 32 lanes must call it.  Returns the status (OC_LZS_REDO:
 * the chunk given back to the copy warp); *nrec and *outn are the records
 * and the decoded size when OK, else 0.
 *
 * Publication (pub: the chunk's state word, lz_split_rec.h, claimed by
 * this lane; NULL when have is 0): at every refill of the warp and when
 * the lane ends, a __threadfence (the records before the count) then
 * CLAIM_PARSE | count, with DONE at the end (count 0 when the chunk
 * failed, REDO_BIT when given back), so that a copy warp can copy the
 * records as they come. */
template <class C>
__device__ __forceinline__ int oc_lzs_parse_warp(int lane, int have, const uint8_t *src, uint32_t srcn,
                                                 uint32_t cap, oc_lzs_rec *recs, uint8_t *win,
                                                 volatile uint32_t *pub, uint32_t *nrec, uint32_t *outn)
{
    typename C::st s;
    C::init(&s);
    int mode = !have ? 0 : srcn ? 2 : 1; /* 0 done, 1 parsing, 2 dry */
    int told = !have;                    /* the end published */
    uint32_t said = 0;                   /* the count published */
    uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;
    uint8_t *mine = win + (uint32_t)lane * OC_LZS_WIN;
    for (;;) {
        uint32_t dry = __ballot_sync(OC_FULL_MASK, mode == 2);
        if (dry) {
            __threadfence(); /* this lane's records before its count */
            if (!told && s.nrec != said) {
                *pub = OC_LZS_CLAIM_PARSE | s.nrec;
                said = s.nrec;
            }
            uintptr_t here = (uintptr_t)(src + (mode == 2 ? s.ip : 0));
            oc_lzs_refill(dry, here & ~(uintptr_t)15, (uintptr_t)src, (uintptr_t)(src + srcn), win, lane);
            if (mode == 2) {
                uint32_t off = (uint32_t)(here & 15);
                uint64_t end = (uint64_t)s.ip - off + OC_LZS_WIN;
                wshift = s.ip - off; /* modulo 2^32: byte p at mine[p - wshift] */
                whi = end < srcn ? (uint32_t)end : srcn;
                refill_at = s.ip;
                mode = 1;
            }
        }
        for (;;) {
            if (mode == 1) {
                int r = C::step(&s, mine, wshift, whi, srcn, cap, recs);
                if (r == OC_LZS_NEED && s.ip == refill_at) /* a phase longer than a window */
                    r = C::step(&s, src, 0, srcn, srcn, cap, recs);
                if (r == OC_LZS_NEED)
                    mode = 2;
                else if (r == OC_LZS_END)
                    mode = 0;
            }
            if (mode == 0 && !told) { /* ended: the final count at once */
                __threadfence();
                *pub = OC_LZS_CLAIM_PARSE | OC_LZS_DONE |
                       (s.status == OC_LZS_OK     ? s.nrec
                        : s.status == OC_LZS_REDO ? OC_LZS_REDO_BIT
                                                  : 0u);
                told = 1;
            }
            uint32_t dr = __ballot_sync(OC_FULL_MASK, mode == 2),
                     live = __ballot_sync(OC_FULL_MASK, mode != 0);
            if (!live) {
                int ok = have && s.status == OC_LZS_OK;
                *nrec = ok ? s.nrec : 0;
                *outn = ok ? s.op : 0;
                return have ? s.status : OC_LZS_OK;
            }
            if (__popc(dr) * 4 >= __popc(live) * C::refill_quarters)
                break;
        }
    }
}

#endif /* OC_LZ_SPLIT_WARP_CUH */
