/*
 * test_zstd_vectors.c - zstd's own decoder test vectors and truncations,
 * through both of opencomp's zstd decoders: the GPU decoder's core
 * (src/cuda/codecs/zstd/zstd_decode_core.h, compiled for the host with one lane, as
 * test_zstd_gpu_core.c does) and the CPU engine (libzstd through
 * oc_batch_decompress), compared with each other.
 *
 * Regressions pinned here (issue 11):
 *   - item 6: every frame of zstd's tests/golden-decompression/ decodes,
 *     with the same bytes on both decoders, and every frame of
 *     tests/golden-decompression-errors/ is refused by both.  The GPU core
 *     accepted zeroSeq_extraneous.zst; Debian bookworm's libzstd 1.5.4
 *     accepted all three error frames and refused zeroSeq_2B.zst, hence
 *     libzstd >= 1.5.7 (README, "libzstd"; checked here at run time too,
 *     in case an older shared library is loaded than the headers built
 *     against).  The vectors are in tests/vectors/zstd (origin and licence
 *     there).
 *   - item 5: a zero-length input is TRUNCATED on both (the GPU core said
 *     "OK, 0 bytes"), and every prefix of real frames (cut anywhere: in a
 *     header, a block header, a block, between frames, in a checksum) gets
 *     the same status from both decoders.
 */
#include <dirent.h>
#include <string.h>

#include <zstd.h>

#include "cuda/codecs/zstd/zstd_decode_core.h"

#include "helpers/test_util.h"

static zd_tables g_tables;
static uint8_t g_lit[ZD_BLOCK_MAX];
static oc_context *g_ctx;

static oc_status core_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    return zd_decode_chunk(&g_tables, src, n, dst, cap, out, g_lit, sizeof g_lit);
}

static oc_status cpu_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    const void *p = src;
    void *d = dst;
    oc_status st = OC_ERR_INTERNAL;
    CHECK_OK(oc_batch_decompress(g_ctx, &o, 1, &p, &n, &d, &cap, out, &st));
    return st;
}

#define OUT_CAP ((size_t)8 << 20)

/* Every file of one vector folder through both decoders; returns the count. */
static int run_folder(const char *sub, int valid)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/tests/vectors/zstd/%s", OC_SOURCE_DIR, sub);
    DIR *d = opendir(dir);
    CHECK_MSG(d != NULL, "cannot open %s", dir);
    uint8_t *a = tu_xmalloc(OUT_CAP), *b = tu_xmalloc(OUT_CAP);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".zst") != 0)
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        tu_buf f;
        CHECK_MSG(tu_read_file(path, (size_t)1 << 20, &f) == 0, "cannot read %s", path);
        size_t na = 0, nb = 0;
        oc_status sa = core_decode(f.data, f.size, a, OUT_CAP, &na);
        oc_status sb = cpu_decode(f.data, f.size, b, OUT_CAP, &nb);
        if (valid) {
            CHECK_MSG(sa == OC_OK, "%s: GPU core: %s", e->d_name, oc_status_name(sa));
            CHECK_MSG(sb == OC_OK, "%s: CPU engine: %s", e->d_name, oc_status_name(sb));
            CHECK_SIZE_EQ(na, nb);
            CHECK_MEM_EQ(a, b, na);
        } else {
            CHECK_MSG(sa != OC_OK, "%s: the GPU core accepts an invalid frame (%zu bytes)", e->d_name, na);
            CHECK_MSG(sb != OC_OK, "%s: the CPU engine accepts an invalid frame (%zu bytes)", e->d_name, nb);
        }
        printf("  %s/%s: GPU core %s, CPU engine %s\n", sub, e->d_name, oc_status_name(sa),
               oc_status_name(sb));
        tu_buf_free(&f);
        count++;
    }
    closedir(d);
    free(a);
    free(b);
    return count;
}

/* Compresses with libzstd: level, checksum and content size flags. */
static size_t compress(const uint8_t *src, size_t n, int level, int checksum, int content_size, uint8_t *dst,
                       size_t cap)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, content_size);
    ZSTD_CCtx_setParameter(c, ZSTD_c_targetCBlockSize, 1340); /* many small blocks: many cut points */
    ZSTD_inBuffer in = {src, n, 0};
    ZSTD_outBuffer o = {dst, cap, 0};
    size_t r;
    do {
        r = ZSTD_compressStream2(c, &o, &in, ZSTD_e_end);
    } while (r != 0 && !ZSTD_isError(r));
    ZSTD_freeCCtx(c);
    CHECK_MSG(!ZSTD_isError(r), "compress: %s", ZSTD_getErrorName(r));
    return o.pos;
}

