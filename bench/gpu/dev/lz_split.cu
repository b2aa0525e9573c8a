/*
 * lz_split.cu - harness of the split LZ4/Snappy decoder (v7, an experiment;
 * bench/NOTES.md "v7", README.md here): the library's current decoder (the
 * two-warp pipe, built from the library's own headers) beside the split
 * decoder (a thread per chunk parses into records, dev_lz_split_parse.h;
 * then a warp per chunk copies them, dev_lz_split_copy.cuh, with a 16 KiB,
 * a 4 KiB or no history ring; and split-pp-r4k, whose parse runs per 4 KiB
 * input segment in parallel, dev_lz_split_pp.h), at full scale: for each chunk size, the
 * corpus is cut into chunks, compressed by the CPU reference (liblz4's
 * LZ4_compress_default, snappy_compress; each chunk read back first), and
 * the chunks repeated until the batch holds at least --min-bytes of
 * uncompressed data (each copy in its own device buffer).  Every variant's
 * every output byte, size and status is checked against the input before
 * it is timed (CUDA events around the launches, a warm-up, median of
 * --repeats).  Then damaged copies of the first chunks (truncated, a byte
 * changed) must get the library decoder's status from the split decoder.
 *
 *   lz_split [--algo lz4|snappy|both] [--chunks 65536,262144,...]
 *            [--min-bytes N] [--repeats N] [--variants NAME,...] FILE...
 *
 * --variants picks the variants to run besides the library's decoder
 * (default: all).  v8 (bench/NOTES.md "v8"): smem-w256-t2, smem-w512-t2,
 * smem-w256-t1 parse with a warp per 32 chunks reading through shared
 * memory (dev_lz_smem_warp.cuh; window bytes per lane, refill threshold
 * in quarters of the lanes still parsing), then copy as split-r0.
 * v9 (bench/NOTES.md "v9" and "v9 in the library", LZ4 at 64 KiB and
 * less only): library-split is the library's LZ4 GPU decoder itself
 * (src/cuda/codecs/lz4/lz4_kernels.cu, included whole; called as the
 * engine calls it, with a second stream of the greatest priority):
 * smem-w512-t2's parse and split-r0's copy at once on two streams, the copy
 * consuming the records as the parse publishes them, with the progress
 * guarantee.  It replaced this harness's own v9 (fused-w512,
 * dev_lz_fused.cuh, measured 141.7 GB/s at 64 KiB on an H100 at 9bf7836),
 * which had a 2 s timeout instead; it has no "parse" share.
 * library-general (session 10, bench/NOTES.md "LZ4's branch-free parse
 * step"): library-split with the general parse step (lz4_split_parse.h's
 * oc_lz4s_step, the library's until the branch-free lz4_fast_parse.h won)
 * and nothing else changed; the split decoder forced (OC_LZS_SPLIT), so
 * that the damaged chunks' small batch takes the split decoder too.
 * v14 (session 11, bench/NOTES.md "v14", dev_lz_big.cuh; for 256 KiB - 4
 * MiB chunks, both formats): big-w8, big-w16 decode a chunk a block of 8 or
 * 16 warps, v7b's parallel parse fused into the block, then the copy by all
 * its warps in rounds (a match is copied once its source lies before the
 * tile's first unresolved match); bigd-w8, bigd-w16 (v14b) also copy a
 * match whose source records are all copied.  Measured in session 11 (call
 * B, H200): 0.15-0.64x the pipe; each now prints a "phases" line from its
 * checking run (an instantiation with clock64 at the phase boundaries),
 * the mean SM cycles a chunk of each phase, to find where the time goes.
 * v15 (session 12, bench/NOTES.md "v15", dev_lz_flow.cuh): flow-w2, -w4,
 * -w8, -w16: v14's fused parse, then a copy without rounds: each warp copies
 * batches of 32 records in order, a match as soon as the flag bytes of its
 * source (a flag byte an output byte, set after the bytes) are set.  Its
 * "phases" line: A B C D as v14's, "rounds" the copy's cycles, "rounds a
 * tile" warp 0's polls a batch.  flowl-w2 .. -w16 (v15b): every literal of
 * the chunk first (v14's block scan, positions stored in the records), a
 * barrier, then the matches alone by flags ("scan+literals" is that pass).
 * flowg-w4 .. -w16 (v15c): flow-* with a byte counter a 64-byte granule in
 * shared memory, so that a source in finished granules needs no L2 load;
 * flowgs-w4, -w16 (v15d): flowg whose warps sleep 200 ns after a poll that
 * found nothing ready.
 *
 * Prints one line per chunk size, algorithm and variant: GB/s of
 * uncompressed bytes, the ratio to the library's decoder, and for the
 * split variants the parse and copy kernels' shares.  Exits 1 if anything
 * differs.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../src/cuda/codecs/lz4/lz4_decode_rounds.cuh"
#include "../../../src/cuda/codecs/snappy/snappy_decode_rounds.cuh"
#include "../../../src/cuda/codecs/lz4/lz4_kernels.cu"
#include "dev_lz_smem_warp.cuh"
#include "dev_lz_split_copy.cuh"
#include "dev_lz_split_pp.h"
#include "dev_lz_big.cuh"
#include "dev_lz_flow.cuh"

/* the CPU reference (prototypes of lz4.h and snappy-c.h, so that only the
 * shared libraries are needed) */
extern "C" {
int LZ4_compress_default(const char *src, char *dst, int srcSize, int dstCapacity);
int LZ4_decompress_safe(const char *src, char *dst, int compressedSize, int dstCapacity);
int LZ4_compressBound(int inputSize);
int snappy_compress(const char *input, size_t input_length, char *compressed, size_t *compressed_length);
int snappy_uncompress(const char *compressed, size_t compressed_length, char *uncompressed,
                      size_t *uncompressed_length);
size_t snappy_max_compressed_length(size_t source_length);
}

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                      \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

/* ---- the library's decoder, as the library launches it (lz4_kernels.cu, snappy_kernels.cu) ---- */

__global__ void __launch_bounds__(64) lib_lz4_kernel(oc_cuda_batch b)
{
    __shared__ uint8_t ring[OC_RING];
    __shared__ oc_pipe_q q;
    size_t chunk = blockIdx.x;
    int lane = threadIdx.x & 31;
    if (chunk >= b.n)
        return;
    const uint8_t *src = b.src[chunk];
    size_t srcn = b.src_sizes[chunk];
    uint8_t *dst = b.dst[chunk];
    size_t cap = b.dst_caps[chunk];
    if (threadIdx.x >= 32) {
        oc_pipe_copier(&q, src, dst, ring, lane);
        return;
    }
    oc_pipe_prod pp = {&q, 0};
    size_t outn = 0;
    int st = oc_pipe_narrow(srcn, cap) ? oc_lz4_decode_rounds<uint32_t>(src, srcn, cap, &outn, lane, &pp)
                                       : oc_lz4_decode_rounds<uint64_t>(src, srcn, cap, &outn, lane, &pp);
    oc_pipe_finish(&pp, lane);
    st = oc_lz4_cpu_verdict(st, src, srcn, lane); /* as the library's pipe (800048d) */
    if (lane == 0) {
        b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        b.statuses[chunk] = st;
    }
}

