/*
 * test_stream_seekable.c - index-first reading of seekable sources
 * (oc_stream_reader_set_seekable, issue 19 item 1) on zstd seekable files
 * of another writer: frames written by libzstd (some stating their
 * content size, most not, as the seekable library and pyzstd write them),
 * then a seek table written here by hand from the format's specification
 * (zstd's contrib/seekable_format/zstd_seekable_compression_format.md):
 * a skippable frame of magic 0x184D2A5E holding one entry per frame
 * {compressed size, decompressed size, [low 32 bits of the XXH64 of the
 * decoded bytes]} (little-endian u32s) and a 9-byte footer {frame count,
 * descriptor (bit 7: entries carry checksums; bits 2-6 reserved), magic
 * 0x8F92EAB1}.  It guards:
 *
 *   - round trips read in random pieces, with and without checksums in
 *     the table: the table is read first (index_entries), every frame is
 *     decoded in a batch (serial_chunks 0), and pread reads only the
 *     table; the same bytes without set_seekable decode the frames without
 *     a size serially (the fallback, serial_chunks > 0), to the same bytes;
 *   - a frame above OC_STREAM_MAX_UNIT decodes serially, held against its
 *     entry (sizes, and the checksum, hashed as it decodes);
 *   - exact statuses, and the frame named (failed_chunk), on damage (the
 *     same statuses as the whole-buffer layer's): a decoded size off by
 *     one SIZE_MISMATCH (CORRUPT where the frame states another size); an
 *     entry's frame boundary moved CORRUPT; a changed checksum
 *     CHECKSUM_MISMATCH (OK with verification off); no frame where the
 *     table puts one CORRUPT; reserved descriptor bits, a wrong skippable
 *     length or magic, entries that do not add up: CORRUPT before any
 *     output, no frame named; a source shorter than its stated size
 *     TRUNCATED; no footer magic: read as a stock stream;
 *   - misuse: set_seekable after reading, or without pread, is
 *     INVALID_ARGUMENT.
 */
#define _POSIX_C_SOURCE 200809L
#include <zstd.h>

#include "common/xxh.h"
#include "test_stream_util.h"

#define SKIP_MAGIC 0x184D2A5Eu
#define FOOT_MAGIC 0x8F92EAB1u

static oc_context *ctx;
static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

/* The source of a test: read in random pieces, and pread counted. */
typedef struct seek_src {
    source s;
    uint64_t pread_bytes;
} seek_src;

static oc_status src_read(void *opaque, void *buf, size_t capacity, size_t *got)
{
    return source_read(&((seek_src *)opaque)->s, buf, capacity, got);
}

