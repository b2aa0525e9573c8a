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
 * size; (5) one byte less output: OUTPUT_TOO_SMALL in both directions;
 * (6) every output at an odd address (the GPU decoder stores elements of
 * 2-8 bytes whole where the output is aligned, byte by byte where not):
 * the same values, nothing written past a capacity.  It
 * prints, never checks, the decode and compress GB/s of a 1 GiB batch of
 * 64 KiB chunks (not with OC_TEST_SMALL, as under compute-sanitizer).
 *
 * `--race` runs only (1), two 64 KiB chunks a column as its type and as
 * bf16, for compute-sanitizer --tool racecheck (the whole test ran past
 * 35 s under it in session 11's call B).
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

/* Bitcomp's options in the log: the algorithm type. */
static void options_label(const oc_typed_options *t, char *buf, size_t n)
{
    snprintf(buf, n, "type %2d algorithm_type %d", (int)t->data_type, t->algorithm_type);
}

int main(int argc, char **argv)
{
    if (!own_gpu_begin("test_cuda_bitcomp"))
        return 0;
    /* --race: only (1) on two 64 KiB chunks of each column, as its type and
     * as bf16 (every block coding, format version 2's included), small
     * enough for compute-sanitizer --tool racecheck within a minute */
    int race = argc > 1 && !strcmp(argv[1], "--race");
    if (race)
        g_small = 1;
    size_t max = g_small ? ((size_t)1 << 20) : ((size_t)8 << 20);
    column cols[] = {get_column("tpch_l_orderkey.i64", OC_TYPE_I64, max),
                     get_column("tpch_l_shipdate.i32", OC_TYPE_I32, max),
                     get_column("tpch_l_extendedprice.f64", OC_TYPE_F64, max),
                     get_column("tpch_l_quantity.f64", OC_TYPE_F64, max),
                     get_column("sorted_partkey.i64", OC_TYPE_I64, max),
                     get_column("weights_minilm_l0-1.f32", OC_TYPE_F32, max)};
    size_t ncols = sizeof cols / sizeof cols[0];
    if (race) {
        for (size_t i = 0; i < ncols; i++) {
            oc_typed_options t = {cols[i].type, 0, 0, 0}, h = {OC_TYPE_BF16, 0, 0, 0};
            same_bytes(&cols[i], 65536, 2, &t);
            same_bytes(&cols[i], 65536, 2, &h);
            free(cols[i].data);
        }
        return own_gpu_end("test_cuda_bitcomp");
    }
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
    /* (6) every output at an odd address, every column as its type and as bf16 */
    g_out_skew = 1;
    for (size_t i = 0; i < ncols; i++) {
        oc_typed_options t = {cols[i].type, 0, 0, 0}, h = {OC_TYPE_BF16, 0, 0, 0};
        same_bytes(&cols[i], 65536, g_small ? 2 : 8, &t);
        same_bytes(&cols[i], 65536, 2, &h);
    }
    g_out_skew = 0;
    static const size_t tiny[] = {0, 1, 7};
    for (size_t k = 0; k < 3; k++) {
        column z = cols[0];
        z.size = tiny[k];
        oc_typed_options t = {OC_TYPE_I64, 0, 0, 0};
        same_bytes(&z, 65536, 1, &t);
    }
    column big =
        get_column("tpch_l_orderkey.i64", OC_TYPE_I64, g_small ? ((size_t)1 << 20) : ((size_t)48 << 20));
    oc_typed_options bt = {big.type, 0, 0, 0};
    large_chunk(&big, &bt);
    free(big.data);
    for (size_t i = 0; i < ncols; i++) {
        oc_typed_options ht = {cols[i].type, 0, 0, 0}, st = {cols[i].type, 0, 0, 0};
        hostile(&cols[i], &ht);
        sizes(&cols[i], &st);
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
    return own_gpu_end("test_cuda_bitcomp");
}
