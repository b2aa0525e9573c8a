/*
 * test_cuda_deflate.c - raw Deflate, zlib and gzip decoded on the GPU
 * (src/cuda/codecs/deflate/) through the public batched API on device
 * memory, against the same core compiled for the host and the CPU engine.
 *
 * Guards: streams from libdeflate (levels 0, 1, 6, 12) and zlib (levels 1,
 * 6, 9; fixed-only, Huffman-only, RLE strategies; small windows; streams
 * mixing stored, fixed and dynamic blocks with empty flush blocks), gzip
 * members with every header field and several members per chunk, on real
 * files and generated columns, in chunks of 64 KiB, odd sizes and 1 MiB,
 * decode on the GPU to the original bytes, with the argument arrays in host
 * and in device memory; nothing is written past a chunk's capacity (guard
 * bytes); hostile chunks (cuts, bit flips, one byte of room short, damaged
 * trailers, random bytes) get exactly the host core's status, size and
 * bytes, and the CPU engine's status (where the CPU engine's libdeflate
 * accepts what zlib rejects, CORRUPT as zlib); zlib streams with a preset
 * dictionary (FDICT) get NEEDS_DICTIONARY from the decode and the size
 * query, as on the host core and the CPU engine.  Compression on the GPU
 * (levels 1, 2, 6, 9, 12; level 1 also on chunks at every byte alignment)
 * writes exactly the bytes of the compressor's core
 * compiled for the host, which zlib reads back; a capacity one byte short
 * is OUTPUT_TOO_SMALL with the guard bytes after it intact.
 *
 * Without a GPU (CI) the test says SKIP and passes; scripts/gpu-check runs
 * it on a GPU machine, also under compute-sanitizer memcheck and racecheck
 * (OC_TEST_SMALL=1 / 2: fewer inputs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "cuda/codecs/deflate/deflate_enc_core.h"
#include "cuda/codecs/deflate/inflate_chunk_core.h"

#include "helpers/deflate_ref.h"
#include "helpers/dev_batch.h"

static oc_context *g_cpu; /* g_gpu: helpers/dev_mem.h */
static inf_tables g_tables;
static uint32_t g_crct[256];
static int g_small;

static uint32_t g_rng = 0x9E3779B9u;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

/* One chunk to decode: compressed bytes, capacity, what it must give. */
typedef struct item {
    uint8_t *comp;
    size_t clen, cap;
    const uint8_t *want; /* NULL: no expectation beyond the host core's */
    size_t want_len;
} item;

typedef struct list {
    item *v;
    size_t n, cap;
} list;

static void add(list *l, uint8_t *comp, size_t clen, size_t cap, const uint8_t *want, size_t want_len)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof(item));
        REQUIRE(l->v);
    }
    item it = {comp, clen, cap, want, want_len};
    l->v[l->n++] = it;
}

static void list_free(list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].comp);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static uint8_t *dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    REQUIRE(q);
    if (n)
        memcpy(q, p, n);
    return q;
}

/* gzip: `members` members of src, each with FTEXT FHCRC FEXTRA FNAME FCOMMENT. */
static uint8_t *gzip_all_fields(const uint8_t *src, size_t n, int members, size_t *csize)
{
    size_t cs;
    uint8_t *body = zlib_comp(OC_ALGO_DEFLATE, src, n, 6, Z_DEFAULT_STRATEGY, 15, &cs);
    uint8_t hdr[64] = {0x1f, 0x8b, 8, 0x1f, 1, 2, 3, 4, 0, 3, 4, 0, 'A', 'B', 2, 0};
    size_t h = 16;
    memcpy(hdr + h, "file.bin", 9);
    h += 9;
    memcpy(hdr + h, "comment", 8);
    h += 8;
    uint32_t hc = (uint32_t)crc32(0, hdr, (uInt)h) & 0xFFFFu;
    hdr[h++] = (uint8_t)hc;
    hdr[h++] = (uint8_t)(hc >> 8);
    size_t one = h + cs + 8;
    uint8_t *out = malloc(one * (size_t)members);
    uint32_t crc = (uint32_t)crc32(0, src, (uInt)n);
    for (int m = 0; m < members; m++) {
        uint8_t *p = out + one * (size_t)m;
        memcpy(p, hdr, h);
        memcpy(p + h, body, cs);
        for (int i = 0; i < 4; i++) {
            p[h + cs + i] = (uint8_t)(crc >> (8 * i));
            p[h + cs + 4 + i] = (uint8_t)((uint32_t)n >> (8 * i));
        }
    }
    free(body);
    *csize = one * (size_t)members;
    return out;
}

