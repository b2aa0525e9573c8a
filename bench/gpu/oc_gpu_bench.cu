/*
 * oc_gpu_bench.cu - the GPU benchmark and kernel harness for LZ4, Snappy and
 * Zstandard: opencomp's CUDA engine beside nvCOMP's batched C API and the
 * reference CPU libraries, on the same files and the same chunks.
 *
 * Method (nvCOMP's own benchmarks): each file is split into chunks (64 KiB
 * and 1 MiB by default, the last one partial); inputs and max-size outputs
 * are allocated outside the timed region; CUDA events bracket one batched
 * call; the median of --repeats runs after --warmup runs is reported; GB/s =
 * uncompressed bytes / time (1 GB = 1e9 B); ratio = total uncompressed / sum
 * of compressed chunk sizes.  Every decompressed output is compared byte by
 * byte with the original, and streams are cross-decoded (ours by nvCOMP and
 * liblz4/snappy/libzstd, nvCOMP's by ours) so the bitstreams are checked
 * standard.  The CPU reference (liblz4 fast / snappy / libzstd at the zstd
 * level, one thread) is timed by wall clock on the same chunks.
 * "end-to-end" rows time host buffer in -> host buffer out (pageable memory,
 * transfers included) by wall clock.
 *
 * Zstd: opencomp-gpu runs oc_cuda_batch_compress/decompress at level 3 (the
 * level is in the JSON).  Without the GPU zstd encoder in this tree
 * (src/cuda/codecs/zstd/zstd_gpu.h, checked at compile time) the engine compresses
 * zstd host-staged (device -> host -> CPU engine -> device): that figure is
 * not a kernel time, so the kernel row carries "compress_gbps": null, the
 * staged figure as "compress_staged_gbps" and a "note".
 *
 * Single frames (--frames DIR): files the stock CLI wrote (`zstd -3`,
 * `zstd -19` of each input: one frame, 128 KiB blocks, checksum) named
 * DIR/<input name>.l<level>.zst are decoded whole, one chunk each, by
 * opencomp-gpu, libzstd (one thread) and then nvCOMP, output verified byte
 * by byte; chunk_size = file size, "frame" and "frame_blocks" say what was
 * decoded.  One GPU decode of a frame takes seconds, so these rows time one
 * call when it takes >= 0.5 s (else a warm-up and up to 5 repeats within
 * ~1 s), and --frame-budget S caps each GPU contender's frame decodes (a
 * decode whose estimated time does not fit is skipped and named on stdout).
 *
 * Output: a table on stdout, and with --json FILE the schema of
 * bench/SCHEMA.md ("tool": "oc-gpu-bench"), rewritten (atomically) after
 * every file.  nvCOMP is compiled in when the build finds its headers
 * (OC_HAVE_NVCOMP).
 */
#include <cuda_runtime.h>
#include <lz4.h>
#include <snappy-c.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <string>
#include <vector>

extern "C" {
#include "cuda/runtime/cuda_engine.h"
}

#ifdef OC_HAVE_NVCOMP
#include <nvcomp/lz4.h>
#include <nvcomp/snappy.h>
#include <nvcomp/zstd.h>
#endif

/* The GPU zstd encoder, when this tree has it, is what the engine runs for
 * zstd compression; without it the engine stages zstd compression through
 * the host (src/cuda/runtime/cuda_staged.cu). */
#if defined(__has_include)
#if __has_include("cuda/codecs/zstd/zstd_gpu.h")
#define OC_BENCH_ZSTD_GPU_ENCODER 1
#endif
#endif
#ifdef OC_BENCH_ZSTD_GPU_ENCODER
static const bool g_zstd_comp_staged = false;
#else
static const bool g_zstd_comp_staged = true;
#endif

#ifndef CK /* a host-only self-test may define its own */
#define CK(x)                                                                                                \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));              \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)
#endif

struct Result {
    std::string file, algo, contender, timing, scope;
    size_t file_bytes, chunk, nchunks, ubytes, cbytes;
    double cgbps, dgbps;
    int threads, repeats;
    bool verified;
    int level = 0;                     /* 0 = the algorithm's default (lz4, snappy); zstd: the level used */
    bool has_comp = true;              /* false: "compress_gbps": null (not measured, or not a kernel time) */
    double staged_cgbps = 0;           /* zstd compression through the host, when the engine stages it */
    std::string note = "", frame = ""; /* frame: "zstd -3" for a CLI single-frame file */
    long frame_blocks = -1;
};

static std::vector<Result> g_results;
static int g_repeats = 10, g_warmup = 2;
static bool g_nvcomp = true; /* --no-nvcomp: opencomp (and CPU) only */
static double g_peak_bw = 0; /* measured D2D copy, read+write bytes/s */

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

static double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* ---- per-algorithm helpers (CPU reference libraries) ----------------------- */

static int g_zstd_level = 3; /* opencomp-gpu and reference-cpu zstd level (--zstd-level) */
static ZSTD_CCtx *g_zc;
static ZSTD_DCtx *g_zd;

static const char *algo_name(oc_algorithm a)
{
    return a == OC_ALGO_LZ4 ? "lz4" : a == OC_ALGO_SNAPPY ? "snappy" : "zstd";
}

/* The level recorded and passed to opencomp: 0 (= default) for LZ4 and
 * Snappy as before, the explicit zstd level for zstd. */
static int algo_level(oc_algorithm a)
{
    return a == OC_ALGO_ZSTD ? g_zstd_level : 0;
}

static size_t cpu_bound(oc_algorithm a, size_t n)
{
    if (a == OC_ALGO_LZ4)
        return (size_t)LZ4_compressBound((int)n);
    if (a == OC_ALGO_SNAPPY)
        return snappy_max_compressed_length(n);
    return ZSTD_compressBound(n);
}

/* Reference encoder, one chunk: compressed size, 0 on failure. */
static size_t cpu_encode(oc_algorithm a, const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
    if (a == OC_ALGO_LZ4) {
        int r = LZ4_compress_default((const char *)src, (char *)dst, (int)n, (int)cap);
        return r > 0 ? (size_t)r : 0;
    }
    if (a == OC_ALGO_SNAPPY) {
        size_t got = cap;
        return snappy_compress((const char *)src, n, (char *)dst, &got) == SNAPPY_OK ? got : 0;
    }
    size_t r = ZSTD_compressCCtx(g_zc, dst, cap, src, n, g_zstd_level);
    return ZSTD_isError(r) ? 0 : r;
}

/* Reference decoder, one chunk: decoded size, SIZE_MAX on failure. */
static size_t cpu_decode(oc_algorithm a, const uint8_t *src, size_t n, uint8_t *dst, size_t cap)
{
    if (a == OC_ALGO_LZ4) {
        int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)cap);
        return r < 0 ? SIZE_MAX : (size_t)r;
    }
    if (a == OC_ALGO_SNAPPY) {
        size_t got = cap;
        return snappy_uncompress((const char *)src, n, (char *)dst, &got) == SNAPPY_OK ? got : SIZE_MAX;
    }
    size_t r = ZSTD_decompressDCtx(g_zd, dst, cap, src, n);
    return ZSTD_isError(r) ? SIZE_MAX : r;
}

