/*
 * zstd_cli_frames.h - the single-frame rows of the GPU benchmark (issue 6):
 * whole files the stock zstd CLI wrote (`zstd -3 FILE`, `zstd -19 FILE`: one
 * frame, 128 KiB blocks, content size and checksum), each decoded as one
 * chunk by every GPU contender and by libzstd on one thread, the output
 * verified.  bench/gpu/make-zstd-frames writes the frames as
 * DIR/<file name>.l<level>.zst.
 *
 * One GPU decode of a whole frame runs on one warp and takes seconds, so
 * each contender gets `budget_s` seconds for all its frames (smallest file
 * first); a decode whose estimated time does not fit is skipped and named.
 */
#ifndef OC_BENCH_ZSTD_CLI_FRAMES_H
#define OC_BENCH_ZSTD_CLI_FRAMES_H

#include <stddef.h>

#include "ladder_run.h"

#ifdef __cplusplus
extern "C" {
#endif

void ocb_frames_run(ocb_sink *sink, const ocb_contender *const *contenders, size_t ncontenders,
                    const char *const *paths, size_t npaths, const char *dir, const int *levels,
                    size_t nlevels, double budget_s);

/* Blocks in the zstd frames of buf (skippable frames skipped, RFC 8878
 * section 3.1); -1 if the walk does not end exactly at the end. */
long ocb_zstd_count_blocks(const unsigned char *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_ZSTD_CLI_FRAMES_H */
