/*
 * ans_staged_kernels.cuh - why this exists: the ANS GPU codec's kernels as
 * the library had them before session 6 (commit 0820c53's
 * src/cuda/codecs/ans/ans_kernels.cu, unchanged but for the name of its
 * shared-memory size, the codec table left out, and the call of
 * ans_pool_place parenthesised so that argument-dependent lookup does not
 * also find the library's function of that name): the decoder that
 * stages each tile's words whole into a 22.25 KiB pool (cp.async), 7 CTAs
 * an SM, and the encoder that loads each symbol in the step that codes it.
 * bench/gpu/dev/ans_dev.cu includes it in namespace `staged`, after the
 * library's codec, as the baseline of its A/B (bench/gpu/owncodecs/NOTES.md).
 * Its macros that the library's file also defines keep the same values.
 */
/* ---- decoding -------------------------------------------------------------------- */

static __global__ void ans_k_headers(size_t n, const void *const *src, const size_t *src_sizes,
                                     void *const *dst, const size_t *caps, own_batch_scratch s)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint8_t *p = (const uint8_t *)src[i];
    size_t len = src_sizes[i];
    uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
    ans_chunk k;
    ans_table t;
    oc_status st;
    if ((p == NULL && len) || (dst && d == NULL && caps[i]))
        st = OC_ERR_INVALID_ARGUMENT;
    else
        st = ans_chunk_check(p, len, dst ? (uint64_t)caps[i] : UINT64_MAX, &k, &t);
    s.tiles[i] = st == OC_OK ? (uint32_t)((k.sh.nsym + POOL_GROUP - 1) / POOL_GROUP) : 0u;
    s.keys[i] = st == OC_OK ? OWN_KEY_NONE : own_key(0, st);
    if (st == OC_OK && d && k.sh.tail)
        d[k.size - 1] = p[len - 1];
}

/* Warp 0: the table of the chunk at p (mode 1, checked by the header
 * kernel) into f/c in shared memory; lane L takes symbols 8L..8L+7. */
static __device__ void ans_warp_table(const uint8_t *tab, uint32_t *pb_out, uint16_t *f, uint16_t *c)
{
    uint32_t lane = threadIdx.x & 31u, pb = tab[0];
    uint32_t pres = tab[1 + lane];
    uint32_t cnt = (uint32_t)__popc(pres);
    uint32_t incl = own_warp_incl_add32(cnt);
    uint32_t rank = incl - cnt, sum = 0;
    uint32_t fs[8];
    for (uint32_t j = 0; j < 8; j++) {
        fs[j] = 0;
        if ((pres >> j) & 1u) {
            uint32_t bit = rank * pb, v = 0;
            for (uint32_t b = 0; b < 3; b++) /* pb <= 12 bits span at most 3 bytes */
                if (8 * b < (bit % 8) + pb)
                    v |= (uint32_t)tab[33 + bit / 8 + b] << (8 * b);
            fs[j] = ((v >> (bit % 8)) & ((1u << pb) - 1u)) + 1u;
            rank++;
            sum += fs[j];
        }
    }
    uint32_t cincl = own_warp_incl_add32(sum);
    uint32_t cum = cincl - sum;
    for (uint32_t j = 0; j < 8; j++) {
        f[8 * lane + j] = (uint16_t)fs[j];
        c[8 * lane + j] = (uint16_t)cum;
        cum += fs[j];
    }
    if (lane == 0)
        *pb_out = pb;
}

/* One step of the warp: decodes symbol 32k + lane if `active` (writing it
 * through *o when WRITE), then renormalises.  Returns 0, or 1 when the
 * stream has fewer words left than the step needs (CORRUPT). */
template <bool WRITE>
static __device__ __forceinline__ int ans_warp_step(const uint32_t *dt, uint32_t pb, uint32_t mask,
                                                    uint32_t below, const uint8_t *words, uint32_t &x,
                                                    uint32_t &c, uint8_t *o, bool active)
{
    int need = 0;
    if (active) {
        uint32_t e = dt[x & mask];
        x = (((e >> 8) & 0xfffu) + 1u) * (x >> pb) + (e >> 20);
        if (WRITE)
            *o = (uint8_t)e;
        need = x < ANS_L;
    }
    uint32_t m = __ballot_sync(OWN_FULL, need), total = (uint32_t)__popc(m);
    if (total > c)
        return 1; /* a read before the stream's start */
    if (need) {
        const uint8_t *w = words + 2 * (c - 1 - (uint32_t)__popc(m & below));
        x = (x << 16) | (uint32_t)__ldg(w) | ((uint32_t)__ldg(w + 1) << 8);
    }
    c -= total;
    return 0;
}

