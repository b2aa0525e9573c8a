/*
 * bc_patch_ab.cuh - why this exists: format version 2's patched blocks
 * (PDELTA, PFLT: bench/gpu/owncodecs/NOTES.md, session 11) decode in the
 * library by the core's loop (bitcomp_core.h's bc_dec_patched_block: 64-bit
 * arithmetic, own_bits_get, bc_store, for every width), out of line.  This
 * is the candidate measured against it in bc_dev ("patch32"): the same
 * values by the library's style of loop - 32-bit arithmetic and bc_get32
 * for 1-4 byte elements, bc_get64 for 8, the lane's exception read once a
 * block (not once a round), typed stores with the alignment checked once a
 * block.  Prediction (before any run): bf16 PFLT and orderkey PDELTA
 * decode 1.2-1.6x the library's patched loop.
 */
#ifndef BC_PATCH_AB_CUH
#define BC_PATCH_AB_CUH

template <uint32_t W>
static __device__ __forceinline__ void bcx_patched32(const uint32_t *S, const bc_block *bl, uint8_t *out)
{
    const uint32_t m = W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u, L = OWN_LANE();
    const uint32_t d = bl->kind == BC_PDELTA, k = bl->k, kx = bl->kx, nx = bl->nx, cnt = bl->cnt;
    const uint32_t p0 = (uint32_t)bl->poff, km = bc_mask32(k), x0 = p0 + (cnt - d) * k;
    const uint32_t a = (uint32_t)bl->a, bb = (uint32_t)bl->b;
    const int al = ((uintptr_t)out & (W - 1u)) == 0;
    uint32_t xp = 0xffffffffu, xh = 0; /* this lane's exception (none: a position no round holds) */
    if (L < nx) {
        uint32_t q = x0 + L * (7u + kx);
        xp = bc_get32(S, q, 0x7fu);
        xh = bc_get32(S, q + 7u, bc_mask32(kx)); /* k + kx <= 32 */
    }
    uint32_t carry = 0;
    for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
        uint32_t e = base + L;
        uint32_t r = e < cnt && e >= d ? bc_get32(S, p0 + (e - d) * k, km) : 0u;
        uint32_t ball = __ballot_sync(OWN_FULL, xp - base < 32u);
        while (ball) {
            uint32_t src = (uint32_t)__ffs((int)ball) - 1u;
            ball &= ball - 1u;
            uint32_t pp = __shfl_sync(OWN_FULL, xp, (int)src), hh = __shfl_sync(OWN_FULL, xh, (int)src);
            if (pp == e && e >= d && kx)
                r |= hh << k; /* kx > 0: k < 32 */
        }
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

static __device__ __forceinline__ void bcx_patched64(const uint32_t *S, const bc_block *bl, uint8_t *out)
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
    uint64_t carry = 0;
    for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
        uint32_t e = base + L;
        uint64_t r = e < cnt && e >= d ? bc_get64(S, p0 + (e - d) * k, km) : 0u;
        uint32_t ball = __ballot_sync(OWN_FULL, xp - base < 32u);
        while (ball) {
            uint32_t src = (uint32_t)__ffs((int)ball) - 1u;
            ball &= ball - 1u;
            uint32_t pp = __shfl_sync(OWN_FULL, xp, (int)src);
            uint64_t hh = __shfl_sync(OWN_FULL, xh, (int)src);
            if (pp == e && e >= d && kx)
                r |= hh << k; /* kx > 0: k < 64 */
        }
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

/* patch32: the loops above, inlined into the library's block loops. */
struct bcx_patched_fast {
    static __device__ __forceinline__ void run(const uint32_t *S, const bc_block *bl, uint8_t *out, uint32_t w)
    {
        if (w == 4)
            bcx_patched32<4>(S, bl, out);
        else if (w == 2)
            bcx_patched32<2>(S, bl, out);
        else if (w == 1)
            bcx_patched32<1>(S, bl, out);
        else
            bcx_patched64(S, bl, out);
    }
};

static __device__ oc_status bcx_tile_decode_p32(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                                const own_tiled *k, uint8_t *out, uint32_t nw)
{
    return bc_decode_tile_gpu<bcx_patched_fast>((bc_ws *)ws, tile, len, cnt, k->dtype, k->version, out, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles_p32(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                   own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bcx_tile_decode_p32, BCK_WARPS);
}

#endif /* BC_PATCH_AB_CUH */
