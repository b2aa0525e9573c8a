/*
 * blosc_filter_blocks.c - writes a file as Blosc's inner codec sees it: cut
 * into blocks, each byte-shuffled or bitshuffled on its own (the library's
 * filters, src/common/shuffle.h).  It exists so that the zstd encoder's dev
 * harness (zstd_enc_phases) can time the inner encoder on the streams a Blosc
 * zstd chunk holds (one stream a block: c-blosc never splits zstd blocks)
 * without the Blosc layer around it (bench/gpu/blosc/NOTES.md, session 8).
 *
 * Usage: blosc_filter_blocks MODE TYPESIZE BLOCK IN OUT
 *   MODE 1 byte shuffle, 2 bitshuffle; BLOCK bytes a block (Blosc's block
 *   size, 262144 for zstd at clevel 5 on 4 MiB chunks); a short last block is
 *   filtered as c-blosc does (whole elements, bitshuffle only of a multiple
 *   of 8 elements; the rest copied).
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/shuffle.h"

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: %s MODE TYPESIZE BLOCK IN OUT\n", argv[0]);
        return 2;
    }
    int mode = atoi(argv[1]);
    long ts = atol(argv[2]), block = atol(argv[3]);
    if ((mode != 1 && mode != 2) || ts < 1 || ts > 255 || block < 1) {
        fprintf(stderr, "bad MODE, TYPESIZE or BLOCK\n");
        return 2;
    }
    FILE *in = fopen(argv[4], "rb"), *out = fopen(argv[5], "wb");
    uint8_t *a = malloc((size_t)block), *b = malloc((size_t)block);
    if (!in || !out || !a || !b) {
        fprintf(stderr, "cannot open %s or %s\n", argv[4], argv[5]);
        return 1;
    }
    size_t n, total = 0;
    while ((n = fread(a, 1, (size_t)block, in)) > 0) {
        oc_filter_buffer(b, a, n, (uint32_t)ts, mode, 0);
        if (fwrite(b, 1, n, out) != n) {
            fprintf(stderr, "write failed\n");
            return 1;
        }
        total += n;
    }
    fclose(in);
    if (fclose(out) != 0)
        return 1;
    printf("%s: %zu bytes, mode %d, typesize %ld, blocks of %ld\n", argv[5], total, mode, ts, block);
    free(a);
    free(b);
    return 0;
}
