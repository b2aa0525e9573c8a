/*
 * dev_lz_pair.cuh - v11b's split-decoder parse with two lanes a chunk in
 * two warps (issue 13, bench/NOTES.md "v11b"): the warp driver
 * oc_lzs_parse_pair, its kernel oc_lzs_pair_kernel, a copy kernel that
 * reads the seg word, and the waves (dev_lzs_pair_run), beside the
 * library's split decoder (src/cuda/codecs/lz_common/lz_split_launch.cuh),
 * whose windows, refills, records, scratch layout, claims, publication,
 * copy and self-decode it reuses.
 *
 * Why it lives here: it lost (pairs9 0.91x the library on an H200, the
 * parse alone 9.57 ms against 7.71-8.16), so it left the library (issue
 * 12: winners in the library, experiments in bench/gpu/dev) for
 * snappy_fast.cu's variants pairs and pairs9.  Included by snappy_fast.cu
 * after the library's snappy_kernels.cu.
 *
 * The parser type C is the library's (lz_split_launch.cuh) plus the pair
 * interface:
 *     enum { copy_blocks = b, K = k, parse_blocks = p };  copy blocks an SM;
 *                                                log entries a chunk; parse
 *                                                blocks an SM (launch bound)
 *     typedef ... b_st; typedef ... log_t;      the second lane's state and
 *                                                its log entry
 *     base, splits, b_init, b_step, a_step, find, join
 * (dev_snappy_pair_parse.h's oc_snaps_* for Snappy; snappy_fast.cu's
 * dev_snappy_pairs wraps them).
 */
#ifndef DEV_LZ_PAIR_CUH
#define DEV_LZ_PAIR_CUH

#include "../../../src/cuda/codecs/lz_common/lz_split_launch.cuh"
#include "dev_snappy_pair_parse.h"

/* What the two warps of a pair block tell each other about one chunk
 * (shared memory; oc_lzs_parse_pair). */
struct oc_lzs_pair_news {
    uint32_t bnews;    /* B: 0 walking, 1 its log final, 2 ended at the stream's end, 3 stopped */
    uint32_t anews;    /* A: 1 once B's walk is of no use (A ended, or walks on alone) */
    uint32_t nlog;     /* B's log entries (valid from bnews 1) */
    uint32_t op, nrec; /* B's relative output and records (valid at bnews 2) */
};

/* The parse of up to 32 chunks by a PAIR of warps of one block, for a
 * format whose parser type C has a two-lane walk (the pair interface
 * above; dev_snappy_pair_parse.h says how the lanes walk and join): lane l of the first warp (A, second == 0)
 * owns chunk l as oc_lzs_parse_warp's lane does (claims, publishes, returns the status); lane l of the second
 * warp (B) walks the chunk's second half when split is set.  Two warps, not two lanes of one warp: the two
 * walks run different code, which one warp would run one after the other every turn (bench/NOTES.md "v11":
 * the in-warp form issued 1.76x the instructions and was no faster).  Each lane has its own window; B's
 * records go to recs + C::base(cap), its log to `log` (C::K entries of
 * shared memory), its news to `news`: B stores its log entries or records,
 * then a __threadfence, then its news (volatile); A reads the news, then
 * (only when it acts on them) a __threadfence_block, then the log.  A that joins writes seg (records
 * [0, na) are A's, record i >= na is at recs[i + shift]) before its final
 * count; a chunk not joined gets na = 0xffffffff.  While B may still store
 * records, A stores at most C::base(cap) (more: it gives the chunk back,
 * REDO).  Waiting lanes (A for B's log or end) count neither as dry nor
 * as parsing for the refill threshold; a warp whose live lanes all wait
 * sleeps a little between looks. */
