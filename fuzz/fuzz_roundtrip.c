/*
 * fuzz_roundtrip.c - compress, decompress, compare; compress again and
 * compare the compressed bytes (determinism).  Byte 0 picks the algorithm
 * (low 3 bits), the kind (bits 3-4) and the checksum policy (bits 5-6);
 * byte 1 the chunk size and level; the rest is the data.  Any mismatch
 * aborts.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    static const size_t chunks[8] = {0, 7, 100, 4096, 65536, 1 << 20, 5 << 20, 33};
    oc_buffer_options o = OC_BUFFER_OPTIONS_INIT;
    o.algorithm = (oc_algorithm)(1 + (data[0] & 7) % 6);
    o.kind = (oc_bitstream_kind)(((data[0] >> 3) & 3) % 3);
    o.checksum = (oc_checksum_policy)(((data[0] >> 5) & 3) % 3);
    o.chunk_size = chunks[data[1] & 7];
    o.level = (data[1] >> 3) & 3;
    const uint8_t *src = fuzz_copy(data + 2, size - 2);
    size_t n = size - 2;
    size_t bound = oc_buffer_compress_bound(&o, n);
    if (bound == 0)
        abort();
    uint8_t *c1 = (uint8_t *)malloc(bound), *c2 = (uint8_t *)malloc(bound),
            *out = (uint8_t *)malloc(n ? n : 1);
    if (!c1 || !c2 || !out)
        abort();
    uint64_t s1 = 0, s2 = 0, got = 0;
    if (oc_buffer_compress(fuzz_ctx(), &o, src, n, c1, bound, &s1) != OC_OK)
        abort();
    if (oc_buffer_compress(fuzz_ctx(), &o, src, n, c2, bound, &s2) != OC_OK || s1 != s2 || memcmp(c1, c2, s1))
        abort();
    uint8_t *exact = fuzz_copy(c1, (size_t)s1);
    oc_buffer_options hint = o;
    if (o.kind == OC_BITSTREAM_NATIVE)
        hint.algorithm = OC_ALGO_NONE;
    if (oc_buffer_decompress(fuzz_ctx(), &hint, exact, s1, out, n, &got, NULL) != OC_OK || got != n ||
        (n && memcmp(out, src, n)))
        abort();
    free(exact);
    free(c1);
    free(c2);
    free(out);
    free((void *)src);
    return 0;
}
