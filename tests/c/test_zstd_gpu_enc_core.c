/*
 * test_zstd_gpu_enc_core.c - the GPU Zstandard encoder's core
 * (src/cuda/codecs/zstd/zstd_enc_core.h), compiled for the host with one thread per
 * chunk, checked through libzstd.  CI has no GPU: this is where the encoding
 * logic that the CUDA kernel runs is checked on every commit.
 *
 * Guards: frames of every variant (levels -1, 1, 2, 3, 4, 5, 6) decode with
 * ZSTD_decompress and the streaming decoder (what `zstd -d` runs) to the
 * input, on real files (license text, this
 * executable, repo sources), a generated numeric column, random bytes, runs
 * of one byte, and sizes 0, 1, 2, 3, 63, 64, 1023, 1024, 64 KiB, 128 KiB + 1
 * (two blocks) and 1 MiB; the frame records its content size; it is never
 * larger than ZSTD_compressBound; incompressible input costs only headers;
 * capacity one byte short (and smaller) is OUTPUT_TOO_SMALL with no byte
 * written past the capacity (exact-size heap buffers under ASan, guard
 * bytes), capacity exactly the frame size gives the same frame; a
 * worker's chunks with stale heads (W.base moved past the chunk before, as
 * the kernel runs them, base also started near 2^32) give the frames made
 * after a clear; the hash buckets of levels 2-3 give each position the
 * latest 8 earlier positions with its hash (a brute-force scan); chunks
 * over one block at levels 1-3 run as the GPU runs them, a task a block
 * (ze_compress_task, in a scrambled order on a worker whose tables hold
 * other chunks' positions, into an exact-size buffer, then ze_gather), and
 * give ze_compress_chunk's frame; a capacity short of the frame of Raw
 * blocks makes it one task; at the chain levels (4-5), whose windows step
 * over match-less stretches (the burst search), random bytes then a zero
 * run (bitshuffled small integers) still code the run as matches.
 *
 * With OC_ZE_RATIO_FILES="f1 f2 ..." it also prints, per file at 64 KiB
 * chunks, this encoder's ratio at levels 1 and 3 beside libzstd -1 and -3
 * (the numbers in bench/gpu/zstd/ENC_NOTES.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "cuda/codecs/zstd/zstd_enc_core.h"

#include "helpers/soft_check.h"

static ze_work g_work;
static ze_tables g_tables;

static oc_status enc(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out, int level)
{
    ze_reset(&g_work, 0, 1);
    return ze_compress_chunk(&g_work, &g_tables, src, n, dst, cap, out, level);
}

static uint8_t *read_file(const char *path, size_t max, size_t *size)
{
    FILE *f = fopen(path, "rb");
    *size = 0;
    if (!f)
        return NULL;
    uint8_t *buf = malloc(max ? max : 1);
    size_t n = buf ? fread(buf, 1, max, f) : 0;
    fclose(f);
    *size = n;
    return buf;
}

/* Compresses at `level`, checks the frame against libzstd and the capacity
 * rules; returns the frame size (0 on failure). */
