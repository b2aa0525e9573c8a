/*
 * zstd_enc_match.h - the match finders of the GPU zstd encoder core: the fast
 * variant by windows of 32 positions, the lazy one on lane 0, and the lazy
 * one by windows (levels in zstd_enc_common.h's ze_params_for_level).
 */
#ifndef OC_ZSTD_ENC_MATCH_H
#define OC_ZSTD_ENC_MATCH_H

#include "zstd_enc_common.h"

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

/* Bytes a and b (b < a) have in common, up to end: 8 bytes a step, compared as two 32-bit words whose byte
 * loads are independent (one memory latency a step on the GPU, not one a byte), then byte by byte.  (The dev
 * harness's byte-by-byte baseline: bench/gpu/dev/zstd_enc_match_knobs.h.) */
OC_CORE_FN uint32_t ze_count(const uint8_t *a, const uint8_t *b, const uint8_t *end)
{
    const uint8_t *s = a;
    while (end - a >= 8) {
        uint32_t x0 = oc_load_le32(a) ^ oc_load_le32(b);
        uint32_t x1 = oc_load_le32(a + 4) ^ oc_load_le32(b + 4);
        if (x0 | x1)
            return (uint32_t)(a - s) +
                   (x0 ? (uint32_t)oc_lowbit32(x0) >> 3 : 4u + ((uint32_t)oc_lowbit32(x1) >> 3));
        a += 8;
        b += 8;
    }
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
 * by ze_gain.  Each chain link is loaded before the candidate it follows is
 * compared, and the windows take their positions' first links from the
 * insertion's registers (the dev baseline, links loaded after the compare:
 * bench/gpu/dev/zstd_enc_match_knobs.h). */
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
        if (cand == ZE_EMPTY || cand >= ip || ip - cand > maxdist)
            break;
        /* the next link is loaded first, so that its latency (a DRAM round
         * trip on the GPU) overlaps the candidate's compare; a candidate
         * past the chain's reach is still tried (bytes are compared), but
         * its link slot may belong to a later position: nx = cand ends the
         * walk */
        uint32_t nx = ip - cand <= cmask ? W->chain[cand & cmask] : cand;
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
        if (nx >= cand)
            break;
        cand = nx;
    }
    return m;
}

