/*
 * test_container_corrupt.c - hostile input to the container readers.
 *
 * For every NATIVE container (LZ4 frame + index, zstd seekable, indexed
 * gzip, snappy framing + index, our own chunked container: one run for
 * each container that an algorithm of the table writes, found by the name
 * oc_buffer_inspect gives it), with and without checksums:
 *   - truncated at every length: the status is TRUNCATED, or OK with a
 *     correct prefix of the data (a cut at a frame/member/chunk boundary
 *     leaves a valid shorter stream, as for the stock tools), and OK with all
 *     the data exactly when only the index was cut away;
 *   - every single byte flipped in turn: never OK with wrong bytes (with
 *     checksums verified), never a crash or an overread (the inputs are
 *     exactly-sized heap copies; run under ASan in CI);
 *   - flips at known places give exact statuses: data checksums ->
 *     CHECKSUM_MISMATCH with the right *failed_chunk, index entries ->
 *     CORRUPT, LZ4 header checksum -> CORRUPT, lost footer magic -> serial
 *     fallback with the right bytes;
 *   - index entries whose sizes do not add up -> CORRUPT;
 * plus garbage, empty input and bad arguments.
 */
#include "helpers/algo_list.h"
#include "test_buffer_util.h"

static oc_context *ctx;
static tb_data text;
#define N_IN ((size_t)20000)
#define CHUNK ((size_t)2048)
#define N_CHUNKS ((N_IN + CHUNK - 1) / CHUNK)

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

/* Decodes buf[0..n) (copied to an exact heap buffer) with capacity N_IN. */
static oc_status decode(const unsigned char *buf, size_t n, oc_checksum_policy pol, uint64_t *got,
                        uint64_t *failed, int *exact)
{
    unsigned char *in = tb_copy(buf, n);
    unsigned char *out = (unsigned char *)tb_xmalloc(N_IN);
    oc_buffer_options hint = tb_opts(OC_ALGO_NONE, OC_BITSTREAM_NATIVE, 0, pol);
    *got = 0;
    *failed = (uint64_t)-1;
    oc_status st = oc_buffer_decompress(ctx, &hint, in, n, out, N_IN, got, failed);
    *exact = st == OC_OK && *got <= N_IN && !memcmp(out, text.p, (size_t)*got);
    free(out);
    free(in);
    return st;
}

/* Where the index starts (bytes before it are the stream proper). */
static size_t index_start(oc_algorithm a, const unsigned char *c, size_t n, int checksums)
{
    size_t count = le32(c + n - 9);
    if (a == OC_ALGO_LZ4)
        return n - (8 + 8 * count + 9);
    if (a == OC_ALGO_ZSTD)
        return n - (8 + (checksums ? 12 : 8) * count + 9);
    if (a == OC_ALGO_SNAPPY)
        return n - (4 + 8 * count + 9);
    return n;
}

static void truncations(oc_algorithm a, const unsigned char *c, size_t n, int checksums)
{
    size_t idx = index_start(a, c, n, checksums);
    for (size_t len = 0; len < n; len++) {
        uint64_t got, failed;
        int exact;
        oc_status st = decode(c, len, OC_CHECKSUM_VERIFY, &got, &failed, &exact);
        int ok = (st == OC_ERR_TRUNCATED) || (st == OC_OK && exact && got < N_IN) ||
                 (st == OC_OK && exact && got == N_IN && len == idx);
        /* A cut inside the seek table leaves a skippable frame that lies
         * about its size: zstd's frame walk reports it TRUNCATED too. */
        if (!ok) {
            fprintf(stderr, "%s checksums %d truncated to %zu of %zu: %s got %llu exact %d\n",
                    oc_algorithm_name(a), checksums, len, n, oc_status_name(st), (unsigned long long)got,
                    exact);
            tb_failures++;
        }
        if (len == idx && a != OC_ALGO_GZIP && !(st == OC_OK && got == N_IN && exact)) {
            fprintf(stderr, "%s: without its index the stream must still decode\n", oc_algorithm_name(a));
            tb_failures++;
        }
    }
}

