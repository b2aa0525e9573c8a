/*
 * zstd_enc_entropy.h - the entropy stage of the GPU zstd encoder core: FSE tables
 * (RFC 8878 4.1), Huffman-coded literals (4.2) and the sequences section
 * with its table choice (3.1.1.3.2, 3.1.1.4): histograms, symbol order,
 * codes and bitstreams by the warp's lanes, tables and the FSE state chain
 * on lane 0.
 */
#ifndef OC_ZSTD_ENC_ENTROPY_H
#define OC_ZSTD_ENC_ENTROPY_H

#include "zstd_enc_common.h"

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

/* ze_fse_step's bits as a mark, (1 << nb) | value (nb <= 9: 10 bits). */
OC_CORE_FN uint32_t ze_fse_mark(const ze_fse *t, uint32_t *state, uint32_t s)
{
    uint32_t v = *state + (1u << t->log), c = t->cnt[s];
    int nb = oc_highbit32(v) - oc_highbit32(c);
    if ((v >> nb) < c)
        nb--;
    *state = t->states[t->start[s] + (v >> nb) - c];
    return (1u << nb) | (v & ((1u << nb) - 1));
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
    uint32_t edge[2];  /* a stream's partial first and last words (ze_huf_stream_warp) */
} ze_huf;

/* Code lengths (<= 11) of a complete prefix code for cnt[0..255] (at least
 * two symbols present); returns the longest length. */
/* H->sym[0..n): the present symbols by ascending count, ties by symbol
 * value (the order of ze_huf_lengths' insertion sort), and H->len zeroed;
 * by the whole warp, each lane ranking its symbols against all 256 counts
 * (lane 0's insertion sort over global memory took up to ~16 K dependent
 * steps a block on binary data). */
OC_CORE_FN void ze_huf_sort_warp(ze_huf *H)
{
    const uint32_t *cnt = H->cnt;
    for (uint32_t s = OC_LANE(); s < 256; s += OC_NLANES) {
        H->len[s] = 0;
        uint32_t c = cnt[s];
        if (c) {
            uint32_t r = 0;
            for (uint32_t t = 0; t < 256; t++) {
                uint32_t ct = cnt[t];
                r += ct != 0 && (ct < c || (ct == c && t < s));
            }
            H->sym[r] = (uint16_t)s;
        }
    }
    OC_WARP_SYNC();
}

/* Code lengths of the counted symbols: H->sym and H->len come from
 * ze_huf_sort_warp (ascending counts; the lane-0 insertion sort this
 * replaced is the dev harness's baseline, bench/gpu/dev/zstd_enc_entropy_knobs.h). */
