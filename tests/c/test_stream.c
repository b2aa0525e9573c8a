/*
 * test_stream.c - the streaming layer (oc_stream_writer_*, oc_stream_reader_*,
 * issue 19) on real data:
 *
 *   - the writer, fed in pieces of random sizes, writes byte for byte what
 *     oc_buffer_compress writes for the same options and a pledged size
 *     (every container, several chunk sizes, empty and one-byte inputs,
 *     inputs of several groups); without a pledged size the LZ4 frame
 *     omits the content size and still decodes everywhere;
 *   - the reader, fed in pieces of random sizes, gives the input back from
 *     ours, and from the stock tools' streams (lz4 default, -BD linked
 *     blocks, legacy -l, zstd -3 / -19 / from stdin / --no-check,
 *     concatenated frames, gzip, cat a.gz b.gz, gzip with trailing zeros);
 *   - the stock tools decode what the writer writes;
 *   - bad input gets exact statuses: every cut of an LZ4 stream is
 *     TRUNCATED; a cut inside any chunk is TRUNCATED; a flipped payload byte
 *     is CHECKSUM_MISMATCH (or CORRUPT); a changed index entry CORRUPT; a
 *     changed seek-table checksum CHECKSUM_MISMATCH; garbage CORRUPT, empty
 *     input TRUNCATED, our own formats' container UNSUPPORTED; a read error
 *     is passed through; pledged sizes that differ are SIZE_MISMATCH.
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers/algo_list.h"
#include "test_shell_util.h"
#include "test_stream_util.h"

static oc_context *ctx;
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t last_failed; /* the last stream_decompress's failed chunk */
static int last_zeros;       /* and whether its trailing bytes were zeros */

/* Streams src through a writer in random pieces; returns the status. */
static oc_status stream_compress(const oc_buffer_options *o, const unsigned char *src, size_t n,
                                 uint64_t pledged, sink *out)
{
    oc_stream_writer *w = NULL;
    memset(out, 0, sizeof *out);
    oc_status st = oc_stream_writer_create(ctx, o, pledged, sink_write, out, &w);
    if (st != OC_OK)
        return st;
    size_t pos = 0;
    while (pos < n && st == OC_OK) {
        size_t piece = 1 + (size_t)(tb_rng(&rng_state) % (tb_rng(&rng_state) % 3 ? 70000 : 12000000));
        if (piece > n - pos)
            piece = n - pos;
        st = oc_stream_writer_write(w, src + pos, piece);
        pos += piece;
    }
    if (st == OC_OK)
        st = oc_stream_writer_finish(w, NULL);
    oc_stream_writer_destroy(w);
    return st;
}

/* Reads a whole stream through a reader (pieces of at most max_piece);
 * *out gets the decoded bytes (malloc'd). */
static oc_status stream_decompress(const oc_buffer_options *hint, const unsigned char *src, size_t n,
                                   size_t max_piece, sink *out, uint64_t *trailing)
{
    oc_stream_position pos;
    oc_status st = read_whole_stream(ctx, hint, src, n, max_piece, &rng_state, out, &pos);
    if (trailing)
        *trailing = pos.trailing_bytes;
    last_failed = pos.failed_chunk;
    last_zeros = pos.trailing_zeros;
    return st;
}

static int same(const sink *s, const unsigned char *p, size_t n)
{
    return s->n == n && (n == 0 || !memcmp(s->p, p, n));
}

/* ---- round trips --------------------------------------------------------------- */

