/*
 * oc_gpu_bench.cu - the GPU benchmark and kernel harness for LZ4 and Snappy:
 * opencomp's CUDA kernels beside nvCOMP's batched C API and the reference
 * CPU libraries, on the same files and the same chunks.
 *
 * Method (nvCOMP's own benchmarks): each file is split into chunks (64 KiB
 * and 1 MiB by default, the last one partial); inputs and max-size outputs
 * are allocated outside the timed region; CUDA events bracket one batched
 * call; the median of --repeats runs after --warmup runs is reported; GB/s =
 * uncompressed bytes / time (1 GB = 1e9 B); ratio = total uncompressed / sum
 * of compressed chunk sizes.  Every decompressed output is compared byte by
 * byte with the original, and streams are cross-decoded (ours by nvCOMP and
 * liblz4/snappy, nvCOMP's by ours) so the bitstreams are checked standard.
 * The CPU reference (liblz4 fast / snappy, one thread) is timed by wall clock
 * on the same chunks.  "end-to-end" rows time host buffer in -> host buffer
 * out (pageable memory, transfers included) by wall clock.
 *
 * Output: a table on stdout, and with --json FILE the schema of
 * bench-schema.md ("tool": "oc-gpu-bench").  nvCOMP is compiled in when the
 * build finds its headers (OC_HAVE_NVCOMP).
 */
#include <cuda_runtime.h>
#include <lz4.h>
#include <snappy-c.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>
#include <string>
#include <vector>

extern "C" {
#include "cuda/cuda_engine.h"
}

#ifdef OC_HAVE_NVCOMP
#include <nvcomp/lz4.h>
#include <nvcomp/snappy.h>
#endif

#define CK(x)                                                                                                      \
    do {                                                                                                           \
        cudaError_t e_ = (x);                                                                                      \
        if (e_ != cudaSuccess) {                                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                   \
            exit(2);                                                                                               \
        }                                                                                                          \
    } while (0)

struct Result {
    std::string file, algo, contender, timing, scope;
    size_t file_bytes, chunk, nchunks, ubytes, cbytes;
    double cgbps, dgbps;
    int threads, repeats;
    bool verified;
};

