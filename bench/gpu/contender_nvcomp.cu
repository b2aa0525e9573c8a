/*
 * contender_nvcomp.cu - nvCOMP in the ladder, through its batched C API
 * (nvcompBatched<Codec>CompressAsync / DecompressAsync), default options:
 * LZ4, Snappy, Zstd, Deflate (algorithm 1, nvCOMP's default) and GDeflate
 * (the reference row: a format opencomp does not write yet); and nvCOMP's
 * own Cascaded, Bitcomp and ANS, the rows opencomp's formats of the same
 * names (issue 18) are measured against, with the benchmark's --data-type
 * in their compression options (else nvCOMP's defaults).
 *
 * nvCOMP 5 and 6 give every codec the same seven calls, so one macro makes
 * each codec's table row from its name.  Scratch (nvCOMP's temp buffer) is
 * sized for the largest batch of a chunk size and kept across its rungs.
 * Built without nvCOMP (no OC_HAVE_NVCOMP), init says so and nothing runs.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "contender.h"

const char *const ocb_codecs[] = {"lz4",      "snappy",   "deflate", "zstd",
                                  "gdeflate", "cascaded", "bitcomp", "ans"};
const size_t ocb_ncodecs = sizeof ocb_codecs / sizeof ocb_codecs[0];

int ocb_codec_own_format(const char *codec)
{
    return strcmp(codec, "cascaded") == 0 || strcmp(codec, "bitcomp") == 0 || strcmp(codec, "ans") == 0;
}

#ifdef OC_HAVE_NVCOMP
#include <nvcomp/ans.h>
#include <nvcomp/bitcomp.h>
#include <nvcomp/cascaded.h>
#include <nvcomp/deflate.h>
#include <nvcomp/gdeflate.h>
#include <nvcomp/lz4.h>
#include <nvcomp/snappy.h>
#include <nvcomp/zstd.h>

static int g_oc_type; /* an oc_data_type value; 0 = nvCOMP's defaults */

extern "C" void ocb_nvcomp_set_data_type(int oc_type)
{
    g_oc_type = oc_type;
}

typedef struct nv_codec {
    const char *name;
    nvcompStatus_t (*max_out)(size_t chunk, size_t *out);
    nvcompStatus_t (*align)(size_t *out);
    nvcompStatus_t (*temp)(size_t n, size_t chunk, size_t total, size_t *comp, size_t *decomp);
    nvcompStatus_t (*compress)(ocb_dev_batch *b, size_t n, size_t chunk, void *temp, size_t temp_bytes);
    nvcompStatus_t (*decompress)(ocb_dev_batch *b, size_t n, void *temp, size_t temp_bytes);
} nv_codec;

#define NV_CODEC(X, name_, COPTS)                                                                            \
    static nvcompStatus_t X##_max_out(size_t chunk, size_t *out)                                             \
    {                                                                                                        \
        return nvcompBatched##X##CompressGetMaxOutputChunkSize(chunk, COPTS, out);                           \
    }                                                                                                        \
    static nvcompStatus_t X##_align(size_t *out)                                                             \
    {                                                                                                        \
        nvcompAlignmentRequirements_t c, d;                                                                  \
        nvcompStatus_t s = nvcompBatched##X##CompressGetRequiredAlignments(COPTS, &c);                       \
        if (s == nvcompSuccess)                                                                              \
            s = nvcompBatched##X##DecompressGetRequiredAlignments(nvcompBatched##X##DecompressDefaultOpts,   \
                                                                  &d);                                       \
        size_t m = 1, v[6] = {c.input, c.output, c.temp, d.input, d.output, d.temp};                         \
        for (int k = 0; s == nvcompSuccess && k < 6; k++)                                                    \
            m = v[k] > m ? v[k] : m;                                                                         \
        *out = m;                                                                                            \
        return s;                                                                                            \
    }                                                                                                        \
    static nvcompStatus_t X##_temp(size_t n, size_t chunk, size_t total, size_t *comp, size_t *decomp)       \
    {                                                                                                        \
        nvcompStatus_t s = nvcompBatched##X##CompressGetTempSize(n, chunk, COPTS, comp, total, 0);           \
        if (s != nvcompSuccess)                                                                              \
            return s;                                                                                        \
        return nvcompBatched##X##DecompressGetTempSize(n, chunk, nvcompBatched##X##DecompressDefaultOpts,    \
                                                       decomp, total, 0);                                    \
    }                                                                                                        \
    static nvcompStatus_t X##_compress(ocb_dev_batch *b, size_t n, size_t chunk, void *temp, size_t tb)      \
    {                                                                                                        \
        return nvcompBatched##X##CompressAsync((const void *const *)b->in_ptrs_dev, b->in_sizes_dev, chunk,  \
                                               n, temp, tb, b->comp_ptrs_dev, b->comp_sizes_dev, COPTS,      \
                                               (nvcompStatus_t *)b->status_dev, 0);                          \
    }                                                                                                        \
    static nvcompStatus_t X##_decompress(ocb_dev_batch *b, size_t n, void *temp, size_t tb)                  \
    {                                                                                                        \
        return nvcompBatched##X##DecompressAsync((const void *const *)b->comp_ptrs_dev, b->comp_sizes_dev,   \
                                                 b->in_sizes_dev, b->out_sizes_dev, n, temp, tb,             \
                                                 b->out_ptrs_dev, nvcompBatched##X##DecompressDefaultOpts,   \
                                                 (nvcompStatus_t *)b->status_dev, 0);                        \
    }                                                                                                        \
    static const nv_codec nv_##X = {name_, X##_max_out, X##_align, X##_temp, X##_compress, X##_decompress};

