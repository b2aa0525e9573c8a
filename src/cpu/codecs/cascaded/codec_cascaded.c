/*
 * codec_cascaded.c - Cascaded on the CPU: the format's core
 * (src/cores/cascaded/cascaded_core.h) compiled as C, one warp of one
 * lane per tile, so the CPU writes and accepts exactly the bytes and
 * statuses of the GPU kernels.  The tile workspace (~68 KiB) is this
 * codec's worker state; the plumbing is own_cpu.h's, shared with Bitcomp
 * and ANS.
 */
#include "../../../cores/cascaded/cascaded_core.h"
#include "../own_common/own_cpu.h"

static oc_status cz_compress(void *ws, const oc_typed_options *typed, const uint8_t *src, size_t n,
                             uint8_t *dst, size_t cap, uint64_t *out)
{
    cz_layers L;
    oc_typed_cascaded(typed, &L.rles, &L.deltas, &L.bitpack);
    return cz_compress_chunk((cz_ws *)ws, src, n, oc_typed_data_type(typed), L, dst, cap, out, 1);
}

static oc_status cz_decompress(void *ws, const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap,
                               uint64_t *out)
{
    return cz_decompress_chunk((cz_ws *)ws, src, n, dst, cap, out, 1);
}

static const own_cpu_codec cz_codec = {OC_ALGO_CASCADED, sizeof(cz_ws), cz_compress, cz_decompress};

OWN_CPU_ENTRY_POINTS(cascaded, cz_codec)

const oc_cpu_codec oc_cpu_codec_cascaded = {cascaded_compress, cascaded_decompress, cascaded_size,
                                            own_cpu_release};
