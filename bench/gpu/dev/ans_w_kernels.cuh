/*
 * ans_w_kernels.cuh - why this exists: a 64 KiB chunk of bf16 has 2 coding
 * tiles, so the library's encoder CTA of 4 warps (session 11, one pass a
 * tile, a warp a tile) codes with 2 of them while all 4 hold registers
 * and slots.  ans_k_encode_w<S, W> is the library's ans_k_encode with W
 * warps a CTA: W = 2 gives bf16 chunks CTAs of 2 warps that both code, 2
 * stages of S words a lane each (61 words: 15.6 KiB a CTA, ~9 CTAs an SM,
 * 18 coding warps instead of 6 CTAs' 12).  A chunk of more tiles than W
 * (text) takes the two-pass path.  ans_dev's `w2-61` (bf16; must write the
 * library's bytes).  Prediction and outcome: bench/gpu/owncodecs/NOTES.md.
 * Included by ans_dev.cu after the library's kernels.
 */

template <uint32_t NT>
static __device__ void ans_normalize_warp_w(const uint32_t *counts, uint64_t total, uint32_t pb, ans_table *t)
{
    for (uint32_t s = threadIdx.x; s < 256; s += NT) {
        uint32_t f = 0;
        if (counts[s]) {
            f = (uint32_t)(((uint64_t)counts[s] << pb) / total);
            f = f ? f : 1u;
        }
        t->f[s] = (uint16_t)f;
    }
    __syncthreads();
    if (threadIdx.x >= 32)
        return;
    uint32_t lane = threadIdx.x, s0 = 8u * lane, f[8], m = 1u << pb, sum = 0, nsym = 0;
    unsigned long long top = 0;
#pragma unroll
    for (uint32_t j = 0; j < 8; j++) {
        uint32_t cs = counts[s0 + j];
        f[j] = t->f[s0 + j];
        sum += f[j];
        nsym += cs != 0;
        unsigned long long key = ((unsigned long long)cs << 8) | (255u - (s0 + j));
        top = key > top ? key : top;
    }
    sum = own_warp_sum32(sum);
    nsym = own_warp_sum32(nsym);
    top = own_warp_max_u64(top);
    if (sum < m) {
        uint32_t ts = 255u - (uint32_t)(top & 255u);
        if (ts / 8u == lane)
#pragma unroll
            for (uint32_t j = 0; j < 8; j++)
                if (s0 + j == ts)
                    f[j] += m - sum;
    }
    while (sum > m) { /* warp-uniform */
        unsigned long long big = 0;
#pragma unroll
        for (uint32_t j = 0; j < 8; j++) {
            unsigned long long key = ((unsigned long long)f[j] << 8) | (255u - (s0 + j));
            big = key > big ? key : big;
        }
        big = own_warp_max_u64(big);
        uint32_t bs = 255u - (uint32_t)(big & 255u), bf = (uint32_t)(big >> 8);
        uint32_t take = sum - m < bf - 1u ? sum - m : bf - 1u;
        if (bs / 8u == lane)
#pragma unroll
            for (uint32_t j = 0; j < 8; j++)
                if (s0 + j == bs)
                    f[j] -= take;
        sum -= take;
    }
    uint32_t local = 0;
#pragma unroll
    for (uint32_t j = 0; j < 8; j++)
        local += f[j];
    uint32_t cum = own_warp_incl_add32(local) - local;
#pragma unroll
    for (uint32_t j = 0; j < 8; j++) {
        t->f[s0 + j] = (uint16_t)f[j];
        t->c[s0 + j] = (uint16_t)cum;
        cum += f[j];
    }
    if (lane == 0) {
        t->pb = pb;
        t->nsym = nsym;
        t->bytes = 33u + (nsym * pb + 7u) / 8u;
    }
}

