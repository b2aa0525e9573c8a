/*
 * deflate_host_core.h - the GPU Deflate cores compiled for the host (one
 * lane), for the development harness to compare the GPU against, chunk by
 * chunk: same status, same size, same bytes (the library's core, decoder
 * v4; and the variants v2 and v3, deflate_host_core_var.c).
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

/* The same with decoder v3's core (the library's core with an 11-bit
 * literal/length table); not thread-safe. */
oc_status deflate_host_decode_v3(oc_algorithm algo, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                 size_t *out_size);
/* Decoder v2's core (inflate_v2_core.h, the library's until v4). */
oc_status deflate_host_decode_v2(oc_algorithm algo, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                 size_t *out_size);

#ifdef __cplusplus
}
#endif
#endif
