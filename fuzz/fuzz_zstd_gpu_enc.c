/*
 * fuzz_zstd_gpu_enc.c - the GPU Zstandard encoder's core
 * (src/cuda/codecs/zstd/zstd_enc_core.h) compiled for the host: any input, at a level
 * and capacity picked by the first byte, must compress into a frame that
 * libzstd decodes back to the input; a capacity below the frame's size must
 * give OUTPUT_TOO_SMALL.  Input and output are exactly-sized heap buffers,
 * so a one-byte overread or overwrite faults under ASan.  One input in
 * eight is also tiled into a chunk of 2-4 blocks and more (every third copy
 * XORed), compressed at level 1 or 3 both whole and as the GPU's block tasks
 * (ze_compress_task in reverse order on stale tables into an exact-size
 * staging frame, then ze_gather): the frames must be the same, and libzstd
 * must decode them.
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
    uint8_t mode = data[0];
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
    if ((mode & 0x38) == 0x38 && size > 0) {
        int bl = (mode & 1) ? 3 : 1;
        size_t n = ZE_BLOCK * (size_t)(1 + ((mode >> 6) & 3)) + 1 + size;
        uint8_t *big = (uint8_t *)malloc(n), *f1 = (uint8_t *)malloc(ze_bound(n)),
                *f2 = (uint8_t *)malloc(ze_split_bytes(n)), *dec = (uint8_t *)malloc(n);
        if (!big || !f1 || !f2 || !dec)
            abort();
        for (size_t i = 0; i < n; i++)
            big[i] = (uint8_t)(data[i % size] ^ ((i / size) % 3 == 2 ? 0x5A : 0));
        size_t o1 = 0;
        ze_reset(&W, 0, 1);
        if (ze_compress_chunk(&W, &tables, big, n, f1, ze_bound(n), &o1, bl) != OC_OK)
            abort();
        size_t d = ZSTD_decompress(dec, n, f1, o1);
        if (ZSTD_isError(d) || d != n || memcmp(dec, big, n) != 0)
            abort();
        size_t nk = ze_tasks(n, ze_split_bytes(n), bl);
        if (nk != (n + ZE_BLOCK - 1) / ZE_BLOCK)
            abort();
        for (size_t k = nk; k-- > 0;) { /* W still holds the chunk's positions: stale after base moves */
            if (ze_next_chunk(&W, n, n))
                ze_reset(&W, 0, 1);
            ze_compress_task(&W, &tables, big, n, (uint32_t)k, f2, bl);
        }
        if (ze_gather(f2, n) != o1 || memcmp(f1, f2, o1) != 0)
            abort();
        free(big);
        free(f1);
        free(f2);
        free(dec);
    }
    free(in);
    free(out);
    free(back);
    return 0;
}
