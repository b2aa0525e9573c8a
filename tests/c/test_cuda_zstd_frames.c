/*
 * test_cuda_zstd_frames.c - the GPU Zstandard decoder's frame kernel
 * (src/cuda/codecs/zstd/zstd_dec_frame.h, zf_decode_kernel: a CTA per frame
 * of several blocks, its warps decoding the blocks' entropy into a ring of
 * slots while several executor warps run the decoded batches out of order,
 * each waiting only for the bytes its late matches read: the frontier)
 * against its per-chunk kernel
 * and libzstd, on the GPU.  The host test (test_zstd_gpu_blocks.c) runs the
 * same core one lane at a time; what only a GPU shows is the warps of a CTA
 * handing blocks over through the ring (flags, fences), the executors
 * handing bytes over (progress counters), CTAs looping over
 * frames, the per-chunk kernel finishing what the frame kernel left, and
 * the scratch layout.  Runs on a GPU machine (scripts/gpu-check); without a
 * GPU it says SKIP and passes.
 *
 * Guards, on frames of real data (text, TPC-H comments, float weights, an
 * ELF tar; bench/corpus-sample) compressed by libzstd at levels 1, 3 and 19
 * (1 MiB frames of 128 KiB blocks; frames with a block every few KiB for
 * Treeless literals, Repeat_Mode tables and repeat offsets across blocks;
 * single-block chunks the frame kernel must leave alone), with and without
 * checksums, some damaged (bit flips, a cut, random bytes, a capacity one
 * byte short, a larger capacity, a flipped checksum):
 *   - the frame kernel forced (oc_cuda_zstd_decompress_forced) gives every
 *     chunk exactly the per-chunk kernel's status and size, and the same
 *     bytes up to that size;
 *   - a chunk is OK only where libzstd decodes it too, to libzstd's bytes;
 *   - an OK chunk has nothing written between its size and its capacity,
 *     and no chunk anything past its capacity (guard bytes);
 *   - the public call (the automatic choice) gives the same results, with
 *     host and with device argument arrays;
 *   - OK and at least two kinds of error occur, so no comparison passes
 *     vacuously.
 * OC_TEST_SMALL=1 shrinks the data (for compute-sanitizer runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cuda/runtime/cuda_engine.h"

#include "helpers/dev_batch.h"
#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"
#include "helpers/zstd_ref.h"

#define GUARD DEV_BATCH_GUARD

static uint32_t g_rng = 0x2545F491u;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}

int main(void)
{
    if (!dev_gpu_begin("test_cuda_zstd_frames"))
        return 0;
    int small = getenv("OC_TEST_SMALL") != NULL;
    static const char *files[] = {OC_SOURCE_DIR "/bench/corpus-sample/text_linux_docs.txt",
                                  OC_SOURCE_DIR "/bench/corpus-sample/tpch_l_comment.txt",
                                  OC_SOURCE_DIR "/bench/corpus-sample/weights_minilm_l0-1.f32",
                                  OC_SOURCE_DIR "/bench/corpus-sample/elf_gdb_cmake_libstdcxx.tar"};
    /* per file: frames of FR bytes (128 KiB blocks), one of small blocks,
     * one single-block chunk */
    size_t fr = small ? ((size_t)200 << 10) : ((size_t)1 << 20);
    size_t per_file = small ? 1 : 6, nf = sizeof files / sizeof files[0];
    size_t maxn = (per_file + 2) * nf;
    uint8_t **comp = calloc(maxn, sizeof *comp);
    const uint8_t **orig = calloc(maxn, sizeof *orig);
    uint8_t **data = calloc(nf, sizeof *data);
    int *intact = calloc(maxn, sizeof *intact);
    size_t *clen = calloc(maxn, sizeof *clen), *caps = calloc(maxn, sizeof *caps),
           *olen = calloc(maxn, sizeof *olen);
    REQUIRE(comp && orig && data && clen && caps && intact && olen);
    size_t n = 0, maxo = 0;
    for (size_t f = 0; f < nf; f++) {
        FILE *fp = fopen(files[f], "rb");
        if (!fp)
            continue;
        data[f] = malloc(per_file * fr + 65536);
        REQUIRE(data[f]);
        size_t got = fread(data[f], 1, per_file * fr + 65536, fp);
        fclose(fp);
        static const int levels[] = {1, 3, 3, 19};
        for (size_t i = 0; i < per_file && (i + 1) * fr <= got; i++) {
            int level = levels[i % 4];
            comp[n] = zstd_ref_compress(data[f] + i * fr, fr, level, (int)(i & 1), 1, 0, &clen[n]);
            orig[n] = data[f] + i * fr;
            olen[n] = caps[n] = fr;
            n++;
        }
        if (got < fr + 65536)
            continue;
        /* small blocks (Treeless literals, Repeat_Mode, repeat offsets across
         * blocks), and a single-block chunk */
        comp[n] = zstd_ref_compress(data[f], fr / 2, 3, 1, 1, 3000, &clen[n]);
        orig[n] = data[f];
        olen[n] = caps[n] = fr / 2;
        n++;
        comp[n] = zstd_ref_compress(data[f] + fr, 65536, 3, 1, 1, 0, &clen[n]);
        orig[n] = data[f] + fr;
        olen[n] = caps[n] = 65536;
        n++;
    }
    if (n < 8) {
        printf("SKIP: test_cuda_zstd_frames needs bench/corpus-sample (found %zu chunks)\n", n);
        return 0;
    }
    /* damage one chunk in three */
    for (size_t i = 0; i < n; i++) {
        intact[i] = i % 3 != 1 || (i / 3) % 7 == 4;
        if (i % 3 != 1)
            continue;
        uint8_t *z = comp[i];
        switch ((i / 3) % 7) {
        case 0:
            z[rnd() % clen[i]] ^= (uint8_t)(1u << (rnd() % 8));
            break;
        case 1:
            clen[i] = rnd() % clen[i];
            break;
        case 2:
            caps[i] = olen[i] - 1;
            break;
        case 3:
            for (size_t k = 12 + rnd() % 64; k < clen[i] && k < 200; k++)
                z[k] = (uint8_t)rnd();
            break;
        case 4:
            caps[i] = olen[i] + 1000; /* not damage: room past the content */
            break;
        case 5:
            z[clen[i] - 1] ^= 0x40; /* the checksum, or the last block's end */
            break;
        default:
            for (int k = 0; k < 4; k++)
                z[clen[i] / 2 + rnd() % (clen[i] / 2)] ^= (uint8_t)(1u << (rnd() % 8));
            break;
        }
    }
    size_t out_total = 0;
    for (size_t i = 0; i < n; i++) {
        out_total += caps[i] + GUARD;
        maxo = caps[i] > maxo ? caps[i] : maxo;
    }
    uint8_t *o_ref = malloc(out_total), *o_run = malloc(out_total), *ref = malloc(maxo);
    size_t *sz_ref = calloc(n, sizeof *sz_ref), *sz_run = calloc(n, sizeof *sz_run);
    oc_status *st_ref = calloc(n, sizeof *st_ref), *st_run = calloc(n, sizeof *st_run);
    REQUIRE(o_ref && o_run && ref && sz_ref && sz_run && st_ref && st_run);
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;

    /* the per-chunk kernel, and libzstd beside it */
    dev_batch_run(DEV_BATCH_ZSTD_PER_CHUNK, &o, n, (const uint8_t *const *)comp, clen, caps, 0, o_ref, sz_ref,
                  st_ref);
    size_t ok = 0, corrupt = 0, small_out = 0, other = 0, stricter = 0;
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    REQUIRE(dctx);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = ZSTD_decompressDCtx(dctx, ref, caps[i], comp[i], clen[i]);
        int lib_ok = !ZSTD_isError(r);
        EXPECT(lib_ok || st_ref[i] != OC_OK, "chunk %zu: libzstd %s, per-chunk kernel OK\n", i,
               ZSTD_getErrorName(r));
        stricter += lib_ok && st_ref[i] != OC_OK;
        if (lib_ok && st_ref[i] == OC_OK)
            EXPECT(r == sz_ref[i] && memcmp(o_ref + off, ref, r) == 0,
                   "chunk %zu: bytes differ from libzstd\n", i);
        ok += st_ref[i] == OC_OK;
        corrupt += st_ref[i] == OC_ERR_CORRUPT || st_ref[i] == OC_ERR_CHECKSUM_MISMATCH;
        small_out += st_ref[i] == OC_ERR_OUTPUT_TOO_SMALL;
        other += st_ref[i] != OC_OK && st_ref[i] != OC_ERR_CORRUPT && st_ref[i] != OC_ERR_CHECKSUM_MISMATCH &&
                 st_ref[i] != OC_ERR_OUTPUT_TOO_SMALL;
        off += caps[i] + GUARD;
    }
    ZSTD_freeDCtx(dctx);
    printf("  %zu chunks: %zu OK, %zu corrupt, %zu output too small, %zu other errors (%zu that libzstd "
           "accepts)\n",
           n, ok, corrupt, small_out, other, stricter);
    EXPECT(ok * 2 >= n && corrupt > 0 && small_out > 0, "too few kinds of result to compare\n");

    /* the frame kernel forced, then the automatic choice, each with host
     * and device argument arrays */
    for (int run = 0; run < 4; run++) {
        int frames = run < 2, dev_arrays = run & 1;
        dev_batch_run(frames ? DEV_BATCH_ZSTD_FRAMES : DEV_BATCH_DECOMPRESS, &o, n,
                      (const uint8_t *const *)comp, clen, caps, dev_arrays ? DEV_BATCH_DEVICE_ARRAYS : 0,
                      o_run, sz_run, st_run);
        const char *what = frames ? "frame kernel" : "public call";
        size_t differ = 0;
        off = 0;
        for (size_t i = 0; i < n; i++) {
            int same = st_run[i] == st_ref[i] && sz_run[i] == sz_ref[i];
            if (same && sz_ref[i] <= caps[i])
                same = memcmp(o_run + off, o_ref + off, sz_ref[i]) == 0;
            if (!same && differ++ < 8)
                fprintf(stderr, "%s (%s arrays) chunk %zu: %s %zu, per-chunk kernel %s %zu\n", what,
                        dev_arrays ? "device" : "host", i, oc_status_name(st_run[i]), sz_run[i],
                        oc_status_name(st_ref[i]), sz_ref[i]);
            EXPECT(!intact[i] || st_run[i] == OC_OK, "%s chunk %zu: intact, but %s\n", what, i,
                   oc_status_name(st_run[i]));
            if (st_run[i] == OC_OK) {
                if (intact[i])
                    EXPECT(sz_run[i] == olen[i] && memcmp(o_run + off, orig[i], olen[i]) == 0,
                           "%s chunk %zu: not the input\n", what, i);
                for (size_t k = sz_run[i]; k < caps[i]; k++)
                    if (o_run[off + k] != DEV_BATCH_GUARD_BYTE) {
                        EXPECT(0, "%s chunk %zu: byte %zu past its size %zu written\n", what, i, k,
                               sz_run[i]);
                        break;
                    }
            }
            off += caps[i] + GUARD;
        }
        EXPECT(differ == 0, "%s (%s arrays): %zu chunks differ from the per-chunk kernel\n", what,
               dev_arrays ? "device" : "host", differ);
    }

    oc_cuda_context_release(&g_ctx);
    for (size_t i = 0; i < n; i++)
        free(comp[i]);
    for (size_t f = 0; f < nf; f++)
        free(data[f]);
    free(comp), free(orig), free(data), free(clen), free(caps), free(intact), free(olen);
    free(o_ref), free(o_run), free(ref), free(sz_ref), free(sz_run), free(st_ref), free(st_run);
    if (g_failures) {
        printf("test_cuda_zstd_frames: %d failures\n", g_failures);
        return 1;
    }
    printf("test_cuda_zstd_frames: %zu chunks, frame kernel and public call as the per-chunk kernel and "
           "libzstd, "
           "all checks passed\n",
           n);
    return 0;
}
