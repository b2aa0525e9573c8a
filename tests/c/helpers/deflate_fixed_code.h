/*
 * deflate_fixed_code.h - the fixed literal/length Huffman code of RFC 1951
 * 3.2.6, for the tests' hand-built streams.  Three bit writers need it (the
 * deflate writer of test_inflate_gpu_core.c, the GDeflate spec writer of
 * test_codec_gdeflate.c and the multi-block page writer of
 * helpers/gdeflate_writer.h); each writes the code its own way (one stream,
 * or one lane of 32), so only the table lives here.  Written from the RFC's
 * text, independent of the library's tables.
 */
#ifndef OC_TEST_DEFLATE_FIXED_CODE_H
#define OC_TEST_DEFLATE_FIXED_CODE_H

#include <stdint.h>

/* A Huffman code: `len` bits, to be sent most significant bit first. */
typedef struct tu_huff_code {
    uint32_t code;
    unsigned len;
} tu_huff_code;

/* tu_fixed_litlen - the fixed code of literal/length symbol sym (0..287):
 * 0-143 8 bits from 0x30, 144-255 9 bits from 0x190, 256-279 7 bits from 0,
 * 280-287 8 bits from 0xc0. */
static inline tu_huff_code tu_fixed_litlen(unsigned sym)
{
    tu_huff_code c;
    if (sym < 144)
        c.code = 0x30 + sym, c.len = 8;
    else if (sym < 256)
        c.code = 0x190 + sym - 144, c.len = 9;
    else if (sym < 280)
        c.code = sym - 256, c.len = 7;
    else
        c.code = 0xc0 + sym - 280, c.len = 8;
    return c;
}

#endif /* OC_TEST_DEFLATE_FIXED_CODE_H */