static void round_trip(const tb_data *d, size_t n, oc_algorithm a, size_t chunk, oc_checksum_policy pol)
{
    oc_buffer_options o = tb_opts(a, OC_BITSTREAM_NATIVE, chunk, pol);
    size_t bn = 0;
    unsigned char *buffered = tb_compress(ctx, &o, d->p, n, &bn);
    CHECK(buffered != NULL);
    sink c, back;
    CHECK_ST(stream_compress(&o, d->p, n, n, &c), OC_OK);
    if (!(buffered && c.n == bn && !memcmp(c.p, buffered, bn)))
        fprintf(stderr, "%s %s n=%zu chunk=%zu: stream %zu bytes, buffer %zu bytes differ\n", d->name,
                oc_algorithm_name(a), n, chunk, c.n, bn);
    CHECK(buffered && c.n == bn && !memcmp(c.p, buffered, bn));
    /* read back: in pieces of all sizes, and through read() in small reads */
    CHECK_ST(stream_decompress(NULL, c.p, c.n, 1 + (n % 3 ? 100 : 3000000), &back, NULL), OC_OK);
    CHECK(same(&back, d->p, n));
    free(back.p);
    source s = {c.p, c.n, 0, 0, 0, NULL};
    oc_stream_reader *r = NULL;
    CHECK_ST(oc_stream_reader_create(ctx, &o, source_read, &s, &r), OC_OK);
    unsigned char *got = (unsigned char *)tb_xmalloc(n + 1);
    size_t total = 0, k = 0;
    oc_status st = OC_OK;
    do {
        st = oc_stream_reader_read(r, got + total, n + 1 - total < 777 ? n + 1 - total : 777, &k);
        total += k;
    } while (st == OC_OK && k);
    CHECK_ST(st, OC_OK);
    CHECK(total == n && !memcmp(got, d->p, n));
    oc_stream_position pos;
    memset(&pos, 0, sizeof pos);
    pos.struct_size = sizeof pos;
    CHECK_ST(oc_stream_reader_position(r, &pos), OC_OK);
    CHECK(pos.in_bytes == c.n && pos.out_bytes == n && pos.failed_chunk == OC_SIZE_UNKNOWN);
    size_t cs = a == OC_ALGO_SNAPPY && chunk > 65536 ? 65536 : chunk;
    CHECK(pos.chunks == (n ? (n + cs - 1) / cs : (a == OC_ALGO_LZ4 || a == OC_ALGO_SNAPPY) ? 0 : 1));
    oc_stream_reader_destroy(r);
    free(got);

    /* without a pledged size: LZ4 omits the content size; the rest is the same */
    sink u;
    CHECK_ST(stream_compress(&o, d->p, n, OC_SIZE_UNKNOWN, &u), OC_OK);
    if (a == OC_ALGO_LZ4)
        CHECK(u.n + 8 == c.n);
    else
        CHECK(u.n == c.n && !memcmp(u.p, c.p, c.n));
    unsigned char *dec = (unsigned char *)tb_xmalloc(n + 1);
    uint64_t dn = 0;
    CHECK_ST(oc_buffer_decompress(ctx, NULL, u.p, u.n, dec, n, &dn, NULL), OC_OK);
    CHECK(dn == n && !memcmp(dec, d->p, n));
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_ST(oc_buffer_inspect(u.p, u.n, NULL, &info), OC_OK);
    CHECK(info.size_known && info.decompressed_size == n);
    CHECK(n == 0 || a == OC_ALGO_SNAPPY || info.indexed);
    CHECK_ST(stream_decompress(NULL, u.p, u.n, 0, &back, NULL), OC_OK);
    CHECK(same(&back, d->p, n));
    free(back.p);
    free(dec);
    free(u.p);
    free(c.p);
    free(buffered);
}

/* ---- the stock tools ------------------------------------------------------------ */

static void stock_to_stream(const tb_data *d, const char *cmd)
{
    write_file("in.bin", d->p, d->n);
    if (run("cd %s && %s", dir, cmd) != 0) {
        CHECK(0);
        return;
    }
    size_t cn;
    unsigned char *comp = read_file("stock.bin", &cn);
    sink back;
    uint64_t trailing = 0;
    oc_status st = stream_decompress(NULL, comp, cn, 50000, &back, &trailing);
    if (st != OC_OK || !same(&back, d->p, d->n))
        fprintf(stderr, "stock -> stream: %s: %s, %zu of %zu bytes\n", cmd, oc_status_name(st), back.n, d->n);
    CHECK_ST(st, OC_OK);
    CHECK(same(&back, d->p, d->n));
    CHECK(trailing == 0 || strstr(cmd, "trailing"));
    if (strstr(cmd, "trailing"))
        CHECK(trailing == 1000 && last_zeros);
    free(back.p);
    free(comp);
}

/* The stock command that decodes a's NATIVE container, or NULL (snappy
 * framing, our own formats' container). */
static const char *stock_tool(oc_algorithm a)
{
    oc_algorithm as = ta_native_as(a);
    return as == OC_ALGO_LZ4    ? "lz4 -q -d -c"
           : as == OC_ALGO_ZSTD ? "zstd -q -d -c"
           : as == OC_ALGO_GZIP ? "gzip -d -c"
                                : NULL;
}