OC_CORE_BIGFN int ze_huf_lengths(ze_huf *H)
{
    const uint32_t *cnt = H->cnt;
    uint8_t *len = H->len;
    uint16_t *sym = H->sym;
    uint32_t *wgt = H->wgt;
    uint16_t *parent = H->parent;
    uint8_t *depth = H->depth;
    int n = 0;
    for (int s = 0; s < 256; s++)
        n += cnt[s] != 0;
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

/* ---- Huffman streams written by the warp ------------------------------------
 * A stream holds lit[n-1] first (bit 0), so lit[i]'s code starts at the
 * summed lengths of lit[i+1..n).  The stream is cut into ZE_PARTS parts (a
 * lane each on the GPU, a loop in C): each part's bit count, their suffix
 * sums, then each part ORs its codes into the output, a 32-bit word at a
 * time (aligned to the output's address; atomic on the GPU, since words
 * straddle parts), into bytes zeroed first.  The first and last words, when
 * they hold bytes outside the stream, are assembled in edge[2] and copied
 * byte by byte.  The bytes are those of a serial bit writer (lowest bit
 * first, then the end mark, then zeros to a byte boundary). */
#define ZE_PARTS 32u

/* Where a stream's words are: the stream is dst[at..at+size); word w holds
 * bytes dst[base + 4w ..+4); word 0 and word wl may be partial. */
typedef struct {
    uint8_t *dst;
    size_t at, size, base;
    size_t wl;
    int hp, tp; /* word 0 / word wl hold bytes outside the stream */
    uint32_t *edge;
} ze_sw;

OC_CORE_FN void ze_sw_or(const ze_sw *s, size_t w, uint32_t v)
{
    if (v == 0)
        return;
    uint32_t *e = NULL;
    if (w == 0 && s->hp)
        e = &s->edge[0];
    else if (w == s->wl && s->tp)
        e = &s->edge[1];
#ifdef __CUDACC__
    atomicOr(e ? e : (uint32_t *)(void *)(s->dst + s->base) + w, v);
#else
    if (e) {
        *e |= v;
    } else {
        for (int k = 0; k < 4; k++)
            s->dst[s->base + 4 * w + (size_t)k] |= (uint8_t)(v >> (8 * k));
    }
#endif
}

/* Part lit[a..b) of a stream, its first bit at bit q0 of word 0. */
OC_CORE_FN void ze_huf_part(const ze_sw *s, uint64_t q0, const uint8_t *lit, size_t a, size_t b,
                            const uint8_t *len, const uint16_t *code)
{
    size_t w = (size_t)(q0 >> 5);
    uint32_t fill = (uint32_t)(q0 & 31u);
    uint64_t acc = 0;
    for (size_t i = b; i-- > a;) {
        uint32_t c = lit[i];
        acc |= (uint64_t)code[c] << fill;
        fill += len[c];
        if (fill >= 32) {
            ze_sw_or(s, w, (uint32_t)acc);
            acc >>= 32;
            fill -= 32;
            w++;
        }
    }
    if (fill > 0)
        ze_sw_or(s, w, (uint32_t)acc);
}

/* Bits of lit[a..b) */
OC_CORE_FN uint32_t ze_huf_bits(const uint8_t *lit, size_t a, size_t b, const uint8_t *len)
{
    uint32_t t = 0;
    for (size_t i = a; i < b; i++)
        t += len[lit[i]];
    return t;
}

/* The Huffman stream of lit[0..n) at dst[at..), by the whole warp (every
 * lane calls it, with the same arguments); returns its size in bytes and
 * writes nothing when at + size > lim. */
OC_CORE_BIGFN size_t ze_huf_stream_warp(uint8_t *dst, size_t at, size_t lim, const uint8_t *lit, size_t n,
                                        const uint8_t *len, const uint16_t *code, uint32_t *edge)
{
    size_t L = (n + ZE_PARTS - 1) / ZE_PARTS;
#ifdef __CUDACC__
    uint32_t j = OC_LANE();
    size_t a = (size_t)j * L < n ? (size_t)j * L : n, b = a + L < n ? a + L : n;
    uint32_t t = ze_huf_bits(lit, a, b, len), x = t;
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t y = __shfl_down_sync(0xffffffffu, x, d);
        if (j + (uint32_t)d < 32)
            x += y;
    }
    uint32_t tot = __shfl_sync(0xffffffffu, x, 0), sfx = x - t;
#else
    uint32_t sfxs[ZE_PARTS], tot = 0; /* lane 0's loop over the parts (every lane computes tot) */
    for (uint32_t j = ZE_PARTS; j-- > 0;) {
        size_t a = (size_t)j * L < n ? (size_t)j * L : n, b = a + L < n ? a + L : n;
        sfxs[j] = tot;
        tot += ze_huf_bits(lit, a, b, len);
    }
#endif
    size_t size = ((size_t)tot + 1 + 7) / 8;
    if (at > lim || size > lim - at)
        return size;
    ze_sw s;
    s.dst = dst;
    s.at = at;
    s.size = size;
    s.base = at - (size_t)((uintptr_t)(dst + at) & 3u);
    s.wl = (at + size - 1 - s.base) / 4;
    s.hp = s.base < at;
    s.tp = ((at + size - s.base) & 3u) != 0;
    s.edge = edge;
    uint64_t q = 8 * (uint64_t)(at - s.base);
    /* zero the stream's whole words (and the edges) */
    for (size_t w = OC_LANE(); w <= s.wl; w += OC_NLANES)
        if (!((w == 0 && s.hp) || (w == s.wl && s.tp))) {
#ifdef __CUDACC__
            ((uint32_t *)(void *)(dst + s.base))[w] = 0;
#else
            for (int k = 0; k < 4; k++)
                dst[s.base + 4 * w + (size_t)k] = 0;
#endif
        }
    if (OC_LANE() == 0)
        edge[0] = edge[1] = 0;
    OC_WARP_SYNC();
#ifdef __CUDACC__
    ze_huf_part(&s, q + sfx, lit, a, b, len, code);
#else
    if (OC_LANE() == 0)
        for (uint32_t j = 0; j < ZE_PARTS; j++) {
            size_t a = (size_t)j * L < n ? (size_t)j * L : n, b = a + L < n ? a + L : n;
            ze_huf_part(&s, q + sfxs[j], lit, a, b, len, code);
        }
#endif
    if (OC_LANE() == 0) /* the end mark */
        ze_sw_or(&s, (size_t)((q + tot) >> 5), 1u << ((q + tot) & 31u));
    OC_WARP_SYNC();
    if (OC_LANE() == 0) { /* the partial words, byte by byte */
#ifdef __CUDACC__
        uint32_t e0 = atomicOr(&edge[0], 0u), e1 = atomicOr(&edge[1], 0u);
#else
        uint32_t e0 = edge[0], e1 = edge[1];
#endif
        for (size_t k = 0; k < 4; k++) {
            size_t p0 = s.base + k, p1 = s.base + 4 * s.wl + k;
            if (s.hp && p0 >= at && p0 < at + size)
                dst[p0] = (uint8_t)(e0 >> (8 * k));
            if (s.tp && !(s.wl == 0 && s.hp) && p1 >= at && p1 < at + size)
                dst[p1] = (uint8_t)(e1 >> (8 * k));
        }
    }
    OC_WARP_SYNC();
    return size;
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

/* The histogram of lit[0..n) into cnt[256], by the whole warp (every lane
 * calls it; the 32 lanes count, 4 literals a word, with atomic
 * adds; lit 4-byte aligned); lane 0 alone in C.  cnt is complete for every
 * lane on return. */
OC_CORE_FN void ze_lit_hist(uint32_t *cnt, const uint8_t *lit, size_t n)
{
    uint32_t lane = OC_LANE();
#ifdef __CUDACC__
    for (uint32_t s = lane; s < 256; s += 32)
        cnt[s] = 0;
    __syncwarp();
    const uint32_t *w = (const uint32_t *)lit;
    size_t nw = n / 4;
    for (size_t i = lane; i < nw; i += 32) {
        uint32_t v = w[i];
        atomicAdd(&cnt[v & 255u], 1u);
        atomicAdd(&cnt[(v >> 8) & 255u], 1u);
        atomicAdd(&cnt[(v >> 16) & 255u], 1u);
        atomicAdd(&cnt[v >> 24], 1u);
    }
    if (lane < (uint32_t)(n & 3))
        atomicAdd(&cnt[lit[4 * nw + lane]], 1u);
    __syncwarp();
#else
    (void)lane;
    for (int s = 0; s < 256; s++)
        cnt[s] = 0;
    for (size_t i = 0; i < n; i++)
        cnt[lit[i]]++;
#endif
}

/* Lane 0's part of the literals section of lit[0..n) at dst[pos..lim)
 * (H->cnt holds their histogram): 0 when it wrote an RLE section (*e: the
 * new position, > lim when it does not fit); 2 when Huffman coding is
 * worth trying: H->len and H->code set, the tree description written, the
 * streams to go at *sp (ze_literals writes them and the header); 1 for a
 * Raw section. */
OC_CORE_BIGFN uint32_t ze_lit_plan(ze_huf *H, ze_fse *tmp_fse, int16_t *norm, uint8_t *spread,
                                   const uint8_t *lit, size_t n, uint8_t *dst, size_t pos, size_t lim,
                                   size_t *e, size_t *sp)
{
    uint8_t h[5];
    const uint32_t *cnt = H->cnt;
    int distinct = 0, last = 0;
    for (int s = 0; s < 256; s++)
        if (cnt[s]) {
            distinct++;
            last = s;
        }
    if (distinct == 1 && n > 2) { /* RLE literals */
        size_t hl = ze_lit_header_raw(h, 1, n);
        if (pos + hl + 1 > lim) {
            *e = lim + 1;
            return 0;
        }
        for (size_t i = 0; i < hl; i++)
            dst[pos + i] = h[i];
        dst[pos + hl] = lit[0];
        *e = pos + hl + 1;
        return 0;
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
                return 1;
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
            *sp = body + tree;
            return 2;
        }
    }
    return 1;
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
    uint32_t cll[36], cof[32], cml[53]; /* the block's code histograms (ze_seq_codes) */
    uint32_t fin[3], flog[3];           /* final FSE states and accuracies (ll, of, ml; log 0: RLE) */
} ze_tables;

