/*
 * fuzz_sparse_plan.c - the plan that the whole-buffer layer builds from the
 * head and tail of src, for host and device buffers (src/format/
 * sparse_plan.c, with its probe checks: the host's, the GPU's reference),
 * must give the CPU parser's status, and on success the parser's plan -
 * every field the layer reads - for any input.  The first byte picks the
 * hint (algorithm x kind); the rest is the buffer.
 */
#include <stdio.h>

#include "format/container.h"
#include "fuzz_common.h"

typedef struct fuzz_src {
    const uint8_t *p;
    uint64_t n;
} fuzz_src;

static oc_status fuzz_read(void *opaque, const oc_range *r, size_t n)
{
    const fuzz_src *s = (const fuzz_src *)opaque;
    for (size_t i = 0; i < n; i++) {
        if (r[i].off > s->n || s->n - r[i].off < r[i].len)
            abort(); /* a read outside src */
        memcpy(r[i].to, s->p + r[i].off, (size_t)r[i].len);
    }
    return OC_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const oc_algorithm algos[4] = {OC_ALGO_NONE, OC_ALGO_LZ4, OC_ALGO_SNAPPY, OC_ALGO_ZSTD};
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    hint.algorithm = algos[data[0] & 3];
    hint.kind = (oc_bitstream_kind)((data[0] >> 2) % 3);
    if (hint.kind != OC_BITSTREAM_NATIVE && hint.algorithm == OC_ALGO_NONE)
        hint.algorithm = OC_ALGO_LZ4;
    uint8_t *src = fuzz_copy(data + 1, size - 1);
    uint64_t n = size - 1;
    oc_container_plan real, sp;
    oc_status rs = oc_container_parse(src, n, &hint, &real);
    oc_sparse sh;
    int usable = 0;
    fuzz_src fs = {src, n};
    oc_status ss = oc_sparse_plan(&hint, n, fuzz_read, &fs, &sh, &sp, &usable);
    if (usable) {
        if (ss == OC_OK && !oc_sparse_probes_hold(&sh, &sp, src, n))
            ss = OC_ERR_CORRUPT;
        if (ss != rs) {
            fprintf(stderr, "sparse plan %s, parser %s\n", oc_status_name(ss), oc_status_name(rs));
            abort();
        }
        if (ss == OC_OK) {
            /* every field the whole-buffer layer reads (src/api/buffer.c
             * plans host buffers this way too) */
            if (sp.n != real.n || sp.total_size != real.total_size || sp.tail != real.tail ||
                sp.algorithm != real.algorithm || sp.check != real.check || sp.kind != real.kind ||
                sp.reported != real.reported || sp.name != real.name || sp.size_known != real.size_known ||
                sp.tail_algorithm != real.tail_algorithm || sp.indexed != real.indexed ||
                sp.lz4f_serial != real.lz4f_serial || sp.lz4_legacy != real.lz4_legacy ||
                sp.lz4_content_checksum != real.lz4_content_checksum ||
                (sp.lz4_content_checksum && sp.content_checksum != real.content_checksum) ||
                sp.container_size != real.container_size || sp.max_chunk != real.max_chunk ||
                sp.window_size != real.window_size) {
                fprintf(stderr, "sparse plan and parser differ\n");
                abort();
            }
            /* the checksums a plan holds; LZ4's, snappy's and our own
             * container's are read where the chunk lies, on both engines */
            int held = sp.check != OC_CHECK_XXH32_STORED && sp.check != OC_CHECK_CRC32C_MASKED &&
                       sp.check != OC_CHECK_XXH32_CONTENT;
            for (size_t i = 0; i < sp.n; i++) {
                const oc_chunk_ref *a = &sp.chunks[i], *b = &real.chunks[i];
                if (a->src_off != b->src_off || a->src_size != b->src_size || a->dst_off != b->dst_off ||
                    a->dst_size != b->dst_size || a->stored != b->stored ||
                    (held && a->checksum != b->checksum))
                    abort();
            }
        }
    }
    oc_plan_free(&sp);
    oc_sparse_free(&sh);
    oc_plan_free(&real);
    free(src);
    return 0;
}
