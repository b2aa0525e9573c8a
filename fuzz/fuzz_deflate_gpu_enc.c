/*
 * fuzz_deflate_gpu_enc.c - the GPU Deflate compressor's core
 * (src/cuda/codecs/deflate/deflate_enc_core.h) compiled for the host: any
 * input at a level (1-12) and format (raw deflate, zlib, gzip) chosen by
 * byte 0 (the first 4 KiB of the rest) compresses into an exactly-sized
 * buffer of oc_compress_bound bytes; zlib must read the stream back to the input; compressing again
 * must give the same bytes; a capacity one byte short must be
 * OUTPUT_TOO_SMALL without a write past it (ASan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "cuda/codecs/deflate/deflate_enc_core.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static de_shared shared;
    static uint32_t crct[256];
    static void *scratch;
    if (!scratch) {
        dck_crc_table_fill(crct, 0, 1);
        scratch = malloc(de_scratch_bytes(12));
        if (!scratch)
            abort();
    }
    if (size < 1)
        return 0;
    int level = 1 + (data[0] & 15) % 12;
    oc_algorithm a = (data[0] >> 4) % 3 == 0   ? OC_ALGO_DEFLATE
                     : (data[0] >> 4) % 3 == 1 ? OC_ALGO_ZLIB
                                               : OC_ALGO_GZIP;
    data++;
    size--;
    if (size >
        4096) /* three compressions per input (128 candidates a position at levels >= 9): keep runs fast */
        size = 4096;
    uint8_t *in = fuzz_copy(data, size);
    size_t cap = oc_compress_bound(a, size);
    uint8_t *out = (uint8_t *)malloc(cap), *out2 = (uint8_t *)malloc(cap);
    if (!out || !out2)
        abort();
    size_t got = 0, got2 = 0;
    if (de_compress_chunk(&shared, scratch, crct, a, level, in, size, out, cap, &got) != OC_OK || got > cap)
        abort();
    if (de_compress_chunk(&shared, scratch, crct, a, level, in, size, out2, cap, &got2) != OC_OK ||
        got2 != got || memcmp(out, out2, got) != 0)
        abort();
    uint8_t *back = (uint8_t *)malloc(size ? size : 1);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (!back || inflateInit2(&z, a == OC_ALGO_ZLIB ? 15 : a == OC_ALGO_GZIP ? 31 : -15) != Z_OK)
        abort();
    z.next_in = out;
    z.avail_in = (uInt)got;
    z.next_out = back;
    z.avail_out = (uInt)size;
    if (inflate(&z, Z_FINISH) != Z_STREAM_END || z.avail_in != 0 || z.total_out != size ||
        memcmp(back, in, size) != 0)
        abort();
    inflateEnd(&z);
    if (got > 0) {
        uint8_t *tight = (uint8_t *)malloc(got - 1 ? got - 1 : 1);
        if (!tight || de_compress_chunk(&shared, scratch, crct, a, level, in, size, tight, got - 1, &got2) !=
                          OC_ERR_OUTPUT_TOO_SMALL)
            abort();
        free(tight);
    }
    free(back);
    free(in);
    free(out);
    free(out2);
    return 0;
}
