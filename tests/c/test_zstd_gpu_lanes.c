/*
 * test_zstd_gpu_lanes.c - the lane-parallel path of the GPU Zstandard
 * decoder (src/cuda/codecs/zstd/zstd_dec_lanes.h, "v6": a warp decodes a group of
 * chunks, each lane the sequences of its own chunk), compiled for the host
 * with the lanes run one after another, against libzstd's input and against
 * the per-chunk core (zd_decode_chunk).
 *
 * The path must be invisible: for every chunk of a batch, zl_group gives
 * exactly zd_decode_chunk's status and size, and the same bytes up to that
 * size; a chunk it decodes OK has no byte written past its size (the path
 * decodes literals into the tail of the chunk's own output, up to the
 * content size, and must never touch the rest of the capacity).  Guards:
 *   - 64 KiB chunks of four corpus files at levels -5, 1, 3 and 19 (with and
 *     without checksums), in groups of 4 and of 3 (a group that does not
 *     divide the batch): every chunk decodes to its input, and nearly all of
 *     them take the path (counted, or the test proves nothing);
 *   - damaged chunks (bit flips, truncations, random bytes, capacity one byte
 *     short, a bad checksum) mixed in one batch with intact ones: statuses,
 *     sizes and bytes as zd_decode_chunk's (ASan suite: no access outside
 *     the buffers);
 *   - chunks of other shapes (empty, two frames, a skippable frame in front,
 *     a raw block, several blocks, no content size) in the same batch;
 *   - the per-chunk rule (ZL_LIT_HEAVY): a chunk of mostly Huffman literals
 *     with a few sequences leaves the path, one with no sequences at all
 *     (literals decoded in place) takes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "cuda/codecs/zstd/zstd_dec_lanes.h"

#include "helpers/soft_check.h"
#include "helpers/zstd_ref.h"

#define CH (64u << 10)
#define LITCAP CH   /* the literal slot the kernel gives a warp of 64 KiB chunks */
#define POISON 0xA5 /* every output starts as this: bytes past an OK size must keep it */

static zd_tables g_tables;
static size_t g_not_ok;   /* chunks the core rejected: damage must show */
static size_t g_stricter; /* chunks libzstd accepts and the core rejects */

typedef struct batch {
    size_t n;
    const void **src;
    size_t *src_size;
    void **dst;
    size_t *cap;
    uint8_t **zbuf; /* owned compressed chunks */
} batch;

static void batch_init(batch *b, size_t n)
{
    b->n = n;
    b->src = calloc(n, sizeof *b->src);
    b->src_size = calloc(n, sizeof *b->src_size);
    b->dst = calloc(n, sizeof *b->dst);
    b->cap = calloc(n, sizeof *b->cap);
    b->zbuf = calloc(n, sizeof *b->zbuf);
    REQUIRE(b->src && b->src_size && b->dst && b->cap && b->zbuf);
}

static void batch_free(batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->zbuf[i]);
        free(b->dst[i]);
    }
    free(b->src);
    free(b->src_size);
    free(b->dst);
    free(b->cap);
    free(b->zbuf);
}

/* Sets chunk i to the len bytes at z (copied into an exactly-sized buffer)
 * with an output of cap bytes. */
static void batch_set(batch *b, size_t i, const uint8_t *z, size_t len, size_t cap)
{
    free(b->zbuf[i]);
    free(b->dst[i]);
    b->zbuf[i] = malloc(len ? len : 1);
    b->dst[i] = malloc(cap ? cap : 1);
    REQUIRE(b->zbuf[i] && b->dst[i]);
    memset(b->dst[i], POISON, cap ? cap : 1);
    if (len)
        memcpy(b->zbuf[i], z, len);
    b->src[i] = b->zbuf[i];
    b->src_size[i] = len;
    b->cap[i] = cap;
}

/* The kernel's schedule on the host: groups of g chunks, one zl_group each.
 * Returns how many chunks took the path. */
