/*
 * deflate_checksum_core.h - CRC-32 (gzip, RFC 1952) and Adler-32 (zlib,
 * RFC 1950) of a buffer computed by one warp on the GPU, or by one thread
 * on the host: the same source for both (see inflate_core.h for why).  The
 * per-byte arithmetic is the library's (src/common/crc.h, adler32.h); this
 * file splits the buffer over the lanes and joins their results.
 *
 * Lane k takes the k-th of 32 equal segments.
 *   - CRC-32: each lane computes its segment's "raw" remainder (zero
 *     initial value, no final complement: linear in the message); the
 *     segments are joined by multiplying each remainder by x^(8 * bytes
 *     after the segment) mod P (zlib's crc32_combine arithmetic,
 *     reflected), XOR-ing them, and applying the initial value and final
 *     complement of the whole buffer at once.
 *   - Adler-32: each lane computes its segment's sum a_k and weighted sum
 *     b_k = sum (end_k - i + 1) m_i (Adler-32 from 0); then A = 1 + sum a_k
 *     and B = N + sum (b_k + (N - end_k) a_k), all mod 65521.
 * The byte table (1 KiB) lives where the caller puts it: shared memory on
 * the GPU (filled once per block with dck_crc_table_fill), a static array
 * on the host.
 */
#ifndef OC_DEFLATE_CHECKSUM_CORE_H
#define OC_DEFLATE_CHECKSUM_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "../../../common/adler32.h"
#include "../../../common/crc.h"
#include "../../../common/portable.h"

/* x^(2^k) mod P (reflected CRC-32 polynomial), k = 0..31. */
OC_CORE_CONST uint32_t dck_x2n[32] = {
    0x40000000u, 0x20000000u, 0x08000000u, 0x00800000u, 0x00008000u, 0xEDB88320u, 0xB1E6B092u, 0xA06A2517u,
    0xED627DAEu, 0x88D14467u, 0xD7BBFE6Au, 0xEC447F11u, 0x8E7EA170u, 0x6427800Eu, 0x4D47BAE0u, 0x09FE548Fu,
    0x83852D0Fu, 0x30362F1Au, 0x7B5A9CC3u, 0x31FEC169u, 0x9FEC022Au, 0x6C8DEDC4u, 0x15D6874Du, 0x5FDE7A4Eu,
    0xBAD90E37u, 0x2E4E5EEFu, 0x4EABA214u, 0xA8A472C0u, 0x429A969Eu, 0x148D302Au, 0xC40BA6D0u, 0xC4E22C3Cu};

/* Fills the CRC-32 byte table; thread t of nt does its share. */
OC_CORE_FN void dck_crc_table_fill(uint32_t *table, uint32_t t, uint32_t nt)
{
    for (uint32_t i = t; i < 256; i += nt)
        table[i] = oc_crc_table_entry(OC_CRC32_POLY, i);
}

/* a * b mod P in the reflected representation. */
OC_CORE_FN uint32_t dck_mult(uint32_t a, uint32_t b)
{
    uint32_t p = 0;
    for (int i = 31; i >= 0; i--) {
        p ^= b & (0u - ((a >> i) & 1u));
        b = (b >> 1) ^ (OC_CRC32_POLY & (0u - (b & 1u)));
    }
    return p;
}

/* x^(8n) mod P. */
OC_CORE_FN uint32_t dck_x8n(uint64_t n)
{
    uint32_t p = 0x80000000u; /* x^0 */
    for (uint32_t k = 3; n; n >>= 1, k++)
        if (n & 1)
            p = dck_mult(dck_x2n[k & 31], p);
    return p;
}

/* Segment [*lo, *hi) of lane `lane` when n bytes are split in OC_NLANES. */
OC_CORE_FN void dck_segment(size_t n, uint32_t lane, size_t *lo, size_t *hi)
{
    size_t seg = (n + OC_NLANES - 1) / OC_NLANES;
    size_t a = seg * lane, b = a + seg;
    *lo = a < n ? a : n;
    *hi = b < n ? b : n;
}

#ifdef __CUDACC__
OC_CORE_FN uint32_t dck_warp_xor(uint32_t v)
{
    for (int d = 16; d > 0; d >>= 1)
        v ^= __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

OC_CORE_FN uint32_t dck_warp_sum_mod(uint32_t v) /* every lane's v < 65521 */
{
    for (int d = 16; d > 0; d >>= 1) {
        v += __shfl_xor_sync(0xffffffffu, v, d);
        v = v >= OC_ADLER_MOD ? v - OC_ADLER_MOD : v;
    }
    return v;
}
#endif

/* CRC-32 (gzip) of p[0..n).  Every lane returns it. */
OC_CORE_BIGFN uint32_t dck_crc32(const uint32_t *table, const uint8_t *p, size_t n)
{
    size_t lo, hi;
    dck_segment(n, OC_LANE(), &lo, &hi);
    uint32_t c = ~oc_crc_update(table, 0xFFFFFFFFu, p + lo, hi - lo); /* raw remainder */
    if (hi < n && c != 0)
        c = dck_mult(dck_x8n(n - hi), c);
#ifdef __CUDACC__
    c = dck_warp_xor(c);
#endif
    return c ^ dck_mult(dck_x8n(n), 0xFFFFFFFFu) ^ 0xFFFFFFFFu;
}

/* Adler-32 (zlib) of p[0..n).  Every lane returns it. */
OC_CORE_BIGFN uint32_t dck_adler32(const uint8_t *p, size_t n)
{
    size_t lo, hi;
    dck_segment(n, OC_LANE(), &lo, &hi);
    uint32_t s = oc_adler32(0, p + lo, hi - lo);
    uint32_t a = s & 0xFFFFu, b = s >> 16;
    /* this lane's share: a_k, and b_k + (N - end_k) a_k */
    uint32_t after = (uint32_t)((n - hi) % OC_ADLER_MOD);
    uint32_t bt = (uint32_t)((b + (uint64_t)after * a) % OC_ADLER_MOD);
#ifdef __CUDACC__
    a = dck_warp_sum_mod(a);
    bt = dck_warp_sum_mod(bt);
#endif
    uint32_t A = (1u + a) % OC_ADLER_MOD;
    uint32_t B = (uint32_t)((bt + n % OC_ADLER_MOD) % OC_ADLER_MOD);
    return (B << 16) | A;
}

#endif /* OC_DEFLATE_CHECKSUM_CORE_H */
