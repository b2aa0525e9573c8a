/*
 * zstd_copy_words_check.c - the host check of zstd_dec_copy_words.h's three copies (issue 16,
 * bench/gpu/zstd/NOTES.md "Run 10"), compiled with one lane: every source and destination alignment
 * (0-7), lengths 0-100, each copy against memcpy or the byte rule of a match (out[i] = out[i - off]),
 * and matches overlapping themselves (off 1-39).  Guard bytes around the destination catch a write
 * outside it; ASan (make check-zstd-words) a read outside the source.  Exit 0 only if all agree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/portable.h"
#include "zstd_dec_copy_words.h"

static void fill(uint8_t *a, size_t n, unsigned mul, unsigned add)
{
    for (size_t i = 0; i < n; i++)
        a[i] = (uint8_t)(i * mul + add);
}

int main(void)
{
    enum { N = 256 };
    long bad = 0, n = 0;
    for (uint32_t so = 0; so < 8; so++)
        for (uint32_t dof = 0; dof < 8; dof++)
            for (uint32_t len = 0; len <= 100; len++)
                for (int fn = 0; fn < 3; fn++) {
                    /* exactly len source bytes in their own allocation: ASan sees any read past them */
                    uint8_t *src = malloc(len + 1), dst[N], ref[N];
                    if (!src)
                        return 2;
                    fill(src, len + 1, 7, so + 1);
                    fill(dst, N, 13, 5);
                    memcpy(ref, dst, N);
                    if (fn == 0) {
                        memcpy(ref + 64 + dof, src, len);
                        zd_copy_lane(dst + 64 + dof, src, len);
                    } else if (fn == 1) {
                        memcpy(ref + 64 + dof, src, len);
                        zd_copy(dst + 64 + dof, src, len);
                    } else { /* a match from so + 8 .. in the same buffer, not overlapping itself */
                        size_t off = 64 + dof - (so + 8);
                        if (off < len)
                            off = len > 64 + dof ? 64 + dof : len; /* may overlap itself when len > 64 + dof */
                        for (uint32_t i = 0; i < len; i++)
                            ref[64 + dof + i] = ref[64 + dof + i - off];
                        zd_match(dst + 64 + dof, off, len);
                    }
                    free(src);
                    n++;
                    if (memcmp(dst, ref, N) != 0 && ++bad < 5)
                        printf("differs: source %u, destination %u, length %u, copy %d\n", so, dof, len, fn);
                }
    for (size_t off = 1; off < 40; off++)
        for (uint32_t len = 1; len < 100; len++) {
            uint8_t dst[N], ref[N];
            fill(dst, N, 13, 5);
            memcpy(ref, dst, N);
            for (uint32_t i = 0; i < len; i++)
                ref[100 + i] = ref[100 + i - off];
            zd_match(dst + 100, off, len);
            n++;
            if (memcmp(dst, ref, N) != 0 && ++bad < 10)
                printf("differs: match offset %zu, length %u\n", off, len);
        }
    printf("zstd_copy_words_check: %ld cases, %ld differ\n", n, bad);
    return bad != 0;
}
