/*
 * ans_e12_kernels.cuh - why this exists: session 12's question on the ANS
 * encoder (issue 18, compress at 0.26x nVCOMP on text, 0.29x on bf16):
 * where do a chunk's ~360k CTA-cycles go, when 512 coding steps of ~35
 * instructions at the measured chain (~60 cycles a step) explain ~70k?
 * ans_k_encode_e<S, W, HIST, PAIR, PROF, D> is the library's ans_k_encode
 * (src/cuda/codecs/ans/ans_kernels.cu, session 11's one pass) in CTAs of
 * W warps, with switches measured apart in ans_dev (each must write the
 * library's bytes):
 *   PROF  clock64 probes a warp: the histogram, the normalisation and step
 *         entries, the coding of its tile, the wait for the other tiles
 *         (barrier), the header/copy-out/re-coding, the wait at the loop's
 *         last barrier; printed in cycles a chunk (`e-prof`);
 *   HIST  1: bytes counted into 32 lane columns (lane L's counter of s at
 *         word 32 s + L, shared by the CTA's warps: a warp's 32 atomics hit
 *         32 banks, no replays on text's frequent letters), reduced with a
 *         rotated read (`e-hist`);
 *   PAIR  lanes 2k and 2k + 1 share 2S words of stage, the even lane
 *         writing up from the start, the odd one down from the end: a tile
 *         is coded again only when a PAIR passes 2S (text: 12.3% of tiles
 *         re-coded at S = 99 alone; the re-coding warp holds its CTA at the
 *         chunk's last barrier for a whole tile) (`e-pair`);
 *   D     the symbols loaded D blocks of 4 steps ahead (the library: 1, so
 *         a block waits for a load issued ~4 steps earlier) (`e-deep`: 3);
 *   TW    the table written from shared memory (the library's
 *         ans_table_build_warp since session 12) instead of by thread 0 a
 *         bit at a time, each bit a read-modify-write of a global byte
 *         (`e-tw`; TW off is the library before: `e-base`);
 * and, for every variant, chunks of more tiles than W are coded in ROUNDS
 * of W tiles, each tile once: a round's tiles staged, their places known
 * from the tiles before (a running offset), copied out, the next round;
 * the mode (coded or stored) is decided after the last round, a stored
 * chunk overwriting what the rounds wrote (the library codes such chunks
 * twice: count, then write).  With W = 2 (`r2-61`) a 64 KiB bf16 chunk's
 * 2 tiles take both warps of a CTA (w2-61's shape, 1.18x in session 11)
 * and larger chunks no longer fall back to two passes.
 * Included by ans_dev.cu after the library's kernels and
 * ans_one_kernels.cuh (ans_one_overflows counts the re-coded tiles).
 * Prediction and outcome: bench/gpu/owncodecs/NOTES.md, session 12.
 */

__device__ unsigned long long ans_e_prof[10]; /* PROF: cycles by phase, warp-chunks, coding ones, re-coded */

static __device__ __forceinline__ unsigned long long ans_e_clock(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

/* ans2_fstep with the stage word at shared address sb0 + sd min(nw, C - 1) (sd = 4 or -4). */
template <uint32_t C>
static __device__ __forceinline__ void ans_e_fstep(uint4 e, uint64_t &x, uint32_t &nw, uint32_t sb0,
                                                   int32_t sd)
{
    uint32_t xh = (uint32_t)(x >> 32);
    bool r = xh >= e.z;
    if (r)
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(sb0 + (uint32_t)sd * min(nw, C - 1u)), "r"((uint32_t)x));
    nw += r ? 1u : 0u;
    x = r ? (uint64_t)xh : x;
    uint64_t q = __umul64hi(x, ((uint64_t)e.y << 32) | e.x) >> (e.w >> 26);
    x = x + (e.w & 0x1fffu) + q * (uint64_t)((e.w >> 13) & 0x1fffu);
}

/* ans2_flane with the stage as (sb0, sd) (see ans_e_fstep) and the symbols
 * loaded D blocks of 4 steps ahead: a ring of D + 1 blocks in registers,
 * the loop unrolled by D + 1 blocks so that the ring is indexed statically;
 * unguarded iterations while every load of the iteration is in the lane,
 * then guarded ones. */
