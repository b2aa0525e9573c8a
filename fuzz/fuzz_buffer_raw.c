/*
 * fuzz_buffer_raw.c - RAW and WITH_UNCOMPRESSED_SIZE decoding: the first byte
 * picks the algorithm (low 3 bits) and the kind (bit 3); the rest is the
 * stream.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    hint.algorithm = (oc_algorithm)(1 + (data[0] & 7) % 6);
    hint.kind = (data[0] & 8) ? OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE : OC_BITSTREAM_RAW;
    fuzz_decode(data + 1, size - 1, &hint);
    return 0;
}
