/*
 * test_cuda_buffer.c - the whole-buffer layer on device buffers
 * (src/cuda/container/cuda_buffer*.cu): oc_buffer_compress / oc_buffer_decompress
 * with src and dst in device memory, which assemble and parse containers
 * on the GPU.
 *
 * For every algorithm of the table that the GPU engine has (read through
 * tests/c/helpers/algo_list.h, so a new row is covered without an edit here)
 * x bitstream kind x a few chunk sizes x checksum policies, on real data
 * (this repo's sources, a system library, a numeric column, random bytes,
 * tiny and empty inputs):
 *   - the GPU's output, copied to the host, decodes with the CPU engine
 *     (checksums verified, so the GPU's XXH32 / CRC-32C / XXH64 / CRC-32
 *     are checked) and inspects like the CPU's own container;
 *   - stock tools (lz4, zstd, gzip) read the GPU's NATIVE containers;
 *   - the GPU decodes its own output and the CPU's, byte for byte, and the
 *     size query of a device buffer gives the right size;
 *   - too-small outputs give the CPU path's statuses;
 *   - corrupt LZ4, Snappy and zstd containers (mutated headers, index entries, footers,
 *     payloads, truncations) give the CPU path's exact status and failed
 *     chunk, and the same size-query status (payload damage that only a
 *     decoder sees: both fail).
 *
 * Everywhere, GPU or not, the host half of device decoding is checked:
 * src/format/sparse_plan.c's plan from head and tail reads plus its probes
 * (checked here as the probe kernel does) must give the CPU parser's status
 * and plan on the whole buffer, for intact and mutated containers.
 *
 * Without a GPU (CI) the GPU part says so and is skipped; scripts/gpu-check
 * runs it on a GPU machine.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "format/container.h"
#include "helpers/algo_list.h"
#include "helpers/dev_mem.h"
#include "test_buffer_util.h"

#define REQUIRE(cond)                                                                                        \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);                       \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

static oc_context *g_cpu; /* g_gpu: helpers/dev_mem.h */

/* GPU decode of host bytes `c` (copied to the device); returns the status,
 * the decoded bytes in *out (host), *n_out and *failed. */
static oc_status gpu_decode(const oc_buffer_options *hint, const unsigned char *c, size_t cn, size_t cap,
                            unsigned char *out, uint64_t *n_out, uint64_t *failed)
{
    void *dc = to_device(c, cn), *dd = dev_alloc(cap);
    *n_out = 0;
    *failed = ~(uint64_t)0;
    oc_status st = oc_buffer_decompress(g_gpu, hint, dc, cn, dd, cap, n_out, failed);
    if (st == OC_OK && out)
        copy(out, dd, (size_t)*n_out);
    dev_free(dc, cn);
    dev_free(dd, cap);
    return st;
}

static oc_status cpu_decode(const oc_buffer_options *hint, const unsigned char *c, size_t cn, size_t cap,
                            unsigned char *out, uint64_t *n_out, uint64_t *failed)
{
    *n_out = 0;
    *failed = ~(uint64_t)0;
    unsigned char *o = out ? out : (unsigned char *)tb_xmalloc(cap);
    oc_status st = oc_buffer_decompress(g_cpu, hint, c, cn, o, cap, n_out, failed);
    if (!out)
        free(o);
    return st;
}

/* Stock tool reads the container: `tool` decodes file `path` to stdout. */
static void stock_reads(const char *tool, const char *args, const unsigned char *c, size_t cn,
                        const tb_data *d)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", tool);
    if (system(cmd) != 0)
        return;
    char in[] = "/tmp/oc_cuda_buffer_XXXXXX";
    int fd = mkstemp(in);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, c, cn) == (ssize_t)cn);
    close(fd);
    char out[64];
    snprintf(out, sizeof out, "%s.out", in);
    snprintf(cmd, sizeof cmd, "%s %s < %s > %s 2>/dev/null", tool, args, in, out);
    CHECK(system(cmd) == 0);
    FILE *f = fopen(out, "rb");
    unsigned char *back = (unsigned char *)tb_xmalloc(d->n + 1);
    size_t got = f ? fread(back, 1, d->n + 1, f) : 0;
    if (f)
        fclose(f);
    CHECK(got == d->n && memcmp(back, d->p, d->n) == 0);
    if (got != d->n)
        fprintf(stderr, "  %s read %zu of %zu bytes\n", tool, got, d->n);
    free(back);
    unlink(in);
    unlink(out);
}

