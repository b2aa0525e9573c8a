/*
 * cascaded_core.h - the Cascaded format (docs/FORMAT.md, "Cascaded"):
 * run-length, delta and bit-packing layers over typed integers, one source
 * for the CPU codec (src/cpu/codecs/cascaded/codec_cascaded.c, C11) and
 * the GPU kernels (src/cuda/codecs/cascaded/, CUDA), so both engines write
 * the same bytes and report the same statuses.
 *
 * Layout of the work: a chunk is cut into tiles of 16 KiB of input, each
 * encoded and decoded independently by one cooperative thread array (one
 * CTA on the GPU; a sequential emulation in C, own_simt.h).  A tile's
 * workspace (cz_ws, shared memory on the GPU) holds the compressed tile
 * (staged, word-aligned), two element buffers and the run starts.  Every
 * step is a PHASE run by all warps of the CTA, lane-consecutive, with a
 * barrier after it (OWN_RUN, own_simt.h):
 *   decode: stage the tile -> warp 0 parses the stream headers (warp scans
 *   of the block widths give every block's bit offset) -> unpack the last
 *   values -> undo the layers in reverse: delta = scan of the elements
 *   (per-warp totals, then each warp rescans its segment), run-length =
 *   unpack the run lengths, scan them into run starts, expand (each lane
 *   finds its run with one ballot-like OR of the window's run boundaries)
 *   -> copy the tile out.
 *   encode: load the tile -> the layers forward (run-length = flags,
 *   per-warp counts, compaction by ballot ranks; delta = differences) ->
 *   per stream: block statistics (min/max in both orders), warp 0 chooses
 *   widths and writes the headers, every lane packs its element's bits ->
 *   the tile, or the raw tile when coding does not make it smaller.
 * Format versions 1 and 2 are read (ws->ver: version 2 adds the stream
 * mode CZ_MODE_FOR, one width and base for a whole stream, which the parse
 * turns into the per-block table of the packed mode, so the unpack is one);
 * the encoder writes version 2 and takes, per stream, the smaller of the
 * two packed modes.
 * Everything read from a compressed tile is checked: a hostile tile ends
 * in CORRUPT, never in an access outside the workspace or the tile.
 * The GPU's tile kernel decodes with src/cuda/codecs/cascaded/
 * cascaded_tile_decode.cuh instead of cz_decode_tile (the same parse,
 * cz_dec_parse, and checks; fewer instructions an element): cz_decode_tile
 * is the CPU's decoder and the definition of the statuses.
 */
#ifndef OC_CASCADED_CORE_H
#define OC_CASCADED_CORE_H

#include "../own_format.h"

#define CZ_TILE_BYTES 16384u /* input bytes per tile (8192 elements at most) */
#define CZ_TILE_MAX 8192u    /* elements per tile, at most */
#define CZ_BLOCK 256u        /* elements per bit-packing block */
#define CZ_MAX_BLOCKS (CZ_TILE_MAX / CZ_BLOCK)
#define CZ_MAX_RLES 3u
#define CZ_MAX_DELTAS 3u
#define CZ_MAX_OPS (CZ_MAX_RLES + CZ_MAX_DELTAS)
#define CZ_MAX_STREAMS (CZ_MAX_RLES + 1u)
#define CZ_MAX_WARPS 8u
#define CZ_STAGE_WORDS ((CZ_TILE_BYTES + 64u) / 4u)
#define CZ_OP_RLE 1u
#define CZ_OP_DELTA 2u
#define CZ_RUN_BYTES 2u /* run lengths are stored as u16 (length - 1) */
#define CZ_AUTO_CANDIDATES 5u
#define CZ_VERSION 2u /* the format version the encoder writes; decoders read 1 and 2 */
#define CZ_MODE_RAW 0u
#define CZ_MODE_PACKED 1u /* a width and a base per 256-element block */
#define CZ_MODE_FOR 2u    /* version 2: one width and one base for the whole stream */

/* Elements per tile for a width: 16 KiB of input, at most 8192 elements. */
OWN_HD uint32_t cz_tile_elems(uint32_t w)
{
    return w <= 2 ? CZ_TILE_MAX : CZ_TILE_BYTES / w;
}

/* The layer order of (R run-length encodings, D deltas): RLE, delta, RLE,
 * delta, ... until both counts are used.  Returns the number of ops. */
OWN_HD uint32_t cz_ops(uint32_t rles, uint32_t deltas, uint8_t *ops)
{
    uint32_t n = 0, m = rles > deltas ? rles : deltas;
    for (uint32_t i = 0; i < m; i++) {
        if (i < rles)
            ops[n++] = CZ_OP_RLE;
        if (i < deltas)
            ops[n++] = CZ_OP_DELTA;
    }
    return n;
}

/* The candidates of OC_CASCADED_AUTO, in order of preference on ties
 * (cheapest to decode first): (rles, deltas). */
OWN_HD void cz_auto_candidate(uint32_t i, uint32_t *rles, uint32_t *deltas)
{
    /* (0,0) (0,1) (1,0) (1,1) (2,1) */
    *rles = i < 2 ? 0u : i < 4 ? 1u : 2u;
    *deltas = i == 0 || i == 2 ? 0u : 1u;
}

/* ---- the workspace ---------------------------------------------------------- */

typedef struct cz_block {
    uint64_t base;  /* frame of reference */
    uint32_t bit;   /* first bit of the block's payload, from the stream's payload */
    uint32_t width; /* bits per element */
} cz_block;

typedef struct cz_stream {
    uint32_t count; /* elements */
    uint32_t ew;    /* bytes per element: the type width, or CZ_RUN_BYTES */
    uint32_t mode;  /* CZ_MODE_RAW, CZ_MODE_PACKED or CZ_MODE_FOR */
    uint32_t data;  /* raw: first element byte; packed: first payload byte (tile offsets) */
    uint32_t size;  /* bytes of the whole stream, header included */
    uint32_t nb;    /* blocks (packed) */
} cz_stream;