/* ---- the GPU run of a list, and its checks ----------------------------------- */

static void run_list(const char *what, oc_algorithm a, const list *l, int arrays_on_device)
{
    size_t n = l->n;
    if (n == 0)
        return;
    const uint8_t **in = malloc(n * sizeof *in);
    size_t *ssz = malloc(n * sizeof(size_t)), *caps = malloc(n * sizeof(size_t)),
           *got = malloc(n * sizeof(size_t)), *off = malloc(n * sizeof(size_t));
    oc_status *st = malloc(n * sizeof(oc_status));
    REQUIRE(in && ssz && caps && got && off && st);
    for (size_t i = 0; i < n; i++) {
        in[i] = l->v[i].comp;
        ssz[i] = l->v[i].clen;
        caps[i] = l->v[i].cap;
    }
    uint8_t *h_out = malloc(dev_batch_slots(n, caps, off));
    REQUIRE(h_out);
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    /* the public call, odd input addresses too; the guards checked there */
    dev_batch_run(DEV_BATCH_DECOMPRESS, &o, n, in, ssz, caps,
                  DEV_BATCH_PUBLIC | DEV_BATCH_ODD_INPUTS | (arrays_on_device ? DEV_BATCH_DEVICE_ARRAYS : 0),
                  h_out, got, st);
    int shown = 0;
    for (size_t i = 0; i < n; i++) {
        const item *it = &l->v[i];
        uint8_t *out = h_out + off[i];
        /* the host build of the same core */
        uint8_t *ref = malloc(it->cap ? it->cap : 1);
        size_t rgot = 0;
        oc_status rst = inf_decode_chunk(&g_tables, g_crct, a, it->comp, it->clen, ref, it->cap, &rgot);
        int ok = st[i] == rst;
        if (ok && rst == OC_OK)
            ok = got[i] == rgot && memcmp(out, ref, rgot) == 0;
        if (ok && it->want)
            ok = st[i] == OC_OK && got[i] == it->want_len && memcmp(out, it->want, it->want_len) == 0;
        if (!ok && shown++ < 10)
            fprintf(stderr, "%s %s #%zu: GPU status %d size %zu, host core %d size %zu%s\n", what,
                    oc_algorithm_name(a), i, (int)st[i], got[i], (int)rst, rgot,
                    it->want ? " (a valid stream)" : "");
        CHECK(ok);
        /* the CPU engine: the same status, or CORRUPT where its libdeflate is laxer than zlib */
        if (!it->want && i % 3 == 0) {
            const void *s = it->comp;
            void *d = ref;
            size_t cg = 0, clen = it->clen, cap = it->cap;
            oc_status cst = OC_ERR_INTERNAL;
            REQUIRE(oc_batch_decompress(g_cpu, &o, 1, &s, &clen, &d, &cap, &cg, &cst) == OC_OK);
            if (cst != st[i]) {
                z_stream z;
                memset(&z, 0, sizeof z);
                int zok = 0, wb = a == OC_ALGO_ZLIB ? 15 : a == OC_ALGO_GZIP ? 31 : -15;
                if (st[i] == OC_ERR_CORRUPT && inflateInit2(&z, wb) == Z_OK) {
                    z.next_in = it->comp;
                    z.avail_in = (uInt)it->clen;
                    z.next_out = ref;
                    z.avail_out = (uInt)it->cap;
                    zok = inflate(&z, Z_FINISH) == Z_STREAM_END;
                    inflateEnd(&z);
                }
                EXPECT(st[i] == OC_ERR_CORRUPT && !zok, "%s %s #%zu: GPU %d, CPU engine %d", what,
                       oc_algorithm_name(a), i, (int)st[i], (int)cst);
            }
        }
        free(ref);
    }
    free(h_out);
    free(in);
    free(ssz);
    free(caps);
    free(got);
    free(off);
    free(st);
}

