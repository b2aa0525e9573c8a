/*
 * test_cuda_ans.c - ANS on the GPU (src/cuda/codecs/ans/) against the CPU
 * codec (the same core compiled as C), through the public batched API on
 * device memory.
 *
 * Guards: (1) for bytes (|u1) and 16-bit values (<f2, bf16: the high byte
 * coded) on real data (the bench corpus when bench/corpus-data is there:
 * text, ELF files, bf16 weights made of weights_minilm's float32 high
 * halves; else generated data of those shapes, and random bytes, stored;
 * also bytes of 96 equally likely values, ~13.5 KiB of words a tile, so
 * that every lane takes a word every ~5 steps and its window in the
 * decoder is topped up most often) in 64 KiB chunks, a 1 MiB chunk and sizes 0, 1, 7, 100003, the GPU writes
 * exactly the CPU's bytes, and both decode each other's streams; (2) one
 * chunk of up to 48 MiB (thousands of tiles of one chunk, on every SM)
 * decodes on the GPU; (3) hostile input: every prefix of a small chunk,
 * sampled prefixes and byte flips of real chunks and a lying tile table
 * give the CPU's status on the GPU, the CPU's bytes when OK, and never a
 * byte past the capacity (guard bytes); (4) the size query gives the CPU's
 * status and size; (5) one byte less output: OUTPUT_TOO_SMALL both ways.
 * (6) format version 1 (data written before version 2, which the encoders
 * write now): the core's v1 writer's chunks decode on the GPU to the data,
 * and their byte flips give the CPU's statuses.  (7) compression into
 * tight capacities (the coded size, one byte less, far less), for a 64 KiB
 * chunk and for chunks of more tiles than the encoder's CTA has warps (coded
 * in rounds whose tiles are written before the last round decides the
 * mode): the CPU's status, the CPU's bytes when OK, and no byte written
 * past the capacity (guard bytes); random bytes in one 300000-byte chunk
 * (rounds, then stored over them) give the CPU's bytes; chunks of 100003
 * bytes (inputs at odd addresses: the histogram's vectors start at the
 * first 16-byte boundary, the bytes before and after counted one a thread).
 * (8) the decoder's CTAs of 2 warps (what a caller's 16-bit data type
 * picks: the type reaches the decoder as a hint of the chunks' shape,
 * g_decode_type) on every column, bytes included (4-tile chunks in groups
 * of 2): (1)'s round trips, (2), (3) and (4) again; the other cases decode
 * with no type (CTAs of 4 warps, 16-bit chunks included).
 * It prints, never checks, the decode and compress GB/s of a 1 GiB batch
 * of 64 KiB chunks (not with OC_TEST_SMALL, as under compute-sanitizer).
 *
 * Without a GPU (CI) the test says so and passes; scripts/gpu-check runs
 * it on a GPU machine.
 */
#define _POSIX_C_SOURCE 200809L
#define OWN_GPU_TEST_ALGO OC_ALGO_ANS
#include "cores/ans/ans_core.h"
#include "helpers/own_gpu_test.h"