/* Device-side layout of one chunked file. */
struct Chunks {
    size_t n = 0, total = 0, chunk = 0, max_comp = 0;
    std::vector<size_t> usize, uoff;
    uint8_t *d_in = nullptr, *d_comp = nullptr, *d_out = nullptr;
    void **d_in_ptrs = nullptr, **d_comp_ptrs = nullptr, **d_out_ptrs = nullptr;
    size_t *d_usize = nullptr, *d_csize = nullptr, *d_comp_caps = nullptr, *d_out_caps = nullptr,
           *d_out_sizes = nullptr;
    int32_t *d_status = nullptr;
};

static void chunks_make(Chunks &c, const std::vector<uint8_t> &data, size_t chunk, size_t max_comp)
{
    c.chunk = chunk;
    c.total = data.size();
    c.max_comp = max_comp;
    c.n = (data.size() + chunk - 1) / chunk;
    c.usize.resize(c.n);
    c.uoff.resize(c.n);
    for (size_t i = 0; i < c.n; i++) {
        c.uoff[i] = i * chunk;
        c.usize[i] = std::min(chunk, data.size() - i * chunk);
    }
    CK(cudaMalloc(&c.d_in, c.total));
    CK(cudaMalloc(&c.d_comp, c.n * max_comp));
    CK(cudaMalloc(&c.d_out, c.n * chunk));
    CK(cudaMemcpy(c.d_in, data.data(), c.total, cudaMemcpyHostToDevice));
    std::vector<void *> in(c.n), comp(c.n), out(c.n);
    std::vector<size_t> ccaps(c.n, max_comp), ocaps(c.n, chunk);
    for (size_t i = 0; i < c.n; i++) {
        in[i] = c.d_in + c.uoff[i];
        comp[i] = c.d_comp + i * max_comp;
        out[i] = c.d_out + i * chunk;
    }
    auto up = [&](void **dst, const void *src, size_t bytes) {
        CK(cudaMalloc(dst, bytes));
        CK(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice));
    };
    up((void **)&c.d_in_ptrs, in.data(), c.n * 8);
    up((void **)&c.d_comp_ptrs, comp.data(), c.n * 8);
    up((void **)&c.d_out_ptrs, out.data(), c.n * 8);
    up((void **)&c.d_usize, c.usize.data(), c.n * 8);
    up((void **)&c.d_comp_caps, ccaps.data(), c.n * 8);
    up((void **)&c.d_out_caps, ocaps.data(), c.n * 8);
    CK(cudaMalloc(&c.d_csize, c.n * 8));
    CK(cudaMalloc(&c.d_out_sizes, c.n * 8));
    CK(cudaMalloc(&c.d_status, c.n * 4));
}

static void chunks_free(Chunks &c)
{
    void *ps[] = {c.d_in,    c.d_comp,  c.d_out,       c.d_in_ptrs,  c.d_comp_ptrs, c.d_out_ptrs,
                  c.d_usize, c.d_csize, c.d_comp_caps, c.d_out_caps, c.d_out_sizes, c.d_status};
    for (void *p : ps)
        CK(cudaFree(p));
}

/* Verify statuses, sizes and bytes of the decompressed chunks. */
static bool verify_output(const Chunks &c, const std::vector<uint8_t> &data, const char *who)
{
    std::vector<uint8_t> out(c.n * c.chunk);
    std::vector<size_t> sizes(c.n);
    std::vector<int32_t> st(c.n);
    CK(cudaMemcpy(out.data(), c.d_out, out.size(), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(sizes.data(), c.d_out_sizes, c.n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(st.data(), c.d_status, c.n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < c.n; i++) {
        if (st[i] != 0 || sizes[i] != c.usize[i] ||
            memcmp(out.data() + i * c.chunk, data.data() + c.uoff[i], c.usize[i])) {
            fprintf(stderr, "VERIFY FAILED (%s): chunk %zu status %d size %zu of %zu\n", who, i, st[i],
                    sizes[i], c.usize[i]);
            return false;
        }
    }
    return true;
}

/* Time fn (one batched call on stream 0) with events: median seconds. */
/* Batches too small to fill the GPU (e.g. 1 MiB chunks) take long per call:
 * fewer repeats there keep a full-corpus run inside one device call. */
static int g_small_batch = 0;

template <class F> static double time_events(F fn)
{
    int reps = g_small_batch ? std::min(g_repeats, 3) : g_repeats;
    int warm = g_small_batch ? 1 : g_warmup;
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < warm; i++)
        fn();
    CK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a, 0));
        fn();
        CK(cudaEventRecord(b, 0));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1e-3);
    }
    CK(cudaGetLastError());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return median(t);
}

static size_t sum_csize(const Chunks &c)
{
    std::vector<size_t> cs(c.n);
    CK(cudaMemcpy(cs.data(), c.d_csize, c.n * 8, cudaMemcpyDeviceToHost));
    size_t s = 0;
    for (size_t v : cs)
        s += v;
    return s;
}

static bool statuses_ok(const Chunks &c, const char *who)
{
    std::vector<int32_t> st(c.n);
    CK(cudaMemcpy(st.data(), c.d_status, c.n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < c.n; i++)
        if (st[i] != 0) {
            fprintf(stderr, "%s: chunk %zu status %d\n", who, i, st[i]);
            return false;
        }
    return true;
}

/* ---- opencomp ------------------------------------------------------------ */

static oc_context g_ctx;

static void oc_compress(Chunks &c, oc_algorithm a)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    o.level = algo_level(a);
    if (oc_cuda_batch_compress(&g_ctx, &o, c.n, (const void *const *)c.d_in_ptrs, c.d_usize, c.d_comp_ptrs,
                               c.d_comp_caps, c.d_csize, (oc_status *)c.d_status) != OC_OK) {
        fprintf(stderr, "oc_cuda_batch_compress failed\n");
        exit(2);
    }
}

static void oc_decompress(Chunks &c, oc_algorithm a)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    if (oc_cuda_batch_decompress(&g_ctx, &o, c.n, (const void *const *)c.d_comp_ptrs, c.d_csize, c.d_out_ptrs,
                                 c.d_out_caps, c.d_out_sizes, (oc_status *)c.d_status) != OC_OK) {
        fprintf(stderr, "oc_cuda_batch_decompress failed\n");
        exit(2);
    }
}

/* ---- nvCOMP -------------------------------------------------------------- */

#ifdef OC_HAVE_NVCOMP
struct Nv {
    void *temp = nullptr;
    size_t temp_bytes = 0;
};

static void nv_check(nvcompStatus_t s, const char *what)
{
    if (s != nvcompSuccess) {
        fprintf(stderr, "nvCOMP %s failed: %d\n", what, (int)s);
        exit(2);
    }
}

static size_t nv_max_comp(oc_algorithm a, size_t chunk)
{
    size_t m = 0;
    if (a == OC_ALGO_LZ4)
        nvcompBatchedLZ4CompressGetMaxOutputChunkSize(chunk, nvcompBatchedLZ4CompressDefaultOpts, &m);
    else if (a == OC_ALGO_SNAPPY)
        nvcompBatchedSnappyCompressGetMaxOutputChunkSize(chunk, nvcompBatchedSnappyCompressDefaultOpts, &m);
    else
        nvcompBatchedZstdCompressGetMaxOutputChunkSize(chunk, nvcompBatchedZstdCompressDefaultOpts, &m);
    return m;
}