/* The core's ans_decode_tile for a 32-lane warp, cut to the instructions a
 * step needs (the core's, compiled for the GPU, spent 54 per step: 64-bit
 * counters and addresses, the per-state loop the one-lane CPU build needs,
 * generic loads; ncu found the kernel issue-bound at 0.65 instructions per
 * cycle per scheduler).  Same reads, same checks in the same order, same
 * status and bytes: lane L holds the tile's state L; a step decodes symbols
 * 32k..32k+31; the lanes whose state fell below 2^16 take one word each
 * from the top of the stream in lane order.  test_cuda_ans compares it with
 * the CPU codec (the core) on real and damaged data. */
template <bool WRITE>
static __device__ __forceinline__ oc_status ans_decode_tile_warp(const uint32_t *dt, uint32_t pb,
                                                                 const uint8_t *src, uint64_t n, uint32_t cnt,
                                                                 uint8_t *out, uint32_t stride)
{
    if (n < ANS_TILE_HEAD || (n - ANS_TILE_HEAD) % 2 != 0 || n - ANS_TILE_HEAD > 0xFFFFFFFFull)
        return OC_ERR_CORRUPT;
    uint32_t lane = threadIdx.x & 31u, below = (1u << lane) - 1u;
    const uint8_t *xs = src + 4 * lane;
    uint32_t x = (uint32_t)__ldg(xs) | ((uint32_t)__ldg(xs + 1) << 8) | ((uint32_t)__ldg(xs + 2) << 16) |
                 ((uint32_t)__ldg(xs + 3) << 24);
    if (__any_sync(OWN_FULL, x < ANS_L))
        return OC_ERR_CORRUPT;
    const uint8_t *words = src + ANS_TILE_HEAD;
    uint32_t c = (uint32_t)((n - ANS_TILE_HEAD) / 2); /* words left, read from the top */
    uint32_t mask = (1u << pb) - 1u;
    uint32_t full = cnt / ANS_LANES;
    uint8_t *o = WRITE ? out + (size_t)lane * stride : NULL;
    size_t ostep = (size_t)ANS_LANES * stride;
    for (uint32_t k = 0; k < full; k++) {
        if (ans_warp_step<WRITE>(dt, pb, mask, below, words, x, c, o, true))
            return OC_ERR_CORRUPT;
        if (WRITE)
            o += ostep;
    }
    if (full * ANS_LANES < cnt &&
        ans_warp_step<WRITE>(dt, pb, mask, below, words, x, c, o, full * ANS_LANES + lane < cnt))
        return OC_ERR_CORRUPT;
    return __any_sync(OWN_FULL, c != 0 || x != ANS_L) ? OC_ERR_CORRUPT : OC_OK;
}

/* ---- version 2 tiles ------------------------------------------------------------- */

/* A little-endian u32 at p: one load where p is 4-byte aligned (the
 * format keeps tiles at multiples of 4 from the chunk's start), else four. */
template <bool ALIGNED> static __device__ __forceinline__ uint32_t ans2_ld32(const uint8_t *p)
{
    if (ALIGNED)
        return __ldg((const uint32_t *)p);
    return (uint32_t)__ldg(p) | ((uint32_t)__ldg(p + 1) << 8) | ((uint32_t)__ldg(p + 2) << 16) |
           ((uint32_t)__ldg(p + 3) << 24);
}

/* Where a v2 lane reads its words: WSRC_GLOBAL (aligned), WSRC_BYTES
 * (global, unaligned: four byte loads) or WSRC_SHARED (the tile's words
 * staged in the warp's shared-memory buffer; sh is the lane's first word
 * there, as a shared-window address). */
#define WSRC_GLOBAL 0
#define WSRC_BYTES 1
#define WSRC_SHARED 2

/* The u32 at shared-window address a: the decode table's entry (a v2 step
 * addresses the table by its shared address, computed once a tile: from
 * the dynamic array's pointer, ptxas recomputed the window's base from the
 * CTA's cluster id in every step, an S2UR the step then waited for) or a
 * staged word. */
