/*
 * gdeflate_dev.cu - development harness of the GPU GDeflate decoder: its
 * variants launched directly (no engine), checked, then timed at full
 * scale on the same batch, so an A/B needs no library change
 * (GDEFLATE_NOTES.md).  Variants: v2, the library's kernel with the core's
 * old word reader (gdeflate_var_kernel.cuh with gdeflate_v2_core.h, the
 * frozen v2 core: a load at each refill); v3 (gdeflate_win_kernels.cu,
 * gdeflate_v3_core.h: the register window of input words, the library's
 * until v4); v4, the library's core as it is (gdeflate_v4_kernels.cu: one
 * body for a lane's visit; "Decoder v4") at 80 registers, and at 72 and 64
 * (v4-r72, v4-r64: 28 and 32 warps an SM instead of 24; v4-r64 is the
 * library's kernel).  v5w (a lane's own copy by aligned words, "Decoder
 * v5w": 0.948x v4-r64) lost and left; its source is gdeflate_v5w_kernels.cu
 * at 453fb81.  Default: v3 and v4-r64.
 *
 * The files are cut in pages of --chunk bytes (default 64 KiB), encoded by
 * the CPU engine's GDeflate encoder at --level (default 6, our default)
 * and decoded by each variant: every status, size and byte of the first
 * copy is compared with the input.  Timing: the pages of all files, one
 * batch, replicated in distinct device buffers up to --min-bytes (default
 * 1 GiB, as the full-scale rows); CUDA events around the kernel, the
 * variants interleaved rep by rep, median of --reps; GB/s of output.
 * --per-file adds a row per file.
 *
 * --damage: truncated pages, byte flips and short capacities made from the
 * first pages; each variant must give the CPU decoder's status, size and
 * bytes (run it under compute-sanitizer memcheck and racecheck).
 *
 * Usage: gdeflate_dev [--variant v2,v3,v4,v4-r72,v4-r64 (any of them)] [--level L] [--chunk N] [--reps N]
 *                     [--min-bytes B] [--per-file] [--damage] FILE...
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

extern "C" {
#include "cpu/codecs/gdeflate/gdeflate_core.h"
}

#define DEV_GDD_CORE "gdeflate_v2_core.h" /* v2's reader */
#define DEV_GDD_LAUNCH dev_gdd_v2
#include "gdeflate_var_kernel.cuh"

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

typedef void (*launch_fn)(size_t, const void *const *, const size_t *, void *const *, const size_t *,
                          size_t *, oc_status *);
extern "C" void dev_gdd_v2(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                           const size_t *caps, size_t *sizes, oc_status *statuses);
extern "C" void dev_gdd_v3(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                           const size_t *caps, size_t *sizes, oc_status *statuses);
extern "C" void dev_gdd_v4(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                           const size_t *caps, size_t *sizes, oc_status *statuses);
extern "C" void dev_gdd_v4_r72(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                               const size_t *caps, size_t *sizes, oc_status *statuses);
extern "C" void dev_gdd_v4_r64(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                               const size_t *caps, size_t *sizes, oc_status *statuses);

static int g_fail = 0;
static long g_checks = 0;
#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        g_checks++;                                                                                          \
        if (!(cond) && g_fail++ < 40) {                                                                      \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                             \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fprintf(stderr, "\n");                                                                           \
        }                                                                                                    \
    } while (0)

typedef std::vector<uint8_t> bytes;
struct Variant {
    const char *name;
    launch_fn fn;
};
static const Variant k_variants[] = {{"v2", dev_gdd_v2},
                                     {"v3", dev_gdd_v3},
                                     {"v4", dev_gdd_v4},
                                     {"v4-r72", dev_gdd_v4_r72},
                                     {"v4-r64", dev_gdd_v4_r64}};

struct Opts {
    size_t chunk = 65536;
    int level = 6, reps = 5, per_file = 0, damage = 0;
    size_t min_bytes = (size_t)1 << 30;
    std::vector<int> variants = {1, 4}; /* v3, v4-r64 (the library's kernel) */
};
static Opts g;

