/*
 * test_gzip_trailing.c - gzip data followed by bytes that begin no member,
 * as `gzip -d` reads them.
 *
 * Regression pinned here (issue 11 item 9): a gzip file followed by zero
 * padding or trailing garbage was CORRUPT as a whole.  Now:
 *   - the whole-buffer layer decodes the members (stock gzip files, one or
 *     several members, and ours with our index), whatever follows, and
 *     oc_buffer_inspect's compressed_size says where the gzip data ends
 *     (the CLI warns from it);
 *   - the batched layer (a chunk is exactly its stream) takes zero padding,
 *     as Python's gzip does, and refuses garbage (CORRUPT);
 *   - a member whose magic number was damaged is not garbage: CORRUPT, the
 *     members after it never silently dropped.
 * `gzip -d` and Python's gzip give the same bytes where they accept.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_shell_util.h"

static oc_context *ctx;

/* file stock.bin must decode (whole-buffer layer) to in.bin's bytes, and
 * inspect must say the gzip data is `data_end` bytes long. */
static void whole(const tb_data *d, size_t data_end, const char *what)
{
    size_t cn;
    unsigned char *comp = read_file("stock.bin", &cn);
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_ST(oc_buffer_inspect(comp, cn, NULL, &info), OC_OK);
    if (info.compressed_size != data_end || !info.size_known || info.decompressed_size != d->n) {
        fprintf(stderr, "%s: inspect says %llu bytes of gzip data (want %zu), size %llu (%d)\n", what,
                (unsigned long long)info.compressed_size, data_end, (unsigned long long)info.decompressed_size,
                info.size_known);
        tb_failures++;
    }
    uint64_t size = 0, got = 0;
    CHECK_ST(oc_buffer_decompressed_size(ctx, NULL, comp, cn, &size), OC_OK);
    CHECK(size == d->n);
    unsigned char *out = (unsigned char *)tb_xmalloc(d->n);
    oc_status st = oc_buffer_decompress(ctx, NULL, comp, cn, out, d->n, &got, NULL);
    if (st != OC_OK || got != d->n || memcmp(out, d->p, d->n) != 0) {
        fprintf(stderr, "%s: %s, %llu bytes\n", what, oc_status_name(st), (unsigned long long)got);
        tb_failures++;
    }
    free(out);
    free(comp);
}

static oc_status batch(const char *file)
{
    size_t cn;
    unsigned char *comp = read_file(file, &cn);
    unsigned char out[1 << 16];
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_GZIP;
    const void *sp = comp;
    void *dp = out;
    size_t cap = sizeof out, got = 0;
    oc_status st = OC_ERR_INTERNAL;
    CHECK_ST(oc_batch_decompress(ctx, &o, 1, &sp, &cn, &dp, &cap, &got, &st), OC_OK);
    free(comp);
    return st;
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/oc_gztrail_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    tb_data d = tb_text(60000);
    write_file("in.bin", d.p, d.n);
    CHECK(run("cd %s && gzip -c in.bin > one.gz && head -c 20000 in.bin | gzip -c > a.gz && tail -c +20001 in.bin "
              "| gzip -c > b.gz && cat a.gz b.gz > two.gz",
              dir) == 0);
    size_t one_n, two_n;
    free(read_file("one.gz", &one_n));
    free(read_file("two.gz", &two_n));
    /* zero padding */
    CHECK(run("cd %s && (cat one.gz; head -c 512 /dev/zero) > stock.bin", dir) == 0);
    whole(&d, one_n, "gzip + 512 zero bytes");
    CHECK(run("cd %s && gzip -dc stock.bin | cmp -s - in.bin && python3 -c \"import gzip,sys; "
              "sys.exit(gzip.decompress(open('stock.bin','rb').read()) != open('in.bin','rb').read())\"",
              dir) == 0);
    CHECK_ST(batch("stock.bin"), OC_OK); /* padding: fine in a chunk too */
    /* trailing garbage after one member and after two */
    CHECK(run("cd %s && (cat one.gz; printf 'garbage after the data\\n') > stock.bin", dir) == 0);
    whole(&d, one_n, "gzip + garbage");
    CHECK(run("cd %s && gzip -dc stock.bin 2>/dev/null | cmp -s - in.bin", dir) == 0);
    CHECK_ST(batch("stock.bin"), OC_ERR_CORRUPT);
    CHECK(run("cd %s && (cat two.gz; head -c 100 /dev/zero; printf 'xyz') > stock.bin", dir) == 0);
    whole(&d, two_n, "two members + zeros + garbage");
    /* ours (indexed members) + garbage */
    oc_buffer_options bo = OC_BUFFER_OPTIONS_INIT;
    bo.algorithm = OC_ALGO_GZIP;
    bo.chunk_size = 8192;
    uint64_t cb = oc_buffer_compress_bound(&bo, d.n), clen = 0;
    unsigned char *ours = (unsigned char *)tb_xmalloc(cb + 16);
    CHECK_ST(oc_buffer_compress(ctx, &bo, d.p, d.n, ours, cb, &clen), OC_OK);
    memcpy(ours + clen, "\nJUNK", 5);
    write_file("stock.bin", ours, clen + 5);
    whole(&d, clen, "ours + garbage");
    /* a damaged magic number in the third member is not garbage */
    size_t m3 = 0;
    for (size_t i = 1, seen = 0; i + 2 < clen; i++)
        if (ours[i] == 0x1f && ours[i + 1] == 0x8b && ours[i + 2] == 8 && ++seen == 2) {
            m3 = i;
            break;
        }
    CHECK(m3 > 0);
    ours[m3 + 1] ^= 0x40;
    unsigned char *out = (unsigned char *)tb_xmalloc(d.n);
    uint64_t got = 0;
    CHECK_ST(oc_buffer_decompress(ctx, NULL, ours, clen, out, d.n, &got, NULL), OC_ERR_CORRUPT);
    /* and in a stock file: a second member whose first byte was damaged */
    CHECK(run("cd %s && (cat one.gz; cat a.gz | python3 -c \"import sys; b=bytearray(sys.stdin.buffer.read()); "
              "b[0]^=1; sys.stdout.buffer.write(b)\") > stock.bin",
              dir) == 0);
    size_t sn;
    unsigned char *s = read_file("stock.bin", &sn);
    unsigned char *big = (unsigned char *)tb_xmalloc(2 * d.n);
    CHECK_ST(oc_buffer_decompress(ctx, NULL, s, sn, big, 2 * d.n, &got, NULL), OC_ERR_CORRUPT);
    free(s);
    free(big);
    free(out);
    free(ours);
    free(d.p);
    oc_context_destroy(ctx);
    run("rm -rf %s", dir);
    printf("test_gzip_trailing: %d failures\n", tb_failures);
    return tb_failures != 0;
}
