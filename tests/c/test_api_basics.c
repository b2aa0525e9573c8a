/*
 * test_api_basics.c - the small public calls: status names and messages,
 * algorithm names (nvCOMP spellings, case-insensitive), level ranges,
 * version and build info (with the linked reference libraries' versions),
 * engine and algorithm availability, context options validation, the
 * memory helpers' host paths and NO_DEVICE answers, the context's stream
 * (OC_CONTEXT_OWN_STREAM, oc_context_stream, oc_context_wait_stream), custom host allocators
 * (every scratch byte goes through them and is given back), and the batch
 * calls' argument errors.
 */
#define _POSIX_C_SOURCE 200809L
#include <libdeflate.h>
#include <lz4.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "helpers/algo_list.h"
#include "helpers/test_util.h"

static void statuses(void)
{
    CHECK(strcmp(oc_status_name(OC_OK), "OK") == 0);
    CHECK(strcmp(oc_status_name(OC_ERR_CORRUPT), "CORRUPT") == 0);
    CHECK(strcmp(oc_status_name(OC_ERR_OUTPUT_TOO_SMALL), "OUTPUT_TOO_SMALL") == 0);
    CHECK(strcmp(oc_status_name(OC_ERR_IO), "IO") == 0);
    CHECK(strcmp(oc_status_name((oc_status)99), "UNKNOWN") == 0);
    CHECK(strcmp(oc_status_name((oc_status)-1), "UNKNOWN") == 0);
    CHECK(strcmp(oc_status_name(OC_ERR_FORKED), "FORKED") == 0);
    CHECK(strcmp(oc_status_message((oc_status)(OC_ERR_FORKED + 1)), "unknown status") == 0);
    for (int s = 0; s <= OC_ERR_FORKED; s++) { /* every value named, no two alike */
        CHECK(strcmp(oc_status_name((oc_status)s), "UNKNOWN") != 0);
        CHECK(strlen(oc_status_message((oc_status)s)) > 3);
        for (int t = 0; t < s; t++)
            CHECK(strcmp(oc_status_name((oc_status)s), oc_status_name((oc_status)t)) != 0);
    }
}

static void algorithms(void)
{
    static const struct {
        const char *name;
        oc_algorithm algo;
    } names[] = {{"lz4", OC_ALGO_LZ4},       {"LZ4", OC_ALGO_LZ4},         {"Snappy", OC_ALGO_SNAPPY},
                 {"snappy", OC_ALGO_SNAPPY}, {"Deflate", OC_ALGO_DEFLATE}, {"zlib", OC_ALGO_ZLIB},
                 {"Zlib", OC_ALGO_ZLIB},     {"Gzip", OC_ALGO_GZIP},       {"GZIP", OC_ALGO_GZIP},
                 {"Zstd", OC_ALGO_ZSTD},     {"zStD", OC_ALGO_ZSTD},       {"none", OC_ALGO_NONE}};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        oc_algorithm a = (oc_algorithm)77;
        CHECK_OK(oc_algorithm_from_name(names[i].name, &a));
        CHECK_EQ(a, names[i].algo);
    }
    oc_algorithm a = OC_ALGO_LZ4;
    CHECK_STATUS(oc_algorithm_from_name("brotli", &a), OC_ERR_UNSUPPORTED);
    CHECK_STATUS(oc_algorithm_from_name("zstd2", &a), OC_ERR_UNSUPPORTED);
    CHECK_STATUS(oc_algorithm_from_name("", &a), OC_ERR_UNSUPPORTED);
    CHECK_EQ(a, OC_ALGO_LZ4); /* left alone */
    CHECK_STATUS(oc_algorithm_from_name(NULL, &a), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_algorithm_from_name("lz4", NULL), OC_ERR_INVALID_ARGUMENT);
    for (int i = 0; i < OC_ALGO_COUNT; i++) { /* names round-trip */
        CHECK_OK(oc_algorithm_from_name(oc_algorithm_name((oc_algorithm)i), &a));
        CHECK_EQ(a, i);
    }
    CHECK(oc_algorithm_name((oc_algorithm)OC_ALGO_COUNT) == NULL);

    int lo, hi, def;
    CHECK_OK(oc_level_range(OC_ALGO_ZSTD, &lo, &hi, &def));
    CHECK(lo == -7 && hi == 22 && def == 3);
    CHECK_OK(oc_level_range(OC_ALGO_GZIP, &lo, &hi, &def));
    CHECK(lo == 1 && hi == 12 && def == 6);
    CHECK_OK(oc_level_range(OC_ALGO_LZ4, &lo, &hi, &def));
    CHECK(lo < 0 && hi == 12 && def == 1);
    CHECK_OK(oc_level_range(OC_ALGO_SNAPPY, NULL, NULL, &def));
    CHECK_STATUS(oc_level_range(OC_ALGO_NONE, &lo, &hi, &def), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_level_range((oc_algorithm)OC_ALGO_COUNT, &lo, &hi, &def), OC_ERR_INVALID_ARGUMENT);
}

