/*
 * test_batch_mutations.c - hostile input for every CPU decoder: valid
 * chunks of real data, mutated thousands of ways (byte flips, truncation,
 * random tails, spliced chunks), decoded into guarded outputs with generous
 * and exact capacities.  Checks: no crash or overrun (run it under ASan),
 * only the statuses a decoder may give, a failed chunk reports size 0, and
 * the size query agrees with the decoder (decode OK => the query gives the
 * same size, bar a documented leniency of liblz4; for formats whose query decodes -
 * deflate, zlib, gzip, snappy - also query OK => decode OK).  Formats with a checksum over the data (zlib,
 * gzip, zstd with its flag) must never return wrong bytes as OK.
 */
#include <string.h>
#include <zstd.h>

#include "helpers/algo_list.h"
#include "helpers/test_util.h"

static oc_context *ctx;

static oc_status decode1(oc_algorithm algo, const void *src, size_t n, void *dst, size_t cap, size_t *got)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    oc_status st;
    CHECK_OK(oc_batch_decompress(ctx, &o, 1, &src, &n, &dst, &cap, got, &st));
    return st;
}

static oc_status size1(oc_algorithm algo, const void *src, size_t n, size_t *size)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    oc_status st;
    CHECK_OK(oc_batch_decompressed_sizes(ctx, &o, 1, &src, &n, size, &st));
    return st;
}

static int allowed(oc_algorithm algo, oc_status st)
{
    switch (st) {
    case OC_ERR_UNSUPPORTED: /* a Blosc header naming another version (Blosc2) */
        return algo == OC_ALGO_BLOSC;
    case OC_OK:
    case OC_ERR_CORRUPT:
    case OC_ERR_TRUNCATED:
    case OC_ERR_OUTPUT_TOO_SMALL:
    case OC_ERR_CHECKSUM_MISMATCH:
    case OC_ERR_SIZE_MISMATCH:
    case OC_ERR_NEEDS_DICTIONARY:
    case OC_ERR_CHUNK_TOO_LARGE:
        return 1;
    default:
        return 0;
    }
}

#define OUTCAP (1 << 17)
static uint8_t out[OUTCAP + 64];

static void one(oc_algorithm algo, const uint8_t *m, size_t n, const uint8_t *orig, size_t orig_size,
                int checked)
{
    size_t got = 777, size = 888;
    tu_fill_guard(out + OUTCAP, 64);
    oc_status d = decode1(algo, m, n, out, OUTCAP, &got);
    CHECK_GUARD(out + OUTCAP, 64);
    CHECK_MSG(allowed(algo, d), "%s: status %s", oc_algorithm_name(algo), oc_status_name(d));
    if (d != OC_OK)
        CHECK_SIZE_EQ(got, 0);
    oc_status s = size1(algo, m, n, &size);
    CHECK_MSG(allowed(algo, s) && s != OC_ERR_OUTPUT_TOO_SMALL, "%s size: %s", oc_algorithm_name(algo),
              oc_status_name(s));
    if (d == OC_OK && algo == OC_ALGO_LZ4 && s == OC_ERR_CORRUPT && tu_lz4_has_zero_offset(m, n))
        return; /* see src/cpu/lz4_scan.c */
    if (d == OC_OK) {
        CHECK_MSG(s == OC_OK, "%s decodes but the size query says %s", oc_algorithm_name(algo),
                  oc_status_name(s));
        CHECK_SIZE_EQ(size, got);
        if (checked) {
            CHECK_SIZE_EQ(got, orig_size);
            CHECK_MEM_EQ(out, orig, got);
        }
    }
    int query_decodes =
        algo == OC_ALGO_DEFLATE || algo == OC_ALGO_ZLIB || algo == OC_ALGO_GZIP || algo == OC_ALGO_SNAPPY;
    if (query_decodes && s == OC_OK && size <= OUTCAP)
        CHECK_MSG(d == OC_OK, "%s: size query OK (%zu) but decode %s", oc_algorithm_name(algo), size,
                  oc_status_name(d));
    if (s == OC_OK && size <= OUTCAP && d == OC_OK && size > 0) { /* exact capacity, then one less */
        tu_fill_guard(out + size, 64);
        oc_status e = decode1(algo, m, n, out, size, &got);
        /* liblz4's end-of-block rules depend on the capacity: a
         * non-conformant block may decode with room to spare only */
        if (!(algo == OC_ALGO_LZ4 && e == OC_ERR_CORRUPT))
            CHECK_STATUS(e, OC_OK);
        CHECK_GUARD(out + size, 64);
        tu_fill_guard(out + size - 1, 64);
        CHECK_STATUS(decode1(algo, m, n, out, size - 1, &got), OC_ERR_OUTPUT_TOO_SMALL);
        CHECK_GUARD(out + size - 1, 64);
    }
}

