/*
 * test_cuda_cascaded.c - Cascaded on the GPU (src/cuda/codecs/cascaded/)
 * against the CPU codec (the same core compiled as C), through the public
 * batched API on device memory.
 *
 * Guards: (1) for every data type x layer choice (nvCOMP's default, the
 * automatic choice, none, the most layers, no bit-packing, RLEs that
 * follow each other) on real
 * columns (the bench corpus when bench/corpus-data is there: TPC-H keys,
 * dates, quantities, sorted keys, text; else generated columns of those
 * shapes) in 64 KiB chunks, a 1 MiB chunk and sizes 0, 1, 7, 100003 (every
 * type, nVCOMP's layers on the unsigned integers: the one-pass decoder of
 * 4- and 8-byte types with a short last tile), the
 * GPU writes exactly the CPU's bytes, and both decode each other's
 * streams to the input; (2) one chunk of up to 48 MiB (thousands of
 * tiles of one chunk, on every SM) decodes on the GPU; (3) hostile input: every prefix of a
 * small chunk, sampled prefixes and byte flips of real chunks and a
 * 64 KiB chunk with a lying tile table give the CPU's status on the GPU,
 * the CPU's bytes when OK, and never a byte past the capacity (guard
 * bytes); (4) the size query gives the CPU's status and size; (5) one
 * byte less output: OUTPUT_TOO_SMALL in both directions; (6) format
 * versions: version 1 chunks (what the encoders wrote before session 11)
 * decode on the GPU as on the CPU, version 2's one-frame streams (mode 2)
 * are CORRUPT in a version 1 chunk on both, version 3 is CORRUPT.  It prints,
 * never checks, the decode and compress GB/s of a >= 1 GiB batch of
 * 64 KiB chunks (not with OC_TEST_SMALL, as under compute-sanitizer).
 *
 * `test_cuda_cascaded --race` runs a racecheck-sized list instead (the
 * full one gave compute-sanitizer's racecheck no verdict in 300 s): the
 * same real columns cut to 256 KiB, one 64 KiB chunk (4 tiles) a case,
 * every data type and every kind of layer list the decoder treats apart
 * (nVCOMP's layers, automatic, none, RLEs in a row, 3/1, 3/3, no
 * bit-packing), sizes 0, 1, 7 and an odd tail, one chunk of 256 KiB, ~16
 * prefixes and ~16 byte flips of two columns' streams, the size query,
 * the format versions (6) of one column:
 * every kernel and every decode path, with the same checks
 * (`--race 1`, `--race 2`: its two halves, for runs under a time limit).
 *
 * Without a GPU (CI) the test says so and passes; scripts/gpu-check runs
 * it on a GPU machine.
 */
#define _POSIX_C_SOURCE 200809L
#define OWN_GPU_TEST_ALGO OC_ALGO_CASCADED
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
    size_t w = type == OC_TYPE_U8 ? 1 : type == OC_TYPE_I32 ? 4 : 8;
    int64_t key = 1;
    for (size_t i = 0; i + w <= max; i += w) {
        int64_t v;
        if (!strcmp(file, "tpch_l_orderkey.i64")) /* sorted keys in runs of 1..7, gaps */
            v = (rng() % 4 == 0) ? (key += (rng() % 8 == 0 ? 25 : 1)) : key;
        else if (!strcmp(file, "tpch_l_shipdate.i32"))
            v = 8036 + (int64_t)(rng() % 2526);
        else if (!strcmp(file, "tpch_l_partkey.i32"))
            v = 1 + (int64_t)(rng() % 200000);
        else if (!strcmp(file, "sorted_partkey.i64"))
            v = (int64_t)(i / w / 30);
        else
            v = (int64_t)(rng() % 64 < 3 ? rng() : ' ' + rng() % 60);
        memcpy(c.data + i, &v, w);
    }
    return c;
}

