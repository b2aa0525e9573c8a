/*
 * zstd_cpu_check.c - runs the GPU Zstandard decoder's core
 * (src/cuda/codecs/zstd/zstd_decode_core.h) on the CPU, one lane, against libzstd.
 *
 * Why: the device machine is scarce; this program checks the same decoding
 * code here, under ASan/UBSan, on real files compressed by libzstd in every
 * shape the GPU must read: levels -5/1/3/19, 64 KiB and 1 MiB chunks, whole
 * files (multi-block frames), frames with and without content size and
 * checksum, concatenated frames with skippable frames between them, and
 * damaged inputs (byte flips, truncations, short outputs).
 *
 * Usage: zstd_cpu_check FILE...   (exit 0 when every check passes)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "cuda/codecs/zstd/zstd_decode_core.h"

static int g_fail;
static long g_checks;
static long g_stricter;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        g_checks++;                                                                                          \
        if (!(cond)) {                                                                                       \
            g_fail++;                                                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                             \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fprintf(stderr, "\n");                                                                           \
        }                                                                                                    \
    } while (0)

static zd_tables g_tables;
static uint8_t g_lit[ZD_BLOCK_MAX];

static oc_status decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    return zd_decode_chunk(&g_tables, src, n, dst, cap, out, g_lit, sizeof g_lit);
}

static const char *st_name(oc_status st)
{
    static const char *names[] = {"OK",
                                  "INVALID_ARGUMENT",
                                  "UNSUPPORTED",
                                  "CORRUPT",
                                  "TRUNCATED",
                                  "OUTPUT_TOO_SMALL",
                                  "CHECKSUM_MISMATCH",
                                  "SIZE_MISMATCH",
                                  "CHUNK_TOO_LARGE",
                                  "NEEDS_DICTIONARY"};
    return (unsigned)st < sizeof names / sizeof names[0] ? names[st] : "OTHER";
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)sz + 1);
    if (!buf || fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
        fclose(f);
        free(buf);
        return NULL;
    }
    fclose(f);
    *size = (size_t)sz;
    return buf;
}

/* Compresses src with libzstd; variant bit 0: checksum, bit 1: no content
 * size (streaming), bit 2: two frames with a skippable frame between. */
static size_t compress(const uint8_t *src, size_t n, int level, int variant, uint8_t *dst, size_t cap)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, variant & 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, (variant & 2) ? 0 : 1);
    size_t total = 0;
    size_t parts = (variant & 4) ? 2 : 1;
    for (size_t k = 0; k < parts; k++) {
        size_t a = n * k / parts, b = n * (k + 1) / parts;
        if (k > 0) { /* skippable frame: magic, size 5, 5 bytes */
            const uint8_t skip[13] = {0x53, 0x2A, 0x4D, 0x18, 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'};
            memcpy(dst + total, skip, sizeof skip);
            total += sizeof skip;
        }
        size_t r;
        if (variant & 2) {
            ZSTD_inBuffer in = {src + a, b - a, 0};
            ZSTD_outBuffer out = {dst + total, cap - total, 0};
            do {
                r = ZSTD_compressStream2(c, &out, &in, ZSTD_e_end);
            } while (r != 0 && !ZSTD_isError(r));
            r = ZSTD_isError(r) ? r : out.pos;
        } else {
            r = ZSTD_compress2(c, dst + total, cap - total, src + a, b - a);
        }
        if (ZSTD_isError(r)) {
            fprintf(stderr, "compress: %s\n", ZSTD_getErrorName(r));
            exit(2);
        }
        total += r;
    }
    ZSTD_freeCCtx(c);
    return total;
}

static uint32_t g_rng = 12345;
static uint32_t rnd(void)
{
    g_rng = g_rng * 1103515245u + 12345u;
    return g_rng >> 8;
}

