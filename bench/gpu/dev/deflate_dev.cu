/*
 * deflate_dev.cu - development harness of the GPU Deflate kernels: launches
 * them directly (no engine), checks them against their cores compiled for
 * the host, and times them at full scale.  llm.c dev/cuda style: validation
 * first, then GB/s with the napkin numbers of DEFLATE_NOTES.md beside them.
 *
 * decode: each file is split into chunks (--chunk, default 64 KiB) and each
 * chunk compressed on the CPU by libdeflate (--level, default 6) or zlib
 * (--zlib; with --strategy) as raw deflate, zlib and gzip; the GPU decodes
 * them (src/cuda/codecs/deflate/inflate_kernels.cu) and every byte, size and status is
 * compared with the input.  Timing: the batch is replicated in distinct
 * device buffers until it holds >= --min-bytes (default 1 GiB) so the GPU
 * is full and the L2 cache serves no repeats; CUDA events around the kernel,
 * median of --reps.
 *
 * --damage: truncations, bit flips, one-byte-short outputs, damaged
 * trailers and random bytes made from the first chunks; the GPU must return
 * exactly the status, size and bytes of the same core on the CPU
 * (deflate_host_core.c).  Run it under compute-sanitizer memcheck and
 * racecheck (bench/gpu/dev/run-device.sh).
 *
 * --variant v2|v3|v4|v2,v4|all (default all): decoder v2
 * (inflate_v2_core.h, the library's until v4), v3 (the library's core with
 * an 11-bit literal/length table; DEFLATE_NOTES.md "Decoder v1: result,
 * and decoders v2 / v3"), the library's kernel (v4, inflate_kernels.cu: a
 * lane per bit offset, "Decoder v4"); inflate_var_kernels.cu builds v2 and
 * v3.  v1, v5 and v6 were removed in session 7 (their numbers: "Decoder
 * v1: result", "Result of v4 and v5" and "Decoder v6").  Each is checked and
 * timed on the same batch; damaged inputs are held to the library's host
 * core for every variant.
 *
 * Usage: deflate_dev [--damage] [--quick] [--chunk N] [--level L] [--zlib]
 *                    [--strategy S] [--algo deflate|zlib|gzip|all]
 *                    [--variant v2|v3|v4|v2,v4|all]
 *                    [--reps N] [--min-bytes B] [--max-bytes B] FILE...
 * Exit status 0 only if every check passed.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <libdeflate.h>
#include <zlib.h>

#include "cuda/codecs/deflate/inflate_gpu.h"
#include "deflate_host_core.h"
#include "inflate_var_gpu.h"

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

static int g_fail = 0;
static long g_checks = 0;
#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        g_checks++;                                                                                          \
        if (!(cond)) {                                                                                       \
            if (g_fail++ < 40) {                                                                             \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                         \
                fprintf(stderr, __VA_ARGS__);                                                                \
                fprintf(stderr, "\n");                                                                       \
            }                                                                                                \
        }                                                                                                    \
    } while (0)

typedef std::vector<uint8_t> bytes;

struct Opts {
    size_t chunk = 65536;
    int level = 6;
    int use_zlib = 0;
    int strategy = Z_DEFAULT_STRATEGY;
    int damage = 0;
    int quick = 0;
    int reps = 5;
    size_t min_bytes = (size_t)1 << 30;
    size_t max_bytes = (size_t)64 << 20;
    std::vector<oc_algorithm> algos = {OC_ALGO_DEFLATE, OC_ALGO_ZLIB, OC_ALGO_GZIP};
    std::vector<int> variants = {2, 3, 4};
};
static Opts g;

static const char *algo_name(oc_algorithm a)
{
    return a == OC_ALGO_ZLIB ? "zlib" : a == OC_ALGO_GZIP ? "gzip" : "deflate";
}

template <class F> static void parallel_for(size_t n, F f)
{
    std::vector<std::thread> th;
    size_t nt = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), n ? n : 1);
    for (size_t t = 0; t < nt; t++)
        th.emplace_back([&, t] {
            for (size_t i = t; i < n; i += nt)
                f(i);
        });
    for (auto &x : th)
        x.join();
}

static bytes read_file(const std::string &path, size_t max)
{
    bytes b;
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path.c_str());
        exit(2);
    }
    b.resize(max);
    size_t n = fread(b.data(), 1, max, f);
    fclose(f);
    b.resize(n);
    return b;
}

/* One chunk compressed on the CPU in format a. */
static bytes cpu_compress(oc_algorithm a, const uint8_t *src, size_t n)
{
    bytes out;
    if (g.use_zlib) {
        z_stream z;
        memset(&z, 0, sizeof z);
        int wb = a == OC_ALGO_ZLIB ? 15 : a == OC_ALGO_GZIP ? 31 : -15;
        if (deflateInit2(&z, g.level, Z_DEFLATED, wb, 8, g.strategy) != Z_OK)
            exit(2);
        out.resize(deflateBound(&z, (uLong)n) + 64);
        z.next_in = (Bytef *)(uintptr_t)src;
        z.avail_in = (uInt)n;
        z.next_out = out.data();
        z.avail_out = (uInt)out.size();
        if (deflate(&z, Z_FINISH) != Z_STREAM_END)
            exit(2);
        out.resize(z.total_out);
        deflateEnd(&z);
        return out;
    }
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(g.level);
    out.resize(libdeflate_gzip_compress_bound(c, n) + 64);
    size_t r = a == OC_ALGO_ZLIB   ? libdeflate_zlib_compress(c, src, n, out.data(), out.size())
               : a == OC_ALGO_GZIP ? libdeflate_gzip_compress(c, src, n, out.data(), out.size())
                                   : libdeflate_deflate_compress(c, src, n, out.data(), out.size());
    libdeflate_free_compressor(c);
    out.resize(r);
    return out;
}