/* Cascaded's options in the log: the layers. */
static void options_label(const oc_typed_options *t, char *buf, size_t n)
{
    snprintf(buf, n, "type %2d layers %#10x", (int)t->data_type, t->cascaded);
}

/* ---- (6) format versions ---------------------------------------------------------- */

static void versions(const column *c)
{
    size_t chunk = 65536, slot = oc_compress_bound(OWN_GPU_TEST_ALGO, chunk);
    batch b;
    batch_of(&b, c->data, c->size < chunk ? c->size : chunk, chunk, 1);
    oc_typed_options raw = {c->type, 0, OC_CASCADED_LAYERS(2, 1, 0), 0}, def = {c->type, 0, 0, 0};
    size_t rs = 0, ds = 0;
    oc_status st = OC_OK;
    uint8_t *r = compress(g_cpu, 0, &b, &raw, slot, &rs, &st); /* raw streams only: valid as version 1 */
    REQUIRE(st == OC_OK);
    uint8_t *d = compress(g_cpu, 0, &b, &def, slot, &ds, &st); /* mode 2 streams where they pay */
    REQUIRE(st == OC_OK && r[1] == 2 && d[1] == 2);
    uint8_t *r1 = malloc(rs), *d1 = malloc(ds), *d3 = malloc(ds);
    memcpy(r1, r, rs), memcpy(d1, d, ds), memcpy(d3, d, ds);
    r1[1] = 1, d1[1] = 1, d3[1] = 3;
    /* the hand-built tiles of test_codec_cascaded.c: 5 5 5 5 5 5 5 7 (i32) by one RLE (version 1),
     * and without layers in one mode 2 stream (version 2, and the same bytes as version 1) */
    static const uint8_t h1[] = {0x43, 0x01, 0x06, 0x00, 0x20, 0x00, 0x00, 0x00, 0x13, 0x00, 0x00,
                                 0x00, 0x01, 0x02, 0x00, 0x01, 0x03, 0x00, 0x00, 0x06, 0x02, 0x00,
                                 0x00, 0x05, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00};
    static const uint8_t h2[] = {0x43, 0x02, 0x06, 0x00, 0x20, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00,
                                 0x00, 0x08, 0x00, 0x02, 0x02, 0x05, 0x00, 0x00, 0x00, 0x00, 0x80};
    static const uint8_t h21[] = {0x43, 0x01, 0x06, 0x00, 0x20, 0x00, 0x00, 0x00, 0x0b, 0x00, 0x00, 0x00,
                                  0x00, 0x08, 0x00, 0x02, 0x02, 0x05, 0x00, 0x00, 0x00, 0x00, 0x80};
    const uint8_t *src[7] = {r1, d, d1, d3, h1, h2, h21};
    size_t len[7] = {rs, ds, ds, ds, sizeof h1, sizeof h2, sizeof h21};
    size_t cap[7] = {chunk, chunk, chunk, chunk, 32, 32, 32};
    same_status("versions", 7, src, len, cap);
    size_t got = 0;
    uint8_t *back = malloc(chunk);
    EXPECT(cpu_decode(r1, rs, back, chunk, &got) == OC_OK && got == b.len[0] && !memcmp(back, b.src[0], got),
           "%s: a version 1 chunk does not decode", c->name);
    EXPECT(cpu_decode(d3, ds, back, chunk, &got) == OC_ERR_CORRUPT, "%s: version 3 accepted", c->name);
    EXPECT(cpu_decode(h21, sizeof h21, back, 32, &got) == OC_ERR_CORRUPT, "mode 2 in version 1 accepted");
    EXPECT(cpu_decode(h2, sizeof h2, back, 32, &got) == OC_OK && got == 32, "the mode 2 tile: not decoded");
    printf("%-24s versions: 1 decodes, mode 2 in 1 and version 3 refused, GPU = CPU\n", c->name);
    free(back);
    free(r1), free(d1), free(d3), free(r), free(d);
}

/* The racecheck-sized list (--race [1|2]): see the header; part 1 is the
 * layer lists, part 2 the types, sizes, hostile input and size query, each
 * about half (0: both). */
