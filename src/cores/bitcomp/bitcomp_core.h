/*
 * bitcomp_core.h - the Bitcomp-class format (docs/FORMAT.md, "Bitcomp"):
 * per block of 128 elements, the cheapest of a handful of frame-of-
 * reference and bit-plane codings, for integers and floats alike; one
 * source for the CPU codec (C11) and the GPU kernels (CUDA), so both
 * engines write the same bytes and report the same statuses.
 *
 * The block codings (a kind byte each): CONST (one value), FOR (base +
 * k-bit values shifted left by s: the shift catches floats whose low
 * mantissa bits are all zero, such as TPC-H quantities), DELTA (first
 * value + minimum delta + k-bit shifted deltas: sorted keys), PLANES (the
 * bits that are the same in every element stored once, the k varying bit
 * positions packed: float weights, whose sign and low exponent bits vary
 * while the high exponent bits do not), SPARSE (a presence bitmap and FOR
 * of the non-zero elements: mostly-zero data; algorithm_type 1 tries
 * CONST, FOR and SPARSE only, and encodes faster).  The designs this
 * follows are published ones: frame of reference and delta bit-packing
 * (FastPFor, Parquet's DELTA_BINARY_PACKED), constant bit-plane
 * elimination (GPU float compressors such as Burtscher's, DietGPU's float
 * split), presence bitmaps for sparse data.
 *
 * A tile is 32 blocks (4096 elements), coded and decoded by a CTA: warp 0
 * scans the 32 block headers (their sizes and payload sizes follow from
 * the kinds), then every warp takes blocks, its lanes over elements
 * (element e = lane + 32 j, lane-consecutive): independent except DELTA,
 * a warp scan.  Encoding: a warp per block measures every candidate and
 * keeps the smallest (the first on ties), warp 0 lays the tile out, the
 * lanes pack their elements' bits.  In C a warp is one lane and the warps
 * of a phase run in turn (own_simt.h).
 */
#ifndef OC_BITCOMP_CORE_H
#define OC_BITCOMP_CORE_H

#include "../own_format.h"
#ifndef __CUDACC__
#include <math.h> /* llrint */
#endif

#define BC_BLOCK 128u
#define BC_BLOCKS 32u
#define BC_TILE (BC_BLOCK * BC_BLOCKS)
#define BC_MAX_WARPS 8u
#define BC_TILE_MAX_BYTES (BC_TILE * 8u)
#define BC_STAGE_WORDS ((BC_TILE_MAX_BYTES + 64u) / 4u)

#define BC_CONST 0u
#define BC_FOR 1u
#define BC_DELTA 2u
#define BC_PLANES 3u
#define BC_SPARSE 4u
#define BC_FOR_S 5u    /* FOR with a shift byte (s > 0) */
#define BC_DELTA_S 6u  /* DELTA with a shift byte */
#define BC_DEC 7u      /* floats that are decimals: x = v / 10^e, v frame-of-reference packed */
#define BC_KINDS 8u    /* kind bytes 0..7 name a block's coding */
#define BC_TILE_FOR 8u /* format version 2: a first kind byte 8 makes the tile one frame of reference */
#define BC_PDELTA 9u   /* version 2: DELTA with up to 32 patched (exception) values */
#define BC_PFLT 10u    /* version 2: floats, sign rotated to bit 0, down from the maximum, patched */
#define BC_NX 32u      /* the most exceptions a patched block holds */
#define BC_VERSION 2u  /* the format version the encoder writes (1 still decodes) */
#define BC_EMAX64 18u  /* the largest decimal exponent of f64 blocks */
#define BC_EMAX32 10u  /* of f32 blocks (10^10 is the largest power of ten a float holds exactly) */

/* ---- the workspace ---------------------------------------------------------------- */

typedef struct bc_block {
    uint32_t kind, k, s;  /* coding (CONST..SPARSE: FOR_S decodes as FOR), bits per value, shift */
    uint32_t wire;        /* the kind byte: kind, or FOR_S / DELTA_S when the header holds s */
    uint32_t cnt, nnz;    /* elements, non-zero elements (SPARSE) */
    uint32_t hoff, hsize; /* header byte offset (from the tile's first byte), size */
    uint64_t a, b;        /* CONST: value; FOR, SPARSE: base; DELTA: first, dmin; PLANES: mask, const */
    uint64_t poff;        /* payload bit offset (from the tile's first bit) */
    uint64_t pbits;       /* payload bits */
    uint32_t bitmap[4];   /* SPARSE: elements present */
    uint32_t nx, kx;      /* PDELTA, PFLT: exceptions, bits of their high parts */
} bc_block;

typedef struct bc_ws {
    uint32_t stage[BC_STAGE_WORDS]; /* the compressed tile (decode: input; encode: output) */
    bc_block blk[BC_BLOCKS];
    uint64_t umin[BC_BLOCKS], umax[BC_BLOCKS]; /* encoding: each block's unsigned minimum, maximum */
    uint32_t w, cnt, nb, algo;                 /* element width, elements, blocks, algorithm_type */
    uint32_t version;                          /* the chunk's format version (1 or 2) */
    uint32_t uni;                              /* encoding: the tile is one frame of reference (TILE_FOR) */
    uint32_t flt;                              /* 4: f32, 8: f64 (DEC blocks allowed), else 0 */
    uint32_t fp;                               /* any float type (PFLT blocks tried) */
    uint32_t size;                             /* the coded tile's size */
    int32_t status;
} bc_ws;

/* An element of w bytes at p (any alignment), and back.  On the GPU an
 * element at a multiple of w (a batch's chunks usually are) is one load or
 * store of w bytes instead of w byte accesses and their shifts (the
 * encoder loads each element 5-7 times: with byte loads it issued 4.1
 * warp-instructions a byte, ncu on orderkey.i64); the same bytes either
 * way (the GPU is little-endian, as the format). */
OWN_HD uint64_t bc_load(const uint8_t *p, uint32_t w)
{
#ifdef __CUDA_ARCH__
    if (((uintptr_t)p & (w - 1u)) == 0) { /* w is 1, 2, 4 or 8 */
        switch (w) {
        case 1:
            return *p;
        case 2:
            return *(const uint16_t *)p;
        case 4:
            return *(const uint32_t *)p;
        default:
            return *(const uint64_t *)p;
        }
    }
#endif
    uint64_t v = 0;
    for (uint32_t b = 0; b < w; b++)
        v |= (uint64_t)p[b] << (8 * b);
    return v;
}

OWN_HD void bc_store(uint8_t *p, uint32_t w, uint64_t v)
{
#ifdef __CUDA_ARCH__
    if (((uintptr_t)p & (w - 1u)) == 0) {
        switch (w) {
        case 1:
            *p = (uint8_t)v;
            return;
        case 2:
            *(uint16_t *)p = (uint16_t)v;
            return;
        case 4:
            *(uint32_t *)p = (uint32_t)v;
            return;
        default:
            *(uint64_t *)p = v;
            return;
        }
    }
#endif
    for (uint32_t b = 0; b < w; b++)
        p[b] = (uint8_t)(v >> (8 * b));
}

OWN_HD uint32_t bc_ctz64(uint64_t x) /* x != 0 */
{
#ifdef __CUDA_ARCH__
    return (uint32_t)(__ffsll((long long)x) - 1);
#else
    return (uint32_t)__builtin_ctzll(x);
#endif
}

OWN_HD uint32_t bc_popc64(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__popcll(x);
#else
    return (uint32_t)__builtin_popcountll(x);
#endif
}

/* The bits of x at the ones of mask, packed low (pext); and back (pdep).
 * By runs of consecutive ones: floats' masks have one to three. */