/* A batch on the device: `copies` replicas of the chunks in distinct memory. */
struct DevBatch {
    size_t n = 0;
    uint8_t *comp = nullptr, *out = nullptr;
    void **src_ptrs = nullptr, **dst_ptrs = nullptr;
    size_t *src_sizes = nullptr, *dst_caps = nullptr, *dst_sizes = nullptr;
    oc_status *statuses = nullptr;
    std::vector<size_t> out_off;
};

static void dev_free(DevBatch &d)
{
    cudaFree(d.comp);
    cudaFree(d.out);
    cudaFree(d.src_ptrs);
    cudaFree(d.dst_ptrs);
    cudaFree(d.src_sizes);
    cudaFree(d.dst_caps);
    cudaFree(d.dst_sizes);
    cudaFree(d.statuses);
    d = DevBatch();
}

/* Uploads chunks (replicated `copies` times) with output capacities caps. */
static DevBatch dev_upload(const std::vector<bytes> &chunks, const std::vector<size_t> &caps, size_t copies)
{
    DevBatch d;
    size_t m = chunks.size();
    d.n = m * copies;
    size_t cin = 0, cout = 0;
    std::vector<size_t> in_off(m);
    d.out_off.resize(m);
    for (size_t i = 0; i < m; i++) {
        in_off[i] = cin;
        cin += (chunks[i].size() + 15) & ~(size_t)15;
        d.out_off[i] = cout;
        cout += (caps[i] + 15) & ~(size_t)15;
    }
    CUDA_OK(cudaMalloc(&d.comp, std::max<size_t>(cin * copies, 1)));
    CUDA_OK(cudaMalloc(&d.out, std::max<size_t>(cout * copies, 1)));
    std::vector<void *> sp(d.n), dp(d.n);
    std::vector<size_t> ss(d.n), dc(d.n);
    bytes host(cin);
    for (size_t i = 0; i < m; i++)
        if (chunks[i].size())
            memcpy(host.data() + in_off[i], chunks[i].data(), chunks[i].size());
    for (size_t c = 0; c < copies; c++) {
        CUDA_OK(cudaMemcpy(d.comp + c * cin, host.data(), cin, cudaMemcpyHostToDevice));
        for (size_t i = 0; i < m; i++) {
            sp[c * m + i] = d.comp + c * cin + in_off[i];
            dp[c * m + i] = d.out + c * cout + d.out_off[i];
            ss[c * m + i] = chunks[i].size();
            dc[c * m + i] = caps[i];
        }
    }
    CUDA_OK(cudaMalloc(&d.src_ptrs, d.n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d.dst_ptrs, d.n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d.src_sizes, d.n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d.dst_caps, d.n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d.dst_sizes, d.n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d.statuses, d.n * sizeof(oc_status)));
    CUDA_OK(cudaMemcpy(d.src_ptrs, sp.data(), d.n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.dst_ptrs, dp.data(), d.n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.src_sizes, ss.data(), d.n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.dst_caps, dc.data(), d.n * sizeof(size_t), cudaMemcpyHostToDevice));
    return d;
}

