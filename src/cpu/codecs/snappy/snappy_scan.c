/*
 * snappy_scan.c - a bounded scanner of the Snappy raw format (snappy's
 * format_description.txt): the varint preamble, then literal and copy
 * elements.  Like lz4_scan.c it writes nothing and reads only tags, lengths
 * and offsets, so the CPU codec can name a failure (snappy's C API only says
 * "invalid input") and can refuse a bad stream before writing anything:
 *   - input ending inside the preamble, a tag, a literal or before the
 *     declared length is produced: TRUNCATED;
 *   - a preamble over 2^32-1 or 5 bytes, an offset of 0 or before the output
 *     start, or elements producing more than the declared length: CORRUPT.
 */
#include "../../cpu_codec.h"
#include "snappy_scan.h"

oc_status oc_snappy_scan(const uint8_t *src, size_t src_size, size_t *decoded_size)
{
    const uint8_t *ip = src, *const iend = src + src_size;
    uint64_t declared = 0;
    for (int shift = 0;; shift += 7) {
        if (ip >= iend)
            return OC_ERR_TRUNCATED;
        if (shift > 28)
            return OC_ERR_CORRUPT;
        uint8_t b = *ip++;
        declared |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
    }
    if (declared > 0xFFFFFFFFu)
        return OC_ERR_CORRUPT;

    uint64_t produced = 0;
    while (ip < iend) {
        const unsigned tag = *ip++;
        uint64_t len, offset = 0;
        switch (tag & 3) {
        case 0: /* literal */
            len = tag >> 2;
            if (len >= 60) {
                unsigned extra = (unsigned)len - 59;
                if ((size_t)(iend - ip) < extra)
                    return OC_ERR_TRUNCATED;
                len = 0;
                for (unsigned k = 0; k < extra; k++)
                    len |= (uint64_t)ip[k] << (8 * k);
                ip += extra;
            }
            len += 1;
            if (produced + len > declared)
                return OC_ERR_CORRUPT;
            if (len > (uint64_t)(iend - ip))
                return OC_ERR_TRUNCATED;
            ip += len;
            produced += len;
            continue;
        case 1: /* copy, 1-byte offset */
            if (ip >= iend)
                return OC_ERR_TRUNCATED;
            len = 4 + ((tag >> 2) & 7);
            offset = ((uint64_t)(tag >> 5) << 8) | *ip++;
            break;
        case 2: /* copy, 2-byte offset */
            if (iend - ip < 2)
                return OC_ERR_TRUNCATED;
            len = (tag >> 2) + 1;
            offset = (uint64_t)ip[0] | ((uint64_t)ip[1] << 8);
            ip += 2;
            break;
        default: /* copy, 4-byte offset */
            if (iend - ip < 4)
                return OC_ERR_TRUNCATED;
            len = (tag >> 2) + 1;
            offset = oc_load_le32(ip);
            ip += 4;
            break;
        }
        if (offset == 0 || offset > produced || produced + len > declared)
            return OC_ERR_CORRUPT;
        produced += len;
    }
    if (produced != declared)
        return OC_ERR_TRUNCATED;
    *decoded_size = (size_t)declared;
    return OC_OK;
}
