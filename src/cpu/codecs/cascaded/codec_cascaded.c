/*
 * codec_cascaded.c - Cascaded on the CPU: the format's core
 * (src/cores/cascaded/cascaded_core.h) compiled as C, one warp of one
 * lane per tile, so the CPU writes and accepts exactly the bytes and
 * statuses of the GPU kernels.  The tile workspace (~68 KiB) is this
 * codec's worker state.
 */
#include "../../../common/typed_options.h"
#include "../../../cores/cascaded/cascaded_core.h"
#include "../../cpu_codec.h"

static cz_ws *workspace(oc_cpu_worker *w)
{
    return (cz_ws *)oc_worker_state(w, OC_ALGO_CASCADED, sizeof(cz_ws));
}

static oc_status cascaded_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src,
                                   size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo, (void)level;
    RETURN_ERROR_IF(n > OWN_MAX_CHUNK, OC_ERR_CHUNK_TOO_LARGE);
    cz_ws *ws = workspace(w);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    static const oc_typed_options defaults = {OC_TYPE_DEFAULT, 0, 0, 0};
    const oc_typed_options *typed = w->opts ? &w->opts->typed : &defaults;
    cz_layers L;
    oc_typed_cascaded(typed, &L.rles, &L.deltas, &L.bitpack);
    uint64_t got = 0;
    oc_status st = cz_compress_chunk(ws, src, n, oc_typed_data_type(typed), L, dst, cap, &got, 1);
    *out = (size_t)got;
    return st;
}

static oc_status cascaded_decompress(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                                     uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    cz_ws *ws = workspace(w);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    uint64_t got = 0;
    oc_status st = cz_decompress_chunk(ws, src, n, dst, cap, &got, 1);
    *out = (size_t)got;
    return st;
}

static oc_status cascaded_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                               size_t *size)
{
    (void)algo;
    cz_ws *ws = workspace(w);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    uint64_t got = 0;
    oc_status st = cz_decompress_chunk(ws, src, n, NULL, 0, &got, 1);
    *size = (size_t)got;
    return st;
}

static void cascaded_release(oc_cpu_worker *w)
{
    (void)w; /* the workspace is plain memory in the worker's slot, freed with it */
}

const oc_cpu_codec oc_cpu_codec_cascaded = {cascaded_compress, cascaded_decompress, cascaded_size,
                                            cascaded_release};
