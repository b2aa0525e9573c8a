/*
 * test_codec_cascaded.c - the Cascaded format (docs/FORMAT.md) on the CPU:
 * its core (src/cores/cascaded/cascaded_core.h) compiled here, and the
 * codec through the public API.
 *
 * Guards:
 *   - round trips through oc_batch_* for every data type and layer choice
 *     (nvCOMP's default, automatic, none, the most, no bit-packing) on real
 *     data: the bench corpus's TPC-H columns and text when bench/corpus-data
 *     exists (or OC_CORPUS_DIR), always the license text, an ELF file and
 *     generated columns shaped like TPC-H keys, dates and sorted keys;
 *     sizes 0, 1, 7, non-multiples of the width; the size query;
 *   - the GPU's partition of the work: compressing with 1, 3 and 8 warps
 *     (the C build runs the warps of each phase in turn) gives the same
 *     bytes, and any warp count decodes them;
 *   - compressed sizes of generated columns pinned (a ratio regression or
 *     an unintended format change fails here);
 *   - hand-built streams, field by field, decode to what the spec says;
 *     exact statuses: TRUNCATED for every proper prefix, CORRUPT for a wrong
 *     id, version, type, flags, layer byte, stream counts, bit widths, run
 *     lengths that do not add up, tile table ends that decrease, bytes after
 *     the chunk; OUTPUT_TOO_SMALL one byte short both ways;
 *   - byte flips never crash nor write past the capacity (ASan suite), and
 *     a size query agrees with decoding;
 *   - the NATIVE container: flipped data -> CHECKSUM_MISMATCH naming the
 *     chunk, index entries -> CORRUPT, any cut -> TRUNCATED.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores/cascaded/cascaded_core.h"
#define OWN_CODEC_TEST_ALGO OC_ALGO_CASCADED
#include "helpers/own_codec_test.h"

static cz_ws g_ws;

/* ---- helpers ----------------------------------------------------------------------- */

static uint32_t le32_of(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static size_t compress1(const uint8_t *src, size_t n, oc_data_type t, uint32_t layers, uint8_t *dst,
                        size_t cap, oc_status *st)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_CASCADED;
    o.typed.data_type = t;
    o.typed.cascaded = layers;
    const void *sp = src;
    void *dp = dst;
    size_t got = 0;
    CHECK_OK(oc_batch_compress(g_ctx, &o, 1, &sp, &n, &dp, &cap, &got, st));
    return got;
}

static const uint32_t k_layers[] = {OC_CASCADED_DEFAULT,         OC_CASCADED_AUTO,
                                    OC_CASCADED_LAYERS(0, 0, 1), OC_CASCADED_LAYERS(3, 3, 1),
                                    OC_CASCADED_LAYERS(1, 2, 0), OC_CASCADED_LAYERS(0, 1, 1)};
#define N_LAYERS (sizeof k_layers / sizeof k_layers[0])

/* ---- round trips -------------------------------------------------------------------- */