static void race_cases(int part)
{
    size_t max = (size_t)256 << 10;
    column cols[] = {get_column("tpch_l_orderkey.i64", OC_TYPE_I64, max),
                     get_column("tpch_l_shipdate.i32", OC_TYPE_I32, max),
                     get_column("tpch_l_partkey.i32", OC_TYPE_I32, max),
                     get_column("sorted_partkey.i64", OC_TYPE_I64, max),
                     get_column("text_linux_docs.txt", OC_TYPE_U8, max)};
    size_t ncols = sizeof cols / sizeof cols[0];
    static const uint32_t each[] = {OC_CASCADED_DEFAULT, OC_CASCADED_AUTO, OC_CASCADED_LAYERS(2, 0, 1),
                                    OC_CASCADED_LAYERS(1, 2, 0)};
    static const uint32_t more[] = {OC_CASCADED_LAYERS(3, 1, 1), OC_CASCADED_LAYERS(3, 3, 1),
                                    OC_CASCADED_LAYERS(0, 0, 1)};
    for (size_t i = 0; i < ncols && part != 2; i++)
        for (size_t l = 0; l < sizeof each / sizeof each[0]; l++) {
            oc_typed_options t = {cols[i].type, 0, each[l], 0};
            same_bytes(&cols[i], 65536, 1, &t);
        }
    for (size_t i = 0; i < 3 && part != 2; i++)
        for (size_t l = 0; l < sizeof more / sizeof more[0]; l++) {
            oc_typed_options t = {cols[i].type, 0, more[l], 0};
            same_bytes(&cols[i], 65536, 1, &t);
        }
    if (part == 1) {
        for (size_t i = 0; i < ncols; i++)
            free(cols[i].data);
        return;
    }
    for (int ty = OC_TYPE_U8; ty < OC_TYPE_COUNT; ty++) { /* every type, an odd tail */
        oc_typed_options u = {(oc_data_type)ty, 0,
                              ty % 2 && ty <= OC_TYPE_I64 ? OC_CASCADED_DEFAULT : OC_CASCADED_AUTO, 0};
        column odd = cols[1];
        odd.size = 65536 + 4099;
        same_bytes(&odd, 65536, 2, &u);
    }
    static const size_t tiny[] = {0, 1, 7};
    for (size_t k = 0; k < 3; k++) {
        column z = cols[0];
        z.size = tiny[k];
        oc_typed_options t = {OC_TYPE_I64, 0, OC_CASCADED_DEFAULT, 0};
        same_bytes(&z, 65536, 1, &t);
    }
    oc_typed_options bt = {cols[0].type, 0, OC_CASCADED_DEFAULT, 0};
    large_chunk(&cols[0], &bt);
    for (size_t i = 0; i < 2; i++) {
        oc_typed_options ht = {cols[i].type, 0, OC_CASCADED_DEFAULT, 0};
        hostile(&cols[i], &ht);
    }
    oc_typed_options st = {cols[2].type, 0, OC_CASCADED_AUTO, 0};
    sizes(&cols[2], &st);
    versions(&cols[2]); /* mode 2 streams of an i32 column, version 1 chunks */
    for (size_t i = 0; i < ncols; i++)
        free(cols[i].data);
}