/* Valid streams of every shape from src, chunked by `chunk`. */
static void valid_streams(list *l, oc_algorithm a, const uint8_t *src, size_t n, size_t chunk)
{
    static const int ld_levels[] = {0, 1, 6, 12};
    for (size_t off = 0; off < n; off += chunk) {
        size_t m = n - off < chunk ? n - off : chunk;
        const uint8_t *p = src + off;
        size_t cs;
        int v = (int)((off / chunk) % 8);
        uint8_t *c;
        if (v < 4)
            c = libdeflate_comp(a, p, m, ld_levels[v], &cs);
        else if (v == 4)
            c = zlib_comp(a, p, m, 1 + (int)(rnd() % 9), Z_DEFAULT_STRATEGY, 9 + (int)(rnd() % 7), &cs);
        else if (v == 5)
            c = zlib_comp(a, p, m, 6, (int)(rnd() % 2) ? Z_FIXED : Z_HUFFMAN_ONLY, 15, &cs);
        else if (v == 6)
            c = zlib_comp(a, p, m, 6, Z_RLE, 15, &cs);
        else
            c = mixed_comp(a, p, m, &cs);
        add(l, c, cs, m, p, m);
    }
}

/* Damaged versions of valid streams. */
static void hostile_streams(list *l, oc_algorithm a, const uint8_t *src, size_t n, size_t count)
{
    for (size_t k = 0; k < count; k++) {
        size_t m = 1 + rnd() % (n < 65536 ? n : 65536);
        size_t off = rnd() % (n - m + 1), cs;
        uint8_t *c = (k & 1) ? libdeflate_comp(a, src + off, m, 1 + (int)(rnd() % 12), &cs)
                             : zlib_comp(a, src + off, m, 6, Z_DEFAULT_STRATEGY, 15, &cs);
        switch (k % 6) {
        case 0: /* a cut */
            add(l, dup_bytes(c, cs), rnd() % cs, m, NULL, 0);
            break;
        case 1: /* one byte short of room */
            add(l, dup_bytes(c, cs), cs, m - 1, NULL, 0);
            break;
        case 2: /* trailer damage */
            c[cs - 1 - rnd() % (cs < 8 ? cs : 8)] ^= (uint8_t)(1u << (rnd() % 8));
            add(l, dup_bytes(c, cs), cs, m, NULL, 0);
            break;
        case 5: { /* random bytes */
            size_t r = 1 + rnd() % 600;
            uint8_t *b = malloc(r);
            for (size_t i = 0; i < r; i++)
                b[i] = (uint8_t)rnd();
            add(l, b, r, m, NULL, 0);
            break;
        }
        default: /* bit flips, room to spare or not */
            for (int f = 1 + (int)(rnd() % 3); f > 0; f--)
                c[rnd() % cs] ^= (uint8_t)(1u << (rnd() % 8));
            add(l, dup_bytes(c, cs), cs, m + (k & 2) * 2048, NULL, 0);
            break;
        }
        free(c);
    }
}