/* The corpus column, or a generated one of the same shape. */
static column get_column(const char *file, oc_data_type type, size_t max)
{
    column c = {file, type, NULL, 0};
    const char *dir = getenv("OC_CORPUS_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : OC_SOURCE_DIR "/bench/corpus-data", file);
    int halves = type == OC_TYPE_BF16; /* bf16: the high halves of float32 weights */
    c.data = read_file(path, halves ? 2 * max : max, &c.size);
    if (c.data && c.size && halves) {
        size_t m = c.size / 4;
        for (size_t i = 0; i < m; i++)
            c.data[2 * i] = c.data[4 * i + 2], c.data[2 * i + 1] = c.data[4 * i + 3];
        c.size = 2 * m;
    }
    if (c.data && c.size)
        return c;
    free(c.data);
    c.data = malloc(max);
    REQUIRE(c.data);
    c.size = max;
    for (size_t i = 0; i + 1 < max; i += 2) {
        uint64_t v = rng();
        if (type == OC_TYPE_U8) { /* text-like bytes */
            c.data[i] = (uint8_t)(v % 16 < 12 ? 'a' + v % 8 : ' ' + (v >> 8) % 64);
            c.data[i + 1] = (uint8_t)(' ' + (v >> 16) % 60);
        } else { /* float16-like: a narrow exponent byte, random low byte */
            c.data[i] = (uint8_t)(v >> 16);
            c.data[i + 1] = (uint8_t)((0x30 + (v & 7) + ((v >> 3) & 7)) | ((v >> 8) & 0x80));
        }
    }
    return c;
}

/* (6) version 1 chunks (the core's v1 writer) on the GPU: the data back,
 * then byte flips give the CPU's statuses. */
static void v1_chunks(const column *c)
{
    static ans_ws ws;
    size_t chunk = 65536, slot = chunk + 64, n = 0;
    const uint8_t *src[MAXN] = {NULL};
    size_t len[MAXN] = {0}, cap[MAXN] = {0};
    for (size_t off = 0; off < c->size && n < 16; off += chunk) {
        size_t m = c->size - off < chunk ? c->size - off : chunk;
        uint8_t *p = malloc(slot);
        REQUIRE(p);
        uint64_t got = 0;
        REQUIRE(ans_compress_chunk_v(&ws, 1, c->data + off, m, (uint32_t)c->type, p, slot, &got) == OC_OK);
        EXPECT(p[1] == 1, "%s: not a version 1 chunk", c->name);
        src[n] = p, len[n] = (size_t)got, cap[n++] = m;
    }
    uint8_t *out[MAXN];
    size_t gs[MAXN];
    oc_status gst[MAXN];
    gpu_decode(n, src, len, cap, out, gs, gst);
    for (size_t i = 0; i < n; i++) {
        EXPECT(gst[i] == OC_OK && gs[i] == cap[i] && !memcmp(out[i], c->data + i * chunk, cap[i]),
               "%s: v1 chunk %zu: %s", c->name, i, oc_status_name(gst[i]));
        free(out[i]);
    }
    same_status("v1", n, src, len, cap);
    size_t nf = 0;
    const uint8_t *fl[MAXN] = {NULL};
    size_t fl_len[MAXN] = {0}, fl_cap[MAXN] = {0};
    for (size_t k = 0; k < len[0] && nf < 400; k += 1 + len[0] / 400) {
        uint8_t *p = malloc(len[0]);
        REQUIRE(p);
        memcpy(p, src[0], len[0]);
        p[k] ^= (uint8_t)(1u << (k % 8));
        fl[nf] = p, fl_len[nf] = len[0], fl_cap[nf++] = cap[0];
    }
    same_status("v1 flip", nf, fl, fl_len, fl_cap);
    for (size_t i = 0; i < nf; i++)
        free((void *)fl[i]);
    for (size_t i = 0; i < n; i++)
        free((void *)src[i]);
}

/* (7) The first `chunk` bytes of c compressed on the GPU into capacities
 * around the coded size: the CPU's status (and bytes), nothing past the
 * capacity. */
static void compress_caps(const column *c, size_t chunk, const oc_typed_options *t)
{
    enum { GUARD_N = 256 };
    size_t m = c->size < chunk ? c->size : chunk, bound = oc_compress_bound(OC_ALGO_ANS, m);
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ANS;
    o.typed = *t;
    uint8_t *ref = malloc(bound), *host = malloc(bound + GUARD_N), *got = malloc(bound + GUARD_N);
    REQUIRE(ref && host && got);
    const void *sp = c->data;
    void *dp = ref;
    size_t z = 0;
    oc_status st = OC_OK;
    CHECK(oc_batch_compress(g_cpu, &o, 1, &sp, &m, &dp, &bound, &z, &st) == OC_OK);
    EXPECT(st == OC_OK, "%s: CPU compress %s", c->name, oc_status_name(st));
    uint8_t *din = dev_alloc(m), *dout = dev_alloc(bound + GUARD_N);
    copy(din, c->data, m);
    const size_t caps[] = {z, z - 1, z - 200, z / 2};
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        size_t cap = caps[k], cz = 0, gz = 0;
        oc_status cst = OC_OK, gst = OC_OK;
        dp = host;
        CHECK(oc_batch_compress(g_cpu, &o, 1, &sp, &m, &dp, &cap, &cz, &cst) == OC_OK);
        memset(got, 0xA5, cap + GUARD_N);
        copy(dout, got, cap + GUARD_N);
        const void *dsp = din;
        void *ddp = dout;
        CHECK(oc_batch_compress(g_gpu, &o, 1, &dsp, &m, &ddp, &cap, &gz, &gst) == OC_OK);
        REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
        copy(got, dout, cap + GUARD_N);
        EXPECT(gst == cst, "%s chunk %zu, capacity %zu of %zu: GPU %s, CPU %s", c->name, m, cap, z,
               oc_status_name(gst), oc_status_name(cst));
        if (gst == OC_OK && cst == OC_OK)
            EXPECT(gz == cz && !memcmp(got, host, cz), "%s capacity %zu: GPU bytes differ", c->name, cap);
        size_t bad = 0;
        for (size_t g = 0; g < GUARD_N; g++)
            bad += got[cap + g] != 0xA5;
        EXPECT(bad == 0, "%s chunk %zu, capacity %zu: %zu bytes past the capacity written", c->name, m, cap,
               bad);
    }
    printf("%-24s chunk %7zu: capacities %zu, -1, -200, /2: the CPU's statuses, nothing past them\n", c->name,
           m, z);
    dev_free(din, m);
    dev_free(dout, bound + GUARD_N);
    free(ref), free(host), free(got);
}

