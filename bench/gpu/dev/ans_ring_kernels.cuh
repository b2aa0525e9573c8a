/*
 * ans_ring_kernels.cuh - why this exists: the ANS GPU decoder that took
 * each lane's words through a 16-word ring in shared memory refilled by
 * cp.async (2 KiB a warp: 16 CTAs an SM), with a ballot table fill and
 * PB 12 tables as bytes.  It was the library's for
 * one GPU call (commit 345c2f5, decoding part of
 * src/cuda/codecs/ans/ans_kernels.cu, unchanged but for the name of its
 * shared-memory size) and lost on bytes: comments 445 vs 506 GB/s, text
 * 358 vs 385 (won on bf16, 804 vs 674); its rate did not change from 8 to
 * 16 CTAs an SM (bench/gpu/owncodecs/NOTES.md).  ans_dev.cu includes it in
 * namespace `ring` for the A/B.
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
    s.tiles[i] = st == OC_OK ? (uint32_t)((k.sh.nsym + ANS_GROUP - 1) / ANS_GROUP) : 0u;
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

/* The decode table of a PB 12 stream (which our encoder never writes) is
 * kept small so that the rings fit beside a PB 11 table: a byte per slot,
 * its symbol, then at u32 1024 (byte 4096) per symbol (f - 1) | c << 12.
 * The core's entry for slot (sym | (f - 1) << 8 | (slot - c) << 20) from
 * it: two dependent shared loads instead of one, for foreign streams only. */
static __device__ __forceinline__ uint32_t ans_entry12(const uint32_t *dt, uint32_t slot)
{
    uint32_t sym = ((const uint8_t *)dt)[slot], fc = dt[1024 + sym];
    return sym | (fc & 0xfffu) << 8 | (slot - (fc >> 12)) << 20;
}

/* One step of the warp: decodes symbol 32k + lane if `active` (writing it
 * through *o when WRITE), then renormalises.  Returns 0, or 1 when the
 * stream has fewer words left than the step needs (CORRUPT). */
template <bool WRITE, bool PB12>
static __device__ __forceinline__ int ans_warp_step(const uint32_t *dt, uint32_t pb, uint32_t mask,
                                                    uint32_t below, const uint8_t *words, uint32_t &x,
                                                    uint32_t &c, uint8_t *o, bool active)
{
    int need = 0;
    if (active) {
        uint32_t e = PB12 ? ans_entry12(dt, x & mask) : dt[x & mask];
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
template <bool WRITE, bool PB12>
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
        if (ans_warp_step<WRITE, PB12>(dt, pb, mask, below, words, x, c, o, true))
            return OC_ERR_CORRUPT;
        if (WRITE)
            o += ostep;
    }
    if (full * ANS_LANES < cnt &&
        ans_warp_step<WRITE, PB12>(dt, pb, mask, below, words, x, c, o, full * ANS_LANES + lane < cnt))
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
 * (global, unaligned: four byte loads) or WSRC_RING (the lane's ring in
 * shared memory, refilled from global memory by cp.async; sh is the
 * lane's column of the warp's rings, as a shared-window address). */
#define WSRC_GLOBAL 0
#define WSRC_BYTES 1
#define WSRC_RING 2

/* A lane's ring: its next ANS_RING words; word j of lane L at slot
 * (j mod ANS_RING) * 32 + L of its warp's rings (a warp's reads never
 * share a bank: each lane has its own column). */
#define ANS_RING 16u

/* The shared address of word j in the lane's ring (sh: its column). */
static __device__ __forceinline__ uint32_t ans_ring_at(uint32_t sh, uint32_t j)
{
    return sh + ((j & (ANS_RING - 1u)) << 7);
}

/* One u32 from global memory into shared memory (shared address sa),
 * without passing through registers (cp.async: nothing waits for it until
 * a cp.async.wait_group). */
static __device__ __forceinline__ void ans_ring_copy(uint32_t sa, const uint8_t *g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sa), "l"(g));
}

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
    if (WSRC == WSRC_RING)
        return ans2_lds32(ans_ring_at(sh, r));
    return ans2_ld32<WSRC == WSRC_GLOBAL>(wb + 4ull * r);
}

/* The table entry of slot (dsh: the table's shared address): FAST (PB <=
 * 11), the u32 entry; else (PB 12) the core's entry from the byte table
 * (ans_entry12). */
