/*
 * xxhash.c - XXH32 and XXH64, written from the xxHash specification
 * (doc/xxhash_spec.md of the xxHash project): four accumulator lanes over
 * 16/32-byte stripes, then the tail, then the avalanche.  Loads are
 * byte-wise little-endian (memcpy-free, alignment-free) so any pointer works.
 */
#include <string.h>

#include "checksum.h"

#define P32_1 2654435761u
#define P32_2 2246822519u
#define P32_3 3266489917u
#define P32_4 668265263u
#define P32_5 374761393u

#define P64_1 11400714785074694791ull
#define P64_2 14029467366897019727ull
#define P64_3 1609587929392839161ull
#define P64_4 9650029242287828579ull
#define P64_5 2870177450012600261ull

static inline uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}
static inline uint64_t rotl64(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint32_t round32(uint32_t acc, uint32_t lane)
{
    acc += lane * P32_2;
    acc = rotl32(acc, 13);
    return acc * P32_1;
}

uint32_t oc_xxh32(const void *data, size_t len, uint32_t seed)
{
    const uint8_t *p = (const uint8_t *)data;
    const uint8_t *end = p + len;
    uint32_t h;
    if (len >= 16) {
        uint32_t v1 = seed + P32_1 + P32_2, v2 = seed + P32_2, v3 = seed, v4 = seed - P32_1;
        const uint8_t *limit = end - 16;
        do {
            v1 = round32(v1, oc_load_le32(p));
            v2 = round32(v2, oc_load_le32(p + 4));
            v3 = round32(v3, oc_load_le32(p + 8));
            v4 = round32(v4, oc_load_le32(p + 12));
            p += 16;
        } while (p <= limit);
        h = rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18);
    } else {
        h = seed + P32_5;
    }
    h += (uint32_t)len;
    while ((size_t)(end - p) >= 4) {
        h += oc_load_le32(p) * P32_3;
        h = rotl32(h, 17) * P32_4;
        p += 4;
    }
    while (p < end) {
        h += (uint32_t)(*p) * P32_5;
        h = rotl32(h, 11) * P32_1;
        p++;
    }
    h ^= h >> 15;
    h *= P32_2;
    h ^= h >> 13;
    h *= P32_3;
    h ^= h >> 16;
    return h;
}

void oc_xxh32_init(oc_xxh32_state *s, uint32_t seed)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
    s->v[0] = seed + P32_1 + P32_2;
    s->v[1] = seed + P32_2;
    s->v[2] = seed;
    s->v[3] = seed - P32_1;
}

static void stripe32(uint32_t v[4], const uint8_t *p)
{
    v[0] = round32(v[0], oc_load_le32(p));
    v[1] = round32(v[1], oc_load_le32(p + 4));
    v[2] = round32(v[2], oc_load_le32(p + 8));
    v[3] = round32(v[3], oc_load_le32(p + 12));
}

void oc_xxh32_update(oc_xxh32_state *s, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    s->total += len;
    if (s->mem_size + len < 16) {
        if (len)
            memcpy(s->mem + s->mem_size, p, len);
        s->mem_size += (unsigned)len;
        return;
    }
    if (s->mem_size) {
        size_t fill = 16 - s->mem_size;
        memcpy(s->mem + s->mem_size, p, fill);
        stripe32(s->v, s->mem);
        p += fill;
        len -= fill;
        s->mem_size = 0;
    }
    while (len >= 16) {
        stripe32(s->v, p);
        p += 16;
        len -= 16;
    }
    if (len)
        memcpy(s->mem, p, len);
    s->mem_size = (unsigned)len;
}

uint32_t oc_xxh32_digest(const oc_xxh32_state *s)
{
    uint32_t h;
    if (s->total >= 16)
        h = rotl32(s->v[0], 1) + rotl32(s->v[1], 7) + rotl32(s->v[2], 12) + rotl32(s->v[3], 18);
    else
        h = s->seed + P32_5;
    h += (uint32_t)s->total;
    const uint8_t *p = s->mem, *end = s->mem + s->mem_size;
    while ((size_t)(end - p) >= 4) {
        h += oc_load_le32(p) * P32_3;
        h = rotl32(h, 17) * P32_4;
        p += 4;
    }
    while (p < end) {
        h += (uint32_t)(*p) * P32_5;
        h = rotl32(h, 11) * P32_1;
        p++;
    }
    h ^= h >> 15;
    h *= P32_2;
    h ^= h >> 13;
    h *= P32_3;
    h ^= h >> 16;
    return h;
}

static inline uint64_t round64(uint64_t acc, uint64_t lane)
{
    acc += lane * P64_2;
    acc = rotl64(acc, 31);
    return acc * P64_1;
}

static inline uint64_t merge64(uint64_t acc, uint64_t v)
{
    acc ^= round64(0, v);
    return acc * P64_1 + P64_4;
}

uint64_t oc_xxh64(const void *data, size_t len, uint64_t seed)
{
    const uint8_t *p = (const uint8_t *)data;
    const uint8_t *end = p + len;
    uint64_t h;
    if (len >= 32) {
        uint64_t v1 = seed + P64_1 + P64_2, v2 = seed + P64_2, v3 = seed, v4 = seed - P64_1;
        const uint8_t *limit = end - 32;
        do {
            v1 = round64(v1, oc_load_le64(p));
            v2 = round64(v2, oc_load_le64(p + 8));
            v3 = round64(v3, oc_load_le64(p + 16));
            v4 = round64(v4, oc_load_le64(p + 24));
            p += 32;
        } while (p <= limit);
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = merge64(h, v1);
        h = merge64(h, v2);
        h = merge64(h, v3);
        h = merge64(h, v4);
    } else {
        h = seed + P64_5;
    }
    h += (uint64_t)len;
    while ((size_t)(end - p) >= 8) {
        h ^= round64(0, oc_load_le64(p));
        h = rotl64(h, 27) * P64_1 + P64_4;
        p += 8;
    }
    if ((size_t)(end - p) >= 4) {
        h ^= (uint64_t)oc_load_le32(p) * P64_1;
        h = rotl64(h, 23) * P64_2 + P64_3;
        p += 4;
    }
    while (p < end) {
        h ^= (uint64_t)(*p) * P64_5;
        h = rotl64(h, 11) * P64_1;
        p++;
    }
    h ^= h >> 33;
    h *= P64_2;
    h ^= h >> 29;
    h *= P64_3;
    h ^= h >> 32;
    return h;
}