static void flips(oc_algorithm a, const unsigned char *c, size_t n, oc_checksum_policy pol)
{
    unsigned char *m = tb_copy(c, n);
    for (size_t i = 0; i < n; i++) {
        {
            int bit = (int)(i % 8);
            m[i] ^= (unsigned char)(1u << bit);
            uint64_t got, failed;
            int exact;
            oc_status st = decode(m, n, pol, &got, &failed, &exact);
            if (st == OC_OK && (!exact || got != N_IN)) {
                /* Only with checksums off may a payload flip go unnoticed. */
                if (pol == OC_CHECKSUM_VERIFY) {
                    fprintf(stderr, "%s: flip at %zu bit %d decoded to wrong bytes (%llu)\n",
                            oc_algorithm_name(a), i, bit, (unsigned long long)got);
                    tb_failures++;
                }
            }
            m[i] ^= (unsigned char)(1u << bit);
        }
    }
    free(m);
}

static void expect(const char *what, oc_algorithm a, const unsigned char *m, size_t n, oc_checksum_policy pol,
                   oc_status want, uint64_t want_failed)
{
    uint64_t got, failed;
    int exact;
    oc_status st = decode(m, n, pol, &got, &failed, &exact);
    if (st != want || (want != OC_OK && want_failed != (uint64_t)-1 && failed != want_failed) ||
        (want == OC_OK && (!exact || got != N_IN))) {
        fprintf(stderr, "%s %s: %s failed_chunk %llu, want %s failed_chunk %llu\n", oc_algorithm_name(a),
                what, oc_status_name(st), (unsigned long long)failed, oc_status_name(want),
                (unsigned long long)want_failed);
        tb_failures++;
    }
}

/* Exact statuses at known places of each standard container (their
 * layouts, byte by byte). */