typedef struct cz_ws {
    uint32_t stage[CZ_STAGE_WORDS];              /* the compressed tile, word-aligned, zero slack */
    uint64_t buf[2][CZ_TILE_BYTES / 8];          /* element buffers */
    uint16_t starts[CZ_TILE_MAX + 1];            /* run starts / run lengths */
    cz_block blk[CZ_MAX_STREAMS][CZ_MAX_BLOCKS]; /* per stream, per block (CZ_MODE_FOR: all alike) */
    uint64_t bst[4][CZ_MAX_BLOCKS];              /* encode: per block umin, umax, smin, smax */
    cz_stream st[CZ_MAX_STREAMS];
    uint64_t part64[CZ_MAX_WARPS];
    uint32_t part[CZ_MAX_WARPS];
    uint64_t seed[CZ_MAX_DELTAS]; /* first value of each delta layer, in layer order */
    uint8_t ops[CZ_MAX_OPS];
    uint32_t nops, nstreams;
    uint32_t w, cnt;  /* element width, elements of this tile */
    uint32_t pos;     /* encode: bytes written to stage */
    uint32_t cur;     /* which buf holds the current elements */
    uint32_t bitpack; /* encode: bit-packing allowed */
    uint32_t runs;    /* encode: runs of the last run-length layer */
    uint32_t ver;     /* decode: the chunk's format version (CZ_MODE_FOR from 2) */
    uint32_t bare;    /* encode: the chunk's previous tile dropped its layers (which pass goes first) */
    int32_t status;
} cz_ws;

/* The segment [lo, hi) of n elements that warp `wp` of nw handles
 * (multiples of 32, so lanes stay aligned). */
OWN_HD void cz_seg(uint32_t n, uint32_t wp, uint32_t nw, uint32_t *lo, uint32_t *hi)
{
    uint32_t seg = ((n + nw - 1) / nw + 31u) & ~31u;
    uint32_t a = wp * seg;
    *lo = a < n ? a : n;
    *hi = a + seg < n ? a + seg : n;
}

OWN_HD uint64_t cz_ld(const void *buf, uint32_t i, uint32_t w)
{
    switch (w) {
    case 1:
        return ((const uint8_t *)buf)[i];
    case 2:
        return ((const uint16_t *)buf)[i];
    case 4:
        return ((const uint32_t *)buf)[i];
    default:
        return ((const uint64_t *)buf)[i];
    }
}

OWN_HD void cz_st(void *buf, uint32_t i, uint32_t w, uint64_t v)
{
    switch (w) {
    case 1:
        ((uint8_t *)buf)[i] = (uint8_t)v;
        break;
    case 2:
        ((uint16_t *)buf)[i] = (uint16_t)v;
        break;
    case 4:
        ((uint32_t *)buf)[i] = (uint32_t)v;
        break;
    default:
        ((uint64_t *)buf)[i] = v;
        break;
    }
}

/* Element e of the stream whose elements are a layer's values (buf, width
 * w) or, for a run stream, the run lengths minus one from the starts. */
OWN_HD uint64_t cz_stream_elem(const cz_ws *ws, int runs, const void *buf, uint32_t e)
{
    if (runs)
        return (uint64_t)(ws->starts[e + 1] - ws->starts[e] - 1u);
    return cz_ld(buf, e, ws->w);
}

/* ---- staging ------------------------------------------------------------------ */

/* Copies n (<= CZ_TILE_BYTES + 16) bytes of a compressed tile into
 * ws->stage, zeroing the slack after them.  Global memory is read within
 * [src, src + n) only: whole aligned words inside it, single bytes at the
 * edges. */
OWN_DEV void cz_stage_in(cz_ws *ws, const uint8_t *src, uint32_t n, uint32_t wp, uint32_t nw)
{
    uint32_t words = (n + 3u) / 4u + 4u;
    uint32_t lo, hi;
    cz_seg(words, wp, nw, &lo, &hi);
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t k = base + OWN_LANE();
        if (k >= hi)
            continue;
        uint32_t v = 0;
        uint32_t b0 = 4u * k;
        if (b0 + 4u <= n) {
#ifdef __CUDA_ARCH__
            uintptr_t a = (uintptr_t)(src + b0);
            if ((a & 3u) == 0) {
                v = *(const uint32_t *)(src + b0);
            } else {
                const uint32_t *al = (const uint32_t *)(a & ~(uintptr_t)3);
                uint32_t sh = 8u * (uint32_t)(a & 3u);
                /* both aligned words hold bytes of [src, src + n) only when
                 * they lie inside it; otherwise read bytewise */
                if ((const uint8_t *)al >= src && (const uint8_t *)(al + 2) <= src + n)
                    v = __funnelshift_r(al[0], al[1], sh);
                else
                    v = (uint32_t)src[b0] | ((uint32_t)src[b0 + 1] << 8) | ((uint32_t)src[b0 + 2] << 16) |
                        ((uint32_t)src[b0 + 3] << 24);
            }
#else
            memcpy(&v, src + b0, 4);
#endif
        } else {
            for (uint32_t j = 0; j < 4; j++)
                if (b0 + j < n)
                    v |= (uint32_t)src[b0 + j] << (8 * j);
        }
        ws->stage[k] = v;
    }
}

/* ---- decoding --------------------------------------------------------------- */

/* Parses the tile in ws->stage (n bytes, ws->cnt elements of ws->w bytes):
 * the layer byte and every stream header, block widths, bases and bit
 * offsets.  Warp 0 only; sets ws->status. */