OWN_HD uint64_t bc_pext(uint64_t x, uint64_t mask)
{
    uint64_t r = 0;
    uint32_t out = 0;
    while (mask) {
        uint32_t lo = bc_ctz64(mask);
        uint64_t m = mask >> lo;
        uint32_t len = ~m ? bc_ctz64(~m) : 64u - lo;
        r |= ((x >> lo) & own_mask64(len)) << out;
        out += len;
        mask &= ~(own_mask64(len) << lo);
    }
    return r;
}

OWN_HD uint64_t bc_pdep(uint64_t x, uint64_t mask)
{
    uint64_t r = 0;
    while (mask) {
        uint32_t lo = bc_ctz64(mask);
        uint64_t m = mask >> lo;
        uint32_t len = ~m ? bc_ctz64(~m) : 64u - lo;
        r |= (x & own_mask64(len)) << lo;
        x = len < 64 ? x >> len : 0;
        mask &= ~(own_mask64(len) << lo);
    }
    return r;
}

/* ---- decimals (DEC blocks) ------------------------------------------------------------ *
 * A float x is the decimal v / 10^e when converting the integer v to the
 * float type (round to nearest even) and dividing by 10^e (IEEE 754,
 * round to nearest even) gives x's bits.  Powers of ten up to 10^22 are
 * exact doubles and up to 10^10 exact floats, so both sides compute them
 * by multiplying by ten.  Device code uses the _rn intrinsics so that no
 * contraction or fast-math flag can change a bit. */

OWN_HD double bc_p10(uint32_t e)
{
    double p = 1.0;
    for (uint32_t i = 0; i < e; i++)
        p *= 10.0;
    return p;
}

OWN_HD float bc_p10f(uint32_t e)
{
    float p = 1.0f;
    for (uint32_t i = 0; i < e; i++)
        p *= 10.0f;
    return p;
}

/* The bits of v / 10^e in the float type of `flt` (4 or 8 bytes). */
OWN_HD uint64_t bc_dec_value(int64_t v, uint32_t e, uint32_t flt)
{
    if (flt == 8) {
#ifdef __CUDA_ARCH__
        double x = __ddiv_rn(__ll2double_rn((long long)v), bc_p10(e));
        return (uint64_t)__double_as_longlong(x);
#else
        double x = (double)v / bc_p10(e);
        uint64_t b;
        memcpy(&b, &x, 8);
        return b;
#endif
    }
#ifdef __CUDA_ARCH__
    float x = __fdiv_rn(__ll2float_rn((long long)v), bc_p10f(e));
    return (uint32_t)__float_as_uint(x);
#else
    float x = (float)v / bc_p10f(e);
    uint32_t b;
    memcpy(&b, &x, 4);
    return b;
#endif
}

/* Whether the float with bits `x` is a decimal at exponent e: then *v is
 * its integer (|v| < 2^53 for doubles, 2^24 for floats). */
OWN_HD int bc_dec_exact(uint64_t x, uint32_t e, uint32_t flt, int64_t *v)
{
    double t;
    if (flt == 8) {
        double d;
#ifdef __CUDA_ARCH__
        d = __longlong_as_double((long long)x);
        t = __dmul_rn(d, bc_p10(e));
#else
        memcpy(&d, &x, 8);
        t = d * bc_p10(e);
#endif
        if (!(t > -9007199254740992.0 && t < 9007199254740992.0)) /* 2^53; false for NaN */
            return 0;
    } else {
        float f;
        uint32_t b = (uint32_t)x;
#ifdef __CUDA_ARCH__
        f = __uint_as_float(b);
        float tf = __fmul_rn(f, bc_p10f(e));
#else
        memcpy(&f, &b, 4);
        float tf = f * bc_p10f(e);
#endif
        if (!(tf > -16777216.0f && tf < 16777216.0f)) /* 2^24 */
            return 0;
        t = (double)tf;
    }
#ifdef __CUDA_ARCH__
    int64_t r = (int64_t)__double2ll_rn(t);
#else
    int64_t r = (int64_t)llrint(t);
#endif
    *v = r;
    return bc_dec_value(r, e, flt) == x;
}

/* Header bytes of a block whose kind byte is `wire`, cnt elements of w
 * bytes. */
OWN_HD uint32_t bc_header_size(uint32_t wire, uint32_t w, uint32_t cnt)
{
    switch (wire) {
    case BC_CONST:
        return w;
    case BC_FOR:
        return 1u + w;
    case BC_DELTA:
        return 1u + 2u * w;
    case BC_PLANES:
        return 2u * w;
    case BC_FOR_S:
        return 2u + w;
    case BC_DELTA_S:
        return 2u + 2u * w;
    case BC_DEC:
        return 2u + w;
    case BC_PDELTA:
        return 3u + 2u * w;
    case BC_PFLT:
        return 3u + w;
    default:
        return (cnt + 7u) / 8u + 2u + w;
    }
}

/* The coding of a kind byte (FOR_S is FOR, DELTA_S is DELTA). */
OWN_HD uint32_t bc_kind_of(uint32_t wire)
{
    return wire == BC_FOR_S ? BC_FOR : wire == BC_DELTA_S ? BC_DELTA : wire;
}

/* Payload bits of a block. */
OWN_HD uint64_t bc_payload_bits(const bc_block *b)
{
    switch (b->kind) {
    case BC_CONST:
        return 0;
    case BC_FOR:
        return (uint64_t)b->cnt * b->k;
    case BC_DELTA:
        return (uint64_t)(b->cnt - 1u) * b->k;
    case BC_PLANES:
        return (uint64_t)b->cnt * bc_popc64(b->a);
    case BC_DEC:
        return (uint64_t)b->cnt * b->k;
    case BC_PDELTA:
        return (uint64_t)(b->cnt - 1u) * b->k + (uint64_t)b->nx * (7u + b->kx);
    case BC_PFLT:
        return (uint64_t)b->cnt * b->k + (uint64_t)b->nx * (7u + b->kx);
    default:
        return (uint64_t)b->nnz * b->k;
    }
}

/* Elements per tile; elements of block b of a tile of cnt. */
OWN_HD uint32_t bc_block_count(uint32_t cnt, uint32_t b)
{
    return cnt - b * BC_BLOCK < BC_BLOCK ? cnt - b * BC_BLOCK : BC_BLOCK;
}

/* PFLT's transform of a value of `bits` bits: the sign bit to bit 0, and back. */
OWN_HD uint64_t bc_rotl1(uint64_t x, uint32_t bits)
{
    return ((x << 1) | (x >> (bits - 1u))) & own_mask64(bits);
}

OWN_HD uint64_t bc_rotr1(uint64_t y, uint32_t bits)
{
    return (y >> 1) | ((y & 1u) << (bits - 1u));
}

/* ---- staging -------------------------------------------------------------------------- */

/* Copies n bytes of a compressed tile into ws->stage (word-aligned), zero
 * slack after them; global memory read within [src, src + n) only. */
OWN_DEV void bc_stage_in(bc_ws *ws, const uint8_t *src, uint32_t n, uint32_t wp, uint32_t nw)
{
    uint32_t words = (n + 3u) / 4u + 4u;
    uint32_t per = ((words + nw - 1) / nw + 31u) & ~31u;
    uint32_t lo = wp * per < words ? wp * per : words, hi = lo + per < words ? lo + per : words;
    for (uint32_t base = lo; base < hi; base += OWN_NLANES) {
        uint32_t k = base + OWN_LANE();
        if (k >= hi)
            continue;
        uint32_t v = 0, b0 = 4u * k;
        for (uint32_t j = 0; j < 4; j++)
            if (b0 + j < n)
                v |= (uint32_t)src[b0 + j] << (8 * j);
        ws->stage[k] = v;
    }
}

