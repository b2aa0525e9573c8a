/*
 * codec_deflate.c - Deflate (RFC 1951), zlib (RFC 1950) and gzip (RFC 1952)
 * on the CPU.
 *
 * Compression is libdeflate (levels 1..12, a compressor per level per
 * worker).  Decoding parses the zlib and gzip wrappers here (gzip: FEXTRA,
 * FNAME, FCOMMENT, FHCRC; several members in one chunk are concatenated),
 * inflates the raw body with libdeflate_deflate_decompress_ex (which says
 * where the body ends), and checks Adler-32 / CRC-32 and ISIZE itself, so
 * every failure has its own status: a bad checksum is CHECKSUM_MISMATCH, a
 * wrong ISIZE SIZE_MISMATCH, a short stream TRUNCATED, no room
 * OUTPUT_TOO_SMALL, anything else CORRUPT.  libdeflate reports truncation
 * and corruption alike (BAD_DATA); zlib's streaming inflate, run into the
 * worker's scratch, tells them apart.  Decompressed sizes are counted the
 * way the decoder decodes - libdeflate, into a worker buffer grown up to
 * 8 MiB - so the size query and the decoder accept the same streams; only
 * larger outputs are counted by zlib streaming through the scratch (zlib
 * refuses a few invalid streams that libdeflate decodes, e.g. with the
 * reserved fixed-code length symbols 286/287).  Bytes after the last
 * member/trailer are CORRUPT, a chunk being exactly its stream, except
 * zero bytes after a gzip member (padding, as gzip -d and Python's gzip
 * read it); oc_gzip_extent also stops at trailing garbage, for the
 * whole-buffer layer (issue 11 item 9).
 */
#include <libdeflate.h>
#include <limits.h>
#include <string.h>
#include <zlib.h>

#include "../../cpu_codec.h"

/* The worker's deflate state (the slot of OC_ALGO_DEFLATE in
 * oc_cpu_worker.state, shared by zlib and gzip): a libdeflate compressor
 * per level, a decompressor, a zlib raw inflater (counting sizes,
 * classifying errors), each created on first use.  Every entry point makes
 * sure the slot exists (deflate_state) before the helpers use DS(w). */
#define DEFLATE_LEVELS 13 /* libdeflate levels 0..12 */
typedef struct deflate_worker {
    struct libdeflate_compressor *c[DEFLATE_LEVELS];
    struct libdeflate_decompressor *d;
    z_stream *inflate;
} deflate_worker;
#define DS(w) ((deflate_worker *)(w)->state[OC_ALGO_DEFLATE])

static oc_status deflate_state(oc_cpu_worker *w)
{
    return oc_worker_state(w, OC_ALGO_DEFLATE, sizeof(deflate_worker)) ? OC_OK : OC_ERR_OUT_OF_MEMORY;
}

static oc_status deflate_compress(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src,
                                  size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    RETURN_ERROR_IF(level < 0 || level >= DEFLATE_LEVELS, OC_ERR_INVALID_ARGUMENT);
    FORWARD_IF_ERROR(deflate_state(w));
    if (!DS(w)->c[level])
        DS(w)->c[level] = libdeflate_alloc_compressor(level);
    struct libdeflate_compressor *c = DS(w)->c[level];
    RETURN_ERROR_IF(!c, OC_ERR_OUT_OF_MEMORY);
    size_t r;
    if (algo == OC_ALGO_ZLIB)
        r = libdeflate_zlib_compress(c, src, n, dst, cap);
    else if (algo == OC_ALGO_GZIP)
        r = libdeflate_gzip_compress(c, src, n, dst, cap);
    else
        r = libdeflate_deflate_compress(c, src, n, dst, cap);
    RETURN_ERROR_IF(r == 0, OC_ERR_OUTPUT_TOO_SMALL);
    *out = r;
    return OC_OK;
}

/* ---- raw body: decode with libdeflate, or count with zlib ---------------- */