OC_CORE_BIGFN void ze_tables_init(ze_tables *T)
{
    ze_fse_build(&T->pre_ll, oc_zstd_ll_default, 36, 6, T->spread);
    ze_fse_build(&T->pre_ml, oc_zstd_ml_default, 53, 6, T->spread);
    ze_fse_build(&T->pre_of, oc_zstd_of_default, 29, 5, T->spread);
}

/* Writes the literals section of lit[0..n) (4-byte aligned) at
 * dst[pos..lim), by the whole warp (every lane calls it): the histogram
 * and the streams by the lanes (ze_lit_hist, ze_huf_stream_warp), the
 * choice and the tree on lane 0 (ze_lit_plan).  Huffman when smaller than
 * Raw (1 stream up to 1023 literals, else 4), RLE for one repeated byte.
 * Returns the new position (> lim when it does not fit), on every lane. */
OC_CORE_BIGFN size_t ze_literals(ze_tables *T, const uint8_t *lit, size_t n, uint8_t *dst, size_t pos,
                                 size_t lim)
{
    ze_huf *H = &T->huf;
    uint32_t lane = OC_LANE();
    ze_lit_hist(H->cnt, lit, n);
    if (n >= 64) /* the symbols' order for ze_huf_lengths */
        ze_huf_sort_warp(H);
    uint32_t mode = 1;
    size_t e = 0, sp = 0;
    if (lane == 0)
        mode = ze_lit_plan(H, &T->ll, T->norm, T->spread, lit, n, dst, pos, lim, &e, &sp);
    mode = OC_WARP_BCAST(mode);
    e = OC_WARP_BCAST(e);
    sp = OC_WARP_BCAST(sp);
    OC_WARP_SYNC(); /* lane 0's H->len and H->code, seen by every lane (a shuffle orders no memory) */
    if (mode == 0)
        return e;
    uint8_t h[5];
    size_t rawsz = ze_lit_header_raw(h, 0, n) + n;
    if (mode == 2) {
        int single = n <= 1023, ok = 1;
        size_t hl = single ? 3 : n <= 16383 ? 4 : 5, end;
        if (single) {
            size_t sz = ze_huf_stream_warp(dst, sp, lim, lit, n, H->len, H->code, H->edge);
            ok = sp <= lim && sz <= lim - sp;
            end = sp + sz;
        } else {
            size_t seg = (n + 3) / 4, at = sp + 6, ssz[4] = {0, 0, 0, 0};
            for (int k = 0; k < 4 && ok; k++) {
                size_t cnt_k = k < 3 ? seg : n - 3 * seg;
                ssz[k] =
                    ze_huf_stream_warp(dst, at, lim, lit + (size_t)k * seg, cnt_k, H->len, H->code, H->edge);
                ok = at <= lim && ssz[k] <= lim - at;
                at += ssz[k];
            }
            ok = ok && ssz[0] <= 65535 && ssz[1] <= 65535 && ssz[2] <= 65535;
            if (ok && lane == 0)
                for (int k = 0; k < 3; k++) {
                    dst[sp + 2 * (size_t)k] = (uint8_t)ssz[k];
                    dst[sp + 2 * (size_t)k + 1] = (uint8_t)(ssz[k] >> 8);
                }
            end = at;
        }
        size_t csize = end - (pos + hl);
        if (ok && hl + csize < rawsz) {
            if (lane == 0) {
                int b = hl == 3 ? 10 : hl == 4 ? 14 : 18;
                uint64_t hv = 2u |
                              ((uint64_t)(hl == 3   ? 0
                                          : hl == 4 ? 2
                                                    : 3)
                               << 2) |
                              ((uint64_t)n << 4) | ((uint64_t)csize << (4 + b));
                for (size_t i = 0; i < hl; i++)
                    dst[pos + i] = (uint8_t)(hv >> (8 * i));
            }
            OC_WARP_SYNC();
            return end;
        }
    }
    /* Raw */
    size_t hl = ze_lit_header_raw(h, 0, n);
    if (pos + hl + n > lim)
        return lim + 1;
    if (lane == 0)
        for (size_t i = 0; i < hl; i++)
            dst[pos + i] = h[i];
    for (size_t i = lane; i < n; i += OC_NLANES)
        dst[pos + hl + i] = lit[i];
    OC_WARP_SYNC();
    return pos + hl + n;
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

/* A sequence's literal-length and match-length codes ride in the top
 * bits of its ll and ml (both < 2^18: a block is 128 KiB) from
 * ze_seq_codes to ze_sequences. */
#define ZE_CODE_SHIFT 24
#define ZE_VAL_MASK ((1u << ZE_CODE_SHIFT) - 1)

/* The block's code histograms into T->cll/cof/cml and each sequence's
 * codes into its top bits, by the whole warp (every lane calls it; atomic
 * adds on the GPU).  Before ze_sequences. */
OC_CORE_BIGFN void ze_seq_codes(ze_tables *T, ze_seq *seq, uint32_t nseq)
{
    uint32_t lane = OC_LANE();
    for (uint32_t s = lane; s < 53; s += OC_NLANES) {
        if (s < 36)
            T->cll[s] = 0;
        if (s < 32)
            T->cof[s] = 0;
        T->cml[s] = 0;
    }
    OC_WARP_SYNC();
    for (uint32_t i = lane; i < nseq; i += OC_NLANES) {
        uint32_t ll = seq[i].ll, ml = seq[i].ml;
        uint32_t llc = ze_ll_code(ll), mlc = ze_ml_code(ml), ofc = (uint32_t)oc_highbit32(seq[i].ofv);
        seq[i].ll = ll | (llc << ZE_CODE_SHIFT);
        seq[i].ml = ml | (mlc << ZE_CODE_SHIFT);
#ifdef __CUDACC__
        atomicAdd(&T->cll[llc], 1u);
        atomicAdd(&T->cml[mlc], 1u);
        atomicAdd(&T->cof[ofc], 1u);
#else
        T->cll[llc]++;
        T->cml[mlc]++;
        T->cof[ofc]++;
#endif
    }
    OC_WARP_SYNC();
}

/* Writes the sequences section at dst[pos..lim) (after ze_seq_codes);
 * returns the new position (> lim when it does not fit). */
OC_CORE_BIGFN size_t ze_sequences(ze_tables *T, const ze_seq *seq, uint32_t nseq, int allow_built,
                                  uint8_t *dst, size_t pos, size_t lim, uint32_t *marks)
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
    const uint32_t *cll = T->cll, *cof = T->cof, *cml = T->cml;
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
    /* the FSE states, last sequence first (lane 0): each step's bits as a
     * mark (1 << nb | value, 10 bits) into marks[i] (three a sequence);
     * ze_seq_stream_warp places them with the extra bits */
    uint32_t sll = 0, sof = 0, sml = 0;
    const ze_seq *q = &seq[nseq - 1];
    if (tab[0])
        sll = tab[0]->states[tab[0]->start[q->ll >> ZE_CODE_SHIFT]];
    if (tab[1])
        sof = tab[1]->states[tab[1]->start[oc_highbit32(q->ofv)]];
    if (tab[2])
        sml = tab[2]->states[tab[2]->start[q->ml >> ZE_CODE_SHIFT]];
    for (uint32_t i = nseq - 1; i-- > 0;) {
        q = &seq[i];
        uint32_t mo = tab[1] ? ze_fse_mark(tab[1], &sof, (uint32_t)oc_highbit32(q->ofv)) : 1u;
        uint32_t mm = tab[2] ? ze_fse_mark(tab[2], &sml, q->ml >> ZE_CODE_SHIFT) : 1u;
        uint32_t ml = tab[0] ? ze_fse_mark(tab[0], &sll, q->ll >> ZE_CODE_SHIFT) : 1u;
        marks[i] = mo | (mm << 10) | (ml << 20);
    }
    T->fin[0] = sll;
    T->fin[1] = sof;
    T->fin[2] = sml;
    for (int k = 0; k < 3; k++)
        T->flog[k] = tab[k] ? (uint32_t)tab[k]->log : 0u;
    return pos;
}

