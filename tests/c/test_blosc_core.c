/*
 * test_blosc_core.c - the Blosc cores the GPU engine runs
 * (src/common/blosc_format.h, shuffle.h, blosclz.h; put together as a
 * decoder in helpers/blosc_ref.h), compiled for the host, against libblosc
 * (c-blosc 1.x, the reference library); and the CPU engine's Blosc codec
 * (libblosc behind our layout check).
 *
 * Guards:
 *   - every chunk libblosc writes (cnames blosclz, lz4, lz4hc, snappy,
 *     zlib, zstd; no shuffle, byte shuffle, bitshuffle; typesizes 1, 2, 3,
 *     4, 7, 8, 16, 17, 32; automatic and forced block sizes, short last
 *     blocks; TPC-H-like int32/int64/float64 columns and text; clevels
 *     1-9) decodes with a reference decoder built from our cores alone
 *     (the layout walk, our BloscLZ, our unshuffle, the GPU inflate core
 *     for zlib streams; inner LZ4/Snappy/Zstd streams by their libraries)
 *     to the original bytes: the format rules the GPU kernels follow are
 *     libblosc's;
 *   - zlib streams edited field by field (helpers/blosc_zlib_cases.h):
 *     the zlib core finds the intended reason (CHECKSUM_MISMATCH,
 *     TRUNCATED, NEEDS_DICTIONARY, ...), and the reference decoder, the
 *     CPU engine and libblosc itself agree on the chunk (OK or CORRUPT;
 *     bytes after the Adler-32 are accepted, as libblosc accepts them);
 *   - shuffle and bitshuffle forward filters are the inverses of those
 *     unshuffles (so a chunk opencomp shuffles reads back in c-blosc);
 *   - the CPU codec decodes the same chunks through oc_batch_decompress,
 *     and its chunks decode with libblosc, for every cname and filter;
 *   - hostile input: every proper prefix of a chunk is TRUNCATED; damaged
 *     header fields, block starts and csize words give the exact statuses
 *     below; random damage never reads outside the chunk (ASan suite) and
 *     the CPU codec and the reference agree on whether a chunk is valid;
 *   - where libblosc 1.21 refuses a header (format version 1, a block
 *     size above BLOSC_MAX_BLOCKSIZE) or picks a filter (both shuffle flags
 *     set), the cores and the CPU codec do the same (fuzz_container_blosc's
 *     findings);
 *   - hand-made BloscLZ streams: far distances, overlapping matches,
 *     distances before the output's start (CORRUPT), cut streams
 *     (TRUNCATED), too little room (OUTPUT_TOO_SMALL);
 *   - the encoder's rules (src/common/blosc_encode.h): the block size and
 *     the flags libblosc writes for every codec, level 0-9, typesize,
 *     filter, forced block size and buffer size of a grid, and the stream
 *     count of the GPU encoder's plan (oc_blosc_enc_plan_chunk); chunks
 *     assembled by those rules (filtered blocks, every stream stored)
 *     decode with libblosc to the input;
 *   - the GPU encoder's host-run half: chunks put together stream by
 *     stream as blosc_enc_kernels.cu does (plan, each stream's filtered
 *     bytes on its own, inner streams by liblz4 / libzstd / snappy into
 *     room of the stream's size and stored when they do not shrink, the
 *     tables, memcpyed when the streams do not fit in nbytes + 16)
 *     decode with libblosc and with the reference decoder, for lz4, lz4hc,
 *     snappy and zstd x no filter / byte shuffle / bitshuffle x typesizes
 *     1, 2, 3, 4, 8, 16, 17 x sizes with short last blocks, elements cut
 *     at the end, incompressible data and forced small blocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc.h>

#include "common/blosc_encode.h"
#include "helpers/blosc_ref.h"
#include "helpers/blosc_zlib_cases.h"
#include "helpers/test_util.h"

/* ---- data ---------------------------------------------------------------- */

static void tpch_like(uint8_t *p, size_t n, int kind, uint64_t seed)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i + 8 <= n || (kind == 0 && i + 4 <= n); i += kind == 0 ? 4 : 8) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        if (kind == 0) { /* l_partkey: int32 in 1..200000 */
            uint32_t v = (uint32_t)(1 + s % 200000);
            memcpy(p + i, &v, 4);
        } else if (kind == 1) { /* l_orderkey: int64, sorted, 1-7 rows per key */
            uint64_t v = 1 + (i / 8) / 4 * 4 + (s & 1);
            memcpy(p + i, &v, 8);
        } else { /* l_extendedprice: float64 with 2 decimals */
            double v = (double)(90000 + s % 10400000) / 100.0;
            memcpy(p + i, &v, 8);
        }
    }
    for (size_t i = n - n % 8; i < n; i++) /* any tail bytes */
        p[i] = (uint8_t)(i * 31);
}

static const char *const cnames[] = {"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"};

static uint8_t *blosc_chunk(const uint8_t *src, size_t n, const char *cname, int clevel, int shuffle,
                            size_t typesize, size_t blocksize, size_t *csize)
{
    uint8_t *c = tu_xmalloc(n + BLOSC_MAX_OVERHEAD);
    int r =
        blosc_compress_ctx(clevel, shuffle, typesize, n, src, c, n + BLOSC_MAX_OVERHEAD, cname, blocksize, 1);
    CHECK_MSG(r > 0, "libblosc failed: %s shuffle %d typesize %zu", cname, shuffle, typesize);
    *csize = (size_t)r;
    return c;
}