/* The alignment nvCOMP's Zstd wants of every chunk buffer (compressed
 * slots, outputs): the larger of its compression and decompression needs. */
static size_t nv_zstd_align(void)
{
    nvcompAlignmentRequirements_t c, d;
    nv_check(nvcompBatchedZstdCompressGetRequiredAlignments(nvcompBatchedZstdCompressDefaultOpts, &c),
             "zstd alignments");
    nv_check(nvcompBatchedZstdDecompressGetRequiredAlignments(nvcompBatchedZstdDecompressDefaultOpts, &d),
             "zstd alignments");
    return std::max({c.input, c.output, c.temp, d.input, d.output, d.temp, (size_t)1});
}

static void nv_prepare(Nv &nv, Chunks &c, oc_algorithm a)
{
    size_t t1 = 0, t2 = 0;
    if (a == OC_ALGO_LZ4) {
        nv_check(nvcompBatchedLZ4CompressGetTempSize(c.n, c.chunk, nvcompBatchedLZ4CompressDefaultOpts, &t1,
                                                     c.total, 0),
                 "temp size");
        nv_check(nvcompBatchedLZ4DecompressGetTempSize(c.n, c.chunk, nvcompBatchedLZ4DecompressDefaultOpts,
                                                       &t2, c.total, 0),
                 "temp size");
    } else if (a == OC_ALGO_SNAPPY) {
        nv_check(nvcompBatchedSnappyCompressGetTempSize(c.n, c.chunk, nvcompBatchedSnappyCompressDefaultOpts,
                                                        &t1, c.total, 0),
                 "temp size");
        nv_check(nvcompBatchedSnappyDecompressGetTempSize(
                     c.n, c.chunk, nvcompBatchedSnappyDecompressDefaultOpts, &t2, c.total, 0),
                 "temp size");
    } else {
        nv_check(nvcompBatchedZstdCompressGetTempSize(c.n, c.chunk, nvcompBatchedZstdCompressDefaultOpts, &t1,
                                                      c.total, 0),
                 "temp size");
        nv_check(nvcompBatchedZstdDecompressGetTempSize(c.n, c.chunk, nvcompBatchedZstdDecompressDefaultOpts,
                                                        &t2, c.total, 0),
                 "temp size");
    }
    nv.temp_bytes = std::max<size_t>(std::max(t1, t2), 1);
    CK(cudaMalloc(&nv.temp, nv.temp_bytes));
}

static void nv_compress(Nv &nv, Chunks &c, oc_algorithm a)
{
    if (a == OC_ALGO_LZ4)
        nv_check(nvcompBatchedLZ4CompressAsync((const void *const *)c.d_in_ptrs, c.d_usize, c.chunk, c.n,
                                               nv.temp, nv.temp_bytes, c.d_comp_ptrs, c.d_csize,
                                               nvcompBatchedLZ4CompressDefaultOpts,
                                               (nvcompStatus_t *)c.d_status, 0),
                 "compress");
    else if (a == OC_ALGO_SNAPPY)
        nv_check(nvcompBatchedSnappyCompressAsync((const void *const *)c.d_in_ptrs, c.d_usize, c.chunk, c.n,
                                                  nv.temp, nv.temp_bytes, c.d_comp_ptrs, c.d_csize,
                                                  nvcompBatchedSnappyCompressDefaultOpts,
                                                  (nvcompStatus_t *)c.d_status, 0),
                 "compress");
    else
        nv_check(nvcompBatchedZstdCompressAsync((const void *const *)c.d_in_ptrs, c.d_usize, c.chunk, c.n,
                                                nv.temp, nv.temp_bytes, c.d_comp_ptrs, c.d_csize,
                                                nvcompBatchedZstdCompressDefaultOpts,
                                                (nvcompStatus_t *)c.d_status, 0),
                 "compress");
}

/* Decode n chunks (device arrays) with nvCOMP: the chunked runs and the
 * single-frame runs share it. */
static void nv_decompress_raw(oc_algorithm a, size_t n, void *temp, size_t temp_bytes, void **comp_ptrs,
                              size_t *csize, size_t *out_caps, size_t *out_sizes, void **out_ptrs,
                              int32_t *status)
{
    if (a == OC_ALGO_LZ4)
        nv_check(nvcompBatchedLZ4DecompressAsync(
                     (const void *const *)comp_ptrs, csize, out_caps, out_sizes, n, temp, temp_bytes,
                     out_ptrs, nvcompBatchedLZ4DecompressDefaultOpts, (nvcompStatus_t *)status, 0),
                 "decompress");
    else if (a == OC_ALGO_SNAPPY)
        nv_check(nvcompBatchedSnappyDecompressAsync(
                     (const void *const *)comp_ptrs, csize, out_caps, out_sizes, n, temp, temp_bytes,
                     out_ptrs, nvcompBatchedSnappyDecompressDefaultOpts, (nvcompStatus_t *)status, 0),
                 "decompress");
    else
        nv_check(nvcompBatchedZstdDecompressAsync(
                     (const void *const *)comp_ptrs, csize, out_caps, out_sizes, n, temp, temp_bytes,
                     out_ptrs, nvcompBatchedZstdDecompressDefaultOpts, (nvcompStatus_t *)status, 0),
                 "decompress");
}

static void nv_decompress(Nv &nv, Chunks &c, oc_algorithm a)
{
    nv_decompress_raw(a, c.n, nv.temp, nv.temp_bytes, c.d_comp_ptrs, c.d_csize, c.d_out_caps, c.d_out_sizes,
                      c.d_out_ptrs, c.d_status);
}
#endif

/* ---- CPU reference --------------------------------------------------------- */

static void cpu_reference(const std::string &name, const std::vector<uint8_t> &data, size_t chunk,
                          oc_algorithm a)
{
    size_t n = (data.size() + chunk - 1) / chunk;
    size_t maxc = cpu_bound(a, chunk);
    std::vector<uint8_t> comp(n * maxc), out(chunk);
    std::vector<size_t> cs(n);
    int reps = n < 264 ? 1 : std::max(1, std::min(g_repeats, 3));
    std::vector<double> tc, td;
    bool ok = true;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        for (size_t i = 0; i < n; i++) {
            size_t len = std::min(chunk, data.size() - i * chunk);
            cs[i] = cpu_encode(a, data.data() + i * chunk, len, comp.data() + i * maxc, maxc);
        }
        tc.push_back(now_s() - t0);
        for (size_t i = 0; i < n; i++)
            ok = ok && cs[i] > 0;
        t0 = now_s();
        for (size_t i = 0; i < n; i++) {
            size_t len = std::min(chunk, data.size() - i * chunk);
            size_t got = cpu_decode(a, comp.data() + i * maxc, cs[i], out.data(), chunk);
            if (r == 0 && (got != len || memcmp(out.data(), data.data() + i * chunk, len)))
                ok = false;
        }
        td.push_back(now_s() - t0);
    }
    size_t ctot = 0;
    for (size_t v : cs)
        ctot += v;
    Result res{name,
               algo_name(a),
               "reference-cpu",
               "wall-clock",
               "kernel",
               data.size(),
               chunk,
               n,
               data.size(),
               ctot,
               data.size() / median(tc) / 1e9,
               data.size() / median(td) / 1e9,
               1,
               reps,
               ok};
    res.level = algo_level(a);
    g_results.push_back(res);
}

