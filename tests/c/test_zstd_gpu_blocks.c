/*
 * test_zstd_gpu_blocks.c - the block-parallel path of the GPU Zstandard
 * decoder (bench/gpu/dev/zstd_dec_blocks.h, an experiment that lost its GPU A/B: scan, per-block entropy,
 * resolve, in-order execution), compiled for the host with one lane, against
 * libzstd and against the per-chunk core (zd_decode_chunk).
 *
 * The path's contract is one-sided: it may give up on a frame (the per-chunk
 * core then decodes it and gives the status), but where it succeeds,
 * zd_decode_chunk succeeds with the same bytes.  Guards:
 *   - MB-sized frames of libzstd at -1/1/3/19 (what zarr and numcodecs write:
 *     128 KiB blocks) take the path and decode exactly, with the blocks'
 *     entropy decoded in reverse order (no hidden dependence on order);
 *   - frames of small blocks (a flush every few KiB) exercise Treeless
 *     literals, Repeat_Mode FSE tables and repeat offsets that cross block
 *     boundaries (counted: each must occur, or the test proves nothing);
 *   - capacity one byte short, a bad checksum, a wrong content size: the path
 *     gives up;
 *   - damaged frames (byte flips, truncations): where the path succeeds,
 *     zd_decode_chunk gives OK and the same bytes (ASan suite: no access
 *     outside the buffers).
 * Every decode also runs v7 (bench/gpu/dev/zstd_dec_bigframe.h: the same
 * steps, but execution a block at a time, last block first, with matches
 * into unfinished output deferred to an in-order pass): it must succeed
 * exactly where v5 does, with the same bytes.  The test prints the share of
 * sequences v7 defers (what its in-order pass must still execute).
 * And v8 (src/cuda/codecs/zstd/zstd_dec_frame.h: each block's entropy decoded into
 * one of two reused slots just before the block is executed in order, the
 * resolve done on the way): the same result and bytes as v5 again, both
 * with the executor copying the literals (v8, the library's kernel) and
 * with the literals copied first at the offset chain's position and only
 * the matches executed (v8c, an experiment that lost its GPU A/B:
 * bench/gpu/dev/zstd_dec_frame_v8c.h); neither writes past the capacity.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "../bench/gpu/dev/zstd_dec_bigframe.h"
#include "../bench/gpu/dev/zstd_dec_frame_v8c.h"

#include "helpers/soft_check.h"
#include "helpers/tu_rng.h"
#include "helpers/zstd_ref.h"

static zd_tables g_tables;
static uint8_t g_lit[ZD_BLOCK_MAX];

static zd_bp_stats g_stats;
static size_t g_frames_path;

static oc_status legacy(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    return zd_decode_chunk(&g_tables, src, n, dst, cap, out, g_lit, sizeof g_lit);
}

/* The block-parallel path alone: 1 and *out the size on success, 0 when it
 * gives up. */
static size_t g_ndef, g_nseq;
static int bp_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    int ok = zd_bp_decode_host(&g_tables, src, n, dst, cap, out, &g_stats);
    uint8_t *v7 = malloc(cap + 1);
    size_t n7 = 0;
    int ok7 = zd_bf_decode_host(&g_tables, src, n, v7, cap, &n7, &g_ndef, &g_nseq);
    EXPECT(ok7 == ok, "v7 %s where v5 %s", ok7 ? "succeeded" : "gave up", ok ? "succeeded" : "gave up");
    if (ok && ok7)
        EXPECT(n7 == *out && memcmp(v7, dst, n7) == 0, "v7 output differs from v5's (%zu bytes)", n7);
    for (int placed = 0; placed < 2; placed++) {
        size_t n8 = 0;
        memset(v7, 0x5A, cap + 1);
        int ok8 = placed ? zd_pf_decode_host_v8c(&g_tables, src, n, v7, cap, &n8, (uint64_t)1 << 20)
                         : zd_pf_decode_host(&g_tables, src, n, v7, cap, &n8, (uint64_t)1 << 20);
        EXPECT(ok8 == ok, "v8%s %s where v5 %s", placed ? "c" : "", ok8 ? "succeeded" : "gave up",
               ok ? "succeeded" : "gave up");
        if (ok && ok8)
            EXPECT(n8 == *out && memcmp(v7, dst, n8) == 0, "v8%s output differs from v5's (%zu bytes)",
                   placed ? "c" : "", n8);
        EXPECT(v7[cap] == 0x5A, "v8%s wrote past the capacity", placed ? "c" : "");
    }
    free(v7);
    return ok;
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

