/*
 * wus.h - the WITH_UNCOMPRESSED_SIZE header (docs/FORMAT.md): eight bytes,
 * the little-endian uncompressed size, before a RAW stream.  One parser,
 * with its hostile-size guard, for the batched layer (the CPU engine, per
 * chunk) and the whole-buffer layer (src/format/container.c), so that both
 * give a header the same verdict.
 */
#ifndef OC_WUS_H
#define OC_WUS_H

#include <stdint.h>

#include "oc_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OC_WUS_HEADER 8u

/* Reads the header of src[0..src_size) (host memory): *size = the size it
 * records, *algo = the stream's algorithm (`a`, or with OC_ALGO_NONE the one
 * whose magic number starts the stream after the header).  Returns
 * TRUNCATED below 8 bytes, INVALID_ARGUMENT when `a` is NONE and nothing
 * is detected, CORRUPT when the size is more than src_size - 8 bytes of
 * that algorithm can decode to (oc_algo_max_decoded: checked before anyone
 * reserves memory for it), else OK. */
OC_HIDDEN oc_status oc_wus_parse(const uint8_t *src, uint64_t src_size, oc_algorithm a, uint64_t *size,
                                 oc_algorithm *algo);

#ifdef __cplusplus
}
#endif
#endif /* OC_WUS_H */
