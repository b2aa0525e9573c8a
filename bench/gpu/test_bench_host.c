/*
 * test_bench_host.c - the GPU benchmark's plain-C parts, on the CPU (no GPU
 * needed), so the instrument every performance issue reports with is tested
 * in CI:
 *   - batch_plan: every chunk of every file once per cycle, each file spread
 *     through the cycle in proportion to its size, rungs as promised,
 *     aligned offsets, and a batch identity that changes with the bytes;
 *   - ladder_budget: warm-up, repeat and skip rules (cap, deadline);
 *   - reference_codecs: stock LZ4 blocks and zstd frames (checksum and
 *     content size in the frame header, as numcodecs writes them) decode
 *     back on many threads, and a corrupted chunk is found by index;
 *   - run_json: writes a run file from rows with real compressed sizes;
 *   - blosc_streams: the split streams listed in chunks libblosc writes
 *     (byte shuffle, bitshuffle, none) decode with liblz4 to exactly the
 *     bytes of their place in the (shuffled) block, and cover the chunk.
 * Usage: test_bench_host OUTDIR.  OUTDIR gets run.json and plans.txt, which
 * bench/test_ladder.py checks against report.py's validator and against
 * batch_plan.py (ctest runs both).
 */
#include <blosc.h>
#include <libdeflate.h>
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zstd.h>

#include "batch_plan.h"
#include "blosc_streams.h"
#include "ladder_budget.h"
#include "reference_codecs.h"
#include "run_json.h"
#include "soft_check.h"

#ifndef OC_SOURCE_DIR
#define OC_SOURCE_DIR "."
#endif

