/*
 * inflate_huff_core.h - RFC 1951's Huffman codes for the GPU decoders that
 * share them: the decode-table entry, the cooperative (warp) table build
 * and the canonical decode of codes longer than the table.  Split out of
 * inflate_core.h so that the GDeflate page decoder
 * (src/cuda/codecs/gdeflate/gdeflate_dec_core.h) builds its tables with the
 * same code without pulling in the Deflate stream decoder.  Like
 * inflate_core.h it compiles with nvcc (one warp) and a C11 compiler (one
 * lane).
 */
#ifndef OC_INFLATE_HUFF_CORE_H
#define OC_INFLATE_HUFF_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "opencomp.h"

#include "../../../common/portable.h"
#include "../../../common/deflate_tables.h"

/* INF_TRACE (host builds): print the line of every error return. */
#if defined(INF_TRACE) && !defined(__CUDACC__)
#include <stdio.h>
#define INF_ERR(st) (fprintf(stderr, "inf: status %d at line %d\n", (int)(st), __LINE__), (st))
#else
#define INF_ERR(st) (st)
#endif

/* INF_STATS (host builds, bench/gpu/dev only): counts what the napkin math
 * of DEFLATE_NOTES.md needs, into a struct the includer defines. */
#if defined(INF_STATS) && !defined(__CUDACC__)
#define INF_COUNT(field, v) (inf_stats.field += (v))
#else
#define INF_COUNT(field, v) ((void)0)
#endif

#define INF_TB 10u    /* literal/length table bits */
#define INF_DTB 8u    /* distance table bits */
#define INF_PTB 7u    /* precode table bits (its codes are at most 7 bits) */
#define INF_NLIT 288u /* literal/length code lengths a block may list */
#define INF_NDIST 32u /* distance code lengths a block may list */

/* Decode table entry (32 bits):
 *   [8:0]   literal (LIT1), first literal (LIT2, [7:0]) or base (LEN/DIST [15:0])
 *   [15:8]  second literal (LIT2)
 *   [19:16] extra bits (LEN/DIST), first code's length (LIT2)
 *   [23:20] code length (bits of the Huffman code itself, 1..15)
 *   [28:24] bits to consume: code length (+ extra bits for LEN/DIST)
 *   [31:29] kind */
#define INF_K_LIT1 0u
#define INF_K_LIT2 1u
#define INF_K_LEN 2u /* length (litlen table) or distance (distance table) */
#define INF_K_EOB 3u
#define INF_K_SLOW 4u /* code longer than the table: decode canonically */
#define INF_K_BAD 5u  /* unused codeword or reserved symbol */
#define INF_KIND(e) ((e) >> 29)
#define INF_TOTAL(e) (((e) >> 24) & 31u)
#define INF_CLEN(e) (((e) >> 20) & 15u)
#define INF_EXTRA(e) (((e) >> 16) & 15u)

/* Canonical description of one code, for SLOW entries and table fills:
 * codes of length L are first[L] .. first[L]+count[L]-1 (MSB-first) and
 * decode to syms[offset[L] + code - first[L]]. */
typedef struct inf_canon {
    uint16_t first[16];
    uint16_t count[16];
    uint16_t offset[16];
    uint32_t limit[16]; /* (first+count) << (TB - L), left-justified, L <= TB */
} inf_canon;

/* ---- small helpers ---------------------------------------------------------- */

OC_CORE_FN uint32_t inf_rev(uint32_t v, uint32_t nbits) /* reverse the low nbits bits (nbits >= 1) */
{
#ifdef __CUDACC__
    return __brev(v) >> (32u - nbits);
#else
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
    v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
    v = (v >> 16) | (v << 16);
    return v >> (32u - nbits);
#endif
}

/* RFC 1951 3.2.5 and 3.2.7: common/deflate_tables.h (rfc1951_*). */

#define INF_TABLE_LIT 0
#define INF_TABLE_DIST 1
#define INF_TABLE_PRE 2
/* GDeflate's tables (docs/FORMAT.md: deflate's alphabets, one symbol a
 * visit, with GDeflate's lengths and distances of deflate_tables.h).
 * GLIT: literal/length without two-literal entries; length 285 has 16 extra
 * bits, more than INF_EXTRA holds, so GLIT and GDIST entries give their
 * extra bits as INF_GXTRA (the bits to consume less the code's).  GLIT
 * keeps a reserved symbol (286-287) in a BAD entry's low bits, so that its
 * code is read before it is refused, while an unused codeword (low bits 0)
 * is refused unread, as the CPU decoder does; every distance symbol 0-31 is
 * valid.  GPRE: the precode under the common rule (an empty code or one
 * 1-bit code may be incomplete). */