static oc_status src_pread(void *opaque, uint64_t offset, void *buf, size_t capacity, size_t *got)
{
    seek_src *q = (seek_src *)opaque;
    *got = 0;
    if (offset >= q->s.n)
        return OC_OK;
    size_t take = q->s.n - offset < capacity ? (size_t)(q->s.n - offset) : capacity;
    memcpy(buf, q->s.p + offset, take);
    *got = take;
    q->pread_bytes += take;
    return OC_OK;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A seekable file: frames of data[...] of the given sizes, then the table. */
typedef struct sfile {
    sink f;
    size_t table;     /* offset of the skippable frame */
    size_t *frame_at; /* offset of each frame */
    size_t nf;
    int sums;
} sfile;

/* Frame i states its content size when sized(i); the others do not. */
static sfile build(const unsigned char *data, const size_t *sizes, size_t nf, int sums, int sized_every)
{
    sfile s;
    memset(&s, 0, sizeof s);
    s.nf = nf;
    s.sums = sums;
    s.frame_at = (size_t *)tb_xmalloc((nf + 1) * sizeof *s.frame_at);
    unsigned char *ent = (unsigned char *)tb_xmalloc(nf * 12 + 1);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    size_t pos = 0, es = sums ? 12 : 8;
    for (size_t i = 0; i < nf; i++) {
        int sized = sized_every && i % (size_t)sized_every == 0;
        ZSTD_CCtx_reset(cc, ZSTD_reset_session_and_parameters);
        ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, 3);
        ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, sized);
        /* the frame's own checksum, sometimes */
        ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, (int)(i & 1));
        size_t bound = ZSTD_compressBound(sizes[i]);
        unsigned char *c = (unsigned char *)tb_xmalloc(bound);
        size_t cn = ZSTD_compress2(cc, c, bound, data + pos, sizes[i]);
        CHECK(!ZSTD_isError(cn));
        /* the fixture is what it claims: a size stated or not */
        unsigned long long fcs = ZSTD_getFrameContentSize(c, cn);
        CHECK(sized ? fcs == sizes[i] : fcs == ZSTD_CONTENTSIZE_UNKNOWN);
        s.frame_at[i] = s.f.n;
        sink_write(&s.f, c, cn);
        put32(ent + es * i, (uint32_t)cn);
        put32(ent + es * i + 4, (uint32_t)sizes[i]);
        if (sums)
            put32(ent + es * i + 8, (uint32_t)oc_xxh64(data + pos, sizes[i], 0));
        pos += sizes[i];
        free(c);
    }
    ZSTD_freeCCtx(cc);
    s.table = s.f.n;
    s.frame_at[nf] = s.f.n;
    unsigned char h[8];
    put32(h, SKIP_MAGIC);
    put32(h + 4, (uint32_t)(nf * es + 9));
    sink_write(&s.f, h, 8);
    if (nf)
        sink_write(&s.f, ent, nf * es);
    unsigned char foot[9];
    put32(foot, (uint32_t)nf);
    foot[4] = sums ? 0x80 : 0x00;
    put32(foot + 5, FOOT_MAGIC);
    sink_write(&s.f, foot, 9);
    free(ent);
    return s;
}

/* Entry i's field f (0: compressed size, 1: decoded size, 2: checksum) in p. */
static unsigned char *entry(const sfile *s, unsigned char *p, size_t i, int f)
{
    return p + s->table + 8 + (s->sums ? 12 : 8) * i + 4 * (size_t)f;
}

/* Reads p[0..n) through a reader, seekable (of stated size `size`) or not. */
static oc_status read_src(const oc_buffer_options *hint, const unsigned char *p, size_t n, int seekable,
                          uint64_t size, size_t max_piece, sink *out, oc_stream_position *pos,
                          uint64_t *pread_bytes)
{
    seek_src q = {{p, n, 0, max_piece, 0, &rng_state}, 0};
    oc_stream_reader *r = NULL;
    memset(out, 0, sizeof *out);
    memset(pos, 0, sizeof *pos);
    pos->struct_size = sizeof *pos;
    oc_status st = oc_stream_reader_create(ctx, hint, src_read, &q, &r);
    if (st == OC_OK && seekable)
        st = oc_stream_reader_set_seekable(r, src_pread, size);
    while (st == OC_OK) {
        const void *d;
        size_t got = 0;
        st = oc_stream_reader_next(r, &d, &got);
        if (st != OC_OK || got == 0)
            break;
        sink_write(out, d, got);
    }
    if (r)
        oc_stream_reader_position(r, pos);
    if (pread_bytes)
        *pread_bytes = q.pread_bytes;
    oc_stream_reader_destroy(r);
    return st;
}

static oc_status read_seekable(const unsigned char *p, size_t n, sink *out, oc_stream_position *pos)
{
    return read_src(NULL, p, n, 1, n, 70000, out, pos, NULL);
}

