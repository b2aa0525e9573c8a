/*
 * zstd_walk.h - finds where one zstd frame (or skippable frame) ends and
 * what content size its header declares, from frame and block headers
 * only (RFC 8878 3.1.1 and 3.1.1.2), without decoding.
 *
 * Inline and __host__ __device__ under nvcc because two readers need the
 * same answer: the CPU container reader (zstd_seekable.c) and the GPU
 * whole-buffer decoder (src/cuda/container/cuda_buffer_decode.cu), which walks each
 * seek-table entry on the device where the bytes are.
 */
#ifndef OC_FORMAT_ZSTD_WALK_H
#define OC_FORMAT_ZSTD_WALK_H

#include <stdint.h>

#include "layout.h"

typedef struct oc_zstd_frame {
    uint64_t size;         /* bytes of the whole frame */
    uint64_t content_size; /* if has_size */
    int has_size;
    int skippable;
    uint64_t window; /* Window_Size (single segment: the content size) */
} oc_zstd_frame;

/* OC_OK, or TRUNCATED / CORRUPT (as oc_status values). */
OC_INLINE int oc_zstd_walk_frame(const uint8_t *p, uint64_t n, oc_zstd_frame *f)
{
    f->size = 0;
    f->content_size = 0;
    f->has_size = 0;
    f->skippable = 0;
    f->window = 0;
    if (n < 4)
        return OC_ERR_TRUNCATED;
    uint32_t magic = oc_load_le32(p);
    if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
        if (n < 8)
            return OC_ERR_TRUNCATED;
        uint64_t len = oc_load_le32(p + 4);
        if (len > n - 8)
            return OC_ERR_TRUNCATED;
        f->size = 8 + len;
        f->skippable = 1;
        return OC_OK;
    }
    if (magic != 0xFD2FB528u)
        return OC_ERR_CORRUPT;
    if (n < 5)
        return OC_ERR_TRUNCATED;
    unsigned fhd = p[4];
    unsigned fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1, did_flag = fhd & 3;
    if (fhd & 0x08)
        return OC_ERR_CORRUPT; /* reserved bit */
    unsigned did_size = did_flag == 0 ? 0 : did_flag == 1 ? 1 : did_flag == 2 ? 2 : 4;
    unsigned fcs_size = fcs_flag == 0 ? single : (1u << fcs_flag);
    uint64_t pos = 5 + (single ? 0 : 1) + did_size;
    if (n < pos + fcs_size)
        return OC_ERR_TRUNCATED;
    if (fcs_size) {
        uint64_t v = 0;
        for (unsigned i = 0; i < fcs_size; i++)
            v |= (uint64_t)p[pos + i] << (8 * i);
        if (fcs_size == 2)
            v += 256;
        f->content_size = v;
        f->has_size = 1;
    }
    if (!single) {
        unsigned wd = p[5];
        uint64_t base = (uint64_t)1 << (10 + (wd >> 3));
        f->window = base + (base >> 3) * (wd & 7);
    } else {
        f->window = f->content_size;
    }
    pos += fcs_size;
    uint64_t blocks = 0;
    for (;;) {
        if (n - pos < 3)
            return OC_ERR_TRUNCATED;
        uint32_t bh = oc_load_le24(p + pos);
        unsigned last = bh & 1, type = (bh >> 1) & 3;
        uint64_t bsize = bh >> 3;
        if (type == 3)
            return OC_ERR_CORRUPT;
        uint64_t payload = type == 1 ? 1 : bsize;
        pos += 3;
        if (n - pos < payload)
            return OC_ERR_TRUNCATED;
        pos += payload;
        blocks++;
        if (last)
            break;
    }
    /* No block decodes to more than 128 KiB (Block_Maximum_Size): a content
     * size beyond that is a lie, not a reason to ask for a huge buffer. */
    if (f->has_size && f->content_size > blocks * ((uint64_t)128 << 10))
        return OC_ERR_CORRUPT;
    if (checksum) {
        if (n - pos < 4)
            return OC_ERR_TRUNCATED;
        pos += 4;
    }
    f->size = pos;
    return OC_OK;
}

#endif /* OC_FORMAT_ZSTD_WALK_H */
