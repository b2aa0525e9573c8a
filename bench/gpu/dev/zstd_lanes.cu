/*
 * zstd_lanes.cu - the lane-parallel GPU Zstandard decoder for batches of
 * small chunks ("v6", core: zstd_dec_lanes.h; design and prediction:
 * bench/gpu/zstd/NOTES.md "Run 6"), its launcher, and a harness that checks
 * it and times it against the library's per-chunk kernel in one process
 * (the A/B: same data, same device, same run).
 *
 * The kernel: W warps, each takes the next group of G chunks from a counter
 * (atomicAdd on the first 256 bytes of its scratch) and runs zl_group.  A
 * warp owns zd_tables in shared memory (the Huffman table, the per-chunk
 * core's state for the chunks the path leaves), its sequence rows sq
 * (ZL_SQ_WORDS(G) words of dynamic shared memory) and, in the scratch, one
 * literal slot (as the library sizes one: min(max capacity, 128 KiB); for
 * the chunks the path leaves, since v6c decodes the others' literals into
 * their own outputs) and G FSE table slots of 5 KiB.
 *
 * Harness: zstd_lanes [--groups 1..4 (zstd_lanes_dep: 1..8)] [--levels 1,3] [--min-bytes B] [--scratch-cap B]
 *                     [--reps N] [--damage] [--small] [--all-checksums] FILE...
 * Each FILE is cut into 64 KiB chunks (the first 16 MiB), compressed by
 * libzstd at each level, replicated in distinct device buffers to at least
 * --min-bytes (default 1 GiB); every output of every variant is compared
 * with the input before timing; then the library's per-chunk kernel
 * ("library"), the library's automatic choice ("library-auto": the lane
 * kernel for batches that fill the GPU) and v6 at each G are timed (CUDA
 * events, median of --reps, default 5; GB/s of output).
 * --damage: damaged chunks (flips, truncations, random bytes, capacity one
 * short, bad checksums) among intact ones: v6 must give the library
 * kernel's status and size for every chunk, and its bytes up to that size;
 * so must the library with its lane kernel forced (the "library-lanes"
 * lines, oc_cuda_zstd_decompress_with(OC_ZSTD_DEC_LANES)).
 * --small: 2 MiB per file and per batch (for compute-sanitizer).
 * --all-checksums: every timed chunk carries a content checksum (numcodecs' and
 * zarr's zstd, the full-scale rows' stock frames); else every other one.
 * --scratch-cap B: v6 gets at most B bytes of scratch (fewer warps), as the
 * library's engine caps the zstd decoder's scratch (256 MiB today).
 * Built with -DZL_PROFILE (zstd_lanes_prof), it also prints the share of
 * v6's warp cycles in each step (prepare, lane decode, execute, finish).
 * Built with -DZL_DEPGROUPS (zstd_lanes_dep), its v6 rows run the frozen
 * variant of zstd_dec_lanes_dep.cuh instead of the library's zl_group.
 * Built with -DZL_QUARTERS (zstd_lanes_q), its v6 rows run zl_group_q
 * (zstd_dec_lanes_q.cuh: a round's batches executed by lane quarters at
 * once, NOTES.md "Run 12"); with -DZL_OLDXXH (zstd_lanes_o), zl_group_o
 * (zstd_dec_lanes_o.cuh: the finish as it was before session 12, each
 * chunk's checksum in turn with byte loads: the A/B baseline of the
 * library's).
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

#include <zstd.h>

#include "cuda/codecs/zstd/zstd_dec_lanes.h"
#include "cuda/codecs/zstd/zstd_gpu.h"
#ifdef ZL_DEPGROUPS
/* target zstd_lanes_dep: the v6 rows run the frozen ZL_DEPGROUPS variant
 * (groups up to 8, tables in global memory) */
#include "zstd_dec_lanes_dep.cuh"
#define ZL_WARP_WORDS(g) ZL_SQ_WORDS(g)
#define ZL_MAX_G 8u
#else
/* the library's zl_group: groups up to ZL_G, its rows then chunk 3's tables */
#define ZL_WARP_WORDS(g) ZL_DYN_WORDS
#define ZL_MAX_G ZL_G
#ifdef ZL_QUARTERS
/* target zstd_lanes_q: the v6 rows run zl_group_q (a round's batches by lane quarters at once) */
#include "zstd_dec_lanes_q.cuh"
#endif
#ifdef ZL_OLDXXH
/* target zstd_lanes_o: the v6 rows run zl_group_o (the finish before session 12: each chunk's checksum
 * in turn, byte loads), the A/B baseline of the library's */
