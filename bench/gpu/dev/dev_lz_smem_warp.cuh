/*
 * dev_lz_smem_warp.cuh - the parse half of the split decoder with its input
 * staged through shared memory (v8, an experiment, bench/NOTES.md "v8"): a
 * warp parses 32 chunks, a lane each (dev_lz_smem_parse.h's resumable
 * steps, the serial parse's checks and records), every lane reading its
 * stream from its own W-byte window in shared memory.  A lane whose next
 * phase is not in its window goes dry; once at least T4/4 of the lanes
 * still parsing are dry, the warp refills every dry lane's window at once:
 * the windows' 16-byte blocks are spread over the 32 lanes (a window of 256
 * bytes is 16 lanes' worth, so one load instruction fills two windows,
 * each lane's loads coalesced with its neighbours'), U loads in flight per
 * lane, then stored to shared memory.  A block that straddles either end
 * of the chunk is read byte by byte within it: nothing outside [src,
 * src + srcn) is read.  The copy half is v7's (dev_lz_split_copy.cuh).
 *
 * Why: v7's lane walked its stream with byte loads from global memory, 32
 * lanes on 32 lines per load instruction, and the parse took 60-85% of the
 * decoder's time.  Here a lane's loads hit shared memory (bank conflicts
 * only) and the global traffic is 16-byte coalesced blocks.  (Measured:
 * 1.30x the library's decoder for LZ4 at 64 KiB chunks, slower elsewhere;
 * the walk's own ~1,000 cycles a sequence, not its loads, bound it:
 * bench/NOTES.md "v8: outcome".)
 *
 * Also compiled on the host by lz_split_cpu_check.cpp's warp emulator
 * (OC_SPLIT_EMU): 32 threads, the same code, every record and status
 * compared with the serial parse's.
 */
#ifndef OC_DEV_LZ_SMEM_WARP_CUH
#define OC_DEV_LZ_SMEM_WARP_CUH

#include "dev_lz_smem_parse.h"

#ifndef OC_SPLIT_EMU
#define OC_SPLIT_DEV __device__ __forceinline__
#define OC_SPLIT_FULL 0xffffffffu
typedef uint4 oc_smem_u4;
#define OC_SMEM_LD16(p) __ldg((const uint4 *)(p))
#define OC_SMEM_LD1(p) __ldg(p)
#else
typedef struct {
    uint32_t x, y, z, w;
} oc_smem_u4;
static inline oc_smem_u4 oc_smem_ld16_emu(const uint8_t *p)
{
    oc_smem_u4 v;
    memcpy(&v, p, 16);
    return v;
}
#define OC_SMEM_LD16(p) oc_smem_ld16_emu(p)
#define OC_SMEM_LD1(p) (*(p))
#endif

#define OC_SMEM_U 8 /* 16-byte loads in flight per lane during a refill */

/* The index of the j-th set bit of m (j < popc(m)). */
OC_SPLIT_DEV uint32_t oc_smem_nth_bit(uint32_t m, uint32_t j)
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
OC_SPLIT_DEV oc_smem_u4 oc_smem_block(uintptr_t a, uintptr_t s, uintptr_t e)
{
    if (a >= s && a + 16 <= e)
        return OC_SMEM_LD16((const uint8_t *)a);
    uint32_t w[4] = {0, 0, 0, 0};
    for (uint32_t k = 0; k < 16; k++)
        if (a + k >= s && a + k < e)
            w[k >> 2] |= (uint32_t)OC_SMEM_LD1((const uint8_t *)(a + k)) << (8 * (k & 3));
    oc_smem_u4 v;
    v.x = w[0], v.y = w[1], v.z = w[2], v.w = w[3];
    return v;
}

/* The warp's refill: every lane of `dry` gets the W bytes from its stream's
 * 16-byte-aligned address at or below src + need (a = that address). */
