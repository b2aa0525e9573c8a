/*
 * ans_one_kernels.cuh - why this exists: the library's ANS encoder runs
 * at ~0.15x nVCOMP (H200) and codes every tile twice: pass 1 counts the
 * words each lane emits, pass 2 encodes again to write them where the
 * counts place them (v2 format: a lane's words end where the next lane's
 * begin, and an encoder emits them last first).  Here each tile is coded
 * ONCE: a lane stages its words in a per-lane stage (shared memory, or a
 * global slab per CTA), then after one barrier the CTA knows every tile's
 * size, writes the header, the tile table and the heads, and each warp
 * copies its lanes' staged words to their places (a warp scan of the
 * counts; stored reversed, read backwards, written coalesced).
 *
 * ans_k_encode_one<S, G>: the library's encoder with norm-warp-hist's
 * histogram and normalisation (ans_norm_kernels.cuh), chunks of at most
 * ANS_WARPS tiles (64 KiB of |u1 or <f2: all of them) coded in one pass,
 * a warp a tile, a lane's stage S words (S odd: lanes emitting their m-th
 * word at once hit different banks).  A lane that emits more than S words
 * (a tile coding above ~S/16 bits a symbol) keeps counting; its tile is
 * then coded again straight into the output at the place now known (the
 * library's pass 2).  G: the stage is a global slab per CTA of S = 513
 * words a lane (never overflows; 9 CTAs an SM instead of 3-6).  Chunks of
 * more tiles take the library's two passes.  The bytes are the library's
 * (ans_dev compares them).  Included by ans_dev.cu after
 * ans_norm_kernels.cuh.  Prediction and outcome: bench/gpu/owncodecs/NOTES.md,
 * "Session 11: ANS compress in one coding pass".
 */

__device__ uint32_t *ans_one_gstage;             /* G: the slabs, gridDim.x x ANS_WARPS x 32 x S words */
__device__ unsigned long long ans_one_overflows; /* tiles coded twice because a lane's stage overflowed */

/* ans2_encode_lane_gpu with the words staged: the m-th word emitted goes
 * to stage[m] while m < S; returns the count (all words, staged or not). */
template <uint32_t S>
static __device__ __forceinline__ uint32_t ans_one_lane(const ans2_esym *es, uint32_t pb, const uint8_t *data,
                                                        uint32_t split, uint64_t first, uint32_t cnt,
                                                        uint32_t lane, uint32_t *stage, uint32_t *st)
{
    uint64_t x = ANS2_L;
    uint32_t nw = 0;
    if (lane < cnt) {
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
            if (j0 + ANS2_EPF_L2 < ns)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(p0 - (j0 + ANS2_EPF_L2) * back));
#pragma unroll
            for (uint32_t j = 0; j < ANS2_EPF; j++) {
                if (j0 + j < ns) {
                    uint32_t sym = w[j], fc = es[sym].fc, f = fc & 0x1fffu, sh = fc >> 25;
                    if ((uint32_t)(x >> 32) >= f << (31u - pb)) {
                        if (nw < S)
                            stage[nw] = (uint32_t)x;
                        nw++;
                        x >>= 32;
                    }
                    uint64_t q = sh ? __umul64hi(x, es[sym].m) >> (sh - 1u) : x;
                    x = (q << pb) + (x - q * f) + ((fc >> 13) & 0xfffu);
                }
            }
#pragma unroll
            for (uint32_t j = 0; j < ANS2_EPF; j++)
                w[j] = nx[j];
        }
    }
    if (x >> 32) {
        if (nw < S)
            stage[nw] = (uint32_t)x;
        nw++;
        x >>= 32;
    }
    *st = (uint32_t)x;
    return nw;
}

/* The fast step's symbol entry (one 16-byte shared load): the reciprocal
 * m (x, y), the renormalisation bound f 2^(31-PB) on the state's high
 * half (z), and w = bias | (2^PB - f) << 13 | s << 26, for
 *   q = mulhi64(x, m) >> s,  x' = x + bias + q (2^PB - f)
 * which is (x / f) 2^PB + x % f + c exactly: for f >= 2, m and s = sh - 1
 * as ans2_esym's and bias = c; for f = 1, m = 2^64 - 1 and s = 0 give
 * q = x - 1 (x > 0), and bias = c + 2^PB - 1 makes x' = x 2^PB + c (the
 * rANS form of ryg's rans64 encoder, here with our reciprocals). */