static oc_context *g_ctx;

static oc_status cpu_decode(const uint8_t *c, size_t cn, uint8_t *out, size_t cap, size_t *size)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BLOSC;
    const void *sp = c;
    void *dp = out;
    oc_status st = OC_ERR_INTERNAL;
    *size = 0;
    CHECK_OK(oc_batch_decompress(g_ctx, &o, 1, &sp, &cn, &dp, &cap, size, &st));
    return st;
}

/* ---- libblosc's chunks decode with the cores ------------------------------ */

static size_t g_streams_checked;

static void check_chunk(const uint8_t *src, size_t n, const uint8_t *c, size_t cn, const char *what)
{
    uint8_t *out = tu_xmalloc(n + 1);
    size_t size = 0;
    oc_status st = blosc_ref_decode(c, cn, out, n, &size);
    CHECK_MSG(st == OC_OK, "%s: reference decode %s", what, oc_status_name(st));
    CHECK_SIZE_EQ(size, n);
    CHECK_MEM_EQ(out, src, n);
    memset(out, 0xA5, n);
    CHECK_OK(cpu_decode(c, cn, out, n, &size));
    CHECK_SIZE_EQ(size, n);
    CHECK_MEM_EQ(out, src, n);
    if (n > 0) { /* one byte short */
        CHECK_STATUS(blosc_ref_decode(c, cn, out, n - 1, &size), OC_ERR_OUTPUT_TOO_SMALL);
        CHECK_STATUS(cpu_decode(c, cn, out, n - 1, &size), OC_ERR_OUTPUT_TOO_SMALL);
    }
    free(out);
    g_streams_checked++;
}

static void reference_chunks(void)
{
    size_t n = (size_t)1 << 20;
    uint8_t *col[4];
    for (int k = 0; k < 3; k++) {
        col[k] = tu_xmalloc(n);
        tpch_like(col[k], n, k, (uint64_t)k + 7);
    }
    tu_buf text;
    tu_corpus_get("text", n, &text);
    col[3] = text.data;
    size_t sizes[] = {n, 600011, 4096 + 13, 777, 100, 0};
    static const size_t typesizes[] = {1, 2, 3, 4, 7, 8, 16, 17, 32};
    static const size_t blocksizes[] = {0, 4096, 65536 + 8};
    size_t chunks = 0;
    for (int d = 0; d < 4; d++) {
        size_t len = d == 3 ? (text.size < n ? text.size : n) : n;
        for (int cn = 0; cn < 6; cn++)
            for (int sh = 0; sh <= 2; sh++)
                for (size_t t = 0; t < sizeof typesizes / sizeof typesizes[0]; t++)
                    for (size_t bsi = 0; bsi < 3; bsi++) {
                        /* a spread of sizes and levels without running all of them everywhere */
                        size_t sz = sizes[(d + cn + sh + t + bsi) % 6];
                        sz = sz > len ? len : sz;
                        int clevel = 1 + (int)((cn + t + bsi) % 9);
                        size_t csize = 0;
                        uint8_t *c = blosc_chunk(col[d], sz, cnames[cn], clevel, sh, typesizes[t],
                                                 blocksizes[bsi], &csize);
                        char what[160];
                        snprintf(what, sizeof what,
                                 "data %d %s clevel %d shuffle %d typesize %zu blocksize %zu n %zu", d,
                                 cnames[cn], clevel, sh, typesizes[t], blocksizes[bsi], sz);
                        check_chunk(col[d], sz, c, csize, what);
                        free(c);
                        chunks++;
                    }
    }
    printf("reference decode: %zu libblosc chunks\n", chunks);
    for (int k = 0; k < 3; k++)
        free(col[k]);
    tu_buf_free(&text);
}

/* ---- the forward filters are the unshuffles' inverses --------------------- */

static void filters(void)
{
    size_t n = 65536 + 21;
    uint8_t *a = tu_xmalloc(n), *b = tu_xmalloc(n), *c = tu_xmalloc(n);
    tpch_like(a, n, 2, 3);
    for (uint32_t t = 1; t <= 33; t++)
        for (int mode = 1; mode <= 2; mode++)
            for (size_t len = 0; len < n; len = len * 3 + 1 + t) {
                oc_filter_buffer(b, a, len, t, mode, 0);
                oc_filter_buffer(c, b, len, t, mode, 1);
                CHECK_MEM_EQ(c, a, len);
            }
    /* the byte shuffle's layout, by hand: 3 elements of 2 bytes + a tail byte */
    const uint8_t plain[7] = {1, 2, 3, 4, 5, 6, 7}, want[7] = {1, 3, 5, 2, 4, 6, 7};
    oc_filter_buffer(b, plain, 7, 2, 1, 0);
    CHECK_MEM_EQ(b, want, 7);
    /* bitshuffle of 8 one-byte elements: row k holds bit k of each element */
    const uint8_t e8[8] = {0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x80};
    oc_filter_buffer(b, e8, 8, 1, 2, 0);
    CHECK_EQ(b[0], 0x05); /* bit 0: elements 0 and 2 */
    CHECK_EQ(b[7], 0x80); /* bit 7: element 7 */
    for (int k = 1; k < 7; k++)
        CHECK_EQ(b[k], 0);
    free(a), free(b), free(c);
}