/* The bits of sequence i (ze_sequences' marks; the last sequence has no
 * FSE step): the of, ml and ll steps, then the ll, ml and of extra bits. */
OC_CORE_FN uint32_t ze_seq_bits(const ze_seq *seq, const uint32_t *marks, uint32_t i, uint32_t nseq)
{
    const ze_seq *q = &seq[i];
    uint32_t llc = q->ll >> ZE_CODE_SHIFT, mlc = q->ml >> ZE_CODE_SHIFT;
    uint32_t b = oc_zstd_ll_bits[llc] + oc_zstd_ml_bits[mlc] + (uint32_t)oc_highbit32(q->ofv);
    if (i + 1 < nseq) {
        uint32_t m = marks[i];
        b += (uint32_t)oc_highbit32(m & 1023u) + (uint32_t)oc_highbit32((m >> 10) & 1023u) +
             (uint32_t)oc_highbit32(m >> 20);
    }
    return b;
}

/* ORs v (nb <= 32 bits) at the writer's position, flushing whole words. */
OC_CORE_FN void ze_sw_put(const ze_sw *s, uint64_t *acc, uint32_t *fill, size_t *w, uint32_t v, uint32_t nb)
{
    if (nb == 0)
        return;
    *acc |= ((uint64_t)v & ((1ull << nb) - 1)) << *fill;
    *fill += nb;
    if (*fill >= 32) {
        ze_sw_or(s, *w, (uint32_t)*acc);
        *acc >>= 32;
        *fill -= 32;
        (*w)++;
    }
}