static size_t check_one(const char *what, const uint8_t *src, size_t n, int level)
{
    size_t bound = ze_bound(n);
    uint8_t *dst = malloc(bound);
    size_t out = 0;
    oc_status st = enc(src, n, dst, bound, &out, level);
    EXPECT(st == OC_OK, "%s n=%zu level %d: status %d", what, n, level, (int)st);
    if (st != OC_OK) {
        free(dst);
        return 0;
    }
    EXPECT(out <= ZSTD_compressBound(n), "%s n=%zu: %zu > ZSTD_compressBound", what, n, out);
    EXPECT(ZSTD_getFrameContentSize(dst, out) == n, "%s n=%zu: content size %llu", what, n,
           (unsigned long long)ZSTD_getFrameContentSize(dst, out));
    EXPECT(ZSTD_findFrameCompressedSize(dst, out) == out, "%s n=%zu: frame size", what, n);
    uint8_t *back = malloc(n ? n : 1);
    size_t r = ZSTD_decompress(back, n, dst, out);
    EXPECT(!ZSTD_isError(r) && r == n && memcmp(back, src, n) == 0, "%s n=%zu level %d: round trip (%s)",
           what, n, level, ZSTD_isError(r) ? ZSTD_getErrorName(r) : "bytes differ");
    /* the streaming decoder (what `zstd -d` uses; default window limit) */
    ZSTD_DStream *ds = ZSTD_createDStream();
    ZSTD_inBuffer zin = {dst, out, 0};
    ZSTD_outBuffer zout = {back, n, 0};
    size_t zr = ZSTD_decompressStream(ds, &zout, &zin);
    EXPECT(!ZSTD_isError(zr) && zout.pos == n && zin.pos == out && memcmp(back, src, n) == 0,
           "%s n=%zu level %d: streaming decode (%s)", what, n, level,
           ZSTD_isError(zr) ? ZSTD_getErrorName(zr) : "");
    ZSTD_freeDStream(ds);
    free(back);
    /* exactly the frame's size: the same frame; one byte less (and less):
     * OUTPUT_TOO_SMALL, nothing written past the capacity */
    size_t caps[4] = {out, out - 1, out / 2, 0};
    for (int k = 0; k < 4; k++) {
        size_t cap = caps[k];
        uint8_t *exact = malloc(cap + 16);
        memset(exact + cap, 0x5A, 16);
        size_t o2 = 12345;
        oc_status s2 = enc(src, n, exact, cap, &o2, level);
        if (k == 0) {
            EXPECT(s2 == OC_OK && o2 == out && memcmp(exact, dst, out) == 0,
                   "%s n=%zu level %d: exact capacity: status %d", what, n, level, (int)s2);
        } else {
            EXPECT(s2 == OC_ERR_OUTPUT_TOO_SMALL, "%s n=%zu level %d cap %zu/%zu: status %d", what, n, level,
                   cap, out, (int)s2);
        }
        for (int g = 0; g < 16; g++)
            EXPECT(exact[cap + (size_t)g] == 0x5A, "%s n=%zu cap %zu: write past capacity", what, n, cap);
        free(exact);
    }
    free(dst);
    return out;
}

static const int g_levels[] = {-1, 1, 2, 3, 4, 5, 6};

static void check_all_levels(const char *what, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < sizeof g_levels / sizeof g_levels[0]; i++)
        check_one(what, src, n, g_levels[i]);
}

/* A worker's sequence of chunks as the kernel runs it: the heads cleared
 * once, then W.base moved past each chunk (ze_next_chunk) instead of a
 * clear; every frame must equal the one made after a clear, including
 * with base started near 2^32 (the clear that ze_next_chunk then asks
 * for, and heads of base + position close to ZE_EMPTY). */
static void check_stale_heads(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    const uint8_t *src[6] = {a, b, a + na / 3, b, a, b + nb / 2};
    size_t len[6] = {na, nb, na / 2, nb / 3, 65536 < na ? 65536 : na, nb - nb / 2};
    /* from 0; chunks 0 and 1 with heads up to ZE_EMPTY - 1, then a clear;
     * chunk 0 up to ZE_EMPTY - 5 then a clear */
    const uint32_t starts[] = {0, (uint32_t)(ZE_EMPTY - 1 - len[0] - len[1]),
                               (uint32_t)(ZE_EMPTY - 5 - len[0])};
    for (size_t si = 0; si < sizeof starts / sizeof starts[0]; si++)
        for (size_t li = 0; li < sizeof g_levels / sizeof g_levels[0]; li++) {
            static uint8_t scratch2[ZE_SCRATCH_BYTES] __attribute__((aligned(16)));
            ze_work W = ze_work_from(scratch2);
            ze_reset(&W, 0, 1);
            W.base = starts[si];
            int clears = 0;
            for (int c = 0; c < 6; c++) {
                if (ze_next_chunk(&W, c > 0 ? len[c - 1] : 0, len[c])) {
                    ze_reset(&W, 0, 1);
                    clears++;
                }
                size_t bound = ze_bound(len[c]), o1 = 0, o2 = 0;
                uint8_t *f1 = malloc(bound), *f2 = malloc(bound);
                oc_status s1 = ze_compress_chunk(&W, &g_tables, src[c], len[c], f1, bound, &o1, g_levels[li]);
                oc_status s2 = enc(src[c], len[c], f2, bound, &o2, g_levels[li]);
                EXPECT(s1 == OC_OK && s2 == OC_OK && o1 == o2 && memcmp(f1, f2, o1) == 0,
                       "stale heads: base start %u, level %d, chunk %d: %zu vs %zu bytes", starts[si],
                       g_levels[li], c, o1, o2);
                free(f1), free(f2);
            }
            EXPECT(si == 0 ? clears == 0 : clears >= 1, "stale heads: base start %u: %d clears", starts[si],
                   clears);
        }
}

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
    return g_rng;
}

