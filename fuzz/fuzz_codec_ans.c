/*
 * fuzz_codec_ans.c - the ANS decoder (src/cores/ans/ans_core.h, the C
 * build of what both engines run) on arbitrary input, under ASan/UBSan.
 * Input and output are exactly-sized heap buffers, so a one-byte overread
 * or overwrite faults.
 *
 * Byte 0: bits 0-1 pick the output capacity (0, 100, 64 KiB, 256 KiB);
 * with bit 2 set the rest is DATA: compressed as bytes (bit 3 clear) or as
 * 16-bit values (bit 3 set), decoded back (the same data required) and
 * decoded into one byte less (OUTPUT_TOO_SMALL required).  As a stream:
 * an OK decode never reports more than the capacity, and the size query
 * (no output) gives decoding's status and size (unless decoding found the
 * output too small).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cores/ans/ans_core.h"

static ans_ws ws;

static uint8_t *copy_of(const uint8_t *p, size_t n)
{
    uint8_t *q = (uint8_t *)malloc(n ? n : 1);
    if (!q)
        abort();
    if (n)
        memcpy(q, p, n);
    return q;
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
        uint32_t type = (mode & 8) ? OC_TYPE_F16 : OC_TYPE_U8;
        uint8_t *in = copy_of(data, size);
        size_t cap = (size_t)ans_bound(size);
        uint8_t *c = (uint8_t *)malloc(cap), *back = (uint8_t *)malloc(size ? size : 1);
        if (!c || !back)
            abort();
        uint64_t cn = 0, got = 0;
        if (ans_compress_chunk(&ws, in, size, type, c, cap, &cn) != OC_OK || cn > cap)
            abort();
        uint8_t *exact = copy_of(c, (size_t)cn);
        if (ans_decompress_chunk(&ws, exact, (size_t)cn, back, size, &got) != OC_OK || got != size ||
            (size && memcmp(back, in, size)))
            abort();
        if (size &&
            ans_decompress_chunk(&ws, exact, (size_t)cn, back, size - 1, &got) != OC_ERR_OUTPUT_TOO_SMALL)
            abort();
        free(exact);
        free(in);
        free(c);
        free(back);
        return 0;
    }
    static const size_t caps[4] = {0, 100, 65536, 1 << 18};
    size_t cap = caps[mode & 3];
    uint8_t *in = copy_of(data, size);
    uint8_t *o1 = (uint8_t *)malloc(cap ? cap : 1);
    if (!o1)
        abort();
    uint64_t g1 = 0, gs = 0;
    oc_status s1 = ans_decompress_chunk(&ws, in, size, o1, cap, &g1);
    if (g1 > cap || (s1 != OC_OK && g1 != 0))
        abort();
    oc_status ss = ans_decompress_chunk(&ws, in, size, NULL, 0, &gs);
    if (s1 != OC_ERR_OUTPUT_TOO_SMALL && (ss != s1 || (s1 == OC_OK && gs != g1)))
        abort();
    free(in);
    free(o1);
    return 0;
}