/* GPU compression of chunks of data at `level` == the host core, and zlib reads it. */
static void compress_check(oc_algorithm a, int level, const uint8_t *data, size_t n, size_t chunk)
{
    static de_shared shared;
    static void *scratch;
    if (!scratch)
        scratch = malloc(de_scratch_bytes(12));
    REQUIRE(scratch);
    size_t m = (n + chunk - 1) / chunk, bound = oc_compress_bound(a, chunk);
    uint8_t *h_out = malloc(m * (bound + DEV_BATCH_GUARD)), *ref = malloc(bound), *back = malloc(chunk);
    const uint8_t **in = calloc(m ? m : 1, sizeof *in); /* calloc: gcc 13 -O3 sees m == 0 as uninitialised */
    size_t *ssz = malloc(m * sizeof(size_t)), *caps = malloc(m * sizeof(size_t)),
           *got = malloc(m * sizeof(size_t)), *off = malloc(m * sizeof(size_t));
    oc_status *st = malloc(m * sizeof(oc_status));
    REQUIRE(h_out && ref && back && in && ssz && caps && got && off && st);
    /* first pass: room for every stream; second: each one byte short of its
     * size (the guards after each slot checked by dev_batch_run) */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < m; i++) {
            in[i] = data + i * chunk; /* packed: chunk i at i * chunk, every alignment */
            ssz[i] = n - i * chunk < chunk ? n - i * chunk : chunk;
            caps[i] = pass == 0 ? bound : got[i] ? got[i] - 1 : 0;
        }
        dev_batch_slots(m, caps, off);
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = a;
        o.level = level;
        dev_batch_run(DEV_BATCH_COMPRESS, &o, m, in, ssz, caps, DEV_BATCH_PUBLIC, h_out, got, st);
        for (size_t i = 0; i < m; i++) {
            uint8_t *out = h_out + off[i];
            if (pass == 1) {
                EXPECT(st[i] == OC_ERR_OUTPUT_TOO_SMALL, "%s level %d chunk %zu one byte short: status %d",
                       oc_algorithm_name(a), level, i, (int)st[i]);
                continue;
            }
            size_t rlen = 0;
            oc_status rst = de_compress_chunk(&shared, scratch, g_crct, a, level, data + i * chunk, ssz[i],
                                              ref, bound, &rlen);
            EXPECT(st[i] == OC_OK && rst == OC_OK && got[i] == rlen && memcmp(out, ref, rlen) == 0,
                   "%s level %d chunk %zu: GPU status %d, %zu bytes; host core %zu bytes%s",
                   oc_algorithm_name(a), level, i, (int)st[i], got[i], rlen,
                   got[i] == rlen ? " (bytes differ)" : "");
            z_stream z;
            memset(&z, 0, sizeof z);
            REQUIRE(inflateInit2(&z, a == OC_ALGO_ZLIB ? 15 : a == OC_ALGO_GZIP ? 31 : -15) == Z_OK);
            z.next_in = out;
            z.avail_in = (uInt)got[i];
            z.next_out = back;
            z.avail_out = (uInt)chunk;
            int zr = inflate(&z, Z_FINISH);
            EXPECT(zr == Z_STREAM_END && z.total_out == ssz[i] && memcmp(back, data + i * chunk, ssz[i]) == 0,
                   "%s level %d chunk %zu: zlib cannot read the GPU's stream", oc_algorithm_name(a), level,
                   i);
            inflateEnd(&z);
        }
    }
    free(h_out);
    free(ref);
    free(back);
    free(in);
    free(ssz);
    free(caps);
    free(got);
    free(off);
    free(st);
}

/* zlib streams with a preset dictionary (FDICT): a real one (zlib with
 * 32 KiB of data as its dictionary, which zlib reads back given the
 * dictionary) and a minimal one.  On the CUDA engine (its own call and the
 * public one, argument arrays on the host and on the device) the decode and
 * the size query give the documented NEEDS_DICTIONARY (include/opencomp.h),
 * exactly the status of the host core and of the CPU engine, and nothing is
 * written past the capacity (dev_batch_run's guards). */
