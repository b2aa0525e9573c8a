/*
 * fuzz_zstd_gpu_enc.c - the GPU Zstandard encoder's core
 * (src/cuda/codecs/zstd/zstd_enc_core.h) compiled for the host: any input, at a level
 * and capacity picked by the first byte, must compress into a frame that
 * libzstd decodes back to the input; a capacity below the frame's size must
 * give OUTPUT_TOO_SMALL.  Input and output are exactly-sized heap buffers,
 * so a one-byte overread or overwrite faults under ASan.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "cuda/codecs/zstd/zstd_enc_core.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t scratch[ZE_SCRATCH_BYTES] __attribute__((aligned(16)));
    static ze_tables tables;
    static int init;
    if (!init) {
        ze_tables_init(&tables);
        init = 1;
    }
    if (size < 1)
        return 0;
    static const int levels[4] = {1, 3, -1, 6};
    int level = levels[data[0] & 3];
    int short_cap = (data[0] >> 2) & 1;
    data++;
    size--;
    ze_work W = ze_work_from(scratch);
    uint8_t *in = (uint8_t *)malloc(size ? size : 1);
    size_t bound = ze_bound(size);
    uint8_t *out = (uint8_t *)malloc(bound);
    uint8_t *back = (uint8_t *)malloc(size ? size : 1);
    if (!in || !out || !back)
        abort();
    if (size)
        memcpy(in, data, size);
    size_t got = 0;
    ze_reset(&W, 0, 1);
    if (ze_compress_chunk(&W, &tables, in, size, out, bound, &got, level) != OC_OK || got > bound)
        abort();
    size_t r = ZSTD_decompress(back, size, out, got);
    if (ZSTD_isError(r) || r != size || (size && memcmp(back, in, size) != 0))
        abort();
    if (short_cap && got > 0) {
        size_t cap = got - 1;
        uint8_t *small = (uint8_t *)malloc(cap ? cap : 1);
        size_t g2 = 0;
        ze_reset(&W, 0, 1);
        if (!small ||
            ze_compress_chunk(&W, &tables, in, size, small, cap, &g2, level) != OC_ERR_OUTPUT_TOO_SMALL)
            abort();
        free(small);
    }
    free(in);
    free(out);
    free(back);
    return 0;
}
