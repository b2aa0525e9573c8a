/*
 * chunk_sum.h - the per-chunk checksum a NATIVE container stores, computed
 * from a chunk's bytes by what the container's checksum covers
 * (oc_chunk_check, plan.h): one definition for the whole-buffer writer
 * (src/api/buffer.c) and the streaming writer and reader
 * (src/api/stream_write.c, stream_read.c), so they store and check the
 * same words.
 */
#ifndef OC_FORMAT_CHUNK_SUM_H
#define OC_FORMAT_CHUNK_SUM_H

#include "../common/crc.h"
#include "../common/xxh.h"
#include "plan.h"

/* `u`: the chunk's uncompressed bytes; `c`: its compressed stream. */
static inline uint32_t oc_chunk_sum(oc_chunk_check check, const uint8_t *u, size_t us, const uint8_t *c,
                                    size_t cs)
{
    switch (check) {
    case OC_CHECK_XXH32_STORED: /* of the bytes stored: the stream, or the chunk when not smaller */
        return cs >= us ? oc_xxh32(u, us, 0) : oc_xxh32(c, cs, 0);
    case OC_CHECK_XXH64_LOW:
        return (uint32_t)oc_xxh64(u, us, 0);
    case OC_CHECK_CRC32C_MASKED:
        return oc_crc32c_mask(oc_crc32c(0, u, us));
    case OC_CHECK_CRC32:
        return oc_crc32(0, u, us);
    case OC_CHECK_XXH32_CONTENT:
        return oc_xxh32(u, us, 0);
    default:
        return 0;
    }
}

#endif /* OC_FORMAT_CHUNK_SUM_H */
