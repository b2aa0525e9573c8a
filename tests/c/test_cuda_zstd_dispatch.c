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

#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"

#define CHUNK 65536
#define MAXN 128
#define GUARD 32

static oc_context g_ctx; /* g_gpu (helpers/dev_mem.h) points here */

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

/* Decode n chunks (comp[i], clen[i]) into capacities caps[i] on the GPU. */
static void gpu_decode(size_t n, uint8_t *const *comp, const size_t *clen, const size_t *caps,
                       int arrays_on_device, uint8_t *out_host, size_t *sizes, oc_status *st)
{
    size_t in_total = 0, out_total = 0;
    for (size_t i = 0; i < n; i++)
        in_total += clen[i], out_total += caps[i] + GUARD;
    uint8_t *d_in = dev_alloc(in_total), *d_out = dev_alloc(out_total);
    const void *src[MAXN];
    void *dst[MAXN];
    size_t io = 0, oo = 0;
    uint8_t *fill = malloc(out_total);
    memset(fill, 0xA5, out_total);
    copy(d_out, fill, out_total);
    free(fill);
    for (size_t i = 0; i < n; i++) {
        copy(d_in + io, comp[i], clen[i]);
        src[i] = d_in + io;
        dst[i] = d_out + oo;
        io += clen[i];
        oo += caps[i] + GUARD;
    }
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    if (!arrays_on_device) {
        CHECK(oc_cuda_batch_decompress(&g_ctx, &o, n, src, clen, dst, caps, sizes, st) == OC_OK);
        REQUIRE(oc_cuda_synchronize(&g_ctx) == OC_OK);
    } else {
        size_t w = n * 8;
        uint8_t *d = dev_alloc(6 * w);
        copy(d, src, w);
        copy(d + w, clen, w);
        copy(d + 2 * w, dst, w);
        copy(d + 3 * w, caps, w);
        CHECK(oc_cuda_batch_decompress(&g_ctx, &o, n, (const void *const *)d, (size_t *)(d + w),
                                       (void *const *)(d + 2 * w), (size_t *)(d + 3 * w),
                                       (size_t *)(d + 4 * w), (oc_status *)(d + 5 * w)) == OC_OK);
        copy(sizes, d + 4 * w, w);
        copy(st, d + 5 * w, n * sizeof(oc_status));
        dev_free(d, 6 * w);
    }
    copy(out_host, d_out, out_total);
    oo = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t g = 0; g < GUARD; g++)
            if (out_host[oo + caps[i] + g] != 0xA5) {
                fprintf(stderr, "chunk %zu: write past capacity\n", i);
                g_failures++;
                break;
            }
        oo += caps[i] + GUARD;
    }
    dev_free(d_in, in_total);
    dev_free(d_out, out_total);
}

int main(void)
{
    if (!oc_cuda_available()) {
        printf("SKIP: test_cuda_zstd_dispatch needs a CUDA GPU (engine: %s); run scripts/gpu-check on a GPU "
               "machine\n",
               oc_cuda_build_info());
        return 0;
    }
    memset(&g_ctx, 0, sizeof(g_ctx));
    g_ctx.opts = (oc_context_options)OC_CONTEXT_OPTIONS_INIT;
    g_gpu = &g_ctx;
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