/* ---- end-to-end: pageable host in -> host out ------------------------------ */

static void end_to_end(const std::string &name, const std::vector<uint8_t> &data, Chunks &c, oc_algorithm a,
                       const char *contender, void (*comp)(Chunks &, oc_algorithm, void *),
                       void (*decomp)(Chunks &, oc_algorithm, void *), void *arg)
{
    std::vector<uint8_t> hcomp(c.n * c.max_comp), hout(c.total);
    std::vector<size_t> cs(c.n);
    std::vector<double> tc, td;
    int reps = std::max(1, std::min(g_repeats, 5));
    for (int r = 0; r < reps + 1; r++) {
        double t0 = now_s();
        CK(cudaMemcpy(c.d_in, data.data(), c.total, cudaMemcpyHostToDevice));
        comp(c, a, arg);
        CK(cudaMemcpy(cs.data(), c.d_csize, c.n * 8, cudaMemcpyDeviceToHost));
        /* compressed chunks back to the host in their slots (one copy) */
        CK(cudaMemcpy(hcomp.data(), c.d_comp, hcomp.size(), cudaMemcpyDeviceToHost));
        double t1 = now_s();
        /* and back in: host compressed slots -> device -> decode -> host */
        CK(cudaMemcpy(c.d_comp, hcomp.data(), hcomp.size(), cudaMemcpyHostToDevice));
        decomp(c, a, arg);
        CK(cudaMemcpy(hout.data(), c.d_out, c.total, cudaMemcpyDeviceToHost)); /* chunk == stride: packed */
        double t2 = now_s();
        if (r > 0) {
            tc.push_back(t1 - t0);
            td.push_back(t2 - t1);
        }
    }
    bool ok = memcmp(hout.data(), data.data(), c.total) == 0;
    size_t ctot = 0;
    for (size_t v : cs)
        ctot += v;
    g_results.push_back(Result{name, algo_name(a), contender, "wall-clock", "end-to-end", data.size(),
                               c.chunk, c.n, data.size(), ctot, data.size() / median(tc) / 1e9,
                               data.size() / median(td) / 1e9, 0, reps, ok});
    g_results.back().level = strcmp(contender, "opencomp-gpu") == 0 ? algo_level(a) : 0;
    if (a == OC_ALGO_ZSTD && g_zstd_comp_staged && strcmp(contender, "opencomp-gpu") == 0)
        g_results.back().note =
            "zstd compression host-staged by the engine (no GPU zstd encoder in this build)";
}

static void e2e_oc_comp(Chunks &c, oc_algorithm a, void *)
{
    oc_compress(c, a);
}
static void e2e_oc_decomp(Chunks &c, oc_algorithm a, void *)
{
    oc_decompress(c, a);
}
#ifdef OC_HAVE_NVCOMP
static void e2e_nv_comp(Chunks &c, oc_algorithm a, void *nv)
{
    nv_compress(*(Nv *)nv, c, a);
}
static void e2e_nv_decomp(Chunks &c, oc_algorithm a, void *nv)
{
    nv_decompress(*(Nv *)nv, c, a);
}
#endif

/* ---- one file, one chunk size, one algorithm ------------------------------- */

