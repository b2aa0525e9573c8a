/*
 * xxh.h - XXH32 and XXH64 (the xxHash specification, doc/xxhash_spec.md of
 * the xxHash project), one copy for the host and the GPU: the LZ4 frame's
 * header, block and content checksums (XXH32), the zstd frame checksum and
 * seek-table checksums (XXH64).
 *
 * Pieces as well as one-shot hashes, so parallel callers share the same
 * arithmetic: the four accumulator lanes run separately (oc_xxh32_lane,
 * oc_xxh64_lane: e.g. one GPU lane each over the full stripes) and
 * oc_xxh*_finish folds them with the tail.  The one-shot functions run the
 * four lanes interleaved in one pass.  Byte loads (le.h): any alignment.
 * Streaming XXH32 for the host lives in xxh.c.  Tested against libxxhash
 * (tests/c/test_common_primitives.c).
 */
#ifndef OC_XXH_H
#define OC_XXH_H

#include <stddef.h>
#include <stdint.h>

#include "le.h"
#include "portable.h"

#define OC_XXH_P32_1 2654435761u
#define OC_XXH_P32_2 2246822519u
#define OC_XXH_P32_3 3266489917u
#define OC_XXH_P32_4 668265263u
#define OC_XXH_P32_5 374761393u
#define OC_XXH_P64_1 11400714785074694791ull
#define OC_XXH_P64_2 14029467366897019727ull
#define OC_XXH_P64_3 1609587929392839161ull
#define OC_XXH_P64_4 9650029242287828579ull
#define OC_XXH_P64_5 2870177450012600261ull

OC_INLINE uint32_t oc_rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}
OC_INLINE uint64_t oc_rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

/* ---- XXH32: 16-byte stripes, four 32-bit lanes --------------------------- */

OC_INLINE uint32_t oc_xxh32_round(uint32_t acc, uint32_t in)
{
    return oc_rotl32(acc + in * OC_XXH_P32_2, 13) * OC_XXH_P32_1;
}

/* Lane k's starting value. */
OC_INLINE uint32_t oc_xxh32_lane_init(unsigned k, uint32_t seed)
{
    return k == 0   ? seed + OC_XXH_P32_1 + OC_XXH_P32_2
           : k == 1 ? seed + OC_XXH_P32_2
           : k == 2 ? seed
                    : seed - OC_XXH_P32_1;
}

/* Lane k (0..3) over the `stripes` full 16-byte stripes at p. */
OC_INLINE uint32_t oc_xxh32_lane(const uint8_t *p, uint64_t stripes, unsigned k, uint32_t seed)
{
    uint32_t v = oc_xxh32_lane_init(k, seed);
    for (uint64_t s = 0; s < stripes; s++)
        v = oc_xxh32_round(v, oc_load_le32(p + 16 * s + 4 * k));
    return v;
}

/* The hash of len bytes: lanes v[4] (unused when len < 16) and the bytes
 * after the last full stripe at tail[0..len % 16). */
OC_INLINE uint32_t oc_xxh32_finish(const uint32_t *v, const uint8_t *tail, uint64_t len, uint32_t seed)
{
    uint32_t h = len >= 16
                     ? oc_rotl32(v[0], 1) + oc_rotl32(v[1], 7) + oc_rotl32(v[2], 12) + oc_rotl32(v[3], 18)
                     : seed + OC_XXH_P32_5;
    h += (uint32_t)len;
    unsigned rest = (unsigned)(len & 15), i = 0;
    for (; i + 4 <= rest; i += 4)
        h = oc_rotl32(h + oc_load_le32(tail + i) * OC_XXH_P32_3, 17) * OC_XXH_P32_4;
    for (; i < rest; i++)
        h = oc_rotl32(h + tail[i] * OC_XXH_P32_5, 11) * OC_XXH_P32_1;
    h ^= h >> 15;
    h *= OC_XXH_P32_2;
    h ^= h >> 13;
    h *= OC_XXH_P32_3;
    h ^= h >> 16;
    return h;
}

OC_INLINE uint32_t oc_xxh32(const void *data, uint64_t len, uint32_t seed)
{
    const uint8_t *p = (const uint8_t *)data;
    uint64_t stripes = len / 16;
    uint32_t v[4] = {oc_xxh32_lane_init(0, seed), oc_xxh32_lane_init(1, seed), oc_xxh32_lane_init(2, seed),
                     oc_xxh32_lane_init(3, seed)};
    for (uint64_t s = 0; s < stripes; s++, p += 16) {
        v[0] = oc_xxh32_round(v[0], oc_load_le32(p));
        v[1] = oc_xxh32_round(v[1], oc_load_le32(p + 4));
        v[2] = oc_xxh32_round(v[2], oc_load_le32(p + 8));
        v[3] = oc_xxh32_round(v[3], oc_load_le32(p + 12));
    }
    return oc_xxh32_finish(v, p, len, seed);
}

/* ---- XXH64: 32-byte stripes, four 64-bit lanes --------------------------- */

OC_INLINE uint64_t oc_xxh64_round(uint64_t acc, uint64_t in)
{
    return oc_rotl64(acc + in * OC_XXH_P64_2, 31) * OC_XXH_P64_1;
}