/* Decodes frame z both ways: the path must succeed (want_path) and give the
 * original; the per-chunk core agrees. */
static void check_frame(const char *what, const uint8_t *z, size_t zn, const uint8_t *orig, size_t n,
                        int want_path)
{
    uint8_t *a = malloc(n + 1), *b = malloc(n + 1);
    size_t an = 0, bn = 0;
    int ok = bp_decode(z, zn, a, n, &an);
    oc_status st = legacy(z, zn, b, n, &bn);
    CHECK(st == OC_OK && bn == n && memcmp(b, orig, n) == 0);
    if (want_path)
        EXPECT(ok, "%s: the block-parallel path gave up on a valid frame", what);
    if (ok)
        EXPECT(an == n && memcmp(a, orig, n) == 0, "%s: block-parallel output differs", what);
    g_frames_path += ok;
    /* one byte short: the path gives up (the core says OUTPUT_TOO_SMALL) */
    if (n > 0)
        EXPECT(!bp_decode(z, zn, a, n - 1, &an), "%s: accepted with capacity n-1", what);
    free(a);
    free(b);
}

static tu_rng g_rng = {0x2545F491u}; /* helpers/tu_rng.h */
static uint32_t rnd(void)
{
    return (uint32_t)tu_rng_next(&g_rng);
}

/* Damaged copies of z: wherever the path succeeds the core gives OK and
 * the same bytes. */
static void check_damaged(const uint8_t *z, size_t zn, size_t n, int tries)
{
    uint8_t *d = malloc(zn), *a = malloc(n), *b = malloc(n);
    size_t accepted = 0;
    for (int t = 0; t < tries; t++) {
        memcpy(d, z, zn);
        size_t len = zn;
        int kind = t % 4;
        if (kind == 3) {
            len = rnd() % zn;
        } else {
            int flips = 1 + kind * 3;
            for (int i = 0; i < flips; i++)
                d[rnd() % zn] ^= (uint8_t)(1u << (rnd() % 8));
        }
        size_t an = 0, bn = 0;
        memset(a, 0xA5, n);
        int ok = bp_decode(d, len, a, n, &an);
        oc_status st = legacy(d, len, b, n, &bn);
        if (ok) {
            accepted++;
            EXPECT(st == OC_OK && an == bn && memcmp(a, b, an) == 0,
                   "damaged try %d: path OK, core status %d sizes %zu/%zu", t, (int)st, an, bn);
        }
    }
    printf("  damaged: %d tries, %zu accepted by the path\n", tries, accepted);
    free(d);
    free(a);
    free(b);
}

/* text-like records: numbers, words and repeats at many distances */
static uint8_t *make_records(size_t n)
{
    static const char *words[] = {"alpha", "beta", "gamma", "delta", "zarr", "chunk", "frame", "block"};
    uint8_t *p = malloc(n);
    size_t i = 0;
    while (i < n) {
        char line[96];
        int len = snprintf(line, sizeof line, "%u|%s|%s|%u.%02u\n", rnd() % 100000, words[rnd() % 8],
                           words[rnd() % 8], rnd() % 1000, rnd() % 100);
        for (int j = 0; j < len && i < n; j++)
            p[i++] = (uint8_t)line[j];
    }
    return p;
}

