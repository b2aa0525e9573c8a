/*
 * test_cuda_blosc_enc.c - Blosc chunks written by the GPU encoder
 * (src/cuda/codecs/blosc/blosc_enc_kernels.cu) through the public API,
 * decoded by libblosc on the host and by the GPU decoder, bit-exact.
 * Skips without a GPU (CI); scripts/gpu-check runs it on one, and under
 * compute-sanitizer with OC_TEST_SMALL=1: chunks of at most 64 KiB (zstd
 * at clevel 1 still makes two blocks of them), one typesize per cname and
 * filter (zstd: shuffle and bitshuffle), clevels 1 and -1 but not 9, zstd
 * at clevel 1 where only the argument arrays or the room are under test
 * (under memcheck the 1 MiB chunks of the old small mode did not end in
 * 380 s; this mode took ~120 s with zstd at clevel 5 everywhere).  Every case prints a line as
 * it ends (stdout line-buffered), so a run cut short by a timeout still
 * shows how far it got.
 *
 * Guards: the corpus (text, ELF, source, numeric column, random, zeros)
 * cut into chunks of several sizes (whole, a cut element at the end, 5000
 * bytes, under 128 bytes: memcpyed, empty) compressed in ONE batch per
 * case across cnames lz4, lz4hc, snappy, zstd, zlib x no shuffle / byte shuffle
 * / bitshuffle x typesizes 1, 2, 4, 8 (and 3 for lz4), at clevel 5, with
 * clevels 1, 9 and -1 (c-blosc's 0: stored) on some: every chunk OK, at
 * most nbytes + 16 bytes, with the header (flags but memcpyed, typesize,
 * nbytes, block size) libblosc writes for the same input, memcpyed where
 * libblosc's rules store it whatever the data, and decoded by libblosc and
 * by the GPU decoder to the input; compressible data is not memcpyed; the
 * same with the argument arrays in device memory (the scratch sized
 * without the host knowing the sizes); too little room is
 * OUTPUT_TOO_SMALL beside chunks that succeed; zlib chunks are the GPU
 * Deflate encoder's zlib streams (since session 9); blosclz goes through
 * libblosc (staged) and still decodes.
 *
 * `test_cuda_blosc_enc --speed [MiB]`: GPU Blosc compression of ~1 GiB
 * (4 MiB chunks of the TPC-H columns of bench/corpus-sample or
 * bench/corpus-data when present, repeated; else a big ELF binary) for lz4 and zstd x shuffle and bitshuffle
 * x typesizes 4 and 8 at clevel 5, timed (best of 2 after a warm-up), beside the CPU engine (libblosc on
 * every core); checked by the GPU decoder.  Prints only; tests never assert timings.
 */
#include <blosc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/dev_mem.h"
#include "helpers/test_util.h"

static oc_context *g_cpu;
static const char *const cnames[] = {"lz4", "blosclz", "lz4hc", "snappy", "zlib", "zstd"};

typedef struct chunk {
    const uint8_t *plain;
    size_t n;
} chunk;

