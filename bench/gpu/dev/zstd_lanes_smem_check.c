/*
 * zstd_lanes_smem_check.c - the host check of v6s (zstd_dec_lanes_smem.h:
 * the lane kernel's decoding tables in shared memory): the library's host
 * test of the lane path, tests/c/test_zstd_gpu_lanes.c, compiled with
 * zls_group in place of zl_group.
 *
 * Why: v6s is an experiment that must give zd_decode_chunk's status, size
 * and bytes on every chunk before it runs on a GPU, and the library's test
 * already has the guards (corpus chunks at four levels, damaged and
 * odd-shaped chunks, poisoned outputs).  Its groups of 32 and 5 become
 * sub-groups of ZLS_G (4) here, as the v6s kernel takes them; the tables
 * of chunks 0-2 of a sub-group lie over T's Huffman and FSE tables as on
 * the GPU.  Build and run: make check-zstd-smem (ASan/UBSan).
 */
#include <string.h>

#include "zstd_dec_lanes_smem.h"

static uint32_t zls_check_group(zd_tables *T, zl_lane *L, uint32_t *sq, size_t first, uint32_t g,
                                const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                                const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, uint8_t *slot,
                                size_t litcap, zd_fse_entry *tabs)
{
    static uint32_t LG[ZLS_G];
    static uint16_t slot3[ZLS_SLOT_ENTRIES];
    uint32_t on = 0;
    for (uint32_t a = 0; a < g; a += ZLS_G) {
        uint32_t m = g - a < ZLS_G ? g - a : ZLS_G;
        /* poison the region: the conversion must write every entry the decode reads */
        memset((uint8_t *)(void *)T + offsetof(zd_tables, huf), 0xEE, ZLS_REGION_BYTES);
        memset(slot3, 0xEE, sizeof slot3);
        on += zls_group(T, L, LG, sq, slot3, first + a, m, src_ptrs, src_sizes, dst_ptrs, dst_caps, dst_sizes,
                        statuses, slot, litcap, tabs);
    }
    return on;
}

#define zl_group zls_check_group
#include "../../../tests/c/test_zstd_gpu_lanes.c"
