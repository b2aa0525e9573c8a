/*
 * cz_v4_cpu_check.cpp - why this exists: the Cascaded decoder's CUDA source
 * gets a GPU only a few times a session; this runs it on the CPU, the
 * library's v4 (czg_decode_rdr: nVCOMP's layers in one pass) beside v3's
 * layer-by-layer czg_decode_tile (both in cascaded_tile_decode.cuh), so
 * that a wrong byte or status shows up here and not in a GPU call.
 *
 * How: the .cuh files compile as C++ with __CUDACC__/__CUDA_ARCH__ defined
 * and the CUDA built-ins they use written below; a CTA's 256 threads are
 * 256 fibers (ucontext) run in rounds, each to its next synchronisation
 * point (__syncthreads, a shuffle, a vote, a reduction), so every warp
 * primitive sees all 32 lanes' values; a thread at __syncthreads waits
 * there until every live thread does (so warps may meet different numbers
 * of warp primitives between barriers, as cz_v7.cuh's two halves do; a
 * check stops the run when threads return while others wait at a
 * barrier).  Every round orders the CTA more strongly than the GPU does:
 * races are racecheck's job on the GPU, not this check's.
 *
 * What: the CPU codec (libopencomp, the public API) compresses 64 KiB
 * chunks of each corpus column with nVCOMP's layers (2 RLEs, 1 delta) and
 * with others; every tile of the first chunks is staged at offsets 0..15
 * and decoded by v3 and by v4: both must give the input's bytes; then
 * every tile with one byte changed (sampled): v4 must give v3's status
 * and, when OK, its bytes.  Pairs of full 8-byte tiles go through
 * cz_v7.cuh's pair path (session 12) staged back to back: the input's
 * bytes; damaged, when it takes them, v4's statuses (OK) and bytes.  Exit
 * status 0 only if every check passed.
 *
 *   cz_v4_cpu_check CORPUS_DIR [TILES_PER_COLUMN]
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ucontext.h>
#include <vector>

/* the public header's INIT macros leave fields to zero (C style); the CUDA
 * built-ins below are a set, not all used (nvcc's #pragma unroll: the
 * Makefile's -Wno-unknown-pragmas) */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "opencomp.h"

/* ---- the CUDA built-ins the decoders use, on fibers ----------------------- */

#define __CUDACC__ 1
#define __CUDA_ARCH__ 900
#define __device__
#define __host__
#define __global__
#define __shared__                                                                                           \
    thread_local /* one OS thread runs the CTA's fibers: shared by them, static in a function */
#define __constant__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

struct emu_dim3 {
    unsigned x, y, z;
};
static emu_dim3 g_thr, g_blk, g_grid;
#define threadIdx g_thr
#define blockIdx g_blk
#define gridDim g_grid

struct __attribute__((aligned(16))) uint4 {
    unsigned x, y, z, w;
};
static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d)
{
    return uint4{a, b, c, d};
}

#define EMU_THREADS 256u
static ucontext_t g_main, g_fib[EMU_THREADS];
static int g_done[EMU_THREADS], g_synced[EMU_THREADS];
static uint64_t g_slot[EMU_THREADS];

/* A synchronisation point: back to the scheduler until every thread got here. */
static void emu_sync()
{
    unsigned t = g_thr.x;
    g_synced[t] = 1;
    swapcontext(&g_fib[t], &g_main);
}

/* A barrier: the scheduler resumes a thread waiting here only when every
 * live thread waits here (warps may meet different numbers of warp
 * primitives between two barriers: cz_v7.cuh's halves decode different
 * tiles). */
static int g_bar[EMU_THREADS];
static void __syncthreads()
{
    g_bar[g_thr.x] = 1;
    emu_sync();
}
static void __syncwarp()
{
    emu_sync();
}

template <typename T> static uint64_t emu_bits(T v)
{
    uint64_t b = 0;
    memcpy(&b, &v, sizeof v);
    return b;
}
template <typename T> static T emu_val(uint64_t b)
{
    T v;
    memcpy(&v, &b, sizeof v);
    return v;
}

template <typename T> static T __shfl_up_sync(unsigned, T v, int d)
{
    unsigned t = g_thr.x, lane = t & 31u;
    g_slot[t] = emu_bits(v);
    emu_sync();
    T r = (int)lane >= d ? emu_val<T>(g_slot[t - (unsigned)d]) : v;
    emu_sync();
    return r;
}

