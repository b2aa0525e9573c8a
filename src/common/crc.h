/*
 * crc.h - CRC-32 (ISO-HDLC: gzip, zlib's crc32) and CRC-32C (Castagnoli:
 * the snappy framing format), one copy for the host and the GPU.
 *
 * Both are reflected CRCs with pre- and post-inversion, continued from
 * `crc` (start with 0) like zlib's crc32.  The portable form takes a
 * 256-entry table that the caller builds once (oc_crc_table_entry: a GPU
 * block fills it in shared memory); the host has faster paths in crc.c
 * (CRC-32 through libdeflate, CRC-32C with SSE4.2 or slice-by-8).  Tested
 * against zlib and the check values of the CRC catalogue
 * (tests/c/test_common_primitives.c).
 */
#ifndef OC_CRC_H
#define OC_CRC_H

#include <stddef.h>
#include <stdint.h>

#include "portable.h"

#define OC_CRC32_POLY 0xEDB88320u  /* reflected 0x04C11DB7 */
#define OC_CRC32C_POLY 0x82F63B78u /* reflected 0x1EDC6F41 */

/* Entry i (0..255) of the byte-at-a-time table of the reflected `poly`. */
OC_INLINE uint32_t oc_crc_table_entry(uint32_t poly, uint32_t i)
{
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
    return c;
}

/* The CRC of p[0..len) continued from crc, with the table of its polynomial. */
OC_INLINE uint32_t oc_crc_update(const uint32_t *table, uint32_t crc, const uint8_t *p, uint64_t len)
{
    uint32_t c = ~crc;
    for (uint64_t i = 0; i < len; i++)
        c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return ~c;
}

/* The snappy framing format's mask of a CRC-32C: rotate right by 15, add. */
OC_INLINE uint32_t oc_crc32c_mask(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

#ifndef __CUDACC__
/* Host: CRC-32C (SSE4.2 when the CPU has it, else slice-by-8) and CRC-32
 * (libdeflate), continued from crc; any pointer with len == 0. */
__attribute__((visibility("hidden"))) uint32_t oc_crc32c(uint32_t crc, const void *p, size_t len);
__attribute__((visibility("hidden"))) uint32_t oc_crc32(uint32_t crc, const void *p, size_t len);
#endif

#endif /* OC_CRC_H */