static const char *kind_name(oc_bitstream_kind k)
{
    return k == OC_BITSTREAM_NATIVE ? "native" : k == OC_BITSTREAM_RAW ? "raw" : "with-size";
}

/* One configuration on one data set. */
static void roundtrip(const tb_data *d, oc_algorithm a, oc_bitstream_kind k, size_t chunk,
                      oc_checksum_policy pol)
{
    oc_buffer_options o = tb_opts(a, k, chunk, pol);
    size_t bound = oc_buffer_compress_bound(&o, d->n);
    if (bound == 0) {
        fprintf(stderr, "%s %s %s: no bound\n", d->name, oc_algorithm_name(a), kind_name(k));
        tb_failures++;
        return;
    }
    void *ds = to_device(d->p, d->n), *dc = dev_alloc(bound);
    uint64_t cn = 0;
    oc_status st = oc_buffer_compress(g_gpu, &o, ds, d->n, dc, bound, &cn);
    if (st != OC_OK) {
        fprintf(stderr, "%s %s %s chunk %zu: GPU compress %s\n", d->name, oc_algorithm_name(a), kind_name(k),
                chunk, oc_status_name(st));
        tb_failures++;
        dev_free(ds, d->n);
        dev_free(dc, bound);
        return;
    }
    CHECK(cn > 0 && cn <= bound);
    unsigned char *c = (unsigned char *)tb_xmalloc((size_t)cn);
    copy(c, dc, (size_t)cn);

    /* 1. The CPU engine decodes it, verifying every checksum the GPU wrote. */
    unsigned char *out = (unsigned char *)tb_xmalloc(d->n + 16);
    uint64_t n_out = 0, failed = 0;
    oc_buffer_options hint = tb_opts(a, k, chunk, OC_CHECKSUM_VERIFY);
    st = cpu_decode(&hint, c, (size_t)cn, d->n, out, &n_out, &failed);
    if (st != OC_OK || n_out != d->n || memcmp(out, d->p, d->n) != 0) {
        fprintf(stderr, "%s %s %s chunk %zu pol %d: CPU decode of GPU output: %s, %llu of %zu bytes\n",
                d->name, oc_algorithm_name(a), kind_name(k), chunk, (int)pol, oc_status_name(st),
                (unsigned long long)n_out, d->n);
        tb_failures++;
    }

    /* 2. Same container as the CPU path writes (layout, chunks, index). */
    size_t ccn = 0;
    unsigned char *cc = tb_compress(g_cpu, &o, d->p, d->n, &ccn);
    REQUIRE(cc != NULL);
    if (k == OC_BITSTREAM_NATIVE) {
        oc_frame_info gi, ci;
        memset(&gi, 0, sizeof gi);
        memset(&ci, 0, sizeof ci);
        gi.struct_size = ci.struct_size = sizeof gi;
        CHECK(oc_buffer_inspect(c, cn, &hint, &gi) == OC_OK);
        CHECK(oc_buffer_inspect(cc, ccn, &hint, &ci) == OC_OK);
        CHECK(gi.num_chunks == ci.num_chunks && gi.indexed == ci.indexed &&
              gi.has_checksums == ci.has_checksums && gi.decompressed_size == d->n &&
              strcmp(gi.container, ci.container) == 0);
    }

    /* 2b. The size query on the device buffer (head and tail only, for
     * indexed containers and sized streams): the size; for a RAW stream,
     * whatever the CPU engine answers of the same bytes (a codec without a
     * size field counts the output, or cannot say). */
    uint64_t q = 0, cq = 0;
    oc_status qs = oc_buffer_decompressed_size(g_gpu, &hint, dc, cn, &q);
    oc_status cqs = k == OC_BITSTREAM_RAW ? oc_buffer_decompressed_size(g_cpu, &hint, c, cn, &cq) : OC_OK;
    int sized = cqs == OC_OK;
    if (qs != cqs || (qs == OC_OK && q != d->n)) {
        fprintf(stderr, "%s %s %s chunk %zu: size query GPU %s (%llu), CPU %s, size %zu\n", d->name,
                oc_algorithm_name(a), kind_name(k), chunk, oc_status_name(qs), (unsigned long long)q,
                oc_status_name(cqs), d->n);
        tb_failures++;
    }

    /* 3. The GPU decodes its own output and the CPU's. */
    memset(out, 0, d->n);
    st = gpu_decode(&hint, c, (size_t)cn, d->n, out, &n_out, &failed);
    if (st != OC_OK || n_out != d->n || memcmp(out, d->p, d->n) != 0) {
        fprintf(stderr, "%s %s %s chunk %zu pol %d: GPU decode of GPU output: %s\n", d->name,
                oc_algorithm_name(a), kind_name(k), chunk, (int)pol, oc_status_name(st));
        tb_failures++;
    }
    memset(out, 0, d->n);
    st = gpu_decode(&hint, cc, ccn, d->n, out, &n_out, &failed);
    if (st != OC_OK || n_out != d->n || memcmp(out, d->p, d->n) != 0) {
        fprintf(stderr, "%s %s %s chunk %zu pol %d: GPU decode of CPU output: %s\n", d->name,
                oc_algorithm_name(a), kind_name(k), chunk, (int)pol, oc_status_name(st));
        tb_failures++;
    }
    /* ... with more room than needed, where the size is known */
    if (sized) {
        st = gpu_decode(&hint, c, (size_t)cn, d->n + 16, NULL, &n_out, &failed);
        CHECK(st == OC_OK && n_out == d->n);
    }

    /* 4. Too little room: the CPU path's status (and failed chunk). */
    if (d->n > 0) {
        uint64_t gf, cf, gn, cnn;
        oc_status gs = gpu_decode(&hint, c, (size_t)cn, d->n - 1, NULL, &gn, &gf);
        oc_status cs = cpu_decode(&hint, c, (size_t)cn, d->n - 1, NULL, &cnn, &cf);
        CHECK(gs != OC_OK);
        /* RAW streams: each engine's decoder says how it failed. */
        int exact = k != OC_BITSTREAM_RAW;
        if (exact ? gs != cs || gf != cf : cs == OC_OK) {
            fprintf(stderr, "%s %s %s: short output: GPU %s (chunk %llu), CPU %s (chunk %llu)\n", d->name,
                    oc_algorithm_name(a), kind_name(k), oc_status_name(gs), (unsigned long long)gf,
                    oc_status_name(cs), (unsigned long long)cf);
            tb_failures++;
        }
        uint64_t tiny = 0;
        CHECK_ST(oc_buffer_compress(g_gpu, &o, ds, d->n, dc, cn - 1, &tiny), OC_ERR_OUTPUT_TOO_SMALL);
        CHECK(tiny == 0);
    }

    /* 5. Stock tools read the NATIVE containers. */
    if (k == OC_BITSTREAM_NATIVE && chunk == 65536 && pol == OC_CHECKSUM_VERIFY) {
        if (a == OC_ALGO_LZ4)
            stock_reads("lz4", "-d -c", c, (size_t)cn, d);
        else if (a == OC_ALGO_ZSTD)
            stock_reads("zstd", "-d -c -q", c, (size_t)cn, d);
        else if (a == OC_ALGO_GZIP || a == OC_ALGO_DEFLATE)
            stock_reads("gzip", "-d -c", c, (size_t)cn, d);
    }
    free(cc);
    free(c);
    free(out);
    dev_free(ds, d->n);
    dev_free(dc, bound);
}