static size_t roundtrip(const char *name, const uint8_t *data, size_t n, oc_data_type t, uint32_t layers)
{
    size_t cap = oc_compress_bound(OC_ALGO_CASCADED, n);
    uint8_t *c = tu_xmalloc(cap ? cap : 1);
    oc_status st = OC_ERR_INTERNAL;
    size_t cn = compress1(data, n, t, layers, c, cap, &st);
    CHECK_MSG(st == OC_OK, "%s type %d layers %#x: compress %s", name, (int)t, layers, oc_status_name(st));
    CHECK(cn <= cap);
    CHECK(decode_copy(c, cn, n, (uint8_t *)data, n) == OC_OK);
    if (n) { /* one byte short, both ways */
        CHECK_STATUS(decode_copy(c, cn, n - 1, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);
        uint8_t *d = tu_xmalloc(cn);
        oc_status st2 = OC_OK;
        compress1(data, n, t, layers, d, cn - 1, &st2);
        CHECK_STATUS(st2, OC_ERR_OUTPUT_TOO_SMALL);
        free(d);
    }
    free(c);
    return cn;
}

/* The same bytes for 1, 3 and 8 warps; 8 warps decode them. */
static void warps_agree(const uint8_t *data, size_t n, uint32_t type, uint32_t layers)
{
    cz_layers L;
    oc_typed_options t = {(oc_data_type)type, 0, layers, 0};
    /* the layer resolution of oc_typed_cascaded, as the codecs do it */
    if (layers == OC_CASCADED_DEFAULT)
        L.rles = 2, L.deltas = 1, L.bitpack = 1;
    else if (layers == OC_CASCADED_AUTO)
        L.rles = 4, L.deltas = 0, L.bitpack = 1;
    else
        L.rles = layers & 15, L.deltas = (layers >> 4) & 15, L.bitpack = (layers >> 8) & 1;
    (void)t;
    size_t cap = (size_t)cz_bound(n);
    uint8_t *a = tu_xmalloc(cap), *b = tu_xmalloc(cap), *back = tu_xmalloc(n ? n : 1);
    uint64_t na = 0, nb = 0, got = 0;
    CHECK_OK(cz_compress_chunk(&g_ws, data, n, type, L, a, cap, &na, 1));
    static const uint32_t warps[] = {3, 8};
    for (int k = 0; k < 2; k++) {
        CHECK_OK(cz_compress_chunk(&g_ws, data, n, type, L, b, cap, &nb, warps[k]));
        CHECK_MSG(na == nb && !memcmp(a, b, (size_t)na), "type %u layers %#x: %u warps write other bytes",
                  type, layers, warps[k]);
    }
    CHECK_OK(cz_decompress_chunk(&g_ws, a, (size_t)na, back, n, &got, 8));
    CHECK(got == n && (n == 0 || !memcmp(back, data, n)));
    free(a);
    free(b);
    free(back);
}

/* Columns shaped like the bench's: sorted keys in runs with gaps, dates,
 * sorted keys in long runs (deterministic). */
static uint8_t *generated(int kind, size_t n)
{
    uint8_t *p = tu_xmalloc(n);
    tu_rng r;
    tu_rng_seed(&r, 1000 + (uint64_t)kind);
    int64_t key = 1;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        int64_t v;
        if (kind == 0)
            v = tu_rng_below(&r, 4) == 0 ? (key += tu_rng_below(&r, 8) == 0 ? 25 : 1) : key;
        else if (kind == 1)
            v = 8036 + (int64_t)tu_rng_below(&r, 2526);
        else
            v = (int64_t)(i / 8 / 30);
        memcpy(p + i, &v, 8);
    }
    return p;
}

static void real_data(void)
{
    static const struct {
        const char *file;
        oc_data_type type;
    } files[] = {{"tpch_l_orderkey.i64", OC_TYPE_I64}, {"tpch_l_shipdate.i32", OC_TYPE_I32},
                 {"tpch_l_partkey.i32", OC_TYPE_I32},  {"sorted_partkey.i64", OC_TYPE_I64},
                 {"tpch_l_quantity.f64", OC_TYPE_F64}, {"text_linux_docs.txt", OC_TYPE_U8}};
    int found = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t n = 0;
        uint8_t *d = corpus_file(files[f].file, (size_t)4 << 20, &n);
        if (!d)
            continue;
        found++;
        for (size_t l = 0; l < N_LAYERS; l++) {
            size_t total = 0;
            for (size_t off = 0; off < n; off += 65536)
                total += roundtrip(files[f].file, d + off, n - off < 65536 ? n - off : 65536, files[f].type,
                                   k_layers[l]);
            printf("  %-24s layers %#10x: ratio %.3f\n", files[f].file, k_layers[l],
                   (double)n / (double)total);
        }
        warps_agree(d, n < 200000 ? n : 200000, files[f].type, OC_CASCADED_DEFAULT);
        warps_agree(d, n < 200000 ? n : 200000, files[f].type, OC_CASCADED_AUTO);
        free(d);
    }
    if (!found)
        printf("  bench/corpus-data not built (bench/corpus): generated columns and system files only\n");
    tu_buf bufs[TU_CORPUS_MAX];
    size_t nb = tu_corpus(bufs, TU_CORPUS_MAX, 300000);
    for (size_t i = 0; i < nb; i++) {
        for (int t = OC_TYPE_U8; t < OC_TYPE_COUNT; t++) {
            for (size_t l = 0; l < N_LAYERS; l++) {
                roundtrip(bufs[i].name, bufs[i].data, bufs[i].size < 70001 ? bufs[i].size : 70001,
                          (oc_data_type)t, k_layers[l]);
            }
        }
        warps_agree(bufs[i].data, bufs[i].size < 100003 ? bufs[i].size : 100003, OC_TYPE_U16,
                    OC_CASCADED_LAYERS(3, 3, 1));
        tu_buf_free(&bufs[i]);
    }
    /* tiny and odd sizes */
    uint8_t small[64];
    tu_fill_random(small, sizeof small, 5);
    static const size_t sizes[] = {0, 1, 7, 9, 63};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int t = OC_TYPE_U8; t < OC_TYPE_COUNT; t++)
            roundtrip("small", small, sizes[k], (oc_data_type)t, OC_CASCADED_DEFAULT);
}

