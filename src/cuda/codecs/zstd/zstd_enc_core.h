/*
 * zstd_enc_core.h - a Zstandard (RFC 8878) frame encoder written once for two
 * compilers: nvcc, where one WARP owns one chunk (zstd_enc.cu), and a C11
 * compiler, where one thread does (tests/c/test_zstd_gpu_enc_core.c and the
 * fuzz target round-trip it through libzstd under ASan on every commit; CI
 * has no GPU).
 *
 * What it writes: one frame per chunk, content size in the header, window =
 * chunk size (Single_Segment; chunks over 128 MiB get a 128 MiB window
 * descriptor instead so stock streaming decoders accept them), no checksum,
 * no dictionary.  Blocks of at most 128 KiB; each is Compressed, or Raw when
 * compression does not make it smaller, or RLE when it is one byte repeated.
 *
 * Two variants (ze_params_for_level; levels in bench/gpu/zstd/ENC_NOTES.md):
 *   fast (level <= 1): greedy matching by windows of 32 positions (one per
 *     lane on the GPU; ze_block_fast), repeat offset then one hash table
 *     (6-byte hash).
 *   lazy (level >= 2, default 3): hash chains (4-byte hash, depth 4..32 by
 *     level), lazy evaluation (a match one position later wins if it gains
 *     more).  Levels 2-5 run it by windows of 32 positions (ze_block_wlazy:
 *     insertion and chain searches one position per lane, then the parse);
 *     levels >= 6 on lane 0 (ze_block_lazy).  Both give near-identical
 *     parses (same ratio to 3 decimals on the corpus).
 *   Both: literals Huffman-coded when smaller than raw (tree weights direct
 *   or FSE-compressed, whichever is smaller; 1 or 4 streams), RLE literals
 *   for one repeated byte; per code stream the cheapest of predefined, RLE
 *   or an FSE table built from the block's statistics.
 *
 * On the GPU the whole warp calls ze_compress_chunk: every lane computes the
 * same control values; the window match finders, byte copies and table
 * reset use all lanes; the level >= 6 match finder and all entropy coding
 * run on lane 0 and their results are broadcast (OC_WARP_BCAST).  Output is byte-identical
 * between the C build and the GPU (the windows are emulated in C).
 *
 * Safety: every write is checked against the capacity; OUTPUT_TOO_SMALL
 * exactly when the frame this encoder makes does not fit (the block-type
 * choice never depends on the capacity).  Reads stay inside the chunk.
 */
#ifndef OC_ZSTD_ENC_CORE_H
#define OC_ZSTD_ENC_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "../../../common/le.h"
#include "../../../common/portable.h"
#include "opencomp.h"
#include "zstd_tables.h"

#define ZE_WINDOW 32u /* positions probed per step by the fast variant (one per lane on the GPU) */

#define ZE_BLOCK 131072u /* Block_Maximum_Size */
#define ZE_HASH_LOG 15   /* hash heads: 32 Ki positions */
#define ZE_CHAIN_LOG 16  /* chain links: 64 Ki positions (lazy variant) */
#define ZE_MAX_SEQ (ZE_BLOCK / 4 + 1)
#define ZE_MINMATCH 4u
#define ZE_EMPTY 0xFFFFFFFFu
#define ZE_BIG_WINDOW_LOG 27 /* frames of chunks over 128 MiB: window 2^27 */

/* One sequence: literal length, match length, Offset_Value (RFC 8878
 * 3.1.1.5: 1-3 repeat codes, else offset + 3). */
typedef struct {
    uint32_t ll, ml, ofv;
} ze_seq;

/* Scratch memory of one worker (global memory on the GPU). */
typedef struct {
    uint32_t *hash;  /* 1 << ZE_HASH_LOG */
    uint32_t *chain; /* 1 << ZE_CHAIN_LOG */
    ze_seq *seq;     /* ZE_MAX_SEQ */
    uint8_t *lit;    /* ZE_BLOCK */
} ze_work;

#define ZE_SCRATCH_BYTES                                                                                     \
    ((size_t)4 * (1u << ZE_HASH_LOG) + (size_t)4 * (1u << ZE_CHAIN_LOG) + sizeof(ze_seq) * ZE_MAX_SEQ +      \
     ZE_BLOCK)

/* Carves a ze_work out of ZE_SCRATCH_BYTES bytes (4-byte aligned). */
OC_CORE_FN ze_work ze_work_from(void *mem)
{
    ze_work w;
    uint8_t *p = (uint8_t *)mem;
    w.hash = (uint32_t *)p;
    p += (size_t)4 * (1u << ZE_HASH_LOG);
    w.chain = (uint32_t *)p;
    p += (size_t)4 * (1u << ZE_CHAIN_LOG);
    w.seq = (ze_seq *)p;
    p += sizeof(ze_seq) * ZE_MAX_SEQ;
    w.lit = p;
    return w;
}

#ifndef ZE_WLAZY_MAX_LEVEL
#define ZE_WLAZY_MAX_LEVEL 5 /* levels 2..5: lazy by windows; >= 6: lazy on one lane */
#endif
typedef struct {
    int lazy;      /* 0 fast (windows), 1 lazy with chains (lane 0), 2 lazy by windows */
    int depth;     /* chain candidates per position (lazy) */
    int fse_built; /* 1: FSE tables from statistics when cheaper */
} ze_params;

/* Public level -> variant: <= 1 fast; 2 lazy depth 4; 3 (default) lazy depth
 * 8; 4-5 depth 16 (2-5 by windows); >= 6 depth 32 on one lane.  Every level
 * may build FSE tables. */
OC_CORE_FN ze_params ze_params_for_level(int level)
{
    ze_params p;
    if (level == 0)
        level = 3;
    p.lazy = level <= 1 ? 0 : level <= ZE_WLAZY_MAX_LEVEL ? 2 : 1;
    p.fse_built = 1;
    p.depth = level <= 1 ? 1 : level == 2 ? 4 : level == 3 ? 8 : level <= 5 ? 16 : 32;
    return p;
}

/* ---- helpers ---------------------------------------------------------------- */

/* Hash of the `hb` (4-8) bytes at p (p + 8 <= the block end): 6 for the
 * fast variant, 4 for the lazy one (measured best on the corpus). */
#define ZE_HASH_FAST 6
#define ZE_HASH_LAZY 4
OC_CORE_FN uint32_t ze_hash(const uint8_t *p, int hb)
{
    uint64_t v = (uint64_t)oc_load_le32(p) | ((uint64_t)oc_load_le32(p + 4) << 32);
    v <<= 64 - 8 * hb;
    return (uint32_t)((v * 0x9E3779B185EBCA87ull) >> (64 - ZE_HASH_LOG));
}

/* log2(x) in 1/256 bits, x >= 1 (linear between powers of two: within 0.09
 * bits; used only to compare costs). */
OC_CORE_FN uint32_t ze_log2fp(uint32_t x)
{
    int h = oc_highbit32(x);
    uint32_t frac = h >= 8 ? (x >> (h - 8)) & 255u : (x << (8 - h)) & 255u;
    return ((uint32_t)h << 8) + frac;
}

OC_CORE_FN uint32_t ze_ll_code(uint32_t ll)
{
    if (ll < 16)
        return ll;
    if (ll >= 64)
        return (uint32_t)oc_highbit32(ll) + 19u;
    uint32_t c = 16;
    while (c < 24 && oc_zstd_ll_base[c + 1] <= ll)
        c++;
    return c;
}

