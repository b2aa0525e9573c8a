/*
 * test_interop_lz4_frames.c - files of the stock `lz4` command that opencomp
 * refused, decoded through the whole-buffer API (size query, decode, one
 * byte too little room), against the command's own input.
 *
 * Regressions pinned here (issue 11):
 *   - item 4: frames without a content size whose decoded size is a multiple
 *     of 64 KiB (the command's default output) were TRUNCATED for the size
 *     query: `lz4` output of every size k * 64 KiB + {-1, 0, 1} for several
 *     k, with the options people use (default, -BD, --content-size, -B4
 *     without frame checksum, -B5 -BX).
 *   - item 7: a skippable frame before the first frame, or between frames
 *     (lz4's test-lz4-skippable.sh), was CORRUPT; the legacy format
 *     (`lz4 -l`) was refused with a message that did not name it.
 */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <string.h>

#include "test_shell_util.h"

static oc_context *ctx;

/* Real text, repeated to exactly n bytes. */
static tb_data text_of(size_t n)
{
    tb_data t = tb_text(n), d = {"text", (unsigned char *)tb_xmalloc(n), n};
    for (size_t i = 0; i < n; i += t.n)
        memcpy(d.p + i, t.p, n - i < t.n ? n - i : t.n);
    free(t.p);
    return d;
}

/* stock.bin (made from in.bin by `make`) must decode to in.bin's n bytes. */
static void check_stock(const tb_data *d, size_t n, const char *make, const char *want_container)
{
    write_file("in.bin", d->p, n);
    if (run("cd %s && %s", dir, make) != 0) {
        tb_failures++;
        return;
    }
    size_t cn;
    unsigned char *comp = read_file("stock.bin", &cn);
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_ST(oc_buffer_inspect(comp, cn, NULL, &info), OC_OK);
    if (!info.container || strcmp(info.container, want_container) != 0) {
        fprintf(stderr, "%s (%zu bytes): container %s, want %s\n", make, n,
                info.container ? info.container : "-", want_container);
        tb_failures++;
    }
    uint64_t size = 0;
    oc_status st = oc_buffer_decompressed_size(ctx, NULL, comp, cn, &size);
    if (st != OC_OK || size != n) {
        fprintf(stderr, "%s (%zu bytes): size query %s, %llu\n", make, n, oc_status_name(st),
                (unsigned long long)size);
        tb_failures++;
    }
    unsigned char *out = (unsigned char *)tb_xmalloc(n);
    uint64_t got = 0;
    st = oc_buffer_decompress(ctx, NULL, comp, cn, n ? out : NULL, n, &got, NULL);
    if (st != OC_OK || got != n || (n && memcmp(out, d->p, n) != 0)) {
        fprintf(stderr, "%s (%zu bytes): decode %s, %llu bytes\n", make, n, oc_status_name(st),
                (unsigned long long)got);
        tb_failures++;
    }
    if (n > 0)
        CHECK_ST(oc_buffer_decompress(ctx, NULL, comp, cn, out, n - 1, &got, NULL), OC_ERR_OUTPUT_TOO_SMALL);
    free(out);
    free(comp);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/oc_lz4frames_XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    tb_data text = text_of(20 * 65536 + 8);
    static const char *opts[] = {"", "-BD", "--content-size", "-B4 --no-frame-crc", "-B5 -BX"};
    static const size_t ks[] = {1, 2, 3, 4, 16};
    int cases = 0;
    char make[256];
    for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
        for (int d = -1; d <= 1; d++) {
            size_t n = ks[ki] * 65536 + (size_t)(long)d;
            for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++, cases++) {
                snprintf(make, sizeof make, "lz4 -q -f %s -c in.bin > stock.bin", opts[o]);
                check_stock(&text, n, make, "lz4-frame");
            }
            check_stock(&text, n, "lz4 -q -f -l -c in.bin > stock.bin", "lz4-legacy");
            cases++;
        }
    }
    /* zeros: 64 KiB exactly, the example (head -c 65536 /dev/zero | lz4) */
    tb_data zeros = {"zeros", (unsigned char *)calloc(65536, 1), 65536};
    check_stock(&zeros, 65536, "lz4 -q -f -c in.bin > stock.bin", "lz4-frame");
    free(zeros.p);
    /* legacy: empty input, and more than one 8 MiB block */
    check_stock(&text, 0, "lz4 -q -f -l -c in.bin > stock.bin", "lz4-legacy");
    tb_data big = text_of(9 << 20);
    check_stock(&big, big.n, "lz4 -q -f -l -c in.bin > stock.bin", "lz4-legacy");
    /* two legacy frames one after the other (cat), as the command reads them */
    write_file("big.bin", big.p, big.n);
    check_stock(&big, big.n,
                "head -c 100000 big.bin > a && tail -c +100001 big.bin > b && lz4 -q -f -l -c a > a.lz4 && "
                "lz4 -q -f -l -c b > b.lz4 && cat a.lz4 b.lz4 > stock.bin && cp big.bin in.bin",
                "lz4-legacy");
    /* skippable frames (magic 0x184D2A50..5F) before and between frames */
    static const char skip[] = "printf '\\120\\052\\115\\030\\004\\000\\000\\000abcd'";
    static const char skip0[] = "printf '\\137\\052\\115\\030\\000\\000\\000\\000'";
    snprintf(make, sizeof make, "(%s; lz4 -q -c in.bin) > stock.bin", skip);
    check_stock(&text, 70000, make, "lz4-frame");
    snprintf(make, sizeof make, "(%s; lz4 -q -c -BD in.bin) > stock.bin", skip0);
    check_stock(&text, 65536, make, "lz4-frame");
    snprintf(make, sizeof make,
             "head -c 5000 in.bin > a && tail -c +5001 in.bin > b && (%s; lz4 -q -c a; %s; %s; lz4 -q -c "
             "--content-size b) > stock.bin",
             skip, skip0, skip);
    check_stock(&text, 131072, make, "lz4-frame");
    snprintf(make, sizeof make, "(%s; lz4 -q -l -c in.bin) > stock.bin", skip);
    check_stock(&text, 70000, make, "lz4-legacy");
    cases += 8;
    /* the stock command agrees on the skippable files */
    CHECK(run("cd %s && lz4 -d -c stock.bin | cmp -s - in.bin", dir) == 0);
    free(text.p);
    free(big.p);
    oc_context_destroy(ctx);
    run("rm -rf %s", dir);
    printf("test_interop_lz4_frames: %d stock lz4 files, %d failures\n", cases, tb_failures);
    return tb_failures != 0;
}
