/*
 * deflate_enc_core.h - a Deflate (RFC 1951) compressor, with the zlib (RFC
 * 1950) and gzip (RFC 1952) wrappers, written once for two compilers: nvcc,
 * where one WARP compresses one chunk (deflate_enc_kernels.cu), and a C11
 * compiler, where one thread does.  The 32 lanes' parts are written as
 * loops over 32 "virtual lanes" on the host, so both builds write the same
 * bytes: tests/c/test_deflate_gpu_enc_core.c checks the host build against
 * zlib, libdeflate and the GPU inflate core on every commit, and the GPU
 * test checks the GPU's bytes equal the host build's.
 *
 * A chunk is cut into segments of at most 64 KiB; each becomes one block
 * (BFINAL on the last): parse -> histogram -> Huffman codes -> the smallest
 * of a dynamic, fixed or stored block, sized exactly before anything is
 * written (so OUTPUT_TOO_SMALL exactly when the stream does not fit, and the
 * output never exceeds libdeflate's bound).  Matches reach 32 KiB back,
 * across segments, never before the chunk.
 *
 * Parsers (de_level_params):
 *   greedy (level 1): windows of 32 positions, one per lane: the window's
 *     128 bytes (and the next 128) are in registers, a word a lane, read by
 *     shuffles and passed on to the next window by shuffles; each
 *     lane hashes 4 bytes into a 4096-entry table of 16-bit positions
 *     (shared memory) and checks its one candidate, measuring it 16 bytes
 *     forwards and 4 back with the same loads; the first lane that matches
 *     wins, the match is extended forwards 128 bytes per ballot and
 *     backwards over the pending literals; positions up to it are inserted
 *     (of lanes with the same hash the highest writes).  One dependent
 *     global round trip per window, the candidate's, in most windows
 *     (bench/gpu/dev/DEFLATE_NOTES.md, "Level 1 v4").
 *   lazy (levels >= 2): a hash of 4 bytes into buckets of the last 8 or 16
 *     positions (global scratch); windows of 4 positions x 8 candidates (a
 *     lane each) measure every candidate's length at once; the parse takes
 *     at each position the longest, and waits one position when the next
 *     one's match is longer (lazy evaluation, like zlib's); every position
 *     is inserted, in order.
 * Entropy coding: item histogram (shared-memory atomics), Huffman code
 * lengths on lane 0 (rank sort of the used symbols by the warp, in-place
 * Moffat-Katajainen lengths, then the overflow fix that limits them to 15 /
 * 7 bits), the code-length sequence with repeat codes 16/17/18; items are
 * then written 32 at a time: a lane per item computes its bits, a warp
 * prefix sum places them, and they are OR-ed into a shared staging buffer
 * that is flushed to the output in whole bytes.
 *
 * Safety: reads stay inside the chunk; writes never pass the capacity
 * (every block's exact size is checked first).
 */
#ifndef OC_DEFLATE_ENC_CORE_H
#define OC_DEFLATE_ENC_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../../common/deflate_tables.h"
#include "../../../common/portable.h"
#include "deflate_checksum_core.h"
#include "opencomp.h"

#ifdef __CUDACC__
#define DE_GPU 1
#else
#define DE_GPU 0
#endif

/* The lanes of a window: on the GPU the thread's own lane; on the host a
 * loop over all 32.  Per-lane values are DE_LV(type) (one register on the
 * GPU, an array of 32 on the host) read with DE_L(v, j). */
#if DE_GPU
#define DE_LANES(j) for (uint32_t j = OC_LANE(), j##_once = 1; j##_once; j##_once = 0)
#define DE_LV(type, name) type name
#define DE_L(name, j) (name)
#define DE_BALLOT(mask, j, cond)                                                                             \
    do {                                                                                                     \
        (mask) = __ballot_sync(0xffffffffu, (cond));                                                         \
    } while (0)
#define DE_FROM(name, j) __shfl_sync(0xffffffffu, (name), (j))
#else
#define DE_LANES(j) for (uint32_t j = 0; j < 32; j++)
#define DE_LV(type, name) type name[32]
#define DE_L(name, j) (name[j])
#define DE_BALLOT(mask, j, cond)                                                                             \
    do {                                                                                                     \
        (mask) = 0;                                                                                          \
        for (uint32_t j = 0; j < 32; j++)                                                                    \
            (mask) |= (cond) ? 1u << j : 0u;                                                                 \
    } while (0)
#define DE_FROM(name, j) ((name)[j])
#endif

#define DE_SEG 32768u    /* input bytes per block */
#define DE_WINDOW 32768u /* Deflate's window */
#define DE_MAXLEN 258u   /* longest match */
#define DE_HT_LOG 12     /* greedy: 4096 hash entries */
#define DE_STAGE 256u    /* words of output staging */
#define DE_BUCKET_LOG 11 /* lazy: 2048 buckets */
#define DE_WAYS_MAX 128u /* lazy: positions per bucket, at most */
#define DE_ITEM_MATCH 0x80000000u

/* Levels (the API's 1..12, libdeflate's scale) -> parser. */
typedef struct de_params {
    int lazy;      /* 0 greedy, 1 lazy */
    int lazy2;     /* lazy: also wait two positions for a match two bytes longer */
    uint32_t ways; /* lazy: positions per bucket (8 or 16) */
    uint32_t nice; /* lazy: stop looking at a match this long */
} de_params;

#ifndef DE_TUNE
/* 1: greedy; 2: 8 ways; 3-5: 16; 6 (default): 32; 7-8: 64; 9-12: 128 (ratios
 * against zlib -6 in bench/gpu/dev/DEFLATE_NOTES.md). */
OC_INLINE de_params de_level_params(int level)
{
    de_params p;
    p.lazy = level >= 2;
    p.ways = level <= 2 ? 8u : level <= 5 ? 16u : level == 6 ? 32u : level <= 8 ? 64u : 128u;
    p.nice = level <= 5 ? 64u : DE_MAXLEN;
    p.lazy2 = level >= 8;
    return p;
}
#else /* bench/gpu/dev experiments define their own */
DE_TUNE
#endif

/* The warp's shared workspace (8 KiB). */
typedef struct de_shared {
    /* The greedy parser's hash table and a block's entropy coding share the
     * room (8 KiB a warp, not 15: 22 warps an SM instead of 14): the table
     * lives in the scratch while a block is written (de_compress_chunk). */
    union {
        uint16_t table[1u << DE_HT_LOG]; /* greedy hash table: low 16 bits of positions */
        struct {
            uint32_t lfreq[288], dfreq[32], pfreq[19];
            uint32_t lcode[288], dcode[32], pcode[19]; /* reversed code | length << 16 */
            uint8_t lens[288 + 32];                    /* litlen then distance code lengths */
            uint8_t plens[19];
            uint16_t rle[288 + 32]; /* code-length sequence: symbol | extra << 5 */
            uint32_t nrle;
            uint32_t stage[DE_STAGE]; /* output bits being assembled */
            uint32_t work[2 * 288];   /* Huffman construction */
        };
    };
} de_shared;

/* Global scratch of one warp: the items of a segment, and for the lazy
 * parser the bucket counters, the 3-byte table and the buckets; for the
 * greedy one the hash table while a block is written (where `count` is). */
typedef struct de_scratch {
    uint32_t *items;   /* DE_SEG + 1 */
    uint32_t *count;   /* 1 << DE_BUCKET_LOG: positions ever put in each bucket */
    uint32_t *h3;      /* 1 << DE_H3_LOG: the last position of each 3-byte hash */
    uint32_t *buckets; /* (1 << DE_BUCKET_LOG) * ways: the last `ways` positions of each bucket */
} de_scratch;

#define DE_H3_LOG 13 /* lazy: 3-byte hash table for short matches at short distances */
#ifndef DE_H3_DIST
#define DE_H3_DIST 1024u /* ... of at most this distance (zlib allows 4096: measured worse here) */
#endif