/* ---- the CPU codec's chunks decode with libblosc ---------------------------- */

static void cpu_codec_interop(void)
{
    size_t n = (size_t)1 << 20;
    uint8_t *src = tu_xmalloc(n), *out = tu_xmalloc(n);
    tpch_like(src, n, 0, 11);
    for (int codec = 0; codec <= OC_BLOSC_ZSTD; codec++)
        for (int filter = 0; filter <= 2; filter++)
            for (int level = -1; level <= 9; level += 5) {
                oc_codec_options o = OC_CODEC_OPTIONS_INIT;
                o.algorithm = OC_ALGO_BLOSC;
                o.level = level;
                o.filter = (uint8_t)filter;
                o.typesize = 4;
                o.blosc_codec = (uint8_t)codec;
                size_t cap = oc_compress_bound(OC_ALGO_BLOSC, n), csize = 0;
                uint8_t *c = tu_xmalloc(cap);
                const void *sp = src;
                void *dp = c;
                oc_status st = OC_ERR_INTERNAL;
                CHECK_OK(oc_batch_compress(g_ctx, &o, 1, &sp, &n, &dp, &cap, &csize, &st));
                CHECK_OK(st);
                CHECK_EQ(blosc_decompress_ctx(c, out, n, 1), (int)n);
                CHECK_MEM_EQ(out, src, n);
                size_t nb = 0, cb = 0, bs = 0, ts = 0;
                int flags = 0;
                blosc_cbuffer_sizes(c, &nb, &cb, &bs);
                blosc_cbuffer_metainfo(c, &ts, &flags);
                flags = c[2]; /* metainfo masks the codec bits */
                CHECK_SIZE_EQ(cb, csize);
                CHECK_EQ(ts, 4);
                if (level > 0 && !(flags & BLOSC_MEMCPYED)) {
                    CHECK_EQ((flags & (BLOSC_DOSHUFFLE | BLOSC_DOBITSHUFFLE)), filter == 1 ? BLOSC_DOSHUFFLE
                                                                               : filter == 2
                                                                                   ? BLOSC_DOBITSHUFFLE
                                                                                   : 0);
                    CHECK_EQ(flags >> 5, codec == 0 ? 1 : codec == 1 ? 0 : codec == 2 ? 1 : codec - 1);
                }
                check_chunk(src, n, c, csize, "cpu codec chunk");
                free(c);
            }
    free(src), free(out);
}

/* ---- hostile input ------------------------------------------------------------ */

