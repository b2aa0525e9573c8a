/*
 * fuzz_codec_bitcomp.c - the Bitcomp-class decoder (src/cores/bitcomp/
 * bitcomp_core.h, the code both engines run) on arbitrary input, C build,
 * under ASan/UBSan, through fuzz_own_codec.h's checks.
 *
 * Byte 0: bits 0-1 pick the output capacity (0, 100, 64 KiB, 256 KiB), bit
 * 2 makes the rest DATA to compress instead of a stream: with a type (bits
 * 3-6) and algorithm_type (bit 7) the data is compressed with 1 and with 3
 * warps (the same bytes required), decoded (the same data required) and
 * decoded into one byte less (OUTPUT_TOO_SMALL required).  As a stream:
 * decoding with 1 and 3 warps gives the same status, size and bytes, the
 * size query (no output) the same status, and an OK decode never reports
 * more than the capacity.
 */
#include "cores/bitcomp/bitcomp_core.h"
#include "fuzz_own_codec.h"

static bc_ws ws;

typedef struct bc_opts {
    uint32_t type, algo;
} bc_opts;

static oc_status compress(const void *ctx, const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap,
                          uint64_t *out, uint32_t nw)
{
    const bc_opts *o = (const bc_opts *)ctx;
    return bc_compress_chunk(&ws, src, n, o->type, o->algo, dst, cap, out, nw);
}

static oc_status decompress(const uint8_t *src, size_t n, uint8_t *dst, uint64_t cap, uint64_t *out,
                            uint32_t nw)
{
    return bc_decompress_chunk(&ws, src, n, dst, cap, out, nw);
}

static const fuzz_own_codec codec = {compress, decompress, 3};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned mode = data[0];
    data++;
    size--;
    if (mode & 4) {
        bc_opts o = {1 + (mode >> 3) % (OC_TYPE_COUNT - 1), mode >> 7};
        fuzz_own_roundtrip(&codec, &o, data, size, (size_t)bc_bound(size));
        return 0;
    }
    fuzz_own_stream(&codec, data, size, fuzz_own_capacity(mode));
    return 0;
}
