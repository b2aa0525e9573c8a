/*
 * fuzz_stream_read.c - the streaming reader (src/api/stream_read.c and its
 * serial fallbacks) on any bytes, fed through the read callback in pieces
 * whose sizes byte 0 picks (1 byte to everything at once); bit 0 of byte 0
 * turns checksum verification off; bit 4 makes the source seekable
 * (oc_stream_reader_set_seekable: a zstd seek table at the end is parsed
 * and read first), its stated size shorter or longer than the input when
 * bits 5-6 say so.  The reader must never read or write
 * out of bounds (the input is an exactly-sized copy), every status must be
 * sticky, and where both the reader and oc_buffer_decompress succeed they
 * must give the same bytes.  Output past 64 MiB is not followed (a tiny
 * unsized zstd frame can expand to gigabytes).
 */
#include "fuzz_common.h"

#define MAX_OUT ((size_t)64 << 20)

typedef struct src {
    const uint8_t *p;
    size_t n, pos, piece;
} src;

static oc_status rd(void *opaque, void *buf, size_t cap, size_t *got)
{
    src *s = (src *)opaque;
    size_t take = s->n - s->pos < cap ? s->n - s->pos : cap;
    if (take > s->piece)
        take = s->piece;
    memcpy(buf, s->p + s->pos, take);
    s->pos += take;
    *got = take;
    return OC_OK;
}

static oc_status prd(void *opaque, uint64_t off, void *buf, size_t cap, size_t *got)
{
    src *s = (src *)opaque;
    *got = 0;
    if (off >= s->n)
        return OC_OK;
    size_t take = s->n - off < cap ? s->n - (size_t)off : cap;
    memcpy(buf, s->p + off, take);
    *got = take;
    return OC_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const size_t pieces[8] = {1, 3, 17, 255, 4096, 65536, 1 << 20, (size_t)-1};
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    hint.checksum = (data[0] & 1) ? OC_CHECKSUM_NONE : OC_CHECKSUM_VERIFY;
    uint8_t *in = fuzz_copy(data + 1, size - 1);
    src s = {in, size - 1, 0, pieces[(data[0] >> 1) & 7]};
    oc_stream_reader *r = NULL;
    if (oc_stream_reader_create(fuzz_ctx(), &hint, rd, &s, &r) != OC_OK)
        abort();
    if (data[0] & 0x10) {
        static const int64_t skew[4] = {0, 0, -1, 7};
        if (oc_stream_reader_set_seekable(
                r, prd, (uint64_t)((int64_t)(size - 1) + skew[(data[0] >> 5) & 3])) != OC_OK)
            abort();
    }
    size_t cap = fuzz_out_capacity(size - 1), total = 0;
    uint8_t *out = (uint8_t *)malloc(cap);
    if (!out)
        abort();
    int fits = 1;
    oc_status st;
    for (;;) {
        const void *d;
        size_t n = 0;
        st = oc_stream_reader_next(r, &d, &n);
        if (st != OC_OK || n == 0)
            break;
        if (fits && n <= cap - total)
            memcpy(out + total, d, n);
        else
            fits = 0;
        total += n;
        if (total > MAX_OUT)
            break;
    }
    if (st != OC_OK) {
        const void *d;
        size_t n = 1;
        if (oc_stream_reader_next(r, &d, &n) != st || n != 0)
            abort(); /* errors are sticky */
    }
    oc_stream_position pos;
    memset(&pos, 0, sizeof pos);
    pos.struct_size = sizeof pos;
    if (oc_stream_reader_position(r, &pos) != OC_OK || pos.in_bytes > size - 1)
        abort();
    oc_stream_reader_destroy(r);
    if (st == OC_OK && fits && total <= MAX_OUT) {
        /* the whole-buffer layer must agree where it succeeds too */
        uint8_t *back = (uint8_t *)malloc(cap);
        uint64_t got = 0;
        if (!back)
            abort();
        if (oc_buffer_decompress(fuzz_ctx(), &hint, in, size - 1, back, cap, &got, NULL) == OC_OK &&
            (got != total || memcmp(back, out, total) != 0))
            abort();
        free(back);
    }
    free(out);
    free(in);
    return 0;
}
