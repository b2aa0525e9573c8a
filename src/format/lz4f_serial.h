/*
 * lz4f_serial.h - serial LZ4 frame decoding for frames without our index
 * (see lz4f_serial.c).
 */
#ifndef OC_FORMAT_LZ4F_SERIAL_H
#define OC_FORMAT_LZ4F_SERIAL_H

#include <string.h>

#include "../common/oc_internal.h"

/* Decodes every frame of src (LZ4 frames and skippable frames) into
 * dst[0..dst_capacity); checks block and content checksums when `verify`.
 * *dst_size gets the bytes written.  dst may be NULL with capacity 0. */
OC_HIDDEN oc_status oc_lz4f_decompress_serial(const uint8_t *src, uint64_t src_size, uint8_t *dst,
                                              uint64_t dst_capacity, int verify, uint64_t *dst_size);

/* Counts the decoded bytes of every frame of src without keeping them. */
OC_HIDDEN oc_status oc_lz4f_count_serial(const uint8_t *src, uint64_t src_size, uint64_t *size);

#endif /* OC_FORMAT_LZ4F_SERIAL_H */