static void round_trips(const tb_data *d)
{
    size_t sizes[64], total = 0, nf = 0;
    while (nf < 64) {
        size_t want = nf == 5 ? 0 : 1 + (size_t)(tb_rng(&rng_state) % 40000); /* frame 5 is empty */
        if (total + want > d->n)
            break;
        sizes[nf++] = want;
        total += want;
    }
    CHECK(nf >= 20);
    for (int sums = 0; sums < 2; sums++) {
        sfile s = build(d->p, sizes, nf, sums, 4);
        sink out;
        oc_stream_position pos;
        uint64_t preads = 0;
        CHECK_ST(read_src(NULL, s.f.p, s.f.n, 1, s.f.n, 70000, &out, &pos, &preads), OC_OK);
        CHECK(out.n == total && !memcmp(out.p, d->p, total));
        CHECK(pos.index_entries == nf && pos.chunks == nf && pos.serial_chunks == 0);
        CHECK(pos.in_bytes == s.f.n && pos.out_bytes == total);
        /* pread read the footer and the table, nothing else */
        CHECK(preads == 9 + (s.f.n - s.table));
        free(out.p);
        /* verification off: the same bytes */
        oc_buffer_options h = OC_BUFFER_OPTIONS_INIT;
        h.checksum = OC_CHECKSUM_NONE;
        CHECK_ST(read_src(&h, s.f.p, s.f.n, 1, s.f.n, 0, &out, &pos, NULL), OC_OK);
        CHECK(out.n == total && !memcmp(out.p, d->p, total) && pos.serial_chunks == 0);
        free(out.p);
        /* not seekable: the frames without a size go serially, same bytes */
        CHECK_ST(read_src(NULL, s.f.p, s.f.n, 0, 0, 70000, &out, &pos, NULL), OC_OK);
        CHECK(out.n == total && !memcmp(out.p, d->p, total));
        CHECK(pos.index_entries == 0 && pos.chunks == nf && pos.serial_chunks > 0);
        free(out.p);
        /* and the whole-buffer layer gives the same bytes */
        unsigned char *back = (unsigned char *)tb_xmalloc(total + 1);
        uint64_t bn = 0;
        CHECK_ST(oc_buffer_decompress(ctx, NULL, s.f.p, s.f.n, back, total, &bn, NULL), OC_OK);
        CHECK(bn == total && !memcmp(back, d->p, total));
        free(back);
        free(s.f.p);
        free(s.frame_at);
    }
    /* no frames at all: a table of 0 entries */
    sfile s = build(d->p, sizes, 0, 1, 0);
    sink out;
    oc_stream_position pos;
    CHECK_ST(read_seekable(s.f.p, s.f.n, &out, &pos), OC_OK);
    CHECK(out.n == 0 && pos.chunks == 0);
    free(out.p);
    free(s.f.p);
    free(s.frame_at);
}

/* A frame decoding to more than OC_STREAM_MAX_UNIT: serial, against its entry. */
static void large_frame(void)
{
    size_t big = (size_t)OC_STREAM_MAX_UNIT + 4096;
    unsigned char *z = (unsigned char *)calloc(big + 1000, 1);
    CHECK(z != NULL);
    if (!z)
        return;
    memset(z + big, 'x', 1000);
    size_t sizes[2] = {big, 1000};
    sfile s = build(z, sizes, 2, 1, 0);
    sink out;
    oc_stream_position pos;
    CHECK_ST(read_src(NULL, s.f.p, s.f.n, 1, s.f.n, 0, &out, &pos, NULL), OC_OK);
    CHECK(out.n == big + 1000 && !memcmp(out.p, z, big + 1000));
    CHECK(pos.index_entries == 2 && pos.chunks == 2 && pos.serial_chunks == 1);
    free(out.p);
    /* its checksum in the table changed: hashed as it decodes serially */
    unsigned char *bad = tb_copy(s.f.p, s.f.n);
    bad[s.table + 8 + 8] ^= 0x01;
    CHECK_ST(read_src(NULL, bad, s.f.n, 1, s.f.n, 0, &out, &pos, NULL), OC_ERR_CHECKSUM_MISMATCH);
    CHECK(pos.failed_chunk == 0 && pos.out_bytes <= big);
    free(out.p);
    oc_buffer_options h = OC_BUFFER_OPTIONS_INIT;
    h.checksum = OC_CHECKSUM_NONE;
    CHECK_ST(read_src(&h, bad, s.f.n, 1, s.f.n, 0, &out, &pos, NULL), OC_OK);
    free(out.p);
    memcpy(bad, s.f.p, s.f.n);
    /* its decoded size in the table one more: the serial frame is named */
    put32(entry(&s, bad, 0, 1), (uint32_t)big + 1);
    CHECK_ST(read_src(NULL, bad, s.f.n, 1, s.f.n, 0, &out, &pos, NULL), OC_ERR_SIZE_MISMATCH);
    CHECK(pos.failed_chunk == 0);
    free(out.p);
    free(bad);
    free(s.f.p);
    free(s.frame_at);
    free(z);
}

