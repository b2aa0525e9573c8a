/*
 * test_cuda_zstd_enc.c - zstd compression on the GPU (zstd_enc.cu) through
 * the CUDA engine's batched call, checked on the host with libzstd and
 * against the C build of the same encoder (zstd_enc_core.h).
 *
 * Guards: chunks of real data (license text, this executable, a numeric
 * column, random bytes, one repeated byte; 64 KiB chunks, a 1 MiB chunk,
 * sizes 0, 1 and 100, and 192 KiB of random bytes then a run, where the
 * chain levels' search steps over the random stretch) compressed on device
 * memory at levels -1, 1, 2, 3, 5 and 6 (one per variant: fast, buckets of
 * depth 1, 4 and 8, windowed chains with the burst search over match-less
 * stretches, chains on lane 0) and 0 (default) decode with ZSTD_decompress
 * to the input and are
 * byte-identical to the C model's frames (with OC_TEST_SMALL, as under
 * compute-sanitizer: levels 1, 3, 2 and -1 only, and the 1 MiB chunk cut
 * to 160 KiB); at levels 1-3 the big chunk runs a warp a 128 KiB block
 * (gathered by the last), and with a capacity of exactly its frame on one
 * warp: the same bytes; argument arrays in host and in device memory; a capacity
 * one byte short gives OUTPUT_TOO_SMALL and no byte past it (guard bytes);
 * level 3 is not larger than level 1 on text.  It also prints (never
 * checks) the GPU compression speed on 32 MiB of 64 KiB chunks at levels
 * 1, 2 and 3, for bench/gpu/zstd/ENC_NOTES.md (not with OC_TEST_SMALL
 * set, as scripts/gpu-check does under compute-sanitizer).
 *
 * Without a GPU (CI) the test says so and passes; scripts/gpu-check runs it
 * on a GPU machine.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "cuda/runtime/cuda_engine.h"
#include "cuda/codecs/zstd/zstd_enc_core.h"

#include "helpers/dev_batch.h"
#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"

#define CHUNK 65536
#define MAXN 64
#define GUARD DEV_BATCH_GUARD

/* Compresses chunks (src[i], len[i]) on the GPU into capacities caps[i];
 * out_host gets each chunk's output region (caps[i] + GUARD bytes, in
 * order). */
static void gpu_compress(size_t n, const uint8_t *const *src, const size_t *len, const size_t *caps,
                         int level, int arrays_on_device, uint8_t *out_host, size_t *sizes, oc_status *st)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    o.level = level;
    dev_batch_run(1, &o, n, src, len, caps, arrays_on_device, out_host, sizes, st);
}

