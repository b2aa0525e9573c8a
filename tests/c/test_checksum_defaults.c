/*
 * test_checksum_defaults.c - the C API verifies every checksum present
 * unless the caller says otherwise (issue 11 item 15, the C part; the
 * Python and numcodecs defaults are tested in tests/python, the command's
 * in tests/cli/test_checksums.sh): with hint NULL and with
 * OC_BUFFER_OPTIONS_INIT, a wrong snappy-framing CRC-32C (a stream made by
 * cramjam) and a wrong LZ4 content checksum (a frame made by liblz4, no
 * block checksums) are CHECKSUM_MISMATCH; OC_CHECKSUM_NONE decodes them.
 */
#define _POSIX_C_SOURCE 200809L
#include <lz4frame.h>

#include "test_shell_util.h"

static oc_context *ctx;

static void check(const unsigned char *comp, size_t cn, const tb_data *d, const char *what)
{
    unsigned char *out = (unsigned char *)tb_xmalloc(d->n);
    uint64_t got = 0;
    oc_buffer_options init = OC_BUFFER_OPTIONS_INIT, none = OC_BUFFER_OPTIONS_INIT;
    none.checksum = OC_CHECKSUM_NONE;
    oc_status a = oc_buffer_decompress(ctx, NULL, comp, cn, out, d->n, &got, NULL);
    oc_status b = oc_buffer_decompress(ctx, &init, comp, cn, out, d->n, &got, NULL);
    if (a != OC_ERR_CHECKSUM_MISMATCH || b != OC_ERR_CHECKSUM_MISMATCH) {
        fprintf(stderr, "%s: hint NULL %s, INIT %s; want CHECKSUM_MISMATCH\n", what, oc_status_name(a),
                oc_status_name(b));
        tb_failures++;
    }
    CHECK_ST(oc_buffer_decompress(ctx, &none, comp, cn, out, d->n, &got, NULL), OC_OK);
    CHECK(got == d->n && memcmp(out, d->p, d->n) == 0);
    free(out);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/oc_cksdef_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    tb_data d = tb_text(100000);
    write_file("in.bin", d.p, d.n);
    /* cramjam's snappy framing, the CRC of the first chunk flipped */
    CHECK(run("cd %s && python3 -c \"import cramjam; b = bytearray(cramjam.snappy.compress(open('in.bin', "
              "'rb').read())); b[14] ^= 1; open('bad.sz', 'wb').write(b)\"",
              dir) == 0);
    size_t cn;
    unsigned char *comp = read_file("bad.sz", &cn);
    check(comp, cn, &d, "snappy framing, bad CRC-32C");
    free(comp);
    /* liblz4: content checksum only, its last byte flipped */
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
    size_t cap = LZ4F_compressFrameBound(d.n, &prefs);
    comp = (unsigned char *)tb_xmalloc(cap);
    cn = LZ4F_compressFrame(comp, cap, d.p, d.n, &prefs);
    CHECK(!LZ4F_isError(cn));
    comp[cn - 1] ^= 1;
    check(comp, cn, &d, "LZ4 frame, bad content checksum");
    free(comp);
    free(d.p);
    oc_context_destroy(ctx);
    run("rm -rf %s", dir);
    printf("test_checksum_defaults: %d failures\n", tb_failures);
    return tb_failures != 0;
}
