/*
 * ans_kernels.cu - the GPU ANS codec (gpu_codec.h) over the format's core
 * (src/cores/ans/ans_core.h: table, normalisation, the per-state steps,
 * the chunk checks), so both engines write the same bytes and statuses.
 * It writes format version 2 and reads versions 1 and 2.
 *
 * Decoding (own_tiles.cuh's flat list): the unit is a GROUP of 4 coding
 * tiles (65536 symbols) of one chunk, one CTA of 4 warps (2 tiles, 2 warps,
 * when the caller's data type is 16-bit: a 64 KiB chunk of it has 2 tiles,
 * so half of a 4-warp CTA would idle; ans_decompress_typed): each warp reads
 * its tile's head and starts copying each lane's first 16 words into the
 * lane's window in shared memory (cp.async; ans_win_top keeps every window
 * topped up while the tile decodes, 16 words a lane instead of the tile's
 * words whole, so 10 CTAs fit an SM instead of 7 with 2 warps: text 1.17x,
 * bf16 1.02x; bench/gpu/owncodecs/NOTES.md, session 10),
 * warp 0 reads the frequency table (a warp scan over the presence map
 * gives each symbol's bits), the CTA fills the decode table (2^PB u32
 * entries) in shared memory, then each warp decodes one tile with its 32
 * lanes in lockstep.  Version 2 (ans2_tile_steps): lane L is the
 * tile's state L with its own words (a warp scan of the 32 counts finds
 * them), 64-bit state, per step a table lookup, one wide multiply-add, the
 * byte, and on a state below 2^31 the lane's next word, read one
 * renormalisation ahead from the lane's window (a global load there made
 * every step wait for an L1 miss: ans2_renorm); one vote a block of 4
 * steps (ans_win_top) and none per step (~28 SASS instructions a step of
 * 32 symbols; bench/gpu/owncodecs/NOTES.md).  Version 1 (ans_decode_tile_warp,
 * the core's ans_decode_tile cut down): 32-bit states, the lanes whose
 * state fell below 2^16 take one 16-bit word each from the top of the
 * shared stream in lane order (ballot + popcount).  The stored low bytes
 * of 16-bit data go out with their high bytes in v2 (each lane writes whole
 * 16-bit values); in v1, and the bytes of stored chunks, a copy by the
 * same CTA.
 *
 * Compressing (version 2): a CTA per chunk (a persistent grid over chunks),
 * of 4 warps for bytes and 2 for 16-bit data (a 64 KiB chunk's 2 tiles:
 * every warp codes; two encode tables, ans_compress_typed): the histogram
 * (16-byte loads from the first 16-byte boundary, whatever the chunk's
 * alignment; per-warp counters for bytes, lane columns for 16-bit data's
 * few exponent bytes), the core's normalisation by warp 0 (sums and
 * argmaxes by warp reductions), the table's bytes built in shared memory by
 * warp 0 (ans_table_build_warp), each symbol's 16-byte step entry (a 64-bit
 * division becomes a multiply-high; f = 1 needs no branch); then each tile
 * coded ONCE, in rounds of a tile a warp: each lane staging its words in
 * shared memory (ANS_ESTAGE1 or 2 a lane, by the symbols' width), the
 * round's tiles placed after the rounds before, each warp copying its
 * lanes' staged words to their places (a warp scan of the counts); the
 * coded size decides coding or storing exactly as the CPU codec.  A tile
 * with a lane past its stage is coded again, straight into its place.
 * Session 11: 1 pass instead of 2 at ~35 instructions a step instead of
 * ~49 (the encoder before is ans_dev's `two-pass`,
 * bench/gpu/dev/ans_enc2_kernels.cuh); session 12: rounds instead of two
 * passes for chunks of more tiles than warps, 2-warp CTAs for 16-bit data,
 * the table no longer written a bit at a time by thread 0, and 16-bit
 * data's histogram by lane columns instead of match_any
 * (bench/gpu/owncodecs/NOTES.md; ans_dev's e-base is the kernel before).
 *
 * Only the kernels are here: the launches, the scan of group counts, the
 * statuses and the scratch are the batch driver's (own_common/own_batch.cu),
 * shared with Cascaded and Bitcomp.
 */
#include "../../../common/typed_options.h"
#include "../../../cores/ans/ans_core.h"
#include "../own_common/own_tiles.cuh"

#define ANS_WARPS 4u /* the encoder's CTA: a chunk */
#define ANS_THREADS (ANS_WARPS * 32u)
/* The decoder's CTA: a group of NW tiles of a chunk, NW warps (4 for
 * bytes; 2 when the caller says the data is 16-bit, whose 64 KiB chunks
 * have 2 tiles: ans_decompress_typed). */
#define ANS_DTHREADS(NW) ((NW)*32u)
#define ANS_GROUP(NW) ((NW)*ANS_TILE) /* symbols per CTA unit of decoding */

/* ---- decoding -------------------------------------------------------------------- */

template <uint32_t NW>
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
    s.tiles[i] = st == OC_OK ? (uint32_t)((k.sh.nsym + ANS_GROUP(NW) - 1) / ANS_GROUP(NW)) : 0u;
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

/* Where a v2 lane reads its words when they are not in its window
 * (ans_k_groups): WSRC_GLOBAL (aligned), WSRC_BYTES (unaligned: four byte
 * loads). */
#define WSRC_GLOBAL 0
#define WSRC_BYTES 1

/* One u32 from global memory into shared memory at shared address sa
 * (cp.async: nothing waits for it until a cp.async.wait_group). */
static __device__ __forceinline__ void ans_copy_word(uint32_t sa, const uint8_t *g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sa), "l"(g));
}

/* The u32 at shared-window address a: the decode table's entry (a v2 step
 * addresses the table by its shared address, computed once a tile: from
 * the dynamic array's pointer, ptxas recomputed the window's base from the
 * CTA's cluster id in every step, an S2UR the step then waited for) or a
 * word of a lane's window. */