OC_CORE_FN uint32_t ze_ml_code(uint32_t ml) /* ml >= 3 */
{
    uint32_t b = ml - 3;
    if (b < 32)
        return b;
    if (b >= 128)
        return (uint32_t)oc_highbit32(b) + 36u;
    uint32_t c = 32;
    while (c < 42 && oc_zstd_ml_base[c + 1] <= ml)
        c++;
    return c;
}

/* Bit writer, least significant bit first.  Writes nothing past lim; ovf
 * records that something did not fit. */
typedef struct {
    uint8_t *p;
    size_t pos, lim;
    uint64_t acc;
    int n, ovf;
} ze_bw;

OC_CORE_FN void ze_bw_init(ze_bw *w, uint8_t *p, size_t pos, size_t lim)
{
    w->p = p;
    w->pos = pos;
    w->lim = lim;
    w->acc = 0;
    w->n = 0;
    w->ovf = pos > lim;
}

OC_CORE_FN void ze_bw_put(ze_bw *w, uint32_t v, int nb) /* nb <= 32 */
{
    if (nb == 0)
        return;
    w->acc |= ((uint64_t)v & ((1ull << nb) - 1)) << w->n;
    w->n += nb;
    while (w->n >= 8) {
        if (w->pos < w->lim)
            w->p[w->pos] = (uint8_t)w->acc;
        else
            w->ovf = 1;
        w->pos++;
        w->acc >>= 8;
        w->n -= 8;
    }
}

OC_CORE_FN void ze_bw_flush(ze_bw *w) /* pads the last byte with zeros */
{
    if (w->n > 0)
        ze_bw_put(w, 0, 8 - w->n);
}

/* Closes a backward stream: the end mark (a 1 bit), then padding. */
OC_CORE_FN void ze_bw_close(ze_bw *w)
{
    ze_bw_put(w, 1, 1);
    ze_bw_flush(w);
}

/* ---- FSE (RFC 8878 4.1) ------------------------------------------------------ */

/* An encoding table: for each symbol, its states in ascending order. */
typedef struct {
    uint16_t states[512];
    uint16_t start[64];
    uint16_t cnt[64]; /* states per symbol (a "-1" symbol has one) */
    int log;
} ze_fse;

OC_CORE_BIGFN void ze_fse_build(ze_fse *t, const int16_t *norm, int nsym, int log, uint8_t *spread)
{
    uint32_t size = 1u << log, high = size - 1, mask = size - 1;
    uint32_t step = (size >> 1) + (size >> 3) + 3, pos = 0;
    t->log = log;
    for (int s = 0; s < nsym; s++)
        if (norm[s] == -1)
            spread[high--] = (uint8_t)s;
    for (int s = 0; s < nsym; s++)
        for (int i = 0; i < norm[s]; i++) {
            spread[pos] = (uint8_t)s;
            do {
                pos = (pos + step) & mask;
            } while (pos > high);
        }
    uint32_t acc = 0;
    for (int s = 0; s < nsym; s++) {
        t->cnt[s] = (uint16_t)(norm[s] == -1 ? 1 : norm[s] > 0 ? norm[s] : 0);
        t->start[s] = (uint16_t)acc;
        acc += t->cnt[s];
    }
    uint16_t fill[64];
    for (int s = 0; s < nsym; s++)
        fill[s] = t->start[s];
    for (uint32_t u = 0; u < size; u++)
        t->states[fill[spread[u]]++] = (uint16_t)u;
}

/* One encoding step: `*state` is the decoder state of the symbol after s;
 * writes the bits the decoder reads to get there from a state of s, and
 * moves *state to that state. */
OC_CORE_FN void ze_fse_step(const ze_fse *t, uint32_t *state, uint32_t s, ze_bw *w)
{
    uint32_t v = *state + (1u << t->log), c = t->cnt[s];
    int nb = oc_highbit32(v) - oc_highbit32(c);
    if ((v >> nb) < c)
        nb--;
    ze_bw_put(w, v & ((1u << nb) - 1), nb);
    *state = t->states[t->start[s] + (v >> nb) - c];
}

/* Normalizes counts to 2^log (log chosen here in [5, max_log]); every
 * present symbol gets at least 1. */
OC_CORE_BIGFN int ze_fse_normalize(const uint32_t *cnt, int nsym, uint32_t total, int max_log, int16_t *norm)
{
    int distinct = 0;
    for (int s = 0; s < nsym; s++)
        distinct += cnt[s] != 0;
    int log = oc_highbit32(total) + 1;
    if (log < 5)
        log = 5;
    while ((1 << log) < 2 * distinct && log < max_log)
        log++;
    if (log > max_log)
        log = max_log;
    int32_t scale = 1 << log, sum = 0;
    for (int s = 0; s < nsym; s++) {
        int32_t v = 0;
        if (cnt[s]) {
            v = (int32_t)(((uint64_t)cnt[s] * (uint64_t)scale + total / 2) / total);
            if (v < 1)
                v = 1;
        }
        norm[s] = (int16_t)v;
        sum += v;
    }
    while (sum != scale) {
        int best = -1;
        for (int s = 0; s < nsym; s++)
            if (norm[s] > (sum > scale ? 1 : 0) && (best < 0 || norm[s] > norm[best]))
                best = s;
        norm[best] = (int16_t)(norm[best] + (sum > scale ? -1 : 1));
        sum += sum > scale ? -1 : 1;
    }
    return log;
}

/* Writes a table description (RFC 8878 4.1.1) into buf (>= 128 bytes);
 * returns its size in bytes. */
OC_CORE_BIGFN size_t ze_fse_write_ncount(uint8_t *buf, const int16_t *norm, int nsym, int log)
{
    ze_bw w;
    ze_bw_init(&w, buf, 0, 128);
    ze_bw_put(&w, (uint32_t)(log - 5), 4);
    int remaining = (1 << log) + 1, threshold = 1 << log, nbits = log + 1;
    int s = 0;
    while (remaining > 1 && s < nsym) {
        int count = norm[s] + 1;
        int maxv = (2 * threshold - 1) - remaining;
        if (count < maxv)
            ze_bw_put(&w, (uint32_t)count, nbits - 1);
        else if (count < threshold)
            ze_bw_put(&w, (uint32_t)count, nbits);
        else
            ze_bw_put(&w, (uint32_t)(count + maxv), nbits);
        remaining -= norm[s] < 0 ? -norm[s] : norm[s];
        s++;
        if (count == 1) { /* zero probability: run of further zeros */
            int z = 0;
            while (s + z < nsym && norm[s + z] == 0)
                z++;
            s += z;
            while (z >= 3) {
                ze_bw_put(&w, 3, 2);
                z -= 3;
            }
            ze_bw_put(&w, (uint32_t)z, 2);
        }
        while (remaining < threshold && threshold > 1) {
            nbits--;
            threshold >>= 1;
        }
    }
    ze_bw_flush(&w);
    return w.pos;
}

/* Estimated bits (x256) to code `cnt` with a table of norm/log. */
OC_CORE_FN uint64_t ze_fse_cost(const uint32_t *cnt, int nsym, const int16_t *norm, int nnorm, int log)
{
    uint64_t bits = 0;
    for (int s = 0; s < nsym; s++) {
        if (!cnt[s])
            continue;
        if (s >= nnorm || norm[s] == 0)
            return ~0ull >> 2;
        uint32_t p = norm[s] < 0 ? 1u : (uint32_t)norm[s];
        bits += (uint64_t)cnt[s] * (((uint32_t)log << 8) - ze_log2fp(p));
    }
    return bits;
}

/* ---- Huffman literals (RFC 8878 4.2) ---------------------------------------- */

#define ZE_HUF_MAX 11

