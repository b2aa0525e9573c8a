/*
 * test_cuda_truncation.c - the GPU decoders against the CPU engine on cut
 * streams, and zstd's own test vectors on the GPU (runs in scripts/gpu-check;
 * without a GPU it says SKIP and passes).
 *
 * Regressions pinned here (issue 11):
 *   - item 5: an LZ4 block cut after a sequence that ends in a match, or
 *     after a short run of the next literals, decoded "OK" with fewer bytes
 *     on the GPU; a zero-length zstd input decoded "OK" with 0 bytes.
 *     Every LZ4 block (liblz4 fast and HC) and Snappy buffer of real data is
 *     cut at every sequence (element) boundary and at the first few bytes of
 *     every literal run, every zstd frame at every block boundary and at
 *     every byte of its first 300; each cut goes through the GPU and the CPU
 *     engine (oc_batch_decompress with a roomy capacity, and
 *     oc_batch_decompressed_sizes), and both must give the same status, and
 *     for OK the same size and bytes.
 *   - item 6: every frame of zstd's tests/golden-decompression/ decodes on
 *     the GPU to what the CPU engine decodes, and every frame of
 *     golden-decompression-errors/ is refused (tests/vectors/zstd).
 *
 * Uses the public API only (device memory through oc_memory_*), so what is
 * tested is what callers get.  (The decoder variants that left the library
 * are checked by bench/gpu/dev/lz_variants.)
 */
#include <dirent.h>
#include <lz4.h>
#include <lz4hc.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "opencomp.h"

#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"

static oc_context *g_cpu; /* g_gpu: helpers/dev_mem.h */

/* ---- a list of cut inputs, each with the size of the whole stream ------- */

typedef struct cuts {
    size_t n, cap;
    uint8_t **data;
    size_t *size;
    size_t *full; /* decoded size of the uncut stream: the capacity given */
    char (*name)[48];
} cuts;

static void cuts_add(cuts *c, const uint8_t *p, size_t n, size_t full, const char *name)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->data = realloc(c->data, c->cap * sizeof *c->data);
        c->size = realloc(c->size, c->cap * sizeof *c->size);
        c->full = realloc(c->full, c->cap * sizeof *c->full);
        c->name = realloc(c->name, c->cap * sizeof *c->name);
        REQUIRE(c->data && c->size && c->full && c->name);
    }
    c->data[c->n] = malloc(n ? n : 1);
    REQUIRE(c->data[c->n]);
    memcpy(c->data[c->n], p, n);
    c->size[c->n] = n;
    c->full[c->n] = full;
    snprintf(c->name[c->n], sizeof c->name[c->n], "%s", name);
    c->n++;
}

static void cuts_free(cuts *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->data[i]);
    free(c->data);
    free(c->size);
    free(c->full);
    free(c->name);
    memset(c, 0, sizeof *c);
}

