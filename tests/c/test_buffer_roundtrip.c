/*
 * test_buffer_roundtrip.c - byte-exact round trips of the whole-buffer layer
 * for every algorithm x bitstream kind x chunk size (1, 4096, 65536, 100000,
 * 1 MiB and the default) x checksum policy on real data (this repo's
 * sources, a system shared library, a numeric column, random bytes), plus
 * empty and 1-byte inputs and sizes that do not divide into chunks.  Each
 * round trip also checks inspect and decompressed_size against the input,
 * that decoding into one byte too little gives OUTPUT_TOO_SMALL, and that
 * compressing into one byte less than needed gives OUTPUT_TOO_SMALL.
 * Every algorithm of the table runs (helpers/algo_list.h): NATIVE where it
 * has a container, RAW and WITH_UNCOMPRESSED_SIZE up to its largest chunk.
 */
#include "helpers/algo_list.h"
#include "test_buffer_util.h"

static void roundtrip(oc_context *ctx, const tb_data *d, size_t n, oc_algorithm a, oc_bitstream_kind k,
                      size_t chunk, oc_checksum_policy pol)
{
    /* What the table says of `a`: a NATIVE container or none (Blosc), the
     * largest chunk (GDeflate's 64 KiB page: RAW holds no more, NATIVE
     * chunks are asked no larger), and by its suffix the container: the
     * seekable zstd and gzip-member ones write one empty frame/member for
     * empty input and always carry checksums (gzip's CRC-32), as snappy's
     * framing does; LZ4 frames and our own container may be empty. */
    oc_algorithm_info ai = ta_info(a);
    if (k == OC_BITSTREAM_NATIVE ? !ta_has_native(a) : n > ai.max_chunk_size)
        return;
    chunk = chunk ? ta_clamp_chunk(a, chunk) : 0;
    /* Effective chunk size: LZ4 frames clamp to 4 MiB, snappy's framing to
     * 64 KiB (opencomp.h, oc_buffer_options). */
    size_t cs = chunk ? chunk : 65536;
    if (!strcmp(ai.suffix, ".lz4") && cs > ((size_t)4 << 20))
        cs = (size_t)4 << 20;
    if (!strcmp(ai.suffix, ".sz") && cs > 65536)
        cs = 65536;
    int one_empty = !strcmp(ai.suffix, ".zst") || !strcmp(ai.suffix, ".gz");
    int mandatory = !strcmp(ai.suffix, ".sz") || !strcmp(ai.suffix, ".gz");
    /* deflate-coded streams store incompressible data in stored blocks
     * inside the stream (5 bytes each), not as a stored chunk */
    int deflate_coded = !strcmp(ai.suffix, ".gz") || a == OC_ALGO_GDEFLATE;
    oc_buffer_options o = tb_opts(a, k, chunk, pol);
    unsigned char *src = tb_copy(d->p, n);
    size_t cn = 0;
    unsigned char *comp = tb_compress(ctx, &o, src, n, &cn);
    CHECK(comp != NULL);
    if (!comp) {
        free(src);
        return;
    }
    CHECK(cn <= oc_buffer_compress_bound(&o, n));
    if (k == OC_BITSTREAM_NATIVE && !strcmp(d->name, "random") && !deflate_coded) {
        /* Incompressible chunks are stored, not expanded: only headers and
         * the index are added. */
        CHECK(cn <= n + 64 + 24 * ((n + cs - 1) / cs));
    }
    oc_buffer_options hint = tb_opts(k == OC_BITSTREAM_NATIVE ? OC_ALGO_NONE : a, k, 0, OC_CHECKSUM_VERIFY);
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_ST(oc_buffer_inspect(comp, cn, &hint, &info), OC_OK);
    CHECK(info.compressed_size == cn);
    if (k == OC_BITSTREAM_NATIVE) {
        CHECK(info.kind == OC_BITSTREAM_NATIVE);
        CHECK(info.size_known && info.decompressed_size == n);
        CHECK(info.indexed);
        uint64_t want = (n + cs - 1) / cs;
        /* zstd and gzip write one empty frame/member for empty input; LZ4
         * frames, snappy streams and our own container hold no chunk */
        if (want == 0 && one_empty)
            want = 1;
        CHECK(info.num_chunks == want);
        CHECK(info.max_chunk_size == (n < cs ? n : cs));
        CHECK(info.has_checksums == (mandatory || pol != OC_CHECKSUM_NONE));
        CHECK(info.algorithm == (a == OC_ALGO_DEFLATE || a == OC_ALGO_ZLIB ? OC_ALGO_GZIP : a));
    } else {
        CHECK(info.num_chunks == 1);
        CHECK(info.algorithm == a);
    }
    if (k == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE)
        CHECK(info.size_known && info.decompressed_size == n);
    uint64_t size = 0;
    CHECK_ST(oc_buffer_decompressed_size(ctx, &hint, comp, cn, &size), OC_OK);
    CHECK(size == n);

    unsigned char *out = (unsigned char *)tb_xmalloc(n);
    uint64_t got = 0, failed = 12345;
    oc_status st = oc_buffer_decompress(ctx, &hint, comp, cn, n ? out : NULL, n, &got, &failed);
    if (st != OC_OK || got != n || (n && memcmp(out, src, n))) {
        fprintf(stderr, "round trip %s %s kind %d chunk %zu size %zu: %s got %llu failed %llu\n", d->name,
                oc_algorithm_name(a), (int)k, chunk, n, oc_status_name(st), (unsigned long long)got,
                (unsigned long long)failed);
        tb_failures++;
    }
    free(out);
    if (n > 0) {
        /* One byte short: never an overrun, always OUTPUT_TOO_SMALL. */
        unsigned char *small = (unsigned char *)tb_xmalloc(n - 1);
        oc_status sst = oc_buffer_decompress(ctx, &hint, comp, cn, small, n - 1, &got, NULL);
        /* A raw LZ4 block cannot always tell a short output from a corrupt
         * stream (the block format has no size); every other case can. */
        int lz4_raw = a == OC_ALGO_LZ4 && k == OC_BITSTREAM_RAW;
        if (sst != OC_ERR_OUTPUT_TOO_SMALL && !(lz4_raw && sst == OC_ERR_CORRUPT)) {
            fprintf(stderr, "short output %s kind %d chunk %zu size %zu: %s\n", oc_algorithm_name(a), (int)k,
                    chunk, n, oc_status_name(sst));
            tb_failures++;
        }
        free(small);
    }
    unsigned char *cshort = (unsigned char *)tb_xmalloc(cn - 1);
    CHECK_ST(oc_buffer_compress(ctx, &o, src, n, cshort, cn - 1, &got), OC_ERR_OUTPUT_TOO_SMALL);
    free(cshort);
    free(comp);
    free(src);
}