template <typename T> static T __shfl_sync(unsigned, T v, int src)
{
    unsigned t = g_thr.x;
    g_slot[t] = emu_bits(v);
    emu_sync();
    T r = emu_val<T>(g_slot[(t & ~31u) + ((unsigned)src & 31u)]);
    emu_sync();
    return r;
}

/* op over the warp's 32 values (0 add, 1 or, 2 and, 3 max, 4 min, 5 ballot) */
static uint64_t emu_warp(uint64_t v, int op)
{
    unsigned t = g_thr.x, w0 = t & ~31u;
    g_slot[t] = v;
    emu_sync();
    uint64_t r = op == 2 ? ~0ull : op == 4 ? ~0ull : 0;
    for (unsigned l = 0; l < 32; l++) {
        uint64_t x = g_slot[w0 + l];
        switch (op) {
        case 0:
            r += x;
            break;
        case 1:
            r |= x;
            break;
        case 2:
            r &= x;
            break;
        case 3:
            r = std::max(r, x);
            break;
        case 4:
            r = std::min(r, x);
            break;
        default:
            r |= (uint64_t)(x != 0) << l;
            break;
        }
    }
    emu_sync();
    return r;
}
static int __all_sync(unsigned, int p)
{
    return emu_warp(p != 0, 2) != 0;
}
static int __any_sync(unsigned, int p)
{
    return emu_warp(p != 0, 1) != 0;
}
static unsigned __ballot_sync(unsigned, int p)
{
    return (unsigned)emu_warp(p != 0, 5);
}
static unsigned __reduce_add_sync(unsigned, unsigned v)
{
    return (unsigned)emu_warp(v, 0);
}
static unsigned __reduce_or_sync(unsigned, unsigned v)
{
    return (unsigned)emu_warp(v, 1);
}
static unsigned __reduce_and_sync(unsigned, unsigned v)
{
    return (unsigned)emu_warp(v, 2);
}
static unsigned __reduce_max_sync(unsigned, unsigned v)
{
    return (unsigned)emu_warp(v, 3);
}
static unsigned __reduce_min_sync(unsigned, unsigned v)
{
    return (unsigned)emu_warp(v, 4);
}
static int __reduce_max_sync(unsigned, int v)
{
    return (int)((int64_t)emu_warp((uint64_t)(int64_t)v + (1ull << 40), 3) - (1ll << 40));
}
static int __reduce_min_sync(unsigned, int v)
{
    return (int)((int64_t)emu_warp((uint64_t)(int64_t)v + (1ull << 40), 4) - (1ll << 40));
}
static unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned sh)
{
    return (unsigned)((((uint64_t)hi << 32) | lo) >> (sh & 31u));
}
static unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned sh)
{
    return (unsigned)(((((uint64_t)hi << 32) | lo) << (sh & 31u)) >> 32);
}
static int __popc(unsigned v)
{
    return __builtin_popcount(v);
}
static int __popcll(unsigned long long v)
{
    return __builtin_popcountll(v);
}
static int __ffs(int v)
{
    return __builtin_ffs(v);
}
static int __clz(int v)
{
    return v ? __builtin_clz((unsigned)v) : 32;
}
static int __clzll(long long v)
{
    return v ? __builtin_clzll((unsigned long long)v) : 64;
}
static unsigned __brev(unsigned v)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++)
        r |= ((v >> i) & 1u) << (31 - i);
    return r;
}
template <typename T> static T __ldg(const T *p)
{
    return *p;
}
static unsigned long long atomicMin(unsigned long long *p, unsigned long long v)
{
    unsigned long long o = *p;
    *p = std::min(o, v);
    return o;
}
template <typename T> static T atomicOr(T *p, T v)
{
    T o = *p;
    *p = o | v;
    return o;
}
template <typename T> static T atomicAdd(T *p, T v)
{
    T o = *p;
    *p = o + v;
    return o;
}
static size_t __cvta_generic_to_shared(const void *p)
{
    return (size_t)p;
}