#include "zstd_dec_lanes_o.cuh"
#endif
#endif

#define ZLK_WARPS 4 /* warps per block */
#define ZLK_COUNTER 256

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

/* ---- the kernel and its launcher ------------------------------------------ */

extern __shared__ uint32_t zl_sq_dyn[];

__global__ void __launch_bounds__(ZLK_WARPS * 32, 4)
    zl_dev_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                  const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, uint8_t *scratch,
                  size_t litcap, uint32_t g, size_t nwarps)
{
    __shared__ zd_tables tables[ZLK_WARPS];
    size_t wib = threadIdx.x >> 5;
    size_t warp = (size_t)blockIdx.x * ZLK_WARPS + wib;
    if (warp >= nwarps)
        return;
    zd_tables *T = &tables[wib];
    uint32_t *sq = zl_sq_dyn + wib * ZL_WARP_WORDS(g);
    size_t per_warp = litcap + (size_t)g * ZL_TAB_ENTRIES * sizeof(zd_fse_entry);
    uint8_t *lits = scratch + ZLK_COUNTER + warp * per_warp; /* one literal slot, g table slots */
    zd_fse_entry *tabs = (zd_fse_entry *)(lits + litcap);
    unsigned long long *next = (unsigned long long *)scratch;
#ifdef ZL_DEPGROUPS
    zld_lane L[1];
#else
    zl_lane L[1];
    uint32_t LG[1];
#endif
    for (;;) {
        unsigned long long grp = 0;
        if ((threadIdx.x & 31) == 0)
            grp = atomicAdd(next, 1ull);
        grp = __shfl_sync(0xFFFFFFFFu, grp, 0);
        size_t first = (size_t)grp * g;
        if (first >= n)
            break;
        uint32_t m = n - first < g ? (uint32_t)(n - first) : g;
#ifdef ZL_DEPGROUPS
        zl_group_dep(T, L, sq, first, m, src_ptrs, src_sizes, dst_ptrs, dst_caps, dst_sizes, statuses, lits,
                     litcap, tabs);
#elif defined(ZL_OLDXXH)
        zl_group_o(T, L, LG, sq, (uint16_t *)(void *)(sq + ZL_SQ_WORDS(ZL_G)), first, m, src_ptrs, src_sizes,
                   dst_ptrs, dst_caps, dst_sizes, statuses, lits, litcap, tabs);
#elif defined(ZL_QUARTERS)
        zl_group_q(T, L, LG, sq, (uint16_t *)(void *)(sq + ZL_SQ_WORDS(ZL_G)), first, m, src_ptrs, src_sizes,
                   dst_ptrs, dst_caps, dst_sizes, statuses, lits, litcap, tabs);
#else
        zl_group(T, L, LG, sq, (uint16_t *)(void *)(sq + ZL_SQ_WORDS(ZL_G)), first, m, src_ptrs, src_sizes,
                 dst_ptrs, dst_caps, dst_sizes, statuses, lits, litcap, tabs);
#endif
    }
}

static size_t zl_litcap(size_t max_cap)
{
    size_t s = max_cap < ZD_BLOCK_MAX ? max_cap : ZD_BLOCK_MAX; /* the library's slot (zd_slot_bytes) */
    if (s == 0)
        s = 1;
    return (s + 255) & ~(size_t)255;
}

struct ZlPlan {
    size_t warps, scratch;
    unsigned blocks, smem;
};

static int g_all_sums =
    0; /* --all-checksums: every timed chunk with a content checksum (else every other one) */
static size_t g_scratch_cap = 0; /* --scratch-cap: v6's scratch at most this (0: no limit) */