__device__ int lib_snappy_preamble(const uint8_t *__restrict__ src, size_t srcn, uint32_t *len)
{
    uint64_t v = 0;
    for (int i = 0; i < 5; i++) {
        if ((size_t)i >= srcn)
            return 0;
        uint32_t c = __ldg(src + i);
        v |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            if (v > 0xffffffffull)
                return -1;
            *len = (uint32_t)v;
            return i + 1;
        }
    }
    return -1;
}

__global__ void __launch_bounds__(64) lib_snappy_kernel(oc_cuda_batch b)
{
    __shared__ uint8_t ring[OC_RING];
    __shared__ oc_pipe_q q;
    size_t chunk = blockIdx.x;
    int lane = threadIdx.x & 31;
    if (chunk >= b.n)
        return;
    const uint8_t *src = b.src[chunk];
    size_t srcn = b.src_sizes[chunk];
    uint8_t *dst = b.dst[chunk];
    size_t cap = b.dst_caps[chunk];
    if (threadIdx.x >= 32) {
        oc_pipe_copier(&q, src, dst, ring, lane);
        return;
    }
    oc_pipe_prod pp = {&q, 0};
    size_t outn = 0;
    uint32_t ulen = 0;
    int st, pre = lib_snappy_preamble(src, srcn, &ulen);
    if (pre == 0)
        st = OC_D_TRUNCATED;
    else if (pre < 0)
        st = OC_D_CORRUPT;
    else if ((outn = ulen) > cap)
        st = OC_D_OUTPUT_TOO_SMALL;
    else
        st = oc_pipe_narrow(srcn, 0)
                 ? oc_snappy_decode_rounds<uint32_t>(src, srcn, (size_t)pre, ulen, lane, &pp)
                 : oc_snappy_decode_rounds<uint64_t>(src, srcn, (size_t)pre, ulen, lane, &pp);
    oc_pipe_finish(&pp, lane);
    if (lane == 0) {
        b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        b.statuses[chunk] = st;
    }
}

/* ---- the split decoder (v7) ---- */

/* Parse half: a thread per chunk; records of chunk i at recs + rec_base[i]. */
template <bool SNAPPY>
__global__ void __launch_bounds__(128)
    split_parse_kernel(oc_cuda_batch b, oc_split_rec *recs, const size_t *rec_base, uint32_t *nrecs)
{
    size_t chunk = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (chunk >= b.n)
        return;
    size_t nrec = 0, outn = 0;
    const uint8_t *src = b.src[chunk];
    size_t srcn = b.src_sizes[chunk], cap = b.dst_caps[chunk];
    int st = SNAPPY ? oc_split_parse_snappy(src, srcn, cap, recs + rec_base[chunk], &nrec, &outn)
                    : oc_split_parse_lz4(src, srcn, cap, recs + rec_base[chunk], &nrec, &outn);
    nrecs[chunk] = st == OC_SPLIT_OK ? (uint32_t)nrec : 0;
    b.dst_sizes[chunk] = st == OC_SPLIT_OK ? outn : 0;
    b.statuses[chunk] = st;
}

/* Copy half: a warp per chunk, W warps per block, R bytes of ring per warp. */
template <uint32_t R, int W>
__global__ void __launch_bounds__(W * 32) split_copy_kernel(oc_cuda_batch b, const oc_split_rec *recs,
                                                            const size_t *rec_base, const uint32_t *nrecs)
{
    __shared__ oc_split_slot slots[W];
    __shared__ uint8_t rings[W][R ? R : 1];
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    size_t chunk = (size_t)blockIdx.x * W + warp;
    if (chunk >= b.n)
        return;
    uint32_t n = nrecs[chunk];
    if (n == 0)
        return;
    oc_split_copy_chunk<R>(recs + rec_base[chunk], n, b.src[chunk], b.dst[chunk], &slots[warp], rings[warp],
                           lane);
}

/* ---- the split decoder with the parse reading through shared memory (v8, dev_lz_smem_warp.cuh) ---- */

/* warps per block: 32 KiB of windows a block */
#define SMEM_WARPS(W) (32768u / (32u * (W)))

/* Parse half: a warp per 32 chunks, a lane per chunk, W bytes of window a
 * lane, refill when T4/4 of the lanes still parsing are dry. */
template <bool SNAPPY, uint32_t W, int T4>
__global__ void __launch_bounds__(32 * SMEM_WARPS(W), 1)
    smem_parse_kernel(oc_cuda_batch b, oc_split_rec *recs, const size_t *rec_base, uint32_t *nrecs)
{
    __shared__ __align__(16) uint8_t win[SMEM_WARPS(W)][32 * W];
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    size_t first = ((size_t)blockIdx.x * SMEM_WARPS(W) + warp) * 32;
    if (first >= b.n) /* the whole warp */
        return;
    size_t chunk = first + lane;
    int have = chunk < b.n;
    const uint8_t *src = have ? b.src[chunk] : NULL;
    uint32_t srcn = have ? (uint32_t)b.src_sizes[chunk] : 0; /* the harness keeps sizes below 2^31 */
    size_t capz = have ? b.dst_caps[chunk] : 0;
    uint32_t cap = capz < 0xffffffffu ? (uint32_t)capz : 0xffffffffu;
    uint32_t nrec = 0, outn = 0;
    int st = oc_smem_parse_warp<SNAPPY, W, T4>(lane, have, src, srcn, cap,
                                               have ? recs + rec_base[chunk] : recs, win[warp], &nrec, &outn);
    if (have) {
        nrecs[chunk] = nrec;
        b.dst_sizes[chunk] = outn;
        b.statuses[chunk] = st;
    }
}

template <uint32_t W, int T4>
static void smem_parse_launch(int snappy, const oc_cuda_batch &b, oc_split_rec *recs, const size_t *rec_base,
                              uint32_t *nrecs, cudaStream_t s)
{
    size_t per_block = 32 * SMEM_WARPS(W);
    unsigned blocks = (unsigned)((b.n + per_block - 1) / per_block);
    if (snappy)
        smem_parse_kernel<true, W, T4><<<blocks, 32 * SMEM_WARPS(W), 0, s>>>(b, recs, rec_base, nrecs);
    else
        smem_parse_kernel<false, W, T4><<<blocks, 32 * SMEM_WARPS(W), 0, s>>>(b, recs, rec_base, nrecs);
}