/* ANS's options in the log: the data type. */
static void options_label(const oc_typed_options *t, char *buf, size_t n)
{
    snprintf(buf, n, "type %2d%s", (int)t->data_type, g_decode_type ? ", decoded as 16-bit" : "");
}

int main(void)
{
    if (!own_gpu_begin("test_cuda_ans"))
        return 0;
    size_t max = g_small ? ((size_t)1 << 20) : ((size_t)8 << 20);
    column cols[] = {get_column("text_linux_docs.txt", OC_TYPE_U8, max),
                     get_column("elf_gdb_cmake_libstdcxx.tar", OC_TYPE_U8, max),
                     get_column("weights_minilm_l0-1.f32", OC_TYPE_BF16, max),
                     get_column("f16-generated", OC_TYPE_F16, max),
                     {"96 values", OC_TYPE_U8, malloc(max), max}};
    size_t ncols = sizeof cols / sizeof cols[0];
    REQUIRE(cols[4].data);
    for (size_t i = 0; i < max; i++) /* 6.6 bits a byte: ratio ~1.2, tiles of ~13.5 KiB of words */
        cols[4].data[i] = (uint8_t)(32u + rng() % 96u);
    {
        /* the column's point: a 64 KiB chunk codes to more than 48000 bytes, ~13.5 KiB of words
         * a tile, so the decoder's windows are topped up every few blocks of steps */
        static ans_ws ws;
        uint8_t *p = malloc(70000);
        REQUIRE(p);
        uint64_t got = 0;
        REQUIRE(ans_compress_chunk_v(&ws, ANS_VERSION, cols[4].data, 65536, OC_TYPE_U8, p, 70000, &got) ==
                OC_OK);
        EXPECT(p[OWN_HEADER_SIZE] == 1 && got > 48000 && got < 65536, "96 values: %llu bytes, mode %u",
               (unsigned long long)got, (unsigned)p[OWN_HEADER_SIZE]);
        free(p);
    }
    column rnd = {"random", OC_TYPE_U8, malloc(300000), 300000};
    REQUIRE(rnd.data);
    for (size_t i = 0; i < rnd.size; i++)
        rnd.data[i] = (uint8_t)rng();
    for (size_t i = 0; i < ncols; i++) {
        oc_typed_options t = {cols[i].type, 0, 0, 0};
        same_bytes(&cols[i], 65536, g_small ? 8 : 128, &t);
        same_bytes(&cols[i], (size_t)1 << 20, 2, &t);
        same_bytes(&cols[i], 100003, 6, &t); /* inputs at odd offsets: the histogram's edge bytes */
        static const oc_data_type types[] = {OC_TYPE_U8,   OC_TYPE_I8,  OC_TYPE_F16,
                                             OC_TYPE_BF16, OC_TYPE_U16, OC_TYPE_I16};
        for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
            oc_typed_options u = {types[k], 0, 0, 0};
            column odd = cols[i];
            odd.size = 100003;
            same_bytes(&odd, 65536, 4, &u);
        }
    }
    oc_typed_options tr = {OC_TYPE_U8, 0, 0, 0}, trb = {OC_TYPE_BF16, 0, 0, 0};
    same_bytes(&rnd, 65536, 8, &tr);
    same_bytes(&rnd, rnd.size, 1, &tr); /* 19 tiles: rounds, then stored */
    same_bytes(&rnd, rnd.size, 1, &trb);
    for (size_t i = 0; i < ncols; i++) {
        oc_typed_options ct = {cols[i].type, 0, 0, 0};
        compress_caps(&cols[i], 65536, &ct);
        compress_caps(&cols[i], (size_t)1 << 20, &ct);
    }
    static const size_t tiny[] = {0, 1, 7};
    for (size_t k = 0; k < 3; k++) {
        column z = cols[2];
        z.size = tiny[k];
        oc_typed_options t = {OC_TYPE_F16, 0, 0, 0};
        same_bytes(&z, 65536, 1, &t);
    }
    column big =
        get_column("text_linux_docs.txt", OC_TYPE_U8, g_small ? ((size_t)1 << 20) : ((size_t)48 << 20));
    oc_typed_options bt = {big.type, 0, 0, 0};
    large_chunk(&big, &bt);
    free(big.data);
    for (size_t i = 0; i < ncols; i++) {
        oc_typed_options ht = {cols[i].type, 0, 0, 0}, st = {cols[i].type, 0, 0, 0};
        hostile(&cols[i], &ht);
        sizes(&cols[i], &st);
        v1_chunks(&cols[i]);
    }
    /* (8) the same with the 16-bit hint: CTAs of 2 warps whatever the chunks hold */
    g_decode_type = OC_TYPE_BF16;
    for (size_t i = 0; i < ncols; i++) {
        oc_typed_options t = {cols[i].type, 0, 0, 0}, u = {OC_TYPE_U8, 0, 0, 0};
        same_bytes(&cols[i], 65536, g_small ? 8 : 64, &t);
        same_bytes(&cols[i], (size_t)1 << 20, 2, &t);
        column odd = cols[i];
        odd.size = 100003;
        same_bytes(&odd, 65536, 4, &t);
        same_bytes(&odd, 65536, 4, &u);
        hostile(&cols[i], &t);
        sizes(&cols[i], &t);
    }
    same_bytes(&rnd, 65536, 8, &tr);
    big = get_column("text_linux_docs.txt", OC_TYPE_U8, g_small ? ((size_t)1 << 20) : ((size_t)48 << 20));
    large_chunk(&big, &bt);
    free(big.data);
    printf("(8) the decode with CTAs of 2 warps (the 16-bit hint): done\n");
    g_decode_type = OC_TYPE_DEFAULT;
    if (!g_small) {
        for (size_t i = 0; i < ncols; i++) {
            oc_typed_options d = {cols[i].type, 0, 0, 0};
            speed(&cols[i], &d);
        }
    }
    free(rnd.data);
    for (size_t i = 0; i < ncols; i++)
        free(cols[i].data);
    return own_gpu_end("test_cuda_ans");
}