static void hostile(void)
{
    size_t n = 200000;
    uint8_t *src = tu_xmalloc(n), *out = tu_xmalloc(n);
    tpch_like(src, n, 0, 5);
    for (int cn = 0; cn < 6; cn++) {
        size_t csize = 0;
        uint8_t *c = blosc_chunk(src, n, cnames[cn], 5, BLOSC_SHUFFLE, 4, 16384, &csize);
        size_t size = 0;
        /* every proper prefix: TRUNCATED (the header's cbytes says more) */
        for (size_t k = 0; k < csize; k += 1 + k / 64) {
            CHECK_STATUS(blosc_ref_decode(c, k, out, n, &size), OC_ERR_TRUNCATED);
            CHECK_STATUS(cpu_decode(c, k, out, n, &size), OC_ERR_TRUNCATED);
        }
        uint8_t *m = tu_xmalloc(csize + 1);
        /* a byte after the chunk */
        memcpy(m, c, csize);
        m[csize] = 0;
        CHECK_STATUS(cpu_decode(m, csize + 1, out, n, &size), OC_ERR_CORRUPT);
        /* header fields */
        struct {
            size_t at;
            uint8_t v;
            oc_status want;
        } edits[] = {
            {0, 0, OC_ERR_CORRUPT},     /* version 0 */
            {0, 3, OC_ERR_UNSUPPORTED}, /* Blosc2 */
            {1, 2, OC_ERR_CORRUPT},     /* versionlz */
            {2, 0x08, OC_ERR_CORRUPT},  /* reserved flag */
            {2, 0xA1, OC_ERR_CORRUPT},  /* codec 5 */
            {3, 0, OC_ERR_CORRUPT},     /* typesize 0 */
            {7, 0x80, OC_ERR_CORRUPT},  /* nbytes > 2^31 */
            {8, 0, OC_ERR_CORRUPT},     /* blocksize 0 (with the other bytes 0 below) */
            {11, 0x01, OC_ERR_CORRUPT}, /* blocksize above nbytes, as c-blosc refuses it */
            {12, 0, OC_ERR_CORRUPT},    /* cbytes != buffer size */
            {16, 0, OC_ERR_CORRUPT},    /* block 0 starts inside the table */
            {19, 0x40, OC_ERR_CORRUPT}, /* block 0 starts past the chunk */
        };
        for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
            memcpy(m, c, csize);
            if (edits[e].at == 0 && edits[e].v == 3 && cn == 0)
                continue;
            m[edits[e].at] = edits[e].v;
            if (edits[e].at == 8)
                m[9] = m[10] = m[11] = 0;
            if (edits[e].at == 2 && edits[e].v == 0xA1)
                m[2] = (uint8_t)(0xA1 | (c[2] & 0x10));
            if (edits[e].at == 2 && edits[e].v == 0x08)
                m[2] = (uint8_t)(c[2] | 0x08);
            oc_status want = edits[e].want;
            CHECK_MSG(blosc_ref_decode(m, csize, out, n, &size) == want, "%s edit %zu: ref %s", cnames[cn], e,
                      oc_status_name(blosc_ref_decode(m, csize, out, n, &size)));
            CHECK_MSG(cpu_decode(m, csize, out, n, &size) == want, "%s edit %zu: cpu %s", cnames[cn], e,
                      oc_status_name(cpu_decode(m, csize, out, n, &size)));
        }
        /* a csize word: negative, 0, past the end */
        oc_blosc_header h;
        CHECK_OK(oc_blosc_parse_header(c, csize, &h));
        uint32_t b0 = oc_load_le32(c + 16);
        uint32_t bad[] = {0x80000000u, 0, (uint32_t)csize};
        for (size_t k = 0; k < 3; k++) {
            memcpy(m, c, csize);
            oc_store_le32(m + b0, bad[k]);
            oc_status want = k == 2 ? OC_ERR_TRUNCATED : OC_ERR_CORRUPT;
            CHECK_STATUS(blosc_ref_decode(m, csize, out, n, &size), want);
            CHECK_STATUS(cpu_decode(m, csize, out, n, &size), want);
        }
        /* random damage past the header: both decoders agree on validity,
         * and read nothing outside the chunk (ASan) */
        uint64_t s = 99 + (uint64_t)cn;
        for (int r = 0; r < 400; r++) {
            memcpy(m, c, csize);
            for (int k = 0; k < 1 + r % 4; k++) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                m[16 + s % (csize - 16)] ^= (uint8_t)(1u << (s >> 32) % 8);
            }
            oc_status a = blosc_ref_decode(m, csize, out, n, &size);
            oc_status b = cpu_decode(m, csize, out, n, &size);
            CHECK_MSG((a == OC_OK) == (b == OC_OK) || cn == 1 || cn == 2, "%s: ref %s cpu %s", cnames[cn],
                      oc_status_name(a), oc_status_name(b));
        }
        free(m);
        free(c);
    }
    /* memcpyed chunks (clevel 0): a block size of 0 or above nbytes is CORRUPT
     * for our decoder as for c-blosc (the GPU once copied such chunks as OK) */
    size_t csize = 0;
    uint8_t *c = blosc_chunk(src, n, "lz4", 0, BLOSC_SHUFFLE, 4, 0, &csize);
    CHECK(c[2] & 0x02);
    size_t size = 0;
    CHECK_STATUS(blosc_ref_decode(c, csize, out, n, &size), OC_OK);
    static const uint32_t blocksizes[] = {0, 200001, 0x40000000u};
    for (size_t k = 0; k < 3; k++) {
        oc_store_le32(c + 8, blocksizes[k]);
        CHECK_STATUS(blosc_ref_decode(c, csize, out, n, &size), OC_ERR_CORRUPT);
        CHECK_STATUS(cpu_decode(c, csize, out, n, &size), OC_ERR_CORRUPT);
    }
    free(c);
    free(src), free(out);
}

/* ---- where libblosc refuses or picks, so do we (fuzz_container_blosc finds) -- */

static oc_status cpu_size(const uint8_t *c, size_t cn, size_t *size)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BLOSC;
    const void *sp = c;
    oc_status st = OC_ERR_INTERNAL;
    *size = 0;
    CHECK_OK(oc_batch_decompressed_sizes(g_ctx, &o, 1, &sp, &cn, size, &st));
    return st;
}

static void libblosc_verdicts(void)
{
    size_t n = 4096, size = 0;
    uint8_t *src = tu_xmalloc(n), *out = tu_xmalloc(n), *ref = tu_xmalloc(n);
    tpch_like(src, n, 1, 17); /* sorted int64: every filter compresses it */
    /* format version 1: libblosc 1.21 refuses it (the cores once decoded it) */
    size_t csize = 0;
    uint8_t *c = blosc_chunk(src, n, "zstd", 1, BLOSC_SHUFFLE, 16, 0, &csize);
    CHECK_EQ(c[0], 2);
    c[0] = 1;
    CHECK(blosc_decompress_ctx(c, out, n, 1) < 0);
    CHECK_STATUS(blosc_ref_decode(c, csize, out, n, &size), OC_ERR_UNSUPPORTED);
    CHECK_STATUS(cpu_decode(c, csize, out, n, &size), OC_ERR_UNSUPPORTED);
    CHECK_STATUS(cpu_size(c, csize, &size), OC_ERR_UNSUPPORTED);
    free(c);
    /* both shuffle flags: the byte shuffle wins when typesize > 1, the
     * bitshuffle when typesize is 1 (libblosc's blosc_d; the cores once left
     * a 1-byte-typesize block as it was) */
    static const struct {
        int shuffle;
        size_t typesize;
    } both[] = {{BLOSC_BITSHUFFLE, 1}, {BLOSC_SHUFFLE, 4}, {BLOSC_BITSHUFFLE, 8}};
    for (size_t k = 0; k < sizeof both / sizeof both[0]; k++) {
        c = blosc_chunk(src, n, "lz4", 5, both[k].shuffle, both[k].typesize, 0, &csize);
        CHECK((c[2] & 0x02) == 0);
        c[2] |= BLOSC_DOSHUFFLE | BLOSC_DOBITSHUFFLE;
        int r = blosc_decompress_ctx(c, ref, n, 1);
        CHECK_EQ(r, (int)n);
        if (both[k].typesize != 8)
            CHECK_MEM_EQ(ref, src, n); /* the flag it was written with wins */
        CHECK_OK(blosc_ref_decode(c, csize, out, n, &size));
        CHECK_MEM_EQ(out, ref, n);
        CHECK_OK(cpu_decode(c, csize, out, n, &size));
        CHECK_MEM_EQ(out, ref, n);
        free(c);
    }
    /* a block size above c-blosc's BLOSC_MAX_BLOCKSIZE: CORRUPT, for the
     * size query too (it once reported the header's size) */
    uint8_t h[28] = {2, 1, 0x31, 4};                  /* lz4, not split */
    oc_store_le32(h + 4, 0x60000000u);                /* nbytes */
    oc_store_le32(h + 8, OC_BLOSC_MAX_BLOCKSIZE + 1); /* blocksize: 3 blocks */
    oc_store_le32(h + 12, sizeof h);
    oc_blosc_header hd;
    CHECK_STATUS(oc_blosc_parse_header(h, sizeof h, &hd), OC_ERR_CORRUPT);
    CHECK_STATUS(cpu_size(h, sizeof h, &size), OC_ERR_CORRUPT);
    oc_store_le32(h + 8, OC_BLOSC_MAX_BLOCKSIZE);
    CHECK_OK(oc_blosc_parse_header(h, sizeof h, &hd));
    CHECK_EQ(hd.nblocks, 3);
    CHECK_EQ(OC_BLOSC_MAX_BLOCKSIZE, BLOSC_MAX_BLOCKSIZE);
    free(src), free(out), free(ref);
}

