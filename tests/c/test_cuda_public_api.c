/*
 * test_cuda_public_api.c - the public API on device memory: engine AUTO
 * picks the CUDA engine for device buffers; every algorithm round-trips
 * through oc_batch_* on device chunks (LZ4/Snappy/zstd-decode and GDeflate
 * decode on kernels, the rest host-staged) and the whole-buffer layer round-trips device
 * buffers for every bitstream kind (host-staged), with
 * oc_buffer_decompressed_size reading a device buffer; OC_CONTEXT_OWN_STREAM
 * gives a non-blocking stream of the context's own, and
 * oc_context_wait_stream orders a copy on one stream after work on another
 * with no host wait; our own formats' NATIVE container decodes on the GPU
 * with the CPU path's verdicts on damaged copies.  Device results are
 * checked against the reference libraries by decoding on the host with the
 * CPU engine.
 *
 * Without a GPU (CI) the test says so and passes; scripts/gpu-check runs it
 * on a GPU machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencomp.h"

#include "helpers/algo_list.h"
#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"

#define N 24
#define CHUNK 65536

static oc_context *g_cpu; /* g_gpu: helpers/dev_mem.h */

static uint8_t *make_data(size_t n)
{
    uint8_t *d = malloc(n);
    REQUIRE(d);
    size_t k = 0;
    FILE *f = fopen("/usr/share/common-licenses/GPL-3", "rb");
    if (f) {
        k = fread(d, 1, n / 2, f);
        fclose(f);
    }
    for (uint32_t x = 2463534242u; k < n; k++) { /* small-alphabet text-like bytes */
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        d[k] = (uint8_t)("etaoin shrdlu\n"[x % 14]);
    }
    return d;
}