/* One damaged copy of s: the status, the frame named, and whether any
 * output came before the error. */
static void expect(const sfile *s, const unsigned char *bad, oc_status want, uint64_t frame, const char *what)
{
    sink out;
    oc_stream_position pos;
    oc_status st = read_seekable(bad, s->f.n, &out, &pos);
    if (st != want || pos.failed_chunk != frame)
        fprintf(stderr, "%s: %s, frame %lld (want %s, frame %lld)\n", what, oc_status_name(st),
                (long long)pos.failed_chunk, oc_status_name(want), (long long)frame);
    CHECK(st == want && pos.failed_chunk == frame);
    CHECK(pos.index_entries == s->nf);
    if (frame == OC_SIZE_UNKNOWN)
        CHECK(pos.out_bytes == 0 && pos.chunks == 0); /* the table is refused before any frame */
    free(out.p);
    /* the whole-buffer layer says the same (it names no frame where it
     * refuses the table as a whole, having walked every frame first) */
    unsigned char *back = (unsigned char *)tb_xmalloc(1 << 21);
    uint64_t bn = 0, bf = OC_SIZE_UNKNOWN;
    CHECK_ST(oc_buffer_decompress(ctx, NULL, bad, s->f.n, back, 1 << 21, &bn, &bf), want);
    CHECK(bf == OC_SIZE_UNKNOWN || bf == frame);
    free(back);
}