static __device__ __forceinline__ uint32_t ans2_lds32(uint32_t a)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
    return v;
}

template <int WSRC>
static __device__ __forceinline__ uint32_t ans2_word(const uint8_t *wb, uint32_t sh, uint32_t r)
{
    if (WSRC == WSRC_SHARED)
        return ans2_lds32(sh + 4u * r);
    return ans2_ld32<WSRC == WSRC_GLOBAL>(wb + 4ull * r);
}

template <bool FAST>
static __device__ __forceinline__ uint64_t ans2_dstep(uint32_t e, uint32_t pb, uint64_t x)
{
    /* FAST: sym | (slot - c) << 8 | f << 20; else ans_dentry's sym | (f - 1) << 8 | (slot - c) << 20.
     * x = f * floor(x / 2^pb) + (slot - c): one wide multiply-add whose addend pairs the bias
     * with the high half's product */
    uint32_t f = FAST ? e >> 20 : ((e >> 8) & 0xfffu) + 1u;
    uint32_t bias = FAST ? (e >> 8) & 0xfffu : e >> 20;
    uint64_t xs = x >> pb, add;
    asm("mov.b64 %0, {%1, %2};" : "=l"(add) : "r"(bias), "r"((uint32_t)(xs >> 32) * f));
    return (uint64_t)f * (uint32_t)xs + add;
}

/* The renormalisation of a v2 lane, on 32-bit halves with selects (no
 * branch: with 32 lanes some lane renormalises in nearly every step):
 * below 2^31, x takes the word nw and the lane's next word is loaded.
 * The next step's select reads nw, so it waits for that load whichever
 * lane issued it (the scoreboard is the warp's): from shared memory that
 * is ~30 cycles, from global memory an L1 miss (~300-800 cycles) in
 * nearly every step (ncu: L1 hit rate 25%, 13 CTAs of 17.5 KiB leave L1
 * 22 KiB for 52 warps' 1664 streams of words). */
template <int WSRC>
static __device__ __forceinline__ void ans2_renorm(uint64_t &x, uint32_t &nw, uint32_t &r, uint32_t kw,
                                                   const uint8_t *wb, uint32_t sh)
{
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
    bool rn = hi == 0u && lo < 0x80000000u;
    hi = rn ? lo : hi;
    lo = rn ? nw : lo;
    r += rn ? 1u : 0u;
    if (rn && r < kw)
        nw = ans2_word<WSRC>(wb, sh, r);
    asm("mov.b64 %0, {%1, %2};" : "=l"(x) : "r"(lo), "r"(hi));
}

/* A byte to global memory (the low byte of v): no masking, no memory
 * clobber (the stores of a tile never alias what it reads). */
static __device__ __forceinline__ void ans2_st8(uint8_t *p, uint32_t v)
{
    asm volatile("st.global.u8 [%0], %1;" ::"l"(p), "r"(v));
}

/* A v2 tile by a warp, lane L decoding the tile's lane L (the core's
 * ans2_decode_tile and ans2_decode_lane: same reads, checks, bytes and
 * status).  The lane's words start after the other lanes' (a warp scan of
 * the counts, once); then per step a table lookup, a 64-bit multiply-add,
 * the byte, and for a state below 2^31 the lane's next word, loaded one
 * renormalisation ahead (nw).  WSRC says where the words are read: from
 * the warp's shared-memory buffer where the kernel staged the tile's
 * words (sh: the buffer's shared address), else from global memory.  No
 * vote per step, no check per step: r counts the words a lane took, a
 * load happens only while r < K (never past the lane's words), and a lane
 * that took more or fewer than K, or ended elsewhere than 2^31, fails the
 * one vote at the end, which is the core's status.  STRIDE is a constant
 * so the unrolled steps store at immediate offsets: 1 for bytes; for
 * 16-bit values the lane also writes the value's stored low byte (lo: the
 * tile's low bytes) with its symbol, one 16-bit store (STRIDE 2) or two
 * bytes where the output is odd (STRIDE 3), so no second pass over the
 * output copies the low bytes.  The steps go in blocks of 4, and the low
 * bytes of the next block are loaded (coalesced) while a block decodes,
 * the line 16 steps ahead prefetched to L2, so a store does not wait for
 * its load.  FAST: the table's entries hold f itself (PB <= 11), one
 * instruction less per step. */