static __device__ __forceinline__ uint32_t ans2_lds32(uint32_t a)
{
    uint32_t v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
    return v;
}

template <int WSRC> static __device__ __forceinline__ uint32_t ans2_word(const uint8_t *wb, uint32_t r)
{
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
                                                   const uint8_t *wb)
{
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
    bool rn = hi == 0u && lo < 0x80000000u;
    hi = rn ? lo : hi;
    lo = rn ? nw : lo;
    r += rn ? 1u : 0u;
    if (rn && r < kw)
        nw = ans2_word<WSRC>(wb, r);
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
 * renormalisation ahead (nw), here from global memory (the tiles that
 * ans_k_groups cannot take through windows: version 2 with PB 12, or
 * unaligned; ans_words_win gives the same loop its windows).  No
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

/* The words of a v2 lane from global memory (WSRC_GLOBAL or WSRC_BYTES):
 * r counts the words taken, nw is W[r] while r < K, loaded one
 * renormalisation ahead (ans2_renorm); nothing to top up. */
template <int WSRC> struct ans2_words_global {
    typedef struct {
        const uint8_t *wb; /* the lane's first word */
        uint32_t s, kw;    /* the stored state, the lane's words */
        uint32_t r, nw;
    } st;
    /* the state after its first renormalisation */
    static __device__ __forceinline__ uint64_t start(st *w)
    {
        w->r = 0;
        w->nw = w->kw ? ans2_word<WSRC>(w->wb, 0) : 0u;
        uint64_t x = w->s;
        if (x < ANS2_L) {
            x = (x << 32) | w->nw;
            w->r++;
            if (w->r < w->kw)
                w->nw = ans2_word<WSRC>(w->wb, w->r);
        }
        return x;
    }
    static __device__ __forceinline__ void top(st *) {}
    static __device__ __forceinline__ void renorm(st *w, uint64_t &x)
    {
        ans2_renorm<WSRC>(x, w->nw, w->r, w->kw, w->wb);
    }
    /* the tile's last step: no next word */
    static __device__ __forceinline__ void last(st *w, uint64_t &x)
    {
        if (x < ANS2_L) {
            x = (x << 32) | w->nw;
            w->r++;
        }
    }
    static __device__ __forceinline__ int bad(st *w, uint64_t x)
    {
        return w->s == 0 || w->r != w->kw || x != ANS2_L;
    }
};

/* The steps of a v2 tile by a warp, lane L decoding the tile's lane L, its
 * words from the word source WS (ans2_words_global, ans_words_win), once
 * the tile's head is read: the loop described above ans2_put, written once
 * for both sources. */
template <bool WRITE, uint32_t STRIDE, bool FAST, typename WS>
static __device__ __forceinline__ oc_status ans2_tile_steps(const uint32_t *dt, uint32_t pb,
                                                            typename WS::st *w, uint32_t cnt, uint8_t *out,
                                                            const uint8_t *lo)
{
    uint32_t lane = threadIdx.x & 31u;
    uint64_t x = WS::start(w);
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
        WS::top(w);
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
            WS::renorm(w, x);
        }
        if (LO) {
#pragma unroll
            for (uint32_t i = 0; i < ANS2_BLOCK; i++)
                q[i] = nq[i];
        }
    }
    WS::top(w); /* the tail reads words up to r + 4 too */
#pragma unroll
    for (uint32_t i = 0; i + 1 < ANS2_BLOCK; i++) {
        if (k + i < full) {
            uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
            x = ans2_dstep<FAST>(e, pb, x);
            if (WRITE)
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, e, q[i]);
            WS::renorm(w, x);
        }
    }
    if (full * ANS_LANES + lane < cnt) {
        uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
        x = ans2_dstep<FAST>(e, pb, x);
        if (WRITE)
            ans2_put<STRIDE>(o, (size_t)full * ANS_LANES, e,
                             LO ? (uint32_t)__ldg(l + (size_t)full * ANS_LANES) : 0u);
        WS::last(w, x);
    }
    int bad = WS::bad(w, x);
    return __any_sync(OWN_FULL, bad) ? OC_ERR_CORRUPT : OC_OK;
}

/* A v2 tile from global memory: its head (the states, the counts, checked
 * against the tile's size), then the steps. */
template <bool WRITE, int WSRC, uint32_t STRIDE, bool FAST>
static __device__ __forceinline__ oc_status ans2_decode_tile_warp(const uint32_t *dt, uint32_t pb,
                                                                  const uint8_t *src, uint64_t n,
                                                                  uint32_t cnt, uint8_t *out,
                                                                  const uint8_t *lo)
{
    if (n < ANS2_TILE_HEAD)
        return OC_ERR_CORRUPT;
    uint32_t lane = threadIdx.x & 31u;
    typename ans2_words_global<WSRC>::st w;
    w.s = ans2_ld32<WSRC != WSRC_BYTES>(src + 4 * lane);
    w.kw = (uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane) |
           ((uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane + 1) << 8);
    uint32_t incl = own_warp_incl_add32(w.kw);
    if (ANS2_TILE_HEAD + 4ull * __shfl_sync(OWN_FULL, incl, 31) != n)
        return OC_ERR_CORRUPT;
    w.wb = src + ANS2_TILE_HEAD + 4ull * (incl - w.kw);
    return ans2_tile_steps<WRITE, STRIDE, FAST, ans2_words_global<WSRC>>(dt, pb, &w, cnt, out, lo);
}

/* A v2 tile from global memory on the path its table, alignment and
 * output call for: out is where the tile's first byte (stride 1) or first
 * 16-bit value (stride 2, the low bytes at lo) goes. */