/* Huffman temporaries (kept out of the GPU thread's stack). */
typedef struct {
    uint32_t cnt[256];
    uint32_t wgt[512];
    uint16_t sym[256];
    uint16_t parent[512];
    uint16_t code[256];
    uint8_t depth[512];
    uint8_t len[256];
    uint8_t wts[256];  /* weights of symbols 0..last-1 */
    uint8_t tree[160]; /* FSE-compressed tree description */
} ze_huf;

/* Code lengths (<= 11) of a complete prefix code for cnt[0..255] (at least
 * two symbols present); returns the longest length. */
OC_CORE_BIGFN int ze_huf_lengths(ze_huf *H)
{
    const uint32_t *cnt = H->cnt;
    uint8_t *len = H->len;
    uint16_t *sym = H->sym;
    uint32_t *wgt = H->wgt;
    uint16_t *parent = H->parent;
    uint8_t *depth = H->depth;
    int n = 0;
    for (int s = 0; s < 256; s++) {
        len[s] = 0;
        if (cnt[s]) {
            int i = n++;
            while (i > 0 && cnt[sym[i - 1]] > cnt[s]) { /* ascending counts */
                sym[i] = sym[i - 1];
                i--;
            }
            sym[i] = (uint16_t)s;
        }
    }
    for (int i = 0; i < n; i++)
        wgt[i] = cnt[sym[i]];
    /* two queues: leaves 0..n-1, internal nodes n.. in creation order */
    int li = 0, ni = n, nn = n;
    for (int k = 0; k < n - 1; k++) {
        int a, b;
        a = (li < n && (ni >= nn || wgt[li] <= wgt[ni])) ? li++ : ni++;
        b = (li < n && (ni >= nn || wgt[li] <= wgt[ni])) ? li++ : ni++;
        wgt[nn] = wgt[a] + wgt[b];
        parent[a] = parent[b] = (uint16_t)nn;
        nn++;
    }
    /* depths: root is nn-1; parents are created after their children.  The
     * caller guarantees two symbols (nn >= 3); the check keeps the index
     * provably in range for the compiler too. */
    if (nn < 1 || nn > 511)
        return 0;
    depth[nn - 1] = 0;
    for (int i = nn - 2; i >= 0; i--)
        depth[i] = (uint8_t)(depth[parent[i]] + 1 > 60 ? 60 : depth[parent[i]] + 1);
    int maxl = 0;
    for (int i = 0; i < n; i++) {
        int l = depth[i] > ZE_HUF_MAX ? ZE_HUF_MAX : depth[i];
        len[sym[i]] = (uint8_t)l;
        maxl = l > maxl ? l : maxl;
    }
    /* Kraft sum in units of 2^-11; repair after clamping */
    int32_t k = 0, full = 1 << ZE_HUF_MAX;
    for (int i = 0; i < n; i++)
        k += 1 << (ZE_HUF_MAX - len[sym[i]]);
    while (k > full) { /* lengthen the rarest code of the longest length < 11 */
        int best = -1;
        for (int i = 0; i < n; i++) {
            int l = len[sym[i]];
            if (l < ZE_HUF_MAX && (best < 0 || l > len[sym[best]]))
                best = i; /* ascending counts: first found is rarest */
        }
        k -= 1 << (ZE_HUF_MAX - len[sym[best]] - 1);
        len[sym[best]]++;
    }
    while (k < full) { /* shorten the most frequent code of the longest length that fits */
        int best = -1;
        for (int i = n - 1; i >= 0; i--) {
            int l = len[sym[i]];
            if (l > 1 && (1 << (ZE_HUF_MAX - l)) <= full - k && (best < 0 || l > len[sym[best]]))
                best = i;
        }
        k += 1 << (ZE_HUF_MAX - len[sym[best]]);
        len[sym[best]]--;
    }
    maxl = 0;
    for (int i = 0; i < n; i++)
        maxl = len[sym[i]] > maxl ? len[sym[i]] : maxl;
    return maxl;
}

/* Canonical codes as the format assigns them: by weight (longest codes
 * first), then symbol value. */
OC_CORE_FN void ze_huf_codes(const uint8_t *len, int maxl, uint16_t *code)
{
    uint32_t cnt[ZE_HUF_MAX + 2], start[ZE_HUF_MAX + 2];
    for (int i = 0; i < ZE_HUF_MAX + 2; i++)
        cnt[i] = 0;
    for (int s = 0; s < 256; s++)
        if (len[s])
            cnt[len[s]]++;
    uint32_t acc = 0;
    for (int l = maxl; l >= 1; l--) { /* weight maxl+1-l ascending */
        start[l] = acc;
        acc = (acc + cnt[l]) >> 1;
    }
    for (int s = 0; s < 256; s++)
        if (len[s])
            code[s] = (uint16_t)start[len[s]]++;
}

/* Encodes literals lit[0..n) as a Huffman stream into w (last literal
 * first, so the decoder's first symbol is lit[0]). */
OC_CORE_FN void ze_huf_stream(ze_bw *w, const uint8_t *lit, size_t n, const uint8_t *len,
                              const uint16_t *code)
{
    for (size_t i = n; i-- > 0;)
        ze_bw_put(w, code[lit[i]], len[lit[i]]);
    ze_bw_close(w);
}

/* Literals section header of a Raw (type 0) or RLE (type 1) section. */
OC_CORE_FN size_t ze_lit_header_raw(uint8_t *h, uint32_t type, size_t n)
{
    if (n < 32) {
        h[0] = (uint8_t)(type | (n << 3));
        return 1;
    }
    if (n < 4096) {
        h[0] = (uint8_t)(type | (1u << 2) | ((n & 15) << 4));
        h[1] = (uint8_t)(n >> 4);
        return 2;
    }
    h[0] = (uint8_t)(type | (3u << 2) | ((n & 15) << 4));
    h[1] = (uint8_t)(n >> 4);
    h[2] = (uint8_t)(n >> 12);
    return 3;
}

/* Writes the literals section at dst[pos..lim); returns the new position
 * (> lim when it does not fit). */
/* Tree description with FSE-compressed weights (RFC 8878 4.2.1.2: two
 * interleaved states over one table of accuracy <= 6) into H->tree; returns
 * its size, 0 when it cannot be written (fewer than two distinct weights,
 * or 128 bytes or more).  Decoders emit w[k] and update its state; the
 * update after w[nw-2] must run out of bits, then w[nw-1] comes from the
 * other state: so both streams start (encoding backwards) at the first
 * state of their symbol, which reads >= 1 bit. */
OC_CORE_BIGFN size_t ze_huf_weights_fse(ze_huf *H, int nw, ze_fse *t, int16_t *norm, uint8_t *spread)
{
    uint32_t c[16];
    for (int i = 0; i < 16; i++)
        c[i] = 0;
    for (int i = 0; i < nw; i++)
        c[H->wts[i]]++;
    int distinct = 0, maxw = 0;
    for (int i = 0; i < 16; i++)
        if (c[i]) {
            distinct++;
            maxw = i;
        }
    if (nw < 2 || distinct < 2)
        return 0;
    int log = ze_fse_normalize(c, maxw + 1, (uint32_t)nw, 6, norm);
    size_t nc = ze_fse_write_ncount(H->tree + 1, norm, maxw + 1, log);
    ze_fse_build(t, norm, maxw + 1, log, spread);
    ze_bw w;
    ze_bw_init(&w, H->tree, 1 + nc, 128);
    uint32_t st[2];
    st[(nw - 1) & 1] = t->states[t->start[H->wts[nw - 1]]];
    st[(nw - 2) & 1] = t->states[t->start[H->wts[nw - 2]]];
    for (int k = nw - 3; k >= 0; k--)
        ze_fse_step(t, &st[k & 1], H->wts[k], &w);
    ze_bw_put(&w, st[1], log);
    ze_bw_put(&w, st[0], log);
    ze_bw_close(&w);
    if (w.ovf || w.pos > 128)
        return 0;
    H->tree[0] = (uint8_t)(w.pos - 1);
    return w.pos;
}