static std::vector<Result> g_results;
static int g_repeats = 10, g_warmup = 2;
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
    void *ps[] = {c.d_in, c.d_comp, c.d_out, c.d_in_ptrs, c.d_comp_ptrs, c.d_out_ptrs, c.d_usize,
                  c.d_csize, c.d_comp_caps, c.d_out_caps, c.d_out_sizes, c.d_status};
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
        if (st[i] != 0 || sizes[i] != c.usize[i] || memcmp(out.data() + i * c.chunk, data.data() + c.uoff[i], c.usize[i])) {
            fprintf(stderr, "VERIFY FAILED (%s): chunk %zu status %d size %zu of %zu\n", who, i, st[i], sizes[i],
                    c.usize[i]);
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

static size_t nv_max_comp(oc_algorithm a, size_t chunk)
{
    size_t m = 0;
    if (a == OC_ALGO_LZ4)
        nvcompBatchedLZ4CompressGetMaxOutputChunkSize(chunk, nvcompBatchedLZ4CompressDefaultOpts, &m);
    else
        nvcompBatchedSnappyCompressGetMaxOutputChunkSize(chunk, nvcompBatchedSnappyCompressDefaultOpts, &m);
    return m;
}

static void nv_check(nvcompStatus_t s, const char *what)
{
    if (s != nvcompSuccess) {
        fprintf(stderr, "nvCOMP %s failed: %d\n", what, (int)s);
        exit(2);
    }
}

static void nv_prepare(Nv &nv, Chunks &c, oc_algorithm a)
{
    size_t t1 = 0, t2 = 0;
    if (a == OC_ALGO_LZ4) {
        nv_check(nvcompBatchedLZ4CompressGetTempSize(c.n, c.chunk, nvcompBatchedLZ4CompressDefaultOpts, &t1,
                                                     c.total, 0),
                 "temp size");
        nv_check(nvcompBatchedLZ4DecompressGetTempSize(c.n, c.chunk, nvcompBatchedLZ4DecompressDefaultOpts, &t2,
                                                       c.total, 0),
                 "temp size");
    } else {
        nv_check(nvcompBatchedSnappyCompressGetTempSize(c.n, c.chunk, nvcompBatchedSnappyCompressDefaultOpts, &t1,
                                                        c.total, 0),
                 "temp size");
        nv_check(nvcompBatchedSnappyDecompressGetTempSize(c.n, c.chunk, nvcompBatchedSnappyDecompressDefaultOpts,
                                                          &t2, c.total, 0),
                 "temp size");
    }
    nv.temp_bytes = std::max<size_t>(std::max(t1, t2), 1);
    CK(cudaMalloc(&nv.temp, nv.temp_bytes));
}

static void nv_compress(Nv &nv, Chunks &c, oc_algorithm a)
{
    if (a == OC_ALGO_LZ4)
        nv_check(nvcompBatchedLZ4CompressAsync((const void *const *)c.d_in_ptrs, c.d_usize, c.chunk, c.n, nv.temp,
                                               nv.temp_bytes, c.d_comp_ptrs, c.d_csize,
                                               nvcompBatchedLZ4CompressDefaultOpts, (nvcompStatus_t *)c.d_status,
                                               0),
                 "compress");
    else
        nv_check(nvcompBatchedSnappyCompressAsync((const void *const *)c.d_in_ptrs, c.d_usize, c.chunk, c.n,
                                                  nv.temp, nv.temp_bytes, c.d_comp_ptrs, c.d_csize,
                                                  nvcompBatchedSnappyCompressDefaultOpts,
                                                  (nvcompStatus_t *)c.d_status, 0),
                 "compress");
}

static void nv_decompress(Nv &nv, Chunks &c, oc_algorithm a)
{
    if (a == OC_ALGO_LZ4)
        nv_check(nvcompBatchedLZ4DecompressAsync((const void *const *)c.d_comp_ptrs, c.d_csize, c.d_out_caps,
                                                 c.d_out_sizes, c.n, nv.temp, nv.temp_bytes, c.d_out_ptrs,
                                                 nvcompBatchedLZ4DecompressDefaultOpts,
                                                 (nvcompStatus_t *)c.d_status, 0),
                 "decompress");
    else
        nv_check(nvcompBatchedSnappyDecompressAsync((const void *const *)c.d_comp_ptrs, c.d_csize, c.d_out_caps,
                                                    c.d_out_sizes, c.n, nv.temp, nv.temp_bytes, c.d_out_ptrs,
                                                    nvcompBatchedSnappyDecompressDefaultOpts,
                                                    (nvcompStatus_t *)c.d_status, 0),
                 "decompress");
}
#endif

/* ---- CPU reference --------------------------------------------------------- */

static void cpu_reference(const std::string &name, const std::vector<uint8_t> &data, size_t chunk, oc_algorithm a)
{
    size_t n = (data.size() + chunk - 1) / chunk;
    size_t maxc = a == OC_ALGO_LZ4 ? (size_t)LZ4_compressBound((int)chunk) : snappy_max_compressed_length(chunk);
    std::vector<uint8_t> comp(n * maxc), out(chunk);
    std::vector<size_t> cs(n);
    int reps = n < 264 ? 1 : std::max(1, std::min(g_repeats, 3));
    std::vector<double> tc, td;
    bool ok = true;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        for (size_t i = 0; i < n; i++) {
            size_t len = std::min(chunk, data.size() - i * chunk);
            const char *src = (const char *)data.data() + i * chunk;
            char *dst = (char *)comp.data() + i * maxc;
            if (a == OC_ALGO_LZ4) {
                cs[i] = (size_t)LZ4_compress_default(src, dst, (int)len, (int)maxc);
            } else {
                cs[i] = maxc;
                snappy_compress(src, len, dst, &cs[i]);
            }
        }
        tc.push_back(now_s() - t0);
        t0 = now_s();
        for (size_t i = 0; i < n; i++) {
            size_t len = std::min(chunk, data.size() - i * chunk);
            const char *src = (const char *)comp.data() + i * maxc;
            size_t got;
            if (a == OC_ALGO_LZ4) {
                int rr = LZ4_decompress_safe(src, (char *)out.data(), (int)cs[i], (int)chunk);
                got = rr < 0 ? 0 : (size_t)rr;
            } else {
                got = chunk;
                if (snappy_uncompress(src, cs[i], (char *)out.data(), &got) != SNAPPY_OK)
                    got = 0;
            }
            if (r == 0 && (got != len || memcmp(out.data(), data.data() + i * chunk, len)))
                ok = false;
        }
        td.push_back(now_s() - t0);
    }
    size_t ctot = 0;
    for (size_t v : cs)
        ctot += v;
    Result res{name, a == OC_ALGO_LZ4 ? "lz4" : "snappy", "reference-cpu", "wall-clock", "kernel", data.size(),
               chunk, n, data.size(), ctot, data.size() / median(tc) / 1e9, data.size() / median(td) / 1e9, 1,
               reps, ok};
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
    g_results.push_back(Result{name, a == OC_ALGO_LZ4 ? "lz4" : "snappy", contender, "wall-clock", "end-to-end",
                               data.size(), c.chunk, c.n, data.size(), ctot, data.size() / median(tc) / 1e9,
                               data.size() / median(td) / 1e9, 0, reps, ok});
}

