/*
 * test_container_seeds.c - replays the fuzz seeds (fuzz/seeds/) without
 * libFuzzer, so every build (and the ASan suite) runs them: each seed of
 * the container and whole-buffer targets is a valid file (ours or a stock
 * tool's), so it must inspect and decode OK, to the size that
 * oc_buffer_decompressed_size reports; the RAW/WITH_UNCOMPRESSED_SIZE seeds
 * carry their hint in the first byte, as fuzz_buffer_raw.c reads it, and
 * the Blosc seeds (libblosc's and numcodecs' chunks) a first byte that
 * fuzz_container_blosc.c reads, before a RAW Blosc chunk.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>

#include "test_buffer_util.h"

static oc_context *ctx;
static int seeds;

/* raw: 1 the first byte picks the hint (fuzz_buffer_raw), 2 the first byte
 * is fuzz_container_blosc's and the rest a Blosc chunk (RAW Blosc hint). */
static void replay(const char *dir, const char *file, int raw)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fuzz/seeds/%s/%s", OC_SOURCE_DIR, dir, file);
    unsigned char *buf = NULL;
    size_t n = 0;
    tb_append_file(&buf, &n, path, (size_t)1 << 20);
    unsigned char *in = tb_copy(buf ? buf : (unsigned char *)"", n);
    free(buf);
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    const unsigned char *s = in;
    size_t sn = n;
    if (raw) {
        CHECK(n >= 1);
        hint.algorithm = raw == 2 ? OC_ALGO_BLOSC : (oc_algorithm)(1 + (in[0] & 7) % 6);
        hint.kind = raw == 1 && (in[0] & 8) ? OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE : OC_BITSTREAM_RAW;
        s = in + 1;
        sn = n - 1;
    }
    uint64_t size = 0, got = 0;
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    oc_status st1 = oc_buffer_inspect(s, sn, &hint, &info);
    oc_status st2 = oc_buffer_decompressed_size(ctx, &hint, s, sn, &size);
    unsigned char *out = (unsigned char *)tb_xmalloc((size_t)size);
    oc_status st3 = st2 == OC_OK ? oc_buffer_decompress(ctx, &hint, s, sn, out, size, &got, NULL) : st2;
    if (st1 != OC_OK || st2 != OC_OK || st3 != OC_OK || got != size || size == 0) {
        fprintf(stderr, "seed %s/%s: inspect %s, size %s (%llu), decode %s (%llu)\n", dir, file,
                oc_status_name(st1), oc_status_name(st2), (unsigned long long)size, oc_status_name(st3),
                (unsigned long long)got);
        tb_failures++;
    }
    free(out);
    free(in);
    seeds++;
}

int main(void)
{
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    static const char *dirs[] = {"buffer_decompress", "container_lz4", "container_zstd", "container_gzip",
                                 "container_snappy",  "buffer_raw",    "container_blosc"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/fuzz/seeds/%s", OC_SOURCE_DIR, dirs[i]);
        DIR *d = opendir(path);
        CHECK(d != NULL);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d)) != NULL)
            if (e->d_name[0] != '.')
                replay(dirs[i], e->d_name, i == 5 ? 1 : i == 6 ? 2 : 0);
        closedir(d);
    }
    CHECK(seeds >= 30);
    printf("%d seeds replayed\n", seeds);
    oc_context_destroy(ctx);
    return tb_finish("test_container_seeds");
}