OC_CORE_BIGFN size_t ze_literals(ze_huf *H, ze_fse *tmp_fse, int16_t *norm, uint8_t *spread,
                                 const uint8_t *lit, size_t n, uint8_t *dst, size_t pos, size_t lim)
{
    uint8_t h[5];
    uint32_t *cnt = H->cnt;
    for (int s = 0; s < 256; s++)
        cnt[s] = 0;
    for (size_t i = 0; i < n; i++)
        cnt[lit[i]]++;
    int distinct = 0, last = 0;
    for (int s = 0; s < 256; s++)
        if (cnt[s]) {
            distinct++;
            last = s;
        }
    if (distinct == 1 && n > 2) { /* RLE literals */
        size_t hl = ze_lit_header_raw(h, 1, n);
        if (pos + hl + 1 > lim)
            return lim + 1;
        for (size_t i = 0; i < hl; i++)
            dst[pos + i] = h[i];
        dst[pos + hl] = lit[0];
        return pos + hl + 1;
    }
    size_t rawsz = ze_lit_header_raw(h, 0, n) + n;
    /* Huffman: worth trying from 64 literals */
    if (n >= 64 && distinct >= 2) {
        uint8_t *len = H->len;
        uint16_t *code = H->code;
        int maxl = ze_huf_lengths(H);
        ze_huf_codes(len, maxl, code);
        uint64_t bits = 0;
        for (int s = 0; s < 256; s++)
            bits += (uint64_t)cnt[s] * len[s];
        size_t single = n <= 1023;
        size_t hl = single ? 3 : n <= 16383 ? 4 : 5;
        for (int s = 0; s < last; s++)
            H->wts[s] = (uint8_t)(len[s] ? maxl + 1 - len[s] : 0);
        size_t tree_fse = ze_huf_weights_fse(H, last, tmp_fse, norm, spread);
        size_t tree_direct = last <= 128 ? 1 + ((size_t)last + 1) / 2 : 1000;
        int use_fse = tree_fse > 0 && tree_fse < tree_direct;
        size_t tree = use_fse ? tree_fse : tree_direct;
        size_t est = hl + tree + (single ? 0 : 6) + (size_t)(bits / 8) + 4;
        if (est < rawsz && tree < 1000) {
            size_t body = pos + hl;
            if (body + tree > lim)
                goto raw;
            if (use_fse) {
                for (size_t i = 0; i < tree; i++)
                    dst[body + i] = H->tree[i];
            } else {
                dst[body] = (uint8_t)(127 + last);
                for (int s = 0; s < last; s += 2) {
                    uint32_t w1 = s + 1 < last ? H->wts[s + 1] : 0u;
                    dst[body + 1 + (size_t)s / 2] = (uint8_t)(((uint32_t)H->wts[s] << 4) | w1);
                }
            }
            size_t sp = body + tree;
            ze_bw w;
            if (single) {
                ze_bw_init(&w, dst, sp, lim);
                ze_huf_stream(&w, lit, n, len, code);
            } else {
                size_t seg = (n + 3) / 4, at = sp + 6;
                uint32_t ssz[4];
                for (int k = 0; k < 4; k++) {
                    size_t cnt_k = k < 3 ? seg : n - 3 * seg;
                    ze_bw_init(&w, dst, at, lim);
                    ze_huf_stream(&w, lit + (size_t)k * seg, cnt_k, len, code);
                    if (w.ovf)
                        goto raw;
                    ssz[k] = (uint32_t)(w.pos - at);
                    at = w.pos;
                }
                if (ssz[0] > 65535 || ssz[1] > 65535 || ssz[2] > 65535 || sp + 6 > lim)
                    goto raw;
                for (int k = 0; k < 3; k++) {
                    dst[sp + 2 * (size_t)k] = (uint8_t)ssz[k];
                    dst[sp + 2 * (size_t)k + 1] = (uint8_t)(ssz[k] >> 8);
                }
            }
            if (w.ovf)
                goto raw;
            size_t csize = w.pos - body;
            if (hl + csize < rawsz) {
                int b = hl == 3 ? 10 : hl == 4 ? 14 : 18;
                uint64_t hv = 2u |
                              ((uint64_t)(hl == 3   ? 0
                                          : hl == 4 ? 2
                                                    : 3)
                               << 2) |
                              ((uint64_t)n << 4) | ((uint64_t)csize << (4 + b));
                for (size_t i = 0; i < hl; i++)
                    dst[pos + i] = (uint8_t)(hv >> (8 * i));
                return w.pos;
            }
        }
    }
raw:;
    size_t hl = ze_lit_header_raw(h, 0, n);
    if (pos + hl + n > lim)
        return lim + 1;
    for (size_t i = 0; i < hl; i++)
        dst[pos + i] = h[i];
    for (size_t i = 0; i < n; i++)
        dst[pos + hl + i] = lit[i];
    return pos + hl + n;
}

/* ---- sequences section (RFC 8878 3.1.1.3.2, 3.1.1.4) ----------------------- */

/* Entropy state and temporaries of one worker (global memory on the GPU). */
typedef struct {
    ze_fse ll, of, ml;             /* tables of this block */
    ze_fse pre_ll, pre_of, pre_ml; /* predefined */
    ze_huf huf;
    int16_t norm[64];
    uint8_t spread[512];
    uint8_t desc[3][128];
} ze_tables;

OC_CORE_BIGFN void ze_tables_init(ze_tables *T)
{
    ze_fse_build(&T->pre_ll, oc_zstd_ll_default, 36, 6, T->spread);
    ze_fse_build(&T->pre_ml, oc_zstd_ml_default, 53, 6, T->spread);
    ze_fse_build(&T->pre_of, oc_zstd_of_default, 29, 5, T->spread);
}

/* Chooses the mode of one code stream (0 predefined, 1 RLE, 2 compressed);
 * writes a description of an RLE/compressed table into desc (returns its
 * size) and points *tab at the table to encode with (NULL for RLE). */
OC_CORE_BIGFN size_t ze_choose_table(ze_tables *T, const uint32_t *cnt, int nsym, uint32_t nseq, int max_log,
                                     const ze_fse *pre, const int16_t *pre_norm, int pre_n, ze_fse *own,
                                     int allow_built, uint32_t *mode, const ze_fse **tab, uint8_t *desc)
{
    int distinct = 0, one = 0;
    for (int s = 0; s < nsym; s++)
        if (cnt[s]) {
            distinct++;
            one = s;
        }
    uint64_t pre_cost = ze_fse_cost(cnt, nsym, pre_norm, pre_n, pre->log);
    if (distinct == 1 && (nseq > 2 || pre_cost > ((uint64_t)8 << 8))) {
        *mode = 1;
        *tab = NULL;
        desc[0] = (uint8_t)one;
        return 1;
    }
    if (allow_built && nseq >= 16) {
        int log = ze_fse_normalize(cnt, nsym, nseq, max_log, T->norm);
        int last = nsym - 1;
        while (last > 0 && T->norm[last] == 0)
            last--;
        uint64_t cost = ze_fse_cost(cnt, nsym, T->norm, nsym, log);
        size_t dsz = ze_fse_write_ncount(desc, T->norm, last + 1, log);
        if (cost + ((uint64_t)dsz << 11) < pre_cost) {
            ze_fse_build(own, T->norm, last + 1, log, T->spread);
            *mode = 2;
            *tab = own;
            return dsz;
        }
    }
    *mode = 0;
    *tab = pre;
    return 0;
}