static void bench_one(const std::string &name, const std::vector<uint8_t> &data, size_t chunk, oc_algorithm a,
                      bool do_cpu, bool do_e2e)
{
    const char *an = algo_name(a);
    size_t max_comp = cpu_bound(a, chunk), align = 16;
#ifdef OC_HAVE_NVCOMP
    max_comp = std::max(max_comp, nv_max_comp(a, chunk));
    if (a == OC_ALGO_ZSTD)
        align = std::max(align, nv_zstd_align());
#endif
    max_comp = (max_comp + align - 1) / align * align;
    Chunks c;
    chunks_make(c, data, chunk, max_comp);
    g_small_batch = c.n < 264; /* fewer chunks than 2 per SM */
    int reps_used = g_small_batch ? std::min(g_repeats, 3) : g_repeats;

    /* opencomp: compress, decode our streams, cross-decode on the CPU */
    double tc = time_events([&] { oc_compress(c, a); });
    bool ok = statuses_ok(c, "opencomp compress");
    size_t ours_c = sum_csize(c);
    {
        std::vector<uint8_t> comp(c.n * max_comp), out(chunk);
        std::vector<size_t> cs(c.n);
        CK(cudaMemcpy(comp.data(), c.d_comp, comp.size(), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(cs.data(), c.d_csize, c.n * 8, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < c.n && ok; i++) {
            size_t got = cs[i] <= max_comp
                             ? cpu_decode(a, comp.data() + i * max_comp, cs[i], out.data(), chunk)
                             : SIZE_MAX;
            if (got != c.usize[i] || memcmp(out.data(), data.data() + c.uoff[i], got)) {
                fprintf(stderr, "opencomp %s chunk %zu: reference decoder disagrees\n", an, i);
                ok = false;
            }
        }
    }
    CK(cudaMemset(c.d_out, 0xEE, c.n * chunk));
    double td = time_events([&] { oc_decompress(c, a); });
    ok = ok && verify_output(c, data, "opencomp decompress");
    g_results.push_back(Result{name, an, "opencomp-gpu", "cuda-events", "kernel", data.size(), chunk, c.n,
                               data.size(), ours_c, data.size() / tc / 1e9, data.size() / td / 1e9, 0,
                               reps_used, ok});
    g_results.back().level = algo_level(a);
    if (a == OC_ALGO_ZSTD && g_zstd_comp_staged) {
        /* not a kernel time: keep it out of compress_gbps */
        g_results.back().has_comp = false;
        g_results.back().staged_cgbps = data.size() / tc / 1e9;
        g_results.back().note =
            "zstd compression host-staged by the engine (device -> host -> CPU engine, all "
            "cores -> device; no GPU zstd encoder in this build): compress_gbps null, "
            "that path's CUDA-event time in compress_staged_gbps; decompression is the GPU "
            "kernel";
    }
#ifdef OC_HAVE_NVCOMP
    if (!g_nvcomp) {
        if (do_e2e)
            end_to_end(name, data, c, a, "opencomp-gpu", e2e_oc_comp, e2e_oc_decomp, nullptr);
        chunks_free(c);
        if (do_cpu)
            cpu_reference(name, data, chunk, a);
        return;
    }
    Nv nv;
    nv_prepare(nv, c, a);
    /* nvCOMP decodes our streams (interop check, not timed) */
    CK(cudaMemset(c.d_out, 0xEE, c.n * chunk));
    nv_decompress(nv, c, a);
    CK(cudaDeviceSynchronize());
    bool cross1 = verify_output(c, data, "nvcomp decoding opencomp streams");
    double ntc = time_events([&] { nv_compress(nv, c, a); });
    bool nok = statuses_ok(c, "nvcomp compress");
    size_t nv_c = sum_csize(c);
    /* we decode nvCOMP's streams (interop check, not timed) */
    CK(cudaMemset(c.d_out, 0xEE, c.n * chunk));
    oc_decompress(c, a);
    CK(cudaDeviceSynchronize());
    bool cross2 = verify_output(c, data, "opencomp decoding nvcomp streams");
    CK(cudaMemset(c.d_out, 0xEE, c.n * chunk));
    double ntd = time_events([&] { nv_decompress(nv, c, a); });
    nok = nok && verify_output(c, data, "nvcomp decompress");
    g_results.push_back(Result{name, an, "nvcomp-gpu", "cuda-events", "kernel", data.size(), chunk, c.n,
                               data.size(), nv_c, data.size() / ntc / 1e9, data.size() / ntd / 1e9, 0,
                               reps_used, nok});
    g_results.back().level = 0; /* nvCOMP has no levels: its default options */
    if (!cross1 || !cross2)
        fprintf(stderr, "INTEROP FAILED: %s %s chunk %zu (nvcomp<-ours %d, ours<-nvcomp %d)\n", name.c_str(),
                an, chunk, cross1, cross2);
    g_results.back().verified = g_results.back().verified && cross1 && cross2;
    if (do_e2e)
        end_to_end(name, data, c, a, "nvcomp-gpu", e2e_nv_comp, e2e_nv_decomp, &nv);
    CK(cudaFree(nv.temp));
#endif
    if (do_e2e)
        end_to_end(name, data, c, a, "opencomp-gpu", e2e_oc_comp, e2e_oc_decomp, nullptr);
    chunks_free(c);
    if (do_cpu)
        cpu_reference(name, data, chunk, a);
}

/* ---- single frames written by the zstd CLI ----------------------------------- */

static uint32_t rd_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Blocks in the zstd frames of buf (skippable frames skipped; RFC 8878
 * section 3.1): what "many blocks" means for a CLI file.  -1 if the walk
 * does not reach the end exactly. */
static long zstd_count_blocks(const uint8_t *p, size_t n)
{
    size_t pos = 0;
    long blocks = 0;
    while (pos < n) {
        if (n - pos < 8)
            return -1;
        uint32_t magic = rd_le32(p + pos);
        if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
            size_t len = rd_le32(p + pos + 4);
            if (len > n - pos - 8)
                return -1;
            pos += 8 + len;
            continue;
        }
        if (magic != 0xFD2FB528u)
            return -1;
        uint8_t fhd = p[pos + 4];
        int fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1, did_flag = fhd & 3;
        size_t hdr = 5 + (single ? 0 : 1) + (did_flag == 3 ? 4 : (size_t)did_flag) +
                     (fcs_flag ? (size_t)1 << fcs_flag : (size_t)single);
        if (hdr > n - pos)
            return -1;
        pos += hdr;
        for (;;) {
            if (n - pos < 3)
                return -1;
            uint32_t bh = (uint32_t)p[pos] | (uint32_t)p[pos + 1] << 8 | (uint32_t)p[pos + 2] << 16;
            pos += 3;
            int type = (bh >> 1) & 3;
            size_t body = type == 1 ? 1 : (size_t)(bh >> 3);
            if (type == 3 || body > n - pos)
                return -1;
            pos += body;
            blocks++;
            if (bh & 1)
                break;
        }
        if (checksum) {
            if (n - pos < 4)
                return -1;
            pos += 4;
        }
    }
    return blocks;
}

static bool read_file(const std::string &path, std::vector<uint8_t> &data)
{
    FILE *f = fopen(path.c_str(), "rb");
    if (!f)
        return false;
    data.clear();
    uint8_t buf[1 << 16];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0)
        data.insert(data.end(), buf, buf + r);
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

/* Time fn (CUDA events on stream 0, or wall clock for the CPU): one call
 * when it takes >= 0.5 s; otherwise that call was a warm-up and up to
 * min(g_repeats, 5) more follow while they add up to under ~1 s.  Returns
 * the median seconds; *reps = the timed calls. */
template <class F> static double time_adaptive(F fn, bool events, int *reps)
{
    auto once = [&]() -> double {
        if (!events) {
            double t0 = now_s();
            fn();
            return now_s() - t0;
        }
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        CK(cudaEventRecord(a, 0));
        fn();
        CK(cudaEventRecord(b, 0));
        CK(cudaEventSynchronize(b));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, a, b));
        CK(cudaGetLastError());
        cudaEventDestroy(a);
        cudaEventDestroy(b);
        return ms * 1e-3;
    };
    double first = once();
    if (first >= 0.5) {
        *reps = 1;
        return first;
    }
    std::vector<double> t;
    double spent = 0;
    while ((int)t.size() < std::min(std::max(1, g_repeats), 5) && (t.empty() || spent < 1.0)) {
        t.push_back(once());
        spent += t.back();
    }
    *reps = (int)t.size();
    return median(t);
}

/* One decode of one frame on the device: the single-chunk batch. */
struct FrameDev {
    uint8_t *comp = nullptr, *out = nullptr;
    void **comp_ptrs = nullptr, **out_ptrs = nullptr;
    size_t *csize = nullptr, *cap = nullptr, *osize = nullptr;
    int32_t *status = nullptr;
    size_t ubytes = 0;
};

static void frame_dev_make(FrameDev &d, const std::vector<uint8_t> &frame, size_t ubytes)
{
    d.ubytes = ubytes;
    size_t cs = frame.size();
    CK(cudaMalloc(&d.comp, cs));
    CK(cudaMalloc(&d.out, ubytes));
    CK(cudaMemcpy(d.comp, frame.data(), cs, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&d.comp_ptrs, 8));
    CK(cudaMalloc(&d.out_ptrs, 8));
    CK(cudaMalloc(&d.csize, 8));
    CK(cudaMalloc(&d.cap, 8));
    CK(cudaMalloc(&d.osize, 8));
    CK(cudaMalloc(&d.status, 4));
    CK(cudaMemcpy(d.comp_ptrs, &d.comp, 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.out_ptrs, &d.out, 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.csize, &cs, 8, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.cap, &ubytes, 8, cudaMemcpyHostToDevice));
}

static void frame_dev_free(FrameDev &d)
{
    void *ps[] = {d.comp, d.out, d.comp_ptrs, d.out_ptrs, d.csize, d.cap, d.osize, d.status};
    for (void *p : ps)
        CK(cudaFree(p));
}

/* Status, size and every byte of the decoded frame; status_out gets the
 * decoder's per-chunk status. */
static bool frame_verify(const FrameDev &d, const std::vector<uint8_t> &data, int32_t *status_out)
{
    std::vector<uint8_t> out(d.ubytes);
    size_t size = 0;
    int32_t st = -1;
    CK(cudaMemcpy(out.data(), d.out, d.ubytes, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&size, d.osize, 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&st, d.status, 4, cudaMemcpyDeviceToHost));
    if (status_out)
        *status_out = st;
    return st == 0 && size == data.size() && memcmp(out.data(), data.data(), data.size()) == 0;
}

