/*
 * dev_lz_skew.cuh - v12 (issue 13, bench/NOTES.md "v12"): the library's
 * split-decoder parse (src/cuda/codecs/lz_common/lz_split_warp.cuh,
 * lz_split_launch.cuh) with each lane's window SKEWed by one 4-byte word a
 * lane in shared memory, and optionally a clock at each warp's start and
 * end (the tail of the parse kernel).
 *
 * Why: the library's windows are 512 bytes a lane, so byte p of every
 * lane's window sits in the same bank ((lane x 512 + p) / 4 mod 32 = p / 4
 * mod 32); the lanes a refill serves start at p in [0, 16) together and
 * walk on at similar rates, so their loads of the element's header bytes
 * (5 byte loads an element, on the walk's dependent chain) hit the same
 * banks: ncu measured 73% of the parse's shared wavefronts excessive
 * (167 M of which 122 M, bench/NOTES.md "v11" outcome).  With a stride of
 * OC_LZS_WIN + 4 bytes, lane l's byte p is in bank (l + p / 4) mod 32:
 * lanes at the same p never conflict.  The refill then stores words, not
 * 16-byte blocks (a window is 4-byte aligned only).  Nothing else differs:
 * the publication, the copy kernel, the waves are the library's
 * (oc_lzs_copy_kernel, oc_lzs_takes, ...); the parser type C adds wstep,
 * the step on the shared-memory window (the library's step, or
 * dev_snappy_word_parse.cuh's, which reads the header as two words).
 *
 * CLOCK 1 also stores, per parse warp w, globaltimer at its start and end,
 * its SM and its warp slot there in dev_warp_clock[w] (snappy_fast --clock prints them by
 * file): the library's code otherwise (SKEW 0, CLOCK 1 is the library's
 * layout with the clocks).  Included by snappy_fast.cu after
 * snappy_kernels.cu.
 */
#ifndef DEV_LZ_SKEW_CUH
#define DEV_LZ_SKEW_CUH

#include "../../../src/cuda/codecs/lz_common/lz_split_launch.cuh"

/* per parse warp: start and end (globaltimer, ns), SM id; the harness reads it */
#define DEV_CLOCK_WARPS 32768
struct dev_warp_clock_t {
    unsigned long long t0, t1;
    uint32_t sm, slot, chunk0; /* SM, warp slot on it (%warpid: its scheduler is slot % 4), first chunk */
};
__device__ dev_warp_clock_t dev_warp_clock[DEV_CLOCK_WARPS];

__device__ __forceinline__ unsigned long long dev_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The window stride: OC_LZS_WIN, + 4 bytes when skewed. */
template <int SKEW> struct dev_win {
    enum { stride = OC_LZS_WIN + (SKEW ? 4 : 0) };
};

/* oc_lzs_refill with the window stride of dev_win<SKEW>: 16-byte blocks
 * loaded as the library does, stored as 4 words when skewed. */
template <int SKEW>
__device__ __forceinline__ void dev_lzs_refill(uint32_t dry, uintptr_t a, uintptr_t s, uintptr_t e,
                                               uint8_t *win, int lane)
{
    const uint32_t BPW = OC_LZS_WIN / 16;
    uint32_t nblk = (uint32_t)__popc(dry) * BPW;
    unsigned long long a64 = a, s64 = s, e64 = e;
    __syncwarp();
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
            at[u] = (uint32_t)d * dev_win<SKEW>::stride + 16 * b;
            if (t < nblk)
                v[u] = oc_lzs_block(wa + 16 * b, ws, we);
        }
#pragma unroll
        for (int u = 0; u < OC_LZS_U; u++)
            if (t0 + 32 * u + (uint32_t)lane < nblk) {
                if (SKEW) {
                    uint32_t *w = (uint32_t *)(win + at[u]);
                    w[0] = v[u].x, w[1] = v[u].y, w[2] = v[u].z, w[3] = v[u].w;
                } else {
                    *(uint4 *)(win + at[u]) = v[u];
                }
            }
    }
    __syncwarp();
}

/* oc_lzs_parse_warp with dev_lzs_refill<SKEW>, the stride of
 * dev_win<SKEW>, and C::wstep for the steps on the window (C::step on the
 * input itself, as the library's); the library's otherwise, line for
 * line. */