template <bool WRITE, bool FAST, int WSRC>
static __device__ __forceinline__ oc_status ans2_decode_pick2(const uint32_t *dt, uint32_t pb,
                                                              const uint8_t *src, uint64_t n, uint32_t cnt,
                                                              uint8_t *out, uint32_t stride,
                                                              const uint8_t *lo)
{
    if (stride == 1)
        return ans2_decode_tile_warp<WRITE, WSRC, 1, FAST>(dt, pb, src, n, cnt, out, lo);
    if (((uintptr_t)out & 1u) == 0)
        return ans2_decode_tile_warp<WRITE, WSRC, 2, FAST>(dt, pb, src, n, cnt, out, lo);
    return ans2_decode_tile_warp<WRITE, WSRC, 3, FAST>(dt, pb, src, n, cnt, out, lo);
}

/* Either version's tile, its words from global memory: out is where the
 * tile's first symbol byte goes (v1, and v2 bytes) or (v2, 16-bit values:
 * out - 1) its first value. */
template <bool WRITE>
static __device__ __forceinline__ oc_status ans_decode_any(uint32_t version, const uint32_t *dt, uint32_t pb,
                                                           const uint8_t *src, uint64_t n, uint32_t cnt,
                                                           uint8_t *out, uint32_t stride, const uint8_t *lo)
{
    if (version == 1)
        return ans_decode_tile_warp<WRITE>(dt, pb, src, n, cnt, out, stride);
    if (WRITE && stride == 2)
        out -= 1;
    if (((uintptr_t)src & 3u) == 0)
        return pb <= 11u ? ans2_decode_pick2<WRITE, true, WSRC_GLOBAL>(dt, pb, src, n, cnt, out, stride, lo)
                         : ans2_decode_pick2<WRITE, false, WSRC_GLOBAL>(dt, pb, src, n, cnt, out, stride, lo);
    return pb <= 11u ? ans2_decode_pick2<WRITE, true, WSRC_BYTES>(dt, pb, src, n, cnt, out, stride, lo)
                     : ans2_decode_pick2<WRITE, false, WSRC_BYTES>(dt, pb, src, n, cnt, out, stride, lo);
}

/* The windows (design (a) of bench/gpu/owncodecs/NOTES.md, sessions 9-10):
 * each lane of a v2 tile keeps its next ANS_WIN words in shared memory,
 * topped up by cp.async when any lane of the warp has fewer than
 * ANS_WIN_TOP requested ahead and waited for only when some lane's next 5
 * words are not known to have landed.  Dynamic shared memory: the decode
 * table of PB <= 11 (2^11 u32), then NW windows of ANS_WIN x 128 B,
 * at least 16 KiB so that a foreign stream's PB 12 table (4096 u32) fits
 * (its tiles read global memory: the table covers the windows). */
#define ANS_DT_FAST (1u << ANS_PB)
#define ANS_WIN 16u
#define ANS_WIN_TOP(R) ((R) / 2u + 2u) /* top up a lane's window below this many words ahead */
#define ANS_GROUPS_SMEM(NW)                                                                                  \
    (4u * (ANS_DT_FAST + (NW)*ANS_WIN * 32u) > 4u * 4096u ? 4u * (ANS_DT_FAST + (NW)*ANS_WIN * 32u)          \
                                                          : 4u * 4096u)
/* CTAs an SM: 4 warps, 48 registers a thread (the shared memory allows 11);
 * 2 warps, at most 85 registers (the 16 KiB floor allows 12) */
#define ANS_WIN_MINB(NW) ((NW) == 4u ? 10u : 12u)

/* A warp's windows (ANS_WIN x 128 B): word j of lane L at row (j mod
 * ANS_WIN), column L, so the lanes' reads never conflict (bank L); each
 * lane copies its own words (4-byte cp.async).  A lane counts the words it
 * took x 128 (u), so word r's slot is sh + (u & (ANS_WIN - 1) x 128): one
 * LOP3 and an add.  (ans_dev's `win4c` laid each window out as a row and
 * topped them up coalesced: 0.96x on text, 0.92x on bf16; NOTES.md.) */
#define ANS_WIN_ROWS ((ANS_WIN - 1u) << 7)

/* The shared address of word j in a lane's window (sh: its column). */
static __device__ __forceinline__ uint32_t ans_win_at(uint32_t sh, uint32_t j)
{
    return sh + ((j & (ANS_WIN - 1u)) << 7);
}

/* A lane's window state across a v2 tile. */
typedef struct ans_win_lane {
    const uint8_t *wb; /* the lane's first word in global memory */
    uint32_t s;        /* the stored state */
    uint32_t kw;       /* the lane's words */
    uint32_t sh;       /* the lane's column of the warp's windows (shared address) */
    uint32_t fe;       /* words requested: [0, fe) */
} ans_win_lane;

/* Requests the lane's words [fe, want) (want - fe <= ANS_WIN), committed
 * with the other lanes' as one group. */