/* Where decoded bytes go: into dst (decode) or nowhere (count_only). */
typedef struct sink {
    int count_only;
    uint8_t *dst;
    size_t cap;
    size_t out;       /* bytes produced so far (all members) */
    int lenient_tail; /* gzip: stop at bytes that do not begin a member (gzip -d's trailing garbage) */
    size_t end;       /* gzip: where the last member (or its zero padding) ends */
} sink;

#define COUNT_BUFFER_MAX ((size_t)8 << 20)

enum check_kind { CHECK_NONE, CHECK_ADLER32, CHECK_CRC32 };

static uint32_t check_init(enum check_kind k)
{
    return k == CHECK_ADLER32 ? 1u : 0u;
}

static uint32_t check_update(enum check_kind k, uint32_t v, const uint8_t *p, size_t n)
{
    if (k == CHECK_ADLER32)
        return libdeflate_adler32(v, p, n);
    if (k == CHECK_CRC32)
        return libdeflate_crc32(v, p, n);
    return 0;
}

/* Inflates one raw deflate stream from src with zlib into scratch; on
 * success *in_used is the stream's length, *produced its decoded size and
 * *check the checksum of the decoded bytes. */
static oc_status count_body(oc_cpu_worker *w, const uint8_t *src, size_t n, enum check_kind kind,
                            size_t *in_used, size_t *produced, uint32_t *check)
{
    uint8_t *scratch = oc_worker_scratch(w);
    RETURN_ERROR_IF(!scratch, OC_ERR_OUT_OF_MEMORY);
    if (!DS(w)->inflate) {
        z_stream *z = oc_host_alloc(w->ctx, sizeof(z_stream));
        RETURN_ERROR_IF(!z, OC_ERR_OUT_OF_MEMORY);
        memset(z, 0, sizeof(*z));
        if (inflateInit2(z, -15) != Z_OK) {
            oc_host_free(w->ctx, z, sizeof(z_stream));
            return OC_ERR_OUT_OF_MEMORY;
        }
        DS(w)->inflate = z;
    }
    z_stream *z = DS(w)->inflate;
    RETURN_ERROR_IF(inflateReset(z) != Z_OK, OC_ERR_INTERNAL);
    size_t fed = 0, total = 0;
    uint32_t v = check_init(kind);
    z->next_in = (Bytef *)(uintptr_t)src;
    z->avail_in = 0;
    for (;;) {
        if (z->avail_in == 0 && fed < n) { /* feed in pieces that fit zlib's uInt */
            size_t piece = n - fed > UINT_MAX ? UINT_MAX : n - fed;
            z->next_in = (Bytef *)(uintptr_t)(src + fed);
            z->avail_in = (uInt)piece;
            fed += piece;
        }
        z->next_out = scratch;
        z->avail_out = (uInt)OC_SCRATCH_SIZE;
        int ret = inflate(z, Z_NO_FLUSH);
        size_t got = OC_SCRATCH_SIZE - z->avail_out;
        v = check_update(kind, v, scratch, got);
        total += got;
        if (ret == Z_STREAM_END)
            break;
        RETURN_ERROR_IF(ret == Z_DATA_ERROR || ret == Z_NEED_DICT, OC_ERR_CORRUPT);
        RETURN_ERROR_IF(ret == Z_MEM_ERROR, OC_ERR_OUT_OF_MEMORY);
        /* Z_OK or Z_BUF_ERROR with every input byte consumed: the stream
         * wants more than the chunk holds. */
        RETURN_ERROR_IF(z->avail_in == 0 && fed == n && got < OC_SCRATCH_SIZE, OC_ERR_TRUNCATED);
        RETURN_ERROR_IF(ret != Z_OK && ret != Z_BUF_ERROR, OC_ERR_CORRUPT);
    }
    *in_used = fed - z->avail_in;
    *produced = total;
    *check = v;
    return OC_OK;
}

/* A libdeflate failure, named by zlib: TRUNCATED if the stream is cut
 * short, else CORRUPT (also when zlib accepts what libdeflate refused). */
