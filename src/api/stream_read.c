/*
 * stream_read.c - the streaming reader (oc_stream_reader_* of
 * include/opencomp.h): a NATIVE container read from a callback, a group of
 * chunks at a time, with memory bounded by the group whatever the stream's
 * length.
 *
 * The reader walks the container's own headers as the bytes arrive: every
 * chunk whose extent the headers give (an independent LZ4 block, a legacy
 * LZ4 block, a zstd frame stating its content size, a gzip member with our
 * size subfield, a snappy chunk) becomes a *unit* of the current group;
 * when the group holds about 4 MiB per thread of decoded bytes, ONE
 * oc_batch_decompress call decodes every unit in parallel into the group's
 * output, checksums are checked in parallel, and the outputs are packed.
 * What the headers cannot cut (an LZ4 frame with linked blocks, a zstd
 * frame without a content size or above OC_STREAM_MAX_UNIT, a gzip member
 * of another writer) goes through a serial streaming decoder
 * (stream_serial.c) a buffer at a time.  The index at the end is checked
 * against the chunks read: our LZ4 and snappy indexes entry by entry, the
 * zstd seek table's sizes and (for frames decoded in batches) checksums.
 *
 * A seekable source (oc_stream_reader_set_seekable) is read index first:
 * the zstd seek table at its end is read through the pread callback
 * before any data, and then every frame it lists is a unit of the exact
 * size the table gives, frames without a content size included (other
 * writers' seekable files), each checked against its entry.  The data is
 * still read once, in order, through the read callback.
 *
 * On a context whose engine is CUDA, a group's units are decoded on the
 * GPU: their input bytes go to the device in one copy, one batched call
 * decodes them there, and the outputs come back in one copy
 * (stream_device.h); the serial fallbacks stay on the host.
 *
 * Everything read from input is checked before use (SAFETY_CHECK); a unit
 * never reads past the bytes buffered for it, and decoders never write past
 * the capacity given to them.
 */
#include <stdlib.h>
#include <string.h>

#include "../common/algo_table.h"
#include "../common/oc_internal.h"
#include "../common/xxh.h"
#include "../format/chunk_sum.h"
#include "../format/container.h"
#include "../format/parallel.h"
#include "stream_device.h"
#include "stream_serial.h"

#define GROUP_PER_THREAD ((uint64_t)4 << 20)
#define GROUP_MIN ((uint64_t)8 << 20)
#define GROUP_MAX ((uint64_t)64 << 20)
#define READ_STEP ((size_t)1 << 20)
#define INDEX_MAX ((uint64_t)64 << 20) /* larger indexes are skipped unchecked */
#define LZ4_LEGACY_CBOUND (OC_LZ4_LEGACY_BLOCK + OC_LZ4_LEGACY_BLOCK / 255 + 16)

enum { FAM_NONE = 0, FAM_FRAMES, FAM_GZIP, FAM_SNAPPY };

typedef struct unit {
    size_t off, csize;    /* payload in r->in */
    size_t dcap;          /* decoded capacity */
    int exact;            /* dcap is the exact decoded size */
    int stored;           /* copy the payload */
    oc_chunk_check check; /* checksum to verify (NONE: none) */
    uint32_t sum;
    uint32_t word;   /* the chunk's header word, for our index (LZ4, snappy) */
    uint32_t isize;  /* gzip: the trailer's ISIZE */
    int zstd_frame;  /* a zstd frame: record it for the seek table (1: with its XXH64 when verifying,
                        2: without, the seek table read first has no checksums) */
    size_t dst, got; /* output slot and decoded bytes */
    oc_status st;
} unit;

typedef struct entry {
    uint32_t csize, usize, sum;
    uint8_t summed;
} entry;

struct oc_stream_reader {
    oc_context *ctx;
    oc_read_fn read;
    void *opaque;
    int verify;
    uint64_t memory_limit;
    oc_algorithm hint;
    oc_status error;
    int ended;
    /* input window: r->in[beg..end) unconsumed */
    uint8_t *in;
    size_t cap, beg, end;
    int eof;
    uint64_t in_total;
    /* container */
    int family, started;
    /* LZ4 frame state */
    int lz4_frame, lz4_legacy;
    unsigned lz4_flg;
    size_t lz4_bmax;
    uint64_t lz4_content_size, lz4_out;
    oc_xxh32_state lz4_content;
    /* serial fallback in progress */
    oc_serial_kind serial_kind;
    oc_serial *serial[4];
    uint64_t serial_in, serial_out;
    /* what our indexes are checked against */
    entry *seen;
    size_t n_seen, seen_cap;
    /* the current group */
    unit *units;
    size_t n_units, units_cap;
    uint64_t group_dcap; /* sum of the units' dcap */
    uint64_t group_budget;
    uint8_t *out;
    size_t out_cap, out_len, out_pos;
    oc_stream_dev dev; /* a CUDA-engine context: the group on the device */
    oc_algorithm group_alg;
    uint64_t total_out, trailing;
    int trailing_nonzero;
    uint64_t chunks, failed, window;
    int no_chunk; /* the error concerns no chunk (a damaged seek table): failed_chunk unknown */
    uint64_t serial_chunks;
    /* the seek table read first (oc_stream_reader_set_seekable) */
    oc_pread_fn pread;
    uint64_t src_size;
    int index_tried;
    uint8_t *table;               /* its entries, table_es bytes each */
    uint64_t table_n, table_next; /* entries; the entry of the next frame */
    unsigned table_es;
    int serial_indexed; /* the serial frame has an entry: its sizes below */
    uint64_t serial_csize, serial_usize;
    uint32_t serial_entry_sum; /* and its checksum, when the table has them */
    int serial_hashed;         /* ... and verification is on: the output's XXH64 below */
    oc_xxh64_state serial_hash;
};

/* ---- input ------------------------------------------------------------------ */

/* Makes r->in[pos..pos+n) available (pos is an index into r->in).
 * TRUNCATED when the input ends first; the window is compacted only when
 * the group holds no unit (units keep their offsets). */
static oc_status need(oc_stream_reader *r, size_t pos, size_t n)
{
    while (r->end - pos < n) {
        if (r->eof)
            return OC_ERR_TRUNCATED;
        if (r->end == r->cap) {
            if (r->n_units == 0 && r->beg > 0 && pos >= r->beg) {
                memmove(r->in, r->in + r->beg, r->end - r->beg);
                r->end -= r->beg;
                pos -= r->beg;
                r->beg = 0;
            }
            if (r->end == r->cap || r->cap - r->end < READ_STEP / 4) {
                size_t want = pos + n > r->cap * 2 ? pos + n : r->cap * 2;
                if (want < r->end + READ_STEP)
                    want = r->end + READ_STEP;
                uint8_t *p = (uint8_t *)realloc(r->in, want);
                RETURN_ERROR_IF(!p, OC_ERR_OUT_OF_MEMORY);
                r->in = p;
                r->cap = want;
            }
        }
        /* Read what is missing, or a step ahead: never much past the group. */
        size_t got = 0, room = r->cap - r->end, missing = n - (r->end - pos);
        if (room > READ_STEP && room > missing)
            room = missing > READ_STEP ? missing : READ_STEP;
        FORWARD_IF_ERROR(r->read(r->opaque, r->in + r->end, room, &got));
        RETURN_ERROR_IF(got > room, OC_ERR_INVALID_ARGUMENT);
        if (got == 0)
            r->eof = 1;
        r->end += got;
        r->in_total += got;
    }
    return OC_OK;
}

