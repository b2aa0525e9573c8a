/*
 * contender_nvcomp.cu - nvCOMP in the ladder, through its batched C API
 * (nvcompBatched<Codec>CompressAsync / DecompressAsync), default options:
 * LZ4, Snappy, Zstd, Deflate (algorithm 1, nvCOMP's default) and GDeflate
 * (the reference row: a format opencomp does not write yet); and nvCOMP's
 * own Cascaded, Bitcomp and ANS, the rows opencomp's formats of the same
 * names (issue 18) are measured against, with the benchmark's --data-type
 * in their compression options (else nvCOMP's defaults).
 *
 * gzip is nvCOMP's Gzip API both ways (RFC 1952 members).  nvCOMP has no
 * zlib: its zlib rows are nvCOMP Deflate on the raw payload.  Compression
 * deflates each chunk into an aligned staging slot, then one small kernel of
 * ours writes the RFC 1950 stream (2-byte header, the payload, the Adler-32
 * of the chunk); decompression copies each stream's payload (bytes 2 ..
 * size-4) to an aligned staging slot (nvCOMP's Deflate wants 4-byte aligned
 * input) and inflates it there, without checking the Adler-32.  Both helper
 * kernels run inside the timed call; they move the compressed bytes once
 * (plus one read of the input for the Adler-32 on compression), under 1% of
 * the call at 64 KiB chunks.
 * --nvcomp-algorithm N sets `algorithm` in the compression options of
 * Deflate, zlib, gzip and GDeflate (default: nvCOMP's default, 1).
 * --nvcomp-gzip-payload: nvCOMP's gzip rows decode with its Deflate on the
 * members' raw payloads (header parsed and trailer dropped by a kernel of
 * ours into staging slots, as for zlib; CRC-32 and ISIZE not checked)
 * instead of its Gzip API.
 *
 * nvCOMP 5 and 6 give every codec the same seven calls, so one macro makes
 * each codec's table row from its name.  Scratch (nvCOMP's temp buffer) is
 * sized for the largest batch of a chunk size and kept across its rungs.
 * Built without nvCOMP (no OC_HAVE_NVCOMP), init says so and nothing runs.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contender.h"

const char *const ocb_codecs[] = {"lz4",  "snappy",   "deflate",  "zlib",    "gzip",
                                  "zstd", "gdeflate", "cascaded", "bitcomp", "ans"};
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
#include <nvcomp/gzip.h>
#include <nvcomp/lz4.h>
#include <nvcomp/snappy.h>
#include <nvcomp/zstd.h>

static int g_oc_type;      /* an oc_data_type value; 0 = nvCOMP's defaults */
static int g_nv_algo = -1; /* --nvcomp-algorithm: Deflate/gzip/GDeflate `algorithm`; -1 = default */

extern "C" void ocb_nvcomp_set_data_type(int oc_type)
{
    g_oc_type = oc_type;
}

extern "C" void ocb_nvcomp_set_algorithm(int algorithm)
{
    g_nv_algo = algorithm;
}

