/*
 * dev_snappy_spec.cuh - v11's kernels (issue 13, bench/NOTES.md "v11"):
 * the library's Snappy split decoder (lz_common/lz_split_launch.cuh) with
 * two lanes per chunk (dev_snappy_spec.h says how they walk and join).
 *
 * Why a copy of the launch and not a parser type: the library's driver
 * gives a lane a chunk; here lanes 2c and 2c+1 of a warp share chunk c
 * (16 chunks a warp, so twice the parse warps: two independent chains per
 * scheduler at full scale), B's records go to a second region of the
 * chunk's slot, and the copy reads A's records, then B's from the entry
 * where they joined (a per-chunk seg word: na, and the shift of the
 * records after na).  Everything else is the library's: windows and
 * refills (oc_lzs_refill), the copy of a group (oc_lzs_copy_group), the
 * claims and the publication protocol, the self-decode, waves and streams.
 * Included by snappy_fast.cu after snappy_kernels.cu.
 */
#ifndef DEV_SNAPPY_SPEC_CUH
#define DEV_SNAPPY_SPEC_CUH

#include "dev_snappy_spec.h"

#define SPEC_WARPS 2 /* parse warps a block */
#define SPEC_PARSE_MINB 4

/* The parse of up to 16 chunks by one warp, a pair of lanes each (lane
 * 2c: A, which owns the chunk and publishes; 2c + 1: B).  recs: the
 * chunk's slot (A's records), recsB = recs + stride (B's); log: the
 * pair's OC_SPEC_K entries in shared memory; seg: where A says how the
 * records join (before DONE). */
