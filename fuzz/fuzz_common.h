/*
 * fuzz_common.h - shared bits of the libFuzzer targets: every input is
 * copied into an exactly-sized malloc buffer (so ASan flags a one-byte
 * overread), outputs are exactly-sized too, and one context is made once.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opencomp.h"

static inline oc_context *fuzz_ctx(void)
{
    static oc_context *ctx;
    if (!ctx) {
        oc_context_options o = OC_CONTEXT_OPTIONS_INIT;
        o.num_threads = 1;
        if (oc_context_create(&o, &ctx) != OC_OK)
            abort();
    }
    return ctx;
}

static inline uint8_t *fuzz_copy(const uint8_t *p, size_t n)
{
    uint8_t *q = (uint8_t *)malloc(n ? n : 1);
    if (!q)
        abort();
    if (n)
        memcpy(q, p, n);
    return q;
}

/* Output capacity for an input of n bytes: generous but bounded. */
static inline size_t fuzz_out_capacity(size_t n)
{
    size_t cap = n * 16 + 1024;
    return cap > ((size_t)4 << 20) ? ((size_t)4 << 20) : cap;
}

/* Runs inspect, decompressed_size and decompress on data with `hint`. */
static inline void fuzz_decode(const uint8_t *data, size_t size, const oc_buffer_options *hint)
{
    uint8_t *in = fuzz_copy(data, size);
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    uint64_t total = 0;
    /* Without recorded sizes, decompressed_size decodes to count: a small
     * zstd/deflate "bomb" could then ask for gigabytes, so only call it when
     * the sizes are recorded. */
    if (oc_buffer_inspect(in, size, hint, &info) == OC_OK && info.size_known)
        (void)oc_buffer_decompressed_size(fuzz_ctx(), hint, in, size, &total);
    size_t cap = fuzz_out_capacity(size);
    uint8_t *out = (uint8_t *)malloc(cap);
    if (!out)
        abort();
    uint64_t got = 0, failed = 0;
    oc_status st = oc_buffer_decompress(fuzz_ctx(), hint, in, size, out, cap, &got, &failed);
    if (st == OC_OK && got > cap)
        abort();
    free(out);
    free(in);
}

#endif /* FUZZ_COMMON_H */