/* The GPU's status and failed chunk for mutated bytes equal the CPU's.
 * exact 1: same status and failed chunk; 0: both fail or both succeed (a
 * checksum catches the damage in either engine); -1: damage only the two
 * engines' decoders judge (no checksum): differences are counted and
 * printed, not failed (they belong to the batched decoders' tests). */
static int g_mut_checked, g_mut_decoder_differs;
static void same_status(const char *what, const oc_buffer_options *hint, const unsigned char *c, size_t cn,
                        size_t cap, int exact)
{
    uint64_t gn, cn_out, gf, cf;
    oc_status gs = gpu_decode(hint, c, cn, cap, NULL, &gn, &gf);
    oc_status cs = cpu_decode(hint, c, cn, cap, NULL, &cn_out, &cf);
    g_mut_checked++;
    if (exact > 0) {
        /* the size query of the device buffer says what the CPU's says */
        void *dc = to_device(c, cn);
        uint64_t gq = 0, cq = 0;
        oc_status gqs = oc_buffer_decompressed_size(g_gpu, hint, dc, cn, &gq);
        oc_status cqs = oc_buffer_decompressed_size(g_cpu, hint, c, cn, &cq);
        dev_free(dc, cn);
        if (gqs != cqs || (gqs == OC_OK && gq != cq)) {
            fprintf(stderr, "%s %s: size query GPU %s (%llu), CPU %s (%llu)\n",
                    oc_algorithm_name(hint->algorithm), what, oc_status_name(gqs), (unsigned long long)gq,
                    oc_status_name(cqs), (unsigned long long)cq);
            tb_failures++;
        }
    }
    int ok =
        exact > 0 ? gs == cs && gf == cf && (gs != OC_OK || gn == cn_out) : (gs == OC_OK) == (cs == OC_OK);
    if (!ok && exact < 0) {
        g_mut_decoder_differs++;
        return;
    }
    if (!ok) {
        fprintf(stderr, "%s %s: GPU %s (chunk %lld, %llu bytes), CPU %s (chunk %lld, %llu bytes)\n",
                oc_algorithm_name(hint->algorithm), what, oc_status_name(gs), (long long)gf,
                (unsigned long long)gn, oc_status_name(cs), (long long)cf, (unsigned long long)cn_out);
        tb_failures++;
    }
}