int main(int argc, char **argv)
{
    int race = argc >= 2 && !strcmp(argv[1], "--race");
    int part = argc == 3 ? atoi(argv[2]) : 0;
    if ((argc > 1 && !race) || argc > 3 || part < 0 || part > 2) {
        fprintf(stderr, "usage: test_cuda_cascaded [--race [1|2]]\n");
        return 2;
    }
    if (!own_gpu_begin("test_cuda_cascaded"))
        return 0;
    if (race) {
        g_small = 1;
        g_hostile_sample = 16;
        race_cases(part);
        return own_gpu_end(part == 1   ? "test_cuda_cascaded --race 1"
                           : part == 2 ? "test_cuda_cascaded --race 2"
                                       : "test_cuda_cascaded --race");
    }
    size_t max = g_small ? ((size_t)1 << 20) : ((size_t)8 << 20);
    column cols[] = {get_column("tpch_l_orderkey.i64", OC_TYPE_I64, max),
                     get_column("tpch_l_shipdate.i32", OC_TYPE_I32, max),
                     get_column("tpch_l_partkey.i32", OC_TYPE_I32, max),
                     get_column("sorted_partkey.i64", OC_TYPE_I64, max),
                     get_column("text_linux_docs.txt", OC_TYPE_U8, max)};
    size_t ncols = sizeof cols / sizeof cols[0];
    /* (2, 0) and (3, 1): RLE layers that follow each other (decoded without a delta between
     * them, the decoder's values buffer reused by two expansions in a row) */
    static const uint32_t layers[] = {OC_CASCADED_DEFAULT,         OC_CASCADED_AUTO,
                                      OC_CASCADED_LAYERS(0, 0, 1), OC_CASCADED_LAYERS(3, 3, 1),
                                      OC_CASCADED_LAYERS(1, 2, 0), OC_CASCADED_LAYERS(2, 0, 1),
                                      OC_CASCADED_LAYERS(3, 1, 1)};
    for (size_t i = 0; i < ncols; i++) {
        for (size_t l = 0; l < sizeof layers / sizeof layers[0]; l++) {
            oc_typed_options t = {cols[i].type, 0, layers[l], 0};
            same_bytes(&cols[i], 65536, g_small ? 8 : 128, &t);
        }
        oc_typed_options t = {cols[i].type, 0, OC_CASCADED_DEFAULT, 0};
        same_bytes(&cols[i], (size_t)1 << 20, 2, &t);
        /* every other type over the same bytes, odd sizes (a short last tile); nVCOMP's layers on
         * the unsigned integer types (the one-pass decode of 4- and 8-byte types) */
        for (int ty = OC_TYPE_U8; ty < OC_TYPE_COUNT; ty++) {
            oc_typed_options u = {(oc_data_type)ty, 0,
                                  ty % 2 && ty <= OC_TYPE_I64 ? OC_CASCADED_DEFAULT : OC_CASCADED_AUTO, 0};
            column odd = cols[i];
            odd.size = 100003;
            same_bytes(&odd, 65536, 4, &u);
        }
    }
    static const size_t tiny[] = {0, 1, 7};
    for (size_t k = 0; k < 3; k++) {
        column z = cols[0];
        z.size = tiny[k];
        oc_typed_options t = {OC_TYPE_I64, 0, OC_CASCADED_DEFAULT, 0};
        same_bytes(&z, 65536, 1, &t);
    }
    column big =
        get_column("tpch_l_orderkey.i64", OC_TYPE_I64, g_small ? ((size_t)1 << 20) : ((size_t)48 << 20));
    oc_typed_options bt = {big.type, 0, OC_CASCADED_DEFAULT, 0};
    large_chunk(&big, &bt);
    free(big.data);
    for (size_t i = 0; i < ncols; i++) {
        oc_typed_options ht = {cols[i].type, 0, OC_CASCADED_DEFAULT, 0},
                         st = {cols[i].type, 0, OC_CASCADED_AUTO, 0};
        hostile(&cols[i], &ht);
        sizes(&cols[i], &st);
        versions(&cols[i]);
    }
    if (!g_small) {
        for (size_t i = 0; i < ncols; i++) {
            oc_typed_options d = {cols[i].type, 0, OC_CASCADED_DEFAULT, 0};
            oc_typed_options a = {cols[i].type, 0, OC_CASCADED_AUTO, 0};
            speed(&cols[i], &d);
            speed(&cols[i], &a);
        }
    }
    for (size_t i = 0; i < ncols; i++)
        free(cols[i].data);
    return own_gpu_end("test_cuda_cascaded");
}