OC_INLINE uint64_t oc_xxh64_merge(uint64_t h, uint64_t v)
{
    return (h ^ oc_xxh64_round(0, v)) * OC_XXH_P64_1 + OC_XXH_P64_4;
}

OC_INLINE uint64_t oc_xxh64_lane_init(unsigned k, uint64_t seed)
{
    return k == 0   ? seed + OC_XXH_P64_1 + OC_XXH_P64_2
           : k == 1 ? seed + OC_XXH_P64_2
           : k == 2 ? seed
                    : seed - OC_XXH_P64_1;
}

/* Lane k (0..3) over the `stripes` full 32-byte stripes at p. */
OC_INLINE uint64_t oc_xxh64_lane(const uint8_t *p, uint64_t stripes, unsigned k, uint64_t seed)
{
    uint64_t v = oc_xxh64_lane_init(k, seed);
    for (uint64_t s = 0; s < stripes; s++)
        v = oc_xxh64_round(v, oc_load_le64(p + 32 * s + 8 * k));
    return v;
}

/* The hash of len bytes: lanes v[4] (unused when len < 32) and the bytes
 * after the last full stripe at tail[0..len % 32). */
OC_INLINE uint64_t oc_xxh64_finish(const uint64_t *v, const uint8_t *tail, uint64_t len, uint64_t seed)
{
    uint64_t h;
    if (len >= 32) {
        h = oc_rotl64(v[0], 1) + oc_rotl64(v[1], 7) + oc_rotl64(v[2], 12) + oc_rotl64(v[3], 18);
        for (unsigned k = 0; k < 4; k++)
            h = oc_xxh64_merge(h, v[k]);
    } else {
        h = seed + OC_XXH_P64_5;
    }
    h += len;
    unsigned rest = (unsigned)(len & 31), i = 0;
    for (; i + 8 <= rest; i += 8) {
        h ^= oc_xxh64_round(0, oc_load_le64(tail + i));
        h = oc_rotl64(h, 27) * OC_XXH_P64_1 + OC_XXH_P64_4;
    }
    if (i + 4 <= rest) {
        h ^= (uint64_t)oc_load_le32(tail + i) * OC_XXH_P64_1;
        h = oc_rotl64(h, 23) * OC_XXH_P64_2 + OC_XXH_P64_3;
        i += 4;
    }
    for (; i < rest; i++) {
        h ^= (uint64_t)tail[i] * OC_XXH_P64_5;
        h = oc_rotl64(h, 11) * OC_XXH_P64_1;
    }
    h ^= h >> 33;
    h *= OC_XXH_P64_2;
    h ^= h >> 29;
    h *= OC_XXH_P64_3;
    h ^= h >> 32;
    return h;
}

OC_INLINE uint64_t oc_xxh64(const void *data, uint64_t len, uint64_t seed)
{
    const uint8_t *p = (const uint8_t *)data;
    uint64_t stripes = len / 32;
    uint64_t v[4] = {oc_xxh64_lane_init(0, seed), oc_xxh64_lane_init(1, seed), oc_xxh64_lane_init(2, seed),
                     oc_xxh64_lane_init(3, seed)};
    for (uint64_t s = 0; s < stripes; s++, p += 32) {
        v[0] = oc_xxh64_round(v[0], oc_load_le64(p));
        v[1] = oc_xxh64_round(v[1], oc_load_le64(p + 8));
        v[2] = oc_xxh64_round(v[2], oc_load_le64(p + 16));
        v[3] = oc_xxh64_round(v[3], oc_load_le64(p + 24));
    }
    return oc_xxh64_finish(v, p, len, seed);
}

/* ---- streaming XXH32 (host, xxh.c): the same result as oc_xxh32 over the
 * concatenation of every update. */
#ifndef __CUDACC__
typedef struct oc_xxh32_state {
    uint32_t v[4];
    uint64_t total;
    uint8_t mem[16];
    unsigned mem_size;
    uint32_t seed;
} oc_xxh32_state;
__attribute__((visibility("hidden"))) void oc_xxh32_init(oc_xxh32_state *s, uint32_t seed);
__attribute__((visibility("hidden"))) void oc_xxh32_update(oc_xxh32_state *s, const void *p, size_t len);
__attribute__((visibility("hidden"))) uint32_t oc_xxh32_digest(const oc_xxh32_state *s);

/* Streaming XXH64 (host, xxh.c): the same result as oc_xxh64 over the
 * concatenation of every update. */
typedef struct oc_xxh64_state {
    uint64_t v[4];
    uint64_t total;
    uint8_t mem[32];
    unsigned mem_size;
    uint64_t seed;
} oc_xxh64_state;
__attribute__((visibility("hidden"))) void oc_xxh64_init(oc_xxh64_state *s, uint64_t seed);
__attribute__((visibility("hidden"))) void oc_xxh64_update(oc_xxh64_state *s, const void *p, size_t len);
__attribute__((visibility("hidden"))) uint64_t oc_xxh64_digest(const oc_xxh64_state *s);
#endif

#endif /* OC_XXH_H */
