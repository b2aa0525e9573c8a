/*
 * codec_ans.c - ANS on the CPU: the format's core (src/cores/ans/
 * ans_core.h) compiled as C, the 32 interleaved states of a tile run one
 * after the other, so the CPU writes and accepts exactly the bytes and
 * statuses of the GPU kernels.  The decode table (2^PB u32) and the
 * histogram are this codec's worker state; the plumbing is own_cpu.h's,
 * shared with Cascaded and Bitcomp.
 */
#include "../../../cores/ans/ans_core.h"
#include "../own_common/own_cpu.h"

static oc_status ans_cpu_compress(void *ws, const oc_typed_options *typed, const uint8_t *src, size_t n,
                                  uint8_t *dst, size_t cap, uint64_t *out)
{
    return ans_compress_chunk((ans_ws *)ws, src, n, (uint32_t)oc_typed_data_type(typed), dst, cap, out);
}

static oc_status ans_cpu_decompress(void *ws, const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap,
                                    uint64_t *out)
{
    return ans_decompress_chunk((ans_ws *)ws, src, n, dst, cap, out);
}

static const own_cpu_codec ans_codec = {OC_ALGO_ANS, sizeof(ans_ws), ans_cpu_compress, ans_cpu_decompress};

OWN_CPU_ENTRY_POINTS(ans, ans_codec)

const oc_cpu_codec oc_cpu_codec_ans = {ans_compress, ans_decompress, ans_size, own_cpu_release};