static void check_chunk(const uint8_t *src, size_t n, int level, int variant, int damage)
{
    size_t bound = ZSTD_compressBound(n) + 64;
    uint8_t *comp = malloc(bound);
    uint8_t *out = malloc(n + 1);
    uint8_t *ref = malloc(n + 1);
    size_t csize = compress(src, n, level, variant, comp, bound);
    size_t got = 0;
    memset(out, 0xA5, n + 1);
    oc_status st = decode(comp, csize, out, n, &got);
    CHECK(st == OC_OK && got == n && memcmp(out, src, n) == 0,
          "level %d variant %d size %zu: status %s got %zu", level, variant, n, st_name(st), got);
    if (n > 0) { /* one byte short */
        st = decode(comp, csize, out, n - 1, &got);
        CHECK(st == OC_ERR_OUTPUT_TOO_SMALL, "short output: %s", st_name(st));
    }
    if (damage) {
        /* truncations: never OK unless ending exactly between frames */
        for (int t = 0; t < 24; t++) {
            size_t cut = csize > 1 ? rnd() % csize : 0;
            if (t < 4)
                cut = csize - 1 - (size_t)t;
            if (cut >= csize)
                continue;
            st = decode(comp, cut, out, n, &got);
            size_t rr = ZSTD_decompress(ref, n, comp, cut);
            CHECK(st != OC_OK || !ZSTD_isError(rr), "truncated to %zu of %zu decoded OK", cut, csize);
        }
        /* byte flips: must never crash; when we say OK libzstd must agree */
        uint8_t *bad = malloc(csize);
        for (int t = 0; t < 64; t++) {
            memcpy(bad, comp, csize);
            int flips = 1 + (int)(rnd() % 3);
            for (int k = 0; k < flips; k++)
                bad[rnd() % csize] ^= (uint8_t)(1u << (rnd() % 8));
            st = decode(bad, csize, out, n, &got);
            size_t rr = ZSTD_decompress(ref, n, bad, csize);
            if (st == OC_OK) {
                CHECK(!ZSTD_isError(rr) && rr == got && memcmp(ref, out, got) == 0,
                      "flip accepted by us (%zu bytes) but libzstd says %s", got,
                      ZSTD_isError(rr) ? ZSTD_getErrorName(rr) : "other data");
            } else if (!ZSTD_isError(rr)) {
                /* libzstd accepted damaged data we reject: libzstd 1.5's fast
                 * Huffman path does not check that each stream is consumed
                 * exactly (RFC 8878 4.2.2 requires it).  Counted, not failed:
                 * valid inputs are checked exactly above. */
                g_stricter++;
            }
        }
        free(bad);
    }
    free(comp);
    free(out);
    free(ref);
}

int main(int argc, char **argv)
{
    static const int levels[] = {-5, 1, 3, 19};
    static const size_t chunks[] = {65536, 1 << 20, 0};
    for (int a = 1; a < argc; a++) {
        size_t n;
        uint8_t *data = read_file(argv[a], &n);
        if (!data) {
            fprintf(stderr, "cannot read %s\n", argv[a]);
            return 2;
        }
        long before = g_checks;
        for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++) {
            size_t cs = chunks[ci] ? chunks[ci] : n;
            for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
                if (chunks[ci] == 0 && levels[li] == 19 && n > (8u << 20))
                    continue;
                int variant = (int)((ci * 4 + li) % 8);
                size_t done = 0;
                for (size_t off = 0; off < n || off == 0; off += cs) {
                    size_t len = n - off < cs ? n - off : cs;
                    check_chunk(data + off, len, levels[li], variant, done < 2 && chunks[ci] == 65536);
                    done++;
                    if (len == 0 || done >= 64)
                        break;
                }
            }
        }
        printf("%s: %zu bytes, %ld checks\n", argv[a], n, g_checks - before);
        free(data);
    }
    printf("%ld checks, %d failures, %ld damaged inputs rejected by us but accepted by libzstd\n", g_checks,
           g_fail, g_stricter);
    return g_fail ? 1 : 0;
}