extern "C" int ocb_nvcomp_algorithm(void)
{
    return g_nv_algo;
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

static nvcompBatchedDeflateCompressOpts_t deflate_opts(void)
{
    nvcompBatchedDeflateCompressOpts_t o = nvcompBatchedDeflateCompressDefaultOpts;
    if (g_nv_algo >= 0)
        o.algorithm = g_nv_algo;
    return o;
}
static nvcompBatchedGzipCompressOpts_t gzip_opts(void)
{
    nvcompBatchedGzipCompressOpts_t o = nvcompBatchedGzipCompressDefaultOpts;
    if (g_nv_algo >= 0)
        o.algorithm = g_nv_algo;
    return o;
}
static nvcompBatchedGdeflateCompressOpts_t gdeflate_opts(void)
{
    nvcompBatchedGdeflateCompressOpts_t o = nvcompBatchedGdeflateCompressDefaultOpts;
    if (g_nv_algo >= 0)
        o.algorithm = g_nv_algo;
    return o;
}

NV_CODEC(LZ4, "lz4", nvcompBatchedLZ4CompressDefaultOpts)
NV_CODEC(Snappy, "snappy", nvcompBatchedSnappyCompressDefaultOpts)
NV_CODEC(Deflate, "deflate", deflate_opts())
NV_CODEC(Gzip, "gzip", gzip_opts())
NV_CODEC(Zstd, "zstd", nvcompBatchedZstdCompressDefaultOpts)
NV_CODEC(Gdeflate, "gdeflate", gdeflate_opts())
NV_CODEC(Cascaded, "cascaded", cascaded_opts())
NV_CODEC(Bitcomp, "bitcomp", bitcomp_opts())
NV_CODEC(ANS, "ans", ans_opts())

/* ---- zlib: nvCOMP Deflate on the raw payload -------------------------------- */

/* The staging slots (n of them, 256-byte aligned, each the size nvCOMP's Deflate may write), their pointers
 * and sizes: made by nv_prepare for zlib only. */
static uint8_t *g_stage;
static void **g_stage_ptrs;
static size_t *g_stage_sizes;

#define ZW_THREADS 256
#define ADLER_MOD 65521u

/* One block per chunk: the RFC 1950 stream of chunk i from its deflate
 * payload in the staging slot: 0x78 0x9C, the payload, the Adler-32 of the
 * uncompressed chunk (big-endian).  Adler-32 as two sums over the chunk:
 * A = 1 + sum b_j, B = n + sum (n - j) b_j (mod 65521), per thread then
 * reduced. */
__global__ void __launch_bounds__(ZW_THREADS)
    zlib_wrap_kernel(const void *const *in_ptrs, const size_t *in_sizes, void *const *stage_ptrs,
                     const size_t *stage_sizes, void *const *comp_ptrs, size_t *comp_sizes,
                     const int32_t *status)
{
    size_t i = blockIdx.x;
    if (status[i] != 0)
        return;
    const uint8_t *in = (const uint8_t *)in_ptrs[i];
    const uint8_t *pay = (const uint8_t *)stage_ptrs[i];
    uint8_t *out = (uint8_t *)comp_ptrs[i];
    size_t n = in_sizes[i], m = stage_sizes[i];
    unsigned long long a = 0, b = 0;
    for (size_t j = threadIdx.x; j < n; j += ZW_THREADS) {
        unsigned v = in[j];
        a += v;
        b += (unsigned long long)((n - j) % ADLER_MOD) * v;
    }
    for (size_t j = threadIdx.x; j < m; j += ZW_THREADS)
        out[2 + j] = pay[j];
    __shared__ unsigned long long sa[ZW_THREADS], sb[ZW_THREADS];
    sa[threadIdx.x] = a % ADLER_MOD;
    sb[threadIdx.x] = b % ADLER_MOD;
    __syncthreads();
    for (int w = ZW_THREADS / 2; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w) {
            sa[threadIdx.x] += sa[threadIdx.x + w];
            sb[threadIdx.x] += sb[threadIdx.x + w];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        unsigned A = (unsigned)((1 + sa[0]) % ADLER_MOD), B = (unsigned)((n % ADLER_MOD + sb[0]) % ADLER_MOD);
        unsigned adler = B << 16 | A;
        out[0] = 0x78;
        out[1] = 0x9C;
        out[2 + m] = (uint8_t)(adler >> 24);
        out[3 + m] = (uint8_t)(adler >> 16);
        out[4 + m] = (uint8_t)(adler >> 8);
        out[5 + m] = (uint8_t)adler;
        comp_sizes[i] = m + 6;
    }
}

/* One block per chunk: the payload of zlib stream i (without its 2-byte
 * header and 4-byte Adler-32) into staging slot i. */
__global__ void __launch_bounds__(ZW_THREADS)
    zlib_unwrap_kernel(const void *const *comp_ptrs, const size_t *comp_sizes, void *const *stage_ptrs,
                       size_t *stage_sizes)
{
    size_t i = blockIdx.x, n = comp_sizes[i], m = n >= 6 ? n - 6 : 0;
    const uint8_t *src = (const uint8_t *)comp_ptrs[i] + 2;
    uint8_t *dst = (uint8_t *)stage_ptrs[i];
    for (size_t j = threadIdx.x; j < m; j += ZW_THREADS)
        dst[j] = src[j];
    if (threadIdx.x == 0)
        stage_sizes[i] = m;
}

/* --nvcomp-gzip-payload: one block per chunk: the deflate payload of gzip
 * member i (after its header: FEXTRA, FNAME, FCOMMENT, FHCRC as its flags
 * say; before its 8-byte trailer) into staging slot i; size 0 when the
 * header does not fit. */
__global__ void __launch_bounds__(ZW_THREADS)
    gzip_unwrap_kernel(const void *const *comp_ptrs, const size_t *comp_sizes, void *const *stage_ptrs,
                       size_t *stage_sizes)
{
    __shared__ size_t begin, end;
    size_t i = blockIdx.x, n = comp_sizes[i];
    const uint8_t *src = (const uint8_t *)comp_ptrs[i];
    if (threadIdx.x == 0) {
        size_t p = 10, e = n >= 18 ? n - 8 : 0;
        unsigned flg = n >= 18 ? src[3] : 0;
        if ((flg & 4) && p + 2 <= e)
            p += 2 + (src[p] | (size_t)src[p + 1] << 8);
        for (unsigned f = 8; f <= 16; f <<= 1)
            if (flg & f) {
                while (p < e && src[p])
                    p++;
                p++;
            }
        if (flg & 2)
            p += 2;
        begin = p;
        end = p <= e ? e : p;
    }
    __syncthreads();
    uint8_t *dst = (uint8_t *)stage_ptrs[i];
    for (size_t j = begin + threadIdx.x; j < end; j += ZW_THREADS)
        dst[j - begin] = src[j];
    if (threadIdx.x == 0)
        stage_sizes[i] = end - begin;
}

static int g_gzip_payload; /* 1: nvCOMP's gzip rows decode the members' payloads with its Deflate */

extern "C" void ocb_nvcomp_set_gzip_payload(int on)
{
    g_gzip_payload = on;
}

static nvcompStatus_t GzipPayload_decompress(ocb_dev_batch *b, size_t n, void *temp, size_t tb)
{
    if (n > 0)
        gzip_unwrap_kernel<<<(unsigned)n, ZW_THREADS>>>((const void *const *)b->comp_ptrs_dev,
                                                        b->comp_sizes_dev, g_stage_ptrs, g_stage_sizes);
    return nvcompBatchedDeflateDecompressAsync(
        (const void *const *)g_stage_ptrs, g_stage_sizes, b->in_sizes_dev, b->out_sizes_dev, n, temp, tb,
        b->out_ptrs_dev, nvcompBatchedDeflateDecompressDefaultOpts, (nvcompStatus_t *)b->status_dev, 0);
}

static nvcompStatus_t GzipPayload_temp(size_t n, size_t chunk, size_t total, size_t *comp, size_t *decomp)
{
    size_t c2 = 0, d2 = 0;
    nvcompStatus_t s = Gzip_temp(n, chunk, total, comp, decomp);
    if (s == nvcompSuccess)
        s = Deflate_temp(n, chunk, total, &c2, &d2);
    *comp = *comp > c2 ? *comp : c2;
    *decomp = *decomp > d2 ? *decomp : d2;
    return s;
}

/* nvCOMP's gzip API to compress; its Deflate on the members' payloads to decompress. */
static const nv_codec nv_GzipPayload = {"gzip",           Gzip_max_out,  Gzip_align,
                                        GzipPayload_temp, Gzip_compress, GzipPayload_decompress};

static nvcompStatus_t Zlib_max_out(size_t chunk, size_t *out)
{
    nvcompStatus_t s = Deflate_max_out(chunk, out);
    *out += 6;
    return s;
}

static nvcompStatus_t Zlib_compress(ocb_dev_batch *b, size_t n, size_t chunk, void *temp, size_t tb)
{
    nvcompStatus_t s = nvcompBatchedDeflateCompressAsync((const void *const *)b->in_ptrs_dev, b->in_sizes_dev,
                                                         chunk, n, temp, tb, g_stage_ptrs, g_stage_sizes,
                                                         deflate_opts(), (nvcompStatus_t *)b->status_dev, 0);
    if (s == nvcompSuccess && n > 0)
        zlib_wrap_kernel<<<(unsigned)n, ZW_THREADS>>>((const void *const *)b->in_ptrs_dev, b->in_sizes_dev,
                                                      g_stage_ptrs, g_stage_sizes, b->comp_ptrs_dev,
                                                      b->comp_sizes_dev, b->status_dev);
    return s;
}

static nvcompStatus_t Zlib_decompress(ocb_dev_batch *b, size_t n, void *temp, size_t tb)
{
    if (n > 0)
        zlib_unwrap_kernel<<<(unsigned)n, ZW_THREADS>>>((const void *const *)b->comp_ptrs_dev,
                                                        b->comp_sizes_dev, g_stage_ptrs, g_stage_sizes);
    return nvcompBatchedDeflateDecompressAsync(
        (const void *const *)g_stage_ptrs, g_stage_sizes, b->in_sizes_dev, b->out_sizes_dev, n, temp, tb,
        b->out_ptrs_dev, nvcompBatchedDeflateDecompressDefaultOpts, (nvcompStatus_t *)b->status_dev, 0);
}

static const nv_codec nv_Zlib = {"zlib",       Zlib_max_out,  Deflate_align,
                                 Deflate_temp, Zlib_compress, Zlib_decompress};

static const nv_codec *const nv_table[] = {&nv_LZ4,  &nv_Snappy,   &nv_Deflate,  &nv_Zlib,    &nv_Gzip,
                                           &nv_Zstd, &nv_Gdeflate, &nv_Cascaded, &nv_Bitcomp, &nv_ANS};

static const nv_codec *nv_find(const char *codec)
{
    if (g_gzip_payload && strcmp(codec, "gzip") == 0)
        return &nv_GzipPayload;
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
    cudaFree(g_stage);
    cudaFree(g_stage_ptrs);
    cudaFree(g_stage_sizes);
    g_temp = NULL;
    g_stage = NULL;
    g_stage_ptrs = NULL;
    g_stage_sizes = NULL;
    g_temp_bytes = 0;
    g_codec = NULL;
}

/* zlib's staging slots for n chunks of up to `chunk` bytes: 0, or -1. */
static int nv_stage_make(size_t chunk, size_t n)
{
    size_t slot = nv_bound("deflate", chunk);
    slot = (slot + 255) / 256 * 256;
    void **ptrs = (void **)malloc(n * sizeof *ptrs);
    int rc = -1;
    if (ptrs && slot && cudaMalloc((void **)&g_stage, n * slot) == cudaSuccess &&
        cudaMalloc((void **)&g_stage_ptrs, n * sizeof(void *)) == cudaSuccess &&
        cudaMalloc((void **)&g_stage_sizes, n * sizeof(size_t)) == cudaSuccess) {
        for (size_t i = 0; i < n; i++)
            ptrs[i] = g_stage + i * slot;
        rc = cudaMemcpy(g_stage_ptrs, ptrs, n * sizeof(void *), cudaMemcpyHostToDevice) == cudaSuccess ? 0
                                                                                                       : -1;
    }
    free(ptrs);
    return rc;
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
    if ((c == &nv_Zlib || c == &nv_GzipPayload) && nv_stage_make(chunk, n) != 0) {
        (void)cudaGetLastError();
        snprintf(why, cap, "nvCOMP %s: cannot allocate staging slots for %zu chunks", codec, n);
        nv_release();
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

extern "C" void ocb_nvcomp_set_algorithm(int algorithm)
{
    (void)algorithm;
}

extern "C" int ocb_nvcomp_algorithm(void)
{
    return -1;
}

extern "C" void ocb_nvcomp_set_gzip_payload(int on)
{
    (void)on;
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
