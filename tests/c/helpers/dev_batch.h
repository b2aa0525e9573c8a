/*
 * dev_batch.h - one batch through the CUDA engine's batched calls as the
 * zstd GPU tests (test_cuda_zstd_dispatch.c, test_cuda_zstd_enc.c) run it,
 * written once: the inputs copied into one device buffer, the outputs in
 * slots of caps[i] bytes each followed by DEV_BATCH_GUARD guard bytes
 * (0xA5), the argument arrays in host or in device memory, the slots
 * copied back to out_host (every slot with its guard, in order) and a
 * changed guard byte counted as a failure (soft_check.h).  The context is
 * dev_mem.h's g_gpu; src/ must be on the include path.
 */
#ifndef OC_DEV_BATCH_H
#define OC_DEV_BATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/runtime/cuda_engine.h"
#include "dev_mem.h"
#include "soft_check.h"

#define DEV_BATCH_GUARD 32
#define DEV_BATCH_GUARD_BYTE 0xA5

/* compress: 1 oc_cuda_batch_compress, 0 oc_cuda_batch_decompress, with
 * options o over in[i] (host, len[i] bytes) into capacities caps[i];
 * sizes and st get the results on the host. */
static inline void dev_batch_run(int compress, const oc_codec_options *o, size_t n, const uint8_t *const *in,
                                 const size_t *len, const size_t *caps, int arrays_on_device,
                                 uint8_t *out_host, size_t *sizes, oc_status *st)
{
    size_t in_total = 0, out_total = 0;
    for (size_t i = 0; i < n; i++)
        in_total += len[i], out_total += caps[i] + DEV_BATCH_GUARD;
    uint8_t *d_in = dev_alloc(in_total), *d_out = dev_alloc(out_total);
    const void **src = malloc((n ? n : 1) * sizeof *src);
    void **dst = malloc((n ? n : 1) * sizeof *dst);
    uint8_t *fill = malloc(out_total ? out_total : 1);
    REQUIRE(src && dst && fill);
    memset(fill, DEV_BATCH_GUARD_BYTE, out_total);
    copy(d_out, fill, out_total);
    free(fill);
    size_t io = 0, oo = 0;
    for (size_t i = 0; i < n; i++) {
        copy(d_in + io, in[i], len[i]);
        src[i] = d_in + io;
        dst[i] = d_out + oo;
        io += len[i];
        oo += caps[i] + DEV_BATCH_GUARD;
    }
    oc_status (*call)(oc_context *, const oc_codec_options *, size_t, const void *const *, const size_t *,
                      void *const *, const size_t *, size_t *, oc_status *) =
        compress ? oc_cuda_batch_compress : oc_cuda_batch_decompress;
    if (!arrays_on_device) {
        CHECK(call(g_gpu, o, n, src, len, dst, caps, sizes, st) == OC_OK);
        REQUIRE(oc_cuda_synchronize(g_gpu) == OC_OK);
    } else {
        size_t w = n * 8;
        uint8_t *a = dev_alloc(6 * w);
        copy(a, src, w);
        copy(a + w, len, w);
        copy(a + 2 * w, dst, w);
        copy(a + 3 * w, caps, w);
        CHECK(call(g_gpu, o, n, (const void *const *)a, (size_t *)(a + w), (void *const *)(a + 2 * w),
                   (size_t *)(a + 3 * w), (size_t *)(a + 4 * w), (oc_status *)(a + 5 * w)) == OC_OK);
        copy(sizes, a + 4 * w, w);
        copy(st, a + 5 * w, n * sizeof(oc_status));
        dev_free(a, 6 * w);
    }
    copy(out_host, d_out, out_total);
    oo = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t g = 0; g < DEV_BATCH_GUARD; g++)
            if (out_host[oo + caps[i] + g] != DEV_BATCH_GUARD_BYTE) {
                fprintf(stderr, "chunk %zu: write past capacity\n", i);
                g_failures++;
                break;
            }
        oo += caps[i] + DEV_BATCH_GUARD;
    }
    free(src);
    free(dst);
    dev_free(d_in, in_total);
    dev_free(d_out, out_total);
}

#endif /* OC_DEV_BATCH_H */
