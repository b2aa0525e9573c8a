/*
 * test_cuda_zstd_checksum.c - the GPU Zstandard decoder's content checksum (XXH64 of the frame's
 * output, zd_xxh64_acc / zl_hash_group in src/cuda/codecs/zstd/) in all three kernels, at every output
 * alignment.  Runs on a GPU machine (scripts/gpu-check); without a GPU it says SKIP and passes.
 *
 * Why: on the GPU the checksum reads the output with 8-byte loads, eight stripes ahead of the rounds,
 * when the output is 8-aligned, and with byte loads otherwise; the lane kernel hashes a group's four
 * chunks at once (bench/gpu/zstd/NOTES.md "Run 12").  A slip in either (a stripe skipped or read twice,
 * the unrolled loop's remainder, the tail after the last full stripe, an accumulator taken from the
 * wrong lane or chunk, an alignment taken for another) changes the hash of some size or alignment.
 *
 * Guards, on frames libzstd writes at level 3 with a content checksum (text-like data of 1 byte to
 * 1 MiB: no stripe, fewer stripes than the loop's step, a remainder, 64 KiB single-block frames for the
 * lane kernel, multi-block frames for the frame kernel), each decoded into outputs that start at every
 * address mod 8, by the per-chunk kernel, the lane kernel (the frames up to 64 KiB: it takes batches of
 * capacities <= 128 KiB, groups of 4 whose checksums it computes at once) and the frame kernel (forced):
 *   - an intact frame is OK, its size and bytes the input's;
 *   - the same frame with one bit of its checksum field flipped is OC_ERR_CHECKSUM_MISMATCH, exactly;
 *   - nothing is written past a capacity (dev_batch's guard bytes).
 * OC_TEST_SMALL=1 (compute-sanitizer runs): frames up to 200000 bytes, outputs at 0 and 3 mod 8.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cuda/runtime/cuda_engine.h"

#include "helpers/dev_batch.h"
#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"
#include "helpers/tu_rng.h"
#include "helpers/zstd_ref.h"

static tu_rng g_rng = {0x9E3779B97F4A7C15ull};

/* Text-like bytes: words of a small vocabulary, so frames have matches, Huffman literals and several
 * sequences a batch. */
static void fill_text(uint8_t *p, size_t n)
{
    static const char *words[] = {"the ", "zstd ", "frame ", "checksum ", "of ",    "a ",    "block ",
                                  "GPU ", "lane ", "warp\n", "stripe ",   "XXH64 ", "0123 ", "data, "};
    size_t i = 0;
    while (i < n) {
        const char *w = words[tu_rng_next(&g_rng) % (sizeof words / sizeof words[0])];
        for (size_t k = 0; w[k] && i < n; k++)
            p[i++] = (uint8_t)w[k];
        if (tu_rng_next(&g_rng) % 7 == 0 && i < n)
            p[i++] = (uint8_t)('a' + tu_rng_next(&g_rng) % 26);
    }
}