#define INF_TABLE_GLIT 3
#define INF_TABLE_GDIST 4
#define INF_TABLE_GPRE 5
#define INF_GXTRA(e) (INF_TOTAL(e) - INF_CLEN(e)) /* a GLIT/GDIST length or distance's extra bits */

/* The entry for `sym` of a code of length clen in table `kind`. */
OC_CORE_FN uint32_t inf_entry(int kind, uint32_t sym, uint32_t clen)
{
    uint32_t c = (clen << 20) | (clen << 24);
    if (kind == INF_TABLE_GLIT) {
        if (sym >= 286)
            return sym | c | (INF_K_BAD << 29);
        if (sym > 256) {
            uint32_t x = gdeflate_len_extra[sym - 257];
            return gdeflate_len_base[sym - 257] | ((x & 15u) << 16) | (clen << 20) | ((clen + x) << 24) |
                   (INF_K_LEN << 29);
        }
        kind = INF_TABLE_LIT;
    }
    if (kind == INF_TABLE_GDIST) {
        uint32_t x = gdeflate_dist_extra[sym & 31u];
        return gdeflate_dist_base[sym & 31u] | (x << 16) | (clen << 20) | ((clen + x) << 24) |
               (INF_K_LEN << 29);
    }
    if (kind == INF_TABLE_LIT) {
        if (sym < 256)
            return sym | c | (INF_K_LIT1 << 29);
        if (sym == 256)
            return c | (INF_K_EOB << 29);
        if (sym < 286) {
            uint32_t x = rfc1951_len_extra[sym - 257];
            return rfc1951_len_base[sym - 257] | (x << 16) | (clen << 20) | ((clen + x) << 24) |
                   (INF_K_LEN << 29);
        }
        return c | (INF_K_BAD << 29);
    }
    if (kind == INF_TABLE_DIST) {
        if (sym < 30) {
            uint32_t x = rfc1951_dist_extra[sym];
            return rfc1951_dist_base[sym] | (x << 16) | (clen << 20) | ((clen + x) << 24) | (INF_K_LEN << 29);
        }
        return c | (INF_K_BAD << 29);
    }
    return sym | c | (INF_K_LIT1 << 29); /* precode symbol 0..18 */
}

/* ---- Huffman tables -------------------------------------------------------------
 * inf_build makes the decode table `table` (2^tb entries) and the canonical
 * description `can`/`syms` of a code from nsym lengths (lens[], 0 = unused),
 * cooperatively.  CORRUPT for an over-subscribed code, or an incomplete one
 * other than an empty code or a single code of length 1 (zlib's rules; the
 * unused codewords decode as BAD). */