static ZlPlan zl_plan(size_t n, size_t max_cap, uint32_t g)
{
    ZlPlan p;
    p.smem = ZLK_WARPS * ZL_WARP_WORDS(g) * 4;
    CUDA_OK(cudaFuncSetAttribute(zl_dev_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)p.smem));
    int dev = 0, sms = 0, per_sm = 0;
    CUDA_OK(cudaGetDevice(&dev));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, zl_dev_kernel, ZLK_WARPS * 32, p.smem));
    static int said = 0;
    if (!said++)
        fprintf(stderr, "plan G=%u: %d blocks of %d warps an SM, %u B dynamic shared memory a block\n", g,
                per_sm, ZLK_WARPS, p.smem);
    size_t groups = (n + g - 1) / g;
    size_t resident = (size_t)sms * (size_t)std::max(per_sm, 1) * ZLK_WARPS;
    p.warps = std::min(groups, resident);
    size_t per_warp = zl_litcap(max_cap) + g * ZL_TAB_ENTRIES * sizeof(zd_fse_entry);
    if (g_scratch_cap > ZLK_COUNTER + per_warp)
        p.warps = std::min(p.warps, (g_scratch_cap - ZLK_COUNTER) / per_warp);
    p.blocks = (unsigned)((p.warps + ZLK_WARPS - 1) / ZLK_WARPS);
    p.scratch = ZLK_COUNTER + p.warps * per_warp;
    return p;
}

static void zl_launch(const ZlPlan &p, void *scratch, size_t n, size_t max_cap, uint32_t g,
                      const void *const *src, const size_t *ssz, void *const *dst, const size_t *caps,
                      size_t *dsz, oc_status *st, cudaStream_t s)
{
    CUDA_OK(cudaMemsetAsync(scratch, 0, sizeof(unsigned long long), s));
    zl_dev_kernel<<<p.blocks, ZLK_WARPS * 32, p.smem, s>>>(
        n, src, ssz, dst, caps, dsz, st, (uint8_t *)scratch, zl_litcap(max_cap), g, p.warps);
    CUDA_OK(cudaGetLastError());
}

/* ---- harness ---------------------------------------------------------------- */

typedef std::vector<uint8_t> bytes;
static int g_fail = 0;
#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            if (g_fail++ < 30) {                                                                             \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                         \
                fprintf(stderr, __VA_ARGS__);                                                                \
                fprintf(stderr, "\n");                                                                       \
            }                                                                                                \
        }                                                                                                    \
    } while (0)

static const size_t CH = 64u << 10;

static bytes read_file(const char *path, size_t max)
{
    bytes b(max);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    b.resize(fread(b.data(), 1, max, f));
    fclose(f);
    return b;
}

static bytes zcompress(const uint8_t *p, size_t n, int level, int checksum)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
    bytes out(ZSTD_compressBound(n));
    size_t r = ZSTD_compress2(c, out.data(), out.size(), p, n);
    ZSTD_freeCCtx(c);
    if (ZSTD_isError(r))
        exit(2);
    out.resize(r);
    return out;
}

/* A batch on the device: the chunks in distinct memory, `copies` times. */
struct Dev {
    size_t n = 0, max_cap = 0, out_bytes = 0;
    uint8_t *comp = nullptr, *out = nullptr;
    void **src = nullptr, **dst = nullptr;
    size_t *ssz = nullptr, *caps = nullptr, *dsz = nullptr;
    oc_status *st = nullptr;
    std::vector<size_t> off;
};

static Dev upload(const std::vector<bytes> &chunks, const std::vector<size_t> &caps, size_t copies)
{
    Dev d;
    size_t m = chunks.size();
    d.n = m * copies;
    std::vector<size_t> coff(d.n), ssz(d.n), cap(d.n);
    d.off.resize(d.n);
    size_t ct = 0, ot = 0;
    for (size_t i = 0; i < d.n; i++) {
        coff[i] = ct;
        ssz[i] = chunks[i % m].size();
        ct += (ssz[i] + 15) & ~(size_t)15;
        cap[i] = caps[i % m];
        d.off[i] = ot;
        ot += (cap[i] + 15) & ~(size_t)15;
        d.max_cap = std::max(d.max_cap, cap[i]);
    }
    d.out_bytes = ot;
    CUDA_OK(cudaMalloc(&d.comp, ct + 16));
    CUDA_OK(cudaMalloc(&d.out, ot + 16));
    bytes hc(ct + 16);
    for (size_t i = 0; i < d.n; i++)
        if (ssz[i])
            memcpy(hc.data() + coff[i], chunks[i % m].data(), ssz[i]);
    CUDA_OK(cudaMemcpy(d.comp, hc.data(), ct, cudaMemcpyHostToDevice));
    std::vector<void *> sp(d.n), dp(d.n);
    for (size_t i = 0; i < d.n; i++) {
        sp[i] = d.comp + coff[i];
        dp[i] = d.out + d.off[i];
    }
    CUDA_OK(cudaMalloc(&d.src, d.n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d.dst, d.n * sizeof(void *)));
    CUDA_OK(cudaMalloc(&d.ssz, d.n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d.caps, d.n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d.dsz, d.n * sizeof(size_t)));
    CUDA_OK(cudaMalloc(&d.st, d.n * sizeof(oc_status)));
    CUDA_OK(cudaMemcpy(d.src, sp.data(), d.n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.dst, dp.data(), d.n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.ssz, ssz.data(), d.n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d.caps, cap.data(), d.n * sizeof(size_t), cudaMemcpyHostToDevice));
    return d;
}