static void stream_to_stock(const tb_data *d, oc_algorithm a, size_t chunk, oc_checksum_policy pol)
{
    oc_buffer_options o = tb_opts(a, OC_BITSTREAM_NATIVE, chunk, pol);
    sink c;
    CHECK_ST(stream_compress(&o, d->p, d->n, OC_SIZE_UNKNOWN, &c), OC_OK);
    write_file("ours.bin", c.p, c.n);
    free(c.p);
    const char *tool = stock_tool(a);
    CHECK(run("%s < %s/ours.bin > %s/out.bin", tool, dir, dir) == 0);
    size_t on;
    unsigned char *out = read_file("out.bin", &on);
    CHECK(on == d->n && !memcmp(out, d->p, on));
    free(out);
}

/* ---- bad input ------------------------------------------------------------------- */

static oc_status read_all(const unsigned char *p, size_t n, sink *back)
{
    return stream_decompress(NULL, p, n, 4096, back, NULL);
}

static void bad_input(const tb_data *d)
{
    size_t n = 300000;
    static const oc_algorithm algos[] = {OC_ALGO_LZ4, OC_ALGO_ZSTD, OC_ALGO_GZIP, OC_ALGO_SNAPPY};
    for (size_t ai = 0; ai < 4; ai++) {
        oc_algorithm a = algos[ai];
        oc_buffer_options o = tb_opts(a, OC_BITSTREAM_NATIVE, 65536, OC_CHECKSUM_VERIFY);
        sink c, back;
        CHECK_ST(stream_compress(&o, d->p, n, OC_SIZE_UNKNOWN, &c), OC_OK);
        /* cuts inside the first chunk (after any stream header) */
        for (size_t cut = 20; cut < 2000; cut += 397) {
            CHECK_ST(read_all(c.p, cut, &back), OC_ERR_TRUNCATED);
            free(back.p);
        }
        /* every cut of an LZ4 frame (open until its end mark), some of the others */
        for (size_t cut = 1; cut < c.n; cut += a == OC_ALGO_LZ4 ? 1 + cut / 50 : 4099) {
            oc_status st = read_all(c.p, cut, &back);
            if (a == OC_ALGO_LZ4)
                CHECK_ST(st, OC_ERR_TRUNCATED);
            else /* gzip members and zstd frames end cleanly at their boundaries: a prefix */
                CHECK(st == OC_ERR_TRUNCATED || (st == OC_OK && back.n < n && !memcmp(back.p, d->p, back.n)));
            free(back.p);
        }
        /* the last byte cut: inside the index (or the last gzip member) */
        CHECK_ST(read_all(c.p, c.n - 1, &back), OC_ERR_TRUNCATED);
        free(back.p);
        /* a payload byte of the second chunk flipped */
        unsigned char *bad = tb_copy(c.p, c.n);
        bad[c.n / 4] ^= 0x40;
        oc_status st = read_all(bad, c.n, &back);
        if (st != OC_ERR_CHECKSUM_MISMATCH && st != OC_ERR_CORRUPT)
            fprintf(stderr, "%s flipped payload: %s\n", oc_algorithm_name(a), oc_status_name(st));
        CHECK(st == OC_ERR_CHECKSUM_MISMATCH || st == OC_ERR_CORRUPT);
        /* the same status and chunk as the whole-buffer layer says */
        unsigned char *dec = (unsigned char *)tb_xmalloc(n);
        uint64_t bfailed = OC_SIZE_UNKNOWN, dn = 0;
        oc_status bst = oc_buffer_decompress(ctx, NULL, bad, c.n, dec, n, &dn, &bfailed);
        if (bst != st || bfailed != last_failed)
            fprintf(stderr, "%s flipped payload: stream %s chunk %llu, buffer %s chunk %llu\n",
                    oc_algorithm_name(a), oc_status_name(st), (unsigned long long)last_failed,
                    oc_status_name(bst), (unsigned long long)bfailed);
        CHECK(bst == st && bfailed == last_failed && last_failed < 5);
        free(dec);
        free(back.p);
        memcpy(bad, c.p, c.n);
        if (a == OC_ALGO_LZ4 || a == OC_ALGO_SNAPPY) {
            /* an index entry's decoded size changed: the index disagrees */
            bad[c.n - 9 - 4] ^= 0x01;
            CHECK_ST(read_all(bad, c.n, &back), OC_ERR_CORRUPT);
            free(back.p);
        } else if (a == OC_ALGO_ZSTD) {
            /* the last seek-table entry's checksum changed */
            bad[c.n - 9 - 2] ^= 0x01;
            CHECK_ST(read_all(bad, c.n, &back), OC_ERR_CHECKSUM_MISMATCH);
            CHECK(last_failed == (n + 65535) / 65536 - 1); /* the last frame's entry */
            free(back.p);
            /* and its compressed size */
            memcpy(bad, c.p, c.n);
            bad[c.n - 9 - 12] ^= 0x01;
            CHECK_ST(read_all(bad, c.n, &back), OC_ERR_CORRUPT);
            free(back.p);
        }
        /* garbage after the stream */
        unsigned char *more = (unsigned char *)tb_xmalloc(c.n + 8);
        memcpy(more, c.p, c.n);
        memcpy(more + c.n, "garbage!", 8);
        st = read_all(more, c.n + 8, &back);
        if (a == OC_ALGO_GZIP) { /* as gzip -d: decoded, the bytes after it ignored */
            CHECK_ST(st, OC_OK);
            CHECK(same(&back, d->p, n));
        } else {
            CHECK_ST(st, OC_ERR_CORRUPT);
        }
        free(back.p);
        free(more);
        free(bad);
        free(c.p);
    }
    sink back;
    CHECK_ST(read_all((const unsigned char *)"", 0, &back), OC_ERR_TRUNCATED);
    CHECK_ST(read_all((const unsigned char *)"\x28\xb5", 2, &back), OC_ERR_TRUNCATED);
    CHECK_ST(read_all((const unsigned char *)"hello, world", 12, &back), OC_ERR_CORRUPT);
    /* our own formats' container: the whole-buffer layer reads it */
    oc_buffer_options co = tb_opts(OC_ALGO_CASCADED, OC_BITSTREAM_NATIVE, 65536, OC_CHECKSUM_VERIFY);
    co.typed.data_type = OC_TYPE_I64;
    size_t cn;
    unsigned char *own = tb_compress(ctx, &co, d->p, 80000, &cn);
    CHECK(own != NULL);
    if (own)
        CHECK_ST(read_all(own, cn, &back), OC_ERR_UNSUPPORTED);
    free(own);
    oc_stream_writer *w = NULL;
    CHECK_ST(oc_stream_writer_create(ctx, &co, OC_SIZE_UNKNOWN, sink_write, &back, &w), OC_ERR_UNSUPPORTED);
    /* a read error comes back as it is */
    oc_buffer_options o = tb_opts(OC_ALGO_ZSTD, OC_BITSTREAM_NATIVE, 65536, OC_CHECKSUM_VERIFY);
    sink c;
    CHECK_ST(stream_compress(&o, d->p, n, OC_SIZE_UNKNOWN, &c), OC_OK);
    source s = {c.p, c.n, 0, 1000, 50000, &rng_state};
    oc_stream_reader *r = NULL;
    CHECK_ST(oc_stream_reader_create(ctx, NULL, source_read, &s, &r), OC_OK);
    const void *data;
    size_t size;
    oc_status st;
    do
        st = oc_stream_reader_next(r, &data, &size);
    while (st == OC_OK && size);
    CHECK_ST(st, OC_ERR_IO);
    CHECK_ST(oc_stream_reader_next(r, &data, &size), OC_ERR_IO); /* sticky */
    oc_stream_reader_destroy(r);
    free(c.p);
    /* pledged sizes that differ */
    CHECK_ST(stream_compress(&o, d->p, 1000, 999, &c), OC_ERR_SIZE_MISMATCH);
    free(c.p);
    CHECK_ST(stream_compress(&o, d->p, 1000, 1001, &c), OC_ERR_SIZE_MISMATCH);
    free(c.p);
    /* RAW is not a stream container */
    o.kind = OC_BITSTREAM_RAW;
    CHECK_ST(oc_stream_writer_create(ctx, &o, OC_SIZE_UNKNOWN, sink_write, &c, &w), OC_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/oc_stream_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    tb_data text = tb_text(700000), bin = tb_binary(3000000), num = tb_numeric(400000),
            rnd = tb_random(300000, 7);
    /* several groups: 20 MiB of real bytes */
    tb_data big = {"big", (unsigned char *)tb_xmalloc(20u << 20), 20u << 20};
    for (size_t off = 0; off < big.n; off += bin.n)
        memcpy(big.p + off, bin.p, big.n - off < bin.n ? big.n - off : bin.n);

    ta_list algos; /* the table, through the public API */
    ta_algorithms(&algos);
    for (size_t ai = 0; ai < algos.n; ai++) {
        oc_algorithm a = algos.info[ai].algorithm;
        if (!ta_streams(a))
            continue; /* our own formats' container, Blosc: oc_buffer_* only */
        round_trip(&text, text.n, a, 65536, OC_CHECKSUM_VERIFY);
        round_trip(&text, text.n, a, 100000, OC_CHECKSUM_NONE);
        round_trip(&bin, bin.n, a, 1 << 20, OC_CHECKSUM_VERIFY);
        round_trip(&num, num.n, a, 4096, OC_CHECKSUM_COMPUTE);
        round_trip(&rnd, rnd.n, a, 65536, OC_CHECKSUM_VERIFY);
        round_trip(&big, big.n, a, 65536, OC_CHECKSUM_VERIFY);
        round_trip(&text, 0, a, 65536, OC_CHECKSUM_VERIFY);
        round_trip(&text, 1, a, 65536, OC_CHECKSUM_VERIFY);
        round_trip(&text, 65536, a, 65536, OC_CHECKSUM_VERIFY);
        round_trip(&text, 65537, a, 65536, OC_CHECKSUM_VERIFY);
    }
    round_trip(&big, big.n, OC_ALGO_LZ4, 4 << 20, OC_CHECKSUM_VERIFY);
    round_trip(&big, big.n, OC_ALGO_ZSTD, 3 << 20, OC_CHECKSUM_VERIFY);

    tb_data *sets[2] = {&text, &bin};
    for (int si = 0; si < 2; si++) {
        const tb_data *d = sets[si];
        stock_to_stream(d, "lz4 -q -f -c in.bin > stock.bin");
        stock_to_stream(d, "lz4 -q -f -BD -c in.bin > stock.bin");
        stock_to_stream(d, "lz4 -q -f -B4 -BX --content-size -c in.bin > stock.bin");
        stock_to_stream(d, "lz4 -q -f -l -c in.bin > stock.bin");
        stock_to_stream(d, "zstd -q -f -3 -c in.bin > stock.bin");
        stock_to_stream(d, "zstd -q -f -19 -c in.bin > stock.bin");
        stock_to_stream(d, "cat in.bin | zstd -q -f -c > stock.bin");
        stock_to_stream(d, "zstd -q -f --no-check -B65536 -c in.bin > stock.bin");
        stock_to_stream(d, "head -c 1000 in.bin > a && tail -c +1001 in.bin > b && zstd -q -f a b && "
                           "cat a.zst b.zst > stock.bin");
        stock_to_stream(d, "gzip -c in.bin > stock.bin");
        stock_to_stream(d, "head -c 1000 in.bin > a && tail -c +1001 in.bin > b && gzip -f a b && "
                           "cat a.gz b.gz > stock.bin");
        stock_to_stream(d, "gzip -c in.bin > stock.bin && head -c 1000 /dev/zero >> stock.bin # trailing");
        for (size_t ai = 0; ai < algos.n; ai++)
            if (stock_tool(algos.info[ai].algorithm)) {
                stream_to_stock(d, algos.info[ai].algorithm, 65536, OC_CHECKSUM_VERIFY);
                stream_to_stock(d, algos.info[ai].algorithm, 1 << 20, OC_CHECKSUM_NONE);
            }
    }
    /* a stock stream larger than a group, through the serial decoders */
    stock_to_stream(&big, "cat in.bin | zstd -q -f -c > stock.bin");
    stock_to_stream(&big, "gzip -1 -c in.bin > stock.bin");
    stock_to_stream(&big, "lz4 -q -f -BD -c in.bin > stock.bin");

    bad_input(&bin);

    oc_context_destroy(ctx);
    run("rm -rf %s", dir);
    free(text.p);
    free(bin.p);
    free(num.p);
    free(rnd.p);
    free(big.p);
    return tb_finish("test_stream");
}
