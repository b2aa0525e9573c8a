/*
 * ans_lean_kernels.cuh - why this exists: session 10's per-SASS-line profile of win4-16 (the library's
 * v2 decoder; /work/wt/gpu-results/s10/A/ans/ncu-dec-win4-16-sass.csv.gz, grouped in
 * bench/gpu/owncodecs/NOTES.md, session 12) puts 10 of the ~28 instructions of a text step in the
 * renormalisation, 4 of them for the lane's next word: a guard (u < K and a renormalisation), then,
 * predicated, the slot's row (LOP3), the slot's address (IADD) and the LDS, issued for the warp although
 * ~5 of 32 lanes take a word.  "lean" drops the guard and the add: every lane reloads its next word
 * every step, unpredicated, from sh | (u & ROWS) (one LOP3), the windows being placed at a multiple of
 * 2 KiB of shared memory so that a lane's column address has no bit in the row field.  A reload past the
 * lane's K words reads a slot of a word already landed (words >= K are never requested, and word u - 16
 * < r landed before the block), its value unused unless the tile is corrupt (then u != K at the end, the
 * same status).  Otherwise ans_k_groups of src/cuda/codecs/ans/ans_kernels.cu as is (this file is
 * included after it by ans3_dev.cu), for CTAs of NW = 4 (text) and 2 (16-bit data) warps.
 */
#ifndef ANS_LEAN_KERNELS_CUH
#define ANS_LEAN_KERNELS_CUH

/* the table (8 KiB), up to 2 KiB - 4 of padding, then NW windows of 2 KiB (at least 16 KiB: PB 12) */
#define ANS_LEAN_SMEM(NW)                                                                                    \
    (4u * ANS_DT_FAST + 2048u + (NW)*2048u > 16384u ? 4u * ANS_DT_FAST + 2048u + (NW)*2048u : 16384u)

/* ans_words_win with the lean renormalisation: sh is 2 KiB-aligned but for the lane's 4 L */
struct ans_words_lean {
    typedef ans_words_win::st st;
    static __device__ __forceinline__ uint64_t start(st *w)
    {
        asm volatile("cp.async.wait_group 0;" ::: "memory"); /* the first window */
        w->fc = w->L->fe;
        w->kwu = w->L->kw << 7;
        w->u = 0;
        w->sh = w->L->sh;
        w->nw = ans2_lds32(w->sh);
        uint64_t x = w->L->s;
        if (x < ANS2_L) {
            x = (x << 32) | w->nw;
            w->u += 128u;
        }
        w->nw = ans2_lds32(w->sh | (w->u & ANS_WIN_ROWS));
        return x;
    }
    static __device__ __forceinline__ void top(st *w) { ans_win_top(*w->L, w->u >> 7, w->fc); }
    static __device__ __forceinline__ void renorm(st *w, uint64_t &x)
    {
        uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
        bool rn = hi == 0u && lo < 0x80000000u;
        hi = rn ? lo : hi;
        lo = rn ? w->nw : lo;
        w->u += rn ? 128u : 0u;
        w->nw = ans2_lds32(w->sh | (w->u & ANS_WIN_ROWS));
        asm("mov.b64 %0, {%1, %2};" : "=l"(x) : "r"(lo), "r"(hi));
    }
    static __device__ __forceinline__ void last(st *w, uint64_t &x) { ans_words_win::last(w, x); }
    static __device__ __forceinline__ int bad(st *w, uint64_t x) { return ans_words_win::bad(w, x); }
};

template <bool WRITE>
static __device__ __forceinline__ oc_status ans_lean_decode(const uint32_t *dt, uint32_t pb, ans_win_lane &L,
                                                            uint32_t cnt, uint8_t *out, uint32_t stride,
                                                            const uint8_t *lo)
{
    ans_words_win::st w = {&L, 0, 0, 0, 0, 0};
    if (stride == 1)
        return ans2_tile_steps<WRITE, 1, true, ans_words_lean>(dt, pb, &w, cnt, out, lo);
    if (WRITE)
        out -= 1;
    if (((uintptr_t)out & 1u) == 0)
        return ans2_tile_steps<WRITE, 2, true, ans_words_lean>(dt, pb, &w, cnt, out, lo);
    return ans2_tile_steps<WRITE, 3, true, ans_words_lean>(dt, pb, &w, cnt, out, lo);
}

