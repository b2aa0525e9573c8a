/*
 * blosc_streams.c - lists the split streams of a Blosc chunk
 * (blosc_streams.h) with the library's own parser, src/common/blosc_format.h.
 */
#include "blosc_streams.h"

#include <string.h>

#include "blosc_format.h"

int ocb_blosc_splits(const uint8_t *p, size_t n, ocb_blosc_split *out, size_t cap, ocb_blosc_layout *lay)
{
    oc_blosc_header h;
    memset(lay, 0, sizeof *lay);
    if (oc_blosc_parse_header(p, n, &h) != OC_OK)
        return -1;
    lay->nbytes = h.nbytes;
    lay->blocksize = h.blocksize;
    lay->format = h.format;
    if (h.flags & OC_BLOSC_F_MEMCPYED) {
        lay->stored_bytes = h.nbytes;
        return 0;
    }
    for (uint32_t b = 0; b < h.nblocks; b++) {
        uint32_t ns = oc_blosc_block_streams(&h, b);
        for (uint32_t s = 0; s < ns; s++) {
            oc_blosc_stream st;
            if (oc_blosc_find_stream(p, &h, b, s, &st) != OC_OK)
                return -1;
            lay->nstreams++;
            if (st.stored) {
                lay->stored_bytes += st.dsize;
                continue;
            }
            if (out) {
                if (lay->ncompressed == cap)
                    return -1;
                ocb_blosc_split *o = &out[lay->ncompressed];
                o->offset = st.offset;
                o->csize = st.csize;
                o->dsize = st.dsize;
                o->out = st.out;
            }
            lay->ncompressed++;
            if (st.dsize > lay->max_dsize)
                lay->max_dsize = st.dsize;
        }
    }
    return 0;
}

int ocb_typesize_of(const char *name)
{
    static const struct {
        const char *suffix;
        int size;
    } t[] = {{".i32", 4}, {".u32", 4}, {".f32", 4}, {".i64", 8}, {".u64", 8},
             {".f64", 8}, {".i16", 2}, {".u16", 2}, {".f16", 2}, {".bf16", 2}};
    size_t len = strlen(name);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        size_t k = strlen(t[i].suffix);
        if (len > k && strcmp(name + len - k, t[i].suffix) == 0)
            return t[i].size;
    }
    return 0;
}