/* Bytes of scratch a warp needs at `level`. */
OC_INLINE size_t de_scratch_bytes(int level)
{
    de_params P = de_level_params(level);
    size_t b = (size_t)4 * (DE_SEG + 1);
    if (P.lazy)
        b += (size_t)4 * ((1u << DE_BUCKET_LOG) + (1u << DE_H3_LOG) + ((size_t)P.ways << DE_BUCKET_LOG));
    else
        b += sizeof(uint16_t) << DE_HT_LOG;
    return b;
}

OC_CORE_FN de_scratch de_scratch_from(void *mem)
{
    de_scratch s;
    s.items = (uint32_t *)mem;
    s.count = s.items + DE_SEG + 1;
    s.h3 = s.count + (1u << DE_BUCKET_LOG);
    s.buckets = s.h3 + (1u << DE_H3_LOG);
    return s;
}

/* ---- tables of RFC 1951 ------------------------------------------------------------ */

/* common/deflate_tables.h (rfc1951_*) */

/* Length 3..258 -> symbol index 0..28 (symbol 257 + index). */
OC_CORE_FN uint32_t de_len_sym(uint32_t len)
{
    if (len <= 10)
        return len - 3;
    if (len == 258)
        return 28;
    uint32_t l = len - 3, hb = (uint32_t)oc_highbit32(l); /* l in 8..254: hb 3..7 */
    return 4 * (hb - 1) + ((l >> (hb - 2)) & 3);
}

/* Distance 1..32768 -> symbol 0..29. */
OC_CORE_FN uint32_t de_dist_sym(uint32_t d)
{
    if (d <= 4)
        return d - 1;
    uint32_t hb = (uint32_t)oc_highbit32(d - 1);
    return 2 * hb + (((d - 1) >> (hb - 1)) & 1);
}

OC_CORE_FN uint32_t de_rev(uint32_t v, uint32_t n) /* reverse the low n bits, n >= 1 */
{
#if DE_GPU
    return __brev(v) >> (32u - n);
#else
    uint32_t r = 0;
    for (uint32_t i = 0; i < n; i++)
        r |= ((v >> i) & 1u) << (n - 1 - i);
    return r;
#endif
}

OC_CORE_FN uint32_t de_rd32(const uint8_t *p)
{
#if DE_GPU
    return (uint32_t)__ldg(p) | ((uint32_t)__ldg(p + 1) << 8) | ((uint32_t)__ldg(p + 2) << 16) |
           ((uint32_t)__ldg(p + 3) << 24);
#else
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
#endif
}

OC_CORE_FN uint32_t de_hash4(uint32_t v, int log)
{
    return (v * 2654435761u) >> (32 - log);
}

OC_CORE_FN uint32_t de_hash3(uint32_t v)
{
    return ((v & 0xFFFFFFu) * 2654435761u) >> (32 - DE_H3_LOG);
}

/* ---- items of a segment -------------------------------------------------------------- */

/* Literals src[a..b) become items out[*ni..]; the warp writes them. */
OC_CORE_FN void de_put_literals(uint32_t *items, uint32_t *ni, const uint8_t *src, size_t a, size_t b)
{
    uint32_t cnt = (uint32_t)(b - a);
    for (uint32_t i = DE_GPU ? OC_LANE() : 0; i < cnt; i += DE_GPU ? 32u : 1u)
        items[*ni + i] = src[a + i];
    *ni += cnt;
}

OC_CORE_FN void de_put_match(uint32_t *items, uint32_t *ni, uint32_t len, uint32_t dist)
{
    if (OC_LANE() == 0)
        items[*ni] = DE_ITEM_MATCH | ((len - 3) << 16) | (dist - 1);
    *ni += 1;
}

/* ---- greedy parse ------------------------------------------------------------------- */

/* The chunk's bytes src[off..off+4) as a little-endian word, zeros outside
 * [0, n).  On the GPU, src + off is 4-byte aligned: one 32-bit load, byte
 * loads only for the words at the chunk's two ends. */
OC_CORE_FN uint32_t de_word(const uint8_t *src, size_t n, int64_t off)
{
#if DE_GPU
    if (off >= 0 && (uint64_t)off + 4 <= n)
        return __ldg((const uint32_t *)(src + off));
#endif
    uint32_t v = 0;
    for (int b = 0; b < 4; b++) {
        int64_t x = off + b;
        if (x >= 0 && (uint64_t)x < n)
#if DE_GPU
            v |= (uint32_t)__ldg(src + x) << (8 * b);
#else
            v |= (uint32_t)src[x] << (8 * b);
#endif
    }
    return v;
}

/* The low 32 bits of hi:lo >> sh (sh < 32). */
OC_CORE_FN uint32_t de_funnel(uint32_t lo, uint32_t hi, uint32_t sh)
{
#if DE_GPU
    return __funnelshift_r(lo, hi, sh);
#else
    return (uint32_t)((((uint64_t)hi << 32) | lo) >> sh);
#endif
}

/* Bytes src[x..x+4) (any alignment; zeros outside the chunk): two aligned words. */
OC_CORE_FN uint32_t de_ld32u(const uint8_t *src, size_t n, int64_t x)
{
    uint32_t mis = (uint32_t)(((uintptr_t)src + (uintptr_t)x) & 3u);
    uint32_t lo = de_word(src, n, x - mis);
    uint32_t hi = mis ? de_word(src, n, x - mis + 4) : 0u;
    return de_funnel(lo, hi, 8 * mis);
}

/* The greedy parser's window: lane j holds the aligned word at chunk offset
 * wb + 4j (128 bytes: DE_WBACK bytes before the window's first position, its
 * 32 positions, their next 16 bytes and more).  de_win32 returns the 4
 * bytes at wb + rel (rel < 125) by two shuffles; every lane must call it. */
#define DE_WBACK 36
#if DE_GPU
OC_CORE_FN uint32_t de_win32(uint32_t W, uint32_t rel)
{
    uint32_t lo = __shfl_sync(0xffffffffu, W, (rel >> 2) & 31u);
    uint32_t hi = __shfl_sync(0xffffffffu, W, ((rel >> 2) + 1) & 31u);
    return __funnelshift_r(lo, hi, 8 * (rel & 3));
}
#else
OC_CORE_FN uint32_t de_win32(const uint32_t *W, uint32_t rel)
{
    return de_funnel(W[(rel >> 2) & 31u], W[((rel >> 2) + 1) & 31u], 8 * (rel & 3));
}
#endif

/* Equal leading bytes of two little-endian words (4 when equal). */
OC_CORE_FN uint32_t de_eq_lo(uint32_t a, uint32_t b)
{
    uint32_t d = a ^ b;
    return d ? (uint32_t)oc_lowbit32(d) >> 3 : 4u;
}

/* Equal trailing bytes (from the high end) of two little-endian words. */
OC_CORE_FN uint32_t de_eq_hi(uint32_t a, uint32_t b)
{
    uint32_t d = a ^ b;
    return d ? (31u - (uint32_t)oc_highbit32(d)) >> 3 : 4u;
}

/* Length of the common run of src[a..] and src[b..] (b < a), from `have`
 * bytes known equal, up to `cap` bytes; 128 bytes per ballot on the GPU
 * (a word a lane). */
OC_CORE_FN uint32_t de_extend_w(const uint8_t *src, size_t n, size_t a, size_t b, uint32_t have, uint32_t cap)
{
    uint32_t len = have;
#if DE_GPU
    for (;;) {
        uint32_t k = len + 4 * OC_LANE(), e = 0;
        if (k < cap) {
            e = de_eq_lo(de_ld32u(src, n, (int64_t)(a + k)), de_ld32u(src, n, (int64_t)(b + k)));
            if (e > cap - k)
                e = cap - k;
        }
        uint32_t ne = __ballot_sync(0xffffffffu, e < 4);
        if (ne) {
            uint32_t l = (uint32_t)oc_lowbit32(ne);
            return len + 4 * l + __shfl_sync(0xffffffffu, e, l);
        }
        len += 128;
    }
#else
    (void)n;
    while (len < cap && src[a + len] == src[b + len])
        len++;
    return len;
#endif
}