/* ---- zlib streams edited field by field ---------------------------------------- */

static void zlib_streams(void)
{
    uint8_t plain[2 * BZC_BLOCK], out[2 * BZC_BLOCK];
    bzc_plain(plain);
    bzc_case cases[BZC_MAX];
    size_t m = bzc_make(plain, cases);
    CHECK(m >= 14);
    for (size_t i = 0; i < m; i++) {
        const bzc_case *x = &cases[i];
        /* the core on block 1's stream, in exactly-sized heap buffers */
        oc_blosc_header h;
        oc_blosc_stream str;
        CHECK_OK(oc_blosc_parse_header(x->chunk, x->cn, &h));
        CHECK_OK(oc_blosc_find_stream(x->chunk, &h, 1, 0, &str));
        CHECK(!str.stored);
        uint8_t *in = tu_xmalloc(str.csize), *d = tu_xmalloc(str.dsize);
        memcpy(in, x->chunk + str.offset, str.csize);
        size_t got = 0;
        oc_status r = blz_zlib_decode(&blosc_ref_inf, in, str.csize, d, str.dsize, &got);
        CHECK_MSG(r == x->reason, "%s: core %s, expected %s", x->what, oc_status_name(r),
                  oc_status_name(x->reason));
        if (r == OC_OK)
            CHECK_MEM_EQ(d, plain + BZC_BLOCK, BZC_BLOCK);
        free(in), free(d);
        /* the chunk: reference, CPU engine, libblosc */
        size_t size = 0;
        CHECK_MSG(blosc_ref_decode(x->chunk, x->cn, out, sizeof out, &size) == x->want, "%s: reference",
                  x->what);
        memset(out, 0, sizeof out);
        oc_status c = cpu_decode(x->chunk, x->cn, out, sizeof out, &size);
        CHECK_MSG(c == x->want, "%s: CPU engine %s", x->what, oc_status_name(c));
        if (c == OC_OK)
            CHECK_MEM_EQ(out, plain, sizeof plain);
        int lb = blosc_decompress_ctx(x->chunk, out, sizeof out, 1);
        CHECK_MSG((lb == (int)sizeof out) == (x->want == OC_OK), "%s: libblosc %d", x->what, lb);
        if (lb == (int)sizeof out)
            CHECK_MEM_EQ(out, plain, sizeof plain);
    }
    bzc_free(cases, m);
    printf("zlib streams: %zu hand-edited chunks\n", m);
}

/* ---- BloscLZ by hand ---------------------------------------------------------- */

