/*
 * zstd_bigframe_sim.c - how much of a Zstandard frame's match execution can
 * run in parallel, measured on real frames on the host (no GPU).
 *
 * Why: issue 14 proposed executing a frame's blocks in parallel, with
 * matches into earlier blocks resolved in rounds or after their sources are
 * written.  Whether that can win depends only on the dependence structure of
 * the frames, which this tool measures with byte-exact readiness (literal
 * bytes are ready at the start; a match's bytes once it has run):
 *   rounds     each round, every block runs, in order, the matches whose
 *              sources are ready (its own bytes as written, other blocks'
 *              as of the round's start): rounds to finish, share left;
 *   wavefront  each block's warp runs its matches in order, one per step,
 *              a match waiting only for its source bytes: steps to finish
 *              against the number of matches (one warp in order);
 *   dataflow   a match runs one step after its last source byte is
 *              written, in any order: the critical path.
 * Frames: libzstd at LEVEL with content size and checksum (zarr's), one per
 * FILE (its first SIZE bytes).  Uses v5's scan, entropy and resolve steps
 * (zstd_dec_blocks.h).  Results: bench/gpu/zstd/NOTES.md "Run 7".
 *
 *   cc -O2 -std=c11 -I include -I src bench/gpu/dev/zstd_bigframe_sim.c -lzstd
 *   ./a.out SIZE LEVEL FILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "zstd_dec_blocks.h"

static zd_tables g_t;

typedef struct {
    uint32_t pos, ml, off, blk;
} match;

/* source bytes of m that precede it: [s0, se) */
static void source(const match *m, uint32_t *s0, uint32_t *se)
{
    *s0 = m->pos - m->off;
    *se = m->ml < m->off ? *s0 + m->ml : m->pos;
}

static void one(const char *path, size_t size, int level)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        printf("%s: cannot read\n", path);
        return;
    }
    uint8_t *data = malloc(size);
    size_t n = fread(data, 1, size, fp);
    fclose(fp);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    size_t zc = ZSTD_compressBound(n);
    uint8_t *z = malloc(zc);
    size_t zn = ZSTD_compress2(c, z, zc, data, n);
    ZSTD_freeCCtx(c);
    zd_bp_frame f;
    if (ZSTD_isError(zn) || !zd_bp_scan(z, zn, n, &f, NULL)) {
        printf("%s: not a multi-block frame\n", path);
        free(data);
        free(z);
        return;
    }
    uint8_t *area = malloc(zd_bp_need(&f) + 16);
    zd_bp_block *blk = (zd_bp_block *)area;
    uint8_t *lits = area + zd_bp_blocks_bytes(&f);
    zd_bp_seq *seqs = (zd_bp_seq *)(lits + ((f.lit_total + 15) & ~(uint64_t)15));
    zd_bp_scan(z, zn, n, &f, blk);
    for (uint32_t i = 0; i < f.nb; i++)
        if (blk[i].type == 2)
            zd_bp_entropy(&g_t, z, &f, &blk[i], lits, seqs);
    match *m = malloc(sizeof(match) * (f.nseq_total + 1));
    size_t nm = 0;
    if (!zd_bp_resolve(&f, blk, n)) {
        printf("%s: resolve failed\n", path);
        goto out;
    }
    for (uint32_t i = 0; i < f.nb; i++) {
        const zd_bp_block *b = &blk[i];
        if (b->type != 2)
            continue;
        uint32_t op = b->out;
        for (uint32_t q = 0; q < b->nseq; q++) {
            zd_bp_seq s = seqs[b->seq + q];
            op += s.ll;
            if (s.ml) {
                m[nm].pos = op;
                m[nm].ml = s.ml;
                m[nm].off = zd_bp_rep(s.off, b->init);
                m[nm].blk = i;
                nm++;
            }
            op += s.ml;
        }
    }
    printf("%s, %zu bytes at level %d: %zu matches in %u blocks\n", path, n, level, nm, f.nb);
    {
        /* rounds */
        uint8_t *ready = malloc(n), *start = malloc(n);
        char *done = calloc(nm + 1, 1);
        memset(ready, 1, n);
        for (size_t k = 0; k < nm; k++)
            memset(ready + m[k].pos, 0, m[k].ml);
        size_t left = nm;
        int r = 0;
        printf("  rounds, share left:");
        while (left && r < 4096) {
            memcpy(start, ready, n);
            for (size_t k = 0; k < nm; k++) {
                if (done[k])
                    continue;
                uint32_t s0, se, bs = blk[m[k].blk].out;
                source(&m[k], &s0, &se);
                int ok = 1;
                for (uint32_t p = s0; p < se && ok; p++)
                    ok = p >= bs ? ready[p] : start[p];
                if (ok) {
                    done[k] = 1;
                    left--;
                    memset(ready + m[k].pos, 1, m[k].ml);
                }
            }
            r++;
            if (r <= 4 || (r & (r - 1)) == 0 || !left)
                printf(" %d: %.1f%%", r, 100.0 * (double)left / (double)(nm ? nm : 1));
        }
        printf("; %d rounds\n", r);
        free(ready);
        free(start);
        free(done);
    }
    for (int dataflow = 0; dataflow <= 1; dataflow++) {
        uint32_t *wt = calloc(n, 4), cur = 0, last = (uint32_t)-1, mx = 0;
        for (size_t k = 0; k < nm; k++) {
            if (m[k].blk != last) {
                last = m[k].blk;
                cur = 0;
            }
            uint32_t s0, se, t = dataflow ? 0 : cur;
            source(&m[k], &s0, &se);
            for (uint32_t p = s0; p < se; p++)
                if (wt[p] > t)
                    t = wt[p];
            cur = ++t;
            for (uint32_t p = m[k].pos; p < m[k].pos + m[k].ml; p++)
                wt[p] = t;
            if (t > mx)
                mx = t;
        }
        printf("  %s: %u steps, %.2fx one warp in order\n", dataflow ? "dataflow" : "wavefront", mx,
               (double)nm / (double)(mx ? mx : 1));
        free(wt);
    }
out:
    free(m);
    free(area);
    free(data);
    free(z);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s SIZE LEVEL FILE...\n", argv[0]);
        return 2;
    }
    size_t size = strtoul(argv[1], NULL, 0);
    int level = atoi(argv[2]);
    for (int a = 3; a < argc; a++)
        one(argv[a], size, level);
    return 0;
}
