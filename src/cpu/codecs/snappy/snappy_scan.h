/*
 * snappy_scan.h - the Snappy raw scanner (snappy_scan.c), shared by the CPU
 * Snappy codec (codec_snappy.c: failures named, sizes read).
 */
#ifndef OC_SNAPPY_SCAN_H
#define OC_SNAPPY_SCAN_H

#include "../../../common/oc_internal.h"

/* Validates a snappy raw buffer without writing anything: OK (decoded size
 * = the preamble's), CORRUPT or TRUNCATED. */
OC_HIDDEN oc_status oc_snappy_scan(const uint8_t *src, size_t src_size, size_t *decoded_size);

#endif /* OC_SNAPPY_SCAN_H */
