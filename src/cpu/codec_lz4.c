/*
 * codec_lz4.c - LZ4 block format on the CPU through liblz4.
 *
 * Levels: <= 1 is LZ4's fast compressor (a negative level is the
 * acceleration), 2..12 LZ4HC.  Both run on a per-worker state
 * (LZ4_compress_fast_extState / LZ4_compress_HC_extStateHC), so no call
 * allocates.  Decoding is LZ4_decompress_safe, which never writes past the
 * capacity, followed by the block scanner (lz4_scan.c), opencomp's one
 * definition of a valid block: liblz4's verdict on a block that breaks the
 * end-of-block rules depends on the capacity it is given (a block cut
 * after a short last literal run can decode "OK" into a roomy buffer), and
 * it decodes offset 0 as zeros; the scanner refuses both, so the decoder,
 * the size query and the GPU decoders give one answer for every block and
 * every capacity.  This costs about 40% of single-thread decoding speed
 * (2.35 -> 1.33 GB/s on the built-in sample, 64 KiB chunks), the price of
 * never calling a cut block complete.  When liblz4 fails, the scanner says
 * why: CORRUPT, TRUNCATED, or OUTPUT_TOO_SMALL when the block is valid but
 * decodes to more than the capacity.
 */
#include <limits.h>
#include <lz4.h>
#include <lz4hc.h>

#include "cpu_codec.h"

static int clamp_int(size_t v)
{
    return v > (size_t)INT_MAX ? INT_MAX : (int)v;
}

static oc_status lz4_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src, size_t n,
                              uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    RETURN_ERROR_IF(n > LZ4_MAX_INPUT_SIZE, OC_ERR_CHUNK_TOO_LARGE);
    int r;
    if (level <= 1) {
        if (!w->lz4_state)
            w->lz4_state = oc_host_alloc(w->ctx, (size_t)LZ4_sizeofState());
        RETURN_ERROR_IF(!w->lz4_state, OC_ERR_OUT_OF_MEMORY);
        int accel = level < 0 ? -level : 1;
        r = LZ4_compress_fast_extState(w->lz4_state, (const char *)src, (char *)dst, (int)n, clamp_int(cap),
                                       accel);
    } else {
        if (!w->lz4hc_state)
            w->lz4hc_state = oc_host_alloc(w->ctx, (size_t)LZ4_sizeofStateHC());
        RETURN_ERROR_IF(!w->lz4hc_state, OC_ERR_OUT_OF_MEMORY);
        r = LZ4_compress_HC_extStateHC(w->lz4hc_state, (const char *)src, (char *)dst, (int)n, clamp_int(cap),
                                       level);
    }
    RETURN_ERROR_IF(r <= 0, OC_ERR_OUTPUT_TOO_SMALL);
    *out = (size_t)r;
    return OC_OK;
}

static oc_status lz4_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n, size_t *size)
{
    (void)w, (void)algo;
    RETURN_ERROR_IF(n > (size_t)INT_MAX, OC_ERR_CHUNK_TOO_LARGE);
    return oc_lz4_scan(src, n, size);
}

static oc_status lz4_decompress(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                                uint8_t *dst, size_t cap, size_t *out)
{
    (void)w, (void)algo;
    RETURN_ERROR_IF(n > (size_t)INT_MAX, OC_ERR_CHUNK_TOO_LARGE);
    /* liblz4 first (it never writes past the capacity), then the scanner's
     * verdict, whatever liblz4 said. */
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, clamp_int(cap));
    size_t size = 0;
    FORWARD_IF_ERROR(oc_lz4_scan(src, n, &size));
    if (r >= 0) {
        /* The scanner's blocks are a subset of liblz4's, with the same size. */
        RETURN_ERROR_IF((size_t)r != size, OC_ERR_INTERNAL);
        *out = size;
        return OC_OK;
    }
    RETURN_ERROR_IF(size > cap, OC_ERR_OUTPUT_TOO_SMALL);
    return OC_ERR_INTERNAL; /* liblz4 refused a block the scanner accepts: a bug to report */
}

static void lz4_release(oc_cpu_worker *w)
{
    oc_host_free(w->ctx, w->lz4_state, (size_t)LZ4_sizeofState());
    oc_host_free(w->ctx, w->lz4hc_state, (size_t)LZ4_sizeofStateHC());
    w->lz4_state = NULL;
    w->lz4hc_state = NULL;
}

const oc_cpu_codec oc_cpu_codec_lz4 = {lz4_compress, lz4_decompress, lz4_size, lz4_release};
