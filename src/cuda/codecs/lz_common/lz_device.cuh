/*
 * lz_device.cuh - device helpers shared by the LZ4 and Snappy kernels: warp
 * cooperative literal and match copies, and the warp-parallel match finder
 * used by both compressors.
 *
 * Speed: one warp owns one chunk.  Every lane parses the same header bytes
 * (broadcast loads, no shuffles, uniform control flow) and the 32 lanes share
 * each copy.  An overlapping match (offset < length) needs no rounds: byte k
 * of the match equals out[start - offset + k % offset], which was written
 * before the match began, so all lanes copy in parallel.
 *
 * Safety: the helpers copy exactly the ranges the callers checked against
 * the input end, the output capacity and the output start.
 */
#ifndef OC_LZ_DEVICE_CUH
#define OC_LZ_DEVICE_CUH

#include <stddef.h>
#include <stdint.h>

#define OC_FULL_MASK 0xffffffffu

/* One batch as the LZ4 and Snappy kernels see it (the arguments of a
 * gpu_codec.h launch).  Every pointer is device-accessible; dst_sizes and
 * statuses may be NULL (then nothing is written there). */
struct oc_cuda_batch {
    size_t n;
    const uint8_t *const *src;
    const size_t *src_sizes;
    uint8_t *const *dst;
    const size_t *dst_caps;
    size_t *dst_sizes;
    int32_t *statuses; /* oc_status values */
};

/* The batch of a gpu_codec.h launch's arguments (dst NULL for size queries). */
static inline oc_cuda_batch oc_cuda_batch_of(size_t n, const void *const *src, const size_t *src_sizes,
                                             void *const *dst, const size_t *dst_caps, size_t *dst_sizes,
                                             void *statuses)
{
    oc_cuda_batch b;
    b.n = n;
    b.src = (const uint8_t *const *)src;
    b.src_sizes = src_sizes;
    b.dst = (uint8_t *const *)dst;
    b.dst_caps = dst_caps;
    b.dst_sizes = dst_sizes;
    b.statuses = (int32_t *)statuses;
    return b;
}

/* Statuses as int32 for device code (values pinned in opencomp.h). */
enum {
    OC_D_OK = 0,
    OC_D_INVALID_ARGUMENT = 1,
    OC_D_CORRUPT = 3,
    OC_D_TRUNCATED = 4,
    OC_D_OUTPUT_TOO_SMALL = 5,
    OC_D_SIZE_MISMATCH = 7,
    OC_D_CHUNK_TOO_LARGE = 8
};

/* The LZ4 block's end-of-block rules, checked once a block has decoded
 * (total bytes `op`): the CPU scanner's (src/cpu/lz4_scan.c), so both
 * engines give one verdict per block: the last match ends at least 5
 * (LASTLITERALS) and starts at least 12 (MFLIMIT) bytes before the end, and
 * the only empty block is the single byte 0x00.  A block cut after a short
 * last literal run breaks them (issue 11 item 5). */
__device__ __forceinline__ int oc_lz4_end_rules(const uint8_t *__restrict__ src, size_t srcn, uint64_t op,
                                                int any_match, uint64_t last_ms, uint64_t last_me)
{
    if (op == 0 && (srcn != 1 || __ldg(src) != 0))
        return OC_D_CORRUPT;
    if (any_match && (op - last_me < 5 || op - last_ms < 12))
        return OC_D_CORRUPT;
    return OC_D_OK;
}

/* Copy len bytes from src (read-only input) to dst with all 32 lanes.
 * Uses 16-byte stores where src and dst share alignment. */
__device__ __forceinline__ void oc_warp_copy_in(uint8_t *dst, const uint8_t *__restrict__ src, size_t len,
                                                int lane)
{
    size_t k = 0;
    if (len >= 256 && (((uintptr_t)dst ^ (uintptr_t)src) & 15) == 0) {
        size_t head = (16 - ((uintptr_t)dst & 15)) & 15;
        if ((size_t)lane < head)
            dst[lane] = __ldg(src + lane);
        const uint4 *s4 = (const uint4 *)(src + head);
        uint4 *d4 = (uint4 *)(dst + head);
        size_t n4 = (len - head) >> 4;
        for (size_t j = lane; j < n4; j += 32)
            d4[j] = __ldg(s4 + j);
        k = head + (n4 << 4);
    }
    for (size_t j = k + lane; j < len; j += 32)
        dst[j] = __ldg(src + j);
}

