/*
 * xxh.c - streaming XXH32 and XXH64 on the host (the LZ4 content checksum,
 * computed group by group while the whole-buffer layer compresses; the zstd
 * seek table's checksum of a frame the streaming reader decodes serially),
 * built from the one-shot pieces of xxh.h so both give the same hash.
 */
#include <string.h>

#include "xxh.h"

void oc_xxh32_init(oc_xxh32_state *s, uint32_t seed)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
    for (unsigned k = 0; k < 4; k++)
        s->v[k] = oc_xxh32_lane_init(k, seed);
}

static void stripe(uint32_t v[4], const uint8_t *p)
{
    for (unsigned k = 0; k < 4; k++)
        v[k] = oc_xxh32_round(v[k], oc_load_le32(p + 4 * k));
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
        stripe(s->v, s->mem);
        p += fill;
        len -= fill;
        s->mem_size = 0;
    }
    for (; len >= 16; p += 16, len -= 16)
        stripe(s->v, p);
    if (len)
        memcpy(s->mem, p, len);
    s->mem_size = (unsigned)len;
}

uint32_t oc_xxh32_digest(const oc_xxh32_state *s)
{
    return oc_xxh32_finish(s->v, s->mem, s->total, s->seed);
}

void oc_xxh64_init(oc_xxh64_state *s, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->seed = seed;
    for (unsigned k = 0; k < 4; k++)
        s->v[k] = oc_xxh64_lane_init(k, seed);
}

static void stripe64(uint64_t v[4], const uint8_t *p)
{
    for (unsigned k = 0; k < 4; k++)
        v[k] = oc_xxh64_round(v[k], oc_load_le64(p + 8 * k));
}

void oc_xxh64_update(oc_xxh64_state *s, const void *data, size_t len)
{
    const uint8_t *p = (const uint8_t *)data;
    s->total += len;
    if (s->mem_size + len < 32) {
        if (len)
            memcpy(s->mem + s->mem_size, p, len);
        s->mem_size += (unsigned)len;
        return;
    }
    if (s->mem_size) {
        size_t fill = 32 - s->mem_size;
        memcpy(s->mem + s->mem_size, p, fill);
        stripe64(s->v, s->mem);
        p += fill;
        len -= fill;
        s->mem_size = 0;
    }
    for (; len >= 32; p += 32, len -= 32)
        stripe64(s->v, p);
    if (len)
        memcpy(s->mem, p, len);
    s->mem_size = (unsigned)len;
}

uint64_t oc_xxh64_digest(const oc_xxh64_state *s)
{
    return oc_xxh64_finish(s->v, s->mem, s->total, s->seed);
}