/* A chunk as the GPU runs it at levels 1-3 when it is over one block (a
 * task a block: zstd_enc.cu): each block by ze_compress_task on a worker
 * that moved W.base past the task before (its tables hold earlier tasks'
 * positions, all stale), tasks in a scrambled order, into a buffer of
 * exactly ze_split_bytes; then ze_gather.  The frame must be
 * ze_compress_chunk's. */
static void check_tasks(const char *what, const uint8_t *src, size_t n)
{
    static uint8_t scratch4[ZE_SCRATCH_BYTES] __attribute__((aligned(16)));
    static const int levels[] = {1, 2, 3, 0};
    for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
        int level = levels[li];
        size_t bound = ze_bound(n), o1 = 0;
        uint8_t *f1 = malloc(bound);
        EXPECT(enc(src, n, f1, bound, &o1, level == 0 ? 3 : level) == OC_OK, "tasks %s: chunk", what);
        size_t sb = ze_split_bytes(n), nk = ze_tasks(n, sb, level);
        EXPECT(nk == (n + ZE_BLOCK - 1) / ZE_BLOCK && nk > 1, "tasks %s n=%zu level %d: %zu tasks", what, n,
               level, nk);
        EXPECT(ze_tasks(n, sb - 1, level) == 1, "tasks %s: short capacity, one task", what);
        EXPECT(o1 <= sb, "tasks %s: frame %zu over the raw frame's %zu", what, o1, sb);
        uint8_t *f2 = malloc(sb);
        memset(f2, 0xA5, sb);
        ze_work W = ze_work_from(scratch4);
        ze_reset(&W, 0, 1);
        /* stale positions: a chunk before, then the tasks, each after moving base past the one before */
        size_t o0 = 0, b0 = ze_bound(n - n / 3);
        uint8_t *f0 = malloc(b0);
        EXPECT(ze_compress_chunk(&W, &g_tables, src + n / 3, n - n / 3, f0, b0, &o0, 3) == OC_OK,
               "tasks %s: stale chunk", what);
        free(f0);
        uint32_t order[64];
        REQUIRE(nk <= 64);
        for (size_t j = 0; j < nk; j++)
            order[j] = (uint32_t)j;
        for (size_t j = nk - 1; j > 0; j--) {
            size_t r = (size_t)(rnd() % (j + 1));
            uint32_t x = order[j];
            order[j] = order[r], order[r] = x;
        }
        size_t done = n - n / 3;
        for (size_t j = 0; j < nk; j++) {
            if (ze_next_chunk(&W, done, n))
                ze_reset(&W, 0, 1);
            done = n;
            ze_compress_task(&W, &g_tables, src, n, order[j], f2, level == 0 ? 3 : level);
        }
        size_t o2 = ze_gather(f2, n);
        EXPECT(o2 == o1 && memcmp(f1, f2, o1) == 0, "tasks %s n=%zu level %d: %zu vs %zu bytes", what, n,
               level, o2, o1);
        free(f1), free(f2);
    }
}

/* The hash buckets of levels 2-3 (ze_bucket_window): positions entered by
 * windows of 1-32 give each position the latest ZE_WAYS earlier positions
 * with its bucket hash, latest first, then ZE_EMPTY; the positions of the
 * chunk before (W.base moved past it) read as empty.  Checked against a
 * brute-force scan, on data from `a` (n bytes) with many shared hashes. */
