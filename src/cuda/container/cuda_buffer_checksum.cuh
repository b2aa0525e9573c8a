/*
 * cuda_buffer_checksum.cuh - the containers' checksums on the GPU, for the
 * whole-buffer layer on device buffers (cuda_buffer.cu): XXH32 (LZ4 block
 * and content checksums), XXH64 (zstd seek table), CRC-32C (snappy
 * framing, masked by the caller) and CRC-32 (gzip), written from their
 * specifications like src/format/xxhash.c and crc32c.c, whose results they
 * must equal (test_cuda_buffer compares them with the CPU engine's).
 *
 * One thread hashes one chunk (byte loads, so any alignment works); the
 * CRCs use a 256-entry table that the caller builds in shared memory with
 * oc_dev_crc_table.  XXH32 of a whole buffer (the LZ4 content checksum) has
 * a 4-lane form, oc_dev_xxh32_lane, so four threads share the stripes.
 * Everything is __host__ __device__ so the host can check it too.
 */
#ifndef OC_CUDA_BUFFER_CHECKSUM_CUH
#define OC_CUDA_BUFFER_CHECKSUM_CUH

#include <stddef.h>
#include <stdint.h>

#define OC_HD static inline __host__ __device__

#define OC_P32_1 2654435761u
#define OC_P32_2 2246822519u
#define OC_P32_3 3266489917u
#define OC_P32_4 668265263u
#define OC_P32_5 374761393u
#define OC_P64_1 11400714785074694791ull
#define OC_P64_2 14029467366897019727ull
#define OC_P64_3 1609587929392839161ull
#define OC_P64_4 9650029242287828579ull
#define OC_P64_5 2870177450012600261ull
#define OC_CRC32C_POLY 0x82F63B78u
#define OC_CRC32_POLY 0xEDB88320u

OC_HD uint32_t oc_dev_rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}
OC_HD uint64_t oc_dev_rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}
OC_HD uint32_t oc_dev_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
OC_HD uint64_t oc_dev_le64(const uint8_t *p)
{
    return (uint64_t)oc_dev_le32(p) | ((uint64_t)oc_dev_le32(p + 4) << 32);
}
OC_HD uint32_t oc_dev_xxh32_round(uint32_t acc, uint32_t lane)
{
    return oc_dev_rotl32(acc + lane * OC_P32_2, 13) * OC_P32_1;
}

/* Lane `k` (0..3) of XXH32 over the `stripes` full 16-byte stripes at p. */
OC_HD uint32_t oc_dev_xxh32_lane(const uint8_t *p, uint64_t stripes, unsigned k, uint32_t seed)
{
    uint32_t v = k == 0   ? seed + OC_P32_1 + OC_P32_2
                 : k == 1 ? seed + OC_P32_2
                 : k == 2 ? seed
                          : seed - OC_P32_1;
    for (uint64_t s = 0; s < stripes; s++)
        v = oc_dev_xxh32_round(v, oc_dev_le32(p + 16 * s + 4 * k));
    return v;
}

/* XXH32 finish: lanes v[4] (ignored when len < 16), the bytes after the
 * last full stripe at tail[0..len % 16). */
OC_HD uint32_t oc_dev_xxh32_finish(const uint32_t *v, const uint8_t *tail, uint64_t len, uint32_t seed)
{
    uint32_t h = len >= 16 ? oc_dev_rotl32(v[0], 1) + oc_dev_rotl32(v[1], 7) + oc_dev_rotl32(v[2], 12) +
                                 oc_dev_rotl32(v[3], 18)
                           : seed + OC_P32_5;
    h += (uint32_t)len;
    unsigned rest = (unsigned)(len & 15), i = 0;
    for (; i + 4 <= rest; i += 4)
        h = oc_dev_rotl32(h + oc_dev_le32(tail + i) * OC_P32_3, 17) * OC_P32_4;
    for (; i < rest; i++)
        h = oc_dev_rotl32(h + tail[i] * OC_P32_5, 11) * OC_P32_1;
    h ^= h >> 15;
    h *= OC_P32_2;
    h ^= h >> 13;
    h *= OC_P32_3;
    h ^= h >> 16;
    return h;
}