static void fdict_check(const uint8_t *data, size_t n)
{
    const size_t dlen = 32768, m = 50000;
    REQUIRE(n >= dlen + m);
    z_stream z;
    memset(&z, 0, sizeof z);
    REQUIRE(deflateInit(&z, 6) == Z_OK);
    REQUIRE(deflateSetDictionary(&z, data, (uInt)dlen) == Z_OK);
    size_t cap = deflateBound(&z, (uLong)m) + 64;
    uint8_t *real = malloc(cap), *back = malloc(m);
    REQUIRE(real && back);
    z.next_in = (Bytef *)(uintptr_t)(data + dlen);
    z.avail_in = (uInt)m;
    z.next_out = real;
    z.avail_out = (uInt)cap;
    REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
    size_t rlen = z.total_out;
    deflateEnd(&z);
    REQUIRE(rlen >= 6 && (real[1] & 0x20)); /* FDICT set */
    /* the stream is valid: zlib given the dictionary reads it back */
    memset(&z, 0, sizeof z);
    REQUIRE(inflateInit(&z) == Z_OK);
    z.next_in = real;
    z.avail_in = (uInt)rlen;
    z.next_out = back;
    z.avail_out = (uInt)m;
    int zr = inflate(&z, Z_FINISH);
    if (zr == Z_NEED_DICT && inflateSetDictionary(&z, data, (uInt)dlen) == Z_OK)
        zr = inflate(&z, Z_FINISH);
    CHECK(zr == Z_STREAM_END && z.total_out == m && memcmp(back, data + dlen, m) == 0);
    inflateEnd(&z);
    /* CMF 0x78, FLG 0xBB (FDICT, FCHECK ok), DICTID, an empty fixed block, Adler-32 of nothing */
    static const uint8_t minimal[] = {0x78, 0xBB, 0x12, 0x34, 0x56, 0x78, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01};
    const uint8_t *in[2] = {real, minimal};
    size_t len[2] = {rlen, sizeof minimal}, caps[2] = {m, 64}, got[2], off[2];
    oc_status st[2];
    uint8_t *h_out = malloc(dev_batch_slots(2, caps, off));
    REQUIRE(h_out);
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZLIB;
    static const int runs[3] = {0, DEV_BATCH_PUBLIC, DEV_BATCH_PUBLIC | DEV_BATCH_DEVICE_ARRAYS};
    for (int r = 0; r < 3; r++) {
        dev_batch_run(DEV_BATCH_DECOMPRESS, &o, 2, in, len, caps, runs[r], h_out, got, st);
        for (size_t i = 0; i < 2; i++) {
            size_t rgot = 0, cg = 0;
            oc_status rst = inf_decode_chunk(&g_tables, g_crct, OC_ALGO_ZLIB, in[i], len[i], back, m, &rgot),
                      cst = OC_ERR_INTERNAL;
            const void *s = in[i];
            void *d = back;
            REQUIRE(oc_batch_decompress(g_cpu, &o, 1, &s, &len[i], &d, &caps[i], &cg, &cst) == OC_OK);
            EXPECT(st[i] == OC_ERR_NEEDS_DICTIONARY && rst == st[i] && cst == st[i],
                   "FDICT zlib #%zu (%s call%s): GPU %s, host core %s, CPU engine %s", i,
                   runs[r] ? "public" : "engine's own",
                   runs[r] & DEV_BATCH_DEVICE_ARRAYS ? ", device arrays" : "", oc_status_name(st[i]),
                   oc_status_name(rst), oc_status_name(cst));
        }
    }
    /* the size query (host-staged by the API for this family) */
    for (int r = 1; r < 3; r++) {
        dev_batch_run(DEV_BATCH_SIZES, &o, 2, in, len, NULL, runs[r], NULL, got, st);
        for (size_t i = 0; i < 2; i++) {
            const void *s = in[i];
            size_t cs = 0;
            oc_status cst = OC_ERR_INTERNAL;
            REQUIRE(oc_batch_decompressed_sizes(g_cpu, &o, 1, &s, &len[i], &cs, &cst) == OC_OK);
            EXPECT(st[i] == OC_ERR_NEEDS_DICTIONARY && cst == st[i],
                   "FDICT zlib #%zu size query%s: GPU context %s, CPU engine %s", i,
                   runs[r] & DEV_BATCH_DEVICE_ARRAYS ? " (device arrays)" : "", oc_status_name(st[i]),
                   oc_status_name(cst));
        }
    }
    free(h_out);
    free(real);
    free(back);
}