/* Writes the sequences section at dst[pos..lim); returns the new position
 * (> lim when it does not fit). */
OC_CORE_BIGFN size_t ze_sequences(ze_tables *T, const ze_seq *seq, uint32_t nseq, int allow_built,
                                  uint8_t *dst, size_t pos, size_t lim)
{
    if (pos + (nseq < 128 ? 1u : nseq < 0x7F00 ? 2u : 3u) > lim)
        return lim + 1;
    if (nseq < 128) {
        dst[pos++] = (uint8_t)nseq;
    } else if (nseq < 0x7F00) {
        dst[pos++] = (uint8_t)((nseq >> 8) + 128);
        dst[pos++] = (uint8_t)nseq;
    } else {
        dst[pos++] = 0xFF;
        dst[pos++] = (uint8_t)(nseq - 0x7F00);
        dst[pos++] = (uint8_t)((nseq - 0x7F00) >> 8);
    }
    if (nseq == 0)
        return pos;
    uint32_t cll[36], cof[32], cml[53];
    for (int s = 0; s < 36; s++)
        cll[s] = 0;
    for (int s = 0; s < 32; s++)
        cof[s] = 0;
    for (int s = 0; s < 53; s++)
        cml[s] = 0;
    for (uint32_t i = 0; i < nseq; i++) {
        cll[ze_ll_code(seq[i].ll)]++;
        cml[ze_ml_code(seq[i].ml)]++;
        cof[oc_highbit32(seq[i].ofv)]++;
    }
    uint8_t(*desc)[128] = T->desc;
    size_t dsz[3];
    uint32_t mode[3];
    const ze_fse *tab[3];
    dsz[0] = ze_choose_table(T, cll, 36, nseq, 9, &T->pre_ll, oc_zstd_ll_default, 36, &T->ll, allow_built,
                             &mode[0], &tab[0], desc[0]);
    dsz[1] = ze_choose_table(T, cof, 32, nseq, 8, &T->pre_of, oc_zstd_of_default, 29, &T->of, allow_built,
                             &mode[1], &tab[1], desc[1]);
    dsz[2] = ze_choose_table(T, cml, 53, nseq, 9, &T->pre_ml, oc_zstd_ml_default, 53, &T->ml, allow_built,
                             &mode[2], &tab[2], desc[2]);
    if (pos + 1 + dsz[0] + dsz[1] + dsz[2] > lim)
        return lim + 1;
    dst[pos++] = (uint8_t)((mode[0] << 6) | (mode[1] << 4) | (mode[2] << 2));
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < dsz[k]; i++)
            dst[pos++] = desc[k][i];
    /* the bitstream, last sequence first */
    ze_bw w;
    ze_bw_init(&w, dst, pos, lim);
    uint32_t sll = 0, sof = 0, sml = 0;
    const ze_seq *q = &seq[nseq - 1];
    uint32_t llc = ze_ll_code(q->ll), mlc = ze_ml_code(q->ml), ofc = (uint32_t)oc_highbit32(q->ofv);
    if (tab[0])
        sll = tab[0]->states[tab[0]->start[llc]];
    if (tab[1])
        sof = tab[1]->states[tab[1]->start[ofc]];
    if (tab[2])
        sml = tab[2]->states[tab[2]->start[mlc]];
    ze_bw_put(&w, q->ll - oc_zstd_ll_base[llc], oc_zstd_ll_bits[llc]);
    ze_bw_put(&w, q->ml - oc_zstd_ml_base[mlc], oc_zstd_ml_bits[mlc]);
    ze_bw_put(&w, q->ofv - (1u << ofc), (int)ofc);
    for (uint32_t i = nseq - 1; i-- > 0;) {
        q = &seq[i];
        llc = ze_ll_code(q->ll);
        mlc = ze_ml_code(q->ml);
        ofc = (uint32_t)oc_highbit32(q->ofv);
        if (tab[1])
            ze_fse_step(tab[1], &sof, ofc, &w);
        if (tab[2])
            ze_fse_step(tab[2], &sml, mlc, &w);
        if (tab[0])
            ze_fse_step(tab[0], &sll, llc, &w);
        ze_bw_put(&w, q->ll - oc_zstd_ll_base[llc], oc_zstd_ll_bits[llc]);
        ze_bw_put(&w, q->ml - oc_zstd_ml_base[mlc], oc_zstd_ml_bits[mlc]);
        ze_bw_put(&w, q->ofv - (1u << ofc), (int)ofc);
    }
    if (tab[2])
        ze_bw_put(&w, sml, tab[2]->log);
    if (tab[1])
        ze_bw_put(&w, sof, tab[1]->log);
    if (tab[0])
        ze_bw_put(&w, sll, tab[0]->log);
    ze_bw_close(&w);
    return w.ovf ? lim + 1 : w.pos;
}

/* ---- match finding ------------------------------------------------------------ */

/* Offset_Value for a match at `off` after `ll` literals, updating the repeat
 * offsets exactly as the decoder will. */
OC_CORE_FN uint32_t ze_offset_value(uint32_t off, uint32_t ll, uint32_t *rep)
{
    uint32_t idx; /* 0-2 rep[idx], 3 rep[0] - 1, 4 new */
    if (ll > 0)
        idx = off == rep[0] ? 0 : off == rep[1] ? 1 : off == rep[2] ? 2 : 4;
    else
        idx = off == rep[1] ? 1 : off == rep[2] ? 2 : off == rep[0] - 1 ? 3 : 4;
    if (idx == 4) {
        rep[2] = rep[1];
        rep[1] = rep[0];
        rep[0] = off;
        return off + 3;
    }
    uint32_t ofv = ll > 0 ? idx + 1 : idx;
    if (idx != 0) {
        if (idx != 1)
            rep[2] = rep[1];
        rep[1] = rep[0];
        rep[0] = off;
    }
    return ofv;
}

OC_CORE_FN uint32_t ze_count(const uint8_t *a, const uint8_t *b, const uint8_t *end)
{
    const uint8_t *s = a;
    while (a < end && *a == *b) {
        a++;
        b++;
    }
    return (uint32_t)(a - s);
}

typedef struct {
    uint32_t len, off;
} ze_match;

/* Worth of a match: 4 per byte, less the offset's cost; a repeat offset
 * earns a bonus (-4 measured best: it keeps runs of repeat-offset sequences,
 * whose codes then cost almost nothing, over longer matches at new
 * offsets; tpch_l_quantity 5.85 -> 6.38, other files +-0.1%). */
OC_CORE_FN int ze_gain(ze_match m, const uint32_t *rep)
{
    int oc = (m.off == rep[0] || m.off == rep[1] || m.off == rep[2]) ? -4 : oc_highbit32(m.off + 3);
    return (int)m.len * 4 - oc;
}

/* Best match at ip (lazy variants): the three repeat offsets, then the
 * chain from `cand` (the latest earlier position with ip's hash); the best
 * by ze_gain. */
