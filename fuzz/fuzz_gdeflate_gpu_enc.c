/*
 * fuzz_gdeflate_gpu_enc.c - the GPU GDeflate encoder's core
 * (src/cuda/codecs/gdeflate/gdeflate_enc_core.h) compiled for the host, one
 * thread playing the 32 lanes: any input (the first 8 KiB after byte 0) at
 * level 1 + byte 0 % 9 encodes into an exactly-sized buffer of
 * oc_compress_bound bytes as a page (a multiple of 4 bytes, at least 128)
 * that the CPU engine's decoder and the GPU decoder's core both read back
 * to the input; encoding again gives the same bytes; a capacity one byte
 * short is OUTPUT_TOO_SMALL with nothing written (ASan faults on any write
 * past a buffer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/codecs/gdeflate/gdeflate_core.h"
#include "cuda/codecs/gdeflate/gdeflate_dec_core.h"
#include "cuda/codecs/gdeflate/gdeflate_enc_core.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gde_shared shared;
    static gd_dec_ws dws;
    static gdd_tables tables;
    static void *scratch;
    if (!scratch && !(scratch = malloc(gde_scratch_bytes(9))))
        abort();
    if (size < 1)
        return 0;
    int level = 1 + data[0] % 9;
    data++;
    size--;
    if (size > 8192) /* three encodings and two decodings per input: keep runs fast */
        size = 8192;
    uint8_t *in = fuzz_copy(data, size);
    size_t cap = oc_compress_bound(OC_ALGO_GDEFLATE, size), got = 0, got2 = 0;
    uint8_t *out = (uint8_t *)malloc(cap), *out2 = (uint8_t *)malloc(cap),
            *back = (uint8_t *)malloc(size ? size : 1);
    if (!out || !out2 || !back)
        abort();
    if (gde_compress_page(&shared, scratch, level, in, size, out, cap, &got) != OC_OK || got > cap ||
        got % 4 || got < 128)
        abort();
    if (gde_compress_page(&shared, scratch, level, in, size, out2, cap, &got2) != OC_OK || got2 != got ||
        memcmp(out, out2, got) != 0)
        abort();
    uint8_t *page = fuzz_copy(out, got);
    size_t dn = 0;
    if (gd_decode(&dws, page, got, back, size, &dn) != OC_OK || dn != size || memcmp(back, in, size) != 0)
        abort();
    memset(back, 0, size ? size : 1);
    if (gdd_decode(&tables, page, got, back, size, &dn) != OC_OK || dn != size || memcmp(back, in, size) != 0)
        abort();
    uint8_t *tight = (uint8_t *)malloc(got - 1);
    if (!tight)
        abort();
    memset(tight, 0xA5, got - 1);
    if (gde_compress_page(&shared, scratch, level, in, size, tight, got - 1, &got2) !=
        OC_ERR_OUTPUT_TOO_SMALL)
        abort();
    for (size_t i = 0; i + 1 < got; i++)
        if (tight[i] != 0xA5)
            abort();
    free(tight);
    free(page);
    free(back);
    free(in);
    free(out);
    free(out2);
    return 0;
}