static __device__ void ans_one_fentry(uint32_t f, uint32_t c, uint32_t pb, uint4 *e)
{
    ans2_esym es;
    ans2_esym_make(f, c, &es);
    uint32_t sh = es.fc >> 25;
    unsigned long long m = f > 1 ? es.m : ~0ull;
    uint32_t s = f > 1 ? sh - 1u : 0u, bias = f > 1 ? c : c + (1u << pb) - 1u;
    *e = make_uint4((uint32_t)m, (uint32_t)(m >> 32), f << (31u - pb),
                    bias | (((1u << pb) - f) << 13) | (s << 26));
}

/* One fast step: symbol entry e into x; a word emitted goes to the lane's
 * stage at index min(nw, S - 1) (a tile whose lane overflows is coded
 * again, so a clamped slot is never read).  SH: the stage is in shared
 * memory at shared address sb (one STS, no generic-to-shared conversion
 * a word; the copy-out reads it after a barrier). */
template <uint32_t S, bool SH>
static __device__ __forceinline__ void ans_one_fstep(uint4 e, uint64_t &x, uint32_t &nw, uint32_t *stage,
                                                     uint32_t sb)
{
    uint32_t xh = (uint32_t)(x >> 32);
    bool r = xh >= e.z;
    if (r) {
        uint32_t k = min(nw, S - 1u);
        if (SH)
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(sb + 4u * k), "r"((uint32_t)x));
        else
            stage[k] = (uint32_t)x;
    }
    nw += r ? 1u : 0u;
    x = r ? (uint64_t)xh : x;
    uint64_t q = __umul64hi(x, ((uint64_t)e.y << 32) | e.x) >> (e.w >> 26);
    x = x + (e.w & 0x1fffu) + q * (uint64_t)((e.w >> 13) & 0x1fffu);
}

/* ans_one_lane with the fast step, the symbol stride a constant (SPLIT:
 * <f2's high bytes) and the blocks of 4 steps unguarded while the next
 * block's symbols are in the tile (loads at immediate offsets). */
template <uint32_t S, bool SPLIT, bool SH>
static __device__ __forceinline__ uint32_t ans_one_flane(const uint4 *fe, uint32_t pb, const uint8_t *data,
                                                         uint64_t first, uint32_t cnt, uint32_t lane,
                                                         uint32_t *stage, uint32_t *st)
{
    constexpr uint32_t BK = ANS_LANES * (SPLIT ? 2u : 1u); /* bytes between a lane's symbols */
    uint32_t sb = SH ? (uint32_t)__cvta_generic_to_shared(stage) : 0u;
    (void)pb;
    uint64_t x = ANS2_L;
    uint32_t nw = 0;
    if (lane < cnt) {
        uint32_t ns = (cnt - 1u - lane) / ANS_LANES + 1u;
        const uint8_t *p0 =
            data + (SPLIT ? 2 * first + 1 : first) + (size_t)(lane + (ns - 1u) * ANS_LANES) * (BK / 32u);
        uint32_t w[4];
#pragma unroll
        for (uint32_t j = 0; j < 4; j++)
            w[j] = j < ns ? (uint32_t)__ldg(p0 - j * BK) : 0u;
        uint32_t j0 = 0;
        for (; j0 + 8u <= ns; j0 += 4) { /* the next block in the tile: no guards */
            uint32_t nx[4];
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                nx[j] = (uint32_t)__ldg(p0 - (4u + j) * BK);
            if (j0 + ANS2_EPF_L2 < ns)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(p0 - ANS2_EPF_L2 * BK));
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                ans_one_fstep<S, SH>(fe[w[j]], x, nw, stage, sb);
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                w[j] = nx[j];
            p0 -= 4u * BK;
        }
        for (; j0 < ns; j0 += 4) { /* the last block or two */
            uint32_t nx[4];
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                nx[j] = j0 + 4u + j < ns ? (uint32_t)__ldg(p0 - (4u + j) * BK) : 0u;
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                if (j0 + j < ns)
                    ans_one_fstep<S, SH>(fe[w[j]], x, nw, stage, sb);
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                w[j] = nx[j];
            p0 -= 4u * BK;
        }
    }
    if (x >> 32) {
        stage[min(nw, S - 1u)] = (uint32_t)x;
        nw++;
        x >>= 32;
    }
    *st = (uint32_t)x;
    return nw;
}

/* The fast step's lane written straight to global memory (end non-NULL:
 * the m-th word to end - 4 (m + 1), as ans2_encode_lane_gpu) or counted:
 * a tile whose stage overflowed, and chunks of more tiles than warps. */