/* nvCOMP's element type for an oc_data_type value (oc_data_type's order:
 * u1 i1 u2 i2 u4 i4 u8 i8 f2 bf16 f4 f8); -1 for the default. */
static int nv_type(int oc_type, int floats)
{
    static const int ints[] = {-1,
                               NVCOMP_TYPE_UCHAR,
                               NVCOMP_TYPE_CHAR,
                               NVCOMP_TYPE_USHORT,
                               NVCOMP_TYPE_SHORT,
                               NVCOMP_TYPE_UINT,
                               NVCOMP_TYPE_INT,
                               NVCOMP_TYPE_ULONGLONG,
                               NVCOMP_TYPE_LONGLONG,
                               NVCOMP_TYPE_USHORT,
                               NVCOMP_TYPE_USHORT,
                               NVCOMP_TYPE_UINT,
                               NVCOMP_TYPE_ULONGLONG};
    static const int fl[] = {NVCOMP_TYPE_FLOAT16, NVCOMP_TYPE_FLOAT16, NVCOMP_TYPE_FLOAT32,
                             NVCOMP_TYPE_FLOAT64};
    if (oc_type <= 0 || oc_type >= (int)(sizeof ints / sizeof ints[0]))
        return -1;
    return floats && oc_type >= 9 ? fl[oc_type - 9] : ints[oc_type];
}

/* Cascaded codes integers (floats as the unsigned integers of their width);
 * Bitcomp gets the float types it has (FP16/FP32/FP64, lossless in the
 * batched API: its float modelling, the fair comparison), bf16 as ushort;
 * ANS takes bytes or, for 2-byte floats, FLOAT16 (its exponent-byte mode),
 * else its default. */
static nvcompBatchedCascadedCompressOpts_t cascaded_opts(void)
{
    nvcompBatchedCascadedCompressOpts_t o = nvcompBatchedCascadedCompressDefaultOpts;
    int t = nv_type(g_oc_type, 0);
    if (t >= 0)
        o.common_opts.data_type = (nvcompType_t)t;
    return o;
}
static nvcompBatchedBitcompCompressOpts_t bitcomp_opts(void)
{
    nvcompBatchedBitcompCompressOpts_t o = nvcompBatchedBitcompCompressDefaultOpts;
    int t = nv_type(g_oc_type, g_oc_type != 10); /* bf16 (10) as ushort: nvCOMP has no bfloat16 */
    if (t >= 0)
        o.data_type = (nvcompType_t)t;
    return o;
}
static nvcompBatchedANSCompressOpts_t ans_opts(void)
{
    nvcompBatchedANSCompressOpts_t o = nvcompBatchedANSCompressDefaultOpts;
    int t = nv_type(g_oc_type, 1);
    if (t == NVCOMP_TYPE_FLOAT16 || t == NVCOMP_TYPE_UCHAR || t == NVCOMP_TYPE_CHAR)
        o.data_type = (nvcompType_t)t;
    return o;
}

NV_CODEC(LZ4, "lz4", nvcompBatchedLZ4CompressDefaultOpts)
NV_CODEC(Snappy, "snappy", nvcompBatchedSnappyCompressDefaultOpts)
NV_CODEC(Deflate, "deflate", nvcompBatchedDeflateCompressDefaultOpts)
NV_CODEC(Zstd, "zstd", nvcompBatchedZstdCompressDefaultOpts)
NV_CODEC(Gdeflate, "gdeflate", nvcompBatchedGdeflateCompressDefaultOpts)
NV_CODEC(Cascaded, "cascaded", cascaded_opts())
NV_CODEC(Bitcomp, "bitcomp", bitcomp_opts())
NV_CODEC(ANS, "ans", ans_opts())