/* Every prefix of `src` (n bytes): both decoders give the same status, and
 * every proper prefix but the frame boundaries b1 and b2 fails. */
static int every_prefix(const char *name, const uint8_t *src, size_t n, size_t full, size_t b1, size_t b2)
{
    uint8_t *a = tu_xmalloc(full + 1), *b = tu_xmalloc(full + 1);
    for (size_t cut = 0; cut <= n; cut++) {
        size_t na = 0, nb = 0;
        oc_status sa = core_decode(src, cut, a, full, &na);
        oc_status sb = cpu_decode(src, cut, b, full, &nb);
        CHECK_MSG(sa == sb, "%s cut at %zu of %zu: GPU core %s, CPU engine %s", name, cut, n,
                  oc_status_name(sa), oc_status_name(sb));
        if (cut == b1 || cut == b2)
            CHECK_MSG(sa == OC_OK, "%s cut at the frame boundary %zu: %s", name, cut, oc_status_name(sa));
        else if (cut < n)
            CHECK_MSG(sa == OC_ERR_TRUNCATED, "%s cut at %zu of %zu: %s", name, cut, n, oc_status_name(sa));
        else
            CHECK_MSG(sa == OC_OK && na == full && nb == full && memcmp(a, b, full) == 0, "%s whole: %s",
                      name, oc_status_name(sa));
    }
    free(a);
    free(b);
    return (int)n + 1;
}

int main(void)
{
    CHECK_MSG(ZSTD_versionNumber() >= 10507,
              "libzstd %s is loaded; opencomp needs >= 1.5.7 (README, libzstd)", ZSTD_versionString());
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    co.num_threads = 1;
    CHECK_OK(oc_context_create(&co, &g_ctx));

    int good = run_folder("golden-decompression", 1);
    int bad = run_folder("golden-decompression-errors", 0);
    CHECK_MSG(good >= 4 && bad >= 3, "vectors missing: %d valid, %d invalid", good, bad);

    /* Zero bytes: a cut before the magic number. */
    size_t got = 0;
    uint8_t one[1];
    CHECK_STATUS(core_decode(one, 0, one, 1, &got), OC_ERR_TRUNCATED);
    CHECK_STATUS(cpu_decode(one, 0, one, 1, &got), OC_ERR_TRUNCATED);

    /* Truncations of real frames at every byte. */
    tu_buf corpus[TU_CORPUS_MAX];
    size_t ncorpus = tu_corpus(corpus, TU_CORPUS_MAX, 1 << 20);
    size_t cap = ZSTD_compressBound(1 << 16) * 2 + 64;
    uint8_t *frames = tu_xmalloc(cap);
    int cuts = 0;
    for (size_t d = 0; d < ncorpus && d < 4; d++) {
        size_t n = corpus[d].size < 12000 ? corpus[d].size : 12000;
        const int levels[] = {-3, 3, 19};
        for (int li = 0; li < 3; li++) {
            char name[64];
            snprintf(name, sizeof name, "corpus %zu level %d", d, levels[li]);
            size_t c = compress(corpus[d].data, n, levels[li], li != 1, li != 2, frames, cap);
            /* a skippable frame and a second frame after it */
            static const uint8_t skip[] = {0x53, 0x2A, 0x4D, 0x18, 0x03, 0, 0, 0, 'a', 'b', 'c'};
            memcpy(frames + c, skip, sizeof skip);
            size_t c2 = compress(corpus[d].data, n / 3, levels[li], 1, 1, frames + c + sizeof skip,
                                 cap - c - sizeof skip);
            cuts += every_prefix(name, frames, c + sizeof skip + c2, n + n / 3, c, c + sizeof skip);
        }
    }
    free(frames);
    for (size_t d = 0; d < ncorpus; d++)
        tu_buf_free(&corpus[d]);
    oc_context_destroy(g_ctx);
    printf("test_zstd_vectors: %d valid and %d invalid golden frames, %d truncations: GPU core and CPU "
           "engine agree (libzstd %s)\n",
           good, bad, cuts, ZSTD_versionString());
    return 0;
}
