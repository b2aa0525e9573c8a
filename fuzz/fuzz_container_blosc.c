/*
 * fuzz_container_blosc.c - Blosc 1.x chunks (OC_ALGO_BLOSC) on the CPU
 * engine and through the GPU decoder's cores, on any bytes.
 *
 * The CPU engine checks a chunk's whole layout with our parser
 * (src/common/blosc_format.h) and then hands it to Debian's libblosc,
 * which is not built with the sanitizers: so the chunk is also placed to
 * end right before an inaccessible page (and the output likewise), and a
 * read or write by libblosc past either end faults.  The same bytes go
 * through tests/c/helpers/blosc_ref.h, the GPU decoder's rules on the host
 * (layout walk, our BloscLZ, our unshuffles, zlib streams through the GPU
 * inflate core with c-blosc's rules, blosc_zlib_core.h; inner LZ4/Snappy/
 * Zstd streams by their libraries) in exactly-sized malloc buffers (ASan).
 * Seeds include split zlib streams and a zlib stream with bytes after its
 * Adler-32 (which libblosc accepts).
 *
 * Byte 0: bits 0-1 the output capacity (0: the header's nbytes, 1: one
 * byte less, both at most 16 MiB; 2: fuzz_out_capacity; 3: 0 bytes); bit 2: also decode
 * through oc_buffer_* with a RAW Blosc hint.  The rest is the chunk.
 *
 * Must hold, else abort():
 *   - the size query gives the layout's status (header, then every
 *     stream's csize word and extent) and, when OK, the header's nbytes,
 *     or CORRUPT for an nbytes above the table's bound (max_expansion);
 *     any OK decode had an OK size query of the same size;
 *   - an OK decode wrote nbytes <= capacity bytes; with the capacity one
 *     byte short of nbytes it is OUTPUT_TOO_SMALL;
 *   - the CPU engine (libblosc) and the cores agree on OK, and where both
 *     are OK on every byte; where they disagree on a failure they may name
 *     different statuses (libblosc gives no reason, CORRUPT stands in).
 */
#define _DEFAULT_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include <stdio.h>

#include "../tests/c/helpers/blosc_ref.h"
#include "fuzz_common.h"

/* Aborts with what went wrong and the chunk's header fields. */
static void fail(const char *what, const uint8_t *p, size_t n, oc_status a, oc_status b)
{
    fprintf(stderr, "fuzz_container_blosc: %s (%s / %s), %zu bytes", what, oc_status_name(a),
            oc_status_name(b), n);
    if (n >= OC_BLOSC_HEADER_SIZE)
        fprintf(stderr, ", header %02x %02x flags %02x typesize %u nbytes %u blocksize %u cbytes %u", p[0],
                p[1], p[2], p[3], (unsigned)oc_load_le32(p + 4), (unsigned)oc_load_le32(p + 8),
                (unsigned)oc_load_le32(p + 12));
    fprintf(stderr, "\n");
    abort();
}

/* n bytes ending right before a PROT_NONE page; *base / *len for unmap. */
static uint8_t *guarded(size_t n, void **base, size_t *len)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    size_t body = (n + pg - 1) / pg * pg;
    *len = body + pg;
    uint8_t *m = (uint8_t *)mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        abort();
    if (mprotect(m + body, pg, PROT_NONE) != 0)
        abort();
    *base = m;
    return m + body - n;
}

static oc_status cpu_size(const uint8_t *in, size_t n, size_t *size)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BLOSC;
    const void *sp = in;
    oc_status st = OC_ERR_INTERNAL;
    *size = 0;
    if (oc_batch_decompressed_sizes(fuzz_ctx(), &o, 1, &sp, &n, size, &st) != OC_OK)
        abort();
    return st;
}

static oc_status cpu_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *size)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BLOSC;
    const void *sp = in;
    void *dp = out;
    oc_status st = OC_ERR_INTERNAL;
    *size = 0;
    if (oc_batch_decompress(fuzz_ctx(), &o, 1, &sp, &n, &dp, &cap, size, &st) != OC_OK)
        abort();
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int mode = data[0] & 3, buffer_api = (data[0] >> 2) & 1;
    data++;
    size--;
    void *in_base;
    size_t in_len;
    uint8_t *in = guarded(size, &in_base, &in_len);
    if (size)
        memcpy(in, data, size);

    /* the layout as the size query must see it: header, every stream */
    oc_blosc_header h;
    oc_status layout = oc_blosc_parse_header(in, size, &h);
    for (uint32_t b = 0; layout == OC_OK && b < h.nblocks; b++) {
        oc_blosc_stream s;
        layout = oc_blosc_find_stream(in, &h, b, oc_blosc_block_streams(&h, b) - 1, &s);
    }
    size_t nbytes = layout == OC_OK ? h.nbytes : 0;
    /* a size more than `size` bytes can decode to (the table's max_expansion
     * + 64 KiB, opencomp.h) is CORRUPT whatever the layout says */
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    if (oc_algorithm_get_info(OC_ALGO_BLOSC, &info) != OC_OK)
        abort();
    oc_status want_q = layout;
    if (layout == OC_OK && (uint64_t)nbytes > (uint64_t)size * info.max_expansion + 65536)
        want_q = OC_ERR_CORRUPT;
    size_t qsize = 0;
    oc_status qst = cpu_size(in, size, &qsize);
    if (qst != want_q || (qst == OC_OK && qsize != nbytes))
        fail("size query against the layout", in, size, qst, want_q);

    /* a 64 KiB chunk of zstd streams can claim and fill 2 GiB: 16 MiB at most */
    size_t big = (size_t)16 << 20, want = nbytes < big ? nbytes : big;
    size_t caps[4] = {want, want ? want - 1 : 0, fuzz_out_capacity(size), 0};
    size_t cap = caps[mode];
    void *out_base;
    size_t out_len;
    uint8_t *out = guarded(cap, &out_base, &out_len);
    size_t got = 0;
    oc_status st = cpu_decode(in, size, out, cap, &got);
    if (st == OC_OK && (qst != OC_OK || got != qsize || got > cap))
        fail("decoded size against the size query", in, size, st, qst);
    if (st == OC_OK && mode == 1 && nbytes > 0)
        fail("one byte short decoded", in, size, st, qst);

    /* the cores, in exactly-sized heap buffers */
    uint8_t *rin = fuzz_copy(data, size);
    uint8_t *rout = (uint8_t *)malloc(cap ? cap : 1);
    if (!rout)
        abort();
    size_t rgot = 0;
    oc_status rst = blosc_ref_decode(rin, size, rout, cap, &rgot);
    if ((rst == OC_OK) != (st == OC_OK))
        fail("the cores and libblosc disagree", in, size, rst, st);
    if (rst == OC_OK && (rgot != got || (got && memcmp(rout, out, got) != 0)))
        fail("the cores and libblosc decode different bytes", in, size, rst, st);
    free(rout);
    free(rin);

    if (buffer_api) {
        oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
        hint.algorithm = OC_ALGO_BLOSC;
        hint.kind = OC_BITSTREAM_RAW;
        fuzz_decode(data, size, &hint);
    }
    munmap(out_base, out_len);
    munmap(in_base, in_len);
    return 0;
}