/* Sequences [a, b) of the stream, the first bit of b - 1's at bit q0. */
OC_CORE_FN void ze_seq_part(const ze_sw *s, uint64_t q0, const ze_seq *seq, const uint32_t *marks, uint32_t a,
                            uint32_t b, uint32_t nseq)
{
    size_t w = (size_t)(q0 >> 5);
    uint32_t fill = (uint32_t)(q0 & 31u);
    uint64_t acc = 0;
    for (uint32_t i = b; i-- > a;) {
        const ze_seq *q = &seq[i];
        uint32_t llc = q->ll >> ZE_CODE_SHIFT, mlc = q->ml >> ZE_CODE_SHIFT,
                 ofc = (uint32_t)oc_highbit32(q->ofv);
        if (i + 1 < nseq) {
            uint32_t m = marks[i];
            for (int k = 0; k < 3; k++) { /* of, ml, ll */
                uint32_t mk = (m >> (10 * k)) & 1023u;
                uint32_t nb = (uint32_t)oc_highbit32(mk);
                ze_sw_put(s, &acc, &fill, &w, mk, nb);
            }
        }
        ze_sw_put(s, &acc, &fill, &w, (q->ll & ZE_VAL_MASK) - oc_zstd_ll_base[llc], oc_zstd_ll_bits[llc]);
        ze_sw_put(s, &acc, &fill, &w, (q->ml & ZE_VAL_MASK) - oc_zstd_ml_base[mlc], oc_zstd_ml_bits[mlc]);
        ze_sw_put(s, &acc, &fill, &w, q->ofv - (1u << ofc), ofc);
    }
    if (fill > 0)
        ze_sw_or(s, w, (uint32_t)acc);
}

