/*
 * ans_enc2_kernels.cuh - why this exists: the library's ANS encoder until
 * session 11 (two coding passes a tile: count each lane's words, then code
 * again writing them where the counts place them), kept as ans_dev's
 * `two-pass` base and for the dev encoders built on it (ans_in_kernels.cuh,
 * ans_norm_kernels.cuh, ans_one_kernels.cuh).  The library's encoder is
 * now the one-pass one (ans_k_encode in src/cuda/codecs/ans/ans_kernels.cu,
 * dev `one-99f`): bench/gpu/owncodecs/NOTES.md, session 11.  Included by
 * ans_dev.cu after the library's kernels.
 */

#define ANS2_CACHE_TILES 64u /* tiles whose lanes' word counts pass 1 keeps for pass 2 */

/* The core's ans2_encode_lane with the division by a reciprocal: the same
 * words, counts and stored state (test_cuda_ans compares the bytes).  The
 * lane's symbols are loaded a block of 4 steps ahead and their line 16
 * steps ahead is prefetched to L2, so a step does not wait for its
 * symbol's load: the lanes walk the chunk backwards 32 bytes a step, a new
 * line every 4 steps, and a chunk (64 KiB per CTA, ~10 CTAs an SM) is read
 * twice, from DRAM both times (ncu: 34% of the stalls on L1TEX). */
#define ANS2_EPF 4u /* symbols loaded a block of steps ahead */

/* One encoding step of a lane: symbol sym into state x, words below end. */
static __device__ __forceinline__ void ans2_encode_step(const ans2_esym *es, uint32_t pb, uint32_t sym,
                                                        uint64_t &x, uint32_t &nw, uint8_t *end)
{
    uint32_t fc = es[sym].fc, f = fc & 0x1fffu, sh = fc >> 25;
    if ((uint32_t)(x >> 32) >= f << (31u - pb)) { /* x >= f 2^(63-PB), whose low half is 0 */
        if (end)
            oc_store_le32(end - 4ull * (nw + 1), (uint32_t)x);
        nw++;
        x >>= 32;
    }
    uint64_t q = sh ? __umul64hi(x, es[sym].m) >> (sh - 1u) : x;
    x = (q << pb) + (x - q * f) + ((fc >> 13) & 0xfffu);
}

static __device__ __forceinline__ uint32_t ans2_encode_lane_gpu(const ans2_esym *es, uint32_t pb,
                                                                const uint8_t *data, uint32_t split,
                                                                uint64_t first, uint32_t cnt, uint32_t lane,
                                                                uint8_t *end, uint32_t *st)
{
    uint64_t x = ANS2_L;
    uint32_t nw = 0;
    if (lane < cnt) {
        /* the lane's symbols, last first: i = i0 - 32 j for j < ns */
        uint32_t ns = (cnt - 1u - lane) / ANS_LANES + 1u, stride = split ? 2u : 1u;
        const uint8_t *p0 =
            data + (split ? 2 * first + 1 : first) + (size_t)(lane + (ns - 1u) * ANS_LANES) * stride;
        size_t back = (size_t)ANS_LANES * stride;
        uint32_t w[ANS2_EPF];
#pragma unroll
        for (uint32_t j = 0; j < ANS2_EPF; j++)
            w[j] = j < ns ? (uint32_t)__ldg(p0 - j * back) : 0u;
        for (uint32_t j0 = 0; j0 < ns; j0 += ANS2_EPF) {
            uint32_t nx[ANS2_EPF];
#pragma unroll
            for (uint32_t j = 0; j < ANS2_EPF; j++)
                nx[j] = j0 + ANS2_EPF + j < ns ? (uint32_t)__ldg(p0 - (j0 + ANS2_EPF + j) * back) : 0u;
            if (j0 + ANS2_EPF_L2 < ns) /* the line of the symbols 16 steps on, into L2 */
                asm volatile("prefetch.global.L2 [%0];" ::"l"(p0 - (j0 + ANS2_EPF_L2) * back));
#pragma unroll
            for (uint32_t j = 0; j < ANS2_EPF; j++)
                if (j0 + j < ns)
                    ans2_encode_step(es, pb, w[j], x, nw, end);
#pragma unroll
            for (uint32_t j = 0; j < ANS2_EPF; j++)
                w[j] = nx[j];
        }
    }
    if (x >> 32) {
        if (end)
            oc_store_le32(end - 4ull * (nw + 1), (uint32_t)x);
        nw++;
        x >>= 32;
    }
    *st = (uint32_t)x;
    return nw;
}

/* The core's ans_normalize (the same table: the bytes must be the CPU's)
 * with its 256 64-bit divisions, f = max(1, count 2^PB / total), spread
 * over the CTA instead of thread 0's serial loop (ncu: the other 127
 * threads waited at the barrier after it, 13% of the encoder's stalls);
 * thread 0 then does the rest as the core does: the sum, the most frequent
 * symbol (the smallest on ties), the shortfall or excess, c. */
