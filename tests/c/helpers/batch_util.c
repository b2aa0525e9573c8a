/*
 * batch_util.c - chunking, batch compression and guarded slice decoding
 * for the C tests (see batch_util.h).
 */
#include "batch_util.h"

#include <string.h>

#define GUARD 37 /* odd, so slices are not aligned */

void tu_chunks_split(tu_chunks *c, const uint8_t *data, size_t size, size_t chunk_size)
{
    memset(c, 0, sizeof(*c));
    size_t n = size == 0 ? 1 : (size + chunk_size - 1) / chunk_size;
    c->n = n;
    c->src = tu_xmalloc(n * sizeof(void *));
    c->src_sizes = tu_xmalloc(n * sizeof(size_t));
    c->comp = tu_xmalloc(n * sizeof(void *));
    c->comp_caps = tu_xmalloc(n * sizeof(size_t));
    c->comp_sizes = tu_xmalloc(n * sizeof(size_t));
    c->statuses = tu_xmalloc(n * sizeof(oc_status));
    for (size_t i = 0; i < n; i++) {
        size_t off = i * chunk_size;
        c->src[i] = data + off;
        c->src_sizes[i] = size - off < chunk_size ? size - off : chunk_size;
        c->comp[i] = NULL;
    }
}

void tu_chunks_compress(tu_chunks *c, oc_context *ctx, oc_algorithm algo, int level)
{
    for (size_t i = 0; i < c->n; i++) {
        c->comp_caps[i] = oc_compress_bound(algo, c->src_sizes[i]);
        CHECK(c->comp_caps[i] > 0);
        free(c->comp[i]);
        c->comp[i] = tu_xmalloc(c->comp_caps[i]);
    }
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    o.level = level;
    CHECK_OK(oc_batch_compress(ctx, &o, c->n, c->src, c->src_sizes, c->comp, c->comp_caps, c->comp_sizes,
                               c->statuses));
    for (size_t i = 0; i < c->n; i++) {
        CHECK_MSG(c->statuses[i] == OC_OK, "%s level %d chunk %zu: %s", oc_algorithm_name(algo), level, i,
                  oc_status_name(c->statuses[i]));
        CHECK(c->comp_sizes[i] > 0 && c->comp_sizes[i] <= c->comp_caps[i]);
    }
}

void tu_chunks_check_decode(const tu_chunks *c, oc_context *ctx, oc_algorithm algo)
{
    size_t total = GUARD;
    for (size_t i = 0; i < c->n; i++)
        total += c->src_sizes[i] + GUARD;
    uint8_t *big = tu_xmalloc(total);
    tu_fill_guard(big, total);
    void **dst = tu_xmalloc(c->n * sizeof(void *));
    size_t *caps = tu_xmalloc(c->n * sizeof(size_t));
    size_t *sizes = tu_xmalloc(c->n * sizeof(size_t));
    oc_status *st = tu_xmalloc(c->n * sizeof(oc_status));
    size_t off = GUARD;
    for (size_t i = 0; i < c->n; i++) {
        dst[i] = big + off;
        caps[i] = c->src_sizes[i];
        off += c->src_sizes[i] + GUARD;
    }
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    CHECK_OK(oc_batch_decompress(ctx, &o, c->n, (const void *const *)c->comp, c->comp_sizes, dst, caps, sizes,
                                 st));
    off = 0;
    for (size_t i = 0; i < c->n; i++) {
        CHECK_MSG(st[i] == OC_OK, "%s decode chunk %zu of %zu: %s", oc_algorithm_name(algo), i, c->n,
                  oc_status_name(st[i]));
        CHECK_SIZE_EQ(sizes[i], c->src_sizes[i]);
        CHECK_GUARD(big + off, GUARD);
        CHECK_MEM_EQ((const uint8_t *)dst[i], (const uint8_t *)c->src[i], c->src_sizes[i]);
        off += GUARD + c->src_sizes[i];
    }
    CHECK_GUARD(big + off, GUARD);

    memset(sizes, 0xff, c->n * sizeof(size_t));
    CHECK_OK(
        oc_batch_decompressed_sizes(ctx, &o, c->n, (const void *const *)c->comp, c->comp_sizes, sizes, st));
    for (size_t i = 0; i < c->n; i++) {
        CHECK_MSG(st[i] == OC_OK, "%s size of chunk %zu: %s", oc_algorithm_name(algo), i,
                  oc_status_name(st[i]));
        CHECK_SIZE_EQ(sizes[i], c->src_sizes[i]);
    }
    free(big);
    free(dst);
    free(caps);
    free(sizes);
    free(st);
}

void tu_chunks_free(tu_chunks *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->comp[i]);
    free(c->src);
    free(c->src_sizes);
    free(c->comp);
    free(c->comp_caps);
    free(c->comp_sizes);
    free(c->statuses);
    memset(c, 0, sizeof(*c));
}
