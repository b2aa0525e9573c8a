/*
 * test_api_overlap.c - inputs and outputs that overlap, and a missing size
 * array, are refused with INVALID_ARGUMENT before anything is read or
 * written (include/opencomp.h says so).
 *
 * Regressions pinned here (issue 11 item 14): overlapping source and
 * destination were undefined behaviour (AddressSanitizer aborted inside
 * libsnappy; the ASan suite runs this test); oc_batch_compress accepted
 * dst_sizes == NULL and returned OK.  A chunk of a batch that overlaps gets
 * its own status; the other chunks still run.
 */
#include <string.h>

#include "helpers/algo_list.h"
#include "helpers/test_util.h"

int main(void)
{
    oc_context *ctx;
    CHECK_OK(oc_context_create(NULL, &ctx));
    tu_buf text;
    tu_corpus_get("text", 200000, &text);
    ta_list algos;
    ta_algorithms(&algos);
    for (size_t a = 0; a < algos.n; a++) {
        oc_algorithm algo = algos.info[a].algorithm;
        /* one chunk: at most 100000 bytes, or the format's largest chunk */
        size_t n = ta_clamp_chunk(algo, text.size < 100000 ? text.size : 100000);
        CHECK(n >= 20000);
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = algo;
        size_t bound = oc_compress_bound(algo, n);
        /* one arena: chunk 0 overlaps (its output starts inside its input),
         * chunk 1 does not */
        uint8_t *arena = tu_xmalloc(2 * n + 2 * bound);
        memcpy(arena, text.data, n);
        uint8_t *in1 = arena + n + bound, *out1 = in1 + n;
        memcpy(in1, text.data, n);
        const void *src[2] = {arena, in1};
        size_t ss[2] = {n, n};
        void *dst[2] = {arena + n / 2, out1};
        size_t dc[2] = {bound, bound}, ds[2] = {7, 7};
        oc_status st[2];
        CHECK_OK(oc_batch_compress(ctx, &o, 2, src, ss, dst, dc, ds, st));
        CHECK_STATUS(st[0], OC_ERR_INVALID_ARGUMENT);
        CHECK_SIZE_EQ(ds[0], 0);
        CHECK_STATUS(st[1], OC_OK);
        CHECK_MEM_EQ(arena, text.data, n); /* the overlapping chunk wrote nothing */
        /* dst_sizes NULL: the call is refused */
        CHECK_STATUS(oc_batch_compress(ctx, &o, 2, src, ss, dst, dc, NULL, st), OC_ERR_INVALID_ARGUMENT);
        /* decode chunk 1's stream in place: output range covers the input */
        size_t csize = ds[1];
        const void *csrc[1] = {out1};
        void *cdst[1] = {out1 - 10};
        size_t ccap[1] = {n}, got[1] = {0};
        CHECK_OK(oc_batch_decompress(ctx, &o, 1, csrc, &csize, cdst, ccap, got, st));
        CHECK_STATUS(st[0], OC_ERR_INVALID_ARGUMENT);
        /* and into a separate buffer it decodes */
        uint8_t *back = tu_xmalloc(n);
        cdst[0] = back;
        CHECK_OK(oc_batch_decompress(ctx, &o, 1, csrc, &csize, cdst, ccap, got, st));
        CHECK_STATUS(st[0], OC_OK);
        CHECK_MEM_EQ(back, text.data, n);
        free(back);

        /* the whole-buffer layer */
        oc_buffer_options bo = OC_BUFFER_OPTIONS_INIT;
        bo.algorithm = algo;
        if (!ta_has_native(algo))
            bo.kind = OC_BITSTREAM_RAW;
        uint64_t cb = oc_buffer_compress_bound(&bo, n), got64 = 0;
        uint8_t *buf = tu_xmalloc(n + cb);
        memcpy(buf, text.data, n);
        CHECK_STATUS(oc_buffer_compress(ctx, &bo, buf, n, buf + 1000, cb, &got64), OC_ERR_INVALID_ARGUMENT);
        CHECK_MEM_EQ(buf, text.data, n);
        CHECK_OK(oc_buffer_compress(ctx, &bo, buf, n, buf + n, cb, &got64));
        uint64_t clen = got64;
        memmove(buf, buf + n, clen);
        CHECK_STATUS(oc_buffer_decompress(ctx, NULL, buf, clen, buf + clen / 2, n, &got64, NULL),
                     OC_ERR_INVALID_ARGUMENT);
        free(buf);
        free(arena);
    }
    tu_buf_free(&text);
    oc_context_destroy(ctx);
    printf("test_api_overlap: overlapping buffers and dst_sizes == NULL refused for every algorithm\n");
    return 0;
}
