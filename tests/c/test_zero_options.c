/*
 * test_zero_options.c - an all-zero options struct means "defaults"
 * (issue 19 item 2; include/opencomp.h, "Options structs"), as libzstd's
 * parameters and LZ4F's preferences do.  Guards against a zeroed struct
 * being refused (struct_size 0), or meaning something other than the
 * *_INIT macro: before this, a zeroed oc_buffer_options was refused, and
 * with struct_size set it meant OC_CHECKSUM_NONE (no checksums written or
 * verified) where OC_BUFFER_OPTIONS_INIT means VERIFY.
 *
 * For every public options struct (oc_context_options, oc_codec_options,
 * oc_buffer_options for compression, decoding hints, the stream writer and
 * the stream reader), a zeroed struct - with struct_size 0 and with
 * struct_size set - gives the same bytes and the same statuses as the INIT
 * macro; on damaged streams it gives the same status as INIT at every
 * flipped byte, and differs from OC_CHECKSUM_NONE somewhere (checksums are
 * verified).  Wrong non-zero struct sizes are still INVALID_ARGUMENT.
 */
#define _POSIX_C_SOURCE 200809L
#include "helpers/algo_list.h"
#include "test_stream_util.h"

static oc_context *ctx;

_Static_assert(OC_CHECKSUM_VERIFY == 0, "the default checksum policy is the zero value");

static oc_status stream_compress(const oc_buffer_options *o, const tb_data *d, sink *out)
{
    oc_stream_writer *w = NULL;
    memset(out, 0, sizeof *out);
    oc_status st = oc_stream_writer_create(ctx, o, d->n, sink_write, out, &w);
    if (st == OC_OK)
        st = oc_stream_writer_write(w, d->p, d->n);
    if (st == OC_OK)
        st = oc_stream_writer_finish(w, NULL);
    oc_stream_writer_destroy(w);
    return st;
}

static oc_status stream_decompress(const oc_buffer_options *hint, const unsigned char *src, size_t n,
                                   sink *out)
{
    source s = {src, n, 0, 0, 0, NULL};
    oc_stream_reader *r = NULL;
    memset(out, 0, sizeof *out);
    oc_status st = oc_stream_reader_create(ctx, hint, source_read, &s, &r);
    while (st == OC_OK) {
        const void *data;
        size_t size;
        st = oc_stream_reader_next(r, &data, &size);
        if (st != OC_OK || size == 0)
            break;
        sink_write(out, data, size);
    }
    oc_stream_reader_destroy(r);
    return st;
}

/* The three spellings of "defaults" for oc_buffer_options: the INIT macro,
 * a zeroed struct, and a zeroed struct whose struct_size is set. */
static void buffer_spellings(oc_algorithm a, oc_buffer_options o[3])
{
    oc_buffer_options init = OC_BUFFER_OPTIONS_INIT;
    o[0] = init;
    memset(&o[1], 0, sizeof o[1]);
    memset(&o[2], 0, sizeof o[2]);
    o[2].struct_size = sizeof o[2];
    for (int i = 0; i < 3; i++)
        o[i].algorithm = a;
}

static void contexts(void)
{
    oc_context *c = NULL;
    oc_context_options zero;
    memset(&zero, 0, sizeof zero);
    CHECK_ST(oc_context_create(&zero, &c), OC_OK);
    CHECK(c && oc_context_num_threads(c) == oc_context_num_threads(ctx));
    oc_context_destroy(c);
    c = NULL;
    zero.struct_size = sizeof zero;
    CHECK_ST(oc_context_create(&zero, &c), OC_OK);
    CHECK(c && oc_context_num_threads(c) == oc_context_num_threads(ctx));
    oc_context_destroy(c);
    c = NULL;
    zero.struct_size = sizeof zero + 8; /* a size that is neither 0 nor ours is still refused */
    CHECK_ST(oc_context_create(&zero, &c), OC_ERR_INVALID_ARGUMENT);
    zero.struct_size = 1;
    CHECK_ST(oc_context_create(&zero, &c), OC_ERR_INVALID_ARGUMENT);
    /* zero means defaults, it does not switch the checks off */
    memset(&zero, 0, sizeof zero);
    zero.num_threads = -1;
    CHECK_ST(oc_context_create(&zero, &c), OC_ERR_INVALID_ARGUMENT);
}