template <uint32_t C, bool SPLIT, uint32_t D>
static __device__ __forceinline__ uint32_t ans_e_flane(const uint4 *fe, const uint8_t *data, uint64_t first,
                                                       uint32_t cnt, uint32_t lane, uint32_t sb0, int32_t sd,
                                                       uint32_t *st)
{
    constexpr uint32_t BK = ANS_LANES * (SPLIT ? 2u : 1u); /* bytes between a lane's symbols */
    constexpr uint32_t R = D + 1u;                         /* blocks in the ring */
    constexpr uint32_t PF = 4u * (D + 3u); /* steps ahead prefetched to L2 (a block's first line) */
    uint64_t x = ANS2_L;
    uint32_t nw = 0;
    if (lane < cnt) {
        uint32_t ns = (cnt - 1u - lane) / ANS_LANES + 1u; /* the lane's symbols, last first */
        const uint8_t *p0 =
            data + (SPLIT ? 2 * first + 1 : first) + (size_t)(lane + (ns - 1u) * ANS_LANES) * (BK / 32u);
        uint32_t w[R][4];
#pragma unroll
        for (uint32_t b = 0; b < D; b++) /* blocks 0 .. D-1 */
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                w[b][j] = 4u * b + j < ns ? (uint32_t)__ldg(p0 - (4u * b + j) * BK) : 0u;
        uint32_t k0 = 0; /* the iteration's first step */
        for (; k0 + 4u * (R + D) <= ns; k0 += 4u * R) {
#pragma unroll
            for (uint32_t b = 0; b < R; b++) {
                /* block b + D of the iteration into the slot block b - 1 freed */
#pragma unroll
                for (uint32_t j = 0; j < 4; j++)
                    w[(b + D) % R][j] = (uint32_t)__ldg(p0 - (k0 + 4u * (b + D) + j) * BK);
                if (k0 + 4u * b + PF < ns)
                    asm volatile("prefetch.global.L2 [%0];" ::"l"(p0 - (k0 + 4u * b + PF) * BK));
#pragma unroll
                for (uint32_t j = 0; j < 4; j++)
                    ans_e_fstep<C>(fe[w[b][j]], x, nw, sb0, sd);
            }
        }
        for (; k0 < ns; k0 += 4u * R) {
#pragma unroll
            for (uint32_t b = 0; b < R; b++) {
#pragma unroll
                for (uint32_t j = 0; j < 4; j++) {
                    uint32_t k = k0 + 4u * (b + D) + j;
                    w[(b + D) % R][j] = k < ns ? (uint32_t)__ldg(p0 - k * BK) : 0u;
                }
#pragma unroll
                for (uint32_t j = 0; j < 4; j++)
                    if (k0 + 4u * b + j < ns)
                        ans_e_fstep<C>(fe[w[b][j]], x, nw, sb0, sd);
            }
        }
    }
    if (x >> 32) { /* the stored state is 32 bits: its low half becomes the lane's first word */
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(sb0 + (uint32_t)sd * min(nw, C - 1u)), "r"((uint32_t)x));
        nw++;
        x >>= 32;
    }
    *st = (uint32_t)x;
    return nw;
}

/* The library's ans_k_encode in CTAs of W warps, with the switches and the
 * rounds of the file's head.  Dynamic shared memory: W x 32 lanes x S
 * words (the histogram's counters before the coding). */
