/*
 * test_zstd_gpu_core.c - the GPU Zstandard decoder's core
 * (src/cuda/codecs/zstd/zstd_decode_core.h), compiled for the host with one lane, against
 * libzstd.  CI has no GPU: this is where the decoding logic that the CUDA
 * kernel runs is checked on every commit (the harness in bench/gpu/zstd/
 * checks that the GPU gives the same statuses and bytes as this core).
 *
 * Guards: round trips at levels -5/1/3/19 on real files and generated
 * columns (raw, RLE and compressed blocks; 1 and 4 Huffman streams; every
 * FSE mode), frames with/without content size and checksum, multi-block
 * frames, concatenated and skippable frames, empty frames; exact statuses:
 * TRUNCATED for every proper prefix of a frame, OUTPUT_TOO_SMALL one byte
 * short, CHECKSUM_MISMATCH for a damaged checksum, NEEDS_DICTIONARY for a
 * dictionary frame, CORRUPT for reserved bits and block type 3; damaged
 * inputs never read or write out of bounds (ASan suite) and, when accepted,
 * decode to what libzstd decodes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zdict.h>
#include <zstd.h>

#include "cuda/codecs/zstd/zstd_decode_core.h"

#include "helpers/soft_check.h"

static zd_tables g_tables;
static uint8_t g_lit[ZD_BLOCK_MAX];

static oc_status dec(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    return zd_decode_chunk(&g_tables, src, n, dst, cap, out, g_lit, sizeof g_lit);
}

static uint8_t *read_file(const char *path, size_t max, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = malloc(max ? max : 1);
    size_t n = fread(buf, 1, max, f);
    fclose(f);
    *size = n;
    return buf;
}

/* Compresses with libzstd: checksum flag, content size flag. */
static uint8_t *compress(const uint8_t *src, size_t n, int level, int checksum, int content_size,
                         size_t *csize)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, content_size);
    size_t cap = ZSTD_compressBound(n);
    uint8_t *out = malloc(cap);
    ZSTD_inBuffer in = {src, n, 0};
    ZSTD_outBuffer o = {out, cap, 0};
    size_t r;
    do {
        r = ZSTD_compressStream2(c, &o, &in, ZSTD_e_end);
    } while (r != 0 && !ZSTD_isError(r));
    ZSTD_freeCCtx(c);
    if (ZSTD_isError(r)) {
        fprintf(stderr, "compress failed: %s\n", ZSTD_getErrorName(r));
        exit(2);
    }
    *csize = o.pos;
    return out;
}

static uint32_t g_rng = 0x9E3779B9u;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

/* One input at one level: round trip, short output, every proper prefix (a
 * sample of them for big frames), damaged checksum, random flips. */
static void check_one(const char *name, const uint8_t *src, size_t n, int level, int checksum,
                      int content_size)
{
    size_t csize;
    uint8_t *comp = compress(src, n, level, checksum, content_size, &csize);
    uint8_t *out = malloc(n + 1);
    uint8_t *ref = malloc(n + 1);
    size_t got = 0;
    oc_status st = dec(comp, csize, out, n, &got);
    EXPECT(st == OC_OK && got == n && memcmp(out, src, n) == 0, "%s level %d: status %d, %zu of %zu bytes",
           name, level, (int)st, got, n);
    if (n > 0) {
        st = dec(comp, csize, out, n - 1, &got);
        EXPECT(st == OC_ERR_OUTPUT_TOO_SMALL, "%s level %d one byte short: status %d", name, level, (int)st);
    }
    size_t step = csize > 2000 ? csize / 97 : 1;
    for (size_t cut = 1; cut < csize; cut += step) {
        st = dec(comp, cut, out, n, &got);
        EXPECT(st == OC_ERR_TRUNCATED, "%s level %d cut at %zu of %zu: status %d", name, level, cut, csize,
               (int)st);
    }
    if (checksum && n > 0) {
        comp[csize - 1] ^= 0x10;
        st = dec(comp, csize, out, n, &got);
        EXPECT(st == OC_ERR_CHECKSUM_MISMATCH, "%s level %d bad checksum: status %d", name, level, (int)st);
        comp[csize - 1] ^= 0x10;
    }
    for (int t = 0; t < 40 && csize > 0; t++) {
        uint8_t *bad = malloc(csize);
        memcpy(bad, comp, csize);
        bad[rnd() % csize] ^= (uint8_t)(1u << (rnd() % 8));
        st = dec(bad, csize, out, n, &got);
        if (st == OC_OK) {
            size_t r = ZSTD_decompress(ref, n, bad, csize);
            EXPECT(!ZSTD_isError(r) && r == got && memcmp(ref, out, got) == 0,
                   "%s level %d: damaged input accepted, libzstd disagrees", name, level);
        } else {
            EXPECT(st == OC_ERR_CORRUPT || st == OC_ERR_TRUNCATED || st == OC_ERR_OUTPUT_TOO_SMALL ||
                       st == OC_ERR_CHECKSUM_MISMATCH || st == OC_ERR_NEEDS_DICTIONARY,
                   "%s: unexpected status %d", name, (int)st);
        }
        free(bad);
    }
    free(comp);
    free(out);
    free(ref);
}