static const nv_codec *const nv_table[] = {&nv_LZ4,      &nv_Snappy,   &nv_Deflate, &nv_Zstd,
                                           &nv_Gdeflate, &nv_Cascaded, &nv_Bitcomp, &nv_ANS};

static const nv_codec *nv_find(const char *codec)
{
    for (size_t i = 0; i < sizeof nv_table / sizeof nv_table[0]; i++)
        if (strcmp(nv_table[i]->name, codec) == 0)
            return nv_table[i];
    return NULL;
}

static const nv_codec *g_codec;
static void *g_temp;
static size_t g_temp_bytes, g_chunk;

static int nv_init(char *why, size_t cap)
{
    (void)why, (void)cap;
    return 0;
}

static int nv_supports(const char *codec)
{
    return nv_find(codec) != NULL;
}

static size_t nv_bound(const char *codec, size_t chunk)
{
    const nv_codec *c = nv_find(codec);
    size_t m = 0, a = 1;
    if (!c || c->max_out(chunk, &m) != nvcompSuccess || c->align(&a) != nvcompSuccess)
        return 0;
    return (m + a - 1) / a * a;
}

static void nv_release(void)
{
    cudaFree(g_temp);
    g_temp = NULL;
    g_temp_bytes = 0;
    g_codec = NULL;
}

static int nv_prepare(const char *codec, size_t chunk, size_t n, uint64_t total, char *why, size_t cap)
{
    nv_release();
    const nv_codec *c = nv_find(codec);
    size_t tc = 0, td = 0;
    nvcompStatus_t s = c ? c->temp(n, chunk, (size_t)total, &tc, &td) : nvcompErrorNotSupported;
    if (s != nvcompSuccess) {
        snprintf(why, cap, "nvCOMP %s temp size for %zu chunks of %zu bytes: status %d", codec, n, chunk,
                 (int)s);
        return -1;
    }
    g_temp_bytes = tc > td ? tc : td;
    if (g_temp_bytes == 0)
        g_temp_bytes = 1;
    if (cudaMalloc(&g_temp, g_temp_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        snprintf(why, cap, "nvCOMP %s: cannot allocate %zu bytes of temp", codec, g_temp_bytes);
        g_temp = NULL;
        return -1;
    }
    g_codec = c;
    g_chunk = chunk;
    return 0;
}

static int nv_compress(ocb_dev_batch *b, size_t n)
{
    nvcompStatus_t s = g_codec->compress(b, n, g_chunk, g_temp, g_temp_bytes);
    if (s != nvcompSuccess)
        fprintf(stderr, "nvcompBatched %s compress: status %d\n", g_codec->name, (int)s);
    return s == nvcompSuccess ? 0 : -1;
}

static int nv_decompress(ocb_dev_batch *b, size_t n)
{
    nvcompStatus_t s = g_codec->decompress(b, n, g_temp, g_temp_bytes);
    if (s != nvcompSuccess)
        fprintf(stderr, "nvcompBatched %s decompress: status %d\n", g_codec->name, (int)s);
    return s == nvcompSuccess ? 0 : -1;
}

#else /* built without nvCOMP */

extern "C" void ocb_nvcomp_set_data_type(int oc_type)
{
    (void)oc_type;
}

static int nv_init(char *why, size_t cap)
{
    snprintf(why, cap, "oc_gpu_bench was built without nvCOMP (configure with -DOC_NVCOMP_ROOT=...)");
    return -1;
}
static int nv_supports(const char *codec)
{
    (void)codec;
    return 0;
}
static size_t nv_bound(const char *codec, size_t chunk)
{
    (void)codec, (void)chunk;
    return 0;
}
static int nv_prepare(const char *codec, size_t chunk, size_t n, uint64_t total, char *why, size_t cap)
{
    (void)codec, (void)chunk, (void)n, (void)total;
    snprintf(why, cap, "built without nvCOMP");
    return -1;
}
static int nv_compress(ocb_dev_batch *b, size_t n)
{
    (void)b, (void)n;
    return -1;
}
static int nv_decompress(ocb_dev_batch *b, size_t n)
{
    (void)b, (void)n;
    return -1;
}
static void nv_release(void) {}
#endif

static const char *nv_path(const char *codec)
{
    (void)codec;
    return "";
}

static int nv_level(const char *codec)
{
    (void)codec;
    return 0; /* nvCOMP has no levels: its default options */
}

extern "C" const ocb_contender ocb_contender_nvcomp = {
    "nvcomp-gpu", nv_init,    nv_supports, nv_path,       nv_level,
    nv_bound,     nv_prepare, nv_compress, nv_decompress, nv_release,
};