static void check_buckets(const uint8_t *a, size_t n)
{
    static uint8_t scratch3[ZE_SCRATCH_BYTES] __attribute__((aligned(16)));
    ze_work W = ze_work_from(scratch3);
    ze_reset(&W, 0, 1);
    uint32_t lim = (uint32_t)(n > 20008 ? 20000 : n - 8);
    uint32_t *hs = malloc(sizeof(uint32_t) * lim);
    uint32_t c[ZE_WINDOW * ZE_WAYS];
    int bad = 0;
    for (int pass = 0; pass < 2; pass++) {
        const uint8_t *src = a + pass * 7;
        if (pass == 1)
            EXPECT(ze_next_chunk(&W, lim + 8, lim + 8) == 0, "buckets: next chunk");
        for (uint32_t p = 0; p < lim; p++)
            hs[p] = ze_bhash(src + p);
        for (uint32_t from = 0; from < lim;) {
            uint32_t to = from + 1 + (uint32_t)(rnd() % ZE_WINDOW);
            to = to < lim ? to : lim;
            ze_bucket_window(&W, src, from, to, c);
            for (uint32_t p = from; p < to && bad < 5; p++) {
                uint32_t want[ZE_WAYS], k = 0;
                for (uint32_t q = p; q-- > 0 && k < ZE_WAYS;)
                    if (hs[q] == hs[p])
                        want[k++] = q;
                while (k < ZE_WAYS)
                    want[k++] = ZE_EMPTY;
                if (memcmp(want, c + (p - from) * ZE_WAYS, sizeof want) != 0) {
                    EXPECT(0, "buckets: pass %d position %u: candidates %u %u .. vs %u %u ..", pass, p,
                           c[(p - from) * ZE_WAYS], c[(p - from) * ZE_WAYS + 1], want[0], want[1]);
                    bad++;
                }
            }
            from = to;
        }
    }
    free(hs);
}

static void ratios(const char *files)
{
    size_t fl = strlen(files) + 1;
    char *list = malloc(fl);
    memcpy(list, files, fl);
    printf("%-40s %8s %8s %8s %8s\n", "file (64 KiB chunks)", "ze-1", "zstd-1", "ze-3", "zstd-3");
    for (char *f = strtok(list, " "); f; f = strtok(NULL, " ")) {
        size_t n;
        uint8_t *src = read_file(f, (size_t)1 << 30, &n);
        if (!src || n == 0) {
            free(src);
            continue;
        }
        size_t tot[4] = {0, 0, 0, 0};
        size_t cb = ZSTD_compressBound(65536);
        uint8_t *dst = malloc(cb);
        for (size_t off = 0; off < n; off += 65536) {
            size_t len = n - off < 65536 ? n - off : 65536, o;
            for (int k = 0; k < 2; k++) {
                int lv = k ? 3 : 1;
                EXPECT(enc(src + off, len, dst, cb, &o, lv) == OC_OK, "ratio %s", f);
                tot[2 * k] += o;
                size_t z = ZSTD_compress(dst, cb, src + off, len, lv);
                tot[2 * k + 1] += ZSTD_isError(z) ? len : z;
            }
        }
        const char *b = strrchr(f, '/');
        printf("%-40s %8.3f %8.3f %8.3f %8.3f\n", b ? b + 1 : f, (double)n / (double)tot[0],
               (double)n / (double)tot[1], (double)n / (double)tot[2], (double)n / (double)tot[3]);
        free(dst);
        free(src);
    }
    free(list);
}