/* The sequences' bitstream at dst[pos..lim) by the whole warp (every lane
 * calls it), after ze_sequences (lane 0) wrote the section's header and
 * tables and returned pos: the sequences cut into ZE_PARTS parts, placed
 * by a suffix sum of their bits as the Huffman streams are
 * (ze_huf_stream_warp), then the final states and the end mark (lane 0).
 * Returns the new position, > lim when it does not fit. */
OC_CORE_BIGFN size_t ze_seq_stream_warp(ze_tables *T, const ze_seq *seq, const uint32_t *marks, uint32_t nseq,
                                        uint8_t *dst, size_t pos, size_t lim, uint32_t *edge)
{
    uint32_t L = (nseq + ZE_PARTS - 1) / ZE_PARTS;
#ifdef __CUDACC__
    uint32_t j = OC_LANE();
    uint32_t a = j * L < nseq ? j * L : nseq, b = a + L < nseq ? a + L : nseq;
    uint32_t t = 0;
    for (uint32_t i = a; i < b; i++)
        t += ze_seq_bits(seq, marks, i, nseq);
    uint32_t x = t;
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t y = __shfl_down_sync(0xffffffffu, x, d);
        if (j + (uint32_t)d < 32)
            x += y;
    }
    uint32_t tot = __shfl_sync(0xffffffffu, x, 0), sfx = x - t;
