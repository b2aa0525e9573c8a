/*
 * deflate_cpu_check.c - the GPU inflate core compiled for the host (one
 * lane), over whole files in 64 KiB chunks: every chunk compressed by
 * libdeflate (levels 1, 6, 9, 12) and zlib (levels 1, 6, 9) as raw deflate,
 * zlib and gzip must decode to its bytes.  Also prints, per 64 KiB of
 * output, the counts DEFLATE_NOTES.md's napkin math uses (symbols, matches,
 * batch flushes, where match sources come from).  No GPU needed.
 *
 * Usage: deflate_cpu_check FILE...     (exit 0 only if every chunk decoded)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>
#include <zlib.h>

struct inf_stats_t {
    double lookups, literals, slow, matches, match_bytes, flushes, hops, ring_reads, global_reads,
        fixed_blocks, dynamic_blocks;
};
static struct inf_stats_t inf_stats;
#define INF_STATS 1
#include "cuda/codecs/deflate/inflate_chunk_core.h"

static inf_tables g_tables;
static uint32_t g_crct[256];

static size_t compress_one(int lib, int level, oc_algorithm a, const uint8_t *src, size_t n, uint8_t *dst,
                           size_t cap)
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
    if (deflateInit2(&z, level, Z_DEFLATED, wb, 8, Z_DEFAULT_STRATEGY) != Z_OK)
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

int main(int argc, char **argv)
{
    dck_crc_table_fill(g_crct, 0, 1);
    const size_t CH = 65536;
    uint8_t *comp = malloc(2 * CH + 1024), *out = malloc(CH);
    int fails = 0;
    for (int f = 1; f < argc; f++) {
        FILE *fp = fopen(argv[f], "rb");
        if (!fp)
            continue;
        fseek(fp, 0, SEEK_END);
        size_t n = (size_t)ftell(fp);
        fseek(fp, 0, SEEK_SET);
        uint8_t *data = malloc(n ? n : 1);
        if (fread(data, 1, n, fp) != n)
            return 2;
        fclose(fp);
        const char *name = strrchr(argv[f], '/') ? strrchr(argv[f], '/') + 1 : argv[f];
        static const int libs[7] = {1, 1, 1, 1, 0, 0, 0}, levels[7] = {1, 6, 9, 12, 1, 6, 9};
        for (int v = 0; v < 7; v++) {
            for (int ai = 3; ai <= 5; ai++) {
                oc_algorithm a = (oc_algorithm)ai;
                memset(&inf_stats, 0, sizeof inf_stats);
                size_t ctot = 0, bad = 0;
                for (size_t off = 0; off < n; off += CH) {
                    size_t m = n - off < CH ? n - off : CH;
                    size_t cs = compress_one(libs[v], levels[v], a, data + off, m, comp, 2 * CH + 1024);
                    size_t got = 0;
                    oc_status st = inf_decode_chunk(&g_tables, g_crct, a, comp, cs, out, m, &got);
                    if (st != OC_OK || got != m || memcmp(out, data + off, m) != 0)
                        bad++;
                    ctot += cs;
                }
                fails += bad != 0;
                double k = (double)n / 65536;
                printf("%-28s %-10s %-7s ratio %6.3f %s", name, libs[v] ? "libdeflate" : "zlib",
                       a == OC_ALGO_DEFLATE ? "deflate"
                       : a == OC_ALGO_ZLIB  ? "zlib"
                                            : "gzip",
                       (double)n / ctot, bad ? "FAILED" : "ok");
                if (a == OC_ALGO_DEFLATE && n)
                    printf("  per 64K (level %d): lookups %.0f literals %.0f slow %.0f matches %.0f (%.1f B) "
                           "flushes %.0f ring %.0f global %.0f blocks %.1f",
                           levels[v], inf_stats.lookups / k, inf_stats.literals / k, inf_stats.slow / k,
                           inf_stats.matches / k, inf_stats.match_bytes / (inf_stats.matches + 1e-9),
                           inf_stats.flushes / k, inf_stats.ring_reads / k, inf_stats.global_reads / k,
                           (inf_stats.fixed_blocks + inf_stats.dynamic_blocks) / k);
                printf("\n");
            }
        }
        free(data);
    }
    free(comp);
    free(out);
    printf("%s\n", fails ? "FAILURES" : "every chunk decoded");
    return fails != 0;
}
