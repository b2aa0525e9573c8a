/*
 * ans_in_kernels.cuh - why this exists: the library's ANS encoder
 * (ans_k_encode) reads its chunk from global memory three times (the
 * histogram, pass 1 counting words, pass 2 writing them), a lane's
 * symbols one byte-load a step, 32 bytes a warp, so a warp waits on an L2
 * or DRAM round trip every 4 steps (ncu, session 6: 34% of the stalls on
 * L1TEX).  This variant, ans_k_encode_in, stages the chunk's symbols into
 * shared memory first (16-byte loads a thread issues together; for 16-bit
 * data only the high bytes, compacted), then runs the library's histogram,
 * normalisation and both passes on the copy: the same steps on the same
 * symbols, so the same bytes (ans_dev compares them).  A chunk of more
 * symbols than the launch's dynamic shared memory holds takes the
 * library's path from global memory.
 * Cost: the stage is the launch's dynamic shared memory: ans_dev gives
 * 64 KiB (staged-in: 3 CTAs an SM instead of 9) or 32 KiB (staged-in-32k:
 * a 64 KiB <f2 chunk's 32 Ki symbols fit, 5 CTAs).  Included by ans_dev.cu after the
 * library's kernels (it uses their step, normalisation and constants).
 * Outcome (session 9, H200): it loses, 0.61x the library on text and
 * 0.45x on bf16 (the same bytes): the library's encoder is not waiting on
 * its loads (ncu: long scoreboard 7% of its stalls) but on short
 * dependencies and a barrier, with 33 warps an SM, and the stage cut them
 * to 12; bench/gpu/owncodecs/NOTES.md has the prediction and the profile.
 */
/* The bytes of dynamic shared memory the launch gave (the stage's size:
 * a chunk of more symbols takes the library's path). */
static __device__ __forceinline__ uint32_t ans_in_bytes(void)
{
    uint32_t r;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
    return r;
}

/* The library's ans2_encode_lane_gpu on symbols in shared memory (compact:
 * symbol i at in[i]), 4 steps' symbols loaded a block ahead. */
