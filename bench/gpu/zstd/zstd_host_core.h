/*
 * zstd_host_core.h - host entry to the GPU decoder's core (one lane), for
 * the harness's GPU-versus-CPU comparisons.  Thread-safe (thread-local
 * tables).
 */
#ifndef ZSTD_HOST_CORE_H
#define ZSTD_HOST_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "opencomp.h"

#ifdef __cplusplus
extern "C" {
#endif

oc_status zd_host_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out_size);

#ifdef __cplusplus
}
#endif
#endif