template <uint32_t W>
OC_SPLIT_DEV void oc_smem_refill(uint32_t dry, uintptr_t a, uintptr_t s, uintptr_t e, uint8_t *win, int lane)
{
    const uint32_t BPW = W / 16; /* blocks per window */
    uint32_t nblk = (uint32_t)__popc(dry) * BPW;
    unsigned long long a64 = a, s64 = s, e64 = e;
    __syncwarp(); /* the dry lanes' last reads of their windows are done */
    for (uint32_t t0 = 0; t0 < nblk; t0 += 32 * OC_SMEM_U) {
        oc_smem_u4 v[OC_SMEM_U];
        uint32_t at[OC_SMEM_U];
#pragma unroll
        for (int u = 0; u < OC_SMEM_U; u++) {
            uint32_t t = t0 + 32 * u + (uint32_t)lane;
            uint32_t j = t / BPW, b = t % BPW;
            int d = (int)oc_smem_nth_bit(dry, t < nblk ? j : 0);
            uintptr_t wa = (uintptr_t)__shfl_sync(OC_SPLIT_FULL, a64, d);
            uintptr_t ws = (uintptr_t)__shfl_sync(OC_SPLIT_FULL, s64, d);
            uintptr_t we = (uintptr_t)__shfl_sync(OC_SPLIT_FULL, e64, d);
            at[u] = (uint32_t)d * W + 16 * b;
            if (t < nblk)
                v[u] = oc_smem_block(wa + 16 * b, ws, we);
        }
#pragma unroll
        for (int u = 0; u < OC_SMEM_U; u++)
            if (t0 + 32 * u + (uint32_t)lane < nblk)
                *(oc_smem_u4 *)(win + at[u]) = v[u];
    }
    __syncwarp();
}

/* The parse of up to 32 chunks by one warp: lane `lane` parses its chunk
 * (have != 0) src[0 .. srcn) with output capacity cap into recs (at most
 * OC_SPLIT_MAX_RECS(srcn) records), with win the warp's 32 * W bytes of
 * shared memory (16-byte aligned).  All 32 lanes must call it.  Returns
 * the status; *nrec and *outn are the records and decoded size when OK,
 * else 0. */
template <bool SNAPPY, uint32_t W, int T4>
OC_SPLIT_DEV int oc_smem_parse_warp(int lane, int have, const uint8_t *src, uint32_t srcn, uint32_t cap,
                                    oc_split_rec *recs, uint8_t *win, uint32_t *nrec, uint32_t *outn)
{
    oc_smem_st s;
    oc_smem_init(&s);
    int mode = !have ? 0 : srcn ? 2 : 1; /* 0 done, 1 parsing, 2 dry */
    uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;
    uint8_t *mine = win + (uint32_t)lane * W;
    for (;;) {
        uint32_t dry = __ballot_sync(OC_SPLIT_FULL, mode == 2);
        if (dry) {
            uintptr_t here = (uintptr_t)(src + (mode == 2 ? s.ip : 0));
            oc_smem_refill<W>(dry, here & ~(uintptr_t)15, (uintptr_t)src, (uintptr_t)(src + srcn), win, lane);
            if (mode == 2) {
                uint32_t off = (uint32_t)(here & 15);
                uint64_t end = (uint64_t)s.ip - off + W;
                wshift = s.ip - off; /* modulo 2^32: byte p at mine[p - wshift] */
                whi = end < srcn ? (uint32_t)end : srcn;
                refill_at = s.ip;
                mode = 1;
            }
        }
        for (;;) {
            if (mode == 1) {
                int r = SNAPPY ? oc_smem_snappy_step(&s, mine, wshift, whi, srcn, cap, recs)
                               : oc_smem_lz4_step(&s, mine, wshift, whi, srcn, cap, recs);
                if (r == OC_SMEM_NEED && s.ip == refill_at) /* a phase longer than a window */
                    r = SNAPPY ? oc_smem_snappy_step(&s, src, 0, srcn, srcn, cap, recs)
                               : oc_smem_lz4_step(&s, src, 0, srcn, srcn, cap, recs);
                if (r == OC_SMEM_NEED)
                    mode = 2;
                else if (r == OC_SMEM_END)
                    mode = 0;
            }
            uint32_t dr = __ballot_sync(OC_SPLIT_FULL, mode == 2),
                     live = __ballot_sync(OC_SPLIT_FULL, mode != 0);
            if (!live) {
                int ok = have && s.status == OC_SPLIT_OK;
                *nrec = ok ? s.nrec : 0;
                *outn = ok ? oc_smem_outn(&s) : 0;
                return have ? s.status : OC_SPLIT_OK;
            }
            if (__popc(dr) * 4 >= __popc(live) * T4)
                break;
        }
    }
}

#endif /* OC_DEV_LZ_SMEM_WARP_CUH */
