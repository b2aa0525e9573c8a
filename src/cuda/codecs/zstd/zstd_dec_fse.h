/*
 * zstd_dec_fse.h - FSE table descriptions and decoding tables (RFC 8878 4.1) for
 * the GPU zstd decoder core.
 */
#ifndef OC_ZSTD_DEC_FSE_H
#define OC_ZSTD_DEC_FSE_H

#include "zstd_dec_common.h"

/* ---- FSE table description (RFC 8878 4.1.1) ---------------------------------
 * Reads normalized counts from [p, p+avail) (forward bit reads,
 * common/bitreader.h).  On success *log, *nsym and *used (bytes) are set;
 * norm[] holds nsym counts (-1 = "less than 1"). */
OC_CORE_BIGFN oc_status zd_read_ncount(const uint8_t *p, size_t avail, int max_sym, int max_log,
                                       int16_t *norm, int *log_out, int *nsym_out, size_t *used)
{
    if (avail < 1)
        return ZD_ERR(OC_ERR_CORRUPT);
    int log = (p[0] & 15) + 5;
    if (log > max_log)
        return ZD_ERR(OC_ERR_CORRUPT);
    size_t bit = 4;
    int remaining = (1 << log) + 1; /* values 0..remaining-? as the RFC: probability points left + 1 */
    int threshold = 1 << log;
    int nbits = log + 1;
    int sym = 0;
    while (remaining > 1 && sym <= max_sym) {
        int maxv = (2 * threshold - 1) - remaining;
        uint32_t v = oc_bits_forward(p, avail, bit, nbits);
        int count;
        if ((int)(v & (uint32_t)(threshold - 1)) < maxv) {
            count = (int)(v & (uint32_t)(threshold - 1));
            bit += (size_t)(nbits - 1);
        } else {
            count = (int)(v & (uint32_t)(2 * threshold - 1));
            if (count >= threshold)
                count -= maxv;
            bit += (size_t)nbits;
        }
        count -= 1;
        remaining -= count < 0 ? -count : count;
        norm[sym++] = (int16_t)count;
        if (count == 0) {
            for (;;) {
                uint32_t rep = oc_bits_forward(p, avail, bit, 2);
                bit += 2;
                for (uint32_t i = 0; i < rep; i++) {
                    if (sym > max_sym)
                        return ZD_ERR(OC_ERR_CORRUPT);
                    norm[sym++] = 0;
                }
                if (rep != 3)
                    break;
                if ((bit >> 3) > avail)
                    return ZD_ERR(OC_ERR_CORRUPT);
            }
        }
        while (remaining < threshold && threshold > 1) {
            nbits--;
            threshold >>= 1;
        }
        if ((bit >> 3) > avail)
            return ZD_ERR(OC_ERR_CORRUPT);
    }
    if (remaining != 1 || sym > max_sym + 1)
        return ZD_ERR(OC_ERR_CORRUPT);
    size_t bytes = (bit + 7) >> 3;
    if (bytes > avail)
        return ZD_ERR(OC_ERR_CORRUPT);
    *log_out = log;
    *nsym_out = sym;
    *used = bytes;
    return OC_OK;
}

/* Builds an FSE decoding table (RFC 8878 4.1.1, "From normalized distribution
 * to decoding tables").  Every lane of the warp computes it (all of them
 * call it together); all write the same values.  The warp syncs before the
 * first store (lanes may still read the previous table) and before reading
 * the symbols back (lanes may still be storing them). */
OC_CORE_BIGFN oc_status zd_build_fse(zd_fse_entry *t, const int16_t *norm, int nsym, int log,
                                     const uint8_t *xbits)
{
    OC_WARP_SYNC();
    uint32_t size = 1u << log;
    uint32_t high = size - 1;
    uint16_t next[64];
    for (int s = 0; s < nsym; s++) {
        if (norm[s] == -1) {
            t[high].sym = (uint8_t)s;
            high--;
            next[s] = 1;
        } else {
            next[s] = (uint16_t)(norm[s] > 0 ? norm[s] : 0);
        }
    }
    uint32_t step = (size >> 1) + (size >> 3) + 3, mask = size - 1, pos = 0;
    for (int s = 0; s < nsym; s++) {
        for (int i = 0; i < norm[s]; i++) {
            t[pos].sym = (uint8_t)s;
            do {
                pos = (pos + step) & mask;
            } while (pos > high);
        }
    }
    OC_WARP_SYNC();
    if (pos != 0)
        return ZD_ERR(OC_ERR_CORRUPT);
    for (uint32_t u = 0; u < size; u++) {
        uint8_t s = t[u].sym;
        uint32_t ns = next[s]++;
        int nb = log - oc_highbit32(ns);
        t[u].nbits = (uint8_t)nb;
        t[u].base = (uint16_t)(((ns << nb) - size) | (xbits ? (uint32_t)xbits[s] << 11 : 0u));
    }
    return OC_OK;
}

#endif /* OC_ZSTD_DEC_FSE_H */
