/*
 * sparse_plan.h - container plans from the head and the tail of a buffer:
 * the whole-buffer layer (src/api/buffer.c, plan_src) plans every buffer,
 * host or device memory, through a range reader (a callback that copies
 * byte ranges of src), and this builds the same plan (and statuses) as
 * oc_container_parse would on the whole buffer, reading only head and
 * tail where an index or a size header says the rest.
 *
 * How: the bytes read go into a "shadow" of src (calloc'd: pages never
 * written cost no memory); for the indexed containers (LZ4 frame with our
 * index, snappy framing with our index, zstd seekable) the chunk headers
 * that the index implies are synthesised into the shadow from the layout,
 * and oc_container_parse runs on the shadow.  Every synthesised word is a
 * *probe*: the caller must check that src really holds it (any difference:
 * CORRUPT, which is what the parser says on the real bytes): the GPU's
 * kernels where src is device memory (src/cuda/container/
 * cuda_buffer_decode.cu), oc_sparse_probes_hold where it is host memory.  Snappy
 * chunks' varint preambles are checked by the caller too (equal to the
 * chunk's dst_size).  Zstd frames are synthesised as raw blocks of the
 * entry's size with their magic as a probe; the caller then walks each real
 * frame with oc_zstd_walk_frame (zstd_walk.h): it must be OK, exactly the
 * entry's size, and a declared content size must equal the entry's
 * (CORRUPT otherwise, as the CPU parser says).
 */
#ifndef OC_FORMAT_SPARSE_PLAN_H
#define OC_FORMAT_SPARSE_PLAN_H

#include "plan.h"
#include "zstd_walk.h"

typedef struct oc_probe {
    uint64_t pos;  /* offset in src */
    uint32_t word; /* little-endian u32 that src must hold there */
    uint32_t pad;
} oc_probe;

typedef struct oc_sparse {
    uint8_t *b; /* shadow of src: src_size bytes */
    uint64_t n;
    oc_probe *probes;
    size_t np, cap;
    int ok;           /* probes complete (no allocation failed) */
    uint64_t have;    /* tail bytes read */
    int snappy_check; /* the caller checks compressed snappy chunks' preambles */
    int zstd_check;   /* the caller walks each chunk's zstd frame (zstd_walk.h) */
} oc_sparse;

/* Sets *usable = 1 and fills `plan` (status = the parser's) when this plan
 * can run without reading more of src: the indexed containers, and
 * WITH_UNCOMPRESSED_SIZE / RAW of LZ4 and snappy (whose parse reads <= 13
 * bytes).  *usable = 0 (status OK) for everything else: the caller reads
 * all of src.  Free with oc_sparse_free and oc_plan_free. */
OC_HIDDEN oc_status oc_sparse_plan(const oc_buffer_options *hint, uint64_t src_size, oc_range_reader rd,
                                   void *opaque, oc_sparse *sh, oc_container_plan *plan, int *usable);
OC_HIDDEN void oc_sparse_free(oc_sparse *sh);

/* For the containers' index synthesis (their ops' `sparse`): a probe word
 * at pos, written into the shadow too (nothing beyond src); the last `len`
 * bytes of src into the shadow. */
OC_HIDDEN void oc_sparse_probe(oc_sparse *s, uint64_t pos, uint32_t word);
OC_HIDDEN oc_status oc_sparse_read_tail(oc_sparse *s, oc_range_reader rd, void *opaque, uint64_t len);

/* The checks of a plan's probes in a host buffer (the GPU kernels of
 * cuda_buffer_decode.cu do the same in device memory): 1 when every probe
 * word is in src, every compressed snappy chunk's preamble equals its
 * size, and every zstd chunk is one whole frame of its entry's sizes; 0
 * means CORRUPT.  The whole-buffer layer runs it on host buffers; tests
 * and fuzzing run it as the GPU's reference. */
OC_HIDDEN int oc_sparse_probes_hold(const oc_sparse *sh, const oc_container_plan *plan, const uint8_t *src,
                                    uint64_t src_size);

#endif /* OC_FORMAT_SPARSE_PLAN_H */
