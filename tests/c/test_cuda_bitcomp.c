/*
 * test_cuda_bitcomp.c - Bitcomp on the GPU (src/cuda/codecs/bitcomp/)
 * against the CPU codec (the same core compiled as C), through the public
 * batched API on device memory.
 *
 * Guards: (1) for both algorithm types and every data type on real columns
 * (the bench corpus when bench/corpus-data is there: TPC-H keys, dates,
 * decimal prices and quantities as doubles, sorted keys, float32 weights;
 * else generated columns of those shapes) in 64 KiB chunks, a 1 MiB chunk
 * and sizes 0, 1, 7, 100003, the GPU writes exactly the CPU's bytes (the
 * decimal coding's float arithmetic included), and both decode each
 * other's streams to the input; (2) one chunk of up to 48 MiB (thousands
 * of tiles of one chunk, on every SM) decodes on the GPU; (3) hostile
 * input: every prefix of a small chunk, sampled prefixes and byte flips of
 * real chunks and a 64 KiB chunk with a lying tile table give the CPU's
 * status on the GPU, the CPU's bytes when OK, and never a byte past the
 * capacity (guard bytes); (4) the size query gives the CPU's status and
 * size; (5) one byte less output: OUTPUT_TOO_SMALL in both directions.  It
 * prints, never checks, the decode and compress GB/s of a 1 GiB batch of
 * 64 KiB chunks (not with OC_TEST_SMALL, as under compute-sanitizer).
 *
 * Without a GPU (CI) the test says so and passes; scripts/gpu-check runs
 * it on a GPU machine.
 */
#define _POSIX_C_SOURCE 200809L
#define OWN_GPU_TEST_ALGO OC_ALGO_BITCOMP
#include "helpers/own_gpu_test.h"

