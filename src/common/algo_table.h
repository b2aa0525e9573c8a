/*
 * algo_table.h - the algorithm descriptor table: one row per oc_algorithm
 * holding everything the library knows about that algorithm, so that no
 * other file switches over algorithms.
 *
 * A row names the algorithm (name, nvCOMP's spelling, aliases, NATIVE file
 * suffix), its levels, the facts the API needs without running a codec
 * (largest chunk, compress bound, maximum expansion, magic number), its
 * NATIVE container (src/format) and its codec on each engine (src/cpu,
 * src/cuda).  Adding an algorithm is adding a row in algo_table.c plus its
 * codec folders (docs/ARCHITECTURE.md, "Add an algorithm").
 *
 * The rows point at the engines' codecs and at the containers by symbol
 * (declared opaque here, resolved at link time): src/common never calls or
 * dereferences them, the engines and the API layer do.  A build without
 * the CUDA engine has NULL GPU codecs.
 */
#ifndef OC_ALGO_TABLE_H
#define OC_ALGO_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "oc_internal.h"
#include "portable.h"

#ifdef __cplusplus
extern "C" {
#endif

struct oc_cpu_codec;     /* src/cpu/cpu_codec.h */
struct oc_gpu_codec;     /* src/cuda/runtime/gpu_codec.h */
struct oc_container_ops; /* src/format/container.h */

typedef struct oc_algo_desc {
    oc_algorithm id;
    const char *name;                   /* canonical, lower case: "lz4" */
    const char *display_name;           /* nvCOMP's spelling: "LZ4", "Snappy", "Zstd" */
    const char *const *aliases;         /* other accepted names, NULL-terminated (never NULL) */
    const char *suffix;                 /* file suffix of the NATIVE container: ".lz4" */
    const char *const *decode_suffixes; /* suffixes naming a file of this algorithm, NULL-terminated */
    int min_level, max_level, default_level;
    int has_levels;                   /* 0: any level accepted and ignored (snappy) */
    uint64_t max_chunk;               /* largest chunk one stream holds (bound is 0 above) */
    size_t (*bound)(size_t src_size); /* worst-case compressed size of one chunk (0 above max_chunk) */
    uint32_t max_expansion;           /* decoded bytes per compressed byte, at most (+ 64 KiB slack) */
    /* The raw stream identifies itself: 1 when p[0..n) starts like one
     * (detection with OC_ALGO_NONE); NULL when the format has no magic. */
    int (*magic)(const uint8_t *p, size_t n);
    const struct oc_container_ops *container; /* the NATIVE container */
    oc_algorithm native_chunks;               /* the codec of the NATIVE container's chunks */
    const struct oc_cpu_codec *cpu;           /* CPU engine codec (NULL: none) */
    const struct oc_gpu_codec *gpu;           /* GPU engine codec (NULL: none, or no CUDA in this build) */
    /* The typed options (oc_typed_options) this algorithm takes: the
     * element widths its data_type may have (bit w set: w bytes; 0: any,
     * the type being ignored or every width coded) and the largest
     * algorithm_type (0 for all but Bitcomp). */
    uint32_t type_widths;
    int max_algorithm_type;
} oc_algo_desc;

/* The row of `a`; NULL for OC_ALGO_NONE and invalid values. */
OC_HIDDEN const oc_algo_desc *oc_algo(oc_algorithm a);

/* The algorithm whose magic number starts p[0..n) (zstd frames and
 * skippable frames, gzip, zlib); OC_ALGO_NONE when none does.  The one
 * detector of the library: batched decoding with OC_ALGO_NONE and the
 * container reader both use it. */
OC_HIDDEN oc_algorithm oc_algo_detect(const uint8_t *p, size_t n);

/* oc_algo(a)->bound(n), 0 for an invalid algorithm. */
OC_HIDDEN size_t oc_algo_bound(oc_algorithm a, size_t n);

/* The most a stream of n compressed bytes of `a` can decode to, by the
 * row's max_expansion (OC_ALGO_NONE: the largest of all rows); saturates at
 * UINT64_MAX.  A size header claiming more is hostile. */
OC_HIDDEN uint64_t oc_algo_max_decoded(oc_algorithm a, uint64_t n);

/* The ratio behind oc_algo_max_decoded: the row's max_expansion (OC_ALGO_NONE
 * and invalid values: the largest of all rows).  The CUDA engine hands it
 * to its kernels, which run oc_max_decoded_at below. */
OC_HIDDEN uint32_t oc_algo_expansion(oc_algorithm a);

/* The formula itself, host and device (portable.h): n bytes at `ratio`
 * decoded bytes per byte, plus 64 KiB of slack; saturates at UINT64_MAX. */
OC_INLINE uint64_t oc_max_decoded_at(uint32_t ratio, uint64_t n)
{
    if (ratio != 0 && n > (UINT64_MAX - 65536) / ratio)
        return UINT64_MAX;
    return n * ratio + 65536;
}

#ifdef __cplusplus
}
#endif
#endif /* OC_ALGO_TABLE_H */