/* Symbol value e (its byte: bits 0-7) of a lane at output index j: the
 * byte (STRIDE 1), or the 16-bit value e:lb at out16 + 2 j (lb: the
 * value's stored low byte). */
template <uint32_t STRIDE>
static __device__ __forceinline__ void ans2_put(uint8_t *o, size_t j, uint32_t e, uint32_t lb)
{
    if (STRIDE == 1) {
        ans2_st8(o + j, e);
    } else {
        uint32_t v = (e << 8) | lb;
        if (STRIDE == 2) {
            asm volatile("st.global.u16 [%0], %1;" ::"l"(o + 2 * j), "h"((unsigned short)v));
        } else {
            ans2_st8(o + 2 * j, v);
            ans2_st8(o + 2 * j + 1, e);
        }
    }
}

#define ANS2_BLOCK 4u     /* steps whose low bytes are loaded together, a block ahead */
#define ANS2_PF_STEPS 16u /* 16-bit data: the low bytes prefetched to L2 this many steps ahead */

template <bool WRITE, int WSRC, uint32_t STRIDE, bool FAST>
static __device__ __forceinline__ oc_status ans2_decode_tile_warp(const uint32_t *dt, uint32_t pb,
                                                                  const uint8_t *src, uint64_t n,
                                                                  uint32_t cnt, uint8_t *out,
                                                                  const uint8_t *lo, uint32_t stage)
{
    if (n < ANS2_TILE_HEAD)
        return OC_ERR_CORRUPT;
    uint32_t lane = threadIdx.x & 31u;
    uint32_t s = ans2_ld32<WSRC != WSRC_BYTES>(src + 4 * lane);
    uint32_t kw = (uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane) |
                  ((uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane + 1) << 8);
    uint32_t incl = own_warp_incl_add32(kw);
    if (ANS2_TILE_HEAD + 4ull * __shfl_sync(OWN_FULL, incl, 31) != n)
        return OC_ERR_CORRUPT;
    const uint8_t *wb = src + ANS2_TILE_HEAD + 4ull * (incl - kw);
    uint32_t sh = stage + 4u * (incl - kw);             /* WSRC_SHARED: the same words, staged */
    uint32_t r = 0;                                     /* words taken */
    uint32_t nw = kw ? ans2_word<WSRC>(wb, sh, 0) : 0u; /* W[r] while r < K */
    uint64_t x = s;
    if (x < ANS2_L) {
        x = (x << 32) | nw;
        r++;
        if (r < kw)
            nw = ans2_word<WSRC>(wb, sh, r);
    }
    uint32_t mask = (1u << pb) - 1u;
    /* the table's shared address, through a shuffle so that ptxas keeps it in a register
     * instead of recomputing it (an S2UR of the cluster id and 5 instructions) every step */
    uint32_t dsh = __shfl_sync(OWN_FULL, (uint32_t)__cvta_generic_to_shared(dt), 0);
    uint32_t full = cnt / ANS_LANES;
    /* out: where symbol 0's byte goes (bytes), or value 0 (16-bit) */
    uint8_t *o = WRITE ? out + (size_t)lane * (STRIDE == 1 ? 1u : 2u) : NULL;
    const bool LO = WRITE && STRIDE != 1;
    const uint8_t *l = LO ? lo + lane : NULL;
    uint32_t q[ANS2_BLOCK]; /* the low bytes of the block's steps */
#pragma unroll
    for (uint32_t i = 0; i < ANS2_BLOCK; i++)
        q[i] = LO && i < full ? (uint32_t)__ldg(l + (size_t)i * ANS_LANES) : 0u;
    uint32_t k = 0;
    for (; k + ANS2_BLOCK <= full; k += ANS2_BLOCK) {
        uint32_t nq[ANS2_BLOCK];
        if (LO) {
#pragma unroll
            for (uint32_t i = 0; i < ANS2_BLOCK; i++)
                nq[i] = k + ANS2_BLOCK + i < full
                            ? (uint32_t)__ldg(l + (size_t)(k + ANS2_BLOCK + i) * ANS_LANES)
                            : 0u;
            if (k + ANS2_PF_STEPS < full)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(l + (size_t)(k + ANS2_PF_STEPS) * ANS_LANES));
        }
#pragma unroll
        for (uint32_t i = 0; i < ANS2_BLOCK; i++) {
            uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
            x = ans2_dstep<FAST>(e, pb, x);
            if (WRITE)
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, e, q[i]);
            ans2_renorm<WSRC>(x, nw, r, kw, wb, sh);
        }
        if (LO) {
#pragma unroll
            for (uint32_t i = 0; i < ANS2_BLOCK; i++)
                q[i] = nq[i];
        }
    }
