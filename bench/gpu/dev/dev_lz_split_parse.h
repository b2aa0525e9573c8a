/*
 * dev_lz_split_parse.h - the first half of the split decoder (v7, an
 * experiment, bench/NOTES.md "v7"): ONE THREAD parses one LZ4 block or
 * Snappy raw stream from front to back with the library decoders' checks,
 * in their order, and writes one record per sequence to global scratch;
 * the second half (dev_lz_split_copy.cuh) copies the records with a warp
 * per chunk.  Plain C (also compiled by lz_split_cpu_check.c against
 * liblz4 and snappy) and CUDA.
 *
 * Why: the library's rounds parser spends ~1300 cycles of latency and a few
 * hundred warp instructions per 32-byte window (NOTES.md, ncu), while a
 * lane walking the stream alone needs ~15 instructions and ~100 cycles per
 * element, and 32 chunks share each warp instruction.  The parse stops
 * being the slow half, and the copy half gets a whole warp with no
 * barriers.
 *
 * Record (16 bytes): literal (lit_len bytes from input offset lit_src),
 * then match (m_len bytes at distance m_off; m_len 0: none).  Output
 * positions are the running sum of lit_len + m_len (the copier's prefix
 * sum).  Snappy's elements are folded into the same shape: a literal
 * element is held until the next element; a copy takes it as its literal,
 * a second literal flushes it as a record of its own.  All fields 32-bit:
 * the caller guarantees srcn and cap below 2^32 (then every value stored
 * here has passed a check against one of them).
 *
 * Capacity: a record consumes at least 2 input bytes except the last
 * (LZ4: token + offset = 3; Snappy: tag + 1), so srcn / 2 + 1 records
 * always suffice (OC_SPLIT_MAX_RECS).
 */
#ifndef OC_DEV_LZ_SPLIT_PARSE_H
#define OC_DEV_LZ_SPLIT_PARSE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define OC_SPLIT_FN __device__ __forceinline__
#define OC_SPLIT_HD __host__ __device__ __forceinline__
#define OC_SPLIT_LD(p) __ldg(p)
#define OC_SPLIT_PREFETCH(p) asm volatile("prefetch.global.L1 [%0];" ::"l"(p))
#else
#define OC_SPLIT_FN static inline
#define OC_SPLIT_HD static inline
#define OC_SPLIT_LD(p) (*(p))
#define OC_SPLIT_PREFETCH(p) ((void)(p))
#endif

/* statuses: the values of opencomp.h (and lz_device.cuh's OC_D_*) */
#define OC_SPLIT_OK 0
#define OC_SPLIT_CORRUPT 3
#define OC_SPLIT_TRUNCATED 4
#define OC_SPLIT_OUTPUT_TOO_SMALL 5

#define OC_SPLIT_MAX_RECS(srcn) ((srcn) / 2 + 1)

typedef struct oc_split_rec {
    uint32_t lit_src, lit_len, m_off, m_len;
} oc_split_rec;

OC_SPLIT_FN void oc_split_put(oc_split_rec *recs, size_t *nrec, uint32_t lit_src, uint32_t lit_len,
                              uint32_t m_off, uint32_t m_len)
{
#ifdef __CUDACC__
    *(uint4 *)(recs + *nrec) = make_uint4(lit_src, lit_len, m_off, m_len);
#else
    oc_split_rec r = {lit_src, lit_len, m_off, m_len};
    recs[*nrec] = r;
#endif
    (*nrec)++;
}

/* Prefetch the input a few lines ahead of the walk (one instruction per
 * element; the line a walk enters next is then in L1). */
OC_SPLIT_FN void oc_split_ahead(const uint8_t *src, size_t srcn, size_t ip)
{
    if (ip + 384 < srcn)
        OC_SPLIT_PREFETCH(src + ip + 384);
}

/* LZ4 block: the checks of lz4_decode_rounds.cuh in its order per sequence
 * (literal length TRUNCATED, literal against the capacity, offset and
 * match length TRUNCATED, offset CORRUPT, match against the capacity, a
 * block that ends on a match TRUNCATED), then the end-of-block rules
 * (oc_lz4_end_rules).  Returns the status; *outn the decoded size. */