static size_t lanes_decode(const batch *b, uint32_t g, size_t *sizes, oc_status *st)
{
    static zl_lane L[ZL_G];
    static uint32_t LG[ZL_G];
    static uint32_t sq[ZL_DYN_WORDS]; /* the rows, then chunk 3's tables */
    uint8_t *lits = malloc(LITCAP);   /* the warp's one literal slot */
    zd_fse_entry *tabs = malloc((size_t)g * ZL_TAB_ENTRIES * sizeof *tabs);
    REQUIRE(lits && tabs);
    size_t on = 0;
    for (size_t first = 0; first < b->n; first += g) {
        uint32_t m = b->n - first < g ? (uint32_t)(b->n - first) : g;
        /* the tables' region over zd_tables and slot 3 poisoned: the
         * conversion must write every entry the rounds read */
        memset((uint8_t *)(void *)&g_tables + offsetof(zd_tables, huf), 0xEE, ZL_REGION_BYTES);
        memset(sq, 0xEE, sizeof sq);
        on += zl_group(&g_tables, L, LG, sq, (uint16_t *)(void *)(sq + ZL_SQ_WORDS(ZL_G)), first, m, b->src,
                       b->src_size, b->dst, b->cap, sizes, st, lits, LITCAP, tabs);
    }
    free(lits);
    free(tabs);
    return on;
}

/* Decodes the batch with the path and with zd_decode_chunk: same statuses,
 * sizes and bytes; where orig is given, every chunk is OK and equals its
 * CH-byte slice of orig.  Returns the chunks on the path. */
static size_t check_batch(const char *what, const batch *b, uint32_t g, const uint8_t *orig)
{
    size_t *sz = calloc(b->n, sizeof *sz);
    oc_status *st = calloc(b->n, sizeof *st);
    REQUIRE(sz && st);
    size_t on = lanes_decode(b, g, sz, st);
    uint8_t lit[LITCAP];
    for (size_t i = 0; i < b->n; i++) {
        size_t rn = 0;
        uint8_t *ref = malloc(b->cap[i] ? b->cap[i] : 1);
        REQUIRE(ref);
        oc_status rs =
            zd_decode_chunk(&g_tables, b->src[i], b->src_size[i], ref, b->cap[i], &rn, lit, LITCAP);
        g_not_ok += rs != OC_OK;
        {
            /* OK only where libzstd decodes the chunk too, to the same
             * bytes.  Not the converse: the core is stricter than libzstd
             * in places (a Huffman literal stream must end exactly at its
             * first bit, and an empty input is TRUNCATED, where libzstd
             * accepts both); such chunks are counted, not failed. */
            static ZSTD_DCtx *dctx;
            if (!dctx)
                dctx = ZSTD_createDCtx();
            REQUIRE(dctx);
            uint8_t *lib = malloc(b->cap[i] ? b->cap[i] : 1);
            REQUIRE(lib);
            size_t r = ZSTD_decompressDCtx(dctx, lib, b->cap[i], b->src[i], b->src_size[i]);
            EXPECT(!ZSTD_isError(r) || rs != OC_OK, "%s chunk %zu: libzstd %s, core OK\n", what, i,
                   ZSTD_getErrorName(r));
            g_stricter += !ZSTD_isError(r) && rs != OC_OK;
            if (!ZSTD_isError(r) && rs == OC_OK)
                EXPECT(r == rn && memcmp(lib, ref, r) == 0, "%s chunk %zu: bytes differ from libzstd\n", what,
                       i);
            free(lib);
        }
        EXPECT(st[i] == rs && sz[i] == rn, "%s chunk %zu: path status %d size %zu, core %d %zu\n", what, i,
               (int)st[i], sz[i], (int)rs, rn);
        if (st[i] == rs && sz[i] == rn)
            EXPECT(memcmp(b->dst[i], ref, rn) == 0, "%s chunk %zu: bytes differ\n", what, i);
        if (st[i] == OC_OK)
            for (size_t k = sz[i]; k < b->cap[i]; k++)
                if (((const uint8_t *)b->dst[i])[k] != POISON) {
                    EXPECT(0, "%s chunk %zu: byte %zu past the size %zu written\n", what, i, k, sz[i]);
                    break;
                }
        if (orig)
            EXPECT(st[i] == OC_OK && sz[i] == CH && memcmp(b->dst[i], orig + i * CH, CH) == 0,
                   "%s chunk %zu: not the input (status %d)\n", what, i, (int)st[i]);
        free(ref);
    }
    free(sz);
    free(st);
    return on;
}

static uint8_t *read_file(const char *path, size_t max, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = malloc(max);
    size_t n = fread(buf, 1, max, f);
    fclose(f);
    *size = n;
    return buf;
}