template <bool FAST> static __device__ __forceinline__ uint32_t ans2_entry(uint32_t dsh, uint32_t slot)
{
    if (FAST)
        return ans2_lds32(dsh + 4u * slot);
    uint32_t sym, fc;
    asm volatile("ld.shared.u8 %0, [%1];" : "=r"(sym) : "r"(dsh + slot));
    fc = ans2_lds32(dsh + 4096u + 4u * sym);
    return sym | (fc & 0xfffu) << 8 | (slot - (fc >> 12)) << 20;
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
 * lane issued it (the scoreboard is the warp's): from the ring in shared
 * memory that is ~30 cycles, from global memory an L1 miss (~300-800
 * cycles) in nearly every step (ncu: L1 hit rate 25%, 13 CTAs of 17.5
 * KiB leave L1 22 KiB for 52 warps' 1664 streams of words). */
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
 * the lane's ring in shared memory (WSRC_RING: rings, the warp's rings'
 * shared address), else from global memory.  The ring holds the lane's
 * next ANS_RING = 16 words; the tile starts by copying the first 16 in
 * (cp.async) and waiting for them; every block of 4 steps then requests
 * the words up to 16 past the lane's current one (at most 4: a lane takes
 * at most a word a step) and waits only for the requests of two blocks
 * before (cp.async.wait_group 2), whose words cover every read of this
 * block (below r(b-2) + 12 < r(b-2) + 16); a request writes word j < r +
 * 16 over word j - 16 < r, already taken; the last steps wait for all.  A
 * lane copies words only below its count K, inside its run.  So a tile
 * needs 2 KiB of shared memory (the library staged whole tiles, ~11 KiB
 * of text words, which left 7 CTAs an SM; bench/gpu/owncodecs/NOTES.md).  No
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
                                                                  const uint8_t *lo, uint32_t rings)
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
    uint32_t sh = rings + 4u * lane; /* WSRC_RING: the lane's column */
    uint32_t fe = 0;                 /* WSRC_RING: words requested */
    if (WSRC == WSRC_RING) {
        fe = kw < ANS_RING ? kw : ANS_RING;
#pragma unroll
        for (uint32_t j = 0; j < ANS_RING; j++)
            if (j < fe)
                ans_ring_copy(ans_ring_at(sh, j), wb + 4u * j);
        asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;" ::: "memory");
    }
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
        if (WSRC == WSRC_RING) {
            uint32_t want = r + ANS_RING < kw ? r + ANS_RING : kw;
            const uint8_t *gw = wb + 4u * fe;
#pragma unroll
            for (uint32_t i = 0; i < ANS2_BLOCK; i++)
                if (fe + i < want)
                    ans_ring_copy(ans_ring_at(sh, fe + i), gw + 4u * i);
            fe = want;
            asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 2;" ::: "memory");
        }
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
            uint32_t e = ans2_entry<FAST>(dsh, (uint32_t)x & mask);
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
    if (WSRC == WSRC_RING) /* the last steps' words were requested (fe >= min(r + 12, K)) */
        asm volatile("cp.async.wait_group 0;" ::: "memory");
#pragma unroll
    for (uint32_t i = 0; i + 1 < ANS2_BLOCK; i++) {
        if (k + i < full) {
            uint32_t e = ans2_entry<FAST>(dsh, (uint32_t)x & mask);
            x = ans2_dstep<FAST>(e, pb, x);
            if (WRITE)
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, e, q[i]);
            ans2_renorm<WSRC>(x, nw, r, kw, wb, sh);
        }
    }
    if (full * ANS_LANES + lane < cnt) {
        uint32_t e = ans2_entry<FAST>(dsh, (uint32_t)x & mask);
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
                                                              const uint8_t *lo, uint32_t rings)
{
    if (stride == 1)
        return ans2_decode_tile_warp<WRITE, WSRC, 1, FAST>(dt, pb, src, n, cnt, out, lo, rings);
    if (((uintptr_t)out & 1u) == 0)
        return ans2_decode_tile_warp<WRITE, WSRC, 2, FAST>(dt, pb, src, n, cnt, out, lo, rings);
    return ans2_decode_tile_warp<WRITE, WSRC, 3, FAST>(dt, pb, src, n, cnt, out, lo, rings);
}

/* ring: the words go through the warp's rings at the shared address rings
 * (the tile 4-aligned, PB <= 11: the table leaves the rings alone), else
 * they are read from global memory. */
template <bool WRITE, bool FAST>
static __device__ __forceinline__ oc_status ans2_decode_pick(const uint32_t *dt, uint32_t pb,
                                                             const uint8_t *src, uint64_t n, uint32_t cnt,
                                                             uint8_t *out, uint32_t stride, const uint8_t *lo,
                                                             bool ring, uint32_t rings)
{
    if (FAST && ring)
        return ans2_decode_pick2<WRITE, FAST, WSRC_RING>(dt, pb, src, n, cnt, out, stride, lo, rings);
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
                                                           bool ring, uint32_t rings)
{
    if (version == 1)
        return pb == 12u ? ans_decode_tile_warp<WRITE, true>(dt, pb, src, n, cnt, out, stride)
                         : ans_decode_tile_warp<WRITE, false>(dt, pb, src, n, cnt, out, stride);
    if (WRITE && stride == 2)
        out -= 1;
    return pb <= 11u ? ans2_decode_pick<WRITE, true>(dt, pb, src, n, cnt, out, stride, lo, ring, rings)
                     : ans2_decode_pick<WRITE, false>(dt, pb, src, n, cnt, out, stride, lo, ring, rings);
}