static void whole_buffer(const tb_data *d, oc_algorithm a)
{
    oc_buffer_options o[3];
    buffer_spellings(a, o);
    if (a == OC_ALGO_CASCADED || a == OC_ALGO_BITCOMP)
        for (int i = 0; i < 3; i++)
            o[i].typed.data_type = OC_TYPE_I64;
    size_t n[3] = {0, 0, 0};
    unsigned char *c[3];
    for (int i = 0; i < 3; i++) {
        CHECK(oc_buffer_compress_bound(&o[i], d->n) == oc_buffer_compress_bound(&o[0], d->n));
        c[i] = tb_compress(ctx, &o[i], d->p, d->n, &n[i]);
        CHECK(c[i] != NULL);
    }
    if (!c[0] || !c[1] || !c[2])
        return;
    for (int i = 1; i < 3; i++)
        if (n[i] != n[0] || memcmp(c[i], c[0], n[0]) != 0) {
            fprintf(stderr, "%s: zeroed options (spelling %d) wrote %zu bytes, INIT %zu, or other bytes\n",
                    oc_algorithm_name(a), i, n[i], n[0]);
            tb_failures++;
        }
    /* The container the defaults write has per-chunk checksums: the same
     * container as OC_CHECKSUM_COMPUTE writes, not NONE's. */
    oc_buffer_options none = o[0];
    none.checksum = OC_CHECKSUM_NONE;
    size_t nn = 0;
    unsigned char *cn = tb_compress(ctx, &none, d->p, d->n, &nn);
    oc_frame_info fi, fn;
    memset(&fi, 0, sizeof fi);
    memset(&fn, 0, sizeof fn);
    fi.struct_size = fn.struct_size = sizeof fi;
    CHECK_ST(oc_buffer_inspect(c[1], n[1], &o[1], &fi), OC_OK);
    CHECK_ST(oc_buffer_inspect(cn, nn, &none, &fn), OC_OK);
    CHECK(fi.has_checksums == 1);
    if (a == OC_ALGO_LZ4 || a == OC_ALGO_ZSTD)
        CHECK(fn.has_checksums == 0 && nn < n[1]);
    free(cn);

    /* Decoding with each spelling as the hint: same bytes back; and on a
     * damaged copy, the same status as INIT's at every flipped byte. */
    unsigned char *back = (unsigned char *)tb_xmalloc(d->n);
    for (int i = 0; i < 3; i++) {
        uint64_t got = 0;
        CHECK_ST(oc_buffer_decompress(ctx, &o[i], c[0], n[0], back, d->n, &got, NULL), OC_OK);
        CHECK(got == d->n && !memcmp(back, d->p, d->n));
    }
    int differs_from_none = 0, mismatches = 0;
    size_t step = n[0] / 97 + 1;
    for (size_t p = 0; p < n[0]; p += step) {
        unsigned char *bad = tb_copy(c[0], n[0]);
        bad[p] ^= 0x04;
        uint64_t got = 0, f0 = 0, fi2 = 0;
        oc_status want = oc_buffer_decompress(ctx, &o[0], bad, n[0], back, d->n, &got, &f0);
        for (int i = 1; i < 3; i++) {
            oc_status st = oc_buffer_decompress(ctx, &o[i], bad, n[0], back, d->n, &got, &fi2);
            if (st != want || (want != OC_OK && fi2 != f0)) {
                fprintf(stderr,
                        "%s: byte %zu flipped: zeroed hint (spelling %d) %s chunk %llu, INIT %s chunk %llu\n",
                        oc_algorithm_name(a), p, i, oc_status_name(st), (unsigned long long)fi2,
                        oc_status_name(want), (unsigned long long)f0);
                tb_failures++;
            }
        }
        mismatches += want == OC_ERR_CHECKSUM_MISMATCH;
        differs_from_none += oc_buffer_decompress(ctx, &none, bad, n[0], back, d->n, &got, NULL) != want;
        free(bad);
    }
    /* checksums are verified under the zeroed hint: some flip is caught by
     * a checksum alone, where NONE says OK or something else.  (Not
     * checkable this way where the codec's own checks see every sampled
     * flip first: snappy, the deflate family, ANS.) */
    if (a != OC_ALGO_SNAPPY && a != OC_ALGO_DEFLATE && a != OC_ALGO_ZLIB && a != OC_ALGO_GZIP &&
        a != OC_ALGO_ANS && (mismatches == 0 || differs_from_none == 0)) {
        fprintf(stderr, "%s: %d flips gave CHECKSUM_MISMATCH, %d a status other than NONE's\n",
                oc_algorithm_name(a), mismatches, differs_from_none);
        tb_failures++;
    }
    free(back);
    for (int i = 0; i < 3; i++)
        free(c[i]);
}

