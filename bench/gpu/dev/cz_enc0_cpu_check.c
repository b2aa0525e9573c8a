/*
 * cz_enc0_cpu_check.c - why this exists: the library's Cascaded encoder
 * (cascaded_core.h's cz_compress_chunk, one writing pass since session 8)
 * must write exactly the bytes of the two-pass encoder it replaced
 * (cz_enc0.h), the format's bytes since version 1.  This runs both on the CPU
 * (the same C11 source the GPU runs, one lane a warp) over the corpus's
 * integer columns and generated data (runs, constants, random, tiny and
 * odd-sized chunks, tiles that come out larger than raw), every element
 * type, every layer combination (0-3 RLEs x 0-3 deltas, bit-packing on
 * and off, the automatic choice), 1 and 8 warps, and short output
 * capacities, and compares sizes, statuses and bytes.  No GPU.
 *
 *   make -C bench/gpu/dev check-cz-enc0   (CORPUS=dir, default bench/corpus-data)
 *
 * Exit status 0 only if every comparison matched.
 */
#include "cz_enc0.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cz_ws g_ws;
static long g_cases, g_fail;

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void compare(const char *what, const uint8_t *src, size_t n, uint32_t type, cz_layers L, uint32_t nw,
                    size_t cap)
{
    size_t room = (size_t)cz_bound(n) + 64;
    uint8_t *a = malloc(room), *b = malloc(room);
    if (!a || !b) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(a, 0xa5, room);
    memset(b, 0xa5, room);
    uint64_t na = 0, nb = 0;
    oc_status sa = cz0_compress_chunk(&g_ws, src, n, type, L, a, cap, &na, nw);
    oc_status sb = cz_compress_chunk(&g_ws, src, n, type, L, b, cap, &nb, nw);
    g_cases++;
    int same = sa == sb && na == nb && (sa != OC_OK || !memcmp(a, b, (size_t)na));
    if (!same) {
        if (g_fail < 10)
            fprintf(
                stderr,
                "DIFFER %s: n %zu type %u layers %u/%u/%u nw %u cap %zu: two-pass %d %llu, library %d %llu\n",
                what, n, type, L.rles, L.deltas, L.bitpack, nw, cap, (int)sa, (unsigned long long)na, (int)sb,
                (unsigned long long)nb);
        g_fail++;
    }
    free(a);
    free(b);
}

/* Every layer combination, the automatic choice, 1 and 8 warps; a
 * capacity one byte short of the coded size. */
static void all_layers(const char *what, const uint8_t *src, size_t n, uint32_t type, int quick)
{
    size_t cap = (size_t)cz_bound(n);
    for (uint32_t r = 0; r <= 4; r++) {
        for (uint32_t d = 0; d <= (r == 4 ? 0u : 3u); d++) {
            for (uint32_t bp = 0; bp <= 1; bp++) {
                if (quick && !(r == 2 && d == 1) && r != 4 && !(r == 0 && d == 0))
                    continue;
                cz_layers L = {r, d, bp};
                compare(what, src, n, type, L, 8, cap);
                if (!quick)
                    compare(what, src, n, type, L, 1, cap);
                uint64_t out = 0;
                uint8_t *t = malloc(cap + 1);
                if (cz_compress_chunk(&g_ws, src, n, type, L, t, cap, &out, 8) == OC_OK && out > 0)
                    compare(what, src, n, type, L, 8, (size_t)out - 1);
                free(t);
            }
        }
    }
}

static const uint32_t k_types[] = {OC_TYPE_U8,  OC_TYPE_I8,  OC_TYPE_U16, OC_TYPE_I16,
                                   OC_TYPE_U32, OC_TYPE_I32, OC_TYPE_U64, OC_TYPE_I64};

