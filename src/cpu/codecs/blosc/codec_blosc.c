/*
 * codec_blosc.c - Blosc 1.x chunks on the CPU through Debian's libblosc
 * (c-blosc, the reference library), one chunk per worker with c-blosc's
 * context calls (blosc_compress_ctx / blosc_decompress_ctx, one internal
 * thread: no global state, thread-safe).
 *
 * Decoding checks the chunk's whole layout first with our parser
 * (src/common/blosc_format.h: header, block-start table, every stream's
 * csize word and extent inside cbytes), so libblosc only ever sees chunks
 * whose every stream lies inside the buffer, and the statuses are the GPU
 * engine's: TRUNCATED / CORRUPT / UNSUPPORTED from the layout,
 * OUTPUT_TOO_SMALL from the header's size, and CORRUPT when libblosc
 * refuses an inner stream.  The size query reads the header (nbytes) after
 * the same layout check.
 *
 * Compression: level = c-blosc's clevel (1..9; -1 for its clevel 0), the filter, typesize,
 * inner codec and block size from oc_codec_options (cpu_codec.h's
 * w->opts).  c-blosc never writes more than nbytes + 16 bytes (it stores
 * a chunk that does not shrink), so that is the bound.
 */
#include <blosc.h>
#include <limits.h>

#include "../../../common/blosc_format.h"
#include "../../cpu_codec.h"

static const char *const cnames[] = {"lz4", "blosclz", "lz4hc", "snappy", "zlib", "zstd"};

static oc_status oc_blosc_cpu_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src,
                                       size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    RETURN_ERROR_IF(n > OC_BLOSC_MAX_NBYTES, OC_ERR_CHUNK_TOO_LARGE);
    const oc_codec_options *o = w->opts;
    int shuffle = o ? o->filter : OC_FILTER_NONE;
    size_t typesize = o && o->typesize ? o->typesize : 1;
    const char *cname = cnames[o ? o->blosc_codec : 0];
    size_t blocksize = o ? o->blosc_blocksize : 0;
    size_t room = cap > (size_t)INT_MAX ? (size_t)INT_MAX : cap;
    int clevel = level < 0 ? 0 : level; /* -1: c-blosc's clevel 0, stored */
    int r = blosc_compress_ctx(clevel, shuffle, typesize, n, src, dst, room, cname, blocksize, 1);
    RETURN_ERROR_IF(r == 0, OC_ERR_OUTPUT_TOO_SMALL);
    RETURN_ERROR_IF(r < 0, OC_ERR_UNSUPPORTED); /* a codec this libblosc lacks (snappy in some builds) */
    *out = (size_t)r;
    return OC_OK;
}

/* The whole layout: header, then every stream of every block. */
static oc_status check_layout(const uint8_t *src, size_t n, oc_blosc_header *h)
{
    FORWARD_IF_ERROR(oc_blosc_parse_header(src, n, h));
    for (uint32_t b = 0; b < h->nblocks; b++) {
        uint32_t ns = oc_blosc_block_streams(h, b);
        oc_blosc_stream s;
        FORWARD_IF_ERROR(oc_blosc_find_stream(src, h, b, ns - 1, &s));
    }
    return OC_OK;
}

static oc_status oc_blosc_cpu_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                                   size_t *size)
{
    (void)w, (void)algo;
    oc_blosc_header h;
    FORWARD_IF_ERROR(check_layout(src, n, &h));
    *size = h.nbytes;
    return OC_OK;
}

static oc_status oc_blosc_cpu_decompress(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                                         uint8_t *dst, size_t cap, size_t *out)
{
    (void)w, (void)algo;
    oc_blosc_header h;
    FORWARD_IF_ERROR(check_layout(src, n, &h));
    RETURN_ERROR_IF(h.nbytes > cap, OC_ERR_OUTPUT_TOO_SMALL);
    if (h.nbytes > 0) {
        int r = blosc_decompress_ctx(src, dst, h.nbytes, 1);
        RETURN_ERROR_IF(r != (int)h.nbytes, OC_ERR_CORRUPT);
    }
    *out = h.nbytes;
    return OC_OK;
}

static void oc_blosc_cpu_release(oc_cpu_worker *w)
{
    (void)w;
}

const oc_cpu_codec oc_cpu_codec_blosc = {oc_blosc_cpu_compress, oc_blosc_cpu_decompress, oc_blosc_cpu_size,
                                         oc_blosc_cpu_release};