static void dev_free(Dev &d)
{
    cudaFree(d.comp);
    cudaFree(d.out);
    cudaFree(d.src);
    cudaFree(d.dst);
    cudaFree(d.ssz);
    cudaFree(d.caps);
    cudaFree(d.dsz);
    cudaFree(d.st);
    d = Dev();
}

/* Decoder 0: the library's per-chunk kernel; ZL_AUTO: the library as it
 * chooses (lane-parallel kernel for batches it fills); else this file's v6
 * kernel with groups of g. */
#define ZL_AUTO 0xFFFFFFFFu
static int g_auto_mode = OC_ZSTD_DEC_AUTO; /* the library's kernel for ZL_AUTO (--damage: LANES, forced) */
struct Runner {
    uint32_t g = 0;
    void *scratch = nullptr;
    size_t scratch_size = 0;
    ZlPlan plan{};
};

static Runner runner(const Dev &d, uint32_t g)
{
    Runner r;
    r.g = g;
    if (g == 0 || g == ZL_AUTO) {
        r.scratch_size = oc_cuda_zstd_decompress_scratch_size(d.n, d.max_cap);
    } else {
        r.plan = zl_plan(d.n, d.max_cap, g);
        r.scratch_size = r.plan.scratch;
    }
    CUDA_OK(cudaMalloc(&r.scratch, r.scratch_size));
    return r;
}

static void run(Runner &r, Dev &d, cudaStream_t s)
{
    if (r.g == 0 || r.g == ZL_AUTO) {
        oc_gpu_config cfg{};
        cfg.algorithm = OC_ALGO_ZSTD;
        cfg.max_capacity = d.max_cap;
        oc_status st = oc_cuda_zstd_decompress_with(
            r.scratch, r.scratch_size, &cfg, r.g == 0 ? OC_ZSTD_DEC_PER_CHUNK : g_auto_mode, d.n,
            (const void *const *)d.src, d.ssz, (void *const *)d.dst, d.caps, d.dsz, d.st, s);
        if (st != OC_OK) {
            fprintf(stderr, "library launch failed: %d\n", (int)st);
            exit(2);
        }
    } else {
        zl_launch(r.plan, r.scratch, d.n, d.max_cap, r.g, (const void *const *)d.src, d.ssz,
                  (void *const *)d.dst, d.caps, d.dsz, d.st, s);
    }
}

