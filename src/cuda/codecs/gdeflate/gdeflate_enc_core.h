/*
 * gdeflate_enc_core.h - a GDeflate page encoder (docs/FORMAT.md,
 * "GDeflate") written once for two compilers, as the Deflate compressor it
 * is built on: nvcc, where one WARP encodes one page
 * (gdeflate_kernels.cu), and a C11 compiler, where one thread plays the 32
 * lanes (tests/c/test_gdeflate_gpu_enc_core.c checks that build against the
 * CPU engine's GDeflate decoder; the GPU test checks the GPU writes its
 * bytes).
 *
 * The parse and the Huffman codes are the Deflate compressor's
 * (deflate_enc_core.h: greedy at level 1, lazy above; histogram, length-
 * limited codes, the code-length run-length coding), over the whole page
 * as ONE block (pages are at most 64 KiB; nvCOMP writes one block a page
 * too): dynamic, fixed or stored, whichever has the fewest bits.  What is
 * GDeflate's own is where the bits go:
 *
 *   - a block's bits are dealt to 32 lanes, one "visit" at a time, lanes in
 *     order; a Huffman block's visits are rounds of 32: a lane that wrote a
 *     length in one round writes that match's distance in the next, the
 *     other lanes take the next items in order (a ballot ranks them), and
 *     after the end-of-block code one more round writes the distances
 *     still owed;
 *   - the page's words are the order in which a 32-lane decoder refills
 *     its lanes: the first word of each lane, then one word each time a
 *     visit leaves its lane under 32 bits.  A refill's position in the page
 *     is known at the visit (a ballot over the lanes that refill, in lane
 *     order), before the lane has written that word's bits, so each lane
 *     keeps the positions of the (at most three) words it has loaded but
 *     not finished, and stores a word there when its 32 bits are complete.
 *
 * Two passes over the visits: the first counts the refills (the exact page
 * size: OUTPUT_TOO_SMALL before anything is written), the second writes.
 * Length 258 is symbol 285 with 16 extra bits (GDeflate's table, as nvCOMP
 * writes it); distances stay within 32 KiB (codes 0-29).
 */
#ifndef OC_GDEFLATE_ENC_CORE_H
#define OC_GDEFLATE_ENC_CORE_H

#include "../deflate/deflate_enc_core.h"

#define GDE_MAX_PAGE 65536u

/* The warp's shared workspace: the Deflate compressor's, and the lanes'
 * writer state (lane j uses entry j). */
typedef struct gde_shared {
    de_shared d;
    uint32_t cnt[32];    /* bits the decoder holds for the lane (32..63 between visits) */
    uint32_t loaded[32]; /* words of the lane the decoder has loaded */
    uint32_t done[32];   /* words of the lane written */
    uint32_t accn[32];   /* bits in acc */
    uint32_t pend[32];   /* the match item whose distance the lane owes */
    uint64_t acc[32];    /* bits of the lane not yet written */
    uint32_t pos[32][4]; /* page word index of the lane's word k, at [k & 3] */
} gde_shared;

/* Bytes of global scratch a warp needs at `level` (1..9): the page's items
 * (up to 65537) and the lazy parser's tables. */
OC_INLINE size_t gde_scratch_bytes(int level)
{
    return de_scratch_bytes(level) + (size_t)4 * (GDE_MAX_PAGE - DE_SEG);
}

OC_CORE_FN de_scratch gde_scratch_from(void *mem)
{
    de_scratch s;
    s.items = (uint32_t *)mem;
    s.count = s.items + GDE_MAX_PAGE + 1;
    s.h3 = s.count + (1u << DE_BUCKET_LOG);
    s.buckets = s.h3 + (1u << DE_H3_LOG);
    return s;
}

/* A per-lane argument: a register on the GPU, the 32 lanes' array on the host. */
#if DE_GPU
#define GDE_PL(type, name) type name
#else
#define GDE_PL(type, name) const type *name
#endif

/* The page being written: words emitted (the decoder's loads so far). */
typedef struct gde_w {
    uint8_t *dst;
    uint32_t nw;
    int write; /* 0: count the words only */
} gde_w;

