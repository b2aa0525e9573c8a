/*
 * fuzz_inflate_gpu_core.c - the GPU inflate core (src/cuda/codecs/deflate/inflate_core.h
 * and inflate_chunk_core.h) compiled for the host, one lane: the code the
 * CUDA kernel runs, fuzzed under ASan/UBSan on the CPU.  Input and output
 * are exactly-sized heap buffers, so a one-byte overread or overwrite
 * faults.  Byte 0 picks the format (raw deflate, zlib, gzip) and the output
 * capacity.  Decoding twice must give the same status and size; the status
 * must be the CPU engine's (except where the CPU engine's libdeflate accepts
 * a stream that zlib rejects: then the core says CORRUPT, as zlib); and an
 * accepted chunk must be accepted by zlib with the same bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "cuda/codecs/deflate/inflate_chunk_core.h"
#include "fuzz_common.h"

/* zlib's inflate of the whole chunk (gzip: every member; zero bytes after
 * a member are padding, before the next member or at the end, as both
 * engines and Python's gzip module read them: 626173e); size or -1. */
static int all_zero(const Bytef *p, uInt n)
{
    for (uInt i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

static long zlib_inflate_all(oc_algorithm a, const uint8_t *src, size_t n, uint8_t *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, a == OC_ALGO_ZLIB ? 15 : a == OC_ALGO_GZIP ? 31 : -15) != Z_OK)
        abort();
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    long r = -1;
    for (;;) {
        int ret = inflate(&z, Z_FINISH);
        if (ret == Z_STREAM_END && a == OC_ALGO_GZIP && z.avail_in > 0 && all_zero(z.next_in, z.avail_in)) {
            r = (long)(cap - z.avail_out);
            break;
        }
        if (ret == Z_STREAM_END && a == OC_ALGO_GZIP && z.avail_in > 0) {
            uInt left = z.avail_in;
            Bytef *at = z.next_in;
            while (*at == 0) { /* padding before the next member (not all zero: checked above) */
                at++;
                left--;
            }
            inflateReset(&z);
            z.next_in = at;
            z.avail_in = left;
            continue;
        }
        if (ret == Z_STREAM_END && z.avail_in == 0)
            r = (long)(cap - z.avail_out);
        break;
    }
    inflateEnd(&z);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static inf_tables tables;
    static uint32_t crct[256];
    static int init;
    if (!init) {
        dck_crc_table_fill(crct, 0, 1);
        init = 1;
    }
    if (size < 1)
        return 0;
    static const size_t caps[4] = {0, 1000, 65536, 1 << 20};
    static const oc_algorithm algos[4] = {OC_ALGO_DEFLATE, OC_ALGO_ZLIB, OC_ALGO_GZIP, OC_ALGO_DEFLATE};
    size_t cap = caps[data[0] & 3];
    oc_algorithm a = algos[(data[0] >> 2) & 3];
    data++;
    size--;
    uint8_t *in = fuzz_copy(data, size);
    uint8_t *out = (uint8_t *)malloc(cap ? cap : 1);
    if (!out)
        abort();
    size_t got = 0, got2 = 0;
    oc_status st = inf_decode_chunk(&tables, crct, a, in, size, out, cap, &got);
    if (st == OC_OK && got > cap)
        abort();
    oc_status st2 = inf_decode_chunk(&tables, crct, a, in, size, out, cap, &got2);
    if (st2 != st || got2 != got)
        abort();
    uint8_t *ref = (uint8_t *)malloc(cap ? cap : 1);
    if (!ref)
        abort();
    long zr = zlib_inflate_all(a, in, size, ref, cap);
    if (st == OC_OK && (zr != (long)got || memcmp(ref, out, got) != 0))
        abort();
    /* the CPU engine's verdict */
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    const void *s = in;
    void *d = ref;
    size_t cgot = 0;
    oc_status cst = OC_ERR_INTERNAL;
    if (oc_batch_decompress(fuzz_ctx(), &o, 1, &s, &size, &d, &cap, &cgot, &cst) != OC_OK)
        abort();
    if (cst != st && !(st == OC_ERR_CORRUPT && zr < 0))
        abort();
    free(ref);
    free(in);
    free(out);
    return 0;
}