static oc_status classify(oc_cpu_worker *w, const uint8_t *src, size_t n)
{
    size_t used, produced;
    uint32_t check;
    oc_status st = count_body(w, src, n, CHECK_NONE, &used, &produced, &check);
    return st == OC_ERR_TRUNCATED || st == OC_ERR_OUT_OF_MEMORY ? st : OC_ERR_CORRUPT;
}

static struct libdeflate_decompressor *decompressor(oc_cpu_worker *w)
{
    if (!DS(w)->d)
        DS(w)->d = libdeflate_alloc_decompressor();
    return DS(w)->d;
}

/* Decodes one raw stream without an output buffer of the caller's: with
 * libdeflate into the worker's buffer, grown up to COUNT_BUFFER_MAX (so it
 * accepts exactly what the decoder accepts), else with zlib streaming
 * through the scratch. */
static oc_status count_stream(oc_cpu_worker *w, enum check_kind kind, const uint8_t *src, size_t n,
                              size_t *in_used, size_t *produced, uint32_t *check)
{
    RETURN_ERROR_IF(!decompressor(w), OC_ERR_OUT_OF_MEMORY);
    size_t room = n < COUNT_BUFFER_MAX / 8 ? 8 * n : COUNT_BUFFER_MAX;
    if (room < ((size_t)1 << 18))
        room = (size_t)1 << 18;
    size_t used = 0, got = 0;
    uint8_t *out;
    enum libdeflate_result r;
    for (;;) {
        out = oc_worker_big(w, room);
        RETURN_ERROR_IF(!out, OC_ERR_OUT_OF_MEMORY);
        r = libdeflate_deflate_decompress_ex(DS(w)->d, src, n, out, room, &used, &got);
        if (r != LIBDEFLATE_INSUFFICIENT_SPACE || room >= COUNT_BUFFER_MAX)
            break;
        room = room > COUNT_BUFFER_MAX / 2 ? COUNT_BUFFER_MAX : 2 * room;
    }
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) /* decodes to more than the buffer: zlib counts */
        return count_body(w, src, n, kind, in_used, produced, check);
    if (r != LIBDEFLATE_SUCCESS)
        return classify(w, src, n);
    *check = check_update(kind, check_init(kind), out, got);
    *in_used = used;
    *produced = got;
    return OC_OK;
}

/* One raw deflate stream at src (followed by anything): into the sink. */
static oc_status body(oc_cpu_worker *w, sink *s, enum check_kind kind, const uint8_t *src, size_t n,
                      size_t *in_used, size_t *produced, uint32_t *check)
{
    if (s->count_only) {
        FORWARD_IF_ERROR(count_stream(w, kind, src, n, in_used, produced, check));
        s->out += *produced;
        return OC_OK;
    }
    RETURN_ERROR_IF(!decompressor(w), OC_ERR_OUT_OF_MEMORY);
    uint8_t *out = s->dst + s->out;
    size_t room = s->cap - s->out, used = 0, got = 0;
    enum libdeflate_result r = libdeflate_deflate_decompress_ex(DS(w)->d, src, n, out, room, &used, &got);
    if (r == LIBDEFLATE_BAD_DATA)
        return classify(w, src, n);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
        /* Past the end of a cut stream libdeflate reads zeros, which can
         * look like "no room": decode it elsewhere to know. */
        size_t u2, p2;
        uint32_t c2;
        FORWARD_IF_ERROR(count_stream(w, CHECK_NONE, src, n, &u2, &p2, &c2));
        return p2 > room ? OC_ERR_OUTPUT_TOO_SMALL : OC_ERR_CORRUPT;
    }
    RETURN_ERROR_IF(r != LIBDEFLATE_SUCCESS, OC_ERR_CORRUPT);
    *check = check_update(kind, check_init(kind), out, got);
    s->out += got;
    *in_used = used;
    *produced = got;
    return OC_OK;
}

/* ---- wrappers ------------------------------------------------------------- */