static void blosclz_streams(void)
{
    uint8_t out[300000];
    size_t size = 0;
    /* literal run of 3, then a match len 3+0 at distance 3 (ctrl 0x20, code 2), overlapping */
    const uint8_t s1[] = {0x22, 'a', 'b', 'c', 0x20, 0x02};
    CHECK_OK(oc_blosclz_decode(s1, sizeof s1, out, sizeof out, &size));
    CHECK_SIZE_EQ(size, 6);
    CHECK_MEM_EQ(out, "abcabc", 6);
    /* distance 1 run: len = 7-1 + 10 + 3 = 19 copies of 'z' */
    const uint8_t s2[] = {0x00, 'z', 0xE0, 10, 0x00};
    CHECK_OK(oc_blosclz_decode(s2, sizeof s2, out, sizeof out, &size));
    CHECK_SIZE_EQ(size, 20);
    for (int k = 0; k < 20; k++)
        CHECK_EQ(out[k], 'z');
    /* far distance: 9000 literals then a match at distance 8192 + 100 */
    uint8_t *s3 = tu_xmalloc(20000);
    size_t p = 0, lits = 9000;
    for (size_t k = 0; k < lits; k += 32) {
        size_t run = lits - k < 32 ? lits - k : 32;
        s3[p++] = (uint8_t)(run - 1);
        for (size_t j = 0; j < run; j++)
            s3[p++] = (uint8_t)((k + j) * 7);
    }
    s3[p++] = 0x20 | 31; /* len 0 + 3, hi 31 */
    s3[p++] = 255;       /* code 255 with hi 31: far */
    s3[p++] = 0;
    s3[p++] = 100;
    CHECK_OK(oc_blosclz_decode(s3, p, out, sizeof out, &size));
    CHECK_SIZE_EQ(size, lits + 3);
    CHECK_MEM_EQ(out + lits, out + lits - 8292, 3);
    CHECK_STATUS(oc_blosclz_decode(s3, p, out, lits + 2, &size), OC_ERR_OUTPUT_TOO_SMALL);
    for (size_t k = p - 3; k < p; k++) /* cut inside the far match */
        CHECK_STATUS(oc_blosclz_decode(s3, k, out, sizeof out, &size), OC_ERR_TRUNCATED);
    free(s3);
    /* distance before the output's start */
    const uint8_t s4[] = {0x01, 'a', 'b', 0x20, 0x05};
    CHECK_STATUS(oc_blosclz_decode(s4, sizeof s4, out, sizeof out, &size), OC_ERR_CORRUPT);
    /* literal run past the input; empty stream */
    const uint8_t s5[] = {0x05, 'a', 'b'};
    CHECK_STATUS(oc_blosclz_decode(s5, sizeof s5, out, sizeof out, &size), OC_ERR_TRUNCATED);
    CHECK_STATUS(oc_blosclz_decode(s5, 0, out, sizeof out, &size), OC_ERR_TRUNCATED);
    /* length extension running off the end */
    const uint8_t s6[] = {0x00, 'a', 0xE0, 255, 255};
    CHECK_STATUS(oc_blosclz_decode(s6, sizeof s6, out, sizeof out, &size), OC_ERR_TRUNCATED);
}

/* ---- the encoder's rules ---------------------------------------------------- */

/* oc_blosc_codec order (include/opencomp.h) -> c-blosc's names */
static const char *const enc_cnames[] = {"lz4", "blosclz", "lz4hc", "snappy", "zlib", "zstd"};

static void encode_rules(void)
{
    static const uint32_t typesizes[] = {1, 2, 3, 4, 7, 8, 16, 17, 32};
    static const uint32_t sizes[] = {100, 1000, 40000, 300000, (1u << 20) + 5};
    static const uint32_t forced[] = {0, 1000, 65536};
    size_t checked = 0;
    uint8_t *src = tu_xmalloc(sizes[4]), *c = tu_xmalloc(sizes[4] + BLOSC_MAX_OVERHEAD);
    for (uint32_t i = 0; i < sizes[4]; i++)
        src[i] = (uint8_t)(i % 251 < 200 ? 0 : i); /* compresses fast at every level */
    for (int codec = 0; codec < 6; codec++)
        for (int clevel = 0; clevel <= 9; clevel++)
            for (size_t t = 0; t < sizeof typesizes / sizeof typesizes[0]; t++)
                for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                    for (int filter = 0; filter <= 2; filter++)
                        for (size_t f = 0; f < sizeof forced / sizeof forced[0]; f++) {
                            uint32_t ts = typesizes[t], n = sizes[z];
                            if (n > 100000 && (filter != 1 || f != 0 || clevel % 3 != 2))
                                continue; /* large buffers: the level steps that matter, one filter */
                            int r = blosc_compress_ctx(clevel, filter, ts, n, src, c, n + BLOSC_MAX_OVERHEAD,
                                                       enc_cnames[codec], forced[f], 1);
                            CHECK_MSG(r > 0, "libblosc %s clevel %d failed", enc_cnames[codec], clevel);
                            if (r <= 0)
                                continue;
                            uint32_t bs = oc_load_le32(c + 8);
                            uint32_t want = oc_blosc_enc_blocksize(codec, clevel, ts, n, forced[f]);
                            CHECK_MSG(bs == want,
                                      "%s clevel %d typesize %u size %u forced %u: block size %u, ours %u",
                                      enc_cnames[codec], clevel, ts, n, forced[f], bs, want);
                            uint8_t fl = oc_blosc_enc_flags(codec, filter, ts, bs);
                            CHECK_MSG((c[2] & ~OC_BLOSC_F_MEMCPYED) == fl,
                                      "%s clevel %d typesize %u size %u filter %d: flags %#x, ours %#x",
                                      enc_cnames[codec], clevel, ts, n, filter, c[2], fl);
                            if (clevel == 0 || n < OC_BLOSC_MIN_BUFFER)
                                CHECK_MSG(c[2] & OC_BLOSC_F_MEMCPYED,
                                          "level 0 and tiny buffers are memcpyed");
                            oc_blosc_enc_plan plan;
                            memset(&plan, 0, sizeof plan);
                            CHECK_OK(oc_blosc_enc_plan_chunk(codec, clevel ? clevel : -1, filter, ts, n,
                                                             forced[f], &plan));
                            CHECK(plan.blocksize == bs && (plan.flags & ~OC_BLOSC_F_MEMCPYED) == fl);
                            CHECK(!(plan.flags & OC_BLOSC_F_MEMCPYED) ==
                                  (clevel != 0 && n >= OC_BLOSC_MIN_BUFFER));
                            if (!(c[2] & OC_BLOSC_F_MEMCPYED)) { /* the streams libblosc wrote */
                                oc_blosc_header h;
                                CHECK_OK(oc_blosc_parse_header(c, (size_t)r, &h));
                                uint32_t ns = 0;
                                for (uint32_t b = 0; b < h.nblocks; b++)
                                    ns += oc_blosc_block_streams(&h, b);
                                CHECK_MSG(plan.nstreams == ns && plan.nblocks == h.nblocks,
                                          "%s typesize %u size %u: %u streams, plan %u", enc_cnames[codec],
                                          ts, n, ns, plan.nstreams);
                            }
                            checked++;
                        }
    CHECK_MSG(checked > 10000, "%zu encoder cases", checked);
    free(src);
    free(c);
}