/* ans_k_groups<NW> with the windows 2 KiB-aligned and ans_lean_decode */
template <uint32_t NW>
static __global__ void __launch_bounds__(ANS_DTHREADS(NW), ANS_WIN_MINB(NW))
    ans_k_groups_lean(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                      own_batch_scratch s)
{
    extern __shared__ uint32_t ans_sm[]; /* ANS_LEAN_SMEM(NW) bytes */
    __shared__ uint16_t f[256], c[256];
    __shared__ uint32_t pb;
    __shared__ size_t chunk;
    __shared__ ans_chunk k;
    uint32_t *dt = ans_sm;
    unsigned long long total = s.first[n];
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t base = (uint32_t)__cvta_generic_to_shared(ans_sm + ANS_DT_FAST);
    uint32_t ring = ((base + 2047u) & ~2047u) + warp * ANS_WIN * 128u;
    (void)src_sizes;
    for (unsigned long long g = blockIdx.x; g < total; g += gridDim.x) {
        if (warp == 0) {
            size_t ci = oc_chunk_of_warp(s.first, n, g);
            if (lane == 0) {
                chunk = ci;
                ans_chunk_geometry((const uint8_t *)src[ci], &k);
            }
        }
        __syncthreads();
        size_t i = chunk;
        const uint8_t *p = (const uint8_t *)src[i];
        uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
        uint32_t group = (uint32_t)(g - s.first[i]);
        uint64_t first = (uint64_t)group * ANS_GROUP(NW);
        uint64_t last = first + ANS_GROUP(NW) < k.sh.nsym ? first + ANS_GROUP(NW) : k.sh.nsym;
        if (k.mode == 1) {
            uint32_t tile = group * NW + warp;
            bool has = tile < k.sh.ntiles, win = false;
            uint64_t a = 0, b = 0, tfirst = (uint64_t)tile * ANS_TILE;
            oc_status st = OC_OK;
            ans_win_lane L;
            L.fe = 0;
            if (has) {
                st = own_tile_span(p, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
                win = st == OC_OK && k.version >= 2 && __ldg(p + k.tables) <= ANS_PB &&
                      ((uintptr_t)(p + a) & 3u) == 0 && b - a >= ANS2_TILE_HEAD;
                if (win)
                    st = ans_win_start(p + a, b - a, ring, &L);
            }
            if (warp == 0)
                ans_warp_table(p + k.tables, &pb, f, c);
            __syncthreads();
            ans_fill_table(dt, f, c, pb, k.version >= 2 && pb <= 11u, ANS_DTHREADS(NW));
            __syncthreads();
            if (has) {
                if (st == OC_OK) {
                    uint32_t cnt = (uint32_t)(k.sh.nsym - tfirst < ANS_TILE ? k.sh.nsym - tfirst : ANS_TILE);
                    uint8_t *o = d ? d + (k.sh.split ? 2 * tfirst + 1 : tfirst) : NULL;
                    const uint8_t *lo = p + k.limit + tfirst;
                    uint32_t stride = k.sh.split ? 2u : 1u;
                    if (win)
                        st = o ? ans_lean_decode<true>(dt, pb, L, cnt, o, stride, lo)
                               : ans_lean_decode<false>(dt, pb, L, cnt, o, 1u, lo);
                    else
                        st = o ? ans_decode_any<true>(k.version, dt, pb, p + a, b - a, cnt, o, stride, lo)
                               : ans_decode_any<false>(k.version, dt, pb, p + a, b - a, cnt, o, 1u, lo);
                }
                if (st != OC_OK && lane == 0)
                    atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
            }
        }
        if (d && (k.mode == 0 || (k.sh.split && k.version == 1))) {
            for (uint64_t j = first + threadIdx.x; j < last; j += ANS_DTHREADS(NW)) {
                if (k.sh.split) {
                    d[2 * j] = p[k.limit + j];
                    if (k.mode == 0)
                        d[2 * j + 1] = p[k.raw + j];
                } else if (k.mode == 0) {
                    d[j] = p[k.raw + j];
                }
            }
        }
        __syncthreads();
    }
}

#endif /* ANS_LEAN_KERNELS_CUH */