/* Pinned sizes of generated 1 MiB columns, 64 KiB chunks (i64). */
/* Measured once (format version 1); change only with a deliberate format
 * or encoder change, and say why in the commit.  Session 11: PIN_1_DEFAULT
 * 224373 -> 201856 (tiles whose layers do not pay are bit-packed bare,
 * docs/FORMAT.md "What the encoder chooses": column 1 now equals AUTO);
 * then format version 2 (a stream may take one width and base instead of
 * one a block): 32354 -> 32178 (column 0), 201856 -> 197824 (column 1),
 * column 2 unchanged. */
#define PIN_0_DEFAULT 32178
#define PIN_0_AUTO 32178
#define PIN_1_DEFAULT 197824
#define PIN_1_AUTO 197824
#define PIN_2_DEFAULT 5287
#define PIN_2_AUTO 5287
static void pinned_sizes(void)
{
    static const struct {
        int kind;
        uint32_t layers;
        size_t size;
    } pins[] = {
        {0, OC_CASCADED_DEFAULT, PIN_0_DEFAULT}, {0, OC_CASCADED_AUTO, PIN_0_AUTO},
        {1, OC_CASCADED_DEFAULT, PIN_1_DEFAULT}, {1, OC_CASCADED_AUTO, PIN_1_AUTO},
        {2, OC_CASCADED_DEFAULT, PIN_2_DEFAULT}, {2, OC_CASCADED_AUTO, PIN_2_AUTO},
    };
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
        size_t n = (size_t)1 << 20, total = 0;
        uint8_t *d = generated(pins[i].kind, n);
        for (size_t off = 0; off < n; off += 65536)
            total += roundtrip("generated", d + off, 65536, OC_TYPE_I64, pins[i].layers);
        CHECK_MSG(total == pins[i].size, "generated column %d layers %#x: %zu bytes, pinned %zu",
                  pins[i].kind, pins[i].layers, total, pins[i].size);
        free(d);
    }
}

/* ---- hand-built streams ---------------------------------------------------------------- */

/* A chunk of format version `ver`: header, tile table, tiles, trailing bytes. */
static size_t chunk_v(uint8_t *out, uint8_t ver, uint32_t type, uint32_t size, const uint8_t *const *tiles,
                      const size_t *tn, size_t ntiles, const uint8_t *tail, size_t tail_n)
{
    size_t p = 0;
    out[p++] = 'C', out[p++] = ver, out[p++] = (uint8_t)type, out[p++] = 0;
    for (int i = 0; i < 4; i++)
        out[p++] = (uint8_t)(size >> (8 * i));
    size_t end = 0;
    for (size_t t = 0; t < ntiles; t++) {
        end += tn[t];
        for (int i = 0; i < 4; i++)
            out[p++] = (uint8_t)(end >> (8 * i));
    }
    for (size_t t = 0; t < ntiles; t++) {
        memcpy(out + p, tiles[t], tn[t]);
        p += tn[t];
    }
    if (tail_n)
        memcpy(out + p, tail, tail_n);
    return p + tail_n;
}

/* The same, version 1 (what the encoders wrote until session 11). */
static size_t chunk(uint8_t *out, uint32_t type, uint32_t size, const uint8_t *const *tiles, const size_t *tn,
                    size_t ntiles, const uint8_t *tail, size_t tail_n)
{
    return chunk_v(out, 1, type, size, tiles, tn, ntiles, tail, tail_n);
}