static void damage(const tb_data *d)
{
    size_t sizes[24];
    for (size_t i = 0; i < 24; i++)
        sizes[i] = 10000 + 1000 * i;
    CHECK(d->n >= 24 * 10000 + 276 * 1000);
    sfile s = build(d->p, sizes, 24, 1, 4); /* frames 0, 4, 8, ... state their size */
    unsigned char *bad = tb_copy(s.f.p, s.f.n);
#define RESET() memcpy(bad, s.f.p, s.f.n)
    /* decoded sizes off by one, for a frame that states none */
    put32(entry(&s, bad, 9, 1), (uint32_t)sizes[9] + 1);
    expect(&s, bad, OC_ERR_SIZE_MISMATCH, 9, "size + 1");
    RESET();
    put32(entry(&s, bad, 9, 1), (uint32_t)sizes[9] - 1);
    expect(&s, bad, OC_ERR_SIZE_MISMATCH, 9, "size - 1");
    /* and for one that states its own: the header and the table disagree */
    RESET();
    put32(entry(&s, bad, 8, 1), (uint32_t)sizes[8] + 1);
    expect(&s, bad, OC_ERR_CORRUPT, 8, "size against the header");
    /* a frame boundary moved (the entries still add up) */
    RESET();
    put32(entry(&s, bad, 13, 0), get32(entry(&s, bad, 13, 0)) + 1);
    put32(entry(&s, bad, 14, 0), get32(entry(&s, bad, 14, 0)) - 1);
    expect(&s, bad, OC_ERR_CORRUPT, 13, "boundary moved");
    /* a checksum changed; verification off decodes */
    RESET();
    bad[s.table + 8 + 12 * 17 + 8] ^= 0x10;
    expect(&s, bad, OC_ERR_CHECKSUM_MISMATCH, 17, "checksum");
    {
        sink out;
        oc_stream_position pos;
        oc_buffer_options h = OC_BUFFER_OPTIONS_INIT;
        h.checksum = OC_CHECKSUM_NONE;
        CHECK_ST(read_src(&h, bad, s.f.n, 1, s.f.n, 0, &out, &pos, NULL), OC_OK);
        free(out.p);
    }
    /* no zstd frame where the table puts one */
    RESET();
    bad[s.frame_at[11]] ^= 0x01;
    expect(&s, bad, OC_ERR_CORRUPT, 11, "frame magic");
    /* the table's own structure: refused before any frame */
    RESET();
    bad[s.f.n - 5] |= 0x04; /* a reserved descriptor bit */
    expect(&s, bad, OC_ERR_CORRUPT, OC_SIZE_UNKNOWN, "reserved bit");
    RESET();
    put32(bad + s.table + 4, get32(bad + s.table + 4) + 12); /* the skippable frame's length */
    expect(&s, bad, OC_ERR_CORRUPT, OC_SIZE_UNKNOWN, "skippable length");
    RESET();
    put32(bad + s.table, SKIP_MAGIC + 1); /* another skippable magic */
    expect(&s, bad, OC_ERR_CORRUPT, OC_SIZE_UNKNOWN, "skippable magic");
    RESET();
    put32(entry(&s, bad, 0, 0), get32(entry(&s, bad, 0, 0)) - 1); /* the frames end before the table */
    expect(&s, bad, OC_ERR_CORRUPT, OC_SIZE_UNKNOWN, "entries short");
    RESET();
    put32(entry(&s, bad, 23, 0), get32(entry(&s, bad, 23, 0)) + 1); /* the last frame runs into the table */
    expect(&s, bad, OC_ERR_CORRUPT, 23, "entry past the table");
    RESET();
    put32(entry(&s, bad, 5, 1), 0xFFFFFFFFu); /* no frame of its size decodes to 4 GiB */
    expect(&s, bad, OC_ERR_CORRUPT, 5, "impossible size");
    /* a source shorter than its stated size */
    {
        sink out;
        oc_stream_position pos;
        CHECK_ST(read_src(NULL, s.f.p, s.f.n, 1, s.f.n + 5, 0, &out, &pos, NULL), OC_ERR_TRUNCATED);
        free(out.p);
    }
    /* no footer magic: a stock stream (frames and a skippable frame), read serially */
    RESET();
    bad[s.f.n - 1] ^= 0x01;
    {
        sink out;
        oc_stream_position pos;
        CHECK_ST(read_seekable(bad, s.f.n, &out, &pos), OC_OK);
        CHECK(pos.index_entries == 0 && pos.serial_chunks == 18 && pos.chunks == 24);
        free(out.p);
    }
#undef RESET
    free(bad);
    free(s.f.p);
    free(s.frame_at);
}

static void misuse(void)
{
    unsigned char b[4] = {0};
    seek_src q = {{b, 0, 0, 0, 0, &rng_state}, 0};
    oc_stream_reader *r = NULL;
    CHECK_ST(oc_stream_reader_set_seekable(NULL, src_pread, 0), OC_ERR_INVALID_ARGUMENT);
    CHECK_ST(oc_stream_reader_create(ctx, NULL, src_read, &q, &r), OC_OK);
    CHECK_ST(oc_stream_reader_set_seekable(r, NULL, 0), OC_ERR_INVALID_ARGUMENT);
    const void *d;
    size_t n;
    CHECK_ST(oc_stream_reader_next(r, &d, &n), OC_ERR_TRUNCATED); /* empty input */
    CHECK_ST(oc_stream_reader_set_seekable(r, src_pread, 0), OC_ERR_INVALID_ARGUMENT);
    oc_stream_reader_destroy(r);
}

int main(void)
{
    CHECK_ST(oc_context_create(NULL, &ctx), OC_OK);
    tb_data text = tb_text(1 << 20), bin = tb_binary(1 << 20);
    round_trips(&text);
    round_trips(&bin);
    damage(&bin);
    large_frame();
    misuse();
    free(text.p);
    free(bin.p);
    oc_context_destroy(ctx);
    return tb_finish("test_stream_seekable");
}
