/*
 * blosclz.h - a BloscLZ stream decoder of our own, for host C11 and CUDA
 * device code (portable.h).  The GPU engine decodes Blosc's blosclz
 * streams with it; the CPU engine leaves them to libblosc, and
 * tests/c/test_blosc_core.c checks this decoder against libblosc's output.
 *
 * The format, learned from FastLZ's level-2 description (BloscLZ derives
 * from it) and checked by observing c-blosc's output (every stream of
 * blosclz chunks at levels 1-9 on text, ELF, TPC-H columns and float
 * weights decodes to c-blosc's bytes):
 *
 *   first byte: bits 0-4 a literal-run control, bits 5-7 ignored (c-blosc
 *   writes 1 there); then instructions until the stream ends:
 *     ctrl < 32   a run of ctrl + 1 literal bytes follows
 *     ctrl >= 32  a match: len = (ctrl >> 5) - 1; when len == 6, bytes
 *                 are added to len until one is not 255; then a byte
 *                 `code`; len += 3 bytes are copied from `dist` bytes
 *                 back, dist = ((ctrl & 31) << 8) + code + 1, except when
 *                 code == 255 and ctrl & 31 == 31: then two more bytes
 *                 (big-endian) d16 and dist = d16 + 8192.  A match may
 *                 overlap its own output (byte by byte semantics).
 *   the next instruction's ctrl is the next byte; the stream ends when
 *   its bytes are used up.
 *
 * Checks: every read against the input end (TRUNCATED), every write
 * against the capacity (OUTPUT_TOO_SMALL), every distance against the
 * output written so far (CORRUPT).  Nothing outside src[0..n) and
 * dst[0..cap) is touched, whatever the bytes.
 */
#ifndef OC_BLOSCLZ_H
#define OC_BLOSCLZ_H

#include <stddef.h>
#include <stdint.h>

#include "opencomp.h"
#include "portable.h"

#define OC_BLOSCLZ_FAR 8192u /* distances of the long form start here */

OC_INLINE oc_status oc_blosclz_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    size_t ip = 0, op = 0;
    if (n == 0)
        return OC_ERR_TRUNCATED;
    uint32_t ctrl = src[ip++] & 31u;
    for (;;) {
        if (ctrl >= 32) {
            size_t len = (ctrl >> 5) - 1;
            uint32_t hi = ctrl & 31u;
            if (len == 6) {
                uint32_t code;
                do {
                    if (ip >= n)
                        return OC_ERR_TRUNCATED;
                    code = src[ip++];
                    len += code;
                } while (code == 255);
            }
            if (ip >= n)
                return OC_ERR_TRUNCATED;
            uint32_t code = src[ip++];
            size_t dist;
            if (code == 255 && hi == 31) {
                if (n - ip < 2)
                    return OC_ERR_TRUNCATED;
                dist = (((size_t)src[ip] << 8) | src[ip + 1]) + OC_BLOSCLZ_FAR;
                ip += 2;
            } else {
                dist = ((size_t)hi << 8) + code + 1;
            }
            len += 3;
            if (dist > op)
                return OC_ERR_CORRUPT;
            if (len > cap - op)
                return OC_ERR_OUTPUT_TOO_SMALL;
            const uint8_t *ref = dst + op - dist;
            for (size_t k = 0; k < len; k++)
                dst[op + k] = ref[k];
            op += len;
        } else {
            size_t len = (size_t)ctrl + 1;
            if (len > n - ip)
                return OC_ERR_TRUNCATED;
            if (len > cap - op)
                return OC_ERR_OUTPUT_TOO_SMALL;
            for (size_t k = 0; k < len; k++)
                dst[op + k] = src[ip + k];
            ip += len;
            op += len;
        }
        if (ip >= n)
            break;
        ctrl = src[ip++];
    }
    *out = op;
    return OC_OK;
}

#endif /* OC_BLOSCLZ_H */
