/*
 * test_simple_api.c - the one-call layer (oc_compress, oc_decompress,
 * oc_compress_bound_simple; issue 19): real data round trips for every
 * algorithm with a container, byte identity with oc_buffer_compress under
 * OC_BUFFER_OPTIONS_INIT, stock zstd/lz4/gzip decoding the output,
 * decoding of a stock zstd frame, and exact statuses: one byte too little
 * room is OUTPUT_TOO_SMALL both ways, blosc (no container) is UNSUPPORTED,
 * a flipped byte is CHECKSUM_MISMATCH, CORRUPT, SIZE_MISMATCH or TRUNCATED
 * (where it lands decides: payload, size, length field), NULL dst_size is
 * INVALID_ARGUMENT.
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers/algo_list.h"
#include "test_shell_util.h"

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/oc_simple_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    oc_context *ctx = NULL;
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    tb_data text = tb_text(500000);
    ta_list algos; /* the table, through the public API */
    ta_algorithms(&algos);
    for (size_t ai = 0; ai < algos.n; ai++) {
        oc_algorithm a = algos.info[ai].algorithm;
        if (!ta_has_native(a))
            continue; /* blosc: UNSUPPORTED (below) */
        size_t bound = oc_compress_bound_simple(a, text.n);
        CHECK(bound > 0);
        unsigned char *c = tb_xmalloc(bound), *back = tb_xmalloc(text.n);
        size_t cn = 0, dn = 0;
        CHECK_ST(oc_compress(a, 0, text.p, text.n, c, bound, &cn), OC_OK);
        oc_buffer_options o = OC_BUFFER_OPTIONS_INIT;
        o.algorithm = a;
        size_t bn = 0;
        unsigned char *ref = tb_compress(ctx, &o, text.p, text.n, &bn);
        CHECK(ref && bn == cn && !memcmp(ref, c, cn));
        free(ref);
        CHECK_ST(oc_decompress(c, cn, back, text.n, &dn), OC_OK);
        CHECK(dn == text.n && !memcmp(back, text.p, dn));
        CHECK_ST(oc_decompress(c, cn, back, text.n - 1, &dn), OC_ERR_OUTPUT_TOO_SMALL);
        CHECK_ST(oc_compress(a, 0, text.p, text.n, c, cn - 1, &dn), OC_ERR_OUTPUT_TOO_SMALL);
        if (a == OC_ALGO_ZSTD || a == OC_ALGO_LZ4 || a == OC_ALGO_GZIP) {
            write_file("s.bin", c, cn);
            CHECK(run("%s -q -d -c < %s/s.bin > %s/s.out",
                      a == OC_ALGO_ZSTD  ? "zstd"
                      : a == OC_ALGO_LZ4 ? "lz4"
                                         : "gzip",
                      dir, dir) == 0);
            size_t on;
            unsigned char *out = read_file("s.out", &on);
            CHECK(on == text.n && !memcmp(out, text.p, on));
            free(out);
        }
        c[cn / 2] ^= 0x10;
        oc_status st = oc_decompress(c, cn, back, text.n, &dn);
        /* detected, whichever check sees it first: a flipped bit inside a
         * compressed block can end its stream early (snappy: TRUNCATED) or
         * change the decoded length (gzip's ISIZE: SIZE_MISMATCH) */
        CHECK(st == OC_ERR_CHECKSUM_MISMATCH || st == OC_ERR_CORRUPT || st == OC_ERR_TRUNCATED ||
              st == OC_ERR_SIZE_MISMATCH);
        /* a level: zstd 19 is smaller than zstd 1 */
        if (a == OC_ALGO_ZSTD) {
            size_t n1 = 0, n19 = 0;
            CHECK_ST(oc_compress(a, 1, text.p, text.n, c, bound, &n1), OC_OK);
            CHECK_ST(oc_compress(a, 19, text.p, text.n, c, bound, &n19), OC_OK);
            CHECK(n19 < n1);
        }
        free(c);
        free(back);
    }
    /* a stock zstd frame */
    write_file("in.bin", text.p, text.n);
    CHECK(run("zstd -q -f -19 %s/in.bin -o %s/in.zst", dir, dir) == 0);
    size_t zn, dn = 0;
    unsigned char *z = read_file("in.zst", &zn), *back = tb_xmalloc(text.n);
    CHECK_ST(oc_decompress(z, zn, back, text.n, &dn), OC_OK);
    CHECK(dn == text.n && !memcmp(back, text.p, dn));
    free(z);
    free(back);
    size_t cn = 0;
    unsigned char small[256];
    CHECK(oc_compress_bound_simple(OC_ALGO_BLOSC, 100) == 0);
    CHECK_ST(oc_compress(OC_ALGO_BLOSC, 0, text.p, 100, small, sizeof small, &cn), OC_ERR_UNSUPPORTED);
    CHECK_ST(oc_compress(OC_ALGO_ZSTD, 0, text.p, 100, small, sizeof small, NULL), OC_ERR_INVALID_ARGUMENT);
    CHECK_ST(oc_decompress(small, 0, small, sizeof small, NULL), OC_ERR_INVALID_ARGUMENT);
    oc_context_destroy(ctx);
    run("rm -rf %s", dir);
    free(text.p);
    return tb_finish("test_simple_api");
}