template <uint32_t S, uint32_t W, int HIST, bool PAIR, bool PROF, uint32_t D, bool TW = false>
static __global__ void __launch_bounds__(32u * W)
    ans_k_encode_e(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                   const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype)
{
    constexpr uint32_t NT = 32u * W;
    constexpr uint32_t C = PAIR ? 2u * S : S; /* the words a lane may index */
    static_assert(HIST == 0 || W * S >= 256u, "HIST 1 keeps 32 KiB of counters in the stages");
    extern __shared__ uint32_t ans_stages[]; /* W x 32 lanes x S words */
    __shared__ uint32_t counts[256];
    __shared__ ans_table t;
    __shared__ uint4 fe[256];
    __shared__ uint32_t tw[W], tov[W];
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t w = own_type_width(dtype);
    uint32_t(*wcounts)[256] = reinterpret_cast<uint32_t(*)[256]>(ans_stages);
    uint32_t *stage = ans_stages + (size_t)warp * ANS_LANES * S;
    /* the lane's stage: PAIR, lanes 2k and 2k + 1 share 2S words, the even one from the start up,
     * the odd one from the end down */
    const uint32_t sbase = (uint32_t)__cvta_generic_to_shared(stage);
    const uint32_t sb0 =
        PAIR ? sbase + 4u * ((lane & ~1u) * S + ((lane & 1u) ? 2u * S - 1u : 0u)) : sbase + 4u * lane * S;
    const int32_t sd = PAIR && (lane & 1u) ? -4 : 4;
    unsigned long long pr[8] = {0, 0, 0, 0, 0, 0, 0, 0}, prc = 0, prt = 0, pro = 0;
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
        unsigned long long t0 = PROF ? ans_e_clock() : 0, t1 = t0, t2 = t0, tc = 0, tr = 0, tq = 0, t5 = t0;
        if (st == OC_OK) {
            const bool wh = !sh.split;
            for (uint32_t s = threadIdx.x; s < 256; s += NT)
                counts[s] = 0;
            if (HIST == 1 && wh) {
                for (uint32_t s = threadIdx.x; s < 256u * 32u / 4u; s += NT)
                    reinterpret_cast<uint4 *>(ans_stages)[s] = make_uint4(0, 0, 0, 0);
            } else {
                for (uint32_t s = threadIdx.x; s < W * 256u; s += NT)
                    wcounts[s / 256u][s % 256u] = 0;
            }
            __syncthreads();
            /* the histogram (the library's): 16-byte loads, ANS_HIST_VEC a thread at once; bytes
             * into each warp's counters (HIST 1: into lane columns), 16-bit data's exponent bytes by
             * match_any; a tail or an unaligned chunk by bytes */
            uint64_t n16 = ((uintptr_t)p & 15u) == 0 ? len / 16u : 0u;
            const uint4 *p4 = reinterpret_cast<const uint4 *>(p);
            for (uint64_t b0 = 0; b0 < n16; b0 += NT * ANS_HIST_VEC) { /* CTA-uniform */
                uint4 v[ANS_HIST_VEC];
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_VEC; u++) {
                    uint64_t i = b0 + (uint64_t)u * NT + threadIdx.x;
                    v[u] = i < n16 ? __ldg(p4 + i) : make_uint4(0, 0, 0, 0);
                }
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_VEC; u++) {
                    bool in = b0 + (uint64_t)u * NT + threadIdx.x < n16;
                    uint32_t wd[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
                    if (wh) {
                        if (in)
#pragma unroll
                            for (uint32_t k = 0; k < 16; k++) {
                                uint32_t sy = (wd[k / 4] >> (8 * (k % 4))) & 255u;
                                if (HIST == 1) /* lane L's counter of s at word 32 s + L: bank L */
                                    atomicAdd(&ans_stages[sy * 32u + lane], 1u);
                                else
                                    atomicAdd(&wcounts[warp][sy], 1u);
                            }
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
                 j0 += NT * ANS_HIST_AHEAD) { /* CTA-uniform */
                uint32_t sy[ANS_HIST_AHEAD];
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++) {
                    uint64_t j = j0 + (uint64_t)u * NT + threadIdx.x;
                    sy[u] = j < sh.nsym ? ans_sym(p, sh.split, j) : 256u;
                }
                if (wh) {
#pragma unroll
                    for (uint32_t u = 0; u < ANS_HIST_AHEAD; u++)
                        if (sy[u] < 256u) {
                            if (HIST == 1)
                                atomicAdd(&ans_stages[sy[u] * 32u + lane], 1u);
                            else
                                atomicAdd(&wcounts[warp][sy[u]], 1u);
                        }
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
                for (uint32_t s = threadIdx.x; s < 256; s += NT) {
                    uint32_t sum = 0;
                    if (HIST == 1) {
#pragma unroll 8
                        for (uint32_t l = 0; l < 32u; l++) /* rotated: a warp's 32 symbols on 32 banks */
                            sum += ans_stages[s * 32u + ((l + s) & 31u)];
                    } else {
#pragma unroll
                        for (uint32_t w2 = 0; w2 < W; w2++)
                            sum += wcounts[w2][s];
                    }
                    counts[s] = sum;
                }
                __syncthreads();
            }
            if (PROF)
                t1 = ans_e_clock();
            if (sh.nsym) {
                ans_normalize_warp_w<NT>(counts, sh.nsym, ANS_PB, &t);
                if (TW && warp == 0) /* the counts are spent: their words take the table's bytes */
                    ans_table_build_warp(&t, counts);
            }
            __syncthreads();
            if (sh.nsym)
                for (uint32_t s = threadIdx.x; s < 256; s += NT)
                    ans2_fentry(t.f[s] ? t.f[s] : 1u, t.c[s], ANS_PB, &fe[s]);
            __syncthreads();
            if (PROF)
                t2 = ans_e_clock();
            uint64_t head = OWN_HEADER_SIZE + 1u + t.bytes;
            head += (4u - head % 4u) % 4u;
            const uint64_t tab = head, base = tab + 4ull * sh.ntiles;
            const uint64_t stored = OWN_HEADER_SIZE + 1u + sh.nsym;
            /* the tiles may end at `lim` at most: past it the chunk is stored or too large anyway */
            const uint64_t lim = cap >= sh.lo + sh.tail ? cap - sh.lo - sh.tail : 0u;
            uint64_t off = 0; /* the words and heads of the rounds before (CTA-uniform) */
            uint32_t mode = 1;
            for (uint32_t r0 = 0; sh.nsym && r0 < sh.ntiles; r0 += W) { /* CTA-uniform */
                const uint32_t tile = r0 + warp;
                const bool last = r0 + W >= sh.ntiles;
                uint32_t kw = 0, xs = 0;
                unsigned long long ta = PROF ? ans_e_clock() : 0;
                if (tile < sh.ntiles) {
                    uint64_t first = (uint64_t)tile * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile);
                    kw = sh.split ? ans_e_flane<C, true, D>(fe, p, first, cnt, lane, sb0, sd, &xs)
                                  : ans_e_flane<C, false, D>(fe, p, first, cnt, lane, sb0, sd, &xs);
                    uint32_t sum = own_warp_sum32(kw);
                    uint32_t ov =
                        __any_sync(OWN_FULL, PAIR ? kw + __shfl_xor_sync(OWN_FULL, kw, 1) > 2u * S : kw > S);
                    if (lane == 0) {
                        tw[warp] = sum;
                        tov[warp] = ov;
                    }
                    if (PROF) {
                        tc += ans_e_clock() - ta;
                        prc++;
                        pro += ov ? 1u : 0u;
                    }
                }
                unsigned long long tb = PROF ? ans_e_clock() : 0;
                __syncthreads();
                unsigned long long tcc = PROF ? ans_e_clock() : 0;
                if (PROF)
                    tr += tcc - tb;
                uint64_t rsum = 0, mine = 0; /* the round's bytes; those of its tiles before this warp's */
                for (uint32_t k = 0; k < W && r0 + k < sh.ntiles; k++) {
                    mine += k < warp ? ANS2_TILE_HEAD + 4ull * tw[k] : 0u;
                    rsum += ANS2_TILE_HEAD + 4ull * tw[k];
                }
                bool put = true; /* the last round: the library's rule (coded, fitting); before: lim */
                if (last) {
                    uint64_t coded = base + off + rsum;
                    mode = coded < stored;
                    put = mode && coded + sh.lo + sh.tail <= cap;
                }
                uint64_t at0 = base + off + mine; /* this tile's place */
                if (tile < sh.ntiles && put && at0 + ANS2_TILE_HEAD + 4ull * tw[warp] <= lim) {
                    if (lane == 0)
                        oc_store_le32(d + tab + 4ull * tile,
                                      (uint32_t)(off + mine + ANS2_TILE_HEAD + 4u * tw[warp]));
                    uint8_t *at = d + at0, *wo = at + ANS2_TILE_HEAD;
                    bool al = ((uintptr_t)at & 3u) == 0;
                    ans_put32(at, lane, xs, al);
                    at[4 * ANS_LANES + 2 * lane] = (uint8_t)kw;
                    at[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(kw >> 8);
                    uint32_t incl = own_warp_incl_add32(kw);
                    if (!tov[warp]) {
                        /* lane L's words, staged last first, to wo[excl_L ..) first first */
                        uint32_t excl = incl - kw;
                        for (uint32_t L = 0; L < ANS_LANES; L++) {
                            uint32_t nL = __shfl_sync(OWN_FULL, kw, L), eL = __shfl_sync(OWN_FULL, excl, L);
                            if (PAIR && (L & 1u)) { /* the odd lane's m-th word at 2S - 1 - m */
                                const uint32_t *sL = stage + (L - 1u) * S + 2u * S - nL;
                                for (uint32_t j = lane; j < nL; j += 32)
                                    ans_put32(wo, eL + j, sL[j], al);
                            } else {
                                const uint32_t *sL = stage + L * S + nL - 1u;
                                for (uint32_t j = lane; j < nL; j += 32)
                                    ans_put32(wo, eL + j, *(sL - j), al);
                            }
                        }
                    } else { /* a stage past its words: the tile again, straight to its place */
                        if (lane == 0)
                            atomicAdd(&ans_one_overflows, 1ull);
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        ans2_glane(fe, p, sh.split, first, cnt, lane, wo + 4ull * incl, &x);
                    }
                }
                off += rsum;
                if (PROF)
                    tq += ans_e_clock() - tcc;
                if (!last)
                    __syncthreads(); /* the stages and tw are the next round's */
            }
            uint64_t coded = sh.nsym ? base + off : ~0ull;
            mode = coded < stored;
            total = (mode ? coded : stored) + sh.lo + sh.tail;
            if (total > cap) {
                st = OC_ERR_OUTPUT_TOO_SMALL;
            } else {
                uint64_t pos = OWN_HEADER_SIZE + 1u;
                if (threadIdx.x == 0) {
                    own_header_write_v(d, OWN_ID_ANS, ANS_VERSION, dtype, 0, (uint32_t)len);
                    d[OWN_HEADER_SIZE] = (uint8_t)mode;
                    if (mode && !TW) { /* the core's writer: a bit at a time, each a global byte's RMW */
                        uint64_t at = pos + ans_table_write(&t, d + pos);
                        while (at < head)
                            d[at++] = 0;
                    }
                }
                if (mode && TW) /* ans_table_build_warp's bytes, the CTA's threads at once */
                    for (uint64_t j = threadIdx.x; j < head - pos; j += NT)
                        d[pos + j] = reinterpret_cast<const uint8_t *>(counts)[j];
                if (mode) {
                    pos = coded;
                } else {
                    if (sh.ntiles > W)
                        __syncthreads(); /* the rounds' writes before the stored bytes over them */
                    for (uint64_t j = threadIdx.x; j < sh.nsym; j += NT)
                        d[pos + j] = (uint8_t)ans_sym(p, sh.split, j);
                    pos += sh.nsym;
                }
                /* the stored low bytes: 4 a thread (8 bytes read, one u32 written) where aligned */
                if (sh.lo && (((uintptr_t)(d + pos) & 3u) | ((uintptr_t)p & 7u)) == 0) {
                    uint64_t n4 = sh.lo / 4u;
                    for (uint64_t j = threadIdx.x; j < n4; j += NT) {
                        uint2 v = __ldg(reinterpret_cast<const uint2 *>(p) + j);
                        reinterpret_cast<uint32_t *>(d + pos)[j] = __byte_perm(v.x, v.y, 0x6420);
                    }
                    for (uint64_t j = 4u * n4 + threadIdx.x; j < sh.lo; j += NT)
                        d[pos + j] = p[2 * j];
                } else {
                    for (uint64_t j = threadIdx.x; j < sh.lo; j += NT)
                        d[pos + j] = p[2 * j];
                }
                if (sh.tail && threadIdx.x == 0)
                    d[pos + sh.lo] = p[len - 1];
            }
        }
        if (PROF)
            t5 = ans_e_clock();
        if (threadIdx.x == 0) {
            if (dst_sizes)
                dst_sizes[ci] = st == OC_OK ? (size_t)total : 0;
            if (statuses)
                statuses[ci] = st;
        }
        __syncthreads();
        if (PROF) {
            unsigned long long t6 = ans_e_clock();
            pr[0] += t1 - t0;                            /* histogram */
            pr[1] += t2 - t1;                            /* normalisation, step entries */
            pr[2] += tc;                                 /* coding (a coding warp's own tiles) */
            pr[3] += tr;                                 /* waiting for the round's other tiles */
            pr[4] += tq;                                 /* tile places, heads, copy-out, re-coding */
            pr[5] += t6 - t5 + (t5 - t2 - tc - tr - tq); /* header, low bytes, the last barrier */
            pr[6] += t6 - t0;
            prt++;
        }
    }
    if (PROF && lane == 0) {
        for (int j = 0; j < 7; j++)
            atomicAdd(&ans_e_prof[j], pr[j]);
        atomicAdd(&ans_e_prof[7], prt); /* warp-chunks */
        atomicAdd(&ans_e_prof[8], prc); /* coding warp-tiles */
        atomicAdd(&ans_e_prof[9], pro); /* tiles whose stage overflowed */
    }
}
