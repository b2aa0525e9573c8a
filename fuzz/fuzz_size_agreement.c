/*
 * fuzz_size_agreement.c - the size query, the decoder and the reference
 * library must agree on every input (issue 11 item 12: a 1-byte LZ4 block
 * decoded "OK" into a buffer while the size query said CORRUPT; an LZ4
 * frame whose blocks outgrow its stated size was "output too small"; a
 * zstd block larger than its window decoded "OK" through one path and was
 * CORRUPT through another).
 *
 * The first byte picks the algorithm (low 3 bits) and the layer (bit 3:
 * batched call on a bare stream, or the whole-buffer layer with a hint).
 * Then: ask for the size first; if it is known, decode into exactly that
 * many bytes (an exactly-sized buffer: ASan sees a one-byte overrun) and
 * into a roomy buffer, both must succeed with that size and the same bytes,
 * and for LZ4, Snappy and zstd streams the reference library must decode
 * the same bytes into that size; if the size query fails, decoding into a
 * roomy buffer must fail too (except CHUNK_TOO_LARGE: a zstd frame
 * without content size whose window is over the memory limit cannot be
 * counted, yet decodes into a buffer; see oc_codec_options.memory_limit).
 */
#include <lz4.h>
#include <snappy-c.h>
#include <zstd.h>

#include "fuzz_common.h"

#define MAX_OUT ((size_t)8 << 20) /* sizes above this are not decoded (bombs) */

/* The reference library's verdict on decoding `in` into exactly `size`
 * bytes: 1 = decoded that many bytes (into ref), 0 = refused, -1 = no
 * reference here (the deflate family: the CPU engine is libdeflate). */
static int reference(oc_algorithm a, const uint8_t *in, size_t n, uint8_t *ref, size_t size)
{
    if (a == OC_ALGO_LZ4)
        return n <= 0x7fffffff &&
               LZ4_decompress_safe((const char *)in, (char *)ref, (int)n, (int)size) == (int)size;
    if (a == OC_ALGO_SNAPPY) {
        size_t len = 0;
        if (snappy_validate_compressed_buffer((const char *)in, n) != SNAPPY_OK ||
            snappy_uncompressed_length((const char *)in, n, &len) != SNAPPY_OK || len != size)
            return 0;
        return size == 0 || snappy_uncompress((const char *)in, n, (char *)ref, &len) == SNAPPY_OK;
    }
    if (a == OC_ALGO_ZSTD) {
        size_t r = ZSTD_decompress(ref, size, in, n);
        return !ZSTD_isError(r) && r == size;
    }
    return -1;
}

static void batch_case(oc_algorithm a, const uint8_t *in, size_t n)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    const void *sp = in;
    size_t size = 0;
    oc_status qs = OC_ERR_INTERNAL;
    if (oc_batch_decompressed_sizes(fuzz_ctx(), &o, 1, &sp, &n, &size, &qs) != OC_OK)
        abort();
    size_t roomy = fuzz_out_capacity(n);
    uint8_t *big = (uint8_t *)malloc(roomy);
    if (!big)
        abort();
    void *dp = big;
    size_t got = 0;
    oc_status rs = OC_ERR_INTERNAL;
    if (oc_batch_decompress(fuzz_ctx(), &o, 1, &sp, &n, &dp, &roomy, &got, &rs) != OC_OK)
        abort();
    if (qs != OC_OK) {
        /* the decoder accepts what the size query refuses; CHUNK_TOO_LARGE
         * is a memory limit of the count (a zstd window), not a verdict */
        if (rs == OC_OK && qs != OC_ERR_CHUNK_TOO_LARGE)
            abort();
    } else if (size <= MAX_OUT) {
        uint8_t *exact = (uint8_t *)malloc(size ? size : 1), *ref = (uint8_t *)malloc(size ? size : 1);
        if (!exact || !ref)
            abort();
        void *ep = exact;
        size_t cap = size, egot = 0;
        oc_status es = OC_ERR_INTERNAL;
        if (oc_batch_decompress(fuzz_ctx(), &o, 1, &sp, &n, &ep, &cap, &egot, &es) != OC_OK)
            abort();
        if (es == OC_OK && egot != size)
            abort();
        /* into exactly the size, as the reference library decodes it */
        int r = reference(a, in, n, ref, size);
        if (r >= 0 && r != (es == OC_OK))
            abort();
        if (r == 1 && size && memcmp(ref, exact, size) != 0)
            abort();
        /* and the same with room to spare */
        if (size <= roomy && ((rs == OC_OK) != (es == OC_OK) ||
                              (rs == OC_OK && (got != size || (size && memcmp(big, exact, size) != 0)))))
            abort();
        free(exact);
        free(ref);
    }
    free(big);
}

static void buffer_case(oc_algorithm a, int raw, const uint8_t *in, size_t n)
{
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    hint.algorithm = a;
    hint.kind = raw ? OC_BITSTREAM_RAW : OC_BITSTREAM_NATIVE;
    hint.checksum = OC_CHECKSUM_NONE; /* the size query reads no checksum either */
    uint64_t size = 0, got = 0, egot = 0;
    oc_status qs = oc_buffer_decompressed_size(fuzz_ctx(), &hint, in, n, &size);
    size_t roomy = fuzz_out_capacity(n);
    uint8_t *big = (uint8_t *)malloc(roomy);
    if (!big)
        abort();
    oc_status rs = oc_buffer_decompress(fuzz_ctx(), &hint, in, n, big, roomy, &got, NULL);
    if (qs != OC_OK) {
        if (rs == OC_OK && qs != OC_ERR_CHUNK_TOO_LARGE)
            abort();
    } else if (size <= MAX_OUT) {
        uint8_t *exact = (uint8_t *)malloc(size ? (size_t)size : 1);
        if (!exact)
            abort();
        oc_status es = oc_buffer_decompress(fuzz_ctx(), &hint, in, n, exact, size, &egot, NULL);
        if (es == OC_OK && egot != size)
            abort();
        if (size <= roomy &&
            ((rs == OC_OK) != (es == OC_OK) ||
             (rs == OC_OK && (got != size || (size && memcmp(big, exact, (size_t)size) != 0)))))
            abort();
        free(exact);
    }
    free(big);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    oc_algorithm a = (oc_algorithm)(1 + (data[0] & 7) % 6);
    uint8_t *in = fuzz_copy(data + 1, size - 1);
    if (data[0] & 8)
        buffer_case(a, (data[0] & 16) != 0, in, size - 1);
    else
        batch_case(a, in, size - 1);
    free(in);
    return 0;
}