#pragma unroll
    for (uint32_t i = 0; i + 1 < ANS2_BLOCK; i++) {
        if (k + i < full) {
            uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
            x = ans2_dstep<FAST>(e, pb, x);
            if (WRITE)
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, e, q[i]);
            ans2_renorm<WSRC>(x, nw, r, kw, wb, sh);
        }
    }
    if (full * ANS_LANES + lane < cnt) {
        uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
        x = ans2_dstep<FAST>(e, pb, x);
        if (WRITE)
            ans2_put<STRIDE>(o, (size_t)full * ANS_LANES, e,
                             LO ? (uint32_t)__ldg(l + (size_t)full * ANS_LANES) : 0u);
        if (x < ANS2_L) {
            x = (x << 32) | nw;
            r++;
        }
    }
    int bad = s == 0 || r != kw || x != ANS2_L;
    return __any_sync(OWN_FULL, bad) ? OC_ERR_CORRUPT : OC_OK;
}

/* A v2 tile on the path its table, word source and output call for: out
 * is where the tile's first byte (stride 1) or first 16-bit value (stride
 * 2, the low bytes at lo) goes. */
template <bool WRITE, bool FAST, int WSRC>
static __device__ __forceinline__ oc_status ans2_decode_pick2(const uint32_t *dt, uint32_t pb,
                                                              const uint8_t *src, uint64_t n, uint32_t cnt,
                                                              uint8_t *out, uint32_t stride,
                                                              const uint8_t *lo, uint32_t stage)
{
    if (stride == 1)
        return ans2_decode_tile_warp<WRITE, WSRC, 1, FAST>(dt, pb, src, n, cnt, out, lo, stage);
    if (((uintptr_t)out & 1u) == 0)
        return ans2_decode_tile_warp<WRITE, WSRC, 2, FAST>(dt, pb, src, n, cnt, out, lo, stage);
    return ans2_decode_tile_warp<WRITE, WSRC, 3, FAST>(dt, pb, src, n, cnt, out, lo, stage);
}

/* staged: the tile's words are in shared memory at the shared address
 * stage, else read from global memory. */
template <bool WRITE, bool FAST>
static __device__ __forceinline__ oc_status ans2_decode_pick(const uint32_t *dt, uint32_t pb,
                                                             const uint8_t *src, uint64_t n, uint32_t cnt,
                                                             uint8_t *out, uint32_t stride, const uint8_t *lo,
                                                             bool staged, uint32_t stage)
{
    if (staged)
        return ans2_decode_pick2<WRITE, FAST, WSRC_SHARED>(dt, pb, src, n, cnt, out, stride, lo, stage);
    if (((uintptr_t)src & 3u) == 0)
        return ans2_decode_pick2<WRITE, FAST, WSRC_GLOBAL>(dt, pb, src, n, cnt, out, stride, lo, 0u);
    return ans2_decode_pick2<WRITE, FAST, WSRC_BYTES>(dt, pb, src, n, cnt, out, stride, lo, 0u);
}

/* Either version's tile: out is where the tile's first symbol byte goes
 * (v1, and v2 bytes) or (v2, 16-bit values: out - 1) its first value. */
template <bool WRITE>
static __device__ __forceinline__ oc_status ans_decode_any(uint32_t version, const uint32_t *dt, uint32_t pb,
                                                           const uint8_t *src, uint64_t n, uint32_t cnt,
                                                           uint8_t *out, uint32_t stride, const uint8_t *lo,
                                                           bool staged, uint32_t stage)
{
    if (version == 1)
        return ans_decode_tile_warp<WRITE>(dt, pb, src, n, cnt, out, stride);
    if (WRITE && stride == 2)
        out -= 1;
    return pb <= 11u ? ans2_decode_pick<WRITE, true>(dt, pb, src, n, cnt, out, stride, lo, staged, stage)
                     : ans2_decode_pick<WRITE, false>(dt, pb, src, n, cnt, out, stride, lo, staged, stage);
}

