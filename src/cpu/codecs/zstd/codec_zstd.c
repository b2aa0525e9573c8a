/*
 * codec_zstd.c - Zstandard (RFC 8878) on the CPU through libzstd, one
 * ZSTD_CCtx and one ZSTD_DCtx per worker.
 *
 * A chunk may hold several frames, and skippable frames (numcodecs and the
 * seekable format write them): frames are walked one at a time with
 * ZSTD_findFrameCompressedSize, so a truncated frame is TRUNCATED and
 * garbage is CORRUPT before any decoding.  libzstd's error codes map to exact
 * statuses (map_error).  Decompressed sizes come from the frame headers
 * where recorded, else from a streaming decode into the worker's scratch
 * (frames of the legacy formats: a one-shot decode, as they are decoded).
 */
#include <stdlib.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "../../cpu_codec.h"

/* The worker's zstd state (its slot of oc_cpu_worker.state): one ZSTD_CCtx
 * and one ZSTD_DCtx, created on first use.  Every entry point makes sure
 * the slot exists (zstd_state) before the helpers use ZS(w). */
typedef struct zstd_worker {
    ZSTD_CCtx *c;
    ZSTD_DCtx *d;
} zstd_worker;
#define ZS(w) ((zstd_worker *)(w)->state[OC_ALGO_ZSTD])

static oc_status zstd_state(oc_cpu_worker *w)
{
    return oc_worker_state(w, OC_ALGO_ZSTD, sizeof(zstd_worker)) ? OC_OK : OC_ERR_OUT_OF_MEMORY;
}