int main(void)
{
    static uint8_t scratch[ZE_SCRATCH_BYTES] __attribute__((aligned(16)));
    g_work = ze_work_from(scratch);
    ze_tables_init(&g_tables);

    const char *rf = getenv("OC_ZE_RATIO_FILES");
    if (rf) {
        ratios(rf);
        return g_failures != 0;
    }

    /* real data */
    size_t ntext, nexe, nsrc;
    uint8_t *text = read_file("/usr/share/common-licenses/GPL-3", (size_t)1 << 20, &ntext);
    uint8_t *exe = read_file("/proc/self/exe", (size_t)1 << 20, &nexe);
    uint8_t *srcf =
        read_file(OC_SOURCE_DIR "/src/cuda/codecs/zstd/zstd_decode_core.h", (size_t)1 << 20, &nsrc);
    if (!text || ntext < 4096 || !exe || nexe < 65536 || !srcf || nsrc < 4096) {
        fprintf(stderr, "test data missing\n");
        return 1;
    }
    check_all_levels("GPL-3", text, ntext);
    check_all_levels("exe 64K", exe, 65536);
    check_all_levels("exe", exe, nexe);
    check_all_levels("source", srcf, nsrc);

    /* 1 MiB of mixed real data and a numeric column (eight blocks) */
    size_t big = (size_t)1 << 20;
    uint8_t *mix = malloc(big);
    size_t k = 0;
    while (k < big / 2) {
        size_t c = ntext < big / 2 - k ? ntext : big / 2 - k;
        memcpy(mix + k, text, c);
        k += c;
    }
    for (uint32_t i = 0; k + 4 <= big; k += 4, i++) {
        uint32_t v = 1000000u + i * 3u + (uint32_t)(rnd() & 7);
        memcpy(mix + k, &v, 4);
    }
    check_all_levels("1 MiB mix", mix, big);
    check_tasks("1 MiB mix", mix, big);
    if (nexe > ZE_BLOCK)
        check_tasks("exe", exe, nexe);
    check_tasks("two blocks + 1", mix + 1000, 2 * ZE_BLOCK + 1);
    check_tasks("text 128K + 9", mix, ZE_BLOCK + 9);
    check_stale_heads(mix, big, exe, nexe);
    check_buckets(mix + big / 2 - 10000, 30000); /* text, then the column */
    check_buckets(exe, nexe);

    /* sizes, around block and header boundaries */
    static const size_t sizes[] = {0,   1,   2,    3,    7,    8,     9,     31,    32,    63,     64,
                                   255, 256, 1023, 1024, 4096, 65535, 65536, 65791, 65792, 131072, 131073};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        if (n <= big) {
            check_all_levels("mix prefix", mix + big / 2 - n / 2, n);
            check_all_levels("text prefix", mix, n);
        }
    }

    /* incompressible: frame = header + raw blocks */
    uint8_t *rnd_buf = malloc(big);
    for (size_t i = 0; i < big; i += 8) {
        uint64_t v = rnd();
        memcpy(rnd_buf + i, &v, 8);
    }
    size_t r = check_one("random 1 MiB", rnd_buf, big, 1);
    check_tasks("random 1 MiB", rnd_buf, big);
    EXPECT(r <= big + 9 + 3 * 8, "random 1 MiB: %zu bytes", r);
    check_one("random 64K", rnd_buf, 65536, 3);
    check_one("random 100", rnd_buf, 100, 3);

    /* random bytes, then a zero run (bitshuffled small integers: random low
     * bit planes, zero high ones): the chain levels' windows step over the
     * random stretch (ze_block_wlazy's burst search) and still find the run */
    memset(rnd_buf + 144 * 1024, 0, 112 * 1024);
    for (int lv = 4; lv <= 5; lv++) {
        r = check_one("random then zeros", rnd_buf, 256 * 1024, lv);
        EXPECT(r < 146 * 1024, "random then zeros level %d: %zu bytes of 256 KiB", lv, r);
    }

    /* a repeat farther than the chains reach (64 Ki links): 80 KiB of
     * random bytes, then its first 48 KiB again.  The lazy variants take
     * the hash head however far it is (bitshuffled f64 prices repeat 20
     * bit planes = 80 KiB apart: Blosc zstd bitshuffle ratio 1.17 -> 1.45) */
    memcpy(rnd_buf + 80 * 1024, rnd_buf, 48 * 1024);
    for (int lv = 1; lv <= 9; lv += 2) {
        r = check_one("far repeat", rnd_buf, 128 * 1024, lv);
        EXPECT(r < 90 * 1024, "far repeat level %d: %zu bytes of 128 KiB", lv, r);
    }

    /* one byte repeated (RLE blocks), and runs */
    memset(rnd_buf, 'a', big);
    r = check_one("one byte 1 MiB", rnd_buf, big, 1);
    EXPECT(r < 64, "one byte 1 MiB: %zu bytes", r);
    memset(rnd_buf + 300000, 'b', 1000);
    check_tasks("one byte, a run of another", rnd_buf, big);
    for (size_t i = 0; i < big; i++)
        rnd_buf[i] = (uint8_t)((i / 1000) & 0xFF);
    check_all_levels("runs", rnd_buf, 300000);
    check_tasks("runs", rnd_buf, 300000);

    /* compressible data compresses */
    size_t c1 = check_one("GPL-3 ratio", text, ntext, 1), c3 = check_one("GPL-3 ratio", text, ntext, 3);
    EXPECT(c1 > 0 && c1 * 2 < ntext, "GPL-3 level 1: %zu of %zu", c1, ntext);
    EXPECT(c3 > 0 && c3 <= c1, "GPL-3 level 3 (%zu) not better than level 1 (%zu)", c3, c1);

    free(text), free(exe), free(srcf), free(mix), free(rnd_buf);
    if (g_failures) {
        printf("test_zstd_gpu_enc_core: %d failures\n", g_failures);
        return 1;
    }
    printf("test_zstd_gpu_enc_core: all checks passed\n");
    return 0;
}