/* Are there bytes at pos, or does the input end there?  (0: end) */
static oc_status more(oc_stream_reader *r, size_t pos, int *any)
{
    oc_status st = need(r, pos, 1);
    *any = st == OC_OK;
    return st == OC_ERR_TRUNCATED ? OC_OK : st;
}

/* Consumes len bytes from r->beg (any length: read and dropped in pieces). */
static oc_status skip(oc_stream_reader *r, uint64_t len)
{
    while (len) {
        FORWARD_IF_ERROR(need(r, r->beg, 1));
        size_t have = r->end - r->beg;
        size_t take = (uint64_t)have < len ? have : (size_t)len;
        r->beg += take;
        len -= take;
        if (r->n_units == 0 && r->beg == r->end)
            r->beg = r->end = 0;
    }
    return OC_OK;
}

/* ---- the group ---------------------------------------------------------------- */

static oc_status add_unit(oc_stream_reader *r, const unit *u)
{
    if (r->n_units == r->units_cap) {
        size_t cap = r->units_cap ? r->units_cap * 2 : 256;
        unit *p = (unit *)realloc(r->units, cap * sizeof *p);
        RETURN_ERROR_IF(!p, OC_ERR_OUT_OF_MEMORY);
        r->units = p;
        r->units_cap = cap;
    }
    r->units[r->n_units++] = *u;
    r->group_dcap += u->dcap;
    return OC_OK;
}

static oc_status add_seen(oc_stream_reader *r, uint32_t csize, uint32_t usize, uint32_t sum, int summed)
{
    if (r->n_seen == r->seen_cap) {
        size_t cap = r->seen_cap ? r->seen_cap * 2 : 1024;
        entry *p = (entry *)realloc(r->seen, cap * sizeof *p);
        RETURN_ERROR_IF(!p, OC_ERR_OUT_OF_MEMORY);
        r->seen = p;
        r->seen_cap = cap;
    }
    entry e = {csize, usize, sum, (uint8_t)summed};
    r->seen[r->n_seen++] = e;
    return OC_OK;
}

static uint64_t group_bytes(const oc_stream_reader *r)
{
    return r->group_dcap;
}

static void check_unit(void *arg, size_t i)
{
    oc_stream_reader *r = (oc_stream_reader *)arg;
    unit *u = &r->units[i];
    const uint8_t *d = r->out + u->dst;
    if (u->stored && u->st == OC_OK) {
        memcpy(r->out + u->dst, r->in + u->off, u->csize);
        u->got = u->csize;
    }
    if (u->st == OC_ERR_OUTPUT_TOO_SMALL)
        u->st = u->exact ? OC_ERR_SIZE_MISMATCH : OC_ERR_CORRUPT; /* more than a block can hold */
    if (u->st == OC_OK && u->exact && u->got != u->dcap)
        u->st = OC_ERR_SIZE_MISMATCH;
    if (u->st == OC_OK && r->family == FAM_GZIP && u->got != u->isize)
        u->st = OC_ERR_CORRUPT;
    if (u->check == OC_CHECK_XXH32_STORED) { /* the stored bytes: the most exact diagnosis */
        if (oc_xxh32(r->in + u->off, u->csize, 0) != u->sum)
            u->st = OC_ERR_CHECKSUM_MISMATCH;
    } else if (u->st == OC_OK && u->check != OC_CHECK_NONE &&
               oc_chunk_sum(u->check, d, u->got, NULL, 0) != u->sum) {
        u->st = OC_ERR_CHECKSUM_MISMATCH;
    }
    if (u->st == OC_OK && u->zstd_frame == 1 && r->verify && u->check == OC_CHECK_NONE)
        u->sum = (uint32_t)oc_xxh64(d, u->got, 0); /* (with a check, the sum matched) */
}

/* The k units to decode (sp/ss/dp/dc, host addresses into r->in and
 * r->out) decoded on the GPU: the input bytes they span go over in one
 * copy, the group's output (total bytes) comes back in one. */
static oc_status decode_on_device(oc_stream_reader *r, oc_codec_options *co, size_t k, const void **sp,
                                  const size_t *ss, void **dp, const size_t *dc, size_t *ds, oc_status *cst,
                                  uint64_t total)
{
    size_t lo = SIZE_MAX, hi = 0;
    for (size_t j = 0; j < k; j++) {
        size_t a = (size_t)((const uint8_t *)sp[j] - r->in);
        lo = a < lo ? a : lo;
        hi = a + ss[j] > hi ? a + ss[j] : hi;
    }
    oc_stream_dev *d = &r->dev;
    FORWARD_IF_ERROR(oc_stream_dev_reserve(d, hi - lo, (size_t)total));
    FORWARD_IF_ERROR(oc_stream_dev_copy(d, d->in, r->in + lo, hi - lo));
    for (size_t j = 0; j < k; j++) {
        sp[j] = (const uint8_t *)d->in + ((const uint8_t *)sp[j] - r->in - lo);
        dp[j] = dc[j] ? (void *)((uint8_t *)d->out + ((uint8_t *)dp[j] - r->out)) : d->out;
    }
    FORWARD_IF_ERROR(oc_batch_decompress(r->ctx, co, k, sp, ss, dp, dc, ds, cst));
    FORWARD_IF_ERROR(oc_context_synchronize(r->ctx));
    return oc_stream_dev_copy(d, r->out, d->out, (size_t)total);
}

