/*
 * fuzz_container_gzip.c - the gzip reader (indexed members, serial tail), forced by a NATIVE hint with
 * algorithm gzip; checksums verified on even first bytes, not verified on odd ones.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    hint.algorithm = OC_ALGO_GZIP;
    hint.checksum = (size && (data[0] & 1)) ? OC_CHECKSUM_NONE : OC_CHECKSUM_VERIFY;
    fuzz_decode(data, size, &hint);
    return 0;
}