struct FrameJob {
    std::string path, name, frame_path;
    int level;
    size_t bytes;
};

static double g_frame_budget = 90; /* seconds of GPU frame decodes per contender (--frame-budget) */

/* What a contender has spent on frames: the clock starts at its first
 * decode; rate = the slowest bytes/s seen so far (a cautious estimate). */
struct FrameBudget {
    double t0 = 0, rate = 0;
};

/* Whether a decode of `bytes` fits in what is left of the contender's
 * --frame-budget; says so when not. */
static bool frame_fits(FrameBudget &b, size_t bytes, const char *who, const FrameJob &j)
{
    if (b.t0 == 0)
        b.t0 = now_s();
    double left = g_frame_budget - (now_s() - b.t0);
    double est = b.rate > 0 ? bytes / b.rate : 0;
    if (left > 0 && est <= left)
        return true;
    printf("frame %s (zstd -%d): %s skipped: estimated %.1f s, %.1f s of --frame-budget left\n",
           j.name.c_str(), j.level, who, est, std::max(0.0, left));
    return false;
}

static void frame_budget_add(FrameBudget &b, size_t bytes, double secs)
{
    double r = bytes / secs;
    b.rate = b.rate > 0 ? std::min(b.rate, r) : r;
}

static Result frame_result(const FrameJob &j, size_t ubytes, size_t cbytes, const char *contender,
                           const char *timing, double secs, int threads, int reps, bool ok, long blocks)
{
    Result r{j.name, "zstd", contender,           timing,  "kernel", ubytes, ubytes, 1, ubytes,
             cbytes, 0,      ubytes / secs / 1e9, threads, reps,     ok};
    r.level = j.level;
    r.has_comp = false;
    r.frame = "zstd -" + std::to_string(j.level);
    r.frame_blocks = blocks;
    r.note = "decode only: one frame written by the zstd CLI at this level, decoded as one chunk";
    return r;
}

/* opencomp-gpu and libzstd (one thread) on one CLI frame. */
static void frame_ours(const FrameJob &j, FrameBudget &budget)
{
    std::vector<uint8_t> data, frame;
    if (!read_file(j.path, data) || !read_file(j.frame_path, frame) || data.empty()) {
        printf("frame %s (zstd -%d): cannot read %s or %s: skipped\n", j.name.c_str(), j.level,
               j.path.c_str(), j.frame_path.c_str());
        return;
    }
    long blocks = zstd_count_blocks(frame.data(), frame.size());
    FrameDev d;
    frame_dev_make(d, frame, data.size());
    if (frame_fits(budget, data.size(), "opencomp-gpu", j)) {
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = OC_ALGO_ZSTD;
        CK(cudaMemset(d.out, 0xEE, d.ubytes));
        int reps = 0;
        double t = time_adaptive(
            [&] {
                if (oc_cuda_batch_decompress(&g_ctx, &o, 1, (const void *const *)d.comp_ptrs, d.csize,
                                             d.out_ptrs, d.cap, d.osize, (oc_status *)d.status) != OC_OK) {
                    fprintf(stderr, "oc_cuda_batch_decompress failed\n");
                    exit(2);
                }
            },
            true, &reps);
        int32_t st = 0;
        bool ok = frame_verify(d, data, &st);
        if (!ok)
            fprintf(stderr, "VERIFY FAILED (opencomp decoding %s): status %d\n", j.frame_path.c_str(), st);
        frame_budget_add(budget, data.size(), t);
        g_results.push_back(frame_result(j, data.size(), frame.size(), "opencomp-gpu", "cuda-events", t, 0,
                                         reps, ok, blocks));
    }
    frame_dev_free(d);
    /* libzstd, one thread, the whole frame in one call (checksum verified) */
    std::vector<uint8_t> out(data.size());
    size_t got = 0;
    int reps = 0;
    double t = time_adaptive(
        [&] { got = ZSTD_decompressDCtx(g_zd, out.data(), out.size(), frame.data(), frame.size()); }, false,
        &reps);
    bool ok = !ZSTD_isError(got) && got == data.size() && memcmp(out.data(), data.data(), got) == 0;
    if (!ok)
        fprintf(stderr, "VERIFY FAILED (libzstd decoding %s)\n", j.frame_path.c_str());
    g_results.push_back(
        frame_result(j, data.size(), frame.size(), "reference-cpu", "wall-clock", t, 1, reps, ok, blocks));
}

#ifdef OC_HAVE_NVCOMP
/* nvCOMP on one CLI frame (after all of ours: a fault in it cannot cost our
 * rows).  A status other than success on a valid frame is reported, not a
 * row; wrong bytes with success are an unverified row. */
static void frame_nvcomp(const FrameJob &j, FrameBudget &budget)
{
    std::vector<uint8_t> data, frame;
    if (!read_file(j.path, data) || !read_file(j.frame_path, frame) || data.empty())
        return;
    if (!frame_fits(budget, data.size(), "nvcomp-gpu", j))
        return;
    long blocks = zstd_count_blocks(frame.data(), frame.size());
    FrameDev d;
    frame_dev_make(d, frame, data.size());
    size_t temp_bytes = 0;
    void *temp = nullptr;
    nvcompStatus_t s = nvcompBatchedZstdDecompressGetTempSize(
        1, data.size(), nvcompBatchedZstdDecompressDefaultOpts, &temp_bytes, data.size(), 0);
    if (s == nvcompSuccess) {
        temp_bytes = std::max<size_t>(temp_bytes, 1);
        CK(cudaMalloc(&temp, temp_bytes));
        CK(cudaMemset(d.out, 0xEE, d.ubytes));
        int reps = 0;
        double t = time_adaptive(
            [&] {
                s = nvcompBatchedZstdDecompressAsync(
                    (const void *const *)d.comp_ptrs, d.csize, d.cap, d.osize, 1, temp, temp_bytes,
                    d.out_ptrs, nvcompBatchedZstdDecompressDefaultOpts, (nvcompStatus_t *)d.status, 0);
            },
            true, &reps);
        int32_t st = 0;
        bool ok = s == nvcompSuccess && frame_verify(d, data, &st);
        frame_budget_add(budget, data.size(), t);
        if (s != nvcompSuccess || st != 0)
            printf("frame %s (zstd -%d): nvcomp-gpu did not decode it (call %d, chunk status %d): no row\n",
                   j.name.c_str(), j.level, (int)s, st);
        else
            g_results.push_back(frame_result(j, data.size(), frame.size(), "nvcomp-gpu", "cuda-events", t, 0,
                                             reps, ok, blocks));
        CK(cudaFree(temp));
    } else {
        printf("frame %s (zstd -%d): nvCOMP temp size failed (%d): no row\n", j.name.c_str(), j.level,
               (int)s);
    }
    frame_dev_free(d);
}
#endif

/* ---- output ------------------------------------------------------------------ */