static __device__ void ans_normalize_gpu(const uint32_t *counts, uint64_t total, uint32_t pb, ans_table *t)
{
    for (uint32_t s = threadIdx.x; s < 256; s += ANS_THREADS) {
        uint32_t f = 0;
        if (counts[s]) {
            f = (uint32_t)(((uint64_t)counts[s] << pb) / total);
            f = f ? f : 1u;
        }
        t->f[s] = (uint16_t)f;
    }
    __syncthreads();
    if (threadIdx.x != 0)
        return;
    uint32_t m = 1u << pb, sum = 0, top = 0, nsym = 0;
    for (uint32_t s = 0; s < 256; s++) {
        if (counts[s]) {
            nsym++;
            if (counts[s] > counts[top])
                top = s;
        }
        sum += t->f[s];
    }
    if (sum < m)
        t->f[top] = (uint16_t)(t->f[top] + (m - sum));
    while (sum > m) {
        uint32_t big = 0;
        for (uint32_t s = 1; s < 256; s++)
            if (t->f[s] > t->f[big])
                big = s;
        uint32_t take = sum - m < t->f[big] - 1u ? sum - m : t->f[big] - 1u;
        t->f[big] = (uint16_t)(t->f[big] - take);
        sum -= take;
    }
    uint32_t cum = 0;
    for (uint32_t s = 0; s < 256; s++) {
        t->c[s] = (uint16_t)cum;
        cum += t->f[s];
    }
    t->pb = pb;
    t->nsym = nsym;
    t->bytes = 33u + (nsym * pb + 7u) / 8u;
}

/* A CTA of 4 warps per chunk (a persistent grid over chunks): histogram in
 * shared memory, the core's normalisation on one thread, the symbols'
 * reciprocals; pass 1: each warp encodes tiles with a lane per state,
 * counting words (kept for the first 64 tiles); the coded size decides
 * coding or storing, exactly as the CPU codec; the tile table (a warp
 * scan of the tile sizes); pass 2: each lane encodes its state again and
 * writes its words down from where its run ends (a warp scan of the
 * counts), the stored states and counts beside them. */