/* ---- decoding ------------------------------------------------------------------------- */

/* Reads the tile's kinds and headers (warp 0): block offsets and sizes;
 * CORRUPT for a bad kind or field, or a tile whose length differs. */
OWN_DEV void bc_dec_parse(bc_ws *ws, uint32_t n, uint32_t wp, uint32_t nw)
{
    (void)nw;
    if (wp != 0)
        return;
    const uint32_t *S = ws->stage;
    uint32_t nb = ws->nb, w = ws->w, bad = 0;
    if (ws->version >= 2u && own_byte_get(S, 0) == BC_TILE_FOR) {
        /* version 2's TILE_FOR: 8, k, base (w bytes), then every element's
         * k bits; each block decodes as FOR with these fields */
        uint32_t k = own_byte_get(S, 1), hs = 2u + w;
        uint64_t base = own_bytes_get(S, 2, w);
        for (uint32_t b = OWN_LANE(); b < nb; b += OWN_NLANES) {
            bc_block *bl = &ws->blk[b];
            bl->kind = BC_FOR, bl->wire = BC_FOR, bl->k = k, bl->s = 0;
            bl->cnt = bc_block_count(ws->cnt, b), bl->nnz = 0;
            bl->hoff = hs, bl->hsize = 0;
            bl->a = base, bl->b = 0;
            bl->poff = 8ull * hs + (uint64_t)b * BC_BLOCK * k;
        }
        if (OWN_LANE() == 0)
            ws->status = k <= 8u * w && hs + ((uint64_t)ws->cnt * k + 7u) / 8u == n ? OC_OK : OC_ERR_CORRUPT;
        return;
    }
    uint32_t hcarry = nb; /* headers start after the kind bytes */
    for (uint32_t b0 = 0; b0 < nb; b0 += OWN_NLANES) {
        uint32_t b = b0 + OWN_LANE();
        uint32_t hs = 0;
        if (b < nb) {
            uint32_t wire = own_byte_get(S, b);
            /* version 2 adds PDELTA and PFLT (TILE_FOR only as the first byte, above) */
            uint32_t ok = wire < BC_KINDS || (ws->version >= 2u && (wire == BC_PDELTA || wire == BC_PFLT));
            bad |= !ok;
            hs = ok ? bc_header_size(wire, w, bc_block_count(ws->cnt, b)) : 0u;
            ws->blk[b].wire = wire;
            ws->blk[b].kind = bc_kind_of(wire);
            ws->blk[b].hsize = hs;
            ws->blk[b].cnt = bc_block_count(ws->cnt, b);
        }
        uint32_t incl = own_warp_incl_add32(hs);
        if (b < nb)
            ws->blk[b].hoff = hcarry + incl - hs;
        hcarry += own_warp_last32(incl);
    }
    if (own_warp_any(bad) || hcarry > n) {
        if (OWN_LANE() == 0)
            ws->status = OC_ERR_CORRUPT;
        return;
    }
    uint64_t pcarry = 8ull * hcarry;
    uint32_t wb = 8u * w;
    for (uint32_t b0 = 0; b0 < nb; b0 += OWN_NLANES) {
        uint32_t b = b0 + OWN_LANE();
        uint64_t bits = 0;
        if (b < nb) {
            bc_block *bl = &ws->blk[b];
            uint32_t h = bl->hoff;
            bl->k = bl->s = 0;
            bl->a = bl->b = 0;
            bl->nnz = bl->nx = bl->kx = 0;
            switch (bl->kind) {
            case BC_CONST:
                bl->a = own_bytes_get(S, h, w);
                break;
            case BC_FOR:
            case BC_DELTA: {
                uint32_t sh = bl->wire == BC_FOR_S || bl->wire == BC_DELTA_S; /* a shift byte */
                bl->k = own_byte_get(S, h);
                bl->s = sh ? own_byte_get(S, h + 1) : 0u;
                bl->a = own_bytes_get(S, h + 1 + sh, w);
                if (bl->kind == BC_DELTA)
                    bl->b = own_bytes_get(S, h + 1 + sh + w, w);
                break;
            }
            case BC_PLANES:
                bl->a = own_bytes_get(S, h, w);
                bl->b = own_bytes_get(S, h + w, w);
                bad |= (bl->a & bl->b) != 0;
                break;
            case BC_PDELTA:
            case BC_PFLT: /* k, nx, kx, then base (PFLT) or first, dmin (PDELTA) */
                bl->k = own_byte_get(S, h);
                bl->nx = own_byte_get(S, h + 1);
                bl->kx = own_byte_get(S, h + 2);
                bl->a = own_bytes_get(S, h + 3, w);
                if (bl->kind == BC_PDELTA)
                    bl->b = own_bytes_get(S, h + 3 + w, w);
                bad |= bl->k > wb || bl->kx > wb - (bl->k > wb ? wb : bl->k) || bl->nx > BC_NX ||
                       bl->nx > bl->cnt - (bl->kind == BC_PDELTA);
                break;
            case BC_DEC: /* e, k, base: floats only */
                bl->s = own_byte_get(S, h);
                bl->k = own_byte_get(S, h + 1);
                bl->a = own_bytes_get(S, h + 2, w);
                bad |= ws->flt == 0 || bl->s > (ws->flt == 8 ? BC_EMAX64 : BC_EMAX32) || bl->k > wb;
                break;
            default: { /* SPARSE */
                uint32_t bm = (bl->cnt + 7u) / 8u, nnz = 0;
                for (uint32_t q = 0; q < 4; q++) {
                    uint32_t word = 0;
                    for (uint32_t j = 0; j < 4; j++)
                        if (4 * q + j < bm)
                            word |= own_byte_get(S, h + 4 * q + j) << (8 * j);
                    bl->bitmap[q] = word;
                    nnz += own_popc32(word);
                }
                /* no bit past the block's elements */
                for (uint32_t q = 0; q < 4; q++) {
                    uint32_t lo = 32u * q;
                    if (bl->cnt <= lo)
                        bad |= bl->bitmap[q] != 0;
                    else if (bl->cnt < lo + 32u)
                        bad |= (bl->bitmap[q] >> (bl->cnt - lo)) != 0;
                }
                bl->nnz = nnz;
                bl->k = own_byte_get(S, h + bm);
                bl->s = own_byte_get(S, h + bm + 1);
                bl->a = own_bytes_get(S, h + bm + 2, w);
                break;
            }
            }
            if (bl->kind == BC_FOR || bl->kind == BC_DELTA || bl->kind == BC_SPARSE)
                bad |= bl->k > wb || bl->s >= wb || bl->k + bl->s > wb;
            bits = bc_payload_bits(bl);
        }
        uint64_t incl = own_warp_incl_add64(bits);
        if (b < nb)
            ws->blk[b].poff = pcarry + incl - bits;
        pcarry += own_warp_last64(incl);
    }
    if (own_warp_any(bad) || (pcarry + 7) / 8 != n) {
        if (OWN_LANE() == 0)
            ws->status = OC_ERR_CORRUPT;
        return;
    }
    if (OWN_LANE() == 0)
        ws->status = OC_OK;
}

/* A patched block's (PDELTA, PFLT) value of element e (the lanes of a warp
 * hold consecutive elements base + lane; every lane calls it): the k bits
 * of value i (PDELTA: i = e - 1), then the high parts of the exceptions at
 * e ORed in above them.  Exceptions are read OWN_NLANES at a time, one a
 * lane, and handed to the element's lane by a ballot and shuffles. */
