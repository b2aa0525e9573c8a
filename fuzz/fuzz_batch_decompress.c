/*
 * fuzz_batch_decompress.c - the batched decoders, one algorithm per input:
 * byte 0 picks the algorithm, byte 1 the number of chunks (1..4) and their
 * output capacities; the rest is split into that many chunks, each copied
 * into its own exactly-sized buffer, each output exactly sized too.  Also
 * oc_batch_decompressed_sizes on the same chunks.  Byte 0 / 6 odd: the
 * WITH_UNCOMPRESSED_SIZE kind (8-byte size header before each stream): a
 * chunk that decodes must decode to its header's size, and the size query
 * (headers only) must then agree.
 */
#include "fuzz_common.h"

static uint64_t le64(const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = (oc_algorithm)(1 + data[0] % 6);
    int wus = (data[0] / 6) & 1;
    co.kind = wus ? OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE : OC_BITSTREAM_RAW;
    size_t n = 1 + (data[1] & 3);
    static const size_t caps[4] = {0, 100, 65536, 1 << 20};
    const uint8_t *p = data + 2;
    size_t rest = size - 2;
    const void *src[4];
    size_t src_sizes[4], dst_caps[4], dst_sizes[4], sizes[4];
    void *dst[4];
    oc_status st[4], dst_st[4];
    for (size_t i = 0; i < n; i++) {
        size_t len = i + 1 == n ? rest : rest / (n - i);
        src[i] = fuzz_copy(p, len);
        src_sizes[i] = len;
        p += len;
        rest -= len;
        dst_caps[i] = caps[(data[1] >> (2 + 2 * (i % 3))) & 3];
        dst[i] = malloc(dst_caps[i] ? dst_caps[i] : 1);
        if (!dst[i])
            abort();
    }
    (void)oc_batch_decompress(fuzz_ctx(), &co, n, src, src_sizes, dst, dst_caps, dst_sizes, dst_st);
    for (size_t i = 0; i < n; i++)
        if (dst_st[i] == OC_OK && dst_sizes[i] > dst_caps[i])
            abort();
    (void)oc_batch_decompressed_sizes(fuzz_ctx(), &co, n, src, src_sizes, sizes, st);
    for (size_t i = 0; wus && i < n; i++) {
        if (st[i] == OC_OK && (src_sizes[i] < 8 || sizes[i] != (size_t)le64(src[i])))
            abort();
        if (dst_st[i] == OC_OK && (st[i] != OC_OK || dst_sizes[i] != sizes[i]))
            abort();
    }
    for (size_t i = 0; i < n; i++) {
        free((void *)src[i]);
        free(dst[i]);
    }
    return 0;
}