/* One run from a poisoned state; results to the host. */
static void results(Runner &r, Dev &d, std::vector<oc_status> &st, std::vector<size_t> &sz, bytes &out)
{
    CUDA_OK(cudaMemset(d.out, 0xA5, d.out_bytes));
    CUDA_OK(cudaMemset(d.st, 0xFF, d.n * sizeof(oc_status)));
    CUDA_OK(cudaMemset(d.dsz, 0xFF, d.n * sizeof(size_t)));
    run(r, d, 0);
    CUDA_OK(cudaDeviceSynchronize());
    st.resize(d.n);
    sz.resize(d.n);
    out.resize(d.out_bytes);
    CUDA_OK(cudaMemcpy(st.data(), d.st, d.n * sizeof(oc_status), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(sz.data(), d.dsz, d.n * sizeof(size_t), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(out.data(), d.out, d.out_bytes, cudaMemcpyDeviceToHost));
}

static double time_ms(Runner &r, Dev &d, int reps)
{
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    std::vector<double> ms;
    run(r, d, 0); /* warm-up */
    for (int i = 0; i < reps; i++) {
        CUDA_OK(cudaEventRecord(a));
        run(r, d, 0);
        CUDA_OK(cudaEventRecord(b));
        CUDA_OK(cudaEventSynchronize(b));
        float t = 0;
        CUDA_OK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

static uint32_t g_rng = 0x2545F491u;
static uint32_t rnd()
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

static std::vector<uint32_t> parse_list(const char *s)
{
    std::vector<uint32_t> v;
    for (const char *p = s; *p;) {
        v.push_back((uint32_t)strtol(p, (char **)&p, 10));
        if (*p == ',')
            p++;
    }
    return v;
}

int main(int argc, char **argv)
{
    std::vector<uint32_t> groups = {ZL_MAX_G};
    std::vector<int> levels = {1, 3};
    size_t min_bytes = (size_t)1 << 30, per_file = 16u << 20;
    int reps = 5, do_damage = 0;
    std::vector<const char *> files;
    for (int a = 1; a < argc; a++) {
        std::string s = argv[a];
        if (s == "--groups" && a + 1 < argc)
            groups = parse_list(argv[++a]);
        else if (s == "--levels" && a + 1 < argc) {
            levels.clear();
            for (const char *p = argv[++a]; *p;) {
                levels.push_back((int)strtol(p, (char **)&p, 10));
                if (*p == ',')
                    p++;
            }
        } else if (s == "--min-bytes" && a + 1 < argc)
            min_bytes = strtoull(argv[++a], nullptr, 0);
        else if (s == "--reps" && a + 1 < argc)
            reps = atoi(argv[++a]);
        else if (s == "--scratch-cap" && a + 1 < argc)
            g_scratch_cap = strtoull(argv[++a], nullptr, 0);
        else if (s == "--damage")
            do_damage = 1;
        else if (s == "--all-checksums")
            g_all_sums = 1;
        else if (s == "--small")
            min_bytes = per_file = 2u << 20;
        else
            files.push_back(argv[a]);
    }
    for (uint32_t g : groups)
        if (g == 0 || g > ZL_MAX_G) {
            fprintf(stderr, "groups of 1 to %u chunks\n", ZL_MAX_G);
            return 2;
        }
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    printf("device %s, %d SMs; v6 groups:", prop.name, prop.multiProcessorCount);
    for (uint32_t g : groups)
        printf(" %u", g);
    printf("; v6 scratch cap %zu\n", g_scratch_cap);
    unsigned nthreads = std::max(1u, std::thread::hardware_concurrency());
    for (const char *path : files) {
        bytes data = read_file(path, per_file);
        size_t m = data.size() / CH;
        if (m == 0)
            continue;
        for (int level : levels) {
            std::vector<bytes> chunks(m);
            std::vector<std::thread> th;
            for (unsigned t = 0; t < nthreads; t++)
                th.emplace_back([&, t] {
                    for (size_t i = t; i < m; i += nthreads)
                        chunks[i] = zcompress(data.data() + i * CH, CH, level, g_all_sums ? 1 : (int)(i & 1));
                });
            for (auto &x : th)
                x.join();
            size_t comp = 0;
            for (auto &c : chunks)
                comp += c.size();
            std::vector<size_t> caps(m, CH);
            size_t copies = std::max<size_t>(1, (min_bytes + m * CH - 1) / (m * CH));
            Dev d = upload(chunks, caps, copies);
            std::vector<oc_status> st;
            std::vector<size_t> sz;
            bytes out;
            std::vector<uint32_t> dec = {0, ZL_AUTO};
            dec.insert(dec.end(), groups.begin(), groups.end());
            std::vector<double> gbs;
            for (uint32_t g : dec) {
                Runner r = runner(d, g);
                results(r, d, st, sz, out);
                size_t bad = 0;
                for (size_t i = 0; i < d.n; i++)
                    bad += st[i] != OC_OK || sz[i] != CH ||
                           memcmp(out.data() + d.off[i], data.data() + (i % m) * CH, CH);
                CHECK(bad == 0, "%s level %d decoder %u: %zu of %zu chunks wrong", path, level, g, bad, d.n);
                double ms = reps > 0 ? time_ms(r, d, reps) : 0;
                gbs.push_back(ms > 0 ? (double)d.n * CH / ms / 1e6 : 0);
                cudaFree(r.scratch);
            }
            const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
#ifdef ZL_PROFILE
            {
                unsigned long long pr[4];
                static const unsigned long long zero[4] = {0, 0, 0, 0};
                CUDA_OK(cudaMemcpyFromSymbol(pr, zl_prof, sizeof pr));
                CUDA_OK(cudaMemcpyToSymbol(zl_prof, zero, sizeof zero));
                double tot = (double)(pr[0] + pr[1] + pr[2] + pr[3]);
                printf(
                    "%-28s L%-3d v6 warp cycles (all G): prepare %.1f%%, lane decode %.1f%%, execute %.1f%%, "
                    "finish %.1f%%\n",
                    base, level, 100 * pr[0] / tot, 100 * pr[1] / tot, 100 * pr[2] / tot, 100 * pr[3] / tot);
            }
#endif
            printf("%-28s L%-3d ratio %5.2f  %zu chunks (%.2f GiB)  library %7.2f GB/s", base, level,
                   (double)(m * CH) / comp, d.n, (double)d.n * CH / (1 << 30), gbs[0]);
            for (size_t k = 1; k < gbs.size(); k++) {
                if (dec[k] == ZL_AUTO)
                    printf("  library-auto %7.2f (%.2fx)", gbs[k], gbs[0] > 0 ? gbs[k] / gbs[0] : 0);
                else
                    printf("  v6 G=%u %7.2f (%.2fx)", dec[k], gbs[k], gbs[0] > 0 ? gbs[k] / gbs[0] : 0);
            }
            printf("\n");
            fflush(stdout);
            dev_free(d);
        }
        if (do_damage) {
            /* 3 rounds of 96 chunks, 2 of 3 damaged, checksums on odd chunks */
            size_t mm = std::min<size_t>(m, 96);
            for (int round = 0; round < 3; round++) {
                std::vector<bytes> chunks(mm);
                std::vector<size_t> caps(mm, CH);
                for (size_t i = 0; i < mm; i++) {
                    chunks[i] = zcompress(data.data() + i * CH, CH, 3, (int)(i & 1));
                    bytes &z = chunks[i];
                    if (i % 3 == 2)
                        continue;
                    switch ((i + round) % 6) {
                    case 0:
                        z[rnd() % z.size()] ^= (uint8_t)(1u << (rnd() % 8));
                        break;
                    case 1:
                        for (int k = 0; k < 4; k++)
                            z[z.size() - 1 - rnd() % std::min<size_t>(z.size(), 64)] ^=
                                (uint8_t)(1u << (rnd() % 8));
                        break;
                    case 2:
                        z.resize(rnd() % z.size());
                        break;
                    case 3:
                        caps[i] = CH - 1;
                        break;
                    case 4:
                        for (size_t k = 12 + rnd() % 64; k < z.size() && k < 200; k++)
                            z[k] = (uint8_t)rnd();
                        break;
                    default:
                        z.back() ^= 0x10;
                        break;
                    }
                }
                Dev d = upload(chunks, caps, 1);
                std::vector<oc_status> st0, st1;
                std::vector<size_t> sz0, sz1;
                bytes o0, o1;
                Runner r0 = runner(d, 0);
                results(r0, d, st0, sz0, o0);
                cudaFree(r0.scratch);
                std::vector<uint32_t> dg = groups;
                dg.push_back(ZL_AUTO); /* the library with the lane kernel forced below */
                for (uint32_t g : dg) {
                    Runner r1 = runner(d, g);
                    g_auto_mode = OC_ZSTD_DEC_LANES;
                    results(r1, d, st1, sz1, o1);
                    g_auto_mode = OC_ZSTD_DEC_AUTO;
                    cudaFree(r1.scratch);
                    size_t diff = 0, rejected = 0;
                    for (size_t i = 0; i < d.n; i++) {
                        rejected += st0[i] != OC_OK;
                        bool same = st0[i] == st1[i] && sz0[i] == sz1[i] && sz0[i] <= caps[i] &&
                                    memcmp(o0.data() + d.off[i], o1.data() + d.off[i], sz0[i]) == 0;
                        diff += !same;
                        CHECK(same, "damage round %d G=%u chunk %zu: library %d/%zu, v6 %d/%zu", round, g, i,
                              (int)st0[i], sz0[i], (int)st1[i], sz1[i]);
                    }
                    if (g == ZL_AUTO)
                        printf("damage %s round %d library-lanes (forced): %zu chunks, %zu rejected, %zu "
                               "differ\n",
                               path, round, d.n, rejected, diff);
                    else
                        printf("damage %s round %d G=%u: %zu chunks, %zu rejected, %zu differ\n", path, round,
                               g, d.n, rejected, diff);
                }
                dev_free(d);
            }
        }
    }
    printf("%s\n", g_fail ? "FAILED" : "all checks passed");
    return g_fail ? 1 : 0;
}
