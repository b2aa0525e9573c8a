/*
 * lz4_scan.c - a bounded scanner of the LZ4 block format (lz4's
 * doc/lz4_Block_format.md).  LZ4_decompress_safe answers every failure with
 * one negative number, which cannot tell "corrupt" from "truncated" from
 * "output too small"; this scanner walks the sequences (token, literal
 * length, literals, offset, match length) reading only the bytes it must,
 * writes nothing, and says which: it gives the decoded size for
 * oc_batch_decompressed_sizes and classifies the reference decoder's
 * failures.
 *
 * What it checks is the block's structure, which is all the format
 * defines apart from its end-of-block recommendations:
 *   - a block ends right after the literals of its last sequence;
 *   - offsets are non-zero and reach no further back than the output start;
 *   - an empty block is the single byte 0x00 (as liblz4 requires).
 * Bytes that run out mid-sequence, or right after a match, are TRUNCATED;
 * a bad offset is CORRUPT.  liblz4 additionally enforces, depending on the
 * version and on the output capacity, rules about how close to the end the
 * last match may lie; the decoder (codec_lz4.c) runs liblz4 with a capacity
 * of exactly the scanned size, and a block the scanner accepts but liblz4
 * then refuses is CORRUPT there (never seen from a conformant encoder).
 * One deliberate difference: liblz4 1.9.4 decodes a match of offset 0
 * (copying output bytes onto themselves); the block format calls offset 0
 * invalid, and so do we (CORRUPT).
 */
#include <limits.h>

#include "cpu_codec.h"

#define MINMATCH 4

/* Reads an LZ4 length extension (bytes of 255 continue); returns 0 if the
 * input ends first.  Sizes are bounded by the input size, so no overflow. */
static int read_ext(const uint8_t **ip, const uint8_t *iend, uint64_t *len)
{
    for (;;) {
        if (*ip >= iend)
            return 0;
        uint8_t s = *(*ip)++;
        *len += s;
        if (s != 255)
            return 1;
    }
}

oc_status oc_lz4_scan(const uint8_t *src, size_t src_size, size_t *decoded_size)
{
    const uint8_t *ip = src, *const iend = src + src_size;
    uint64_t total = 0;

    if (src_size == 0)
        return OC_ERR_TRUNCATED;
    for (;;) {
        if (ip >= iend)
            return OC_ERR_TRUNCATED; /* a match was the last thing: the literals are missing */
        const unsigned token = *ip++;
        uint64_t lit = token >> 4;
        if (lit == 15 && !read_ext(&ip, iend, &lit))
            return OC_ERR_TRUNCATED;
        if (lit > (uint64_t)(iend - ip))
            return OC_ERR_TRUNCATED;
        ip += lit;
        total += lit;
        if (ip == iend)
            break; /* the last sequence: literals only */
        if (iend - ip < 2)
            return OC_ERR_TRUNCATED;
        const unsigned offset = (unsigned)ip[0] | ((unsigned)ip[1] << 8);
        ip += 2;
        if (offset == 0 || offset > total)
            return OC_ERR_CORRUPT;
        uint64_t ml = token & 15;
        if (ml == 15 && !read_ext(&ip, iend, &ml))
            return OC_ERR_TRUNCATED;
        ml += MINMATCH;
        total += ml;
        if (total > (uint64_t)INT_MAX)
            return OC_ERR_CHUNK_TOO_LARGE;
    }
    if (total == 0 && (src_size != 1 || src[0] != 0))
        return OC_ERR_CORRUPT; /* the only empty block is one zero token (liblz4 agrees) */
    if (total > (uint64_t)INT_MAX)
        return OC_ERR_CHUNK_TOO_LARGE;
    *decoded_size = (size_t)total;
    return OC_OK;
}