/* the tile loops' helpers (own_tiles.cuh), never run here */
typedef struct own_batch_scratch {
    uint32_t *tiles;
    unsigned long long *first;
    unsigned long long *keys;
    unsigned long long *bsum;
} own_batch_scratch;
static inline unsigned long long own_key(unsigned long long tile_plus_one, oc_status st)
{
    return (tile_plus_one << 8) | (unsigned long long)(unsigned)st;
}
static inline size_t oc_chunk_of_warp(const unsigned long long *, size_t, unsigned long long)
{
    return 0;
}
#define CZ3_HOST_CHECK 1

#include "cuda/codecs/cascaded/cascaded_tile_decode.cuh"
#include "cz_v3.cuh"
#define CZ_THREADS CZG_THREADS
#include "cz_v7.cuh"

__attribute__((aligned(16))) thread_local unsigned char czg_smem[sizeof(czg_ws) + 64];

/* ---- running a tile decoder on a CTA of fibers ----------------------------- */

struct job {
    int v4; /* 0: v3 (czg_decode_tile), 1: the library's v4 (czg_decode_rdr), 2: v4's DIRECT instance,
               3: cz_v7.cuh's pair (tiles of n and n2 bytes, into dst and dst2; st: 1 decoded, 0 not) */
    uint32_t w, o, n, cnt, n2;
    const uint8_t *src;
    uint8_t *dst, *dst2;
    oc_status st[EMU_THREADS];
};
static job *g_job;

static void fiber_main(int t)
{
    job &J = *g_job;
    oc_status st;
    if (J.v4 == 3)
        st = (oc_status)cz7_pair(0, J.o, J.n, J.n2, CZ_VERSION, J.dst, J.dst2);
    else if (J.w == 4)
        st = J.v4 == 2 ? czg_decode_rdr<uint32_t, 4, true>(0, J.o, J.src, J.n, J.cnt, CZ_VERSION, J.dst)
             : J.v4    ? czg_decode_rdr<uint32_t, 4>(0, J.o, J.src, J.n, J.cnt, CZ_VERSION, J.dst)
                       : czg_decode_tile<uint32_t, 4>(0, J.o, J.src, J.n, J.cnt, CZ_VERSION, J.dst);
    else
        st = J.v4 == 2 ? czg_decode_rdr<uint64_t, 8, true>(0, J.o, J.src, J.n, J.cnt, CZ_VERSION, J.dst)
             : J.v4    ? czg_decode_rdr<uint64_t, 8>(0, J.o, J.src, J.n, J.cnt, CZ_VERSION, J.dst)
                       : czg_decode_tile<uint64_t, 8>(0, J.o, J.src, J.n, J.cnt, CZ_VERSION, J.dst);
    J.st[t] = st;
    g_done[t] = 1;
}

static std::vector<char> g_stacks;
static long g_divergent;

/* Decodes one staged tile with 256 fibers; returns thread 0's status (all must agree). */
static oc_status run_tile(job &J)
{
    const size_t SS = 256 * 1024;
    if (g_stacks.empty())
        g_stacks.resize(SS * EMU_THREADS);
    g_job = &J;
    for (unsigned t = 0; t < EMU_THREADS; t++) {
        getcontext(&g_fib[t]);
        g_fib[t].uc_stack.ss_sp = &g_stacks[SS * t];
        g_fib[t].uc_stack.ss_size = SS;
        g_fib[t].uc_link = &g_main;
        makecontext(&g_fib[t], (void (*)())fiber_main, 1, (int)t);
        g_done[t] = 0;
        g_bar[t] = 0;
    }
    for (;;) {
        unsigned nd = 0, ns = 0, live = 0, atbar = 0;
        for (unsigned t = 0; t < EMU_THREADS; t++)
            if (!g_done[t]) {
                live++;
                atbar += g_bar[t];
            }
        bool release = atbar == live;
        for (unsigned t = 0; t < EMU_THREADS; t++) {
            if (g_done[t])
                continue;
            if (g_bar[t] && !release) { /* waits at the barrier for the others */
                ns++;
                continue;
            }
            g_bar[t] = 0;
            g_synced[t] = 0;
            g_thr.x = t;
            swapcontext(&g_main, &g_fib[t]);
            if (g_done[t])
                nd++;
            else
                ns++;
        }
        if (ns == 0)
            break;
        unsigned wait_bar = 0, left = 0;
        for (unsigned t = 0; t < EMU_THREADS; t++)
            if (!g_done[t]) {
                left++;
                wait_bar += g_bar[t];
            }
        if (left < EMU_THREADS && wait_bar == left) { /* threads returned while others wait at a barrier */
            g_divergent++;
            fprintf(stderr, "divergent synchronisation: %u threads done, %u waiting\n", nd, ns);
            exit(3);
        }
    }
    for (unsigned t = 1; t < EMU_THREADS; t++)
        if (J.st[t] != J.st[0]) {
            fprintf(stderr, "threads disagree on the status: %d vs %d\n", (int)J.st[t], (int)J.st[0]);
            exit(3);
        }
    return J.st[0];
}