static __device__ __forceinline__ void ans_win_request(const ans_win_lane &L, uint32_t want)
{
    for (uint32_t j = L.fe; j < want; j++)
        ans_copy_word(ans_win_at(L.sh, j), L.wb + 4u * j);
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* A v2 tile's head (src: 4-aligned, n >= the head): the lane's state and
 * words, the check of the counts against the tile's size (the global
 * path's, in the same order: CORRUPT if they disagree), and the window's
 * first min(ANS_WIN, K) words requested (not waited for: the decode table
 * is built meanwhile). */
static __device__ __forceinline__ oc_status ans_win_start(const uint8_t *src, uint64_t n, uint32_t ring,
                                                          ans_win_lane *L)
{
    uint32_t lane = threadIdx.x & 31u;
    L->s = ans2_ld32<true>(src + 4 * lane);
    L->kw = (uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane) |
            ((uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane + 1) << 8);
    uint32_t incl = own_warp_incl_add32(L->kw);
    L->fe = 0;
    if (ANS2_TILE_HEAD + 4ull * __shfl_sync(OWN_FULL, incl, 31) != n)
        return OC_ERR_CORRUPT;
    L->wb = src + ANS2_TILE_HEAD + 4ull * (incl - L->kw);
    L->sh = ring + 4u * lane;
    ans_win_request(*L, L->kw < ANS_WIN ? L->kw : ANS_WIN);
    L->fe = L->kw < ANS_WIN ? L->kw : ANS_WIN;
    return OC_OK;
}

/* Before a block of up to 4 steps (which read words up to r + 4): tops up
 * the windows if any lane has fewer than ANS_WIN_TOP words requested ahead
 * (each lane to min(r + ANS_WIN, K): word j overwrites word j - ANS_WIN <
 * r, already taken), then, if some lane's words up to r + 4 are not known
 * to have landed (fc), waits for every group but the one just committed
 * (whose words start at or past r + TOP - 4 >= r + 5), or for all.  One
 * vote when neither is needed (nearly every block).  bench/gpu/dev's
 * ans_win_cpu_check emulates this with copies landing at random: no read
 * of a word before it lands, none of a slot overwritten. */
static __device__ __forceinline__ void ans_win_top(ans_win_lane &L, uint32_t r, uint32_t &fc)
{
    const uint32_t TOP = ANS_WIN_TOP(ANS_WIN);
    bool low = L.fe < L.kw && L.fe - r < TOP;
    uint32_t need = r + 5u < L.kw ? r + 5u : L.kw;
    if (!__any_sync(OWN_FULL, low || fc < need))
        return;
    uint32_t old = L.fe;
    bool issued = false;
    if (__any_sync(OWN_FULL, low)) {
        uint32_t want = r + ANS_WIN < L.kw ? r + ANS_WIN : L.kw;
        ans_win_request(L, want);
        L.fe = want;
        issued = true;
    }
    if (__any_sync(OWN_FULL, fc < need)) {
        if (issued) {
            asm volatile("cp.async.wait_group 1;" ::: "memory");
            fc = old;
        } else {
            asm volatile("cp.async.wait_group 0;" ::: "memory");
            fc = L.fe;
        }
    }
}

/* The v2 renormalisation (ans2_renorm) with the word from the lane's
 * window (u: the words taken x 128, kwu: K x 128). */
static __device__ __forceinline__ void ans_win_renorm(uint64_t &x, uint32_t &nw, uint32_t &u, uint32_t kwu,
                                                      uint32_t sh)
{
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
    bool rn = hi == 0u && lo < 0x80000000u;
    hi = rn ? lo : hi;
    lo = rn ? nw : lo;
    u += rn ? 128u : 0u;
    if (rn && u < kwu)
        nw = ans2_lds32(sh + (u & ANS_WIN_ROWS));
    asm("mov.b64 %0, {%1, %2};" : "=l"(x) : "r"(lo), "r"(hi));
}

/* The words of a v2 lane from its window (FAST tables only: PB <= 11):
 * u counts the words taken x 128 (kwu: K x 128), fc the words known to
 * have landed; the windows are topped up before each block of steps
 * (ans_win_top), and no copy may still be in flight at the end, when the
 * next group's windows reuse the slots.  The head was read by
 * ans_win_start. */
struct ans_words_win {
    typedef struct {
        ans_win_lane *L;
        uint32_t fc, kwu, u, sh, nw;
    } st;
    static __device__ __forceinline__ uint64_t start(st *w)
    {
        asm volatile("cp.async.wait_group 0;" ::: "memory"); /* the first window */
        w->fc = w->L->fe;
        w->kwu = w->L->kw << 7; /* K < 2^16: no overflow */
        w->u = 0;
        w->sh = w->L->sh;
        w->nw = w->L->kw ? ans2_lds32(ans_win_at(w->sh, 0)) : 0u;
        uint64_t x = w->L->s;
        if (x < ANS2_L) {
            x = (x << 32) | w->nw;
            w->u += 128u;
            if (w->u < w->kwu)
                w->nw = ans2_lds32(ans_win_at(w->sh, 1));
        }
        return x;
    }
    static __device__ __forceinline__ void top(st *w) { ans_win_top(*w->L, w->u >> 7, w->fc); }
    static __device__ __forceinline__ void renorm(st *w, uint64_t &x)
    {
        ans_win_renorm(x, w->nw, w->u, w->kwu, w->sh);
    }
    static __device__ __forceinline__ void last(st *w, uint64_t &x)
    {
        if (x < ANS2_L) {
            x = (x << 32) | w->nw;
            w->u += 128u;
        }
    }
    static __device__ __forceinline__ int bad(st *w, uint64_t x)
    {
        asm volatile("cp.async.wait_group 0;" ::: "memory");
        return w->L->s == 0 || w->u != w->kwu || x != ANS2_L;
    }
};

/* A windowed tile on the path its output calls for (ans_decode_any's
 * conventions: out is the first byte, or for 16-bit values out - 1 the
 * first value). */
template <bool WRITE>
static __device__ __forceinline__ oc_status ans_win_decode(const uint32_t *dt, uint32_t pb, ans_win_lane &L,
                                                           uint32_t cnt, uint8_t *out, uint32_t stride,
                                                           const uint8_t *lo)
{
    ans_words_win::st w = {&L, 0, 0, 0, 0, 0};
    if (stride == 1)
        return ans2_tile_steps<WRITE, 1, true, ans_words_win>(dt, pb, &w, cnt, out, lo);
    if (WRITE)
        out -= 1;
    if (((uintptr_t)out & 1u) == 0)
        return ans2_tile_steps<WRITE, 2, true, ans_words_win>(dt, pb, &w, cnt, out, lo);
    return ans2_tile_steps<WRITE, 3, true, ans_words_win>(dt, pb, &w, cnt, out, lo);
}

/* The last symbol whose cumulative frequency c is <= slot: the slot's
 * symbol (c of a validated table: f > 0 for it, since sum f = 2^PB). */
static __device__ __forceinline__ uint32_t ans_slot_sym(const uint16_t *c, uint32_t slot)
{
    uint32_t lo = 0, hi = 255;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1u) >> 1;
        if (c[mid] <= slot)
            lo = mid;
        else
            hi = mid - 1u;
    }
    return lo;
}

