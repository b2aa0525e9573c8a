/*
 * blosc_run.h - the Blosc rows of the GPU benchmark (issue 17's targets;
 * `oc_gpu_bench --blosc`, `bench/gpu/full-scale --blosc`): Blosc chunks as
 * numcodecs writes them, decoded at full scale by
 *   - opencomp's GPU Blosc decoder (oc_batch_decompress, CUDA engine);
 *   - the plain GPU decoders (opencomp's, and nvCOMP's when built in) on
 *     exactly the compressed split streams those chunks hold;
 *   - c-blosc on the host's cores, two ways: libblosc's own threads over
 *     one chunk at a time (blosc_decompress_ctx with numinternalthreads =
 *     threads: what numcodecs does), and opencomp's CPU engine (libblosc
 *     per chunk, one chunk per thread);
 * all on the same bytes, every output verified.  bench/README.md ("Blosc
 * at full scale") says how to run and read it.
 */
#ifndef OC_BENCH_BLOSC_RUN_H
#define OC_BENCH_BLOSC_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "contender.h"
#include "ladder_run.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ocb_blosc_opts {
    const char *const *cnames; /* inner codecs (c-blosc's names: lz4, zstd, ...) */
    size_t ncnames;
    const uint64_t *chunks; /* Blosc chunk sizes */
    size_t nchunks;
    uint64_t batch_bytes;            /* bytes per call */
    int clevel;                      /* c-blosc's clevel (5: numcodecs' default) */
    const ocb_contender *const *gpu; /* usable GPU contenders; none: the CPU side only (a dry run) */
    size_t ngpu;
    int threads; /* host threads of the CPU contenders */
    /* the files: grouped by the typesize their suffix names (blosc_streams.h) */
    size_t nfiles;
    const char *const *names;
    const uint8_t *const *data;
    const uint64_t *sizes;
} ocb_blosc_opts;

/* Every case (typesize group x chunk size x inner codec x shuffle,
 * bitshuffle): rows, skips and failures go to the sink. */
void ocb_blosc_run(ocb_sink *sink, const ocb_blosc_opts *o);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_BLOSC_RUN_H */
