/*
 * test_size_agreement.c - the size query, decoding into the size it gives,
 * and decoding into a roomy buffer must tell the same story on the inputs
 * independent testing found disagreeing (issue 11 item 12; the fuzz target
 * fuzz/fuzz_size_agreement.c checks the same on every input), and a size
 * claim no stream can decode to is refused before anyone allocates for it
 * (item 13).
 *
 *   - an LZ4 frame whose header says 300 bytes while its blocks decode to
 *     447: the size query says 300, decoding into 300 bytes is
 *     SIZE_MISMATCH (was OUTPUT_TOO_SMALL, which sends callers to retry
 *     with a bigger buffer);
 *   - the 10-byte zstd frame 28 b5 2f fd 00 1f 8b 08 08 ff (an RLE block of
 *     65,809 bytes in a 15,360-byte window): CORRUPT for the batched
 *     decoder with room to spare (was OK, 65,809 bytes), the size query and
 *     the whole-buffer layer;
 *   - the 1-byte LZ4 block 0x01: pinned in test_batch_lz4_scan.c;
 *   - WITH_UNCOMPRESSED_SIZE claiming 2^34 bytes for 1.6 KB of LZ4: CORRUPT
 *     for the size query and the decoder.
 */
#define LZ4F_STATIC_LINKING_ONLY
#include <lz4frame.h>
#include <string.h>

#include "common/crc.h"
#include "common/xxh.h"
#include "helpers/test_util.h"

static oc_context *ctx;

int main(void)
{
    CHECK_OK(oc_context_create(NULL, &ctx));

    /* LZ4 frame: 447 bytes of text, content size recorded, then the header
     * edited to say 300 (and its checksum byte recomputed) */
    uint8_t text[447], frame[1024], out[1024];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (uint8_t)("the quick brown fox jumps over the lazy dog "[i % 44] + (i / 97));
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    prefs.frameInfo.contentSize = sizeof text;
    size_t fn = LZ4F_compressFrame(frame, sizeof frame, text, sizeof text, &prefs);
    CHECK(!LZ4F_isError(fn));
    CHECK(frame[4] & 0x08); /* FLG: content size present, at bytes 6..13 */
    frame[6] = 300 & 0xff;
    frame[7] = 300 >> 8;
    frame[14] = (uint8_t)(oc_xxh32(frame + 4, 10, 0) >> 8);
    uint64_t size = 0, got = 0;
    CHECK_OK(oc_buffer_decompressed_size(ctx, NULL, frame, fn, &size));
    CHECK_SIZE_EQ(size, 300);
    CHECK_STATUS(oc_buffer_decompress(ctx, NULL, frame, fn, out, size, &got, NULL), OC_ERR_SIZE_MISMATCH);
    CHECK_STATUS(oc_buffer_decompress(ctx, NULL, frame, fn, out, sizeof out, &got, NULL),
                 OC_ERR_SIZE_MISMATCH);
    /* with less room than it says, it is too small indeed */
    CHECK_STATUS(oc_buffer_decompress(ctx, NULL, frame, fn, out, 100, &got, NULL), OC_ERR_OUTPUT_TOO_SMALL);

    /* zstd: a block larger than its window */
    static const uint8_t zf[] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x1f, 0x8b, 0x08, 0x08, 0xff};
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    const void *sp = zf;
    size_t zn = sizeof zf, bsize = 0, bgot = 0, cap = 1 << 20;
    uint8_t *big = tu_xmalloc(cap);
    void *dp = big;
    oc_status st;
    CHECK_OK(oc_batch_decompress(ctx, &o, 1, &sp, &zn, &dp, &cap, &bgot, &st));
    CHECK_STATUS(st, OC_ERR_CORRUPT);
    CHECK_OK(oc_batch_decompressed_sizes(ctx, &o, 1, &sp, &zn, &bsize, &st));
    CHECK_STATUS(st, OC_ERR_CORRUPT);
    CHECK_STATUS(oc_buffer_decompressed_size(ctx, NULL, zf, zn, &size), OC_ERR_CORRUPT);
    CHECK_STATUS(oc_buffer_decompress(ctx, NULL, zf, zn, big, cap, &got, NULL), OC_ERR_CORRUPT);

    /* a size claim of 2^34 bytes in front of 1.6 KB of LZ4 */
    oc_buffer_options bo = OC_BUFFER_OPTIONS_INIT;
    bo.algorithm = OC_ALGO_LZ4;
    bo.kind = OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
    uint8_t sized[4096];
    tu_fill_random(big, 1600, 7);
    CHECK_OK(oc_buffer_compress(ctx, &bo, big, 1600, sized, sizeof sized, &got));
    uint64_t clen = got;
    CHECK_OK(oc_buffer_decompressed_size(ctx, &bo, sized, clen, &size));
    CHECK_SIZE_EQ(size, 1600);
    sized[4] = 4; /* the 8-byte little-endian size: 1600 + 2^34 */
    CHECK_STATUS(oc_buffer_decompressed_size(ctx, &bo, sized, clen, &size), OC_ERR_CORRUPT);
    CHECK_STATUS(oc_buffer_decompress(ctx, &bo, sized, clen, big, 1 << 20, &got, NULL), OC_ERR_CORRUPT);

    /* a zstd seek table claiming 2^31 bytes for a 20-byte frame without a
     * content size (zstd's seekable format: entries csize, usize, then the
     * footer: count, descriptor, magic 0x8F92EAB1) */
    static const uint8_t tiny[] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x48, 0x29, 0x00, 0x00, 'h', 'e', 'l', 'l', 'o'};
    uint8_t seek[64];
    size_t sn = 0;
    memcpy(seek, tiny, sizeof tiny);
    sn = sizeof tiny;
    static const uint8_t skip_hdr[] = {0x5e, 0x2a, 0x4d, 0x18, 8 + 9, 0, 0, 0};
    memcpy(seek + sn, skip_hdr, sizeof skip_hdr);
    sn += sizeof skip_hdr;
    uint8_t entry[8] = {sizeof tiny, 0, 0, 0, 0, 0, 0, 0x80}; /* usize 2^31 */
    memcpy(seek + sn, entry, 8);
    sn += 8;
    uint8_t foot[9] = {1, 0, 0, 0, 0, 0xb1, 0xea, 0x92, 0x8f};
    memcpy(seek + sn, foot, 9);
    sn += 9;
    CHECK_STATUS(oc_buffer_decompressed_size(ctx, NULL, seek, sn, &size), OC_ERR_CORRUPT);
    entry[7] = 0;
    entry[4] = 5; /* the truth: 5 bytes */
    memcpy(seek + sizeof tiny + sizeof skip_hdr, entry, 8);
    CHECK_OK(oc_buffer_decompressed_size(ctx, NULL, seek, sn, &size));
    CHECK_SIZE_EQ(size, 5);

    free(big);
    oc_context_destroy(ctx);
    printf("test_size_agreement: size query, exact and roomy decoding agree on the issue's inputs\n");
    return 0;
}
