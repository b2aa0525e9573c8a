/*
 * fuzz_codec_gdeflate.c - the GDeflate page decoder and encoder
 * (src/cpu/codecs/gdeflate/gdeflate_core.h) on arbitrary input, under
 * ASan/UBSan.  Input and output are exactly-sized heap buffers, so a
 * one-byte overread or overwrite faults.
 *
 * Byte 0: bits 0-1 pick the output capacity (0, 100, 64 KiB, 256 KiB); bit
 * 2 makes the rest DATA (at most 64 KiB) to encode at level 1 + (byte 0 >>
 * 3) % 9: the page must fit gd_bound, decode to the data, give the same
 * bytes when encoded again (determinism), and be OUTPUT_TOO_SMALL one byte
 * short.  As a page: decoding must give CORRUPT, TRUNCATED,
 * OUTPUT_TOO_SMALL or OK within the capacity, and the size query (no
 * output) decoding's status (and size, when OK).  The GPU decoder's core
 * (src/cuda/codecs/gdeflate/gdeflate_dec_core.h, compiled for the host with
 * one thread playing the 32 lanes) must give the same status as the CPU
 * decoder on every input, the same bytes when OK, and the same size query.
 * The copies and the capacity table are fuzz_common.h's and
 * fuzz_own_codec.h's; the checks stay here, as fuzz_own_roundtrip and
 * fuzz_own_stream compare a second way of running on neither the size
 * query nor the round trip's decode.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/codecs/gdeflate/gdeflate_core.h"
#include "cuda/codecs/gdeflate/gdeflate_dec_core.h"
#include "fuzz_own_codec.h"

static gd_dec_ws dws;
static gd_enc_ws ews;
static gdd_tables gtab;

static void as_data(const uint8_t *data, size_t size, int level)
{
    if (size > GD_MAX_PAGE)
        size = GD_MAX_PAGE;
    uint8_t *in = fuzz_copy(data, size);
    size_t cap = gd_bound(size), na = 0, nb = 0, got = 0;
    uint8_t *a = (uint8_t *)malloc(cap), *b = (uint8_t *)malloc(cap),
            *back = (uint8_t *)malloc(size ? size : 1);
    if (!a || !b || !back)
        abort();
    if (gd_encode(&ews, level, in, size, a, cap, &na) != OC_OK || na > cap)
        abort();
    if (gd_encode(&ews, level, in, size, b, cap, &nb) != OC_OK || na != nb || memcmp(a, b, na))
        abort();
    uint8_t *exact = fuzz_copy(a, na);
    if (gd_decode(&dws, exact, na, back, size, &got) != OC_OK || got != size ||
        (size && memcmp(back, in, size)))
        abort();
    memset(back, 0, size);
    if (gdd_decode(&gtab, exact, na, back, size, &got) != OC_OK || got != size ||
        (size && memcmp(back, in, size)))
        abort(); /* the GPU core */
    if (size && gd_decode(&dws, exact, na, back, size - 1, &got) != OC_ERR_OUTPUT_TOO_SMALL)
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
        as_data(data, size, 1 + (int)((mode >> 3) % 9));
        return 0;
    }
    size_t cap = fuzz_own_capacity(mode), got = 0, sz = 0;
    uint8_t *in = fuzz_copy(data, size), *out = (uint8_t *)malloc(cap ? cap : 1);
    if (!out)
        abort();
    oc_status st = gd_decode(&dws, in, size, out, cap, &got);
    if (st != OC_OK && st != OC_ERR_CORRUPT && st != OC_ERR_TRUNCATED && st != OC_ERR_OUTPUT_TOO_SMALL)
        abort();
    if (st == OC_OK && got > cap)
        abort();
    oc_status s2 = gd_decode(&dws, in, size, NULL, 0, &sz);
    if (st != OC_ERR_OUTPUT_TOO_SMALL && (s2 != st || (st == OC_OK && sz != got)))
        abort();
    if (st == OC_ERR_OUTPUT_TOO_SMALL && s2 == OC_OK && sz <= cap)
        abort(); /* the size query found it fits */
    /* the GPU core: the CPU decoder's status, bytes and size query */
    uint8_t *out2 = (uint8_t *)malloc(cap ? cap : 1);
    size_t got2 = 0, sz2 = 0;
    if (!out2)
        abort();
    oc_status g = gdd_decode(&gtab, in, size, out2, cap, &got2);
    if (g != st || (st == OC_OK && (got2 != got || memcmp(out, out2, got))))
        abort();
    if (gdd_decode(&gtab, in, size, NULL, 0, &sz2) != s2 || (s2 == OC_OK && sz2 != sz))
        abort();
    free(out2);
    free(in);
    free(out);
    return 0;
}
