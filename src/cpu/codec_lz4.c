/*
 * codec_lz4.c - LZ4 block format on the CPU through liblz4.
 *
 * Levels: <= 1 is LZ4's fast compressor (a negative level is the
 * acceleration), 2..12 LZ4HC.  Both run on a per-worker state
 * (LZ4_compress_fast_extState / LZ4_compress_HC_extStateHC), so no call
 * allocates.  Decoding is LZ4_decompress_safe, which never writes past the
 * capacity; when it fails, the block scanner (lz4_scan.c) says why:
 * CORRUPT, TRUNCATED, or OUTPUT_TOO_SMALL when the block is valid but
 * decodes to more than the capacity.  (Running the scanner before every
 * decode cost a third of LZ4's decoding speed; it runs on failures only.
 * So decoding is exactly as lenient as liblz4 - e.g. 1.9.4 accepts offset
 * 0, which the scanner, and so oc_batch_decompressed_sizes, call CORRUPT.)
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
    /* liblz4 first: it never writes past the capacity and is the fast
     * path.  Only when it fails does the scanner say why. */
    int r = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, clamp_int(cap));
    if (r >= 0) {
        *out = (size_t)r;
        return OC_OK;
    }
    size_t size = 0;
    FORWARD_IF_ERROR(oc_lz4_scan(src, n, &size));
    RETURN_ERROR_IF(size > cap, OC_ERR_OUTPUT_TOO_SMALL);
    return OC_ERR_CORRUPT; /* well-formed sequences, but liblz4's end-of-block rules refuse it */
}

static void lz4_release(oc_cpu_worker *w)
{
    oc_host_free(w->ctx, w->lz4_state, (size_t)LZ4_sizeofState());
    oc_host_free(w->ctx, w->lz4hc_state, (size_t)LZ4_sizeofStateHC());
    w->lz4_state = NULL;
    w->lz4hc_state = NULL;
}

const oc_cpu_codec oc_cpu_codec_lz4 = {lz4_compress, lz4_decompress, lz4_size, lz4_release};