static void versions(void)
{
    CHECK_EQ(oc_version_number(), OC_VERSION_NUMBER);
    CHECK(strcmp(oc_version_string(), OC_VERSION_STRING) == 0);
    const char *info = oc_build_info();
    CHECK(info == oc_build_info());
    CHECK_MSG(strstr(info, OC_VERSION_STRING) != NULL, "%s", info);
    CHECK_MSG(strstr(info, LZ4_versionString()) != NULL, "%s", info);
    CHECK_MSG(strstr(info, ZSTD_versionString()) != NULL, "%s", info);
    CHECK_MSG(strstr(info, LIBDEFLATE_VERSION_STRING) != NULL, "%s", info);
    CHECK_MSG(strstr(info, "snappy") != NULL && strstr(info, "cuda") != NULL, "%s", info);
    printf("build info: %s\n", info);

    CHECK_EQ(oc_engine_available(OC_ENGINE_CPU), 1);
    CHECK_EQ(oc_engine_available((oc_engine)7), 0);
    for (int a = 1; a < OC_ALGO_COUNT; a++) {
        CHECK_EQ(oc_algorithm_available(OC_ENGINE_CPU, (oc_algorithm)a), 1);
        CHECK_EQ(oc_algorithm_decode_available(OC_ENGINE_CPU, (oc_algorithm)a), 1);
        /* an engine that runs both directions decodes */
        if (oc_algorithm_available(OC_ENGINE_CUDA, (oc_algorithm)a))
            CHECK_EQ(oc_algorithm_decode_available(OC_ENGINE_CUDA, (oc_algorithm)a), 1);
    }
    CHECK_EQ(oc_algorithm_available(OC_ENGINE_CPU, OC_ALGO_NONE), 0);
    CHECK_EQ(oc_algorithm_available(OC_ENGINE_CPU, (oc_algorithm)OC_ALGO_COUNT), 0);
    CHECK_EQ(oc_algorithm_decode_available(OC_ENGINE_CPU, OC_ALGO_NONE), 0);
    CHECK_EQ(oc_algorithm_decode_available(OC_ENGINE_CUDA, (oc_algorithm)OC_ALGO_COUNT), 0);
    if (!oc_engine_available(OC_ENGINE_CUDA)) {
        CHECK_EQ(oc_cuda_device_count(), 0);
        CHECK_EQ(oc_algorithm_available(OC_ENGINE_CUDA, OC_ALGO_LZ4), 0);
        CHECK_EQ(oc_algorithm_decode_available(OC_ENGINE_CUDA, OC_ALGO_LZ4), 0);
        int d = 7; /* no GPU to ask: NO_DEVICE, *device untouched */
        CHECK_STATUS(oc_cuda_stream_device(NULL, &d), OC_ERR_NO_DEVICE);
        CHECK_STATUS(oc_cuda_stream_device((void *)0x1234, &d), OC_ERR_NO_DEVICE);
        CHECK_EQ(d, 7);
    }
    CHECK_STATUS(oc_cuda_stream_device(NULL, NULL), OC_ERR_INVALID_ARGUMENT);
}