static void corrupt(const tb_data *d, oc_algorithm a, oc_checksum_policy pol)
{
    oc_buffer_options o = tb_opts(a, OC_BITSTREAM_NATIVE, 16384, pol);
    size_t cn = 0;
    unsigned char *c = tb_compress(g_cpu, &o, d->p, d->n, &cn);
    REQUIRE(c != NULL && cn > 64);
    oc_buffer_options hint = tb_opts(a, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
    same_status("intact", &hint, c, cn, d->n, 1);
    unsigned char *m = tb_copy(c, cn);
    /* Structure: header, first chunk header, and the whole trailer. */
    size_t pos[96], np = 0;
    for (size_t i = 0; i < 24; i++)
        pos[np++] = i;
    for (size_t i = 0; i < 48 && i < cn; i++)
        pos[np++] = cn - 1 - i;
    for (size_t j = 0; j < np; j++) {
        size_t p = pos[j];
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(m, c, cn);
            m[p] ^= (unsigned char)(1u << bit);
            char what[64];
            snprintf(what, sizeof what, "byte %zu bit %d", p, bit);
            /* Exact where the container's structure is (header, first chunk
             * header and snappy preamble, trailer); inside payloads, exact
             * where a checksum of the stored bytes decides (LZ4 with block
             * checksums), else each decoder says how it failed. */
            size_t structure = a == OC_ALGO_LZ4 ? 19 : a == OC_ALGO_SNAPPY ? 21 : 6;
            int exact = p < structure || p >= cn - 48 || (a == OC_ALGO_LZ4 && pol != OC_CHECKSUM_NONE) ? 1
                        : pol == OC_CHECKSUM_NONE && a != OC_ALGO_SNAPPY                               ? -1
                                                                                                       : 0;
            same_status(what, &hint, m, cn, d->n, exact);
        }
    }
    /* Payload damage: checksums (LZ4 stored bytes, snappy CRC-32C, zstd XXH64) or the decoder catch it. */
    for (size_t p = cn / 7; p < cn - 64; p += cn / 7) {
        memcpy(m, c, cn);
        m[p] ^= 0x5a;
        char what[64];
        snprintf(what, sizeof what, "payload byte %zu", p);
        same_status(what, &hint, m, cn, d->n,
                    a == OC_ALGO_LZ4 && pol != OC_CHECKSUM_NONE      ? 1
                    : pol == OC_CHECKSUM_NONE && a != OC_ALGO_SNAPPY ? -1
                                                                     : 0);
    }
    /* Truncations and a wrong count of index entries. */
    size_t cuts[] = {cn - 1, cn - 5, cn - 9, cn - 17, cn / 2, 20, 9, 3};
    for (size_t j = 0; j < sizeof cuts / sizeof cuts[0]; j++) {
        char what[64];
        snprintf(what, sizeof what, "cut at %zu", cuts[j]);
        same_status(what, &hint, c, cuts[j], d->n, 1);
    }
    free(m);
    free(c);
}