/* The decode table of 2^PB slots from f and c (shared) by the CTA's
 * threads (nt of them, a power of 2 >= 64): each takes 2^PB / nt consecutive slots (a slot each
 * when the table is smaller than the CTA), finds the symbols of two of
 * them by binary searches over c and walks its slots, stepping to the next
 * symbol at a symbol's end; lane L starts L slots into its range and
 * wraps, so the lanes' stores fall in different banks.  Version 2 with PB
 * <= 11 (fast, what the encoder writes) keeps f itself in the top 12 bits,
 * else the core's entry (f - 1: PB 12 allows f = 4096).  The loop it
 * replaces (a warp per symbol, a dependent shared load per symbol, all 256
 * visited) took ~23k cycles of a ~100k-cycle group (ans_dev's prof, H100). */
static __device__ __forceinline__ void ans_fill_table(uint32_t *dt, const uint16_t *f, const uint16_t *c,
                                                      uint32_t pb, bool fast, uint32_t nt)
{
    uint32_t m = 1u << pb, t = threadIdx.x, per = m / nt, base = t * per;
    if (per == 0) { /* PB below log2(nt) */
        per = t < m ? 1u : 0u;
        base = t;
    }
    if (per == 0)
        return;
    uint32_t r = (t & 31u) & (per - 1u); /* per is a power of 2 */
    uint32_t sym1 = ans_slot_sym(c, base), sym = ans_slot_sym(c, base + r);
    uint32_t fs = f[sym], cs = c[sym];
    for (uint32_t k = 0; k < per; k++) {
        uint32_t slot = base + ((r + k) & (per - 1u));
        if (k && slot == base) { /* wrapped: the range's first slot */
            sym = sym1;
            fs = f[sym];
            cs = c[sym];
        }
        while (slot >= cs + fs && sym < 255u) {
            sym++;
            fs = f[sym];
            cs = c[sym];
        }
        uint32_t j = slot - cs;
        dt[slot] = fast ? sym | (j << 8) | (fs << 20) : sym | ((fs - 1u) << 8) | (j << 20);
    }
}

/* A group of NW tiles of one chunk by a CTA of as many warps: warp
 * 0 finds the chunk (oc_chunk_of_warp); each warp reads its tile's head
 * and (version 2, PB <= 11, aligned) requests its lanes' first windows;
 * warp 0 reads the frequency table and the CTA builds the decode table
 * (ans_fill_table) while the copies fly; each warp then decodes its tile,
 * its words through the windows (ans_win_decode) or, for the other
 * tiles, from global memory. */
template <uint32_t NW>
static __global__ void __launch_bounds__(ANS_DTHREADS(NW), ANS_WIN_MINB(NW))
    ans_k_groups(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    extern __shared__ uint32_t ans_sm[]; /* ANS_GROUPS_SMEM(NW) bytes: the table, the windows */
    __shared__ uint16_t f[256], c[256];
    __shared__ uint32_t pb;
    __shared__ size_t chunk;
    __shared__ ans_chunk k;
    uint32_t *dt = ans_sm;
    unsigned long long total = s.first[n];
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t ring = (uint32_t)__cvta_generic_to_shared(ans_sm + ANS_DT_FAST) + warp * ANS_WIN * 128u;
    (void)src_sizes;
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
                    const uint8_t *lo = p + k.limit + tfirst; /* 16-bit data: the tile's low bytes */
                    uint32_t stride = k.sh.split ? 2u : 1u;
                    if (win)
                        st = o ? ans_win_decode<true>(dt, pb, L, cnt, o, stride, lo)
                               : ans_win_decode<false>(dt, pb, L, cnt, o, 1u, lo);
                    else
                        st = o ? ans_decode_any<true>(k.version, dt, pb, p + a, b - a, cnt, o, stride, lo)
                               : ans_decode_any<false>(k.version, dt, pb, p + a, b - a, cnt, o, 1u, lo);
                }
                if (st != OC_OK && lane == 0)
                    atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
            }
        }
        /* the stored bytes of this group's symbols (a v2 tile decoder wrote the low
         * bytes of 16-bit values with their high bytes; coded bytes have none) */
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

/* ---- compression (version 2) --------------------------------------------------------- */

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

#define ANS2_EPF_L2 16u   /* a lane's symbols prefetched to L2 this many steps ahead */
#define ANS_HIST_AHEAD 8u /* the dev encoders' histogram: byte loads a thread has in flight */
#define ANS_HIST_VEC 4u   /* the histogram's 16-byte loads a thread has in flight */
/* Words a lane's stage holds (odd: lanes emitting their m-th words at once hit 32 banks), by the
 * symbols' width: bytes (text: ~85 words a lane of 512 symbols) 99, 4 CTAs an SM, 12% of text
 * tiles re-coded; 16-bit data (bf16 exponents: ~48 words) 61, 10 CTAs of 2 warps an SM (6 of 4
 * before session 12) (bench/gpu/owncodecs/NOTES.md, session 11: one-99f and one-61f; session 12) */
#define ANS_ESTAGE1 99u
#define ANS_ESTAGE2 61u
#define ANS_WARPS2 2u                                 /* the 16-bit encoder's CTA: a 64 KiB chunk's 2 tiles */
#define ANS_ENC_SMEM_W(W, S) ((W)*ANS_LANES * (S)*4u) /* the encoder's stages (dynamic) */
#define ANS_ENC_SMEM(S) ANS_ENC_SMEM_W(ANS_WARPS, S)

/* A symbol's 16-byte step entry: the reciprocal m (x, y), the
 * renormalisation bound f 2^(31-PB) on the state's high half (z), and
 * w = bias | (2^PB - f) << 13 | s << 26, for
 *   q = mulhi64(x, m) >> s,  x' = x + bias + q (2^PB - f),
 * which is the core's (x / f) 2^PB + x % f + c exactly: for f >= 2, m and
 * s = sh - 1 as ans2_esym's and bias = c; for f = 1, m = 2^64 - 1 and
 * s = 0 give q = x - 1 (x > 0) and bias = c + 2^PB - 1 makes x' = x 2^PB + c
 * (so no branch on f = 1). */
