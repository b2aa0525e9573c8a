/*
 * gpu_codec.h - the interface every GPU codec implements, the CUDA
 * engine's counterpart of src/cpu/cpu_codec.h.  The engine
 * (cuda_engine.cu) reaches codecs only through it: it finds the codec in
 * the algorithm's table row (src/common/algo_table.c), asks for device
 * scratch, and launches a whole batch.
 *
 * One argument order for every launch (dietgpu's GpuANSCodec.h): scratch
 * and resources, config, count, inputs, outputs, output sizes, statuses,
 * stream last.  Every array and every buffer is DEVICE-accessible memory
 * (the engine stages host argument arrays before the call), `_dev` says so.
 * A launch enqueues work on `stream` and returns without synchronising;
 * per-chunk results are valid once the stream gets there.  Per chunk a
 * codec never reads past src_sizes_dev[i] nor writes past dst_caps_dev[i],
 * whatever the bytes (statuses as in include/opencomp.h: OK, CORRUPT,
 * TRUNCATED, OUTPUT_TOO_SMALL, CHUNK_TOO_LARGE, INVALID_ARGUMENT for a NULL
 * chunk pointer, ...).
 *
 * The return value is about the launch: OK once enqueued, INVALID_ARGUMENT
 * (too little scratch, NULL arrays), CUDA when a launch failed.
 */
#ifndef OC_GPU_CODEC_H
#define OC_GPU_CODEC_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "../../common/oc_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A second stream for a codec whose decoder runs two kernels at once
 * (the LZ4 split decoder's parse and copy, lz4_kernels.cu): made by the
 * engine once per context, on the first decompression by such a codec
 * (oc_gpu_codec.decompress_side), with the device's greatest priority (the
 * block scheduler starts its pending blocks first), and destroyed with the
 * context.  A codec forks onto it and joins back within one launch, with
 * the two events and no host sync:
 *     cudaEventRecord(fork, stream); cudaStreamWaitEvent(side, fork, 0);
 *     ... kernels on both streams ...
 *     cudaEventRecord(join, side); cudaStreamWaitEvent(stream, join, 0);
 * so every later use of `stream` (and of the scratch) follows its work. */
typedef struct oc_gpu_side {
    cudaStream_t stream;    /* non-blocking, greatest priority, on the context's device */
    cudaEvent_t fork, join; /* timing disabled */
    int sm_count;           /* the device's multiprocessors */
} oc_gpu_side;

/* What a launch needs besides the data. */
typedef struct oc_gpu_config {
    oc_algorithm algorithm;  /* the row's algorithm (one codec may serve several rows) */
    int level;               /* resolved (oc_resolve_level): never 0 for algorithms with levels */
    size_t max_capacity;     /* largest dst capacity of the batch, SIZE_MAX when unknown (device arrays) */
    oc_typed_options typed;  /* the caller's typed options (checked by the API layer): compression's
                                format options; for decompression a hint of the chunks' shape only
                                (ANS: the CTA shape), never trusted */
    int sizes_only;          /* 1: the scratch is for decompressed_sizes, not decompress */
    const oc_gpu_side *side; /* decompress of a codec with decompress_side: its second stream, NULL when
                                there is none (the codec then runs everything on `stream`); else NULL */
    const oc_codec_options *options; /* compression: the caller's options (HOST memory, read during the
                                        scratch and launch calls only: Blosc's inner codec, filter,
                                        typesize, block size); else NULL */
    const size_t *src_sizes_host;    /* compression: the chunks' sizes when the host can read them (so
                                        the scratch fits the batch), NULL when they are device-only */
} oc_gpu_config;

/* Launch of a batch of n chunks.  For decompressed_sizes, dst_dev and
 * dst_caps_dev are NULL and dst_sizes_dev receives the sizes.  dst_sizes_dev
 * and statuses_dev may be NULL (nothing is written there). */
typedef oc_status (*oc_gpu_launch_fn)(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                      size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                      void *const *dst_dev, const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                      oc_status *statuses_dev, cudaStream_t stream);

/* Bytes of device scratch a launch of n chunks wants (0: none).  Less
 * scratch may serve too, as the codec documents; the engine gives this. */
typedef size_t (*oc_gpu_scratch_fn)(const oc_gpu_config *cfg, size_t n);

typedef struct oc_gpu_codec {
    oc_gpu_scratch_fn compress_scratch;   /* NULL: no scratch */
    oc_gpu_launch_fn compress;            /* NULL: no GPU compressor (the API host-stages) */
    oc_gpu_scratch_fn decompress_scratch; /* NULL: no scratch; also serves decompressed_sizes */
    oc_gpu_launch_fn decompress;          /* NULL: no GPU decoder (the API host-stages) */
    oc_gpu_launch_fn decompressed_sizes;  /* NULL: no GPU size query (the API host-stages) */
    int decompress_side;                  /* 1: decompress uses cfg->side (0 when left out) */
} oc_gpu_codec;

/* Each codec folder (src/cuda/codecs/<algo>/) defines its codec as
 *     extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_<algo> = {...};
 * and the algorithm table names it (src/common/algo_table.c). */

#ifdef __cplusplus
}
#endif
#endif /* OC_GPU_CODEC_H */
