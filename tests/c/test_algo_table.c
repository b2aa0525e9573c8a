/*
 * test_algo_table.c - the algorithm table as the public API shows it
 * (oc_algorithm_get_info, what the CLI, the Python package and the
 * benchmark enumerate) and the facts its rows hold, checked against the
 * reference libraries:
 *   - enumeration: 1, 2, ... until UNSUPPORTED gives every algorithm once,
 *     each name and display name parses back, suffixes are unique where
 *     they decode, levels agree with oc_level_range;
 *   - compress bounds equal liblz4's, snappy's, libdeflate's and libzstd's
 *     for sizes around every block boundary of their formulas;
 *   - magic detection: a stream that each library writes is detected as its
 *     algorithm with OC_ALGO_NONE, and nothing else is (LZ4, snappy, raw
 *     deflate have no magic), including zlib with FDICT (reported as
 *     NEEDS_DICTIONARY by the decoder, not as an unknown format);
 *   - the maximum expansion holds for the most compressible input each
 *     library can produce (a run of zeros); for opencomp's own formats
 *     (Cascaded, ANS, Bitcomp) the bound is the format's (cz_bound,
 *     ans_bound, bc_bound) and
 *     the densest stream is ours, over every data type and layer choice.
 */
#include <libdeflate.h>
#include <lz4.h>
#include <snappy-c.h>
#include <string.h>
#include <blosc.h>
#include <zstd.h>

#include "cores/ans/ans_core.h"
#include "cores/bitcomp/bitcomp_core.h"
#include "cores/cascaded/cascaded_core.h"
#include "cpu/codecs/gdeflate/gdeflate_core.h"
#include "helpers/test_util.h"

static size_t library_bound(oc_algorithm a, size_t n)
{
    switch (a) {
    case OC_ALGO_LZ4:
        return n > LZ4_MAX_INPUT_SIZE ? 0 : (size_t)LZ4_compressBound((int)n);
    case OC_ALGO_SNAPPY:
        return snappy_max_compressed_length(n);
    case OC_ALGO_DEFLATE:
        return libdeflate_deflate_compress_bound(NULL, n);
    case OC_ALGO_ZLIB:
        return libdeflate_zlib_compress_bound(NULL, n);
    case OC_ALGO_GZIP:
        return libdeflate_gzip_compress_bound(NULL, n);
    case OC_ALGO_ZSTD:
        return ZSTD_compressBound(n);
    case OC_ALGO_CASCADED: /* our own format: its bound, from the core */
        return n > OWN_MAX_CHUNK ? 0 : (size_t)cz_bound(n);
    case OC_ALGO_ANS:
        return n > OWN_MAX_CHUNK ? 0 : (size_t)ans_bound(n);
    case OC_ALGO_BITCOMP:
        return n > OWN_MAX_CHUNK ? 0 : (size_t)bc_bound(n);
    case OC_ALGO_GDEFLATE: /* no reference library in Debian: our encoder's bound */
        return gd_bound(n);
    case OC_ALGO_BLOSC: /* c-blosc: BLOSC_MAX_OVERHEAD, inputs up to BLOSC_MAX_BUFFERSIZE */
        return n > (size_t)BLOSC_MAX_BUFFERSIZE ? 0 : n + BLOSC_MAX_OVERHEAD;
    default:
        return 0;
    }
}