OWN_DEV uint64_t bc_patched(const uint32_t *S, const bc_block *bl, uint32_t base, int has, uint32_t i)
{
    uint32_t e = base + OWN_LANE(), d = bl->kind == BC_PDELTA, k = bl->k, xw = 7u + bl->kx;
    uint64_t r = has ? own_bits_get(S, bl->poff + (uint64_t)i * k, k) : 0u;
    uint64_t x0 = bl->poff + (uint64_t)(bl->cnt - d) * k;
    for (uint32_t i0 = 0; i0 < bl->nx; i0 += OWN_NLANES) {
        uint32_t j = i0 + OWN_LANE(), pos = 0;
        uint64_t hi = 0;
        if (j < bl->nx) {
            pos = (uint32_t)own_bits_get(S, x0 + (uint64_t)j * xw, 7);
            hi = own_bits_get(S, x0 + (uint64_t)j * xw + 7u, bl->kx);
        }
        uint32_t ball = own_ballot(j < bl->nx && pos - base < OWN_NLANES);
        while (ball) {
            uint32_t src = bc_ctz64(ball);
            ball &= ball - 1u;
            uint32_t pp = own_warp_bcast32(pos, src);
            uint64_t hh = own_warp_bcast64(hi, src);
            if (pp == e && has && bl->kx)
                r |= hh << k;
        }
    }
    return r;
}

/* A patched block (PDELTA, PFLT) into out, a warp: bc_dec_blocks' loop for
 * these kinds (the CUDA engine decodes them with its own loops,
 * src/cuda/codecs/bitcomp/bitcomp_dec_gpu.cuh). */
OWN_DEV void bc_dec_patched_block(const uint32_t *S, const bc_block *bl, uint8_t *out, uint32_t w)
{
    uint64_t m = own_mask64(8u * w), carry = 0;
    for (uint32_t base = 0; base < bl->cnt; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        int live = e < bl->cnt;
        uint64_t v;
        if (bl->kind == BC_PFLT) {
            v = bc_rotr1((bl->a - bc_patched(S, bl, base, live, e)) & m, 8u * w);
        } else {
            uint64_t r = bc_patched(S, bl, base, live && e > 0, e - 1u), t = 0;
            if (live)
                t = e == 0 ? bl->a : bl->b + r;
            uint64_t incl = own_warp_incl_add64(t);
            v = (carry + incl) & m;
            carry += own_warp_last64(incl);
        }
        if (live)
            bc_store(out + (uint64_t)e * w, w, v);
    }
}

/* Decodes the blocks of warp wp (b = wp, wp + nw, ...) into dst (n-byte
 * elements; NULL: checks only, nothing else can fail). */
OWN_DEV void bc_dec_blocks(bc_ws *ws, uint8_t *dst, uint32_t wp, uint32_t nw)
{
    if (!dst)
        return;
    const uint32_t *S = ws->stage;
    uint32_t w = ws->w;
    uint64_t m = own_mask64(8u * w);
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        const bc_block *bl = &ws->blk[b];
        uint8_t *out = dst + (uint64_t)b * BC_BLOCK * w;
        if (bl->kind == BC_PFLT || bl->kind == BC_PDELTA) {
            bc_dec_patched_block(S, bl, out, w);
            continue;
        }
        uint64_t carry = 0;
        uint32_t kb = bl->kind == BC_PLANES ? bc_popc64(bl->a) : bl->k;
        for (uint32_t base = 0; base < bl->cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            int live = e < bl->cnt;
            uint64_t v = 0;
            switch (bl->kind) {
            case BC_CONST:
                v = bl->a;
                break;
            case BC_FOR:
                if (live)
                    v = (bl->a + (own_bits_get(S, bl->poff + (uint64_t)e * kb, kb) << bl->s)) & m;
                break;
            case BC_PLANES:
                if (live)
                    v = bl->b | bc_pdep(own_bits_get(S, bl->poff + (uint64_t)e * kb, kb), bl->a);
                break;
            case BC_DEC:
                if (live)
                    v = bc_dec_value(
                        own_sext((bl->a + own_bits_get(S, bl->poff + (uint64_t)e * kb, kb)) & m, 8u * w),
                        bl->s, ws->flt);
                break;
            case BC_SPARSE:
                if (live && ((bl->bitmap[e / 32] >> (e % 32)) & 1u)) {
                    uint32_t rank = 0;
                    for (uint32_t q = 0; q < e / 32; q++)
                        rank += own_popc32(bl->bitmap[q]);
                    rank += own_popc32(bl->bitmap[e / 32] & ((1u << (e % 32)) - 1u));
                    v = (bl->a + (own_bits_get(S, bl->poff + (uint64_t)rank * kb, kb) << bl->s)) & m;
                }
                break;
            default: { /* DELTA: first, then running sums of dmin + shifted values */
                uint64_t t = 0;
                if (live)
                    t = e == 0 ? bl->a
                               : bl->b + (own_bits_get(S, bl->poff + (uint64_t)(e - 1) * kb, kb) << bl->s);
                uint64_t incl = own_warp_incl_add64(t);
                v = (carry + incl) & m;
                carry += own_warp_last64(incl);
                break;
            }
            }
            if (live)
                bc_store(out + (uint64_t)e * w, w, v);
        }
    }
}

/* Copies n bytes global to global (a stored tile). */
OWN_DEV void bc_copy_bytes(const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t wp, uint32_t nw)
{
    uint32_t per = ((n + nw - 1) / nw + 31u) & ~31u;
    uint32_t lo = wp * per < n ? wp * per : n, hi = lo + per < n ? lo + per : n;
    for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
        dst[k] = src[k];
}

OWN_DEV void bc_set_tile(bc_ws *ws, uint32_t dtype, uint32_t cnt, uint32_t algo, uint32_t version,
                         uint32_t wp, uint32_t nw)
{
    (void)nw;
    if (wp == 0 && OWN_LANE() == 0) {
        ws->version = version;
        ws->uni = 0;
        ws->w = own_type_width(dtype);
        ws->flt = dtype == OC_TYPE_F64 ? 8u : dtype == OC_TYPE_F32 ? 4u : 0u;
        ws->fp = (uint32_t)own_type_is_float(dtype);
        ws->cnt = cnt;
        ws->nb = (cnt + BC_BLOCK - 1) / BC_BLOCK;
        ws->algo = algo;
        ws->status = OC_OK;
    }
}

/* Decodes one tile (n bytes at src, cnt elements of type dtype, of a
 * chunk of format version `version`) into dst (NULL: checks only); every
 * thread of the CTA; OK or CORRUPT. */
OWN_DEV oc_status bc_decode_tile(bc_ws *ws, const uint8_t *src, uint32_t n, uint32_t cnt, uint32_t dtype,
                                 uint32_t version, uint8_t *dst, uint32_t nw)
{
    uint32_t raw = cnt * own_type_width(dtype);
    if (n > raw)
        return OC_ERR_CORRUPT;
    if (n == raw) {
        if (dst)
            OWN_RUN(nw, bc_copy_bytes, src, n, dst);
        return OC_OK;
    }
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, 0u, version);
    OWN_RUN(nw, bc_stage_in, ws, src, n);
    OWN_RUN(nw, bc_dec_parse, ws, n);
    if (ws->status != OC_OK)
        return (oc_status)ws->status;
    OWN_RUN(nw, bc_dec_blocks, ws, dst);
    return OC_OK;
}

/* ---- encoding ------------------------------------------------------------------------- */

/* Frame of reference of values whose minima and maxima in both orders are
 * given (the order whose range needs fewer bits; unsigned on ties). */
