/*
 * dev_lz_fused.cuh - v9, an experiment (bench/NOTES.md "v9"): the LZ4 split
 * decoder with the copy running DURING the parse instead of after it.  v8
 * measured its parse (5.5 ms for 1 GiB of 64 KiB chunks, the longest
 * chunk's walk) and its copy (~4.4 ms) back to back; here both kernels run
 * at once on two streams and meet through global memory:
 *
 *   - parse kernel: v8's (dev_lz_smem_warp.cuh: a warp per 32 chunks, a
 *     lane per chunk, 512-byte windows in shared memory, refill at half the
 *     lanes dry), records to the same per-chunk slots in global scratch; at
 *     every refill, and when a lane ends, the warp publishes each lane's
 *     record count (a __threadfence, then one 32-bit store per lane: count
 *     | 0x80000000 once the lane has ended);
 *   - copy kernel: persistent warps (a grid that leaves room on every SM
 *     for the parse kernel's blocks, which never wait for anything, so
 *     they always get there), each taking the next chunk from a counter
 *     and copying its records 32 at a time as they are published (v7's
 *     copy, split-r0's: match sources read from the output, so a chunk can
 *     be copied in several goes), polling the count with __nanosleep in
 *     between.  Records are read with __ldcg (L2): a line may have been
 *     cached in this SM's L1 before the parse wrote all of it.
 *
 * A chunk whose parse fails has had its published records copied (as the
 * pipe decoder copies the rounds before a failure); its status and size
 * are the parse's, as in v8.  A copy warp that waits more than ~2 s for a
 * count sets *hang and moves on (the harness then fails the run instead of
 * hanging).
 */
#ifndef OC_DEV_LZ_FUSED_CUH
#define OC_DEV_LZ_FUSED_CUH

#include "dev_lz_smem_warp.cuh"
#include "dev_lz_split_copy.cuh"

#define OC_FUSED_DONE 0x80000000u

/* The parse of up to 32 chunks (oc_smem_parse_warp, LZ4 only) publishing
 * each lane's record count at pub (one word per lane; NULL for have = 0). */
