/*
 * ans_norm_kernels.cuh - why this exists: ncu of the library's ANS encoder
 * (session 9, text, H200) put 14.9% of its stall samples on one barrier
 * line, most likely the one where 127 threads wait for thread 0's serial
 * part of the normalisation (three loops over the 256 symbols, each a
 * dependent shared load: the sum and the most frequent symbol, the excess
 * loop's argmax, the cumulative frequencies).  ans_k_encode_nw is the
 * library's encoder with that part done by warp 0's 32 lanes, 8 symbols a
 * lane (sums and argmaxes by warp reductions, c by a warp scan): the same
 * table, so the same bytes (ans_dev's `norm-warp` compares them).
 * `norm-warp-hist` also counts 1-byte data's histogram without match_any
 * (per-warp counters, shared atomics), the next item of the same notes.
 * Included by ans_dev.cu after the library's kernels.  Prediction and
 * outcome: bench/gpu/owncodecs/NOTES.md.  Since session 11 the library's
 * encoder uses ans_normalize_warp (moved there from here) and this file's
 * kernel is built on the encoder before (ans_enc2_kernels.cuh).
 */

/* ans_k_encode with ans_normalize_warp instead of ans_normalize_gpu; WH
 * (`norm-warp-hist`): the histogram of 1-byte data without match_any, each
 * warp counting into its own 256 counters by shared atomics and the four
 * summed after (16-bit data keeps match_any: its few exponent bytes would
 * make most lanes' atomics collide). */
template <bool WH>
static __global__ void __launch_bounds__(ANS_THREADS)
    ans_k_encode_nw(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                    const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype)
{
    __shared__ uint32_t wcounts[WH ? ANS_WARPS : 1u][256];
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
            if (WH)
                for (uint32_t s = threadIdx.x; s < ANS_WARPS * 256u; s += ANS_THREADS)
                    wcounts[s / 256u][s % 256u] = 0;
            if (threadIdx.x == 0)
                coded_words = 0;
            __syncthreads();
            const bool wh = WH && !sh.split;
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
                if (wh) {
#pragma unroll
                    for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++)
                        if (sy[u] < 256u)
                            atomicAdd(&wcounts[WH ? warp : 0u][sy[u] & 255u], 1u);
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
                    for (uint32_t w2 = 0; w2 < (WH ? ANS_WARPS : 1u); w2++)
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
