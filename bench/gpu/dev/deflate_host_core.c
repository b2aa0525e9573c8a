/*
 * deflate_host_core.c - see deflate_host_core.h.
 */
#include "deflate_host_core.h"

#include "cuda/codecs/deflate/inflate_chunk_core.h"

oc_status deflate_host_decode(oc_algorithm algo, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
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
