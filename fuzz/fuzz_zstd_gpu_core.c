/*
 * fuzz_zstd_gpu_core.c - the GPU Zstandard decoder's core
 * (src/cuda/codecs/zstd/zstd_decode_core.h) compiled for the host, one lane: the code the
 * CUDA kernel runs, fuzzed under ASan/UBSan on the CPU.  Input and output are
 * exactly-sized heap buffers, so a one-byte overread or overwrite faults.
 * Byte 0 picks the output capacity; when the core accepts an input that
 * libzstd (window limit raised to 31) also accepts, both must give the same
 * bytes, and decoding twice must give the same status and size.  The
 * block-parallel path (zstd_dec_blocks.h) runs on the same input: where it
 * succeeds, the per-chunk core must give OK, the same size and bytes; so
 * must the multi-block frame path of the library (v8, zstd_dec_frame.h,
 * with slots of the kernel's size) where it succeeds.  The
 * lane-parallel path (zstd_dec_lanes.h) decodes it as a group of one chunk:
 * the same status, size and bytes as the per-chunk core, always, and where
 * it says OK no byte written past that size (its literals go into the
 * output's tail first).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "../bench/gpu/dev/zstd_dec_blocks.h"
#include "cuda/codecs/zstd/zstd_dec_lanes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static zd_tables tables;
    static uint8_t lit[ZD_BLOCK_MAX];
    static ZSTD_DCtx *dctx;
    if (size < 1)
        return 0;
    static const size_t caps[4] = {0, 1000, 65536, 1 << 20};
    size_t cap = caps[data[0] & 3];
    data++;
    size--;
    uint8_t *in = (uint8_t *)malloc(size ? size : 1);
    uint8_t *out = (uint8_t *)malloc(cap ? cap : 1);
    if (!in || !out)
        abort();
    if (size)
        memcpy(in, data, size);
    size_t got = 0, got2 = 0;
    oc_status st = zd_decode_chunk(&tables, in, size, out, cap, &got, lit, sizeof lit);
    if (got > cap)
        abort();
    oc_status st2 = zd_decode_chunk(&tables, in, size, out, cap, &got2, lit, sizeof lit);
    if (st2 != st || got2 != got)
        abort();
    uint8_t *bp = (uint8_t *)malloc(cap ? cap : 1);
    size_t bgot = 0;
    if (!bp)
        abort();
    if (zd_bp_decode_host(&tables, in, size, bp, cap, &bgot, NULL) &&
        (st != OC_OK || bgot != got || memcmp(bp, out, got) != 0))
        abort();
    /* v8 (zstd_dec_frame.h, the library's kernel for multi-block frames;
     * test_zstd_gpu_blocks also runs the dev v8c split): the same one-sided
     * rule, with slots as small as the kernel's */
    if (zd_pf_decode_host(&tables, in, size, bp, cap, &bgot, (uint64_t)320 << 10) &&
        (st != OC_OK || bgot != got || memcmp(bp, out, got) != 0))
        abort();
    free(bp);
    {
        static zl_lane L[ZL_G];
        static uint32_t LG[ZL_G];
        static uint32_t sq[ZL_DYN_WORDS];
        static zd_fse_entry tabs[ZL_TAB_ENTRIES];
        uint8_t *lp = (uint8_t *)malloc(cap ? cap : 1);
        if (!lp)
            abort();
        memset(lp, 0xA5, cap);
        const void *srcp[1] = {in};
        void *dstp[1] = {lp};
        size_t lgot = 0;
        oc_status lst = OC_OK;
        zl_group(&tables, L, LG, sq, (uint16_t *)(void *)(sq + ZL_SQ_WORDS(ZL_G)), 0, 1, srcp, &size, dstp,
                 &cap, &lgot, &lst, lit, sizeof lit, tabs);
        if (lst != st || lgot != got || memcmp(lp, out, got) != 0)
            abort();
        for (size_t i = got; lst == OC_OK && i < cap; i++)
            if (lp[i] != 0xA5)
                abort();
        free(lp);
    }
    if (st == OC_OK) {
        if (!dctx) {
            dctx = ZSTD_createDCtx();
            ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 31);
        }
        uint8_t *ref = (uint8_t *)malloc(cap ? cap : 1);
        if (!ref)
            abort();
        size_t r = ZSTD_decompressDCtx(dctx, ref, cap, in, size);
        if (!ZSTD_isError(r) && (r != got || memcmp(ref, out, got) != 0))
            abort();
        free(ref);
    }
    free(in);
    free(out);
    return 0;
}
