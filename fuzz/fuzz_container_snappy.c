/*
 * fuzz_container_snappy.c - the snappy framing reader (index and header walk), forced by a NATIVE hint with
 * algorithm snappy; checksums verified on even first bytes, not verified on odd ones.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    hint.algorithm = OC_ALGO_SNAPPY;
    hint.checksum = (size && (data[0] & 1)) ? OC_CHECKSUM_NONE : OC_CHECKSUM_VERIFY;
    fuzz_decode(data, size, &hint);
    return 0;
}