static void dev_decode(const DevBatch &d, oc_algorithm a, int variant)
{
    oc_gpu_config cfg;
    memset(&cfg, 0, sizeof cfg); /* the fields it grew since (typed options, sizes_only, side) */
    cfg.algorithm = a;
    cfg.max_capacity = SIZE_MAX;
    oc_status st =
        variant == 3   ? dev_inflate_v3(&cfg, d.n, (const void *const *)d.src_ptrs, d.src_sizes,
                                        (void *const *)d.dst_ptrs, d.dst_caps, d.dst_sizes, d.statuses, 0)
        : variant == 2 ? dev_inflate_v2(&cfg, d.n, (const void *const *)d.src_ptrs, d.src_sizes,
                                        (void *const *)d.dst_ptrs, d.dst_caps, d.dst_sizes, d.statuses, 0)
                       : oc_cuda_inflate(NULL, 0, &cfg, d.n, (const void *const *)d.src_ptrs, d.src_sizes,
                                         (void *const *)d.dst_ptrs, d.dst_caps, d.dst_sizes, d.statuses, 0);
    if (st != OC_OK) {
        fprintf(stderr, "launch failed: %d\n", (int)st);
        exit(2);
    }
}

/* GPU results of the first m chunks (statuses, sizes, bytes). */
static void dev_results(const DevBatch &d, size_t m, const std::vector<size_t> &caps,
                        std::vector<oc_status> &st, std::vector<size_t> &sz, std::vector<bytes> &out)
{
    st.resize(m);
    sz.resize(m);
    out.resize(m);
    CUDA_OK(cudaMemcpy(st.data(), d.statuses, m * sizeof(oc_status), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(sz.data(), d.dst_sizes, m * sizeof(size_t), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < m; i++) {
        out[i].resize(caps[i]);
        if (caps[i])
            CUDA_OK(cudaMemcpy(out[i].data(), d.out + d.out_off[i], caps[i], cudaMemcpyDeviceToHost));
    }
}

/* Every chunk decoded on the GPU and checked; then timed at full scale. */
static void run_file(const std::string &path, const bytes &data, oc_algorithm a, int variant)
{
    size_t m = (data.size() + g.chunk - 1) / g.chunk;
    std::vector<bytes> comp(m);
    std::vector<size_t> caps(m);
    parallel_for(m, [&](size_t i) {
        size_t off = i * g.chunk, len = std::min(g.chunk, data.size() - off);
        comp[i] = cpu_compress(a, data.data() + off, len);
        caps[i] = len;
    });
    size_t csum = 0;
    for (auto &c : comp)
        csum += c.size();
    DevBatch d = dev_upload(comp, caps, 1);
    dev_decode(d, a, variant);
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<oc_status> st;
    std::vector<size_t> sz;
    std::vector<bytes> out;
    dev_results(d, m, caps, st, sz, out);
    size_t bad = 0;
    for (size_t i = 0; i < m; i++) {
        const uint8_t *want = data.data() + i * g.chunk;
        if (st[i] != OC_OK || sz[i] != caps[i] || memcmp(out[i].data(), want, caps[i]) != 0)
            bad++;
    }
    CHECK(bad == 0, "%s %s v%d: %zu of %zu chunks wrong (first status %d)", path.c_str(), algo_name(a),
          variant, bad, m, (int)st[0]);
    dev_free(d);
    if (g.reps <= 0)
        return;
    size_t copies = std::max<size_t>(1, (g.min_bytes + data.size() - 1) / std::max<size_t>(data.size(), 1));
    d = dev_upload(comp, caps, copies);
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    dev_decode(d, a, variant); /* warm-up */
    std::vector<float> ms;
    for (int r = 0; r < g.reps; r++) {
        CUDA_OK(cudaEventRecord(e0));
        dev_decode(d, a, variant);
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaEventSynchronize(e1));
        float t;
        CUDA_OK(cudaEventElapsedTime(&t, e0, e1));
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    double total = (double)data.size() * copies;
    printf("%-28s %-7s v%d chunk %7zu lvl %2d%s ratio %6.3f  %6zu chunks  decode %8.2f GB/s  (%.3f ms)\n",
           path.substr(path.find_last_of('/') + 1).c_str(), algo_name(a), variant, g.chunk, g.level,
           g.use_zlib ? "z" : " ", (double)data.size() / (double)csum, d.n,
           total / (ms[ms.size() / 2] * 1e-3) / 1e9, ms[ms.size() / 2]);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    dev_free(d);
}

static uint32_t g_rng = 0x12345678u;
static uint32_t rnd()
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

/* Damaged variants of the first chunks: the GPU must agree with the host
 * build of the same core on status, size and bytes. */
static void run_damage(const std::string &path, const bytes &data, oc_algorithm a, int variant)
{
    std::vector<bytes> inputs;
    std::vector<size_t> caps;
    size_t base = std::min<size_t>(g.quick ? 8 : 48, (data.size() + g.chunk - 1) / g.chunk);
    for (size_t i = 0; i < base; i++) {
        size_t off = i * g.chunk, len = std::min(g.chunk, data.size() - off);
        bytes c = cpu_compress(a, data.data() + off, len);
        inputs.push_back(c);
        caps.push_back(len);
        if (len)
            inputs.push_back(c), caps.push_back(len - 1); /* one byte short */
        for (int k = 0; k < 6; k++) {                     /* cuts */
            bytes t(c.begin(), c.begin() + (c.size() ? rnd() % c.size() : 0));
            inputs.push_back(t);
            caps.push_back(len);
        }
        for (int k = 0; k < 12; k++) { /* flips */
            bytes t = c;
            int flips = 1 + (int)(rnd() % 3);
            for (int f = 0; f < flips && t.size(); f++)
                t[rnd() % t.size()] ^= (uint8_t)(1u << (rnd() % 8));
            inputs.push_back(t);
            caps.push_back(len + (k & 1) * 4096);
        }
        if (c.size() > 8) { /* trailer */
            bytes t = c;
            t[t.size() - 5] ^= 0x10;
            inputs.push_back(t);
            caps.push_back(len);
        }
        bytes r(64 + rnd() % 512); /* random bytes */
        for (auto &x : r)
            x = (uint8_t)rnd();
        inputs.push_back(r);
        caps.push_back(len);
    }
    DevBatch d = dev_upload(inputs, caps, 1);
    dev_decode(d, a, variant);
    CUDA_OK(cudaDeviceSynchronize());
    std::vector<oc_status> st;
    std::vector<size_t> sz;
    std::vector<bytes> out;
    dev_results(d, inputs.size(), caps, st, sz, out);
    size_t counts[16] = {0};
    for (size_t i = 0; i < inputs.size(); i++) {
        bytes ref(caps[i] + 1);
        size_t rsz = 0;
        oc_status rst = deflate_host_decode(a, inputs[i].data(), inputs[i].size(), ref.data(), caps[i], &rsz);
        counts[(unsigned)rst & 15]++;
        CHECK(st[i] == rst, "%s %s v%d damaged #%zu: GPU %d, host core %d", path.c_str(), algo_name(a),
              variant, i, (int)st[i], (int)rst);
        if (st[i] == OC_OK && rst == OC_OK)
            CHECK(sz[i] == rsz && memcmp(out[i].data(), ref.data(), rsz) == 0,
                  "%s %s v%d damaged #%zu: bytes differ", path.c_str(), algo_name(a), variant, i);
    }
    printf("%-28s %-7s v%d damage: %zu inputs, OK %zu CORRUPT %zu TRUNCATED %zu OUTPUT_TOO_SMALL %zu "
           "CHECKSUM %zu "
           "SIZE %zu\n",
           path.substr(path.find_last_of('/') + 1).c_str(), algo_name(a), variant, inputs.size(), counts[0],
           counts[3], counts[4], counts[5], counts[6], counts[7]);
    dev_free(d);
}

int main(int argc, char **argv)
{
    std::vector<std::string> files;
    for (int i = 1; i < argc; i++) {
        std::string s = argv[i];
        if (s == "--damage")
            g.damage = 1;
        else if (s == "--quick")
            g.quick = 1, g.max_bytes = (size_t)4 << 20;
        else if (s == "--zlib")
            g.use_zlib = 1;
        else if (s == "--chunk" && i + 1 < argc)
            g.chunk = strtoull(argv[++i], NULL, 0);
        else if (s == "--level" && i + 1 < argc)
            g.level = atoi(argv[++i]);
        else if (s == "--strategy" && i + 1 < argc)
            g.strategy = atoi(argv[++i]);
        else if (s == "--reps" && i + 1 < argc)
            g.reps = atoi(argv[++i]);
        else if (s == "--min-bytes" && i + 1 < argc)
            g.min_bytes = strtoull(argv[++i], NULL, 0);
        else if (s == "--max-bytes" && i + 1 < argc)
            g.max_bytes = strtoull(argv[++i], NULL, 0);
        else if (s == "--algo" && i + 1 < argc) {
            std::string v = argv[++i];
            g.algos.clear();
            if (v == "deflate" || v == "all")
                g.algos.push_back(OC_ALGO_DEFLATE);
            if (v == "zlib" || v == "all")
                g.algos.push_back(OC_ALGO_ZLIB);
            if (v == "gzip" || v == "all")
                g.algos.push_back(OC_ALGO_GZIP);
        } else if (s == "--variant" && i + 1 < argc) {
            std::string v = argv[++i];
            g.variants.clear();
            if (v == "v2" || v == "all" || v.find("v2") != std::string::npos)
                g.variants.push_back(2);
            if (v == "v3" || v == "all" || v.find("v3") != std::string::npos)
                g.variants.push_back(3);
            if (v == "v4" || v == "all" || v.find("v4") != std::string::npos)
                g.variants.push_back(4);
        } else if (s[0] == '-') {
            fprintf(stderr, "usage: deflate_dev [--damage] [--quick] [--chunk N] [--level L] [--zlib] "
                            "[--strategy S] [--algo deflate|zlib|gzip|all] [--variant "
                            "v2|v3|v4|v2,v4|all] [--reps N] "
                            "[--min-bytes B] "
                            "[--max-bytes B] FILE...\n");
            return 2;
        } else
            files.push_back(s);
    }
    int dev = 0;
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);
    for (auto &f : files) {
        bytes data = read_file(f, g.max_bytes);
        for (oc_algorithm a : g.algos)
            for (int v : g.variants) {
                if (g.damage)
                    run_damage(f, data, a, v);
                run_file(f, data, a, v);
            }
    }
    printf("%ld checks, %d failures\n", g_checks, g_fail);
    return g_fail != 0;
}