static void enumeration(void)
{
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    int count = 0;
    oc_algorithm a = (oc_algorithm)1;
    for (; oc_algorithm_get_info(a, &info) == OC_OK; a = (oc_algorithm)(a + 1)) {
        count++;
        CHECK_EQ(info.algorithm, a);
        CHECK(strcmp(info.name, oc_algorithm_name(a)) == 0);
        oc_algorithm back = OC_ALGO_NONE;
        CHECK_OK(oc_algorithm_from_name(info.display_name, &back));
        CHECK_EQ(back, a);
        for (const char *const *al = info.aliases; *al; al++) {
            CHECK_OK(oc_algorithm_from_name(*al, &back));
            CHECK_EQ(back, a);
        }
        int lo, hi, def;
        CHECK_OK(oc_level_range(a, &lo, &hi, &def));
        CHECK_EQ(info.min_level, lo);
        CHECK_EQ(info.max_level, hi);
        CHECK_EQ(info.default_level, def);
        CHECK(lo <= def && def <= hi);
        CHECK(info.suffix[0] == '.');
        CHECK(oc_compress_bound(a, 1000) > 1000);
        CHECK_SIZE_EQ(oc_compress_bound(a, (size_t)info.max_chunk_size + 1), 0);
        CHECK(info.max_expansion >= 2);
        CHECK(oc_algorithm_available(OC_ENGINE_CPU, a));
        /* a decode suffix names exactly one algorithm */
        for (const char *const *s = info.decode_suffixes; *s; s++) {
            CHECK((*s)[0] == '.');
            oc_algorithm_info other = OC_ALGORITHM_INFO_INIT;
            for (oc_algorithm b = (oc_algorithm)1; oc_algorithm_get_info(b, &other) == OC_OK;
                 b = (oc_algorithm)(b + 1))
                for (const char *const *t = other.decode_suffixes; *t && b != a; t++)
                    CHECK_MSG(strcmp(*s, *t) != 0, "suffix %s decodes as %s and %s", *s, info.name,
                              other.name);
        }
    }
    CHECK_EQ(count, OC_ALGO_COUNT - 1);
    CHECK_STATUS(oc_algorithm_get_info(a, &info), OC_ERR_UNSUPPORTED);
    CHECK_STATUS(oc_algorithm_get_info((oc_algorithm)-1, &info), OC_ERR_UNSUPPORTED);
    CHECK_STATUS(oc_algorithm_get_info(OC_ALGO_NONE, &info), OC_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(oc_algorithm_get_info(OC_ALGO_LZ4, NULL), OC_ERR_INVALID_ARGUMENT);
    oc_algorithm_info bad = OC_ALGORITHM_INFO_INIT;
    bad.struct_size = 8;
    CHECK_STATUS(oc_algorithm_get_info(OC_ALGO_LZ4, &bad), OC_ERR_INVALID_ARGUMENT);
    /* the facts the CLI relies on */
    CHECK_OK(oc_algorithm_get_info(OC_ALGO_SNAPPY, &info));
    CHECK(!info.has_levels && strcmp(info.suffix, ".sz") == 0);
    CHECK_OK(oc_algorithm_get_info(OC_ALGO_ZLIB, &info));
    CHECK(strcmp(info.suffix, ".gz") == 0 && info.decode_suffixes[0] == NULL && info.self_identifying);
    CHECK_OK(oc_algorithm_get_info(OC_ALGO_ZSTD, &info));
    CHECK(strcmp(info.decode_suffixes[0], ".zst") == 0 && strcmp(info.decode_suffixes[1], ".zstd") == 0);
}

static void bounds(void)
{
    static const size_t base[] = {0,
                                  1,
                                  15,
                                  16,
                                  254,
                                  255,
                                  256,
                                  4999,
                                  5000,
                                  5001,
                                  65535,
                                  65536,
                                  131071,
                                  131072,
                                  131073,
                                  1000000,
                                  (size_t)1 << 24,
                                  0x7E000000u,
                                  0x7E000001u};
    for (int a = 1; a < OC_ALGO_COUNT; a++) {
        for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
            for (size_t d = 0; d < 3; d++) {
                size_t n = base[i] + d;
                CHECK_MSG(oc_compress_bound((oc_algorithm)a, n) == library_bound((oc_algorithm)a, n),
                          "%s bound of %zu: %zu, the library says %zu", oc_algorithm_name((oc_algorithm)a), n,
                          oc_compress_bound((oc_algorithm)a, n), library_bound((oc_algorithm)a, n));
            }
        }
    }
}