/* Informational wall-clock rates of the device whole-buffer calls on 64 MiB
 * of text (never checked: timings do not fail tests). */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void timing(const tb_data *text)
{
    size_t n = (size_t)64 << 20;
    if (text->n == 0)
        return;
    unsigned char *h = (unsigned char *)tb_xmalloc(n);
    for (size_t i = 0; i < n; i += text->n)
        memcpy(h + i, text->p, n - i < text->n ? n - i : text->n);
    void *ds = to_device(h, n), *dd = dev_alloc(n);
    static const oc_algorithm algos[] = {OC_ALGO_LZ4, OC_ALGO_SNAPPY, OC_ALGO_ZSTD};
    for (size_t ai = 0; ai < 3; ai++)
        for (int pol = 0; pol < 2; pol++) {
            oc_buffer_options o =
                tb_opts(algos[ai], OC_BITSTREAM_NATIVE, 65536, pol ? OC_CHECKSUM_VERIFY : OC_CHECKSUM_NONE);
            size_t bound = oc_buffer_compress_bound(&o, n);
            void *dc = dev_alloc(bound);
            uint64_t cn = 0, got = 0;
            double best_c = 1e9, best_d = 1e9;
            int ok = 1;
            for (int r = 0; r < 3 && ok; r++) {
                double t0 = now_s();
                ok &= oc_buffer_compress(g_gpu, &o, ds, n, dc, bound, &cn) == OC_OK;
                double t1 = now_s();
                ok &= oc_buffer_decompress(g_gpu, &o, dc, cn, dd, n, &got, NULL) == OC_OK && got == n;
                double t2 = now_s();
                best_c = t1 - t0 < best_c ? t1 - t0 : best_c;
                best_d = t2 - t1 < best_d ? t2 - t1 : best_d;
            }
            CHECK(ok);
            if (ok)
                printf("  timing %-6s 64 MiB text, 64 KiB chunks, checksums %-3s: ratio %.2f, compress %.2f "
                       "GB/s, "
                       "decompress %.2f GB/s (wall, device buffers, informational)\n",
                       oc_algorithm_name(algos[ai]), pol ? "on" : "off", (double)n / (double)cn,
                       (double)n / best_c / 1e9, (double)n / best_d / 1e9);
            dev_free(dc, bound);
        }
    dev_free(ds, n);
    dev_free(dd, n);
    free(h);
}

