/*
 * zstd_harness.cu - checks and times the GPU Zstandard decoder
 * (src/cuda/codecs/zstd/zstd_decode.cu) against libzstd on real files.
 *
 * For each file and each configuration (64 KiB and 1 MiB chunks at levels
 * -5, 1, 3, 19; whole-file single frames as `zstd -3` / `zstd -19` write
 * them, with checksum and many blocks) it compresses with libzstd on all
 * CPU cores, decodes on the GPU, compares every byte, then times the kernel
 * with CUDA events (median of reps; the batch is replicated in distinct
 * device buffers until it holds >= --min-bytes, so the GPU is full and the
 * L2 cache does not serve repeats) and libzstd on the CPU (1 thread and all
 * threads).  Validation always comes before timing.
 *
 * Damage checks (--damage): byte flips, truncations, one-byte-short outputs,
 * random bytes, frames of every shape (no content size, checksum,
 * concatenated and skippable frames), 512 KiB frames of several blocks (the
 * block-parallel path); the GPU must return exactly the status,
 * size and bytes of the same core run on the CPU (zstd_host_core.c), and
 * must never accept what libzstd rejects except where libzstd is lax
 * (Huffman streams not consumed exactly).
 *
 * Usage: zstd_harness [--quick] [--damage] [--variants] [--reps N] [--max-bytes B]
 *                     [--min-bytes B] FILE...   (FILE may end in .zst: it is
 *                     decompressed first)
 * --variants times the kernels built for 3, 4 and 5 resident blocks per SM.
 * Exit status 0 only if every check passed.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "cuda/codecs/zstd/zstd_gpu.h"
#include "zstd_host_core.h"

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

static const char *st_name(oc_status st)
{
    static const char *names[] = {"OK",
                                  "INVALID_ARGUMENT",
                                  "UNSUPPORTED",
                                  "CORRUPT",
                                  "TRUNCATED",
                                  "OUTPUT_TOO_SMALL",
                                  "CHECKSUM_MISMATCH",
                                  "SIZE_MISMATCH",
                                  "CHUNK_TOO_LARGE",
                                  "NEEDS_DICTIONARY"};
    return (unsigned)st < sizeof names / sizeof names[0] ? names[st] : "OTHER";
}

static unsigned g_threads = 1;
static std::vector<int> g_variants = {3};

template <class F> static void parallel_for(size_t n, F f)
{
    std::vector<std::thread> th;
    size_t nt = std::min<size_t>(g_threads, n ? n : 1);
    for (size_t t = 0; t < nt; t++)
        th.emplace_back([&, t] {
            for (size_t i = t; i < n; i += nt)
                f(i);
        });
    for (auto &x : th)
        x.join();
}

static double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static bytes read_file(const std::string &path)
{
    bytes b;
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path.c_str());
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    b.resize((size_t)sz);
    if (sz && fread(b.data(), 1, (size_t)sz, f) != (size_t)sz)
        exit(2);
    fclose(f);
    if (path.size() > 4 && path.substr(path.size() - 4) == ".zst") {
        unsigned long long n = ZSTD_getFrameContentSize(b.data(), b.size());
        bytes d;
        if (n != ZSTD_CONTENTSIZE_UNKNOWN && n != ZSTD_CONTENTSIZE_ERROR) {
            d.resize(n);
            size_t r = ZSTD_decompress(d.data(), n, b.data(), b.size());
            if (ZSTD_isError(r))
                exit(2);
        } else {
            ZSTD_DStream *ds = ZSTD_createDStream();
            ZSTD_inBuffer in = {b.data(), b.size(), 0};
            bytes chunk(1 << 20);
            while (in.pos < in.size) {
                ZSTD_outBuffer out = {chunk.data(), chunk.size(), 0};
                size_t r = ZSTD_decompressStream(ds, &out, &in);
                if (ZSTD_isError(r))
                    exit(2);
                d.insert(d.end(), chunk.begin(), chunk.begin() + out.pos);
            }
            ZSTD_freeDStream(ds);
        }
        return d;
    }
    return b;
}

/* Frame shapes: bit 0 checksum, bit 1 no content size (streaming API), bit 2
 * two frames with a skippable frame between (numcodecs-like). */