/* A host allocator that counts bytes in use. */
typedef struct counting {
    long calls, frees;
    size_t in_use;
} counting;

static void *count_alloc(void *opaque, size_t size, void *stream)
{
    counting *c = opaque;
    CHECK(stream == NULL);
    c->calls++;
    c->in_use += size;
    return malloc(size);
}

static void count_free(void *opaque, void *p, size_t size, void *stream)
{
    counting *c = opaque;
    (void)stream;
    c->frees++;
    c->in_use -= size;
    free(p);
}

static void contexts(void)
{
    oc_context *ctx = NULL;
    CHECK_OK(oc_context_create(NULL, &ctx));
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK_EQ(oc_context_num_threads(ctx), cores < 1 ? 1 : cores);
    CHECK_OK(oc_context_set_stream(ctx, NULL));
    CHECK_OK(oc_context_synchronize(ctx));
    oc_context_destroy(ctx);
    oc_context_destroy(NULL);
    CHECK_EQ(oc_context_num_threads(NULL), 0);
    CHECK_STATUS(oc_context_set_stream(NULL, NULL), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_context_synchronize(NULL), OC_ERR_INVALID_ARGUMENT);

    oc_context_options o = OC_CONTEXT_OPTIONS_INIT;
    CHECK_STATUS(oc_context_create(&o, NULL), OC_ERR_INVALID_ARGUMENT);
    o.struct_size = sizeof(o) - 8;
    CHECK_STATUS(oc_context_create(&o, &ctx), OC_ERR_INVALID_ARGUMENT);
    o.struct_size = sizeof(o);
    o.reserved[6] = 1;
    CHECK_STATUS(oc_context_create(&o, &ctx), OC_ERR_INVALID_ARGUMENT);
    o.reserved[6] = 0;
    o.num_threads = -1;
    CHECK_STATUS(oc_context_create(&o, &ctx), OC_ERR_INVALID_ARGUMENT);
    o.num_threads = 3;
    o.engine = (oc_engine)5;
    CHECK_STATUS(oc_context_create(&o, &ctx), OC_ERR_INVALID_ARGUMENT);
    o.engine = OC_ENGINE_CPU;
    o.host_alloc.alloc = count_alloc; /* alloc without free */
    CHECK_STATUS(oc_context_create(&o, &ctx), OC_ERR_INVALID_ARGUMENT);
    o.host_alloc.alloc = NULL;
    if (!oc_engine_available(OC_ENGINE_CUDA)) {
        oc_context_options oc = OC_CONTEXT_OPTIONS_INIT;
        oc.engine = OC_ENGINE_CUDA;
        CHECK_STATUS(oc_context_create(&oc, &ctx), OC_ERR_NO_DEVICE);
    }
    CHECK_OK(oc_context_create(&o, &ctx));
    CHECK_EQ(oc_context_num_threads(ctx), 3);
    oc_context_destroy(ctx);
}

/* The context's stream: the one given, else the legacy default stream
 * (NULL), else with OC_CONTEXT_OWN_STREAM a stream of its own where a GPU
 * is usable (test_cuda_public_api.c checks that one). */