static uint8_t *load_data(size_t *size)
{
    static const char *files[] = {OC_SOURCE_DIR "/include/opencomp.h", "/usr/share/common-licenses/GPL-3",
                                  "/bin/sh", OC_SOURCE_DIR "/src/cuda/codecs/deflate/inflate_core.h"};
    size_t cap = (size_t)3 << 20, k = 0;
    uint8_t *buf = malloc(cap);
    REQUIRE(buf);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        FILE *f = fopen(files[i], "rb");
        if (!f)
            continue;
        k += fread(buf + k, 1, cap / 6 < cap - k ? cap / 6 : cap - k, f);
        fclose(f);
    }
    for (uint64_t x = 88172645463325252ull; k + 8 <= cap * 3 / 4; k += 8) { /* a sorted-ish int64 column */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t v = k / 64 + (x & 3);
        memcpy(buf + k, &v, 8);
    }
    for (; k < cap; k++) /* noise: stored blocks */
        buf[k] = (uint8_t)rnd();
    *size = cap;
    return buf;
}

int main(void)
{
    if (!oc_engine_available(OC_ENGINE_CUDA)) {
        printf("SKIP: test_cuda_deflate needs a CUDA GPU (%s); run scripts/gpu-check on a GPU machine\n",
               oc_build_info());
        return 0;
    }
    const char *small = getenv("OC_TEST_SMALL");
    g_small = small ? (small[0] == '2' ? 2 : 1) : 0;
    dck_crc_table_fill(g_crct, 0, 1);
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CUDA;
    REQUIRE(oc_context_create(&co, &g_gpu) == OC_OK);
    co.engine = OC_ENGINE_CPU;
    co.num_threads = 2;
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    size_t n;
    uint8_t *data = load_data(&n);
    size_t use = g_small ? n / 8 : n;
    static const oc_algorithm algos[3] = {OC_ALGO_DEFLATE, OC_ALGO_ZLIB, OC_ALGO_GZIP};
    for (int ai = 0; ai < 3; ai++) {
        oc_algorithm a = algos[ai];
        list l = {0};
        valid_streams(&l, a, data, use, 65536);
        valid_streams(&l, a, data, use / 3, 12345);
        if (!g_small)
            valid_streams(&l, a, data, n, (size_t)1 << 20);
        uint8_t *want = NULL;
        if (a == OC_ALGO_GZIP) { /* several members with every header field */
            size_t cs;
            uint8_t *g = gzip_all_fields(data, 70000, 3, &cs);
            want = malloc(3 * 70000);
            for (int m = 0; m < 3; m++)
                memcpy(want + m * 70000, data, 70000);
            add(&l, g, cs, 3 * 70000, want, 3 * 70000);
        }
        run_list("valid", a, &l, 0);
        run_list("valid (device arrays)", a, &l, 1);
        list_free(&l);
        free(want);
        hostile_streams(&l, a, data, use, g_small == 2 ? 60 : g_small ? 300 : 3000);
        run_list("hostile", a, &l, a == OC_ALGO_ZLIB);
        list_free(&l);
        if (a == OC_ALGO_ZLIB)
            fdict_check(data, n);
        static const int levels[] = {1, 2, 6, 9, 12};
        for (int li = 0; li < 5; li++)
            if (!g_small || levels[li] == 1 || levels[li] == 9)
                compress_check(a, levels[li], data, g_small ? use / 2 : use, li & 1 ? 65536 : 40000);
        /* chunks at every byte alignment (the greedy parser loads aligned words) */
        compress_check(a, 1, data, use / 4, 30001);
        printf("  %-8s valid and hostile chunks decoded, chunks compressed on the GPU done\n",
               oc_algorithm_name(a));
    }
    free(data);
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    if (g_failures) {
        printf("test_cuda_deflate: %d failures\n", g_failures);
        return 1;
    }
    printf("test_cuda_deflate: all checks passed\n");
    return 0;
}