/* Stages a tile at offset o of stage 0 (its bytes; the rest garbage) and decodes it. */
static oc_status decode(int v4, uint32_t w, const uint8_t *tile, uint32_t n, uint32_t cnt, uint32_t o,
                        uint8_t *out)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    memset(czg_smem, 0x5a, sizeof czg_smem);
    if (n < cnt * w)
        memcpy((uint8_t *)ws->stage[0] + o, tile, n);
    job J;
    J.v4 = v4, J.w = w, J.o = o, J.n = n, J.cnt = cnt, J.src = tile, J.dst = out;
    return run_tile(J);
}

/* Stages two tiles back to back at offset o of stage 0 and decodes them by the pair path: 1 when it
 * took them (both decoded), 0 when not. */
static int decode_pair(const uint8_t *a, uint32_t na, const uint8_t *b, uint32_t nb, uint32_t o, uint8_t *out)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    memset(czg_smem, 0x5a, sizeof czg_smem);
    memcpy((uint8_t *)ws->stage[0] + o, a, na);
    memcpy((uint8_t *)ws->stage[0] + o + na, b, nb);
    job J;
    J.v4 = 3, J.w = 8, J.o = o, J.n = na, J.n2 = nb, J.cnt = CZ7_CNT, J.src = a, J.dst = out;
    J.dst2 = out + CZ_TILE_BYTES;
    return (int)run_tile(J);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: cz_v4_cpu_check CORPUS_DIR [TILES_PER_COLUMN]\n");
        return 2;
    }
    const char *dir = argv[1];
    size_t per_col = argc > 2 ? (size_t)atol(argv[2]) : 24;
    struct col {
        const char *file;
        oc_data_type type;
        uint32_t layers;
        size_t len; /* bytes a chunk (short ones end in a short tile) */
    } cols[] = {{"tpch_l_shipdate.i32", OC_TYPE_I32, OC_CASCADED_DEFAULT, 65536},
                {"tpch_l_partkey.i32", OC_TYPE_I32, OC_CASCADED_DEFAULT, 65536},
                {"tpch_l_orderkey.i64", OC_TYPE_I64, OC_CASCADED_DEFAULT, 65536},
                {"sorted_partkey.i64", OC_TYPE_I64, OC_CASCADED_DEFAULT, 65536},
                {"tpch_l_shipdate.i32", OC_TYPE_I32, OC_CASCADED_DEFAULT, 50000},
                {"tpch_l_orderkey.i64", OC_TYPE_I64, OC_CASCADED_DEFAULT, 30000},
                {"tpch_l_shipdate.i32", OC_TYPE_I32, OC_CASCADED_LAYERS(2, 0, 1), 65536},
                {"tpch_l_orderkey.i64", OC_TYPE_I64, OC_CASCADED_LAYERS(2, 1, 0), 65536},
                {"tpch_l_partkey.i32", OC_TYPE_U32, OC_CASCADED_DEFAULT, 65536}};
    oc_context *ctx = NULL;
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    if (oc_context_create(&co, &ctx) != OC_OK)
        return 2;
    long tiles = 0, fused = 0, flips = 0, fails = 0, pairs = 0, pairs_taken = 0, pair_flips = 0;
    unsigned long long rng = 0x243f6a8885a308d3ull;
    auto next = [&]() {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    for (const col &c : cols) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, c.file);
        FILE *f = fopen(path, "rb");
        if (!f) {
            perror(path);
            return 2;
        }
        const size_t CH = 65536, NCH = 8;
        std::vector<uint8_t> in(CH * NCH);
        /* chunks spread over the file's first 8 MiB */
        size_t got = 0;
        for (size_t i = 0; i < NCH; i++) {
            fseek(f, (long)(i * (8u << 20) / NCH), SEEK_SET);
            got += fread(&in[i * CH], 1, CH, f);
        }
        fclose(f);
        if (got != CH * NCH) {
            fprintf(stderr, "%s: short\n", path);
            return 2;
        }
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = OC_ALGO_CASCADED;
        o.typed.data_type = c.type;
        o.typed.cascaded = c.layers;
        size_t cap = oc_compress_bound(OC_ALGO_CASCADED, CH);
        std::vector<uint8_t> comp(cap * NCH);
        const void *sp[NCH];
        void *dp[NCH];
        size_t ssz[NCH], caps[NCH], csz[NCH];
        oc_status cst[NCH];
        for (size_t i = 0; i < NCH; i++)
            sp[i] = &in[i * CH], dp[i] = &comp[i * cap], ssz[i] = c.len, caps[i] = cap;
        if (oc_batch_compress(ctx, &o, NCH, sp, ssz, dp, caps, csz, cst) != OC_OK) {
            fprintf(stderr, "compress failed\n");
            return 2;
        }
        long ctiles = 0, cfused = 0, cflips = 0, cfail = 0;
        for (size_t i = 0; i < NCH && (size_t)ctiles < per_col; i++) {
            const uint8_t *p = &comp[i * cap];
            own_tiled k;
            if (cz_chunk_check(p, csz[i], UINT64_MAX, &k) != OC_OK) {
                fprintf(stderr, "%s chunk %zu: check failed\n", c.file, i);
                return 2;
            }
            uint64_t elems = k.size / k.w;
            /* the pair path (cz_v7.cuh) on full 8-byte tiles t, t + 1: the input's bytes when it takes
             * them (it must take undamaged nVCOMP-layer tiles); damaged: v4's statuses and bytes */
            for (uint32_t t = 0; k.w == 8 && t + 1 < k.ntiles && (size_t)ctiles < per_col; t += 2) {
                uint64_t a0 = 0, b0 = 0, a1 = 0, b1 = 0;
                own_tile_span(p, k.table, k.ntiles, t, k.limit, &a0, &b0);
                own_tile_span(p, k.table, k.ntiles, t + 1, k.limit, &a1, &b1);
                uint32_t na = (uint32_t)(b0 - a0), nb = (uint32_t)(b1 - a1), off = (uint32_t)(next() % 16u);
                if (own_tile_elems(elems, k.per_tile, t + 1) != CZ7_CNT || na >= CZ_TILE_BYTES ||
                    nb >= CZ_TILE_BYTES || off + na + nb > CZG_STAGE_BYTES || a1 != b0)
                    continue;
                const uint8_t *want = &in[i * CH + (uint64_t)t * k.per_tile * k.w];
                std::vector<uint8_t> op(2 * CZ_TILE_BYTES, 0xee);
                int took = decode_pair(p + a0, na, p + a1, nb, off, op.data());
                pairs++;
                pairs_taken += took;
                bool want_take = p[a0] == 6 && p[a1] == 6;
                if ((took && memcmp(op.data(), want, 2 * CZ_TILE_BYTES)) || (want_take && !took)) {
                    size_t e = 0;
                    while (e < 2 * CZ_TILE_BYTES && op[e] == want[e])
                        e++;
                    fprintf(stderr, "%s chunk %zu tiles %u,%u (n %u, %u): pair %s (first byte off %zu)\n",
                            c.file, i, t, t + 1, na, nb, took ? "WRONG" : "not taken", e);
                    cfail++;
                }
                for (int r = 0; r < 6; r++) {
                    std::vector<uint8_t> bad(p + a0, p + b1);
                    size_t at = next() % (na + nb);
                    bad[at] = (uint8_t)(bad[at] + 1 + next() % 255);
                    std::fill(op.begin(), op.end(), 0xee);
                    took = decode_pair(bad.data(), na, bad.data() + na, nb, off, op.data());
                    pair_flips++;
                    if (!took)
                        continue;
                    std::vector<uint8_t> o4(2 * CZ_TILE_BYTES, 0xee);
                    oc_status s0 = decode(1, 8, bad.data(), na, CZ7_CNT, off, o4.data());
                    oc_status s1 = decode(1, 8, bad.data() + na, nb, CZ7_CNT, off, o4.data() + CZ_TILE_BYTES);
                    if (s0 != OC_OK || s1 != OC_OK || o4 != op) {
                        fprintf(stderr, "%s tiles %u,%u byte %zu changed: pair took them, v4 %d %d%s\n",
                                c.file, t, t + 1, at, (int)s0, (int)s1,
                                s0 == OC_OK && s1 == OC_OK ? " (bytes differ)" : "");
                        cfail++;
                    }
                }
            }
            for (uint32_t t = 0; t < k.ntiles && (size_t)ctiles < per_col; t++) {
                uint64_t a = 0, b = 0;
                own_tile_span(p, k.table, k.ntiles, t, k.limit, &a, &b);
                uint32_t cnt = own_tile_elems(elems, k.per_tile, t), n = (uint32_t)(b - a);
                const uint8_t *tile = p + a;
                const uint8_t *want = &in[i * CH + (uint64_t)t * k.per_tile * k.w];
                uint32_t off = (uint32_t)(next() % 16u);
                std::vector<uint8_t> o3(cnt * k.w + 64, 0xee), o4(cnt * k.w + 64, 0xee);
                oc_status s3 = decode(0, k.w, tile, n, cnt, off, o3.data());
                oc_status s4 = decode(1, k.w, tile, n, cnt, off, o4.data());
                std::vector<uint8_t> od(cnt * k.w + 64, 0xee);
                oc_status sd = decode(2, k.w, tile, n, cnt, off, od.data());
                bool ok3 = s3 == OC_OK && !memcmp(o3.data(), want, cnt * k.w);
                bool ok4 = s4 == OC_OK && !memcmp(o4.data(), want, cnt * k.w) &&
                           !memcmp(o4.data() + cnt * k.w, o3.data() + cnt * k.w, 64) && sd == s4 && od == o4;
                if (!ok3 || !ok4) {
                    size_t e = 0;
                    while (e < cnt * k.w && o4[e] == want[e])
                        e++;
                    fprintf(stderr,
                            "%s layers %#x chunk %zu tile %u (n %u, cnt %u, cfg %#x): v3 %d%s, v4 %d%s "
                            "(first byte off %zu)\n",
                            c.file, c.layers, i, t, n, cnt, tile[0], (int)s3, ok3 ? " ok" : " WRONG", (int)s4,
                            ok4 ? " ok" : " WRONG", e);
                    cfail++;
                }
                cfused += n < cnt * k.w && tile[0] == 6 && (k.w == 4 || k.w == 8);
                ctiles++;
                /* damaged copies: v4 gives v3's status and bytes */
                for (int r = 0; r < 3 && n > 0; r++) {
                    std::vector<uint8_t> bad(tile, tile + n);
                    size_t at = next() % n;
                    bad[at] = (uint8_t)(bad[at] + 1 + next() % 255);
                    std::fill(o3.begin(), o3.end(), 0xee);
                    std::fill(o4.begin(), o4.end(), 0xee);
                    s3 = decode(0, k.w, bad.data(), n, cnt, off, o3.data());
                    s4 = decode(1, k.w, bad.data(), n, cnt, off, o4.data());
                    std::fill(od.begin(), od.end(), 0xee);
                    oc_status sd2 = decode(2, k.w, bad.data(), n, cnt, off, od.data());
                    if (s3 != s4 || (s3 == OC_OK && o3 != o4) || sd2 != s4 || (s4 == OC_OK && od != o4)) {
                        fprintf(stderr, "%s tile %u byte %zu changed: v3 %d, v4 %d%s\n", c.file, t, at,
                                (int)s3, (int)s4, s3 == s4 ? " (bytes differ)" : "");
                        cfail++;
                    }
                    cflips++;
                }
            }
        }
        printf("%-22s layers %#10x, %5zu-byte chunks: %ld tiles (%ld on the fused path), %ld damaged: %s\n",
               c.file, c.layers, c.len, ctiles, cfused, cflips,
               cfail ? "FAILED" : "v4 = input, v4 = v3 on damage, direct = v4");
        tiles += ctiles, fused += cfused, flips += cflips, fails += cfail;
    }
    oc_context_destroy(ctx);
    printf("pair (cz_v7.cuh): %ld pairs, %ld taken (= input), %ld damaged (taken: = v4)\n", pairs,
           pairs_taken, pair_flips);
    printf("%ld tiles, %ld fused, %ld damaged: %s\n", tiles, fused, flips, fails ? "FAILED" : "all checked");
    return fails ? 1 : 0;
}