/* A chunk assembled by the encoder's rules with every stream stored: the
 * layout a Blosc encoder writes (header, block starts, per block the
 * filtered bytes as csize-prefixed streams), which libblosc must decode. */
static void encode_assembled(int codec, int filter, uint32_t ts, uint32_t n, int kind)
{
    uint8_t *src = tu_xmalloc(n), *blk = tu_xmalloc(n), *out = tu_xmalloc(n);
    tpch_like(src, n, kind, 7);
    uint32_t bs = oc_blosc_enc_blocksize(codec, 5, ts, n, 0);
    oc_blosc_header h;
    memset(&h, 0, sizeof h);
    h.nbytes = n;
    h.blocksize = bs;
    h.typesize = (uint8_t)ts;
    h.flags = oc_blosc_enc_flags(codec, filter, ts, bs);
    h.nblocks = (n + bs - 1) / bs;
    h.last_size = n % bs ? n % bs : bs;
    size_t cap =
        OC_BLOSC_HEADER_SIZE + 4 * (size_t)h.nblocks + n + 4 * (size_t)h.nblocks * OC_BLOSC_MAX_SPLITS;
    uint8_t *c = tu_xmalloc(cap);
    size_t pos = OC_BLOSC_HEADER_SIZE + 4 * (size_t)h.nblocks;
    for (uint32_t b = 0; b < h.nblocks; b++) {
        uint32_t bsz = oc_blosc_block_size(&h, b), ns = oc_blosc_block_streams(&h, b), ds = bsz / ns;
        int mode = oc_blosc_block_filter(&h, bsz);
        oc_filter_buffer(blk, src + (size_t)b * bs, bsz, ts, mode, 0);
        for (int i = 0; i < 4; i++)
            c[OC_BLOSC_HEADER_SIZE + 4 * b + i] = (uint8_t)(pos >> (8 * i));
        for (uint32_t s = 0; s < ns; s++) { /* stored: csize = its decoded size */
            for (int i = 0; i < 4; i++)
                c[pos + i] = (uint8_t)(ds >> (8 * i));
            memcpy(c + pos + 4, blk + (size_t)s * ds, ds);
            pos += 4 + ds;
        }
    }
    oc_blosc_put_header(c, h.flags, (uint8_t)ts, n, bs, (uint32_t)pos);
    oc_blosc_header back;
    CHECK_OK(oc_blosc_parse_header(c, pos, &back));
    CHECK_MSG(back.nsplits == (oc_blosc_enc_split(codec, ts, bs) ? ts : 1), "%s: splits", enc_cnames[codec]);
    memset(out, 0xA5, n);
    int r = blosc_decompress_ctx(c, out, n, 1);
    CHECK_MSG(r == (int)n && memcmp(out, src, n) == 0,
              "libblosc decodes the assembled %s chunk (filter %d, ts %u)", enc_cnames[codec], filter, ts);
    check_chunk(src, n, c, pos, "assembled chunk");
    free(src);
    free(blk);
    free(out);
    free(c);
}

/* One inner stream by its library into room of its own size, as the GPU
 * encoder gives it: the compressed size, or 0 when it does not fit. */
static uint32_t host_inner(int codec, const uint8_t *s, uint32_t n, uint8_t *d)
{
    switch (codec) {
    case OC_BLOSC_LZ4:
    case OC_BLOSC_LZ4HC:
        return (uint32_t)LZ4_compress_default((const char *)s, (char *)d, (int)n, (int)n);
    case OC_BLOSC_SNAPPY: {
        size_t room = snappy_max_compressed_length(n);
        char *tmp = tu_xmalloc(room);
        uint32_t r = 0;
        if (snappy_compress((const char *)s, n, tmp, &room) == SNAPPY_OK && room <= n) {
            memcpy(d, tmp, room);
            r = (uint32_t)room;
        }
        free(tmp);
        return r;
    }
    default: {
        size_t r = ZSTD_compress(d, n, s, n, 3);
        return ZSTD_isError(r) ? 0 : (uint32_t)r;
    }
    }
}

/* A chunk put together as blosc_enc_kernels.cu does, its inner streams by
 * the libraries; decoded by libblosc and the reference decoder. */
