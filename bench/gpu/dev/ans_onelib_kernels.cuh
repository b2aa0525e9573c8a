/*
 * ans_onelib_kernels.cuh - why this exists: the one-pass encoder exactly as
 * it would move into the library (src/cuda/codecs/ans/ans_kernels.cu's
 * ans_k_encode) if call B measures a win: one-99f (ans_one_kernels.cuh)
 * plus the library's duties the dev kernel skips: chunks of more tiles
 * than warps coded in two passes with their lanes' counts kept in the
 * stages (1 MiB chunks: 64 tiles), a faster direct-to-global lane for those
 * and for overflowing tiles, no dev counters.  ans_dev's `one-lib`; with
 * --chunk (1 MiB, or an odd size: unaligned chunks and outputs) it must
 * write the library's bytes too.  Names prefixed ol_ / OL_ beside the
 * library's.  Included by ans_dev.cu after ans_norm_kernels.cuh.
 */

#define OL_HIST_VEC 4u /* the histogram's 16-byte loads a thread has in flight */
#define OL_ESTAGE 99u  /* words a lane's stage holds (odd: lanes' m-th words in 32 banks) */
#define OL_ENC_SMEM (ANS_WARPS * ANS_LANES * OL_ESTAGE * 4u) /* the encoder's stages, dynamic */
#define OL_ECACHE (OL_ENC_SMEM / (2u * ANS_LANES)) /* tiles whose lanes' counts a long chunk keeps there */

/* A symbol's 16-byte step entry: the reciprocal m (x, y), the
 * renormalisation bound f 2^(31-PB) on the state's high half (z), and
 * w = bias | (2^PB - f) << 13 | s << 26, for
 *   q = mulhi64(x, m) >> s,  x' = x + bias + q (2^PB - f),
 * which is the core's (x / f) 2^PB + x % f + c exactly: for f >= 2, m and
 * s = sh - 1 as ans2_esym's and bias = c; for f = 1, m = 2^64 - 1 and
 * s = 0 give q = x - 1 (x > 0) and bias = c + 2^PB - 1 makes x' = x 2^PB + c
 * (so no branch on f = 1). */
static __device__ void ol_fentry(uint32_t f, uint32_t c, uint32_t pb, uint4 *e)
{
    ans2_esym es;
    ans2_esym_make(f, c, &es);
    uint32_t sh = es.fc >> 25;
    unsigned long long m = f > 1 ? es.m : ~0ull;
    uint32_t s = f > 1 ? sh - 1u : 0u, bias = f > 1 ? c : c + (1u << pb) - 1u;
    *e = make_uint4((uint32_t)m, (uint32_t)(m >> 32), f << (31u - pb),
                    bias | (((1u << pb) - f) << 13) | (s << 26));
}

/* One encoding step of a lane: entry e into state x, a word emitted to
 * the lane's stage (shared address sb) at index min(nw, OL_ESTAGE - 1):
 * a tile with a lane past its stage is coded again, so a clamped slot is
 * never read. */
static __device__ __forceinline__ void ol_fstep(uint4 e, uint64_t &x, uint32_t &nw, uint32_t sb)
{
    uint32_t xh = (uint32_t)(x >> 32);
    bool r = xh >= e.z;
    if (r)
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(sb + 4u * min(nw, OL_ESTAGE - 1u)), "r"((uint32_t)x));
    nw += r ? 1u : 0u;
    x = r ? (uint64_t)xh : x;
    uint64_t q = __umul64hi(x, ((uint64_t)e.y << 32) | e.x) >> (e.w >> 26);
    x = x + (e.w & 0x1fffu) + q * (uint64_t)((e.w >> 13) & 0x1fffu);
}

/* The core's ans2_encode_lane for lane `lane` of a tile of cnt symbols
 * (SPLIT: 16-bit data's high bytes), its words staged: the m-th word
 * emitted to stage[m] (stage: shared memory); returns the count (all
 * words, staged or not) and the stored state in *st.  The symbols are
 * loaded a block of 4 steps ahead at immediate offsets, the blocks run
 * unguarded while the next block is in the tile, and the line 16 steps on
 * is prefetched to L2. */