/* Shared memory of ans_k_groups (dynamic): the decode table of PB <= 11
 * (2^11 u32), then a pool of 22.25 KiB for the words of the group's 2
 * tiles, the second's after the first's.  32.3 KiB a CTA with the static
 * part and the 1 KiB the driver keeps: 7 CTAs (14 warps) an SM, for text
 * (4 tiles a 64 KiB chunk) and 16-bit data (2) alike; with groups of 4
 * tiles, a bf16 chunk left half of a CTA's warps waiting (ncu: 49% of the
 * stalls at the barrier).  Two text tiles of 16384 bytes fit at ratio 1.45
 * or more (ratio 1.6: ~10 KiB a tile; text_linux_docs: 8.5% of the tiles
 * hold more than 11.1 KiB of words), two bf16 tiles always; a tile past the
 * pool's end, or a chunk of PB 12 (whose table runs over the pool's first
 * 8 KiB), reads its words from global memory as before. */
#define ANS_POOL_WORDS (POOL_DWARPS * 2848u) /* 22.25 KiB */
#define STAGED_SMEM (4u * (ANS_DT_FAST + ANS_POOL_WORDS))

/* One u32 from global memory into shared memory (shared address sa),
 * without passing through registers (cp.async: nothing waits for it until
 * ans_stage_wait). */
static __device__ __forceinline__ void ans_stage_word(uint32_t sa, const uint8_t *g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sa), "l"(g) : "memory");
}

/* The warp's staged words are in its buffer, visible to all its lanes. */
static __device__ __forceinline__ void ans_stage_wait(void)
{
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncwarp();
}

/* Where a warp's tile (of a v2 chunk at p, PB <= 11, starting 4-aligned at
 * offset a, ending at b) puts its words in the pool: the bytes of words of
 * the group's tiles before it, if the tiles from the group's first (t0)
 * to this one each hold at least a tile's head (their ends ascend by 192
 * or more: then the warps' places never overlap, whatever the table says)
 * and the words fit; else -1 (read from global memory). */
static __device__ __forceinline__ int64_t ans_pool_place(const uint8_t *p, const ans_chunk *k, uint32_t t0,
                                                         uint32_t tile, uint64_t a, uint64_t b)
{
    uint32_t lane = threadIdx.x & 31u;
    bool good = true;
    if (lane <= tile - t0) {
        uint32_t t = t0 + lane;
        uint64_t e0 = t ? oc_load_le32(p + k->tile_tab + 4ull * (t - 1)) : 0;
        good = e0 + ANS2_TILE_HEAD <= oc_load_le32(p + k->tile_tab + 4ull * t);
    }
    if (!__all_sync(OWN_FULL, good))
        return -1;
    uint64_t base = (uint64_t)k->tile_tab + 4ull * k->sh.ntiles;
    uint64_t g0 = t0 ? oc_load_le32(p + k->tile_tab + 4ull * (t0 - 1)) : 0;
    uint64_t off = (a - base - g0) - (uint64_t)ANS2_TILE_HEAD * (tile - t0), words = b - a - ANS2_TILE_HEAD;
    if (off % 4u || words % 4u || off + words > 4ull * ANS_POOL_WORDS)
        return -1;
    return (int64_t)off;
}

/* A group of 2 tiles of one chunk by a CTA of 2 warps: warp 0 finds the
 * chunk (oc_chunk_of_warp); each warp finds its tile and (version 2,
 * PB <= 11, aligned, room in the pool) starts copying the tile's words
 * into the pool; warp 0 reads the frequency table and the CTA builds the
 * decode table while the copies fly; each warp then decodes its tile, its
 * words read from shared memory (ans2_renorm says why that matters) or
 * global memory. */
