/*
 * fuzz_codec_ans.c - the ANS decoder (src/cores/ans/ans_core.h, the C
 * build of what both engines run) on arbitrary input, under ASan/UBSan,
 * through fuzz_own_codec.h's checks.
 *
 * Byte 0: bits 0-1 pick the output capacity (0, 100, 64 KiB, 256 KiB);
 * with bit 2 set the rest is DATA: compressed as bytes (bit 3 clear) or as
 * 16-bit values (bit 3 set), in format version 2 (what the codec writes;
 * bit 4 clear) or version 1 (bit 4 set: data written before version 2
 * must still decode), decoded back (the same data required) and decoded
 * into one byte less (OUTPUT_TOO_SMALL required).  Streams of either
 * version come from the seeds and from mutation of the round trips' data.  As a stream:
 * an OK decode never reports more than the capacity, a failed one no
 * bytes, and the size query (no output) gives decoding's status and size
 * (unless decoding found the output too small).
 */
#include "cores/ans/ans_core.h"
#include "fuzz_own_codec.h"

static ans_ws ws;

/* The core has one way of running: nw is not its. */
static oc_status compress(const void *ctx, const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap,
                          uint64_t *out, uint32_t nw)
{
    (void)nw;
    return ans_compress_chunk(&ws, src, n, *(const uint32_t *)ctx, dst, cap, out);
}

static oc_status decompress(const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap, uint64_t *out,
                            uint32_t nw)
{
    (void)nw;
    return ans_decompress_chunk(&ws, src, n, dst, cap, out);
}

/* The core's version-1 writer. */
static oc_status compress_v1(const void *ctx, const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap,
                             uint64_t *out, uint32_t nw)
{
    (void)nw;
    return ans_compress_chunk_v(&ws, 1, src, n, *(const uint32_t *)ctx, dst, cap, out);
}

static const fuzz_own_codec codec = {compress, decompress, 0};
static const fuzz_own_codec codec_v1 = {compress_v1, decompress, 0};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned mode = data[0];
    data++;
    size--;
    if (mode & 4) {
        uint32_t type = (mode & 8) ? OC_TYPE_F16 : OC_TYPE_U8;
        fuzz_own_roundtrip((mode & 16) ? &codec_v1 : &codec, &type, data, size, (size_t)ans_bound(size));
        return 0;
    }
    fuzz_own_stream(&codec, data, size, fuzz_own_capacity(mode));
    return 0;
}