template <bool SPLIT>
static __device__ __forceinline__ uint32_t ol_flane(const uint4 *fe, const uint8_t *data, uint64_t first,
                                                    uint32_t cnt, uint32_t lane, uint32_t *stage,
                                                    uint32_t *st)
{
    constexpr uint32_t BK = ANS_LANES * (SPLIT ? 2u : 1u); /* bytes between a lane's symbols */
    uint32_t sb = (uint32_t)__cvta_generic_to_shared(stage);
    uint64_t x = ANS2_L;
    uint32_t nw = 0;
    if (lane < cnt) {
        uint32_t ns = (cnt - 1u - lane) / ANS_LANES + 1u; /* the lane's symbols, last first */
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
                ol_fstep(fe[w[j]], x, nw, sb);
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
                    ol_fstep(fe[w[j]], x, nw, sb);
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                w[j] = nx[j];
            p0 -= 4u * BK;
        }
    }
    if (x >> 32) { /* the stored state is 32 bits: its low half becomes the lane's first word */
        stage[min(nw, OL_ESTAGE - 1u)] = (uint32_t)x;
        nw++;
        x >>= 32;
    }
    *st = (uint32_t)x;
    return nw;
}

/* The same lane straight to global memory (end non-NULL: the m-th word to
 * end - 4 (m + 1), so the lane's words end at `end`) or only counted: a
 * tile whose stage overflowed, and the tiles of chunks of more tiles than
 * warps (two passes).  Symbols loaded a block of 4 steps ahead, their line
 * 16 steps ahead prefetched to L2. */