/* ---- host half: sparse plans against the CPU parser ---------------------- */

typedef struct host_src {
    const unsigned char *p;
    uint64_t n;
    uint64_t bytes_read;
} host_src;

static oc_status read_host(void *opaque, const oc_range *r, size_t n)
{
    host_src *h = (host_src *)opaque;
    for (size_t i = 0; i < n; i++) {
        if (r[i].off > h->n || h->n - r[i].off < r[i].len)
            return OC_ERR_INTERNAL;
        memcpy(r[i].to, h->p + r[i].off, (size_t)r[i].len);
        h->bytes_read += r[i].len;
    }
    return OC_OK;
}

static int g_sparse_checked, g_sparse_gpu;

static void sparse_vs_parser(const char *what, const oc_buffer_options *hint, const unsigned char *p,
                             size_t n)
{
    oc_container_plan real, sp;
    oc_status rs = oc_container_parse(p, n, hint, &real);
    oc_sparse sh;
    int usable = 0;
    host_src h = {p, n, 0};
    oc_status ss = oc_sparse_plan(hint, n, read_host, &h, &sh, &sp, &usable);
    g_sparse_checked++;
    if (usable) {
        g_sparse_gpu++;
        if (ss == OC_OK && !oc_sparse_probes_hold(&sh, &sp, p, n))
            ss = OC_ERR_CORRUPT;
        if (ss != rs) {
            fprintf(stderr, "sparse plan %s: %s, parser %s\n", what, oc_status_name(ss), oc_status_name(rs));
            tb_failures++;
        }
        if (ss == OC_OK && rs == OC_OK) {
            int same = sp.n == real.n && sp.total_size == real.total_size && sp.check == real.check &&
                       sp.algorithm == real.algorithm && sp.kind == real.kind && sp.tail == real.tail &&
                       sp.lz4_content_checksum == real.lz4_content_checksum &&
                       sp.content_checksum == real.content_checksum;
            for (size_t i = 0; same && i < sp.n; i++) {
                const oc_chunk_ref *a = &sp.chunks[i], *b = &real.chunks[i];
                same = a->src_off == b->src_off && a->src_size == b->src_size && a->dst_off == b->dst_off &&
                       a->dst_size == b->dst_size && a->stored == b->stored &&
                       (sp.check != OC_CHECK_XXH64_LOW || a->checksum == b->checksum);
            }
            if (!same) {
                fprintf(stderr, "sparse plan %s: plan differs from the parser's\n", what);
                tb_failures++;
            }
            /* Only head and tail were read, never the payload. */
            if (sp.kind == OC_BITSTREAM_NATIVE && n > 200000 && h.bytes_read > n / 4) {
                fprintf(stderr, "sparse plan %s: read %llu of %zu bytes\n", what,
                        (unsigned long long)h.bytes_read, n);
                tb_failures++;
            }
        }
    }
    oc_plan_free(&sp);
    oc_sparse_free(&sh);
    oc_plan_free(&real);
}