OC_CORE_FN ze_match ze_find(const ze_work *W, const uint8_t *src, uint32_t ip, uint32_t end, uint32_t maxdist,
                            const uint32_t *rep, int depth, uint32_t cand)
{
    ze_match m;
    m.len = 0;
    m.off = 0;
    int best = 0;
    uint32_t v = oc_load_le32(src + ip);
    for (int r = 0; r < 3; r++) {
        uint32_t o = rep[r];
        if (o <= ip && o <= maxdist && oc_load_le32(src + ip - o) == v) {
            ze_match t;
            t.len = 4 + ze_count(src + ip + 4, src + ip - o + 4, src + end);
            t.off = o;
            int g = ze_gain(t, rep);
            if (g > best) {
                best = g;
                m = t;
            }
        }
    }
    if (ip + m.len >= end)
        return m;
    const uint32_t cmask = (1u << ZE_CHAIN_LOG) - 1;
    for (int d = 0; d < depth; d++) {
        if (cand == ZE_EMPTY || cand >= ip || ip - cand > maxdist || ip - cand > cmask)
            break;
        if (src[cand + m.len] == src[ip + m.len] && oc_load_le32(src + cand) == v) {
            ze_match t;
            t.len = 4 + ze_count(src + ip + 4, src + cand + 4, src + end);
            t.off = ip - cand;
            int g = ze_gain(t, rep);
            if (g > best) {
                best = g;
                m = t;
                if (ip + t.len >= end)
                    break;
            }
        }
        uint32_t nx = W->chain[cand & cmask];
        if (nx >= cand)
            break;
        cand = nx;
    }
    return m;
}

OC_CORE_FN void ze_insert(const ze_work *W, const uint8_t *src, uint32_t p)
{
    uint32_t h = ze_hash(src + p, ZE_HASH_LAZY);
    W->chain[p & ((1u << ZE_CHAIN_LOG) - 1)] = W->hash[h];
    W->hash[h] = p;
}

OC_CORE_FN void ze_emit(const ze_work *W, const uint8_t *src, uint32_t *nseq, uint32_t *nlit, uint32_t anchor,
                        uint32_t ip, ze_match m, uint32_t *rep)
{
    uint32_t ll = ip - anchor;
    for (uint32_t i = 0; i < ll; i++)
        W->lit[*nlit + i] = src[anchor + i];
    *nlit += ll;
    ze_seq *q = &W->seq[(*nseq)++];
    q->ll = ll;
    q->ml = m.len;
    q->ofv = ze_offset_value(m.off, ll, rep);
}

/* ze_emit for the warp variants: every lane calls it (each keeps its own
 * copy of rep in step), the lanes copy the literals, lane 0 writes the
 * sequence. */
OC_CORE_FN void ze_emit_warp(const ze_work *W, const uint8_t *src, uint32_t *nseq, uint32_t *nlit,
                             uint32_t anchor, uint32_t ip, ze_match m, uint32_t *rep, uint32_t lane)
{
    uint32_t ll = ip - anchor;
    for (uint32_t i = lane; i < ll; i += OC_NLANES)
        W->lit[*nlit + i] = src[anchor + i];
    *nlit += ll;
    uint32_t ofv = ze_offset_value(m.off, ll, rep);
    if (lane == 0) {
        ze_seq *q = &W->seq[*nseq];
        q->ll = ll;
        q->ml = m.len;
        q->ofv = ofv;
    }
    (*nseq)++;
}

/* Lazy variant, one lane: the sequences of block [bs, be) of src; literals
 * go to W->lit.  *ins is the next position to insert into the tables. */
OC_CORE_BIGFN uint32_t ze_block_lazy(const ze_work *W, const uint8_t *src, uint32_t bs, uint32_t be,
                                     uint32_t maxdist, uint32_t *rep, const ze_params *P, uint32_t *ins,
                                     uint32_t *nlit_out)
{
    uint32_t nseq = 0, nlit = 0, anchor = bs, ip = bs;
    uint32_t ilimit = be - bs > 8 ? be - 8 : bs; /* last positions stay literals */
    if (*ins < bs)
        *ins = bs;
    while (ip < ilimit) {
        while (*ins < ip)
            ze_insert(W, src, (*ins)++);
        ze_match m =
            ze_find(W, src, ip, be, maxdist, rep, P->depth, W->hash[ze_hash(src + ip, ZE_HASH_LAZY)]);
        if (m.len < ZE_MINMATCH) {
            ip += 1 + ((ip - anchor) >> 7);
            continue;
        }
        /* lazy: a better match one position later wins */
        while (ip + 1 < ilimit) {
            while (*ins < ip + 1)
                ze_insert(W, src, (*ins)++);
            ze_match m2 = ze_find(W, src, ip + 1, be, maxdist, rep, P->depth,
                                  W->hash[ze_hash(src + ip + 1, ZE_HASH_LAZY)]);
            int g1 = ze_gain(m, rep) + 4;
            int g2 = ze_gain(m2, rep);
            if (m2.len >= ZE_MINMATCH && g2 > g1) {
                ip++;
                m = m2;
            } else {
                break;
            }
        }
        while (ip > anchor && ip - m.off > 0 && src[ip - 1] == src[ip - m.off - 1]) {
            ip--;
            m.len++;
        }
        ze_emit(W, src, &nseq, &nlit, anchor, ip, m, rep);
        ip += m.len;
        anchor = ip;
    }
    if (*ins < ilimit) /* later blocks see this block's positions */
        while (*ins < ilimit)
            ze_insert(W, src, (*ins)++);
    for (uint32_t i = anchor; i < be; i++)
        W->lit[nlit + i - anchor] = src[i];
    *nlit_out = nlit + (be - anchor);
    return nseq;
}

/* Inserts positions [from, to) (at most ZE_WINDOW) into the chains, one
 * per lane on the GPU: a position's link is the highest lower lane with its
 * hash, else the head; the highest lane becomes the head.  Same tables as
 * ze_insert in order. */
OC_CORE_FN void ze_insert_window(const ze_work *W, const uint8_t *src, uint32_t from, uint32_t to)
{
#ifdef __CUDACC__
    const uint32_t cmask = (1u << ZE_CHAIN_LOG) - 1;
    uint32_t lane = OC_LANE(), p = from + lane;
    int act = p < to;
    uint32_t h = act ? ze_hash(src + p, ZE_HASH_LAZY) : (0x80000000u | lane);
    uint32_t peers = __match_any_sync(0xffffffffu, h);
    uint32_t lower = peers & ((1u << lane) - 1u);
    uint32_t head = act ? W->hash[h] : 0u;
    __syncwarp();
    if (act) {
        W->chain[p & cmask] = lower ? from + (uint32_t)(31 - __clz(lower)) : head;
        if ((peers >> lane >> 1) == 0)
            W->hash[h] = p;
    }
    __syncwarp();
#else
    for (uint32_t p = from; p < to; p++)
        ze_insert(W, src, p);
#endif
}

#ifdef __CUDACC__
/* Lane r's match, to every lane (r uniform). */
OC_CORE_FN ze_match ze_match_of_lane(ze_match mine, uint32_t r)
{
    ze_match m;
    m.len = __shfl_sync(0xffffffffu, mine.len, (int)r);
    m.off = __shfl_sync(0xffffffffu, mine.off, (int)r);
    return m;
}
#define ZE_WIN_MATCH(r) ze_match_of_lane(mine, (r))
#else /* searches are read-only once the window is inserted: search on demand */
#define ZE_WIN_MATCH(r) ze_find(W, src, ip + (r), be, maxdist, rep, P->depth, W->chain[(ip + (r)) & cmask])
#endif

/* Lazy variant by windows, whole warp: the ZE_WINDOW positions from ip are
 * inserted into the chains, each searched (one per lane on the GPU, with the
 * repeat offsets as they are at ip), then parsed in order: the first match
 * is taken unless the next position's match gains more (lazy steps inside
 * the window); the next window starts at the match's end (a window without
 * a match moves on by ZE_WINDOW).  Defined by windows, so the C build gives
 * the GPU's sequences; every lane returns the same values. */