/* Decodes the group's units into r->out, packed; empties the group. */
static oc_status decode_group(oc_stream_reader *r)
{
    size_t n = r->n_units;
    uint64_t total = group_bytes(r);
    RETURN_ERROR_IF(total > SIZE_MAX / 2, OC_ERR_CHUNK_TOO_LARGE);
    if (r->out_cap < total || !r->out) {
        uint8_t *p = (uint8_t *)realloc(r->out, total ? (size_t)total : 1);
        RETURN_ERROR_IF(!p, OC_ERR_OUT_OF_MEMORY);
        r->out = p;
        r->out_cap = total ? (size_t)total : 1;
    }
    const void **sp = (const void **)calloc(n, sizeof *sp);
    size_t *ss = (size_t *)calloc(n, sizeof *ss), *dc = (size_t *)calloc(n, sizeof *dc);
    size_t *ds = (size_t *)calloc(n, sizeof *ds), *map = (size_t *)calloc(n, sizeof *map);
    void **dp = (void **)calloc(n, sizeof *dp);
    oc_status *cst = (oc_status *)calloc(n, sizeof *cst);
    oc_status st = OC_OK;
    static uint8_t empty_out[1];
    if (!sp || !ss || !dc || !ds || !map || !dp || !cst) {
        st = OC_ERR_OUT_OF_MEMORY;
        goto done;
    }
    size_t k = 0, off = 0;
    for (size_t i = 0; i < n; i++) {
        unit *u = &r->units[i];
        u->dst = off;
        u->got = 0;
        u->st = OC_OK;
        off += u->dcap;
        if (u->stored)
            continue;
        sp[k] = r->in + u->off;
        ss[k] = u->csize;
        dp[k] = u->dcap ? (void *)(r->out + u->dst) : (void *)empty_out;
        dc[k] = u->dcap;
        map[k++] = i;
    }
    if (k) {
        oc_codec_options co = OC_CODEC_OPTIONS_INIT;
        co.algorithm = r->group_alg;
        co.memory_limit = r->memory_limit;
        st = r->dev.ctx ? decode_on_device(r, &co, k, sp, ss, dp, dc, ds, cst, total)
                        : oc_batch_decompress(r->ctx, &co, k, sp, ss, dp, dc, ds, cst);
        if (st != OC_OK)
            goto done;
        for (size_t j = 0; j < k; j++) {
            r->units[map[j]].st = cst[j];
            r->units[map[j]].got = ds[j];
        }
    }
    oc_parallel_for(oc_context_num_threads(r->ctx), n, total, check_unit, r);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        unit *u = &r->units[i];
        if (u->st != OC_OK) {
            st = u->st;
            r->failed = r->chunks + i;
            goto done;
        }
        if (u->dst != len && u->got)
            memmove(r->out + len, r->out + u->dst, u->got);
        len += u->got;
        if (u->zstd_frame) {
            st = add_seen(r, (uint32_t)u->csize, (uint32_t)u->got, u->sum, r->verify && u->zstd_frame == 1);
        } else if (r->family == FAM_SNAPPY || (r->lz4_frame && !r->lz4_legacy)) {
            st = add_seen(r, u->word, (uint32_t)u->got, 0, 0);
        }
        if (st != OC_OK)
            goto done;
    }
    if (r->lz4_frame && !r->lz4_legacy) {
        if (r->lz4_flg & 0x04u)
            oc_xxh32_update(&r->lz4_content, r->out, len);
        r->lz4_out += len;
    }
    r->out_len = len;
    r->out_pos = 0;
    r->chunks += n;
done:
    r->n_units = 0;
    r->group_dcap = 0;
    free(sp);
    free(ss);
    free(dc);
    free(ds);
    free(map);
    free(dp);
    free(cst);
    return st;
}

/* ---- serial fallbacks --------------------------------------------------------- */

static oc_status serial_begin(oc_stream_reader *r, oc_serial_kind kind)
{
    if (!r->serial[kind])
        FORWARD_IF_ERROR(oc_serial_create(kind, r->verify, r->memory_limit, &r->serial[kind]));
    else
        FORWARD_IF_ERROR(oc_serial_reset(r->serial[kind]));
    r->serial_kind = kind;
    r->serial_in = r->serial_out = 0;
    oc_xxh64_init(&r->serial_hash, 0);
    return OC_OK;
}

/* The serial frame/member ended: counted, recorded for the seek-table
 * check, and held against its entry of a seek table read first. */
static oc_status serial_done(oc_stream_reader *r)
{
    int summed = r->serial_hashed;
    uint32_t sum = summed ? (uint32_t)oc_xxh64_digest(&r->serial_hash) : 0;
    if (r->serial_indexed) {
        SAFETY_CHECK(r->serial_in == r->serial_csize, OC_ERR_CORRUPT);
        SAFETY_CHECK(r->serial_out == r->serial_usize, OC_ERR_SIZE_MISMATCH);
        SAFETY_CHECK(!summed || sum == r->serial_entry_sum, OC_ERR_CHECKSUM_MISMATCH);
        r->serial_indexed = 0;
    }
    r->serial_hashed = 0;
    if (r->serial_kind == OC_SERIAL_ZSTD)
        FORWARD_IF_ERROR(add_seen(r, (uint32_t)r->serial_in, (uint32_t)r->serial_out, sum, summed));
    r->serial_kind = 0;
    r->chunks++;
    r->serial_chunks++;
    return OC_OK;
}

/* Decodes the serial frame/member into r->out until it is full or the
 * frame ends. */
static oc_status serial_step(oc_stream_reader *r)
{
    if (r->out_cap < r->group_budget) {
        uint8_t *p = (uint8_t *)realloc(r->out, (size_t)r->group_budget);
        RETURN_ERROR_IF(!p, OC_ERR_OUT_OF_MEMORY);
        r->out = p;
        r->out_cap = (size_t)r->group_budget;
    }
    size_t len = 0;
    oc_serial *s = r->serial[r->serial_kind];
    while (len < r->out_cap) {
        if (r->beg == r->end) {
            r->beg = r->end = 0;
            oc_status st = need(r, 0, 1);
            if (st == OC_ERR_TRUNCATED)
                break; /* the decoder may still flush; the input ended inside the frame otherwise */
            FORWARD_IF_ERROR(st);
        }
        size_t in_n = r->end - r->beg, out_n = r->out_cap - len;
        int done = 0;
        FORWARD_IF_ERROR(oc_serial_step(s, r->in + r->beg, &in_n, r->out + len, &out_n, &done));
        if (r->serial_hashed)
            oc_xxh64_update(&r->serial_hash, r->out + len, out_n);
        r->beg += in_n;
        len += out_n;
        r->serial_in += in_n;
        r->serial_out += out_n;
        if (done) {
            FORWARD_IF_ERROR(serial_done(r));
            break;
        }
        if (in_n == 0 && out_n == 0 && r->beg < r->end)
            return OC_ERR_INTERNAL; /* no progress with input and room: cannot happen */
    }
    if (r->serial_kind && r->eof && r->beg == r->end && len == 0) {
        /* Input ended inside the frame: let the decoder flush what it holds. */
        size_t in_n = 0, out_n = r->out_cap;
        int done = 0;
        FORWARD_IF_ERROR(oc_serial_step(s, r->in + r->beg, &in_n, r->out, &out_n, &done));
        if (r->serial_hashed)
            oc_xxh64_update(&r->serial_hash, r->out, out_n);
        len = out_n;
        if (done)
            FORWARD_IF_ERROR(serial_done(r));
        else if (out_n == 0)
            return OC_ERR_TRUNCATED;
    }
    r->out_len = len;
    r->out_pos = 0;
    return OC_OK;
}

/* ---- the containers' headers -------------------------------------------------- */

/* Our index (LZ4 and snappy; entries of 8 bytes, "OCIX" footer) at p[0..n)
 * against the chunks seen; CORRUPT when it differs. */
static oc_status check_our_index(oc_stream_reader *r, const uint8_t *e, uint64_t n)
{
    if (n < OC_LAYOUT_INDEX_FOOTER || oc_load_le32(e + n - 4) != OC_INDEX_FOOTER_MAGIC)
        return OC_OK; /* not ours: skipped */
    uint64_t count = oc_load_le32(e + n - 9);
    SAFETY_CHECK(count * 8 + OC_LAYOUT_INDEX_FOOTER == n && count == r->n_seen, OC_ERR_CORRUPT);
    for (uint64_t i = 0; i < count; i++) {
        r->failed = r->chunks - r->n_seen + i;
        SAFETY_CHECK(oc_load_le32(e + 8 * i) == r->seen[i].csize &&
                         oc_load_le32(e + 8 * i + 4) == r->seen[i].usize,
                     OC_ERR_CORRUPT);
    }
    r->failed = OC_SIZE_UNKNOWN;
    r->n_seen = 0;
    return OC_OK;
}

