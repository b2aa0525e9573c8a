/*
 * fuzz_buffer_decompress.c - the whole-buffer decoder with no hint: container
 * auto-detection and every reader behind it (LZ4 frame, zstd frames /
 * seekable, gzip, zlib, snappy framing).
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_decode(data, size, NULL);
    return 0;
}
