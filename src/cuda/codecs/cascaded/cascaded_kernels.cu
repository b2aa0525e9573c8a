/*
 * cascaded_kernels.cu - the GPU Cascaded codec (gpu_codec.h): the format's
 * core (src/cores/cascaded/cascaded_core.h) run by CTAs of 8 warps, one
 * tile at a time, with the tile's workspace in dynamic shared memory
 * (decoding: 48.2 KiB, a stage and the layers' buffers; encoding: the
 * core's cz_ws, ~68 KiB); the CPU codec runs the same core, so the bytes
 * and statuses are the same on both engines.
 *
 * Decoding: the tile list of own_tiles.cuh (headers -> scan of tile
 * counts -> a persistent grid over every tile of the batch -> statuses),
 * so a single large chunk decodes on every SM; a tile is decoded by
 * cascaded_tile_decode.cuh (warp 0 finding the tiles for the CTA, the
 * next tile prefetched into L2 while one decodes,
 * the core's checks by every warp, then layers undone with a thread's
 * consecutive elements in registers; nVCOMP's layers on 4- and 8-byte
 * types in one pass), not by the core's cz_decode_tile,
 * which stays the CPU's decoder.  Compressing: a persistent
 * grid over chunks, a CTA writes its chunk's tiles in order (a tile's
 * place depends on the sizes of the tiles before it).  The header, tile
 * and encode kernels' bodies are own_tiles.cuh's, shared with Bitcomp,
 * run with this core's chunk check, tile decoder and chunk compressor;
 * the launches, the scan, the statuses and the scratch are the batch
 * driver's (own_common/own_batch.cu), shared with Bitcomp and ANS.
 */
#include "../../../common/typed_options.h"
#include "../../../cores/cascaded/cascaded_core.h"
#include "../own_common/own_tiles.cuh"
#include "cascaded_tile_decode.cuh"

#define CZ_WARPS 8u
#define CZ_THREADS (CZ_WARPS * 32u)
static_assert(CZ_THREADS == CZG_THREADS, "the tile decoder's CTA is the tile kernel's");

/* ---- decoding ------------------------------------------------------------- */

/* One thread per chunk: the header checks (the core's), the tile count,
 * the trailing bytes that are not a whole element. */
static __global__ void cz_k_headers(size_t n, const void *const *src, const size_t *src_sizes,
                                    void *const *dst, const size_t *caps, own_batch_scratch s)
{
    own_tiled_headers(n, src, src_sizes, dst, caps, s, cz_chunk_check);
}

/* A persistent grid over the batch's tiles, 4 CTAs an SM (the workspace
 * is 48.2 KiB, 64 registers), decoded by the GPU's tile decoder
 * (cascaded_tile_decode.cuh: the core's bytes and statuses, not its
 * one-lane-per-element phases). */
static __global__ void __launch_bounds__(CZ_THREADS, 4)
    cz_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
               own_batch_scratch s)
{
    czg_tiles(n, src, src_sizes, dst, s);
}

/* ---- compression ------------------------------------------------------------ */

static __global__ void __launch_bounds__(CZ_THREADS)
    cz_k_encode(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, cz_layers L)
{
    extern __shared__ __align__(16) unsigned char cz_smem[];
    cz_ws *ws = (cz_ws *)cz_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         return cz_compress_chunk(ws, p, len, dtype, L, d, cap, out, CZ_WARPS);
                     });
}

/* The encoder's trailing arguments: the data type, the layers. */
static void cz_encode_args(const oc_gpu_config *cfg, own_encode_args *a)
{
    cz_layers L;
    oc_typed_cascaded(&cfg->typed, &L.rles, &L.deltas, &L.bitpack);
    uint32_t dtype = (uint32_t)oc_typed_data_type(&cfg->typed);
    own_encode_arg(a, &dtype, sizeof dtype);
    own_encode_arg(a, &L, sizeof L);
}

/* ---- the codec -------------------------------------------------------------- */

static const own_gpu_kernels cz_kernels = {(const void *)cz_k_headers, /* headers */
                                           (const void *)cz_k_tiles,   /* tiles: a tile per CTA */
                                           CZ_THREADS,                 /* tile_threads */
                                           CZG_WS_ONESTAGE,           /* tile_smem: the decoder's workspace */
                                           (const void *)cz_k_encode, /* encode */
                                           CZ_THREADS,                /* encode_threads */
                                           sizeof(cz_ws),             /* encode_smem */
                                           cz_encode_args};

OWN_GPU_LAUNCHES(cz, cz_kernels)

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_cascaded = {
    NULL, cz_compress, oc_own_gpu_decompress_scratch, cz_decompress, cz_sizes};