static void e2e_oc_comp(Chunks &c, oc_algorithm a, void *) { oc_compress(c, a); }
static void e2e_oc_decomp(Chunks &c, oc_algorithm a, void *) { oc_decompress(c, a); }
#ifdef OC_HAVE_NVCOMP
static void e2e_nv_comp(Chunks &c, oc_algorithm a, void *nv) { nv_compress(*(Nv *)nv, c, a); }
static void e2e_nv_decomp(Chunks &c, oc_algorithm a, void *nv) { nv_decompress(*(Nv *)nv, c, a); }
#endif

/* ---- one file, one chunk size, one algorithm ------------------------------- */

static void bench_one(const std::string &name, const std::vector<uint8_t> &data, size_t chunk, oc_algorithm a,
                      bool do_cpu, bool do_e2e)
{
    const char *an = a == OC_ALGO_LZ4 ? "lz4" : "snappy";
    size_t max_comp = a == OC_ALGO_LZ4 ? (size_t)LZ4_compressBound((int)chunk) : snappy_max_compressed_length(chunk);
#ifdef OC_HAVE_NVCOMP
    max_comp = std::max(max_comp, nv_max_comp(a, chunk));
#endif
    max_comp = (max_comp + 15) & ~(size_t)15;
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
            size_t got = 0;
            if (a == OC_ALGO_LZ4) {
                int r = LZ4_decompress_safe((const char *)comp.data() + i * max_comp, (char *)out.data(), (int)cs[i],
                                            (int)chunk);
                got = r < 0 ? 0 : (size_t)r;
            } else {
                got = chunk;
                if (snappy_uncompress((const char *)comp.data() + i * max_comp, cs[i], (char *)out.data(), &got) !=
                    SNAPPY_OK)
                    got = 0;
            }
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
                               data.size(), ours_c, data.size() / tc / 1e9, data.size() / td / 1e9, 0, reps_used,
                               ok});
#ifdef OC_HAVE_NVCOMP
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
                               data.size(), nv_c, data.size() / ntc / 1e9, data.size() / ntd / 1e9, 0, reps_used,
                               nok});
    if (!cross1 || !cross2)
        fprintf(stderr, "INTEROP FAILED: %s %s chunk %zu (nvcomp<-ours %d, ours<-nvcomp %d)\n", name.c_str(), an,
                chunk, cross1, cross2);
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

/* ---- output ------------------------------------------------------------------ */

static std::string json_str(const std::string &s)
{
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\')
            o += '\\';
        o += ch;
    }
    return o + "\"";
}

