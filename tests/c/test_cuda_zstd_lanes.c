/*
 * test_cuda_zstd_lanes.c - the GPU Zstandard decoder's lane-parallel kernel
 * (src/cuda/codecs/zstd/zstd_dec_lanes.h: a warp decodes a group of 4
 * chunks, each lane the sequences of its own chunk, the literals decoded
 * into the tail of the chunk's own output) against its per-chunk kernel and
 * libzstd, on the GPU (the group's decoding tables in shared memory).  The
 * host test (test_zstd_gpu_lanes.c) runs the same core one lane at a time; what only a GPU shows is the lanes
 * running at once: the literal copies of a batch in parallel (safe only where the batch's writes end below
 * its literals, else in order), the shuffles, the group schedule, the scratch layout.  Runs on a GPU machine
 * (scripts/gpu-check); without a GPU it says SKIP and passes.
 *
 * Guards, on 64 KiB chunks of real data (text, TPC-H comments, float
 * weights, an ELF tar; bench/corpus-sample) compressed by libzstd at levels
 * 1, 3 and 19, with and without checksums, some damaged (bit flips, a cut,
 * random bytes, a capacity one byte short, a larger capacity):
 *   - the lane-parallel kernel forced (oc_cuda_zstd_decompress_forced, any
 *     batch size) gives every chunk exactly the per-chunk kernel's status
 *     and size, and the same bytes up to that size;
 *   - a chunk is OK only where libzstd decodes it too, to libzstd's bytes
 *     (the core is stricter than libzstd on some damaged streams: counted);
 *   - an OK chunk has nothing written between its size and its capacity,
 *     and no chunk anything past its capacity (guard bytes);
 *   - the public call (the automatic choice: the per-chunk kernel for a
 *     batch this small; bench/gpu/dev/zstd_lanes times and checks it at
 *     full scale, where it takes the lane kernel) gives the same results;
 *   - argument arrays in host memory and in device memory (with device
 *     arrays the capacities are unknown on the host: the lane kernel then
 *     runs with 128 KiB literal buffers, as oc_gpu_bench's batches take it);
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
#include "helpers/tu_rng.h"
#include "helpers/zstd_ref.h"

#define CH 65536
#define GUARD DEV_BATCH_GUARD

static tu_rng g_rng = {0x2545F491u}; /* helpers/tu_rng.h */
static uint32_t rnd(void)
{
    return (uint32_t)tu_rng_next(&g_rng);
}

int main(void)
{
    if (!dev_gpu_begin("test_cuda_zstd_lanes"))
        return 0;
    int small = getenv("OC_TEST_SMALL") != NULL;
    static const char *files[] = {OC_SOURCE_DIR "/bench/corpus-sample/text_linux_docs.txt",
                                  OC_SOURCE_DIR "/bench/corpus-sample/tpch_l_comment.txt",
                                  OC_SOURCE_DIR "/bench/corpus-sample/weights_minilm_l0-1.f32",
                                  OC_SOURCE_DIR "/bench/corpus-sample/elf_gdb_cmake_libstdcxx.tar"};
    size_t per_file = small ? 12 : 96, nf = sizeof files / sizeof files[0];
    size_t maxn = per_file * nf;
    uint8_t **comp = calloc(maxn, sizeof *comp);
    const uint8_t **orig = calloc(maxn, sizeof *orig);
    uint8_t **data = calloc(nf, sizeof *data);
    int *intact = calloc(maxn, sizeof *intact);
    size_t *clen = calloc(maxn, sizeof *clen), *caps = calloc(maxn, sizeof *caps);
    REQUIRE(comp && orig && data && clen && caps && intact);
    size_t n = 0;
    for (size_t f = 0; f < nf; f++) {
        FILE *fp = fopen(files[f], "rb");
        if (!fp)
            continue;
        data[f] = malloc(per_file * CH);
        REQUIRE(data[f]);
        size_t got = fread(data[f], 1, per_file * CH, fp);
        fclose(fp);
        static const int levels[] = {1, 3, 19};
        for (size_t i = 0; i + 1 <= got / CH; i++) {
            int level = levels[i % 3];
            if (level == 19 && i % 4 != 2)
                level = 3; /* -19 is slow */
            comp[n] = zstd_ref_compress(data[f] + i * CH, CH, level, (int)(i & 1), 1, 0, &clen[n]);
            orig[n] = data[f] + i * CH;
            caps[n] = CH;
            n++;
        }
    }
    if (n < 16) {
        printf("SKIP: test_cuda_zstd_lanes needs bench/corpus-sample (found %zu chunks)\n", n);
        return 0;
    }
    /* damage one chunk in three (the others stay intact, in the same groups) */
    for (size_t i = 0; i < n; i++) {
        intact[i] = i % 3 != 1 || (i / 3) % 6 == 4;
        if (i % 3 != 1)
            continue;
        uint8_t *z = comp[i];
        switch ((i / 3) % 6) {
        case 0:
            z[rnd() % clen[i]] ^= (uint8_t)(1u << (rnd() % 8));
            break;
        case 1:
            clen[i] = rnd() % clen[i];
            break;
        case 2:
            caps[i] = CH - 1;
            break;
        case 3:
            for (size_t k = 12 + rnd() % 64; k < clen[i] && k < 200; k++)
                z[k] = (uint8_t)rnd();
            break;
        case 4:
            caps[i] = CH + 1000; /* not damage: room past the content */
            break;
        default:
            for (int k = 0; k < 4; k++)
                z[clen[i] - 1 - rnd() % (clen[i] < 64 ? clen[i] : 64)] ^= (uint8_t)(1u << (rnd() % 8));
            break;
        }
    }
    size_t out_total = 0;
    for (size_t i = 0; i < n; i++)
        out_total += caps[i] + GUARD;
    uint8_t *o_ref = malloc(out_total), *o_run = malloc(out_total), *ref = malloc(CH + 1000);
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

    /* the lane-parallel kernel forced, then the automatic choice, each with
     * host and device argument arrays */
    for (int run = 0; run < 4; run++) {
        int lanes = run < 2, dev_arrays = run & 1;
        dev_batch_run(lanes ? DEV_BATCH_ZSTD_LANES : DEV_BATCH_DECOMPRESS, &o, n,
                      (const uint8_t *const *)comp, clen, caps, dev_arrays ? DEV_BATCH_DEVICE_ARRAYS : 0,
                      o_run, sz_run, st_run);
        const char *what = lanes ? "lane-parallel kernel" : "public call";
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
                    EXPECT(sz_run[i] == CH && memcmp(o_run + off, orig[i], CH) == 0,
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
    free(comp), free(orig), free(data), free(clen), free(caps), free(intact);
    free(o_ref), free(o_run), free(ref), free(sz_ref), free(sz_run), free(st_ref), free(st_run);
    if (g_failures) {
        printf("test_cuda_zstd_lanes: %d failures\n", g_failures);
        return 1;
    }
    printf(
        "test_cuda_zstd_lanes: %zu chunks, lane-parallel kernel and public call as the per-chunk kernel and "
        "libzstd, all checks passed\n",
        n);
    return 0;
}