int main(void)
{
    if (!dev_gpu_begin("test_cuda_zstd_enc"))
        return 0;

    /* data: text, binary, a numeric column, random, one byte repeated */
    size_t total = 40 * (size_t)CHUNK + ((size_t)1 << 20), k = 0;
    uint8_t *data = malloc(total);
    REQUIRE(data);
    const char *files[] = {"/usr/share/common-licenses/GPL-3", "/proc/self/exe"};
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f)
            continue;
        k += fread(data + k, 1, 12 * (size_t)CHUNK, f);
        fclose(f);
    }
    uint64_t x = 88172645463325252ull;
    for (size_t end = k + 12 * (size_t)CHUNK; k + 8 <= end; k += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t v = k / 64 + (x & 3);
        memcpy(data + k, &v, 8);
    }
    for (size_t end = k + 4 * (size_t)CHUNK; k + 8 <= end; k += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(data + k, &x, 8);
    }
    memset(data + k, 'z', total - k);

    /* chunks: 64 KiB pieces, one of 1 MiB (text + column; 160 KiB, two
     * blocks, with OC_TEST_SMALL: one warp runs it, slowly under
     * compute-sanitizer), sizes 0, 1, 100 */
    int small = getenv("OC_TEST_SMALL") != NULL;
    const uint8_t *src[MAXN];
    size_t len[MAXN], caps[MAXN], sizes[MAXN];
    oc_status st[MAXN];
    size_t n = 0;
    for (size_t off = 0; off + CHUNK <= 40 * (size_t)CHUNK && n < 40; off += CHUNK, n++)
        src[n] = data + off, len[n] = CHUNK;
    src[n] = data + 4 * (size_t)CHUNK, len[n++] = small ? (size_t)160 << 10 : (size_t)1 << 20;
    src[n] = data, len[n++] = 0;
    src[n] = data + 7, len[n++] = 1;
    src[n] = data + 3 * (size_t)CHUNK + 5, len[n++] = 100;
    src[n] = data + 38 * (size_t)CHUNK, len[n++] = 3 * (size_t)CHUNK; /* random, then 'z' */
    REQUIRE(n <= MAXN);

    size_t out_total = 0;
    for (size_t i = 0; i < n; i++) {
        caps[i] = ZSTD_compressBound(len[i]);
        out_total += caps[i] + GUARD;
    }
    uint8_t *out = malloc(out_total), *back = malloc((size_t)1 << 20);
    static uint8_t scratch[ZE_SCRATCH_BYTES] __attribute__((aligned(16)));
    static ze_tables tables;
    ze_work W = ze_work_from(scratch);
    ze_tables_init(&tables);
    uint8_t *model = malloc(ZSTD_compressBound((size_t)1 << 20));
    size_t text_sum[2] = {0, 0};

    static const int levels[] = {1, 3, 2, -1, 0, 6, 5};
    int model_default = 3; /* level 0: the algorithm table's default zstd level */
    int nlevels = small ? 4 : 7;
    for (int li = 0; li < nlevels; li++) {
        for (int dev_arrays = 0; dev_arrays <= 1; dev_arrays++) {
            gpu_compress(n, src, len, caps, levels[li], dev_arrays, out, sizes, st);
            size_t oo = 0;
            for (size_t i = 0; i < n; i++) {
                uint8_t *frame = out + oo;
                oo += caps[i] + GUARD;
                CHECK(st[i] == OC_OK);
                if (st[i] != OC_OK) {
                    fprintf(stderr, "chunk %zu level %d: status %s\n", i, levels[li], oc_status_name(st[i]));
                    continue;
                }
                size_t r = ZSTD_decompress(back, len[i], frame, sizes[i]);
                CHECK(!ZSTD_isError(r) && r == len[i] && memcmp(back, src[i], len[i]) == 0);
                CHECK(ZSTD_getFrameContentSize(frame, sizes[i]) == len[i]);
                size_t mo = 0;
                ze_reset(&W, 0, 1);
                CHECK(ze_compress_chunk(&W, &tables, src[i], len[i], model, ZSTD_compressBound(len[i]), &mo,
                                        levels[li] == 0 ? model_default : levels[li]) == OC_OK);
                CHECK(mo == sizes[i] && memcmp(model, frame, mo) == 0);
                if (i < 6 && li < 2 && !dev_arrays)
                    text_sum[li] += sizes[i];
            }
        }
    }
    CHECK(text_sum[1] <= text_sum[0]);
    printf("text chunks: level 1 %zu bytes, level 3 %zu bytes of %d\n", text_sum[0], text_sum[1], 6 * CHUNK);

    /* one byte too little room: OUTPUT_TOO_SMALL, nothing past the capacity;
     * exactly the frame's size: the same frame (the big chunk then runs on
     * one warp, ze_compress_chunk, not a warp a block: same bytes) */
    gpu_compress(n, src, len, caps, 3, 0, out, sizes, st);
    size_t need[MAXN], oo = 0, ro = 0;
    uint8_t *ref = malloc(out_total);
    for (size_t i = 0; i < n; i++) {
        CHECK(st[i] == OC_OK);
        need[i] = sizes[i];
        memcpy(ref + ro, out + oo, sizes[i]);
        oo += caps[i] + GUARD;
        ro += sizes[i];
        caps[i] = sizes[i] - 1;
    }
    gpu_compress(n, src, len, caps, 3, 1, out, sizes, st);
    for (size_t i = 0; i < n; i++)
        CHECK(st[i] == OC_ERR_OUTPUT_TOO_SMALL);
    for (size_t i = 0; i < n; i++)
        caps[i] = need[i];
    gpu_compress(n, src, len, caps, 3, 0, out, sizes, st);
    oo = 0, ro = 0;
    for (size_t i = 0; i < n; i++) {
        CHECK(st[i] == OC_OK && sizes[i] == need[i] && memcmp(out + oo, ref + ro, need[i]) == 0);
        oo += caps[i] + GUARD;
        ro += need[i];
    }
    free(ref);

    /* speed (printed only): 512 chunks of 64 KiB, arrays on the device;
     * skipped under compute-sanitizer (OC_TEST_SMALL) */
    if (!small) {
        size_t nb = 512, bound = ZSTD_compressBound(CHUNK);
        uint8_t *d_in = dev_alloc(nb * CHUNK), *d_out = dev_alloc(nb * bound);
        for (size_t i = 0; i < nb; i++)
            copy(d_in + i * CHUNK, data + (i % 40) * CHUNK, CHUNK);
        size_t w = nb * 8;
        void **hp = malloc(4 * w);
        size_t *hs = (size_t *)(hp + nb), *hc = (size_t *)(hp + 2 * nb);
        void **hd = hp + 3 * nb;
        for (size_t i = 0; i < nb; i++)
            hp[i] = d_in + i * CHUNK, hs[i] = CHUNK, hc[i] = bound, hd[i] = d_out + i * bound;
        uint8_t *a = dev_alloc(6 * w);
        copy(a, hp, w);
        copy(a + w, hs, w);
        copy(a + 2 * w, hd, w);
        copy(a + 3 * w, hc, w);
        for (int li = 0; li < 3; li++) {
            oc_codec_options o = OC_CODEC_OPTIONS_INIT;
            o.algorithm = OC_ALGO_ZSTD;
            o.level = li + 1;
            double best = 1e30;
            for (int rep = 0; rep < 3; rep++) {
                struct timespec t0, t1;
                clock_gettime(CLOCK_MONOTONIC, &t0);
                CHECK(oc_cuda_batch_compress(&g_ctx, &o, nb, (const void *const *)a, (size_t *)(a + w),
                                             (void *const *)(a + 2 * w), (size_t *)(a + 3 * w),
                                             (size_t *)(a + 4 * w), (oc_status *)(a + 5 * w)) == OC_OK);
                REQUIRE(oc_cuda_synchronize(&g_ctx) == OC_OK);
                clock_gettime(CLOCK_MONOTONIC, &t1);
                double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
                best = s < best ? s : best;
            }
            size_t *cs = malloc(w);
            copy(cs, a + 4 * w, w);
            size_t tot = 0;
            for (size_t i = 0; i < nb; i++)
                tot += cs[i];
            free(cs);
            printf("speed: level %d, %zu x 64 KiB: %.3f GB/s, ratio %.3f\n", o.level, nb,
                   (double)(nb * CHUNK) / best / 1e9, (double)(nb * CHUNK) / (double)tot);
        }
        dev_free(a, 6 * w);
        dev_free(d_in, nb * CHUNK);
        dev_free(d_out, nb * bound);
        free(hp);
    }

    oc_cuda_context_release(&g_ctx);
    free(data), free(out), free(back), free(model);
    if (g_failures) {
        printf("test_cuda_zstd_enc: %d failures\n", g_failures);
        return 1;
    }
    printf(
        "test_cuda_zstd_enc: %zu chunks compressed on the GPU at levels 1, 3, 2, -1%s; all checks passed\n",
        n, nlevels == 7 ? ", default, 6, 5" : "");
    return 0;
}