static void generated(void)
{
    static uint8_t buf[65536 + 64];
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (int kind = 0; kind < 6; kind++) {
        for (size_t i = 0; i < sizeof buf; i++) {
            switch (kind) {
            case 0: /* random bytes: coded larger than raw, every stream written only while it fits */
                buf[i] = (uint8_t)rng_next(&s);
                break;
            case 1: /* zeros */
                buf[i] = 0;
                break;
            case 2: /* runs of random length of random bytes */
                buf[i] = (i == 0 || rng_next(&s) % 23 == 0) ? (uint8_t)rng_next(&s) : buf[i - 1];
                break;
            case 3: /* a ramp in 32-bit words */
                buf[i] = (uint8_t)((i / 4 * 3) >> (8 * (i % 4)));
                break;
            case 4: /* small values in 16-bit words with occasional large ones */
                buf[i] = (i & 1) ? (rng_next(&s) % 97 == 0 ? (uint8_t)rng_next(&s) : 0)
                                 : (uint8_t)(rng_next(&s) & 7);
                break;
            default: /* sorted 64-bit keys in runs */
                buf[i] = (uint8_t)(((i / 8) / 5 * 7) >> (8 * (i % 8)));
                break;
            }
        }
        static const size_t sizes[] = {65536, 65536 - 3, 16384, 16385, 4097, 100, 33, 9, 8, 1, 0};
        for (size_t t = 0; t < sizeof k_types / sizeof k_types[0]; t++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                char what[32];
                snprintf(what, sizeof what, "generated %d", kind);
                all_layers(what, buf, sizes[z], k_types[t], sizes[z] == 65536 && t > 1);
            }
    }
}

static void corpus_file(const char *dir, const char *name, uint32_t type, size_t max)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: not found\n", path);
        g_fail++;
        return;
    }
    uint8_t *p = malloc(max);
    size_t got = fread(p, 1, max, f);
    fclose(f);
    for (size_t at = 0; at + 65536 <= got; at += 65536) {
        cz_layers Ld = {2, 1, 1}, La = {4, 0, 1};
        compare(name, p + at, 65536, type, Ld, 8, (size_t)cz_bound(65536));
        if (at % (8 * 65536) == 0) {
            compare(name, p + at, 65536, type, La, 8, (size_t)cz_bound(65536));
            compare(name, p + at, 65536, OC_TYPE_U16, Ld, 8, (size_t)cz_bound(65536));
            compare(name, p + at, 65536, OC_TYPE_U8, Ld, 8, (size_t)cz_bound(65536));
        }
    }
    free(p);
}

/* A tile that codes larger than raw (random bytes, no bit-packing: the
 * run streams alone are twice the input) must not write past the raw
 * size: the stage's slack words after it stay zero (the writes OR bits in,
 * so any write there would show). */
static void no_overrun(void)
{
    static uint8_t tile[CZ_TILE_BYTES];
    uint32_t cnt = cz_tile_elems(1); /* 8192 bytes of u8 */
    uint64_t s = 12345;
    for (size_t i = 0; i < sizeof tile; i++)
        tile[i] = (uint8_t)rng_next(&s);
    for (uint32_t bp = 0; bp <= 1; bp++) {
        for (uint32_t r = 0; r <= 3; r++) {
            memset(g_ws.stage, 0, sizeof g_ws.stage);
            uint32_t size = cz_encode_tile(&g_ws, tile, cnt, 1, r, 1, bp, 8);
            int clean = 1;
            for (uint32_t k = cnt / 4u + 4u; k < CZ_STAGE_WORDS; k++)
                clean &= g_ws.stage[k] == 0;
            g_cases++;
            if (size != cnt || !clean) {
                fprintf(stderr, "OVERRUN: rles %u bitpack %u: size %u, slack %s\n", r, bp, size,
                        clean ? "clean" : "WRITTEN");
                g_fail++;
            }
        }
    }
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "../../corpus-data";
    no_overrun();
    generated();
    printf("generated: %ld comparisons, %ld differ\n", g_cases, g_fail);
    corpus_file(dir, "tpch_l_partkey.i32", OC_TYPE_I32, 8u << 20);
    corpus_file(dir, "tpch_l_shipdate.i32", OC_TYPE_I32, 8u << 20);
    corpus_file(dir, "tpch_l_orderkey.i64", OC_TYPE_I64, 8u << 20);
    corpus_file(dir, "sorted_partkey.i64", OC_TYPE_I64, 8u << 20);
    printf("the library's encoder vs the two-pass one (cz_enc0.h): %ld comparisons, %ld differ: %s\n",
           g_cases, g_fail, g_fail ? "FAILED" : "the same bytes and statuses");
    return g_fail ? 1 : 0;
}