#else
    uint32_t sfxs[ZE_PARTS], tot = 0;
    for (uint32_t j = ZE_PARTS; j-- > 0;) {
        uint32_t a = j * L < nseq ? j * L : nseq, b = a + L < nseq ? a + L : nseq;
        sfxs[j] = tot;
        for (uint32_t i = a; i < b; i++)
            tot += ze_seq_bits(seq, marks, i, nseq);
    }
#endif
    uint32_t trailer = T->flog[0] + T->flog[1] + T->flog[2];
    size_t size = ((size_t)tot + trailer + 1 + 7) / 8;
    if (pos > lim || size > lim - pos)
        return lim + 1;
    ze_sw s;
    s.dst = dst;
    s.at = pos;
    s.size = size;
    s.base = pos - (size_t)((uintptr_t)(dst + pos) & 3u);
    s.wl = (pos + size - 1 - s.base) / 4;
    s.hp = s.base < pos;
    s.tp = ((pos + size - s.base) & 3u) != 0;
    s.edge = edge;
    uint64_t q = 8 * (uint64_t)(pos - s.base);
    for (size_t w = OC_LANE(); w <= s.wl; w += OC_NLANES)
        if (!((w == 0 && s.hp) || (w == s.wl && s.tp))) {
#ifdef __CUDACC__
            ((uint32_t *)(void *)(dst + s.base))[w] = 0;
#else
            for (int k = 0; k < 4; k++)
                dst[s.base + 4 * w + (size_t)k] = 0;
#endif
        }
    if (OC_LANE() == 0)
        edge[0] = edge[1] = 0;
    OC_WARP_SYNC();
#ifdef __CUDACC__
    ze_seq_part(&s, q + sfx, seq, marks, a, b, nseq);
#else
    if (OC_LANE() == 0)
        for (uint32_t j = 0; j < ZE_PARTS; j++) {
            uint32_t a = j * L < nseq ? j * L : nseq, b = a + L < nseq ? a + L : nseq;
            ze_seq_part(&s, q + sfxs[j], seq, marks, a, b, nseq);
        }
#endif
    if (OC_LANE() == 0) { /* final states (ml, of, ll), then the end mark */
        uint64_t at = q + tot;
        size_t w = (size_t)(at >> 5);
        uint32_t fill = (uint32_t)(at & 31u);
        uint64_t acc = 0;
        ze_sw_put(&s, &acc, &fill, &w, T->fin[2], T->flog[2]);
        ze_sw_put(&s, &acc, &fill, &w, T->fin[1], T->flog[1]);
        ze_sw_put(&s, &acc, &fill, &w, T->fin[0], T->flog[0]);
        ze_sw_put(&s, &acc, &fill, &w, 1u, 1u);
        if (fill > 0)
            ze_sw_or(&s, w, (uint32_t)acc);
    }
    OC_WARP_SYNC();
    if (OC_LANE() == 0) {
#ifdef __CUDACC__
        uint32_t e0 = atomicOr(&edge[0], 0u), e1 = atomicOr(&edge[1], 0u);
#else
        uint32_t e0 = edge[0], e1 = edge[1];
#endif
        for (size_t k = 0; k < 4; k++) {
            size_t p0 = s.base + k, p1 = s.base + 4 * s.wl + k;
            if (s.hp && p0 >= pos && p0 < pos + size)
                dst[p0] = (uint8_t)(e0 >> (8 * k));
            if (s.tp && !(s.wl == 0 && s.hp) && p1 >= pos && p1 < pos + size)
                dst[p1] = (uint8_t)(e1 >> (8 * k));
        }
    }
    OC_WARP_SYNC();
    return pos + size;
}

#endif /* OC_ZSTD_ENC_ENTROPY_H */