static std::string json_str(const std::string &s)
{
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\') {
            o += '\\';
            o += ch;
        } else if ((unsigned char)ch < 0x20) {
            char u[8];
            snprintf(u, sizeof u, "\\u%04x", (unsigned char)ch);
            o += u;
        } else {
            o += ch;
        }
    }
    return o + "\"";
}

/* The host object, as the CLI's `opencomp bench --json` writes it (CPU
 * model, usable cores, OS), so that bench/report.py sees the CPU rows of
 * both programs in one gpu-check run as one machine. */
static std::string host_json()
{
    std::string cpu = "unknown";
    if (FILE *f = fopen("/proc/cpuinfo", "r")) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ' || *c == '\t')
                        c++;
                    cpu.assign(c, strcspn(c, "\n"));
                }
                break;
            }
        }
        fclose(f);
    }
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0
                     ? CPU_COUNT(&set)
                     : sysconf(_SC_NPROCESSORS_ONLN);
    struct utsname un;
    std::string os = "unknown";
    if (uname(&un) == 0)
        os = std::string(un.sysname) + " " + un.release + " " + un.machine;
    return "{\"cpu\": " + json_str(cpu) + ", \"cores\": " + std::to_string(cores) +
           ", \"os\": " + json_str(os) + "}";
}

static void write_json(const char *path, const char *commit)
{
    /* written beside and renamed: a run killed mid-write leaves the last whole file */
    std::string tmp = std::string(path) + ".tmp";
    FILE *f = fopen(tmp.c_str(), "w");
    if (!f) {
        perror(tmp.c_str());
        return;
    }
    cudaDeviceProp p = {};
    CK(cudaGetDeviceProperties(&p, 0));
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    char date[64];
    time_t t = time(nullptr);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    const char *driver = getenv("OC_DRIVER_VERSION");
    fprintf(f, "{\n  \"schema\": 1, \"tool\": \"oc-gpu-bench\", \"date\": \"%s\", \"commit\": %s,\n", date,
            json_str(commit).c_str());
    fprintf(f, "  \"host\": %s,\n", host_json().c_str());
    fprintf(f,
            "  \"device\": {\"name\": %s, \"driver\": %s, \"driver_cuda\": \"%d.%d\", \"cuda_runtime\": "
            "\"%d.%d\", "
            "\"sms\": %d, \"d2d_copy_gbps\": %.1f},\n",
            json_str(p.name).c_str(), json_str(driver ? driver : "unknown").c_str(), drv / 1000,
            (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10, p.multiProcessorCount, g_peak_bw / 1e9);
#ifdef OC_HAVE_NVCOMP
    fprintf(f, "  \"nvcomp\": \"%d.%d.%d.%d\",\n", NVCOMP_VER_MAJOR, NVCOMP_VER_MINOR, NVCOMP_VER_PATCH,
            NVCOMP_VER_BUILD);
#endif
    fprintf(f, "  \"libzstd\": \"%s\", \"zstd_compression\": \"%s\",\n", ZSTD_versionString(),
            g_zstd_comp_staged ? "host-staged" : "gpu-kernel");
    fprintf(f, "  \"results\": [\n");
    for (size_t i = 0; i < g_results.size(); i++) {
        const Result &r = g_results[i];
        fprintf(f,
                "    {\"file\": %s, \"file_bytes\": %zu, \"algorithm\": \"%s\", \"level\": %d, "
                "\"chunk_size\": %zu, "
                "\"num_chunks\": %zu, \"contender\": \"%s\", ",
                json_str(r.file).c_str(), r.file_bytes, r.algo.c_str(), r.level, r.chunk, r.nchunks,
                r.contender.c_str());
        if (r.threads)
            fprintf(f, "\"threads\": %d, ", r.threads);
        char cg[32];
        if (r.has_comp)
            snprintf(cg, sizeof cg, "%.3f", r.cgbps);
        else
            snprintf(cg, sizeof cg, "null");
        fprintf(f,
                "\"uncompressed_bytes\": %zu, \"compressed_bytes\": %zu, \"ratio\": %.4f, \"compress_gbps\": "
                "%s, "
                "\"decompress_gbps\": %.3f, \"timing\": \"%s\", \"repeats\": %d, \"scope\": \"%s\", "
                "\"verified\": %s",
                r.ubytes, r.cbytes, (double)r.ubytes / (double)r.cbytes, cg, r.dgbps, r.timing.c_str(),
                r.repeats, r.scope.c_str(), r.verified ? "true" : "false");
        if (r.staged_cgbps > 0)
            fprintf(f, ", \"compress_staged_gbps\": %.3f", r.staged_cgbps);
        if (!r.frame.empty())
            fprintf(f, ", \"frame\": %s, \"frame_blocks\": %ld", json_str(r.frame).c_str(), r.frame_blocks);
        if (!r.note.empty())
            fprintf(f, ", \"note\": %s", json_str(r.note).c_str());
        fprintf(f, "}%s\n", i + 1 < g_results.size() ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    if (fclose(f) != 0 || rename(tmp.c_str(), path) != 0)
        perror(path);
}

static void print_table()
{
    printf("\n%-26s %-6s %3s %9s %-13s %-10s %7s %9s %9s %s\n", "file", "algo", "lvl", "chunk", "contender",
           "scope", "ratio", "comp GB/s", "dec GB/s", "ok");
    for (const Result &r : g_results) {
        char cg[32];
        if (r.has_comp)
            snprintf(cg, sizeof cg, "%9.2f", r.cgbps);
        else if (r.staged_cgbps > 0)
            snprintf(cg, sizeof cg, "(%.2f)s", r.staged_cgbps); /* host-staged, not a kernel time */
        else
            snprintf(cg, sizeof cg, "%9s", "-");
        printf("%-26s %-6s %3d %9zu %-13s %-10s %7.3f %9s %9.3f %s%s\n", r.file.c_str(), r.algo.c_str(),
               r.level, r.chunk, r.contender.c_str(), r.scope.c_str(), (double)r.ubytes / (double)r.cbytes,
               cg, r.dgbps, r.verified ? "yes" : "NO", r.frame.empty() ? "" : (" frame " + r.frame).c_str());
    }
    if (g_zstd_comp_staged)
        printf("(x)s: zstd compression host-staged by the engine in this build, not a kernel time\n");
}

static void measure_peak()
{
    size_t bytes = (size_t)1 << 30;
    void *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMemset(a, 1, bytes));
    double t = time_events([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0)); });
    g_peak_bw = 2.0 * bytes / t;
    CK(cudaFree(a));
    CK(cudaFree(b));
}

/* Comma list of integers ("3,19"); false on anything else. */
static bool parse_ints(const std::string &v, std::vector<int> &out)
{
    out.clear();
    size_t pos = 0;
    while (pos <= v.size()) {
        size_t end = v.find(',', pos);
        if (end == std::string::npos)
            end = v.size();
        std::string item = v.substr(pos, end - pos);
        char *e = nullptr;
        long x = strtol(item.c_str(), &e, 10);
        if (item.empty() || *e != '\0' || x < -1000 || x > 1000)
            return false;
        out.push_back((int)x);
        pos = end + 1;
    }
    return !out.empty();
}

/* The single-frame phase: ours and libzstd on every (file, level) first,
 * smallest first, then nvCOMP on the same frames. */
