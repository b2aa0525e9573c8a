/*
 * codec_ans.c - ANS on the CPU: the format's core (src/cores/ans/
 * ans_core.h) compiled as C, the 32 interleaved states of a tile run one
 * after the other, so the CPU writes and accepts exactly the bytes and
 * statuses of the GPU kernels.  The decode table (2^PB u32) and the
 * histogram are this codec's worker state.
 */
#include "../../../common/typed_options.h"
#include "../../../cores/ans/ans_core.h"
#include "../../cpu_codec.h"

static ans_ws *workspace(oc_cpu_worker *w)
{
    return (ans_ws *)oc_worker_state(w, OC_ALGO_ANS, sizeof(ans_ws));
}

static oc_status ans_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src, size_t n,
                              uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo, (void)level;
    RETURN_ERROR_IF(n > OWN_MAX_CHUNK, OC_ERR_CHUNK_TOO_LARGE);
    ans_ws *ws = workspace(w);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    oc_data_type type = w->opts ? oc_typed_data_type(&w->opts->typed) : OC_TYPE_U8;
    uint64_t got = 0;
    oc_status st = ans_compress_chunk(ws, src, n, (uint32_t)type, dst, cap, &got);
    *out = (size_t)got;
    return st;
}

static oc_status ans_decompress(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                                uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    ans_ws *ws = workspace(w);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    uint64_t got = 0;
    oc_status st = ans_decompress_chunk(ws, src, n, dst, cap, &got);
    *out = (size_t)got;
    return st;
}

static oc_status ans_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n, size_t *size)
{
    (void)algo;
    ans_ws *ws = workspace(w);
    RETURN_ERROR_IF(!ws, OC_ERR_OUT_OF_MEMORY);
    uint64_t got = 0;
    oc_status st = ans_decompress_chunk(ws, src, n, NULL, 0, &got);
    *size = (size_t)got;
    return st;
}

static void ans_release(oc_cpu_worker *w)
{
    (void)w; /* plain memory in the worker's slot, freed with it */
}

const oc_cpu_codec oc_cpu_codec_ans = {ans_compress, ans_decompress, ans_size, ans_release};