static void context_streams(void)
{
    oc_context *ctx = NULL;
    oc_context_options o = OC_CONTEXT_OPTIONS_INIT;
    o.flags = 2; /* no such bit */
    CHECK_STATUS(oc_context_create(&o, &ctx), OC_ERR_INVALID_ARGUMENT);
    o.flags = 0;
    CHECK_OK(oc_context_create(&o, &ctx));
    CHECK(oc_context_stream(ctx) == NULL); /* C's default: the legacy default stream */
    CHECK_OK(oc_context_set_stream(ctx, (void *)0x1234));
    CHECK(oc_context_stream(ctx) == (void *)0x1234);
    CHECK_OK(oc_context_wait_stream(ctx, (void *)0x1234)); /* its own stream: nothing to do */
    CHECK_OK(oc_context_set_stream(ctx, NULL));
    CHECK(oc_context_stream(ctx) == NULL);
    if (!oc_engine_available(OC_ENGINE_CUDA))
        CHECK_STATUS(oc_context_wait_stream(ctx, (void *)1), OC_ERR_NO_DEVICE);
    oc_context_destroy(ctx);
    CHECK(oc_context_stream(NULL) == NULL);
    CHECK_STATUS(oc_context_wait_stream(NULL, NULL), OC_ERR_INVALID_ARGUMENT);
    o.flags = OC_CONTEXT_OWN_STREAM;
    CHECK_OK(oc_context_create(&o, &ctx));
    if (!oc_engine_available(OC_ENGINE_CUDA))
        CHECK(oc_context_stream(ctx) == NULL); /* no GPU: nothing to make */
    oc_context_destroy(ctx);
    o.cuda_stream = (void *)0x1234; /* a stream given wins */
    CHECK_OK(oc_context_create(&o, &ctx));
    CHECK(oc_context_stream(ctx) == (void *)0x1234);
    oc_context_destroy(ctx);
}

static void memory(void)
{
    oc_context *ctx;
    counting cnt = {0, 0, 0};
    oc_context_options o = OC_CONTEXT_OPTIONS_INIT;
    o.host_alloc.alloc = count_alloc;
    o.host_alloc.free = count_free;
    o.host_alloc.opaque = &cnt;
    CHECK_OK(oc_context_create(&o, &ctx));
    void *p = NULL, *q = NULL;
    CHECK_OK(oc_memory_alloc(ctx, OC_MEMORY_HOST, 1000, &p));
    CHECK_OK(oc_memory_alloc(ctx, OC_MEMORY_HOST, 1000, &q));
    CHECK_EQ(cnt.calls, 2);
    CHECK_EQ(oc_pointer_kind(p), OC_MEMORY_HOST);
    CHECK_EQ(oc_pointer_device(p), -1); /* host memory has no device */
    CHECK_EQ(oc_pointer_device(NULL), -1);
    tu_fill_random(p, 1000, 5);
    CHECK_OK(oc_memory_copy(ctx, q, p, 1000));
    CHECK_MEM_EQ((uint8_t *)q, (uint8_t *)p, 1000);
    CHECK_OK(oc_memory_copy(ctx, q, NULL, 0));
    CHECK_STATUS(oc_memory_copy(ctx, q, NULL, 10), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_memory_copy(NULL, q, p, 10), OC_ERR_INVALID_ARGUMENT);
    oc_memory_free(ctx, OC_MEMORY_HOST, p, 1000);
    oc_memory_free(ctx, OC_MEMORY_HOST, q, 1000);
    CHECK_EQ(cnt.in_use, 0);
    CHECK_STATUS(oc_memory_alloc(ctx, OC_MEMORY_MANAGED, 10, &p), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_memory_alloc(ctx, OC_MEMORY_HOST, 10, NULL), OC_ERR_INVALID_ARGUMENT);
    if (!oc_engine_available(OC_ENGINE_CUDA)) {
        CHECK_STATUS(oc_memory_alloc(ctx, OC_MEMORY_DEVICE, 10, &p), OC_ERR_NO_DEVICE);
        CHECK_STATUS(oc_memory_alloc(ctx, OC_MEMORY_PINNED, 10, &p), OC_ERR_NO_DEVICE);
    }

    /* Scratch of a batch goes through the allocator and comes back at destroy. */
    tu_buf text;
    tu_corpus_get("text", 0, &text);
    static const oc_algorithm algos[] = {OC_ALGO_LZ4, OC_ALGO_SNAPPY, OC_ALGO_ZLIB, OC_ALGO_ZSTD};
    for (size_t a = 0; a < 4; a++) {
        oc_codec_options co = OC_CODEC_OPTIONS_INIT;
        co.algorithm = algos[a];
        const void *src = text.data;
        size_t n = text.size, cap = 100, size; /* too small: snappy needs its scratch */
        uint8_t dst[100];
        void *d = dst;
        oc_status st;
        CHECK_OK(oc_batch_compress(ctx, &co, 1, &src, &n, &d, &cap, &size, &st));
        CHECK_STATUS(st, OC_ERR_OUTPUT_TOO_SMALL);
        CHECK_OK(oc_batch_decompressed_sizes(ctx, &co, 1, &src, &n, &size, &st)); /* garbage in: any status */
    }
    CHECK(cnt.calls > 2);
    CHECK(cnt.in_use > 0);
    oc_context_destroy(ctx);
    CHECK_EQ(cnt.in_use, 0);
    CHECK_EQ(cnt.calls, cnt.frees);
    tu_buf_free(&text);
}