static __global__ void __launch_bounds__(POOL_DTHREADS)
    ans_k_groups(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    extern __shared__ uint32_t ans_sm[]; /* STAGED_SMEM bytes: the table, the pool */
    __shared__ uint16_t f[256], c[256];
    __shared__ uint32_t pb;
    __shared__ size_t chunk;
    __shared__ ans_chunk k;
    uint32_t *dt = ans_sm;
    unsigned long long total = s.first[n];
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t pool = (uint32_t)__cvta_generic_to_shared(ans_sm + ANS_DT_FAST);
    for (unsigned long long g = blockIdx.x; g < total; g += gridDim.x) {
        if (warp == 0) {
            size_t ci = oc_chunk_of_warp(s.first, n, g);
            if (lane == 0) {
                chunk = ci;
                /* the header kernel checked it whole; the layout is enough here */
                ans_chunk_geometry((const uint8_t *)src[ci], &k);
            }
        }
        __syncthreads();
        size_t i = chunk;
        const uint8_t *p = (const uint8_t *)src[i];
        uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
        uint32_t group = (uint32_t)(g - s.first[i]);
        uint64_t first = (uint64_t)group * POOL_GROUP;
        uint64_t last = first + POOL_GROUP < k.sh.nsym ? first + POOL_GROUP : k.sh.nsym;
        if (k.mode == 1) {
            uint32_t tile = group * POOL_DWARPS + warp, stage = 0;
            bool has = tile < k.sh.ntiles, staged = false;
            uint64_t a = 0, b = 0, tfirst = (uint64_t)tile * ANS_TILE;
            oc_status st = OC_OK;
            if (has) {
                st = own_tile_span(p, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
                int64_t off = -1;
                if (st == OC_OK && k.version >= 2 && __ldg(p + k.tables) <= ANS_PB &&
                    ((uintptr_t)(p + a) & 3u) == 0 && b - a >= ANS2_TILE_HEAD)
                    off = (ans_pool_place)(p, &k, group * POOL_DWARPS, tile, a, b);
                staged = off >= 0;
                if (staged) {
                    const uint8_t *w = p + a + ANS2_TILE_HEAD;
                    uint32_t nwords = (uint32_t)((b - a - ANS2_TILE_HEAD) / 4u);
                    stage = pool + (uint32_t)off;
                    for (uint32_t j = lane; j < nwords; j += 32)
                        ans_stage_word(stage + 4u * j, w + 4ull * j);
                    asm volatile("cp.async.commit_group;" ::: "memory");
                }
            }
            if (warp == 0)
                ans_warp_table(p + k.tables, &pb, f, c);
            __syncthreads();
            /* the decode table: a warp per symbol, its lanes over its slots; version 2
             * with PB <= 11 (what the encoder writes) keeps f itself in the top 12 bits
             * (ANS2_FAST_ENTRY), else the core's entry (f - 1: PB 12 allows f = 4096) */
            bool fast = k.version >= 2 && pb <= 11u;
            for (uint32_t sym = warp; sym < 256; sym += POOL_DWARPS)
                for (uint32_t j = lane; j < f[sym]; j += 32)
                    dt[c[sym] + j] = fast ? sym | (j << 8) | ((uint32_t)f[sym] << 20)
                                          : sym | ((uint32_t)(f[sym] - 1u) << 8) | (j << 20);
            __syncthreads();
            if (has) {
                if (staged)
                    ans_stage_wait();
                if (st == OC_OK) {
                    uint32_t cnt = (uint32_t)(k.sh.nsym - tfirst < ANS_TILE ? k.sh.nsym - tfirst : ANS_TILE);
                    uint8_t *o = d ? d + (k.sh.split ? 2 * tfirst + 1 : tfirst) : NULL;
                    const uint8_t *lo = p + k.limit + tfirst; /* 16-bit data: the tile's low bytes */
                    st = o ? ans_decode_any<true>(k.version, dt, pb, p + a, b - a, cnt, o,
                                                  k.sh.split ? 2u : 1u, lo, staged, stage)
                           : ans_decode_any<false>(k.version, dt, pb, p + a, b - a, cnt, o, 1u, lo, staged,
                                                   stage);
                }
                if (st != OC_OK && lane == 0)
                    atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
            }
        }
        /* the stored bytes of this group's symbols (a v2 tile decoder wrote the low
         * bytes of 16-bit values with their high bytes; coded bytes have none) */
        if (d && (k.mode == 0 || (k.sh.split && k.version == 1))) {
            for (uint64_t j = first + threadIdx.x; j < last; j += POOL_DTHREADS) {
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

/* ---- compression (version 2) --------------------------------------------------------- */

#define ANS2_CACHE_TILES 64u /* tiles whose lanes' word counts pass 1 keeps for pass 2 */

/* A symbol's encoding constants: f | c << 13 | sh << 25, and the reciprocal
 * m = ceil(2^(63 + sh) / f) with sh = ceil(log2 f), so that for x < 2^63
 * floor(x / f) = mulhi64(x, m) >> (sh - 1) exactly (f = 1: x itself): the
 * error x (m - 2^(63+sh)/f) / 2^(63+sh) stays below 2^-sh <= 1/f. */
typedef struct ans2_esym {
    unsigned long long m;
    uint32_t fc;
} ans2_esym;

static __device__ void ans2_esym_make(uint32_t f, uint32_t c, ans2_esym *e)
{
    uint32_t sh = f > 1 ? 32u - (uint32_t)__clz(f - 1u) : 0u;
    e->fc = f | (c << 13) | (sh << 25);
    e->m = 0;
    if (f > 1) { /* long division of 2^(63 + sh) - 1 by f, base 2^32 */
        unsigned long long hi = (1ull << (sh + 31u)) - 1ull;
        unsigned long long qh = hi / f, rh = hi % f;
        unsigned long long ql = ((rh << 32) | 0xffffffffull) / f;
        e->m = (qh << 32) + ql + 1ull;
    }
}

/* The core's ans2_encode_lane with the division by a reciprocal: the same
 * words, counts and stored state (test_cuda_ans compares the bytes). */
static __device__ __forceinline__ uint32_t ans2_encode_lane_gpu(const ans2_esym *es, uint32_t pb,
                                                                const uint8_t *data, uint32_t split,
                                                                uint64_t first, uint32_t cnt, uint32_t lane,
                                                                uint8_t *end, uint32_t *st)
{
    uint64_t x = ANS2_L;
    uint32_t nw = 0;
    if (lane < cnt) {
        const uint8_t *d = data + (split ? 2 * first + 1 : first);
        uint32_t stride = split ? 2u : 1u;
        for (uint32_t i = lane + (cnt - 1 - lane) / ANS_LANES * ANS_LANES;; i -= ANS_LANES) {
            uint32_t sym = __ldg(d + (size_t)i * stride);
            uint32_t fc = es[sym].fc, f = fc & 0x1fffu, sh = fc >> 25;
            if ((uint32_t)(x >> 32) >= f << (31u - pb)) { /* x >= f 2^(63-PB), whose low half is 0 */
                if (end)
                    oc_store_le32(end - 4ull * (nw + 1), (uint32_t)x);
                nw++;
                x >>= 32;
            }
            uint64_t q = sh ? __umul64hi(x, es[sym].m) >> (sh - 1u) : x;
            x = (q << pb) + (x - q * f) + ((fc >> 13) & 0xfffu);
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

/* A CTA of 4 warps per chunk (a persistent grid over chunks): histogram in
 * shared memory, the core's normalisation on one thread, the symbols'
 * reciprocals; pass 1: each warp encodes tiles with a lane per state,
 * counting words (kept for the first 64 tiles); the coded size decides
 * coding or storing, exactly as the CPU codec; the tile table (a warp
 * scan of the tile sizes); pass 2: each lane encodes its state again and
 * writes its words down from where its run ends (a warp scan of the
 * counts), the stored states and counts beside them. */
static __global__ void __launch_bounds__(ANS_THREADS)
    ans_k_encode(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
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
            for (uint64_t j = threadIdx.x; j < sh.nsym; j += ANS_THREADS) {
                /* lanes with the same symbol add once (few distinct exponent bytes) */
                uint32_t sym = ans_sym(p, sh.split, j);
                uint32_t peers = __match_any_sync(__activemask(), sym);
                if ((int)lane == __ffs((int)peers) - 1)
                    atomicAdd(&counts[sym], (uint32_t)__popc(peers));
            }
            __syncthreads();
            if (threadIdx.x == 0 && sh.nsym)
                ans_normalize(counts, sh.nsym, ANS_PB, &t);
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

/* The encoder's trailing argument: the data type. */
static void ans_encode_args(const oc_gpu_config *cfg, own_encode_args *a)
{
    uint32_t dtype = (uint32_t)oc_typed_data_type(&cfg->typed);
    own_encode_arg(a, &dtype, sizeof dtype);
}
