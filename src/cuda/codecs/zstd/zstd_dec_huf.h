/*
 * zstd_dec_huf.h - Huffman tree descriptions and the four-stream literal decoder
 * (RFC 8878 4.2) for the GPU zstd decoder core.
 */
#ifndef OC_ZSTD_DEC_HUF_H
#define OC_ZSTD_DEC_HUF_H

#include "zstd_dec_fse.h"

/* ---- Huffman tree description (RFC 8878 4.2.1) ------------------------------ */

OC_CORE_BIGFN oc_status zd_read_huffman(zd_tables *T, const uint8_t *p, size_t avail, int *log_out,
                                        size_t *used)
{
    uint8_t w[256];
    int nw = 0;
    if (avail < 1)
        return ZD_ERR(OC_ERR_CORRUPT);
    uint32_t hb = p[0];
    if (hb < 128) {
        size_t csz = hb;
        if (csz == 0 || 1 + csz > avail)
            return ZD_ERR(OC_ERR_CORRUPT);
        int16_t norm[16];
        int log, nsym;
        size_t nc;
        oc_status st = zd_read_ncount(p + 1, csz, 12, 6, norm, &log, &nsym, &nc);
        if (st != OC_OK)
            return st;
        st = zd_build_fse(T->hw, norm, nsym, log, NULL);
        OC_WARP_SYNC();
        if (st != OC_OK)
            return st;
        oc_bitrd r;
        st = zd_brd_init(&r, p + 1 + nc, csz - nc);
        if (st != OC_OK)
            return st;
        uint32_t s1 = oc_bitrd_read(&r, log), s2 = oc_bitrd_read(&r, log);
        for (;;) {
            if (nw > 253)
                return ZD_ERR(OC_ERR_CORRUPT);
            zd_fse_entry e = T->hw[s1];
            w[nw++] = e.sym;
            oc_bitrd_refill(&r);
            s1 = e.base + oc_bitrd_read(&r, e.nbits);
            if (oc_bitrd_pos(&r) < 0) {
                w[nw++] = T->hw[s2].sym;
                break;
            }
            if (nw > 253)
                return ZD_ERR(OC_ERR_CORRUPT);
            e = T->hw[s2];
            w[nw++] = e.sym;
            oc_bitrd_refill(&r);
            s2 = e.base + oc_bitrd_read(&r, e.nbits);
            if (oc_bitrd_pos(&r) < 0) {
                w[nw++] = T->hw[s1].sym;
                break;
            }
        }
        *used = 1 + csz;
    } else {
        nw = (int)hb - 127;
        size_t bytes = (size_t)(nw + 1) / 2;
        if (1 + bytes > avail)
            return ZD_ERR(OC_ERR_CORRUPT);
        for (int i = 0; i < nw; i++)
            w[i] = (uint8_t)((i & 1) ? (p[1 + i / 2] & 15) : (p[1 + i / 2] >> 4));
        *used = 1 + bytes;
    }
    uint32_t sum = 0;
    for (int i = 0; i < nw; i++) {
        if (w[i] > ZD_HUF_MAX_LOG)
            return ZD_ERR(OC_ERR_CORRUPT);
        sum += (1u << w[i]) >> 1;
    }
    if (sum == 0)
        return ZD_ERR(OC_ERR_CORRUPT);
    int maxbits = oc_highbit32(sum) + 1;
    if (maxbits > ZD_HUF_MAX_LOG)
        return ZD_ERR(OC_ERR_CORRUPT);
    uint32_t rest = (1u << maxbits) - sum;
    if (rest & (rest - 1))
        return ZD_ERR(OC_ERR_CORRUPT);
    w[nw++] = (uint8_t)(oc_highbit32(rest) + 1);
    /* rank starts: weight 1 (longest codes) first, natural symbol order */
    uint32_t start[ZD_HUF_MAX_LOG + 2];
    uint32_t cnt[ZD_HUF_MAX_LOG + 2];
    for (int i = 0; i <= ZD_HUF_MAX_LOG + 1; i++)
        cnt[i] = 0;
    for (int i = 0; i < nw; i++)
        cnt[w[i]]++;
    if (cnt[1] < 2 || (cnt[1] & 1))
        return ZD_ERR(OC_ERR_CORRUPT);
    uint32_t acc = 0;
    for (int k = 1; k <= maxbits; k++) {
        start[k] = acc;
        acc += cnt[k] << (k - 1);
    }
    OC_WARP_SYNC(); /* nobody still decodes with the previous table */
    for (int s = 0; s < nw; s++) {
        int k = w[s];
        if (k == 0)
            continue;
        uint32_t len = 1u << (k - 1);
        uint16_t v = (uint16_t)(s | ((maxbits + 1 - k) << 8));
        uint32_t at = start[k];
        start[k] += len;
        for (uint32_t i = OC_LANE(); i < len; i += OC_NLANES)
            T->huf[at + i] = v;
    }
    OC_WARP_SYNC();
    *log_out = maxbits;
    return OC_OK;
}

/* Decodes one Huffman stream of `count` symbols into out[]. */
OC_CORE_FN oc_status zd_huf_stream(const uint16_t *huf, int log, const uint8_t *p, size_t size, uint8_t *out,
                                   size_t count)
{
    oc_bitrd r;
    oc_status st = zd_brd_init(&r, p, size);
    if (st != OC_OK)
        return st;
    size_t i = 0;
    for (; i + 4 <= count; i += 4) { /* 4 codes of <= 11 bits per refill */
        oc_bitrd_refill(&r);
        for (int q = 0; q < 4; q++) {
            uint32_t e = huf[oc_bitrd_peek(&r, log)];
            out[i + (size_t)q] = (uint8_t)e;
            r.c += e >> 8;
        }
        if (oc_bitrd_pos(&r) < -64)
            return ZD_ERR(OC_ERR_CORRUPT);
    }
    for (; i < count; i++) {
        oc_bitrd_refill(&r);
        uint32_t e = huf[oc_bitrd_peek(&r, log)];
        out[i] = (uint8_t)e;
        r.c += e >> 8;
    }
    int endpos = oc_bitrd_pos(&r);
#if defined(ZD_TRACE) && !defined(__CUDACC__)
    if (endpos != 0)
        fprintf(stderr, "zd: huffman stream end pos %d size %zu count %zu log %d\n", endpos, size, count,
                log);
#endif
    return endpos == 0 ? OC_OK : OC_ERR_CORRUPT;
}

#endif /* OC_ZSTD_DEC_HUF_H */
