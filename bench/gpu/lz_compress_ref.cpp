/*
 * lz_compress_ref.cpp - CPU reference of the GPU LZ4 match finder
 * (src/cuda/lz_device.cuh, oc_find_match), lane by lane, for studying the
 * compression ratio without a GPU: same hash, same table of 16-bit
 * positions, same 32-position windows, same end-of-block rules.  It prints
 * the ratio it reaches beside liblz4's on the same chunks, and writes real
 * LZ4 blocks that liblz4 must decode (checked).
 *
 * Build: c++ -O2 -std=c++17 bench/gpu/lz_compress_ref.cpp -llz4 -o /tmp/lzref
 * Usage: lzref FILE [chunk [table_log [policy [backward [lazy_k [lazy_cap [skip [multi]]]]]]]]
 *   the GPU default (greedy): lzref FILE 65536 13 0 1; LZ4 levels >= 2 on the GPU (lazy): ... 13 6 1 1 32
 *   skip S (greedy only; bench/gpu/dev/dev_lz_enc.cuh): after w windows in a row with no match, the
 *   lanes probe positions 1 + (w >> S) apart (default 31: never).  Also prints the windows (32-lane
 *   probes) and sequences per 64 KiB of input: the work the GPU kernel does.  multi 1: compress_multi;
 *   multi 2: also candidates from earlier lanes of the window with the same 4 bytes.
 */
#include <lz4.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static int HT_LOG = 12;
static int POLICY = 0;   /* 0: first valid lane; 1: furthest reach (pos + len) */
static int BACKWARD = 0; /* extend the chosen match backwards into the literals */
static int LAZY_K = 0;
static int LAZY_CAP = 0;
static int SKIP = 31;
static size_t STRIDE = 1;
static size_t WINDOWS = 0, SEQS = 0;
/* bytes compared per candidate when choosing (0: all) */ /* lazy policies: reach needed per byte of later
                                                             start */

static uint32_t read32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static uint32_t hash4(uint32_t v)
{
    return (v * 2654435761u) >> (32 - HT_LOG);
}

struct Match {
    size_t pos, ref, len;
};

/* Mirror of oc_find_match. */
static bool find_match(const uint8_t *src, std::vector<uint16_t> &table, size_t p, size_t start_end,
                       size_t match_end, Match *m)
{
    bool valid[32] = {};
    size_t cand[32] = {};
    uint32_t h[32] = {};
    WINDOWS++;
    for (int lane = 0; lane < 32; lane++) {
        size_t q = p + lane * STRIDE;
        if (q >= start_end)
            continue;
        uint32_t v = read32(src + q);
        h[lane] = hash4(v);
        uint32_t dist = (uint16_t)(q - table[h[lane]]);
        if (dist != 0 && dist <= q) {
            cand[lane] = q - dist;
            valid[lane] = read32(src + cand[lane]) == v;
        }
    }
    /* Insert the positions up to the first match only: later ones are either
     * inside the match or scanned again by the next window (inserting them
     * now would make them find themselves).  The highest lane of a hash wins. */
    int first = 31;
    for (int lane = 0; lane < 32; lane++)
        if (valid[lane]) {
            first = lane;
            break;
        }
    for (int lane = 0; lane <= first; lane++)
        if (p + lane * STRIDE < start_end)
            table[h[lane]] = (uint16_t)(p + lane * STRIDE);
    if (POLICY == 0 || POLICY >= 2) {
        int f = -1;
        for (int lane = 0; lane < 32 && f < 0; lane++)
            if (valid[lane])
                f = lane;
        if (f < 0)
            return false;
        /* POLICY k >= 2: lazy, also measure lanes f+1 .. f+k-1 and keep the furthest reach */
        int best = f;
        size_t best_end = 0, best_len = 0;
        int last = POLICY >= 2 ? f + POLICY - 1 : f;
        for (int lane = f; lane <= last && lane < 32; lane++) {
            if (!valid[lane])
                continue;
            size_t pos = p + lane * STRIDE, len = 4, maxlen = match_end - pos;
            if (LAZY_CAP && maxlen > (size_t)LAZY_CAP)
                maxlen = LAZY_CAP; /* the GPU compares each candidate's first LAZY_CAP bytes */
            while (len < maxlen && src[pos + len] == src[cand[lane] + len])
                len++;
            /* a later start must reach LAZY_K bytes further per byte it gives up */
            if (lane == f || pos + len > best_end + (size_t)LAZY_K * (lane - best)) {
                best_end = pos + len;
                best = lane;
                best_len = len;
            }
        }
        m->pos = p + best * STRIDE;
        m->ref = cand[best];
        size_t len = best_len, maxlen = match_end - m->pos; /* the chosen one in full */
        while (len < maxlen && src[m->pos + len] == src[m->ref + len])
            len++;
        m->len = len;
        return true;
    }
    /* furthest reach: every valid lane measures its own match */
    int best = -1;
    size_t best_end = 0, best_len = 0;
    for (int lane = 0; lane < 32; lane++) {
        if (!valid[lane])
            continue;
        size_t pos = p + lane, len = 4, maxlen = match_end - pos;
        while (len < maxlen && src[pos + len] == src[cand[lane] + len])
            len++;
        if (pos + len > best_end) {
            best_end = pos + len;
            best = lane;
            best_len = len;
        }
    }
    if (best < 0)
        return false;
    m->pos = p + best;
    m->ref = cand[best];
    m->len = best_len;
    return true;
}

