/*
 * test_zstd_window_limit.c - zstd frames whose window exceeds 128 MiB and
 * that record no content size (`zstd --long=28`, `tar | zstd --long=31`).
 *
 * Regression pinned here (issue 11 item 8): they were CHUNK_TOO_LARGE
 * whatever the caller allowed.  Now the size count streams them through a
 * window of up to oc_codec_options/oc_buffer_options.memory_limit
 * (default 128 MiB, as `zstd --memory=`), oc_buffer_inspect names the
 * window (window_size), and decoding into a caller's buffer, which needs
 * no window memory, is not limited at all.
 */
#include <string.h>

#include <zstd.h>

#include "helpers/test_util.h"

int main(void)
{
    oc_context *ctx;
    CHECK_OK(oc_context_create(NULL, &ctx));
    /* 3 MB of real text, one frame with a 256 MiB window and no size */
    tu_buf text;
    tu_big_real((size_t)3 << 20, &text);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 28);
    ZSTD_CCtx_setParameter(c, ZSTD_c_enableLongDistanceMatching, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
    size_t cap = ZSTD_compressBound(text.size);
    uint8_t *frame = tu_xmalloc(cap);
    /* fed in pieces, as from a pipe, so zstd cannot shrink the window */
    ZSTD_outBuffer out = {frame, cap, 0};
    size_t r = 0;
    for (size_t off = 0; off < text.size; off += 65536) {
        size_t piece = text.size - off < 65536 ? text.size - off : 65536;
        ZSTD_inBuffer in = {text.data + off, piece, 0};
        ZSTD_EndDirective e = off + piece == text.size ? ZSTD_e_end : ZSTD_e_continue;
        do {
            r = ZSTD_compressStream2(c, &out, &in, e);
            CHECK(!ZSTD_isError(r));
        } while (e == ZSTD_e_end ? r != 0 : in.pos < in.size);
    }
    ZSTD_freeCCtx(c);
    size_t fn = out.pos;

    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    CHECK_OK(oc_buffer_inspect(frame, fn, NULL, &info));
    CHECK_SIZE_EQ(info.window_size, (uint64_t)1 << 28);
    CHECK(!info.size_known);

    /* the batched size query: over the default limit, then allowed */
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    const void *sp = frame;
    size_t size = 0;
    oc_status st;
    CHECK_OK(oc_batch_decompressed_sizes(ctx, &o, 1, &sp, &fn, &size, &st));
    CHECK_STATUS(st, OC_ERR_CHUNK_TOO_LARGE);
    o.memory_limit = (uint64_t)256 << 20;
    CHECK_OK(oc_batch_decompressed_sizes(ctx, &o, 1, &sp, &fn, &size, &st));
    CHECK_STATUS(st, OC_OK);
    CHECK_SIZE_EQ(size, text.size);
    o.memory_limit = ((uint64_t)256 << 20) - 1;
    CHECK_OK(oc_batch_decompressed_sizes(ctx, &o, 1, &sp, &fn, &size, &st));
    CHECK_STATUS(st, OC_ERR_CHUNK_TOO_LARGE);

    /* decoding into a buffer of the caller's: no window, no limit */
    uint8_t *dec = tu_xmalloc(text.size);
    void *dp = dec;
    size_t dcap = text.size, got = 0;
    o.memory_limit = 0;
    CHECK_OK(oc_batch_decompress(ctx, &o, 1, &sp, &fn, &dp, &dcap, &got, &st));
    CHECK_STATUS(st, OC_OK);
    CHECK_SIZE_EQ(got, text.size);
    CHECK_MEM_EQ(dec, text.data, text.size);

    /* the whole-buffer layer: size with the hint's limit, then decode */
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    uint64_t total = 0, got64 = 0;
    CHECK_STATUS(oc_buffer_decompressed_size(ctx, &hint, frame, fn, &total), OC_ERR_CHUNK_TOO_LARGE);
    hint.memory_limit = OC_MAX_MEMORY_LIMIT;
    CHECK_OK(oc_buffer_decompressed_size(ctx, &hint, frame, fn, &total));
    CHECK_SIZE_EQ(total, text.size);
    memset(dec, 0, text.size);
    CHECK_OK(oc_buffer_decompress(ctx, NULL, frame, fn, dec, total, &got64, NULL));
    CHECK_MEM_EQ(dec, text.data, text.size);

    free(dec);
    free(frame);
    tu_buf_free(&text);
    oc_context_destroy(ctx);
    printf("test_zstd_window_limit: a 256 MiB window without content size: counted within the memory limit\n");
    return 0;
}