/* Literals src[a..b) become items; bytes inside the window come from its
 * registers, the others from the chunk. */
#if DE_GPU
OC_CORE_FN void de_put_literals_w(uint32_t *items, uint32_t *ni, const uint8_t *src, uint32_t W, int64_t wb,
                                  size_t a, size_t b)
{
    uint32_t cnt = (uint32_t)(b - a);
    for (uint32_t i0 = 0; i0 < cnt; i0 += 32) {
        uint32_t i = i0 + OC_LANE();
        int64_t rel = (int64_t)(a + i) - wb;
        uint32_t wv = __shfl_sync(0xffffffffu, W, (uint32_t)(rel >> 2) & 31u);
        if (i < cnt)
            items[*ni + i] =
                rel >= 0 && rel < 128 ? (wv >> (8 * (rel & 3))) & 0xFFu : (uint32_t)__ldg(src + a + i);
    }
    *ni += cnt;
}
#else
OC_CORE_FN void de_put_literals_w(uint32_t *items, uint32_t *ni, const uint8_t *src, const uint32_t *W,
                                  int64_t wb, size_t a, size_t b)
{
    uint32_t cnt = (uint32_t)(b - a);
    for (uint32_t i = 0; i < cnt; i++) {
        int64_t rel = (int64_t)(a + i) - wb;
        items[*ni + i] = rel >= 0 && rel < 128 ? (W[rel >> 2] >> (8 * (rel & 3))) & 0xFFu : src[a + i];
    }
    *ni += cnt;
}
#endif

/* Hashes g (0xFFFFFFFF: none) of positions base + lane go into the table;
 * of equal hashes the highest lane writes (the serial order's last). */
#if DE_GPU
#define DE_TABLE_PUT(S, g, base)                                                                             \
    do {                                                                                                     \
        uint32_t same_ = __match_any_sync(0xffffffffu, (g));                                                 \
        if ((g) != 0xFFFFFFFFu && OC_LANE() == (uint32_t)oc_highbit32(same_))                                \
            (S)->table[(g)] = (uint16_t)((base) + OC_LANE());                                                \
        __syncwarp();                                                                                        \
    } while (0)
#else
#define DE_TABLE_PUT(S, g, base)                                                                             \
    do {                                                                                                     \
        for (uint32_t j_ = 0; j_ < 32; j_++)                                                                 \
            if ((g)[j_] != 0xFFFFFFFFu)                                                                      \
                (S)->table[(g)[j_]] = (uint16_t)((base) + j_);                                               \
    } while (0)
#endif

/* Greedy parse of segment [s0, s1) of the chunk src[0..n).  Per window of
 * 32 positions (a lane each): the window's 128 bytes in registers (read
 * by shuffles: the 4 bytes to hash, 4 before, 16 after), taken by shuffles
 * from the previous window's 256 when it started at most 128 bytes before,
 * else one coalesced load,
 * the hash table look-up, one load of 24 bytes around the candidate (6
 * words) that measures the match up to 16 bytes forwards and 4 backwards
 * at once; only matches longer than 16 (or extending back 4) go on to
 * de_extend_w (128 bytes per ballot) or the byte loop.  The first lane that
 * matches wins; forward to the longest run, backwards over the pending
 * literals; the positions up to it go into the table, and after a match its
 * last (up to 32) positions, at the next window (from its registers). */