OWN_DEV void cz_dec_parse(cz_ws *ws, uint32_t n, uint32_t wp, uint32_t nw)
{
    (void)nw;
    if (wp != 0)
        return;
    const uint32_t *S = ws->stage;
    int32_t status = OC_OK;
    uint32_t cfg = own_byte_get(S, 0);
    uint32_t rles = cfg & 3u, deltas = (cfg >> 2) & 3u;
    uint32_t nops = 0, nstreams = 0;
    if (n < 1 || (cfg >> 4) != 0) {
        status = OC_ERR_CORRUPT;
        goto out;
    }
    nops = cz_ops(rles, deltas, ws->ops);
    {
        /* the delta layers' first values, then the streams */
        uint32_t pos = 1u + deltas * ws->w, c = ws->cnt;
        if (pos > n) {
            status = OC_ERR_CORRUPT;
            goto out;
        }
        for (uint32_t d = 0; d < deltas; d++)
            ws->seed[d] = own_bytes_get(S, 1u + d * ws->w, ws->w);
        /* streams: one per run-length layer, in layer order, then the values;
         * deltas keep the count, a run-length layer leaves one value per run */
        for (uint32_t s = 0; s <= rles; s++) {
            uint32_t before = c;
            if (pos + 3u > n) {
                status = OC_ERR_CORRUPT;
                goto out;
            }
            /* Every warp of the block parses the same header: the fields are
             * worked out in registers and stored once at the end (the same
             * values from every lane), never read back here, so no lane reads
             * what another lane or warp is storing (compute-sanitizer racecheck). */
            uint32_t count = own_bytes_get(S, pos, 2), mode = own_byte_get(S, pos + 2);
            uint32_t ew = s < rles ? CZ_RUN_BYTES : ws->w, data, nb = 0;
            uint32_t maxmode = ws->ver >= 2u ? CZ_MODE_FOR : CZ_MODE_PACKED;
            if (count == 0 || count > before || (s == rles && count != before) || mode > maxmode) {
                status = OC_ERR_CORRUPT;
                goto out;
            }
            c = count;
            uint64_t size;
            if (mode == CZ_MODE_RAW) {
                data = pos + 3u;
                size = 3ull + (uint64_t)count * ew;
            } else if (mode == CZ_MODE_FOR) {
                /* one width and one base: every 256-element block gets them,
                 * so the unpack is the packed mode's */
                nb = (count + CZ_BLOCK - 1u) / CZ_BLOCK;
                data = pos + 4u + ew;
                if ((uint64_t)data > n) {
                    status = OC_ERR_CORRUPT;
                    goto out;
                }
                uint32_t width = own_byte_get(S, pos + 3u);
                uint64_t base = own_bytes_get(S, pos + 4u, ew);
                if (width > 8u * ew) {
                    status = OC_ERR_CORRUPT;
                    goto out;
                }
                for (uint32_t b = OWN_LANE(); b < nb; b += OWN_NLANES) {
                    ws->blk[s][b].width = width;
                    ws->blk[s][b].bit = b * CZ_BLOCK * width;
                    ws->blk[s][b].base = base;
                }
                size = (uint64_t)(data - pos) + ((uint64_t)count * width + 7u) / 8u;
            } else {
                nb = (count + CZ_BLOCK - 1u) / CZ_BLOCK;
                uint32_t wpos = pos + 3u, bpos = wpos + nb;
                data = bpos + nb * ew;
                if ((uint64_t)data > n) {
                    status = OC_ERR_CORRUPT;
                    goto out;
                }
                /* block widths -> bit offsets: a warp scan over the blocks */
                uint32_t carry = 0, bad = 0;
                for (uint32_t b0 = 0; b0 < nb; b0 += OWN_NLANES) {
                    uint32_t b = b0 + OWN_LANE();
                    uint32_t width = 0, bits = 0;
                    if (b < nb) {
                        width = own_byte_get(S, wpos + b);
                        uint32_t bc = b + 1 < nb ? CZ_BLOCK : count - b * CZ_BLOCK;
                        bad |= width > 8u * ew;
                        bits = bc * width;
                    }
                    uint32_t incl = own_warp_incl_add32(bits);
                    if (b < nb) {
                        ws->blk[s][b].width = width;
                        ws->blk[s][b].bit = carry + incl - bits;
                        ws->blk[s][b].base = own_bytes_get(S, bpos + b * ew, ew);
                    }
                    carry += own_warp_last32(incl);
                }
                if (own_warp_any(bad)) {
                    status = OC_ERR_CORRUPT;
                    goto out;
                }
                size = (uint64_t)(data - pos) + (carry + 7u) / 8u;
            }
            if (pos + size > n) {
                status = OC_ERR_CORRUPT;
                goto out;
            }
            cz_stream *st = &ws->st[s];
            st->count = count;
            st->mode = mode;
            st->ew = ew;
            st->data = data;
            st->nb = nb;
            st->size = (uint32_t)size;
            pos += (uint32_t)size;
        }
        if (pos != n)
            status = OC_ERR_CORRUPT;
        nstreams = rles + 1u;
    }
out:
    if (OWN_LANE() == 0) {
        ws->status = status;
        ws->nops = nops;
        ws->nstreams = nstreams;
    }
}

/* Unpacks stream s into `out` (elements of `ow` bytes): values are
 * base + packed (mod 2^(8 ew)). */
OWN_DEV void cz_dec_unpack(cz_ws *ws, uint32_t s, void *out, uint32_t ow, uint32_t wp, uint32_t nw)
{
    const cz_stream *st = &ws->st[s];
    uint32_t lo, hi;
    cz_seg(st->count, wp, nw, &lo, &hi);
    uint64_t m = own_mask64(8u * st->ew);
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        if (e >= hi)
            continue;
        uint64_t v;
        if (st->mode == CZ_MODE_RAW) {
            v = own_bytes_get(ws->stage, (uint64_t)st->data + (uint64_t)e * st->ew, st->ew);
        } else {
            const cz_block *b = &ws->blk[s][e / CZ_BLOCK];
            uint64_t bit = 8ull * st->data + b->bit + (uint64_t)(e % CZ_BLOCK) * b->width;
            v = (b->base + own_bits_get(ws->stage, bit, b->width)) & m;
        }
        cz_st(out, e, ow, v);
    }
}

/* Delta undo, pass 1: per-warp sums of the segment. */
OWN_DEV void cz_scan_totals(cz_ws *ws, const void *buf, uint32_t c, uint32_t w, uint32_t wp, uint32_t nw)
{
    uint32_t lo, hi;
    cz_seg(c, wp, nw, &lo, &hi);
    uint64_t acc = 0;
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        if (e < hi)
            acc += cz_ld(buf, e, w);
    }
    acc = own_warp_incl_add64(acc);
    if (OWN_LANE() == OWN_NLANES - 1u)
        ws->part64[wp] = acc;
}

/* Delta undo, pass 2: seed plus inclusive prefix sums, in place (mod
 * 2^(8w)). */
OWN_DEV void cz_scan_apply(cz_ws *ws, void *buf, uint32_t c, uint32_t w, uint64_t seed, uint32_t wp,
                           uint32_t nw)
{
    uint32_t lo, hi;
    cz_seg(c, wp, nw, &lo, &hi);
    uint64_t carry = seed, m = own_mask64(8u * w);
    for (uint32_t j = 0; j < wp; j++)
        carry += ws->part64[j];
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        uint64_t v = e < hi ? cz_ld(buf, e, w) : 0;
        uint64_t incl = own_warp_incl_add64(v);
        if (e < hi)
            cz_st(buf, e, w, (carry + incl) & m);
        carry += own_warp_last64(incl);
    }
}

/* Run-length undo, pass 1: per-warp sums of the run lengths (stored as
 * length - 1 in ws->starts). */