OWN_HD uint64_t bc_base(uint64_t umin, uint64_t umax, int64_t smin, int64_t smax, uint64_t m)
{
    uint32_t wu = own_bits64((umax - umin) & m), ws = own_bits64(((uint64_t)smax - (uint64_t)smin) & m);
    return ws < wu ? ((uint64_t)smin & m) : umin;
}

/* Statistics of a warp's values (lanes hold v; live lanes only). */
typedef struct bc_stats {
    uint64_t umin, umax, and_, or_;
    int64_t smin, smax;
} bc_stats;

OWN_DEV void bc_stats_init(bc_stats *st)
{
    st->umin = ~(uint64_t)0;
    st->umax = 0;
    st->and_ = ~(uint64_t)0;
    st->or_ = 0;
    st->smin = INT64_MAX;
    st->smax = INT64_MIN;
}

OWN_DEV void bc_stats_add(bc_stats *st, uint64_t v, uint32_t bits)
{
    int64_t sv = own_sext(v, bits);
    st->umin = v < st->umin ? v : st->umin;
    st->umax = v > st->umax ? v : st->umax;
    st->smin = sv < st->smin ? sv : st->smin;
    st->smax = sv > st->smax ? sv : st->smax;
    st->and_ &= v;
    st->or_ |= v;
}

OWN_DEV void bc_stats_reduce(bc_stats *st)
{
    st->umin = own_warp_min_u64(st->umin);
    st->umax = own_warp_max_u64(st->umax);
    st->smin = own_warp_min_s64(st->smin);
    st->smax = own_warp_max_s64(st->smax);
    st->and_ = own_warp_and64(st->and_);
    st->or_ = own_warp_or64(st->or_);
}

/* A patched candidate (PDELTA, PFLT) of a block: found, its fields, its
 * payload bits. */
typedef struct bc_patch {
    uint32_t ok, k, nx, kx;
    uint64_t base; /* PFLT: the maximum of the rotated values; PDELTA: dmin */
    uint64_t bits;
} bc_patch;

/* Residual of element e of the block at p for a patched coding (PDELTA:
 * e >= 1, its delta minus dmin; PFLT: the maximum minus the rotated value). */
OWN_DEV uint64_t bc_patch_res(const uint8_t *p, uint32_t w, uint32_t e, int delta, uint64_t base, uint64_t m)
{
    uint64_t x = bc_load(p + (uint64_t)e * w, w);
    if (delta)
        return ((x - bc_load(p + (uint64_t)(e - 1u) * w, w)) - base) & m;
    return (base - bc_rotl1(x, 8u * w)) & m;
}

/* The cheapest patched coding of a block (warp-collective; every lane gets
 * it): values of k bits, the residuals above k bits exceptions (a 7-bit
 * position and the bits above k, kx = bits(largest residual) - k), at most
 * BC_NX of them; k from the largest residual's bits - 1 down while the
 * exceptions fit, the smallest payload kept (the largest k on ties).
 * delta: PDELTA with dmin `base`; else PFLT (its base found here).  Each
 * residual's bit length is kept as a byte (4 a word: on the GPU one word a
 * lane), so a candidate k costs byte compares and a warp sum, not a pass
 * over the block (session 11, bc_dev "hist": bench/gpu/owncodecs/NOTES.md). */
OWN_DEV bc_patch bc_patch_search(const uint8_t *p, uint32_t w, uint32_t cnt, int delta, uint64_t base,
                                 uint64_t m)
{
    bc_patch r = {0, 0, 0, 0, base, 0};
    uint32_t bits = 8u * w, d = delta ? 1u : 0u, nv = cnt - d;
    if (!delta) { /* the base: the largest rotated value */
        uint64_t mx = 0;
        for (uint32_t e = OWN_LANE(); e < cnt; e += OWN_NLANES) {
            uint64_t y = bc_rotl1(bc_load(p + (uint64_t)e * w, w), bits);
            mx = y > mx ? y : mx;
        }
        r.base = base = own_warp_max_u64(mx);
    }
    uint32_t lens[BC_BLOCK / 4u / OWN_NLANES], mb = 0;
    for (uint32_t q = 0; q < BC_BLOCK / 4u / OWN_NLANES; q++)
        lens[q] = 0;
    for (uint32_t j = 0, e = OWN_LANE(); e < cnt; j++, e += OWN_NLANES) {
        if (e >= d) {
            uint32_t b = own_bits64(bc_patch_res(p, w, e, delta, base, m));
            lens[j / 4u] |= b << (8u * (j % 4u));
            mb = b > mb ? b : mb;
        }
    }
    mb = own_warp_max32(mb);
    uint64_t best = ~(uint64_t)0;
    for (uint32_t k = mb; k-- > 0;) {
        uint32_t c = 0;
        for (uint32_t q = 0; q < BC_BLOCK / 4u / OWN_NLANES; q++) {
            uint32_t x = lens[q];
            c += ((x & 0xffu) > k) + (((x >> 8) & 0xffu) > k) + (((x >> 16) & 0xffu) > k) + ((x >> 24) > k);
        }
        c = own_warp_sum32(c);
        if (c > BC_NX)
            break;
        uint64_t cost = (uint64_t)nv * k + (uint64_t)c * (7u + mb - k);
        if (cost < best)
            best = cost, r.ok = 1, r.k = k, r.nx = c, r.kx = mb - k, r.bits = cost;
    }
    return r;
}

/* What bc_enc_choose knows of a block after its two passes (every lane
 * holds the warp's reductions; bm only in lane 0 on the GPU). */
typedef struct bc_sums {
    uint64_t fo, fx, fbase;   /* frame of reference: OR and max of v - base, the base */
    uint64_t dorr, dx, dbase; /* the same for the deltas */
    uint64_t no, nx, nbase;   /* and for the non-zero values */
    uint32_t nnz, bm[4];      /* non-zero values: count and presence bitmap */
    bc_patch pd, pf;          /* the patched candidates (ok = 0: none) */
} bc_sums;

/* The patched candidates of a block (version 2, algorithm_type 0): PDELTA
 * with DELTA's dmin, PFLT for float types. */
OWN_DEV void bc_patch_both(const bc_ws *ws, const uint8_t *p, uint32_t w, uint32_t cnt, uint64_t dbase,
                           uint64_t m, bc_patch *pd, bc_patch *pf)
{
    bc_patch none = {0, 0, 0, 0, 0, 0};
    *pd = *pf = none;
    if (ws->version < 2u || ws->algo != 0)
        return;
    if (cnt > 1)
        *pd = bc_patch_search(p, w, cnt, 1, dbase, m);
    if (ws->fp)
        *pf = bc_patch_search(p, w, cnt, 0, 0, m);
}

/* The patched candidates against the best so far (lane 0, after the
 * others: PDELTA, then PFLT, each kept only if strictly smaller). */
OWN_DEV void bc_patch_pick(bc_block *bl, const uint8_t *p, uint32_t w, uint32_t cnt, const bc_patch *pd,
                           const bc_patch *pf, uint64_t *best)
{
    if (pd->ok) {
        uint64_t c = 8ull * bc_header_size(BC_PDELTA, w, cnt) + pd->bits;
        if (c < *best) {
            *best = c;
            bl->kind = bl->wire = BC_PDELTA, bl->k = pd->k, bl->s = 0, bl->nx = pd->nx, bl->kx = pd->kx;
            bl->a = bc_load(p, w), bl->b = pd->base;
        }
    }
    if (pf->ok) {
        uint64_t c = 8ull * bc_header_size(BC_PFLT, w, cnt) + pf->bits;
        if (c < *best) {
            *best = c;
            bl->kind = bl->wire = BC_PFLT, bl->k = pf->k, bl->s = 0, bl->nx = pf->nx, bl->kx = pf->kx;
            bl->a = pf->base;
        }
    }
}

