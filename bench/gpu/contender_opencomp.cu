/*
 * contender_opencomp.cu - opencomp in the ladder, through its public C API
 * only (oc_batch_compress / oc_batch_decompress on a context whose engine is
 * CUDA, device pointer arrays): what a user's program calls.
 *
 * Nothing here is compiled per algorithm: a codec runs when the library's
 * algorithm table (oc_algorithm_get_info, enumerated) has a row of that name,
 * and its path is "gpu-kernel" when oc_algorithm_available(OC_ENGINE_CUDA,
 * ...) says the engine has kernels both ways, else "host-staged" (the engine
 * copies the chunks to the host and back around the CPU engine, e.g. Deflate
 * until it has a kernel).  So a new kernel, or a new algorithm such as
 * GDeflate, shows up in the next run with no change to the benchmark.
 */
#include <stdio.h>
#include <string.h>

#include "contender.h"
#include "opencomp.h"

static oc_context *g_ctx;
static oc_algorithm g_algo;
static int g_level;
static int g_zstd_level = 3;
static int g_deflate_level;  /* 0: the algorithm's default (6) */
static int g_type;           /* the benchmark's --data-type (oc_data_type), 0 = defaults */
static oc_data_type g_typed; /* the type the current codec compresses */

extern "C" void ocb_opencomp_set_data_type(int oc_type)
{
    g_type = oc_type;
}

/* The zstd level opencomp's rows use (the benchmark's --zstd-level). */
extern "C" void ocb_opencomp_set_zstd_level(int level)
{
    g_zstd_level = level;
}

/* The level of opencomp's deflate, zlib, gzip and gdeflate rows (the
 * benchmark's --deflate-level; 0 = the default level, recorded as 0). */
extern "C" void ocb_opencomp_set_deflate_level(int level)
{
    g_deflate_level = level;
}

static int oc_init(char *why, size_t cap)
{
    if (g_ctx)
        return 0;
    oc_context_options o = OC_CONTEXT_OPTIONS_INIT;
    o.engine = OC_ENGINE_CUDA;
    oc_status s = oc_context_create(&o, &g_ctx);
    if (s != OC_OK) {
        snprintf(why, cap, "oc_context_create(CUDA): %s", oc_status_name(s));
        return -1;
    }
    return 0;
}

/* The table row named `codec` (its canonical name): 1 and *out, or 0. */
static int oc_find(const char *codec, oc_algorithm *out)
{
    for (int a = 1;; a++) {
        oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
        oc_status s = oc_algorithm_get_info((oc_algorithm)a, &info);
        if (s == OC_ERR_UNSUPPORTED)
            return 0; /* past the last algorithm */
        if (s == OC_OK && info.name && strcmp(info.name, codec) == 0) {
            *out = info.algorithm;
            return 1;
        }
    }
}

static int oc_supports(const char *codec)
{
    oc_algorithm a;
    return oc_find(codec, &a);
}

static const char *oc_path_of(oc_algorithm a)
{
    return oc_algorithm_available(OC_ENGINE_CUDA, a) ? "gpu-kernel" : "host-staged";
}

static const char *oc_path(const char *codec)
{
    oc_algorithm a;
    return oc_find(codec, &a) ? oc_path_of(a) : "";
}

/* `"lz4": "gpu-kernel", ...` for every algorithm of the library's table. */
extern "C" void ocb_opencomp_paths_json(char *buf, size_t cap)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int a = 1; off < cap; a++) {
        oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
        oc_status s = oc_algorithm_get_info((oc_algorithm)a, &info);
        if (s == OC_ERR_UNSUPPORTED)
            break;
        if (s == OC_OK && info.name)
            off += (size_t)snprintf(buf + off, cap - off, "%s\"%s\": \"%s\"", off ? ", " : "", info.name,
                                    oc_path_of(info.algorithm));
    }
}

/* Deflate's family shares its levels (src/common/algo_table.c). */
static int oc_deflate_family(const char *codec)
{
    return strcmp(codec, "deflate") == 0 || strcmp(codec, "zlib") == 0 || strcmp(codec, "gzip") == 0 ||
           strcmp(codec, "gdeflate") == 0;
}

static int oc_level(const char *codec)
{
    if (strcmp(codec, "zstd") == 0)
        return g_zstd_level;
    return oc_deflate_family(codec) ? g_deflate_level : 0;
}

static size_t oc_bound(const char *codec, size_t chunk)
{
    oc_algorithm a;
    return oc_find(codec, &a) ? oc_compress_bound(a, chunk) : 0;
}

static int oc_prepare(const char *codec, size_t chunk, size_t n, uint64_t total, char *why, size_t cap)
{
    (void)chunk, (void)n, (void)total;
    if (!oc_find(codec, &g_algo)) {
        snprintf(why, cap, "opencomp does not know %s", codec);
        return -1;
    }
    g_level = oc_level(codec);
    /* the type, for the typed codecs, where the algorithm takes its width
     * (type_widths 0: every width; ANS: 1 and 2 bytes) */
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    size_t w = oc_data_type_size((oc_data_type)g_type);
    g_typed = OC_TYPE_DEFAULT;
    if (g_type && ocb_codec_own_format(codec) && oc_algorithm_get_info(g_algo, &info) == OC_OK &&
        (info.type_widths == 0 || (info.type_widths >> w & 1u)))
        g_typed = (oc_data_type)g_type;
    return 0;
}

static int oc_compress(ocb_dev_batch *b, size_t n)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = g_algo;
    o.level = g_level;
    o.typed.data_type = g_typed;
    oc_status s =
        oc_batch_compress(g_ctx, &o, n, (const void *const *)b->in_ptrs_dev, b->in_sizes_dev,
                          b->comp_ptrs_dev, b->comp_caps_dev, b->comp_sizes_dev, (oc_status *)b->status_dev);
    if (s != OC_OK)
        fprintf(stderr, "oc_batch_compress: %s\n", oc_status_name(s));
    return s == OC_OK ? 0 : -1;
}

static int oc_decompress(ocb_dev_batch *b, size_t n)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = g_algo;
    o.typed.data_type = g_typed; /* as the caller knows it (nVCOMP's Codec decodes with its data_type) */
    oc_status s =
        oc_batch_decompress(g_ctx, &o, n, (const void *const *)b->comp_ptrs_dev, b->comp_sizes_dev,
                            b->out_ptrs_dev, b->in_sizes_dev, b->out_sizes_dev, (oc_status *)b->status_dev);
    if (s != OC_OK)
        fprintf(stderr, "oc_batch_decompress: %s\n", oc_status_name(s));
    return s == OC_OK ? 0 : -1;
}

static void oc_release(void) {}

extern "C" const ocb_contender ocb_contender_opencomp = {
    "opencomp-gpu", oc_init,    oc_supports, oc_path,       oc_level,
    oc_bound,       oc_prepare, oc_compress, oc_decompress, oc_release,
};
