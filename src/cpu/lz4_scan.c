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
 * It accepts the same blocks as LZ4_decompress_safe with an output capacity
 * equal to the decoded size (the tests check this on mutated inputs):
 *   - a block ends right after the literals of its last sequence;
 *   - offsets are non-zero and reach no further back than the output start;
 *   - the end-of-block rules: the last match starts at least 12 bytes
 *     (MFLIMIT) and ends at least 5 bytes (LASTLITERALS) before the end;
 *   - after the literals of any sequence but the last, at least 8 input
 *     bytes remain (offset, a token and 5 last literals).
 * A block whose bytes run out mid-sequence, or right after a match, is
 * TRUNCATED; any other violation is CORRUPT.
 */
#include <limits.h>

#include "cpu_codec.h"

#define MFLIMIT 12
#define LASTLITERALS 5
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
    uint64_t total = 0, last_match_start = 0, last_match_end = 0;
    int have_match = 0, tail_violation = 0;

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
        if (iend - ip < 2 + 1 + LASTLITERALS)
            tail_violation = 1;
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
        last_match_start = total;
        total += ml;
        last_match_end = total;
        have_match = 1;
        if (total > (uint64_t)INT_MAX)
            return OC_ERR_CHUNK_TOO_LARGE;
    }
    if (tail_violation)
        return OC_ERR_CORRUPT;
    if (have_match && (last_match_start + MFLIMIT > total || last_match_end + LASTLITERALS > total))
        return OC_ERR_CORRUPT;
    if (total > (uint64_t)INT_MAX)
        return OC_ERR_CHUNK_TOO_LARGE;
    *decoded_size = (size_t)total;
    return OC_OK;
}
