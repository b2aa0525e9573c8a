/*
 * codec_bitcomp.c - the Bitcomp-class codec on the CPU: the format's core
 * (src/cores/bitcomp/bitcomp_core.h) compiled as C, one one-lane warp per
 * tile, so the CPU writes and accepts exactly the bytes and statuses of
 * the GPU kernels (the core writes the same bytes for any warp count).
 * The tile workspace (~36 KiB) is this codec's worker state.
 */
#include "../../../common/typed_options.h"
#include "../../../cores/bitcomp/bitcomp_core.h"
#include "../../cpu_codec.h"

static bc_ws *workspace(oc_cpu_worker *w)
{
    return (bc_ws *)oc_worker_state(w, OC_ALGO_BITCOMP, sizeof(bc_ws));
}

static oc_status bitcomp_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src,
                                  size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo, (void)level;
    RETURN_ERROR_IF(n > OWN_MAX_CHUNK, OC_ERR_CHUNK_TOO_LARGE);
    bc_ws *ws = workspace(w);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    static const oc_typed_options defaults = {OC_TYPE_DEFAULT, 0, 0, 0};
    const oc_typed_options *typed = w->opts ? &w->opts->typed : &defaults;
    uint64_t got = 0;
    oc_status st = bc_compress_chunk(ws, src, n, (uint32_t)oc_typed_data_type(typed),
                                     (uint32_t)typed->algorithm_type, dst, cap, &got, 1);
    *out = (size_t)got;
    return st;
}

static oc_status bitcomp_decompress(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                                    uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    bc_ws *ws = workspace(w);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    uint64_t got = 0;
    oc_status st = bc_decompress_chunk(ws, src, n, dst, cap, &got, 1);
    *out = (size_t)got;
    return st;
}

static oc_status bitcomp_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n, size_t *size)
{
    (void)algo;
    bc_ws *ws = workspace(w);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    uint64_t got = 0;
    oc_status st = bc_decompress_chunk(ws, src, n, NULL, 0, &got, 1);
    *size = (size_t)got;
    return st;
}

static void bitcomp_release(oc_cpu_worker *w)
{
    (void)w; /* the workspace is plain memory in the worker's slot, freed with it */
}

const oc_cpu_codec oc_cpu_codec_bitcomp = {bitcomp_compress, bitcomp_decompress, bitcomp_size,
                                           bitcomp_release};