OWN_DEV void cz_runs_totals(cz_ws *ws, uint32_t c, uint32_t wp, uint32_t nw)
{
    uint32_t lo, hi;
    cz_seg(c, wp, nw, &lo, &hi);
    uint32_t acc = 0;
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        if (e < hi)
            acc += (uint32_t)ws->starts[e] + 1u;
    }
    acc = own_warp_sum32(acc);
    if (OWN_LANE() == 0)
        ws->part[wp] = acc;
}

/* Run-length undo, pass 2: when the lengths add up to `total`, turns them
 * into run starts in place (plus the sentinel starts[c] = total);
 * otherwise CORRUPT.  Every warp sees the same sum. */
OWN_DEV void cz_runs_starts(cz_ws *ws, uint32_t c, uint32_t total, uint32_t wp, uint32_t nw)
{
    uint32_t sum = 0, carry = 0;
    for (uint32_t j = 0; j < nw; j++) {
        sum += ws->part[j];
        if (j < wp)
            carry += ws->part[j];
    }
    if (sum != total) {
        if (wp == 0 && OWN_LANE() == 0)
            ws->status = OC_ERR_CORRUPT;
        return;
    }
    uint32_t lo, hi;
    cz_seg(c, wp, nw, &lo, &hi);
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        uint32_t len = e < hi ? (uint32_t)ws->starts[e] + 1u : 0u;
        uint32_t incl = own_warp_incl_add32(len);
        if (e < hi)
            ws->starts[e] = (uint16_t)(carry + incl - len);
        carry += own_warp_last32(incl);
    }
    if (wp == nw - 1u && OWN_LANE() == 0)
        ws->starts[c] = (uint16_t)total;
}

/* Run-length undo, pass 3: out[p] = vals[run of p] for p < total, given
 * the run starts (strictly increasing, starts[c] = total).  Each warp
 * finds the run of its first position by binary search, then per window
 * of 32 positions the lanes OR together the bits of the run starts that
 * fall in the window: a lane's run is the first run plus the number of
 * starts at or before it. */
OWN_DEV void cz_runs_expand(cz_ws *ws, const void *vals, uint32_t c, void *out, uint32_t total, uint32_t w,
                            uint32_t wp, uint32_t nw)
{
    uint32_t lo, hi;
    cz_seg(total, wp, nw, &lo, &hi);
    if (lo >= hi)
        return;
    /* r: the last run with starts[r] <= lo */
    uint32_t a = 0, b = c; /* starts[a] <= lo < starts[b] */
    while (b - a > 1) {
        uint32_t mid = (a + b) / 2;
        if (ws->starts[mid] <= lo)
            a = mid;
        else
            b = mid;
    }
    uint32_t r = a;
    uint32_t lane = OWN_LANE();
    uint32_t upto = lane == 31u ? OWN_FULL : ((2u << lane) - 1u);
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t j = r + 1u + lane;
        uint32_t bit = 0;
        if (j <= c) {
            uint32_t pos = (uint32_t)ws->starts[j] - base; /* > 0 for j = r + 1 */
            if (pos < OWN_NLANES)
                bit = 1u << pos;
        }
        uint32_t M = own_warp_or32(bit);
        uint32_t p = base + lane;
        if (p < hi)
            cz_st(out, p, w, cz_ld(vals, r + own_popc32(M & upto), w));
        r += own_popc32(M);
    }
}

/* Copies the decoded tile (n bytes of buf) to dst. */
OWN_DEV void cz_copy_out(const void *buf, uint32_t n, uint8_t *dst, uint32_t wp, uint32_t nw)
{
#ifdef __CUDA_ARCH__
    const uint8_t *b = (const uint8_t *)buf;
    if (((uintptr_t)dst & 15u) == 0) {
        uint32_t v = n / 16u, lo, hi;
        cz_seg(v, wp, nw, &lo, &hi);
        for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
            ((uint4 *)dst)[k] = ((const uint4 *)b)[k];
        if (wp == nw - 1u)
            for (uint32_t k = 16u * v + OWN_LANE(); k < n; k += OWN_NLANES)
                dst[k] = b[k];
    } else {
        uint32_t lo, hi;
        cz_seg(n, wp, nw, &lo, &hi);
        for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
            dst[k] = b[k];
    }
#else
    if (wp == 0)
        memcpy(dst, buf, n);
    (void)nw;
#endif
}

/* Copies n bytes from global src to global dst (the CTA's warps). */
OWN_DEV void cz_copy_bytes(const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t wp, uint32_t nw)
{
#ifdef __CUDA_ARCH__
    uint32_t lo, hi;
    if ((((uintptr_t)src | (uintptr_t)dst) & 15u) == 0) {
        uint32_t v = n / 16u;
        cz_seg(v, wp, nw, &lo, &hi);
        for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
            ((uint4 *)dst)[k] = ((const uint4 *)src)[k];
        if (wp == nw - 1u)
            for (uint32_t k = 16u * v + OWN_LANE(); k < n; k += OWN_NLANES)
                dst[k] = src[k];
    } else {
        cz_seg(n, wp, nw, &lo, &hi);
        for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
            dst[k] = src[k];
    }
#else
    if (wp == 0 && n)
        memcpy(dst, src, n);
    (void)nw;
#endif
}

/* Decodes one tile: `src` holds its n compressed bytes, `cnt` elements of
 * w bytes go to dst (NULL: validate only).  Runs in every thread of the
 * CTA (nw warps); returns the status (OK or CORRUPT). */
