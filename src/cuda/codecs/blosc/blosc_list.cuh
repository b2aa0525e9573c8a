/*
 * blosc_list.cuh - the stream list that the Blosc decoder
 * (blosc_kernels.cu) and encoder (blosc_enc_kernels.cu) hand to an inner
 * codec's library launch: gpu_codec.h's per-chunk arrays for the batch of
 * split streams, plus each entry's chunk, and for the encoder its stream
 * and where the stream lands.  One type and one carving of the scratch, so
 * the two sides cannot drift apart (they were carved twice, with different
 * layouts: review of issue 17).
 */
#ifndef OC_BLOSC_LIST_CUH
#define OC_BLOSC_LIST_CUH

#include <stddef.h>
#include <stdint.h>

#include "../../runtime/gpu_codec.h"

/* Structure of arrays of `bound` entries: the inner codec's launch takes
 * src..st as they are (an entry left zero is a no-op: a NULL pointer, which
 * every codec answers with a status and no memory access). */
struct bl_list {
    const void **src;
    size_t *srcn;
    void **dst;
    size_t *cap;
    size_t *got;
    oc_status *st;
    uint32_t *chunk; /* the entry's chunk */
    /* the encoder's (NULL in the decoder's lists): the stream's index in
     * its chunk, its final size (compressed, or stored), its offset in the
     * written chunk */
    uint32_t *j, *fin, *off;
};

/* Bytes of a list of `bound` entries: 48 an entry, 60 with the encoder's
 * arrays. */
static inline size_t bl_list_bytes(size_t bound, int enc)
{
    return bound * (enc ? 60 : 48);
}

/* The list's arrays in bl_list_bytes(bound, enc) bytes at p (8-aligned). */
static inline bl_list bl_list_carve(uint8_t *p, size_t bound, int enc)
{
    size_t B = bound;
    bl_list r;
    r.src = (const void **)p;
    r.srcn = (size_t *)(p + 8 * B);
    r.dst = (void **)(p + 16 * B);
    r.cap = (size_t *)(p + 24 * B);
    r.got = (size_t *)(p + 32 * B);
    r.st = (oc_status *)(p + 40 * B);
    r.chunk = (uint32_t *)(p + 44 * B);
    r.j = enc ? (uint32_t *)(p + 48 * B) : NULL;
    r.fin = enc ? (uint32_t *)(p + 52 * B) : NULL;
    r.off = enc ? (uint32_t *)(p + 56 * B) : NULL;
    return r;
}

#endif /* OC_BLOSC_LIST_CUH */
