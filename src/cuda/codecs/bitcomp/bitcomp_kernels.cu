/*
 * bitcomp_kernels.cu - the GPU Bitcomp-class codec (gpu_codec.h): the
 * format's core (src/cores/bitcomp/bitcomp_core.h) run by CTAs of 8
 * warps, one tile (32 blocks of 128 elements) at a time, with the tile's
 * workspace (~35 KiB) in dynamic shared memory; the CPU codec runs the
 * same core, so the bytes and statuses are the same on both engines.
 *
 * Decoding: the tile list of own_tiles.cuh (headers -> scan of tile
 * counts -> a persistent grid over every tile of the batch -> statuses).
 * Compressing: a persistent grid over chunks, a CTA writes its chunk's
 * tiles in order.  The header, tile and encode kernels' bodies are
 * own_tiles.cuh's, shared with Cascaded, run with this core's chunk check,
 * tile decoder and chunk compressor; the launches, the scan, the statuses
 * and the scratch are the batch driver's (own_common/own_batch.cu), shared
 * with Cascaded and ANS.
 */
#include "../../../common/typed_options.h"
#include "../../../cores/bitcomp/bitcomp_core.h"
#include "../own_common/own_tiles.cuh"

#define BCK_WARPS 8u
#define BCK_THREADS (BCK_WARPS * 32u)

/* ---- decoding ------------------------------------------------------------- */

/* One thread per chunk: the header checks (the core's), the tile count,
 * the trailing bytes that are not a whole element. */
static __global__ void bc_k_headers(size_t n, const void *const *src, const size_t *src_sizes,
                                    void *const *dst, const size_t *caps, own_batch_scratch s)
{
    own_tiled_headers(n, src, src_sizes, dst, caps, s, bc_chunk_check);
}

/* A persistent grid over the batch's tiles. */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
               own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode, BCK_WARPS);
}

/* ---- compression ------------------------------------------------------------ */

/* 3 CTAs an SM (80 registers; ptxas spills ~64 bytes): 1.16-1.20x the 2
 * CTAs of 96 registers on the H100 (bc_dev, bench/gpu/owncodecs/NOTES.md). */
static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws *ws = (bc_ws *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         return bc_compress_chunk(ws, p, len, dtype, algo, d, cap, out, BCK_WARPS);
                     });
}

/* The encoder's trailing arguments: the data type, the algorithm_type. */
static void bc_encode_args(const oc_gpu_config *cfg, own_encode_args *a)
{
    uint32_t algo = (uint32_t)cfg->typed.algorithm_type;
    uint32_t dtype = (uint32_t)oc_typed_data_type(&cfg->typed);
    own_encode_arg(a, &dtype, sizeof dtype);
    own_encode_arg(a, &algo, sizeof algo);
}

/* ---- the codec -------------------------------------------------------------- */

static const own_gpu_kernels bc_kernels = {(const void *)bc_k_headers, /* headers */
                                           (const void *)bc_k_tiles,   /* tiles: a tile per CTA */
                                           BCK_THREADS,                /* tile_threads */
                                           sizeof(bc_ws),              /* tile_smem: the tile workspace */
                                           (const void *)bc_k_encode,  /* encode */
                                           BCK_THREADS,                /* encode_threads */
                                           sizeof(bc_ws),              /* encode_smem */
                                           bc_encode_args};

OWN_GPU_LAUNCHES(bc, bc_kernels)

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_bitcomp = {
    NULL, bc_compress, oc_own_gpu_decompress_scratch, bc_decompress, bc_sizes};