__device__ __forceinline__ int spec_parse_warp(int lane, int have, int split, const uint8_t *src,
                                               uint32_t srcn, uint32_t cap, oc_lzs_rec *recs,
                                               oc_lzs_rec *recsB, uint8_t *win, oc_spec_log *log,
                                               volatile uint32_t *pub, uint2 *seg, uint32_t *nrec,
                                               uint32_t *outn)
{
    const int isB = lane & 1;
    oc_snaps_st s;
    oc_snaps_init(&s);
    oc_spec_b b;
    oc_spec_b_init(&b, srcn / 2);
    int mode = isB ? (split ? 2 : 0) : !have ? 0 : srcn ? 2 : 1; /* 0 done, 1 parsing, 2 dry, 3 waiting */
    int told = isB || !have;
    uint32_t said = 0, lim = split ? srcn / 2 : 0xffffffffu, j = 0;
    int synced = 0, joined = 0;
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
            uint32_t ip = isB ? b.ip : s.ip;
            uintptr_t here = (uintptr_t)(src + (mode == 2 ? ip : 0));
            oc_lzs_refill(dry, here & ~(uintptr_t)15, (uintptr_t)src, (uintptr_t)(src + srcn), win, lane);
            if (mode == 2) {
                uint32_t off = (uint32_t)(here & 15);
                uint64_t end = (uint64_t)ip - off + OC_LZS_WIN;
                wshift = ip - off;
                whi = end < srcn ? (uint32_t)end : srcn;
                refill_at = ip;
                mode = 1;
            }
        }
        for (;;) {
            if (mode == 1) {
                int r;
                if (isB) {
                    r = oc_spec_b_step(&b, log, mine, wshift, whi, srcn, cap, recsB);
                    if (r == OC_LZS_NEED && b.ip == refill_at)
                        r = oc_spec_b_step(&b, log, src, 0, srcn, srcn, cap, recsB);
                } else {
                    r = oc_spec_a_step(&s, mine, wshift, whi, srcn, cap, recs, lim);
                    if (r == OC_LZS_NEED && s.ip == refill_at)
                        r = oc_spec_a_step(&s, src, 0, srcn, srcn, cap, recs, lim);
                }
                mode = r == OC_LZS_NEED ? 2 : r == OC_LZS_END ? 0 : r == OC_LZS_STOP ? 3 : 1;
            }
            /* the pair: B's log and end to A, A's end to B */
            int bst = !isB ? 0 : !b.logged ? 0 : b.state == 1 ? 2 : b.state == 2 ? 3 : 1;
            int pst = __shfl_xor_sync(OC_FULL_MASK, isB ? bst : (mode == 0 && !joined), 1);
            uint32_t pnlog = __shfl_xor_sync(OC_FULL_MASK, b.nlog, 1);
            uint32_t pop = __shfl_xor_sync(OC_FULL_MASK, b.op, 1);
            uint32_t pnrec = __shfl_xor_sync(OC_FULL_MASK, b.nrec, 1);
            __syncwarp(); /* B's log entries before A reads them */
            if (isB && pst && mode != 0)
                mode = 0; /* A has ended alone: B's walk is of no use */
            if (!isB && mode == 3 && pst != 0) {
                if (!synced) {
                    int f = pst == 3 ? -1 : oc_spec_find(&s, log, pnlog, &j, &lim);
                    if (f == 1)
                        synced = 1;
                    else if (f == 0)
                        mode = 1;
                    else
                        lim = 0xffffffffu, mode = 1;
                }
                if (synced && pst >= 2) {
                    uint32_t na = s.nrec, from = log[j].nrec;
                    if (pst == 2 && oc_spec_join(&s, log, pnlog, j, pop, pnrec, cap)) {
                        joined = 1;
                        mode = 0;
                        *seg = make_uint2(na, OC_LZS_MAX_RECS(cap) + from - na); /* B's records after A's */
                    } else {
                        synced = 0;
                        lim = 0xffffffffu;
                        mode = 1;
                    }
                }
            }
            if (mode == 0 && !told) { /* ended: the final count at once */
                if (!joined)
                    *seg = make_uint2(0xffffffffu, 0u); /* A's records only */
                __threadfence();
                *pub = OC_LZS_CLAIM_PARSE | OC_LZS_DONE |
                       (s.status == OC_LZS_OK     ? s.nrec
                        : s.status == OC_LZS_REDO ? OC_LZS_REDO_BIT
                                                  : 0u);
                told = 1;
            }
            uint32_t dr = __ballot_sync(OC_FULL_MASK, mode == 2),
                     act = __ballot_sync(OC_FULL_MASK, mode == 1 || mode == 2),
                     live = __ballot_sync(OC_FULL_MASK, mode != 0);
            if (!live) {
                int ok = have && !isB && s.status == OC_LZS_OK;
                *nrec = ok ? s.nrec : 0;
                *outn = ok ? s.op : 0;
                return have && !isB ? s.status : OC_LZS_OK;
            }
            if (dr && __popc(dr) * 4 >= __popc(act) * oc_snappy_split_codec::refill_quarters)
                break;
        }
    }
}

template <int unused>
__global__ void __launch_bounds__(SPEC_WARPS * 32, SPEC_PARSE_MINB)
    spec_parse_kernel(oc_cuda_batch bt, size_t first, size_t count, uint32_t split_cap, oc_lzs_rec *recs,
                      size_t stride, uint32_t *state, uint2 *segs)
{
    __shared__ __align__(16) uint8_t win[SPEC_WARPS][32 * OC_LZS_WIN];
    __shared__ oc_spec_log logs[SPEC_WARPS][16][OC_SPEC_K];
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31, isB = lane & 1;
    size_t k0 = ((size_t)blockIdx.x * SPEC_WARPS + warp) * 16;
    if (k0 >= count)
        return;
    size_t k = k0 + (lane >> 1);
    int in = k < count;
    int mine = !isB && in && atomicCAS(state + k, 0u, OC_LZS_CLAIM_PARSE) == 0u;
    mine = __shfl_sync(OC_FULL_MASK, mine, lane & ~1);
    size_t chunk = first + k;
    const uint8_t *src = in ? bt.src[chunk] : nullptr;
    size_t srcn = in ? bt.src_sizes[chunk] : 0, cap = in ? bt.dst_caps[chunk] : 0;
    int have = mine && oc_lzs_takes(src, srcn, bt.dst[chunk], cap, split_cap);
    int split = have && OC_SPEC_SPLITS((uint32_t)srcn, (uint32_t)cap);
    uint32_t nrec = 0, outn = 0;
    oc_lzs_rec *slot = recs + (have ? k * 2 * stride : 0);
    int st = spec_parse_warp(lane, have, split, src, have ? (uint32_t)srcn : 0, have ? (uint32_t)cap : 0,
                             slot, slot + stride, win[warp], logs[warp][lane >> 1],
                             have ? state + k : nullptr, segs + (in ? k : 0), &nrec, &outn);
    if (have && !isB && st != OC_LZS_REDO) {
        if (bt.dst_sizes)
            bt.dst_sizes[chunk] = outn;
        if (bt.statuses)
            bt.statuses[chunk] = st;
    }
}