static __device__ uint32_t ol_glane(const uint4 *fe, const uint8_t *data, uint32_t split, uint64_t first,
                                    uint32_t cnt, uint32_t lane, uint8_t *end, uint32_t *st)
{
    uint64_t x = ANS2_L;
    uint32_t nw = 0;
    if (lane < cnt) {
        uint32_t ns = (cnt - 1u - lane) / ANS_LANES + 1u, stride = split ? 2u : 1u;
        const uint8_t *p0 =
            data + (split ? 2 * first + 1 : first) + (size_t)(lane + (ns - 1u) * ANS_LANES) * stride;
        size_t back = (size_t)ANS_LANES * stride;
        uint32_t w[4];
#pragma unroll
        for (uint32_t j = 0; j < 4; j++)
            w[j] = j < ns ? (uint32_t)__ldg(p0 - j * back) : 0u;
        for (uint32_t j0 = 0; j0 < ns; j0 += 4) {
            uint32_t nx[4];
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                nx[j] = j0 + 4u + j < ns ? (uint32_t)__ldg(p0 - (j0 + 4u + j) * back) : 0u;
            if (j0 + ANS2_EPF_L2 < ns)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(p0 - (j0 + ANS2_EPF_L2) * back));
#pragma unroll
            for (uint32_t j = 0; j < 4; j++) {
                if (j0 + j < ns) {
                    uint4 e = fe[w[j]];
                    uint32_t xh = (uint32_t)(x >> 32);
                    if (xh >= e.z) {
                        if (end)
                            oc_store_le32(end - 4ull * (nw + 1), (uint32_t)x);
                        nw++;
                        x = xh;
                    }
                    uint64_t q = __umul64hi(x, ((uint64_t)e.y << 32) | e.x) >> (e.w >> 26);
                    x = x + (e.w & 0x1fffu) + q * (uint64_t)((e.w >> 13) & 0x1fffu);
                }
            }
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
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

/* A u32 to out + 4 o: one store where `al` (out 4-aligned), else bytes. */
static __device__ __forceinline__ void ol_put32(uint8_t *out, uint32_t o, uint32_t v, bool al)
{
    if (al)
        reinterpret_cast<uint32_t *>(out)[o] = v;
    else
        oc_store_le32(out + 4ull * o, v);
}

/* A CTA of 4 warps per chunk (a persistent grid over chunks); see the
 * file's head.  The stages (dynamic shared memory, OL_ENC_SMEM) also hold
 * the histogram's per-warp counters before the coding, and a chunk of more
 * tiles than warps keeps its lanes' counts there between its passes. */
static __global__ void __launch_bounds__(ANS_THREADS)
    ans_k_encode_onelib(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                        const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype)
{
    extern __shared__ uint32_t ol_stages[]; /* ANS_WARPS x 32 lanes x OL_ESTAGE words */
    __shared__ uint32_t counts[256];
    __shared__ ans_table t;
    __shared__ uint4 fe[256];
    __shared__ uint32_t tw[ANS_WARPS], tov[ANS_WARPS];
    __shared__ unsigned long long coded_words;
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t w = own_type_width(dtype);
    uint32_t(*wcounts)[256] = reinterpret_cast<uint32_t(*)[256]>(ol_stages);
    uint32_t *stage = ol_stages + (size_t)warp * ANS_LANES * OL_ESTAGE;
    uint16_t *kcache = reinterpret_cast<uint16_t *>(ol_stages); /* a long chunk's counts */
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
            /* the histogram: bytes into each warp's counters by shared atomics, 16-bit data's
             * exponent bytes (few distinct) by match_any and one atomic a value; the chunk read
             * as 16-byte vectors, OL_HIST_VEC a thread at once (8 DRAM round trips for 64 KiB),
             * the rest (a tail under 16 bytes, or an unaligned chunk) by bytes */
            const bool wh = !sh.split;
            uint64_t n16 = ((uintptr_t)p & 15u) == 0 ? len / 16u : 0u;
            const uint4 *p4 = reinterpret_cast<const uint4 *>(p);
            for (uint64_t b0 = 0; b0 < n16; b0 += ANS_THREADS * OL_HIST_VEC) { /* CTA-uniform */
                uint4 v[OL_HIST_VEC];
#pragma unroll
                for (uint32_t u = 0; u < OL_HIST_VEC; u++) {
                    uint64_t i = b0 + (uint64_t)u * ANS_THREADS + threadIdx.x;
                    v[u] = i < n16 ? __ldg(p4 + i) : make_uint4(0, 0, 0, 0);
                }
#pragma unroll
                for (uint32_t u = 0; u < OL_HIST_VEC; u++) {
                    bool in = b0 + (uint64_t)u * ANS_THREADS + threadIdx.x < n16;
                    uint32_t wd[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
                    if (wh) {
                        if (in)
#pragma unroll
                            for (uint32_t k = 0; k < 16; k++)
                                atomicAdd(&wcounts[warp][(wd[k / 4] >> (8 * (k % 4))) & 255u], 1u);
                    } else {
#pragma unroll
                        for (uint32_t k = 0; k < 8; k++) { /* the high bytes: 1 and 3 of each word */
                            uint32_t sy = in ? (wd[k / 2] >> (8 * (2 * (k % 2) + 1))) & 255u : 256u;
                            uint32_t peers = __match_any_sync(OWN_FULL, sy);
                            if (sy < 256u && (int)lane == __ffs((int)peers) - 1)
                                atomicAdd(&counts[sy], (uint32_t)__popc(peers));
                        }
                    }
                }
            }
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
                for (uint32_t s = threadIdx.x; s < 256; s += ANS_THREADS)
                    ol_fentry(t.f[s] ? t.f[s] : 1u, t.c[s], ANS_PB, &fe[s]);
            __syncthreads();
            const bool one = sh.ntiles <= ANS_WARPS; /* CTA-uniform: the whole chunk in one pass */
            uint32_t kw = 0, xs = 0;
            if (sh.nsym && one) {
                if (warp < sh.ntiles) {
                    uint64_t first = (uint64_t)warp * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, warp);
                    kw = sh.split ? ol_flane<true>(fe, p, first, cnt, lane, stage + lane * OL_ESTAGE, &xs)
                                  : ol_flane<false>(fe, p, first, cnt, lane, stage + lane * OL_ESTAGE, &xs);
                    uint32_t sum = own_warp_sum32(kw);
                    uint32_t ov = __any_sync(OWN_FULL, kw > OL_ESTAGE);
                    if (lane == 0) {
                        tw[warp] = sum;
                        tov[warp] = ov;
                        atomicAdd(&coded_words, (unsigned long long)sum);
                    }
                }
            } else if (sh.nsym) { /* a long chunk: pass 1 counts, the counts kept in the stages */
                for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                    uint64_t first = (uint64_t)tile * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                    uint32_t k = ol_glane(fe, p, sh.split, first, cnt, lane, NULL, &x);
                    if (tile < OL_ECACHE)
                        kcache[tile * ANS_LANES + lane] = (uint16_t)k;
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
                uint64_t tab = head, base = tab + 4ull * sh.ntiles;
                if (mode && one) {
                    if (warp < sh.ntiles) {
                        uint32_t off = 0; /* the tile's place: the sizes of the tiles before it */
                        for (uint32_t k = 0; k < warp; k++)
                            off += ANS2_TILE_HEAD + 4u * tw[k];
                        if (lane == 0)
                            oc_store_le32(d + tab + 4ull * warp, off + ANS2_TILE_HEAD + 4u * tw[warp]);
                        uint8_t *at = d + base + off, *wo = at + ANS2_TILE_HEAD;
                        bool al = ((uintptr_t)at & 3u) == 0;
                        ol_put32(at, lane, xs, al);
                        at[4 * ANS_LANES + 2 * lane] = (uint8_t)kw;
                        at[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(kw >> 8);
                        uint32_t incl = own_warp_incl_add32(kw);
                        if (!tov[warp]) {
                            /* lane L's words, staged last first, to wo[excl_L ..) first first */
                            uint32_t excl = incl - kw;
                            for (uint32_t L = 0; L < ANS_LANES; L++) {
                                uint32_t nL = __shfl_sync(OWN_FULL, kw, L),
                                         eL = __shfl_sync(OWN_FULL, excl, L);
                                const uint32_t *sL = stage + L * OL_ESTAGE + nL - 1u;
                                for (uint32_t j = lane; j < nL; j += 32)
                                    ol_put32(wo, eL + j, *(sL - j), al);
                            }
                        } else { /* a lane past its stage: the tile again, straight to its place */
                            uint64_t first = (uint64_t)warp * ANS_TILE;
                            uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, warp), x;
                            ol_glane(fe, p, sh.split, first, cnt, lane, wo + 4ull * incl, &x);
                        }
                    }
                    pos = base + ANS2_TILE_HEAD * (uint64_t)sh.ntiles + 4ull * coded_words;
                } else if (mode) {
                    /* more tiles than warps: each tile counted (sizes into the tile table), the
                     * table's end offsets by a warp scan, each tile coded again to its place */
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        uint32_t k = tile < OL_ECACHE ? kcache[tile * ANS_LANES + lane]
                                                      : ol_glane(fe, p, sh.split, first, cnt, lane, NULL, &x);
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
                        uint32_t k = tile < OL_ECACHE ? kcache[tile * ANS_LANES + lane]
                                                      : ol_glane(fe, p, sh.split, first, cnt, lane, NULL, &x);
                        uint32_t incl = own_warp_incl_add32(k);
                        uint8_t *at = d + base + (tile ? oc_load_le32(d + tab + 4ull * (tile - 1)) : 0u);
                        ol_glane(fe, p, sh.split, first, cnt, lane, at + ANS2_TILE_HEAD + 4ull * incl, &x);
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
                        reinterpret_cast<uint32_t *>(d + pos)[j] = __byte_perm(v.x, v.y, 0x6420);
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