template <uint32_t S, uint32_t W>
static __global__ void __launch_bounds__(32u * W)
    ans_k_encode_w(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                   const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype)
{
    extern __shared__ uint32_t answ_stages[]; /* W x 32 lanes x S words */
    __shared__ uint32_t counts[256];
    __shared__ ans_table t;
    __shared__ uint4 fe[256];
    __shared__ uint32_t tw[W], tov[W];
    __shared__ unsigned long long coded_words;
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t w = own_type_width(dtype);
    uint32_t(*wcounts)[256] = reinterpret_cast<uint32_t(*)[256]>(answ_stages);
    uint32_t *stage = answ_stages + (size_t)warp * ANS_LANES * S;
    uint16_t *kcache = reinterpret_cast<uint16_t *>(answ_stages); /* a long chunk's counts */
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
            for (uint32_t s = threadIdx.x; s < 256; s += (32u * W))
                counts[s] = 0;
            for (uint32_t s = threadIdx.x; s < W * 256u; s += (32u * W))
                wcounts[s / 256u][s % 256u] = 0;
            if (threadIdx.x == 0)
                coded_words = 0;
            __syncthreads();
            /* the histogram: bytes into each warp's counters by shared atomics, 16-bit data's
             * exponent bytes (few distinct) by match_any and one atomic a value; the chunk read
             * as 16-byte vectors, ANS_HIST_VEC a thread at once (8 DRAM round trips for 64 KiB),
             * the rest (a tail under 16 bytes, or an unaligned chunk) by bytes */
            const bool wh = !sh.split;
            uint64_t n16 = ((uintptr_t)p & 15u) == 0 ? len / 16u : 0u;
            const uint4 *p4 = reinterpret_cast<const uint4 *>(p);
            for (uint64_t b0 = 0; b0 < n16; b0 += (32u * W) * ANS_HIST_VEC) { /* CTA-uniform */
                uint4 v[ANS_HIST_VEC];
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_VEC; u++) {
                    uint64_t i = b0 + (uint64_t)u * (32u * W) + threadIdx.x;
                    v[u] = i < n16 ? __ldg(p4 + i) : make_uint4(0, 0, 0, 0);
                }
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_VEC; u++) {
                    bool in = b0 + (uint64_t)u * (32u * W) + threadIdx.x < n16;
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
                 j0 += (32u * W) * ANS_HIST_AHEAD) { /* CTA-uniform */
                uint32_t sy[ANS_HIST_AHEAD];
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++) {
                    uint64_t j = j0 + (uint64_t)u * (32u * W) + threadIdx.x;
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
                for (uint32_t s = threadIdx.x; s < 256; s += (32u * W)) {
                    uint32_t sum = 0;
#pragma unroll
                    for (uint32_t w2 = 0; w2 < W; w2++)
                        sum += wcounts[w2][s];
                    counts[s] = sum;
                }
                __syncthreads();
            }
            if (sh.nsym)
                ans_normalize_warp_w<32u * W>(counts, sh.nsym, ANS_PB, &t);
            __syncthreads();
            if (sh.nsym)
                for (uint32_t s = threadIdx.x; s < 256; s += (32u * W))
                    ans2_fentry(t.f[s] ? t.f[s] : 1u, t.c[s], ANS_PB, &fe[s]);
            __syncthreads();
            const bool one = sh.ntiles <= W; /* CTA-uniform: the whole chunk in one pass */
            uint32_t kw = 0, xs = 0;
            if (sh.nsym && one) {
                if (warp < sh.ntiles) {
                    uint64_t first = (uint64_t)warp * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, warp);
                    kw = sh.split ? ans2_flane<S, true>(fe, p, first, cnt, lane, stage + lane * S, &xs)
                                  : ans2_flane<S, false>(fe, p, first, cnt, lane, stage + lane * S, &xs);
                    uint32_t sum = own_warp_sum32(kw);
                    uint32_t ov = __any_sync(OWN_FULL, kw > S);
                    if (lane == 0) {
                        tw[warp] = sum;
                        tov[warp] = ov;
                        atomicAdd(&coded_words, (unsigned long long)sum);
                    }
                }
            } else if (sh.nsym) { /* a long chunk: pass 1 counts, the counts kept in the stages */
                for (uint32_t tile = warp; tile < sh.ntiles; tile += W) {
                    uint64_t first = (uint64_t)tile * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                    uint32_t k = ans2_glane(fe, p, sh.split, first, cnt, lane, NULL, &x);
                    if (tile < (W * S * 4u / 2u))
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
                        ans_put32(at, lane, xs, al);
                        at[4 * ANS_LANES + 2 * lane] = (uint8_t)kw;
                        at[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(kw >> 8);
                        uint32_t incl = own_warp_incl_add32(kw);
                        if (!tov[warp]) {
                            /* lane L's words, staged last first, to wo[excl_L ..) first first */
                            uint32_t excl = incl - kw;
                            for (uint32_t L = 0; L < ANS_LANES; L++) {
                                uint32_t nL = __shfl_sync(OWN_FULL, kw, L),
                                         eL = __shfl_sync(OWN_FULL, excl, L);
                                const uint32_t *sL = stage + L * S + nL - 1u;
                                for (uint32_t j = lane; j < nL; j += 32)
                                    ans_put32(wo, eL + j, *(sL - j), al);
                            }
                        } else { /* a lane past its stage: the tile again, straight to its place */
                            uint64_t first = (uint64_t)warp * ANS_TILE;
                            uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, warp), x;
                            ans2_glane(fe, p, sh.split, first, cnt, lane, wo + 4ull * incl, &x);
                        }
                    }
                    pos = base + ANS2_TILE_HEAD * (uint64_t)sh.ntiles + 4ull * coded_words;
                } else if (mode) {
                    /* more tiles than warps: each tile counted (sizes into the tile table), the
                     * table's end offsets by a warp scan, each tile coded again to its place */
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += W) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        uint32_t k = tile < (W * S * 4u / 2u)
                                         ? kcache[tile * ANS_LANES + lane]
                                         : ans2_glane(fe, p, sh.split, first, cnt, lane, NULL, &x);
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
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += W) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        uint32_t k = tile < (W * S * 4u / 2u)
                                         ? kcache[tile * ANS_LANES + lane]
                                         : ans2_glane(fe, p, sh.split, first, cnt, lane, NULL, &x);
                        uint32_t incl = own_warp_incl_add32(k);
                        uint8_t *at = d + base + (tile ? oc_load_le32(d + tab + 4ull * (tile - 1)) : 0u);
                        ans2_glane(fe, p, sh.split, first, cnt, lane, at + ANS2_TILE_HEAD + 4ull * incl, &x);
                        oc_store_le32(at + 4 * lane, x);
                        at[4 * ANS_LANES + 2 * lane] = (uint8_t)k;
                        at[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(k >> 8);
                    }
                    pos = base + ANS2_TILE_HEAD * (uint64_t)sh.ntiles + 4ull * coded_words;
                } else {
                    for (uint64_t j = threadIdx.x; j < sh.nsym; j += (32u * W))
                        d[pos + j] = (uint8_t)ans_sym(p, sh.split, j);
                    pos += sh.nsym;
                }
                /* the stored low bytes: 4 a thread (8 bytes read, one u32 written) where aligned */
                if (sh.lo && (((uintptr_t)(d + pos) & 3u) | ((uintptr_t)p & 7u)) == 0) {
                    uint64_t n4 = sh.lo / 4u;
                    for (uint64_t j = threadIdx.x; j < n4; j += (32u * W)) {
                        uint2 v = __ldg(reinterpret_cast<const uint2 *>(p) + j);
                        reinterpret_cast<uint32_t *>(d + pos)[j] = __byte_perm(v.x, v.y, 0x6420);
                    }
                    for (uint64_t j = 4u * n4 + threadIdx.x; j < sh.lo; j += (32u * W))
                        d[pos + j] = p[2 * j];
                } else {
                    for (uint64_t j = threadIdx.x; j < sh.lo; j += (32u * W))
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
