/*
 * codec_snappy.c - Snappy raw format on the CPU through snappy's C API.
 *
 * snappy_compress needs an output of snappy_max_compressed_length bytes;
 * a smaller capacity is served through the worker's buffer and a copy, so
 * a too-small output is OUTPUT_TOO_SMALL, never an overrun.  Decoding
 * scans the stream first (snappy_scan.c: TRUNCATED, CORRUPT or
 * OUTPUT_TOO_SMALL, the size query's and the GPU's verdicts), then runs
 * snappy_uncompress.
 */
#include <snappy-c.h>
#include <string.h>

#include "../../cpu_codec.h"
#include "snappy_scan.h"

#define SNAPPY_MAX_INPUT ((size_t)0xFFFFFFFFu)

static oc_status snappy_compress_chunk(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src,
                                       size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo, (void)level;
    RETURN_ERROR_IF(n > SNAPPY_MAX_INPUT, OC_ERR_CHUNK_TOO_LARGE);
    size_t bound = snappy_max_compressed_length(n), len = bound;
    uint8_t *target = dst;
    if (cap < bound) {
        target = oc_worker_big(w, bound);
        RETURN_ERROR_IF(!target, OC_ERR_OUT_OF_MEMORY);
    }
    RETURN_ERROR_IF(snappy_compress((const char *)src, n, (char *)target, &len) != SNAPPY_OK,
                    OC_ERR_INTERNAL);
    if (target != dst) {
        RETURN_ERROR_IF(len > cap, OC_ERR_OUTPUT_TOO_SMALL);
        memcpy(dst, target, len);
    }
    *out = len;
    return OC_OK;
}

static oc_status snappy_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n, size_t *size)
{
    (void)w, (void)algo;
    return oc_snappy_scan(src, n, size);
}

/* A literal tag 0xFC with the 4-byte length field FF FF FF FF (2^32 bytes,
 * never valid) is the one stream libsnappy 1.1.9 accepts wrongly: it wraps
 * the length to 0 (a fuzz_size_agreement finding).  True when those five
 * bytes occur anywhere (in literal data too: a false alarm only costs the
 * scan below). */
static int holds_wrapping_literal(const uint8_t *src, size_t n)
{
    static const uint8_t pattern[5] = {0xFC, 0xFF, 0xFF, 0xFF, 0xFF};
    for (const uint8_t *p = src, *end = src + n; (size_t)(end - p) >= sizeof pattern;) {
        p = memchr(p, 0xFC, (size_t)(end - p) - (sizeof pattern - 1));
        if (!p)
            return 0;
        if (memcmp(p, pattern, sizeof pattern) == 0)
            return 1;
        p++;
    }
    return 0;
}

static oc_status snappy_decompress_chunk(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                                         uint8_t *dst, size_t cap, size_t *out)
{
    (void)w, (void)algo;
    size_t size = 0, len = cap;
    /* The common case: libsnappy decodes, and its verdict is ours unless the
     * stream holds the wrapping literal.  libsnappy checks the preamble's
     * size against the capacity before writing anything. */
    if (dst && !holds_wrapping_literal(src, n) &&
        snappy_uncompressed_length((const char *)src, n, &size) == SNAPPY_OK && size > 0 && size <= cap &&
        snappy_uncompress((const char *)src, n, (char *)dst, &len) == SNAPPY_OK && len == size) {
        *out = size;
        return OC_OK;
    }
    /* Everything else gets the scanner's verdict (snappy_scan.c: reads tags
     * only), the one the size query and the GPU give: TRUNCATED and CORRUPT
     * named, OUTPUT_TOO_SMALL with nothing written, the wrap refused. */
    FORWARD_IF_ERROR(oc_snappy_scan(src, n, &size));
    RETURN_ERROR_IF(size > cap, OC_ERR_OUTPUT_TOO_SMALL);
    if (size == 0) { /* nothing to write; snappy wants a valid output pointer */
        *out = 0;
        return OC_OK;
    }
    len = cap;
    if (dst && snappy_uncompress((const char *)src, n, (char *)dst, &len) == SNAPPY_OK && len == size) {
        *out = size;
        return OC_OK;
    }
    return OC_ERR_CORRUPT; /* snappy refused what the scanner accepts: should not happen */
}

static void snappy_release(oc_cpu_worker *w)
{
    (void)w;
}

const oc_cpu_codec oc_cpu_codec_snappy = {snappy_compress_chunk, snappy_decompress_chunk, snappy_size,
                                          snappy_release};