/* The rest of a block's choice, written once for the core's encoder and the
 * CUDA engine's staged one (src/cuda/codecs/bitcomp/bitcomp_kernels.cu): the
 * decimal exponent (a warp-collective pass over the block's elements at p),
 * then lane 0 writes the cheapest candidate into *bl. */
OWN_DEV void bc_enc_pick(const bc_ws *ws, bc_block *bl, const uint8_t *p, uint32_t w, uint32_t cnt,
                         uint64_t m, const bc_stats *sv, const bc_sums *t)
{
    /* decimals (f32/f64, algorithm_type 0): the block's exponent is the
     * largest of its elements' smallest ones; none if an element has none */
    int dec = ws->flt != 0 && ws->algo == 0 && sv->umin != sv->umax;
    uint32_t de = 0, ek = 0;
    int64_t vmin = INT64_MAX, vmax = INT64_MIN;
    if (dec) {
        uint32_t emax = ws->flt == 8 ? BC_EMAX64 : BC_EMAX32;
        int fail = 0;
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            if (e < cnt && !fail) {
                uint64_t x = bc_load(p + (uint64_t)e * w, w);
                int64_t v;
                uint32_t ee = 0;
                while (ee <= emax && !bc_dec_exact(x, ee, ws->flt, &v))
                    ee++;
                fail = ee > emax;
                de = ee > de && !fail ? ee : de;
            }
            if (own_warp_any(fail)) /* the block is not decimal: stop early */
                break;
        }
        dec = !own_warp_any(fail);
        de = own_warp_max32(de);
    }
    if (dec) {
        int bad = 0;
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            if (e < cnt) {
                int64_t v = 0;
                bad |= !bc_dec_exact(bc_load(p + (uint64_t)e * w, w), de, ws->flt, &v);
                vmin = v < vmin ? v : vmin;
                vmax = v > vmax ? v : vmax;
            }
        }
        dec = !own_warp_any(bad);
        vmin = own_warp_min_s64(vmin);
        vmax = own_warp_max_s64(vmax);
        ek = own_bits64((uint64_t)vmax - (uint64_t)vmin);
    }
    if (OWN_LANE() != 0)
        return;
    /* candidates, cheapest first on ties */
    uint64_t fo = t->fo, fx = t->fx, dorr = t->dorr, dx = t->dx, no = t->no, nx = t->nx;
    uint32_t fs = fo ? bc_ctz64(fo) : 0u, fk = own_bits64(fx >> fs);
    uint32_t ds = dorr ? bc_ctz64(dorr) : 0u, dk = own_bits64(dx >> ds);
    uint32_t ns = no ? bc_ctz64(no) : 0u, nk = own_bits64(nx >> ns);
    uint64_t mask = (sv->and_ ^ sv->or_) & m;
    uint64_t best;
    bl->cnt = cnt;
    bl->nx = bl->kx = 0;
    if (sv->umin == sv->umax) {
        bl->kind = bl->wire = BC_CONST;
        bl->a = sv->umin;
        best = 8ull * w;
    } else {
        bl->kind = BC_FOR, bl->wire = fs ? BC_FOR_S : BC_FOR, bl->k = fk, bl->s = fs, bl->a = t->fbase;
        best = 8ull * bc_header_size(bl->wire, w, cnt) + (uint64_t)cnt * fk;
        if (ws->algo == 0 && cnt > 1) {
            uint32_t dw = ds ? BC_DELTA_S : BC_DELTA;
            uint64_t c = 8ull * bc_header_size(dw, w, cnt) + (uint64_t)(cnt - 1) * dk;
            if (c < best) {
                best = c;
                bl->kind = BC_DELTA, bl->wire = dw, bl->k = dk, bl->s = ds, bl->a = bc_load(p, w),
                bl->b = t->dbase;
            }
        }
        if (ws->algo == 0) {
            uint64_t c = 8ull * bc_header_size(BC_PLANES, w, cnt) + (uint64_t)cnt * bc_popc64(mask);
            if (c < best) {
                best = c;
                bl->kind = bl->wire = BC_PLANES, bl->a = mask, bl->b = sv->and_ & m;
            }
        }
        if (dec) {
            uint64_t c = 8ull * bc_header_size(BC_DEC, w, cnt) + (uint64_t)cnt * ek;
            if (c < best) {
                best = c;
                bl->kind = bl->wire = BC_DEC, bl->k = ek, bl->s = de, bl->a = (uint64_t)vmin & m;
            }
        }
        if (t->nnz < cnt) {
            uint64_t c = 8ull * bc_header_size(BC_SPARSE, w, cnt) + (uint64_t)t->nnz * nk;
            if (c < best) {
                best = c;
                bl->kind = bl->wire = BC_SPARSE, bl->k = nk, bl->s = ns, bl->a = t->nbase, bl->nnz = t->nnz;
                for (uint32_t q = 0; q < 4; q++)
                    bl->bitmap[q] = t->bm[q];
            }
        }
        bc_patch_pick(bl, p, w, cnt, &t->pd, &t->pf, &best);
    }
    bl->hsize = bc_header_size(bl->wire, w, cnt);
    bl->pbits = bc_payload_bits(bl);
}

/* Chooses each block's coding (a warp per block): statistics of the
 * values, the deltas and the non-zero values, then the smallest of the
 * candidates the algorithm allows. */
OWN_DEV void bc_enc_choose(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    uint32_t w = ws->w, bits = 8u * w;
    uint64_t m = own_mask64(bits);
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        bc_block *bl = &ws->blk[b];
        uint32_t cnt = bc_block_count(ws->cnt, b);
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * w;
        bc_stats sv, sd, sn;
        bc_stats_init(&sv);
        bc_stats_init(&sd);
        bc_stats_init(&sn);
        uint32_t nnz = 0, bm[4] = {0, 0, 0, 0};
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            if (e < cnt) {
                uint64_t v = bc_load(p + (uint64_t)e * w, w);
                bc_stats_add(&sv, v, bits);
                if (e > 0)
                    bc_stats_add(&sd, (v - bc_load(p + (uint64_t)(e - 1) * w, w)) & m, bits);
                if (v) {
                    bc_stats_add(&sn, v, bits);
                    nnz++;
                }
            }
            uint32_t ball = own_ballot(e < cnt && bc_load(p + (uint64_t)(e < cnt ? e : 0) * w, w) != 0);
#ifdef __CUDA_ARCH__
            if (OWN_LANE() == 0)
                bm[base / 32] = ball;
#else
            bm[e / 32] |= ball << (e % 32);
#endif
        }
        bc_stats_reduce(&sv);
        bc_stats_reduce(&sd);
        bc_stats_reduce(&sn);
        nnz = own_warp_sum32(nnz);
        uint64_t fbase = bc_base(sv.umin, sv.umax, sv.smin, sv.smax, m);
        uint64_t dbase = cnt > 1 ? bc_base(sd.umin, sd.umax, sd.smin, sd.smax, m) : 0;
        uint64_t nbase = nnz ? bc_base(sn.umin, sn.umax, sn.smin, sn.smax, m) : 0;
        /* second pass: common trailing zeros and largest value of each coding */
        uint64_t fo = 0, fx = 0, dorr = 0, dx = 0, no = 0, nx = 0;
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            if (e < cnt) {
                uint64_t v = bc_load(p + (uint64_t)e * w, w);
                uint64_t r = (v - fbase) & m;
                fo |= r;
                fx = r > fx ? r : fx;
                if (e > 0) {
                    uint64_t d = ((v - bc_load(p + (uint64_t)(e - 1) * w, w)) - dbase) & m;
                    dorr |= d;
                    dx = d > dx ? d : dx;
                }
                if (v) {
                    uint64_t q = (v - nbase) & m;
                    no |= q;
                    nx = q > nx ? q : nx;
                }
            }
        }
        fo = own_warp_or64(fo), dorr = own_warp_or64(dorr), no = own_warp_or64(no);
        fx = own_warp_max_u64(fx), dx = own_warp_max_u64(dx), nx = own_warp_max_u64(nx);
        bc_sums t = {fo,  fx, fbase, dorr, dx, dbase, no, nx, nbase, nnz, {bm[0], bm[1], bm[2], bm[3]},
                     {0}, {0}};
        bc_patch_both(ws, p, w, cnt, dbase, m, &t.pd, &t.pf);
        if (OWN_LANE() == 0)
            ws->umin[b] = sv.umin, ws->umax[b] = sv.umax;
        bc_enc_pick(ws, bl, p, w, cnt, m, &sv, &t);
    }
}