int main(void)
{
    oc_context_options opts = OC_CONTEXT_OPTIONS_INIT;
    opts.num_threads = 1;
    CHECK_OK(oc_context_create(&opts, &ctx));
    tu_buf corpus[TU_CORPUS_MAX];
    size_t ncorpus = tu_corpus(corpus, TU_CORPUS_MAX, 1 << 20);
    ta_list algos; /* every algorithm of the table */
    ta_algorithms(&algos);
    tu_rng rng;
    tu_rng_seed(&rng, 99);
    size_t cap = oc_compress_bound(OC_ALGO_GZIP, 1 << 16) + 256;
    uint8_t *comp = tu_xmalloc(cap), *m = tu_xmalloc(2 * cap);
    ZSTD_CCtx *zc = ZSTD_createCCtx();
    CHECK(!ZSTD_isError(ZSTD_CCtx_setParameter(zc, ZSTD_c_checksumFlag, 1)));
    int trials = 0;
    for (size_t a = 0; a < algos.n; a++) {
        oc_algorithm algo = algos.info[a].algorithm;
        for (size_t d = 0; d < ncorpus; d++) {
            for (int rep = 0; rep < 6; rep++) {
                size_t len = 1 + tu_rng_below(&rng, 1 << 16);
                if (len > corpus[d].size)
                    len = corpus[d].size;
                const uint8_t *orig = corpus[d].data + tu_rng_below(&rng, corpus[d].size - len + 1);
                size_t c;
                int checked = algo == OC_ALGO_ZLIB || algo == OC_ALGO_GZIP;
                if (algo == OC_ALGO_ZSTD && rep % 2) { /* with a content checksum */
                    c = ZSTD_compress2(zc, comp, cap, orig, len);
                    CHECK(!ZSTD_isError(c));
                    checked = 1;
                } else {
                    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
                    o.algorithm = algo;
                    const void *s = orig;
                    void *dd = comp;
                    oc_status st;
                    CHECK_OK(oc_batch_compress(ctx, &o, 1, &s, &len, &dd, &cap, &c, &st));
                    CHECK_STATUS(st, OC_OK);
                }
                one(algo, comp, c, orig, len, 1);
                for (int k = 0; k < 40; k++, trials++) {
                    size_t n = c;
                    memcpy(m, comp, c);
                    int kind = (int)tu_rng_below(&rng, 5);
                    switch (kind) {
                    case 0:
                        for (int f = 0; f < 1 + (int)tu_rng_below(&rng, 4); f++)
                            m[tu_rng_below(&rng, n)] ^= (uint8_t)(1 + tu_rng_below(&rng, 255));
                        break;
                    case 1: /* flips in the first bytes: headers */
                        m[tu_rng_below(&rng, n < 16 ? n : 16)] ^= (uint8_t)(1 << tu_rng_below(&rng, 8));
                        break;
                    case 2:
                        n = tu_rng_below(&rng, n);
                        break;
                    case 3:
                        for (size_t e = 1 + tu_rng_below(&rng, 40); e > 0; e--)
                            m[n++] = (uint8_t)tu_rng_next(&rng);
                        break;
                    default: /* the chunk twice: a second member/frame, or trailing junk */
                        memcpy(m + n, comp, c);
                        n += c;
                        break;
                    }
                    /* exact-size copy, so ASan sees any over-read */
                    uint8_t *exact = tu_xmalloc(n);
                    memcpy(exact, m, n);
                    one(algo, exact, n, orig, len, checked && kind != 4);
                    free(exact);
                }
            }
        }
    }
    ZSTD_freeCCtx(zc);
    free(comp);
    free(m);
    for (size_t d = 0; d < ncorpus; d++)
        tu_buf_free(&corpus[d]);
    oc_context_destroy(ctx);
    printf("test_batch_mutations: %d mutated chunks OK\n", trials);
    return 0;
}