template <uint32_t W, int T4>
__device__ __forceinline__ int oc_fused_parse_warp(int lane, int have, const uint8_t *src, uint32_t srcn,
                                                   uint32_t cap, oc_split_rec *recs, uint8_t *win,
                                                   volatile uint32_t *pub, uint32_t *nrec, uint32_t *outn)
{
    oc_smem_st s;
    oc_smem_init(&s);
    int mode = !have ? 0 : srcn ? 2 : 1; /* 0 done, 1 parsing, 2 dry */
    int told = !have;                    /* the end published */
    uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;
    uint8_t *mine = win + (uint32_t)lane * W;
    for (;;) {
        uint32_t dry = __ballot_sync(OC_SPLIT_FULL, mode == 2);
        if (dry) {
            __threadfence(); /* this lane's records before its count */
            if (have && !told)
                *pub = s.nrec;
            uintptr_t here = (uintptr_t)(src + (mode == 2 ? s.ip : 0));
            oc_smem_refill<W>(dry, here & ~(uintptr_t)15, (uintptr_t)src, (uintptr_t)(src + srcn), win, lane);
            if (mode == 2) {
                uint32_t off = (uint32_t)(here & 15);
                uint64_t end = (uint64_t)s.ip - off + W;
                wshift = s.ip - off;
                whi = end < srcn ? (uint32_t)end : srcn;
                refill_at = s.ip;
                mode = 1;
            }
        }
        for (;;) {
            if (mode == 1) {
                int r = oc_smem_lz4_step(&s, mine, wshift, whi, srcn, cap, recs);
                if (r == OC_SMEM_NEED && s.ip == refill_at)
                    r = oc_smem_lz4_step(&s, src, 0, srcn, srcn, cap, recs);
                if (r == OC_SMEM_NEED)
                    mode = 2;
                else if (r == OC_SMEM_END)
                    mode = 0;
            }
            if (mode == 0 && !told) { /* ended: the final count, at once */
                __threadfence();
                *pub = s.nrec | OC_FUSED_DONE;
                told = 1;
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

/* Records [g0, g1) of a chunk (g0 a multiple of 32 unless it is the
 * chunk's start; *op the output bytes before record g0), read through L2. */
OC_SPLIT_DEV void oc_fused_copy_range(const oc_split_rec *recs, uint32_t g0, uint32_t g1, uint32_t *op_io,
                                      const uint8_t *__restrict__ src, uint8_t *dst, oc_split_slot *q,
                                      int lane)
{
    uint32_t op = *op_io;
    for (uint32_t g = g0; g < g1; g += 32) {
        int cnt = g1 - g < 32 ? (int)(g1 - g) : 32;
        uint32_t ls = 0, ll = 0, mo = 1, ml = 0;
        if (lane < cnt) {
            uint4 r = __ldcg((const uint4 *)(recs + g + lane));
            ls = r.x, ll = r.y, mo = r.z, ml = r.w;
        }
        uint32_t out = ll + ml, incl = out;
        for (int d = 1; d < 32; d <<= 1) {
            uint32_t t = __shfl_up_sync(OC_SPLIT_FULL, incl, d);
            if (lane >= d)
                incl += t;
        }
        uint32_t total = __shfl_sync(OC_SPLIT_FULL, incl, 31);
        if (lane < cnt) {
            q->lit_out[lane] = op + incl - out;
            q->lit_src[lane] = ls;
            q->lit_len[lane] = ll;
            q->m_len[lane] = ml;
            q->m_off[lane] = mo ? mo : 1;
        }
        __syncwarp();
        uint32_t start = op, end = op + total;
        if (total <= OC_SPLIT_BYTES_MAX && total <= 48u * (uint32_t)cnt)
            oc_split_copy_bytes<0>(q, cnt, start, end, src, dst, nullptr, lane);
        else
            oc_split_copy_parallel<0>(q, cnt, start, end, src, dst, nullptr, lane);
        __syncwarp();
        op = end;
    }
    *op_io = op;
}

/* One copy warp's share: chunks from *next until none is left, each copied
 * as its records are published at pub[chunk]. */
OC_SPLIT_DEV void oc_fused_copy_warp(size_t n, const uint8_t *const *srcs, uint8_t *const *dsts,
                                     const oc_split_rec *recs, const size_t *rec_base, const uint32_t *pub_,
                                     unsigned long long *next, int *hang, oc_split_slot *q, int lane)
{
    const volatile uint32_t *pub = pub_;
    for (;;) {
        unsigned long long c = 0;
        if (lane == 0)
            c = atomicAdd(next, 1ull);
        c = __shfl_sync(OC_SPLIT_FULL, c, 0);
        if (c >= n)
            return;
        const oc_split_rec *r = recs + rec_base[c];
        const uint8_t *src = srcs[c];
        uint8_t *dst = dsts[c];
        uint32_t done = 0, op = 0;
        long long t0 = clock64();
        for (;;) {
            uint32_t p = pub[c]; /* every lane: one broadcast load */
            p = __shfl_sync(OC_SPLIT_FULL, p, 0);
            uint32_t avail = p & ~OC_FUSED_DONE;
            int ended = (p & OC_FUSED_DONE) != 0;
            uint32_t upto = ended ? avail : done + (avail - done) / 32 * 32;
            if (upto > done) {
                __threadfence(); /* the count before the records */
                oc_fused_copy_range(r, done, upto, &op, src, dst, q, lane);
                done = upto;
                t0 = clock64();
                continue;
            }
            if (ended)
                break;
            if (clock64() - t0 > 4000000000ll) { /* ~2 s without a new record: give up */
                if (lane == 0)
                    atomicExch(hang, 1);
                break;
            }
            __nanosleep(256);
        }
    }
}

#endif /* OC_DEV_LZ_FUSED_CUH */