static void hand_built(void)
{
    uint8_t buf[256], out[64];
    size_t n, got;
    /* 1. Eight i32 elements 5 5 5 5 5 5 5 7, one run-length layer:
     *    layer byte 0x01 (R = 1, D = 0)
     *    run stream: count 2 (02 00), mode 1 (bit-packed), one block: width 3, base 0000;
     *      run lengths 7, 1 are stored minus one: 6 (bits 0-2 = 110b), 0 (bits 3-5) -> 0x06
     *    value stream: count 2 (02 00), mode 0 (raw): 05 00 00 00, 07 00 00 00
     *    19 bytes, less than the 32 bytes of the elements (else the tile would be stored) */
    static const uint8_t t1[] = {0x01, 0x02, 0x00, 0x01, 0x03, 0x00, 0x00, 0x06, 0x02, 0x00,
                                 0x00, 0x05, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00};
    const uint8_t *tiles[1] = {t1};
    size_t tn[1] = {sizeof t1};
    n = chunk(buf, OC_TYPE_I32, 32, tiles, tn, 1, NULL, 0);
    static const uint8_t want1[32] = {5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0,
                                      5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0};
    CHECK_STATUS(decode_copy(buf, n, 32, (uint8_t *)want1, 32), OC_OK);
    /* The same elements with one delta layer instead:
     *    layer byte 0x04 (R = 0, D = 1), the layer's seed (first value) 05 00 00 00
     *    value stream: count 8, mode 1, width 2, base 00000000; deltas 0 0 0 0 0 0 0 2:
     *      element 7 = 10b at bits 14-15 -> payload 00 80 */
    static const uint8_t t2[] = {0x04, 0x05, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01,
                                 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80};
    tiles[0] = t2, tn[0] = sizeof t2;
    n = chunk(buf, OC_TYPE_U32, 32, tiles, tn, 1, NULL, 0);
    CHECK_STATUS(decode_copy(buf, n, 32, (uint8_t *)want1, 32), OC_OK);
    /* and three trailing bytes after them (size 35: 8 elements and 3 bytes) */
    n = chunk(buf, OC_TYPE_U32, 35, tiles, tn, 1, (const uint8_t *)"xyz", 3);
    uint8_t want3[35];
    memcpy(want3, want1, 32), memcpy(want3 + 32, "xyz", 3);
    CHECK_STATUS(decode_copy(buf, n, 35, want3, 35), OC_OK);
    /* a stored tile: its size equals its elements' */
    tiles[0] = want1, tn[0] = 32;
    n = chunk(buf, OC_TYPE_I64, 32, tiles, tn, 1, NULL, 0);
    CHECK_STATUS(decode_copy(buf, n, 32, (uint8_t *)want1, 32), OC_OK);
    /* empty chunk */
    n = chunk(buf, OC_TYPE_U8, 0, NULL, NULL, 0, NULL, 0);
    CHECK(n == 8);
    CHECK_STATUS(decode_copy(buf, n, 0, NULL, 0), OC_OK);

    /* 2. statuses: every proper prefix of a chunk is TRUNCATED */
    tiles[0] = t1, tn[0] = sizeof t1;
    n = chunk(buf, OC_TYPE_I32, 32, tiles, tn, 1, NULL, 0);
    for (size_t k = 0; k < n; k++)
        CHECK_MSG(decode_copy(buf, k, 32, NULL, 0) == OC_ERR_TRUNCATED, "prefix %zu of %zu", k, n);
    /* one byte too many after the chunk */
    buf[n] = 0;
    CHECK_STATUS(decode_copy(buf, n + 1, 32, NULL, 0), OC_ERR_CORRUPT);
    /* output one byte short */
    CHECK_STATUS(decode_copy(buf, n, 31, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);
    /* header fields */
    static const struct {
        size_t at;
        uint8_t v;
    } bad_header[] = {{0, 'B'}, {1, 0}, {1, 3}, {2, 0}, {2, OC_TYPE_COUNT}, {3, 1}};
    for (size_t i = 0; i < sizeof bad_header / sizeof bad_header[0]; i++) {
        memcpy(out, buf, n);
        out[bad_header[i].at] = bad_header[i].v;
        CHECK_MSG(decode_copy(out, n, 64, NULL, 0) == OC_ERR_CORRUPT, "header byte %zu = %u accepted",
                  bad_header[i].at, bad_header[i].v);
    }
    /* tile fields (offsets in the tile; the tile starts at byte 12) */
    static const struct {
        size_t at;
        uint8_t v;
        const char *what;
    } bad_tile[] = {
        {0, 0x10, "reserved layer bits"},
        {0, 0x00, "no run layer: the first stream is the values, count 2 != 8"},
        {1, 0x00, "run stream count 0"},
        {1, 0x09, "run stream count above the tile's"},
        {3, 0x02, "stream mode 2 in a version 1 chunk"},
        {4, 0x11, "width 17 > 16 bits of a run"},
        {7, 0x03, "run lengths add to 4 + 1 != 8"},
        {8, 0x03, "value count != run count"},
        {0, 0x05, "a delta layer whose seed eats the streams"},
    };
    for (size_t i = 0; i < sizeof bad_tile / sizeof bad_tile[0]; i++) {
        memcpy(out, buf, n);
        out[12 + bad_tile[i].at] = bad_tile[i].v;
        CHECK_MSG(decode_copy(out, n, 64, NULL, 0) == OC_ERR_CORRUPT, "%s: accepted", bad_tile[i].what);
    }
    /* 3. Version 2's stream mode 2 (one width and one base for the stream):
     *    the same eight i32 elements, no layer: layer byte 0x00
     *    value stream: count 8 (08 00), mode 2, width 2, base 05 00 00 00;
     *      values - 5 = 0 0 0 0 0 0 0 2: element 7 = 10b at bits 14-15 -> payload 00 80
     *    11 bytes */
    static const uint8_t t4[] = {0x00, 0x08, 0x00, 0x02, 0x02, 0x05, 0x00, 0x00, 0x00, 0x00, 0x80};
    tiles[0] = t4, tn[0] = sizeof t4;
    n = chunk_v(buf, 2, OC_TYPE_I32, 32, tiles, tn, 1, NULL, 0);
    CHECK_STATUS(decode_copy(buf, n, 32, (uint8_t *)want1, 32), OC_OK);
    for (size_t k = 0; k < n; k++)
        CHECK_MSG(decode_copy(buf, k, 32, NULL, 0) == OC_ERR_TRUNCATED, "v2 prefix %zu of %zu", k, n);
    static const struct {
        size_t at;
        uint8_t v;
        const char *what;
    } bad_v2[] = {
        {3, 0x03, "stream mode 3"},
        {4, 0x21, "width 33 > 32 bits of an i32"},
        {4, 0x03, "width 3: the payload needs 3 bytes, the tile has 2"},
        {4, 0x01, "width 1: one byte of payload, one byte left over"},
        {1, 0x07, "value count 7 != 8"},
    };
    for (size_t i = 0; i < sizeof bad_v2 / sizeof bad_v2[0]; i++) {
        memcpy(out, buf, n);
        out[12 + bad_v2[i].at] = bad_v2[i].v;
        CHECK_MSG(decode_copy(out, n, 64, NULL, 0) == OC_ERR_CORRUPT, "v2 %s: accepted", bad_v2[i].what);
    }
    /* mode 2 is not version 1's */
    n = chunk_v(buf, 1, OC_TYPE_I32, 32, tiles, tn, 1, NULL, 0);
    CHECK_STATUS(decode_copy(buf, n, 32, NULL, 0), OC_ERR_CORRUPT);
    /* a tile larger than its elements */
    static uint8_t big_tile[33] = {0x01};
    tiles[0] = big_tile, tn[0] = sizeof big_tile;
    n = chunk(buf, OC_TYPE_I32, 32, tiles, tn, 1, NULL, 0);
    CHECK_STATUS(decode_copy(buf, n, 64, NULL, 0), OC_ERR_CORRUPT);
    /* tile table ends that decrease: two tiles of i64 (2048 + 1 elements) */
    uint8_t *two = tu_xmalloc(40000), *elems = tu_xmalloc(2049 * 8);
    tu_fill_random(elems, 2049 * 8, 9);
    oc_status st = OC_OK;
    size_t cn = compress1(elems, 2049 * 8, OC_TYPE_I64, OC_CASCADED_DEFAULT, two, 40000, &st);
    CHECK_OK(st);
    uint8_t *back = tu_xmalloc(2049 * 8);
    CHECK_STATUS(decode1(two, cn, back, 2049 * 8, &got), OC_OK);
    two[8] = (uint8_t)(two[12] + 1), two[9] = two[13], two[10] = two[14],
    two[11] = two[15]; /* end[0] > end[1] */
    CHECK_STATUS(decode_copy(two, cn, 2049 * 8, NULL, 0), OC_ERR_CORRUPT);
    free(two);
    free(elems);
    free(back);
}

/* ---- flips ----------------------------------------------------------------------------- */

static void flips(void)
{
    size_t n = 65536 + 13;
    uint8_t *d = generated(0, n);
    size_t cap = oc_compress_bound(OC_ALGO_CASCADED, n);
    uint8_t *c = tu_xmalloc(cap);
    for (size_t l = 0; l < N_LAYERS; l++) {
        oc_status st = OC_OK;
        size_t cn = compress1(d, n, OC_TYPE_I64, k_layers[l], c, cap, &st);
        CHECK_OK(st);
        for (size_t k = 0; k < cn; k += 1 + cn / 700) {
            uint8_t keep = c[k];
            c[k] ^= (uint8_t)(0x81u >> (k % 8));
            (void)decode_copy(c, cn, n, NULL, 0);
            (void)decode_copy(c, cn, k % 97, NULL, 0);
            c[k] = keep;
        }
        CHECK_STATUS(decode_copy(c, cn, n, d, n), OC_OK);
    }
    free(c);
    free(d);
}

/* ---- the NATIVE container ----------------------------------------------------------------- */

static void container(void)
{
    size_t n = 300000;
    uint8_t *d = generated(1, n);
    oc_buffer_options o = OC_BUFFER_OPTIONS_INIT;
    o.algorithm = OC_ALGO_CASCADED;
    o.typed.data_type = OC_TYPE_I64;
    o.chunk_size = 65536;
    size_t cap = oc_buffer_compress_bound(&o, n);
    uint8_t *c = tu_xmalloc(cap), *out = tu_xmalloc(n);
    uint64_t cn = 0, got = 0, failed = 0;
    CHECK_OK(oc_buffer_compress(g_ctx, &o, d, n, c, cap, &cn));
    CHECK_OK(oc_buffer_decompress(g_ctx, NULL, c, cn, out, n, &got, &failed));
    CHECK(got == n && !memcmp(out, d, n));
    /* chunk 2's payload flipped: its XXH32 no longer matches */
    size_t pos = 16; /* header */
    for (int i = 0; i < 2; i++)
        pos += 4 + (le32_of(c + pos) & 0x7fffffffu) + 4;
    c[pos + 4 + 10] ^= 1;
    oc_status st = oc_buffer_decompress(g_ctx, NULL, c, cn, out, n, &got, &failed);
    CHECK_MSG(st == OC_ERR_CHECKSUM_MISMATCH || st == OC_ERR_CORRUPT, "flipped chunk 2: %s",
              oc_status_name(st));
    CHECK(failed == 2);
    c[pos + 4 + 10] ^= 1;
    /* an index entry that differs from its chunk header */
    size_t nchunks = (n + 65535) / 65536;
    c[cn - 9 - 8 * nchunks + 8] ^= 1;
    CHECK_STATUS(oc_buffer_decompress(g_ctx, NULL, c, cn, out, n, &got, &failed), OC_ERR_CORRUPT);
    c[cn - 9 - 8 * nchunks + 8] ^= 1;
    /* an index claiming more than a chunk can hold */
    c[cn - 9 - 8 * nchunks + 4 + 3] = 0x30;
    CHECK_STATUS(oc_buffer_decompress(g_ctx, NULL, c, cn, out, n, &got, &failed), OC_ERR_CORRUPT);
    c[cn - 9 - 8 * nchunks + 4 + 3] = 0;
    /* any cut: the footer is gone */
    for (uint64_t k = 0; k < cn; k += 1 + cn / 300) {
        uint8_t *cut = tu_xmalloc(k ? (size_t)k : 1);
        memcpy(cut, c, (size_t)k);
        oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
        CHECK_MSG(oc_buffer_decompress(g_ctx, &hint, cut, k, out, n, &got, &failed) == OC_ERR_TRUNCATED,
                  "cut at %llu", (unsigned long long)k);
        free(cut);
    }
    /* chunk sizes that are not whole elements are refused */
    o.chunk_size = 65537;
    CHECK_STATUS(oc_buffer_compress(g_ctx, &o, d, n, c, cap, &cn), OC_ERR_INVALID_ARGUMENT);
    free(c);
    free(out);
    free(d);
}

int main(void)
{
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.num_threads = 2;
    CHECK_OK(oc_context_create(&co, &g_ctx));
    hand_built();
    flips();
    container();
    real_data();
    pinned_sizes();
    oc_context_destroy(g_ctx);
    printf("test_codec_cascaded: ok\n");
    return 0;
}