static __device__ uint32_t ans_one_glane(const uint4 *fe, const uint8_t *data, uint32_t split, uint64_t first,
                                         uint32_t cnt, uint32_t lane, uint8_t *end, uint32_t *st)
{
    uint64_t x = ANS2_L;
    uint32_t nw = 0;
    if (lane < cnt) {
        for (uint32_t i = lane + (cnt - 1 - lane) / ANS_LANES * ANS_LANES;; i -= ANS_LANES) {
            uint4 e = fe[ans_sym(data, split, first + i)];
            uint32_t xh = (uint32_t)(x >> 32);
            if (xh >= e.z) {
                if (end)
                    oc_store_le32(end - 4ull * (nw + 1), (uint32_t)x);
                nw++;
                x = xh;
            }
            uint64_t q = __umul64hi(x, ((uint64_t)e.y << 32) | e.x) >> (e.w >> 26);
            x = x + (e.w & 0x1fffu) + q * (uint64_t)((e.w >> 13) & 0x1fffu);
            if (i < ANS_LANES)
                break;
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

/* A lane coded straight to global memory (or counted) by the kernel's step. */
template <bool F>
static __device__ __forceinline__ uint32_t ans_one_relane(const ans2_esym *es, const uint4 *fe, uint32_t pb,
                                                          const uint8_t *data, uint32_t split, uint64_t first,
                                                          uint32_t cnt, uint32_t lane, uint8_t *end,
                                                          uint32_t *st)
{
    return F ? ans_one_glane(fe, data, split, first, cnt, lane, end, st)
             : ans2_encode_lane_gpu(es, pb, data, split, first, cnt, lane, end, st);
}

/* A u32 to out + 4 o: one store where `al` (the output 4-aligned). */
static __device__ __forceinline__ void ans_one_put(uint8_t *out, uint32_t o, uint32_t v, bool al)
{
    if (al)
        reinterpret_cast<uint32_t *>(out)[o] = v;
    else
        oc_store_le32(out + 4ull * o, v);
}

#define ANS_ONE_HV 4u /* V: 16-byte vectors a thread loads at once for the histogram */

template <uint32_t S, bool G, bool F, bool V>
static __global__ void __launch_bounds__(ANS_THREADS)
    ans_k_encode_one(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                     const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype)
{
    extern __shared__ uint32_t ans_one_smem[]; /* !G: the stages, ANS_WARPS x 32 x S words */
    __shared__ uint32_t counts[256];
    __shared__ ans_table t;
    __shared__ ans2_esym es[F ? 1u : 256u];
    __shared__ uint4 fe[F ? 256u : 1u];
    __shared__ uint32_t tw[ANS_WARPS], tov[ANS_WARPS];
    __shared__ unsigned long long coded_words;
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t w = own_type_width(dtype);
    /* the histogram's per-warp counters: in the stages' memory (used before the coding), or
     * (G) their own */
    __shared__ uint32_t wcounts_g[G ? ANS_WARPS : 1u][G ? 256u : 1u];
    uint32_t(*wcounts)[256] = G ? reinterpret_cast<uint32_t(*)[256]>(&wcounts_g[0][0])
                                : reinterpret_cast<uint32_t(*)[256]>(ans_one_smem);
    uint32_t *stage = (G ? ans_one_gstage + (size_t)blockIdx.x * ANS_WARPS * 32u * S : ans_one_smem) +
                      (size_t)warp * 32u * S;
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
            for (uint32_t s = threadIdx.x; s < ANS_WARPS * 256u; s += ANS_THREADS)
                wcounts[s / 256u][s % 256u] = 0;
            if (threadIdx.x == 0)
                coded_words = 0;
            __syncthreads();
            const bool wh = !sh.split;
            /* V: the chunk read as 16-byte vectors, ANS_ONE_HV a thread at once (8 DRAM round
             * trips for 64 KiB instead of 64 of byte loads), the rest (a tail under 16 bytes, or
             * an unaligned chunk) by bytes */
            uint64_t n16 = V && ((uintptr_t)p & 15u) == 0 ? len / 16u : 0u;
            if (V && n16) {
                const uint4 *p4 = reinterpret_cast<const uint4 *>(p);
                for (uint64_t b0 = 0; b0 < n16; b0 += ANS_THREADS * ANS_ONE_HV) { /* CTA-uniform */
                    uint4 v[ANS_ONE_HV];
#pragma unroll
                    for (uint32_t u = 0; u < ANS_ONE_HV; u++) {
                        uint64_t i = b0 + (uint64_t)u * ANS_THREADS + threadIdx.x;
                        v[u] = i < n16 ? __ldg(p4 + i) : make_uint4(0, 0, 0, 0);
                    }
#pragma unroll
                    for (uint32_t u = 0; u < ANS_ONE_HV; u++) {
                        bool in = b0 + (uint64_t)u * ANS_THREADS + threadIdx.x < n16;
                        uint32_t wd[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
                        if (wh) {
                            if (in)
#pragma unroll
                                for (uint32_t k = 0; k < 16; k++)
                                    atomicAdd(&wcounts[warp][(wd[k / 4] >> (8 * (k % 4))) & 255u], 1u);
                        } else {
#pragma unroll
                            for (uint32_t k = 0; k < 8; k++) { /* the high bytes: 1, 3 of each word */
                                uint32_t sy = in ? (wd[k / 2] >> (8 * (2 * (k % 2) + 1))) & 255u : 256u;
                                uint32_t peers = __match_any_sync(OWN_FULL, sy);
                                if (sy < 256u && (int)lane == __ffs((int)peers) - 1)
                                    atomicAdd(&counts[sy], (uint32_t)__popc(peers));
                            }
                        }
                    }
                }
            }
            /* the symbols after the vectors' (all of them when n16 is 0), by bytes */
            for (uint64_t j0 = (n16 * 16u) / (sh.split ? 2u : 1u); j0 < sh.nsym;
                 j0 += ANS_THREADS * ANS_HIST_AHEAD) { /* CTA-uniform */
                uint32_t sy[ANS_HIST_AHEAD];
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++) {
                    uint64_t j = j0 + (uint64_t)u * ANS_THREADS + threadIdx.x;
                    sy[u] = j < sh.nsym ? ans_sym(p, sh.split, j) : 256u;
                }
                if (wh) {
#pragma unroll
                    for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++)
                        if (sy[u] < 256u)
                            atomicAdd(&wcounts[warp][sy[u] & 255u], 1u);
                } else {
#pragma unroll
                    for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++) {
                        uint32_t peers = __match_any_sync(OWN_FULL, sy[u]);
                        if (sy[u] < 256u && (int)lane == __ffs((int)peers) - 1)
                            atomicAdd(&counts[sy[u]], (uint32_t)__popc(peers));
                    }
                }
            }
            __syncthreads();
            if (wh) {
                for (uint32_t s = threadIdx.x; s < 256; s += ANS_THREADS) {
                    uint32_t sum = 0;
#pragma unroll
                    for (uint32_t w2 = 0; w2 < ANS_WARPS; w2++)
                        sum += wcounts[w2][s];
                    counts[s] = sum;
                }
                __syncthreads();
            }
            if (sh.nsym)
                ans_normalize_warp(counts, sh.nsym, ANS_PB, &t);
            __syncthreads();
            if (sh.nsym)
                for (uint32_t s = threadIdx.x; s < 256; s += ANS_THREADS) {
                    if (F)
                        ans_one_fentry(t.f[s] ? t.f[s] : 1u, t.c[s], ANS_PB, &fe[F ? s : 0u]);
                    else
                        ans2_esym_make(t.f[s] ? t.f[s] : 1u, t.c[s], &es[F ? 0u : s]);
                }
            __syncthreads();
            uint32_t pb = t.pb;
            const bool one = sh.ntiles <= ANS_WARPS; /* CTA-uniform */
            uint32_t kw = 0, xs = 0;
            if (sh.nsym && one) {
                /* the one pass: a warp a tile, its lanes' words staged */
                if (warp < sh.ntiles) {
                    uint64_t first = (uint64_t)warp * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, warp);
                    if (!F)
                        kw = ans_one_lane<S>(es, pb, p, sh.split, first, cnt, lane, stage + lane * S, &xs);
                    else if (sh.split)
                        kw = ans_one_flane<S, true, !G>(fe, pb, p, first, cnt, lane, stage + lane * S, &xs);
                    else
                        kw = ans_one_flane<S, false, !G>(fe, pb, p, first, cnt, lane, stage + lane * S, &xs);
                    uint32_t sum = own_warp_sum32(kw);
                    uint32_t ov = __any_sync(OWN_FULL, kw > S);
                    if (lane == 0) {
                        tw[warp] = sum;
                        tov[warp] = ov;
                        atomicAdd(&coded_words, (unsigned long long)sum);
                        if (ov)
                            atomicAdd(&ans_one_overflows, 1ull);
                    }
                }
            } else if (sh.nsym) {
                for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                    uint64_t first = (uint64_t)tile * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                    uint32_t k = ans_one_relane<F>(es, fe, pb, p, sh.split, first, cnt, lane, NULL, &x);
                    uint32_t sum = own_warp_sum32(k);
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
                if (mode && one) {
                    uint64_t tab = head, base = tab + 4ull * sh.ntiles;
                    if (warp < sh.ntiles) {
                        uint32_t off = 0; /* the tile's place: the sizes of the tiles before it */
                        for (uint32_t k = 0; k < warp; k++)
                            off += ANS2_TILE_HEAD + 4u * tw[k];
                        uint32_t size = ANS2_TILE_HEAD + 4u * tw[warp];
                        if (lane == 0)
                            oc_store_le32(d + tab + 4ull * warp, off + size);
                        uint8_t *at = d + base + off;
                        bool al = ((uintptr_t)at & 3u) == 0;
                        ans_one_put(at, lane, xs, al);
                        at[4 * ANS_LANES + 2 * lane] = (uint8_t)kw;
                        at[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(kw >> 8);
                        uint32_t incl = own_warp_incl_add32(kw);
                        uint8_t *wo = at + ANS2_TILE_HEAD;
                        if (!tov[warp]) {
                            /* lane L's words, staged last first, to wo[excl_L ..) first first */
                            uint32_t excl = incl - kw;
                            for (uint32_t L = 0; L < 32; L++) {
                                uint32_t nL = __shfl_sync(OWN_FULL, kw, L),
                                         eL = __shfl_sync(OWN_FULL, excl, L);
                                const uint32_t *sL = stage + L * S + nL - 1u;
                                for (uint32_t j = lane; j < nL; j += 32)
                                    ans_one_put(wo, eL + j, *(sL - j), al);
                            }
                        } else {
                            uint64_t first = (uint64_t)warp * ANS_TILE;
                            uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, warp), x;
                            ans_one_relane<F>(es, fe, pb, p, sh.split, first, cnt, lane, wo + 4ull * incl,
                                              &x);
                        }
                    }
                    pos = base + ANS2_TILE_HEAD * (uint64_t)sh.ntiles + 4ull * coded_words;
                } else if (mode) {
                    /* more tiles than warps: the library's two passes (no count cache) */
                    uint64_t tab = head, base = tab + 4ull * sh.ntiles;
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        uint32_t k = ans_one_relane<F>(es, fe, pb, p, sh.split, first, cnt, lane, NULL, &x);
                        uint32_t sum = own_warp_sum32(k);
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
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        uint32_t k = ans_one_relane<F>(es, fe, pb, p, sh.split, first, cnt, lane, NULL, &x);
                        uint32_t incl = own_warp_incl_add32(k);
                        uint8_t *at = d + base + (tile ? oc_load_le32(d + tab + 4ull * (tile - 1)) : 0u);
                        ans_one_relane<F>(es, fe, pb, p, sh.split, first, cnt, lane,
                                          at + ANS2_TILE_HEAD + 4ull * incl, &x);
                        oc_store_le32(at + 4 * lane, x);
                        at[4 * ANS_LANES + 2 * lane] = (uint8_t)k;
                        at[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(k >> 8);
                    }
                    pos = base + ANS2_TILE_HEAD * (uint64_t)sh.ntiles + 4ull * coded_words;
                } else {
                    for (uint64_t j = threadIdx.x; j < sh.nsym; j += ANS_THREADS)
                        d[pos + j] = (uint8_t)ans_sym(p, sh.split, j);
                    pos += sh.nsym;
                }
                /* the stored low bytes: 4 a thread (8 bytes read, one u32 written) where aligned */
                if (sh.lo && (((uintptr_t)(d + pos) & 3u) | ((uintptr_t)p & 7u)) == 0) {
                    uint64_t n4 = sh.lo / 4u;
                    for (uint64_t j = threadIdx.x; j < n4; j += ANS_THREADS) {
                        uint2 v = __ldg(reinterpret_cast<const uint2 *>(p) + j);
                        uint32_t b = __byte_perm(v.x, v.y, 0x6420);
                        reinterpret_cast<uint32_t *>(d + pos)[j] = b;
                    }
                    for (uint64_t j = 4u * n4 + threadIdx.x; j < sh.lo; j += ANS_THREADS)
                        d[pos + j] = p[2 * j];
                } else {
                    for (uint64_t j = threadIdx.x; j < sh.lo; j += ANS_THREADS)
                        d[pos + j] = p[2 * j];
                }
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