static uint8_t *read_source(const char *rel, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", OC_SOURCE_DIR, rel);
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    REQUIRE(len > 0);
    uint8_t *buf = (uint8_t *)malloc((size_t)len);
    REQUIRE(buf && fread(buf, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

/* The plan's promises, for files of `sizes` and one chunk size. */
static void check_plan(const uint64_t *sizes, size_t nfiles, size_t chunk, FILE *plans,
                       const char *const *names)
{
    ocb_plan p;
    REQUIRE(ocb_plan_make(&p, sizes, nfiles, chunk) == 0);
    uint64_t total = 0, want_chunks = 0;
    for (size_t f = 0; f < nfiles; f++) {
        total += sizes[f];
        want_chunks += (sizes[f] + chunk - 1) / chunk;
    }
    EXPECT(p.ndistinct == want_chunks && p.distinct_bytes == total, "cycle: %zu chunks, %llu bytes",
           p.ndistinct, (unsigned long long)p.distinct_bytes);
    /* every chunk of every file exactly once, in order within its file */
    uint64_t *next = (uint64_t *)calloc(nfiles, sizeof *next);
    size_t *seen = (size_t *)calloc(nfiles, sizeof *seen);
    REQUIRE(next && seen);
    for (size_t i = 0; i < p.ndistinct; i++) {
        const ocb_chunk *c = ocb_plan_chunk(&p, i);
        REQUIRE(c->file < nfiles);
        EXPECT(c->offset == next[c->file], "chunk %zu of file %u at %llu, expected %llu", i, c->file,
               (unsigned long long)c->offset, (unsigned long long)next[c->file]);
        uint64_t left = sizes[c->file] - c->offset;
        EXPECT(c->size == (left < chunk ? left : chunk), "chunk %zu size %u", i, c->size);
        next[c->file] += c->size;
        seen[c->file]++;
        /* proportion: after i + 1 chunks, file f has about (i + 1) * n_f / D of its n_f chunks */
        for (size_t f = 0; f < nfiles; f++) {
            double nf = (double)((sizes[f] + chunk - 1) / chunk),
                   want = (double)(i + 1) * nf / (double)p.ndistinct;
            EXPECT((double)seen[f] <= want + 1.0 && (double)seen[f] >= want - 1.0,
                   "prefix %zu: file %zu has %zu chunks, about %.1f expected", i + 1, f, seen[f], want);
        }
    }
    for (size_t f = 0; f < nfiles; f++)
        EXPECT(next[f] == sizes[f], "file %zu covered up to %llu of %llu", f, (unsigned long long)next[f],
               (unsigned long long)sizes[f]);
    /* batches repeat the cycle; offsets aligned; bytes and rungs consistent */
    EXPECT(ocb_plan_chunk(&p, p.ndistinct + 3) == ocb_plan_chunk(&p, 3), "chunk D+3 is chunk 3");
    uint64_t run = 0, off = 0;
    for (size_t i = 0; i < 3 * p.ndistinct; i++) {
        EXPECT(ocb_plan_offset(&p, i) % OCB_ALIGN == 0, "offset %zu aligned", i);
        EXPECT(ocb_plan_offset(&p, i) >= off, "offset %zu after the previous chunk", i);
        EXPECT(ocb_plan_bytes(&p, i) == run, "bytes of %zu chunks", i);
        off = ocb_plan_offset(&p, i) + ocb_plan_chunk(&p, i)->size;
        run += ocb_plan_chunk(&p, i)->size;
    }
    EXPECT(ocb_plan_buffer_bytes(&p, 3 * p.ndistinct) >= off, "buffer holds 3 cycles");
    uint64_t bytes = 0;
    EXPECT(ocb_plan_rung_chunks(&p, 0, &bytes) == 1 && bytes == ocb_plan_chunk(&p, 0)->size, "rung 1c");
    EXPECT(ocb_plan_rung_chunks(&p, OCB_RUNG_CYCLE, &bytes) == p.ndistinct && bytes == total, "rung cycle");
    uint64_t targets[] = {1, chunk, chunk + 1, total, total + 1, 5 * total / 2, 7 * total};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        size_t n = ocb_plan_rung_chunks(&p, targets[t], &bytes);
        EXPECT(bytes >= targets[t] && ocb_plan_bytes(&p, n - 1) < targets[t],
               "rung %llu: %zu chunks, %llu bytes (the fewest that reach it)", (unsigned long long)targets[t],
               n, (unsigned long long)bytes);
    }
    /* identity: depends on the chunks, not only on their number */
    uint64_t id1 = ocb_plan_id(&p, names, p.ndistinct), id2 = ocb_plan_id(&p, names, p.ndistinct - 1);
    EXPECT(id1 != id2, "batch identities of different batches differ");
    /* for bench/test_ladder.py: the plan, its cycle and some identities */
    fprintf(plans, "plan %zu %zu", chunk, nfiles);
    for (size_t f = 0; f < nfiles; f++)
        fprintf(plans, " %s:%llu", names[f], (unsigned long long)sizes[f]);
    fprintf(plans, "\n");
    for (size_t i = 0; i < p.ndistinct; i++) {
        const ocb_chunk *c = ocb_plan_chunk(&p, i);
        fprintf(plans, "chunk %u %llu %u %llu\n", c->file, (unsigned long long)c->offset, c->size,
                (unsigned long long)ocb_plan_offset(&p, i));
    }
    size_t ns[] = {1, 2, p.ndistinct, 2 * p.ndistinct + 1};
    for (size_t k = 0; k < 4; k++)
        fprintf(plans, "id %zu %016llx\n", ns[k], (unsigned long long)ocb_plan_id(&p, names, ns[k]));
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++)
        fprintf(plans, "rung %llu %zu\n", (unsigned long long)targets[t],
                ocb_plan_rung_chunks(&p, targets[t], NULL));
    free(next);
    free(seen);
    ocb_plan_free(&p);
}

static void test_parse(void)
{
    uint64_t v = 0;
    EXPECT(ocb_parse_rung("1c", &v) == 0 && v == 0, "1c");
    EXPECT(ocb_parse_rung("all", &v) == 0 && v == OCB_RUNG_CYCLE, "all");
    EXPECT(ocb_parse_rung("32M", &v) == 0 && v == 32u << 20, "32M");
    EXPECT(ocb_parse_rung("1G", &v) == 0 && v == 1u << 30, "1G");
    EXPECT(ocb_parse_bytes("64K", &v) == 0 && v == 65536, "64K");
    EXPECT(ocb_parse_bytes("256KiB", &v) == 0 && v == 262144, "256KiB");
    EXPECT(ocb_parse_bytes("4096", &v) == 0 && v == 4096, "4096");
    const char *bad[] = {"", "0", "K", "1X", "-1", "1.5M", "1MM", "99999999999999999999G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        EXPECT(ocb_parse_bytes(bad[i], &v) != 0, "refuses %s", bad[i]);
    char buf[32];
    EXPECT(strcmp(ocb_human_bytes(1u << 30, buf, sizeof buf), "1 GiB") == 0, "1 GiB");
    EXPECT(strcmp(ocb_human_bytes(65536, buf, sizeof buf), "64 KiB") == 0, "64 KiB");
    EXPECT(strcmp(ocb_human_bytes(1000, buf, sizeof buf), "1000 B") == 0, "1000 B");
    ocb_plan p;
    uint64_t zero = 0, one = 1;
    EXPECT(ocb_plan_make(&p, &zero, 1, 4096) != 0, "refuses an empty file");
    EXPECT(ocb_plan_make(&p, &one, 1, 0) != 0, "refuses chunk size 0");
    EXPECT(ocb_plan_make(&p, &one, 0, 4096) != 0, "refuses no files");
}

static void test_budget(void)
{
    ocb_budget b;
    ocb_budget_init(&b, 100);
    double now = ocb_budget_now();
    ocb_rung_plan r = ocb_budget_plan(&b, now, 1000, 1, 0, 0, 0);
    EXPECT(r.run && r.warmup && r.predicted_s == 0, "first rung: run with a warm-up");
    r = ocb_budget_plan(&b, now, 4000, 2000, 1000, 500, 0.1);
    EXPECT(r.run && r.warmup && r.predicted_s > 0.399 && r.predicted_s < 0.401,
           "a full GPU: the prediction scales by bytes (%g)", r.predicted_s);
    r = ocb_budget_plan(&b, now, 8000, 8, 1000, 1, 0.1);
    EXPECT(r.predicted_s > 0.0999 && r.predicted_s < 0.1001, "8 chunks side by side take as long as one (%g)",
           r.predicted_s);
    r = ocb_budget_plan(&b, now, 264000, 264, 1000, 1, 0.1);
    EXPECT(r.predicted_s > 0.1999 && r.predicted_s < 0.2001, "264 chunks on 132 SMs: two rounds (%g)",
           r.predicted_s);
    r = ocb_budget_plan(&b, now, 4000, 2000, 1000, 500, 0.5);
    EXPECT(r.run && !r.warmup, "a 2 s call gets no warm-up");
    r = ocb_budget_plan(&b, now, 100000, 10000, 1000, 200, 0.1);
    EXPECT(!r.run && strstr(r.why, "cap") != NULL, "a 10 s call passes the 8 s cap: skipped (%s)", r.why);
    ocb_budget late = b;
    late.deadline_s = now + 0.2;
    r = ocb_budget_plan(&late, now, 2000, 400, 1000, 200, 0.1);
    EXPECT(!r.run && strstr(r.why, "budget") != NULL, "a rung past the deadline is skipped (%s)", r.why);
    late.deadline_s = now - 1;
    r = ocb_budget_plan(&late, now, 1, 1, 0, 0, 0);
    EXPECT(!r.run, "nothing starts after the deadline");
    EXPECT(ocb_budget_repeats(&b, now, 1e-5, 0) == b.max_repeats, "tiny calls: max repeats");
    EXPECT(ocb_budget_repeats(&b, now, 0.1, 0) == 5, "0.1 s calls: 5 repeats for a 0.5 s target");
    EXPECT(ocb_budget_repeats(&b, now, 3.0, 3.0) == 1, "slow calls: one");
    EXPECT(ocb_budget_repeats(&late, now, 0.01, 0) == 1, "no time left: one");
}

/* Stock streams and reference decoding of real chunks; returns the stock
 * zstd compressed size of all chunks (for the JSON rows). */
static uint64_t test_reference(const uint8_t *data, size_t n, size_t chunk, size_t *nchunks_out)
{
    size_t nch = (n + chunk - 1) / chunk;
    const uint8_t **src = (const uint8_t **)calloc(nch, sizeof *src);
    uint8_t **dst = (uint8_t **)calloc(nch, sizeof *dst);
    size_t *src_sizes = (size_t *)calloc(nch, sizeof *src_sizes),
           *dst_sizes = (size_t *)calloc(nch, sizeof(size_t));
    size_t cap = ocb_ref_stock_bound("zstd", chunk);
    if (ocb_ref_stock_bound("gzip", chunk) > cap)
        cap = ocb_ref_stock_bound("gzip", chunk);
    uint8_t *comp = (uint8_t *)malloc(nch * cap);
    REQUIRE(src && dst && src_sizes && dst_sizes && comp && cap > 0);
    for (size_t i = 0; i < nch; i++) {
        src[i] = data + i * chunk;
        src_sizes[i] = n - i * chunk < chunk ? n - i * chunk : chunk;
        dst[i] = comp + i * cap;
    }
    uint64_t zstd_total = 0;
    const char *codecs[] = {"lz4", "zstd"};
    for (int c = 0; c < 2; c++) {
        REQUIRE(ocb_ref_stock_bound(codecs[c], chunk) <= cap);
        EXPECT(ocb_ref_stock_encode(codecs[c], 3, nch, src, src_sizes, dst, cap, dst_sizes) == 0,
               "%s stock encode", codecs[c]);
        size_t bad = 99;
        EXPECT(ocb_ref_check(codecs[c], 3, nch, (const uint8_t *const *)dst, dst_sizes, src, src_sizes,
                             &bad) == 1,
               "%s stock streams decode back", codecs[c]);
        if (c == 1) {
            for (size_t i = 0; i < nch; i++) {
                zstd_total += dst_sizes[i];
                /* the frame header: checksum flag and the content size (numcodecs' frames) */
                EXPECT(ZSTD_getFrameContentSize(dst[i], dst_sizes[i]) == src_sizes[i],
                       "chunk %zu content size", i);
                EXPECT((dst[i][4] >> 2) & 1, "chunk %zu has the checksum flag", i);
            }
            /* a flipped byte in chunk 2's checksum: found, and by index */
            dst[2][dst_sizes[2] - 1] ^= 0x55;
            bad = 99;
            EXPECT(ocb_ref_check("zstd", 3, nch, (const uint8_t *const *)dst, dst_sizes, src, src_sizes,
                                 &bad) == 0 &&
                       bad == 2,
                   "a corrupted chunk is reported as chunk 2 (got %zu)", bad);
            dst[2][dst_sizes[2] - 1] ^= 0x55;
        }
    }
    /* stock gzip members as `gzip -6` writes them: FNAME and MTIME in the header; libdeflate's gzip
     * decoder (CRC-32, ISIZE) takes them back, and a flipped CRC byte is found by index */
    REQUIRE(ocb_ref_stock_bound("gzip", chunk) <= cap);
    EXPECT(ocb_ref_stock_encode("gzip", 3, nch, src, src_sizes, dst, cap, dst_sizes) == 0,
           "gzip stock encode");
    for (size_t i = 0; i < nch; i++)
        EXPECT(dst[i][0] == 0x1f && dst[i][1] == 0x8b && dst[i][2] == 8 && dst[i][3] == 0x08 &&
                   (dst[i][4] | dst[i][5] | dst[i][6] | dst[i][7]) != 0 &&
                   memcmp(dst[i] + 10, "corpus.bin", 11) == 0,
               "chunk %zu: a gzip header with FNAME and MTIME", i);
    {
        size_t bad = 99;
        EXPECT(ocb_ref_check("gzip", 3, nch, (const uint8_t *const *)dst, dst_sizes, src, src_sizes, &bad) ==
                   1,
               "gzip stock members decode back");
        dst[1][dst_sizes[1] - 6] ^= 0x55; /* a CRC-32 byte */
        bad = 99;
        EXPECT(ocb_ref_check("gzip", 3, nch, (const uint8_t *const *)dst, dst_sizes, src, src_sizes, &bad) ==
                       0 &&
                   bad == 1,
               "a gzip member with a bad CRC-32 is reported as chunk 1 (got %zu)", bad);
        dst[1][dst_sizes[1] - 6] ^= 0x55;
    }
    EXPECT(!ocb_ref_stock_label("snappy")[0] &&
               ocb_ref_stock_encode("snappy", 1, nch, src, src_sizes, dst, cap, dst_sizes) != 0,
           "no stock snappy encoder");
    EXPECT(ocb_ref_can_decode("gdeflate") == 0, "no CPU GDeflate here");
    /* raw deflate streams written by libdeflate decode through the checker */
    struct libdeflate_compressor *dc = libdeflate_alloc_compressor(6);
    REQUIRE(dc);
    for (size_t i = 0; i < nch; i++)
        dst_sizes[i] = libdeflate_deflate_compress(dc, src[i], src_sizes[i], dst[i], cap);
    libdeflate_free_compressor(dc);
    size_t bad = 99;
    EXPECT(ocb_ref_check("deflate", 2, nch, (const uint8_t *const *)dst, dst_sizes, src, src_sizes, &bad) ==
               1,
           "deflate streams decode back");
    /* a stream that decodes to one byte too many is a failure */
    size_t keep = src_sizes[0];
    src_sizes[0] = keep - 1;
    EXPECT(ocb_ref_check("deflate", 2, nch, (const uint8_t *const *)dst, dst_sizes, src, src_sizes, &bad) ==
                   0 &&
               bad == 0,
           "a stream longer than expected fails");
    src_sizes[0] = keep;
    free(src);
    free(dst);
    free(src_sizes);
    free(dst_sizes);
    free(comp);
    *nchunks_out = nch;
    return zstd_total;
}

static void test_json(const char *dir, size_t n, size_t chunk, size_t nchunks, uint64_t comp_bytes)
{
    ocb_rows rows = {0};
    ocb_strs skipped = {0}, failures = {0};
    for (int c = 0; c < 2; c++) {
        ocb_row *w = ocb_rows_push(&rows);
        REQUIRE(w);
        snprintf(w->file, sizeof w->file, "mix of \"3\" files");
        w->file_bytes = n;
        snprintf(w->algorithm, sizeof w->algorithm, "zstd");
        w->level = c ? 0 : 3;
        w->chunk_size = chunk;
        w->num_chunks = nchunks;
        w->uncompressed_bytes = n;
        w->compressed_bytes = comp_bytes;
        snprintf(w->contender, sizeof w->contender, c ? "nvcomp-gpu" : "opencomp-gpu");
        snprintf(w->scope, sizeof w->scope, "kernel");
        snprintf(w->timing, sizeof w->timing, "cuda-events");
        w->compress_s = c ? -1 : 0.004;
        w->decompress_s = 0.001;
        w->compress_repeats = 5;
        w->decompress_repeats = 7;
        w->decompress_warmup = 1;
        w->verified = 1;
        snprintf(w->path, sizeof w->path, c ? "" : "host-staged");
        snprintf(w->streams, sizeof w->streams, "%s", c ? ocb_ref_stock_label("zstd") : "");
        w->ladder = 1;
        w->batch_target = 1u << 20;
        w->plan_id = 0x0123456789abcdefull;
        snprintf(w->note, sizeof w->note, "a \\ backslash, a \"quote\" and a\nnewline");
    }
    ocb_strs_add(&skipped, "opencomp-gpu zstd 4 MiB: compression at 1 GiB: estimated %.1f s", 12.5);
    ocb_strs_add(&failures, "none \"really\"");
    char host[1024], path[1024];
    ocb_host_json(host, sizeof host);
    EXPECT(strstr(host, "\"cores\": ") != NULL, "host object has cores: %s", host);
    ocb_run_meta m = {"abc123",
                      host,
                      "{\"name\": \"Test GPU\", \"driver\": \"1\", \"cuda_runtime\": \"13.0\", \"sms\": 4, "
                      "\"d2d_copy_gbps\": 3000.0}",
                      "\"nvcomp\": \"6.0.0.12\"",
                      3000.0,
                      &skipped,
                      &failures};
    snprintf(path, sizeof path, "%s/run.json", dir);
    EXPECT(ocb_json_write(path, &m, &rows) == 0, "run file written");
    /* roofline: d / (copy * r / (1 + r)) */
    double r = (double)n / (double)comp_bytes, d = (double)n / 0.001 / 1e9;
    double want = d / (3000.0 * r / (1 + r));
    EXPECT(ocb_row_roofline(&rows.v[0], 3000.0) > want * 0.999999 &&
               ocb_row_roofline(&rows.v[0], 3000.0) < want * 1.000001,
           "roofline fraction");
    EXPECT(ocb_row_roofline(&rows.v[0], 0) < 0, "no roofline without a copy bandwidth");
    ocb_rows_free(&rows);
    ocb_strs_free(&skipped);
    ocb_strs_free(&failures);
}

/* One libblosc chunk (lz4, clevel 5) of n i32 values: its listed streams,
 * decoded by liblz4, must be the bytes at their place in the block after
 * the filter (computed here from the input), and the listed plus the stored
 * bytes must cover the chunk. */
static void test_blosc_streams_one(int shuffle, size_t n)
{
    size_t bytes = n * 4;
    uint32_t *v = (uint32_t *)malloc(bytes);
    uint8_t *chunk = (uint8_t *)malloc(bytes + BLOSC_MAX_OVERHEAD), *want = (uint8_t *)malloc(bytes),
            *got = (uint8_t *)malloc(bytes);
    REQUIRE(v && chunk && want && got);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        v[i] = (uint32_t)(i / 3) + ((x >> 16) & 0xff); /* compressible, not trivially */
    }
    int cb = blosc_compress_ctx(5, shuffle, 4, bytes, v, chunk, bytes + BLOSC_MAX_OVERHEAD, "lz4", 0, 1);
    REQUIRE(cb > 0);
    ocb_blosc_layout lay;
    REQUIRE(ocb_blosc_splits(chunk, (size_t)cb, NULL, 0, &lay) == 0);
    ocb_blosc_split *sp = (ocb_blosc_split *)calloc(lay.ncompressed + 1, sizeof *sp);
    REQUIRE(sp && ocb_blosc_splits(chunk, (size_t)cb, sp, lay.ncompressed, &lay) == 0);
    EXPECT(lay.nbytes == bytes && lay.ncompressed > 0 && lay.format == 1, "shuffle %d: %u bytes, %u streams",
           shuffle, lay.nbytes, lay.ncompressed);
    uint32_t count = lay.ncompressed;
    EXPECT(ocb_blosc_splits(chunk, (size_t)cb, sp, count - 1, &lay) == -1,
           "shuffle %d: too little room is refused", shuffle);
    REQUIRE(ocb_blosc_splits(chunk, (size_t)cb, sp, count, &lay) == 0 && lay.ncompressed == count);
    /* the filtered input: byte or bit planes per block, as c-blosc's shuffle.h */
    const uint8_t *in = (const uint8_t *)v;
    memset(want, 0, bytes);
    for (size_t b0 = 0; b0 < bytes; b0 += lay.blocksize) {
        size_t bsz = bytes - b0 < lay.blocksize ? bytes - b0 : lay.blocksize, e = bsz / 4;
        for (size_t i = 0; i < bsz; i++) {
            size_t el = i / 4, byte = i % 4;
            if (shuffle == BLOSC_SHUFFLE)
                want[b0 + byte * e + el] = in[b0 + i];
            else if (shuffle == BLOSC_BITSHUFFLE && e % 8 == 0)
                for (int bit = 0; bit < 8; bit++) /* bit k of every element, elements in order */
                    want[b0 + ((byte * 8 + (size_t)bit) * e + el) / 8] |=
                        (uint8_t)(((in[b0 + i] >> bit) & 1) << (el % 8));
            else
                want[b0 + i] = in[b0 + i];
        }
    }
    uint64_t listed = 0;
    for (uint32_t k = 0; k < lay.ncompressed; k++) {
        const ocb_blosc_split *s = &sp[k];
        REQUIRE(s->offset + (uint64_t)s->csize <= (uint64_t)cb && s->out + (uint64_t)s->dsize <= bytes);
        EXPECT(k == 0 || s->out >= sp[k - 1].out + sp[k - 1].dsize, "streams in chunk order");
        int r =
            LZ4_decompress_safe((const char *)chunk + s->offset, (char *)got, (int)s->csize, (int)s->dsize);
        EXPECT(r == (int)s->dsize && memcmp(got, want + s->out, s->dsize) == 0,
               "shuffle %d: stream %u (out %u, %u -> %u bytes) decodes to its place", shuffle, k, s->out,
               s->csize, s->dsize);
        listed += s->dsize;
        EXPECT(s->dsize <= lay.max_dsize, "max_dsize");
    }
    EXPECT(listed + lay.stored_bytes == bytes, "shuffle %d: %llu listed + %llu stored bytes = %zu", shuffle,
           (unsigned long long)listed, (unsigned long long)lay.stored_bytes, bytes);
    if (shuffle == BLOSC_SHUFFLE && lay.blocksize / 4 >= 128)
        EXPECT(lay.nstreams == 4 * ((bytes + lay.blocksize - 1) / lay.blocksize) ||
                   bytes % lay.blocksize != 0,
               "byte-shuffled i32 blocks split into 4 streams");
    /* a damaged chunk is refused, not listed */
    chunk[12] ^= 1; /* cbytes */
    EXPECT(ocb_blosc_splits(chunk, (size_t)cb, NULL, 0, &lay) == -1, "a wrong cbytes is refused");
    free(sp);
    free(v);
    free(chunk);
    free(want);
    free(got);
}

static void test_blosc_streams(void)
{
    test_blosc_streams_one(BLOSC_SHUFFLE, 1 << 18);
    test_blosc_streams_one(BLOSC_BITSHUFFLE, 1 << 18);
    test_blosc_streams_one(BLOSC_NOSHUFFLE, 100000);
    EXPECT(ocb_typesize_of("tpch_l_partkey.i32") == 4 && ocb_typesize_of("a.f64") == 8 &&
               ocb_typesize_of("w.bf16") == 2 && ocb_typesize_of("text.txt") == 0 &&
               ocb_typesize_of(".i32") == 0,
           "typesize from the suffix");
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    mkdir(argv[1], 0777);
    char path[1024];
    snprintf(path, sizeof path, "%s/plans.txt", argv[1]);
    FILE *plans = fopen(path, "w");
    REQUIRE(plans);
    test_parse();
    test_budget();
    test_blosc_streams();
    const char *names[] = {"a.txt", "b.bin", "c.f64"};
    uint64_t sizes1[] = {10000, 3 * 4096 + 7, 2 * 4096};
    check_plan(sizes1, 3, 4096, plans, names);
    uint64_t sizes2[] = {1 << 20, 5 << 20, 3 << 20};
    check_plan(sizes2, 3, 65536, plans, names);
    check_plan(sizes2, 3, 1 << 20, plans, names);
    uint64_t one[] = {777};
    check_plan(one, 1, 4096, plans, names);
    fclose(plans);

    size_t n = 0, nchunks = 0;
    uint8_t *data = read_source("include/opencomp.h", &n);
    uint64_t comp = test_reference(data, n, 4096, &nchunks);
    test_json(argv[1], n, 4096, nchunks, comp);
    free(data);
    printf("test_bench_host: %s\n", g_failures ? "FAILED" : "passed");
    return g_failures != 0;
}