static void write_json(const char *path, const char *commit)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        return;
    }
    cudaDeviceProp p;
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
    fprintf(f, "  \"host\": {\"cores\": %d},\n", (int)std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
    fprintf(f,
            "  \"device\": {\"name\": %s, \"driver\": %s, \"driver_cuda\": \"%d.%d\", \"cuda_runtime\": \"%d.%d\", "
            "\"sms\": %d, \"d2d_copy_gbps\": %.1f},\n",
            json_str(p.name).c_str(), json_str(driver ? driver : "unknown").c_str(), drv / 1000, (drv % 1000) / 10,
            rt / 1000, (rt % 1000) / 10, p.multiProcessorCount, g_peak_bw / 1e9);
#ifdef OC_HAVE_NVCOMP
    fprintf(f, "  \"nvcomp\": \"%d.%d.%d.%d\",\n", NVCOMP_VER_MAJOR, NVCOMP_VER_MINOR, NVCOMP_VER_PATCH,
            NVCOMP_VER_BUILD);
#endif
    fprintf(f, "  \"results\": [\n");
    for (size_t i = 0; i < g_results.size(); i++) {
        const Result &r = g_results[i];
        fprintf(f,
                "    {\"file\": %s, \"file_bytes\": %zu, \"algorithm\": \"%s\", \"level\": 0, \"chunk_size\": %zu, "
                "\"num_chunks\": %zu, \"contender\": \"%s\", ",
                json_str(r.file).c_str(), r.file_bytes, r.algo.c_str(), r.chunk, r.nchunks, r.contender.c_str());
        if (r.threads)
            fprintf(f, "\"threads\": %d, ", r.threads);
        fprintf(f,
                "\"uncompressed_bytes\": %zu, \"compressed_bytes\": %zu, \"ratio\": %.4f, \"compress_gbps\": %.3f, "
                "\"decompress_gbps\": %.3f, \"timing\": \"%s\", \"repeats\": %d, \"scope\": \"%s\", \"verified\": "
                "%s}%s\n",
                r.ubytes, r.cbytes, (double)r.ubytes / (double)r.cbytes, r.cgbps, r.dgbps, r.timing.c_str(), r.repeats,
                r.scope.c_str(), r.verified ? "true" : "false", i + 1 < g_results.size() ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
}

static void print_table()
{
    printf("\n%-22s %-6s %7s %-13s %-10s %7s %9s %9s %s\n", "file", "algo", "chunk", "contender", "scope", "ratio",
           "comp GB/s", "dec GB/s", "ok");
    for (const Result &r : g_results)
        printf("%-22s %-6s %7zu %-13s %-10s %7.3f %9.2f %9.2f %s\n", r.file.c_str(), r.algo.c_str(), r.chunk,
               r.contender.c_str(), r.scope.c_str(), (double)r.ubytes / (double)r.cbytes, r.cgbps, r.dgbps,
               r.verified ? "yes" : "NO");
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

int main(int argc, char **argv)
{
    std::vector<std::string> files;
    std::vector<size_t> chunks = {65536, 1 << 20};
    const char *json = nullptr, *commit = "unknown";
    bool cpu = true, e2e = true;
    std::vector<oc_algorithm> algos = {OC_ALGO_LZ4, OC_ALGO_SNAPPY};
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--json" && i + 1 < argc)
            json = argv[++i];
        else if (a == "--commit" && i + 1 < argc)
            commit = argv[++i];
        else if (a == "--repeats" && i + 1 < argc)
            g_repeats = atoi(argv[++i]);
        else if (a == "--chunk" && i + 1 < argc)
            chunks = {(size_t)atol(argv[++i])};
        else if (a == "--algo" && i + 1 < argc) {
            std::string v = argv[++i];
            algos = {v == "snappy" ? OC_ALGO_SNAPPY : OC_ALGO_LZ4};
        } else if (a == "--no-cpu")
            cpu = false;
        else if (a == "--no-e2e")
            e2e = false;
        else
            files.push_back(a);
    }
    if (files.empty()) {
        fprintf(stderr, "usage: oc_gpu_bench [--json F] [--commit SHA] [--repeats N] [--chunk BYTES] "
                        "[--algo lz4|snappy] [--no-cpu] [--no-e2e] FILE...\n");
        return 2;
    }
    if (!oc_cuda_available()) {
        fprintf(stderr, "no CUDA device\n");
        return 2;
    }
    memset(&g_ctx, 0, sizeof g_ctx);
    g_ctx.opts = (oc_context_options)OC_CONTEXT_OPTIONS_INIT;
    measure_peak();
    printf("device-to-device copy: %.0f GB/s (read + write)\n", g_peak_bw / 1e9);
    for (const std::string &path : files) {
        FILE *f = fopen(path.c_str(), "rb");
        if (!f) {
            perror(path.c_str());
            continue;
        }
        std::vector<uint8_t> data;
        uint8_t buf[1 << 16];
        size_t r;
        while ((r = fread(buf, 1, sizeof buf, f)) > 0)
            data.insert(data.end(), buf, buf + r);
        fclose(f);
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
    oc_cuda_context_release(&g_ctx);
    print_table();
    if (json)
        write_json(json, commit);
    for (const Result &r : g_results)
        if (!r.verified)
            return 1;
    return 0;
}