OC_CORE_BIGFN uint32_t de_parse_greedy(de_shared *S, const uint8_t *src, size_t n, size_t s0, size_t s1,
                                       uint32_t *items)
{
    uint32_t ni = 0;
    size_t p = s0, anchor = s0;
    size_t last_start = s1 >= 3 ? s1 - 3 : 0; /* a match of 4 bytes must fit in the segment */
    size_t tail = 0;                          /* > 0: positions [tail, p) still to insert */
    int has_tail = 0;
    /* The window's words: W holds words [wb, wb + 128), W1 the next 128
     * bytes; a window that starts at most 128 bytes further takes its words
     * from them by two shuffles (W1's new words are loaded off the critical
     * path: only the literals beyond W would wait for them, and they read
     * the chunk instead). */
    DE_LV(uint32_t, W);
    DE_LV(uint32_t, W1);
    int64_t wb_old = 0;
    int have_w = 0;
    while (p < s1) {
        uint32_t mis0 = (uint32_t)(((uintptr_t)src + p) & 3u);
        int64_t wb = (int64_t)p - mis0 - DE_WBACK;
        int64_t dw = (wb - wb_old) / 4; /* both 4-byte aligned in memory */
        if (have_w && dw >= 0 && dw <= 32) {
            uint32_t d = (uint32_t)dw;
            DE_LV(uint32_t, a);
            DE_LV(uint32_t, b);
            DE_LANES(j)
            {
                DE_L(a, j) = DE_FROM(W, (j + d) & 31u);
                DE_L(b, j) = DE_FROM(W1, (j + d) & 31u);
            }
            DE_LANES(j)
            {
                int lo = j + d < 32;
                DE_L(W, j) = lo ? DE_L(a, j) : DE_L(b, j);
                DE_L(W1, j) = lo ? DE_L(b, j) : de_word(src, n, wb + 4 * (int64_t)(j + 32));
            }
        } else {
            DE_LANES(j)
            {
                DE_L(W, j) = de_word(src, n, wb + 4 * (int64_t)j);
                DE_L(W1, j) = de_word(src, n, wb + 4 * (int64_t)(j + 32));
            }
        }
        wb_old = wb;
        have_w = 1;
        if (has_tail) { /* the last match's tail, before this window looks anything up */
            DE_LV(uint32_t, g);
            DE_LANES(j)
            {
                size_t q = tail + j;
                uint32_t v = de_win32(W, (uint32_t)((int64_t)q - wb) & 127u);
                DE_L(g, j) = q < p && q + 4 <= n ? de_hash4(v, DE_HT_LOG) : 0xFFFFFFFFu;
            }
            DE_TABLE_PUT(S, g, tail);
            has_tail = 0;
        }
        DE_LV(uint32_t, h);
        DE_LV(size_t, cand);
        DE_LV(int, ok);
        DE_LV(uint32_t, fwd);
        DE_LV(uint32_t, back);
        DE_LANES(j)
        {
            size_t q = p + j;
            uint32_t rel = mis0 + DE_WBACK + j;
            uint32_t v = de_win32(W, rel), xb = de_win32(W, rel - 4);
            uint32_t x1 = de_win32(W, rel + 4), x2 = de_win32(W, rel + 8), x3 = de_win32(W, rel + 12);
            DE_L(ok, j) = 0;
            DE_L(h, j) = 0xFFFFFFFFu;
            DE_L(cand, j) = 0;
            DE_L(fwd, j) = 0;
            DE_L(back, j) = 0;
            if (q < last_start && q + 4 <= n) {
                uint32_t hh = de_hash4(v, DE_HT_LOG);
                uint32_t dist = (uint16_t)(q - S->table[hh]);
                DE_L(h, j) = hh;
                if (dist != 0 && dist <= DE_WINDOW && dist <= q) {
                    /* the 20 bytes [c - 4, c + 16) around the candidate c, from 6 aligned words */
                    int64_t c4 = (int64_t)(q - dist) - 4;
                    uint32_t mis = (uint32_t)(((uintptr_t)src + (uintptr_t)c4) & 3u), y[6];
                    int64_t o = c4 - mis;
                    if (o >= 0 && (uint64_t)o + 24 <= n) { /* inside the chunk: 6 loads in flight at once */
                        for (int k = 0; k < 6; k++)
#if DE_GPU
                            y[k] = __ldg((const uint32_t *)(src + o) + k);
#else
                            y[k] = de_word(src, n, o + 4 * k);
#endif
                    } else {
                        for (int k = 0; k < 6; k++)
                            y[k] = de_word(src, n, o + 4 * k);
                    }
                    for (int k = 0; k < 5; k++)
                        y[k] = de_funnel(y[k], y[k + 1], 8 * mis);
                    DE_L(cand, j) = q - dist;
                    if (y[1] == v) {
                        uint32_t f = 4 + de_eq_lo(x1, y[2]);
                        if (f == 8)
                            f += de_eq_lo(x2, y[3]);
                        if (f == 12)
                            f += de_eq_lo(x3, y[4]);
                        DE_L(ok, j) = 1;
                        DE_L(fwd, j) = f;
                        DE_L(back, j) = de_eq_hi(xb, y[0]);
                    }
                }
            }
        }
        uint32_t mask;
        DE_BALLOT(mask, j, DE_L(ok, j));
        uint32_t first = mask ? (uint32_t)oc_lowbit32(mask) : 31;
        OC_WARP_SYNC();
        /* insert positions up to the first match */
        {
            DE_LV(uint32_t, g);
            DE_LANES(j)
            {
                DE_L(g, j) = j <= first ? DE_L(h, j) : 0xFFFFFFFFu;
            }
            DE_TABLE_PUT(S, g, p);
        }
        OC_WARP_SYNC();
        if (!mask) {
            p += 32;
            continue;
        }
        size_t mpos = p + first, mref = DE_FROM(cand, first);
        uint32_t f = DE_FROM(fwd, first), b4 = DE_FROM(back, first);
        size_t room = s1 - mpos;
        uint32_t cap = room < DE_MAXLEN ? (uint32_t)room : DE_MAXLEN;
        uint32_t len = f < cap ? f : cap;
        if (f == 16 && cap > 16)
            len = de_extend_w(src, n, mpos, mref, 16, cap);
        /* backwards over the pending literals: 4 bytes known, then byte by byte */
        size_t bmax = mpos - anchor;
        if (bmax > mref)
            bmax = mref;
        if (bmax > DE_MAXLEN - len)
            bmax = DE_MAXLEN - len;
        uint32_t b = b4 < bmax ? b4 : (uint32_t)bmax;
        mpos -= b;
        mref -= b;
        len += b;
        if (b == 4) {
#if DE_GPU
            while (mpos > anchor && mref > 0 && len < DE_MAXLEN &&
                   __ldg(src + mpos - 1) == __ldg(src + mref - 1)) {
#else
            while (mpos > anchor && mref > 0 && len < DE_MAXLEN && src[mpos - 1] == src[mref - 1]) {
#endif
                mpos--;
                mref--;
                len++;
            }
        }
        de_put_literals_w(items, &ni, src, W, wb, anchor, mpos);
        de_put_match(items, &ni, len, (uint32_t)(mpos - mref));
        p = anchor = mpos + len;
        tail = p - (len > 32 ? 32 : len - 1);
        has_tail = 1;
    }
    if (has_tail) { /* the segment's last match: its tail for the next segment */
        DE_LV(uint32_t, g);
        DE_LANES(j)
        {
            size_t q = tail + j;
            DE_L(g, j) =
                q < p && q + 4 <= n ? de_hash4(de_ld32u(src, n, (int64_t)q), DE_HT_LOG) : 0xFFFFFFFFu;
        }
        DE_TABLE_PUT(S, g, tail);
    }
    de_put_literals(items, &ni, src, anchor, s1);
    OC_WARP_SYNC();
    return ni;
}

/* ---- lazy parse --------------------------------------------------------------------- */

#define DE_LPOS 4u /* positions per window */

/* Inserts positions [a, b) into their buckets, in order. */
OC_CORE_FN void de_bucket_insert(const de_scratch *X, uint32_t ways, const uint8_t *src, size_t n, size_t a,
                                 size_t b)
{
    uint32_t *count = X->count, *h3 = X->h3, *buckets = X->buckets;
    for (size_t base = a; base < b; base += 32) {
        DE_LV(uint32_t, h);
        DE_LV(uint32_t, g);
        DE_LANES(j)
        {
            size_t q = base + j;
            uint32_t v = q < b && q + 4 <= n ? de_rd32(src + q) : 0;
            DE_L(h, j) = q < b && q + 4 <= n ? de_hash4(v, DE_BUCKET_LOG) : 0xFFFFFFFFu;
            DE_L(g, j) = q < b && q + 4 <= n ? de_hash3(v) : 0xFFFFFFFFu;
        }
#if DE_GPU
        {
            uint32_t j = OC_LANE();
            uint32_t hh = DE_L(h, j), gg = DE_L(g, j);
            uint32_t same = __match_any_sync(0xffffffffu, hh);
            uint32_t same3 = __match_any_sync(0xffffffffu, gg);
            uint32_t rank = __popc(same & ((1u << j) - 1u));
            uint32_t c = hh != 0xFFFFFFFFu ? count[hh] : 0;
            __syncwarp();
            if (hh != 0xFFFFFFFFu) {
                /* More than `ways` lanes of one bucket wrap onto the same slots:
                 * only the last `ways` of them write (the serial order's last
                 * writers), so no two lanes store to one slot (which one would
                 * win is undefined, and the GPU's bytes differed from the C
                 * build's at level 2, 8 ways, on runs of one 4-byte hash). */
                uint32_t total = __popc(same);
                if (rank + ways >= total)
                    buckets[(size_t)hh * ways + ((c + rank) & (ways - 1))] = (uint32_t)(base + j);
                if (j == (uint32_t)oc_highbit32(same))
                    count[hh] = c + total;
            }
            if (gg != 0xFFFFFFFFu && j == (uint32_t)oc_highbit32(same3))
                h3[gg] = (uint32_t)(base + j);
            __syncwarp();
        }
#else
        for (uint32_t j = 0; j < 32; j++)
            if (h[j] != 0xFFFFFFFFu) {
                uint32_t c = count[h[j]];
                buckets[(size_t)h[j] * ways + (c & (ways - 1))] = (uint32_t)(base + j);
                count[h[j]] = c + 1;
                h3[g[j]] = (uint32_t)(base + j);
            }
#endif
    }
}

/* Lazy parse of segment [s0, s1): windows of DE_LPOS positions x 8
 * candidates (16 ways: two rounds).  Chunk positions below `*inserted` are
 * in the buckets; a bucket's slots at or above its count are empty. */
OC_CORE_BIGFN uint32_t de_parse_lazy(const de_params *P, const de_scratch *X, const uint8_t *src, size_t n,
                                     size_t s0, size_t s1, size_t *inserted)
{
    const uint32_t *count = X->count, *buckets = X->buckets;
    uint32_t *items = X->items;
    uint32_t ni = 0;
    size_t p = s0, anchor = s0;
    size_t last_start = s1 >= 3 ? s1 - 3 : 0;
    while (p < s1) {
        if (*inserted < p) {
            de_bucket_insert(X, P->ways, src, n, *inserted, p);
            *inserted = p;
        }
        /* lane j: position p + (j >> 3), bucket slot (j & 7) (+ 8 in round 1) */
        uint32_t blen[DE_LPOS], bdist[DE_LPOS];
        for (uint32_t k = 0; k < DE_LPOS; k++)
            blen[k] = 0, bdist[k] = 0;
        for (uint32_t round = 0; round * 8 < P->ways; round++) {
            DE_LV(uint32_t, len);
            DE_LV(uint32_t, dist);
            DE_LANES(j)
            {
                size_t q = p + (j >> 3);
                uint32_t slot = (j & 7) + 8 * round;
                DE_L(len, j) = 0;
                DE_L(dist, j) = 0;
                if (q < last_start && q + 4 <= n) {
                    uint32_t hh = de_hash4(de_rd32(src + q), DE_BUCKET_LOG);
                    size_t cpos = buckets[(size_t)hh * P->ways + slot];
                    if (slot < count[hh] && cpos < q && q - cpos <= DE_WINDOW) {
                        size_t room = s1 - q;
                        uint32_t cap = room < DE_MAXLEN ? (uint32_t)room : DE_MAXLEN, l = 0;
                        while (l < cap && src[q + l] == src[cpos + l])
                            l++;
                        if (l >= 4) {
                            DE_L(len, j) = l;
                            DE_L(dist, j) = (uint32_t)(q - cpos);
                        }
                    }
                }
            }
            /* per position: the longest, then the nearest */
#if DE_GPU
            {
                uint32_t l = len, d = dist;
                for (int o = 4; o > 0; o >>= 1) {
                    uint32_t l2 = __shfl_xor_sync(0xffffffffu, l, o), d2 = __shfl_xor_sync(0xffffffffu, d, o);
                    if (l2 > l || (l2 == l && l2 != 0 && d2 < d)) {
                        l = l2;
                        d = d2;
                    }
                }
                for (uint32_t k = 0; k < DE_LPOS; k++) {
                    uint32_t lk = __shfl_sync(0xffffffffu, l, 8 * k), dk = __shfl_sync(0xffffffffu, d, 8 * k);
                    if (lk > blen[k] || (lk == blen[k] && lk != 0 && dk < bdist[k])) {
                        blen[k] = lk;
                        bdist[k] = dk;
                    }
                }
            }
#else
            for (uint32_t j = 0; j < 32; j++) {
                uint32_t k = j >> 3;
                if (len[j] > blen[k] || (len[j] == blen[k] && len[j] != 0 && dist[j] < bdist[k])) {
                    blen[k] = len[j];
                    bdist[k] = dist[j];
                }
            }
#endif
        }
        /* short matches (3 bytes, or what the buckets missed) at distances up to 4096, where no longer one
         * was found */
        {
            const uint32_t *h3 = X->h3;
            DE_LV(uint32_t, len);
            DE_LV(uint32_t, dist);
            DE_LANES(j)
            {
                size_t q = p + j;
                DE_L(len, j) = 0;
                DE_L(dist, j) = 0;
                if (j < DE_LPOS && q + 3 <= s1 && q + 4 <= n) {
                    size_t cpos = h3[de_hash3(de_rd32(src + q))];
                    if (cpos < q && q - cpos <= DE_H3_DIST && cpos < *inserted) {
                        size_t room = s1 - q;
                        uint32_t cap = room < DE_MAXLEN ? (uint32_t)room : DE_MAXLEN, l = 0;
                        while (l < cap && src[q + l] == src[cpos + l])
                            l++;
                        if (l >= 3) {
                            DE_L(len, j) = l;
                            DE_L(dist, j) = (uint32_t)(q - cpos);
                        }
                    }
                }
            }
            for (uint32_t k = 0; k < DE_LPOS; k++) {
                uint32_t lk = DE_FROM(len, k), dk = DE_FROM(dist, k);
                if (lk > blen[k] || (lk == blen[k] && lk != 0 && dk < bdist[k])) {
                    blen[k] = lk;
                    bdist[k] = dk;
                }
            }
        }
        /* the parse: at each position the best match, unless the next
         * position's is longer (then a literal); the window's last position
         * is decided in the next window, where its successor is measured */
        uint32_t k = 0;
        int taken = 0;
        for (; k < DE_LPOS && p + k < s1; k++) {
            if (blen[k] == 0)
                continue;
            if (blen[k] < P->nice) {
                uint32_t la = P->lazy2 ? 2 : 1; /* positions looked ahead */
                if (k + la >= DE_LPOS && k > 0 && p + k + 1 < last_start)
                    break;
                if (k + 1 < DE_LPOS && blen[k + 1] > blen[k])
                    continue;
                if (P->lazy2 && k + 2 < DE_LPOS && blen[k + 2] > blen[k] + 1)
                    continue;
            }
            size_t mpos = p + k;
            de_put_literals(items, &ni, src, anchor, mpos);
            de_put_match(items, &ni, blen[k], bdist[k]);
            anchor = mpos + blen[k];
            taken = 1;
            break;
        }
        p = taken ? anchor : p + (k ? k : 1);
        OC_WARP_SYNC();
    }
    de_put_literals(items, &ni, src, anchor, s1);
    OC_WARP_SYNC();
    return ni;
}

/* ---- Huffman codes ----------------------------------------------------------------- */

/* Item histogram of a segment (+ the end-of-block symbol). */
OC_CORE_BIGFN void de_histogram(de_shared *S, const uint32_t *items, uint32_t ni)
{
    uint32_t lane = OC_LANE();
    for (uint32_t i = lane; i < 288; i += DE_GPU ? 32u : 1u)
        S->lfreq[i] = 0;
    for (uint32_t i = lane; i < 32; i += DE_GPU ? 32u : 1u)
        S->dfreq[i] = 0;
    OC_WARP_SYNC();
    for (uint32_t i = lane; i < ni; i += DE_GPU ? 32u : 1u) {
        uint32_t it = items[i];
        uint32_t ls = it & DE_ITEM_MATCH ? 257 + de_len_sym(((it >> 16) & 0xFFu) + 3) : (it & 0xFFu);
#if DE_GPU
        atomicAdd(&S->lfreq[ls], 1u);
        if (it & DE_ITEM_MATCH)
            atomicAdd(&S->dfreq[de_dist_sym((it & 0xFFFFu) + 1)], 1u);
#else
        S->lfreq[ls]++;
        if (it & DE_ITEM_MATCH)
            S->dfreq[de_dist_sym((it & 0xFFFFu) + 1)]++;
#endif
    }
    OC_WARP_SYNC();
    if (lane == 0)
        S->lfreq[256] = 1;
    OC_WARP_SYNC();
}

/* Code lengths (<= maxlen) for n symbols of frequencies freq[] into
 * lens[]; work holds 2n words.  The used symbols are ranked by (frequency,
 * symbol) by the warp; lane 0 runs Moffat and Katajainen's in-place length
 * computation, limits the lengths (moving leaves down the tree until the
 * Kraft sum is exact) and gives the longest codes to the rarest symbols.
 * At least two symbols get a code (deflate decoders want a complete code). */
OC_CORE_BIGFN void de_huff_lengths(const uint32_t *freq, uint32_t n, uint32_t maxlen, uint8_t *lens,
                                   uint32_t *work)
{
    uint32_t lane = OC_LANE();
    uint32_t *sorted = work; /* symbols in ascending (freq, symbol) order */
    uint32_t *A = work + n;
    /* rank sort: each used symbol's place among the used ones */
    for (uint32_t s = lane; s < n; s += DE_GPU ? 32u : 1u) {
        lens[s] = 0;
        uint32_t f = freq[s];
        if (!f)
            continue;
        uint32_t r = 0;
        for (uint32_t t = 0; t < n; t++) {
            uint32_t g = freq[t];
            r += g != 0 && (g < f || (g == f && t < s));
        }
        sorted[r] = s;
    }
    OC_WARP_SYNC();
    if (lane == 0) {
        uint32_t m = 0;
        for (uint32_t s = 0; s < n; s++)
            m += freq[s] != 0;
        if (m < 2) { /* give the used symbol (or symbol 0) and one more a 1-bit code */
            uint32_t a = m ? sorted[0] : 0;
            lens[a] = 1;
            lens[a == 0 ? 1 : 0] = 1;
        } else {
            for (uint32_t i = 0; i < m; i++)
                A[i] = freq[sorted[i]];
            /* phase 1: build the tree in place (A[t] = weight, then parent index) */
            uint32_t leaf = 0, root = 0;
            for (uint32_t t = 0; t + 1 < m; t++) {
                if (leaf >= m || (root < t && A[root] < A[leaf])) {
                    A[t] = A[root];
                    A[root++] = t;
                } else {
                    A[t] = A[leaf++];
                }
                if (leaf >= m || (root < t && A[root] < A[leaf])) {
                    A[t] += A[root];
                    A[root++] = t;
                } else {
                    A[t] += A[leaf++];
                }
            }
            /* phase 2: depths of the internal nodes */
            A[m - 2] = 0;
            for (int t = (int)m - 3; t >= 0; t--)
                A[t] = A[A[t]] + 1;
            /* phase 3: depths of the leaves, deepest for the rarest */
            int avail = 1, used = 0, depth = 0, r2 = (int)m - 2, x = (int)m - 1;
            while (avail > 0) {
                while (r2 >= 0 && A[r2] == (uint32_t)depth) {
                    used++;
                    r2--;
                }
                while (avail > used) {
                    A[x--] = (uint32_t)depth;
                    avail--;
                }
                avail = 2 * used;
                depth++;
                used = 0;
            }
            /* limit to maxlen: count per length, fold the deeper ones, fix the Kraft sum */
            uint32_t cnt[33];
            for (uint32_t l = 0; l < 33; l++)
                cnt[l] = 0;
            for (uint32_t i = 0; i < m; i++)
                cnt[A[i] > maxlen ? maxlen : A[i]]++;
            uint32_t total = 0;
            for (uint32_t l = 1; l <= maxlen; l++)
                total += cnt[l] << (maxlen - l);
            while (total > (1u << maxlen)) {
                cnt[maxlen]--;
                for (uint32_t l = maxlen - 1; l > 0; l--) {
                    if (cnt[l]) {
                        cnt[l]--;
                        cnt[l + 1] += 2;
                        break;
                    }
                }
                total--;
            }
            /* the longest codes to the rarest symbols (sorted ascending) */
            uint32_t i = 0;
            for (uint32_t l = maxlen; l >= 1; l--)
                for (uint32_t c = cnt[l]; c > 0; c--)
                    lens[sorted[i++]] = (uint8_t)l;
        }
    }
    OC_WARP_SYNC();
}

/* Canonical codes, bit-reversed for an LSB-first stream: code | len << 16. */
OC_CORE_BIGFN void de_make_codes(const uint8_t *lens, uint32_t n, uint32_t *codes)
{
    if (OC_LANE() == 0) {
        uint32_t cnt[16], next[16];
        for (uint32_t l = 0; l < 16; l++)
            cnt[l] = 0;
        for (uint32_t s = 0; s < n; s++)
            cnt[lens[s]]++;
        uint32_t code = 0;
        cnt[0] = 0;
        for (uint32_t l = 1; l < 16; l++) {
            code = (code + cnt[l - 1]) << 1;
            next[l] = code;
        }
        for (uint32_t s = 0; s < n; s++) {
            uint32_t l = lens[s];
            codes[s] = l ? de_rev(next[l]++, l) | (l << 16) : 0;
        }
    }
    OC_WARP_SYNC();
}

/* The code-length sequence of a dynamic header (lane 0): litlen lengths
 * [0, hlit) then distance lengths [0, hdist), with 16 (repeat the previous
 * 3-6 times), 17 (3-10 zeros) and 18 (11-138 zeros); precode frequencies. */
OC_CORE_FN void de_rle(de_shared *S, uint32_t hlit, uint32_t hdist)
{
    uint8_t all[288 + 32];
    uint32_t total = hlit + hdist, k = 0;
    for (uint32_t i = 0; i < hlit; i++)
        all[i] = S->lens[i];
    for (uint32_t i = 0; i < hdist; i++)
        all[hlit + i] = S->lens[288 + i];
    for (uint32_t i = 0; i < 19; i++)
        S->pfreq[i] = 0;
    for (uint32_t i = 0; i < total;) {
        uint32_t v = all[i], run = 1;
        while (i + run < total && all[i + run] == v)
            run++;
        uint32_t left = run;
        if (v == 0) {
            while (left >= 3) {
                uint32_t r = left > 138 ? 138 : left;
                if (r >= 11) {
                    S->rle[k++] = (uint16_t)(18 | ((r - 11) << 5));
                    S->pfreq[18]++;
                } else {
                    S->rle[k++] = (uint16_t)(17 | ((r - 3) << 5));
                    S->pfreq[17]++;
                }
                left -= r;
            }
        } else {
            S->rle[k++] = (uint16_t)v;
            S->pfreq[v]++;
            left--;
            while (left >= 3) {
                uint32_t r = left > 6 ? 6 : left;
                S->rle[k++] = (uint16_t)(16 | ((r - 3) << 5));
                S->pfreq[16]++;
                left -= r;
            }
        }
        while (left > 0) {
            S->rle[k++] = (uint16_t)v;
            S->pfreq[v]++;
            left--;
        }
        i += run;
    }
    S->nrle = k;
}

/* ---- output bits ---------------------------------------------------------------------- */

/* The bit writer: bp bits written so far; stage[] holds the words
 * [wbase, wbase + DE_STAGE) of the output; bytes below fbyte are in dst. */
typedef struct de_bw {
    uint8_t *dst;
    size_t cap;
    size_t bp;
    size_t wbase;
    size_t fbyte;
} de_bw;

/* Writes the complete bytes below bp (or every started byte with
 * all != 0) to dst and restarts the stage at bp's word. */
OC_CORE_BIGFN void de_bw_flush(de_shared *S, de_bw *w, int all)
{
    uint32_t lane = OC_LANE();
    size_t upto = all ? (w->bp + 7) >> 3 : w->bp >> 3;
    for (size_t b = w->fbyte + lane; b < upto; b += DE_GPU ? 32u : 1u) {
        size_t k = (b >> 2) - w->wbase;
        w->dst[b] = (uint8_t)(S->stage[k] >> (8 * (b & 3)));
    }
    OC_WARP_SYNC();
    size_t keep = (w->bp >> 5) - w->wbase;
    uint32_t carry = S->stage[keep];
    OC_WARP_SYNC();
    for (uint32_t k = lane; k < DE_STAGE; k += DE_GPU ? 32u : 1u)
        S->stage[k] = k == 0 ? carry : 0u;
    OC_WARP_SYNC();
    w->wbase = w->bp >> 5;
    w->fbyte = upto;
}

/* Makes room for `bits` more bits in the stage. */
OC_CORE_FN void de_bw_room(de_shared *S, de_bw *w, uint32_t bits)
{
    if (((w->bp + bits) >> 5) - w->wbase + 2 >= DE_STAGE)
        de_bw_flush(S, w, 0);
}

/* v (n <= 32 bits), written by the warp as one. */
OC_CORE_FN void de_bw_put(de_shared *S, de_bw *w, uint32_t v, uint32_t n)
{
    de_bw_room(S, w, n);
    if (OC_LANE() == 0 && n) {
        size_t k = (w->bp >> 5) - w->wbase;
        uint32_t sh = (uint32_t)(w->bp & 31);
        S->stage[k] |= v << sh;
        if (sh + n > 32)
            S->stage[k + 1] |= v >> (32 - sh);
    }
    OC_WARP_SYNC();
    w->bp += n;
}

/* The bits of one item with the current codes: *v (<= 48 bits), returns n. */
OC_CORE_FN uint32_t de_item_bits(const de_shared *S, uint32_t it, uint64_t *v)
{
    if (!(it & DE_ITEM_MATCH)) {
        uint32_t c = S->lcode[it & 0xFFu];
        *v = c & 0xFFFFu;
        return c >> 16;
    }
    uint32_t len = ((it >> 16) & 0xFFu) + 3, dist = (it & 0xFFFFu) + 1;
    uint32_t ls = de_len_sym(len), ds = de_dist_sym(dist);
    uint32_t lc = S->lcode[257 + ls], dc = S->dcode[ds];
    uint32_t n = lc >> 16;
    uint64_t x = lc & 0xFFFFu;
    x |= (uint64_t)(len - rfc1951_len_base[ls]) << n;
    n += rfc1951_len_extra[ls];
    x |= (uint64_t)(dc & 0xFFFFu) << n;
    n += dc >> 16;
    x |= (uint64_t)(dist - rfc1951_dist_base[ds]) << n;
    n += rfc1951_dist_extra[ds];
    *v = x;
    return n;
}

/* Writes ni items with the current codes, 32 per step. */
OC_CORE_BIGFN void de_put_items(de_shared *S, de_bw *w, const uint32_t *items, uint32_t ni)
{
    for (uint32_t i0 = 0; i0 < ni; i0 += 32) {
        de_bw_room(S, w, 32 * 48);
#if DE_GPU
        uint32_t lane = OC_LANE();
        uint64_t v = 0;
        uint32_t nb = i0 + lane < ni ? de_item_bits(S, items[i0 + lane], &v) : 0;
        uint32_t incl = nb;
        for (int o = 1; o < 32; o <<= 1) {
            uint32_t t = __shfl_up_sync(0xffffffffu, incl, o);
            if ((int)lane >= o)
                incl += t;
        }
        size_t off = w->bp + incl - nb;
        if (nb) {
            size_t k = (off >> 5) - w->wbase;
            uint32_t sh = (uint32_t)(off & 31);
            uint64_t lo = v << sh;
            uint32_t hi = sh ? (uint32_t)(v >> (64 - sh)) : 0u;
            atomicOr(&S->stage[k], (uint32_t)lo);
            if ((uint32_t)(lo >> 32))
                atomicOr(&S->stage[k + 1], (uint32_t)(lo >> 32));
            if (hi)
                atomicOr(&S->stage[k + 2], hi);
        }
        w->bp += __shfl_sync(0xffffffffu, incl, 31);
        __syncwarp();
#else
        for (uint32_t i = i0; i < ni && i < i0 + 32; i++) {
            uint64_t v = 0;
            uint32_t nb = de_item_bits(S, items[i], &v);
            size_t off = w->bp;
            size_t k = (off >> 5) - w->wbase;
            uint32_t sh = (uint32_t)(off & 31);
            uint64_t lo = v << sh;
            uint32_t hi = sh ? (uint32_t)(v >> (64 - sh)) : 0u;
            S->stage[k] |= (uint32_t)lo;
            S->stage[k + 1] |= (uint32_t)(lo >> 32);
            S->stage[k + 2] |= hi;
            w->bp += nb;
        }
#endif
    }
}

/* ---- one block ------------------------------------------------------------------------ */

OC_CORE_CONST uint8_t de_fixed_dist_len = 5;

OC_CORE_FN uint32_t de_fixed_len(uint32_t s)
{
    return s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
}

/* A block's dynamic codes and the exact sizes in bits of its dynamic and
 * fixed forms (header, code lengths, symbols and extra bits). */
typedef struct de_block_sizes {
    uint32_t hlit, hdist, hclen;
    uint64_t dyn, fix;
} de_block_sizes;

/* The histogram of the items, the length-limited Huffman code lengths, the
 * code-length RLE and its precode (in S), and the sizes; gdeflate: with
 * GDeflate's extra bits (length symbol 285 takes 16), else RFC 1951's.
 * Shared by this encoder and GDeflate's (gdeflate_enc_core.h). */
OC_CORE_BIGFN de_block_sizes de_block_codes(de_shared *S, const uint32_t *items, uint32_t ni, int gdeflate)
{
    uint32_t lane = OC_LANE();
    de_block_sizes z;
    de_histogram(S, items, ni);
    de_huff_lengths(S->lfreq, 286, 15, S->lens, S->work);
    de_huff_lengths(S->dfreq, 30, 15, S->lens + 288, S->work);
    uint32_t hlit = 286, hdist = 30;
    while (hlit > 257 && S->lens[hlit - 1] == 0)
        hlit--;
    while (hdist > 1 && S->lens[288 + hdist - 1] == 0)
        hdist--;
    if (lane == 0)
        de_rle(S, hlit, hdist);
    OC_WARP_SYNC();
    de_huff_lengths(S->pfreq, 19, 7, S->plens, S->work);
    uint32_t hclen = 19;
    while (hclen > 4 && S->plens[rfc1951_precode_order[hclen - 1]] == 0)
        hclen--;
    uint64_t extra = 0, dyn = 3 + 14 + 3 * (uint64_t)hclen, fix = 3;
    for (uint32_t s = 0; s < 286; s++) {
        uint64_t f = S->lfreq[s];
        dyn += f * S->lens[s];
        fix += f * de_fixed_len(s);
        if (s >= 257)
            extra += f * (gdeflate ? gdeflate_len_extra[s - 257] : rfc1951_len_extra[s - 257]);
    }
    for (uint32_t s = 0; s < 30; s++) {
        uint64_t f = S->dfreq[s];
        dyn += f * S->lens[288 + s];
        fix += f * de_fixed_dist_len;
        extra += f * (gdeflate ? gdeflate_dist_extra[s] : rfc1951_dist_extra[s]);
    }
    for (uint32_t i = 0; i < S->nrle; i++) {
        uint32_t sym = S->rle[i] & 31;
        dyn += S->plens[sym] + (sym == 16 ? 2 : sym == 17 ? 3 : sym == 18 ? 7 : 0);
    }
    z.hlit = hlit;
    z.hdist = hdist;
    z.hclen = hclen;
    z.dyn = dyn + extra;
    z.fix = fix + extra;
    /* Every lane has read the lengths before the caller's lane 0 may write
     * the fixed ones over them (racecheck of the GDeflate encoder found the
     * write racing these reads: lanes could choose different block types). */
    OC_WARP_SYNC();
    return z;
}

/* Writes segment src[s0, s1) (its items) as the smallest of a dynamic,
 * fixed or stored block; OUTPUT_TOO_SMALL when it would pass the capacity. */
OC_CORE_BIGFN oc_status de_block(de_shared *S, de_bw *w, const uint8_t *src, size_t s0, size_t s1,
                                 const uint32_t *items, uint32_t ni, int final)
{
    uint32_t lane = OC_LANE();
    de_block_sizes z = de_block_codes(S, items, ni, 0);
    uint32_t hlit = z.hlit, hdist = z.hdist, hclen = z.hclen;
    uint64_t dyn = z.dyn, fix = z.fix;
    size_t len = s1 - s0;
    size_t nstored = len ? (len + 65534) / 65535 : 1;
    /* stored: 3 header bits, padding to a byte, 4 bytes of LEN/NLEN per block, the data */
    uint64_t sto = (((w->bp + 3 + 7) & ~(uint64_t)7) - w->bp) + 32 + 8 * (uint64_t)len +
                   (uint64_t)(nstored - 1) * (3 + 5 + 32); /* later blocks: header rounded to a byte */
    int type = dyn <= fix ? 2 : 1;
    uint64_t bits = type == 2 ? dyn : fix;
    if (sto < bits) {
        type = 0;
        bits = sto;
    }
    if (((w->bp + bits + 7) >> 3) > w->cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    if (type == 0) {
        size_t pos = s0;
        for (size_t b = 0; b < nstored; b++) {
            uint32_t part = (uint32_t)(s1 - pos > 65535 ? 65535 : s1 - pos);
            de_bw_put(S, w, (final && b + 1 == nstored) ? 1u : 0u, 3);
            w->bp = (w->bp + 7) & ~(size_t)7;
            de_bw_put(S, w, part, 16);
            de_bw_put(S, w, part ^ 0xFFFFu, 16);
            de_bw_flush(S, w, 0);
            for (size_t i = lane; i < part; i += DE_GPU ? 32u : 1u)
                w->dst[(w->bp >> 3) + i] = src[pos + i];
            OC_WARP_SYNC();
            w->bp += 8 * (size_t)part;
            w->fbyte = w->bp >> 3;
            w->wbase = w->bp >> 5;
            for (uint32_t k = lane; k < DE_STAGE; k += DE_GPU ? 32u : 1u)
                S->stage[k] = 0;
            OC_WARP_SYNC();
            pos += part;
        }
        return OC_OK;
    }
    if (type == 1) { /* fixed codes */
        /* RFC 1951 3.2.6 defines them over all 288 literal/length symbols and
         * 32 distance symbols: 286-287 and 30-31 never occur, but the
         * canonical codes of every longer length depend on their counts (over
         * 286 symbols, every 9-bit literal code came out 4 too small). */
        if (lane == 0) {
            for (uint32_t s = 0; s < 288; s++)
                S->lens[s] = (uint8_t)de_fixed_len(s);
            for (uint32_t s = 0; s < 32; s++)
                S->lens[288 + s] = de_fixed_dist_len;
        }
        OC_WARP_SYNC();
        de_make_codes(S->lens, 288, S->lcode);
        de_make_codes(S->lens + 288, 32, S->dcode);
        de_bw_put(S, w, final ? 3u : 2u, 3);
    } else {
        de_make_codes(S->lens, 286, S->lcode);
        de_make_codes(S->lens + 288, 30, S->dcode);
        de_make_codes(S->plens, 19, S->pcode);
        de_bw_put(S, w, final ? 5u : 4u, 3);
        de_bw_put(S, w, hlit - 257, 5);
        de_bw_put(S, w, hdist - 1, 5);
        de_bw_put(S, w, hclen - 4, 4);
        for (uint32_t i = 0; i < hclen; i++)
            de_bw_put(S, w, S->plens[rfc1951_precode_order[i]], 3);
        for (uint32_t i = 0; i < S->nrle; i++) {
            uint32_t r = S->rle[i], sym = r & 31, c = S->pcode[sym];
            de_bw_put(S, w, c & 0xFFFFu, c >> 16);
            if (sym >= 16)
                de_bw_put(S, w, r >> 5, sym == 16 ? 2 : sym == 17 ? 3 : 7);
        }
    }
    de_put_items(S, w, items, ni);
    uint32_t eob = S->lcode[256];
    de_bw_put(S, w, eob & 0xFFFFu, eob >> 16);
    return OC_OK;
}

/* ---- one chunk ------------------------------------------------------------------------ */

/* de_compress_chunk compresses src[0..n) as one stream of `algo`
 * (OC_ALGO_DEFLATE, _ZLIB or _GZIP) at `level` into dst[0..cap); *out_size
 * gets its length.  S: the warp's shared workspace; scratch:
 * de_scratch_bytes(level) bytes of global memory (4-byte aligned).  crct: the CRC-32 byte table (gzip).
 * Every lane returns the same status and size. */
OC_CORE_BIGFN oc_status de_compress_chunk(de_shared *S, void *scratch, const uint32_t *crct,
                                          oc_algorithm algo, int level, const uint8_t *src, size_t n,
                                          uint8_t *dst, size_t cap, size_t *out_size)
{
    uint32_t lane = OC_LANE();
    de_params P = de_level_params(level);
    if (n > 0xFFFFFFF0u)
        P.lazy = 0; /* bucket entries are 32-bit positions */
    de_scratch X = de_scratch_from(scratch);
    de_bw w;
    w.dst = dst;
    w.cap = cap;
    w.bp = 0;
    w.wbase = 0;
    w.fbyte = 0;
    *out_size = 0;
    size_t head = algo == OC_ALGO_ZLIB ? 2 : algo == OC_ALGO_GZIP ? 10 : 0;
    size_t tail = algo == OC_ALGO_ZLIB ? 4 : algo == OC_ALGO_GZIP ? 8 : 0;
    if (cap < head + tail)
        return OC_ERR_OUTPUT_TOO_SMALL;
    w.cap = cap - tail;
    for (uint32_t k = lane; k < DE_STAGE; k += DE_GPU ? 32u : 1u)
        S->stage[k] = 0;
    if (P.lazy) {
        for (uint32_t k = lane; k < (1u << DE_BUCKET_LOG); k += DE_GPU ? 32u : 1u)
            X.count[k] = 0;
        for (uint32_t k = lane; k < (1u << DE_H3_LOG); k += DE_GPU ? 32u : 1u)
            X.h3[k] = 0xFFFFFFFFu;
    }
    OC_WARP_SYNC();
    if (algo == OC_ALGO_ZLIB) { /* CMF: deflate, 32 KiB window; FLG: level class, FCHECK */
        uint32_t flevel = level <= 1 ? 0 : level <= 5 ? 1 : level == 6 ? 2 : 3;
        uint32_t cmf = 0x78, flg = flevel << 6;
        flg += 31 - ((cmf << 8) | flg) % 31;
        de_bw_put(S, &w, cmf | (flg << 8), 16);
    } else if (algo == OC_ALGO_GZIP) { /* ID1 ID2 CM, FLG 0, MTIME 0, XFL, OS 255 */
        de_bw_put(S, &w, 0x088B1Fu, 24);
        de_bw_put(S, &w, 0, 8);
        de_bw_put(S, &w, 0, 32);
        de_bw_put(S, &w, (level >= 10 ? 2u : level <= 1 ? 4u : 0u) | (255u << 8), 16);
    }
    size_t inserted = 0;
    size_t s0 = 0;
    uint16_t *tsave = (uint16_t *)(void *)X.count; /* greedy: the hash table while a block is written */
    do {
        size_t s1 = n - s0 > DE_SEG ? s0 + DE_SEG : n;
        uint32_t ni;
        if (P.lazy) {
            ni = de_parse_lazy(&P, &X, src, n, s0, s1, &inserted);
        } else { /* the table takes the block's room (de_shared): the stage goes out first */
            de_bw_flush(S, &w, 0); /* the bytes below bp are final; the word bp is in stays */
            uint32_t carry = S->stage[0];
            OC_WARP_SYNC();
            for (uint32_t k = lane; k < (1u << DE_HT_LOG); k += DE_GPU ? 32u : 1u)
                S->table[k] = s0 == 0 ? (uint16_t)0 : tsave[k];
            OC_WARP_SYNC();
            ni = de_parse_greedy(S, src, n, s0, s1, X.items);
            if (s1 < n)
                for (uint32_t k = lane; k < (1u << DE_HT_LOG); k += DE_GPU ? 32u : 1u)
                    tsave[k] = S->table[k];
            OC_WARP_SYNC();
            for (uint32_t k = lane; k < DE_STAGE; k += DE_GPU ? 32u : 1u)
                S->stage[k] = k == 0 ? carry : 0u;
            OC_WARP_SYNC();
        }
        oc_status st = de_block(S, &w, src, s0, s1, X.items, ni, s1 == n);
        if (st != OC_OK)
            return st;
        s0 = s1;
    } while (s0 < n);
    w.cap = cap;
    if (algo == OC_ALGO_ZLIB) {
        w.bp = (w.bp + 7) & ~(size_t)7;
        uint32_t a = dck_adler32(src, n);
        de_bw_put(S, &w, ((a >> 24) & 0xFFu) | ((a >> 8) & 0xFF00u) | ((a << 8) & 0xFF0000u) | (a << 24), 32);
    } else if (algo == OC_ALGO_GZIP) {
        w.bp = (w.bp + 7) & ~(size_t)7;
        de_bw_put(S, &w, dck_crc32(crct, src, n), 32);
        de_bw_put(S, &w, (uint32_t)n, 32);
    }
    de_bw_flush(S, &w, 1);
    *out_size = w.fbyte;
    return OC_OK;
}

#endif /* OC_DEFLATE_ENC_CORE_H */
