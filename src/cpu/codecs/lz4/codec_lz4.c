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

#include "../../cpu_codec.h"
#include "lz4_scan.h"

static int clamp_int(size_t v)
{
    return v > (size_t)INT_MAX ? INT_MAX : (int)v;
}

/* The worker's LZ4 state (its slot of oc_cpu_worker.state): liblz4's
 * fast and HC states, created on first use. */
typedef struct lz4_worker {
    void *fast; /* LZ4_sizeofState() bytes */
    void *hc;   /* LZ4_sizeofStateHC() bytes */
} lz4_worker;

static oc_status lz4_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src, size_t n,
                              uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    RETURN_ERROR_IF(n > LZ4_MAX_INPUT_SIZE, OC_ERR_CHUNK_TOO_LARGE);
    lz4_worker *S = (lz4_worker *)oc_worker_state(w, OC_ALGO_LZ4, sizeof(lz4_worker));
    RETURN_ERROR_IF(!S, OC_ERR_OUT_OF_MEMORY);
    int r;
    if (level <= 1) {
        if (!S->fast)
            S->fast = oc_host_alloc(w->ctx, (size_t)LZ4_sizeofState());
        RETURN_ERROR_IF(!S->fast, OC_ERR_OUT_OF_MEMORY);
        int accel = level < 0 ? -level : 1;
        r = LZ4_compress_fast_extState(S->fast, (const char *)src, (char *)dst, (int)n, clamp_int(cap),
                                       accel);
    } else {
        if (!S->hc)
            S->hc = oc_host_alloc(w->ctx, (size_t)LZ4_sizeofStateHC());
        RETURN_ERROR_IF(!S->hc, OC_ERR_OUT_OF_MEMORY);
        r = LZ4_compress_HC_extStateHC(S->hc, (const char *)src, (char *)dst, (int)n, clamp_int(cap), level);
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
    lz4_worker *S = (lz4_worker *)w->state[OC_ALGO_LZ4];
    if (!S)
        return;
    oc_host_free(w->ctx, S->fast, (size_t)LZ4_sizeofState());
    oc_host_free(w->ctx, S->hc, (size_t)LZ4_sizeofStateHC());
    S->fast = NULL;
    S->hc = NULL;
}

const oc_cpu_codec oc_cpu_codec_lz4 = {lz4_compress, lz4_decompress, lz4_size, lz4_release};