static __device__ void ans2_fentry(uint32_t f, uint32_t c, uint32_t pb, uint4 *e)
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
 * the lane's stage of S words (shared address sb) at index min(nw, S - 1):
 * a tile with a lane past its stage is coded again, so a clamped slot is
 * never read. */
template <uint32_t S>
static __device__ __forceinline__ void ans2_fstep(uint4 e, uint64_t &x, uint32_t &nw, uint32_t sb)
{
    uint32_t xh = (uint32_t)(x >> 32);
    bool r = xh >= e.z;
    if (r)
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(sb + 4u * min(nw, S - 1u)), "r"((uint32_t)x));
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
template <uint32_t S, bool SPLIT>
static __device__ __forceinline__ uint32_t ans2_flane(const uint4 *fe, const uint8_t *data, uint64_t first,
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
                ans2_fstep<S>(fe[w[j]], x, nw, sb);
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
                    ans2_fstep<S>(fe[w[j]], x, nw, sb);
#pragma unroll
            for (uint32_t j = 0; j < 4; j++)
                w[j] = nx[j];
            p0 -= 4u * BK;
        }
    }
    if (x >> 32) { /* the stored state is 32 bits: its low half becomes the lane's first word */
        stage[min(nw, S - 1u)] = (uint32_t)x;
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
static __device__ uint32_t ans2_glane(const uint4 *fe, const uint8_t *data, uint32_t split, uint64_t first,
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

/* The core's ans_normalize (the same f, c, nsym, bytes: the CPU's table) with
 * f = max(1, count 2^PB / total) by every thread, then the rest by warp 0:
 * lane L owns symbols 8L..8L+7.  The most frequent symbol is the smallest on
 * ties (the core's strict > from symbol 0), the excess loop's largest f
 * likewise; both by a max over (value << 8 | 255 - s). */
template <uint32_t NT = ANS_THREADS>
static __device__ void ans_normalize_warp(const uint32_t *counts, uint64_t total, uint32_t pb, ans_table *t)
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

/* The table's bytes as the core's ans_table_write writes them (PB, the
 * presence map, each present symbol's f - 1 in PB bits from byte 33, zero
 * bits and bytes after), built in shared memory tbw (ANS_TBW words) by
 * warp 0's lanes at once: lane L the presence byte of symbols 8L..8L+7 and
 * their bits, placed by a warp scan of the lanes' present counts.  The core
 * writes them a bit at a time, each bit a read-modify-write of a global
 * byte: ~1000 dependent round trips a text chunk on one thread, which the
 * CTA's other warps waited for (bench/gpu/owncodecs/NOTES.md, session 12). */
#define ANS_TBW 128u /* words: 33 + 256 x 12 / 8 = 417 bytes at most, and the zeros to 4-byte alignment */
static __device__ void ans_table_build_warp(const ans_table *t, uint32_t *tbw)
{
    uint32_t lane = threadIdx.x & 31u, pres = 0, f[8];
    __syncwarp(); /* lane 0 wrote t->pb, each lane its own symbols' f */
    const uint32_t pb = t->pb;
    for (uint32_t i = lane; i < ANS_TBW; i += 32)
        tbw[i] = 0;
    __syncwarp();
#pragma unroll
    for (uint32_t j = 0; j < 8; j++) {
        f[j] = t->f[8u * lane + j];
        pres |= (f[j] != 0 ? 1u : 0u) << j;
    }
    uint32_t np = (uint32_t)__popc(pres), pos = 8u * 33u + pb * (own_warp_incl_add32(np) - np);
    if (lane == 0)
        atomicOr(&tbw[0], pb);
    atomicOr(&tbw[(1u + lane) / 4u], pres << (8u * ((1u + lane) % 4u)));
#pragma unroll
    for (uint32_t j = 0; j < 8; j++) {
        if (f[j]) {
            uint32_t v = f[j] - 1u, w = pos >> 5, sh = pos & 31u;
            atomicOr(&tbw[w], v << sh);
            if (sh + pb > 32u)
                atomicOr(&tbw[w + 1u], v >> (32u - sh));
            pos += pb;
        }
    }
    __syncwarp();
}

/* A u32 to out + 4 o: one store where `al` (out 4-aligned), else bytes. */
static __device__ __forceinline__ void ans_put32(uint8_t *out, uint32_t o, uint32_t v, bool al)
{
    if (al)
        reinterpret_cast<uint32_t *>(out)[o] = v;
    else
        oc_store_le32(out + 4ull * o, v);
}

/* A CTA of W warps per chunk (a persistent grid over chunks); see the
 * file's head; S: the words of a lane's stage.  The stages (dynamic shared
 * memory, ANS_ENC_SMEM_W(W, S)) also hold the histogram's counters (per
 * warp for bytes, lane columns for 16-bit data) before the coding.  The
 * tiles are coded in rounds of W, a warp a tile, each tile once: the
 * round's tiles staged, placed after the tiles before (a running offset),
 * copied out; the mode (coded or stored) is the last round's, a stored
 * chunk overwriting what earlier rounds wrote, and no tile is written past
 * cap less the low bytes. */
template <uint32_t S, uint32_t W>
static __global__ void __launch_bounds__(32u * W)
    ans_k_encode(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype)
{
    constexpr uint32_t NT = 32u * W;
    extern __shared__ uint32_t ans_stages[]; /* W x 32 lanes x S words */
    __shared__ uint32_t counts[256];
    __shared__ ans_table t;
    __shared__ uint4 fe[256];
    __shared__ uint32_t tw[W], tov[W];
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t w = own_type_width(dtype);
    uint32_t(*wcounts)[256] = reinterpret_cast<uint32_t(*)[256]>(ans_stages);
    /* 16-bit data's lane columns: HC of them, the most the stages hold (a power of two, <= 32) */
    constexpr uint32_t HW = W * ANS_LANES * S / 256u;
    constexpr uint32_t HC = HW >= 32u ? 32u : HW >= 16u ? 16u : HW >= 8u ? 8u : HW >= 4u ? 4u : 1u;
    uint32_t *hcols = ans_stages;
    const uint32_t hc = lane & (HC - 1u);
    uint32_t *stage = ans_stages + (size_t)warp * ANS_LANES * S;
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
            for (uint32_t s = threadIdx.x; s < (sh.split ? 256u * HC : W * 256u); s += NT)
                ans_stages[s] = 0; /* wcounts, or hcols */
            __syncthreads();
            /* the histogram: bytes into each warp's counters by shared atomics, 16-bit data's
             * exponent bytes (few distinct values, so a warp's 32 often share one) into HC lane
             * columns (lane L's counter of s at word HC s + L % HC: HC lanes at once on HC banks,
             * no match_any); the symbol bytes read as 16-byte vectors from the first 16-byte
             * boundary, ANS_HIST_VEC a thread at once (8 DRAM round trips for 64 KiB, whatever the
             * chunk's alignment), and the at most 30 bytes before and after them one a thread */
            const bool wh = !sh.split;
            const uint64_t L = sh.split ? 2u * sh.nsym : len; /* the bytes holding the symbols */
            const uint64_t h0 = (16u - ((uintptr_t)p & 15u)) & 15u, h = h0 < L ? h0 : L;
            const uint64_t n16 = (L - h) / 16u, e0 = h + 16u * n16; /* edge bytes: [0, h), [e0, L) */
            const uint32_t par = (uint32_t)(h + 1u) & 1u; /* 16-bit data: its symbols' bytes' parity */
            const uint4 *p4 = reinterpret_cast<const uint4 *>(p + h);
            for (uint64_t b0 = 0; b0 < n16; b0 += NT * ANS_HIST_VEC) { /* CTA-uniform */
                uint4 v[ANS_HIST_VEC];
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_VEC; u++) {
                    uint64_t i = b0 + (uint64_t)u * NT + threadIdx.x;
                    v[u] = i < n16 ? __ldg(p4 + i) : make_uint4(0, 0, 0, 0);
                }
#pragma unroll
                for (uint32_t u = 0; u < ANS_HIST_VEC; u++) {
                    if (b0 + (uint64_t)u * NT + threadIdx.x >= n16)
                        continue;
                    uint32_t wd[4] = {v[u].x, v[u].y, v[u].z, v[u].w};
                    if (wh) {
#pragma unroll
                        for (uint32_t k = 0; k < 16; k++)
                            atomicAdd(&wcounts[warp][(wd[k / 4] >> (8 * (k % 4))) & 255u], 1u);
                    } else {
#pragma unroll
                        for (uint32_t k = 0; k < 8; k++) /* bytes par, par + 2, ... of the vector */
                            atomicAdd(&hcols[((wd[k / 2] >> (8 * (2 * (k % 2) + par))) & 255u) * HC + hc],
                                      1u);
                    }
                }
            }
            for (uint64_t j = threadIdx.x; j < h + (L - e0); j += NT) {
                uint64_t o = j < h ? j : e0 + (j - h);
                uint32_t sy = p[o];
                if (wh)
                    atomicAdd(&wcounts[warp][sy], 1u);
                else if (o & 1u)
                    atomicAdd(&hcols[sy * HC + hc], 1u);
            }
            __syncthreads();
            for (uint32_t s = threadIdx.x; s < 256; s += NT) {
                uint32_t sum = 0;
                if (wh) {
#pragma unroll
                    for (uint32_t w2 = 0; w2 < W; w2++)
                        sum += wcounts[w2][s];
                } else {
#pragma unroll
                    for (uint32_t c = 0; c < HC; c++) /* rotated by s: a warp's reads spread over banks */
                        sum += hcols[s * HC + ((c + s) & (HC - 1u))];
                }
                counts[s] = sum;
            }
            __syncthreads();
            if (sh.nsym) {
                ans_normalize_warp<NT>(counts, sh.nsym, ANS_PB, &t);
                if (warp == 0) /* the counts are spent: their words take the table's bytes */
                    ans_table_build_warp(&t, counts);
            }
            __syncthreads();
            if (sh.nsym)
                for (uint32_t s = threadIdx.x; s < 256; s += NT)
                    ans2_fentry(t.f[s] ? t.f[s] : 1u, t.c[s], ANS_PB, &fe[s]);
            __syncthreads();
            uint64_t head = OWN_HEADER_SIZE + 1u + t.bytes;
            head += (4u - head % 4u) % 4u;
            const uint64_t tab = head, base = tab + 4ull * sh.ntiles;
            const uint64_t stored = OWN_HEADER_SIZE + 1u + sh.nsym;
            /* the tiles end at `lim` at most: past it the chunk is stored or too large anyway */
            const uint64_t lim = cap >= sh.lo + sh.tail ? cap - sh.lo - sh.tail : 0u;
            uint64_t off = 0; /* the tiles of the rounds before: their bytes (CTA-uniform) */
            for (uint32_t r0 = 0; sh.nsym && r0 < sh.ntiles; r0 += W) { /* CTA-uniform */
                const uint32_t tile = r0 + warp;
                const bool last = r0 + W >= sh.ntiles;
                uint32_t kw = 0, xs = 0;
                if (tile < sh.ntiles) {
                    uint64_t first = (uint64_t)tile * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile);
                    kw = sh.split ? ans2_flane<S, true>(fe, p, first, cnt, lane, stage + lane * S, &xs)
                                  : ans2_flane<S, false>(fe, p, first, cnt, lane, stage + lane * S, &xs);
                    uint32_t sum = own_warp_sum32(kw);
                    uint32_t ov = __any_sync(OWN_FULL, kw > S);
                    if (lane == 0) {
                        tw[warp] = sum;
                        tov[warp] = ov;
                    }
                }
                __syncthreads();
                uint64_t rsum = 0, mine = 0; /* the round's bytes; those of its tiles before this warp's */
                for (uint32_t k = 0; k < W && r0 + k < sh.ntiles; k++) {
                    mine += k < warp ? ANS2_TILE_HEAD + 4ull * tw[k] : 0u;
                    rsum += ANS2_TILE_HEAD + 4ull * tw[k];
                }
                bool put = true; /* the last round: coded and fitting (the CPU's rule); before it: lim */
                if (last) {
                    uint64_t coded = base + off + rsum;
                    put = coded < stored && coded + sh.lo + sh.tail <= cap;
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
                            const uint32_t *sL = stage + L * S + nL - 1u;
                            for (uint32_t j = lane; j < nL; j += 32)
                                ans_put32(wo, eL + j, *(sL - j), al);
                        }
                    } else { /* a lane past its stage: the tile again, straight to its place */
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile), x;
                        ans2_glane(fe, p, sh.split, first, cnt, lane, wo + 4ull * incl, &x);
                    }
                }
                off += rsum;
                if (!last)
                    __syncthreads(); /* the stages and tw are the next round's */
            }
            uint64_t coded = sh.nsym ? base + off : ~0ull;
            uint32_t mode = coded < stored;
            total = (mode ? coded : stored) + sh.lo + sh.tail;
            if (total > cap) {
                st = OC_ERR_OUTPUT_TOO_SMALL;
            } else {
                uint64_t pos = OWN_HEADER_SIZE + 1u;
                if (threadIdx.x == 0) {
                    own_header_write_v(d, OWN_ID_ANS, ANS_VERSION, dtype, 0, (uint32_t)len);
                    d[OWN_HEADER_SIZE] = (uint8_t)mode;
                }
                if (mode) {
                    /* the table and the zeros after it (ans_table_build_warp's bytes) */
                    for (uint64_t j = threadIdx.x; j < head - pos; j += NT)
                        d[pos + j] = reinterpret_cast<const uint8_t *>(counts)[j];
                    pos = coded;
                } else {
                    if (sh.ntiles > W)
                        __syncthreads(); /* the earlier rounds' tiles before the stored bytes over them */
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

/* ---- the codec -------------------------------------------------------------------- */

static const own_gpu_kernels ans_kernels = {
    (const void *)ans_k_headers<4>, /* headers: groups of 4 tiles */
    (const void *)ans_k_groups<4>,  /* tiles: a group of 4 tiles per CTA of 4 warps */
    ANS_DTHREADS(4),                /* tile_threads */
    ANS_GROUPS_SMEM(4),             /* tile_smem: the decode table and the warps' windows */
    (const void *)ans_k_encode<ANS_ESTAGE1, ANS_WARPS>, /* encode: 1-byte symbols */
    ANS_THREADS,                                        /* encode_threads */
    ANS_ENC_SMEM(ANS_ESTAGE1),                          /* encode_smem: the lanes' word stages */
    ans_encode_args};

/* The same codec for 16-bit data: smaller encoder stages and CTAs of 2 warps
 * for both directions, since a 64 KiB chunk of 16-bit values has 2 tiles
 * and half of a 4-warp CTA would idle.  Decoding: 12 CTAs of 2 warps an SM,
 * 80 registers; H200, 1 GiB (bench/gpu/owncodecs/NOTES.md, session 12):
 * bf16 in 64 KiB chunks 1.21x the 4-warp decoder (902-906 GB/s), in 1 MiB
 * chunks 0.98-0.99x; text, if a caller calls it 16-bit, 0.82x. */
static const own_gpu_kernels ans_kernels_w2 = {(const void *)ans_k_headers<2>,
                                               (const void *)ans_k_groups<2>,
                                               ANS_DTHREADS(2),
                                               ANS_GROUPS_SMEM(2),
                                               (const void *)ans_k_encode<ANS_ESTAGE2, ANS_WARPS2>,
                                               ANS_WARPS2 * 32u,
                                               ANS_ENC_SMEM_W(ANS_WARPS2, ANS_ESTAGE2),
                                               ans_encode_args};

/* The kernel table of the caller's data type: 16-bit data takes the 2-warp
 * CTAs both ways.  For decoding (and the size query, which decodes every
 * tile) the type is a hint of the chunks' shape only: any chunk decodes
 * with either table, to the same bytes and statuses. */
static const own_gpu_kernels *ans_kernels_of(const oc_gpu_config *cfg)
{
    return own_type_width((uint32_t)oc_typed_data_type(&cfg->typed)) == 2 ? &ans_kernels_w2 : &ans_kernels;
}

static oc_status ans_compress_typed(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                                    const void *const *src, const size_t *src_sizes, void *const *dst,
                                    const size_t *caps, size_t *dst_sizes, oc_status *statuses,
                                    cudaStream_t stream)
{
    (void)scratch, (void)scratch_size;
    return oc_own_gpu_compress(ans_kernels_of(cfg), cfg, n, src, src_sizes, dst, caps, dst_sizes, statuses,
                               stream);
}

static oc_status ans_decompress_typed(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                                      const void *const *src, const size_t *src_sizes, void *const *dst,
                                      const size_t *caps, size_t *dst_sizes, oc_status *statuses,
                                      cudaStream_t stream)
{
    return oc_own_gpu_decompress(ans_kernels_of(cfg), scratch, scratch_size, n, src, src_sizes, dst, caps,
                                 dst_sizes, statuses, stream);
}

static oc_status ans_sizes_typed(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                                 const void *const *src, const size_t *src_sizes, void *const *dst,
                                 const size_t *caps, size_t *dst_sizes, oc_status *statuses,
                                 cudaStream_t stream)
{
    (void)dst, (void)caps;
    return oc_own_gpu_sizes(ans_kernels_of(cfg), scratch, scratch_size, n, src, src_sizes, dst_sizes,
                            statuses, stream);
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_ans = {
    NULL, ans_compress_typed, oc_own_gpu_decompress_scratch, ans_decompress_typed, ans_sizes_typed};