static oc_status map_error(size_t code)
{
    switch (ZSTD_getErrorCode(code)) {
    case ZSTD_error_dstSize_tooSmall:
        return OC_ERR_OUTPUT_TOO_SMALL;
    case ZSTD_error_checksum_wrong:
        return OC_ERR_CHECKSUM_MISMATCH;
    case ZSTD_error_srcSize_wrong:
        return OC_ERR_TRUNCATED;
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

static oc_status zstd_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src, size_t n,
                               uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    FORWARD_IF_ERROR(zstd_state(w));
    if (!ZS(w)->c)
        ZS(w)->c = ZSTD_createCCtx();
    RETURN_ERROR_IF(!ZS(w)->c, OC_ERR_OUT_OF_MEMORY);
    size_t r = ZSTD_compressCCtx(ZS(w)->c, dst, cap, src, n, level);
    if (ZSTD_isError(r)) {
        oc_status st = map_error(r);
        /* The compressor can only fail on room or memory. */
        return st == OC_ERR_OUTPUT_TOO_SMALL || st == OC_ERR_OUT_OF_MEMORY ? st : OC_ERR_INTERNAL;
    }
    *out = r;
    return OC_OK;
}

static int is_skippable(const uint8_t *p, size_t n)
{
    return n >= 4 && (oc_load_le32(p) & 0xFFFFFFF0u) == 0x184D2A50u;
}

/* RFC 8878 3.1.1.2.4: no block is larger than Block_Maximum_Size =
 * min(Window_Size, 128 KiB) (Window_Size = Frame_Content_Size for single
 * segment frames): for raw and RLE blocks their decoded size, for
 * compressed blocks their compressed size.  libzstd 1.5.7's one-shot
 * decoder does not check it for RLE blocks (a 10-byte frame with a 65 KiB
 * RLE block in a 15 KiB window decoded "OK", while its streaming decoder,
 * and so the size query, said CORRUPT: issue 11 item 12), so every frame
 * is checked here, from its block headers (fsize: its exact length, from
 * ZSTD_findFrameCompressedSize). */
/* The window size of a whole frame at p (RFC 8878 3.1.1.1.2; single
 * segment frames: their content size); *blocks gets where its first block
 * header is. */
static uint64_t frame_window(const uint8_t *p, size_t *blocks)
{
    unsigned fhd = p[4], single = (fhd >> 5) & 1, fcs_flag = fhd >> 6, did = fhd & 3;
    size_t pos = 5 + (single ? 0 : 1) + (did == 3 ? 4 : did);
    size_t fcs_size = fcs_flag == 0 ? single : (size_t)1 << fcs_flag;
    uint64_t window = 0;
    if (!single) {
        unsigned wd = p[5];
        uint64_t base = (uint64_t)1 << (10 + (wd >> 3));
        window = base + (base >> 3) * (wd & 7);
    } else {
        for (size_t i = 0; i < fcs_size; i++)
            window |= (uint64_t)p[pos + i] << (8 * i);
        if (fcs_size == 2)
            window += 256;
    }
    *blocks = pos + fcs_size;
    return window;
}

static oc_status check_block_sizes(const uint8_t *p, size_t fsize)
{
    size_t pos = 0;
    uint64_t window = frame_window(p, &pos);
    uint64_t block_max = window < ((uint64_t)128 << 10) ? window : ((uint64_t)128 << 10);
    while (pos + 3 <= fsize) {
        uint32_t bh = (uint32_t)p[pos] | ((uint32_t)p[pos + 1] << 8) | ((uint32_t)p[pos + 2] << 16);
        uint64_t bsize = bh >> 3;
        RETURN_ERROR_IF(bsize > block_max, OC_ERR_CORRUPT);
        pos += 3 + (((bh >> 1) & 3) == 1 ? 1 : bsize);
        if (bh & 1)
            break;
    }
    return OC_OK;
}

/* The size of the frame at src (skippable or not), or a status: a frame
 * that needs a dictionary is NEEDS_DICTIONARY before anything else. */
static oc_status frame_size(const uint8_t *src, size_t n, size_t *fsize)
{
    if (n < 4) { /* a prefix of a frame magic number is truncated, anything else corrupt */
        static const uint8_t zmagic[3] = {0x28, 0xb5, 0x2f}, smagic[3] = {0x50, 0x2a, 0x4d};
        int z = 1, s = 1;
        for (size_t i = 0; i < n; i++) {
            z &= src[i] == zmagic[i];
            s &= i == 0 ? (src[0] & 0xF0) == 0x50 : src[i] == smagic[i];
        }
        return z || s ? OC_ERR_TRUNCATED : OC_ERR_CORRUPT;
    }
    size_t r = ZSTD_findFrameCompressedSize(src, n);
    if (ZSTD_isError(r))
        return map_error(r);
    if (!is_skippable(src, n) && ZSTD_getDictID_fromFrame(src, r) != 0)
        return OC_ERR_NEEDS_DICTIONARY;
    /* (frames of zstd's legacy formats, other magics, keep libzstd's checks) */
    if (oc_load_le32(src) == 0xFD2FB528u)
        FORWARD_IF_ERROR(check_block_sizes(src, r));
    *fsize = r;
    return OC_OK;
}

static oc_status zstd_decompress(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                                 uint8_t *dst, size_t cap, size_t *out)
{
    (void)algo;
    RETURN_ERROR_IF(n == 0, OC_ERR_TRUNCATED);
    FORWARD_IF_ERROR(zstd_state(w));
    if (!ZS(w)->d)
        ZS(w)->d = ZSTD_createDCtx();
    RETURN_ERROR_IF(!ZS(w)->d, OC_ERR_OUT_OF_MEMORY);
    size_t pos = 0, done = 0;
    while (pos < n) {
        size_t fsize = 0;
        FORWARD_IF_ERROR(frame_size(src + pos, n - pos, &fsize));
        if (!is_skippable(src + pos, n - pos)) {
            size_t r = ZSTD_decompressDCtx(ZS(w)->d, dst + done, cap - done, src + pos, fsize);
            if (ZSTD_isError(r))
                return map_error(r);
            done += r;
        }
        pos += fsize;
    }
    *out = done;
    return OC_OK;
}

/* Counts the decoded bytes of one frame by streaming it into scratch. */
static oc_status count_frame(oc_cpu_worker *w, const uint8_t *src, size_t n, size_t *size)
{
    /* Streaming needs a window buffer of the frame's window size: above
     * the memory limit, CHUNK_TOO_LARGE (issue 11 item 8: windows over
     * 128 MiB were refused whatever the caller allowed). */
    size_t blocks;
    uint64_t limit = w->memory_limit ? w->memory_limit : OC_DEFAULT_MEMORY_LIMIT;
    if (limit > OC_MAX_MEMORY_LIMIT)
        limit = OC_MAX_MEMORY_LIMIT;
    RETURN_ERROR_IF(oc_load_le32(src) == 0xFD2FB528u && frame_window(src, &blocks) > limit,
                    OC_ERR_CHUNK_TOO_LARGE);
    uint8_t *scratch = oc_worker_scratch(w);
    RETURN_ERROR_IF(!scratch, OC_ERR_OUT_OF_MEMORY);
    ZSTD_DCtx_reset(ZS(w)->d, ZSTD_reset_session_only);
    int log = 10;
    while (log < 31 && ((uint64_t)1 << log) < limit)
        log++;
    ZSTD_DCtx_setParameter(ZS(w)->d, ZSTD_d_windowLogMax, log); /* legacy frames: the power of two above */
    ZSTD_inBuffer in = {src, n, 0};
    size_t total = 0;
    for (;;) {
        ZSTD_outBuffer o = {scratch, OC_SCRATCH_SIZE, 0};
        size_t r = ZSTD_decompressStream(ZS(w)->d, &o, &in);
        if (ZSTD_isError(r))
            return map_error(r);
        total += o.pos;
        if (r == 0)
            break;
        RETURN_ERROR_IF(in.pos == in.size && o.pos < o.size, OC_ERR_TRUNCATED);
    }
    RETURN_ERROR_IF(in.pos != in.size, OC_ERR_CORRUPT);
    *size = total;
    return OC_OK;
}

/* Counts the decoded bytes of a frame of zstd's legacy formats (v0.5-v0.7
 * magics) that states no size.  libzstd's streaming decoder and its
 * one-shot one can disagree on such frames when damaged (a fuzzer's v0.7
 * frame: one-shot 0 bytes, streaming "Error (generic)"), and
 * zstd_decompress decodes in one shot, so the count does too, into a
 * buffer that doubles up to the memory limit. */
static oc_status count_legacy_frame(oc_cpu_worker *w, const uint8_t *src, size_t n, size_t *size)
{
    uint64_t limit = w->memory_limit ? w->memory_limit : OC_DEFAULT_MEMORY_LIMIT;
    if (limit > OC_MAX_MEMORY_LIMIT)
        limit = OC_MAX_MEMORY_LIMIT;
    size_t cap = OC_SCRATCH_SIZE;
    for (;;) {
        uint8_t *buf = (uint8_t *)malloc(cap);
        RETURN_ERROR_IF(!buf, OC_ERR_OUT_OF_MEMORY);
        size_t r = ZSTD_decompressDCtx(ZS(w)->d, buf, cap, src, n);
        free(buf);
        if (!ZSTD_isError(r)) {
            *size = r;
            return OC_OK;
        }
        if (ZSTD_getErrorCode(r) != ZSTD_error_dstSize_tooSmall)
            return map_error(r);
        RETURN_ERROR_IF((uint64_t)cap >= limit, OC_ERR_CHUNK_TOO_LARGE);
        cap = (uint64_t)cap * 2 > limit ? (size_t)limit : cap * 2;
    }
}

static oc_status zstd_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n, size_t *size)
{
    (void)algo;
    RETURN_ERROR_IF(n == 0, OC_ERR_TRUNCATED);
    FORWARD_IF_ERROR(zstd_state(w));
    size_t pos = 0, total = 0;
    while (pos < n) {
        size_t fsize = 0;
        FORWARD_IF_ERROR(frame_size(src + pos, n - pos, &fsize));
        if (!is_skippable(src + pos, n - pos)) {
            unsigned long long c = ZSTD_getFrameContentSize(src + pos, fsize);
            RETURN_ERROR_IF(c == ZSTD_CONTENTSIZE_ERROR, OC_ERR_CORRUPT);
            size_t fs = 0;
            if (c == ZSTD_CONTENTSIZE_UNKNOWN) {
                if (!ZS(w)->d)
                    ZS(w)->d = ZSTD_createDCtx();
                RETURN_ERROR_IF(!ZS(w)->d, OC_ERR_OUT_OF_MEMORY);
                if (oc_load_le32(src + pos) == 0xFD2FB528u)
                    FORWARD_IF_ERROR(count_frame(w, src + pos, fsize, &fs));
                else
                    FORWARD_IF_ERROR(count_legacy_frame(w, src + pos, fsize, &fs));
            } else {
                RETURN_ERROR_IF(c > (unsigned long long)SIZE_MAX - total, OC_ERR_CHUNK_TOO_LARGE);
                fs = (size_t)c;
            }
            RETURN_ERROR_IF(fs > SIZE_MAX - total, OC_ERR_CHUNK_TOO_LARGE);
            total += fs;
        }
        pos += fsize;
    }
    *size = total;
    return OC_OK;
}

static void zstd_release(oc_cpu_worker *w)
{
    if (!ZS(w))
        return;
    ZSTD_freeCCtx(ZS(w)->c);
    ZSTD_freeDCtx(ZS(w)->d);
    ZS(w)->c = NULL;
    ZS(w)->d = NULL;
}

const oc_cpu_codec oc_cpu_codec_zstd = {zstd_compress, zstd_decompress, zstd_size, zstd_release};
