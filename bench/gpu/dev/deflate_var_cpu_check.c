/*
 * deflate_var_cpu_check.c - decoder v3 (the library's core with an 11-bit
 * literal/length table) and the library's core (decoder v4: a lane per bit
 * offset) held to zlib and to decoder v2 (inflate_v2_core.h) on the host, no GPU needed
 * (DEFLATE_NOTES.md "Decoder v1: result, and decoders v2 / v3"; until
 * session 7 the reference was v1, removed since):
 *   1. every chunk of each file (64 KiB, then 1 MiB chunks), compressed by
 *      libdeflate (levels 1, 6, 12) and zlib (levels 1, 6, 9, and the
 *      Huffman-only, RLE and fixed-code strategies at 6) as raw deflate,
 *      zlib and gzip, must decode to its bytes;
 *   2. damaged variants of the first chunks (cuts, bit flips, a damaged
 *      trailer, random bytes, capacities from 0 to one byte short, and
 *      larger ones) must get v2's status and size, and v2's bytes when OK.
 * Usage: deflate_var_cpu_check [--max-bytes B] FILE...   (exit 0 only if all
 * agree)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

#include "deflate_host_core.h"

static size_t compress_one(int lib, int level, int strategy, oc_algorithm a, const uint8_t *src, size_t n,
                           uint8_t *dst, size_t cap)
{
    if (lib) {
        struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
        size_t r = a == OC_ALGO_ZLIB   ? libdeflate_zlib_compress(c, src, n, dst, cap)
                   : a == OC_ALGO_GZIP ? libdeflate_gzip_compress(c, src, n, dst, cap)
                                       : libdeflate_deflate_compress(c, src, n, dst, cap);
        libdeflate_free_compressor(c);
        return r;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    int wb = a == OC_ALGO_ZLIB ? 15 : a == OC_ALGO_GZIP ? 31 : -15;
    if (deflateInit2(&z, level, Z_DEFLATED, wb, 8, strategy) != Z_OK)
        return 0;
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)cap;
    int ret = deflate(&z, Z_FINISH);
    size_t r = ret == Z_STREAM_END ? z.total_out : 0;
    deflateEnd(&z);
    return r;
}

static uint32_t g_rng = 0x9e3779b9u;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

static long g_cases, g_fail;
static uint8_t *g_o1, *g_o2;

typedef oc_status (*decode_fn)(oc_algorithm, const uint8_t *, size_t, uint8_t *, size_t, size_t *);
#define NNEW 2
static const decode_fn g_new[NNEW] = {deflate_host_decode_v3, deflate_host_decode};
static const int g_ver[NNEW] = {3, 4}; /* v4: the library's */

/* v3 and v4 against v2 on one input and capacity. */
static void agree(const char *name, oc_algorithm a, const uint8_t *in, size_t n, size_t cap, const char *what)
{
    size_t s1 = 7;
    oc_status r1 = deflate_host_decode_v2(a, in, n, g_o1, cap, &s1);
    for (int v = 0; v < NNEW; v++) {
        size_t s2 = 7;
        oc_status r2 = g_new[v](a, in, n, g_o2, cap, &s2);
        g_cases++;
        if (r1 != r2 || s1 != s2 || (r1 == OC_OK && memcmp(g_o1, g_o2, s1) != 0)) {
            if (g_fail++ < 20)
                fprintf(stderr, "DIFF %s algo %d %s (n %zu cap %zu): v2 %d size %zu, v%d %d size %zu\n", name,
                        (int)a, what, n, cap, (int)r1, s1, g_ver[v], (int)r2, s2);
        }
    }
}

