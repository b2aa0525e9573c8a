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
 * "xrank" (exceptions handed out by rank: one __reduce_or_sync and one
 * shuffle a round) measured in call B2 at 1.16-1.18x the library on bf16
 * and f32 (PFLT), 0.98x on orderkey (PDELTA), and moved into the library
 * for PFLT blocks (bc_dec_xrank32/64).  bc_dev keeps "patch32", the
 * library's loops before (every block a step an exception).
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

/* patch32: the library's patched loops before xrank moved in (every exception a step). */
struct bcx_patched_p32 {
    static __device__ __forceinline__ void run(const uint32_t *S, const bc_block *bl, uint8_t *out,
                                               uint32_t w)
    {
        if (w == 4)
            bc_dec_patched32<4>(S, bl, out);
        else if (w == 2)
            bc_dec_patched32<2>(S, bl, out);
        else if (w == 1)
            bc_dec_patched32<1>(S, bl, out);
        else
            bc_dec_patched64(S, bl, out);
    }
};
static __device__ oc_status bcx_tile_decode_p32(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                                const own_tiled *k, uint8_t *out, uint32_t nw)
{
    return bc_decode_tile_gpu<bcx_patched_p32>((bc_ws *)ws, tile, len, cnt, k->dtype, k->version, out, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles_p32(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                   own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bcx_tile_decode_p32, BCK_WARPS);
}

#endif /* BC_PATCH_AB_CUH */