/* ---- v9: the library's decoder (lz4_kernels.cu) ---- */

struct lib_split {
    void *scratch;
    size_t bytes;
    size_t max_cap; /* the host-known largest capacity (the engine's cfg.max_capacity) */
    oc_gpu_side side;
};

/* ---- library-general: the library's split decoder with the general step ---- */

struct dev_lz4_general : oc_lz4_split_codec {
    static __device__ __forceinline__ int step(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                               uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_lz4s_step(s, wp, wshift, whi, srcn, cap, recs);
    }
};
/* the library's last word on a refused chunk (a rescan in the CPU scanner's order) */
template <>
__device__ __forceinline__ int oc_lzs_verdict<dev_lz4_general>(int st, const uint8_t *src, size_t srcn)
{
    return oc_lzs_verdict<oc_lz4_split_codec>(st, src, srcn);
}

/* The library's decoder sequence (lz4_kernels.cu's oc_lz4_decode_batch) with the parser dev_lz4_general
 * and the split decoder forced. */
static oc_status dev_lz4_general_run(const lib_split &ls, const oc_cuda_batch &b, cudaStream_t s)
{
    oc_gpu_config cfg{};
    cfg.algorithm = OC_ALGO_LZ4;
    cfg.max_capacity = ls.max_cap;
    cfg.side = &ls.side;
    return oc_lz4_decode_batch<dev_lz4_general>(ls.scratch, ls.bytes, &cfg, b, s, OC_LZS_SPLIT);
}

/* ---- the split decoder with the parallel parse (v7b, dev_lz_split_pp.h) ---- */

struct pp_scratch {
    oc_split_rec *recs; /* OC_PP_SEG_RECS per segment */
    uint32_t *pos, *cum;
    oc_pp_seg *segs;
    oc_pp_chunk *chunks;
    const uint32_t *seg_chunk; /* the chunk of each segment */
    const size_t *seg0;        /* the first segment of each chunk */
    size_t nsegs;
};

template <bool SNAPPY> __global__ void __launch_bounds__(128) pp_a_kernel(oc_cuda_batch b, pp_scratch p)
{
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= p.nsegs)
        return;
    uint32_t c = p.seg_chunk[g];
    if (c >= b.n) /* a smaller batch over the same scratch (the damaged chunks) */
        return;
    size_t k = g - p.seg0[c], srcn = b.src_sizes[c];
    if (k >= oc_pp_nsegs(srcn))
        return;
    size_t at = g * OC_PP_SEG_RECS;
    oc_pp_pass_a(SNAPPY, b.src[c], srcn, b.dst_caps[c], k, p.recs + at, p.pos + at, p.cum + at, p.segs + g);
}

template <bool SNAPPY> __global__ void __launch_bounds__(128) pp_b_kernel(oc_cuda_batch b, pp_scratch p)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= b.n)
        return;
    size_t g = p.seg0[c], at = g * OC_PP_SEG_RECS, srcn = b.src_sizes[c];
    oc_pp_pass_b(SNAPPY, b.src[c], srcn, b.dst_caps[c], oc_pp_nsegs(srcn), p.recs + at, p.pos + at,
                 p.cum + at, p.segs + g, p.chunks + c);
}

template <bool SNAPPY>
__global__ void __launch_bounds__(128)
    pp_c_kernel(oc_cuda_batch b, pp_scratch p, oc_split_rec *recs, const size_t *rec_base)
{
    size_t g = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= p.nsegs)
        return;
    uint32_t c = p.seg_chunk[g];
    if (c >= b.n)
        return;
    size_t k = g - p.seg0[c];
    if (k >= oc_pp_nsegs(b.src_sizes[c]))
        return;
    oc_pp_pass_c(SNAPPY, b.dst_caps[c], k, p.recs + p.seg0[c] * OC_PP_SEG_RECS, p.segs + g, p.chunks + c,
                 recs + rec_base[c]);
}

template <bool SNAPPY>
__global__ void __launch_bounds__(128)
    pp_d_kernel(oc_cuda_batch b, pp_scratch p, oc_split_rec *recs, const size_t *rec_base, uint32_t *nrecs)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= b.n)
        return;
    size_t nrec = 0, outn = 0;
    int st = oc_pp_pass_d(SNAPPY, b.src[c], b.src_sizes[c], b.dst_caps[c], p.chunks + c, recs + rec_base[c],
                          &nrec, &outn);
    nrecs[c] = st == OC_SPLIT_OK ? (uint32_t)nrec : 0;
    b.dst_sizes[c] = st == OC_SPLIT_OK ? outn : 0;
    b.statuses[c] = st;
}

/* ---- harness ---- */

enum {
    V_LIB,
    V_SPLIT_R16K,
    V_SPLIT_R4K,
    V_SPLIT_R0,
    V_SPLIT_PP,
    V_SMEM_W256_T2,
    V_SMEM_W512_T2,
    V_SMEM_W256_T1,
    V_LIB_SPLIT,
    V_LIB_GENERAL,
    V_BIG_W8,
    V_BIG_W16,
    V_BIGD_W8,
    V_BIGD_W16,
    V_FLOW_W2,
    V_FLOW_W4,
    V_FLOW_W8,
    V_FLOW_W16,
    V_FLOWL_W2,
    V_FLOWL_W4,
    V_FLOWL_W8,
    V_FLOWL_W16,
    V_FLOWG_W4,
    V_FLOWG_W8,
    V_FLOWG_W16,
    V_FLOWGS_W4,
    V_FLOWGS_W16,
    V_COUNT
};
static const char *const vname[V_COUNT] = {
    "library-pipe", "split-r16k",   "split-r4k",     "split-r0",        "split-pp-r4k", "smem-w256-t2",
    "smem-w512-t2", "smem-w256-t1", "library-split", "library-general", "big-w8",       "big-w16",
    "bigd-w8",      "bigd-w16",     "flow-w2",       "flow-w4",         "flow-w8",      "flow-w16",
    "flowl-w2",     "flowl-w4",     "flowl-w8",      "flowl-w16",       "flowg-w4",     "flowg-w8",
    "flowg-w16",    "flowgs-w4",    "flowgs-w16"};
static int v_on[V_COUNT] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                            1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}; /* --variants */

/* the variants timed as one launch (no parse end to record) */
static int v_whole(int v)
{
    return v == V_LIB || v == V_LIB_SPLIT || v == V_LIB_GENERAL || v >= V_BIG_W8;
}