template <class F> static void parallel_for(size_t n, F f)
{
    std::vector<std::thread> th;
    size_t nt = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), n ? n : 1);
    for (size_t t = 0; t < nt; t++)
        th.emplace_back([&, t] {
            for (size_t i = t; i < n; i += nt)
                f(i, t);
        });
    for (auto &x : th)
        x.join();
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
    b.resize((size_t)ftell(f));
    fseek(f, 0, SEEK_SET);
    size_t got = fread(b.data(), 1, b.size(), f);
    fclose(f);
    b.resize(got);
    return b;
}

/* A page: its compressed bytes, the output it must give and its capacity. */
struct Page {
    bytes comp;
    const uint8_t *want;
    size_t len, cap;
};

static std::vector<Page> encode_pages(const bytes &data)
{
    size_t m = (data.size() + g.chunk - 1) / g.chunk;
    std::vector<Page> p(m);
    size_t nt = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), m ? m : 1);
    std::vector<gd_enc_ws *> ws(nt);
    for (auto &w : ws)
        w = (gd_enc_ws *)malloc(sizeof(gd_enc_ws));
    parallel_for(m, [&](size_t i, size_t t) {
        size_t off = i * g.chunk, len = std::min(g.chunk, data.size() - off), out = 0;
        p[i].comp.resize(gd_bound(len));
        oc_status st =
            gd_encode(ws[t], g.level, data.data() + off, len, p[i].comp.data(), p[i].comp.size(), &out);
        if (st != OC_OK) {
            fprintf(stderr, "gd_encode failed: %d\n", (int)st);
            exit(2);
        }
        p[i].comp.resize(out);
        p[i].want = data.data() + off;
        p[i].len = p[i].cap = len;
    });
    for (auto w : ws)
        free(w);
    return p;
}

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

/* The pages, replicated `copies` times in distinct buffers; each page's
 * input starts at an odd offset when `odd` (the unaligned word path). */
