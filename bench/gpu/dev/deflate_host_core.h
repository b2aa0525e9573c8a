/*
 * deflate_host_core.h - the GPU Deflate cores compiled for the host (one
 * lane), for the development harness to compare the GPU against, chunk by
 * chunk: same status, same size, same bytes (v1: the library's core; v2:
 * the variant in inflate_v2_core.h).
 */
#ifndef OC_DEFLATE_HOST_CORE_H
#define OC_DEFLATE_HOST_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "opencomp.h"

#ifdef __cplusplus
extern "C" {
#endif

/* inflate_chunk_core.h's inf_decode_chunk on the host (not thread-safe). */
oc_status deflate_host_decode(oc_algorithm algo, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                              size_t *out_size);

/* The same with decoder v2's core (inflate_v2_core.h; not thread-safe),
 * and v3's (the same core with an 11-bit literal/length table). */
oc_status deflate_host_decode_v2(oc_algorithm algo, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                 size_t *out_size);
oc_status deflate_host_decode_v3(oc_algorithm algo, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                 size_t *out_size);

#ifdef __cplusplus
}
#endif
#endif