template <class C, int SKEW>
__device__ __forceinline__ int dev_lzs_parse_warp(int lane, int have, const uint8_t *src, uint32_t srcn,
                                                  uint32_t cap, oc_lzs_rec *recs, uint8_t *win,
                                                  volatile uint32_t *pub, uint32_t *nrec, uint32_t *outn)
{
    typename C::st s;
    C::init(&s);
    int mode = !have ? 0 : srcn ? 2 : 1;
    int told = !have;
    uint32_t said = 0;
    uint32_t wshift = 0, whi = 0, refill_at = 0xffffffffu;
    uint8_t *mine = win + (uint32_t)lane * dev_win<SKEW>::stride;
    for (;;) {
        uint32_t dry = __ballot_sync(OC_FULL_MASK, mode == 2);
        if (dry) {
            __threadfence();
            if (!told && s.nrec != said) {
                *pub = OC_LZS_CLAIM_PARSE | s.nrec;
                said = s.nrec;
            }
            uintptr_t here = (uintptr_t)(src + (mode == 2 ? s.ip : 0));
            dev_lzs_refill<SKEW>(dry, here & ~(uintptr_t)15, (uintptr_t)src, (uintptr_t)(src + srcn), win,
                                 lane);
            if (mode == 2) {
                uint32_t off = (uint32_t)(here & 15);
                uint64_t end = (uint64_t)s.ip - off + OC_LZS_WIN;
                wshift = s.ip - off;
                whi = end < srcn ? (uint32_t)end : srcn;
                refill_at = s.ip;
                mode = 1;
            }
        }
        for (;;) {
            if (mode == 1) {
                int r = C::wstep(&s, mine, wshift, whi, srcn, cap, recs); /* the window's step */
                if (r == OC_LZS_NEED && s.ip == refill_at)
                    r = C::step(&s, src, 0, srcn, srcn, cap, recs);
                if (r == OC_LZS_NEED)
                    mode = 2;
                else if (r == OC_LZS_END)
                    mode = 0;
            }
            if (mode == 0 && !told) {
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

/* oc_lzs_parse_kernel with dev_lzs_parse_warp<C, SKEW>; CLOCK: the warp's
 * start and end in dev_warp_clock[blockIdx.x * OC_LZS_PARSE_WARPS + warp]. */
template <class C, int SKEW, int CLOCK>
__global__ void __launch_bounds__(OC_LZS_PARSE_WARPS * 32, 1)
    dev_lzs_parse_kernel(oc_cuda_batch b, size_t first, size_t count, uint32_t split_cap, oc_lzs_rec *recs,
                         size_t stride, uint32_t *state)
{
    __shared__ __align__(16) uint8_t win[OC_LZS_PARSE_WARPS][32 * dev_win<SKEW>::stride + 16];
    unsigned long long t0 = CLOCK ? dev_globaltimer() : 0;
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    size_t k0 = ((size_t)blockIdx.x * OC_LZS_PARSE_WARPS + warp) * 32;
    if (k0 >= count)
        return;
    size_t k = k0 + lane;
    int in = k < count;
    int mine = in && atomicCAS(state + k, 0u, OC_LZS_CLAIM_PARSE) == 0u;
    size_t chunk = first + k;
    const uint8_t *src = in ? b.src[chunk] : nullptr;
    size_t srcn = in ? b.src_sizes[chunk] : 0, cap = in ? b.dst_caps[chunk] : 0;
    int have = mine && oc_lzs_takes(src, srcn, b.dst[chunk], cap, split_cap);
    uint32_t nrec = 0, outn = 0;
    int st = dev_lzs_parse_warp<C, SKEW>(lane, have, src, have ? (uint32_t)srcn : 0, have ? (uint32_t)cap : 0,
                                         recs + (have ? k * stride : 0), win[warp],
                                         have ? state + k : nullptr, &nrec, &outn);
    if (have && st != OC_LZS_REDO) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = outn;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
    if (CLOCK && lane == 0) {
        size_t w = (size_t)blockIdx.x * OC_LZS_PARSE_WARPS + warp;
        if (w < DEV_CLOCK_WARPS) {
            uint32_t sm, slot;
            asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
            asm volatile("mov.u32 %0, %%warpid;" : "=r"(slot));
            dev_warp_clock_t c = {t0, dev_globaltimer(), sm, slot, (uint32_t)(first + k0)};
            dev_warp_clock[w] = c;
        }
    }
}

/* oc_lzs_run with dev_lzs_parse_kernel<C, SKEW, CLOCK> for the parse (the
 * library's copy kernel, scratch layout, waves and streams). */
template <class C, int SKEW, int CLOCK>
static oc_status dev_lzs_skew_run(void *scratch_dev, const oc_gpu_side *side, const oc_cuda_batch &b,
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
    if (side && (cudaFuncSetAttribute(oc_lzs_copy_kernel<C>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared) != cudaSuccess ||
                 cudaFuncSetAttribute(dev_lzs_parse_kernel<C, SKEW, CLOCK>,
                                      cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared) != cudaSuccess))
        return OC_ERR_CUDA;
    for (size_t first = 0; first < n; first += wave) {
        size_t count = n - first < wave ? n - first : wave;
        size_t pw = 32 * OC_LZS_PARSE_WARPS;
        size_t cblocks = (count + OC_LZS_COPY_WARPS - 1) / OC_LZS_COPY_WARPS;
        size_t most = (size_t)sms * OC_LZS_COPY_BLOCKS_PER_SM;
        cudaStream_t ps = side ? side->stream : stream;
        if (cudaMemsetAsync(state, 0, state_bytes + sizeof(*next), stream) != cudaSuccess)
            break;
        if (side && (cudaEventRecord(side->fork, stream) != cudaSuccess ||
                     cudaStreamWaitEvent(ps, side->fork, 0) != cudaSuccess))
            break;
        unsigned pblocks = (unsigned)((count + pw - 1) / pw);
        dev_lzs_parse_kernel<C, SKEW, CLOCK>
            <<<pblocks, OC_LZS_PARSE_WARPS * 32, 0, ps>>>(b, first, count, split_cap, recs, stride, state);
        oc_lzs_copy_kernel<C>
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

#endif /* DEV_LZ_SKEW_CUH */
