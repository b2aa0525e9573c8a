/*
 * lz4f_serial.c - serial decoding of LZ4 frames that carry no index of ours:
 * files from the `lz4` command (linked blocks with -BD, with or without
 * content size, several concatenated frames, skippable frames).  liblz4's
 * LZ4F streaming decoder writes straight into the caller's dst and checks
 * block and content checksums; we only map its errors to statuses and stop
 * at dst's capacity (OUTPUT_TOO_SMALL, never an overrun).
 */
#define LZ4F_STATIC_LINKING_ONLY
#include <lz4frame.h>

#include <stdlib.h>

#include "lz4f_serial.h"

static oc_status map_error(size_t r)
{
    switch (LZ4F_getErrorCode(r)) {
    case LZ4F_ERROR_blockChecksum_invalid:
    case LZ4F_ERROR_contentChecksum_invalid:
        return OC_ERR_CHECKSUM_MISMATCH;
    case LZ4F_ERROR_allocation_failed:
        return OC_ERR_OUT_OF_MEMORY;
    case LZ4F_ERROR_frameSize_wrong:
        return OC_ERR_SIZE_MISMATCH;
    case LZ4F_ERROR_srcPtr_wrong:
    case LZ4F_ERROR_dstMaxSize_tooSmall:
        return OC_ERR_INTERNAL;
    default:
        return OC_ERR_CORRUPT;
    }
}

/* dst is full and the decoder stopped: OUTPUT_TOO_SMALL if it still has
 * output to give (probed into scratch, feeding it the rest of the input),
 * else the input ended early. */
static oc_status full_or_truncated(LZ4F_dctx *dctx, const LZ4F_decompressOptions_t *opts, const uint8_t *src,
                                   uint64_t rest)
{
    uint8_t probe[64];
    for (;;) {
        size_t isz = rest > ((size_t)1 << 30) ? ((size_t)1 << 30) : (size_t)rest, osz = sizeof probe;
        size_t r = LZ4F_decompress(dctx, probe, &osz, src, &isz, opts);
        if (LZ4F_isError(r))
            return map_error(r);
        if (osz)
            return OC_ERR_OUTPUT_TOO_SMALL;
        if (r == 0 && isz == rest)
            return OC_OK; /* the last frame ended without more output */
        if (isz == 0 || r == 0)
            return OC_ERR_TRUNCATED;
        src += isz;
        rest -= isz;
    }
}

oc_status oc_lz4f_decompress_serial(const uint8_t *src, uint64_t src_size, uint8_t *dst,
                                    uint64_t dst_capacity, int verify, uint64_t *dst_size)
{
    LZ4F_dctx *dctx = NULL;
    oc_status st = OC_OK;
    uint64_t in = 0, out = 0;
    size_t hint = 1;
    *dst_size = 0;
    if (src_size == 0)
        return OC_ERR_TRUNCATED;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION)))
        return OC_ERR_OUT_OF_MEMORY;
    LZ4F_decompressOptions_t opts;
    memset(&opts, 0, sizeof opts);
    opts.skipChecksums = verify ? 0 : 1;
    while (in < src_size) {
        size_t isz = (size_t)(src_size - in), osz = (size_t)(dst_capacity - out);
        /* Keep each call's sizes within size_t on every platform. */
        if (isz > ((size_t)1 << 30))
            isz = (size_t)1 << 30;
        if (osz > ((size_t)1 << 30))
            osz = (size_t)1 << 30;
        hint = LZ4F_decompress(dctx, dst ? dst + out : NULL, &osz, src + in, &isz, &opts);
        if (LZ4F_isError(hint)) {
            st = map_error(hint);
            goto done;
        }
        in += isz;
        out += osz;
        if (isz == 0 && osz == 0) {
            st = out >= dst_capacity ? full_or_truncated(dctx, &opts, src + in, src_size - in)
                                     : OC_ERR_INTERNAL;
            goto done;
        }
    }
    if (hint != 0) {
        /* Input ended inside a frame: maybe it only lacks room to flush. */
        size_t isz = 0, osz = (size_t)(dst_capacity - out);
        if (osz > ((size_t)1 << 30))
            osz = (size_t)1 << 30;
        hint = LZ4F_decompress(dctx, dst ? dst + out : NULL, &osz, NULL, &isz, &opts);
        if (LZ4F_isError(hint)) {
            st = map_error(hint);
            goto done;
        }
        out += osz;
        if (hint != 0)
            st = out >= dst_capacity ? full_or_truncated(dctx, &opts, src + in, 0) : OC_ERR_TRUNCATED;
    }
done:
    LZ4F_freeDecompressionContext(dctx);
    *dst_size = out;
    return st;
}

oc_status oc_lz4f_count_serial(const uint8_t *src, uint64_t src_size, uint64_t *size)
{
    enum { BUF = 1 << 16 };
    LZ4F_dctx *dctx = NULL;
    oc_status st = OC_OK;
    uint64_t in = 0, out = 0;
    size_t hint = 1;
    *size = 0;
    uint8_t *buf = (uint8_t *)malloc(BUF);
    if (!buf || LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) {
        free(buf);
        return OC_ERR_OUT_OF_MEMORY;
    }
    LZ4F_decompressOptions_t opts;
    memset(&opts, 0, sizeof opts);
    opts.skipChecksums = 1;
    /* The same small buffer again and again: LZ4F keeps its own history. */
    for (;;) {
        size_t isz = (size_t)(src_size - in), osz = BUF;
        if (isz > ((size_t)1 << 30))
            isz = (size_t)1 << 30;
        hint = LZ4F_decompress(dctx, buf, &osz, src + in, &isz, &opts);
        if (LZ4F_isError(hint)) {
            st = map_error(hint);
            break;
        }
        in += isz;
        out += osz;
        /* LZ4F returns 0 from the call that completes a frame; called again
         * without input it would hint at the next frame's header, so a frame
         * that ends exactly as the buffer fills (decoded size a multiple of
         * 64 KiB: the lz4 command's default output, issue 11 item 4) must be
         * recognised here, not by a further call. */
        if (in >= src_size && hint == 0)
            break;
        if (in >= src_size && osz < BUF) {
            /* All input taken, room left over, and a frame still open. */
            st = OC_ERR_TRUNCATED;
            break;
        }
        if (isz == 0 && osz == 0) {
            st = OC_ERR_CORRUPT;
            break;
        }
    }
    LZ4F_freeDecompressionContext(dctx);
    free(buf);
    *size = out;
    return st;
}