OC_CORE_BIGFN uint32_t ze_block_wlazy(const ze_work *W, const uint8_t *src, uint32_t bs, uint32_t be,
                                      uint32_t maxdist, uint32_t *rep, const ze_params *P, uint32_t *ins,
                                      uint32_t *nlit_out)
{
    const uint32_t cmask = (1u << ZE_CHAIN_LOG) - 1;
    uint32_t lane = OC_LANE();
    uint32_t nseq = 0, nlit = 0, anchor = bs, ip = bs;
    uint32_t ilimit = be - bs > 8 ? be - 8 : bs; /* last positions stay literals */
    if (*ins < bs)
        *ins = bs;
    while (ip < ilimit) {
        uint32_t nwin = ilimit - ip < ZE_WINDOW ? ilimit - ip : ZE_WINDOW;
        while (*ins < ip + nwin) {
            uint32_t to = ip + nwin - *ins < ZE_WINDOW ? ip + nwin : *ins + ZE_WINDOW;
            ze_insert_window(W, src, *ins, to);
            *ins = to;
        }
#ifdef __CUDACC__
        ze_match mine;
        mine.len = 0;
        mine.off = 0;
        if (lane < nwin)
            mine = ze_find(W, src, ip + lane, be, maxdist, rep, P->depth, W->chain[(ip + lane) & cmask]);
#endif
        uint32_t r = 0;
        ze_match m;
        m.len = 0;
        m.off = 0;
        while (r < nwin) {
            m = ZE_WIN_MATCH(r);
            if (m.len >= ZE_MINMATCH)
                break;
            r++;
        }
        if (r >= nwin) {
            ip += nwin;
            continue;
        }
        while (r + 1 < nwin) {
            ze_match m2 = ZE_WIN_MATCH(r + 1);
            if (m2.len >= ZE_MINMATCH && ze_gain(m2, rep) > ze_gain(m, rep) + 4) {
                r++;
                m = m2;
            } else {
                break;
            }
        }
        uint32_t p = ip + r;
        while (p > anchor && p - m.off > 0 && src[p - 1] == src[p - m.off - 1]) {
            p--;
            m.len++;
        }
        ze_emit_warp(W, src, &nseq, &nlit, anchor, p, m, rep, lane);
        ip = p + m.len;
        anchor = ip;
        OC_WARP_SYNC();
    }
    while (*ins < ilimit) { /* later blocks see this block's positions */
        uint32_t to = ilimit - *ins < ZE_WINDOW ? ilimit : *ins + ZE_WINDOW;
        ze_insert_window(W, src, *ins, to);
        *ins = to;
    }
    for (uint32_t i = anchor + lane; i < be; i += OC_NLANES)
        W->lit[nlit + i - anchor] = src[i];
    OC_WARP_SYNC();
    *nlit_out = nlit + (be - anchor);
    return nseq;
}

/* Match length from a vs b (b < a), up to end: the warp compares 32 bytes
 * per step on the GPU; same result as ze_count. */
OC_CORE_FN uint32_t ze_count_warp(const uint8_t *a, const uint8_t *b, const uint8_t *end)
{
#ifdef __CUDACC__
    uint32_t len = 0, lane = OC_LANE();
    for (;;) {
        const uint8_t *q = a + len + lane;
        int neq = q < end ? *q != b[len + lane] : 1;
        uint32_t m = __ballot_sync(0xffffffffu, neq);
        if (m)
            return len + (uint32_t)(__ffs(m) - 1);
        len += 32;
    }
#else
    return ze_count(a, b, end);
#endif
}

/* One probe of the fast variant at p (tables as before the window): 1 and
 * the match source in *c when the repeat offset or the hash head matches 4
 * bytes. */
OC_CORE_FN uint32_t ze_probe(const ze_work *W, const uint8_t *src, uint32_t p, uint32_t maxdist,
                             uint32_t rep0, uint32_t *c, uint32_t *h)
{
    uint32_t v = oc_load_le32(src + p), r = 0;
    *h = ze_hash(src + p, ZE_HASH_FAST);
    uint32_t cand = W->hash[*h];
    if (cand != ZE_EMPTY && cand < p && p - cand <= maxdist && oc_load_le32(src + cand) == v) {
        *c = cand;
        r = 2;
    }
    if (rep0 <= p && rep0 <= maxdist && oc_load_le32(src + p - rep0) == v) {
        *c = p - rep0;
        r |= 1;
    }
    return r; /* bit 0: repeat offset (then *c is its source), bit 1: hash head */
}

/* The window's pick from the probes' bit masks (bit l = position l): the
 * first repeat-offset match if it is at most one position after the first
 * hash match (a repeat offset costs next to nothing), else the first hash
 * match; ZE_WINDOW when none. */
OC_CORE_FN uint32_t ze_pick(uint32_t mrep, uint32_t mhash)
{
    uint32_t fr = mrep ? (uint32_t)oc_lowbit32(mrep) : ZE_WINDOW;
    uint32_t fh = mhash ? (uint32_t)oc_lowbit32(mhash) : ZE_WINDOW;
    return fr <= fh + 1 ? fr : fh;
}

/* Fast variant, whole warp: greedy matching by windows of ZE_WINDOW
 * positions.  Every position of a window is probed against the tables as
 * they were before the window (repeat offset first, then the hash head);
 * the first position that matches wins; the positions up to it enter the
 * hash table (a later position wins a shared slot); the match is extended
 * forwards (32 bytes per step on the GPU) and backwards over pending
 * literals.  A window without a match inserts all its positions and moves
 * on by ZE_WINDOW.  Defined by windows, not lanes, so the C build (one lane
 * looping over the window) gives the same sequences as the GPU.  Every lane
 * returns the same values. */
OC_CORE_BIGFN uint32_t ze_block_fast(const ze_work *W, const uint8_t *src, uint32_t bs, uint32_t be,
                                     uint32_t maxdist, uint32_t *rep, uint32_t *nlit_out)
{
    uint32_t lane = OC_LANE();
    uint32_t nseq = 0, nlit = 0, anchor = bs, ip = bs;
    uint32_t ilimit = be - bs > 8 ? be - 8 : bs; /* last positions stay literals */
    while (ip < ilimit) {
        uint32_t nvalid = ilimit - ip < ZE_WINDOW ? ilimit - ip : ZE_WINDOW;
        uint32_t f = ZE_WINDOW, c = 0;
#ifdef __CUDACC__
        uint32_t mc = 0, mh = 0;
        uint32_t ok = lane < nvalid ? ze_probe(W, src, ip + lane, maxdist, rep[0], &mc, &mh) : 0;
        f = ze_pick(__ballot_sync(0xffffffffu, ok & 1), __ballot_sync(0xffffffffu, ok & 2));
        c = __shfl_sync(0xffffffffu, mc, (int)(f & 31));
        /* positions ip .. ip+min(f, nvalid-1) enter the table, the highest lane of a slot wins */
        uint32_t last = f < nvalid ? f : nvalid - 1;
        int ins = lane <= last;
        uint32_t key = ins ? mh : (0x80000000u | lane);
        uint32_t peers = __match_any_sync(0xffffffffu, key);
        if (ins && (peers >> lane >> 1) == 0)
            W->hash[mh] = ip + lane;
        OC_WARP_SYNC();
#else
        uint32_t hs[ZE_WINDOW], cs[ZE_WINDOW], mrep = 0, mhash = 0;
        for (uint32_t l = 0; l < nvalid; l++) {
            uint32_t ok = ze_probe(W, src, ip + l, maxdist, rep[0], &cs[l], &hs[l]);
            mrep |= (ok & 1u) << l;
            mhash |= ((ok >> 1) & 1u) << l;
        }
        f = ze_pick(mrep, mhash);
        if (f < nvalid)
            c = cs[f];
        uint32_t last = f < nvalid ? f : nvalid - 1;
        for (uint32_t l = 0; l <= last; l++)
            W->hash[hs[l]] = ip + l;
#endif
        if (f >= nvalid) {
            ip += nvalid;
            continue;
        }
        uint32_t p = ip + f;
        ze_match mt;
        mt.off = p - c;
        mt.len = 4 + ze_count_warp(src + p + 4, src + c + 4, src + be);
        while (p > anchor && c > 0 && src[p - 1] == src[c - 1]) {
            p--;
            c--;
            mt.len++;
        }
        ze_emit_warp(W, src, &nseq, &nlit, anchor, p, mt, rep, lane);
        ip = p + mt.len;
        anchor = ip;
        if (lane == 0 && ip - 2 < ilimit && ip - 2 > bs)
            W->hash[ze_hash(src + ip - 2, ZE_HASH_FAST)] = ip - 2;
        OC_WARP_SYNC();
    }
    for (uint32_t i = anchor + lane; i < be; i += OC_NLANES)
        W->lit[nlit + i - anchor] = src[i];
    OC_WARP_SYNC();
    *nlit_out = nlit + (be - anchor);
    return nseq;
}