static bytes compress(const uint8_t *src, size_t n, int level, int shape, int workers)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, shape & 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, (shape & 2) ? 0 : 1);
    if (workers > 1)
        ZSTD_CCtx_setParameter(c, ZSTD_c_nbWorkers, workers);
    bytes out(ZSTD_compressBound(n) * 2 + 64);
    size_t total = 0, parts = (shape & 4) ? 2 : 1;
    for (size_t k = 0; k < parts; k++) {
        size_t a = n * k / parts, b = n * (k + 1) / parts;
        if (k > 0) {
            const uint8_t skip[12] = {0x5E, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 'o', 'c', 'z', 'd'};
            memcpy(out.data() + total, skip, sizeof skip);
            total += sizeof skip;
        }
        ZSTD_inBuffer in = {src + a, b - a, 0};
        ZSTD_outBuffer o = {out.data() + total, out.size() - total, 0};
        size_t r;
        do {
            r = ZSTD_compressStream2(c, &o, &in, ZSTD_e_end);
        } while (r != 0 && !ZSTD_isError(r));
        if (ZSTD_isError(r)) {
            fprintf(stderr, "compress: %s\n", ZSTD_getErrorName(r));
            exit(2);
        }
        total += o.pos;
        ZSTD_CCtx_reset(c, ZSTD_reset_session_only);
    }
    ZSTD_freeCCtx(c);
    out.resize(total);
    return out;
}

/* A batch on the device: `copies` replicas of the chunks in distinct memory. */
struct DevBatch {
    size_t n = 0;
    uint8_t *comp = nullptr, *out = nullptr;
    void **src_ptrs = nullptr, **dst_ptrs = nullptr;
    size_t *src_sizes = nullptr, *dst_caps = nullptr, *dst_sizes = nullptr;
    oc_status *statuses = nullptr;
    void *scratch = nullptr;
    size_t scratch_size = 0, max_cap = 0, out_bytes = 0;
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
    cudaFree(d.scratch);
    d = DevBatch();
}

static DevBatch dev_upload(const std::vector<bytes> &chunks, const std::vector<size_t> &caps, size_t copies)
{
    DevBatch d;
    size_t m = chunks.size();
    d.n = m * copies;
    std::vector<size_t> coff(d.n), ssz(d.n), cap(d.n);
    d.out_off.resize(d.n);
    size_t ctot = 0, otot = 0;
    for (size_t i = 0; i < d.n; i++) {
        coff[i] = ctot;
        ssz[i] = chunks[i % m].size();
        ctot += (ssz[i] + 15) & ~(size_t)15;
        d.out_off[i] = otot;
        cap[i] = caps[i % m];
        otot += (cap[i] + 15) & ~(size_t)15;
        d.max_cap = std::max(d.max_cap, cap[i]);
    }
    d.out_bytes = otot;
    CUDA_OK(cudaMalloc(&d.comp, ctot + 16));
    CUDA_OK(cudaMalloc(&d.out, otot + 16));
    bytes hc(ctot + 16);
    for (size_t i = 0; i < d.n; i++)
        if (ssz[i])
            memcpy(hc.data() + coff[i], chunks[i % m].data(), ssz[i]);
    CUDA_OK(cudaMemcpy(d.comp, hc.data(), ctot, cudaMemcpyHostToDevice));
    std::vector<void *> sp(d.n), dp(d.n);
    for (size_t i = 0; i < d.n; i++) {
        sp[i] = d.comp + coff[i];
        dp[i] = d.out + d.out_off[i];
    }
    CUDA_OK(cudaMalloc(&d.src_ptrs, d.n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d.dst_ptrs, d.n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d.src_sizes, d.n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d.dst_caps, d.n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d.dst_sizes, d.n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d.statuses, d.n * sizeof(oc_status)));
    CUDA_OK(cudaMemcpy(d.src_ptrs, sp.data(), d.n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.dst_ptrs, dp.data(), d.n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.src_sizes, ssz.data(), d.n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.dst_caps, cap.data(), d.n * sizeof(size_t), cudaMemcpyHostToDevice));
    d.scratch_size = oc_cuda_zstd_decompress_scratch_size(d.n, d.max_cap);
    CUDA_OK(cudaMalloc(&d.scratch, d.scratch_size));
    return d;
}