OC_CORE_BIGFN oc_status inf_build(const uint8_t *lens, uint32_t nsym, int kind, uint32_t *table, uint32_t tb,
                                  inf_canon *can, uint16_t *syms)
{
    uint32_t lane = OC_LANE();
    /* counts per length: a ballot per length value and 32 symbols */
    uint32_t cnt[16];
    for (uint32_t l = 0; l < 16; l++)
        cnt[l] = 0;
    for (uint32_t s0 = 0; s0 < nsym; s0 += OC_NLANES) {
        uint32_t s = s0 + lane;
        uint32_t len = s < nsym ? lens[s] : 0;
        for (uint32_t l = 1; l < 16; l++)
            cnt[l] += oc_popc32(OC_WARP_BALLOT(len == l));
    }
    /* canonical first codes, offsets, completeness (every lane, same values) */
    uint32_t code = 0, off = 0, used = 0, maxlen = 0;
    uint32_t first[16], offset[16];
    for (uint32_t l = 1; l < 16; l++) {
        code = (code + (l > 1 ? cnt[l - 1] : 0)) << 1;
        if (l == 1)
            code = 0;
        first[l] = code;
        offset[l] = off;
        off += cnt[l];
        used = (used << 1) + cnt[l];
        if (cnt[l])
            maxlen = l;
    }
    /* used = codespace in units of 2^-15 */
    if (used > (1u << 15))
        return INF_ERR(OC_ERR_CORRUPT);
    if (used < (1u << 15) && !(used == 0 || (maxlen == 1 && cnt[1] == 1)))
        return INF_ERR(OC_ERR_CORRUPT);
    if (kind == INF_TABLE_PRE && used < (1u << 15))
        return INF_ERR(OC_ERR_CORRUPT); /* zlib wants a complete precode */
    OC_WARP_SYNC();                     /* nobody still reads the previous table */
    if (lane == 0) {
        for (uint32_t l = 0; l < 16; l++) {
            can->first[l] = (uint16_t)(l ? first[l] : 0);
            can->count[l] = (uint16_t)cnt[l];
            can->offset[l] = (uint16_t)(l ? offset[l] : 0);
            can->limit[l] = l && l <= tb ? (first[l] + cnt[l]) << (tb - l) : 0;
        }
    }
    /* sorted symbols: rank of each symbol among those of its length */
    uint32_t run[16];
    for (uint32_t l = 0; l < 16; l++)
        run[l] = l ? offset[l] : 0;
    for (uint32_t s0 = 0; s0 < nsym; s0 += OC_NLANES) {
        uint32_t s = s0 + lane;
        uint32_t len = s < nsym ? lens[s] : 0;
        uint32_t below = (uint32_t)((1ull << lane) - 1u);
        uint32_t mine = 0;
        for (uint32_t l = 1; l < 16; l++) {
            uint32_t b = OC_WARP_BALLOT(len == l);
            if (len == l)
                mine = run[l] + oc_popc32(b & below);
            run[l] += oc_popc32(b);
        }
        if (len)
            syms[mine] = (uint16_t)s;
    }
    OC_WARP_SYNC();
    /* fill: entry i is the code whose reversed bits are i's low bits */
    uint32_t size = 1u << tb;
    for (uint32_t i = lane; i < size; i += OC_NLANES) {
        uint32_t c = inf_rev(i, tb); /* left-justified code bits */
        uint32_t e;
        if (maxlen == 0) {
            e = INF_K_BAD << 29; /* empty code: every codeword unused */
        } else {
            uint32_t l = 1;
            for (uint32_t m = 1; m < tb && m < 16; m++)
                l += c >= can->limit[m];
            if (l <= maxlen && c < can->limit[l]) {
                uint32_t cd = c >> (tb - l);
                e = inf_entry(kind, syms[offset[l] + cd - first[l]], l);
            } else if (maxlen > tb) {
                e = INF_K_SLOW << 29;
            } else {
                e = (INF_K_BAD << 29) | (1u << 20) | (1u << 24);
            }
        }
        table[i] = e;
    }
    OC_WARP_SYNC();
    if (kind != INF_TABLE_LIT)
        return OC_OK;
    /* two literals in one entry when both codes fit in the table bits */
    for (uint32_t g = 0; g < size; g += 8 * OC_NLANES) {
        uint32_t upd[8];
        for (uint32_t j = 0; j < 8; j++) {
            uint32_t i = g + j * OC_NLANES + lane;
            uint32_t e = table[i];
            upd[j] = e;
            if (INF_KIND(e) == INF_K_LIT1 && INF_CLEN(e) < tb) {
                uint32_t l1 = INF_CLEN(e);
                uint32_t e2 = table[i >> l1];
                uint32_t k2 = INF_KIND(e2), l2 = k2 == INF_K_LIT2 ? INF_EXTRA(e2) : INF_CLEN(e2);
                if ((k2 == INF_K_LIT1 || k2 == INF_K_LIT2) && l1 + l2 <= tb)
                    upd[j] = (e & 0xFFu) | ((e2 & 0xFFu) << 8) | (l1 << 16) | (l1 << 20) | ((l1 + l2) << 24) |
                             (INF_K_LIT2 << 29);
            }
        }
        OC_WARP_SYNC();
        for (uint32_t j = 0; j < 8; j++)
            table[g + j * OC_NLANES + lane] = upd[j];
        OC_WARP_SYNC();
    }
    return OC_OK;
}

/* Decodes a code longer than the table from the next 15 bits (SLOW entry):
 * the entry of the symbol, or a BAD entry. */
OC_CORE_FN uint32_t inf_slow(const inf_canon *can, const uint16_t *syms, int kind, uint32_t tb, uint64_t bb)
{
    uint32_t c = inf_rev((uint32_t)bb & 0x7FFFu, 15);
    for (uint32_t l = tb + 1; l < 16; l++) {
        uint32_t cd = c >> (15 - l);
        uint32_t d = cd - can->first[l];
        if (d < can->count[l])
            return inf_entry(kind, syms[can->offset[l] + d], l);
    }
    return (INF_K_BAD << 29) | (1u << 20) | (1u << 24);
}

#endif /* OC_INFLATE_HUFF_CORE_H */