static DevBatch dev_upload(const std::vector<Page> &pages, size_t copies, int odd)
{
    DevBatch d;
    size_t m = pages.size(), cin = 0, cout = 0;
    d.n = m * copies;
    std::vector<size_t> in_off(m);
    d.out_off.resize(m);
    for (size_t i = 0; i < m; i++) {
        in_off[i] = cin + (odd ? 1 : 0);
        cin += (pages[i].comp.size() + 1 + 15) & ~(size_t)15;
        d.out_off[i] = cout;
        cout += (pages[i].cap + 15) & ~(size_t)15;
    }
    CUDA_OK(cudaMalloc(&d.comp, std::max<size_t>(cin * copies, 1)));
    CUDA_OK(cudaMalloc(&d.out, std::max<size_t>(cout * copies, 1)));
    bytes host(cin);
    for (size_t i = 0; i < m; i++)
        if (!pages[i].comp.empty())
            memcpy(host.data() + in_off[i], pages[i].comp.data(), pages[i].comp.size());
    std::vector<void *> sp(d.n), dp(d.n);
    std::vector<size_t> ss(d.n), dc(d.n);
    for (size_t c = 0; c < copies; c++) {
        CUDA_OK(cudaMemcpy(d.comp + c * cin, host.data(), cin, cudaMemcpyHostToDevice));
        for (size_t i = 0; i < m; i++) {
            sp[c * m + i] = d.comp + c * cin + in_off[i];
            dp[c * m + i] = d.out + c * cout + d.out_off[i];
            ss[c * m + i] = pages[i].comp.size();
            dc[c * m + i] = pages[i].cap;
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

static void dev_decode(const DevBatch &d, int v)
{
    k_variants[v].fn(d.n, (const void *const *)d.src_ptrs, d.src_sizes, (void *const *)d.dst_ptrs, d.dst_caps,
                     d.dst_sizes, d.statuses);
    CUDA_OK(cudaGetLastError());
}

/* Each page of the first copy against want[] (status OK unless given). */
static size_t dev_check(const DevBatch &d, const std::vector<Page> &pages,
                        const std::vector<oc_status> *want_st, const char *what, int v)
{
    size_t m = pages.size(), bad = 0;
    std::vector<oc_status> st(m);
    std::vector<size_t> sz(m);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(st.data(), d.statuses, m * sizeof(oc_status), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(sz.data(), d.dst_sizes, m * sizeof(size_t), cudaMemcpyDeviceToHost));
    bytes out;
    for (size_t i = 0; i < m; i++) {
        oc_status ws = want_st ? (*want_st)[i] : OC_OK;
        int ok = st[i] == ws;
        if (ok && ws == OC_OK) {
            out.resize(pages[i].len);
            if (pages[i].len)
                CUDA_OK(cudaMemcpy(out.data(), d.out + d.out_off[i], pages[i].len, cudaMemcpyDeviceToHost));
            ok = sz[i] == pages[i].len &&
                 (pages[i].len == 0 || memcmp(out.data(), pages[i].want, pages[i].len) == 0);
        } else if (ok) {
            ok = sz[i] == 0;
        }
        if (!ok && bad++ < 3)
            fprintf(stderr, "%s %s page %zu: status %d (want %d), size %zu (want %zu)\n", what,
                    k_variants[v].name, i, (int)st[i], (int)ws, sz[i], pages[i].len);
    }
    CHECK(bad == 0, "%s %s: %zu of %zu pages wrong", what, k_variants[v].name, bad, m);
    return bad;
}

/* Check every variant on the pages, then time them interleaved. */
static void run_set(const char *name, const std::vector<Page> &pages, size_t raw)
{
    for (int odd = 0; odd < 2; odd++) {
        DevBatch d = dev_upload(pages, 1, odd);
        for (int v : g.variants) {
            CUDA_OK(cudaMemset(d.out, 0, 1));
            dev_decode(d, v);
            dev_check(d, pages, nullptr, odd ? "unaligned" : name, v);
        }
        dev_free(d);
    }
    if (g.reps <= 0 || raw == 0)
        return;
    size_t copies = std::max<size_t>(1, (g.min_bytes + raw - 1) / raw);
    DevBatch d = dev_upload(pages, copies, 0);
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    std::vector<std::vector<float>> ms(sizeof k_variants / sizeof k_variants[0]);
    for (int v : g.variants)
        dev_decode(d, v); /* warm-up */
    for (int r = 0; r < g.reps; r++)
        for (int v : g.variants) {
            CUDA_OK(cudaEventRecord(e0));
            dev_decode(d, v);
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            float t;
            CUDA_OK(cudaEventElapsedTime(&t, e0, e1));
            ms[v].push_back(t);
        }
    size_t csum = 0;
    for (auto &p : pages)
        csum += p.comp.size();
    double total = (double)raw * copies, base = 0;
    for (int v : g.variants) {
        std::sort(ms[v].begin(), ms[v].end());
        double med = ms[v][ms[v].size() / 2], gbs = total / (med * 1e-3) / 1e9;
        if (base == 0)
            base = gbs;
        printf("%-28s gdeflate %s chunk %6zu lvl %d ratio %6.3f %8zu pages  decode %8.2f GB/s  (%.3f ms, "
               "%.3fx %s)\n",
               name, k_variants[v].name, g.chunk, g.level, (double)raw / (double)csum, d.n, gbs, med,
               gbs / base, k_variants[g.variants[0]].name);
    }
    fflush(stdout);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    dev_free(d);
}

static uint32_t g_rng = 0x9E3779B9u;
static uint32_t rnd()
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

/* Damaged copies of the first pages; every variant must give the CPU
 * decoder's status, size and bytes. */
static void run_damage(const std::vector<Page> &pages)
{
    std::vector<bytes> keep;
    std::vector<Page> dmg;
    size_t m = std::min<size_t>(pages.size(), 48);
    for (size_t i = 0; i < m; i++) {
        const Page &p = pages[i];
        for (int k = 0; k < 12; k++) {
            Page q = p;
            size_t n = q.comp.size();
            if (k < 4 && n)
                q.comp.resize(rnd() % n); /* truncated */
            else if (k < 9 && n)
                q.comp[rnd() % n] ^= (uint8_t)(1u + rnd() % 255); /* a byte changed */
            else if (k < 11)
                q.cap = p.len ? rnd() % p.len : 0; /* short output */
            else
                for (auto &b : q.comp)
                    b = (uint8_t)rnd(); /* garbage */
            dmg.push_back(q);
        }
    }
    /* the CPU decoder's verdicts; `want` points into kept outputs */
    std::vector<oc_status> want(dmg.size());
    keep.resize(dmg.size());
    gd_dec_ws *ws = (gd_dec_ws *)malloc(sizeof(gd_dec_ws));
    unsigned long seen[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < dmg.size(); i++) {
        keep[i].resize(dmg[i].cap ? dmg[i].cap : 1);
        size_t out = 0;
        want[i] = gd_decode(ws, dmg[i].comp.data(), dmg[i].comp.size(), keep[i].data(), dmg[i].cap, &out);
        dmg[i].want = keep[i].data();
        dmg[i].len = want[i] == OC_OK ? out : 0;
        seen[want[i] == OC_OK ? 0 : want[i] == OC_ERR_CORRUPT ? 1 : want[i] == OC_ERR_TRUNCATED ? 2 : 3]++;
    }
    free(ws);
    DevBatch d = dev_upload(dmg, 1, 0);
    for (int v : g.variants) {
        dev_decode(d, v);
        dev_check(d, dmg, &want, "damaged", v);
    }
    dev_free(d);
    printf("damaged: %zu pages (OK %lu, CORRUPT %lu, TRUNCATED %lu, other %lu), each variant as the CPU "
           "decoder\n",
           dmg.size(), seen[0], seen[1], seen[2], seen[3]);
}

int main(int argc, char **argv)
{
    std::vector<std::string> files;
    for (int i = 1; i < argc; i++) {
        std::string s = argv[i];
        if (s == "--chunk" && i + 1 < argc)
            g.chunk = strtoull(argv[++i], nullptr, 0);
        else if (s == "--level" && i + 1 < argc)
            g.level = atoi(argv[++i]);
        else if (s == "--reps" && i + 1 < argc)
            g.reps = atoi(argv[++i]);
        else if (s == "--min-bytes" && i + 1 < argc)
            g.min_bytes = strtoull(argv[++i], nullptr, 0);
        else if (s == "--per-file")
            g.per_file = 1;
        else if (s == "--damage")
            g.damage = 1;
        else if (s == "--variant" && i + 1 < argc) {
            std::string v = std::string(",") + argv[++i] + ",";
            g.variants.clear();
            for (int k = 0; k < (int)(sizeof k_variants / sizeof k_variants[0]); k++)
                if (v.find(std::string(",") + k_variants[k].name + ",") != std::string::npos)
                    g.variants.push_back(k);
        } else if (s[0] == '-') {
            fprintf(stderr, "usage: gdeflate_dev [--variant v2,v3,v4,v4-r72,v4-r64] [--level L] [--chunk "
                            "N] [--reps N] "
                            "[--min-bytes B] [--per-file] [--damage] FILE...\n");
            return 2;
        } else
            files.push_back(s);
    }
    if (files.empty() || g.variants.empty() || g.chunk == 0 || g.chunk > GD_MAX_PAGE) {
        fprintf(stderr, "gdeflate_dev: files, a variant and a chunk of 1..65536 bytes needed\n");
        return 2;
    }
    std::vector<bytes> data(files.size());
    std::vector<Page> all;
    size_t raw = 0;
    for (size_t f = 0; f < files.size(); f++) {
        data[f] = read_file(files[f]);
        std::vector<Page> p = encode_pages(data[f]);
        if (g.per_file)
            run_set(files[f].substr(files[f].find_last_of('/') + 1).c_str(), p, data[f].size());
        all.insert(all.end(), p.begin(), p.end());
        raw += data[f].size();
    }
    if (g.damage)
        run_damage(all);
    run_set("all", all, raw);
    printf("checks %ld, failed %d\n", g_checks, g_fail);
    return g_fail ? 1 : 0;
}