template <class C>
__device__ __forceinline__ int
oc_lzs_parse_pair(int second, int lane, int have, int split, const uint8_t *src, uint32_t srcn, uint32_t cap,
                  oc_lzs_rec *recs, uint8_t *win, typename C::log_t *log, oc_lzs_pair_news *news,
                  volatile uint32_t *pub, uint2 *seg, uint32_t *nrec, uint32_t *outn)
{
    const int isB = second;
    volatile oc_lzs_pair_news *nw = news;
    typename C::st s;
    C::init(&s);
    typename C::b_st b;
    C::b_init(&b, srcn / 2);
    if (split)
        s.rmax = C::base(cap);
    int mode = isB ? (split ? 2 : 0) : !have ? 0 : srcn ? 2 : 1; /* 0 done, 1 parsing, 2 dry, 3 waiting */
    int told = isB || !have;
    uint32_t said = 0, lim = split ? srcn / 2 : 0xffffffffu, j = 0, bsaid = 0;
    int synced = 0, joined = 0, asaid = 0;
    uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;
    uint8_t *mine = win + (uint32_t)lane * OC_LZS_WIN;
    oc_lzs_rec *brecs = recs + C::base(cap);
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
                    r = C::b_step(&b, log, mine, wshift, whi, srcn, cap, brecs);
                    if (r == OC_LZS_NEED && b.ip == refill_at)
                        r = C::b_step(&b, log, src, 0, srcn, srcn, cap, brecs);
                } else {
                    r = C::a_step(&s, mine, wshift, whi, srcn, cap, recs, lim);
                    if (r == OC_LZS_NEED && s.ip == refill_at)
                        r = C::a_step(&s, src, 0, srcn, srcn, cap, recs, lim);
                }
                mode = r == OC_LZS_NEED ? 2 : r == OC_LZS_END ? 0 : r == OC_LZS_STOP ? 3 : 1;
            }
            if (isB && split) {
                if (mode != 0 && nw->anews)
                    mode = 0; /* A has no use for this walk any more */
                uint32_t bn = mode != 0 ? (b.logged ? 1u : 0u) : b.state == 1 ? 2u : 3u;
                if (bn != bsaid) {
                    nw->nlog = b.nlog;
                    nw->op = b.op;
                    nw->nrec = b.nrec;
                    __threadfence(); /* the log and the records before the news */
                    nw->bnews = bn;
                    bsaid = bn;
                }
            } else if (!isB && split && !joined) {
                uint32_t pst = nw->bnews;
                int lift = (pst == 3 || (pst == 2 && lim == 0xffffffffu)) && s.rmax != 0xffffffffu;
                if (lift || (mode == 3 && pst != 0))
                    __threadfence_block(); /* the news before the log, and before writing over B's records */
                if (lift)
                    s.rmax = 0xffffffffu; /* B has ended and its records are of no use: the slot is A's */
                if (mode == 3 && pst != 0) {
                    if (!synced) {
                        int f = pst == 3 ? -1 : C::find(&s, log, nw->nlog, &j, &lim);
                        if (f == 1)
                            synced = 1;
                        else if (f == 0)
                            mode = 1;
                        else
                            lim = 0xffffffffu, mode = 1;
                    }
                    if (synced && pst >= 2) {
                        uint32_t na = s.nrec, from = log[j].nrec;
                        if (pst == 2 && C::join(&s, log, nw->nlog, j, nw->op, nw->nrec, cap)) {
                            joined = 1;
                            mode = 0;
                            *seg = make_uint2(na, C::base(cap) + from - na);
                        } else {
                            synced = 0;
                            lim = 0xffffffffu;
                            s.rmax = 0xffffffffu;
                            mode = 1;
                        }
                    }
                }
                if (!asaid && (mode == 0 || lim == 0xffffffffu)) {
                    nw->anews = 1;
                    asaid = 1;
                }
            }
            if (mode == 0 && !told) { /* ended: the final count at once */
                if (!joined)
                    *seg = make_uint2(0xffffffffu, 0u);
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
            if (dr && __popc(dr) * 4 >= __popc(act) * C::refill_quarters)
                break;
            if (!act)
                __nanosleep(64); /* every live lane waits for the other warp */
        }
    }
}

/* Split decoder, parse half with two lanes a chunk (oc_lzs_parse_pair):
 * as oc_lzs_parse_kernel, 32 chunks a block of two warps, lane l of the first warp claiming and owning chunk
 * k0 + l, lane l of the second walking its second half when C::splits; the pairs' logs and news in shared
 * memory; segs[k]: where the second lane's records start in chunk k's slot (read by the copy). */