static oc_status run_deflate(oc_cpu_worker *w, sink *s, const uint8_t *src, size_t n)
{
    size_t used, produced;
    uint32_t check;
    FORWARD_IF_ERROR(body(w, s, CHECK_NONE, src, n, &used, &produced, &check));
    RETURN_ERROR_IF(used != n, OC_ERR_CORRUPT); /* bytes after the final block */
    return OC_OK;
}

static oc_status run_zlib(oc_cpu_worker *w, sink *s, const uint8_t *src, size_t n)
{
    RETURN_ERROR_IF(n == 0, OC_ERR_TRUNCATED);
    const unsigned cmf = src[0];
    RETURN_ERROR_IF((cmf & 0x0f) != 8 || (cmf >> 4) > 7, OC_ERR_CORRUPT);
    RETURN_ERROR_IF(n < 2, OC_ERR_TRUNCATED);
    const unsigned flg = src[1];
    RETURN_ERROR_IF((cmf << 8 | flg) % 31 != 0, OC_ERR_CORRUPT);
    RETURN_ERROR_IF(flg & 0x20, OC_ERR_NEEDS_DICTIONARY); /* FDICT: a preset dictionary */
    size_t used, produced;
    uint32_t adler;
    FORWARD_IF_ERROR(body(w, s, CHECK_ADLER32, src + 2, n - 2, &used, &produced, &adler));
    size_t rest = n - 2 - used;
    RETURN_ERROR_IF(rest < 4, OC_ERR_TRUNCATED);
    RETURN_ERROR_IF(oc_load_be32(src + 2 + used) != adler, OC_ERR_CHECKSUM_MISMATCH);
    RETURN_ERROR_IF(rest > 4, OC_ERR_CORRUPT);
    return OC_OK;
}

/* Parses a gzip member header at p; *hlen is its length. */
static oc_status gzip_header(const uint8_t *p, size_t n, size_t *hlen)
{
    static const uint8_t fixed[3] = {0x1f, 0x8b, 8};
    for (size_t i = 0; i < 3 && i < n; i++)
        RETURN_ERROR_IF(p[i] != fixed[i], OC_ERR_CORRUPT);
    RETURN_ERROR_IF(n > 3 && (p[3] & 0xE0), OC_ERR_CORRUPT); /* reserved flag bits */
    RETURN_ERROR_IF(n < 10, OC_ERR_TRUNCATED);
    const unsigned flg = p[3];
    size_t pos = 10;
    if (flg & 0x04) { /* FEXTRA: XLEN, then XLEN bytes */
        RETURN_ERROR_IF(n - pos < 2, OC_ERR_TRUNCATED);
        size_t xlen = (size_t)p[pos] | ((size_t)p[pos + 1] << 8);
        pos += 2;
        RETURN_ERROR_IF(n - pos < xlen, OC_ERR_TRUNCATED);
        pos += xlen;
    }
    for (unsigned bit = 0x08; bit <= 0x10; bit <<= 1) { /* FNAME, FCOMMENT: zero-terminated */
        if (flg & bit) {
            const uint8_t *z = memchr(p + pos, 0, n - pos);
            RETURN_ERROR_IF(!z, OC_ERR_TRUNCATED);
            pos = (size_t)(z - p) + 1;
        }
    }
    if (flg & 0x02) { /* FHCRC: low 16 bits of the CRC-32 of the header so far */
        RETURN_ERROR_IF(n - pos < 2, OC_ERR_TRUNCATED);
        uint32_t crc = libdeflate_crc32(0, p, pos) & 0xffff;
        RETURN_ERROR_IF(((uint32_t)p[pos] | ((uint32_t)p[pos + 1] << 8)) != crc, OC_ERR_CHECKSUM_MISMATCH);
        pos += 2;
    }
    *hlen = pos;
    return OC_OK;
}

/* Members one after another.  After a member, zero bytes are padding (as
 * gzip -d and Python's gzip read them) and may be followed by another
 * member or the end; with s->lenient_tail, bytes that do not begin a member
 * (no 1f 8b) end the gzip data (gzip -d's "trailing garbage ignored"),
 * s->end saying where the last member ended.  Without it they are CORRUPT:
 * a chunk of the batched layer is exactly its stream. */