/* oc_lzs_copy_range, with records at index >= na read at index + shift. */
__device__ __forceinline__ uint32_t spec_copy_range(const oc_lzs_rec *recs, uint32_t g0, uint32_t g1,
                                                    uint32_t op, uint32_t na, uint32_t shift,
                                                    const uint8_t *__restrict__ src, uint8_t *dst,
                                                    oc_lzs_slot *q, int lane)
{
    for (uint32_t g = g0; g < g1; g += 32) {
        int cnt = g1 - g < 32 ? (int)(g1 - g) : 32;
        uint32_t ls = 0, ll = 0, mo = 1, ml = 0;
        if (lane < cnt) {
            uint32_t i = g + lane;
            uint4 r = __ldcg((const uint4 *)(recs + (i < na ? i : i + shift)));
            ls = r.x, ll = r.y, mo = r.z, ml = r.w;
        }
        op = oc_lzs_copy_group(op, cnt, ls, ll, mo, ml, src, dst, q, lane);
    }
    return op;
}

/* oc_lzs_copy_published with the join: the seg word is read once DONE is
 * seen (A writes it before its final count). */
__device__ __forceinline__ int spec_copy_published(const uint32_t *state, const uint2 *seg,
                                                   const oc_lzs_rec *recs, const uint8_t *__restrict__ src,
                                                   uint8_t *dst, oc_lzs_slot *q, int lane)
{
    const volatile uint32_t *pub = state;
    uint32_t done = 0, op = 0, na = 0xffffffffu, shift = 0;
    for (;;) {
        uint32_t p = __reduce_min_sync(OC_FULL_MASK, *pub);
        uint32_t avail = p & OC_LZS_COUNT_MASK;
        int ended = (p & OC_LZS_DONE) != 0;
        uint32_t upto = avail <= done ? done : ended ? avail : done + (avail - done) / 32 * 32;
        if (upto > done) {
            __threadfence(); /* the count before the records */
            if (ended) {
                uint2 sg = __ldcg(seg);
                na = sg.x, shift = sg.y;
            }
            op = spec_copy_range(recs, done, upto, op, na, shift, src, dst, q, lane);
            done = upto;
            continue;
        }
        if (ended)
            return (p & OC_LZS_REDO_BIT) != 0;
        __nanosleep(256);
    }
}

template <int unused>
__global__ void __launch_bounds__(OC_LZS_COPY_WARPS * 32, OC_LZS_COPY_MIN_BLOCKS)
    spec_copy_kernel(oc_cuda_batch bt, size_t first, size_t count, uint32_t split_cap, const oc_lzs_rec *recs,
                     size_t stride, uint32_t *state, const uint2 *segs, unsigned long long *next)
{
    __shared__ oc_lzs_slot slots[OC_LZS_COPY_WARPS];
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    oc_lzs_slot *q = &slots[warp];
    for (;;) {
        unsigned long long c = 0;
        if (lane == 0)
            c = atomicAdd(next, 1ull);
        c = __shfl_sync(OC_FULL_MASK, c, 0);
        if (c >= count)
            return;
        size_t chunk = first + c;
        const uint8_t *src = bt.src[chunk];
        uint8_t *dst = bt.dst[chunk];
        size_t srcn = bt.src_sizes[chunk], cap = bt.dst_caps[chunk];
        if (!oc_lzs_takes(src, srcn, dst, cap, split_cap))
            continue;
        uint32_t w = 0;
        if (lane == 0)
            w = atomicCAS(state + c, 0u, OC_LZS_CLAIM_COPY);
        w = __shfl_sync(OC_FULL_MASK, w, 0);
        if (w != 0 && !spec_copy_published(state + c, segs + c, recs + c * 2 * stride, src, dst, q, lane))
            continue;
        oc_snappy_split_codec::self_decode(src, (uint32_t)srcn, dst, (uint32_t)cap,
                                           bt.dst_sizes ? bt.dst_sizes + chunk : nullptr,
                                           bt.statuses ? bt.statuses + chunk : nullptr, q, lane);
    }
}