/* the variants built on the library's split decoder (its scratch and second stream) */
static int v_lib(int v)
{
    return v == V_LIB_SPLIT || v == V_LIB_GENERAL;
}

/* Whether variant v runs for this algorithm (v9 and library-general are LZ4 only). */
static int v_runs(int v, int snappy)
{
    return v_on[v] && !(snappy && v_lib(v));
}

struct dev_batch {
    oc_cuda_batch b;
    oc_split_rec *recs;
    size_t *rec_base;
    uint32_t *nrecs;
    pp_scratch pp;
    lib_split ls;
    unsigned long long *clk; /* v14's phase clocks (OC_BIG_CLK a chunk), NULL: none */
    uint8_t *flags;          /* v15: a flag byte an output byte (total + 8 bytes), zeroed by each launch */
    size_t flags_bytes;
    const size_t *uoff; /* v15: each chunk's output offset (device), its flags' offset */
    size_t max_cap;     /* v15c: the largest capacity (its shared counters' size) */
};

/* v15c: flowg-wNW, dynamic shared memory of ceil(max_cap / 256) words of granule counters. */
template <bool SNAPPY, int NW, bool SLEEP = false>
static void launch_flowg(const dev_batch &d, const oc_big_pp &bp, cudaStream_t s)
{
    size_t sm = (d.max_cap + 255) / 256 * 4;
    auto k = d.clk ? oc_flow_kernel<SNAPPY, NW, true, false, true, SLEEP>
                   : oc_flow_kernel<SNAPPY, NW, false, false, true, SLEEP>;
    CUDA_OK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sm));
    k<<<(unsigned)d.b.n, NW * 32, sm, s>>>(d.b, bp, d.recs, d.rec_base, d.nrecs, d.flags, d.uoff, d.clk);
}