/* Shared memory of ans_k_groups (dynamic): the decode table of PB <= 11
 * (2^11 u32; PB 12's byte table, ans_entry12, takes 5 KiB of it), then the
 * rings of the 2 warps (ANS_RING words x 32 lanes each, 2 KiB).  14.1 KiB a
 * CTA with the static part and the 1 KiB the driver keeps: 16 CTAs (32
 * warps) an SM.  A tile of PB 12, of version 1, or at an unaligned place
 * (a NATIVE container's chunks) reads its words from global memory. */
#define RING_SMEM (4u * (ANS_DT_FAST + ANS_DWARPS * ANS_RING * 32u))

/* A group of 2 tiles of one chunk by a CTA of 2 warps: warp 0 finds the
 * chunk (own_find_chunk_warp) and reads the frequency table; the CTA
 * builds the decode table (each warp over the present symbols of its 32s,
 * found by a ballot: the slots of a symbol by the warp's lanes); each warp
 * then decodes its tile, its words through its rings (ans2_decode_tile_warp
 * says how) or from global memory. */
static __global__ void __launch_bounds__(ANS_DTHREADS)
    ans_k_groups(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    extern __shared__ uint32_t ans_sm[]; /* RING_SMEM bytes: the table, the rings */
    __shared__ uint16_t f[256], c[256];
    __shared__ uint32_t pb;
    __shared__ size_t chunk;
    __shared__ ans_chunk k;
    uint32_t *dt = ans_sm;
    unsigned long long total = s.first[n];
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t rings = (uint32_t)__cvta_generic_to_shared(ans_sm + ANS_DT_FAST) + warp * (4u * ANS_RING * 32u);
    (void)src_sizes;
    for (unsigned long long g = blockIdx.x; g < total; g += gridDim.x) {
        if (warp == 0) {
            size_t ci = own_find_chunk_warp(s.first, n, g);
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
        uint64_t first = (uint64_t)group * ANS_GROUP;
        uint64_t last = first + ANS_GROUP < k.sh.nsym ? first + ANS_GROUP : k.sh.nsym;
        if (k.mode == 1) {
            uint32_t tile = group * ANS_DWARPS + warp;
            bool has = tile < k.sh.ntiles;
            uint64_t a = 0, b = 0, tfirst = (uint64_t)tile * ANS_TILE;
            oc_status st = OC_OK;
            if (has)
                st = own_tile_span(p, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
            if (warp == 0)
                ans_warp_table(p + k.tables, &pb, f, c);
            __syncthreads();
            /* the decode table: version 2 with PB <= 11 (what the encoder writes) keeps f
             * itself in the top 12 bits (ANS2_FAST_ENTRY), version 1 the core's entry (f -
             * 1: PB 12 allows f = 4096), PB 12 the byte table of ans_entry12 (5 KiB) */
            bool fast = k.version >= 2 && pb <= 11u, pb12 = pb == 12u;
            for (uint32_t s0 = warp * 32u; s0 < 256; s0 += 32u * ANS_DWARPS) {
                uint32_t fl = f[s0 + lane], cl = c[s0 + lane];
                if (pb12)
                    dt[1024 + s0 + lane] = (fl ? fl - 1u : 0u) | cl << 12;
                uint32_t m = __ballot_sync(OWN_FULL, fl != 0);
                while (m) {
                    uint32_t b0 = (uint32_t)__ffs((int)m) - 1u, sym = s0 + b0;
                    m &= m - 1u;
                    uint32_t fs = __shfl_sync(OWN_FULL, fl, b0), cs = __shfl_sync(OWN_FULL, cl, b0);
                    for (uint32_t j = lane; j < fs; j += 32) {
                        if (pb12)
                            ((uint8_t *)dt)[cs + j] = (uint8_t)sym;
                        else
                            dt[cs + j] =
                                fast ? sym | (j << 8) | (fs << 20) : sym | ((fs - 1u) << 8) | (j << 20);
                    }
                }
            }
            __syncthreads();
            if (has) {
                if (st == OC_OK) {
                    uint32_t cnt = (uint32_t)(k.sh.nsym - tfirst < ANS_TILE ? k.sh.nsym - tfirst : ANS_TILE);
                    uint8_t *o = d ? d + (k.sh.split ? 2 * tfirst + 1 : tfirst) : NULL;
                    const uint8_t *lo = p + k.limit + tfirst; /* 16-bit data: the tile's low bytes */
                    bool ring = fast && ((uintptr_t)(p + a) & 3u) == 0;
                    st = o ? ans_decode_any<true>(k.version, dt, pb, p + a, b - a, cnt, o,
                                                  k.sh.split ? 2u : 1u, lo, ring, rings)
                           : ans_decode_any<false>(k.version, dt, pb, p + a, b - a, cnt, o, 1u, lo, ring,
                                                   rings);
                }
                if (st != OC_OK && lane == 0)
                    atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
            }
        }
        /* the stored bytes of this group's symbols (a v2 tile decoder wrote the low
         * bytes of 16-bit values with their high bytes; coded bytes have none) */
        if (d && (k.mode == 0 || (k.sh.split && k.version == 1))) {
            for (uint64_t j = first + threadIdx.x; j < last; j += ANS_DTHREADS) {
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