/* Scratch for n chunks (one wave up to OC_LZS_WAVE): two record regions a
 * chunk, a state word and a seg word. */
static size_t spec_scratch(size_t n, uint32_t split_cap)
{
    size_t w = n < OC_LZS_WAVE ? n : OC_LZS_WAVE;
    return w * (2 * OC_LZS_MAX_RECS((size_t)split_cap) * sizeof(oc_lzs_rec) + sizeof(uint32_t) +
                sizeof(uint2)) +
           64;
}

/* oc_snappy_decompress_run with two lanes a chunk: the pipe (which leaves
 * the split decoder's chunks alone), then the waves. */
template <int COPY_BPSM>
static oc_status spec_run(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                          const oc_cuda_batch &b, enum oc_lzs_mode mode, cudaStream_t stream)
{
    uint32_t split_cap = 0;
    if (!oc_lzs_plan(cfg, b.n, mode, &split_cap) || scratch_size < spec_scratch(b.n, split_cap)) {
        oc_snappy_decompress_pipe_kernel<<<(unsigned)b.n, 64, 0, stream>>>(b, 0, 0);
        return oc_launched();
    }
    oc_snappy_decompress_pipe_kernel<<<(unsigned)b.n, 64, 0, stream>>>(b, 1, split_cap);
    const oc_gpu_side *side = cfg->side;
    size_t n = b.n, wave = n < OC_LZS_WAVE ? n : OC_LZS_WAVE;
    size_t waves = (n + wave - 1) / wave;
    wave = (n + waves - 1) / waves;
    size_t stride = OC_LZS_MAX_RECS((size_t)split_cap);
    oc_lzs_rec *recs = (oc_lzs_rec *)scratch;
    uint2 *segs = (uint2 *)(recs + wave * 2 * stride);
    uint32_t *state = (uint32_t *)(segs + wave);
    size_t state_bytes = (wave + (wave & 1)) * sizeof(uint32_t);
    unsigned long long *next = (unsigned long long *)((uint8_t *)state + state_bytes);
    int sms = side->sm_count;
    for (size_t first = 0; first < n; first += wave) {
        size_t count = n - first < wave ? n - first : wave;
        size_t pw = 16 * SPEC_WARPS; /* chunks a parse block */
        size_t cblocks = (count + OC_LZS_COPY_WARPS - 1) / OC_LZS_COPY_WARPS;
        size_t most = (size_t)sms * COPY_BPSM;
        if (cudaMemsetAsync(state, 0, state_bytes + sizeof(*next), stream) != cudaSuccess ||
            cudaEventRecord(side->fork, stream) != cudaSuccess ||
            cudaStreamWaitEvent(side->stream, side->fork, 0) != cudaSuccess)
            break;
        spec_parse_kernel<0><<<(unsigned)((count + pw - 1) / pw), SPEC_WARPS * 32, 0, side->stream>>>(
            b, first, count, split_cap, recs, stride, state, segs);
        spec_copy_kernel<0>
            <<<(unsigned)(cblocks < most ? cblocks : most), OC_LZS_COPY_WARPS * 32, 0, stream>>>(
                b, first, count, split_cap, recs, stride, state, segs, next);
        if (cudaEventRecord(side->join, side->stream) != cudaSuccess ||
            cudaStreamWaitEvent(stream, side->join, 0) != cudaSuccess)
            break;
    }
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

#endif /* DEV_SNAPPY_SPEC_CUH */