static void *fail_alloc(void *opaque, size_t size, void *stream)
{
    (void)opaque, (void)size, (void)stream;
    return NULL;
}

static void fail_free(void *opaque, void *p, size_t size, void *stream)
{
    (void)opaque, (void)size, (void)stream;
    CHECK(p == NULL || !"free of a pointer never allocated");
}

/* A host allocator that always fails: chunks that need scratch report
 * OUT_OF_MEMORY, the call itself is OK, nothing crashes or leaks. */
static void out_of_memory(void)
{
    oc_context *ctx;
    oc_context_options o = OC_CONTEXT_OPTIONS_INIT;
    o.num_threads = 2;
    o.host_alloc.alloc = fail_alloc;
    o.host_alloc.free = fail_free;
    CHECK_OK(oc_context_create(&o, &ctx));
    void *p = NULL;
    CHECK_STATUS(oc_memory_alloc(ctx, OC_MEMORY_HOST, 100, &p), OC_ERR_OUT_OF_MEMORY);
    tu_buf text;
    tu_corpus_get("text", 20000, &text);
    const void *src[2] = {text.data, text.data + 10000};
    size_t n[2] = {10000, 10000}, cap[2] = {100, 100}, sizes[2];
    uint8_t d0[100], d1[100];
    void *dst[2] = {d0, d1};
    oc_status st[2];
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = OC_ALGO_LZ4; /* its state comes from the host allocator */
    CHECK_OK(oc_batch_compress(ctx, &co, 2, src, n, dst, cap, sizes, st));
    CHECK_STATUS(st[0], OC_ERR_OUT_OF_MEMORY);
    CHECK_STATUS(st[1], OC_ERR_OUT_OF_MEMORY);
    co.algorithm = OC_ALGO_SNAPPY; /* too small an output: needs the worker buffer */
    CHECK_OK(oc_batch_compress(ctx, &co, 2, src, n, dst, cap, sizes, st));
    CHECK_STATUS(st[0], OC_ERR_OUT_OF_MEMORY);
    oc_context_destroy(ctx);
    tu_buf_free(&text);
}