OC_CORE_FN void gde_store(const gde_w *w, uint32_t k, uint32_t v)
{
    uint8_t *p = w->dst + 4 * (size_t)k;
#if DE_GPU
    if (((uintptr_t)p & 3u) == 0) {
        *(uint32_t *)p = v;
        return;
    }
#endif
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

OC_CORE_FN void gde_lanes_reset(gde_shared *G, gde_w *w)
{
    for (uint32_t j = OC_LANE(); j < 32; j += DE_GPU ? 32u : 1u) {
        G->cnt[j] = 32;
        G->loaded[j] = 1;
        G->done[j] = 0;
        G->accn[j] = 0;
        G->acc[j] = 0;
        G->pos[j][0] = j; /* the page opens with each lane's first word */
    }
    w->nw = 32;
    OC_WARP_SYNC();
}

/* One visit of each lane with c > 0 (lanes in order), consuming the c bits
 * of v (c <= 32).  A visit of no bits changes nothing (the lane keeps 32 or
 * more), so lanes not visited pass c = 0. */
OC_CORE_FN void gde_visits(gde_shared *G, gde_w *w, GDE_PL(uint32_t, c), GDE_PL(uint32_t, v))
{
    DE_LV(int, refill);
    DE_LANES(j)
    {
        uint32_t cnt = G->cnt[j] - DE_L(c, j);
        DE_L(refill, j) = cnt < 32;
        G->cnt[j] = cnt < 32 ? cnt + 32 : cnt;
    }
    uint32_t mask;
    DE_BALLOT(mask, j, DE_L(refill, j));
    DE_LANES(j)
    {
        if (DE_L(refill, j)) {
            G->pos[j][G->loaded[j] & 3] = w->nw + oc_popc32(mask & ((1u << j) - 1u));
            G->loaded[j]++;
        }
        if (w->write && DE_L(c, j)) {
            uint64_t acc = G->acc[j] | (uint64_t)DE_L(v, j) << G->accn[j];
            uint32_t an = G->accn[j] + DE_L(c, j);
            if (an >= 32) { /* word done[j] is complete: it was loaded (the decoder keeps >= 32 bits) */
                gde_store(w, G->pos[j][G->done[j] & 3], (uint32_t)acc);
                G->done[j]++;
                acc >>= 32;
                an -= 32;
            }
            G->acc[j] = acc;
            G->accn[j] = an;
        }
    }
    w->nw += oc_popc32(mask);
    OC_WARP_SYNC();
}

/* After the last visit: each lane's partial word, then zeros for the words
 * loaded past its bits. */
OC_CORE_FN void gde_lanes_finish(gde_shared *G, const gde_w *w)
{
    for (uint32_t j = OC_LANE(); j < 32; j += DE_GPU ? 32u : 1u) {
        uint32_t k = G->done[j];
        if (G->accn[j])
            gde_store(w, G->pos[j][k++ & 3], (uint32_t)G->acc[j]);
        for (; k < G->loaded[j]; k++)
            gde_store(w, G->pos[j][k & 3], 0u);
    }
    OC_WARP_SYNC();
}

/* The bits of a literal or of a match's length (code, extra bits). */
OC_CORE_FN uint32_t gde_lit_bits(const de_shared *S, uint32_t it, uint32_t *v)
{
    if (!(it & DE_ITEM_MATCH)) {
        uint32_t c = S->lcode[it & 0xFFu];
        *v = c & 0xFFFFu;
        return c >> 16;
    }
    uint32_t len = ((it >> 16) & 0xFFu) + 3, ls = de_len_sym(len), lc = S->lcode[257 + ls];
    *v = (lc & 0xFFFFu) | (len - gdeflate_len_base[ls]) << (lc >> 16);
    return (lc >> 16) + gdeflate_len_extra[ls];
}

/* The bits of a match's distance (code, extra bits). */
OC_CORE_FN uint32_t gde_dist_bits(const de_shared *S, uint32_t it, uint32_t *v)
{
    uint32_t dist = (it & 0xFFFFu) + 1, ds = de_dist_sym(dist), dc = S->dcode[ds];
    *v = (dc & 0xFFFFu) | (dist - gdeflate_dist_base[ds]) << (dc >> 16);
    return (dc >> 16) + gdeflate_dist_extra[ds];
}

/* A Huffman block's symbols from lane 0, the end-of-block code, and the
 * round of the distances still owed. */
OC_CORE_BIGFN void gde_put_symbols(gde_shared *G, gde_w *w, const uint32_t *items, uint32_t ni)
{
    const de_shared *S = &G->d;
    uint32_t owed = 0; /* lanes that wrote a length in the last round */
    uint32_t k = 0;    /* items given out */
    int eob = 0;
    while (!eob) {
        uint32_t freem = ~owed, nfree = oc_popc32(freem);
        DE_LV(uint32_t, c);
        DE_LV(uint32_t, v);
        DE_LV(int, len);
        DE_LANES(j)
        {
            uint32_t vv = 0, cc = 0;
            DE_L(len, j) = 0;
            if (owed >> j & 1u) {
                cc = gde_dist_bits(S, G->pend[j], &vv);
            } else {
                uint32_t idx = k + oc_popc32(freem & ((1u << j) - 1u));
                if (idx < ni) {
                    uint32_t it = items[idx];
                    cc = gde_lit_bits(S, it, &vv);
                    if (it & DE_ITEM_MATCH) {
                        G->pend[j] = it;
                        DE_L(len, j) = 1;
                    }
                } else if (idx == ni) {
                    uint32_t e = S->lcode[256];
                    vv = e & 0xFFFFu;
                    cc = e >> 16;
                }
            }
            DE_L(c, j) = cc;
            DE_L(v, j) = vv;
        }
        gde_visits(G, w, c, v);
        eob = k + nfree > ni;
        k += nfree;
        DE_BALLOT(owed, j, DE_L(len, j));
    }
    /* the last round: the lanes that wrote a length before the end-of-block code */
    DE_LV(uint32_t, c);
    DE_LV(uint32_t, v);
    DE_LANES(j)
    {
        uint32_t vv = 0;
        DE_L(c, j) = owed >> j & 1u ? gde_dist_bits(S, G->pend[j], &vv) : 0u;
        DE_L(v, j) = vv;
    }
    gde_visits(G, w, c, v);
}

/* One visit of lane 0 (header fields). */
OC_CORE_FN void gde_visit0(gde_shared *G, gde_w *w, uint32_t value, uint32_t bits)
{
    DE_LV(uint32_t, c);
    DE_LV(uint32_t, v);
    DE_LANES(j)
    {
        DE_L(c, j) = j == 0 ? bits : 0u;
        DE_L(v, j) = j == 0 ? value : 0u;
    }
    gde_visits(G, w, c, v);
}

/* The dynamic header: BFINAL/BTYPE, HLIT/HDIST/HCLEN (lane 0, a visit
 * each), the precode lengths (lanes 0..hclen-1), the code-length symbols
 * with their extra bits (round-robin from lane 0). */
OC_CORE_BIGFN void gde_put_dynamic_header(gde_shared *G, gde_w *w, uint32_t hlit, uint32_t hdist,
                                          uint32_t hclen)
{
    const de_shared *S = &G->d;
    gde_visit0(G, w, 1u | 2u << 1, 3);
    gde_visit0(G, w, (hlit - 257) | (hdist - 1) << 5 | (hclen - 4) << 10, 14);
    DE_LV(uint32_t, c);
    DE_LV(uint32_t, v);
    DE_LANES(j)
    {
        DE_L(c, j) = j < hclen ? 3u : 0u;
        DE_L(v, j) = j < hclen ? S->plens[rfc1951_precode_order[j]] : 0u;
    }
    gde_visits(G, w, c, v);
    for (uint32_t i0 = 0; i0 < S->nrle; i0 += 32) {
        DE_LANES(j)
        {
            uint32_t i = i0 + j, cc = 0, vv = 0;
            if (i < S->nrle) {
                uint32_t r = S->rle[i], sym = r & 31, pc = S->pcode[sym];
                uint32_t eb = sym == 16 ? 2 : sym == 17 ? 3 : sym == 18 ? 7 : 0;
                cc = (pc >> 16) + eb;
                vv = (pc & 0xFFFFu) | (r >> 5) << (pc >> 16);
            }
            DE_L(c, j) = cc;
            DE_L(v, j) = vv;
        }
        gde_visits(G, w, c, v);
    }
}

/* Stored blocks of at most 65535 bytes: the header (lane 0), LEN (16 bits)
 * with the first byte in lane 0's next visit, the bytes round-robin from
 * lane 0 (the last round's visits after them take no bits). */
OC_CORE_BIGFN void gde_put_stored(gde_shared *G, gde_w *w, const uint8_t *src, size_t n)
{
    size_t s0 = 0;
    do {
        uint32_t len = (uint32_t)(n - s0 > 65535 ? 65535 : n - s0);
        gde_visit0(G, w, s0 + len == n ? 1u : 0u, 3);
        uint32_t i0 = 0;
        do {
            DE_LV(uint32_t, c);
            DE_LV(uint32_t, v);
            DE_LANES(j)
            {
                uint32_t i = i0 + j, cc = 0, vv = 0;
                if (i < len) {
#if DE_GPU
                    vv = __ldg(src + s0 + i);
#else
                    vv = src[s0 + i];
#endif
                    cc = 8;
                }
                if (i == 0) { /* LEN before the first byte (alone when the block is empty) */
                    vv = len | vv << 16;
                    cc += 16;
                }
                DE_L(c, j) = cc;
                DE_L(v, j) = vv;
            }
            gde_visits(G, w, c, v);
            i0 += 32;
        } while (i0 < len);
        s0 += len;
    } while (s0 < n);
}

/* The block's visits (pass 0 counts, pass 1 writes): type 2 dynamic, 1
 * fixed, 0 stored. */
OC_CORE_FN void gde_put_block(gde_shared *G, gde_w *w, int type, const uint8_t *src, size_t n,
                              const uint32_t *items, uint32_t ni, uint32_t hlit, uint32_t hdist,
                              uint32_t hclen)
{
    gde_lanes_reset(G, w);
    if (type == 0) {
        gde_put_stored(G, w, src, n);
    } else {
        if (type == 2)
            gde_put_dynamic_header(G, w, hlit, hdist, hclen);
        else
            gde_visit0(G, w, 1u | 1u << 1, 3);
        gde_put_symbols(G, w, items, ni);
    }
    if (w->write)
        gde_lanes_finish(G, w);
}

/* gde_compress_page encodes src[0..n) (n <= 65536, else CHUNK_TOO_LARGE)
 * as one GDeflate page into dst[0..cap) at `level` (1..9 as the API's; 1
 * greedy): OK with *out_size its length (a multiple of 4, at least 128), or
 * OUTPUT_TOO_SMALL with nothing written.  G: the warp's shared workspace;
 * scratch: gde_scratch_bytes(level) bytes of global memory (4-byte
 * aligned).  Every lane returns the same status and size. */
OC_CORE_BIGFN oc_status gde_compress_page(gde_shared *G, void *scratch, int level, const uint8_t *src,
                                          size_t n, uint8_t *dst, size_t cap, size_t *out_size)
{
    de_shared *S = &G->d;
    uint32_t lane = OC_LANE();
    *out_size = 0;
    if (n > GDE_MAX_PAGE)
        return OC_ERR_CHUNK_TOO_LARGE;
    de_params P = de_level_params(level);
    de_scratch X = gde_scratch_from(scratch);
    for (uint32_t k = lane; k < (1u << DE_HT_LOG); k += DE_GPU ? 32u : 1u)
        S->table[k] = 0;
    if (P.lazy) {
        for (uint32_t k = lane; k < (1u << DE_BUCKET_LOG); k += DE_GPU ? 32u : 1u)
            X.count[k] = 0;
        for (uint32_t k = lane; k < (1u << DE_H3_LOG); k += DE_GPU ? 32u : 1u)
            X.h3[k] = 0xFFFFFFFFu;
    }
    OC_WARP_SYNC();
    /* the parse, segment by segment, into one list of items */
    uint32_t ni = 0;
    size_t inserted = 0, s0 = 0;
    while (s0 < n) {
        size_t s1 = n - s0 > DE_SEG ? s0 + DE_SEG : n;
        if (P.lazy) {
            de_scratch Y = X;
            Y.items = X.items + ni;
            ni += de_parse_lazy(&P, &Y, src, n, s0, s1, &inserted);
        } else {
            ni += de_parse_greedy(S, src, n, s0, s1, X.items + ni);
        }
        s0 = s1;
    }
    /* the codes, and each block type's size in bits */
    de_block_sizes z = de_block_codes(S, X.items, ni, 1);
    uint32_t hlit = z.hlit, hdist = z.hdist, hclen = z.hclen;
    uint64_t dyn = z.dyn, fix = z.fix;
    uint64_t sto = 19 * (uint64_t)(n ? (n + 65534) / 65535 : 1) + 8 * (uint64_t)n;
    int type = dyn <= fix ? 2 : 1;
    if (sto <= (type == 2 ? dyn : fix))
        type = 0;
    if (type == 1) {
        if (lane == 0) {
            for (uint32_t s = 0; s < 288; s++)
                S->lens[s] = (uint8_t)de_fixed_len(s);
            for (uint32_t s = 0; s < 32; s++)
                S->lens[288 + s] = de_fixed_dist_len;
        }
        OC_WARP_SYNC();
        de_make_codes(S->lens, 288, S->lcode);
        de_make_codes(S->lens + 288, 32, S->dcode);
    } else if (type == 2) {
        de_make_codes(S->lens, 286, S->lcode);
        de_make_codes(S->lens + 288, 30, S->dcode);
        de_make_codes(S->plens, 19, S->pcode);
    }
    /* pass 0: the page's size; pass 1: its words */
    gde_w w;
    w.dst = dst;
    w.write = 0;
    gde_put_block(G, &w, type, src, n, X.items, ni, hlit, hdist, hclen);
    size_t size = 4 * (size_t)w.nw;
    if (size > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    w.write = 1;
    gde_put_block(G, &w, type, src, n, X.items, ni, hlit, hdist, hclen);
    *out_size = size;
    return OC_OK;
}

#endif /* OC_GDEFLATE_ENC_CORE_H */
