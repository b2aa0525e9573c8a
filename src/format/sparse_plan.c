/*
 * sparse_plan.c - see sparse_plan.h.  The index synthesis is each
 * container's (its ops' `sparse`: lz4frame.c, snappy_framing.c,
 * zstd_seekable.c), with the parsers' own arithmetic; the parser then
 * re-checks all of it,
 * so a synthesis that went wrong on hostile input ends in the parser's
 * status or in a failed probe, never in a wrong plan.
 */
#include "sparse_plan.h"

#include <stdlib.h>

#include "../common/algo_table.h"
#include "container.h"

#define HEAD_BYTES 64u
#define TAIL_GUESS 4096u

void oc_sparse_free(oc_sparse *sh)
{
    free(sh->b);
    free(sh->probes);
    memset(sh, 0, sizeof *sh);
}

void oc_sparse_probe(oc_sparse *s, uint64_t pos, uint32_t word)
{
    if (pos > s->n || s->n - pos < 4)
        return; /* beyond src: the parser rejects such a position itself */
    if (s->np == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        oc_probe *p = (oc_probe *)realloc(s->probes, cap * sizeof *p);
        if (p == NULL) {
            s->ok = 0;
            return;
        }
        s->probes = p;
        s->cap = cap;
    }
    s->probes[s->np].pos = pos;
    s->probes[s->np].word = word;
    s->probes[s->np].pad = 0;
    s->np++;
    oc_store_le32(s->b + pos, word);
}

oc_status oc_sparse_read_tail(oc_sparse *s, oc_range_reader rd, void *opaque, uint64_t len)
{
    if (len > s->n)
        len = s->n;
    if (len <= s->have)
        return OC_OK;
    oc_range r = {s->n - len, len - s->have, s->b + s->n - len};
    FORWARD_IF_ERROR(rd(opaque, &r, 1));
    s->have = len;
    return OC_OK;
}

oc_status oc_sparse_plan(const oc_buffer_options *hint, uint64_t src_size, oc_range_reader rd, void *opaque,
                         oc_sparse *sh, oc_container_plan *plan, int *usable)
{
    memset(sh, 0, sizeof *sh);
    oc_plan_init(plan);
    *usable = 0;
    oc_algorithm ha = hint ? hint->algorithm : OC_ALGO_NONE;
    oc_bitstream_kind hk = hint ? hint->kind : OC_BITSTREAM_NATIVE;
    if (src_size == 0 || src_size > SIZE_MAX / 2)
        return OC_OK;
    int with_size = hk == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
    int raw_lz = hk == OC_BITSTREAM_RAW && (ha == OC_ALGO_LZ4 || ha == OC_ALGO_SNAPPY);
    if (hk == OC_BITSTREAM_RAW && ha != OC_ALGO_NONE && !raw_lz)
        return OC_OK; /* RAW zstd walks every frame; deflate family: whole stream anyway */
    sh->b = (uint8_t *)calloc(1, (size_t)src_size);
    sh->n = src_size;
    sh->ok = 1;
    if (sh->b == NULL)
        return OC_OK;
    uint64_t head = src_size < HEAD_BYTES ? src_size : HEAD_BYTES;
    sh->have = src_size < TAIL_GUESS ? src_size : TAIL_GUESS;
    oc_range r[2] = {{0, head, sh->b}, {src_size - sh->have, sh->have, sh->b + src_size - sh->have}};
    FORWARD_IF_ERROR(rd(opaque, r, 2));
    if (with_size || raw_lz) {
        /* These parses read at most 12 bytes (size, magic, varint). */
        *usable = 1;
        return oc_container_parse(sh->b, src_size, hint, plan);
    }
    /* The container the parser will see: skippable frames may lead (LZ4 and
     * zstd streams alike), so their headers are read until the first frame
     * that is not one, as the parser walks them. */
    uint64_t pos = 0;
    for (int k = 0; k < 64 && src_size - pos >= 8; k++) {
        if ((oc_load_le32(sh->b + pos) & OC_SKIPPABLE_MAGIC_MASK) != OC_SKIPPABLE_MAGIC_MIN)
            break;
        uint64_t len = oc_load_le32(sh->b + pos + 4);
        if (len > src_size - pos - 8)
            break;
        pos += 8 + len;
        uint64_t want = src_size - pos < 8 ? src_size - pos : 8;
        if (want && pos + want > head) {
            oc_range hr = {pos, want, sh->b + pos};
            FORWARD_IF_ERROR(rd(opaque, &hr, 1));
        }
    }
    const oc_container_ops *c = oc_container_detect(sh->b, src_size, ha);
    /* Only an indexed container synthesises the headers its index implies
     * (each checks its own magic and index first). */
    int indexed = 0;
    if (c && c->sparse)
        FORWARD_IF_ERROR(c->sparse(sh, rd, opaque, &indexed));
    if (!indexed || !sh->ok)
        return OC_OK;
    oc_status st = oc_container_parse(sh->b, src_size, hint, plan);
    if (st == OC_OK && (!plan->indexed || plan->lz4f_serial || plan->tail)) {
        oc_plan_free(plan);
        oc_plan_init(plan);
        return OC_OK; /* not the indexed layout after all */
    }
    *usable = 1;
    return st;
}

int oc_sparse_probes_hold(const oc_sparse *sh, const oc_container_plan *plan, const uint8_t *src,
                          uint64_t src_size)
{
    for (size_t i = 0; i < sh->np; i++) {
        uint64_t q = sh->probes[i].pos;
        if (q > src_size || src_size - q < 4 || oc_load_le32(src + q) != sh->probes[i].word)
            return 0;
    }
    for (size_t i = 0; i < plan->n; i++) {
        const oc_chunk_ref *c = &plan->chunks[i];
        if (sh->snappy_check && !c->stored) {
            uint64_t v = 0;
            int ok = 0;
            for (unsigned k = 0; k < 5 && k < c->src_size; k++) {
                v |= (uint64_t)(src[c->src_off + k] & 0x7f) << (7 * k);
                if (!(src[c->src_off + k] & 0x80)) {
                    ok = v == c->dst_size && v <= OC_SNAPPY_MAX_CHUNK;
                    break;
                }
            }
            if (!ok)
                return 0;
        }
        if (sh->zstd_check) {
            oc_zstd_frame f;
            if (oc_zstd_walk_frame(src + c->src_off, c->src_size, &f) != OC_OK || f.skippable ||
                f.size != c->src_size || (f.has_size && f.content_size != c->dst_size))
                return 0;
        }
    }
    return 1;
}
