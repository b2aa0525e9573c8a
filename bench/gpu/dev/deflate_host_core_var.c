/*
 * deflate_host_core_var.c - the inflate variants beside the library's
 * (inflate_var_kernels.cu) compiled for the host, so that
 * deflate_var_cpu_check.c holds them and the library to each other here:
 *   -DINF_LTB=11u -DDEV_HOST_DECODE=deflate_host_decode_v3  decoder v3;
 *   -DDEV_V2 -DDEV_HOST_DECODE=deflate_host_decode_v2       decoder v2;
 */
#include "deflate_host_core.h"

#ifdef DEV_V2
#include "inflate_v2_core.h" /* first: inflate_chunk_core.h then wraps v2 */
#endif

#include "cuda/codecs/deflate/inflate_chunk_core.h"

#ifndef DEV_HOST_DECODE
#error "build with -DDEV_HOST_DECODE=deflate_host_decode_v2 or _v3 (see the Makefile)"
#endif

oc_status DEV_HOST_DECODE(oc_algorithm algo, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                          size_t *out_size)
{
    static inf_tables tables;
    static uint32_t crct[256];
    static int init;
    if (!init) {
        dck_crc_table_fill(crct, 0, 1);
        init = 1;
    }
    return inf_decode_chunk(&tables, crct, algo, src, n, dst, cap, out_size);
}