static __global__ void __launch_bounds__(ANS_THREADS)
    ans_k_encode_two(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                     const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype)
{
    __shared__ uint32_t counts[256];
    __shared__ ans_table t;
    __shared__ ans2_esym es[256];
    __shared__ uint16_t kcache[ANS2_CACHE_TILES][ANS_LANES];
    __shared__ unsigned long long coded_words;
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t w = own_type_width(dtype);
    for (size_t ci = blockIdx.x; ci < n; ci += gridDim.x) {
        const uint8_t *p = (const uint8_t *)src[ci];
        uint64_t len = src_sizes[ci];
        uint8_t *d = (uint8_t *)dst[ci];
        uint64_t cap = caps[ci];
        oc_status st = OC_OK;
        if ((p == NULL && len) || (d == NULL && cap))
            st = OC_ERR_INVALID_ARGUMENT;
        else if (w == 0 || w > 2)
            st = OC_ERR_INVALID_ARGUMENT;
        else if (len > OWN_MAX_CHUNK)
            st = OC_ERR_CHUNK_TOO_LARGE;
        ans_shape sh;
        ans_shape_of(len, w ? w : 1u, &sh);
        uint64_t total = 0;
        if (st == OC_OK) {
            for (uint32_t s = threadIdx.x; s < 256; s += ANS_THREADS)
                counts[s] = 0;
            if (threadIdx.x == 0)
                coded_words = 0;
            __syncthreads();
            /* the histogram: ANS_HIST_AHEAD symbols a thread loaded at once (one DRAM round
             * trip for them: ncu found the loop waiting on each byte's load), then lanes
             * with the same symbol add once (few distinct exponent bytes) */
            for (uint64_t j0 = 0; j0 < sh.nsym; j0 += ANS_THREADS * ANS_HIST_AHEAD) { /* CTA-uniform */
                uint32_t sy[ANS_HIST_AHEAD];
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++) {
                    uint64_t j = j0 + (uint64_t)u * ANS_THREADS + threadIdx.x;
                    sy[u] = j < sh.nsym ? ans_sym(p, sh.split, j) : 256u;
                }
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++) {
                    uint32_t peers = __match_any_sync(OWN_FULL, sy[u]);
                    if (sy[u] < 256u && (int)lane == __ffs((int)peers) - 1)
                        atomicAdd(&counts[sy[u]], (uint32_t)__popc(peers));
                }
            }
            __syncthreads();
            if (sh.nsym)
                ans_normalize_gpu(counts, sh.nsym, ANS_PB, &t);
            __syncthreads();
            if (sh.nsym)
                for (uint32_t s = threadIdx.x; s < 256; s += ANS_THREADS)
                    ans2_esym_make(t.f[s] ? t.f[s] : 1u, t.c[s], &es[s]);
            __syncthreads();
            uint32_t pb = t.pb;
            /* pass 1: every tile's words */
            if (sh.nsym) {
                for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                    uint64_t first = (uint64_t)tile * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                    uint32_t kw = ans2_encode_lane_gpu(es, pb, p, sh.split, first, cnt, lane, NULL, &x);
                    if (tile < ANS2_CACHE_TILES)
                        kcache[tile][lane] = (uint16_t)kw;
                    uint32_t sum = own_warp_sum32(kw);
                    if (lane == 0)
                        atomicAdd(&coded_words, (unsigned long long)sum);
                }
            }
            __syncthreads();
            uint64_t head = OWN_HEADER_SIZE + 1u + t.bytes;
            head += (4u - head % 4u) % 4u;
            uint64_t coded =
                sh.nsym ? head + 4ull * sh.ntiles + ANS2_TILE_HEAD * (uint64_t)sh.ntiles + 4ull * coded_words
                        : ~0ull;
            uint64_t stored = OWN_HEADER_SIZE + 1u + sh.nsym;
            uint32_t mode = coded < stored;
            total = (mode ? coded : stored) + sh.lo + sh.tail;
            if (total > cap) {
                st = OC_ERR_OUTPUT_TOO_SMALL;
            } else {
                uint64_t pos = OWN_HEADER_SIZE + 1u;
                if (threadIdx.x == 0) {
                    own_header_write_v(d, OWN_ID_ANS, ANS_VERSION, dtype, 0, (uint32_t)len);
                    d[OWN_HEADER_SIZE] = (uint8_t)mode;
                    if (mode) {
                        uint64_t at = pos + ans_table_write(&t, d + pos);
                        while (at < head)
                            d[at++] = 0;
                    }
                }
                if (mode) {
                    uint64_t tab = head, base = tab + 4ull * sh.ntiles;
                    /* tile sizes into the tile table (recounted past the cache), then end offsets */
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        uint32_t kw =
                            tile < ANS2_CACHE_TILES
                                ? kcache[tile][lane]
                                : ans2_encode_lane_gpu(es, pb, p, sh.split, first, cnt, lane, NULL, &x);
                        uint32_t sum = own_warp_sum32(kw);
                        if (lane == 0)
                            oc_store_le32(d + tab + 4ull * tile, ANS2_TILE_HEAD + 4u * sum);
                    }
                    __syncthreads();
                    if (warp == 0) {
                        uint32_t carry = 0;
                        for (uint32_t b0 = 0; b0 < sh.ntiles; b0 += 32) {
                            uint32_t tile = b0 + lane;
                            uint32_t size = tile < sh.ntiles ? oc_load_le32(d + tab + 4ull * tile) : 0u;
                            uint32_t incl = own_warp_incl_add32(size);
                            if (tile < sh.ntiles)
                                oc_store_le32(d + tab + 4ull * tile, carry + incl);
                            carry += own_warp_last32(incl);
                            __syncwarp();
                        }
                    }
                    __syncthreads();
                    /* pass 2: the tiles at their places */
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        uint32_t kw =
                            tile < ANS2_CACHE_TILES
                                ? kcache[tile][lane]
                                : ans2_encode_lane_gpu(es, pb, p, sh.split, first, cnt, lane, NULL, &x);
                        uint32_t incl = own_warp_incl_add32(kw);
                        uint8_t *at = d + base + (tile ? oc_load_le32(d + tab + 4ull * (tile - 1)) : 0u);
                        ans2_encode_lane_gpu(es, pb, p, sh.split, first, cnt, lane,
                                             at + ANS2_TILE_HEAD + 4ull * incl, &x);
                        oc_store_le32(at + 4 * lane, x);
                        at[4 * ANS_LANES + 2 * lane] = (uint8_t)kw;
                        at[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(kw >> 8);
                    }
                    pos = base + ANS2_TILE_HEAD * (uint64_t)sh.ntiles + 4ull * coded_words;
                } else {
                    for (uint64_t j = threadIdx.x; j < sh.nsym; j += ANS_THREADS)
                        d[pos + j] = (uint8_t)ans_sym(p, sh.split, j);
                    pos += sh.nsym;
                }
                for (uint64_t j = threadIdx.x; j < sh.lo; j += ANS_THREADS)
                    d[pos + j] = p[2 * j];
                if (sh.tail && threadIdx.x == 0)
                    d[pos + sh.lo] = p[len - 1];
            }
        }
        if (threadIdx.x == 0) {
            if (dst_sizes)
                dst_sizes[ci] = st == OC_OK ? (size_t)total : 0;
            if (statuses)
                statuses[ci] = st;
        }
        __syncthreads();
    }
}
