/*
 * test_batch_roundtrip.c - every algorithm x several levels x chunk sizes
 * (1 B, 1000 B, 64 KiB, 1 MiB and sizes that do not divide the input) on
 * real files, a numeric column, incompressible and all-zero data, with 1, 2
 * and 7 threads: compressed with oc_batch_compress, decoded into slices of
 * one guarded buffer, sizes queried with oc_batch_decompressed_sizes.
 * Guards against: wrong sizes, overruns between slices, per-worker state
 * mix-ups across threads, level handling.
 */
#include "helpers/batch_util.h"

typedef struct algo_levels {
    oc_algorithm algo;
    int levels[6];
    int nlevels;
} algo_levels;

static const algo_levels all_levels[] = {
    {OC_ALGO_LZ4, {0, 1, -5, 2, 9, 12}, 6}, {OC_ALGO_SNAPPY, {0}, 1},
    {OC_ALGO_DEFLATE, {0, 1, 6, 12}, 4},    {OC_ALGO_ZLIB, {0, 1, 9}, 3},
    {OC_ALGO_GZIP, {0, 1, 12}, 3},          {OC_ALGO_ZSTD, {0, 1, -7, -1, 19, 22}, 6},
};

static void roundtrip(oc_context *ctx, const tu_buf *data, oc_algorithm algo, int level, size_t chunk_size)
{
    tu_chunks c;
    tu_chunks_split(&c, data->data, data->size, chunk_size);
    tu_chunks_compress(&c, ctx, algo, level);
    tu_chunks_check_decode(&c, ctx, algo);
    tu_chunks_free(&c);
}

/* Slow levels (LZ4HC, zstd >= 19, deflate 12) on less data. */
static size_t data_limit(oc_algorithm algo, int level)
{
    if ((algo == OC_ALGO_ZSTD && level >= 19) || (algo == OC_ALGO_LZ4 && level >= 9) ||
        (algo != OC_ALGO_ZSTD && algo != OC_ALGO_LZ4 && level >= 9))
        return 80000;
    return 1100000;
}

int main(void)
{
    tu_buf corpus[TU_CORPUS_MAX];
    size_t ncorpus = tu_corpus(corpus, TU_CORPUS_MAX, 1100000);
    static const size_t chunk_sizes[] = {1000, 65536, 1 << 20, 65536 + 1234, 77777};
    static const int threads[] = {1, 2, 7};
    oc_context *ctx[3];
    for (int t = 0; t < 3; t++) {
        oc_context_options opts = OC_CONTEXT_OPTIONS_INIT;
        opts.num_threads = threads[t];
        CHECK_OK(oc_context_create(&opts, &ctx[t]));
        CHECK_EQ(oc_context_num_threads(ctx[t]), threads[t]);
    }

    int combos = 0;
    for (size_t a = 0; a < sizeof(all_levels) / sizeof(all_levels[0]); a++) {
        const algo_levels *al = &all_levels[a];
        for (int l = 0; l < al->nlevels; l++) {
            int level = al->levels[l];
            size_t limit = data_limit(al->algo, level);
            for (size_t d = 0; d < ncorpus; d++) {
                tu_buf part = corpus[d];
                if (part.size > limit)
                    part.size = limit;
                for (size_t s = 0; s < sizeof(chunk_sizes) / sizeof(chunk_sizes[0]); s++) {
                    oc_context *cx = ctx[(a + l + d + s) % 3]; /* every thread count sees every algorithm */
                    roundtrip(cx, &part, al->algo, level, chunk_sizes[s]);
                    combos++;
                }
            }
            /* Tiny inputs: empty, 1 byte, and 1-byte chunks of a short text. */
            tu_buf empty = {corpus[0].data, 0, "empty"}, one = {corpus[0].data, 1, "one"};
            tu_buf small = {corpus[0].data, 3000, "small"};
            roundtrip(ctx[0], &empty, al->algo, level, 65536);
            roundtrip(ctx[1], &one, al->algo, level, 65536);
            roundtrip(ctx[2], &small, al->algo, level, 1);
        }
    }
    for (int t = 0; t < 3; t++)
        oc_context_destroy(ctx[t]);
    for (size_t d = 0; d < ncorpus; d++)
        tu_buf_free(&corpus[d]);
    printf("test_batch_roundtrip: %d combinations OK\n", combos);
    return 0;
}