static void batched(const tb_data *d, oc_algorithm a)
{
    enum { N = 6 };
    oc_codec_options init = OC_CODEC_OPTIONS_INIT, zero, sized;
    memset(&zero, 0, sizeof zero);
    memset(&sized, 0, sizeof sized);
    sized.struct_size = sizeof sized;
    init.algorithm = zero.algorithm = sized.algorithm = a;
    const oc_codec_options *o[3] = {&init, &zero, &sized};
    size_t each = ta_clamp_chunk(a, d->n / N), bound = oc_compress_bound(a, each);
    const void *src[N];
    size_t ssz[N], cap[N], csz[3][N], dsz[N];
    void *dst[3][N];
    oc_status sts[N];
    for (int k = 0; k < N; k++) {
        src[k] = d->p + k * each;
        ssz[k] = each;
        cap[k] = bound;
    }
    for (int i = 0; i < 3; i++) {
        for (int k = 0; k < N; k++)
            dst[i][k] = tb_xmalloc(bound);
        CHECK_ST(oc_batch_compress(ctx, o[i], N, src, ssz, dst[i], cap, csz[i], sts), OC_OK);
        for (int k = 0; k < N; k++)
            CHECK_ST(sts[k], OC_OK);
    }
    for (int i = 1; i < 3; i++)
        for (int k = 0; k < N; k++)
            if (csz[i][k] != csz[0][k] || memcmp(dst[i][k], dst[0][k], csz[0][k]) != 0) {
                fprintf(stderr, "%s batch chunk %d: zeroed options (spelling %d) wrote other bytes\n",
                        oc_algorithm_name(a), k, i);
                tb_failures++;
            }
    for (int i = 0; i < 3; i++) {
        void *out[N];
        const void *in[N];
        size_t ocap[N];
        for (int k = 0; k < N; k++) {
            out[k] = tb_xmalloc(each);
            in[k] = dst[0][k];
            ocap[k] = each;
        }
        CHECK_ST(oc_batch_decompress(ctx, o[i], N, in, csz[0], out, ocap, dsz, sts), OC_OK);
        for (int k = 0; k < N; k++) {
            CHECK_ST(sts[k], OC_OK);
            CHECK(dsz[k] == each && !memcmp(out[k], src[k], each));
            free(out[k]);
        }
    }
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < N; k++)
            free(dst[i][k]);
    /* still checked: a wrong non-zero size, a bad filter */
    sized.struct_size = sizeof sized - 1;
    CHECK_ST(oc_batch_compress(ctx, &sized, 0, NULL, NULL, NULL, NULL, NULL, NULL), OC_ERR_INVALID_ARGUMENT);
    zero.filter = 7;
    CHECK_ST(oc_batch_compress(ctx, &zero, 0, NULL, NULL, NULL, NULL, NULL, NULL), OC_ERR_INVALID_ARGUMENT);
}

