/*
 * bc_patch_ab.cuh - why this exists: format version 2's patched blocks
 * (PDELTA, PFLT: bench/gpu/owncodecs/NOTES.md, session 11) first decoded in
 * the library by the core's loop (bitcomp_core.h's bc_dec_patched_block:
 * 64-bit arithmetic, own_bits_get, bc_store, for every width), out of line.
 * Session 11's call B measured "patch32" (32-bit loops in the library's
 * style) against it: 1.46-1.84x (bf16 157 -> 289, orderkey 604 -> 1000,
 * sorted_partkey 685 -> 1002, f32 283 -> 498 GB/s, H200, 1 GiB of 64 KiB
 * chunks), and patch32 moved into bitcomp_dec_gpu.cuh (bc_dec_patched32,
 * bc_dec_patched64).  bc_dev keeps the core's loop as "patch-core", the
 * decoder the library is measured against.
 *
 * "xrank" (prepared after call B, not yet run): the library's loops with
 * the exceptions handed out by rank instead of one at a time - a round's
 * exception bits are one __reduce_or_sync of the lanes' 1 << (pos & 31),
 * an element's high part one shuffle from lane carry + popc(bits below
 * it): ~8 instructions a round whatever the exceptions (the library: ~8 an
 * exception; bf16 blocks carry up to 32).  It needs the positions strictly
 * increasing (the encoder's); a block whose are not takes the library's
 * loop (the format allows any order: ORed).  Prediction: +20-40% on bf16
 * and f32 (PFLT), +5-10% on orderkey (~4 exceptions a block).
 */
#ifndef BC_PATCH_AB_CUH
#define BC_PATCH_AB_CUH

/* patch-core: the core's patched loop, out of line (inlined, it changed the
 * other kinds' register allocation: 48 registers + 20 bytes of spills). */
static __device__ __noinline__ void bcx_patched_core_block(const uint32_t *S, const bc_block *bl,
                                                           uint8_t *out, uint32_t w)
{
    bc_dec_patched_block(S, bl, out, w);
}

struct bcx_patched_core {
    static __device__ __forceinline__ void run(const uint32_t *S, const bc_block *bl, uint8_t *out,
                                               uint32_t w)
    {
        bcx_patched_core_block(S, bl, out, w);
    }
};

static __device__ oc_status bcx_tile_decode_pcore(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                                  const own_tiled *k, uint8_t *out, uint32_t nw)
{
    return bc_decode_tile_gpu<bcx_patched_core>((bc_ws *)ws, tile, len, cnt, k->dtype, k->version, out, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles_pcore(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                     own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bcx_tile_decode_pcore, BCK_WARPS);
}

/* xrank: 1-4 byte elements. */
template <uint32_t W>
static __device__ __forceinline__ void bcx_xrank32(const uint32_t *S, const bc_block *bl, uint8_t *out)
{
    const uint32_t m = W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u, L = OWN_LANE();
    const uint32_t d = bl->kind == BC_PDELTA, k = bl->k, kx = bl->kx, nx = bl->nx, cnt = bl->cnt;
    const uint32_t p0 = (uint32_t)bl->poff, km = bc_mask32(k), x0 = p0 + (cnt - d) * k;
    const uint32_t a = (uint32_t)bl->a, bb = (uint32_t)bl->b;
    const int al = ((uintptr_t)out & (W - 1u)) == 0;
    uint32_t xp = 0xffffffffu, xh = 0;
    if (L < nx) {
        uint32_t q = x0 + L * (7u + kx);
        xp = bc_get32(S, q, 0x7fu);
        xh = bc_get32(S, q + 7u, bc_mask32(kx));
    }
    uint32_t prev = __shfl_up_sync(OWN_FULL, xp, 1);
    if (__any_sync(OWN_FULL, L > 0 && L < nx && xp <= prev)) { /* not strictly increasing */
        bc_dec_patched32<W>(S, bl, out);
        return;
    }
    uint32_t carry = 0, xc = 0;
    for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
        uint32_t e = base + L;
        uint32_t r = e < cnt && e >= d ? bc_get32(S, p0 + (e - d) * k, km) : 0u;
        uint32_t word =
            __reduce_or_sync(OWN_FULL, L < nx && (xp >> 5) == (base >> 5) ? 1u << (xp & 31u) : 0u);
        uint32_t hh =
            __shfl_sync(OWN_FULL, xh, (int)((xc + (uint32_t)__popc(word & ((1u << L) - 1u))) & 31u));
        if (((word >> L) & 1u) && e >= d && kx)
            r |= hh << k; /* kx > 0: k < 32 */
        xc += (uint32_t)__popc(word);
        if (!d) {
            uint32_t y = (a - r) & m;
            if (e < cnt)
                bc_st32<W>(out, e, ((y >> 1) | ((y & 1u) << (8u * W - 1u))) & m, al);
        } else {
            uint32_t t = e < cnt ? (e == 0 ? a : bb + r) : 0u;
            uint32_t incl = own_warp_incl_add32(t);
            if (e < cnt)
                bc_st32<W>(out, e, (carry + incl) & m, al);
            carry += __shfl_sync(OWN_FULL, incl, 31);
        }
    }
}