OWN_DEV oc_status cz_decode_tile(cz_ws *ws, const uint8_t *src, uint32_t n, uint32_t cnt, uint32_t w,
                                 uint32_t ver, uint8_t *dst, uint32_t nw)
{
    uint32_t raw = cnt * w;
    if (n > raw)
        return OC_ERR_CORRUPT; /* coded tiles are smaller than their elements */
    if (n == raw) {            /* a tile whose coding did not pay is stored */
        if (dst)
            OWN_RUN(nw, cz_copy_bytes, src, n, dst);
        return OC_OK;
    }
    OWN_RUN(nw, cz_stage_in, ws, src, n);
#ifdef __CUDA_ARCH__
    if (threadIdx.x == 0) {
        ws->w = w;
        ws->cnt = cnt;
        ws->ver = ver;
    }
    __syncthreads();
#else
    ws->w = w;
    ws->cnt = cnt;
    ws->ver = ver;
#endif
    OWN_RUN(nw, cz_dec_parse, ws, n);
    if (ws->status != OC_OK)
        return (oc_status)ws->status;
    uint32_t rles = ws->nstreams - 1u;
    uint32_t cur = 0, c = ws->st[rles].count;
    OWN_RUN(nw, cz_dec_unpack, ws, rles, ws->buf[0], w);
    uint32_t s = rles, d = ws->nops - rles;
    for (uint32_t k = ws->nops; k-- > 0;) {
        if (ws->ops[k] == CZ_OP_DELTA) {
            d--;
            OWN_RUN(nw, cz_scan_totals, ws, ws->buf[cur], c, w);
            OWN_RUN(nw, cz_scan_apply, ws, ws->buf[cur], c, w, ws->seed[d]);
        } else {
            s--;
            /* the count before this layer: the previous run stream's, or the tile's */
            uint32_t before = s ? ws->st[s - 1].count : cnt;
            OWN_RUN(nw, cz_dec_unpack, ws, s, ws->starts, CZ_RUN_BYTES);
            OWN_RUN(nw, cz_runs_totals, ws, c);
            OWN_RUN(nw, cz_runs_starts, ws, c, before);
            if (ws->status != OC_OK)
                return (oc_status)ws->status;
            OWN_RUN(nw, cz_runs_expand, ws, ws->buf[cur], c, ws->buf[cur ^ 1u], before, w);
            cur ^= 1u;
            c = before;
        }
    }
    if (dst)
        OWN_RUN(nw, cz_copy_out, ws->buf[cur], raw, dst);
    return OC_OK;
}

/* ---- encoding ----------------------------------------------------------------- */

/* Loads the tile's cnt elements (raw bytes) into buf[0]: on the GPU by
 * 16-byte copies when src is 16-byte aligned (a batch's tiles usually
 * are; buf[0] is: the workspace is, and the stage before it is a multiple
 * of 16 bytes), else a byte per thread. */
OWN_DEV void cz_enc_load(cz_ws *ws, const uint8_t *src, uint32_t nbytes, uint32_t wp, uint32_t nw)
{
    uint8_t *b = (uint8_t *)ws->buf[0];
#ifdef __CUDA_ARCH__
    uint32_t lo, hi;
    if (((uintptr_t)src & 15u) == 0) {
        uint32_t v = nbytes / 16u;
        cz_seg(v, wp, nw, &lo, &hi);
        for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
            ((uint4 *)b)[k] = __ldg((const uint4 *)src + k);
        if (wp == nw - 1u)
            for (uint32_t k = 16u * v + OWN_LANE(); k < nbytes; k += OWN_NLANES)
                b[k] = src[k];
        return;
    }
    cz_seg(nbytes, wp, nw, &lo, &hi);
    for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
        b[k] = src[k];
#else
    if (wp == 0)
        memcpy(b, src, nbytes);
    (void)nw;
#endif
}

/* Run-length layer, pass 1: per-warp counts of run starts in buf[cur]. */
OWN_DEV void cz_rle_count(cz_ws *ws, uint32_t c, uint32_t wp, uint32_t nw)
{
    const void *x = ws->buf[ws->cur];
    uint32_t lo, hi, acc = 0;
    cz_seg(c, wp, nw, &lo, &hi);
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        if (e < hi)
            acc += e == 0 || cz_ld(x, e, ws->w) != cz_ld(x, e - 1u, ws->w);
    }
    acc = own_warp_sum32(acc);
    if (OWN_LANE() == 0)
        ws->part[wp] = acc;
}

/* Run-length layer, pass 2: run k's value to buf[cur ^ 1][k], its first
 * position to starts[k]; starts[runs] = c. */
OWN_DEV void cz_rle_compact(cz_ws *ws, uint32_t c, uint32_t wp, uint32_t nw)
{
    const void *x = ws->buf[ws->cur];
    void *y = ws->buf[ws->cur ^ 1u];
    uint32_t carry = 0, total = 0;
    for (uint32_t j = 0; j < nw; j++) {
        total += ws->part[j];
        if (j < wp)
            carry += ws->part[j];
    }
    uint32_t lo, hi;
    cz_seg(c, wp, nw, &lo, &hi);
    uint32_t lane = OWN_LANE();
    uint32_t below = lane ? (OWN_FULL >> (32u - lane)) : 0u;
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t e = base + lane;
        int flag = e < hi && (e == 0 || cz_ld(x, e, ws->w) != cz_ld(x, e - 1u, ws->w));
        uint32_t ball = own_ballot(flag);
        if (flag) {
            uint32_t k = carry + own_popc32(ball & below);
            cz_st(y, k, ws->w, cz_ld(x, e, ws->w));
            ws->starts[k] = (uint16_t)e;
        }
        carry += own_popc32(ball);
    }
    if (wp == 0 && lane == 0) {
        ws->starts[total] = (uint16_t)c;
        ws->runs = total;
    }
}

/* Delta layer k: buf[cur ^ 1][i] = x[i] - x[i - 1] mod 2^(8w), with
 * x[-1] = x[0], the layer's seed (written after the layer byte). */
OWN_DEV void cz_delta_fwd(cz_ws *ws, uint32_t c, uint32_t k, int write, uint32_t wp, uint32_t nw)
{
    const void *x = ws->buf[ws->cur];
    void *y = ws->buf[ws->cur ^ 1u];
    uint64_t m = own_mask64(8u * ws->w);
    uint32_t lo, hi;
    cz_seg(c, wp, nw, &lo, &hi);
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        if (e < hi)
            cz_st(y, e, ws->w, (cz_ld(x, e, ws->w) - cz_ld(x, e ? e - 1u : 0u, ws->w)) & m);
    }
    if (write && wp == 0 && OWN_LANE() == 0)
        own_put_bits(ws->stage, 8ull * (1u + k * ws->w), cz_ld(x, 0, ws->w), 8u * ws->w);
}

/* Frame of reference of a block from its minima and maxima in both
 * orders: the order whose range needs fewer bits (unsigned on ties). */
OWN_HD void cz_choose_base(uint64_t umin, uint64_t umax, int64_t smin, int64_t smax, uint32_t ew,
                           uint64_t *base, uint32_t *width)
{
    uint64_t m = own_mask64(8u * ew);
    uint32_t wu = own_bits64((umax - umin) & m);
    uint32_t wsg = own_bits64(((uint64_t)smax - (uint64_t)smin) & m);
    if (wsg < wu) {
        *base = (uint64_t)smin & m;
        *width = wsg;
    } else {
        *base = umin;
        *width = wu;
    }
}