template <class C>
__global__ void __launch_bounds__(64, C::parse_blocks)
    oc_lzs_pair_kernel(oc_cuda_batch b, size_t first, size_t count, uint32_t split_cap, oc_lzs_rec *recs,
                       size_t stride, uint32_t *state, uint2 *segs)
{
    __shared__ __align__(16) uint8_t win[2][32 * OC_LZS_WIN];
    __shared__ typename C::log_t logs[32][C::K];
    __shared__ oc_lzs_pair_news news[32];
    __shared__ int claimed[32];
    int second = threadIdx.x / 32, lane = threadIdx.x & 31;
    size_t k0 = (size_t)blockIdx.x * 32, k = k0 + lane;
    int in = k < count;
    if (!second) {
        claimed[lane] = in && atomicCAS(state + k, 0u, OC_LZS_CLAIM_PARSE) == 0u;
        news[lane].bnews = news[lane].anews = 0;
    }
    __syncthreads(); /* the claims and the news zeroed, for the second warp */
    size_t chunk = first + k;
    const uint8_t *src = in ? b.src[chunk] : nullptr;
    size_t srcn = in ? b.src_sizes[chunk] : 0, cap = in ? b.dst_caps[chunk] : 0;
    int have = claimed[lane] && oc_lzs_takes(src, srcn, b.dst[chunk], cap, split_cap);
    int split = have && C::splits((uint32_t)srcn, (uint32_t)cap);
    uint32_t nrec = 0, outn = 0;
    int st = oc_lzs_parse_pair<C>(second, lane, have, split, src, have ? (uint32_t)srcn : 0,
                                  have ? (uint32_t)cap : 0, recs + (have ? k * stride : 0), win[second],
                                  logs[lane], &news[lane], have ? state + k : nullptr, segs + (in ? k : 0),
                                  &nrec, &outn);
    if (have && !second && st != OC_LZS_REDO) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = outn;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

/* The library's copy kernel (oc_lzs_copy_kernel) reading each chunk's seg
 * word: the records of a joined chunk come in two runs (A's, then B's
 * from the top of the slot). */
template <class C>
__global__ void __launch_bounds__(OC_LZS_COPY_WARPS * 32, OC_LZS_COPY_MIN_BLOCKS)
    dev_lzs_pair_copy_kernel(oc_cuda_batch b, size_t first, size_t count, uint32_t split_cap,
                             const oc_lzs_rec *recs, size_t stride, uint32_t *state, const uint2 *segs,
                             unsigned long long *next)
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
        const uint8_t *src = b.src[chunk];
        uint8_t *dst = b.dst[chunk];
        size_t srcn = b.src_sizes[chunk], cap = b.dst_caps[chunk];
        if (!oc_lzs_takes(src, srcn, dst, cap, split_cap)) /* the pipe's */
            continue;
        uint32_t w = 0;
        if (lane == 0)
            w = atomicCAS(state + c, 0u, OC_LZS_CLAIM_COPY);
        w = __shfl_sync(OC_FULL_MASK, w, 0);
        if (w != 0 && !oc_lzs_copy_published(state + c, segs + c, recs + c * stride, src, dst, q, lane))
            continue;
        C::self_decode(src, (uint32_t)srcn, dst, (uint32_t)cap, b.dst_sizes ? b.dst_sizes + chunk : nullptr,
                       b.statuses ? b.statuses + chunk : nullptr, q, lane);
    }
}

/* oc_lzs_run with the pair kernel and the copy kernel above (the library's
 * scratch layout: records, seg words, state words, the counter), the copy
 * at C::copy_blocks blocks an SM.  The carveout is set on every call (a
 * harness, not a hot path). */
template <class C>
static oc_status dev_lzs_pair_run(void *scratch_dev, const oc_gpu_side *side, const oc_cuda_batch &b,
                                  uint32_t split_cap, size_t wave, cudaStream_t stream)
{
    size_t n = b.n;
    size_t waves = (n + wave - 1) / wave;
    wave = (n + waves - 1) / waves;
    size_t stride = OC_LZS_MAX_RECS((size_t)split_cap);
    oc_lzs_rec *recs = (oc_lzs_rec *)scratch_dev;
    uint2 *segs = (uint2 *)(recs + wave * stride);
    uint32_t *state = (uint32_t *)(segs + wave);
    size_t state_bytes = (wave + (wave & 1)) * sizeof(uint32_t);
    unsigned long long *next = (unsigned long long *)((uint8_t *)state + state_bytes);
    int sms = side ? side->sm_count : 0, dev = 0;
    if (sms <= 0 &&
        (cudaGetDevice(&dev) != cudaSuccess ||
         cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)) {
        (void)cudaGetLastError();
        return OC_ERR_CUDA;
    }
    if (side &&
        (cudaFuncSetAttribute(dev_lzs_pair_copy_kernel<C>, cudaFuncAttributePreferredSharedMemoryCarveout,
                              cudaSharedmemCarveoutMaxShared) != cudaSuccess ||
         cudaFuncSetAttribute(oc_lzs_pair_kernel<C>, cudaFuncAttributePreferredSharedMemoryCarveout,
                              cudaSharedmemCarveoutMaxShared) != cudaSuccess))
        return OC_ERR_CUDA;
    for (size_t first = 0; first < n; first += wave) {
        size_t count = n - first < wave ? n - first : wave;
        size_t cblocks = (count + OC_LZS_COPY_WARPS - 1) / OC_LZS_COPY_WARPS;
        size_t most = (size_t)sms * C::copy_blocks;
        cudaStream_t ps = side ? side->stream : stream;
        if (cudaMemsetAsync(state, 0, state_bytes + sizeof(*next), stream) != cudaSuccess)
            break;
        if (side && (cudaEventRecord(side->fork, stream) != cudaSuccess ||
                     cudaStreamWaitEvent(ps, side->fork, 0) != cudaSuccess))
            break;
        oc_lzs_pair_kernel<C><<<(unsigned)((count + 31) / 32), 64, 0, ps>>>(b, first, count, split_cap, recs,
                                                                            stride, state, segs);
        dev_lzs_pair_copy_kernel<C>
            <<<(unsigned)(cblocks < most ? cblocks : most), OC_LZS_COPY_WARPS * 32, 0, stream>>>(
                b, first, count, split_cap, recs, stride, state, segs, next);
        if (side && (cudaEventRecord(side->join, ps) != cudaSuccess ||
                     cudaStreamWaitEvent(stream, side->join, 0) != cudaSuccess))
            break;
        if (cudaPeekAtLastError() != cudaSuccess)
            break;
    }
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

#endif /* DEV_LZ_PAIR_CUH */
