/*
 * fuzz_codec_bitcomp.c - the Bitcomp-class decoder (src/cores/bitcomp/
 * bitcomp_core.h, the code both engines run) on arbitrary input, C build,
 * under ASan/UBSan.  Input and output are exactly-sized heap buffers, so a
 * one-byte overread or overwrite faults.
 *
 * Byte 0: bits 0-1 pick the output capacity (0, 100, 64 KiB, 256 KiB), bit
 * 2 makes the rest DATA to compress instead of a stream: with a type (bits
 * 3-6) and algorithm_type (bit 7) the data is compressed with 1 and with 3
 * warps (the same bytes required), decoded (the same data required) and
 * decoded into one byte less (OUTPUT_TOO_SMALL required).  As a stream:
 * decoding with 1 and 3 warps gives the same status, size and bytes, the
 * size query (no output) the same status, and an OK decode never reports
 * more than the capacity.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cores/bitcomp/bitcomp_core.h"

static bc_ws ws;

static uint8_t *copy_of(const uint8_t *p, size_t n)
{
    uint8_t *q = (uint8_t *)malloc(n ? n : 1);
    if (!q)
        abort();
    if (n)
        memcpy(q, p, n);
    return q;
}

static void as_data(const uint8_t *data, size_t size, unsigned mode)
{
    uint32_t type = 1 + (mode >> 3) % (OC_TYPE_COUNT - 1), algo = mode >> 7;
    uint8_t *in = copy_of(data, size);
    size_t cap = (size_t)bc_bound(size);
    uint8_t *a = (uint8_t *)malloc(cap), *b = (uint8_t *)malloc(cap),
            *back = (uint8_t *)malloc(size ? size : 1);
    if (!a || !b || !back)
        abort();
    uint64_t na = 0, nb = 0, got = 0;
    if (bc_compress_chunk(&ws, in, size, type, algo, a, cap, &na, 1) != OC_OK)
        abort();
    if (bc_compress_chunk(&ws, in, size, type, algo, b, cap, &nb, 3) != OC_OK || na != nb ||
        memcmp(a, b, (size_t)na))
        abort();
    uint8_t *exact = copy_of(a, (size_t)na);
    if (bc_decompress_chunk(&ws, exact, (size_t)na, back, size, &got, 1) != OC_OK || got != size ||
        (size && memcmp(back, in, size)))
        abort();
    if (size &&
        bc_decompress_chunk(&ws, exact, (size_t)na, back, size - 1, &got, 1) != OC_ERR_OUTPUT_TOO_SMALL)
        abort();
    free(exact);
    free(in);
    free(a);
    free(b);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned mode = data[0];
    data++;
    size--;
    if (mode & 4) {
        as_data(data, size, mode);
        return 0;
    }
    static const size_t caps[4] = {0, 100, 65536, 1 << 18};
    size_t cap = caps[mode & 3];
    uint8_t *in = copy_of(data, size);
    uint8_t *o1 = (uint8_t *)malloc(cap ? cap : 1), *o3 = (uint8_t *)malloc(cap ? cap : 1);
    if (!o1 || !o3)
        abort();
    uint64_t g1 = 0, g3 = 0, gs = 0;
    oc_status s1 = bc_decompress_chunk(&ws, in, size, o1, cap, &g1, 1);
    oc_status s3 = bc_decompress_chunk(&ws, in, size, o3, cap, &g3, 3);
    if (s1 != s3 || g1 != g3 || g1 > cap || (s1 == OC_OK && g1 && memcmp(o1, o3, (size_t)g1)))
        abort();
    oc_status ss = bc_decompress_chunk(&ws, in, size, NULL, 0, &gs, 1);
    if (s1 != OC_ERR_OUTPUT_TOO_SMALL && (ss != s1 || (s1 == OC_OK && gs != g1)))
        abort();
    free(in);
    free(o1);
    free(o3);
    return 0;
}
