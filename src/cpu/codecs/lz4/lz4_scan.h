/*
 * lz4_scan.h - the LZ4 block scanner (lz4_scan.c), shared by the CPU LZ4
 * codec (codec_lz4.c: failures named, sizes counted) and the tests.
 */
#ifndef OC_LZ4_SCAN_H
#define OC_LZ4_SCAN_H

#include "../../../common/oc_internal.h"

/* Validates the sequence structure of an LZ4 block without writing
 * anything and computes its decoded size: OK, CORRUPT or TRUNCATED (see
 * lz4_scan.c for what it checks). */
OC_HIDDEN oc_status oc_lz4_scan(const uint8_t *src, size_t src_size, size_t *decoded_size);

#endif /* OC_LZ4_SCAN_H */
