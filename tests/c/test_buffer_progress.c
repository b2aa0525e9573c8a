/*
 * test_buffer_progress.c - the whole-buffer layer on a larger input
 * (a 24 MiB numeric column + text), for every algorithm of the table with a
 * NATIVE container: the progress callback is called, with
 * non-decreasing values that end at the total, at most ~100 times; output is
 * the same bytes with 1 and 2 threads (determinism); and a container with
 * more chunks than one group (64 MiB) decodes right.
 */
#include "helpers/algo_list.h"
#include "test_buffer_util.h"

typedef struct seen {
    unsigned calls;
    uint64_t last, total;
    int backwards;
} seen;

static int on_progress(void *opaque, uint64_t done, uint64_t total)
{
    seen *s = (seen *)opaque;
    if (done < s->last)
        s->backwards = 1;
    s->calls++;
    s->last = done;
    s->total = total;
    return 0;
}

int main(void)
{
    tb_data num = tb_numeric((size_t)3 << 20); /* 24 MiB */
    seen s1 = {0, 0, 0, 0};
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.num_threads = 2;
    co.progress = on_progress;
    co.progress_opaque = &s1;
    oc_context *ctx2 = NULL, *ctx1 = NULL;
    CHECK_ST(oc_context_create(&co, &ctx2), OC_OK);
    co.num_threads = 1;
    co.progress = NULL;
    CHECK_ST(oc_context_create(&co, &ctx1), OC_OK);

    ta_list algos;
    ta_algorithms(&algos);
    for (size_t i = 0; i < algos.n; i++) {
        const oc_algorithm_info *info = &algos.info[i];
        if (ta_native_as(info->algorithm) != info->algorithm)
            continue; /* the containers, once each: not Blosc (none), nor deflate and zlib (gzip's) */
        /* 1 MiB chunks (snappy's container clamps them to 64 KiB), at most
         * the format's largest; the fastest positive level */
        oc_buffer_options o = tb_opts(info->algorithm, OC_BITSTREAM_NATIVE,
                                      ta_clamp_chunk(info->algorithm, 1 << 20), OC_CHECKSUM_VERIFY);
        if (info->has_levels && info->min_level <= 1 && info->max_level >= 1)
            o.level = 1;
        memset(&s1, 0, sizeof s1);
        size_t n2 = 0, n1 = 0;
        unsigned char *c2 = tb_compress(ctx2, &o, num.p, num.n, &n2);
        CHECK(s1.calls >= 1 && s1.calls <= 101 && !s1.backwards && s1.last == num.n && s1.total == num.n);
        unsigned char *c1 = tb_compress(ctx1, &o, num.p, num.n, &n1);
        CHECK(c1 && c2 && n1 == n2 && !memcmp(c1, c2, n1));
        memset(&s1, 0, sizeof s1);
        unsigned char *out = (unsigned char *)tb_xmalloc(num.n);
        uint64_t got = 0;
        CHECK_ST(oc_buffer_decompress(ctx2, NULL, c2, n2, out, num.n, &got, NULL), OC_OK);
        CHECK(got == num.n && !memcmp(out, num.p, num.n));
        CHECK(s1.calls >= 1 && s1.calls <= 101 && !s1.backwards && s1.last == num.n);
        free(out);
        free(c1);
        free(c2);
    }
    /* Snappy's 64 KiB chunks over > 64 MiB: several decode groups. */
    {
        size_t big = (size_t)70 << 20;
        unsigned char *p = (unsigned char *)tb_xmalloc(big);
        for (size_t k = 0; k < big; k += num.n)
            memcpy(p + k, num.p, big - k < num.n ? big - k : num.n);
        oc_buffer_options o = tb_opts(OC_ALGO_SNAPPY, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
        size_t cn = 0;
        unsigned char *c = tb_compress(ctx2, &o, p, big, &cn);
        CHECK(c != NULL);
        unsigned char *out = (unsigned char *)tb_xmalloc(big);
        uint64_t got = 0;
        CHECK_ST(oc_buffer_decompress(ctx2, NULL, c, cn, out, big, &got, NULL), OC_OK);
        CHECK(got == big && !memcmp(out, p, big));
        free(out);
        free(c);
        free(p);
    }
    oc_context_destroy(ctx1);
    oc_context_destroy(ctx2);
    free(num.p);
    return tb_finish("test_buffer_progress");
}