static void run_frames(const std::vector<std::string> &files, const std::string &dir,
                       const std::vector<int> &levels, const char *json, const char *commit)
{
    std::vector<FrameJob> jobs;
    for (const std::string &path : files) {
        std::string name = path.substr(path.find_last_of('/') + 1);
        FILE *f = fopen(path.c_str(), "rb");
        if (!f)
            continue;
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fclose(f);
        for (int level : levels) {
            FrameJob j{path, name, dir + "/" + name + ".l" + std::to_string(level) + ".zst", level,
                       size > 0 ? (size_t)size : 0};
            if (access(j.frame_path.c_str(), R_OK) != 0) {
                printf("frame %s (zstd -%d): %s missing: skipped\n", name.c_str(), level,
                       j.frame_path.c_str());
                continue;
            }
            if (j.bytes > 0)
                jobs.push_back(j);
        }
    }
    std::stable_sort(jobs.begin(), jobs.end(),
                     [](const FrameJob &a, const FrameJob &b) { return a.bytes < b.bytes; });
    FrameBudget oc_budget;
    for (const FrameJob &j : jobs) {
        frame_ours(j, oc_budget);
        if (json)
            write_json(json, commit);
        printf("done: frame %s zstd -%d (opencomp-gpu, reference-cpu)\n", j.name.c_str(), j.level);
        fflush(stdout);
    }
#ifdef OC_HAVE_NVCOMP
    FrameBudget nv_budget;
    for (const FrameJob &j : jobs) {
        if (!g_nvcomp)
            break;
        frame_nvcomp(j, nv_budget);
        if (json)
            write_json(json, commit);
        printf("done: frame %s zstd -%d (nvcomp-gpu)\n", j.name.c_str(), j.level);
        fflush(stdout);
    }
#endif
}

int main(int argc, char **argv)
{
    std::vector<std::string> files;
    std::vector<size_t> chunks = {65536, 1 << 20};
    const char *json = nullptr, *commit = "unknown";
    bool cpu = true, e2e = true, chunked = true;
    std::string frames_dir;
    std::vector<int> frame_levels = {3, 19};
    std::vector<oc_algorithm> algos = {OC_ALGO_LZ4, OC_ALGO_SNAPPY, OC_ALGO_ZSTD};
    bool bad = false;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--json" && i + 1 < argc)
            json = argv[++i];
        else if (a == "--commit" && i + 1 < argc)
            commit = argv[++i];
        else if (a == "--repeats" && i + 1 < argc)
            g_repeats = std::max(1, atoi(argv[++i]));
        else if (a == "--chunk" && i + 1 < argc)
            chunks = {(size_t)atol(argv[++i])};
        else if (a == "--algo" && i + 1 < argc) {
            std::string v = argv[++i] + std::string(",");
            algos.clear();
            for (size_t p = 0, e; (e = v.find(',', p)) != std::string::npos; p = e + 1) {
                std::string n = v.substr(p, e - p);
                if (n == "lz4")
                    algos.push_back(OC_ALGO_LZ4);
                else if (n == "snappy")
                    algos.push_back(OC_ALGO_SNAPPY);
                else if (n == "zstd")
                    algos.push_back(OC_ALGO_ZSTD);
                else
                    bad = true;
            }
        } else if (a == "--zstd-level" && i + 1 < argc)
            g_zstd_level = atoi(argv[++i]);
        else if (a == "--frames" && i + 1 < argc)
            frames_dir = argv[++i];
        else if (a == "--frame-levels" && i + 1 < argc)
            bad = bad || !parse_ints(argv[++i], frame_levels);
        else if (a == "--frame-budget" && i + 1 < argc)
            g_frame_budget = atof(argv[++i]);
        else if (a == "--frames-only")
            chunked = false;
        else if (a == "--no-cpu")
            cpu = false;
        else if (a == "--no-e2e")
            e2e = false;
        else if (a == "--no-nvcomp")
            g_nvcomp = false;
        else if (a.size() > 1 && a[0] == '-')
            bad = true;
        else
            files.push_back(a);
    }
    if (files.empty() || bad || chunks.empty() || chunks[0] == 0 || (!chunked && frames_dir.empty()) ||
        (chunked && algos.empty()) || g_zstd_level == 0) {
        fprintf(stderr,
                "usage: oc_gpu_bench [--json F] [--commit SHA] [--repeats N] [--chunk BYTES]\n"
                "                    [--algo lz4,snappy,zstd] [--zstd-level N (default 3)] [--no-cpu] "
                "[--no-e2e]\n"
                "                    [--no-nvcomp] [--frames DIR [--frame-levels 3,19] [--frame-budget S]\n"
                "                    [--frames-only]] FILE...\n"
                "--frames DIR: also decode DIR/<file name>.l<level>.zst, single frames the zstd CLI wrote\n"
                "(zstd -<level> FILE -o ...), whole, beside libzstd and nvCOMP; see the header of "
                "oc_gpu_bench.cu\n");
        return 2;
    }
    if (!oc_cuda_available()) {
        fprintf(stderr, "no CUDA device\n");
        return 2;
    }
#ifndef OC_HAVE_NVCOMP
    if (g_nvcomp)
        printf("built without nvCOMP: opencomp and the CPU reference only\n");
#endif
    memset(&g_ctx, 0, sizeof g_ctx);
    g_ctx.opts = (oc_context_options)OC_CONTEXT_OPTIONS_INIT;
    g_zc = ZSTD_createCCtx();
    g_zd = ZSTD_createDCtx();
    if (!g_zc || !g_zd) {
        fprintf(stderr, "out of memory (libzstd contexts)\n");
        return 2;
    }
    measure_peak();
    printf("device-to-device copy: %.0f GB/s (read + write)\n", g_peak_bw / 1e9);
    printf("zstd: level %d (opencomp-gpu, reference-cpu); compression %s; libzstd %s\n", g_zstd_level,
           g_zstd_comp_staged ? "host-staged by the engine (no GPU zstd encoder in this build)"
                              : "GPU kernel",
           ZSTD_versionString());
    for (const std::string &path : files) {
        if (!chunked)
            break;
        std::vector<uint8_t> data;
        if (!read_file(path, data)) {
            perror(path.c_str());
            continue;
        }
        if (data.empty())
            continue;
        std::string name = path.substr(path.find_last_of('/') + 1);
        for (size_t ch : chunks)
            for (oc_algorithm a : algos) {
                bench_one(name, data, ch, a, cpu, e2e && ch == 65536);
                fflush(stdout);
            }
        if (json) /* rewritten after every file: a run cut short keeps what it measured */
            write_json(json, commit);
        printf("done: %s (%zu bytes)\n", name.c_str(), data.size());
        fflush(stdout);
    }
    if (!frames_dir.empty())
        run_frames(files, frames_dir, frame_levels, json, commit);
    oc_cuda_context_release(&g_ctx);
    ZSTD_freeCCtx(g_zc);
    ZSTD_freeDCtx(g_zd);
    print_table();
    if (json)
        write_json(json, commit);
    for (const Result &r : g_results)
        if (!r.verified)
            return 1;
    return 0;
}