static void dev_decode(DevBatch &d, cudaStream_t s)
{
    oc_gpu_config cfg{};
    cfg.algorithm = OC_ALGO_ZSTD;
    cfg.max_capacity = d.max_cap;
    oc_status st = oc_cuda_zstd_decompress(d.scratch, d.scratch_size, &cfg, d.n,
                                           (const void *const *)d.src_ptrs, d.src_sizes,
                                           (void *const *)d.dst_ptrs, d.dst_caps, d.dst_sizes, d.statuses, s);
    if (st != OC_OK) {
        fprintf(stderr, "launch failed: %s\n", st_name(st));
        exit(2);
    }
}

/* Runs the batch once; copies statuses, sizes and outputs (first m chunks). */
static void dev_results(DevBatch &d, size_t m, std::vector<oc_status> &st, std::vector<size_t> &sz,
                        bytes &out)
{
    CUDA_OK(cudaMemset(d.out, 0xA5, d.out_bytes));
    CUDA_OK(cudaMemset(d.statuses, 0xFF, d.n * sizeof(oc_status)));
    dev_decode(d, 0);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    st.resize(d.n);
    sz.resize(d.n);
    CUDA_OK(cudaMemcpy(st.data(), d.statuses, d.n * sizeof(oc_status), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(sz.data(), d.dst_sizes, d.n * sizeof(size_t), cudaMemcpyDeviceToHost));
    size_t end = m < d.n ? d.out_off[m] : d.out_bytes;
    out.resize(end);
    CUDA_OK(cudaMemcpy(out.data(), d.out, end, cudaMemcpyDeviceToHost));
}

struct Row {
    std::string file, config;
    size_t raw = 0, comp = 0, chunks = 0;
    double gpu_gbs = 0, cpu1_gbs = 0, cpun_gbs = 0;
    std::vector<double> gpu_v; /* per kernel variant (g_variants) */
    bool ok = false;
};
static std::vector<Row> g_rows;

static void run_config(const std::string &name, const bytes &data, size_t chunk, int level, int shape,
                       int reps, size_t min_bytes)
{
    Row row;
    row.file = name;
    char cfg[64];
    if (chunk)
        snprintf(cfg, sizeof cfg, "%zuK L%d", chunk >> 10, level);
    else
        snprintf(cfg, sizeof cfg, "frame L%d", level);
    row.config = cfg;
    size_t n = data.size();
    size_t cs = chunk ? chunk : (n ? n : 1);
    size_t m = (n + cs - 1) / cs;
    if (m == 0)
        m = 1;
    std::vector<bytes> comp(m);
    std::vector<size_t> raw_len(m);
    double t0 = now_s();
    if (chunk) {
        parallel_for(m, [&](size_t i) {
            size_t a = i * cs, len = std::min(cs, n - a);
            raw_len[i] = len;
            comp[i] = compress(data.data() + a, len, level, shape, 1);
        });
    } else {
        raw_len[0] = n;
        comp[0] = compress(data.data(), n, level, shape, (int)g_threads);
    }
    double tcomp = now_s() - t0;
    for (auto &c : comp)
        row.comp += c.size();
    row.raw = n;
    row.chunks = m;

    /* CPU reference: libzstd, 1 thread and all threads */
    {
        bytes ref(n + 1);
        auto cpu = [&](unsigned threads) {
            double best = 1e30;
            for (int r = 0; r < 3; r++) {
                double a = now_s();
                std::vector<std::thread> th;
                unsigned nt = std::min<unsigned>(threads, (unsigned)m);
                for (unsigned t = 0; t < nt; t++)
                    th.emplace_back([&, t] {
                        ZSTD_DCtx *dc = ZSTD_createDCtx();
                        for (size_t i = t; i < m; i += nt) {
                            size_t r2 = ZSTD_decompressDCtx(dc, ref.data() + i * cs, raw_len[i],
                                                            comp[i].data(), comp[i].size());
                            if (ZSTD_isError(r2) || r2 != raw_len[i]) {
                                fprintf(stderr, "libzstd failed on its own output\n");
                                exit(2);
                            }
                        }
                        ZSTD_freeDCtx(dc);
                    });
                for (auto &x : th)
                    x.join();
                best = std::min(best, now_s() - a);
            }
            return (double)n / best / 1e9;
        };
        row.cpu1_gbs = cpu(1);
        row.cpun_gbs = cpu(g_threads);
    }

    /* GPU: validate once on a single copy, then time replicas */
    size_t copies = 1;
    while (copies * n < min_bytes && copies < 4096)
        copies++;
    std::vector<size_t> caps(raw_len);
    DevBatch d = dev_upload(comp, caps, copies);
    std::vector<oc_status> st;
    std::vector<size_t> sz;
    bytes out;
#ifdef ZD_PROFILE
    unsigned long long prof[8];
    oc_cuda_zstd_debug_profile(prof, 1);
#endif
    dev_results(d, m, st, sz, out);
#ifdef ZD_PROFILE
    oc_cuda_zstd_debug_profile(prof, 1);
    {
        double tot = (double)(prof[5] ? prof[5] : 1);
        printf("profile %s %s: cycles/byte per warp %.1f; literals %.1f%%, seq tables %.1f%%, seq decode "
               "%.1f%%, "
               "batch exec %.1f%%, xxh64 %.1f%%\n",
               name.c_str(), cfg, (double)prof[5] / ((double)n * (double)copies),
               100.0 * (double)prof[0] / tot, 100.0 * (double)prof[1] / tot,
               100.0 * (double)(prof[2] - prof[3]) / tot, 100.0 * (double)prof[3] / tot,
               100.0 * (double)prof[4] / tot);
    }
#endif
    bool ok = true;
    for (size_t i = 0; i < d.n; i++) {
        if (st[i] != OC_OK || sz[i] != raw_len[i % m]) {
            if (ok)
                CHECK(false, "%s %s chunk %zu: status %s size %zu want %zu", name.c_str(), cfg, i,
                      st_name(st[i]), sz[i], raw_len[i % m]);
            ok = false;
        }
    }
    for (size_t i = 0; i < m && ok; i++) {
        if (memcmp(out.data() + d.out_off[i], data.data() + i * cs, raw_len[i]) != 0) {
            CHECK(false, "%s %s chunk %zu: bytes differ", name.c_str(), cfg, i);
            ok = false;
        }
    }
    g_checks++;
    row.ok = ok;
    if (ok && reps > 0) {
        cudaEvent_t e0, e1;
        CUDA_OK(cudaEventCreate(&e0));
        CUDA_OK(cudaEventCreate(&e1));
        for (size_t v = 0; v < g_variants.size(); v++) {
            oc_cuda_zstd_debug_set_min_blocks(g_variants[v]);
            float warm;
            CUDA_OK(cudaEventRecord(e0));
            dev_decode(d, 0); /* warm-up, also sizes the number of repetitions */
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            CUDA_OK(cudaEventElapsedTime(&warm, e0, e1));
            int nrep = std::max(1, std::min(reps, (int)(300.0f / std::max(warm, 0.001f))));
            std::vector<float> ms;
            for (int r = 0; r < nrep; r++) {
                CUDA_OK(cudaEventRecord(e0));
                dev_decode(d, 0);
                CUDA_OK(cudaEventRecord(e1));
                CUDA_OK(cudaEventSynchronize(e1));
                float t;
                CUDA_OK(cudaEventElapsedTime(&t, e0, e1));
                ms.push_back(t);
            }
            std::sort(ms.begin(), ms.end());
            double gbs = (double)n * (double)copies / (ms[ms.size() / 2] * 1e-3) / 1e9;
            row.gpu_v.push_back(gbs);
            row.gpu_gbs = std::max(row.gpu_gbs, gbs);
        }
        oc_cuda_zstd_debug_set_min_blocks(4);
        cudaEventDestroy(e0);
        cudaEventDestroy(e1);
    }
    dev_free(d);
    char vs[96] = "";
    for (size_t v = 0; v < row.gpu_v.size(); v++)
        snprintf(vs + strlen(vs), sizeof vs - strlen(vs), "%s%.2f", v ? "/" : "", row.gpu_v[v]);
    printf("%-28s %-12s ratio %7.3f chunks %5zu x%-3zu gpu %8.3f GB/s [%s] cpu1 %6.3f cpu%u %7.3f %s\n",
           name.c_str(), cfg, row.comp ? (double)n / (double)row.comp : 0.0, m, copies, row.gpu_gbs, vs,
           row.cpu1_gbs, g_threads, row.cpun_gbs, ok ? "ok" : "FAILED");
    (void)tcomp;
    fflush(stdout);
    g_rows.push_back(row);
}

static uint32_t g_rng = 2463534242u;
static uint32_t rnd()
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

/* Damaged and odd inputs: GPU must equal the host core exactly. */
static void run_damage(const std::string &name, const bytes &data)
{
    std::vector<bytes> in;
    std::vector<size_t> caps;
    std::vector<int> kind;
    const size_t cs = 65536;
    size_t m = std::min<size_t>((data.size() + cs - 1) / cs, 48);
    static const int levels[] = {-5, 1, 3, 19};
    for (size_t i = 0; i < m; i++) {
        size_t a = i * cs, len = std::min(cs, data.size() - a);
        int level = levels[i % 4];
        int shape = (int)(i % 8);
        bytes c = compress(data.data() + a, len, level, shape, 1);
        in.push_back(c), caps.push_back(len), kind.push_back(0);               /* intact */
        in.push_back(c), caps.push_back(len ? len - 1 : 0), kind.push_back(1); /* short output */
        for (int t = 0; t < 6; t++) {                                          /* truncations */
            bytes b(c.begin(), c.begin() + (t < 2 ? c.size() - 1 - t : rnd() % c.size()));
            in.push_back(b), caps.push_back(len), kind.push_back(2);
        }
        for (int t = 0; t < 24; t++) { /* flips */
            bytes b = c;
            int flips = 1 + (int)(rnd() % 3);
            for (int k = 0; k < flips; k++)
                b[rnd() % b.size()] ^= (uint8_t)(1u << (rnd() % 8));
            in.push_back(b), caps.push_back(len), kind.push_back(3);
        }
        { /* random bytes, and a valid frame header followed by random bytes */
            bytes b(1 + rnd() % 4096);
            for (auto &x : b)
                x = (uint8_t)rnd();
            in.push_back(b), caps.push_back(len), kind.push_back(4);
            bytes h(c.begin(), c.begin() + std::min<size_t>(c.size(), 8));
            for (int k = 0; k < 2000; k++)
                h.push_back((uint8_t)rnd());
            in.push_back(h), caps.push_back(len), kind.push_back(4);
        }
    }
    /* frames of several blocks (512 KiB at -3, shapes 0-3), the shapes the
     * block-parallel experiment (bench/gpu/dev/zstd_dec_blocks.h) was
     * checked on */
    for (size_t i = 0; i < 4 && (i + 1) * 524288 <= data.size(); i++) {
        size_t len = 524288;
        bytes c = compress(data.data() + i * len, len, 3, (int)i, 1);
        in.push_back(c), caps.push_back(len), kind.push_back(0);
        in.push_back(c), caps.push_back(len - 1), kind.push_back(1);
        for (int t = 0; t < 2; t++) {
            bytes b(c.begin(), c.begin() + rnd() % c.size());
            in.push_back(b), caps.push_back(len), kind.push_back(2);
        }
        for (int t = 0; t < 16; t++) {
            bytes b = c;
            b[rnd() % b.size()] ^= (uint8_t)(1u << (rnd() % 8));
            in.push_back(b), caps.push_back(len), kind.push_back(3);
        }
    }
    { /* a frame that names a dictionary: FHD 0x21 = single segment, 1-byte DID */
        bytes b = {0x28, 0xB5, 0x2F, 0xFD, 0x21, 0x07, 0x05, 0x01, 0x00, 0x00};
        in.push_back(b), caps.push_back(100), kind.push_back(5);
    }
    { /* empty chunk */
        in.push_back(bytes()), caps.push_back(10), kind.push_back(6);
    }
    size_t n = in.size();
    DevBatch d = dev_upload(in, caps, 1);
    std::vector<oc_status> st;
    std::vector<size_t> sz;
    bytes out;
    dev_results(d, n, st, sz, out);
    size_t counts[16] = {0};
    long lax = 0, mism = 0;
    for (size_t i = 0; i < n; i++) {
        bytes h(caps[i] + 1);
        size_t hs = 0;
        oc_status hst = zd_host_decode(in[i].data(), in[i].size(), h.data(), caps[i], &hs);
        counts[(unsigned)st[i] < 16 ? st[i] : 15]++;
        bool same = st[i] == hst && sz[i] == hs &&
                    (hst != OC_OK || memcmp(out.data() + d.out_off[i], h.data(), hs) == 0);
        if (!same && mism++ < 10)
            fprintf(stderr, "damage item %zu kind %d: gpu %s/%zu host %s/%zu\n", i, kind[i], st_name(st[i]),
                    sz[i], st_name(hst), hs);
        CHECK(same, "gpu and host core differ on damaged input %zu", i);
        size_t r = ZSTD_decompress(h.data(), caps[i], in[i].data(), in[i].size());
        if (st[i] == OC_OK)
            CHECK(!ZSTD_isError(r) && r == sz[i], "we accept item %zu (kind %d) that libzstd rejects: %s", i,
                  kind[i], ZSTD_isError(r) ? ZSTD_getErrorName(r) : "size");
        else if (!ZSTD_isError(r) && st[i] == OC_ERR_CORRUPT)
            lax++;
        if (kind[i] == 0)
            CHECK(st[i] == OC_OK, "intact item %zu: %s", i, st_name(st[i]));
        if (kind[i] == 1 && caps[i] > 0)
            CHECK(st[i] == OC_ERR_OUTPUT_TOO_SMALL, "short output item %zu: %s", i, st_name(st[i]));
        if (kind[i] == 2) /* a cut exactly between two frames is a valid input */
            CHECK(st[i] != OC_OK || !ZSTD_isError(r), "truncated item %zu decoded OK", i);
        if (kind[i] == 5)
            CHECK(st[i] == OC_ERR_NEEDS_DICTIONARY, "dictionary frame: %s", st_name(st[i]));
        if (kind[i] == 6) /* a frame cut before its magic number, as libzstd and the CPU engine say */
            CHECK(st[i] == OC_ERR_TRUNCATED && sz[i] == 0, "empty chunk: %s", st_name(st[i]));
    }
    printf("damage %s: %zu inputs; statuses:", name.c_str(), n);
    for (int k = 0; k < 10; k++)
        if (counts[k])
            printf(" %s=%zu", st_name((oc_status)k), counts[k]);
    printf("; gpu==host core on all but %ld; rejected-but-libzstd-accepts %ld\n", mism, lax);
    dev_free(d);
}

int main(int argc, char **argv)
{
    int reps = 9, quick = 0, damage = 0;
    size_t max_bytes = 0, min_bytes = 256u << 20;
    std::vector<std::string> files;
    for (int a = 1; a < argc; a++) {
        std::string s = argv[a];
        if (s == "--quick")
            quick = 1;
        else if (s == "--damage")
            damage = 1;
        else if (s == "--variants")
            g_variants = {3, 4, 5};
        else if (s == "--reps" && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (s == "--max-bytes" && a + 1 < argc)
            max_bytes = strtoull(argv[++a], nullptr, 0);
        else if (s == "--min-bytes" && a + 1 < argc)
            min_bytes = strtoull(argv[++a], nullptr, 0);
        else
            files.push_back(s);
    }
    g_threads = std::max(1u, std::thread::hardware_concurrency());
    int dev = 0;
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, dev));
    printf("device: %s, %d SMs; libzstd %s; %u CPU threads\n", prop.name, prop.multiProcessorCount,
           ZSTD_versionString(), g_threads);
    for (auto &f : files) {
        bytes data = read_file(f);
        if (max_bytes && data.size() > max_bytes)
            data.resize(max_bytes);
        std::string name = f.substr(f.find_last_of('/') + 1);
        if (damage)
            run_damage(name, data);
        static const int levels[] = {1, 3, 19, -5};
        static const size_t chunks[] = {65536, 1 << 20};
        for (size_t c : chunks)
            for (int l : levels) {
                if ((quick || c > 65536) && l != 3 && l != 19)
                    continue;
                run_config(name, data, c, l, 0, reps, min_bytes);
            }
        /* whole-file single frames as the zstd CLI writes them (checksum on) */
        run_config(name, data, 0, 3, 1, quick ? 1 : 3, 0);
        if (!quick)
            run_config(name, data, 0, 19, 1, 3, 0);
        /* frames without content size, multi-frame chunks (numcodecs) */
        run_config(name, data, 65536, 3, 2 | 4 | 1, 0, 0);
    }
    printf("\n%ld checks, %d failures\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