static __device__ __forceinline__ uint32_t ans2_encode_lane_in(const ans2_esym *es, uint32_t pb,
                                                               const uint8_t *in, uint64_t first,
                                                               uint32_t cnt, uint32_t lane, uint8_t *end,
                                                               uint32_t *st)
{
    uint64_t x = ANS2_L;
    uint32_t nw = 0;
    if (lane < cnt) {
        uint32_t ns = (cnt - 1u - lane) / ANS_LANES + 1u;
        const uint8_t *p0 = in + first + lane + (size_t)(ns - 1u) * ANS_LANES;
        uint32_t w[ANS2_EPF];
#pragma unroll
        for (uint32_t j = 0; j < ANS2_EPF; j++)
            w[j] = j < ns ? (uint32_t)p0[-(ptrdiff_t)(j * ANS_LANES)] : 0u;
        for (uint32_t j0 = 0; j0 < ns; j0 += ANS2_EPF) {
            uint32_t nx[ANS2_EPF];
#pragma unroll
            for (uint32_t j = 0; j < ANS2_EPF; j++)
                nx[j] =
                    j0 + ANS2_EPF + j < ns ? (uint32_t)p0[-(ptrdiff_t)((j0 + ANS2_EPF + j) * ANS_LANES)] : 0u;
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

/* The chunk's nsym symbols into in (every thread of the CTA; then a
 * barrier): 16 source bytes a load where p is 16-byte aligned, all of a
 * thread's loads of a round issued before its stores. */
static __device__ __forceinline__ void ans_in_stage(uint8_t *in, const uint8_t *p, uint32_t split,
                                                    uint32_t nsym)
{
    uint32_t t = threadIdx.x, done = 0;
    if (((uintptr_t)p & 15u) == 0) {
        const uint4 *s = (const uint4 *)p;
        uint32_t per = split ? 8u : 16u, n16 = nsym / per; /* symbols a load */
        for (uint32_t k0 = 0; k0 < n16; k0 += 8u * ANS_THREADS) {
            uint4 r[8];
#pragma unroll
            for (uint32_t u = 0; u < 8; u++) {
                uint32_t k = k0 + u * ANS_THREADS + t;
                if (k < n16)
                    r[u] = __ldg(s + k);
            }
#pragma unroll
            for (uint32_t u = 0; u < 8; u++) {
                uint32_t k = k0 + u * ANS_THREADS + t;
                if (k >= n16)
                    continue;
                if (split) { /* the high bytes of 8 16-bit values */
                    uint2 h;
                    h.x = __byte_perm(r[u].x, r[u].y, 0x7531);
                    h.y = __byte_perm(r[u].z, r[u].w, 0x7531);
                    ((uint2 *)in)[k] = h;
                } else {
                    ((uint4 *)in)[k] = r[u];
                }
            }
        }
        done = n16 * per;
    }
    for (uint32_t j = done + t; j < nsym; j += ANS_THREADS)
        in[j] = (uint8_t)ans_sym(p, split, j);
    __syncthreads();
}

/* ans_k_encode with the chunk's symbols staged in shared memory (above). */
static __global__ void __launch_bounds__(ANS_THREADS)
    ans_k_encode_in(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                    const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype)
{
    __shared__ uint32_t counts[256];
    __shared__ ans_table t;
    __shared__ ans2_esym es[256];
    __shared__ uint16_t kcache[ANS2_CACHE_TILES][ANS_LANES];
    __shared__ unsigned long long coded_words;
    extern __shared__ __align__(16) uint8_t ans_in[];
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
            uint32_t in = sh.nsym <= ans_in_bytes(); /* CTA-uniform */
            for (uint32_t s = threadIdx.x; s < 256; s += ANS_THREADS)
                counts[s] = 0;
            if (threadIdx.x == 0)
                coded_words = 0;
            if (in)
                ans_in_stage(ans_in, p, sh.split, (uint32_t)sh.nsym); /* ends with a barrier */
            else
                __syncthreads();
            for (uint64_t j0 = 0; j0 < sh.nsym; j0 += ANS_THREADS * ANS_HIST_AHEAD) {
                uint32_t sy[ANS_HIST_AHEAD];
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++) {
                    uint64_t j = j0 + (uint64_t)u * ANS_THREADS + threadIdx.x;
                    sy[u] = j < sh.nsym ? (in ? (uint32_t)ans_in[j] : ans_sym(p, sh.split, j)) : 256u;
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
            if (sh.nsym) {
                for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                    uint64_t first = (uint64_t)tile * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                    uint32_t kw = in ? ans2_encode_lane_in(es, pb, ans_in, first, cnt, lane, NULL, &x)
                                     : ans2_encode_lane_gpu(es, pb, p, sh.split, first, cnt, lane, NULL, &x);
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
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        uint32_t kw =
                            tile < ANS2_CACHE_TILES ? kcache[tile][lane]
                            : in ? ans2_encode_lane_in(es, pb, ans_in, first, cnt, lane, NULL, &x)
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
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        uint32_t kw =
                            tile < ANS2_CACHE_TILES ? kcache[tile][lane]
                            : in ? ans2_encode_lane_in(es, pb, ans_in, first, cnt, lane, NULL, &x)
                                 : ans2_encode_lane_gpu(es, pb, p, sh.split, first, cnt, lane, NULL, &x);
                        uint32_t incl = own_warp_incl_add32(kw);
                        uint8_t *at = d + base + (tile ? oc_load_le32(d + tab + 4ull * (tile - 1)) : 0u);
                        if (in)
                            ans2_encode_lane_in(es, pb, ans_in, first, cnt, lane,
                                                at + ANS2_TILE_HEAD + 4ull * incl, &x);
                        else
                            ans2_encode_lane_gpu(es, pb, p, sh.split, first, cnt, lane,
                                                 at + ANS2_TILE_HEAD + 4ull * incl, &x);
                        oc_store_le32(at + 4 * lane, x);
                        at[4 * ANS_LANES + 2 * lane] = (uint8_t)kw;
                        at[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(kw >> 8);
                    }
                    pos = base + ANS2_TILE_HEAD * (uint64_t)sh.ntiles + 4ull * coded_words;
                } else {
                    for (uint64_t j = threadIdx.x; j < sh.nsym; j += ANS_THREADS)
                        d[pos + j] = in ? ans_in[j] : (uint8_t)ans_sym(p, sh.split, j);
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