static void put_len(std::vector<uint8_t> &o, size_t v)
{
    v -= 15;
    while (v >= 255) {
        o.push_back(255);
        v -= 255;
    }
    o.push_back((uint8_t)v);
}

/* What the same sequences cost as Snappy elements (snappy_kernels.cu's oc_snappy_emit sizes). */
static size_t SNAPPY_BYTES = 0;

static void snappy_count(size_t nlit, bool has_match, uint32_t off, size_t ml)
{
    if (nlit) {
        size_t v = nlit - 1;
        SNAPPY_BYTES += nlit + (v < 60 ? 1 : v < 256 ? 2 : v < 65536 ? 3 : 4);
    }
    if (!has_match)
        return;
    while (ml >= 68)
        SNAPPY_BYTES += 3, ml -= 64;
    if (ml > 64)
        SNAPPY_BYTES += 3, ml -= 60;
    SNAPPY_BYTES += (ml < 12 && off < 2048) ? 2 : 3;
}

static void emit(std::vector<uint8_t> &o, const uint8_t *lit, size_t nlit, bool has_match, uint32_t off,
                 size_t ml)
{
    snappy_count(nlit, has_match, off, ml);
    size_t mc = has_match ? ml - 4 : 0;
    o.push_back((uint8_t)(((nlit >= 15 ? 15 : nlit) << 4) | (mc >= 15 ? 15 : mc)));
    if (nlit >= 15)
        put_len(o, nlit);
    o.insert(o.end(), lit, lit + nlit);
    if (has_match) {
        o.push_back((uint8_t)off);
        o.push_back((uint8_t)(off >> 8));
        if (mc >= 15)
            put_len(o, mc);
    }
}

/* MULTI (dev_lz_enc.cuh's "multi" variants): one window's 32 probes serve every match that starts in
 * it.  After a match, the next is the first valid lane at or after the match's end (its candidate from
 * the table as it was before the window), then the window's positions that no match covers (a match's
 * start included) are inserted, and the next window starts at max(p + 32, end of the last match). */
static int MULTI = 0;

static std::vector<uint8_t> compress_multi(const uint8_t *src, size_t n)
{
    std::vector<uint16_t> table(1u << HT_LOG, 0);
    std::vector<uint8_t> o;
    size_t start_end = n >= 13 ? n - 11 : 0, match_end = n >= 5 ? n - 5 : 0;
    size_t anchor = 0, p = 0;
    while (p < start_end) {
        WINDOWS++;
        bool valid[32] = {}, covered[32] = {};
        size_t cand[32] = {};
        uint32_t h[32] = {};
        for (int lane = 0; lane < 32; lane++) {
            size_t q = p + lane;
            if (q >= start_end)
                continue;
            uint32_t v = read32(src + q);
            h[lane] = hash4(v);
            uint32_t dist = (uint16_t)(q - table[h[lane]]);
            if (dist != 0 && dist <= q) {
                cand[lane] = q - dist;
                valid[lane] = read32(src + cand[lane]) == v;
            }
            /* MULTI 2: the latest earlier lane of this window with the same 4 bytes wins */
            for (int j = lane - 1; MULTI == 2 && j >= 0; j--)
                if (read32(src + p + j) == v) {
                    cand[lane] = p + j;
                    valid[lane] = true;
                    break;
                }
        }
        size_t cur = p;
        for (;;) {
            int f = -1;
            for (int lane = (int)(cur - p); lane < 32 && f < 0; lane++)
                if (valid[lane])
                    f = lane;
            if (f < 0)
                break;
            Match m{p + f, cand[f], 4};
            size_t maxlen = match_end - m.pos;
            while (m.len < maxlen && src[m.pos + m.len] == src[m.ref + m.len])
                m.len++;
            while (m.pos > anchor && m.ref > 0 && src[m.pos - 1] == src[m.ref - 1])
                m.pos--, m.ref--, m.len++;
            emit(o, src + anchor, m.pos - anchor, true, (uint32_t)(m.pos - m.ref), m.len);
            SEQS++;
            size_t end = m.pos + m.len;
            for (int lane = 0; lane < 32; lane++)
                if (p + lane > m.pos && p + lane < end)
                    covered[lane] = true;
            anchor = cur = end;
            if (end - 2 < start_end)
                table[hash4(read32(src + end - 2))] = (uint16_t)(end - 2);
            if (cur - p >= 32)
                break;
        }
        for (int lane = 0; lane < 32; lane++)
            if (p + lane < start_end && !covered[lane])
                table[h[lane]] = (uint16_t)(p + lane);
        p = cur > p + 32 ? cur : p + 32;
    }
    emit(o, src + anchor, n - anchor, false, 0, 0);
    return o;
}