/* The corpus column, or a generated one of the same shape. */
static column get_column(const char *file, oc_data_type type, size_t max)
{
    column c = {file, type, NULL, 0};
    const char *dir = getenv("OC_CORPUS_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : OC_SOURCE_DIR "/bench/corpus-data", file);
    c.data = read_file(path, max, &c.size);
    if (c.data && c.size)
        return c;
    free(c.data);
    c.data = malloc(max);
    REQUIRE(c.data);
    c.size = max;
    size_t w = type == OC_TYPE_U8 ? 1 : type == OC_TYPE_I32 || type == OC_TYPE_F32 ? 4 : 8;
    int64_t key = 1;
    for (size_t i = 0; i + w <= max; i += w) {
        int64_t v;
        if (!strcmp(file, "tpch_l_orderkey.i64")) /* sorted keys in runs of 1..7, gaps */
            v = (rng() % 4 == 0) ? (key += (rng() % 8 == 0 ? 25 : 1)) : key;
        else if (!strcmp(file, "tpch_l_shipdate.i32"))
            v = 8036 + (int64_t)(rng() % 2526);
        else if (!strcmp(file, "sorted_partkey.i64"))
            v = (int64_t)(i / w / 30);
        else if (!strcmp(file, "tpch_l_extendedprice.f64")) { /* two decimals */
            double x = (double)(90000 + rng() % 10404950) / 100.0;
            memcpy(&v, &x, 8);
        } else if (!strcmp(file, "tpch_l_quantity.f64")) {
            double x = (double)(1 + rng() % 50);
            memcpy(&v, &x, 8);
        } else if (type == OC_TYPE_F32) { /* weights */
            float x = (float)((double)(int64_t)(rng() % 20001 - 10000) / 300000.0);
            int32_t b;
            memcpy(&b, &x, 4);
            v = b;
        } else
            v = (int64_t)(rng() % 64 < 3 ? rng() : ' ' + rng() % 60);
        memcpy(c.data + i, &v, w);
    }
    return c;
}

/* ---- (1) the same bytes, both ways ---------------------------------------------- */

static void same_bytes(const column *c, size_t chunk, size_t max_chunks, const oc_typed_options *t)
{
    batch b;
    batch_of(&b, c->data, c->size, chunk, max_chunks);
    size_t slot = oc_compress_bound(OC_ALGO_BITCOMP, chunk);
    size_t cs[MAXN], gs[MAXN];
    oc_status cst[MAXN], gst[MAXN];
    uint8_t *cpu = compress(g_cpu, 0, &b, t, slot, cs, cst);
    uint8_t *gpu = compress(g_gpu, 1, &b, t, slot, gs, gst);
    size_t comp = 0;
    const uint8_t *streams[MAXN] = {0};
    for (size_t i = 0; i < b.n; i++) {
        EXPECT(cst[i] == OC_OK && gst[i] == OC_OK, "%s chunk %zu: statuses %d/%d", c->name, i, cst[i],
               gst[i]);
        EXPECT(cs[i] == gs[i] && !memcmp(cpu + i * slot, gpu + i * slot, cs[i]),
               "%s type %d algorithm_type %d chunk %zu: GPU bytes differ from the CPU's (%zu vs %zu)",
               c->name, (int)t->data_type, t->algorithm_type, i, gs[i], cs[i]);
        streams[i] = gpu + i * slot;
        comp += gs[i];
    }
    /* the GPU decodes the streams; the CPU decodes them too */
    uint8_t *out[MAXN];
    size_t ds[MAXN];
    oc_status dst[MAXN];
    gpu_decode(b.n, streams, gs, b.len, out, ds, dst);
    for (size_t i = 0; i < b.n; i++) {
        EXPECT(dst[i] == OC_OK && ds[i] == b.len[i] && !memcmp(out[i], b.src[i], b.len[i]),
               "%s chunk %zu: GPU decode %d size %zu", c->name, i, dst[i], ds[i]);
        uint8_t *back = malloc(b.len[i] + 1);
        size_t got = 0;
        EXPECT(cpu_decode(streams[i], gs[i], back, b.len[i], &got) == OC_OK && got == b.len[i] &&
                   !memcmp(back, b.src[i], b.len[i]),
               "%s chunk %zu: CPU decode of the GPU stream", c->name, i);
        free(back);
        free(out[i]);
    }
    printf("%-24s type %2d algorithm_type %d chunk %7zu: %zu chunks, ratio %.3f, GPU = CPU bytes\n", c->name,
           (int)t->data_type, t->algorithm_type, chunk, b.n, comp ? (double)c->size / (double)comp : 0.0);
    free(cpu);
    free(gpu);
}

/* ---- (2) one large chunk ---------------------------------------------------------- */

static void large_chunk(const column *c)
{
    oc_typed_options t = {c->type, 0, 0, 0};
    batch b = {1, {c->data}, {c->size}};
    size_t slot = oc_compress_bound(OC_ALGO_BITCOMP, c->size), size = 0;
    oc_status st = OC_ERR_INTERNAL;
    uint8_t *cpu = compress(g_cpu, 0, &b, &t, slot, &size, &st);
    REQUIRE(st == OC_OK);
    const uint8_t *s = cpu;
    uint8_t *out = NULL;
    size_t ds = 0;
    oc_status dst = OC_ERR_INTERNAL;
    gpu_decode(1, &s, &size, &c->size, &out, &ds, &dst);
    EXPECT(dst == OC_OK && ds == c->size && !memcmp(out, c->data, c->size), "one chunk of %zu bytes: %d",
           c->size, dst);
    printf("one chunk of %zu bytes (%zu tiles): decoded on the GPU\n", c->size, (c->size + 16383) / 16384);
    free(out);
    free(cpu);
}

/* ---- (3) hostile input ------------------------------------------------------------ */

static void hostile(const column *c)
{
    oc_typed_options t = {c->type, 0, 0, 0};
    size_t chunk = 65536, slot = oc_compress_bound(OC_ALGO_BITCOMP, chunk);
    batch b;
    batch_of(&b, c->data, c->size < chunk ? c->size : chunk, chunk, 1);
    size_t size = 0;
    oc_status st;
    uint8_t *s = compress(g_cpu, 0, &b, &t, slot, &size, &st);
    REQUIRE(st == OC_OK);
    /* prefixes: all of them up to 600 bytes, then a sample */
    const uint8_t *src[MAXN] = {NULL};
    size_t len[MAXN] = {0}, cap[MAXN] = {0}, n = 0;
    for (size_t k = 0; k < size && n < MAXN; k += k < 600 ? 1 : 1 + size / 400) {
        uint8_t *p = malloc(k + 1);
        memcpy(p, s, k);
        src[n] = p, len[n] = k, cap[n++] = chunk;
    }
    same_status("prefix", n, src, len, cap);
    for (size_t i = 0; i < n; i++)
        free((void *)src[i]);
    /* byte flips everywhere (sampled), and small capacities */
    n = 0;
    for (size_t k = 0; k < size && n < MAXN; k += 1 + size / 1500) {
        uint8_t *p = malloc(size);
        memcpy(p, s, size);
        p[k] ^= (uint8_t)(1u << (k % 8));
        src[n] = p, len[n] = size, cap[n++] = (k % 5 == 0) ? (k * 37) % chunk : chunk;
    }
    same_status("flip", n, src, len, cap);
    for (size_t i = 0; i < n; i++)
        free((void *)src[i]);
    /* a tile table whose ends decrease, and one past the chunk */
    uint8_t *p = malloc(size), *q = malloc(size);
    memcpy(p, s, size);
    memcpy(q, s, size);
    p[8] = p[12], p[9] = p[13], p[10] = (uint8_t)(p[14] + 1), p[11] = p[15];
    q[8 + 4 * 3] ^= 0x40;
    const uint8_t *two[2] = {p, q};
    size_t two_len[2] = {size, size}, two_cap[2] = {chunk, chunk};
    same_status("tile table", 2, two, two_len, two_cap);
    free(p);
    free(q);
    /* (5) one byte too little output */
    size_t one = b.len[0] - 1;
    const uint8_t *ss = s;
    same_status("capacity - 1", 1, &ss, &size, &one);
    uint8_t *dummy = NULL;
    size_t gsz = 0;
    oc_status gst = OC_OK;
    gpu_decode(1, &ss, &size, &one, &dummy, &gsz, &gst);
    EXPECT(gst == OC_ERR_OUTPUT_TOO_SMALL, "decode into one byte less: %s", oc_status_name(gst));
    free(dummy);
    size_t tight = size - 1, got = 0;
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BITCOMP;
    o.typed = t;
    uint8_t *din = dev_alloc(b.len[0]), *dout = dev_alloc(tight);
    copy(din, b.src[0], b.len[0]);
    const void *sp = din;
    void *dp = dout;
    oc_status cst = OC_OK;
    CHECK(oc_batch_compress(g_gpu, &o, 1, &sp, b.len, &dp, &tight, &got, &cst) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    EXPECT(cst == OC_ERR_OUTPUT_TOO_SMALL, "compress into one byte less: %s", oc_status_name(cst));
    dev_free(din, b.len[0]);
    dev_free(dout, tight);
    free(s);
}

/* ---- (4) the size query ------------------------------------------------------------ */

static void sizes(const column *c)
{
    oc_typed_options t = {c->type, 0, 0, 0};
    batch b;
    batch_of(&b, c->data, c->size, 65536, 64);
    size_t slot = oc_compress_bound(OC_ALGO_BITCOMP, 65536), cs[MAXN];
    oc_status st[MAXN];
    uint8_t *s = compress(g_cpu, 0, &b, &t, slot, cs, st);
    s[3 * slot + 20] ^= 0x11; /* one chunk damaged */
    size_t in_total = b.n * slot;
    uint8_t *din = dev_alloc(in_total);
    copy(din, s, in_total);
    const void *sp[MAXN];
    for (size_t i = 0; i < b.n; i++)
        sp[i] = din + i * slot;
    size_t gsz[MAXN], csz[MAXN];
    oc_status gst[MAXN], cst2[MAXN];
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BITCOMP;
    CHECK(oc_batch_decompressed_sizes(g_gpu, &o, b.n, sp, cs, gsz, gst) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    for (size_t i = 0; i < b.n; i++)
        sp[i] = s + i * slot;
    CHECK(oc_batch_decompressed_sizes(g_cpu, &o, b.n, sp, cs, csz, cst2) == OC_OK);
    for (size_t i = 0; i < b.n; i++)
        EXPECT(gst[i] == cst2[i] && (gst[i] != OC_OK || gsz[i] == csz[i]),
               "size query chunk %zu: %s %zu vs %s %zu", i, oc_status_name(gst[i]), gsz[i],
               oc_status_name(cst2[i]), csz[i]);
    dev_free(din, in_total);
    free(s);
}

/* ---- speed (printed, never checked) --------------------------------------------------- */

static void speed(const column *c, const oc_typed_options *t)
{
    size_t chunk = 65536, total = (size_t)1 << 30, n = total / chunk;
    size_t slot = oc_compress_bound(OC_ALGO_BITCOMP, chunk);
    uint8_t *din = dev_alloc(total), *dcomp = dev_alloc(n * slot), *dout = dev_alloc(total);
    for (size_t off = 0; off < total; off += c->size)
        copy(din + off, c->data, total - off < c->size ? total - off : c->size);
    const void **sp = malloc(n * sizeof *sp);
    void **cp = malloc(n * sizeof *cp), **op = malloc(n * sizeof *op);
    size_t *len = malloc(n * sizeof *len), *caps = malloc(n * sizeof *caps), *cs = malloc(n * sizeof *cs);
    oc_status *st = malloc(n * sizeof *st);
    REQUIRE(sp && cp && op && len && caps && cs && st);
    for (size_t i = 0; i < n; i++)
        sp[i] = din + i * chunk, cp[i] = dcomp + i * slot, op[i] = dout + i * chunk, len[i] = chunk,
        caps[i] = slot;
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BITCOMP;
    o.typed = *t;
    double tc = 1e9, td = 1e9;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        CHECK(oc_batch_compress(g_gpu, &o, n, sp, len, cp, caps, cs, st) == OC_OK);
        REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
        double t1 = now();
        CHECK(oc_batch_decompress(g_gpu, &o, n, (const void *const *)cp, cs, op, len, NULL, st) == OC_OK);
        REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
        double t2 = now();
        tc = t1 - t0 < tc ? t1 - t0 : tc;
        td = t2 - t1 < td ? t2 - t1 : td;
    }
    size_t comp = 0;
    for (size_t i = 0; i < n; i++)
        comp += cs[i];
    printf("speed %-22s algorithm_type %d: 1 GiB of 64 KiB chunks, ratio %.2f, compress %.1f GB/s, "
           "decompress %.1f "
           "GB/s (wall clock, host arrays)\n",
           c->name, t->algorithm_type, (double)total / (double)comp, (double)total / tc / 1e9,
           (double)total / td / 1e9);
    dev_free(din, total);
    dev_free(dcomp, n * slot);
    dev_free(dout, total);
    free(sp), free(cp), free(op), free(len), free(caps), free(cs), free(st);
}

int main(void)
{
    if (oc_cuda_device_count() == 0) {
        printf("SKIP: test_cuda_bitcomp needs a CUDA GPU (%s); run scripts/gpu-check on a GPU machine\n",
               oc_build_info());
        return 0;
    }
    g_small = getenv("OC_TEST_SMALL") != NULL;
    oc_context_options go = OC_CONTEXT_OPTIONS_INIT, co = OC_CONTEXT_OPTIONS_INIT;
    go.engine = OC_ENGINE_CUDA;
    co.engine = OC_ENGINE_CPU;
    REQUIRE(oc_context_create(&go, &g_gpu) == OC_OK);
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    size_t max = g_small ? ((size_t)1 << 20) : ((size_t)8 << 20);
    column cols[] = {get_column("tpch_l_orderkey.i64", OC_TYPE_I64, max),
                     get_column("tpch_l_shipdate.i32", OC_TYPE_I32, max),
                     get_column("tpch_l_extendedprice.f64", OC_TYPE_F64, max),
                     get_column("tpch_l_quantity.f64", OC_TYPE_F64, max),
                     get_column("sorted_partkey.i64", OC_TYPE_I64, max),
                     get_column("weights_minilm_l0-1.f32", OC_TYPE_F32, max)};
    size_t ncols = sizeof cols / sizeof cols[0];
    for (size_t i = 0; i < ncols; i++) {
        for (int at = 0; at <= 1; at++) {
            oc_typed_options t = {cols[i].type, at, 0, 0};
            same_bytes(&cols[i], 65536, g_small ? 8 : 128, &t);
        }
        oc_typed_options t = {cols[i].type, 0, 0, 0};
        same_bytes(&cols[i], (size_t)1 << 20, 2, &t);
        /* every other type over the same bytes, odd sizes */
        for (int ty = OC_TYPE_U8; ty < OC_TYPE_COUNT; ty++) {
            oc_typed_options u = {(oc_data_type)ty, ty % 2, 0, 0};
            column odd = cols[i];
            odd.size = 100003;
            same_bytes(&odd, 65536, 4, &u);
        }
    }
    static const size_t tiny[] = {0, 1, 7};
    for (size_t k = 0; k < 3; k++) {
        column z = cols[0];
        z.size = tiny[k];
        oc_typed_options t = {OC_TYPE_I64, 0, 0, 0};
        same_bytes(&z, 65536, 1, &t);
    }
    column big =
        get_column("tpch_l_orderkey.i64", OC_TYPE_I64, g_small ? ((size_t)1 << 20) : ((size_t)48 << 20));
    large_chunk(&big);
    free(big.data);
    for (size_t i = 0; i < ncols; i++) {
        hostile(&cols[i]);
        sizes(&cols[i]);
    }
    if (!g_small) {
        for (size_t i = 0; i < ncols; i++) {
            oc_typed_options d = {cols[i].type, 0, 0, 0};
            oc_typed_options s = {cols[i].type, 1, 0, 0};
            speed(&cols[i], &d);
            speed(&cols[i], &s);
        }
    }
    for (size_t i = 0; i < ncols; i++)
        free(cols[i].data);
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    printf("test_cuda_bitcomp: %s\n", g_failures ? "FAILED" : "passed");
    return g_failures != 0;
}