/* The zstd seek table (skippable frame payload e[0..n)) against the frames seen. */
static oc_status check_seek_table(oc_stream_reader *r, const uint8_t *e, uint64_t n)
{
    if (n < OC_LAYOUT_INDEX_FOOTER || oc_load_le32(e + n - 4) != OC_ZSTD_SEEKABLE_FOOTER_MAGIC)
        return OC_OK;
    uint64_t count = oc_load_le32(e + n - 9);
    unsigned desc = e[n - 5];
    SAFETY_CHECK(!(desc & 0x7C), OC_ERR_CORRUPT);
    uint64_t es = (desc & 0x80) ? 12 : 8;
    SAFETY_CHECK(count * es + OC_LAYOUT_INDEX_FOOTER == n && count == r->n_seen, OC_ERR_CORRUPT);
    oc_status st = OC_OK;
    for (uint64_t i = 0; i < count; i++) {
        const uint8_t *p = e + es * i;
        r->failed = r->chunks - r->n_seen + i;
        SAFETY_CHECK(oc_load_le32(p) == r->seen[i].csize && oc_load_le32(p + 4) == r->seen[i].usize,
                     OC_ERR_CORRUPT);
        if (es == 12 && r->seen[i].summed && oc_load_le32(p + 8) != r->seen[i].sum) {
            st = OC_ERR_CHECKSUM_MISMATCH;
            break;
        }
    }
    if (st == OC_OK)
        r->failed = OC_SIZE_UNKNOWN;
    r->n_seen = 0;
    return st;
}

/* A skippable frame at r->beg: our index or the seek table is checked,
 * anything else skipped. */
static oc_status skippable(oc_stream_reader *r)
{
    FORWARD_IF_ERROR(need(r, r->beg, 8));
    uint32_t magic = oc_load_le32(r->in + r->beg);
    uint64_t len = oc_load_le32(r->in + r->beg + 4);
    if ((magic == OC_LZ4_INDEX_SKIP_MAGIC || magic == OC_ZSTD_SEEKABLE_SKIP_MAGIC) && len <= INDEX_MAX) {
        FORWARD_IF_ERROR(need(r, r->beg, 8 + (size_t)len));
        const uint8_t *e = r->in + r->beg + 8;
        FORWARD_IF_ERROR(magic == OC_LZ4_INDEX_SKIP_MAGIC ? check_our_index(r, e, len)
                                                          : check_seek_table(r, e, len));
        r->beg += 8 + (size_t)len;
        return OC_OK;
    }
    r->beg += 8;
    return skip(r, len);
}

/* zstd frame header at p[0..n): content size if stated.  TRUNCATED if n is short. */
static oc_status zstd_header(const uint8_t *p, size_t n, int *has_size, uint64_t *size, uint64_t *window)
{
    SAFETY_CHECK(n >= 5, OC_ERR_TRUNCATED);
    unsigned fhd = p[4], fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, did = fhd & 3;
    SAFETY_CHECK(!(fhd & 0x08), OC_ERR_CORRUPT);
    unsigned did_size = did == 0 ? 0 : did == 1 ? 1 : did == 2 ? 2 : 4;
    unsigned fcs_size = fcs_flag == 0 ? single : (1u << fcs_flag);
    size_t pos = 5 + (single ? 0 : 1) + did_size;
    SAFETY_CHECK(n >= pos + fcs_size, OC_ERR_TRUNCATED);
    uint64_t v = 0;
    for (unsigned i = 0; i < fcs_size; i++)
        v |= (uint64_t)p[pos + i] << (8 * i);
    if (fcs_size == 2)
        v += 256;
    *has_size = fcs_size != 0;
    *size = v;
    if (single) {
        *window = v;
    } else {
        uint64_t base = (uint64_t)1 << (10 + (p[5] >> 3));
        *window = base + (base >> 3) * (p[5] & 7);
    }
    uint32_t dict = 0;
    for (unsigned i = 0; i < did_size; i++)
        dict |= (uint32_t)p[5 + !single + i] << (8 * i);
    RETURN_ERROR_IF(dict != 0, OC_ERR_NEEDS_DICTIONARY);
    return OC_OK;
}

/* Header bytes needed: grows until the parser has what it needs. */
static oc_status need_zstd_header(oc_stream_reader *r, int *has_size, uint64_t *size)
{
    size_t n = 6;
    for (;;) {
        oc_status st = need(r, r->beg, n);
        size_t have = r->end - r->beg;
        if (st != OC_OK && (st != OC_ERR_TRUNCATED || have == 0))
            return st;
        st = zstd_header(r->in + r->beg, have, has_size, size, &r->window);
        if (st != OC_ERR_TRUNCATED || have < n || n >= 18)
            return st;
        n += 4;
    }
}

/* ---- the seek table read first ------------------------------------------------- */

/* src[offset..offset+n) of the seekable source, all of it (TRUNCATED: the
 * source is shorter than it said). */
static oc_status pread_all(oc_stream_reader *r, uint64_t offset, uint8_t *buf, size_t n)
{
    size_t got = 0;
    FORWARD_IF_ERROR(r->pread(r->opaque, offset, buf, n, &got));
    RETURN_ERROR_IF(got > n, OC_ERR_INVALID_ARGUMENT);
    return got == n ? OC_OK : OC_ERR_TRUNCATED;
}

/* Reads the seek table at the end of a seekable source, if it ends with
 * one, and checks its structure as oc_buffer_decompress does (zstd_seekable.c):
 * the descriptor's reserved bits, the skippable frame's magic and length,
 * entries that tile the bytes before the table exactly, and decoded sizes
 * a frame of that compressed size can reach.  CORRUPT if not: the file
 * says it is seekable and its table is damaged (the reference library
 * refuses such a file too).  No footer magic, or a table over INDEX_MAX:
 * no table, the stream is read as without one. */
