/*
 * deflate_host_core_v2.c - decoder v2's core (inflate_v2_core.h) compiled
 * for the host, beside deflate_host_core.c's v1: deflate_v2_cpu_check.c
 * holds v2 to v1 here, deflate_dev.cu compares the GPU with both.  With
 * -DINF_LTB=11u -DDEV_HOST_DECODE=deflate_host_decode_v3: decoder v3.
 */
#include "deflate_host_core.h"

#include "inflate_v2_core.h" /* first: inflate_chunk_core.h then wraps v2 */

#include "cuda/codecs/deflate/inflate_chunk_core.h"

#ifndef DEV_HOST_DECODE
#define DEV_HOST_DECODE deflate_host_decode_v2
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