static void batch_roundtrip(oc_algorithm a, const uint8_t *data)
{
    size_t bound = oc_compress_bound(a, CHUNK);
    REQUIRE(bound > 0);
    uint8_t *d_in = dev_alloc((size_t)N * CHUNK), *d_comp = dev_alloc((size_t)N * bound),
            *d_out = dev_alloc((size_t)N * CHUNK);
    copy(d_in, data, (size_t)N * CHUNK);
    const void *src[N];
    void *cdst[N], *odst[N];
    size_t ssz[N], ccap[N], csz[N], ocap[N], osz[N], qsz[N];
    oc_status st[N];
    for (int i = 0; i < N; i++) {
        src[i] = d_in + (size_t)i * CHUNK;
        ssz[i] = CHUNK - (size_t)i * 97; /* different sizes */
        cdst[i] = d_comp + (size_t)i * bound;
        ccap[i] = bound;
        odst[i] = d_out + (size_t)i * CHUNK;
        ocap[i] = CHUNK;
    }
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    CHECK(oc_batch_compress(g_gpu, &o, N, src, ssz, cdst, ccap, csz, st) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    for (int i = 0; i < N; i++)
        CHECK(st[i] == OC_OK && csz[i] > 0);
    /* the GPU's streams decode on the CPU engine */
    uint8_t *hc = malloc((size_t)N * bound), *ho = malloc(CHUNK);
    copy(hc, d_comp, (size_t)N * bound);
    for (int i = 0; i < N; i++) {
        const void *s1 = hc + (size_t)i * bound;
        void *d1 = ho;
        size_t cap1 = CHUNK, got = 0;
        oc_status s = OC_ERR_INTERNAL;
        CHECK(oc_batch_decompress(g_cpu, &o, 1, &s1, &csz[i], &d1, &cap1, &got, &s) == OC_OK);
        CHECK(s == OC_OK && got == ssz[i] && memcmp(ho, data + (size_t)i * CHUNK, got) == 0);
    }
    /* and on the GPU, with the size query first */
    CHECK(oc_batch_decompressed_sizes(g_gpu, &o, N, (const void *const *)cdst, csz, qsz, st) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    for (int i = 0; i < N; i++)
        CHECK(st[i] == OC_OK && qsz[i] == ssz[i]);
    CHECK(oc_batch_decompress(g_gpu, &o, N, (const void *const *)cdst, csz, odst, ocap, osz, st) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    uint8_t *hout = malloc((size_t)N * CHUNK);
    copy(hout, d_out, (size_t)N * CHUNK);
    for (int i = 0; i < N; i++)
        CHECK(st[i] == OC_OK && osz[i] == ssz[i] &&
              memcmp(hout + (size_t)i * CHUNK, data + (size_t)i * CHUNK, ssz[i]) == 0);
    free(hc), free(ho), free(hout);
    dev_free(d_in, (size_t)N * CHUNK);
    dev_free(d_comp, (size_t)N * bound);
    dev_free(d_out, (size_t)N * CHUNK);
}

static void buffer_roundtrip(oc_algorithm a, oc_bitstream_kind kind, const uint8_t *data, size_t n)
{
    oc_buffer_options bo = OC_BUFFER_OPTIONS_INIT;
    bo.algorithm = a;
    bo.kind = kind;
    size_t bound = oc_buffer_compress_bound(&bo, n);
    REQUIRE(bound > 0);
    uint8_t *d_in = dev_alloc(n), *d_comp = dev_alloc(bound), *d_out = dev_alloc(n);
    copy(d_in, data, n);
    uint64_t csz = 0, dsz = 0, qsz = 0;
    CHECK(oc_buffer_compress(g_gpu, &bo, d_in, n, d_comp, bound, &csz) == OC_OK);
    CHECK(csz > 0 && csz <= bound);
    /* the device result decodes on the host */
    uint8_t *hc = malloc(bound), *ho = malloc(n);
    copy(hc, d_comp, csz);
    CHECK(oc_buffer_decompress(g_cpu, &bo, hc, csz, ho, n, &dsz, NULL) == OC_OK && dsz == n &&
          memcmp(ho, data, n) == 0);
    /* size query and decode of the device buffer */
    oc_status qs = oc_buffer_decompressed_size(g_gpu, &bo, d_comp, csz, &qsz);
    CHECK(qs == OC_OK && qsz == n);
    dsz = 0;
    CHECK(oc_buffer_decompress(g_gpu, &bo, d_comp, csz, d_out, n, &dsz, NULL) == OC_OK && dsz == n);
    memset(ho, 0, n);
    copy(ho, d_out, n);
    CHECK(memcmp(ho, data, n) == 0);
    /* one byte too little room */
    if (kind != OC_BITSTREAM_RAW)
        CHECK(oc_buffer_decompress(g_gpu, &bo, d_comp, csz, d_out, n - 1, &dsz, NULL) != OC_OK);
    free(hc), free(ho);
    dev_free(d_in, n);
    dev_free(d_comp, bound);
    dev_free(d_out, n);
}

/* Our own formats' NATIVE container on device buffers, decoded on the GPU
 * (own_chunked.c reads it from head and tail): the round trips above, and
 * damaged copies (a byte flipped every csz/23 bytes) that fail on the GPU
 * exactly where they fail on the CPU path, with the same status where the
 * container or a checksum decides (a payload flip may meet another check
 * first in the GPU decoder than in the CPU one: counted, not failed). */
static int g_own_differs;

static void own_native(oc_algorithm a, const uint8_t *text, size_t n)
{
    /* three chunks of random bytes in the middle: stored chunks, which the
     * GPU copies (its decoder sees nothing to do for them) */
    uint8_t *data = malloc(n);
    REQUIRE(data);
    memcpy(data, text, n);
    uint32_t x = 0x9E3779B9u;
    for (size_t k = n / 2; k < n / 2 + 3 * 65536 && k < n; k++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        data[k] = (uint8_t)x;
    }
    buffer_roundtrip(a, OC_BITSTREAM_NATIVE, data, n);
    oc_buffer_options bo = OC_BUFFER_OPTIONS_INIT;
    bo.algorithm = a;
    bo.chunk_size = 65536;
    size_t bound = oc_buffer_compress_bound(&bo, n);
    REQUIRE(bound > 0);
    uint8_t *hc = malloc(bound), *ho = malloc(n), *d_comp = dev_alloc(bound), *d_out = dev_alloc(n);
    uint64_t csz = 0, got = 0;
    REQUIRE(oc_buffer_compress(g_cpu, &bo, data, n, hc, bound, &csz) == OC_OK);
    for (uint64_t pos = 0; pos < csz; pos += csz / 23 + 1) {
        hc[pos] ^= 0x10;
        copy(d_comp, hc, csz);
        uint64_t fc = 7, fg = 7;
        oc_status want = oc_buffer_decompress(g_cpu, NULL, hc, csz, ho, n, &got, &fc);
        oc_status have = oc_buffer_decompress(g_gpu, NULL, d_comp, csz, d_out, n, &got, &fg);
        CHECK((have == OC_OK) == (want == OC_OK));
        CHECK(have == OC_OK || fg == fc);
        if (have != want)
            g_own_differs++;
        hc[pos] ^= 0x10;
    }
    free(hc), free(ho), free(data);
    dev_free(d_comp, bound);
    dev_free(d_out, n);
}

/* OC_CONTEXT_OWN_STREAM: a stream of its own, not the legacy one, used by
 * its calls; set_stream(NULL) returns to it.  Ordering: a copy enqueued on
 * the legacy stream after oc_context_wait_stream(legacy ctx, own stream)
 * sees the own stream's copy (no host wait in between). */
static void own_stream(const uint8_t *data)
{
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.flags = OC_CONTEXT_OWN_STREAM;
    oc_context *own = NULL, *legacy = NULL;
    REQUIRE(oc_context_create(&co, &own) == OC_OK);
    co.flags = 0;
    REQUIRE(oc_context_create(&co, &legacy) == OC_OK);
    void *s = oc_context_stream(own);
    CHECK(s != NULL && s != (void *)1 && s != (void *)2);
    CHECK(oc_context_set_stream(own, (void *)1) == OC_OK && oc_context_stream(own) == (void *)1);
    CHECK(oc_context_set_stream(own, NULL) == OC_OK && oc_context_stream(own) == s);
    size_t n = (size_t)N * CHUNK - 4000;
    uint8_t *a = NULL, *b = NULL, *back = malloc(n);
    REQUIRE(back);
    REQUIRE(oc_memory_alloc(legacy, OC_MEMORY_DEVICE, n, (void **)&a) == OC_OK);
    REQUIRE(oc_memory_alloc(legacy, OC_MEMORY_DEVICE, n, (void **)&b) == OC_OK);
    REQUIRE(oc_context_synchronize(legacy) == OC_OK);
    for (int round = 0; round < 4; round++) {
        REQUIRE(oc_memory_copy(own, a, data + round * 1000, n) == OC_OK); /* on the own stream */
        CHECK(oc_context_wait_stream(legacy, s) == OC_OK);                /* legacy waits for it */
        REQUIRE(oc_memory_copy(legacy, b, a, n) == OC_OK);
        REQUIRE(oc_memory_copy(legacy, back, b, n) == OC_OK);
        REQUIRE(oc_context_synchronize(legacy) == OC_OK);
        CHECK(memcmp(back, data + round * 1000, n) == 0);
    }
    CHECK(oc_context_wait_stream(own, s) == OC_OK); /* its own stream: nothing to do */
    oc_memory_free(legacy, OC_MEMORY_DEVICE, a, n);
    oc_memory_free(legacy, OC_MEMORY_DEVICE, b, n);
    REQUIRE(oc_context_synchronize(own) == OC_OK);
    oc_context_destroy(own);
    oc_context_destroy(legacy);
    free(back);
}

/* With arguments, only the parts named (algorithm names, "stream"):
 * compute-sanitizer runs the whole test for longer than one call allows. */
static int g_argc;
static char **g_argv;

static int wanted(const char *part)
{
    if (g_argc < 2)
        return 1;
    for (int i = 1; i < g_argc; i++)
        if (strcmp(g_argv[i], part) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    g_argc = argc;
    g_argv = argv;
    /* a line at a time: under compute-sanitizer (minutes) the log shows how far it got */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (oc_cuda_device_count() == 0) {
        printf("SKIP: test_cuda_public_api needs a CUDA GPU (%s); run scripts/gpu-check on a GPU machine\n",
               oc_build_info());
        return 0;
    }
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    REQUIRE(oc_context_create(&co, &g_gpu) == OC_OK); /* AUTO: device data goes to the GPU */
    co.engine = OC_ENGINE_CPU;
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    CHECK(oc_engine_available(OC_ENGINE_CUDA) == 1);
    /* Blosc: a GPU decoder and a GPU encoder (lz4, lz4hc, snappy, zstd inner codecs) */
    CHECK(oc_algorithm_decode_available(OC_ENGINE_CUDA, OC_ALGO_BLOSC) == 1);
    CHECK(oc_algorithm_available(OC_ENGINE_CUDA, OC_ALGO_BLOSC) == 1);
    uint8_t *data = make_data((size_t)N * CHUNK);
    void *probe = dev_alloc(16);
    CHECK(oc_pointer_kind(probe) == OC_MEMORY_DEVICE);
    CHECK(oc_pointer_kind(data) == OC_MEMORY_HOST);
    CHECK(oc_pointer_device(probe) == co.device_id); /* the context's device (0) holds its allocations */
    CHECK(oc_pointer_device(data) == -1);
    dev_free(probe, 16);
    /* GDeflate: a GPU decoder and a GPU encoder (gdeflate_kernels.cu), so
     * "available" (both directions) is 1 */
    CHECK(oc_algorithm_available(OC_ENGINE_CUDA, OC_ALGO_GDEFLATE) == 1);
    CHECK(oc_algorithm_decode_available(OC_ENGINE_CUDA, OC_ALGO_GDEFLATE) == 1);
    /* Every algorithm of the table that the GPU engine encodes and decodes:
     * a batch of 64 KiB chunks; the standard containers (those the
     * streaming layer writes) in every bitstream kind; our own NATIVE
     * container (Blosc has none) with damaged copies.  A part named on the
     * command line is an algorithm's name, or "own" for every algorithm of
     * our own container. */
    ta_list algos;
    ta_algorithms(&algos);
    for (size_t ai = 0; ai < algos.n; ai++) {
        oc_algorithm a = algos.info[ai].algorithm;
        const char *name = oc_algorithm_name(a);
        int standard = ta_streams(a), own = !standard && ta_has_native(a);
        if (!oc_algorithm_available(OC_ENGINE_CUDA, a) || !(wanted(name) || (own && wanted("own"))))
            continue;
        batch_roundtrip(a, data);
        printf("  %-8s batch round trip done\n", name);
        for (int k = OC_BITSTREAM_NATIVE; standard && k <= OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE; k++) {
            buffer_roundtrip(a, (oc_bitstream_kind)k, data, (size_t)N * CHUNK - 1234);
            printf("  %-8s whole-buffer round trip, bitstream kind %d, done\n", name, k);
        }
        if (own) {
            own_native(a, data, (size_t)N * CHUNK - 1234);
            printf("  %-8s NATIVE on device memory done (%d damaged copies so far judged differently by the "
                   "GPU and CPU decoders)\n",
                   name, g_own_differs);
        }
        printf("  %-8s batch and whole-buffer round trips on device memory done\n", name);
    }
    /* the special streams (default, legacy, per-thread) belong to the
     * current device, 0 in a process that never chose another */
    for (uintptr_t s = 0; s <= 2; s++) {
        int d = -1;
        CHECK(oc_cuda_stream_device((void *)s, &d) == OC_OK && d == 0);
    }
    if (wanted("stream")) {
        own_stream(data);
        printf("  own non-blocking stream and stream ordering done\n");
    }
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    free(data);
    if (g_failures) {
        printf("test_cuda_public_api: %d failures\n", g_failures);
        return 1;
    }
    printf("test_cuda_public_api: all checks passed\n");
    return 0;
}