OC_SPLIT_FN int oc_split_parse_lz4(const uint8_t *src, size_t srcn, size_t cap, oc_split_rec *recs,
                                   size_t *nrec, size_t *outn)
{
    size_t ip = 0, op = 0, last_ms = 0, last_me = 0;
    int any_match = 0;
    *nrec = 0;
    if (srcn == 0)
        return OC_SPLIT_TRUNCATED;
    for (;;) {
        oc_split_ahead(src, srcn, ip);
        if (ip >= srcn)
            return OC_SPLIT_TRUNCATED;
        uint32_t token = OC_SPLIT_LD(src + ip);
        ip++;
        size_t lit = token >> 4;
        if (lit == 15) {
            uint32_t b;
            do {
                if (ip >= srcn)
                    return OC_SPLIT_TRUNCATED;
                b = OC_SPLIT_LD(src + ip);
                ip++;
                lit += b;
            } while (b == 255);
        }
        if (lit > srcn - ip)
            return OC_SPLIT_TRUNCATED;
        if (lit > cap - op)
            return OC_SPLIT_OUTPUT_TOO_SMALL;
        size_t lit_src = ip;
        ip += lit;
        if (ip == srcn) { /* the literals-only sequence ends the block */
            oc_split_put(recs, nrec, (uint32_t)lit_src, (uint32_t)lit, 0, 0);
            op += lit;
            break;
        }
        if (srcn - ip < 2)
            return OC_SPLIT_TRUNCATED;
        uint32_t off = (uint32_t)OC_SPLIT_LD(src + ip) | ((uint32_t)OC_SPLIT_LD(src + ip + 1) << 8);
        ip += 2;
        size_t ml = token & 15;
        if (ml == 15) {
            uint32_t b;
            do {
                if (ip >= srcn)
                    return OC_SPLIT_TRUNCATED;
                b = OC_SPLIT_LD(src + ip);
                ip++;
                ml += b;
            } while (b == 255);
        }
        ml += 4;
        size_t mo = op + lit;
        if (off == 0 || off > mo)
            return OC_SPLIT_CORRUPT;
        if (ml > cap - mo)
            return OC_SPLIT_OUTPUT_TOO_SMALL;
        if (ip >= srcn)
            return OC_SPLIT_TRUNCATED;
        oc_split_put(recs, nrec, (uint32_t)lit_src, (uint32_t)lit, off, (uint32_t)ml);
        last_ms = mo;
        last_me = mo + ml;
        any_match = 1;
        op = last_me;
    }
    /* end-of-block rules (oc_lz4_end_rules) */
    if (op == 0 && (srcn != 1 || OC_SPLIT_LD(src) != 0))
        return OC_SPLIT_CORRUPT;
    if (any_match && (op - last_me < 5 || op - last_ms < 12))
        return OC_SPLIT_CORRUPT;
    *outn = op;
    return OC_SPLIT_OK;
}

/* Snappy raw: the preamble (TRUNCATED when cut, CORRUPT above 5 bytes or
 * 2^32 - 1, OUTPUT_TOO_SMALL above cap), then per element the checks of
 * snappy_decode_rounds.cuh (header TRUNCATED; literal TRUNCATED then past
 * the declared length CORRUPT; copy offset 0, before the start or past the
 * declared length CORRUPT), and the declared length reached (TRUNCATED). */
OC_SPLIT_FN int oc_split_parse_snappy(const uint8_t *src, size_t srcn, size_t cap, oc_split_rec *recs,
                                      size_t *nrec, size_t *outn)
{
    *nrec = 0;
    uint64_t v = 0;
    size_t ip = 0;
    for (;;) {
        if (ip == 5) /* five bytes, all continued (before the end check, as the library's) */
            return OC_SPLIT_CORRUPT;
        if (ip >= srcn)
            return OC_SPLIT_TRUNCATED;
        uint32_t c = OC_SPLIT_LD(src + ip);
        v |= (uint64_t)(c & 0x7f) << (7 * ip);
        ip++;
        if (!(c & 0x80))
            break;
    }
    if (v > 0xffffffffu)
        return OC_SPLIT_CORRUPT;
    size_t ulen = (size_t)v;
    *outn = ulen;
    if (ulen > cap)
        return OC_SPLIT_OUTPUT_TOO_SMALL;
    size_t op = 0;
    uint32_t pend_src = 0, pend_len = 0; /* a literal waiting for its copy */
    int pend = 0;
    while (ip < srcn) {
        oc_split_ahead(src, srcn, ip);
        uint32_t tag = OC_SPLIT_LD(src + ip);
        uint32_t kind = tag & 3;
        if (kind == 0) {
            size_t lit = (tag >> 2) + 1, hdr = 1;
            if (lit > 60) {
                size_t nb = lit - 60;
                hdr = 1 + nb;
                if (srcn - ip < hdr)
                    return OC_SPLIT_TRUNCATED;
                uint32_t w = 0;
                for (size_t j = 0; j < nb; j++)
                    w |= (uint32_t)OC_SPLIT_LD(src + ip + 1 + j) << (8 * j);
                lit = (size_t)w + 1;
            }
            if (ip + hdr + lit > srcn) /* ip + hdr <= srcn and lit <= 2^32: no wrap */
                return OC_SPLIT_TRUNCATED;
            if (op + lit > ulen)
                return OC_SPLIT_CORRUPT;
            if (pend)
                oc_split_put(recs, nrec, pend_src, pend_len, 0, 0);
            pend = 1;
            pend_src = (uint32_t)(ip + hdr);
            pend_len = (uint32_t)lit;
            ip += hdr + lit;
            op += lit;
        } else {
            size_t hdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
            if (srcn - ip < hdr)
                return OC_SPLIT_TRUNCATED;
            uint32_t olen, off;
            if (kind == 1) {
                olen = ((tag >> 2) & 7) + 4;
                off = ((tag >> 5) << 8) | OC_SPLIT_LD(src + ip + 1);
            } else {
                olen = (tag >> 2) + 1;
                off = (uint32_t)OC_SPLIT_LD(src + ip + 1) | ((uint32_t)OC_SPLIT_LD(src + ip + 2) << 8);
                if (kind == 3)
                    off |= ((uint32_t)OC_SPLIT_LD(src + ip + 3) << 16) |
                           ((uint32_t)OC_SPLIT_LD(src + ip + 4) << 24);
            }
            if (off == 0 || off > op || op + olen > ulen)
                return OC_SPLIT_CORRUPT;
            oc_split_put(recs, nrec, pend ? pend_src : 0, pend ? pend_len : 0, off, olen);
            pend = 0;
            ip += hdr;
            op += olen;
        }
    }
    if (pend)
        oc_split_put(recs, nrec, pend_src, pend_len, 0, 0);
    return op == ulen ? OC_SPLIT_OK : OC_SPLIT_TRUNCATED;
}

#endif /* OC_DEV_LZ_SPLIT_PARSE_H */
