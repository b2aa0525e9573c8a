/*
 * fuzz_inflate_var.c - differential libFuzzer target of the GPU inflate
 * cores compiled for the host: the library's (decoder v4) against decoder v2
 * (inflate_v2_core.h), which it replaced; any input, any capacity.  Both
 * must give the same status and size, and the same bytes when OK; the
 * library's input and output are exactly-sized heap buffers, so under ASan a
 * one-byte overread or overwrite faults.  Byte 0 picks the format, bytes 1-2
 * the capacity (0 .. 65535, or 4x the input for 0xFFFF).
 *
 *   make fuzz-var [BUILD=dir] [FUZZ_SECONDS=60]
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deflate_host_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    static const oc_algorithm algos[4] = {OC_ALGO_DEFLATE, OC_ALGO_ZLIB, OC_ALGO_GZIP, OC_ALGO_DEFLATE};
    oc_algorithm a = algos[data[0] & 3];
    size_t cap = (size_t)data[1] | ((size_t)data[2] << 8);
    data += 3;
    size -= 3;
    if (cap == 0xFFFF)
        cap = 4 * size + 1024;
    uint8_t *in = malloc(size ? size : 1), *out = malloc(cap ? cap : 1), *out1 = malloc(cap ? cap : 1);
    if (size)
        memcpy(in, data, size);
    size_t got = 0, got1 = 0;
    oc_status st = deflate_host_decode(a, in, size, out, cap, &got);
    oc_status st1 = deflate_host_decode_v2(a, in, size, out1, cap, &got1);
    if (st != st1 || got != got1 || (st == OC_OK && memcmp(out, out1, got) != 0))
        abort();
    free(in);
    free(out);
    free(out1);
    return 0;
}