OC_CORE_FN void ze_insert(const ze_work *W, const uint8_t *src, uint32_t p)
{
    uint32_t h = ze_hash(src + p, ZE_HASH_LAZY);
    W->chain[p & ((1u << ZE_CHAIN_LOG) - 1)] = ze_head(W, h);
    ze_set_head(W, h, p);
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
            ze_find(W, src, ip, be, maxdist, rep, P->depth, ze_head(W, ze_hash(src + ip, ZE_HASH_LAZY)));
        if (m.len < ZE_MINMATCH) {
            ip += 1 + ((ip - anchor) >> 7);
            continue;
        }
        /* lazy: a better match one position later wins */
        while (ip + 1 < ilimit) {
            while (*ins < ip + 1)
                ze_insert(W, src, (*ins)++);
            ze_match m2 = ze_find(W, src, ip + 1, be, maxdist, rep, P->depth,
                                  ze_head(W, ze_hash(src + ip + 1, ZE_HASH_LAZY)));
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
OC_CORE_FN uint32_t ze_insert_window(const ze_work *W, const uint8_t *src, uint32_t from, uint32_t to)
{
#ifdef __CUDACC__
    const uint32_t cmask = (1u << ZE_CHAIN_LOG) - 1;
    uint32_t lane = OC_LANE(), p = from + lane;
    int act = p < to;
    uint32_t h = act ? ze_hash(src + p, ZE_HASH_LAZY) : (0x80000000u | lane);
    uint32_t peers = __match_any_sync(0xffffffffu, h);
    uint32_t lower = peers & ((1u << lane) - 1u);
    uint32_t head = act ? ze_head(W, h) : 0u;
    uint32_t link = lower ? from + (uint32_t)(31 - __clz(lower)) : head;
    __syncwarp();
    if (act) {
        W->chain[p & cmask] = link;
        if ((peers >> lane >> 1) == 0)
            ze_set_head(W, h, p);
    }
    __syncwarp();
    return link; /* position from + lane's link (the GPU's windows take it from here) */
#else
    for (uint32_t p = from; p < to; p++)
        ze_insert(W, src, p);
    return 0;
#endif
}

/* ---- hash buckets (levels 2-3) ---------------------------------------------------- */

#if ZE_BUCKET_ROWS * ZE_WAYS > (1u << ZE_HASH_LOG) + (1u << ZE_CHAIN_LOG) || ZE_WAYS != 8
#error "the buckets fill the heads' and links' memory, 8 ways (two 16-byte loads a row)"
#endif

/* A bucket holds the ZE_WAYS latest positions with its hash (4 bytes, as
 * the chains), latest first, each stored as base + position (below base:
 * an earlier chunk's, empty).  A position's candidates are the bucket as it
 * was before the position entered it: no link to follow, so the ZE_WAYS
 * candidates are independent loads (the chain walk's were dependent, each
 * a round trip). */
OC_CORE_FN uint32_t ze_bhash(const uint8_t *p)
{
    uint64_t v = (uint64_t)oc_load_le32(p) << 32; /* the 4 bytes' multiplicative hash, 32 bits */
    uint32_t h = (uint32_t)((v * 0x9E3779B185EBCA87ull) >> 32);
    return (uint32_t)(((uint64_t)h * ZE_BUCKET_ROWS) >> 32);
}

OC_CORE_FN uint32_t ze_bucket_rel(const ze_work *W, uint32_t v)
{
    return v != ZE_EMPTY && v >= W->base ? v - W->base : ZE_EMPTY;
}

OC_CORE_FN uint32_t ze_bucket_abs(const ze_work *W, uint32_t p)
{
    return p == ZE_EMPTY ? ZE_EMPTY : W->base + p;
}

/* Enters positions [from, to) (at most ZE_WINDOW) into their buckets, in
 * order (p + 8 <= the block's end); c (ZE_WAYS a position of the window, or NULL) receives each
 * position's candidates.  On the GPU a lane a position: the lanes of one
 * bucket (__match_any_sync) read its row before the window, a lane's
 * candidates are its lower peers (latest first) then that row, and the
 * highest peer writes the row back with itself in front (two 16-byte
 * stores); c is then the lane's own ZE_WAYS candidates (registers). */
OC_CORE_FN void ze_bucket_window(const ze_work *W, const uint8_t *src, uint32_t from, uint32_t to,
                                 uint32_t *c)
{
#ifdef __CUDACC__
    uint32_t lane = OC_LANE(), p = from + lane;
    int act = p < to;
    uint32_t h = act ? ze_bhash(src + p) : (0x80000000u | lane);
    uint32_t peers = __match_any_sync(0xffffffffu, h);
    uint4 r0 = make_uint4(ZE_EMPTY, ZE_EMPTY, ZE_EMPTY, ZE_EMPTY), r1 = r0;
    if (act) {
        const uint4 *row = (const uint4 *)(const void *)(W->hash + (size_t)h * ZE_WAYS);
        r0 = row[0];
        r1 = row[1];
    }
    c[0] = ze_bucket_rel(W, r0.x);
    c[1] = ze_bucket_rel(W, r0.y);
    c[2] = ze_bucket_rel(W, r0.z);
    c[3] = ze_bucket_rel(W, r0.w);
    c[4] = ze_bucket_rel(W, r1.x);
    c[5] = ze_bucket_rel(W, r1.y);
    c[6] = ze_bucket_rel(W, r1.z);
    c[7] = ze_bucket_rel(W, r1.w);
    uint32_t lower = peers & ((1u << lane) - 1u);
    while (lower) { /* lowest first, so the latest ends in front */
        uint32_t b = (uint32_t)(__ffs(lower) - 1);
        lower &= lower - 1u;
#pragma unroll
        for (int k = ZE_WAYS - 1; k > 0; k--)
            c[k] = c[k - 1];
        c[0] = from + b;
    }
    __syncwarp();
    if (act && (peers >> lane >> 1) == 0) {
        uint4 *row = (uint4 *)(void *)(W->hash + (size_t)h * ZE_WAYS);
        row[0] =
            make_uint4(W->base + p, ze_bucket_abs(W, c[0]), ze_bucket_abs(W, c[1]), ze_bucket_abs(W, c[2]));
        row[1] = make_uint4(ze_bucket_abs(W, c[3]), ze_bucket_abs(W, c[4]), ze_bucket_abs(W, c[5]),
                            ze_bucket_abs(W, c[6]));
    }
    __syncwarp();
#else
    for (uint32_t p = from; p < to; p++) {
        uint32_t *row = W->hash + (size_t)ze_bhash(src + p) * ZE_WAYS;
        for (uint32_t k = 0; c && k < ZE_WAYS; k++)
            c[(p - from) * ZE_WAYS + k] = ze_bucket_rel(W, row[k]);
        for (uint32_t k = ZE_WAYS - 1; k > 0; k--)
            row[k] = row[k - 1];
        row[0] = W->base + p;
    }
#endif
}

/* Best match at ip from the repeat offsets and the first `depth` of ip's
 * bucket candidates c (latest first); the same rule as ze_find. */
OC_CORE_FN ze_match ze_find_bucket(const uint8_t *src, uint32_t ip, uint32_t end, uint32_t maxdist,
                                   const uint32_t *rep, int depth, const uint32_t *c)
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
#ifdef __CUDACC__
#pragma unroll
#endif
    for (int d = 0; d < (int)ZE_WAYS; d++) {
        uint32_t cand = c[d];
        if (d >= depth || cand == ZE_EMPTY || ip - cand > maxdist) /* latest first: the rest are farther */
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
    }
    return m;
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
#define ZE_WIN_MATCH(r)                                                                                      \
    (P->bucket ? ze_find_bucket(src, ip + (r), be, maxdist, rs, P->depth, bc + (r)*ZE_WAYS)                  \
               : ze_find(W, src, ip + (r), be, maxdist, rs, P->depth, W->chain[(ip + (r)) & cmask]))
#endif

/* Lazy variant by windows, whole warp: the ZE_WINDOW positions from ip are
 * inserted into the chains, each searched (one per lane on the GPU, with the
 * repeat offsets as they are at ip), then parsed in order: the first match
 * is taken unless the next position's match gains more (lazy steps inside
 * the window), then the same from the match's end while it is inside the
 * window (several sequences a window: a window costs the warp one search
 * pass, so fewer windows is fewer passes); the next window starts at the
 * last match's end or the window's end, whichever is later.  Defined by
 * windows, so the C build gives the GPU's sequences; every lane returns the
 * same values.
 * At the chain levels (4-5, Blosc's zstd streams), after (ip - anchor)
 * bytes without a match a window spans ZE_WINDOW * step positions, step =
 * 1 + ((ip - anchor) >> ZE_SKIP_LOG) (at most ZE_SKIP_MAX; libzstd's lazy
 * finders step by the same rule): every position of the span is inserted,
 * but only its first ZE_WINDOW are searched (one coalesced burst, as at
 * step 1); after a match the next window starts at its end or the burst's,
 * else past the span.  On data without matches (the random low bit planes
 * of bitshuffled integers) the searches, ~95 % of the cycles, nearly
 * vanish: 1.4-2.1x on Blosc's zstd streams at ratios within 0.4 %, and a
 * zero run after the random planes is counted as at step 1 (searching
 * every step-th position instead was slower there: the lanes' loads 32
 * sectors apart; bench/gpu/blosc/NOTES.md, session 8).  The dev harness's
 * variants (that one, the search of every position, one sequence a
 * window) are in bench/gpu/dev/zstd_enc_match_knobs.h. */
#define ZE_SKIP_LOG 8
#define ZE_SKIP_MAX 512u /* a window then spans 16 KiB, inside the links' 64 KiB reach */
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
#ifndef __CUDACC__
    uint32_t bc[ZE_WINDOW * ZE_WAYS]; /* the window's bucket candidates, a position's ZE_WAYS in a row */
#endif
    while (ip < ilimit) {
        /* the window: nwin searched positions ip + r, r < nwin (the burst),
         * spanning [ip, ip + span): step 1 but after a stretch without a
         * match at the chain levels */
        uint32_t step = 1;
        if (!P->bucket) {
            step = 1 + ((ip - anchor) >> ZE_SKIP_LOG);
            step = step < ZE_SKIP_MAX ? step : ZE_SKIP_MAX;
        }
        uint32_t span = ilimit - ip < ZE_WINDOW * step ? ilimit - ip : ZE_WINDOW * step;
        uint32_t nwin = span < ZE_WINDOW ? span : ZE_WINDOW;
        /* the last insertion's links stay in registers: a position it
         * inserted starts its search without reading its link back */
        uint32_t lfrom = 0, lto = 0, link = 0;
        if (P->bucket) {
            /* positions a match skipped enter their buckets, then the
             * window, which gives each position its candidates */
            while (*ins < ip) {
                uint32_t to = ip - *ins < ZE_WINDOW ? ip : *ins + ZE_WINDOW;
#ifdef __CUDACC__
                uint32_t skip[ZE_WAYS];
                ze_bucket_window(W, src, *ins, to, skip);
#else
                ze_bucket_window(W, src, *ins, to, NULL);
#endif
                *ins = to;
            }
        }
#ifdef __CUDACC__
        uint32_t bcand[ZE_WAYS];
        if (P->bucket) {
            ze_bucket_window(W, src, ip, ip + nwin, bcand);
            *ins = ip + nwin;
        }
#else
        if (P->bucket) {
            ze_bucket_window(W, src, ip, ip + nwin, bc);
            *ins = ip + nwin;
        }
#endif
        while (*ins < ip + span) {
            uint32_t to = ip + span - *ins < ZE_WINDOW ? ip + span : *ins + ZE_WINDOW;
            link = ze_insert_window(W, src, *ins, to);
            lfrom = *ins;
            lto = to;
            *ins = to;
        }
        /* the searches use the repeat offsets as they are at the window's
         * start (rs), also for the window's later sequences */
        uint32_t rs[3] = {rep[0], rep[1], rep[2]};
#ifdef __CUDACC__
        uint32_t q = ip + lane;
        uint32_t mylink = __shfl_sync(0xffffffffu, link, (int)((q - lfrom) & 31u));
        ze_match mine;
        mine.len = 0;
        mine.off = 0;
        if (lane < nwin)
            mine = P->bucket ? ze_find_bucket(src, q, be, maxdist, rs, P->depth, bcand)
                             : ze_find(W, src, q, be, maxdist, rs, P->depth,
                                       q >= lfrom && q < lto ? mylink : W->chain[q & cmask]);
#else
        (void)link;
        (void)lfrom;
        (void)lto;
#endif
        uint32_t r = 0;
        for (;;) { /* the window's sequences */
            ze_match m;
            m.len = 0;
            m.off = 0;
            while (r < nwin) {
                m = ZE_WIN_MATCH(r);
                if (m.len >= ZE_MINMATCH)
                    break;
                r++;
            }
            if (r >= nwin)
                break;
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
            anchor = p + m.len;
            /* the first searched position at or after the match's end */
            r = anchor - ip;
            OC_WARP_SYNC();
        }
        /* after a match, on from its end or the burst's; else past the span */
        ip = anchor > ip ? (anchor > ip + nwin ? anchor : ip + nwin) : ip + span;
    }
    while (*ins < ilimit) { /* later blocks see this block's positions */
        uint32_t to = ilimit - *ins < ZE_WINDOW ? ilimit : *ins + ZE_WINDOW;
        if (P->bucket) {
#ifdef __CUDACC__
            uint32_t skip[ZE_WAYS];
            ze_bucket_window(W, src, *ins, to, skip);
#else
            ze_bucket_window(W, src, *ins, to, NULL);
#endif
        } else {
            ze_insert_window(W, src, *ins, to);
        }
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

/* One probe of the fast variant at p (p + 8 <= the block's end; tables as before the window): 1 and
 * the match source in *c when the repeat offset or the hash head matches 4
 * bytes. */
OC_CORE_FN uint32_t ze_probe(const ze_work *W, const uint8_t *src, uint32_t p, uint32_t maxdist,
                             uint32_t rep0, uint32_t *c, uint32_t *h)
{
    uint32_t v = oc_load_le32(src + p), r = 0;
    *h = ze_hash(src + p, ZE_HASH_FAST);
    uint32_t cand = ze_head(W, *h);
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
 * literals; then the same from the match's end while it is inside the
 * window, with the window's probes (several sequences a window: the probe
 * pass is the window's cost).  A window without a match inserts all its positions and moves
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
        uint32_t mrep = 0, mhash = 0;
#ifdef __CUDACC__
        uint32_t mc = 0, mh = 0;
        uint32_t ok = lane < nvalid ? ze_probe(W, src, ip + lane, maxdist, rep[0], &mc, &mh) : 0;
        mrep = __ballot_sync(0xffffffffu, ok & 1);
        mhash = __ballot_sync(0xffffffffu, ok & 2);
#else
        uint32_t hs[ZE_WINDOW], cs[ZE_WINDOW];
        for (uint32_t l = 0; l < nvalid; l++) {
            uint32_t ok = ze_probe(W, src, ip + l, maxdist, rep[0], &cs[l], &hs[l]);
            mrep |= (ok & 1u) << l;
            mhash |= ((ok >> 1) & 1u) << l;
        }
#endif
        uint32_t r = 0, next = ip + nvalid;  /* the first position not parsed; the next window */
        for (;;) {                           /* the window's sequences */
            uint32_t below = (1u << r) - 1u; /* r < nvalid <= 32 */
            uint32_t f = ze_pick(mrep & ~below, mhash & ~below), c = 0;
            /* positions r .. min(f, nvalid-1) enter the table (of a slot, the highest lane) */
            uint32_t last = f < nvalid ? f : nvalid - 1;
#ifdef __CUDACC__
            c = __shfl_sync(0xffffffffu, mc, (int)(f & 31));
            int ins = lane >= r && lane <= last;
            uint32_t key = ins ? mh : (0x80000000u | lane);
            uint32_t peers = __match_any_sync(0xffffffffu, key);
            if (ins && (peers >> lane >> 1) == 0)
                ze_set_head(W, mh, ip + lane);
            OC_WARP_SYNC();
#else
            if (f < nvalid)
                c = cs[f];
            for (uint32_t l = r; l <= last; l++)
                ze_set_head(W, hs[l], ip + l);
#endif
            if (f >= nvalid)
                break;
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
            anchor = p + mt.len;
            if (lane == 0 && anchor - 2 < ilimit && anchor - 2 > bs)
                ze_set_head(W, ze_hash(src + anchor - 2, ZE_HASH_FAST), anchor - 2);
            OC_WARP_SYNC();
            if (anchor - ip >= nvalid) {
                next = anchor;
                break;
            }
            r = anchor - ip;
        }
        ip = next;
    }
    for (uint32_t i = anchor + lane; i < be; i += OC_NLANES)
        W->lit[nlit + i - anchor] = src[i];
    OC_WARP_SYNC();
    *nlit_out = nlit + (be - anchor);
    return nseq;
}

#endif /* OC_ZSTD_ENC_MATCH_H */