/* One stream of `a` holding src, written by the reference library. */
static size_t library_compress(oc_algorithm a, const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(6);
    size_t r = 0;
    switch (a) {
    case OC_ALGO_LZ4:
        r = (size_t)LZ4_compress_default((const char *)src, (char *)dst, (int)n, (int)cap);
        break;
    case OC_ALGO_SNAPPY:
        r = cap;
        CHECK(snappy_compress((const char *)src, n, (char *)dst, &r) == SNAPPY_OK);
        break;
    case OC_ALGO_DEFLATE:
        r = libdeflate_deflate_compress(c, src, n, dst, cap);
        break;
    case OC_ALGO_ZLIB:
        r = libdeflate_zlib_compress(c, src, n, dst, cap);
        break;
    case OC_ALGO_GZIP:
        r = libdeflate_gzip_compress(c, src, n, dst, cap);
        break;
    case OC_ALGO_BLOSC: {
        int b = blosc_compress_ctx(9, BLOSC_SHUFFLE, 8, n, src, dst, cap, "zstd", 0, 1);
        r = b > 0 ? (size_t)b : 0;
        break;
    }
    case OC_ALGO_ZSTD:
        r = ZSTD_compress(dst, cap, src, n, 19);
        CHECK(!ZSTD_isError(r));
        break;
    case OC_ALGO_GDEFLATE: { /* no reference library: our encoder, level 9, one page */
        oc_context *ctx = NULL;
        CHECK_OK(oc_context_create(NULL, &ctx));
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = a;
        o.level = 9;
        oc_status st = OC_ERR_INTERNAL;
        CHECK(n <= GD_MAX_PAGE);
        CHECK_OK(
            oc_batch_compress(ctx, &o, 1, (const void *const *)&src, &n, (void *const *)&dst, &cap, &r, &st));
        CHECK_OK(st);
        oc_context_destroy(ctx);
        break;
    }
    default: { /* our own formats: our compressor, the densest choice of type and layers */
        oc_context *ctx = NULL;
        CHECK_OK(oc_context_create(NULL, &ctx));
        r = 0;
        /* every width; the layer choices that leave the fewest bytes (one run,
         * streams raw or packed) and the default and automatic ones */
        static const int types[] = {OC_TYPE_U8, OC_TYPE_U16, OC_TYPE_U32, OC_TYPE_U64};
        static const uint32_t layers[] = {OC_CASCADED_LAYERS(1, 0, 0), OC_CASCADED_LAYERS(1, 0, 1),
                                          OC_CASCADED_DEFAULT, OC_CASCADED_AUTO};
        for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
            if (a == OC_ALGO_ANS && types[ti] > OC_TYPE_U16) /* ANS codes 1- and 2-byte types */
                continue;
            for (size_t li = 0; li < sizeof layers / sizeof layers[0]; li++) {
                oc_codec_options o = OC_CODEC_OPTIONS_INIT;
                o.algorithm = a;
                o.typed.data_type = (oc_data_type)types[ti];
                o.typed.cascaded = layers[li];
                size_t got = 0;
                oc_status st = OC_ERR_INTERNAL;
                CHECK_OK(oc_batch_compress(ctx, &o, 1, (const void *const *)&src, &n, (void *const *)&dst,
                                           &cap, &got, &st));
                CHECK_OK(st);
                if (r == 0 || got < r)
                    r = got;
            }
        }
        /* r: the densest size (dst holds the last stream) */
        oc_context_destroy(ctx);
        break;
    }
    }
    libdeflate_free_compressor(c);
    CHECK(r > 0);
    return r;
}

/* The typed options each row accepts (type_widths, max_algorithm_type)
 * are what compression accepts: every data type, algorithm types 0..max
 * and max + 1. */