/* Decoder history ring: the last OC_RING output bytes of each warp's chunk
 * are kept in shared memory, so a match whose source and destination both
 * fit in the ring (offset + length <= OC_RING: no slot is both read and
 * written) reads shared memory instead of global bytes this warp has just
 * stored (a global read-after-write goes to L2).  Every output byte is
 * written to the ring and to the output. */
#define OC_RING 16384
#define OC_RING_MASK (OC_RING - 1)
#define OC_DECODE_WARPS 2

__device__ __forceinline__ void oc_warp_lit_ring(uint8_t *dst, uint8_t *ring, size_t op,
                                                 const uint8_t *__restrict__ src, size_t len, int lane)
{
    size_t j = lane;
    /* eight, then four, independent loads in flight per lane for long runs */
    for (; j + 224 < len; j += 256) {
        uint8_t v[8];
#pragma unroll
        for (int u = 0; u < 8; u++)
            v[u] = __ldg(src + j + 32 * u);
#pragma unroll
        for (int u = 0; u < 8; u++) {
            dst[op + j + 32 * u] = v[u];
            ring[(op + j + 32 * u) & OC_RING_MASK] = v[u];
        }
    }
    for (; j + 96 < len; j += 128) {
        uint8_t v0 = __ldg(src + j), v1 = __ldg(src + j + 32), v2 = __ldg(src + j + 64),
                v3 = __ldg(src + j + 96);
        dst[op + j] = v0;
        dst[op + j + 32] = v1;
        dst[op + j + 64] = v2;
        dst[op + j + 96] = v3;
        ring[(op + j) & OC_RING_MASK] = v0;
        ring[(op + j + 32) & OC_RING_MASK] = v1;
        ring[(op + j + 64) & OC_RING_MASK] = v2;
        ring[(op + j + 96) & OC_RING_MASK] = v3;
    }
    for (; j < len; j += 32) {
        uint8_t v = __ldg(src + j);
        dst[op + j] = v;
        ring[(op + j) & OC_RING_MASK] = v;
    }
}

/* A match at output position op (offset <= op checked by the caller).
 * use_ring: the source may be read from the ring (the copier passes
 * offset + len <= OC_RING). */
__device__ __forceinline__ void oc_warp_match_ring(uint8_t *dst, uint8_t *ring, size_t op, uint32_t offset,
                                                   size_t len, int use_ring, int lane)
{
    size_t from = op - offset;
    if (offset >= len) {
        for (size_t j = lane; j < len; j += 32) {
            uint8_t v = use_ring ? ring[(from + j) & OC_RING_MASK] : dst[from + j];
            dst[op + j] = v;
            ring[(op + j) & OC_RING_MASK] = v;
        }
    } else {
        /* byte j repeats byte j % offset (all written before this match) */
        uint32_t r = (uint32_t)lane % offset;
        uint32_t step = 32 % offset;
        for (size_t j = lane; j < len; j += 32) {
            uint8_t v = use_ring ? ring[(from + r) & OC_RING_MASK] : dst[from + r];
            dst[op + j] = v;
            ring[(op + j) & OC_RING_MASK] = v;
            r += step;
            if (r >= offset)
                r -= offset;
        }
    }
}

/* Prefetch the input ahead of a warp that walks it front to back: with a
 * few warps per SM every first touch of a 128-byte line would otherwise
 * expose a full DRAM latency.  When pos comes within 2 KiB of *mark, the 32
 * lanes each prefetch one line of the next 4 KiB into L1.  Uniform across
 * the warp; a prefetch never faults, and none is issued past the end. */