OC_HD uint32_t oc_dev_xxh32(const uint8_t *p, uint64_t len, uint32_t seed)
{
    uint64_t stripes = len / 16;
    uint32_t v[4];
    for (unsigned k = 0; k < 4; k++)
        v[k] = oc_dev_xxh32_lane(p, stripes, k, seed);
    return oc_dev_xxh32_finish(v, p + stripes * 16, len, seed);
}

OC_HD uint64_t oc_dev_xxh64_round(uint64_t acc, uint64_t lane)
{
    return oc_dev_rotl64(acc + lane * OC_P64_2, 31) * OC_P64_1;
}

OC_HD uint64_t oc_dev_xxh64(const uint8_t *p, uint64_t len, uint64_t seed)
{
    const uint8_t *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + OC_P64_1 + OC_P64_2, v2 = seed + OC_P64_2, v3 = seed, v4 = seed - OC_P64_1;
        uint64_t stripes = len / 32;
        for (uint64_t s = 0; s < stripes; s++, p += 32) {
            v1 = oc_dev_xxh64_round(v1, oc_dev_le64(p));
            v2 = oc_dev_xxh64_round(v2, oc_dev_le64(p + 8));
            v3 = oc_dev_xxh64_round(v3, oc_dev_le64(p + 16));
            v4 = oc_dev_xxh64_round(v4, oc_dev_le64(p + 24));
        }
        h = oc_dev_rotl64(v1, 1) + oc_dev_rotl64(v2, 7) + oc_dev_rotl64(v3, 12) + oc_dev_rotl64(v4, 18);
        h = (h ^ oc_dev_xxh64_round(0, v1)) * OC_P64_1 + OC_P64_4;
        h = (h ^ oc_dev_xxh64_round(0, v2)) * OC_P64_1 + OC_P64_4;
        h = (h ^ oc_dev_xxh64_round(0, v3)) * OC_P64_1 + OC_P64_4;
        h = (h ^ oc_dev_xxh64_round(0, v4)) * OC_P64_1 + OC_P64_4;
    } else {
        h = seed + OC_P64_5;
    }
    h += len;
    while (end - p >= 8) {
        h ^= oc_dev_xxh64_round(0, oc_dev_le64(p));
        h = oc_dev_rotl64(h, 27) * OC_P64_1 + OC_P64_4;
        p += 8;
    }
    if (end - p >= 4) {
        h ^= (uint64_t)oc_dev_le32(p) * OC_P64_1;
        h = oc_dev_rotl64(h, 23) * OC_P64_2 + OC_P64_3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)(*p) * OC_P64_5;
        h = oc_dev_rotl64(h, 11) * OC_P64_1;
        p++;
    }
    h ^= h >> 33;
    h *= OC_P64_2;
    h ^= h >> 29;
    h *= OC_P64_3;
    h ^= h >> 32;
    return h;
}

/* Entry i of the reflected CRC table of `poly`. */
OC_HD uint32_t oc_dev_crc_table_entry(uint32_t poly, uint32_t i)
{
    uint32_t c = i;
    for (int k = 0; k < 8; k++)
        c = (c & 1) ? (c >> 1) ^ poly : c >> 1;
    return c;
}

/* CRC of p[0..len) with table t (pre- and post-inverted, like zlib's crc32). */
OC_HD uint32_t oc_dev_crc(const uint32_t *t, const uint8_t *p, uint64_t len)
{
    uint32_t c = 0xffffffffu;
    for (uint64_t i = 0; i < len; i++)
        c = t[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return ~c;
}

OC_HD uint32_t oc_dev_crc32c_mask(uint32_t crc)
{
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

#endif /* OC_CUDA_BUFFER_CHECKSUM_CUH */