int main(void)
{
    static const char *corpus[] = {OC_SOURCE_DIR "/bench/corpus-sample/text_linux_docs.txt",
                                   OC_SOURCE_DIR "/bench/corpus-sample/elf_gdb_cmake_libstdcxx.tar",
                                   OC_SOURCE_DIR "/bench/corpus-sample/tpch_l_orderkey.i64",
                                   OC_SOURCE_DIR "/bench/corpus-sample/weights_minilm_l0-1.f32"};
    static const int levels[] = {-1, 1, 3, 19};
    size_t rn = 4u << 20;
    uint8_t *records = make_records(rn);
    for (size_t fi = 0; fi <= sizeof corpus / sizeof corpus[0]; fi++) {
        size_t n = rn;
        uint8_t *data = fi == 0 ? records : read_file(corpus[fi - 1], 4u << 20, &n);
        if (!data) {
            printf("  %s: absent, skipped\n", corpus[fi - 1]);
            continue;
        }
        const char *name = fi == 0 ? "records" : corpus[fi - 1];
        for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
            /* -19 on 4 MiB is slow: 1 MiB frames there */
            size_t sizes[2] = {1u << 20, levels[li] == 19 ? 0 : (size_t)4 << 20};
            for (int si = 0; si < 2; si++) {
                size_t m = sizes[si] < n ? sizes[si] : n;
                if (m == 0)
                    continue;
                size_t zn;
                uint8_t *z = zstd_ref_compress(data, m, levels[li], (int)(li & 1), 1, 0, &zn);
                char what[300];
                snprintf(what, sizeof what, "%s level %d %zu bytes", name, levels[li], m);
                size_t d0 = g_ndef, s0 = g_nseq;
                check_frame(what, z, zn, data, m, 1);
                if (levels[li] == 3)
                    printf("  %s: v7 deferred %zu of %zu sequences (%.1f%%)\n", what, g_ndef - d0,
                           g_nseq - s0,
                           100.0 * (double)(g_ndef - d0) / (double)(g_nseq - s0 + (g_nseq == s0)));
                if (li == 2 && si == 0)
                    check_damaged(z, zn, m, fi == 0 ? 150 : 40);
                free(z);
            }
        }
        /* small blocks: a flush every 3000 bytes at -3 and -19 */
        size_t m = n < (600u << 10) ? n : (600u << 10);
        for (int lv = 3; lv <= 19; lv += 16) {
            size_t zn;
            uint8_t *z = zstd_ref_compress(data, m, lv, 1, 1, 3000, &zn);
            char what[300];
            snprintf(what, sizeof what, "%s level %d, small blocks", name, lv);
            check_frame(what, z, zn, data, m, 1);
            if (lv == 3)
                check_damaged(z, zn, m, 100);
            /* a bad checksum: the path gives up */
            z[zn - 1] ^= 1;
            uint8_t *o = malloc(m);
            size_t on;
            EXPECT(!bp_decode(z, zn, o, m, &on), "%s: bad checksum accepted", what);
            free(o);
            free(z);
        }
        if (data != records)
            free(data);
    }
    /* chunks the path leaves to the per-chunk core: two frames, a single
     * block, a skippable frame in front */
    {
        size_t zn;
        uint8_t *z = zstd_ref_compress(records, 300000, 3, 0, 1, 0, &zn);
        uint8_t *two = malloc(2 * zn + 16), *o = malloc(600000);
        memcpy(two, z, zn);
        memcpy(two + zn, z, zn);
        size_t on;
        CHECK(!bp_decode(two, 2 * zn, o, 600000, &on));
        uint8_t skip[8] = {0x50, 0x2A, 0x4D, 0x18, 0, 0, 0, 0};
        memcpy(two, skip, 8);
        memcpy(two + 8, z, zn);
        CHECK(!bp_decode(two, zn + 8, o, 600000, &on));
        free(z);
        z = zstd_ref_compress(records, 100000, 3, 0, 1, 0, &zn);
        CHECK(!bp_decode(z, zn, o, 600000, &on));
        free(z);
        free(two);
        free(o);
    }
    printf("frames on the path %zu, blocks %zu, treeless %zu, repeat-mode tables %zu, symbolic offsets %zu\n",
           g_frames_path, g_stats.blocks, g_stats.treeless, g_stats.repeat_mode, g_stats.sym_offsets);
    CHECK(g_stats.treeless > 0);
    CHECK(g_stats.repeat_mode > 0);
    CHECK(g_stats.sym_offsets > 0);
    printf("v7: %zu of %zu sequences deferred to the in-order pass\n", g_ndef, g_nseq);
    CHECK(g_ndef > 0); /* the in-order pass ran */
    free(records);
    return g_failures != 0;
}