static void sparse_container(const tb_data *d, oc_algorithm a, oc_bitstream_kind k, size_t chunk,
                             oc_checksum_policy pol)
{
    oc_buffer_options o = tb_opts(a, k, chunk, pol);
    size_t cn = 0;
    unsigned char *c = tb_compress(g_cpu, &o, d->p, d->n, &cn);
    REQUIRE(c != NULL);
    oc_buffer_options hint = tb_opts(a, k, 0, OC_CHECKSUM_VERIFY);
    oc_buffer_options none = OC_BUFFER_OPTIONS_INIT;
    char what[96];
    snprintf(what, sizeof what, "%s %s %s intact", d->name, oc_algorithm_name(a), kind_name(k));
    sparse_vs_parser(what, &hint, c, cn);
    if (k == OC_BITSTREAM_NATIVE)
        sparse_vs_parser(what, &none, c, cn);
    unsigned char *m = tb_copy(c, cn);
    uint64_t s = 12345;
    for (size_t j = 0; j < 400 && cn; j++) {
        /* Structure bytes mostly (head and tail), some payload. */
        size_t pos = j < 64 ? j : j < 300 ? cn - 1 - (j - 64) % cn : (size_t)(tb_rng(&s) % cn);
        if (pos >= cn)
            continue;
        memcpy(m, c, cn);
        m[pos] ^= (unsigned char)(1u << (j % 8));
        snprintf(what, sizeof what, "%s %s %s byte %zu", d->name, oc_algorithm_name(a), kind_name(k), pos);
        sparse_vs_parser(what, &hint, m, cn);
    }
    for (size_t cut = 1; cut < cn; cut += cut < 64 ? 1 : cn / 16 + 1) {
        snprintf(what, sizeof what, "%s %s %s cut %zu", d->name, oc_algorithm_name(a), kind_name(k), cut);
        sparse_vs_parser(what, &hint, c, cn - cut);
    }
    free(m);
    free(c);
}

static void host_half(const ta_list *algos, const tb_data *sets, size_t nsets)
{
    /* Every algorithm of the table with a NATIVE container of its own
     * (deflate and zlib write gzip's, which gzip's row covers). */
    for (size_t ai = 0; ai < algos->n; ai++) {
        oc_algorithm a = algos->info[ai].algorithm;
        if (!ta_has_native(a) || ta_native_as(a) != a)
            continue;
        uint64_t max_chunk = algos->info[ai].max_chunk_size;
        for (size_t si = 0; si < nsets; si++) {
            sparse_container(&sets[si], a, OC_BITSTREAM_NATIVE, ta_clamp_chunk(a, 16384), OC_CHECKSUM_VERIFY);
            sparse_container(&sets[si], a, OC_BITSTREAM_NATIVE, ta_clamp_chunk(a, 65536), OC_CHECKSUM_NONE);
            if (sets[si].n && (max_chunk == 0 || sets[si].n <= max_chunk)) {
                sparse_container(&sets[si], a, OC_BITSTREAM_RAW, 0, OC_CHECKSUM_VERIFY);
                sparse_container(&sets[si], a, OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE, 0, OC_CHECKSUM_VERIFY);
            }
        }
    }
    printf(
        "  sparse plans: %d buffers compared with the CPU parser (%d planned without reading them whole)\n",
        g_sparse_checked, g_sparse_gpu);
    CHECK(g_sparse_gpu > g_sparse_checked / 4);
}