static oc_status read_index(oc_stream_reader *r)
{
    uint8_t foot[OC_LAYOUT_INDEX_FOOTER], *t = NULL;
    uint64_t n = r->src_size;
    oc_status st = OC_OK;
    r->index_tried = 1;
    if (n < 8 + OC_LAYOUT_INDEX_FOOTER)
        return OC_OK;
    FORWARD_IF_ERROR(pread_all(r, n - OC_LAYOUT_INDEX_FOOTER, foot, OC_LAYOUT_INDEX_FOOTER));
    if (oc_load_le32(foot + 5) != OC_ZSTD_SEEKABLE_FOOTER_MAGIC)
        return OC_OK;
    uint64_t count = oc_load_le32(foot), es = (foot[4] & 0x80) ? 12 : 8;
    uint64_t frame = count * es + OC_LAYOUT_INDEX_FOOTER;
    if (frame + 8 > INDEX_MAX)
        return OC_OK; /* skipped unchecked at the end, as any index that large */
    r->no_chunk = 1;  /* the errors below concern the table, not a frame */
    r->table_n = count;
    SAFETY_CHECK(!(foot[4] & 0x7C), OC_ERR_CORRUPT); /* reserved bits */
    SAFETY_CHECK(frame + 8 <= n, OC_ERR_CORRUPT);
    t = (uint8_t *)malloc((size_t)frame + 8);
    RETURN_ERROR_IF(!t, OC_ERR_OUT_OF_MEMORY);
    st = pread_all(r, n - frame - 8, t, (size_t)frame + 8);
    if (st != OC_OK)
        goto done;
    if (oc_load_le32(t) != OC_ZSTD_SEEKABLE_SKIP_MAGIC || oc_load_le32(t + 4) != frame) {
        st = OC_ERR_CORRUPT;
        goto done;
    }
    uint64_t at = 0, data = n - frame - 8;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t csize = oc_load_le32(t + 8 + es * i), usize = oc_load_le32(t + 8 + es * i + 4);
        /* an entry that cannot be a frame names that frame */
        if (csize > data - at || usize > oc_algo_max_decoded(OC_ALGO_ZSTD, csize)) {
            r->no_chunk = 0;
            r->failed = i;
            st = OC_ERR_CORRUPT;
            goto done;
        }
        at += csize;
    }
    if (at != data) {
        st = OC_ERR_CORRUPT; /* the frames do not end where the table begins */
        goto done;
    }
    memmove(t, t + 8, (size_t)(count * es));
    r->table = t;
    r->table_es = (unsigned)es;
    r->no_chunk = 0;
    t = NULL;
done:
    free(t);
    return st;
}

/* The frame at r->beg, whose entry in the seek table read first is the
 * next: a unit of exactly the entry's sizes, or serial above
 * OC_STREAM_MAX_UNIT.  Named by its index when it differs from its entry. */
static oc_status indexed_frame(oc_stream_reader *r, int *stop)
{
    const uint8_t *e = r->table + (size_t)(r->table_es * r->table_next);
    uint64_t csize = oc_load_le32(e), usize = oc_load_le32(e + 4);
    int has_size = 0;
    uint64_t content = 0;
    FORWARD_IF_ERROR(need_zstd_header(r, &has_size, &content));
    SAFETY_CHECK(!has_size || content == usize, OC_ERR_CORRUPT);
    if (usize > OC_STREAM_MAX_UNIT || csize > OC_STREAM_MAX_UNIT * 2) {
        if (r->n_units) {
            *stop = 1;
            return OC_OK;
        }
        FORWARD_IF_ERROR(serial_begin(r, OC_SERIAL_ZSTD));
        r->serial_indexed = 1;
        r->serial_csize = csize;
        r->serial_usize = usize;
        r->serial_entry_sum = r->table_es == 12 ? oc_load_le32(e + 8) : 0;
        r->serial_hashed = r->table_es == 12 && r->verify;
        r->table_next++;
        return OC_OK;
    }
    if (r->n_units && group_bytes(r) + usize > r->group_budget) {
        *stop = 1;
        return OC_OK;
    }
    FORWARD_IF_ERROR(need(r, r->beg, (size_t)csize));
    oc_zstd_frame f;
    SAFETY_CHECK(oc_zstd_walk_frame(r->in + r->beg, csize, &f) == OC_OK && f.size == csize && !f.skippable,
                 OC_ERR_CORRUPT); /* the frame ends where its entry says */
    int sums = r->table_es == 12 && r->verify;
    unit u = {r->beg,
              (size_t)csize,
              (size_t)usize,
              1,
              0,
              sums ? OC_CHECK_XXH64_LOW : OC_CHECK_NONE,
              sums ? oc_load_le32(e + 8) : 0,
              0,
              0,
              sums ? 1 : 2,
              0,
              0,
              OC_OK};
    r->group_alg = OC_ALGO_ZSTD;
    FORWARD_IF_ERROR(add_unit(r, &u));
    r->beg += (size_t)csize;
    r->table_next++;
    return OC_OK;
}

/* The next item of an LZ4/zstd stream.  Returns OK with *stop set when the
 * group must be decoded before this item; *end at the end of the input. */