static void batch_arguments(void)
{
    oc_context *ctx;
    CHECK_OK(oc_context_create(NULL, &ctx));
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    uint8_t srcb[100] = {1, 2, 3}, dstb[200];
    const void *src = srcb;
    void *dst = dstb;
    size_t n = sizeof(srcb), cap = sizeof(dstb), size = 0;
    oc_status st = OC_ERR_INTERNAL;

    /* n == 0: valid with NULL arrays, touches nothing */
    CHECK_OK(oc_batch_compress(ctx, &o, 0, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK_OK(oc_batch_decompress(ctx, &o, 0, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK_OK(oc_batch_decompressed_sizes(ctx, &o, 0, NULL, NULL, NULL, NULL));
    /* statuses may be NULL; compressed sizes are required (issue 11 item 14:
     * dst_sizes == NULL returned OK and the sizes were lost) */
    CHECK_STATUS(oc_batch_compress(ctx, &o, 1, &src, &n, &dst, &cap, NULL, NULL), OC_ERR_INVALID_ARGUMENT);
    CHECK_OK(oc_batch_compress(ctx, &o, 1, &src, &n, &dst, &cap, &size, NULL));
    CHECK_OK(oc_batch_compress(ctx, &o, 1, &src, &n, &dst, &cap, &size, &st));
    CHECK_STATUS(st, OC_OK);

    CHECK_STATUS(oc_batch_compress(NULL, &o, 1, &src, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_compress(ctx, NULL, 1, &src, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_compress(ctx, &o, 1, NULL, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_compress(ctx, &o, 1, &src, NULL, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_compress(ctx, &o, 1, &src, &n, NULL, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_compress(ctx, &o, 1, &src, &n, &dst, NULL, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_decompress(ctx, &o, 2, &src, &n, NULL, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_decompressed_sizes(ctx, &o, 1, &src, &n, NULL, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_decompressed_sizes(NULL, &o, 1, &src, &n, &size, &st), OC_ERR_INVALID_ARGUMENT);

    oc_codec_options bad = o;
    bad.struct_size = 8;
    CHECK_STATUS(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_decompress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st),
                 OC_ERR_INVALID_ARGUMENT);
    bad = o;
    bad.reserved[1] = 1;
    CHECK_STATUS(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_decompressed_sizes(ctx, &bad, 1, &src, &n, &size, &st), OC_ERR_INVALID_ARGUMENT);
    bad = o; /* the filter fields: unknown values */
    bad.filter = 3;
    CHECK_STATUS(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    bad = o;
    bad.blosc_codec = 6;
    CHECK_STATUS(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    bad = o;
    bad.kind = 3; /* oc_bitstream_kind: 0..2 */
    CHECK_STATUS(oc_batch_decompress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st),
                 OC_ERR_INVALID_ARGUMENT);
    /* typed options: unknown type, Cascaded layers out of range, reserved fields */
    static const oc_typed_options bad_typed[] = {{(oc_data_type)OC_TYPE_COUNT, 0, 0, 0},
                                                 {OC_TYPE_I32, 0, OC_CASCADED_LAYERS(4, 1, 1), 0},
                                                 {OC_TYPE_I32, 0, OC_CASCADED_LAYERS(1, 4, 1), 0},
                                                 {OC_TYPE_I32, 0, 0x80000200u, 0},
                                                 {OC_TYPE_I32, 0, 0x12345u, 0},
                                                 {OC_TYPE_I32, 0, OC_CASCADED_AUTO | 1u, 0},
                                                 {OC_TYPE_I32, 0, 0, 1},
                                                 {OC_TYPE_I32, 7, 0, 0}};
    for (size_t i = 0; i < sizeof bad_typed / sizeof bad_typed[0]; i++) {
        bad = o;
        bad.typed = bad_typed[i];
        CHECK_MSG(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st) ==
                      OC_ERR_INVALID_ARGUMENT,
                  "typed options #%zu accepted", i);
    }
    /* ANS codes 1- and 2-byte types only */
    bad = o;
    bad.algorithm = OC_ALGO_ANS;
    bad.typed.data_type = OC_TYPE_I32;
    CHECK_STATUS(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    bad.typed.data_type = OC_TYPE_BF16;
    CHECK_OK(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st));
    bad = o;
    bad.algorithm = (oc_algorithm)42;
    CHECK_STATUS(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_batch_decompress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st),
                 OC_ERR_INVALID_ARGUMENT);
    bad.algorithm = OC_ALGO_NONE; /* nothing to compress with */
    CHECK_STATUS(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st), OC_ERR_INVALID_ARGUMENT);
    /* levels out of range */
    static const struct {
        oc_algorithm algo;
        int level;
    } levels[] = {{OC_ALGO_ZSTD, 23},    {OC_ALGO_ZSTD, -8}, {OC_ALGO_LZ4, 13},
                  {OC_ALGO_DEFLATE, 13}, {OC_ALGO_GZIP, -1}, {OC_ALGO_ZLIB, 100}};
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        bad = o;
        bad.algorithm = levels[i].algo;
        bad.level = levels[i].level;
        CHECK_STATUS(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st),
                     OC_ERR_INVALID_ARGUMENT);
    }
    bad = o;
    bad.algorithm = OC_ALGO_SNAPPY;
    bad.level = 77; /* snappy ignores levels */
    CHECK_OK(oc_batch_compress(ctx, &bad, 1, &src, &n, &dst, &cap, &size, &st));
    CHECK_STATUS(st, OC_OK);

    /* per-chunk NULL buffers: that chunk's status */
    const void *srcs[2] = {srcb, NULL};
    size_t ns[2] = {sizeof(srcb), 10}, caps[2] = {sizeof(dstb), sizeof(dstb)}, sizes[2];
    uint8_t dst2[200];
    void *dsts[2] = {dstb, dst2};
    oc_status sts[2];
    CHECK_OK(oc_batch_compress(ctx, &o, 2, srcs, ns, dsts, caps, sizes, sts));
    CHECK_STATUS(sts[0], OC_OK);
    CHECK_STATUS(sts[1], OC_ERR_INVALID_ARGUMENT);
    CHECK_SIZE_EQ(sizes[1], 0);

    /* OC_ALGO_NONE decoding: detected formats decode, others INVALID_ARGUMENT */
    oc_codec_options none = OC_CODEC_OPTIONS_INIT;
    srcs[1] = srcb; /* 1 2 3 0 0 ...: no magic number */
    ns[0] = sizes[0];
    uint8_t out[100];
    dsts[0] = out;
    dsts[1] = dst2;
    caps[0] = sizeof(out);
    CHECK_OK(oc_batch_decompress(ctx, &none, 2, (const void *const *)(const void *[]){dstb, srcb}, ns, dsts,
                                 caps, sizes, sts));
    CHECK_STATUS(sts[0], OC_OK);
    CHECK_MEM_EQ(out, srcb, sizeof(srcb));
    CHECK_STATUS(sts[1], OC_ERR_INVALID_ARGUMENT);
    CHECK_OK(oc_batch_decompress(ctx, NULL, 1, (const void *const *)(const void *[]){dstb}, ns, dsts, caps,
                                 sizes, sts)); /* NULL options = detect */
    CHECK_STATUS(sts[0], OC_OK);

    /* NULL buffers with zero sizes: an empty chunk compresses (into a real
     * buffer) and decodes into (NULL, 0); encoding into (NULL, 0) is too small */
    ta_list all;
    ta_algorithms(&all);
    for (size_t a = 0; a < all.n; a++) {
        oc_codec_options e = OC_CODEC_OPTIONS_INIT;
        e.algorithm = all.info[a].algorithm;
        const void *nsrc = NULL;
        void *ndst = NULL;
        size_t zero = 0, csize = 0;
        CHECK_OK(oc_batch_compress(ctx, &e, 1, &nsrc, &zero, &dst, &cap, &csize, &st));
        CHECK_STATUS(st, OC_OK);
        CHECK_OK(
            oc_batch_decompress(ctx, &e, 1, (const void *const *)&dst, &csize, &ndst, &zero, &size, &st));
        CHECK_STATUS(st, OC_OK);
        CHECK_SIZE_EQ(size, 0);
        CHECK_OK(oc_batch_compress(ctx, &e, 1, &nsrc, &zero, &ndst, &zero, &csize, &st));
        CHECK_STATUS(st, OC_ERR_OUTPUT_TOO_SMALL);
    }

    CHECK_SIZE_EQ(oc_compress_bound(OC_ALGO_NONE, 10), 0);
    CHECK_SIZE_EQ(oc_compress_bound((oc_algorithm)42, 10), 0);
    CHECK(oc_compress_bound(OC_ALGO_LZ4, 1000) >= 1000);
    CHECK_SIZE_EQ(oc_compress_bound(OC_ALGO_LZ4, (size_t)LZ4_MAX_INPUT_SIZE + 1), 0);
    oc_context_destroy(ctx);
}

int main(void)
{
    statuses();
    algorithms();
    versions();
    contexts();
    context_streams();
    memory();
    out_of_memory();
    batch_arguments();
    printf("test_api_basics: OK\n");
    return 0;
}