/* Frames of several shapes in one chunk: two frames with a skippable frame
 * between them and an empty frame at the end. */
static void check_concatenated(const uint8_t *src, size_t n)
{
    size_t a = n / 3, c1, c2, c3;
    uint8_t *f1 = compress(src, a, 3, 1, 0, &c1);
    uint8_t *f2 = compress(src + a, n - a, 19, 0, 1, &c2);
    uint8_t *f3 = compress(src, 0, 1, 1, 1, &c3);
    static const uint8_t skip[11] = {0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'o', 'c', '!'};
    size_t total = c1 + sizeof skip + c2 + c3;
    uint8_t *all = malloc(total);
    memcpy(all, f1, c1);
    memcpy(all + c1, skip, sizeof skip);
    memcpy(all + c1 + sizeof skip, f2, c2);
    memcpy(all + c1 + sizeof skip + c2, f3, c3);
    uint8_t *out = malloc(n + 1);
    size_t got;
    oc_status st = dec(all, total, out, n, &got);
    EXPECT(st == OC_OK && got == n && memcmp(out, src, n) == 0, "concatenated frames: status %d, %zu bytes",
           (int)st, got);
    /* a cut inside the skippable frame */
    st = dec(all, c1 + 6, out, n, &got);
    EXPECT(st == OC_ERR_TRUNCATED && got == a, "cut in skippable frame: status %d, %zu bytes", (int)st, got);
    free(f1);
    free(f2);
    free(f3);
    free(all);
    free(out);
}

/* Hand-made and dictionary frames with exact statuses. */
static void check_special(const uint8_t *src, size_t n)
{
    uint8_t out[64];
    size_t got;
    /* single segment, FCS 1 byte = 3, raw last block "abc" */
    uint8_t raw[] = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x03, 0x19, 0x00, 0x00, 'a', 'b', 'c'};
    oc_status st = dec(raw, sizeof raw, out, sizeof out, &got);
    EXPECT(st == OC_OK && got == 3 && memcmp(out, "abc", 3) == 0, "raw frame: status %d", (int)st);
    raw[4] |= 0x08; /* reserved bit */
    st = dec(raw, sizeof raw, out, sizeof out, &got);
    EXPECT(st == OC_ERR_CORRUPT, "reserved bit: status %d", (int)st);
    raw[4] &= (uint8_t)~0x08;
    raw[6] = 0x1F; /* block type 3 */
    st = dec(raw, sizeof raw, out, sizeof out, &got);
    EXPECT(st == OC_ERR_CORRUPT, "block type 3: status %d", (int)st);
    raw[6] = 0x19;
    raw[5] = 4; /* content size 4 but the block gives 3 bytes */
    st = dec(raw, sizeof raw, out, sizeof out, &got);
    EXPECT(st == OC_ERR_CORRUPT, "content size mismatch: status %d", (int)st);
    /* RLE block: 5 x 'z' */
    uint8_t rle[] = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x05, 0x2B, 0x00, 0x00, 'z'};
    st = dec(rle, sizeof rle, out, sizeof out, &got);
    EXPECT(st == OC_OK && got == 5 && memcmp(out, "zzzzz", 5) == 0, "RLE frame: status %d", (int)st);
    /* not a frame */
    uint8_t junk[] = {0x28, 0xB5, 0x2F, 0xFE, 0, 0, 0, 0};
    st = dec(junk, sizeof junk, out, sizeof out, &got);
    EXPECT(st == OC_ERR_CORRUPT, "bad magic: status %d", (int)st);
    /* issue 11 item 5: a zero-length input is a frame cut before its magic
     * number, TRUNCATED as libzstd and the CPU engine say (it was "OK, 0
     * bytes"); so are 1-3 bytes of a magic number, other short bytes CORRUPT */
    st = dec(junk, 0, out, sizeof out, &got);
    EXPECT(st == OC_ERR_TRUNCATED && got == 0, "empty input: status %d", (int)st);
    st = dec(junk, 3, out, sizeof out, &got);
    EXPECT(st == OC_ERR_TRUNCATED, "3 bytes of the magic: status %d", (int)st);
    uint8_t skip3[] = {0x5A, 0x2A, 0x4D};
    st = dec(skip3, 3, out, sizeof out, &got);
    EXPECT(st == OC_ERR_TRUNCATED, "3 bytes of a skippable magic: status %d", (int)st);
    st = dec(junk + 4, 3, out, sizeof out, &got);
    EXPECT(st == OC_ERR_CORRUPT, "3 zero bytes: status %d", (int)st);
    /* a frame header naming dictionary 7 (DID flag 1) */
    uint8_t did[] = {0x28, 0xB5, 0x2F, 0xFD, 0x21, 0x07, 0x03, 0x19, 0x00, 0x00, 'a', 'b', 'c'};
    st = dec(did, sizeof did, out, sizeof out, &got);
    EXPECT(st == OC_ERR_NEEDS_DICTIONARY, "dictionary ID in header: status %d", (int)st);
    /* a frame libzstd compressed with a trained dictionary */
    if (n >= 64 * 1024) {
        size_t sizes[64];
        for (int i = 0; i < 64; i++)
            sizes[i] = 1024;
        uint8_t dict[4096];
        size_t dsz = ZDICT_trainFromBuffer(dict, sizeof dict, src, sizes, 64);
        if (!ZDICT_isError(dsz)) {
            ZSTD_CCtx *c = ZSTD_createCCtx();
            size_t cap = ZSTD_compressBound(4096);
            uint8_t *comp = malloc(cap), *big = malloc(4096);
            size_t cs = ZSTD_compress_usingDict(c, comp, cap, src + n - 4096, 4096, dict, dsz, 3);
            ZSTD_freeCCtx(c);
            st = dec(comp, cs, big, 4096, &got);
            EXPECT(!ZSTD_isError(cs) && st == OC_ERR_NEEDS_DICTIONARY, "trained dictionary frame: status %d",
                   (int)st);
            free(big);
            free(comp);
        }
    }
}