static oc_status frames_item(oc_stream_reader *r, int *stop, int *end)
{
    int any = 0;
    if (r->lz4_legacy) {
        FORWARD_IF_ERROR(more(r, r->beg, &any));
        if (!any) {
            *end = 1;
            return OC_OK;
        }
        FORWARD_IF_ERROR(need(r, r->beg, 4));
        uint32_t w = oc_load_le32(r->in + r->beg);
        if (w == OC_LZ4_FRAME_MAGIC || w == OC_LZ4_LEGACY_MAGIC || w == OC_ZSTD_FRAME_MAGIC ||
            (w & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN) {
            r->lz4_legacy = 0;
            return OC_OK;
        }
        SAFETY_CHECK(w > 0 && w <= LZ4_LEGACY_CBOUND, OC_ERR_CORRUPT);
        if (r->n_units && r->group_alg != OC_ALGO_LZ4) {
            *stop = 1;
            return OC_OK;
        }
        FORWARD_IF_ERROR(need(r, r->beg, 4 + (size_t)w));
        unit u = {r->beg + 4, w, OC_LZ4_LEGACY_BLOCK, 0, 0, OC_CHECK_NONE, 0, 0, 0, 0, 0, 0, OC_OK};
        r->group_alg = OC_ALGO_LZ4;
        FORWARD_IF_ERROR(add_unit(r, &u));
        r->beg += 4 + (size_t)w;
        return OC_OK;
    }
    if (r->lz4_frame) {
        FORWARD_IF_ERROR(need(r, r->beg, 4));
        uint32_t w = oc_load_le32(r->in + r->beg);
        if (w == 0) { /* end mark */
            if (r->n_units) {
                *stop = 1;
                return OC_OK;
            }
            size_t cks = (r->lz4_flg & 0x04u) ? 4 : 0;
            FORWARD_IF_ERROR(need(r, r->beg, 4 + cks));
            if (cks && r->verify)
                SAFETY_CHECK(oc_load_le32(r->in + r->beg + 4) == oc_xxh32_digest(&r->lz4_content),
                             OC_ERR_CHECKSUM_MISMATCH);
            if (r->lz4_flg & 0x08u)
                SAFETY_CHECK(r->lz4_out == r->lz4_content_size, OC_ERR_SIZE_MISMATCH);
            r->beg += 4 + cks;
            r->lz4_frame = 0;
            return OC_OK;
        }
        size_t csize = w & 0x7FFFFFFFu, cks = (r->lz4_flg & 0x10u) ? 4 : 0;
        SAFETY_CHECK(csize <= r->lz4_bmax, OC_ERR_CORRUPT);
        FORWARD_IF_ERROR(need(r, r->beg, 4 + csize + cks));
        int stored = (w & 0x80000000u) != 0;
        unit u = {
            r->beg + 4, csize, stored ? csize : r->lz4_bmax, stored, stored, OC_CHECK_NONE, 0, w, 0, 0, 0,
            0,          OC_OK};
        if (cks && r->verify) {
            u.check = OC_CHECK_XXH32_STORED;
            u.sum = oc_load_le32(r->in + r->beg + 4 + csize);
        }
        r->group_alg = OC_ALGO_LZ4;
        FORWARD_IF_ERROR(add_unit(r, &u));
        r->beg += 4 + csize + cks;
        return OC_OK;
    }
    /* between frames */
    FORWARD_IF_ERROR(more(r, r->beg, &any));
    if (!any) {
        *end = 1;
        return OC_OK;
    }
    oc_status st = need(r, r->beg, 4);
    if (st != OC_OK)
        return st;
    uint32_t magic = oc_load_le32(r->in + r->beg);
    int lz4 = magic == OC_LZ4_FRAME_MAGIC || magic == OC_LZ4_LEGACY_MAGIC;
    int zstd = magic == OC_ZSTD_FRAME_MAGIC;
    if (r->n_units && (!zstd || r->group_alg != OC_ALGO_ZSTD)) {
        *stop = 1; /* frame boundaries of LZ4 and anything but another zstd frame end the group */
        return OC_OK;
    }
    if (r->hint != OC_ALGO_NONE)
        SAFETY_CHECK(!(lz4 && r->hint != OC_ALGO_LZ4) && !(zstd && r->hint != OC_ALGO_ZSTD), OC_ERR_CORRUPT);
    if (r->table && r->table_next < r->table_n) {
        SAFETY_CHECK(zstd, OC_ERR_CORRUPT); /* the seek table says a zstd frame starts here */
        return indexed_frame(r, stop);
    }
    if ((magic & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN)
        return skippable(r);
    if (magic == OC_LZ4_LEGACY_MAGIC) {
        r->beg += 4;
        r->lz4_legacy = 1;
        return OC_OK;
    }
    if (magic == OC_LZ4_FRAME_MAGIC) {
        FORWARD_IF_ERROR(need(r, r->beg, 7));
        const uint8_t *h = r->in + r->beg;
        unsigned flg = h[4], bd = h[5];
        SAFETY_CHECK((flg & 0xC0) == 0x40 && !(flg & 0x02) && !(bd & 0x8F) && (bd >> 4) >= 4, OC_ERR_CORRUPT);
        size_t hs = 6 + ((flg & 0x08u) ? 8 : 0) + ((flg & 0x01u) ? 4 : 0);
        FORWARD_IF_ERROR(need(r, r->beg, hs + 1));
        h = r->in + r->beg;
        SAFETY_CHECK(h[hs] == (uint8_t)(oc_xxh32(h + 4, hs - 4, 0) >> 8), OC_ERR_CORRUPT);
        RETURN_ERROR_IF(flg & 0x01u, OC_ERR_NEEDS_DICTIONARY);
        if (!(flg & 0x20u)) /* linked blocks: serially, from the frame header */
            return serial_begin(r, OC_SERIAL_LZ4F);
        r->lz4_frame = 1;
        r->lz4_flg = flg;
        r->lz4_bmax = (size_t)1 << (8 + 2 * (bd >> 4));
        r->lz4_content_size = (flg & 0x08u) ? oc_load_le64(h + 6) : 0;
        r->lz4_out = 0;
        r->n_seen = 0;
        oc_xxh32_init(&r->lz4_content, 0);
        r->beg += hs + 1;
        return OC_OK;
    }
    SAFETY_CHECK(zstd, OC_ERR_CORRUPT);
    int has_size = 0;
    uint64_t content = 0;
    FORWARD_IF_ERROR(need_zstd_header(r, &has_size, &content));
    if (!has_size || content > OC_STREAM_MAX_UNIT)
        return r->n_units ? (*stop = 1, OC_OK) : serial_begin(r, OC_SERIAL_ZSTD);
    if (r->n_units && group_bytes(r) + content > r->group_budget) {
        *stop = 1;
        return OC_OK;
    }
    /* The whole frame into the window: a frame much larger than its
     * content (padding blocks) goes serially instead. */
    uint64_t limit = content + content / 64 + 65536;
    size_t n = 4096;
    oc_zstd_frame f;
    for (;;) {
        st = need(r, r->beg, n);
        size_t have = r->end - r->beg;
        if (st != OC_OK && st != OC_ERR_TRUNCATED)
            return st;
        int w = oc_zstd_walk_frame(r->in + r->beg, have, &f);
        if (w == OC_OK)
            break;
        if (w != OC_ERR_TRUNCATED)
            return (oc_status)w;
        if (st == OC_ERR_TRUNCATED)
            return OC_ERR_TRUNCATED;
        if (have > limit)
            return r->n_units ? (*stop = 1, OC_OK) : serial_begin(r, OC_SERIAL_ZSTD);
        n = have + (have < 65536 ? 65536 : have / 2);
    }
    SAFETY_CHECK(f.size <= 0xffffffffu, OC_ERR_CHUNK_TOO_LARGE);
    unit u = {r->beg, (size_t)f.size, (size_t)content, 1, 0, OC_CHECK_NONE, 0, 0, 0, 1, 0, 0, OC_OK};
    r->group_alg = OC_ALGO_ZSTD;
    FORWARD_IF_ERROR(add_unit(r, &u));
    r->beg += (size_t)f.size;
    return OC_OK;
}

/* 1 if the bytes at p (n of them, after a member) are trailing bytes gzip
 * -d ignores; 0 if they begin a member or a damaged one (as gzip_members.c). */
static int gzip_trailing(const uint8_t *p, size_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return 0;
    if (n >= 3 && (p[0] == 0x1f || p[1] == 0x8b) && p[2] == 8)
        return 0;
    return 1;
}

static oc_status gzip_item(oc_stream_reader *r, int *stop, int *end)
{
    int any = 0;
    FORWARD_IF_ERROR(more(r, r->beg, &any));
    if (!any) {
        *end = 1;
        return OC_OK;
    }
    oc_status st = need(r, r->beg, 3);
    size_t have = r->end - r->beg;
    if (st != OC_OK && st != OC_ERR_TRUNCATED)
        return st;
    if (r->started && gzip_trailing(r->in + r->beg, have)) {
        if (r->n_units) {
            *stop = 1;
            return OC_OK;
        }
        /* trailing bytes: read and counted, as gzip -d ignores them */
        for (;;) {
            for (size_t i = r->beg; i < r->end && !r->trailing_nonzero; i++)
                r->trailing_nonzero = r->in[i] != 0;
            r->trailing += r->end - r->beg;
            r->beg = r->end = 0;
            FORWARD_IF_ERROR(more(r, 0, &any));
            if (!any)
                break;
        }
        *end = 1;
        return OC_OK;
    }
    uint64_t header = 0, member = 0, usize = 0;
    int has_oc = 0;
    size_t n = 18;
    for (;;) {
        st = need(r, r->beg, n);
        have = r->end - r->beg;
        if (st != OC_OK && st != OC_ERR_TRUNCATED)
            return st;
        oc_status h = oc_gzip_member_header(r->in + r->beg, have, &header, &has_oc, &member, &usize);
        if (h == OC_OK)
            break;
        if (h != OC_ERR_TRUNCATED || st == OC_ERR_TRUNCATED)
            return h;
        SAFETY_CHECK(have < ((size_t)1 << 20), OC_ERR_CORRUPT); /* a name or comment of 1 MiB */
        n = have * 2;
    }
    if (!has_oc || usize > OC_STREAM_MAX_UNIT || member > OC_STREAM_MAX_UNIT * 2) {
        if (r->n_units) {
            *stop = 1;
            return OC_OK;
        }
        r->started = 1;
        return serial_begin(r, OC_SERIAL_GZIP);
    }
    SAFETY_CHECK(member >= header + OC_GZIP_TRAILER_SIZE, OC_ERR_CORRUPT);
    if (r->n_units && group_bytes(r) + usize > r->group_budget) {
        *stop = 1;
        return OC_OK;
    }
    FORWARD_IF_ERROR(need(r, r->beg, (size_t)member));
    const uint8_t *m = r->in + r->beg;
    unit u = {r->beg + (size_t)header,
              (size_t)(member - header - OC_GZIP_TRAILER_SIZE),
              (size_t)usize,
              1,
              0,
              r->verify ? OC_CHECK_CRC32 : OC_CHECK_NONE,
              oc_load_le32(m + member - 8),
              0,
              oc_load_le32(m + member - 4),
              0,
              0,
              0,
              OC_OK};
    r->group_alg = OC_ALGO_DEFLATE;
    FORWARD_IF_ERROR(add_unit(r, &u));
    r->beg += (size_t)member;
    r->started = 1;
    return OC_OK;
}

static oc_status snappy_varint(const uint8_t *p, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < 5 && i < n; i++) {
        x |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = x;
            return OC_OK;
        }
    }
    return OC_ERR_CORRUPT;
}

