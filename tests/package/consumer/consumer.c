/*
 * consumer.c - a user's program against an installed opencomp
 * (tests/package/test_install.sh): the header and library found through
 * find_package or pkg-config, the linked library's version equal to the
 * header's, and a zstd NATIVE round trip of real bytes.  Prints "ok".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencomp.h>

int main(void)
{
    if (oc_version_number() != OC_VERSION_NUMBER) {
        fprintf(stderr, "header %u, library %u\n", (unsigned)OC_VERSION_NUMBER, oc_version_number());
        return 1;
    }
    size_t n = 1 << 20;
    unsigned char *src = malloc(n), *back = malloc(n);
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)("opencomp consumer "[i % 18] + (i >> 16));
    oc_context *ctx = NULL;
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    oc_buffer_options bo = OC_BUFFER_OPTIONS_INIT;
    bo.algorithm = OC_ALGO_ZSTD;
    size_t bound = oc_buffer_compress_bound(&bo, n);
    unsigned char *dst = malloc(bound);
    uint64_t csize = 0, dsize = 0;
    if (!src || !back || !dst || oc_context_create(&co, &ctx) != OC_OK ||
        oc_buffer_compress(ctx, &bo, src, n, dst, bound, &csize) != OC_OK ||
        oc_buffer_decompress(ctx, NULL, dst, csize, back, n, &dsize, NULL) != OC_OK || dsize != n ||
        memcmp(src, back, n) != 0) {
        fprintf(stderr, "round trip failed\n");
        return 1;
    }
    oc_context_destroy(ctx);
    printf("ok %s %llu -> %llu\n", oc_version_string(), (unsigned long long)n, (unsigned long long)csize);
    free(src);
    free(back);
    free(dst);
    return 0;
}