static uint32_t g_rng = 0x9E3779B9u;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

/* nchunks 64 KiB chunks of data at level (checksum per flag): one batch. */
static void make_batch(batch *b, const uint8_t *data, size_t nchunks, int level, int checksum)
{
    batch_init(b, nchunks);
    for (size_t i = 0; i < nchunks; i++) {
        size_t zn;
        uint8_t *z = zstd_ref_compress(data + i * CH, CH, level, checksum, 1, 0, &zn);
        batch_set(b, i, z, zn, CH);
        free(z);
    }
}

/* Damages chunk i of b in one of several ways (t picks). */
static void damage(batch *b, size_t i, int t)
{
    uint8_t *z = b->zbuf[i];
    size_t zn = b->src_size[i];
    switch (t % 6) {
    case 0: /* one bit */
        z[rnd() % zn] ^= (uint8_t)(1u << (rnd() % 8));
        break;
    case 1: /* four bits in the sequence section's end (the last bytes) */
        for (int k = 0; k < 4; k++)
            z[zn - 1 - rnd() % (zn < 64 ? zn : 64)] ^= (uint8_t)(1u << (rnd() % 8));
        break;
    case 2: /* truncated */
        b->src_size[i] = rnd() % zn;
        break;
    case 3: /* capacity one byte short */
        b->cap[i] = CH - 1;
        break;
    case 4: /* random bytes after the headers */
        for (size_t k = 12 + rnd() % 64; k < zn && k < 200; k++)
            z[k] = (uint8_t)rnd();
        break;
    default: /* the last byte: checksum or the bitstream's end marker */
        z[zn - 1] ^= 0x10;
        break;
    }
}

/* Offset of the first byte of the sequence count in a one-block frame at z
 * (as zstd writes it: no dictionary), or 0. */
static size_t nseq_offset(const uint8_t *z, size_t zn)
{
    uint32_t fhd = z[4], fcs_flag = fhd >> 6, single = (fhd >> 5) & 1;
    size_t fcs_size = fcs_flag == 0 ? (single ? 1 : 0) : (fcs_flag == 1 ? 2 : (fcs_flag == 2 ? 4 : 8));
    size_t ip = 5 + (single ? 0 : 1) + fcs_size;
    if (ip + 3 > zn || ((z[ip] >> 1) & 3) != 2)
        return 0;
    ip += 3; /* the block header */
    uint32_t b0 = z[ip], type = b0 & 3, sf = (b0 >> 2) & 3;
    if (type == 0 || type == 1) {
        size_t lh = (sf == 0 || sf == 2) ? 1 : sf == 1 ? 2 : 3;
        size_t lsize = lh == 1   ? b0 >> 3
                       : lh == 2 ? (b0 >> 4) + ((size_t)z[ip + 1] << 4)
                                 : (b0 >> 4) + ((size_t)z[ip + 1] << 4) + ((size_t)z[ip + 2] << 12);
        return ip + lh + (type == 0 ? lsize : 1);
    }
    size_t lh = sf < 2 ? 3 : (sf == 2 ? 4 : 5);
    int bits = sf < 2 ? 10 : (sf == 2 ? 14 : 18);
    uint64_t h = 0;
    for (size_t i = 0; i < lh; i++)
        h |= (uint64_t)z[ip + i] << (8 * i);
    return ip + lh + (size_t)((h >> (4 + bits)) & ((1u << bits) - 1));
}