/* Stream statistics: per block, base and width (a warp per block). */
OWN_DEV void cz_enc_stats(cz_ws *ws, int runs, uint32_t count, uint32_t wp, uint32_t nw)
{
    const void *x = ws->buf[ws->cur];
    uint32_t ew = runs ? CZ_RUN_BYTES : ws->w;
    uint32_t nb = (count + CZ_BLOCK - 1u) / CZ_BLOCK;
    for (uint32_t b = wp; b < nb; b += nw) {
        uint32_t e0 = b * CZ_BLOCK, e1 = e0 + CZ_BLOCK < count ? e0 + CZ_BLOCK : count;
        uint64_t umin = ~(uint64_t)0, umax = 0;
        int64_t smin = INT64_MAX, smax = INT64_MIN;
        for (uint32_t e = e0 + OWN_LANE(); e < e1; e += OWN_NLANES) {
            uint64_t v = cz_stream_elem(ws, runs, x, e);
            int64_t sv = own_sext(v, 8u * ew);
            umin = v < umin ? v : umin;
            umax = v > umax ? v : umax;
            smin = sv < smin ? sv : smin;
            smax = sv > smax ? sv : smax;
        }
        umin = own_warp_min_u64(umin);
        umax = own_warp_max_u64(umax);
        smin = own_warp_min_s64(smin);
        smax = own_warp_max_s64(smax);
        if (OWN_LANE() == 0) {
            cz_block *bl = &ws->blk[0][b];
            cz_choose_base(umin, umax, smin, smax, ew, &bl->base, &bl->width);
            ws->bst[0][b] = umin;
            ws->bst[1][b] = umax;
            ws->bst[2][b] = (uint64_t)smin;
            ws->bst[3][b] = (uint64_t)smax;
        }
    }
}

/* Stream header (warp 0): chooses raw or packed, computes the block bit
 * offsets and the stream size, and, when `write` and the stream ends
 * within the tile's raw size (ws->cnt * ws->w), puts the header bytes at
 * ws->pos (the payload follows).  Advances ws->pos by the size.  A stream
 * that ends beyond the raw size is not written: the tile is then stored
 * raw (its size only grows), and the stage (raw size + 64 bytes) is never
 * written past. */
OWN_DEV void cz_enc_header(cz_ws *ws, int runs, uint32_t count, int write, uint32_t wp, uint32_t nw)
{
    (void)nw;
    if (wp != 0)
        return;
    uint32_t ew = runs ? CZ_RUN_BYTES : ws->w;
    uint32_t nb = (count + CZ_BLOCK - 1u) / CZ_BLOCK;
    uint32_t carry = 0;
    for (uint32_t b0 = 0; b0 < nb; b0 += OWN_NLANES) {
        uint32_t b = b0 + OWN_LANE();
        uint32_t bits = 0;
        if (b < nb) {
            uint32_t bc = b + 1 < nb ? CZ_BLOCK : count - b * CZ_BLOCK;
            bits = bc * ws->blk[0][b].width;
        }
        uint32_t incl = own_warp_incl_add32(bits);
        if (b < nb)
            ws->blk[0][b].bit = carry + incl - bits;
        carry += own_warp_last32(incl);
    }
    /* the stream's own frame of reference (CZ_MODE_FOR), from the blocks'
     * minima and maxima */
    uint64_t umin = ~(uint64_t)0, umax = 0;
    int64_t smin = INT64_MAX, smax = INT64_MIN;
    for (uint32_t b = OWN_LANE(); b < nb; b += OWN_NLANES) {
        umin = ws->bst[0][b] < umin ? ws->bst[0][b] : umin;
        umax = ws->bst[1][b] > umax ? ws->bst[1][b] : umax;
        smin = (int64_t)ws->bst[2][b] < smin ? (int64_t)ws->bst[2][b] : smin;
        smax = (int64_t)ws->bst[3][b] > smax ? (int64_t)ws->bst[3][b] : smax;
    }
    umin = own_warp_min_u64(umin);
    umax = own_warp_max_u64(umax);
    smin = own_warp_min_s64(smin);
    smax = own_warp_max_s64(smax);
    uint64_t fbase;
    uint32_t fwidth;
    cz_choose_base(umin, umax, smin, smax, ew, &fbase, &fwidth);
    uint32_t packed = 3u + nb + nb * ew + (carry + 7u) / 8u;
    uint32_t forsz = 4u + ew + (uint32_t)(((uint64_t)count * fwidth + 7u) / 8u);
    uint32_t rawsz = 3u + count * ew;
    /* the smallest; packed on a tie with the stream's frame (one block),
     * raw on a tie with either */
    uint32_t mode = CZ_MODE_RAW, size = rawsz;
    if (ws->bitpack) {
        uint32_t m = forsz < packed ? CZ_MODE_FOR : CZ_MODE_PACKED, z = forsz < packed ? forsz : packed;
        if (z < rawsz)
            mode = m, size = z;
    }
    if (mode == CZ_MODE_FOR) /* every block takes the stream's width and base (cz_enc_pack) */
        for (uint32_t b = OWN_LANE(); b < nb; b += OWN_NLANES) {
            ws->blk[0][b].width = fwidth;
            ws->blk[0][b].base = fbase;
            ws->blk[0][b].bit = b * CZ_BLOCK * fwidth;
        }
    uint32_t pos = ws->pos;
    cz_stream *st = &ws->st[0];
    if (OWN_LANE() == 0) {
        st->count = count;
        st->ew = ew;
        st->mode = mode;
        st->nb = nb;
        st->size = size;
        st->data = pos + 3u + (mode == CZ_MODE_PACKED ? nb + nb * ew : mode == CZ_MODE_FOR ? 1u + ew : 0u);
    }
    if (write && pos + size <= ws->cnt * ws->w) {
        uint32_t *S = ws->stage;
        if (OWN_LANE() == 0)
            own_put_bits(S, 8ull * pos, (uint64_t)count | ((uint64_t)mode << 16), 24);
        if (mode == CZ_MODE_PACKED) {
            for (uint32_t b = OWN_LANE(); b < nb; b += OWN_NLANES) {
                own_put_bits(S, 8ull * (pos + 3u + b), ws->blk[0][b].width, 8);
                own_put_bits(S, 8ull * (pos + 3u + nb + b * ew), ws->blk[0][b].base, 8u * ew);
            }
        } else if (mode == CZ_MODE_FOR && OWN_LANE() == 0) {
            own_put_bits(S, 8ull * (pos + 3u), fwidth, 8);
            own_put_bits(S, 8ull * (pos + 4u), fbase, 8u * ew);
        }
    }
    OWN_SYNCWARP();
    if (OWN_LANE() == 0)
        ws->pos = pos + size;
}