/* Every cut through both engines: statuses, sizes and bytes must agree. */
static void compare_engines(const cuts *c, oc_algorithm alg, const char *what)
{
    size_t n = c->n, in_total = 0, out_total = 0;
    for (size_t i = 0; i < n; i++) {
        in_total += c->size[i];
        out_total += c->full[i] + 1;
    }
    uint8_t *h_in = malloc(in_total + 1), *h_out = malloc(out_total + 1), *g_out = malloc(out_total + 1);
    const void **h_src = calloc(n, sizeof(void *)), **d_src = calloc(n, sizeof(void *));
    void **h_dst = calloc(n, sizeof(void *)), **d_dst = calloc(n, sizeof(void *));
    size_t *caps = calloc(n, sizeof(size_t)), *h_sz = calloc(n, sizeof(size_t)),
           *g_sz = calloc(n, sizeof(size_t));
    size_t *h_q = calloc(n, sizeof(size_t)), *g_q = calloc(n, sizeof(size_t));
    oc_status *h_st = calloc(n, sizeof(oc_status)), *g_st = calloc(n, sizeof(oc_status));
    oc_status *h_qs = calloc(n, sizeof(oc_status)), *g_qs = calloc(n, sizeof(oc_status));
    REQUIRE(h_in && h_out && g_out && h_src && d_src && h_dst && d_dst && caps && h_sz && g_sz && h_q &&
            g_q && h_st && g_st && h_qs && g_qs);
    void *d_in = dev_alloc(in_total + 1), *d_out = dev_alloc(out_total + 1);
    size_t io = 0, oo = 0;
    for (size_t i = 0; i < n; i++) {
        memcpy(h_in + io, c->data[i], c->size[i]);
        h_src[i] = h_in + io;
        d_src[i] = (uint8_t *)d_in + io;
        h_dst[i] = h_out + oo;
        d_dst[i] = (uint8_t *)d_out + oo;
        caps[i] = c->full[i];
        io += c->size[i];
        oo += c->full[i] + 1;
    }
    copy(d_in, h_in, in_total);
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = alg;
    REQUIRE(oc_batch_decompress(g_cpu, &o, n, h_src, c->size, h_dst, caps, h_sz, h_st) == OC_OK);
    REQUIRE(oc_batch_decompress(g_gpu, &o, n, d_src, c->size, d_dst, caps, g_sz, g_st) == OC_OK);
    REQUIRE(oc_batch_decompressed_sizes(g_cpu, &o, n, h_src, c->size, h_q, h_qs) == OC_OK);
    REQUIRE(oc_batch_decompressed_sizes(g_gpu, &o, n, d_src, c->size, g_q, g_qs) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    copy(g_out, d_out, out_total);
    size_t ok = 0, bad = 0, shown = 0;
    oo = 0;
    for (size_t i = 0; i < n; i++, oo += c->full[i - 1] + 1) {
        int same = h_st[i] == g_st[i] && h_qs[i] == g_qs[i];
        if (same && h_st[i] == OC_OK)
            same = h_sz[i] == g_sz[i] && memcmp(h_out + oo, g_out + oo, h_sz[i]) == 0;
        if (same && h_qs[i] == OC_OK)
            same = h_q[i] == g_q[i];
        /* the size query and the decoder agree on each engine */
        int agree = (h_qs[i] == OC_OK) == (h_st[i] == OC_OK) && (h_st[i] != OC_OK || h_q[i] == h_sz[i]);
        if (!same || !agree) {
            bad++;
            if (shown++ < 20)
                fprintf(
                    stderr,
                    "FAIL %s %s (%zu of its bytes): CPU decode %s %zu size %s %zu; GPU decode %s %zu size "
                    "%s %zu\n",
                    what, c->name[i], c->size[i], oc_status_name(h_st[i]), h_sz[i], oc_status_name(h_qs[i]),
                    h_q[i], oc_status_name(g_st[i]), g_sz[i], oc_status_name(g_qs[i]), g_q[i]);
        }
        ok += h_st[i] == OC_OK;
    }
    g_failures += (int)bad;
    printf("%s: %zu cuts, %zu decode OK, %zu disagreements between the GPU and the CPU engine\n", what, n, ok,
           bad);
    dev_free(d_in, in_total + 1);
    dev_free(d_out, out_total + 1);
    free(h_in), free(h_out), free(g_out), free(h_src), free(d_src), free(h_dst), free(d_dst);
    free(caps), free(h_sz), free(g_sz), free(h_q), free(g_q), free(h_st), free(g_st), free(h_qs), free(g_qs);
}

/* ---- cut points ----------------------------------------------------------- */

/* LZ4: before every token, and after the token (+ length bytes) and the
 * first 0..6 literals of every sequence. */
static void lz4_cuts(cuts *c, const uint8_t *b, size_t n, size_t full, const char *name)
{
    size_t ip = 0;
    while (ip < n) {
        cuts_add(c, b, ip, full, name);
        unsigned token = b[ip++];
        size_t lit = token >> 4;
        if (lit == 15) {
            unsigned s;
            do {
                s = b[ip++];
                lit += s;
            } while (s == 255 && ip < n);
        }
        for (size_t k = 0; k <= 6 && k <= lit && ip + k <= n; k++)
            cuts_add(c, b, ip + k, full, name);
        ip += lit;
        if (ip >= n)
            break;
        ip += 2;
        if ((token & 15) == 15) {
            unsigned s;
            do {
                s = b[ip++];
            } while (s == 255 && ip < n);
        }
    }
    cuts_add(c, b, n, full, name); /* the whole block */
}

/* Snappy: after the preamble, before every element, and inside literals. */
static void snappy_cuts(cuts *c, const uint8_t *b, size_t n, size_t full, const char *name)
{
    size_t ip = 0;
    while (ip < n && (b[ip] & 0x80))
        ip++;
    ip++;
    while (ip < n) {
        cuts_add(c, b, ip, full, name);
        unsigned tag = b[ip++];
        size_t len;
        switch (tag & 3) {
        case 0:
            len = tag >> 2;
            if (len >= 60) {
                unsigned extra = (unsigned)len - 59;
                len = 0;
                for (unsigned k = 0; k < extra; k++)
                    len |= (size_t)b[ip + k] << (8 * k);
                ip += extra;
            }
            len += 1;
            for (size_t k = 1; k <= 4 && k < len; k++)
                cuts_add(c, b, ip + k, full, name);
            ip += len;
            break;
        case 1:
            ip += 1;
            break;
        case 2:
            ip += 2;
            break;
        default:
            ip += 4;
            break;
        }
    }
    cuts_add(c, b, n, full, name);
}

/* zstd: every byte of the first 300, then every block boundary (+1). */
static void zstd_cuts(cuts *c, const uint8_t *f, size_t n, size_t full, const char *name)
{
    for (size_t k = 0; k < n && k < 300; k++)
        cuts_add(c, f, k, full, name);
    unsigned fhd = f[4];
    size_t pos = 5 + (((fhd >> 5) & 1) ? 0 : 1) + (size_t)((unsigned[]){0, 1, 2, 4})[fhd & 3];
    unsigned fcs = fhd >> 6;
    pos += fcs == 0 ? ((fhd >> 5) & 1) : (size_t)1 << fcs;
    while (pos + 3 <= n) {
        uint32_t bh = (uint32_t)f[pos] | ((uint32_t)f[pos + 1] << 8) | ((uint32_t)f[pos + 2] << 16);
        cuts_add(c, f, pos, full, name);
        cuts_add(c, f, pos + 1, full, name);
        pos += 3 + (((bh >> 1) & 3) == 1 ? 1 : bh >> 3);
        if (bh & 1)
            break;
    }
    cuts_add(c, f, n, full, name);
}

/* ---- data ------------------------------------------------------------------ */

static uint8_t *read_file(const char *path, size_t max, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = malloc(max);
    REQUIRE(buf);
    *n = fread(buf, 1, max, f);
    fclose(f);
    return buf;
}

/* Real inputs: this test's own source, a license text, a binary. */
static size_t inputs(uint8_t **data, size_t *size, size_t max)
{
    static const char *paths[] = {OC_SOURCE_DIR "/src/cuda/codecs/lz_common/lz_decode_pipe.cuh",
                                  "/usr/share/common-licenses/GPL-3", "/usr/bin/cmake", "/bin/bash"};
    size_t k = 0;
    for (size_t i = 0; i < sizeof paths / sizeof paths[0] && k < max; i++) {
        data[k] = read_file(paths[i], (size_t)1 << 20, &size[k]);
        if (data[k] && size[k] > 4096)
            k++;
    }
    return k;
}

static void vectors_on_gpu(void)
{
    static const char *subs[] = {"golden-decompression", "golden-decompression-errors"};
    for (int v = 0; v < 2; v++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/tests/vectors/zstd/%s", OC_SOURCE_DIR, subs[v]);
        DIR *d = opendir(dir);
        REQUIRE(d);
        cuts c = {0};
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len < 5 || strcmp(e->d_name + len - 4, ".zst") != 0)
                continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            size_t n = 0;
            uint8_t *f = read_file(path, (size_t)1 << 20, &n);
            REQUIRE(f);
            cuts_add(&c, f, n, (size_t)2 << 20, e->d_name);
            free(f);
        }
        closedir(d);
        /* the engines must agree; then: valid frames OK, invalid ones refused */
        size_t n = c.n;
        const void **h_src = calloc(n, sizeof(void *)), **d_src = calloc(n, sizeof(void *));
        void **d_dst = calloc(n, sizeof(void *));
        size_t *caps = calloc(n, sizeof(size_t)), *g_sz = calloc(n, sizeof(size_t));
        oc_status *g_st = calloc(n, sizeof(oc_status));
        for (size_t i = 0; i < n; i++) {
            d_src[i] = dev_alloc(c.size[i] + 1);
            copy((void *)d_src[i], c.data[i], c.size[i]);
            d_dst[i] = dev_alloc(c.full[i]);
            caps[i] = c.full[i];
        }
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = OC_ALGO_ZSTD;
        REQUIRE(oc_batch_decompress(g_gpu, &o, n, d_src, c.size, d_dst, caps, g_sz, g_st) == OC_OK);
        REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
        for (size_t i = 0; i < n; i++) {
            EXPECT(v == 0 ? g_st[i] == OC_OK : g_st[i] != OC_OK, "zstd vector %s/%s on the GPU: %s", subs[v],
                   c.name[i], oc_status_name(g_st[i]));
            printf("zstd vector %s/%s on the GPU: %s (%zu bytes)\n", subs[v], c.name[i],
                   oc_status_name(g_st[i]), g_sz[i]);
            dev_free((void *)d_src[i], c.size[i] + 1);
            dev_free(d_dst[i], c.full[i]);
        }
        compare_engines(&c, OC_ALGO_ZSTD, v == 0 ? "zstd valid vectors" : "zstd error vectors");
        free(h_src), free(d_src), free(d_dst), free(caps), free(g_sz), free(g_st);
        cuts_free(&c);
    }
}