static void known_places(oc_algorithm a, const unsigned char *c, size_t n)
{
    if (a != OC_ALGO_LZ4 && a != OC_ALGO_ZSTD && a != OC_ALGO_GZIP && a != OC_ALGO_SNAPPY)
        return; /* our own container's places: test_codec_cascaded.c */
    unsigned char *m = tb_copy(c, n);
    size_t count = le32(c + n - 9);
    CHECK(a == OC_ALGO_GZIP || count == N_CHUNKS);
    const uint64_t any = (uint64_t)-1;
    if (a == OC_ALGO_LZ4) {
        size_t idx = index_start(a, c, n, 1), e = idx + 8;
        /* Block 3's data: header 15 bytes, blocks of 4 + size + 4. */
        size_t pos = 15;
        for (int k = 0; k < 3; k++)
            pos += 8 + (le32(m + pos) & 0x7fffffffu);
        m[pos + 6] ^= 1;
        expect("block 3 data", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CHECKSUM_MISMATCH, 3);
        m[pos + 6] ^= 1;
        m[14] ^= 0x10;
        expect("header checksum", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        m[14] ^= 0x10;
        m[e + 8 * 2] ^= 1;
        expect("index entry 2 csize", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        m[e + 8 * 2] ^= 1;
        /* usize: +1 on one entry breaks the content size sum. */
        put32(m + e + 4, le32(m + e + 4) + 1);
        expect("index usize sum", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        /* ... and -1 on the next keeps the sum but not the blocks. */
        put32(m + e + 12, le32(m + e + 12) - 1);
        expect("index usize shifted", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_SIZE_MISMATCH, 0);
        memcpy(m, c, n);
        m[n - 1] ^= 0x20;
        expect("footer magic (serial fallback)", a, m, n, OC_CHECKSUM_VERIFY, OC_OK, any);
        m[n - 1] ^= 0x20;
        m[n - 9] ^= 1;
        expect("chunk count", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
    } else if (a == OC_ALGO_ZSTD) {
        size_t idx = index_start(a, c, n, 1), e = idx + 8;
        m[e + 12 * 4 + 8] ^= 4;
        expect("seek table checksum 4", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CHECKSUM_MISMATCH, 4);
        expect("seek table checksum 4, not verified", a, m, n, OC_CHECKSUM_NONE, OC_OK, any);
        m[e + 12 * 4 + 8] ^= 4;
        /* Swap the compressed sizes of frames 0 and 1: the sum holds, the frames do not. */
        uint32_t c0 = le32(m + e), c1 = le32(m + e + 12);
        if (c0 != c1) {
            put32(m + e, c1);
            put32(m + e + 12, c0);
            expect("swapped frame sizes", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
            memcpy(m, c, n);
        }
        put32(m + e + 4, le32(m + e + 4) + 1);
        put32(m + e + 16, le32(m + e + 16) - 1);
        expect("shifted decompressed sizes", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        memcpy(m, c, n);
        m[n - 9] ^= 2;
        expect("frame count", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        m[n - 9] ^= 2;
        m[n - 5] ^= 0x04;
        expect("reserved descriptor bit", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        m[n - 5] ^= 0x04;
        m[n - 1] ^= 0x01;
        expect("footer magic (frame walk)", a, m, n, OC_CHECKSUM_VERIFY, OC_OK, any);
        /* Our frames carry their content size: the frame walk alone knows
         * every chunk's size (parallel decode without the seek table). */
        oc_frame_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        CHECK_ST(oc_buffer_inspect(m, n, NULL, &info), OC_OK);
        CHECK(info.size_known && info.decompressed_size == N_IN && info.num_chunks == N_CHUNKS);
        CHECK(info.container && !strcmp(info.container, "zstd-frames"));
    } else if (a == OC_ALGO_GZIP) {
        /* Member 2: hop with the subfield's member sizes. */
        size_t pos = 0;
        for (int k = 0; k < 2; k++)
            pos += le32(m + pos + 16);
        size_t end = pos + le32(m + pos + 16);
        m[end - 8] ^= 1;
        expect("member 2 CRC", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CHECKSUM_MISMATCH, 2);
        expect("member 2 CRC, not verified", a, m, n, OC_CHECKSUM_NONE, OC_OK, any);
        m[end - 8] ^= 1;
        m[end - 4] ^= 1;
        expect("member 2 ISIZE", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        m[end - 4] ^= 1;
        put32(m + pos + 20, le32(m + pos + 20) + 1);
        expect("member 2 subfield usize", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        memcpy(m, c, n);
        put32(m + pos + 16, le32(m + pos + 16) - 1);
        expect("member 2 subfield size", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        memcpy(m, c, n);
        put32(m + pos + 16, (uint32_t)n);
        expect("member 2 size past the end", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_TRUNCATED, any);
        memcpy(m, c, n);
        m[pos + 2] = 7;
        expect("member 2 method", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        memcpy(m, c, n);
        m[pos + 4] ^= 0xff; /* MTIME is informational */
        expect("member 2 mtime", a, m, n, OC_CHECKSUM_VERIFY, OC_OK, any);
    } else {
        size_t idx = index_start(a, c, n, 1), e = idx + 4;
        size_t pos = 10;
        for (int k = 0; k < 5; k++)
            pos += 4 + (le32(m + pos) >> 8);
        m[pos + 4] ^= 1;
        expect("chunk 5 CRC", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CHECKSUM_MISMATCH, 5);
        expect("chunk 5 CRC, not verified", a, m, n, OC_CHECKSUM_NONE, OC_OK, any);
        m[pos + 4] ^= 1;
        put32(m + e + 8 * 1 + 4, le32(m + e + 8 * 1 + 4) + 1);
        expect("index usize", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        memcpy(m, c, n);
        m[e + 8 * 3 + 1] ^= 1;
        expect("index chunk length", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        memcpy(m, c, n);
        m[pos] = 0x05; /* reserved unskippable chunk type */
        expect("reserved chunk type", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
        memcpy(m, c, n);
        m[n - 2] ^= 1;
        expect("footer magic (header walk)", a, m, n, OC_CHECKSUM_VERIFY, OC_OK, any);
        memcpy(m, c, n);
        m[3] ^= 1;
        expect("stream identifier", a, m, n, OC_CHECKSUM_VERIFY, OC_ERR_CORRUPT, any);
    }
    free(m);
}

static void misc(void)
{
    uint64_t got = 0, failed = 0, size = 0;
    unsigned char out[64];
    unsigned char *g = tb_copy(text.p, 300); /* plain text: no container */
    CHECK_ST(oc_buffer_decompress(ctx, NULL, g, 300, out, sizeof out, &got, &failed), OC_ERR_CORRUPT);
    CHECK_ST(oc_buffer_decompress(ctx, NULL, NULL, 0, out, sizeof out, &got, &failed), OC_ERR_TRUNCATED);
    CHECK_ST(oc_buffer_decompressed_size(ctx, NULL, g, 300, &size), OC_ERR_CORRUPT);
    CHECK_ST(oc_buffer_decompress(NULL, NULL, g, 300, out, sizeof out, &got, &failed),
             OC_ERR_INVALID_ARGUMENT);
    CHECK_ST(oc_buffer_decompress(ctx, NULL, NULL, 5, out, sizeof out, &got, &failed),
             OC_ERR_INVALID_ARGUMENT);
    oc_buffer_options bad = tb_opts(OC_ALGO_LZ4, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
    bad.struct_size = 3;
    CHECK_ST(oc_buffer_decompress(ctx, &bad, g, 300, out, sizeof out, &got, &failed),
             OC_ERR_INVALID_ARGUMENT);
    CHECK(oc_buffer_compress_bound(&bad, 100) == 0);
    bad = tb_opts((oc_algorithm)77, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
    CHECK(oc_buffer_compress_bound(&bad, 100) == 0);
    CHECK_ST(oc_buffer_compress(ctx, &bad, g, 300, out, sizeof out, &got), OC_ERR_INVALID_ARGUMENT);
    bad = tb_opts(OC_ALGO_ZSTD, OC_BITSTREAM_NATIVE, ((size_t)1 << 30) + 1, OC_CHECKSUM_VERIFY);
    CHECK_ST(oc_buffer_compress(ctx, &bad, g, 300, out, sizeof out, &got), OC_ERR_INVALID_ARGUMENT);
    bad = tb_opts(OC_ALGO_ZSTD, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
    bad.reserved[2] = 1;
    CHECK_ST(oc_buffer_compress(ctx, &bad, g, 300, out, sizeof out, &got), OC_ERR_INVALID_ARGUMENT);
    /* WITH_UNCOMPRESSED_SIZE whose size field lies. */
    oc_buffer_options o = tb_opts(OC_ALGO_ZSTD, OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE, 0, OC_CHECKSUM_VERIFY);
    size_t cn;
    unsigned char *c = tb_compress(ctx, &o, text.p, 50, &cn);
    CHECK(c != NULL);
    if (c) {
        CHECK_ST(oc_buffer_decompress(ctx, &o, c, cn, out, sizeof out, &got, NULL), OC_OK);
        CHECK(got == 50 && !memcmp(out, text.p, 50));
        c[0] = 49;
        CHECK_ST(oc_buffer_decompress(ctx, &o, c, cn, out, sizeof out, &got, NULL), OC_ERR_SIZE_MISMATCH);
        c[0] = 51;
        CHECK_ST(oc_buffer_decompress(ctx, &o, c, cn, out, sizeof out, &got, NULL), OC_ERR_SIZE_MISMATCH);
        c[0] = 65;
        CHECK_ST(oc_buffer_decompress(ctx, &o, c, cn, out, sizeof out, &got, NULL), OC_ERR_OUTPUT_TOO_SMALL);
        CHECK_ST(oc_buffer_decompress(ctx, &o, c, 7, out, sizeof out, &got, NULL), OC_ERR_TRUNCATED);
        free(c);
    }
    /* A zstd frame whose content size (2^40) exceeds what its one block can
     * hold is CORRUPT, not a request for a terabyte. */
    {
        static const unsigned char lie[] = {0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0,   0,   0,   0,   0,  1,
                                            0,    0,    0x29, 0,    0,    'h', 'e', 'l', 'l', 'o'};
        unsigned char *l = tb_copy(lie, sizeof lie);
        CHECK_ST(oc_buffer_decompress(ctx, NULL, l, sizeof lie, out, sizeof out, &got, NULL), OC_ERR_CORRUPT);
        CHECK_ST(oc_buffer_decompressed_size(ctx, NULL, l, sizeof lie, &size), OC_ERR_CORRUPT);
        l[8] = 0; /* content size 5: a valid frame */
        l[10] = 0;
        l[5] = 5;
        CHECK_ST(oc_buffer_decompress(ctx, NULL, l, sizeof lie, out, sizeof out, &got, NULL), OC_OK);
        CHECK(got == 5 && !memcmp(out, "hello", 5));
        free(l);
    }
    /* Too small an output: OUTPUT_TOO_SMALL naming the first chunk that
     * does not fit, for every container. */
    ta_list algos;
    ta_algorithms(&algos);
    for (size_t i = 0; i < algos.n; i++) {
        if (!ta_has_native(algos.info[i].algorithm))
            continue;
        oc_buffer_options oo =
            tb_opts(algos.info[i].algorithm, OC_BITSTREAM_NATIVE, CHUNK, OC_CHECKSUM_VERIFY);
        unsigned char *cc = tb_compress(ctx, &oo, text.p, N_IN, &cn);
        CHECK(cc != NULL);
        if (!cc)
            continue;
        unsigned char *big = (unsigned char *)tb_xmalloc(N_IN);
        failed = 0;
        CHECK_ST(oc_buffer_decompress(ctx, NULL, cc, cn, big, 3 * CHUNK + 5, &got, &failed),
                 OC_ERR_OUTPUT_TOO_SMALL);
        CHECK(failed == 3);
        free(big);
        free(cc);
    }
    /* A level the algorithm does not have is refused, not an internal error. */
    oc_buffer_options lv = tb_opts(OC_ALGO_ZSTD, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
    lv.level = 1000;
    size_t lb = oc_buffer_compress_bound(&lv, 300);
    unsigned char *lbuf = (unsigned char *)tb_xmalloc(lb ? lb : 1);
    CHECK_ST(oc_buffer_compress(ctx, &lv, g, 300, lbuf, lb, &got), OC_ERR_INVALID_ARGUMENT);
    free(lbuf);
    free(g);
}

int main(void)
{
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    text = tb_text(N_IN);
    CHECK(text.n == N_IN);
    ta_list algos;
    ta_algorithms(&algos);
    const char *seen_names[TA_MAX]; /* containers already run (static strings) */
    size_t nseen = 0;
    for (size_t ai = 0; ai < algos.n; ai++) {
        oc_algorithm a = algos.info[ai].algorithm;
        if (!ta_has_native(a))
            continue;
        for (int checksums = 1; checksums >= 0; checksums--) {
            oc_buffer_options o =
                tb_opts(a, OC_BITSTREAM_NATIVE, CHUNK, checksums ? OC_CHECKSUM_VERIFY : OC_CHECKSUM_NONE);
            size_t cn;
            unsigned char *c = tb_compress(ctx, &o, text.p, N_IN, &cn);
            CHECK(c != NULL);
            if (!c)
                continue;
            /* one run per container, by the name inspect gives it, under
             * the algorithm it reports: deflate and zlib write gzip's; our
             * own formats share one */
            oc_frame_info fi;
            memset(&fi, 0, sizeof fi);
            fi.struct_size = sizeof fi;
            CHECK_ST(oc_buffer_inspect(c, cn, NULL, &fi), OC_OK);
            int seen = fi.algorithm != a; /* asked on the first run of each algorithm */
            for (size_t k = 0; k < nseen && fi.container && checksums; k++)
                seen |= !strcmp(seen_names[k], fi.container);
            if (seen) {
                free(c);
                break;
            }
            if (checksums && fi.container && nseen < sizeof seen_names / sizeof seen_names[0])
                seen_names[nseen++] = fi.container;
            truncations(a, c, cn, checksums);
            flips(a, c, cn, checksums ? OC_CHECKSUM_VERIFY : OC_CHECKSUM_NONE);
            if (checksums)
                known_places(a, c, cn);
            free(c);
        }
    }
    misc();
    free(text.p);
    oc_context_destroy(ctx);
    return tb_finish("test_container_corrupt");
}
