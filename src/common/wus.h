/*
 * wus.h - the WITH_UNCOMPRESSED_SIZE header (docs/FORMAT.md): eight bytes,
 * the little-endian uncompressed size, before a RAW stream.  One check,
 * with its hostile-size guard, for every reader: oc_wus_read is host C and
 * CUDA device code (portable.h), run per chunk by the CUDA engine's header
 * kernels (src/cuda/runtime/cuda_wus.cu) and, through oc_wus_parse, by the
 * CPU engine and the whole-buffer layer (src/format/container.c), so that
 * all of them give a header the same verdict.
 */
#ifndef OC_WUS_H
#define OC_WUS_H

#include <stdint.h>

#include "algo_table.h"
#include "le.h"
#include "oc_internal.h"
#include "portable.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OC_WUS_HEADER 8u

/* Reads the header of src[0..src_size) (memory this side can read) of an
 * algorithm whose streams expand at most `ratio` times
 * (oc_algo_expansion): *size = the size it records.  Returns TRUNCATED
 * below 8 bytes, CORRUPT when the size is more than src_size - 8 bytes can
 * decode to (oc_max_decoded_at: checked before anyone reserves memory for
 * it), else OK.  Reads src only when src_size >= 8. */
OC_INLINE oc_status oc_wus_read(const uint8_t *src, uint64_t src_size, uint32_t ratio, uint64_t *size)
{
    if (src_size < OC_WUS_HEADER)
        return OC_ERR_TRUNCATED;
    uint64_t s = oc_load_le64(src);
    if (s > oc_max_decoded_at(ratio, src_size - OC_WUS_HEADER))
        return OC_ERR_CORRUPT;
    *size = s;
    return OC_OK;
}

/* oc_wus_read on host memory with the stream's algorithm resolved: *algo =
 * `a`, or with OC_ALGO_NONE the one whose magic number starts the stream
 * after the header, and the ratio is its row's.  Returns TRUNCATED below 8
 * bytes, then INVALID_ARGUMENT when `a` is NONE and nothing is detected,
 * then oc_wus_read's verdict. */
OC_HIDDEN oc_status oc_wus_parse(const uint8_t *src, uint64_t src_size, oc_algorithm a, uint64_t *size,
                                 oc_algorithm *algo);

#ifdef __cplusplus
}
#endif
#endif /* OC_WUS_H */
