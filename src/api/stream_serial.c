/*
 * stream_serial.c - the stream reader's serial decoders (stream_serial.h):
 * thin wrappers over the reference libraries' streaming decoders that map
 * their errors to statuses as the batch codecs do.
 */
#define LZ4F_STATIC_LINKING_ONLY
#include <lz4frame.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "stream_serial.h"

struct oc_serial {
    oc_serial_kind kind;
    int verify;
    LZ4F_dctx *lz4;
    ZSTD_DStream *zstd;
    z_stream z;
    int z_init;
};

oc_status oc_serial_create(oc_serial_kind kind, int verify, uint64_t memory_limit, oc_serial **out)
{
    oc_serial *s = (oc_serial *)calloc(1, sizeof *s);
    RETURN_ERROR_IF(!s, OC_ERR_OUT_OF_MEMORY);
    s->kind = kind;
    s->verify = verify;
    oc_status st = OC_OK;
    if (kind == OC_SERIAL_LZ4F) {
        if (LZ4F_isError(LZ4F_createDecompressionContext(&s->lz4, LZ4F_VERSION)))
            st = OC_ERR_OUT_OF_MEMORY;
    } else if (kind == OC_SERIAL_ZSTD) {
        s->zstd = ZSTD_createDStream();
        if (!s->zstd) {
            st = OC_ERR_OUT_OF_MEMORY;
        } else {
            uint64_t limit = memory_limit ? memory_limit : OC_DEFAULT_MEMORY_LIMIT;
            if (limit > OC_MAX_MEMORY_LIMIT)
                limit = OC_MAX_MEMORY_LIMIT;
            int log = 10;
            while (log < 31 && ((uint64_t)1 << (log + 1)) <= limit)
                log++;
            ZSTD_DCtx_setParameter(s->zstd, ZSTD_d_windowLogMax, log);
        }
    } else {
        if (inflateInit2(&s->z, 16 + 15) != Z_OK)
            st = OC_ERR_OUT_OF_MEMORY;
        else
            s->z_init = 1;
    }
    if (st != OC_OK) {
        oc_serial_free(s);
        return st;
    }
    *out = s;
    return OC_OK;
}

oc_status oc_serial_reset(oc_serial *s)
{
    if (s->kind == OC_SERIAL_LZ4F)
        LZ4F_resetDecompressionContext(s->lz4);
    else if (s->kind == OC_SERIAL_ZSTD)
        ZSTD_DCtx_reset(s->zstd, ZSTD_reset_session_only);
    else
        RETURN_ERROR_IF(inflateReset(&s->z) != Z_OK, OC_ERR_INTERNAL);
    return OC_OK;
}

static oc_status lz4f_error(size_t r)
{
    switch (LZ4F_getErrorCode(r)) {
    case LZ4F_ERROR_blockChecksum_invalid:
    case LZ4F_ERROR_contentChecksum_invalid:
        return OC_ERR_CHECKSUM_MISMATCH;
    case LZ4F_ERROR_allocation_failed:
        return OC_ERR_OUT_OF_MEMORY;
    case LZ4F_ERROR_frameSize_wrong:
        return OC_ERR_SIZE_MISMATCH;
    default:
        return OC_ERR_CORRUPT;
    }
}

static oc_status zstd_error(size_t r)
{
    switch (ZSTD_getErrorCode(r)) {
    case ZSTD_error_checksum_wrong:
        return OC_ERR_CHECKSUM_MISMATCH;
    case ZSTD_error_dictionary_wrong:
    case ZSTD_error_dictionary_corrupted:
        return OC_ERR_NEEDS_DICTIONARY;
    case ZSTD_error_memory_allocation:
        return OC_ERR_OUT_OF_MEMORY;
    case ZSTD_error_frameParameter_windowTooLarge:
        return OC_ERR_CHUNK_TOO_LARGE;
    default:
        return OC_ERR_CORRUPT;
    }
}

oc_status oc_serial_step(oc_serial *s, const uint8_t *in, size_t *in_n, uint8_t *out, size_t *out_n,
                         int *done)
{
    *done = 0;
    if (s->kind == OC_SERIAL_LZ4F) {
        LZ4F_decompressOptions_t o;
        memset(&o, 0, sizeof o);
        o.skipChecksums = s->verify ? 0 : 1;
        size_t r = LZ4F_decompress(s->lz4, out, out_n, in, in_n, &o);
        RETURN_ERROR_IF(LZ4F_isError(r), lz4f_error(r));
        *done = r == 0;
        return OC_OK;
    }
    if (s->kind == OC_SERIAL_ZSTD) {
        ZSTD_inBuffer ib = {in, *in_n, 0};
        ZSTD_outBuffer ob = {out, *out_n, 0};
        size_t r = ZSTD_decompressStream(s->zstd, &ob, &ib);
        *in_n = ib.pos;
        *out_n = ob.pos;
        RETURN_ERROR_IF(ZSTD_isError(r), zstd_error(r));
        *done = r == 0;
        return OC_OK;
    }
    /* zlib counts in uInt: feed at most 1 GiB a step */
    size_t ic = *in_n < ((size_t)1 << 30) ? *in_n : ((size_t)1 << 30);
    size_t oc = *out_n < ((size_t)1 << 30) ? *out_n : ((size_t)1 << 30);
    s->z.next_in = (Bytef *)(uintptr_t)in;
    s->z.avail_in = (uInt)ic;
    s->z.next_out = out;
    s->z.avail_out = (uInt)oc;
    int r = inflate(&s->z, Z_NO_FLUSH);
    *in_n = ic - s->z.avail_in;
    *out_n = oc - s->z.avail_out;
    if (r == Z_STREAM_END) {
        *done = 1;
        return OC_OK;
    }
    if (r == Z_OK || r == Z_BUF_ERROR)
        return OC_OK;
    if (r == Z_MEM_ERROR)
        return OC_ERR_OUT_OF_MEMORY;
    /* "incorrect data check" (CRC-32), "incorrect length check" (ISIZE) */
    if (s->z.msg && strstr(s->z.msg, "check"))
        return OC_ERR_CHECKSUM_MISMATCH;
    return OC_ERR_CORRUPT;
}

void oc_serial_free(oc_serial *s)
{
    if (!s)
        return;
    if (s->lz4)
        LZ4F_freeDecompressionContext(s->lz4);
    if (s->zstd)
        ZSTD_freeDStream(s->zstd);
    if (s->z_init)
        inflateEnd(&s->z);
    free(s);
}
