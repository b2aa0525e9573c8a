/*
 * test_cuda_zstd_dispatch.c - the CUDA engine's batched zstd path: decoding
 * goes to the GPU zstd decoder (zstd_gpu.h), the size query to the
 * host-staged CPU path (compression: test_cuda_zstd_enc.c), through the same
 * oc_cuda_batch_* calls.
 *
 * Guards: chunks compressed by libzstd (levels 1, 3, 19) decode on the GPU
 * to the original bytes with argument arrays in host memory and in device
 * memory; a capacity one byte short gives OUTPUT_TOO_SMALL and no byte past
 * it (guard bytes); truncated frames never decode to the original size.
 *
 * Without a GPU (CI) the test says so and passes; scripts/gpu-check runs it
 * on a GPU machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cuda/runtime/cuda_engine.h"

#include "helpers/dev_batch.h"
#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"

#define CHUNK 65536
#define MAXN 128
#define GUARD DEV_BATCH_GUARD

static uint8_t *load(size_t *n)
{
    const char *files[] = {"/usr/share/common-licenses/GPL-3", "/proc/self/exe"};
    size_t cap = 2 * MAXN * CHUNK / 4, k = 0;
    uint8_t *buf = malloc(cap);
    REQUIRE(buf);
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f)
            continue;
        size_t want = cap / 2 < cap - k ? cap / 2 : cap - k; /* never past the buffer */
        k += fread(buf + k, 1, want, f);
        fclose(f);
    }
    for (uint64_t x = 88172645463325252ull; k + 8 <= cap; k += 8) { /* a numeric column to fill up */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t v = k / 64 + (x & 3);
        memcpy(buf + k, &v, 8);
    }
    for (; k < cap; k++)
        buf[k] = (uint8_t)k;
    *n = cap;
    return buf;
}

/* Decode n chunks (comp[i], clen[i]) into capacities caps[i] on the GPU
 * (out_host: every chunk's slot and its guard, in order). */
static void gpu_decode(size_t n, uint8_t *const *comp, const size_t *clen, const size_t *caps,
                       int arrays_on_device, uint8_t *out_host, size_t *sizes, oc_status *st)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    dev_batch_run(0, &o, n, (const uint8_t *const *)comp, clen, caps, arrays_on_device, out_host, sizes, st);
}

int main(void)
{
    if (!dev_gpu_begin("test_cuda_zstd_dispatch"))
        return 0;
    size_t total;
    uint8_t *data = load(&total);
    size_t n = total / CHUNK;
    REQUIRE(n <= MAXN);
    size_t bound = ZSTD_compressBound(CHUNK);
    uint8_t *comp_pool = malloc(n * bound), *out = malloc(n * (CHUNK + GUARD));
    uint8_t *comp[MAXN];
    size_t clen[MAXN], caps[MAXN], sizes[MAXN];
    oc_status st[MAXN];
    static const int levels[] = {1, 3, 19};
    for (size_t i = 0; i < n; i++) {
        comp[i] = comp_pool + i * bound;
        clen[i] = ZSTD_compress(comp[i], bound, data + i * CHUNK, CHUNK, levels[i % 3]);
        REQUIRE(!ZSTD_isError(clen[i]));
        caps[i] = CHUNK;
    }
    for (int dev_arrays = 0; dev_arrays <= 1; dev_arrays++) {
        gpu_decode(n, comp, clen, caps, dev_arrays, out, sizes, st);
        for (size_t i = 0; i < n; i++) {
            CHECK(st[i] == OC_OK && sizes[i] == CHUNK);
            if (st[i] == OC_OK)
                CHECK(memcmp(out + i * (CHUNK + GUARD), data + i * CHUNK, CHUNK) == 0);
            else
                fprintf(stderr, "chunk %zu: status %s\n", i, oc_status_name(st[i]));
        }
    }
    /* one byte too little room */
    for (size_t i = 0; i < n; i++)
        caps[i] = CHUNK - 1;
    gpu_decode(n, comp, clen, caps, 0, out, sizes, st);
    for (size_t i = 0; i < n; i++)
        CHECK(st[i] == OC_ERR_OUTPUT_TOO_SMALL);
    /* truncated frames: never the original back */
    for (size_t i = 0; i < n; i++) {
        clen[i] = clen[i] * (i + 1) / (n + 1);
        caps[i] = CHUNK;
    }
    gpu_decode(n, comp, clen, caps, 1, out, sizes, st);
    for (size_t i = 0; i < n; i++)
        CHECK(st[i] != OC_OK || sizes[i] < CHUNK);
    oc_cuda_context_release(&g_ctx);
    free(data), free(comp_pool), free(out);
    if (g_failures) {
        printf("test_cuda_zstd_dispatch: %d failures\n", g_failures);
        return 1;
    }
    printf("test_cuda_zstd_dispatch: %zu chunks decoded on the GPU, all checks passed\n", n);
    return 0;
}
