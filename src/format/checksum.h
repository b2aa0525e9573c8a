/*
 * checksum.h - the checksums the containers write and verify.
 *
 * XXH32 (LZ4 frame header/block/content checksums), XXH64 (low 32 bits in
 * the zstd seek table) and CRC-32C (snappy framing, masked) are implemented
 * here from their specifications; CRC-32 (gzip) comes from libdeflate.
 * All functions are pure, thread-safe, and accept len == 0 with any pointer.
 */
#ifndef OC_FORMAT_CHECKSUM_H
#define OC_FORMAT_CHECKSUM_H

#include "../common/oc_internal.h"

/* XXH32 of p[0..len) with `seed` (xxHash specification, 32-bit variant). */
OC_HIDDEN uint32_t oc_xxh32(const void *p, size_t len, uint32_t seed);
/* Streaming XXH32 (same result as oc_xxh32 over the concatenation). */
typedef struct oc_xxh32_state {
    uint32_t v[4];
    uint64_t total;
    uint8_t mem[16];
    unsigned mem_size;
    uint32_t seed;
} oc_xxh32_state;
OC_HIDDEN void oc_xxh32_init(oc_xxh32_state *s, uint32_t seed);
OC_HIDDEN void oc_xxh32_update(oc_xxh32_state *s, const void *p, size_t len);
OC_HIDDEN uint32_t oc_xxh32_digest(const oc_xxh32_state *s);
/* XXH64 of p[0..len) with `seed` (xxHash specification, 64-bit variant). */
OC_HIDDEN uint64_t oc_xxh64(const void *p, size_t len, uint64_t seed);
/* CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) continuing from `crc`
 * (start with 0): pre- and post-inversion are done inside, like zlib's crc32. */
OC_HIDDEN uint32_t oc_crc32c(uint32_t crc, const void *p, size_t len);
/* The snappy framing format's mask: rotate right by 15, add 0xa282ead8. */
static inline uint32_t oc_crc32c_mask(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
/* CRC-32 (gzip, ISO-HDLC) continuing from `crc` (start with 0). */
OC_HIDDEN uint32_t oc_crc32(uint32_t crc, const void *p, size_t len);

#endif /* OC_FORMAT_CHECKSUM_H */
