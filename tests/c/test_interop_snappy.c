/*
 * test_interop_snappy.c - the snappy NATIVE container (snappy framing
 * format + our index chunk) against an independent framing implementation:
 * python3's cramjam (cramjam.snappy.compress/decompress are the framed
 * format; it is in requirements-test.txt).  Both ways, through temp files:
 * cramjam must decode ours (it must skip our 0x8C index chunk), and we must
 * decode cramjam's streams, concatenations of them, and a mix of ours and
 * theirs.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_shell_util.h"

static oc_context *ctx;

#define PY_DECODE                                                                                            \
    "python3 -c 'import sys,cramjam; d=open(sys.argv[1],\"rb\").read(); "                                    \
    "sys.stdout.buffer.write(bytes(cramjam.snappy.decompress(d)))'"
#define PY_ENCODE                                                                                            \
    "python3 -c 'import sys,cramjam; d=open(sys.argv[1],\"rb\").read(); "                                    \
    "sys.stdout.buffer.write(bytes(cramjam.snappy.compress(d)))'"

static void ours_to_cramjam(const unsigned char *p, size_t n, size_t chunk, oc_checksum_policy pol)
{
    oc_buffer_options o = tb_opts(OC_ALGO_SNAPPY, OC_BITSTREAM_NATIVE, chunk, pol);
    size_t cn;
    unsigned char *comp = tb_compress(ctx, &o, p, n, &cn);
    CHECK(comp != NULL);
    if (!comp)
        return;
    write_file("ours.sz", comp, cn);
    free(comp);
    if (run(PY_DECODE " %s/ours.sz > %s/out.bin", dir, dir) != 0) {
        tb_failures++;
        return;
    }
    size_t m;
    unsigned char *q = read_file("out.bin", &m);
    if (m != n || (n && memcmp(p, q, n))) {
        fprintf(stderr, "cramjam decoded %zu bytes of %zu wrongly (chunk %zu)\n", m, n, chunk);
        tb_failures++;
    }
    free(q);
}

static void decode_ours(const char *file, const unsigned char *want, size_t n)
{
    size_t cn;
    unsigned char *comp = read_file(file, &cn);
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_ST(oc_buffer_inspect(comp, cn, NULL, &info), OC_OK);
    CHECK(info.container && !strcmp(info.container, "snappy-framed"));
    CHECK(info.size_known && info.decompressed_size == n);
    unsigned char *out = (unsigned char *)tb_xmalloc(n);
    uint64_t got = 0;
    oc_status st = oc_buffer_decompress(ctx, NULL, comp, cn, n ? out : NULL, n, &got, NULL);
    if (st != OC_OK || got != n || (n && memcmp(out, want, n))) {
        fprintf(stderr, "decoding %s: %s, %llu of %zu bytes\n", file, oc_status_name(st),
                (unsigned long long)got, n);
        tb_failures++;
    }
    free(out);
    free(comp);
}

static void cramjam_to_ours(const unsigned char *p, size_t n)
{
    write_file("in.bin", p, n);
    if (run(PY_ENCODE " %s/in.bin > %s/theirs.sz", dir, dir) != 0) {
        tb_failures++;
        return;
    }
    decode_ours("theirs.sz", p, n);
}

int main(void)
{
    if (system("python3 -c 'import cramjam' 2>/dev/null") != 0) {
        fprintf(stderr, "python3 with cramjam is required (pip install -r requirements-test.txt)\n");
        return 1;
    }
    snprintf(dir, sizeof dir, "/tmp/oc_snappy_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    tb_data text = tb_text(300000), bin = tb_binary(700000), rnd = tb_random(200000, 5);
    const tb_data *sets[3] = {&text, &bin, &rnd};
    for (int i = 0; i < 3; i++) {
        ours_to_cramjam(sets[i]->p, sets[i]->n, 65536, OC_CHECKSUM_VERIFY);
        ours_to_cramjam(sets[i]->p, sets[i]->n, 4096, OC_CHECKSUM_NONE);
        cramjam_to_ours(sets[i]->p, sets[i]->n);
    }
    ours_to_cramjam(text.p, 0, 0, OC_CHECKSUM_VERIFY);
    ours_to_cramjam(text.p, 1, 0, OC_CHECKSUM_VERIFY);
    ours_to_cramjam(text.p, 3000, 1, OC_CHECKSUM_VERIFY);
    ours_to_cramjam(text.p, text.n, 1 << 20, OC_CHECKSUM_VERIFY); /* clamped to 65536 */
    cramjam_to_ours(text.p, 1);
    /* cramjam writes an empty input as zero bytes: with a snappy hint that
     * is an empty stream. */
    {
        write_file("in.bin", text.p, 0);
        CHECK(run(PY_ENCODE " %s/in.bin > %s/empty.sz", dir, dir) == 0);
        size_t en;
        unsigned char *e = read_file("empty.sz", &en);
        CHECK(en == 0);
        oc_buffer_options hint = tb_opts(OC_ALGO_SNAPPY, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
        uint64_t got = 1;
        unsigned char out[1];
        CHECK_ST(oc_buffer_decompress(ctx, &hint, e, en, out, 0, &got, NULL), OC_OK);
        CHECK(got == 0);
        free(e);
    }

    /* Two streams back to back (the stream identifier repeats), and ours
     * followed by theirs (our index chunk is then in the middle). */
    size_t half = text.n / 2;
    write_file("a.bin", text.p, half);
    write_file("b.bin", text.p + half, text.n - half);
    CHECK(run(PY_ENCODE " %s/a.bin > %s/a.sz && " PY_ENCODE
                        " %s/b.bin > %s/b.sz && cat %s/a.sz %s/b.sz > %s/ab.sz",
              dir, dir, dir, dir, dir, dir, dir) == 0);
    decode_ours("ab.sz", text.p, text.n);
    oc_buffer_options o = tb_opts(OC_ALGO_SNAPPY, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
    size_t cn;
    unsigned char *comp = tb_compress(ctx, &o, text.p, half, &cn);
    CHECK(comp != NULL);
    if (comp) {
        write_file("a.sz", comp, cn);
        CHECK(run("cat %s/a.sz %s/b.sz > %s/ab.sz", dir, dir, dir) == 0);
        decode_ours("ab.sz", text.p, text.n);
        free(comp);
    }
    run("rm -rf %s", dir);
    free(text.p);
    free(bin.p);
    free(rnd.p);
    oc_context_destroy(ctx);
    return tb_finish("test_interop_snappy");
}