static oc_status run_gzip(oc_cpu_worker *w, sink *s, const uint8_t *src, size_t n)
{
    RETURN_ERROR_IF(n == 0, OC_ERR_TRUNCATED);
    size_t pos = 0;
    s->end = 0;
    while (pos < n) {
        if (pos > 0) { /* after a member */
            size_t z = pos;
            while (z < n && src[z] == 0)
                z++;
            /* (a member whose magic was damaged is not garbage: it stays
             * and fails below, as does anything in strict mode) */
            int member_like = (n - z >= 2 && src[z] == 0x1f && src[z + 1] == 0x8b) ||
                              (n - z >= 3 && (src[z] == 0x1f || src[z + 1] == 0x8b) && src[z + 2] == 8);
            if (z == n || (s->lenient_tail && !member_like))
                break;
            RETURN_ERROR_IF(!s->lenient_tail && (src[z] != 0x1f || (n - z >= 2 && src[z + 1] != 0x8b)),
                            OC_ERR_CORRUPT);
            pos = z;
        }
        size_t hlen, used, produced;
        uint32_t crc;
        FORWARD_IF_ERROR(gzip_header(src + pos, n - pos, &hlen));
        pos += hlen;
        FORWARD_IF_ERROR(body(w, s, CHECK_CRC32, src + pos, n - pos, &used, &produced, &crc));
        pos += used;
        RETURN_ERROR_IF(n - pos < 8, OC_ERR_TRUNCATED);
        RETURN_ERROR_IF(oc_load_le32(src + pos) != crc, OC_ERR_CHECKSUM_MISMATCH);
        RETURN_ERROR_IF(oc_load_le32(src + pos + 4) != (uint32_t)produced, OC_ERR_SIZE_MISMATCH);
        pos += 8;
        s->end = pos;
    }
    return OC_OK;
}

oc_status oc_gzip_extent(oc_cpu_worker *w, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                         size_t *end, size_t *out)
{
    sink s = {dst == NULL, dst, cap, 0, 1, 0};
    FORWARD_IF_ERROR(deflate_state(w));
    FORWARD_IF_ERROR(run_gzip(w, &s, src, n));
    *end = s.end;
    *out = s.out;
    return OC_OK;
}

static oc_status run(oc_cpu_worker *w, oc_algorithm algo, sink *s, const uint8_t *src, size_t n)
{
    if (algo == OC_ALGO_ZLIB)
        return run_zlib(w, s, src, n);
    if (algo == OC_ALGO_GZIP)
        return run_gzip(w, s, src, n);
    return run_deflate(w, s, src, n);
}

static oc_status deflate_decompress(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n,
                                    uint8_t *dst, size_t cap, size_t *out)
{
    sink s = {0, dst, cap, 0, 0, 0};
    FORWARD_IF_ERROR(deflate_state(w));
    FORWARD_IF_ERROR(run(w, algo, &s, src, n));
    *out = s.out;
    return OC_OK;
}

static oc_status deflate_size(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t n, size_t *size)
{
    sink s = {1, NULL, 0, 0, 0, 0};
    FORWARD_IF_ERROR(deflate_state(w));
    FORWARD_IF_ERROR(run(w, algo, &s, src, n));
    *size = s.out;
    return OC_OK;
}

static void deflate_release(oc_cpu_worker *w)
{
    if (!DS(w))
        return;
    for (int i = 0; i < DEFLATE_LEVELS; i++) {
        libdeflate_free_compressor(DS(w)->c[i]);
        DS(w)->c[i] = NULL;
    }
    libdeflate_free_decompressor(DS(w)->d);
    DS(w)->d = NULL;
    if (DS(w)->inflate) {
        inflateEnd(DS(w)->inflate);
        oc_host_free(w->ctx, DS(w)->inflate, sizeof(z_stream));
        DS(w)->inflate = NULL;
    }
}

const oc_cpu_codec oc_cpu_codec_deflate = {deflate_compress, deflate_decompress, deflate_size,
                                           deflate_release};
