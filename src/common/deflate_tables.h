/*
 * deflate_tables.h - the constant tables of RFC 1951 section 3.2.5 (the base
 * and extra bits of length symbols 257..285 and distance symbols 0..29) and
 * 3.2.7 (the order of the precode lengths), and GDeflate's variant of the
 * first two, written once for every deflate-family core: the GPU inflate
 * and deflate cores (src/cuda/codecs/deflate/), the GDeflate CPU codec
 * (src/cpu/codecs/gdeflate/) and GPU decoder (src/cuda/codecs/gdeflate/).
 * Host C sees static const arrays, device code __constant__ ones
 * (OC_CORE_CONST, portable.h).
 */
#ifndef OC_DEFLATE_TABLES_H
#define OC_DEFLATE_TABLES_H

#include <stdint.h>

#include "portable.h"

OC_CORE_CONST uint16_t rfc1951_len_base[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                               15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                               67, 83, 99, 115, 131, 163, 195, 227, 258};
OC_CORE_CONST uint8_t rfc1951_len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                               2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
OC_CORE_CONST uint16_t rfc1951_dist_base[30] = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
OC_CORE_CONST uint8_t rfc1951_dist_extra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                                6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
/* GDeflate's lengths and distances (docs/FORMAT.md, "GDeflate"): RFC 1951's
 * but for Deflate64's last entries.  Length symbol 285 is 3 plus 16 extra
 * bits (lengths 3..65538; nvCOMP writes every length from 131 up this way),
 * not 258; distance symbols 30 and 31 are 32769 and 49153 plus 14 extra
 * bits (DirectStorage's GPU reference decodes them; nvCOMP was not seen
 * writing them). */
OC_CORE_CONST uint16_t gdeflate_len_base[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                                15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                                67, 83, 99, 115, 131, 163, 195, 227, 3};
OC_CORE_CONST uint8_t gdeflate_len_extra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                                2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 16};
OC_CORE_CONST uint16_t gdeflate_dist_base[32] = {
    1,   2,   3,   4,   5,    7,    9,    13,   17,   25,   33,   49,    65,    97,    129,   193,
    257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577, 32769, 49153};
OC_CORE_CONST uint8_t gdeflate_dist_extra[32] = {0, 0, 0, 0, 1, 1, 2,  2,  3,  3,  4,  4,  5,  5,  6,  6,
                                                 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14};
/* the order of the precode lengths in a dynamic block's header */
OC_CORE_CONST uint8_t rfc1951_precode_order[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                                   11, 4,  12, 3, 13, 2, 14, 1, 15};

#endif
