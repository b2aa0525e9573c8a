/*
 * zstd_batch_deps.c - per batch of 32 sequences (the GPU executors' unit,
 * ZD_SEQ_BATCH), how many matches the executor must run one after another
 * with the whole warp, on real 64 KiB chunks, on the host (no GPU).
 *
 * Why: the executors (zd_exec_matches, zstd_dec_block.h) copy a batch's
 * "independent" matches a lane each and run every other match in order,
 * each by the whole warp with a warp sync after it; whether a better rule
 * or a different schedule could take those off the serial path depends
 * only on the sequences, which this tool measures:
 *   rule       the executors' zd_match_indep is false (source ends after
 *              the batch's start, overlaps itself, or is longer than 32);
 *   exact      the source overlaps the output of an earlier match of the
 *              same batch (a true order dependence inside the batch);
 *   self       the match overlaps itself (offset < length);
 * and the long literal runs (> 32 bytes: whole-warp copies).  Sequences
 * come from libzstd's ZSTD_generateSequences at LEVEL on each 64 KiB chunk
 * of the first 16 MiB of each FILE (what libzstd -LEVEL writes per chunk).
 * Results: bench/gpu/zstd/NOTES.md "Run 8".
 *
 *   cc -O2 -std=c11 bench/gpu/dev/zstd_batch_deps.c -lzstd && ./a.out LEVEL FILE...
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#define CHUNK 65536u
#define BATCH 32u

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s LEVEL FILE...\n", argv[0]);
        return 2;
    }
    int level = atoi(argv[1]);
    for (int a = 2; a < argc; a++) {
        FILE *f = fopen(argv[a], "rb");
        if (!f) {
            fprintf(stderr, "cannot read %s\n", argv[a]);
            return 2;
        }
        size_t max = (size_t)16 << 20;
        unsigned char *buf = malloc(max);
        ZSTD_Sequence *seq = malloc(sizeof(ZSTD_Sequence) * (CHUNK + 16));
        size_t n = fread(buf, 1, max, f);
        fclose(f);
        ZSTD_CCtx *c = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
        unsigned long long nseq = 0, nbatch = 0, rule = 0, exact = 0, self = 0, longlit = 0, chunks = 0;
        for (size_t p = 0; p + CHUNK <= n; p += CHUNK) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            size_t k = ZSTD_generateSequences(c, seq, CHUNK + 16, buf + p, CHUNK);
#pragma GCC diagnostic pop
            if (ZSTD_isError(k)) {
                fprintf(stderr, "%s: %s\n", argv[a], ZSTD_getErrorName(k));
                return 2;
            }
            chunks++;
            unsigned op = 0, bop = 0, j = 0, dbeg[BATCH], dend[BATCH];
            for (size_t i = 0; i < k; i++) {
                ZSTD_Sequence s = seq[i];
                if (s.matchLength == 0) { /* the trailing literals */
                    op += s.litLength;
                    continue;
                }
                if (j == 0)
                    bop = op;
                unsigned mpos = op + s.litLength, off = s.offset, ml = s.matchLength;
                rule += !(ml <= 32 && off >= ml &&
                          (unsigned long long)mpos + ml <= (unsigned long long)bop + off);
                long s0 = (long)mpos - (long)off, s1 = s0 + (long)ml;
                int hit = 0;
                for (unsigned q = 0; q < j; q++)
                    hit |= s0 < (long)dend[q] && s1 > (long)dbeg[q];
                exact += hit;
                self += off < ml;
                longlit += s.litLength > 32;
                dbeg[j] = mpos;
                dend[j] = mpos + ml;
                op = mpos + ml;
                nseq++;
                if (++j == BATCH) {
                    nbatch++;
                    j = 0;
                }
            }
            nbatch += j > 0;
        }
        printf(
            "%s L%d: %llu chunks of 64 KiB, %.0f sequences a chunk; per batch of 32: rule %.2f, exact %.2f, "
            "self %.2f, long literals %.2f\n",
            argv[a], level, chunks, chunks ? (double)nseq / chunks : 0.0,
            nbatch ? (double)rule / nbatch : 0.0, nbatch ? (double)exact / nbatch : 0.0,
            nbatch ? (double)self / nbatch : 0.0, nbatch ? (double)longlit / nbatch : 0.0);
        ZSTD_freeCCtx(c);
        free(buf);
        free(seq);
    }
    return 0;
}