static void encode_planned(int codec, int filter, uint32_t ts, uint32_t n, int kind, uint32_t forced)
{
    uint8_t *src = tu_xmalloc(n + 1), *out = tu_xmalloc(n + 1);
    if (kind == 3)
        tu_fill_random(src, n, n + ts);
    else
        tpch_like(src, n, kind, 11);
    oc_blosc_enc_plan p;
    memset(&p, 0, sizeof p);
    CHECK_OK(oc_blosc_enc_plan_chunk(codec, 5, filter, ts, n, forced, &p));
    uint8_t *slab = tu_xmalloc(n + 1), *slots = tu_xmalloc(oc_blosc_enc_slot_bytes(&p) + 1);
    uint32_t *fin = tu_xmalloc((p.nstreams + 1) * sizeof *fin),
             *off = tu_xmalloc((p.nstreams + 1) * sizeof *off);
    uint64_t *slot = tu_xmalloc((p.nstreams + 1) * sizeof *slot), at = 0;
    for (uint32_t j = 0; j < p.nstreams; j++) { /* each stream on its own, as a CTA does */
        oc_blosc_enc_stream s;
        oc_blosc_enc_stream_at(&p, j, &s);
        const uint8_t *in = src + s.in_off;
        if (p.filtered) {
            oc_blosc_enc_filter_stream(&p, &s, src + (size_t)s.block * p.blocksize, slab + s.in_off, 0, 1);
            in = slab + s.in_off;
        }
        slot[j] = at;
        CHECK(oc_blosc_enc_slot_at(&p, j) == at);
        at += oc_blosc_enc_slot(s.len);
        uint32_t r = p.flags & OC_BLOSC_F_MEMCPYED ? 0 : host_inner(codec, in, s.len, slots + slot[j]);
        fin[j] = r == 0 || r >= s.len ? s.len : r;
        if (fin[j] == s.len)
            memcpy(slots + slot[j], in, s.len);
    }
    CHECK(at == oc_blosc_enc_slot_bytes(&p));
    uint64_t total = oc_blosc_enc_total(&p, fin);
    size_t cap = (size_t)n + OC_BLOSC_HEADER_SIZE;
    uint8_t *c = tu_xmalloc(cap);
    uint8_t flags = p.flags;
    if (!(flags & OC_BLOSC_F_MEMCPYED) && total <= cap) {
        oc_blosc_enc_write_tables(&p, fin, c, off);
        for (uint32_t j = 0; j < p.nstreams; j++)
            memcpy(c + off[j], slots + slot[j], fin[j]);
    } else {
        flags |= OC_BLOSC_F_MEMCPYED;
        total = cap;
        memcpy(c + OC_BLOSC_HEADER_SIZE, src, n);
    }
    oc_blosc_put_header(c, flags, (uint8_t)ts, n, p.blocksize, (uint32_t)total);
    memset(out, 0xA5, n + 1);
    int r = blosc_decompress_ctx(c, out, n, 1);
    CHECK_MSG(r == (int)n && memcmp(out, src, n) == 0,
              "libblosc decodes the planned %s chunk (filter %d, ts %u, n %u, kind %d)", enc_cnames[codec],
              filter, ts, n, kind);
    check_chunk(src, n, c, (size_t)total, "planned chunk");
    if (kind == 1 && n > 100000)
        CHECK_MSG(!(flags & OC_BLOSC_F_MEMCPYED), "compressible data compresses (%s, ts %u)",
                  enc_cnames[codec], ts);
    free(src), free(out), free(slab), free(slots), free(fin), free(off), free(slot), free(c);
}

static void encode_planned_grid(void)
{
    static const int codecs[] = {OC_BLOSC_LZ4, OC_BLOSC_LZ4HC, OC_BLOSC_SNAPPY, OC_BLOSC_ZSTD};
    static const uint32_t typesizes[] = {1, 2, 3, 4, 8, 16, 17};
    static const uint32_t sizes[] = {(1u << 20) + 12, 300001, 5000, 100, 0};
    for (int c = 0; c < 4; c++)
        for (int filter = 0; filter <= 2; filter++)
            for (size_t t = 0; t < sizeof typesizes / sizeof typesizes[0]; t++)
                for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                    encode_planned(codecs[c], filter, typesizes[t], sizes[z], (int)(z + t) % 3, 0);
    for (int c = 0; c < 4; c++)
        for (int filter = 0; filter <= 2; filter++) {
            encode_planned(codecs[c], filter, 4, 200000, 3, 0);    /* incompressible: memcpyed */
            encode_planned(codecs[c], filter, 8, 100003, 2, 1000); /* forced small blocks */
            encode_planned(codecs[c], filter, 2, 4096 + 3, 0, 128);
        }
}

static void encode_layouts(void)
{
    for (int codec = 0; codec < 6; codec++)
        for (int filter = 0; filter <= 2; filter++) {
            encode_assembled(codec, filter, 4, (1u << 20) + 12, 0);
            encode_assembled(codec, filter, 8, 3u << 19, 2);
        }
}

int main(void)
{
    CHECK_OK(oc_context_create(NULL, &g_ctx));
    encode_rules();
    encode_layouts();
    encode_planned_grid();
    blosclz_streams();
    zlib_streams();
    filters();
    reference_chunks();
    cpu_codec_interop();
    hostile();
    libblosc_verdicts();
    oc_context_destroy(g_ctx);
    printf("test_blosc_core: OK (%zu chunks checked)\n", g_streams_checked);
    return 0;
}