/* libblosc's chunk of the same input and options (the header to match). */
static uint8_t *libblosc_chunk(const chunk *c, int codec, int level, int filter, size_t ts, int *r)
{
    uint8_t *out = tu_xmalloc(c->n + BLOSC_MAX_OVERHEAD);
    *r = blosc_compress_ctx(level < 0 ? 0 : level, filter, ts, c->n, c->plain, out, c->n + BLOSC_MAX_OVERHEAD,
                            cnames[codec], 0, 1);
    return out;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Compresses the chunks in one GPU batch (argument arrays on the host, or
 * in device memory), then checks each against libblosc and decodes it
 * with libblosc and the GPU decoder.  caps: per chunk, 0 = nbytes + 16;
 * want: per chunk, NULL = all OK. */
static void run_case(const chunk *cs, size_t m, int codec, int level, int filter, size_t ts, int dev_arrays,
                     const size_t *caps_in, const oc_status *want)
{
    double t0 = tu_now();
    const void **sp = tu_xmalloc(m * sizeof *sp);
    void **dp = tu_xmalloc(m * sizeof *dp);
    size_t *sn = tu_xmalloc(m * sizeof *sn), *caps = tu_xmalloc(m * sizeof *caps),
           *sizes = tu_xmalloc(m * sizeof *sizes);
    oc_status *st = tu_xmalloc(m * sizeof *st);
    for (size_t i = 0; i < m; i++) {
        sp[i] = to_device(cs[i].plain, cs[i].n);
        sn[i] = cs[i].n;
        caps[i] = caps_in && caps_in[i] ? caps_in[i] : cs[i].n + BLOSC_MAX_OVERHEAD;
        dp[i] = to_device(NULL, caps[i]);
        sizes[i] = 12345;
        st[i] = OC_ERR_INTERNAL;
    }
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BLOSC;
    o.level = level;
    o.filter = (uint8_t)filter;
    o.typesize = (uint8_t)ts;
    o.blosc_codec = (uint8_t)codec;
    if (dev_arrays) {
        size_t an[6] = {m * sizeof *sp,   m * sizeof *sn,    m * sizeof *dp,
                        m * sizeof *caps, m * sizeof *sizes, m * sizeof *st};
        void *a[6] = {to_device(sp, an[0]),   to_device(sn, an[1]),   to_device(dp, an[2]),
                      to_device(caps, an[3]), to_device(NULL, an[4]), to_device(NULL, an[5])};
        CHECK_OK(oc_batch_compress(g_gpu, &o, m, (const void *const *)a[0], (const size_t *)a[1],
                                   (void *const *)a[2], (const size_t *)a[3], (size_t *)a[4],
                                   (oc_status *)a[5]));
        CHECK_OK(oc_context_synchronize(g_gpu));
        copy(sizes, a[4], an[4]);
        copy(st, a[5], an[5]);
        for (int k = 0; k < 6; k++)
            dev_free(a[k], an[k]);
    } else {
        CHECK_OK(oc_batch_compress(g_gpu, &o, m, sp, sn, dp, caps, sizes, st));
        CHECK_OK(oc_context_synchronize(g_gpu));
    }
    /* the GPU decoder on every chunk that compressed */
    void **gp = tu_xmalloc(m * sizeof *gp);
    size_t *gcaps = tu_xmalloc(m * sizeof *gcaps), *gsizes = tu_xmalloc(m * sizeof *gsizes);
    oc_status *gst = tu_xmalloc(m * sizeof *gst);
    const void **okp = tu_xmalloc(m * sizeof *okp);
    size_t *okn = tu_xmalloc(m * sizeof *okn), nok = 0;
    size_t *okidx = tu_xmalloc(m * sizeof *okidx);
    for (size_t i = 0; i < m; i++) {
        oc_status w = want ? want[i] : OC_OK;
        const char *what = cnames[codec];
        CHECK_MSG(st[i] == w, "%s level %d filter %d ts %zu chunk %zu (%zu bytes): %s, expected %s", what,
                  level, filter, ts, i, cs[i].n, oc_status_name(st[i]), oc_status_name(w));
        if (st[i] != OC_OK) {
            CHECK_SIZE_EQ(sizes[i], 0);
            continue;
        }
        CHECK_MSG(sizes[i] >= 16 && sizes[i] <= caps[i] && sizes[i] <= cs[i].n + 16, "chunk %zu: size %zu", i,
                  sizes[i]);
        uint8_t *c = tu_xmalloc(sizes[i]);
        copy(c, dp[i], sizes[i]);
        CHECK_SIZE_EQ(le32(c + 12), sizes[i]);
        int r = 0;
        uint8_t *ref = libblosc_chunk(&cs[i], codec, level, filter, ts, &r);
        CHECK(r > 0);
        /* the header libblosc writes: version, versionlz, flags (the
         * memcpyed bit aside, unless libblosc's rules store the chunk
         * whatever its data), typesize, nbytes, block size */
        int rule_stored = level < 0 || cs[i].n < 128;
        CHECK_MSG(c[0] == ref[0] && c[1] == ref[1] && (c[2] & ~2) == (ref[2] & ~2) && c[3] == ref[3] &&
                      memcmp(c + 4, ref + 4, 8) == 0,
                  "%s level %d filter %d ts %zu chunk %zu: header %02x %02x %02x %02x bs %u, libblosc's %02x "
                  "%02x %02x %02x bs %u",
                  what, level, filter, ts, i, c[0], c[1], c[2], c[3], le32(c + 8), ref[0], ref[1], ref[2],
                  ref[3], le32(ref + 8));
        if (rule_stored)
            CHECK_MSG(c[2] & 2, "chunk %zu: stored by c-blosc's rules", i);
        if (!(ref[2] & 2) && (size_t)r * 2 < cs[i].n) /* libblosc halves it: so does the GPU */
            CHECK_MSG(!(c[2] & 2) && sizes[i] < cs[i].n,
                      "%s filter %d ts %zu chunk %zu: %zu bytes, libblosc %d", what, filter, ts, i, sizes[i],
                      r);
        uint8_t *back = tu_xmalloc(cs[i].n + 1);
        memset(back, 0xA5, cs[i].n + 1);
        int d = blosc_decompress_ctx(c, back, cs[i].n, 1);
        CHECK_MSG(d == (int)cs[i].n && memcmp(back, cs[i].plain, cs[i].n) == 0,
                  "%s level %d filter %d ts %zu chunk %zu: libblosc decodes %d bytes, %s", what, level,
                  filter, ts, i, d, d == (int)cs[i].n ? "not the input" : "fails");
        free(back), free(ref), free(c);
        okp[nok] = dp[i];
        okn[nok] = sizes[i];
        gcaps[nok] = cs[i].n;
        gp[nok] = to_device(NULL, cs[i].n);
        okidx[nok++] = i;
    }
    if (nok) {
        oc_codec_options d = OC_CODEC_OPTIONS_INIT;
        d.algorithm = OC_ALGO_BLOSC;
        CHECK_OK(oc_batch_decompress(g_gpu, &d, nok, okp, okn, gp, gcaps, gsizes, gst));
        CHECK_OK(oc_context_synchronize(g_gpu));
        for (size_t k = 0; k < nok; k++) {
            size_t i = okidx[k];
            CHECK_MSG(gst[k] == OC_OK && gsizes[k] == cs[i].n, "GPU decode of chunk %zu: %s", i,
                      oc_status_name(gst[k]));
            uint8_t *back = tu_xmalloc(cs[i].n + 1);
            copy(back, gp[k], cs[i].n);
            CHECK_MEM_EQ(back, cs[i].plain, cs[i].n);
            free(back);
            dev_free(gp[k], cs[i].n);
        }
    }
    for (size_t i = 0; i < m; i++) {
        dev_free((void *)sp[i], cs[i].n);
        dev_free(dp[i], caps[i]);
    }
    free(gp), free(gcaps), free(gsizes), free(gst), free(okp), free(okn), free(okidx);
    free(sp), free(dp), free(sn), free(caps), free(sizes), free(st);
    printf("  %-6s level %2d filter %d ts %zu%s: %zu chunks, %zu compressed and decoded, %.1f s\n",
           cnames[codec], level, filter, ts, dev_arrays ? " (device arrays)" : "", m, nok, tu_now() - t0);
}

/* ---- speed --------------------------------------------------------------- */

/* A corpus column (bench/corpus-sample, else bench/corpus-data), else the
 * big ELF binary. */
static void load(const char *name, size_t want, tu_buf *out)
{
    static const char *const dirs[] = {"bench/corpus-sample", "bench/corpus-data"};
    for (int d = 0; d < 2; d++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s/%s", OC_SOURCE_DIR, dirs[d], name);
        if (tu_read_file(path, 0, out) == 0 && out->size >= ((size_t)4 << 20)) {
            snprintf(out->name, sizeof out->name, "%s", name);
            return;
        }
        tu_buf_free(out);
    }
    tu_big_real(want, out);
    snprintf(out->name, sizeof out->name, "elf (no %.60s)", name);
}

static void speed(size_t mib)
{
    size_t total = mib << 20, csz = (size_t)4 << 20, m = total / csz;
    static const struct {
        const char *file;
        size_t ts;
    } cols[] = {{"tpch_l_partkey.i32", 4}, {"tpch_l_extendedprice.f64", 8}, {"tpch_l_orderkey.i64", 8}};
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    oc_context *cpu = NULL;
    CHECK_OK(oc_context_create(&co, &cpu));
    printf("GPU Blosc compression, %zu chunks of 4 MiB (%zu MiB), clevel 5, best of 2 after a warm-up\n", m,
           mib);
    printf("%-28s %-5s %-10s %3s %9s %9s %7s %8s\n", "data", "cname", "filter", "ts", "GPU GB/s", "CPU GB/s",
           "ratio", "cpu ratio");
    for (size_t k = 0; k < 3; k++) {
        tu_buf col;
        load(cols[k].file, total, &col);
        uint8_t *plain = tu_xmalloc(total);
        for (size_t off = 0; off < total; off += col.size) /* the column repeated to the batch's size */
            memcpy(plain + off, col.data, total - off < col.size ? total - off : col.size);
        uint8_t *dsrc = to_device(plain, total);
        uint8_t *ddst = dev_alloc(m * (csz + 16));
        uint8_t *hdst = tu_xmalloc(m * (csz + 16));
        uint8_t *dback = dev_alloc(total);
        const void **sp = tu_xmalloc(m * sizeof *sp), **hsp = tu_xmalloc(m * sizeof *hsp);
        void **dp = tu_xmalloc(m * sizeof *dp), **hdp = tu_xmalloc(m * sizeof *hdp),
             **bp = tu_xmalloc(m * sizeof *bp);
        size_t *sn = tu_xmalloc(m * sizeof *sn), *caps = tu_xmalloc(m * sizeof *caps),
               *sizes = tu_xmalloc(m * sizeof *sizes), *bsz = tu_xmalloc(m * sizeof *bsz);
        oc_status *st = tu_xmalloc(m * sizeof *st);
        for (size_t i = 0; i < m; i++) {
            sp[i] = dsrc + i * csz, hsp[i] = plain + i * csz;
            dp[i] = ddst + i * (csz + 16), hdp[i] = hdst + i * (csz + 16), bp[i] = dback + i * csz;
            sn[i] = csz, caps[i] = csz + 16;
        }
        for (int ci = 0; ci < 2; ci++)
            for (int filter = 1; filter <= 2; filter++) {
                int codec = ci ? OC_BLOSC_ZSTD : OC_BLOSC_LZ4;
                oc_codec_options o = OC_CODEC_OPTIONS_INIT;
                o.algorithm = OC_ALGO_BLOSC;
                o.level = 5;
                o.filter = (uint8_t)filter;
                o.typesize = (uint8_t)cols[k].ts;
                o.blosc_codec = (uint8_t)codec;
                double best = 1e30, cbest = 1e30;
                for (int rep = 0; rep < 3; rep++) {
                    double t0 = tu_now();
                    CHECK_OK(oc_batch_compress(g_gpu, &o, m, sp, sn, dp, caps, sizes, st));
                    CHECK_OK(oc_context_synchronize(g_gpu));
                    double t = tu_now() - t0;
                    if (rep > 0 && t < best)
                        best = t;
                }
                size_t out = 0;
                for (size_t i = 0; i < m; i++) {
                    CHECK_MSG(st[i] == OC_OK, "chunk %zu: %s", i, oc_status_name(st[i]));
                    out += sizes[i];
                }
                oc_codec_options d = OC_CODEC_OPTIONS_INIT;
                d.algorithm = OC_ALGO_BLOSC;
                CHECK_OK(oc_batch_decompress(g_gpu, &d, m, (const void *const *)dp, sizes, bp, sn, bsz, st));
                CHECK_OK(oc_context_synchronize(g_gpu));
                uint8_t *back = tu_xmalloc(total);
                copy(back, dback, total);
                for (size_t i = 0; i < m; i++)
                    CHECK(st[i] == OC_OK && bsz[i] == csz);
                CHECK_MEM_EQ(back, plain, total);
                free(back);
                size_t cout = 0;
                for (int rep = 0; rep < 2; rep++) {
                    double t0 = tu_now();
                    CHECK_OK(oc_batch_compress(cpu, &o, m, hsp, sn, hdp, caps, sizes, st));
                    double t = tu_now() - t0;
                    cbest = t < cbest ? t : cbest;
                }
                for (size_t i = 0; i < m; i++)
                    cout += sizes[i];
                printf("%-28s %-5s %-10s %3zu %9.2f %9.2f %7.3f %8.3f\n", col.name, cnames[codec],
                       filter == 1 ? "shuffle" : "bitshuffle", cols[k].ts, total / best / 1e9,
                       total / cbest / 1e9, (double)total / out, (double)total / cout);
                fflush(stdout);
            }
        dev_free(dsrc, total), dev_free(ddst, m * (csz + 16)), dev_free(dback, total);
        free(plain), free(hdst), free(sp), free(hsp), free(dp), free(hdp), free(bp), free(sn), free(caps);
        free(sizes), free(bsz), free(st);
        tu_buf_free(&col);
    }
    oc_context_destroy(cpu);
}

int main(int argc, char **argv)
{
    if (!oc_engine_available(OC_ENGINE_CUDA)) {
        printf("SKIP: test_cuda_blosc_enc needs a CUDA GPU; run scripts/gpu-check on a GPU machine\n");
        return 0;
    }
    int small = getenv("OC_TEST_SMALL") != NULL;
    setvbuf(stdout, NULL, _IOLBF, 0); /* a line per case, even into a file under a timeout */
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CUDA;
    CHECK_OK(oc_context_create(&co, &g_gpu));
    co.engine = OC_ENGINE_CPU;
    CHECK_OK(oc_context_create(&co, &g_cpu));
    if (argc > 1 && strcmp(argv[1], "--speed") == 0) {
        speed(argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 1024);
        oc_context_destroy(g_gpu);
        oc_context_destroy(g_cpu);
        return 0;
    }

    tu_buf corpus[TU_CORPUS_MAX];
    size_t nc = tu_corpus(corpus, TU_CORPUS_MAX, small ? (size_t)64 << 10 : (size_t)4 << 20);
    chunk cs[TU_CORPUS_MAX * 5];
    size_t m = 0;
    for (size_t k = 0; k < nc; k++) {
        size_t n = corpus[k].size;
        cs[m++] = (chunk){corpus[k].data, n};
        cs[m++] = (chunk){corpus[k].data, n > 3 ? n - 3 : n}; /* a cut element at the end */
        cs[m++] = (chunk){corpus[k].data + n / 2, n / 2 < 5000 ? n / 2 : 5000};
        cs[m++] = (chunk){corpus[k].data, n < 100 ? n : 100}; /* under 128 bytes: memcpyed */
        if (k == 0)
            cs[m++] = (chunk){corpus[k].data, 0};
    }
    static const int codecs[] = {OC_BLOSC_LZ4, OC_BLOSC_ZSTD, OC_BLOSC_LZ4HC, OC_BLOSC_SNAPPY, OC_BLOSC_ZLIB};
    static const size_t typesizes[] = {1, 2, 4, 8, 3};
    size_t cases = 0;
    for (int c = 0; c < 5; c++)
        for (int filter = 0; filter <= 2; filter++)
            for (size_t t = 0; t < 5; t++) {
                if (t == 4 && codecs[c] != OC_BLOSC_LZ4)
                    continue;
                if (small && t != (filter == 2 ? 3u : 2u)) /* ts 4, 8 for bitshuffle */
                    continue;
                if (small && codecs[c] == OC_BLOSC_ZSTD && filter == 0) /* ~35 s under memcheck */
                    continue;
                if (small && codecs[c] == OC_BLOSC_ZLIB && filter != 1) /* one zlib case under memcheck */
                    continue;
                run_case(cs, m, codecs[c], 5, filter, typesizes[t], 0, NULL, NULL);
                cases++;
            }
    printf("GPU Blosc chunks of %zu cases x %zu chunks decode with libblosc and the GPU decoder\n", cases, m);
    static const int levels[] = {1, 9, -1};
    for (int c = 0; c < 2; c++)
        for (int l = 0; l < 3; l++)
            if (!small || levels[l] != 9)
                run_case(cs, m, codecs[c], levels[l], 1 + l % 2, 4, 0, NULL, NULL);
    run_case(cs, m, OC_BLOSC_LZ4, 5, 1, 8, 1, NULL, NULL);
    run_case(cs, m, OC_BLOSC_ZSTD, small ? 1 : 5, 2, 4, 1, NULL, NULL); /* (small: the fast zstd) */
    printf("clevels 1, 9, -1 and device argument arrays: OK\n");
    {
        /* too little room beside chunks that fit: an 8-byte capacity, and
         * random bytes into their own size (they only fit memcpyed, 16
         * bytes more) */
        size_t caps[TU_CORPUS_MAX * 5];
        oc_status want[TU_CORPUS_MAX * 5];
        for (size_t i = 0; i < m; i++) {
            caps[i] = 0;
            want[i] = OC_OK;
            if (i % 4 == 1) {
                caps[i] = 8;
                want[i] = OC_ERR_OUTPUT_TOO_SMALL;
            }
        }
        for (size_t k = 0, i = 0; k < nc; k++) {
            if (strcmp(corpus[k].name, "random") == 0 && corpus[k].size > 0) {
                caps[i] = corpus[k].size;
                want[i] = OC_ERR_OUTPUT_TOO_SMALL;
            }
            i += k == 0 ? 5 : 4;
        }
        run_case(cs, m, OC_BLOSC_LZ4, 5, 1, 4, 0, caps, want);
        run_case(cs, m, OC_BLOSC_ZSTD, small ? 1 : 5, 2, 8, 1, caps, want);
        printf("OUTPUT_TOO_SMALL beside chunks that fit: OK\n");
    }
    /* blosclz: staged through libblosc, still one call; zlib (the GPU's) at
     * clevel 9 and with device argument arrays */
    run_case(cs, m, OC_BLOSC_BLOSCLZ, 5, 1, 4, 0, NULL, NULL);
    run_case(cs, m, OC_BLOSC_ZLIB, small ? 1 : 9, 2, 8, 1, NULL, NULL);
    printf("blosclz (host-staged) and zlib: OK\n");
    for (size_t k = 0; k < nc; k++)
        tu_buf_free(&corpus[k]);
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    printf("test_cuda_blosc_enc: OK\n");
    return 0;
}
