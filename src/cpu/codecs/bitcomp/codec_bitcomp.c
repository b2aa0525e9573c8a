/*
 * codec_bitcomp.c - the Bitcomp-class codec on the CPU: the format's core
 * (src/cores/bitcomp/bitcomp_core.h) compiled as C, one one-lane warp per
 * tile, so the CPU writes and accepts exactly the bytes and statuses of
 * the GPU kernels (the core writes the same bytes for any warp count).
 * The tile workspace (~36 KiB) is this codec's worker state; the plumbing
 * is own_cpu.h's, shared with Cascaded and ANS.
 */
#include "../../../cores/bitcomp/bitcomp_core.h"
#include "../own_common/own_cpu.h"

static oc_status bc_compress(void *ws, const oc_typed_options *typed, const uint8_t *src, size_t n,
                             uint8_t *dst, size_t cap, uint64_t *out)
{
    return bc_compress_chunk((bc_ws *)ws, src, n, (uint32_t)oc_typed_data_type(typed),
                             (uint32_t)typed->algorithm_type, dst, cap, out, 1);
}

static oc_status bc_decompress(void *ws, const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap,
                               uint64_t *out)
{
    return bc_decompress_chunk((bc_ws *)ws, src, n, dst, cap, out, 1);
}

static const own_cpu_codec bc_codec = {OC_ALGO_BITCOMP, sizeof(bc_ws), bc_compress, bc_decompress};

OWN_CPU_ENTRY_POINTS(bitcomp, bc_codec)

const oc_cpu_codec oc_cpu_codec_bitcomp = {bitcomp_compress, bitcomp_decompress, bitcomp_size,
                                           own_cpu_release};
