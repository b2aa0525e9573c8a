/*
 * fuzz_codec_cascaded.c - the Cascaded decoder (src/cores/cascaded/
 * cascaded_core.h, the code both engines run) on arbitrary input, C build,
 * under ASan/UBSan, through fuzz_own_codec.h's checks.
 *
 * Byte 0: bits 0-1 pick the output capacity (0, 100, 64 KiB, 256 KiB), bit 2
 * makes the rest DATA to compress instead of a stream: with a type (bits
 * 3-6) and layers (byte 1) the data is compressed with 1 and with 3 warps
 * (the same bytes required), decoded (the same data required) and
 * decoded into one byte less (OUTPUT_TOO_SMALL required).  As a stream:
 * decoding with 1 and 3 warps gives the same status, size and bytes, the
 * size query (no output) the same status, and an OK decode never reports
 * more than the capacity.
 */
#include "cores/cascaded/cascaded_core.h"
#include "fuzz_own_codec.h"

static cz_ws ws;

typedef struct cz_opts {
    uint32_t type;
    cz_layers L;
} cz_opts;

static oc_status compress(const void *ctx, const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap,
                          uint64_t *out, uint32_t nw)
{
    const cz_opts *o = (const cz_opts *)ctx;
    return cz_compress_chunk(&ws, src, n, o->type, o->L, dst, cap, out, nw);
}

static oc_status decompress(const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap, uint64_t *out,
                            uint32_t nw)
{
    return cz_decompress_chunk(&ws, src, n, dst, cap, out, nw);
}

static const fuzz_own_codec codec = {compress, decompress, 3};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned mode = data[0], layers = data[1];
    data += 2;
    size -= 2;
    if (mode & 4) {
        cz_opts o = {1 + (mode >> 3) % (OC_TYPE_COUNT - 1),
                     {layers & 3, (layers >> 2) & 3, (layers >> 4) & 1}};
        if (layers & 0x80)
            o.L.rles = 4; /* the automatic choice */
        fuzz_own_roundtrip(&codec, &o, data, size, (size_t)cz_bound(size));
        return 0;
    }
    fuzz_own_stream(&codec, data, size, fuzz_own_capacity(mode));
    return 0;
}