int main(void)
{
    if (!oc_engine_available(OC_ENGINE_CUDA)) {
        printf("SKIP: no usable GPU; test_cuda_truncation runs in scripts/gpu-check\n");
        return 0;
    }
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    co.engine = OC_ENGINE_CUDA;
    REQUIRE(oc_context_create(&co, &g_gpu) == OC_OK);
    int small = getenv("OC_TEST_SMALL") != NULL;

    uint8_t *data[8];
    size_t size[8];
    size_t nin = inputs(data, size, 8);
    REQUIRE(nin >= 2);
    size_t chunk = small ? 4096 : 65536;
    cuts lz = {0}, sn = {0}, zs = {0};
    static uint8_t comp[2 * 65536]; /* above every codec's bound for 64 KiB (snappy's is 76,490) */
    for (size_t d = 0; d < nin; d++) {
        for (size_t off = 0; off + 64 <= size[d] && off < (small ? chunk : 4 * chunk); off += chunk) {
            size_t len = size[d] - off < chunk ? size[d] - off : chunk;
            const char *src = (const char *)data[d] + off;
            char name[48];
            for (int hc = 0; hc < 2; hc++) {
                int cl = hc ? LZ4_compress_HC(src, (char *)comp, (int)len, (int)sizeof comp, 9)
                            : LZ4_compress_default(src, (char *)comp, (int)len, (int)sizeof comp);
                REQUIRE(cl > 0);
                snprintf(name, sizeof name, "input %zu @%zu lz4%s", d, off, hc ? "hc" : "");
                lz4_cuts(&lz, comp, (size_t)cl, len, name);
            }
            size_t sl = sizeof comp;
            REQUIRE(snappy_compress(src, len, (char *)comp, &sl) == SNAPPY_OK);
            snprintf(name, sizeof name, "input %zu @%zu snappy", d, off);
            snappy_cuts(&sn, comp, sl, len, name);
            size_t zl = ZSTD_compress(comp, sizeof comp, src, len, 3);
            REQUIRE(!ZSTD_isError(zl));
            snprintf(name, sizeof name, "input %zu @%zu zstd", d, off);
            zstd_cuts(&zs, comp, zl, len, name);
        }
    }
    compare_engines(&lz, OC_ALGO_LZ4, "LZ4 blocks cut");
    compare_engines(&sn, OC_ALGO_SNAPPY, "Snappy buffers cut");
    compare_engines(&zs, OC_ALGO_ZSTD, "zstd frames cut");
    cuts_free(&lz);
    cuts_free(&sn);
    cuts_free(&zs);
    vectors_on_gpu();
    for (size_t d = 0; d < nin; d++)
        free(data[d]);
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    printf("test_cuda_truncation: %s (%d failures)\n", g_failures ? "FAILED" : "passed", g_failures);
    return g_failures != 0;
}
