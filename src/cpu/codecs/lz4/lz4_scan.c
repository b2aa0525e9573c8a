/*
 * lz4_scan.c - a bounded scanner of the LZ4 block format (lz4's
 * doc/lz4_Block_format.md).  It walks the sequences (token, literal
 * length, literals, offset, match length) reading only the bytes it must,
 * writes nothing, and decides whether the block is valid and how many
 * bytes it decodes to.  It is the one definition of a valid LZ4 block in
 * opencomp: the size query (oc_batch_decompressed_sizes) is this scanner,
 * the CPU decoder (codec_lz4.c) accepts what liblz4 decodes only when this
 * scanner agrees, and the GPU decoders (src/cuda/codecs/lz4/) apply the same
 * rules, so every engine and every capacity gives one verdict per block.
 *
 * A block is valid when:
 *   - every sequence is complete and the block ends right after the
 *     literals of its last sequence (the only one without a match);
 *   - every offset is non-zero and reaches no further back than the output
 *     start (the format calls offset 0 invalid; liblz4 1.9.4 decodes it as
 *     zeros, we do not);
 *   - the end-of-block rules hold: the last match ends at least 5 bytes and
 *     starts at least 12 bytes before the end of the output (LASTLITERALS,
 *     MFLIMIT).  The format lets a decoder refuse blocks that break them,
 *     and liblz4 refuses them or not depending on the capacity it is given;
 *     refusing them always is what makes the verdict independent of it,
 *     and refuses blocks cut right after a short last literal run;
 *   - an empty block is the single byte 0x00.
 * Input that runs out inside a sequence, or right after a match, is
 * TRUNCATED; a bad offset or a broken end-of-block rule is CORRUPT.
 */
#include <limits.h>

#include "../../cpu_codec.h"
#include "lz4_scan.h"

#define MINMATCH 4
#define LASTLITERALS 5
#define MFLIMIT 12

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
    uint64_t total = 0, match_start = 0, match_end = 0;
    int any_match = 0;

    if (src_size == 0)
        return OC_ERR_TRUNCATED;
    for (;;) {
        /* Fast path: with more than 20 bytes left, a sequence without
         * extension bytes (token, <= 14 literals, offset) cannot reach the
         * end of the input, so it needs no bound check. */
        while (iend - ip > 20) {
            const unsigned token = *ip;
            const unsigned lit = token >> 4, mlc = token & 15;
            if (lit == 15 || mlc == 15)
                break;
            const unsigned offset = (unsigned)ip[1 + lit] | ((unsigned)ip[2 + lit] << 8);
            ip += 3 + lit;
            total += lit;
            if (offset - 1u >= total) /* offset 0, or before the output start */
                return OC_ERR_CORRUPT;
            match_start = total;
            total += mlc + MINMATCH;
            match_end = total;
            any_match = 1;
        }
        /* One sequence, every read checked. */
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
        if (offset - 1u >= total)
            return OC_ERR_CORRUPT;
        uint64_t ml = token & 15;
        if (ml == 15 && !read_ext(&ip, iend, &ml))
            return OC_ERR_TRUNCATED;
        match_start = total;
        total += ml + MINMATCH;
        match_end = total;
        any_match = 1;
        if (total > (uint64_t)INT_MAX)
            return OC_ERR_CHUNK_TOO_LARGE;
    }
    if (total == 0 && (src_size != 1 || src[0] != 0))
        return OC_ERR_CORRUPT; /* the only empty block is one zero token */
    if (any_match && (total - match_end < LASTLITERALS || total - match_start < MFLIMIT))
        return OC_ERR_CORRUPT; /* the end-of-block rules */
    if (total > (uint64_t)INT_MAX)
        return OC_ERR_CHUNK_TOO_LARGE;
    *decoded_size = (size_t)total;
    return OC_OK;
}