__device__ __forceinline__ void oc_prefetch_ahead(const uint8_t *src, size_t n, size_t pos, size_t *mark,
                                                  int lane)
{
    if (pos + 2048 >= *mark && *mark < n) {
        size_t a = *mark + (size_t)lane * 128;
        if (a < n)
            asm volatile("prefetch.L1 [%0];" ::"l"(src + a)); /* generic address */
        *mark += 4096;
    }
}

__device__ __forceinline__ uint32_t oc_read32(const uint8_t *__restrict__ p)
{
    return (uint32_t)__ldg(p) | ((uint32_t)__ldg(p + 1) << 8) | ((uint32_t)__ldg(p + 2) << 16) |
           ((uint32_t)__ldg(p + 3) << 24);
}

/* Match finder settings: a 2^OC_HT_LOG-entry hash table per warp in shared
 * memory holding the low 16 bits of positions.  Since LZ4's window is 64 KiB,
 * a candidate is recovered as pos - (uint16)(pos - entry), which is always
 * inside the window; stale entries just fail the 4-byte comparison. */
#define OC_HT_LOG 13
#define OC_HT_SIZE (1 << OC_HT_LOG)
#define OC_COMPRESS_WARPS 2

/* The hash of 4 bytes into a table of 2^HTL entries (the lazy finder's
 * OC_HT_LOG; the greedy compressors choose theirs: lz4_kernels.cu,
 * snappy_kernels.cu). */
template <int HTL = OC_HT_LOG> __device__ __forceinline__ uint32_t oc_hash4(uint32_t v)
{
    return (v * 2654435761u) >> (32 - HTL);
}

/* Write position q into table[h] for the lanes with ins set; of lanes with
 * the same hash only the highest (latest position) writes: deterministic
 * and race-free.  Every lane calls it. */
__device__ __forceinline__ void oc_table_insert(uint16_t *table, uint32_t h, size_t q, int ins, int lane)
{
    unsigned same = __match_any_sync(OC_FULL_MASK, ins ? h : 0xffffffffu);
    __syncwarp();
    if (ins && lane == 31 - __clz(same))
        table[h] = (uint16_t)q;
    __syncwarp();
}

/* The length of the match at mpos from mref, known to be at least len,
 * extended forwards 32 bytes a step (every lane alike), below maxlen. */
__device__ __forceinline__ size_t oc_extend_fwd(const uint8_t *__restrict__ src, size_t mpos, size_t mref,
                                                size_t len, size_t maxlen, int lane)
{
    for (;;) {
        size_t k = len + lane;
        int eq = k < maxlen && __ldg(src + mpos + k) == __ldg(src + mref + k);
        unsigned ne = __ballot_sync(OC_FULL_MASK, !eq);
        if (ne)
            return len + (__ffs(ne) - 1);
        len += 32;
    }
}

/* One found match: start, source and length. */
struct oc_match {
    size_t pos;
    size_t ref;
    size_t len;
};

/* The lazy compressor's match finder (LZ4 at levels >= 2; the greedy ones
 * take multi-match windows, below): the best match at positions p .. p+31
 * (one per lane), below start_end, whose extension stays below match_end.
 * Inserts the positions up to the first matching lane into the table.
 * Returns 1 and fills m (same in all lanes) when found.  Of the first
 * matching lane f and lanes f .. f+5 it takes the one whose match (compared over its first 32 bytes) reaches
 * furthest, a later start having to reach one byte further per byte it starts later. CPU model:
 * bench/gpu/lz_compress_ref.cpp policy 6, K 1, cap 32 (+8% ratio on bench/corpus at 64 KiB; big on 8-byte
 * columns). */
#define OC_LAZY_LANES 6
#define OC_LAZY_CAP 32

