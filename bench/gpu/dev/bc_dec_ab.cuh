/*
 * bc_dec_ab.cuh - why this exists: session 10 moved the Bitcomp decoder's
 * element loops and stage to GPU-specific code (src/cuda/codecs/bitcomp/
 * bitcomp_dec_gpu.cuh: 32-bit arithmetic for 1-4 byte elements, the kind
 * switched on once a block, PLANES by a run table, the stage by aligned
 * words).  bc_dev keeps the decoders it is measured against: core (the
 * core's tile decoder, bitcomp_core.h's bc_decode_tile: the library's
 * before session 10) and 4-ctas (the library's without its bound of 6
 * CTAs an SM, the shared-memory limit: the library's before session 12).  The variants measured on
 * the way (dec32, dec32-6, dec-all, dec-in) and their numbers are in
 * bench/gpu/owncodecs/NOTES.md.
 */
#ifndef BC_DEC_AB_CUH
#define BC_DEC_AB_CUH

/* core: the core's tile decoder, the library's bounds. */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles_core(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                    own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode, BCK_WARPS);
}

/* 4-ctas: the library's tile decoder without its bound of 6 CTAs an SM
 * (64 registers, 4 CTAs: the library's before session 12). */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles_4(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode_gpu, BCK_WARPS);
}

#endif /* BC_DEC_AB_CUH */