int main(void)
{
    oc_context *ctx = NULL;
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    tb_data sets[4] = {tb_text(300000), tb_binary(1500000), tb_numeric(200000), tb_random(300001, 99)};
    static const size_t chunks[] = {4096, 65536, 100000, 1 << 20, 0};
    ta_list algos;
    ta_algorithms(&algos);
    for (size_t ai = 0; ai < algos.n; ai++) {
        oc_algorithm a = algos.info[ai].algorithm;
        for (size_t si = 0; si < 4; si++) {
            const tb_data *d = &sets[si];
            for (size_t ci = 0; ci < sizeof chunks / sizeof chunks[0]; ci++)
                roundtrip(ctx, d, d->n, a, OC_BITSTREAM_NATIVE, chunks[ci],
                          ci % 2 ? OC_CHECKSUM_NONE : OC_CHECKSUM_VERIFY);
            roundtrip(ctx, d, d->n, a, OC_BITSTREAM_RAW, 0, OC_CHECKSUM_VERIFY);
            roundtrip(ctx, d, d->n, a, OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE, 0, OC_CHECKSUM_VERIFY);
        }
        /* Chunk size 1: every byte its own chunk (small input keeps it fast). */
        roundtrip(ctx, &sets[0], 3000, a, OC_BITSTREAM_NATIVE, 1, OC_CHECKSUM_VERIFY);
        roundtrip(ctx, &sets[0], 3000, a, OC_BITSTREAM_NATIVE, 1, OC_CHECKSUM_NONE);
        /* Empty, 1 byte, and sizes around chunk boundaries. */
        static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 65535, 65536, 65537, 131073};
        for (size_t zi = 0; zi < sizeof sizes / sizeof sizes[0]; zi++) {
            for (int k = 0; k < 3; k++)
                roundtrip(ctx, &sets[1], sizes[zi], a, (oc_bitstream_kind)k, 4096, OC_CHECKSUM_VERIFY);
            roundtrip(ctx, &sets[3], sizes[zi], a, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_COMPUTE);
        }
    }
    /* A raw snappy buffer of 255 bytes starts with FF 01 (its varint), a raw
     * buffer of 6 bytes with 06: with a NATIVE snappy hint, neither may be
     * mistaken for the framing format's stream identifier (FF 06 00 00 ...). */
    for (size_t len = 6; len <= 255; len += 249) {
        oc_buffer_options o = tb_opts(OC_ALGO_SNAPPY, OC_BITSTREAM_RAW, 0, OC_CHECKSUM_VERIFY);
        size_t cn;
        unsigned char *c = tb_compress(ctx, &o, sets[0].p, len, &cn);
        CHECK(c != NULL);
        if (!c)
            continue;
        oc_buffer_options hint = tb_opts(OC_ALGO_SNAPPY, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
        unsigned char out[255];
        uint64_t got = 0;
        CHECK_ST(oc_buffer_decompress(ctx, &hint, c, cn, out, len, &got, NULL), OC_OK);
        CHECK(got == len && !memcmp(out, sets[0].p, len));
        free(c);
    }
    for (int i = 0; i < 4; i++)
        free(sets[i].p);
    oc_context_destroy(ctx);
    return tb_finish("test_buffer_roundtrip");
}