__device__ __forceinline__ int oc_find_match(const uint8_t *__restrict__ src, uint16_t *table, size_t p,
                                             size_t start_end, size_t match_end, int lane, oc_match *m)
{
    size_t q = p + lane;
    int valid = 0;
    size_t cand = 0;
    uint32_t h = 0;
    if (q < start_end) {
        uint32_t v = oc_read32(src + q);
        h = oc_hash4(v);
        uint32_t dist = (uint16_t)(q - table[h]);
        if (dist != 0 && dist <= q) {
            cand = q - dist;
            valid = oc_read32(src + cand) == v;
        }
    }
    unsigned mask = __ballot_sync(OC_FULL_MASK, valid);
    /* Insert the positions up to the first match only: later ones are inside
     * the match or scanned again by the next window (inserting them now
     * would make them find themselves). */
    int last = mask ? __ffs(mask) - 1 : 31;
    oc_table_insert(table, h, q, q < start_end && lane <= last, lane);
    if (!mask)
        return 0;
    int f = __ffs(mask) - 1;
    size_t len = 4;
    {
        unsigned cands = (mask >> f) & ((1u << OC_LAZY_LANES) - 1);
        int best = f;
        size_t best_end = 0, best_len = 4;
        while (cands) {
            int l = f + __ffs(cands) - 1;
            cands &= cands - 1;
            size_t lpos = p + l, lref = __shfl_sync(OC_FULL_MASK, cand, l);
            size_t cap = match_end - lpos < OC_LAZY_CAP ? match_end - lpos : OC_LAZY_CAP;
            size_t k = 4 + lane;
            int eq = k < cap && __ldg(src + lpos + k) == __ldg(src + lref + k);
            size_t llen = 4 + (__ffs(__ballot_sync(OC_FULL_MASK, !eq)) - 1); /* lanes 28+ never equal */
            if (l == f || lpos + llen > best_end + (size_t)(l - best)) {
                best = l;
                best_end = lpos + llen;
                best_len = llen;
            }
        }
        f = best;
        len = best_len;
    }
    size_t mpos = p + f;
    size_t mref = __shfl_sync(OC_FULL_MASK, cand, f);
    m->pos = mpos;
    m->ref = mref;
    m->len = oc_extend_fwd(src, mpos, mref, len, match_end - mpos, lane);
    return 1;
}

/* Multi-match windows: the greedy compressors' match finder (LZ4 at levels
 * <= 1 and Snappy; bench/NOTES.md "Compressors (issue 13, session 8)").
 * One window of 32 probes (lane k at p + k) serves every match that starts
 * in it: oc_window_probe looks every lane's position up in the table, and a
 * lane whose 4 bytes equal an earlier lane's of the same window takes the
 * latest such lane as its candidate instead (a position would otherwise
 * never find the 31 before it); oc_window_match then gives the matches in
 * turn, each the first lane with a candidate at or after the previous one's
 * end, with the candidate its probe found (no second probe); at the end
 * oc_window_insert writes the positions no match covers (a match's start
 * included), and the next window starts at max(p + 32, the last end).  On
 * the benchmark's mix (CPU model bench/gpu/lz_compress_ref.cpp, multi 2) a
 * 64 KiB chunk takes 1,694 windows instead of oc_find_match's 5,961 (one
 * match a window) at a higher LZ4 ratio (1.8778 vs 1.8727). */
struct oc_window {
    size_t q;      /* this lane's position */
    size_t cand;   /* its candidate (lanes in mask) */
    uint32_t h;    /* its hash */
    int inq;       /* q < start_end: probed */
    unsigned mask; /* lanes with a candidate whose 4 bytes equal theirs */
};

template <int HTL>
__device__ __forceinline__ void oc_window_probe(const uint8_t *__restrict__ src, const uint16_t *table,
                                                size_t p, size_t start_end, int lane, oc_window *w)
{
    size_t q = p + lane;
    int inq = q < start_end, valid = 0;
    size_t cand = 0;
    uint32_t v = 0, h = 0;
    if (inq) {
        v = oc_read32(src + q);
        h = oc_hash4<HTL>(v);
        uint32_t dist = (uint16_t)(q - table[h]);
        if (dist != 0 && dist <= q) {
            cand = q - dist;
            valid = oc_read32(src + cand) == v;
        }
    }
    /* probed lanes are a prefix; the others (v 0) leave the sets */
    unsigned lower =
        __match_any_sync(OC_FULL_MASK, v) & __ballot_sync(OC_FULL_MASK, inq) & ((1u << lane) - 1);
    if (inq && lower) {
        cand = p + (31 - __clz(lower));
        valid = 1;
    }
    w->q = q;
    w->cand = cand;
    w->h = h;
    w->inq = inq;
    w->mask = __ballot_sync(OC_FULL_MASK, valid);
    __syncwarp(); /* the table reads before any write of this window */
}