int main(void)
{
    static const char *corpus[] = {OC_SOURCE_DIR "/bench/corpus-sample/text_linux_docs.txt",
                                   OC_SOURCE_DIR "/bench/corpus-sample/elf_gdb_cmake_libstdcxx.tar",
                                   OC_SOURCE_DIR "/bench/corpus-sample/tpch_l_orderkey.i64",
                                   OC_SOURCE_DIR "/bench/corpus-sample/weights_minilm_l0-1.f32"};
    static const int levels[] = {-5, 1, 3, 19};
    size_t total = 0, on_total = 0, files = 0;
    uint8_t *text = NULL;
    for (size_t fi = 0; fi < sizeof corpus / sizeof corpus[0]; fi++) {
        size_t n;
        uint8_t *data = read_file(corpus[fi], 2u << 20, &n);
        if (!data || n < 8 * CH) {
            printf("  %s: absent or short, skipped\n", corpus[fi]);
            free(data);
            continue;
        }
        files++;
        for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
            size_t nch = n / CH;
            if (levels[li] == 19 && nch > 8)
                nch = 8; /* -19 is slow */
            batch b;
            make_batch(&b, data, nch, levels[li], (int)(li & 1));
            char what[300];
            snprintf(what, sizeof what, "%s level %d", corpus[fi], levels[li]);
            size_t on32 = check_batch(what, &b, ZL_G, data);
            size_t on5 = check_batch(what, &b, 3, data);
            EXPECT(on32 == on5, "%s: %zu chunks on the path in groups of 4, %zu in groups of 3\n", what, on32,
                   on5);
            printf("  %-60s level %3d: %zu of %zu chunks on the path\n", corpus[fi], levels[li], on32, nch);
            total += nch;
            on_total += on32;
            batch_free(&b);
        }
        if (fi == 0)
            text = data;
        else
            free(data);
    }
    /* the path must be what 64 KiB chunks of real data take (not all: the
     * weights at -5 are raw blocks, and at 19 mostly literals with ~200
     * sequences, which the rule sends to the per-chunk core: 44 of 416) */
    EXPECT(files == 0 || on_total * 100 >= total * 85, "only %zu of %zu chunks took the path\n", on_total,
           total);

    if (text) {
        /* damaged chunks among intact ones, 6 kinds, in groups of 4 and 3 */
        size_t on_dmg = 0, chunks_dmg = 0;
        g_not_ok = 0;
        for (int round = 0; round < 8; round++) {
            batch b;
            make_batch(&b, text, 24, 3, round & 1);
            for (size_t i = 0; i < b.n; i++)
                if (i % 3 != 2)
                    damage(&b, i, (int)(i + round * 5));
            on_dmg += check_batch("damaged", &b, round < 4 ? ZL_G : 3, NULL);
            chunks_dmg += b.n;
            batch_free(&b);
        }
        printf("  damaged: %zu chunks (2/3 damaged), %zu rejected, %zu on the path\n", chunks_dmg, g_not_ok,
               on_dmg);
        EXPECT(g_not_ok * 3 >= chunks_dmg && on_dmg * 3 >= chunks_dmg,
               "damage: %zu rejected, %zu on the path\n", g_not_ok, on_dmg);
        /* damage that only the last checks see: one sequence fewer in frames
         * without content size or checksum (bits left in the bitstream), and
         * a content size one larger than the output, within the capacity */
        {
            batch b;
            batch_init(&b, 16);
            size_t fewer = 0;
            for (size_t i = 0; i < b.n; i++) {
                size_t zn;
                uint8_t *z = zstd_ref_compress(text + i * CH, CH, 3, 0, (int)(i & 1), 0, &zn);
                if (i & 1) {
                    z[5] += 1; /* single segment, 2-byte size 65536 - 256 */
                    batch_set(&b, i, z, zn, CH + 256);
                } else {
                    size_t o = nseq_offset(z, zn);
                    if (o && z[o] >= 128 && z[o] < 255 && z[o + 1] > 0) {
                        z[o + 1] -= 1;
                        fewer++;
                    }
                    batch_set(&b, i, z, zn, CH);
                }
                free(z);
            }
            size_t before = g_not_ok;
            size_t on = check_batch("last checks", &b, ZL_G, NULL);
            EXPECT(fewer >= 6 && g_not_ok - before == b.n && on == 0,
                   "last checks: %zu shortened, %zu rejected, %zu on the path\n", fewer, g_not_ok - before,
                   on);
            batch_free(&b);
        }
        /* other shapes in one batch with intact chunks */
        batch b;
        make_batch(&b, text, 12, 3, 0);
        size_t zn, zn2;
        uint8_t *z = zstd_ref_compress(text, CH, 3, 1, 1, 0, &zn);
        uint8_t *two = malloc(2 * zn + 8);
        memcpy(two, z, zn);
        memcpy(two + zn, z, zn);
        batch_set(&b, 0, two, 2 * zn, 2 * CH); /* two frames */
        static const uint8_t skip[8] = {0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0};
        memcpy(two, skip, 8);
        memcpy(two + 8, z, zn);
        batch_set(&b, 1, two, zn + 8, CH); /* a skippable frame in front */
        batch_set(&b, 2, z, 0, CH);        /* empty */
        batch_set(&b, 3, z, zn, CH + 100); /* larger capacity: fine */
        batch_set(&b, 4, z, zn, 0);        /* no capacity */
        free(z);
        z = zstd_ref_compress(text, CH, 3, 0, 0, 0, &zn); /* no content size */
        batch_set(&b, 5, z, zn, CH);
        free(z);
        z = zstd_ref_compress(text, CH, 3, 1, 1, 4000, &zn); /* several blocks */
        batch_set(&b, 6, z, zn, CH);
        free(z);
        uint8_t *noise = malloc(CH);
        for (size_t i = 0; i < CH; i++)
            noise[i] = (uint8_t)rnd();
        z = zstd_ref_compress(noise, CH, 3, 0, 1, 0, &zn); /* a raw block */
        batch_set(&b, 7, z, zn, CH);
        free(z);
        z = zstd_ref_compress(text, 300, 3, 0, 1, 0, &zn2); /* a short frame */
        batch_set(&b, 8, z, zn2, CH);
        free(z);
        for (size_t i = 0; i < CH; i++)
            noise[i] = (uint8_t)('a' + rnd() % 16);
        z = zstd_ref_compress(noise, CH, 1, 0, 1, 0, &zn); /* literals mostly, few matches */
        batch_set(&b, 9, z, zn, CH);
        free(z);
        size_t on = check_batch("shapes", &b, ZL_G, NULL);
        printf("  shapes: %zu of %zu chunks on the path\n", on, b.n);
        EXPECT(on >= 3 && on < b.n, "shapes: %zu chunks on the path\n", on);
        /* the rule: a chunk of Huffman literals with a few sequences
         * leaves the path; one of no sequences takes it */
        {
            batch one;
            batch_init(&one, 1);
            for (size_t i = 0; i < CH; i++)
                noise[i] = (uint8_t)(rnd() % 32); /* 5 bits of entropy a byte: Huffman pays */
            uint8_t *zz = malloc(ZSTD_compressBound(CH));
            REQUIRE(zz);
            ZSTD_CCtx *cc = ZSTD_createCCtx();
            REQUIRE(cc);
            /* a compressor that finds no match by chance (min match 7;
             * ~0.06 repeats of 7 bytes expected in 64 KiB of these bytes) */
            ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 1);
            ZSTD_CCtx_setParameter(cc, ZSTD_c_minMatch, 7);
            size_t zl = ZSTD_compress2(cc, zz, ZSTD_compressBound(CH), noise, CH);
            REQUIRE(!ZSTD_isError(zl));
            batch_set(&one, 0, zz, zl, CH);
            size_t o = nseq_offset(zz, zl);
            EXPECT(o && zz[o] == 0, "the chunk meant to have no sequences has some\n");
            size_t none = check_batch("no sequences", &one, 1, NULL);
            for (size_t k = 1; k <= 3; k++) /* three repeats of 100 bytes: three sequences */
                memcpy(noise + k * 16384, noise, 100);
            ZSTD_CCtx_reset(cc, ZSTD_reset_session_only);
            zl = ZSTD_compress2(cc, zz, ZSTD_compressBound(CH), noise, CH);
            REQUIRE(!ZSTD_isError(zl));
            ZSTD_freeCCtx(cc);
            batch_set(&one, 0, zz, zl, CH);
            size_t oh = nseq_offset(zz, zl);
            EXPECT(oh && zz[oh] > 0, "the literal-heavy chunk has no sequences\n");
            size_t heavy = check_batch("literal-heavy", &one, 1, NULL);
            printf("  rule: a literal-heavy chunk %s the path; a chunk of no sequences %s it\n",
                   heavy ? "took" : "left", none ? "took" : "left");
            EXPECT(heavy == 0, "a literal-heavy chunk with sequences took the path\n");
            EXPECT(none == 1, "a chunk with no sequences left the path\n");
            free(zz);
            batch_free(&one);
        }
        free(noise);
        free(two);
        batch_free(&b);
        free(text);
    }
    printf(
        "%zu of %zu chunks on the lane-parallel path; %zu damaged chunks that libzstd accepts and the core "
        "rejects\n",
        on_total, total, g_stricter);
    return g_failures != 0;
}