int main(void)
{
    /* a line at a time: a run cut short by a time limit (or slowed down by
     * compute-sanitizer) shows how far it got */
    setvbuf(stdout, NULL, _IOLBF, 0);
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    /* OC_TEST_SMALL (scripts/gpu-check under compute-sanitizer): less data. */
    int small = getenv("OC_TEST_SMALL") != NULL;
    tb_data sets[6];
    sets[0] = tb_text(small ? 150000 : 700000);
    sets[1] = tb_binary(small ? 100000 : 600000);
    sets[2] = tb_numeric(small ? 8000 : 40000);
    sets[3] = tb_random(small ? 50000 : 200000, 7);
    sets[4] = tb_random(100, 9);
    sets[4].name = "tiny";
    sets[5] = tb_random(0, 1);
    sets[5].name = "empty";
    ta_list algos; /* the table, through the public API */
    ta_algorithms(&algos);
    host_half(&algos, sets, 6);
    if (oc_cuda_device_count() == 0) {
        printf("SKIP: the GPU half of test_cuda_buffer needs a CUDA GPU (%s); run scripts/gpu-check on a GPU "
               "machine\n",
               oc_build_info());
        for (size_t si = 0; si < 6; si++)
            free(sets[si].p);
        oc_context_destroy(g_cpu);
        return tb_finish("test_cuda_buffer (host half)");
    }
    co.engine = OC_ENGINE_AUTO;
    REQUIRE(oc_context_create(&co, &g_gpu) == OC_OK);
    /* Every algorithm of the table that the GPU engine encodes and decodes:
     * NATIVE containers where it has one, and one RAW / WITH_UNCOMPRESSED_SIZE
     * stream where the data fits one chunk. */
    static const size_t chunks[] = {65536, 12293, 1 << 20};
    for (size_t ai = 0; ai < algos.n; ai++) {
        oc_algorithm a = algos.info[ai].algorithm;
        if (!oc_algorithm_available(OC_ENGINE_CUDA, a))
            continue;
        uint64_t max_chunk = algos.info[ai].max_chunk_size;
        for (size_t si = 0; si < 6; si++) {
            const tb_data *d = &sets[si];
            for (size_t ci = 0; ta_has_native(a) && ci < (small ? 2u : 3u); ci++) {
                size_t chunk = ta_clamp_chunk(a, chunks[ci]);
                if (ci > 0 && chunk != chunks[ci])
                    continue; /* clamped: the same container as a smaller rung */
                roundtrip(d, a, OC_BITSTREAM_NATIVE, chunk, OC_CHECKSUM_VERIFY);
                if (ci == 1)
                    roundtrip(d, a, OC_BITSTREAM_NATIVE, chunk, OC_CHECKSUM_NONE);
            }
            if (d->n > 0 && (max_chunk == 0 || d->n <= max_chunk)) {
                roundtrip(d, a, OC_BITSTREAM_RAW, 0, OC_CHECKSUM_VERIFY);
                roundtrip(d, a, OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE, 0, OC_CHECKSUM_VERIFY);
            }
        }
        printf("  %-8s whole-buffer on device memory: round trips done\n", oc_algorithm_name(a));
    }
    /* Damaged containers of the three codecs whose structure offsets
     * corrupt() knows (LZ4 frame, Snappy framing, zstd frame). */
    static const oc_algorithm damaged[] = {OC_ALGO_LZ4, OC_ALGO_SNAPPY, OC_ALGO_ZSTD};
    for (size_t ai = 0; ai < 3; ai++) {
        corrupt(&sets[0], damaged[ai], OC_CHECKSUM_VERIFY);
        corrupt(&sets[3], damaged[ai], OC_CHECKSUM_VERIFY);
        if (!small)
            corrupt(&sets[2], damaged[ai], OC_CHECKSUM_NONE);
    }
    printf("  corrupt containers: %d statuses compared with the CPU path (%d payload-only damages judged "
           "differently by the GPU and CPU decoders)\n",
           g_mut_checked, g_mut_decoder_differs);

    if (!small)
        timing(&sets[0]);

    /* A host output buffer takes the staged path and still works. */
    {
        oc_buffer_options o = tb_opts(OC_ALGO_LZ4, OC_BITSTREAM_NATIVE, 0, OC_CHECKSUM_VERIFY);
        size_t bound = oc_buffer_compress_bound(&o, sets[0].n);
        void *ds = to_device(sets[0].p, sets[0].n);
        unsigned char *hc = (unsigned char *)tb_xmalloc(bound), *ho = (unsigned char *)tb_xmalloc(sets[0].n);
        uint64_t cn = 0, on = 0, f = 0;
        CHECK_ST(oc_buffer_compress(g_gpu, &o, ds, sets[0].n, hc, bound, &cn), OC_OK);
        CHECK_ST(cpu_decode(&o, hc, (size_t)cn, sets[0].n, ho, &on, &f), OC_OK);
        CHECK(on == sets[0].n && memcmp(ho, sets[0].p, sets[0].n) == 0);
        free(hc);
        free(ho);
        dev_free(ds, sets[0].n);
    }
    for (size_t si = 0; si < 6; si++)
        free(sets[si].p);
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    return tb_finish("test_cuda_buffer");
}
