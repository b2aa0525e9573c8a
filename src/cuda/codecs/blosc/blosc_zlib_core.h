/*
 * blosc_zlib_core.h - one zlib stream of a Blosc chunk (inner codec 3),
 * decoded by one warp on the GPU (blosc_kernels.cu) or one thread on the
 * host (tests/c/helpers/blosc_ref.h, so test_blosc_core and
 * fuzz_container_blosc hold it to libblosc on every commit, without a GPU).
 * It exists because the rules are c-blosc's, not those of a zlib chunk:
 *
 * c-blosc writes every stream of a block (each split, or the whole block)
 * with zlib's compress2(), a whole RFC 1950 stream, and reads it with
 * uncompress() into exactly the stream's decoded size, then refuses any
 * other size (blosc_d's "nbytes != neblock").  So a stream decodes here
 * when, as zlib reads it: the header is valid (method 8, window at most
 * 32 KiB, FCHECK) without a preset dictionary (uncompress has none), the
 * Deflate data end within the stream producing at most dsize bytes, the
 * Adler-32 that follows matches, and the output is exactly dsize bytes.
 * Bytes after the Adler-32 (inside the stream's csize) are ignored, as
 * uncompress() ignores them (libblosc decodes such a chunk: test_blosc_core
 * pins it).  The Deflate data and the header go through the shared inflate
 * core (../deflate/inflate_chunk_core.h, inf_zlib_stream).
 *
 * Statuses (the reason; libblosc gives none, so both engines report every
 * failure of an inner stream as CORRUPT): the inflate core's TRUNCATED,
 * CORRUPT, OUTPUT_TOO_SMALL (the stream decodes to more than dsize),
 * NEEDS_DICTIONARY, CHECKSUM_MISMATCH; SIZE_MISMATCH when it decodes to
 * fewer than dsize bytes.  Every lane returns the same status.
 */
#ifndef OC_BLOSC_ZLIB_CORE_H
#define OC_BLOSC_ZLIB_CORE_H

#include "../deflate/inflate_chunk_core.h"

/* Decodes the stream src[0..n) into dst[0..dsize); T is the warp's (the
 * thread's) inflate tables.  *got: the bytes written. */
OC_CORE_BIGFN oc_status blz_zlib_decode(inf_tables *T, const uint8_t *src, size_t n, uint8_t *dst,
                                        size_t dsize, size_t *got)
{
    size_t rest = 0;
    oc_status st = inf_zlib_stream(T, src, n, dst, dsize, got, &rest);
    if (st != OC_OK)
        return st;
    return *got == dsize ? OC_OK : OC_ERR_SIZE_MISMATCH;
}

#endif /* OC_BLOSC_ZLIB_CORE_H */