int main(int argc, char **argv)
{
    size_t max_bytes = (size_t)8 << 20;
    static const size_t chunks[2] = {65536, 1u << 20};
    size_t maxch = 1u << 20;
    uint8_t *comp = malloc(2 * maxch + 4096), *tmp = malloc(2 * maxch + 4096);
    g_o1 = malloc(maxch + 8192);
    g_o2 = malloc(maxch + 8192);
    long bad_total = 0;
    for (int f = 1; f < argc; f++) {
        if (!strcmp(argv[f], "--max-bytes") && f + 1 < argc) {
            max_bytes = strtoull(argv[++f], NULL, 0);
            continue;
        }
        FILE *fp = fopen(argv[f], "rb");
        if (!fp)
            continue;
        uint8_t *data = malloc(max_bytes);
        size_t n = fread(data, 1, max_bytes, fp);
        fclose(fp);
        const char *name = strrchr(argv[f], '/') ? strrchr(argv[f], '/') + 1 : argv[f];
        static const int libs[8] = {1, 1, 1, 0, 0, 0, 0, 0}, levels[8] = {1, 6, 12, 1, 6, 9, 6, 6};
        static const int strats[8] = {
            0, 0, 0, Z_DEFAULT_STRATEGY, Z_DEFAULT_STRATEGY, Z_DEFAULT_STRATEGY, Z_HUFFMAN_ONLY, Z_RLE};
        long bad = 0, decoded = 0;
        for (int ci = 0; ci < 2; ci++) {
            size_t CH = chunks[ci];
            for (int v = 0; v < 9; v++) {
                int lib = v < 8 ? libs[v] : 0, level = v < 8 ? levels[v] : 6;
                int strat = v < 8 ? strats[v] : Z_FIXED;
                if (ci == 1 && v != 1 && v != 4)
                    continue; /* 1 MiB chunks: libdeflate -6 and zlib -6 */
                for (int ai = 3; ai <= 5; ai++) {
                    oc_algorithm a = (oc_algorithm)ai;
                    for (size_t off = 0; off < n; off += CH) {
                        size_t m = n - off < CH ? n - off : CH;
                        size_t cs = compress_one(lib, level, strat, a, data + off, m, comp, 2 * maxch + 4096);
                        for (int nv = 0; nv < NNEW; nv++) {
                            size_t got = 0;
                            oc_status st = g_new[nv](a, comp, cs, g_o2, m, &got);
                            decoded++;
                            if (st != OC_OK || got != m || memcmp(g_o2, data + off, m) != 0) {
                                if (bad++ < 5)
                                    fprintf(stderr,
                                            "FAIL v%d %s chunk %zu lib %d level %d strat %d algo %d: %d\n",
                                            g_ver[nv], name, off / CH, lib, level, strat, ai, (int)st);
                            }
                        }
                        /* damage: the first 6 chunks of 64 KiB, three compressors */
                        if (ci != 0 || off / CH >= 6 || (v != 1 && v != 4 && v != 6))
                            continue;
                        agree(name, a, comp, cs, m, "whole");
                        size_t caps[6] = {0, 1, m / 3, m > 0 ? m - 1 : 0, m + 1, m + 4096};
                        for (int c = 0; c < 6; c++)
                            agree(name, a, comp, cs, caps[c], "capacity");
                        for (int k = 0; k < 12; k++) { /* cuts */
                            size_t cut = cs ? rnd() % cs : 0;
                            agree(name, a, comp, cut, m, "cut");
                            agree(name, a, comp, cut, m / 2, "cut, half capacity");
                        }
                        for (int k = 0; k < 40; k++) { /* flips */
                            memcpy(tmp, comp, cs);
                            int flips = 1 + (int)(rnd() % 3);
                            for (int q = 0; q < flips && cs; q++)
                                tmp[rnd() % cs] ^= (uint8_t)(1u << (rnd() % 8));
                            agree(name, a, tmp, cs, m + (k & 1) * 4096, "flip");
                            agree(name, a, tmp, cs, (k & 2) ? m / 2 : m - 1, "flip, short capacity");
                        }
                        if (cs > 8) {
                            memcpy(tmp, comp, cs);
                            tmp[cs - 5] ^= 0x10;
                            agree(name, a, tmp, cs, m, "trailer");
                        }
                        size_t rl = 64 + rnd() % 2048;
                        for (size_t q = 0; q < rl; q++)
                            tmp[q] = (uint8_t)rnd();
                        agree(name, a, tmp, rl, m, "random");
                    }
                }
            }
        }
        printf("%-28s %ld chunk decodes by v3 and v4, %ld wrong\n", name, decoded, bad);
        bad_total += bad;
        free(data);
    }
    printf("v3, v4 vs v2 on damaged input: %ld cases, %ld differ\n", g_cases, g_fail);
    printf("%s\n", bad_total || g_fail ? "FAILURES" : "v3 and v4 decode every chunk and agree with v2");
    free(comp);
    free(tmp);
    free(g_o1);
    free(g_o2);
    return bad_total || g_fail ? 1 : 0;
}
