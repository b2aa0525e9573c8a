/*
 * test_batch_threads.c - the thread pool under churn: hundreds of batches
 * of random sizes (0, 1 - run inline - up to more chunks than threads) on
 * contexts of 1, 2 and 7 threads, mixing the algorithms of the table so every worker's codec
 * state is created, reused and switched; several contexts alive at once.
 * Every batch is checked byte for byte.  Guards against lost items, items
 * run twice, workers sharing state, and hangs at the end of a run.
 */
#include <string.h>

#include "helpers/algo_list.h"
#include "helpers/batch_util.h"

int main(void)
{
    static const int threads[] = {1, 2, 7};
    ta_list algos;
    ta_algorithms(&algos);
    oc_context *ctx[3];
    for (int t = 0; t < 3; t++) {
        oc_context_options o = OC_CONTEXT_OPTIONS_INIT;
        o.num_threads = threads[t];
        CHECK_OK(oc_context_create(&o, &ctx[t]));
    }
    tu_buf src;
    tu_corpus_get("source", 0, &src);
    tu_rng rng;
    tu_rng_seed(&rng, 5);
    int batches = 0;
    for (int round = 0; round < 300; round++, batches++) {
        oc_context *cx = ctx[tu_rng_below(&rng, 3)];
        oc_algorithm algo = algos.info[tu_rng_below(&rng, algos.n)].algorithm;
        size_t chunk = 1 + tu_rng_below(&rng, 700);
        size_t nchunks = tu_rng_below(&rng, 40);
        size_t len = chunk * nchunks;
        if (len > src.size)
            len = src.size;
        tu_chunks c;
        tu_chunks_split(&c, src.data, len, chunk);
        tu_chunks_compress(&c, cx, algo, 0);
        tu_chunks_check_decode(&c, ctx[tu_rng_below(&rng, 3)], algo); /* decode on any context */
        tu_chunks_free(&c);
    }
    /* A context destroyed right after its pool started, and one never used. */
    oc_context *tmp;
    oc_context_options o = OC_CONTEXT_OPTIONS_INIT;
    o.num_threads = 5;
    CHECK_OK(oc_context_create(&o, &tmp));
    oc_context_destroy(tmp);
    CHECK_OK(oc_context_create(&o, &tmp));
    tu_chunks c;
    tu_chunks_split(&c, src.data, src.size, 512);
    tu_chunks_compress(&c, tmp, OC_ALGO_ZSTD, 1);
    oc_context_destroy(tmp);
    tu_chunks_free(&c);

    for (int t = 0; t < 3; t++)
        oc_context_destroy(ctx[t]);
    tu_buf_free(&src);
    printf("test_batch_threads: %d batches OK\n", batches);
    return 0;
}