/* Lays the tile out (warp 0): header offsets, payload offsets, size. */
OWN_DEV void bc_enc_layout(bc_ws *ws, uint32_t wp, uint32_t nw)
{
    (void)nw;
    if (wp != 0)
        return;
    uint32_t nb = ws->nb, hcarry = nb;
    for (uint32_t b0 = 0; b0 < nb; b0 += OWN_NLANES) {
        uint32_t b = b0 + OWN_LANE();
        uint32_t hs = b < nb ? ws->blk[b].hsize : 0u;
        uint32_t incl = own_warp_incl_add32(hs);
        if (b < nb)
            ws->blk[b].hoff = hcarry + incl - hs;
        hcarry += own_warp_last32(incl);
    }
    uint64_t pcarry = 8ull * hcarry;
    for (uint32_t b0 = 0; b0 < nb; b0 += OWN_NLANES) {
        uint32_t b = b0 + OWN_LANE();
        uint64_t bits = b < nb ? ws->blk[b].pbits : 0u;
        uint64_t incl = own_warp_incl_add64(bits);
        if (b < nb)
            ws->blk[b].poff = pcarry + incl - bits;
        pcarry += own_warp_last64(incl);
    }
    /* version 2: the whole tile as one frame of reference (TILE_FOR) when
     * that is strictly smaller: base the smallest element, k the bits of
     * the largest minus it */
    uint64_t lo = ~(uint64_t)0, hi = 0;
    for (uint32_t b = OWN_LANE(); b < nb; b += OWN_NLANES) {
        lo = ws->umin[b] < lo ? ws->umin[b] : lo;
        hi = ws->umax[b] > hi ? ws->umax[b] : hi;
    }
    lo = own_warp_min_u64(lo), hi = own_warp_max_u64(hi);
    uint32_t k = own_bits64(hi - lo), hs = 2u + ws->w;
    uint64_t usize = hs + ((uint64_t)ws->cnt * k + 7u) / 8u;
    uint32_t uni = ws->version >= 2u && usize < (pcarry + 7) / 8;
    if (uni) {
        for (uint32_t b = OWN_LANE(); b < nb; b += OWN_NLANES) {
            bc_block *bl = &ws->blk[b];
            bl->kind = BC_FOR, bl->wire = BC_FOR, bl->k = k, bl->s = 0, bl->a = lo;
            bl->hoff = hs, bl->hsize = 0;
            bl->pbits = (uint64_t)bl->cnt * k;
            bl->poff = 8ull * hs + (uint64_t)b * BC_BLOCK * k;
        }
    }
    if (OWN_LANE() == 0) {
        ws->uni = uni;
        ws->size = (uint32_t)(uni ? usize : (pcarry + 7) / 8);
    }
}

/* The tile header of a TILE_FOR tile (lane 0 of block 0's warp). */
OWN_DEV void bc_enc_tile_header(uint32_t *S, const bc_block *bl, uint32_t bits)
{
    own_put_bits(S, 0, BC_TILE_FOR | (bl->k << 8), 16);
    own_put_bits(S, 16, bl->a, bits);
}

OWN_DEV void bc_enc_zero(bc_ws *ws, uint32_t words, uint32_t wp, uint32_t nw)
{
    uint32_t per = ((words + nw - 1) / nw + 31u) & ~31u;
    uint32_t lo = wp * per < words ? wp * per : words, hi = lo + per < words ? lo + per : words;
    for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
        ws->stage[k] = 0;
}

/* A patched block's payload (warp-collective): every value's k low bits,
 * then the exceptions in element order, ranked by a ballot. */
OWN_DEV void bc_enc_write_patched(uint32_t *S, const bc_block *bl, const uint8_t *p, uint32_t w, uint64_t m)
{
    uint32_t d = bl->kind == BC_PDELTA, k = bl->k, xw = 7u + bl->kx, carry = 0;
    uint64_t x0 = bl->poff + (uint64_t)(bl->cnt - d) * k;
    for (uint32_t base = 0; base < bl->cnt; base += OWN_NLANES) {
        uint32_t e = base + OWN_LANE();
        int has = e < bl->cnt && e >= d;
        uint64_t r = has ? bc_patch_res(p, w, e, (int)d, d ? bl->b : bl->a, m) : 0u;
        int exc = has && own_bits64(r) > k;
        uint32_t ball = own_ballot(exc);
        uint32_t rank = carry + own_popc32(ball & ((1u << OWN_LANE()) - 1u));
        carry += own_popc32(ball);
        if (has)
            own_put_bits(S, bl->poff + (uint64_t)(e - d) * k, r & own_mask64(k), k);
        if (exc) {
            own_put_bits(S, x0 + (uint64_t)rank * xw, e, 7);
            own_put_bits(S, x0 + (uint64_t)rank * xw + 7u, r >> k, bl->kx);
        }
    }
}

/* A patched block's header (lane 0). */
OWN_DEV void bc_enc_header_patched(uint32_t *S, const bc_block *bl, uint32_t bits)
{
    uint64_t h = 8ull * bl->hoff;
    own_put_bits(S, h, bl->k | (bl->nx << 8) | (bl->kx << 16), 24);
    own_put_bits(S, h + 24, bl->a, bits);
    if (bl->kind == BC_PDELTA)
        own_put_bits(S, h + 24 + bits, bl->b, bits);
}