int main(void)
{
    static const char *files[] = {OC_SOURCE_DIR "/include/opencomp.h",
                                  OC_SOURCE_DIR "/src/cuda/codecs/zstd/zstd_decode_core.h", "/bin/sh", "/usr/bin/env"};
    static const int levels[] = {-5, 1, 3, 19};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t n;
        uint8_t *data = read_file(files[f], 300000, &n);
        if (!data)
            continue;
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
            check_one(files[f], data, n, levels[l], (int)(l & 1), (int)((l >> 1) & 1) ^ 1);
        if (f == 0)
            check_concatenated(data, n);
        if (f == 2)
            check_special(data, n);
        free(data);
    }
    /* generated columns: a sorted int64 key (long matches, repeat offsets),
     * noisy float32 values (Huffman-only literals), random bytes (raw blocks),
     * zeros (RLE blocks), 600 KiB of text-like records (multi-block frame) */
    size_t n = 600000;
    uint8_t *col = malloc(n);
    for (size_t i = 0; i < n / 8; i++) {
        uint64_t v = i / 3 * 7 + 1000000;
        memcpy(col + 8 * i, &v, 8);
    }
    check_one("sorted i64", col, n / 8 * 8, 3, 1, 1);
    for (size_t i = 0; i < n / 4; i++) {
        float v = 100.0f + (float)(rnd() % 1000) / 64.0f;
        memcpy(col + 4 * i, &v, 4);
    }
    check_one("f32 column", col, n, 1, 0, 1);
    check_one("f32 column", col, n, 19, 1, 0);
    for (size_t i = 0; i < n; i++)
        col[i] = (uint8_t)rnd();
    check_one("random", col, 200000, 3, 1, 1);
    memset(col, 0, n);
    check_one("zeros", col, n, 3, 1, 1);
    size_t pos = 0;
    while (pos + 64 < n)
        pos += (size_t)snprintf((char *)col + pos, 64, "id=%u,name=user%u,score=%u;", rnd() % 5000,
                                rnd() % 300, rnd() % 100);
    check_one("records", col, pos, 3, 1, 1);
    check_one("records", col, pos, -5, 0, 0);
    free(col);
    if (g_failures) {
        fprintf(stderr, "%d failures\n", g_failures);
        return 1;
    }
    printf("zstd GPU core: all checks passed\n");
    return 0;
}
