/*
 * blosc_streams.h - the split streams inside a Blosc 1.x chunk, for the
 * Blosc rows of the GPU benchmark (bench/gpu/blosc_run.cu): the plain
 * LZ4/Zstd/Snappy/zlib decoders are timed on exactly the streams a Blosc
 * chunk holds (issue 17's "within 20% of our plain decoders on the same
 * bytes"), so the benchmark needs each stream's place in the chunk and in
 * the decoded (still shuffled) block.  The layout rules are the library's
 * own (src/common/blosc_format.h, every offset checked); this file only
 * lists them.  Plain C, no CUDA: tested on the CPU by
 * bench/gpu/test_bench_host.c against chunks libblosc writes.
 */
#ifndef OC_BENCH_BLOSC_STREAMS_H
#define OC_BENCH_BLOSC_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One compressed stream of a chunk. */
typedef struct ocb_blosc_split {
    uint32_t offset; /* of the stream's bytes in the chunk (after its csize word) */
    uint32_t csize;  /* its bytes */
    uint32_t dsize;  /* what it decodes to */
    uint32_t out;    /* where those bytes go, from the chunk's first decoded byte: the block's
                        shuffled layout when the block is shuffled */
} ocb_blosc_split;

typedef struct ocb_blosc_layout {
    uint32_t nbytes;       /* the chunk's decoded size */
    uint32_t blocksize;    /* c-blosc's block size */
    uint32_t nstreams;     /* every stream, stored ones included (0 for a memcpyed chunk) */
    uint32_t ncompressed;  /* streams an inner decoder runs on (the ones listed) */
    uint64_t stored_bytes; /* decoded bytes that are copies: stored streams, or a memcpyed chunk */
    uint32_t max_dsize;    /* largest dsize of a listed stream (0: none) */
    int format;            /* the inner codec (blosc_format.h's OC_BLOSC_FMT_*) */
} ocb_blosc_layout;

/* Reads the chunk p[0..n) (c-blosc 1.x) and lists its compressed streams
 * (csize != dsize) in chunk order into out[0..cap) (out may be NULL to
 * count them).  0 on success, with *lay filled; -1 on a chunk the library's
 * parser refuses or more than cap streams. */
int ocb_blosc_splits(const uint8_t *p, size_t n, ocb_blosc_split *out, size_t cap, ocb_blosc_layout *lay);

/* The element size a corpus file's suffix names: .i32/.u32/.f32 -> 4,
 * .i64/.u64/.f64 -> 8, .i16/.u16/.f16/.bf16 -> 2; 0 for anything else. */
int ocb_typesize_of(const char *name);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_BLOSC_STREAMS_H */
