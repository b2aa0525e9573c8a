/*
 * zstd_copy_words_check.c - the host check of zstd_dec_copy_words.h's three copies (issue 16,
 * bench/gpu/zstd/NOTES.md "Run 10"; the variant lost its GPU A/B), compiled with one lane beside the
 * library's byte copies (src/cuda/codecs/zstd/zstd_dec_block.h): every source and destination
 * alignment (0-7), lengths 0-100, each copy against memcpy or the byte rule of a match (out[i] =
 * out[i - off]), and matches overlapping themselves (off 1-39); both must give the reference.  Bytes
 * around the destination catch a write outside it; the source ends its allocation, so ASan (make
 * check-zstd-words) catches a read past it.  Exit 0 only if all agree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/codecs/zstd/zstd_decode_core.h"

/* the word copies under other names, beside the library's byte copies */
#define zd_copy zdw_copy
#define zd_match zdw_match
#define zd_copy_lane zdw_copy_lane
#include "zstd_dec_copy_words.h"
#undef zd_copy
#undef zd_match
#undef zd_copy_lane

enum { N = 256 };

static void fill(uint8_t *a, size_t n, unsigned mul, unsigned add)
{
    for (size_t i = 0; i < n; i++)
        a[i] = (uint8_t)(i * mul + add);
}

/* copy fn (0 lane, 1 warp, 2 match) of len bytes from source alignment so to destination alignment
 * dof, words and bytes; 0 if both give the reference */
static int one_case(uint32_t so, uint32_t dof, uint32_t len, int fn)
{
    uint8_t *blk = malloc(so + len ? so + len : 1), dst[N], byt[N], ref[N];
    if (!blk)
        exit(2);
    uint8_t *src = blk + so;
    fill(blk, so + len, 7, so + 1);
    fill(dst, N, 13, 5);
    memcpy(ref, dst, N);
    memcpy(byt, dst, N);
    if (fn == 0) {
        memcpy(ref + 64 + dof, src, len);
        zdw_copy_lane(dst + 64 + dof, src, len);
        zd_copy_lane(byt + 64 + dof, src, len);
    } else if (fn == 1) {
        memcpy(ref + 64 + dof, src, len);
        zdw_copy(dst + 64 + dof, src, len);
        zd_copy(byt + 64 + dof, src, len);
    } else { /* a match inside the buffer, from so + 8 (overlapping itself when len > 64 + dof) */
        size_t off = 64 + dof - (so + 8);
        if (off < len)
            off = len > 64 + dof ? 64 + dof : len;
        for (uint32_t i = 0; i < len; i++)
            ref[64 + dof + i] = ref[64 + dof + i - off];
        zdw_match(dst + 64 + dof, off, len);
        zd_match(byt + 64 + dof, off, len);
    }
    free(blk);
    return memcmp(dst, ref, N) != 0 || memcmp(byt, ref, N) != 0;
}

int main(void)
{
    long bad = 0, n = 0;
    for (uint32_t so = 0; so < 8; so++)
        for (uint32_t dof = 0; dof < 8; dof++)
            for (uint32_t len = 0; len <= 100; len++)
                for (int fn = 0; fn < 3; fn++) {
                    n++;
                    if (one_case(so, dof, len, fn) && ++bad < 5)
                        printf("differs: source %u, destination %u, length %u, copy %d\n", so, dof, len, fn);
                }
    for (size_t off = 1; off < 40; off++)
        for (uint32_t len = 1; len < 100; len++) {
            uint8_t dst[N], byt[N], ref[N];
            fill(dst, N, 13, 5);
            memcpy(ref, dst, N);
            memcpy(byt, dst, N);
            for (uint32_t i = 0; i < len; i++)
                ref[100 + i] = ref[100 + i - off];
            zdw_match(dst + 100, off, len);
            zd_match(byt + 100, off, len);
            n++;
            if ((memcmp(dst, ref, N) != 0 || memcmp(byt, ref, N) != 0) && ++bad < 10)
                printf("differs: match offset %zu, length %u\n", off, len);
        }
    printf("zstd_copy_words_check: %ld cases, %ld differ\n", n, bad);
    return bad != 0;
}
