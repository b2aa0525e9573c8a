/*
 * ans3_cpu_check.c - why this exists: the v3 reference (ans3_ref.h) is what
 * the GPU's v3 decoder is checked against, so it must itself round-trip on
 * real data, reject damage without reading outside its buffers, and cost
 * only what the NOTES predicted in ratio.  For each file (64 KiB chunks as
 * |u1; a .f32 file also as bf16, its values' high halves, as <f2): v3
 * compress -> decompress == input; the v2 core's size beside it (the ratio
 * of both is printed); generated edge cases (lengths around 32, 64 and a
 * tile, constant, two symbols, odd bf16 lengths); and damaged chunks (a
 * byte flipped, the chunk truncated) under ASan/UBSan: a status, never a
 * fault.  No GPU.
 *
 *   make -C bench/gpu/dev check-ans3   (CORPUS=dir, default bench/corpus-data)
 *
 * Exit status 0 only if every round trip matched.
 */
#include "ans3_ref.h"

#include <stdio.h>
#include <stdlib.h>

#define CH 65536u

static ans3_ws g_ws3;
static ans_ws g_ws2;
static long g_fail, g_cases;
static uint64_t g_rng = 0x2545f4914f6cdd1dull;

static uint64_t rng_next(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* One chunk: v3 round trip, v2 size; damaged copies decode to a status. Returns the v3 size. */
static uint64_t one(const uint8_t *src, uint64_t n, uint32_t dtype, uint64_t *v2size, int damage)
{
    static uint8_t comp[2 * CH + 64], comp2[2 * CH + 64], dec[CH + 64], bad[2 * CH + 64];
    uint64_t c3 = 0, c2 = 0, got = 0;
    g_cases++;
    if (ans3_compress_chunk(&g_ws3, src, n, dtype, comp, sizeof comp, &c3) != OC_OK ||
        ans_compress_chunk_v(&g_ws2, 2, src, n, dtype, comp2, sizeof comp2, &c2) != OC_OK) {
        fprintf(stderr, "compress failed (n %llu)\n", (unsigned long long)n);
        g_fail++;
        return 0;
    }
    *v2size = c2;
    oc_status st = ans3_decompress_chunk(&g_ws3, comp, c3, dec, CH, &got);
    if (st != OC_OK || got != n || memcmp(dec, src, n) != 0) {
        fprintf(stderr, "v3 round trip failed: n %llu dtype %u status %d got %llu\n", (unsigned long long)n,
                dtype, (int)st, (unsigned long long)got);
        g_fail++;
    }
    /* the v2 decoder must refuse v3 (a version it does not know) */
    if (ans_decompress_chunk(&g_ws2, comp, c3, dec, CH, &got) != OC_ERR_CORRUPT) {
        fprintf(stderr, "the v2 core accepted a v3 chunk\n");
        g_fail++;
    }
    for (int d = 0; d < damage; d++) {
        uint64_t len = c3;
        memcpy(bad, comp, c3);
        if (d % 4 == 3)
            len = rng_next() % c3;
        else
            bad[8 + rng_next() % (c3 - 8)] ^= (uint8_t)(1u << (rng_next() % 8));
        /* exactly-sized heap copy: ASan catches any read past its end */
        uint8_t *h = (uint8_t *)malloc(len ? len : 1);
        memcpy(h, bad, len);
        (void)ans3_decompress_chunk(&g_ws3, h, len, dec, CH, &got);
        free(h);
    }
    return c3;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = (uint8_t *)malloc(sz ? (size_t)sz : 1);
    *n = fread(b, 1, (size_t)sz, f);
    fclose(f);
    return b;
}

static void file_rows(const char *name, const uint8_t *b, size_t n, uint32_t dtype)
{
    uint64_t t3 = 0, t2 = 0, raw = 0;
    for (size_t at = 0; at < n; at += CH) {
        uint64_t len = n - at < CH ? n - at : CH, c2 = 0;
        t3 += one(b + at, len, dtype, &c2, at % (8 * CH) == 0 ? 8 : 0);
        t2 += c2;
        raw += len;
    }
    printf("%-36s %-4s %9llu bytes: ratio v2 %.4f, v3 %.4f (v3 %+lld bytes, %.1f a chunk)\n", name,
           dtype == OC_TYPE_BF16 ? "bf16" : "|u1", (unsigned long long)raw, (double)raw / (double)t2,
           (double)raw / (double)t3, (long long)(t3 - t2), (double)(long long)(t3 - t2) / (double)((n + CH - 1) / CH));
}

int main(int argc, char **argv)
{
    static uint8_t g[CH];
    uint64_t c2;
    /* generated: skewed bytes at lengths around lanes, pairs of steps and tiles */
    const uint64_t lens[] = {1, 2, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 129, 1000, 16383, 16384, 16385,
                             16448, 32767, 40000, CH};
    for (uint64_t i = 0; i < CH; i++) {
        uint64_t r = rng_next();
        g[i] = (uint8_t)((r & 7) ? 'a' + (r >> 8) % 5 : (r >> 16) & 0xff);
    }
    for (size_t j = 0; j < sizeof lens / sizeof lens[0]; j++) {
        one(g, lens[j], OC_TYPE_U8, &c2, 8);
        one(g, lens[j], OC_TYPE_BF16, &c2, 4);
    }
    memset(g, 'x', CH);
    one(g, CH, OC_TYPE_U8, &c2, 4);
    for (uint64_t i = 0; i < CH; i++)
        g[i] = (uint8_t)(rng_next() & 1 ? 'p' : 'q');
    one(g, CH, OC_TYPE_U8, &c2, 4);
    one(g, 5000, OC_TYPE_U8, &c2, 4);
    for (uint64_t i = 0; i < CH; i++)
        g[i] = (uint8_t)rng_next();
    one(g, CH, OC_TYPE_U8, &c2, 4); /* stored (mode 0) */
    for (int a = 1; a < argc; a++) {
        size_t n = 0;
        uint8_t *b = slurp(argv[a], &n);
        if (!b) {
            fprintf(stderr, "cannot read %s\n", argv[a]);
            return 2;
        }
        const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];
        file_rows(base, b, n, OC_TYPE_U8);
        size_t L = strlen(argv[a]);
        if (L > 4 && strcmp(argv[a] + L - 4, ".f32") == 0) {
            size_t m = n / 4;
            uint8_t *bf = (uint8_t *)malloc(2 * m + 1);
            for (size_t i = 0; i < m; i++) {
                bf[2 * i] = b[4 * i + 2];
                bf[2 * i + 1] = b[4 * i + 3];
            }
            file_rows(base, bf, 2 * m, OC_TYPE_BF16);
            free(bf);
        }
        free(b);
    }
    printf("%ld chunks, %ld failures\n", g_cases, g_fail);
    return g_fail ? 1 : 0;
}