static void typed_acceptance(void)
{
    oc_context *ctx = NULL;
    CHECK_OK(oc_context_create(NULL, &ctx));
    uint8_t src[1000], dst[4096];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (uint8_t)(i * 7 % 13);
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    for (oc_algorithm a = (oc_algorithm)1; oc_algorithm_get_info(a, &info) == OC_OK;
         a = (oc_algorithm)(a + 1)) {
        CHECK(info.max_algorithm_type >= 0);
        for (int t = 0; t < OC_TYPE_COUNT; t++) {
            for (int at = 0; at <= info.max_algorithm_type + 1; at++) {
                oc_codec_options o = OC_CODEC_OPTIONS_INIT;
                o.algorithm = a;
                o.typed.data_type = (oc_data_type)t;
                o.typed.algorithm_type = at;
                size_t w = oc_data_type_size((oc_data_type)t), n = sizeof src, cap = sizeof dst, got = 0;
                int ok = at <= info.max_algorithm_type &&
                         (info.type_widths == 0 || t == OC_TYPE_DEFAULT || ((info.type_widths >> w) & 1u));
                const void *sp = src;
                void *dp = dst;
                oc_status st = OC_ERR_INTERNAL;
                oc_status call = oc_batch_compress(ctx, &o, 1, &sp, &n, &dp, &cap, &got, &st);
                CHECK_MSG(ok ? (call == OC_OK && st == OC_OK) : call == OC_ERR_INVALID_ARGUMENT,
                          "%s, data type %d, algorithm_type %d: %s / %s (expected %s)", info.name, t, at,
                          oc_status_name(call), oc_status_name(st), ok ? "OK" : "INVALID_ARGUMENT");
            }
        }
    }
    CHECK_SIZE_EQ(oc_data_type_size(OC_TYPE_DEFAULT), 1);
    CHECK_SIZE_EQ(oc_data_type_size(OC_TYPE_BF16), 2);
    CHECK_SIZE_EQ(oc_data_type_size(OC_TYPE_F32), 4);
    CHECK_SIZE_EQ(oc_data_type_size(OC_TYPE_I64), 8);
    CHECK_SIZE_EQ(oc_data_type_size((oc_data_type)OC_TYPE_COUNT), 0);
    oc_context_destroy(ctx);
}

static void detection_and_expansion(void)
{
    size_t n = (size_t)4 << 20;
    uint8_t *zeros = calloc(1, n);
    tu_buf real;
    tu_big_real(65536, &real);
    const uint8_t *text = real.data;
    uint8_t *out = malloc(oc_compress_bound(OC_ALGO_SNAPPY, n));
    oc_context *ctx = NULL;
    CHECK_OK(oc_context_create(NULL, &ctx));
    for (int a = 1; a < OC_ALGO_COUNT; a++) {
        oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
        CHECK_OK(oc_algorithm_get_info((oc_algorithm)a, &info));
        /* detection: the library's stream of text, decoded with OC_ALGO_NONE */
        size_t c = library_compress((oc_algorithm)a, text, 65536, out, oc_compress_bound(OC_ALGO_SNAPPY, n));
        const void *sp = out;
        size_t size = 0;
        oc_status st = OC_OK;
        CHECK_OK(oc_batch_decompressed_sizes(ctx, NULL, 1, &sp, &c, &size, &st));
        if (info.self_identifying) {
            CHECK_MSG(st == OC_OK && size == 65536, "%s not detected: %s", info.name, oc_status_name(st));
        } else {
            CHECK_MSG(st == OC_ERR_INVALID_ARGUMENT, "%s detected as something: %s", info.name,
                      oc_status_name(st));
        }
        /* expansion: the densest stream the library writes stays within the row's bound
         * (one stream of at most the row's largest chunk, without the 64 KiB slack) */
        size_t z = n < info.max_chunk_size ? n : (size_t)info.max_chunk_size;
        c = library_compress((oc_algorithm)a, zeros, z, out, oc_compress_bound(OC_ALGO_SNAPPY, n));
        CHECK_MSG((uint64_t)z <= (uint64_t)c * info.max_expansion + (z < n ? 0 : 65536),
                  "%s: %zu bytes decode to %zu, above max_expansion %llu", info.name, c, z,
                  (unsigned long long)info.max_expansion);
    }
    /* zlib with FDICT: detected as zlib, so the decoder names the problem */
    static const uint8_t fdict[] = {0x78, 0xBB, 0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 1};
    const void *sp = fdict;
    size_t c = sizeof fdict, size = 0;
    oc_status st = OC_OK;
    CHECK_OK(oc_batch_decompressed_sizes(ctx, NULL, 1, &sp, &c, &size, &st));
    CHECK_STATUS(st, OC_ERR_NEEDS_DICTIONARY);
    oc_context_destroy(ctx);
    free(zeros);
    tu_buf_free(&real);
    free(out);
}

int main(void)
{
    enumeration();
    bounds();
    typed_acceptance();
    detection_and_expansion();
    printf("test_algo_table: ok\n");
    return 0;
}