/* The window's next match at or after cur (cur - p < 32), extended forwards
 * below match_end: 1 and *m (same in all lanes), or 0 when none is left. */
__device__ __forceinline__ int oc_window_match(const uint8_t *__restrict__ src, const oc_window *w, size_t p,
                                               size_t cur, size_t match_end, int lane, oc_match *m)
{
    unsigned avail = w->mask & (OC_FULL_MASK << (unsigned)(cur - p));
    if (!avail)
        return 0;
    int f = __ffs(avail) - 1;
    size_t mpos = p + f, mref = __shfl_sync(OC_FULL_MASK, w->cand, f);
    m->pos = mpos;
    m->ref = mref;
    m->len = oc_extend_fwd(src, mpos, mref, 4, match_end - mpos, lane);
    return 1;
}

/* Insert the window's probed positions that no match covers (covered: this
 * lane's q lies strictly inside one); of equal hashes the highest lane
 * writes (deterministic, race-free). */
__device__ __forceinline__ void oc_window_insert(uint16_t *table, const oc_window *w, int covered)
{
    oc_table_insert(table, w->h, w->q, w->inq && !covered, (int)(threadIdx.x & 31));
}

/* Extend a match backwards over the pending literals (all lanes alike). */
__device__ __forceinline__ void oc_extend_back(const uint8_t *__restrict__ src, size_t anchor, oc_match *m)
{
    while (m->pos > anchor && m->ref > 0 && __ldg(src + m->pos - 1) == __ldg(src + m->ref - 1)) {
        m->pos--;
        m->ref--;
        m->len++;
    }
}

/* The greedy compressors' parse of a chunk (LZ4 at levels <= 1, Snappy):
 * multi-match windows over the positions below start_end; each match is
 * extended back over the pending literals and handed with them to E::emit
 * (the format's sequence writer: lz4_kernels.cu, snappy_kernels.cu), and
 * the position 2 before its end enters the table.  Returns 0 when E::emit
 * finds no room (OUTPUT_TOO_SMALL), else 1 with *anchor the first byte no
 * match covers (the last literals start there). */
template <int HTL, class E>
__device__ __forceinline__ int oc_greedy_parse(const uint8_t *__restrict__ src, size_t n, uint16_t *table,
                                               size_t start_end, size_t match_end, uint8_t *dst, size_t cap,
                                               size_t *op, size_t *anchor_out, int lane)
{
    size_t anchor = 0, p = 0, mark = 0;
    oc_match m;
    while (p < start_end) {
        oc_prefetch_ahead(src, n, p, &mark, lane);
        oc_window w;
        oc_window_probe<HTL>(src, table, p, start_end, lane, &w);
        size_t cur = p;
        int covered = 0;
        while (cur - p < 32 && oc_window_match(src, &w, p, cur, match_end, lane, &m)) {
            oc_extend_back(src, anchor, &m);
            if (!E::emit(dst, cap, op, src + anchor, m.pos - anchor, 1, (uint32_t)(m.pos - m.ref), m.len,
                         lane))
                return 0;
            covered |= w.q > m.pos && w.q < m.pos + m.len;
            cur = anchor = m.pos + m.len;
            if (lane == 0 && cur - 2 < start_end)
                table[oc_hash4<HTL>(oc_read32(src + cur - 2))] = (uint16_t)(cur - 2);
            __syncwarp();
        }
        oc_window_insert(table, &w, covered);
        p = cur > p + 32 ? cur : p + 32;
    }
    *anchor_out = anchor;
    return 1;
}

/* Clear the warp's hash table of size entries (even). */
__device__ __forceinline__ void oc_table_clear(uint16_t *table, int lane, int size = OC_HT_SIZE)
{
    uint32_t *t = (uint32_t *)table;
    for (int j = lane; j < size / 2; j += 32)
        t[j] = 0;
    __syncwarp();
}

#endif /* OC_LZ_DEVICE_CUH */
