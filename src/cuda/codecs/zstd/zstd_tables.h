/*
 * zstd_tables.h - the fixed tables of RFC 8878 that the GPU zstd decoder
 * (zstd_decode_core.h) and encoder (zstd_enc_core.h) share: literal-length
 * and match-length code bases and extra-bit counts (3.1.1.3.2.1) and the
 * predefined FSE distributions (3.1.1.3.2.2).  Like the two cores it builds
 * as CUDA (constant memory) and as plain C (the CPU tests of the cores).
 */
#ifndef OC_ZSTD_TABLES_H
#define OC_ZSTD_TABLES_H

#include <stdint.h>

#include "../../../common/portable.h"

OC_CORE_CONST uint32_t oc_zstd_ll_base[36] = {
    0,  1,  2,  3,  4,  5,  6,  7,  8,   9,   10,  11,   12,   13,   14,   15,    16,    18,
    20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
OC_CORE_CONST uint8_t oc_zstd_ll_bits[36] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  1,  1,
                                             1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
OC_CORE_CONST uint32_t oc_zstd_ml_base[53] = {
    3,  4,  5,  6,  7,  8,  9,  10,  11,  12,  13,   14,   15,   16,   17,    18,    19,   20,
    21, 22, 23, 24, 25, 26, 27, 28,  29,  30,  31,   32,   33,   34,   35,    37,    39,   41,
    43, 47, 51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539};
OC_CORE_CONST uint8_t oc_zstd_ml_bits[53] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  0,  0,  0, 0,
                                             0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  0,  0,  0,  1,  1,  1, 1,
                                             2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

/* Default distributions (RFC 8878 3.1.1.3.2.2). */
OC_CORE_CONST int16_t oc_zstd_ll_default[36] = {4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1,  1,  2,  2,
                                                2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1};
OC_CORE_CONST int16_t oc_zstd_ml_default[53] = {1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1,  1,  1,  1,  1,  1,  1, 1,
                                                1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,  1,  1,  1,  1,  1,  1, 1,
                                                1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1};
OC_CORE_CONST int16_t oc_zstd_of_default[29] = {1, 1, 1, 1, 1, 1, 2, 2, 2, 1,  1,  1,  1,  1, 1,
                                                1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1};

#endif /* OC_ZSTD_TABLES_H */