/* Writes the blocks of warp wp: kind byte, header, payload bits. */
OWN_DEV void bc_enc_write(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    uint32_t *S = ws->stage, w = ws->w, bits = 8u * w;
    uint64_t m = own_mask64(bits);
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        const bc_block *bl = &ws->blk[b];
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * w;
        if (OWN_LANE() == 0 && ws->uni) {
            if (b == 0)
                bc_enc_tile_header(S, bl, bits);
        } else if (OWN_LANE() == 0) {
            uint64_t h = 8ull * bl->hoff;
            own_put_bits(S, 8ull * b, bl->wire, 8);
            switch (bl->kind) {
            case BC_CONST:
                own_put_bits(S, h, bl->a, bits);
                break;
            case BC_FOR:
            case BC_DELTA: {
                uint32_t sh = bl->wire == BC_FOR_S || bl->wire == BC_DELTA_S;
                own_put_bits(S, h, bl->k | (bl->s << 8), 8u + 8u * sh);
                own_put_bits(S, h + 8u + 8u * sh, bl->a, bits);
                if (bl->kind == BC_DELTA)
                    own_put_bits(S, h + 8u + 8u * sh + bits, bl->b, bits);
                break;
            }
            case BC_PLANES:
                own_put_bits(S, h, bl->a, bits);
                own_put_bits(S, h + bits, bl->b, bits);
                break;
            case BC_DEC:
                own_put_bits(S, h, bl->s | (bl->k << 8), 16);
                own_put_bits(S, h + 16, bl->a, bits);
                break;
            case BC_PDELTA:
            case BC_PFLT:
                bc_enc_header_patched(S, bl, bits);
                break;
            default: {
                uint32_t bm = (bl->cnt + 7u) / 8u;
                for (uint32_t q = 0; q < bm; q++)
                    own_put_bits(S, h + 8ull * q, (bl->bitmap[q / 4] >> (8 * (q % 4))) & 0xffu, 8);
                own_put_bits(S, h + 8ull * bm, bl->k | (bl->s << 8), 16);
                own_put_bits(S, h + 8ull * bm + 16, bl->a, bits);
                break;
            }
            }
        }
        if (bl->kind == BC_CONST)
            continue;
        if (bl->kind == BC_PDELTA || bl->kind == BC_PFLT) {
            bc_enc_write_patched(S, bl, p, w, m);
            continue;
        }
        uint32_t kb = bl->kind == BC_PLANES ? bc_popc64(bl->a) : bl->k;
        for (uint32_t base = 0; base < bl->cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            if (e >= bl->cnt)
                continue;
            uint64_t v = bc_load(p + (uint64_t)e * w, w);
            switch (bl->kind) {
            case BC_FOR:
                own_put_bits(S, bl->poff + (uint64_t)e * kb, ((v - bl->a) & m) >> bl->s, kb);
                break;
            case BC_DELTA:
                if (e > 0)
                    own_put_bits(S, bl->poff + (uint64_t)(e - 1) * kb,
                                 (((v - bc_load(p + (uint64_t)(e - 1) * w, w)) - bl->b) & m) >> bl->s, kb);
                break;
            case BC_PLANES:
                own_put_bits(S, bl->poff + (uint64_t)e * kb, bc_pext(v, bl->a), kb);
                break;
            case BC_DEC: {
                int64_t d = 0;
                (void)bc_dec_exact(v, bl->s, ws->flt, &d); /* exact: the choice checked it */
                own_put_bits(S, bl->poff + (uint64_t)e * kb, ((uint64_t)d - bl->a) & m, kb);
                break;
            }
            default:
                if (v) {
                    uint32_t rank = 0;
                    for (uint32_t q = 0; q < e / 32; q++)
                        rank += own_popc32(bl->bitmap[q]);
                    rank += own_popc32(bl->bitmap[e / 32] & ((1u << (e % 32)) - 1u));
                    own_put_bits(S, bl->poff + (uint64_t)rank * kb, ((v - bl->a) & m) >> bl->s, kb);
                }
                break;
            }
        }
    }
}

/* Encodes one tile of cnt elements of w bytes at src: returns its size;
 * the coded tile is in the stage, or the size is cnt * w and the tile is
 * stored as it is (the caller copies src).  Every thread of the CTA. */
OWN_DEV uint32_t bc_encode_tile(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype, uint32_t algo,
                                uint32_t nw)
{
    uint32_t raw = cnt * own_type_width(dtype);
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo, BC_VERSION);
    OWN_RUN(nw, bc_enc_choose, ws, src);
    OWN_RUN(nw, bc_enc_layout, ws);
    uint32_t size = ws->size;
    if (size >= raw)
        return raw;
    OWN_RUN(nw, bc_enc_zero, ws, (size + 3u) / 4u + 4u);
    OWN_RUN(nw, bc_enc_write, ws, src);
    return size;
}

/* Copies the coded tile from the stage to global dst. */
OWN_DEV void bc_stage_out(const bc_ws *ws, uint32_t n, uint8_t *dst, uint32_t wp, uint32_t nw)
{
    uint32_t per = ((n + nw - 1) / nw + 31u) & ~31u;
    uint32_t lo = wp * per < n ? wp * per : n, hi = lo + per < n ? lo + per : n;
    for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
        dst[k] = (uint8_t)own_byte_get(ws->stage, k);
}

/* ---- chunks ----------------------------------------------------------------------------- */

/* Header flags: bit 0 = algorithm_type 1 (informative: any decoder reads
 * every block kind); the other bits zero. */
OWN_HD uint64_t bc_bound(uint64_t n)
{
    /* the most tiles: 4096-element tiles of 1-byte elements, every tile stored */
    return OWN_HEADER_SIZE + 4ull * own_tile_count(n, BC_TILE) + n;
}

typedef own_tiled bc_chunk;

OWN_HD oc_status bc_chunk_check(const uint8_t *src, size_t n, uint64_t cap, bc_chunk *k)
{
    own_header h;
    oc_status st = own_header_read_v(src, n, OWN_ID_BITCOMP, BC_VERSION, &h);
    if (st != OC_OK)
        return st;
    if (h.flags > 1)
        return OC_ERR_CORRUPT;
    return own_tiled_check(src, n, &h, BC_TILE, cap, k);
}

/* own_tiled_compress's three functions (own_format.h) for Bitcomp, whose
 * option is the algorithm_type (a uint32_t). */
OWN_DEV uint32_t bc_tile_encode(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt, uint32_t dtype,
                                uint32_t nw)
{
    return bc_encode_tile((bc_ws *)ws, tile, cnt, dtype, *(const uint32_t *)opts, nw);
}

OWN_DEV void bc_tile_put(void *ws, uint32_t size, uint8_t *dst, uint32_t nw)
{
    OWN_RUN(nw, bc_stage_out, (const bc_ws *)ws, size, dst);
}

OWN_DEV void bc_bytes_copy(const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t nw)
{
    OWN_RUN(nw, bc_copy_bytes, src, n, dst);
}

/* Compresses src[0..n) of type dtype into dst[0..cap) (algo: the
 * algorithm_type, the header's flags): own_tiled_compress's chunk (its
 * statuses; INVALID_ARGUMENT for an unknown type or algo).  Every thread
 * of the CTA; the same bytes for any nw. */
OWN_DEV oc_status bc_compress_chunk(bc_ws *ws, const uint8_t *src, uint64_t n, uint32_t dtype, uint32_t algo,
                                    uint8_t *dst, uint64_t cap, uint64_t *out, uint32_t nw)
{
    *out = 0;
    if (own_type_width(dtype) == 0 || algo > 1)
        return OC_ERR_INVALID_ARGUMENT;
    return own_tiled_compress_v(ws, &algo, src, n, OWN_ID_BITCOMP, BC_VERSION, dtype, algo, BC_TILE, dst, cap,
                                out, nw, bc_tile_encode, bc_tile_put, bc_bytes_copy);
}

/* One tile, as own_format.h's tiled codecs decode it (own_tile_decode_fn). */
OWN_DEV oc_status bc_tile_decode(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                 const own_tiled *k, uint8_t *out, uint32_t nw)
{
    return bc_decode_tile((bc_ws *)ws, tile, len, cnt, k->dtype, k->version, out, nw);
}

#ifndef __CUDACC__
/* Decodes a whole chunk on the CPU, tile after tile (dst NULL: checks
 * only): own_format.h's walk. */
static inline oc_status bc_decompress_chunk(bc_ws *ws, const uint8_t *src, size_t n, uint8_t *dst,
                                            uint64_t cap, uint64_t *out, uint32_t nw)
{
    return own_tiled_decompress(ws, src, n, dst, cap, out, nw, bc_chunk_check, bc_tile_decode);
}
#endif

#endif /* OC_BITCOMP_CORE_H */