/* Stream payload: every element's bits (packed) or bytes (raw). */
OWN_DEV void cz_enc_pack(cz_ws *ws, int runs, uint32_t wp, uint32_t nw)
{
    const void *x = ws->buf[ws->cur];
    const cz_stream *st = &ws->st[0];
    uint64_t m = own_mask64(8u * st->ew);
    uint32_t lo, hi;
    cz_seg(st->count, wp, nw, &lo, &hi);
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        if (e >= hi)
            continue;
        uint64_t v = cz_stream_elem(ws, runs, x, e);
        if (st->mode != CZ_MODE_RAW) {
            const cz_block *b = &ws->blk[0][e / CZ_BLOCK];
            own_put_bits(ws->stage, 8ull * st->data + b->bit + (uint64_t)(e % CZ_BLOCK) * b->width,
                         (v - b->base) & m, b->width);
        } else {
            own_put_bits(ws->stage, 8ull * ((uint64_t)st->data + (uint64_t)e * st->ew), v, 8u * st->ew);
        }
    }
}

/* Zeroes the stage (the tile is built by OR-ing bits into it). */
OWN_DEV void cz_enc_zero(cz_ws *ws, uint32_t words, uint32_t wp, uint32_t nw)
{
    uint32_t lo, hi;
    cz_seg(words, wp, nw, &lo, &hi);
    for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
        ws->stage[k] = 0;
}

/* Which buffer holds the current elements; reset != 0 also sets the
 * output position to `reset` (the first stream's byte). */
OWN_DEV void cz_enc_set(cz_ws *ws, uint32_t cur, uint32_t reset, uint32_t wp, uint32_t nw)
{
    (void)nw;
    if (wp == 0 && OWN_LANE() == 0) {
        ws->cur = cur;
        if (reset)
            ws->pos = reset;
    }
}

/* One stream: statistics, header, and the payload when writing and the
 * stream ends within the raw size (ws->pos is its end after the header;
 * cz_enc_header's rule). */
OWN_DEV void cz_enc_stream(cz_ws *ws, int runs, uint32_t count, int write, uint32_t nw)
{
    OWN_RUN(nw, cz_enc_stats, ws, runs, count);
    OWN_RUN(nw, cz_enc_header, ws, runs, count, write);
    if (write && ws->pos <= ws->cnt * ws->w)
        OWN_RUN(nw, cz_enc_pack, ws, runs);
}

/* Runs the layers (rles, deltas) over the tile's ws->cnt elements at src
 * (loaded into buf[0]; the layers overwrite it): returns the coded size;
 * with `write`, the coded tile is in the stage (which the caller zeroed)
 * when that size is below the raw size.  The bytes are those of the
 * format whatever nw is. */
OWN_DEV uint32_t cz_enc_layers(cz_ws *ws, const uint8_t *src, uint32_t rles, uint32_t deltas, int write,
                               uint32_t nw)
{
    uint8_t ops[CZ_MAX_OPS];
    uint32_t nops = cz_ops(rles, deltas, ops);
    uint32_t c = ws->cnt, cur = 0;
    OWN_RUN(nw, cz_enc_load, ws, src, c * ws->w);
    if (write) {
        uint32_t cfg = rles | (deltas << 2);
        if (OWN_ONE_THREAD)
            ws->stage[0] |= cfg;
    }
    OWN_RUN(nw, cz_enc_set, ws, 0u, 1u + deltas * ws->w);
    uint32_t kd = 0;
    for (uint32_t k = 0; k < nops; k++) {
        if (ops[k] == CZ_OP_RLE) {
            OWN_RUN(nw, cz_rle_count, ws, c);
            OWN_RUN(nw, cz_rle_compact, ws, c);
            c = ws->runs;
            cur ^= 1u;
            OWN_RUN(nw, cz_enc_set, ws, cur, 0u);
            cz_enc_stream(ws, 1, c, write, nw);
        } else {
            OWN_RUN(nw, cz_delta_fwd, ws, c, kd++, write);
            cur ^= 1u;
            OWN_RUN(nw, cz_enc_set, ws, cur, 0u);
        }
    }
    cz_enc_stream(ws, 0, c, write, nw);
    return ws->pos;
}

/* Sets ws->bare (one thread; the phase's barrier publishes it). */
OWN_DEV void cz_enc_hint(cz_ws *ws, uint32_t bare, uint32_t wp, uint32_t nw)
{
    (void)nw;
    if (wp == 0 && OWN_LANE() == 0)
        ws->bare = bare;
}

/* Encodes one tile of cnt elements of w bytes at src: returns its size;
 * the coded tile is left in the stage, or, when coding does not make it
 * smaller, the size is cnt * w and the tile is stored as it is (the
 * caller copies src).  rles > CZ_MAX_RLES asks for the automatic choice
 * (each candidate sized without writing).  The layers run once, writing
 * into a stage zeroed over the raw size: a stream is written only while it
 * ends within it (cz_enc_header), so there is no sizing pass first (until
 * session 8 there was one: bench/gpu/owncodecs/NOTES.md, "Cascaded
 * compression in one pass").  Runs in every thread of the CTA. */