/* Launches variant v; with events e[3] records parse/copy boundaries. */
static void launch(int snappy, int v, const dev_batch &d, cudaStream_t s, cudaEvent_t mid)
{
    size_t n = d.b.n;
    if (v == V_LIB) {
        if (snappy)
            lib_snappy_kernel<<<(unsigned)n, 64, 0, s>>>(d.b);
        else
            lib_lz4_kernel<<<(unsigned)n, 64, 0, s>>>(d.b);
    } else if (v == V_SPLIT_PP) {
        unsigned pb = (unsigned)((n + 127) / 128), sb = (unsigned)((d.pp.nsegs + 127) / 128);
        if (snappy) {
            pp_a_kernel<true><<<sb, 128, 0, s>>>(d.b, d.pp);
            pp_b_kernel<true><<<pb, 128, 0, s>>>(d.b, d.pp);
            pp_c_kernel<true><<<sb, 128, 0, s>>>(d.b, d.pp, d.recs, d.rec_base);
            pp_d_kernel<true><<<pb, 128, 0, s>>>(d.b, d.pp, d.recs, d.rec_base, d.nrecs);
        } else {
            pp_a_kernel<false><<<sb, 128, 0, s>>>(d.b, d.pp);
            pp_b_kernel<false><<<pb, 128, 0, s>>>(d.b, d.pp);
            pp_c_kernel<false><<<sb, 128, 0, s>>>(d.b, d.pp, d.recs, d.rec_base);
            pp_d_kernel<false><<<pb, 128, 0, s>>>(d.b, d.pp, d.recs, d.rec_base, d.nrecs);
        }
        if (mid)
            CUDA_OK(cudaEventRecord(mid, s));
        split_copy_kernel<4096, 4><<<(unsigned)((n + 3) / 4), 128, 0, s>>>(d.b, d.recs, d.rec_base, d.nrecs);
    } else if (v >= V_FLOW_W2) { /* v15 (dev_lz_flow.cuh): a block per chunk, the copy by flags */
        oc_big_pp bp = {d.pp.recs, d.pp.pos, d.pp.cum, d.pp.segs, d.pp.chunks, d.pp.seg0};
        unsigned g = (unsigned)n;
        CUDA_OK(cudaMemsetAsync(d.flags, 0, d.flags_bytes, s));
#define FLOW_LAUNCH(NW, L)                                                                                   \
    (d.clk ? (snappy ? oc_flow_kernel<true, NW, true, L>                                                     \
                  <<<g, NW * 32, 0, s>>>(d.b, bp, d.recs, d.rec_base, d.nrecs, d.flags, d.uoff, d.clk)       \
                     : oc_flow_kernel<false, NW, true, L>                                                    \
                  <<<g, NW * 32, 0, s>>>(d.b, bp, d.recs, d.rec_base, d.nrecs, d.flags, d.uoff, d.clk))      \
           : (snappy ? oc_flow_kernel<true, NW, false, L>                                                    \
                  <<<g, NW * 32, 0, s>>>(d.b, bp, d.recs, d.rec_base, d.nrecs, d.flags, d.uoff, d.clk)       \
                     : oc_flow_kernel<false, NW, false, L>                                                   \
                  <<<g, NW * 32, 0, s>>>(d.b, bp, d.recs, d.rec_base, d.nrecs, d.flags, d.uoff, d.clk)))
        switch (v) {
        case V_FLOWG_W4:
            snappy ? launch_flowg<true, 4>(d, bp, s) : launch_flowg<false, 4>(d, bp, s);
            break;
        case V_FLOWG_W8:
            snappy ? launch_flowg<true, 8>(d, bp, s) : launch_flowg<false, 8>(d, bp, s);
            break;
        case V_FLOWG_W16:
            snappy ? launch_flowg<true, 16>(d, bp, s) : launch_flowg<false, 16>(d, bp, s);
            break;
        case V_FLOWGS_W4:
            snappy ? launch_flowg<true, 4, true>(d, bp, s) : launch_flowg<false, 4, true>(d, bp, s);
            break;
        case V_FLOWGS_W16:
            snappy ? launch_flowg<true, 16, true>(d, bp, s) : launch_flowg<false, 16, true>(d, bp, s);
            break;
        case V_FLOW_W2:
            FLOW_LAUNCH(2, false);
            break;
        case V_FLOW_W4:
            FLOW_LAUNCH(4, false);
            break;
        case V_FLOW_W8:
            FLOW_LAUNCH(8, false);
            break;
        case V_FLOW_W16:
            FLOW_LAUNCH(16, false);
            break;
        case V_FLOWL_W2:
            FLOW_LAUNCH(2, true);
            break;
        case V_FLOWL_W4:
            FLOW_LAUNCH(4, true);
            break;
        case V_FLOWL_W8:
            FLOW_LAUNCH(8, true);
            break;
        default:
            FLOW_LAUNCH(16, true);
            break;
        }
#undef FLOW_LAUNCH
    } else if (v >= V_BIG_W8) { /* v14, v14b (dev_lz_big.cuh): a block per chunk */
        oc_big_pp bp = {d.pp.recs, d.pp.pos, d.pp.cum, d.pp.segs, d.pp.chunks, d.pp.seg0};
        unsigned g = (unsigned)n;
#define BIG_LAUNCH(NW, DEPS)                                                                                 \
    (d.clk ? (snappy ? oc_big_kernel<true, NW, DEPS, true>                                                   \
                  <<<g, NW * 32, 0, s>>>(d.b, bp, d.recs, d.rec_base, d.nrecs, d.clk)                        \
                     : oc_big_kernel<false, NW, DEPS, true>                                                  \
                  <<<g, NW * 32, 0, s>>>(d.b, bp, d.recs, d.rec_base, d.nrecs, d.clk))                       \
           : (snappy ? oc_big_kernel<true, NW, DEPS, false>                                                  \
                  <<<g, NW * 32, 0, s>>>(d.b, bp, d.recs, d.rec_base, d.nrecs, d.clk)                        \
                     : oc_big_kernel<false, NW, DEPS, false>                                                 \
                  <<<g, NW * 32, 0, s>>>(d.b, bp, d.recs, d.rec_base, d.nrecs, d.clk)))
        if (v == V_BIG_W8)
            BIG_LAUNCH(8, false);
        else if (v == V_BIG_W16)
            BIG_LAUNCH(16, false);
        else if (v == V_BIGD_W8)
            BIG_LAUNCH(8, true);
        else
            BIG_LAUNCH(16, true);
#undef BIG_LAUNCH
    } else if (v == V_LIB_GENERAL) {
        oc_status r = dev_lz4_general_run(d.ls, d.b, s);
        if (r != OC_OK) {
            fprintf(stderr, "library-general: launch status %d\n", (int)r);
            exit(1);
        }
    } else if (v == V_LIB_SPLIT) {
        oc_gpu_config cfg{};
        cfg.algorithm = OC_ALGO_LZ4;
        cfg.max_capacity = d.ls.max_cap;
        cfg.side = &d.ls.side;
        oc_status r = oc_gpu_codec_lz4.decompress(
            d.ls.scratch, d.ls.bytes, &cfg, n, (const void *const *)d.b.src, d.b.src_sizes,
            (void *const *)d.b.dst, d.b.dst_caps, d.b.dst_sizes, (oc_status *)d.b.statuses, s);
        if (r != OC_OK) {
            fprintf(stderr, "library-split: launch status %d\n", (int)r);
            exit(1);
        }
    } else if (v >= V_SMEM_W256_T2) {
        if (v == V_SMEM_W256_T2)
            smem_parse_launch<256, 2>(snappy, d.b, d.recs, d.rec_base, d.nrecs, s);
        else if (v == V_SMEM_W512_T2)
            smem_parse_launch<512, 2>(snappy, d.b, d.recs, d.rec_base, d.nrecs, s);
        else
            smem_parse_launch<256, 1>(snappy, d.b, d.recs, d.rec_base, d.nrecs, s);
        if (mid)
            CUDA_OK(cudaEventRecord(mid, s));
        split_copy_kernel<0, 4><<<(unsigned)((n + 3) / 4), 128, 0, s>>>(d.b, d.recs, d.rec_base, d.nrecs);
    } else {
        unsigned pb = (unsigned)((n + 127) / 128);
        if (snappy)
            split_parse_kernel<true><<<pb, 128, 0, s>>>(d.b, d.recs, d.rec_base, d.nrecs);
        else
            split_parse_kernel<false><<<pb, 128, 0, s>>>(d.b, d.recs, d.rec_base, d.nrecs);
        if (mid)
            CUDA_OK(cudaEventRecord(mid, s));
        unsigned cb = (unsigned)((n + 3) / 4);
        if (v == V_SPLIT_R16K) /* 2 warps a block: 48 KiB of static shared memory at most */
            split_copy_kernel<16384, 2>
                <<<(unsigned)((n + 1) / 2), 64, 0, s>>>(d.b, d.recs, d.rec_base, d.nrecs);
        else if (v == V_SPLIT_R4K)
            split_copy_kernel<4096, 4><<<cb, 128, 0, s>>>(d.b, d.recs, d.rec_base, d.nrecs);
        else
            split_copy_kernel<0, 4><<<cb, 128, 0, s>>>(d.b, d.recs, d.rec_base, d.nrecs);
    }
    CUDA_OK(cudaGetLastError());
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

struct corpus_file {
    const char *name;
    uint8_t *data;
    size_t size;
};

/* One chunk size, one algorithm. */
static int run(const corpus_file *files, int nfiles, size_t chunk, int snappy, size_t min_bytes, int repeats)
{
    const char *alg = snappy ? "snappy" : "lz4";
    size_t bound = snappy ? snappy_max_compressed_length(chunk) : (size_t)LZ4_compressBound((int)chunk);
    /* the unique chunks: compressed by the reference, read back */
    size_t nu = 0;
    for (int f = 0; f < nfiles; f++)
        nu += (files[f].size + chunk - 1) / chunk;
    const uint8_t **u_data = (const uint8_t **)malloc(nu * sizeof(void *));
    size_t *u_size = (size_t *)malloc(nu * sizeof(size_t)), *c_size = (size_t *)malloc(nu * sizeof(size_t));
    uint8_t *comp = (uint8_t *)malloc(nu * bound), *back = (uint8_t *)malloc(chunk);
    size_t k = 0, cycle_u = 0, cycle_c = 0;
    for (int f = 0; f < nfiles; f++)
        for (size_t o = 0; o < files[f].size; o += chunk, k++) {
            u_data[k] = files[f].data + o;
            u_size[k] = files[f].size - o < chunk ? files[f].size - o : chunk;
            size_t c = bound, dn = chunk;
            char *cp = (char *)comp + k * bound;
            if (snappy) {
                if (snappy_compress((const char *)u_data[k], u_size[k], cp, &c) != 0 ||
                    snappy_uncompress(cp, c, (char *)back, &dn) != 0)
                    dn = (size_t)-1;
            } else {
                c = (size_t)LZ4_compress_default((const char *)u_data[k], cp, (int)u_size[k], (int)bound);
                int r = LZ4_decompress_safe(cp, (char *)back, (int)c, (int)chunk);
                dn = r < 0 ? (size_t)-1 : (size_t)r;
            }
            if (dn != u_size[k] || memcmp(back, u_data[k], dn) != 0) {
                fprintf(stderr, "%s chunk %zu: the CPU reference does not round-trip\n", files[f].name, k);
                return 1;
            }
            c_size[k] = c;
            cycle_u += u_size[k];
            cycle_c += c;
        }
    /* the batch: the unique chunks repeated up to min_bytes, each in its own buffers */
    size_t cycles = (min_bytes + cycle_u - 1) / cycle_u, n = nu * cycles;
    size_t total_u = cycle_u * cycles, total_c = cycle_c * cycles;
    size_t *h_srcn = (size_t *)malloc(n * sizeof(size_t)), *h_cap = (size_t *)malloc(n * sizeof(size_t));
    size_t *h_base = (size_t *)malloc(n * sizeof(size_t)), *h_uoff = (size_t *)malloc(n * sizeof(size_t));
    const uint8_t **h_src = (const uint8_t **)malloc(n * sizeof(void *));
    uint8_t **h_dst = (uint8_t **)malloc(n * sizeof(void *));
    uint8_t *d_comp, *d_out, *d_ucomp;
    CUDA_OK(cudaMalloc(&d_comp, total_c));
    CUDA_OK(cudaMalloc(&d_out, total_u));
    CUDA_OK(cudaMalloc(&d_ucomp, nu * bound));
    CUDA_OK(cudaMemcpy(d_ucomp, comp, nu * bound, cudaMemcpyHostToDevice));
    size_t co = 0, uo = 0, ro = 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = i % nu;
        CUDA_OK(cudaMemcpy(d_comp + co, d_ucomp + j * bound, c_size[j], cudaMemcpyDeviceToDevice));
        h_src[i] = d_comp + co;
        h_dst[i] = d_out + uo;
        h_srcn[i] = c_size[j];
        h_cap[i] = u_size[j];
        h_uoff[i] = uo;
        h_base[i] = ro;
        co += c_size[j];
        uo += u_size[j];
        ro += OC_SPLIT_MAX_RECS(c_size[j]);
    }
    CUDA_OK(cudaFree(d_ucomp));
    dev_batch d;
    void *arrays;
    CUDA_OK(cudaMalloc(&arrays, n * (5 * sizeof(size_t) + 2 * sizeof(void *) + 2 * sizeof(int32_t))));
    d.b.n = n;
    d.b.src = (const uint8_t *const *)arrays;
    d.b.dst = (uint8_t *const *)(d.b.src + n);
    d.b.src_sizes = (const size_t *)(d.b.dst + n);
    d.b.dst_caps = d.b.src_sizes + n;
    d.b.dst_sizes = (size_t *)(d.b.dst_caps + n);
    d.rec_base = d.b.dst_sizes + n;
    d.b.statuses = (int32_t *)(d.rec_base + n);
    d.nrecs = (uint32_t *)(d.b.statuses + n);
    CUDA_OK(cudaMemcpy((void *)d.b.src, h_src, n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)d.b.dst, h_dst, n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)d.b.src_sizes, h_srcn, n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)d.b.dst_caps, h_cap, n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.rec_base, h_base, n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&d.recs, ro * sizeof(oc_split_rec)));
    d.flags_bytes = total_u + 8;
    d.max_cap = chunk;
    CUDA_OK(cudaMalloc(&d.flags, d.flags_bytes));
    {
        size_t *du;
        CUDA_OK(cudaMalloc(&du, n * sizeof(size_t)));
        CUDA_OK(cudaMemcpy(du, h_uoff, n * sizeof(size_t), cudaMemcpyHostToDevice));
        d.uoff = du;
    }
    /* v9: the library's scratch and second stream, as the engine makes them (cuda_engine.cu) */
    memset(&d.ls, 0, sizeof(d.ls));
    d.clk = NULL;
    unsigned long long *d_clk = NULL,
                       *h_clk = (unsigned long long *)malloc(n * OC_BIG_CLK * sizeof(unsigned long long));
    CUDA_OK(cudaMalloc(&d_clk, n * OC_BIG_CLK * sizeof(unsigned long long)));
    double phase[V_COUNT][OC_BIG_CLK]; /* v14's phase clocks, means over the chunks (checking run) */
    memset(phase, 0, sizeof(phase));
    if ((v_runs(V_LIB_SPLIT, snappy) || v_runs(V_LIB_GENERAL, snappy)) && chunk <= OC_LZS_MAX_CAP) {
        oc_gpu_config cfg{};
        cfg.algorithm = OC_ALGO_LZ4;
        cfg.max_capacity = chunk;
        d.ls.max_cap = chunk;
        d.ls.bytes = oc_gpu_codec_lz4.decompress_scratch(&cfg, n);
        CUDA_OK(cudaMalloc(&d.ls.scratch, d.ls.bytes));
        int least = 0, greatest = 0;
        CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
        CUDA_OK(cudaStreamCreateWithPriority(&d.ls.side.stream, cudaStreamNonBlocking, greatest));
        CUDA_OK(cudaEventCreateWithFlags(&d.ls.side.fork, cudaEventDisableTiming));
        CUDA_OK(cudaEventCreateWithFlags(&d.ls.side.join, cudaEventDisableTiming));
        CUDA_OK(cudaDeviceGetAttribute(&d.ls.side.sm_count, cudaDevAttrMultiProcessorCount, 0));
    }
    /* the parallel parse's segments (a library version would scan on the device) */
    size_t nsegs = 0;
    for (size_t i = 0; i < n; i++)
        nsegs += oc_pp_nsegs(h_srcn[i]);
    uint32_t *h_seg_chunk = (uint32_t *)malloc(nsegs * sizeof(uint32_t));
    size_t *h_seg0 = (size_t *)malloc(n * sizeof(size_t));
    for (size_t i = 0, g = 0; i < n; i++) {
        h_seg0[i] = g;
        for (size_t k = oc_pp_nsegs(h_srcn[i]); k--;)
            h_seg_chunk[g++] = (uint32_t)i;
    }
    d.pp.nsegs = nsegs;
    CUDA_OK(cudaMalloc(&d.pp.recs, nsegs * OC_PP_SEG_RECS * sizeof(oc_split_rec)));
    CUDA_OK(cudaMalloc(&d.pp.pos, nsegs * OC_PP_SEG_RECS * sizeof(uint32_t)));
    CUDA_OK(cudaMalloc(&d.pp.cum, nsegs * OC_PP_SEG_RECS * sizeof(uint32_t)));
    CUDA_OK(cudaMalloc(&d.pp.segs, nsegs * sizeof(oc_pp_seg)));
    CUDA_OK(cudaMalloc(&d.pp.chunks, n * sizeof(oc_pp_chunk)));
    CUDA_OK(cudaMalloc((void **)&d.pp.seg_chunk, nsegs * sizeof(uint32_t)));
    CUDA_OK(cudaMalloc((void **)&d.pp.seg0, n * sizeof(size_t)));
    CUDA_OK(
        cudaMemcpy((void *)d.pp.seg_chunk, h_seg_chunk, nsegs * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)d.pp.seg0, h_seg0, n * sizeof(size_t), cudaMemcpyHostToDevice));
    free(h_seg_chunk), free(h_seg0);

    cudaStream_t s;
    cudaEvent_t t0, t1, tm;
    CUDA_OK(cudaStreamCreate(&s));
    CUDA_OK(cudaEventCreate(&t0));
    CUDA_OK(cudaEventCreate(&t1));
    CUDA_OK(cudaEventCreate(&tm));
    uint8_t *out = (uint8_t *)malloc(total_u);
    int32_t *st = (int32_t *)malloc(n * sizeof(int32_t));
    size_t *got = (size_t *)malloc(n * sizeof(size_t));
    float *ms = (float *)malloc((size_t)repeats * sizeof(float)),
          *pms = (float *)malloc((size_t)repeats * sizeof(float));
    float rate[V_COUNT], parse_share[V_COUNT];
    int bad = 0;
    for (int v = 0; v < V_COUNT; v++) {
        rate[v] = parse_share[v] = 0;
        if (!v_runs(v, snappy) || (v_lib(v) && !d.ls.scratch))
            continue;
        CUDA_OK(cudaMemset(d_out, 0, total_u));
        CUDA_OK(cudaMemset(d.b.statuses, 0xff, n * sizeof(int32_t)));
        dev_batch dc = d; /* the checking run: v14's phase clocks */
        dc.clk = v >= V_BIG_W8 ? d_clk : NULL;
        CUDA_OK(cudaMemset(d_clk, 0, n * OC_BIG_CLK * sizeof(unsigned long long)));
        launch(snappy, v, dc, s, 0);
        CUDA_OK(cudaStreamSynchronize(s));
        if (dc.clk) {
            CUDA_OK(cudaMemcpy(h_clk, d_clk, n * OC_BIG_CLK * sizeof(unsigned long long),
                               cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n; i++)
                for (int k = 0; k < OC_BIG_CLK; k++)
                    phase[v][k] += (double)h_clk[i * OC_BIG_CLK + k] / (double)n;
        }
        CUDA_OK(cudaMemcpy(out, d_out, total_u, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(st, d.b.statuses, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(got, d.b.dst_sizes, n * sizeof(size_t), cudaMemcpyDeviceToHost));
        size_t wrong = 0, first = 0;
        for (size_t i = 0; i < n; i++) {
            size_t j = i % nu;
            if (st[i] != OC_D_OK || got[i] != u_size[j] || memcmp(out + h_uoff[i], u_data[j], u_size[j]) != 0)
                if (wrong++ == 0)
                    first = i;
        }
        if (wrong) {
            fprintf(stderr,
                    "%zu KiB %s %s: %zu of %zu chunks wrong (first: chunk %zu, status %d, size %zu of %zu)\n",
                    chunk >> 10, alg, vname[v], wrong, n, first, st[first], got[first], u_size[first % nu]);
            bad = 1;
            rate[v] = 0;
            parse_share[v] = 0;
            continue;
        }
        launch(snappy, v, d, s, 0); /* warm-up */
        for (int r = 0; r < repeats; r++) {
            CUDA_OK(cudaEventRecord(t0, s));
            int mid = !v_whole(v); /* a parse end to time */
            launch(snappy, v, d, s, mid ? tm : (cudaEvent_t)0);
            CUDA_OK(cudaEventRecord(t1, s));
            CUDA_OK(cudaEventSynchronize(t1));
            CUDA_OK(cudaEventElapsedTime(&ms[r], t0, t1));
            pms[r] = 0;
            if (mid)
                CUDA_OK(cudaEventElapsedTime(&pms[r], t0, tm));
        }
        qsort(ms, (size_t)repeats, sizeof(float), cmp_float);
        qsort(pms, (size_t)repeats, sizeof(float), cmp_float);
        rate[v] = (float)total_u / (ms[repeats / 2] * 1e-3f) / 1e9f;
        parse_share[v] = pms[repeats / 2] / ms[repeats / 2];
    }
    for (int v = 0; v < V_COUNT; v++) {
        if (!v_runs(v, snappy) || (v_lib(v) && !d.ls.scratch))
            continue;
        printf("%5zu KiB %-6s %6zu chunks %6.2f GiB ratio %5.2f  %-12s %8.1f GB/s  %5.2fx library",
               chunk >> 10, alg, n, (double)total_u / (1 << 30), (double)total_u / (double)total_c, vname[v],
               rate[v], rate[V_LIB] > 0 ? rate[v] / rate[V_LIB] : 0.0);
        if (!v_whole(v))
            printf("  (parse %2.0f%%)", 100.0 * parse_share[v]);
        printf("\n");
        if (v >= V_BIG_W8) {
            const double *ph = phase[v];
            printf("%5zu KiB %-6s %-12s phases, k cycles a chunk: A %.0f B %.0f C %.0f D %.0f scan+literals "
                   "%.0f "
                   "rounds %.0f (%.1f rounds a tile, %.0f tiles)\n",
                   chunk >> 10, alg, vname[v], ph[0] / 1e3, ph[1] / 1e3, ph[2] / 1e3, ph[3] / 1e3,
                   ph[4] / 1e3, ph[5] / 1e3, ph[7] > 0 ? ph[6] / ph[7] : 0.0, ph[7]);
        }
    }
    fflush(stdout);

    /* damaged chunks: the split decoder's status must be the library decoder's */
    size_t nd = n < 2048 ? n : 2048;
    uint8_t *tmp = (uint8_t *)malloc(bound);
    for (size_t i = 0; i < nd; i++) {
        size_t j = i % nu;
        memcpy(tmp, comp + j * bound, c_size[j]);
        uint32_t h = (uint32_t)(i * 2654435761u);
        if (i % 3 == 0)
            h_srcn[i] = c_size[j] ? h % c_size[j] : 0; /* truncated */
        else if (c_size[j])
            tmp[h % c_size[j]] ^= (uint8_t)(1u + (h >> 24) % 255); /* one byte changed */
        if (i % 3 == 2)
            h_cap[i] = u_size[j] / 2; /* and a short output */
        CUDA_OK(cudaMemcpy((void *)h_src[i], tmp, c_size[j], cudaMemcpyHostToDevice));
    }
    CUDA_OK(cudaMemcpy((void *)d.b.src_sizes, h_srcn, nd * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)d.b.dst_caps, h_cap, nd * sizeof(size_t), cudaMemcpyHostToDevice));
    oc_cuda_batch small = d.b;
    small.n = nd;
    dev_batch ds = d;
    ds.b = small;
    int32_t *st_lib = (int32_t *)malloc(nd * sizeof(int32_t));
    size_t *got_lib = (size_t *)malloc(nd * sizeof(size_t));
    size_t mismatch = 0, failing = 0;
    for (int v = 0; v < V_COUNT; v++) {
        if (!v_runs(v, snappy) || (v_lib(v) && !d.ls.scratch))
            continue;
        launch(snappy, v, ds, s, 0);
        CUDA_OK(cudaStreamSynchronize(s));
        CUDA_OK(
            cudaMemcpy(v == V_LIB ? st_lib : st, d.b.statuses, nd * sizeof(int32_t), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(v == V_LIB ? got_lib : got, d.b.dst_sizes, nd * sizeof(size_t),
                           cudaMemcpyDeviceToHost));
        if (v == V_LIB) {
            for (size_t i = 0; i < nd; i++)
                failing += st_lib[i] != OC_D_OK;
            continue;
        }
        for (size_t i = 0; i < nd; i++)
            if (st[i] != st_lib[i] || got[i] != got_lib[i]) {
                if (mismatch++ < 5)
                    fprintf(stderr,
                            "%zu KiB %s %s damaged chunk %zu: status %d size %zu, library %d size %zu\n",
                            chunk >> 10, alg, vname[v], i, st[i], got[i], st_lib[i], got_lib[i]);
            }
    }
    printf("%5zu KiB %-6s damaged: %zu chunks (%zu fail in the library), statuses %s\n", chunk >> 10, alg, nd,
           failing, mismatch ? "DIFFER" : "equal in every split variant");
    if (mismatch)
        bad = 1;
    CUDA_OK(cudaFree(arrays));
    CUDA_OK(cudaFree(d_comp));
    CUDA_OK(cudaFree(d_out));
    CUDA_OK(cudaFree(d.recs));
    CUDA_OK(cudaFree(d.flags));
    CUDA_OK(cudaFree((void *)d.uoff));
    if (d.ls.scratch) {
        CUDA_OK(cudaFree(d.ls.scratch));
        CUDA_OK(cudaStreamDestroy(d.ls.side.stream));
        CUDA_OK(cudaEventDestroy(d.ls.side.fork));
        CUDA_OK(cudaEventDestroy(d.ls.side.join));
    }
    CUDA_OK(cudaFree(d.pp.recs));
    CUDA_OK(cudaFree(d.pp.pos));
    CUDA_OK(cudaFree(d.pp.cum));
    CUDA_OK(cudaFree(d.pp.segs));
    CUDA_OK(cudaFree(d.pp.chunks));
    CUDA_OK(cudaFree(d_clk));
    free(h_clk);
    CUDA_OK(cudaFree((void *)d.pp.seg_chunk));
    CUDA_OK(cudaFree((void *)d.pp.seg0));
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaEventDestroy(t0));
    CUDA_OK(cudaEventDestroy(t1));
    CUDA_OK(cudaEventDestroy(tm));
    free(u_data), free(u_size), free(c_size), free(comp), free(back), free(h_srcn), free(h_cap), free(h_base);
    free(h_uoff), free(h_src), free(h_dst), free(out), free(st), free(got), free(ms), free(pms), free(tmp);
    free(st_lib), free(got_lib);
    return bad;
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = (uint8_t *)malloc(len > 0 ? (size_t)len : 1);
    *n = p && len > 0 ? fread(p, 1, (size_t)len, f) : 0;
    fclose(f);
    return p;
}

int main(int argc, char **argv)
{
    size_t chunks[8] = {65536, 262144, 1048576, 4194304}, min_bytes = (size_t)1 << 30;
    int nchunks = 4, repeats = 5, algos = 3, nfiles = 0, bad = 0;
    corpus_file *files = (corpus_file *)calloc((size_t)argc, sizeof(corpus_file));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--chunks") && i + 1 < argc) {
            nchunks = 0;
            for (char *p = argv[++i]; *p && nchunks < 8; p++) {
                chunks[nchunks++] = strtoull(p, &p, 10);
                if (!*p)
                    break;
            }
        } else if (!strcmp(argv[i], "--min-bytes") && i + 1 < argc) {
            min_bytes = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--variants") && i + 1 < argc) {
            const char *list = argv[++i];
            for (int v = 1; v < V_COUNT; v++) { /* the library's decoder always runs: the reference */
                size_t k = strlen(vname[v]);
                const char *p = list;
                v_on[v] = 0;
                while ((p = strstr(p, vname[v])) != NULL) {
                    if ((p == list || p[-1] == ',') && (p[k] == ',' || p[k] == 0))
                        v_on[v] = 1;
                    p += k;
                }
            }
        } else if (!strcmp(argv[i], "--algo") && i + 1 < argc) {
            i++;
            algos = !strcmp(argv[i], "lz4") ? 1 : !strcmp(argv[i], "snappy") ? 2 : 3;
        } else {
            files[nfiles].name = argv[i];
            files[nfiles].data = read_file(argv[i], &files[nfiles].size);
            if (!files[nfiles].data || files[nfiles].size == 0) {
                fprintf(stderr, "%s: cannot read (or empty)\n", argv[i]);
                return 2;
            }
            nfiles++;
        }
    }
    if (nfiles == 0 || repeats < 1) {
        fprintf(stderr, "usage: lz_split [--algo lz4|snappy|both] [--chunks B,B,...] [--min-bytes N] "
                        "[--repeats N] [--variants NAME,NAME,...] FILE...\n");
        return 2;
    }
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    size_t corpus = 0;
    for (int f = 0; f < nfiles; f++)
        corpus += files[f].size;
    printf("lz_split: %s, %d SMs; corpus %d files, %zu bytes; >= %zu bytes per call, median of %d\n",
           prop.name, prop.multiProcessorCount, nfiles, corpus, min_bytes, repeats);
    for (int c = 0; c < nchunks; c++)
        for (int a = 0; a < 2; a++)
            if (algos & (1 << a)) {
                if (chunks[c] == 0 || chunks[c] >= ((size_t)1 << 31)) {
                    fprintf(stderr, "chunk size %zu: out of range\n", chunks[c]);
                    return 2;
                }
                bad |= run(files, nfiles, chunks[c], a, min_bytes, repeats);
            }
    printf("lz_split: %s\n", bad ? "FAILED (see above)" : "every output byte, size and status checked: OK");
    return bad;
}