static std::vector<uint8_t> compress(const uint8_t *src, size_t n)
{
    if (MULTI)
        return compress_multi(src, n);
    std::vector<uint16_t> table(1u << HT_LOG, 0);
    std::vector<uint8_t> o;
    size_t start_end = n >= 13 ? n - 11 : 0, match_end = n >= 5 ? n - 5 : 0;
    size_t anchor = 0, p = 0, miss = 0;
    Match m;
    while (p < start_end) {
        STRIDE = 1 + (miss >> SKIP);
        if (!find_match(src, table, p, start_end, match_end, &m)) {
            p += 32 * STRIDE;
            miss++;
            continue;
        }
        miss = 0;
        SEQS++;
        while (BACKWARD && m.pos > anchor && m.ref > 0 && src[m.pos - 1] == src[m.ref - 1])
            m.pos--, m.ref--, m.len++;
        emit(o, src + anchor, m.pos - anchor, true, (uint32_t)(m.pos - m.ref), m.len);
        p = m.pos + m.len;
        anchor = p;
        if (p - 2 < start_end)
            table[hash4(read32(src + p - 2))] = (uint16_t)(p - 2);
    }
    emit(o, src + anchor, n - anchor, false, 0, 0);
    return o;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    size_t chunk = argc > 2 ? strtoul(argv[2], nullptr, 0) : 65536;
    if (argc > 3)
        HT_LOG = atoi(argv[3]);
    if (argc > 4)
        POLICY = atoi(argv[4]);
    if (argc > 5)
        BACKWARD = atoi(argv[5]);
    if (argc > 6)
        LAZY_K = atoi(argv[6]);
    if (argc > 7)
        LAZY_CAP = atoi(argv[7]);
    if (argc > 8)
        SKIP = atoi(argv[8]);
    if (argc > 9)
        MULTI = atoi(argv[9]);
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    std::vector<uint8_t> d;
    uint8_t buf[65536];
    size_t r;
    while ((r = fread(buf, 1, sizeof buf, f)) > 0)
        d.insert(d.end(), buf, buf + r);
    fclose(f);
    size_t ours = 0, ref = 0;
    std::vector<char> tmp(LZ4_compressBound((int)chunk)), back(chunk);
    for (size_t off = 0; off < d.size(); off += chunk) {
        size_t len = std::min(chunk, d.size() - off);
        std::vector<uint8_t> c = compress(d.data() + off, len);
        int dn = LZ4_decompress_safe((const char *)c.data(), back.data(), (int)c.size(), (int)chunk);
        if (dn != (int)len || memcmp(back.data(), d.data() + off, len)) {
            fprintf(stderr, "round trip failed at %zu\n", off);
            return 1;
        }
        ours += c.size();
        SNAPPY_BYTES += len < 128 ? 1 : len < 16384 ? 2 : 3; /* the preamble */
        ref += LZ4_compress_default((const char *)d.data() + off, tmp.data(), (int)len, (int)tmp.size());
    }
    printf("%s chunk %zu: ours %.3f liblz4 %.3f  (%zu / %zu bytes; per 64 KiB: %.0f windows, %.0f sequences; "
           "as Snappy %zu bytes)\n",
           argv[1], chunk, (double)d.size() / ours, (double)d.size() / ref, ours, ref,
           WINDOWS * 65536.0 / d.size(), SEQS * 65536.0 / d.size(), SNAPPY_BYTES);
    return 0;
}