OWN_DEV uint32_t cz_encode_tile(cz_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t w, uint32_t rles,
                                uint32_t deltas, uint32_t bitpack, uint32_t nw)
{
    uint32_t raw = cnt * w;
#ifdef __CUDA_ARCH__
    if (threadIdx.x == 0) {
        ws->w = w;
        ws->cnt = cnt;
        ws->bitpack = bitpack;
    }
    __syncthreads();
#else
    ws->w = w;
    ws->cnt = cnt;
    ws->bitpack = bitpack;
#endif
    uint32_t chosen = rles > CZ_MAX_RLES; /* automatic: (0,0) was a candidate */
    if (chosen) {
        uint32_t best = ~0u;
        for (uint32_t i = 0; i < CZ_AUTO_CANDIDATES; i++) {
            uint32_t r, d;
            cz_auto_candidate(i, &r, &d);
            uint32_t size = cz_enc_layers(ws, src, r, d, 0, nw);
            if (size < best) {
                best = size;
                rles = r;
                deltas = d;
            }
        }
    }
    /* bytes written: within the raw size, the configuration byte and the
     * delta layers' seeds (1 + 3 * 8 bytes, for tiles of a few bytes) */
    uint32_t zb = raw > 32u ? raw : 32u;
    if (!bitpack || chosen || (rles | deltas) == 0u) {
        OWN_RUN(nw, cz_enc_zero, ws, (zb + 3u) / 4u + 4u);
        uint32_t size = cz_enc_layers(ws, src, rles, deltas, 1, nw);
        return size >= raw ? raw : size;
    }
    /* Layers that do not pay are dropped (docs/FORMAT.md, "What the encoder
     * chooses"): with bit-packing, a tile whose values packed without any
     * layer (R = D = 0) come out strictly smaller takes that instead, as
     * nvCOMP's output does (its ratio on random keys and dates is that of
     * plain bit-packing: bench/gpu/owncodecs/NOTES.md, "Cascaded: layers that
     * do not pay").  One form is written and the other only sized (no
     * payload), then the written one is rewritten only when the other wins;
     * which goes first is what the chunk's previous tile took (ws->bare), so
     * a column's tiles usually pay one write and one sizing pass (session 11,
     * call B: writing the layers first, then sizing and writing the bare
     * form, cost the i32 columns 25% of their compression speed).  The order
     * never changes the bytes: the bare form wins when strictly smaller. */
    uint32_t bare, layered;
    OWN_RUN(nw, cz_enc_zero, ws, (zb + 3u) / 4u + 4u);
    if (ws->bare) {
        bare = cz_enc_layers(ws, src, 0u, 0u, 1, nw);
        layered = cz_enc_layers(ws, src, rles, deltas, 0, nw);
        if (bare >= layered) {
            OWN_RUN(nw, cz_enc_zero, ws, (zb + 3u) / 4u + 4u);
            cz_enc_layers(ws, src, rles, deltas, 1, nw);
        }
    } else {
        layered = cz_enc_layers(ws, src, rles, deltas, 1, nw);
        bare = cz_enc_layers(ws, src, 0u, 0u, 0, nw);
        if (bare < layered && bare < raw) {
            OWN_RUN(nw, cz_enc_zero, ws, (zb + 3u) / 4u + 4u);
            cz_enc_layers(ws, src, 0u, 0u, 1, nw);
        }
    }
    uint32_t size = bare < layered ? bare : layered;
    OWN_RUN(nw, cz_enc_hint, ws, bare < layered);
    return size >= raw ? raw : size;
}

/* ---- chunks ------------------------------------------------------------------- */

/* The layer options of a chunk: rles 0..3 and deltas 0..3, or rles 4 for
 * the automatic choice; bitpack 0/1. */
typedef struct cz_layers {
    uint32_t rles, deltas, bitpack;
} cz_layers;

/* Worst-case chunk size for n input bytes (every tile stored). */
OWN_HD uint64_t cz_bound(uint64_t n)
{
    /* the most tiles: 8192-element tiles of 1-byte elements */
    return OWN_HEADER_SIZE + 4ull * own_tile_count(n, CZ_TILE_MAX) + n;
}

/* What a chunk header says, after the checks that need no tile. */
typedef own_tiled cz_chunk;

/* Checks a chunk's header, tile table and total length.  TRUNCATED when
 * src ends before the chunk does, CORRUPT for a bad header or a chunk
 * longer than its tiles, OUTPUT_TOO_SMALL when the decoded size exceeds
 * cap (checked last). */
OWN_HD oc_status cz_chunk_check(const uint8_t *src, size_t n, uint64_t cap, cz_chunk *k)
{
    own_header h;
    oc_status st = own_header_read_v(src, n, OWN_ID_CASCADED, CZ_VERSION, &h);
    if (st != OC_OK)
        return st;
    if (h.flags != 0)
        return OC_ERR_CORRUPT;
    return own_tiled_check(src, n, &h, cz_tile_elems(own_type_width(h.dtype)), cap, k);
}

/* own_tiled_compress's three functions (own_format.h) for Cascaded, whose
 * options are the cz_layers. */
OWN_DEV uint32_t cz_tile_encode(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt, uint32_t dtype,
                                uint32_t nw)
{
    const cz_layers *L = (const cz_layers *)opts;
    return cz_encode_tile((cz_ws *)ws, tile, cnt, own_type_width(dtype), L->rles, L->deltas, L->bitpack, nw);
}

OWN_DEV void cz_tile_put(void *ws, uint32_t size, uint8_t *dst, uint32_t nw)
{
    OWN_RUN(nw, cz_copy_out, ((cz_ws *)ws)->stage, size, dst);
}

OWN_DEV void cz_bytes_copy(const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t nw)
{
    OWN_RUN(nw, cz_copy_bytes, src, n, dst);
}

/* Compresses src[0..n) of type dtype into dst[0..cap) with the layers L:
 * own_tiled_compress's chunk (its statuses; INVALID_ARGUMENT for an
 * unknown type).  Runs in every thread of the CTA; the same bytes for any
 * nw. */
OWN_DEV oc_status cz_compress_chunk(cz_ws *ws, const uint8_t *src, uint64_t n, uint32_t dtype, cz_layers L,
                                    uint8_t *dst, uint64_t cap, uint64_t *out, uint32_t nw)
{
    *out = 0;
    uint32_t w = own_type_width(dtype);
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    OWN_RUN(nw, cz_enc_hint, ws, 0u); /* a chunk's first tile writes its layers first */
    return own_tiled_compress_v(ws, &L, src, n, OWN_ID_CASCADED, CZ_VERSION, dtype, 0, cz_tile_elems(w), dst,
                                cap, out, nw, cz_tile_encode, cz_tile_put, cz_bytes_copy);
}

/* One tile, as own_format.h's tiled codecs decode it (own_tile_decode_fn). */
OWN_DEV oc_status cz_tile_decode(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                 const own_tiled *k, uint8_t *out, uint32_t nw)
{
    return cz_decode_tile((cz_ws *)ws, tile, len, cnt, k->w, k->version, out, nw);
}

#ifndef __CUDACC__
/* Decodes a whole chunk on the CPU, tile after tile (dst NULL: checks
 * only, as a size query does): own_format.h's walk. */
static inline oc_status cz_decompress_chunk(cz_ws *ws, const uint8_t *src, size_t n, uint8_t *dst,
                                            uint64_t cap, uint64_t *out, uint32_t nw)
{
    return own_tiled_decompress(ws, src, n, dst, cap, out, nw, cz_chunk_check, cz_tile_decode);
}
#endif

#endif /* OC_CASCADED_CORE_H */