/* ---- frame ---------------------------------------------------------------------- */

/* Worst-case frame size for n bytes (header + 3 bytes per block). */
OC_CORE_FN size_t ze_bound(size_t n)
{
    return 18 + n + 3 * (n / ZE_BLOCK + 1);
}

/* Resets the tables of W for a new chunk; lanes [lane, lane+nlanes...) share
 * the work (call ZE sync after, on the GPU). */
OC_CORE_FN void ze_reset(const ze_work *W, uint32_t lane, uint32_t nlanes)
{
    for (uint32_t i = lane; i < (1u << ZE_HASH_LOG); i += nlanes)
        W->hash[i] = ZE_EMPTY;
}

/* Compresses src[0..n) into one frame at dst (capacity cap).  W must have
 * been reset (ze_reset) for this chunk; T initialised by ze_tables_init.
 * Chunks must be < 4 GiB. */
OC_CORE_BIGFN oc_status ze_compress_chunk(const ze_work *W, ze_tables *T, const uint8_t *src, size_t n,
                                          uint8_t *dst, size_t cap, size_t *out, int level)
{
    *out = 0;
    if (n >= ((size_t)1 << 32))
        return OC_ERR_CHUNK_TOO_LARGE;
    ze_params P = ze_params_for_level(level);
    /* frame header */
    uint8_t h[18];
    size_t hl = 0;
    h[hl++] = 0x28;
    h[hl++] = 0xB5;
    h[hl++] = 0x2F;
    h[hl++] = 0xFD;
    uint32_t maxdist = (uint32_t)n;
    if (n > ((size_t)1 << ZE_BIG_WINDOW_LOG)) {
        h[hl++] = (uint8_t)(2u << 6); /* FCS 4 bytes, window descriptor */
        h[hl++] = (uint8_t)((ZE_BIG_WINDOW_LOG - 10) << 3);
        maxdist = 1u << ZE_BIG_WINDOW_LOG;
        for (int i = 0; i < 4; i++)
            h[hl++] = (uint8_t)(n >> (8 * i));
    } else if (n < 256) {
        h[hl++] = 0x20; /* single segment, FCS 1 byte */
        h[hl++] = (uint8_t)n;
    } else if (n < 65536 + 256) {
        h[hl++] = 0x60;
        h[hl++] = (uint8_t)(n - 256);
        h[hl++] = (uint8_t)((n - 256) >> 8);
    } else {
        h[hl++] = 0xA0;
        for (int i = 0; i < 4; i++)
            h[hl++] = (uint8_t)(n >> (8 * i));
    }
    uint32_t lane = OC_LANE();
    if (hl > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    for (size_t i = lane; i < hl; i += OC_NLANES)
        dst[i] = h[i];
    size_t pos = hl;
    if (n == 0) {
        if (pos + 3 > cap)
            return OC_ERR_OUTPUT_TOO_SMALL;
        if (lane == 0) {
            dst[pos] = 1; /* last, raw, size 0 */
            dst[pos + 1] = 0;
            dst[pos + 2] = 0;
        }
        *out = pos + 3;
        return OC_OK;
    }
    uint32_t rep[3] = {1, 4, 8};
    uint32_t ins = 0;
    for (uint32_t bs = 0; bs < n;) {
        uint32_t bsz = (uint32_t)(n - bs) < ZE_BLOCK ? (uint32_t)(n - bs) : ZE_BLOCK;
        uint32_t be = bs + bsz;
        uint32_t last = be == n;
        size_t rem = cap - pos;
        uint32_t same = 1;
        for (uint32_t i = bs + 1; i < be && same; i++)
            same = src[i] == src[bs];
        uint32_t type, body;
        if (same && bsz > 1) {
            type = 1;
            body = 1;
            if (rem < 4)
                return OC_ERR_OUTPUT_TOO_SMALL;
            if (lane == 0)
                dst[pos + 3] = src[bs];
        } else {
            uint32_t saved[3] = {rep[0], rep[1], rep[2]};
            uint32_t nlit = 0, nseq = 0;
            if (P.lazy == 2) {
                nseq = ze_block_wlazy(W, src, bs, be, maxdist, rep, &P, &ins, &nlit);
            } else if (P.lazy) { /* lane 0 finds the matches, the others get the results */
                if (lane == 0)
                    nseq = ze_block_lazy(W, src, bs, be, maxdist, rep, &P, &ins, &nlit);
                nseq = OC_WARP_BCAST(nseq);
                nlit = OC_WARP_BCAST(nlit);
                ins = OC_WARP_BCAST(ins);
                rep[0] = OC_WARP_BCAST(rep[0]);
                rep[1] = OC_WARP_BCAST(rep[1]);
                rep[2] = OC_WARP_BCAST(rep[2]);
            } else {
                nseq = ze_block_fast(W, src, bs, be, maxdist, rep, &nlit);
            }
            OC_WARP_SYNC();
            /* compressed only if smaller than raw; never past the capacity;
             * entropy coding on lane 0 */
            size_t lim = pos + 3 + (rem - 3 < bsz - 1 ? rem - 3 : bsz - 1);
            size_t e = lim + 1;
            if (lane == 0 && rem >= 3) {
                e = ze_literals(&T->huf, &T->ll, T->norm, T->spread, W->lit, nlit, dst, pos + 3, lim);
                if (e <= lim)
                    e = ze_sequences(T, W->seq, nseq, P.fse_built, dst, e, lim);
            }
            e = OC_WARP_BCAST(e);
            if (e <= lim) {
                type = 2;
                body = (uint32_t)(e - pos - 3);
            } else {
                rep[0] = saved[0];
                rep[1] = saved[1];
                rep[2] = saved[2];
                type = 0;
                body = bsz;
                if (rem < 3 + (size_t)bsz)
                    return OC_ERR_OUTPUT_TOO_SMALL;
                for (uint32_t i = lane; i < bsz; i += OC_NLANES)
                    dst[pos + 3 + i] = src[bs + i];
            }
        }
        uint32_t bh = last | (type << 1) | ((type == 1 ? bsz : body) << 3);
        if (lane == 0) {
            dst[pos] = (uint8_t)bh;
            dst[pos + 1] = (uint8_t)(bh >> 8);
            dst[pos + 2] = (uint8_t)(bh >> 16);
        }
        OC_WARP_SYNC();
        pos += 3 + body;
        bs = be;
    }
    *out = pos;
    return OC_OK;
}

#endif /* OC_ZSTD_ENC_CORE_H */