int main(void)
{
    if (!dev_gpu_begin("test_cuda_zstd_checksum"))
        return 0;
    /* content sizes: under a stripe, one stripe, 9 stripes + 1 (one step of 8 and a remainder), 8 * 3
     * stripes + 17, 64 KiB (one block), 64 KiB - 5, 200000 (two blocks), 1 MiB (eight) */
    static const size_t sizes[] = {1, 31, 32, 33, 289, 785, 65536, 65531, 200000, 1u << 20};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    int small = getenv("OC_TEST_SMALL") != NULL;
    size_t ns = small ? NS - 1 : NS; /* small: no 1 MiB frame */
    size_t n = 1 + 2 * ns; /* a 1-byte frame first (it sets the alignment), then each frame intact, flipped */
    uint8_t *data[NS], **comp = calloc(n, sizeof *comp);
    size_t *clen = calloc(n, sizeof *clen), *caps = calloc(n, sizeof *caps), *want = calloc(n, sizeof *want);
    const uint8_t **orig = calloc(n, sizeof *orig);
    REQUIRE(comp && clen && caps && want && orig);
    static const uint8_t one = 'x';
    comp[0] = zstd_ref_compress(&one, 1, 3, 1, 1, 0, &clen[0]);
    want[0] = 1;
    orig[0] = &one;
    for (size_t s = 0; s < ns; s++) {
        data[s] = malloc(sizes[s]);
        REQUIRE(data[s]);
        fill_text(data[s], sizes[s]);
        for (int flip = 0; flip < 2; flip++) {
            size_t i = 1 + 2 * s + (size_t)flip;
            comp[i] = zstd_ref_compress(data[s], sizes[s], 3, 1, 1, 0, &clen[i]);
            REQUIRE(clen[i] > 4);
            if (flip) /* the checksum field: the frame's last 4 bytes */
                comp[i][clen[i] - 1 - tu_rng_next(&g_rng) % 4] ^= (uint8_t)(1u << (tu_rng_next(&g_rng) % 8));
            want[i] = sizes[s];
            orig[i] = data[s];
        }
    }
    size_t *sz = calloc(n, sizeof *sz), *off = calloc(n, sizeof *off);
    oc_status *st = calloc(n, sizeof *st);
    REQUIRE(sz && off && st);
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    static const int kernels[] = {DEV_BATCH_ZSTD_PER_CHUNK, DEV_BATCH_ZSTD_LANES, DEV_BATCH_ZSTD_FRAMES};
    static const char *names[] = {"per-chunk kernel", "lane kernel", "frame kernel"};
    size_t runs = 0, ok = 0, mismatch = 0, want_ok = 0, want_bad = 0, nlane = 0;
    while (nlane < ns && sizes[nlane] <= 65536)
        nlane++;
    for (size_t a = 0; a < 8 && (!small || a <= 3); a += small ? 3 : 1) {
        /* slot i starts at the sum of caps + guards before it: the first frame's capacity makes every
         * slot start at a mod 8 (capacities past it rounded to 8; the guard is 32) */
        caps[0] = 8 + a;
        for (size_t i = 1; i < n; i++)
            caps[i] = (want[i] + 7) & ~(size_t)7;
        size_t total = dev_batch_slots(n, caps, off);
        uint8_t *out = malloc(total);
        REQUIRE(out);
        for (size_t i = 1; i < n; i++)
            REQUIRE(off[i] % 8 == a);
        for (size_t k = 0; k < 3; k++) {
            /* the lane kernel takes batches whose capacities are all <= 128 KiB (zl_pick): its batch is
             * the frames up to 64 KiB, the first nk */
            size_t nk = kernels[k] == DEV_BATCH_ZSTD_LANES ? 1 + 2 * nlane : n;
            dev_batch_run(kernels[k], &o, nk, (const uint8_t *const *)comp, clen, caps, 0, out, sz, st);
            want_ok += 1 + (nk - 1) / 2;
            want_bad += (nk - 1) / 2;
            runs++;
            for (size_t i = 0; i < nk; i++) {
                int flipped = i > 0 && (i - 1) % 2 == 1;
                if (flipped) {
                    EXPECT(st[i] == OC_ERR_CHECKSUM_MISMATCH,
                           "%s, output at %zu mod 8, %zu bytes: flipped "
                           "checksum gave %s\n",
                           names[k], a, want[i], oc_status_name(st[i]));
                    mismatch += st[i] == OC_ERR_CHECKSUM_MISMATCH;
                } else {
                    EXPECT(st[i] == OC_OK && sz[i] == want[i] && memcmp(out + off[i], orig[i], want[i]) == 0,
                           "%s, output at %zu mod 8, %zu bytes: %s, size %zu, bytes %s\n", names[k], a,
                           want[i], oc_status_name(st[i]), sz[i],
                           st[i] == OC_OK && sz[i] == want[i] && memcmp(out + off[i], orig[i], want[i]) == 0
                               ? "equal"
                               : "differ");
                    ok += st[i] == OC_OK;
                }
            }
        }
        free(out);
    }
    printf(
        "test_cuda_zstd_checksum: %zu batches (3 kernels x %s alignments), %zu intact frames OK, %zu flipped "
        "checksums rejected%s\n",
        runs, small ? "2" : "8", ok, mismatch, g_failures ? "" : ", all checks passed");
    EXPECT(ok == want_ok && mismatch == want_bad, "not every frame was checked\n");
    for (size_t s = 0; s < ns; s++)
        free(data[s]);
    for (size_t i = 0; i < n; i++)
        free(comp[i]);
    free(comp);
    free(clen);
    free(caps);
    free(want);
    free(orig);
    free(sz);
    free(off);
    free(st);
    return g_failures != 0;
}