/* xrank: 8-byte elements. */
static __device__ __forceinline__ void bcx_xrank64(const uint32_t *S, const bc_block *bl, uint8_t *out)
{
    const uint32_t L = OWN_LANE();
    const uint32_t d = bl->kind == BC_PDELTA, k = bl->k, kx = bl->kx, nx = bl->nx, cnt = bl->cnt;
    const uint32_t p0 = (uint32_t)bl->poff, x0 = p0 + (cnt - d) * k;
    const uint64_t km = own_mask64(k), a = bl->a, bb = bl->b;
    const int al = ((uintptr_t)out & 7u) == 0;
    uint32_t xp = 0xffffffffu;
    uint64_t xh = 0;
    if (L < nx) {
        uint32_t q = x0 + L * (7u + kx);
        xp = (uint32_t)bc_get64(S, q, 0x7fu);
        xh = bc_get64(S, q + 7u, own_mask64(kx));
    }
    uint32_t prev = __shfl_up_sync(OWN_FULL, xp, 1);
    if (__any_sync(OWN_FULL, L > 0 && L < nx && xp <= prev)) {
        bc_dec_patched64(S, bl, out);
        return;
    }
    uint64_t carry = 0;
    uint32_t xc = 0;
    for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
        uint32_t e = base + L;
        uint64_t r = e < cnt && e >= d ? bc_get64(S, p0 + (e - d) * k, km) : 0u;
        uint32_t word =
            __reduce_or_sync(OWN_FULL, L < nx && (xp >> 5) == (base >> 5) ? 1u << (xp & 31u) : 0u);
        uint64_t hh =
            __shfl_sync(OWN_FULL, xh, (int)((xc + (uint32_t)__popc(word & ((1u << L) - 1u))) & 31u));
        if (((word >> L) & 1u) && e >= d && kx)
            r |= hh << k; /* kx > 0: k < 64 */
        xc += (uint32_t)__popc(word);
        if (!d) {
            if (e < cnt)
                bc_st64(out, e, bc_rotr1(a - r, 64u), al);
        } else {
            uint64_t t = e < cnt ? (e == 0 ? a : bb + r) : 0u;
            uint64_t incl = own_warp_incl_add64(t);
            if (e < cnt)
                bc_st64(out, e, carry + incl, al);
            carry += own_warp_last64(incl);
        }
    }
}

struct bcx_patched_xrank {
    static __device__ __forceinline__ void run(const uint32_t *S, const bc_block *bl, uint8_t *out,
                                               uint32_t w)
    {
        if (w == 4)
            bcx_xrank32<4>(S, bl, out);
        else if (w == 2)
            bcx_xrank32<2>(S, bl, out);
        else if (w == 1)
            bcx_xrank32<1>(S, bl, out);
        else
            bcx_xrank64(S, bl, out);
    }
};

static __device__ oc_status bcx_tile_decode_xrank(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                                  const own_tiled *k, uint8_t *out, uint32_t nw)
{
    return bc_decode_tile_gpu<bcx_patched_xrank>((bc_ws *)ws, tile, len, cnt, k->dtype, k->version, out, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles_xrank(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                     own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bcx_tile_decode_xrank, BCK_WARPS);
}

#endif /* BC_PATCH_AB_CUH */