static oc_status snappy_item(oc_stream_reader *r, int *stop, int *end)
{
    static const uint8_t id[10] = {0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'};
    int any = 0;
    FORWARD_IF_ERROR(more(r, r->beg, &any));
    if (!any) {
        *end = 1;
        return OC_OK;
    }
    FORWARD_IF_ERROR(need(r, r->beg, 4));
    uint32_t w = oc_load_le32(r->in + r->beg);
    unsigned type = w & 0xff;
    size_t len = w >> 8;
    SAFETY_CHECK(r->started || type == 0xff, OC_ERR_CORRUPT); /* the stream identifier comes first */
    if (type == 0xff) {
        FORWARD_IF_ERROR(need(r, r->beg, sizeof id));
        SAFETY_CHECK(!memcmp(r->in + r->beg, id, sizeof id), OC_ERR_CORRUPT);
        r->beg += sizeof id;
        r->started = 1;
        return OC_OK;
    }
    SAFETY_CHECK(type >= 0x80 || type <= 0x01, OC_ERR_CORRUPT); /* reserved unskippable chunks */
    if (type >= 0x80) {
        if (r->n_units) {
            *stop = 1;
            return OC_OK;
        }
        if (type == OC_SNAPPY_INDEX_CHUNK) {
            FORWARD_IF_ERROR(need(r, r->beg, 4 + len));
            FORWARD_IF_ERROR(check_our_index(r, r->in + r->beg + 4, len));
            r->beg += 4 + len;
            return OC_OK;
        }
        r->beg += 4;
        return skip(r, len);
    }
    SAFETY_CHECK(len >= 4 && len - 4 <= (type ? OC_SNAPPY_MAX_CHUNK : OC_SNAPPY_MAX_CHUNK + 16384),
                 OC_ERR_CORRUPT);
    FORWARD_IF_ERROR(need(r, r->beg, 4 + len));
    const uint8_t *p = r->in + r->beg;
    uint64_t usize = len - 4;
    if (type == 0x00) {
        FORWARD_IF_ERROR(snappy_varint(p + 8, len - 4, &usize));
        SAFETY_CHECK(usize <= OC_SNAPPY_MAX_CHUNK, OC_ERR_CORRUPT);
    }
    if (r->n_units && group_bytes(r) + usize > r->group_budget) {
        *stop = 1;
        return OC_OK;
    }
    unit u = {r->beg + 8,
              len - 4,
              (size_t)usize,
              1,
              type == 0x01,
              r->verify ? OC_CHECK_CRC32C_MASKED : OC_CHECK_NONE,
              oc_load_le32(p + 4),
              w,
              0,
              0,
              0,
              0,
              OC_OK};
    r->group_alg = OC_ALGO_SNAPPY;
    FORWARD_IF_ERROR(add_unit(r, &u));
    r->beg += 4 + len;
    return OC_OK;
}

/* Recognises the container from the first bytes. */
static oc_status detect(oc_stream_reader *r, int *end)
{
    int any = 0;
    FORWARD_IF_ERROR(more(r, 0, &any));
    if (!any) {
        /* An empty snappy framed stream is no bytes at all (framing readers
         * write it so); anything else needs at least a header. */
        RETURN_ERROR_IF(r->hint != OC_ALGO_SNAPPY, OC_ERR_TRUNCATED);
        *end = 1;
        return OC_OK;
    }
    oc_status st = need(r, r->beg, 4);
    const uint8_t *p = r->in + r->beg;
    size_t have = r->end - r->beg;
    if (st == OC_ERR_TRUNCATED) {
        static const uint8_t magics[5][4] = {{0x04, 0x22, 0x4d, 0x18},
                                             {0x28, 0xb5, 0x2f, 0xfd},
                                             {0x1f, 0x8b, 0x08, 0x00},
                                             {0x02, 0x21, 0x4c, 0x18},
                                             {0xff, 0x06, 0x00, 0x00}};
        for (int i = 0; i < 5; i++)
            if (!memcmp(p, magics[i], have))
                return OC_ERR_TRUNCATED;
        return OC_ERR_CORRUPT;
    }
    FORWARD_IF_ERROR(st);
    uint32_t magic = oc_load_le32(p);
    oc_algorithm h = r->hint;
    if (p[0] == 0x1f && p[1] == 0x8b) {
        SAFETY_CHECK(h == OC_ALGO_NONE || h == OC_ALGO_GZIP || h == OC_ALGO_DEFLATE || h == OC_ALGO_ZLIB,
                     OC_ERR_CORRUPT);
        r->family = FAM_GZIP;
    } else if (p[0] == 0xff && p[1] == 0x06 && p[2] == 0 && p[3] == 0) {
        SAFETY_CHECK(h == OC_ALGO_NONE || h == OC_ALGO_SNAPPY, OC_ERR_CORRUPT);
        r->family = FAM_SNAPPY;
    } else if (magic == OC_LZ4_FRAME_MAGIC || magic == OC_LZ4_LEGACY_MAGIC || magic == OC_ZSTD_FRAME_MAGIC ||
               (magic & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN) {
        r->family = FAM_FRAMES;
    } else if (!memcmp(p, "OCNC", 4)) {
        return OC_ERR_UNSUPPORTED; /* our own formats' container: the whole-buffer layer */
    } else {
        return OC_ERR_CORRUPT;
    }
    return OC_OK;
}

/* Produces the next piece of output in r->out (r->out_len == 0: the end). */
static oc_status produce(oc_stream_reader *r)
{
    r->out_len = r->out_pos = 0;
    if (r->ended)
        return OC_OK;
    for (;;) {
        if (r->serial_kind) {
            FORWARD_IF_ERROR(serial_step(r));
            if (r->out_len)
                return OC_OK;
            if (r->serial_kind)
                return OC_ERR_TRUNCATED;
            continue;
        }
        int end = 0, stop = 0;
        if (r->n_units == 0 && r->beg > 0) { /* a new group: the window starts at 0 again */
            memmove(r->in, r->in + r->beg, r->end - r->beg);
            r->end -= r->beg;
            r->beg = 0;
        }
        if (r->family == FAM_NONE)
            FORWARD_IF_ERROR(detect(r, &end));
        if (r->family == FAM_FRAMES && r->pread && !r->index_tried)
            FORWARD_IF_ERROR(read_index(r));
        if (!end && r->family == FAM_FRAMES)
            FORWARD_IF_ERROR(frames_item(r, &stop, &end));
        else if (!end && r->family == FAM_GZIP)
            FORWARD_IF_ERROR(gzip_item(r, &stop, &end));
        else if (!end && r->family == FAM_SNAPPY)
            FORWARD_IF_ERROR(snappy_item(r, &stop, &end));
        if (end && (r->lz4_frame || r->lz4_legacy)) {
            /* The input ended inside an LZ4 frame (legacy frames end with it). */
            RETURN_ERROR_IF(r->lz4_frame, OC_ERR_TRUNCATED);
            r->lz4_legacy = 0;
        }
        if (stop || (end && r->n_units) || (r->n_units && group_bytes(r) >= r->group_budget)) {
            FORWARD_IF_ERROR(decode_group(r));
            if (r->out_len)
                return OC_OK;
            continue;
        }
        if (end) {
            r->ended = 1;
            return OC_OK;
        }
    }
}

/* ---- the API ------------------------------------------------------------------ */

oc_status oc_stream_reader_create(oc_context *ctx, const oc_buffer_options *hint, oc_read_fn read,
                                  void *opaque, oc_stream_reader **out)
{
    RETURN_ERROR_IF(!out, OC_ERR_INVALID_ARGUMENT);
    *out = NULL;
    RETURN_ERROR_IF(!ctx || !read, OC_ERR_INVALID_ARGUMENT);
    if (hint) {
        RETURN_ERROR_IF(!OC_OPTIONS_SIZE_OK(hint, oc_buffer_options), OC_ERR_INVALID_ARGUMENT);
        RETURN_ERROR_IF((unsigned)hint->algorithm >= OC_ALGO_COUNT, OC_ERR_INVALID_ARGUMENT);
        RETURN_ERROR_IF((unsigned)hint->checksum > OC_CHECKSUM_NONE, OC_ERR_INVALID_ARGUMENT);
    }
    oc_stream_reader *r = (oc_stream_reader *)calloc(1, sizeof *r);
    RETURN_ERROR_IF(!r, OC_ERR_OUT_OF_MEMORY);
    r->ctx = ctx;
    r->read = read;
    r->opaque = opaque;
    r->verify = !hint || hint->checksum == OC_CHECKSUM_VERIFY;
    r->memory_limit = hint ? hint->memory_limit : 0;
    r->hint = hint ? hint->algorithm : OC_ALGO_NONE;
    r->failed = OC_SIZE_UNKNOWN;
    oc_stream_dev_init(&r->dev, ctx);
    uint64_t g = GROUP_PER_THREAD * (uint64_t)oc_context_num_threads(ctx);
    r->group_budget = g < GROUP_MIN ? GROUP_MIN : g > GROUP_MAX ? GROUP_MAX : g;
    r->cap = READ_STEP;
    r->in = (uint8_t *)malloc(r->cap);
    if (!r->in) {
        free(r);
        return OC_ERR_OUT_OF_MEMORY;
    }
    *out = r;
    return OC_OK;
}

/* Records an error: the chunk it concerns is the one being read unless a
 * check named another. */
static void fail(oc_stream_reader *r, oc_status st)
{
    r->error = st;
    if (r->failed == OC_SIZE_UNKNOWN && !r->no_chunk)
        r->failed = r->chunks + r->n_units;
}

oc_status oc_stream_reader_next(oc_stream_reader *r, const void **data, size_t *size)
{
    RETURN_ERROR_IF(!r || !data || !size, OC_ERR_INVALID_ARGUMENT);
    *data = NULL;
    *size = 0;
    if (r->error != OC_OK)
        return r->error;
    oc_status st = produce(r);
    if (st != OC_OK) {
        fail(r, st);
        return st;
    }
    *data = r->out;
    *size = r->out_len;
    r->total_out += r->out_len;
    r->out_pos = r->out_len;
    return OC_OK;
}

oc_status oc_stream_reader_read(oc_stream_reader *r, void *dst, size_t capacity, size_t *got)
{
    RETURN_ERROR_IF(!r || !got || (!dst && capacity), OC_ERR_INVALID_ARGUMENT);
    *got = 0;
    while (*got < capacity) {
        if (r->out_pos == r->out_len) {
            if (r->error != OC_OK)
                return r->error;
            oc_status st = produce(r);
            if (st != OC_OK) {
                fail(r, st);
                return *got ? OC_OK : st; /* the error comes with the next call */
            }
            r->total_out += r->out_len;
            if (r->out_len == 0)
                break;
        }
        size_t take = r->out_len - r->out_pos < capacity - *got ? r->out_len - r->out_pos : capacity - *got;
        memcpy((uint8_t *)dst + *got, r->out + r->out_pos, take);
        r->out_pos += take;
        *got += take;
    }
    return OC_OK;
}

oc_status oc_stream_reader_position(const oc_stream_reader *r, oc_stream_position *pos)
{
    RETURN_ERROR_IF(!r || !pos || pos->struct_size != sizeof(oc_stream_position), OC_ERR_INVALID_ARGUMENT);
    pos->in_bytes = r->in_total - (r->end - r->beg);
    pos->out_bytes = r->total_out;
    pos->chunks = r->chunks;
    pos->failed_chunk = r->error != OC_OK ? r->failed : OC_SIZE_UNKNOWN;
    pos->window_size = r->error == OC_ERR_CHUNK_TOO_LARGE ? r->window : 0;
    pos->trailing_bytes = r->trailing;
    pos->trailing_zeros = r->trailing && !r->trailing_nonzero;
    pos->serial_chunks = r->serial_chunks;
    pos->index_entries = r->table_n;
    memset(pos->reserved, 0, sizeof pos->reserved);
    return OC_OK;
}

void oc_stream_reader_destroy(oc_stream_reader *r)
{
    if (!r)
        return;
    for (int i = 0; i < 4; i++)
        oc_serial_free(r->serial[i]);
    oc_stream_dev_free(&r->dev);
    free(r->in);
    free(r->out);
    free(r->units);
    free(r->seen);
    free(r->table);
    free(r);
}

oc_status oc_stream_reader_set_seekable(oc_stream_reader *r, oc_pread_fn pread, uint64_t size)
{
    RETURN_ERROR_IF(!r || !pread, OC_ERR_INVALID_ARGUMENT);
    /* before the first byte is read */
    RETURN_ERROR_IF(r->in_total || r->family != FAM_NONE || r->ended || r->error != OC_OK,
                    OC_ERR_INVALID_ARGUMENT);
    r->pread = pread;
    r->src_size = size;
    return OC_OK;
}