static void streams(const tb_data *d, oc_algorithm a)
{
    oc_buffer_options o[3];
    buffer_spellings(a, o);
    sink s[3];
    for (int i = 0; i < 3; i++)
        CHECK_ST(stream_compress(&o[i], d, &s[i]), OC_OK);
    for (int i = 1; i < 3; i++)
        if (s[i].n != s[0].n || memcmp(s[i].p, s[0].p, s[0].n) != 0) {
            fprintf(stderr, "%s stream: zeroed options (spelling %d) wrote other bytes\n",
                    oc_algorithm_name(a), i);
            tb_failures++;
        }
    for (int i = 0; i < 3; i++) {
        sink back;
        CHECK_ST(stream_decompress(&o[i], s[0].p, s[0].n, &back), OC_OK);
        CHECK(back.n == d->n && !memcmp(back.p, d->p, d->n));
        free(back.p);
    }
    /* A damaged stream: the zeroed hint gives INIT's status at every flip. */
    oc_buffer_options none = o[0];
    none.checksum = OC_CHECKSUM_NONE;
    int mismatches = 0, differs_from_none = 0;
    size_t step = s[0].n / 41 + 1;
    for (size_t p = 0; p < s[0].n; p += step) {
        unsigned char *bad = tb_copy(s[0].p, s[0].n);
        bad[p] ^= 0x04;
        sink back;
        oc_status want = stream_decompress(&o[0], bad, s[0].n, &back);
        free(back.p);
        for (int i = 1; i < 3; i++) {
            oc_status st = stream_decompress(&o[i], bad, s[0].n, &back);
            free(back.p);
            if (st != want) {
                fprintf(stderr, "%s stream: byte %zu flipped: zeroed hint (spelling %d) %s, INIT %s\n",
                        oc_algorithm_name(a), p, i, oc_status_name(st), oc_status_name(want));
                tb_failures++;
            }
        }
        mismatches += want == OC_ERR_CHECKSUM_MISMATCH;
        differs_from_none += stream_decompress(&none, bad, s[0].n, &back) != want;
        free(back.p);
        free(bad);
    }
    if (a == OC_ALGO_LZ4 || a == OC_ALGO_ZSTD)
        CHECK(mismatches > 0 && differs_from_none > 0);
    for (int i = 0; i < 3; i++)
        free(s[i].p);
    /* a checksum policy past the last one is still refused */
    oc_buffer_options bad = o[1];
    bad.checksum = (oc_checksum_policy)3;
    oc_stream_writer *w = NULL;
    sink unused = {NULL, 0, 0};
    CHECK_ST(oc_stream_writer_create(ctx, &bad, OC_SIZE_UNKNOWN, sink_write, &unused, &w),
             OC_ERR_INVALID_ARGUMENT);
    CHECK(w == NULL);
}

int main(void)
{
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    tb_data text = tb_text(400000);
    tb_data num = tb_numeric(60000);
    contexts();
    /* Every algorithm with a NATIVE container (the table, through the
     * public API), on text and on numbers (our typed formats' data);
     * streams where the stream layer writes its container. */
    ta_list all;
    ta_algorithms(&all);
    const tb_data *sets[2] = {&text, &num};
    for (size_t i = 0; i < all.n; i++) {
        oc_algorithm a = all.info[i].algorithm;
        for (int k = 0; k < 2 && ta_has_native(a); k++) {
            whole_buffer(sets[k], a);
            batched(sets[k], a);
            if (ta_streams(a))
                streams(sets[k], a);
        }
    }

    /* A zeroed hint decodes a self-identifying stream with nothing set. */
    size_t cap = oc_compress_bound_simple(OC_ALGO_ZSTD, text.n), cn = 0;
    unsigned char *c = (unsigned char *)tb_xmalloc(cap), *back = (unsigned char *)tb_xmalloc(text.n);
    CHECK_ST(oc_compress(OC_ALGO_ZSTD, 0, text.p, text.n, c, cap, &cn), OC_OK);
    oc_buffer_options zero;
    memset(&zero, 0, sizeof zero);
    uint64_t got = 0, size = 0;
    CHECK_ST(oc_buffer_decompressed_size(ctx, &zero, c, cn, &size), OC_OK);
    CHECK(size == text.n);
    CHECK_ST(oc_buffer_decompress(ctx, &zero, c, cn, back, text.n, &got, NULL), OC_OK);
    CHECK(got == text.n && !memcmp(back, text.p, got));
    /* compression needs an algorithm whatever the spelling */
    uint64_t csize = 0;
    CHECK_ST(oc_buffer_compress(ctx, &zero, text.p, text.n, c, cap, &csize), OC_ERR_INVALID_ARGUMENT);
    free(c);
    free(back);
    free(text.p);
    free(num.p);
    oc_context_destroy(ctx);
    return tb_finish("test_zero_options");
}
