/*
 * test_codec_bitcomp.c - the Bitcomp-class format (docs/FORMAT.md,
 * "Bitcomp") on the CPU: its core (src/cores/bitcomp/bitcomp_core.h)
 * compiled here, and the codec through the public API.
 *
 * Guards:
 *   - round trips through oc_batch_* for every data type and both
 *     algorithm types on real data: the bench corpus's TPC-H columns, text
 *     and model weights (float32, and bfloat16 made of their high halves)
 *     when bench/corpus-data exists (or OC_CORPUS_DIR), always the license
 *     text, an ELF file and generated columns; sizes 0, 1, 7,
 *     non-multiples of the width; the size query;
 *   - ratios on the corpus printed, those of algorithm_type 0 at or above
 *     a plain frame-of-reference bit-packer's (per 128 elements: minimum +
 *     fixed width, the design class of Bitcomp);
 *   - the GPU's partition of the work: compressing with 1, 3 and 8 warps
 *     gives the same bytes, and any warp count decodes them;
 *   - the spec's encoder, written again here from docs/FORMAT.md's text
 *     alone (scalar, nothing shared with the core), gives the codec's
 *     bytes for every data type and both algorithm types;
 *   - compressed sizes of generated columns pinned;
 *   - hand-built chunks of every block coding (CONST, FOR, DELTA, PLANES,
 *     SPARSE; version 2's TILE_FOR, PDELTA, PFLT) decode to what the spec
 *     says, version 1 chunks still decode; exact statuses: TRUNCATED for
 *     every proper prefix, CORRUPT for a wrong id, version, flags, kind,
 *     bit width or shift, overlapping planes, a presence bit past the
 *     block, a payload of the wrong length, a tile longer than its
 *     elements, bytes after the chunk; OUTPUT_TOO_SMALL one byte short
 *     both ways;
 *   - byte flips never crash nor write past the capacity (ASan suite), and
 *     the size query agrees with decoding; the NATIVE container round trip.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cores/bitcomp/bitcomp_core.h"
#define OWN_CODEC_TEST_ALGO OC_ALGO_BITCOMP
#include "helpers/own_codec_test.h"

static bc_ws g_ws;

/* ---- helpers ----------------------------------------------------------------------- */

static size_t compress1(const uint8_t *src, size_t n, oc_data_type t, int algo, uint8_t *dst, size_t cap,
                        oc_status *st)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BITCOMP;
    o.typed.data_type = t;
    o.typed.algorithm_type = algo;
    const void *sp = src;
    void *dp = dst;
    size_t got = 0;
    CHECK_OK(oc_batch_compress(g_ctx, &o, 1, &sp, &n, &dp, &cap, &got, st));
    return got;
}

static size_t roundtrip(const char *name, const uint8_t *data, size_t n, oc_data_type t, int algo)
{
    size_t cap = oc_compress_bound(OC_ALGO_BITCOMP, n);
    uint8_t *c = tu_xmalloc(cap ? cap : 1);
    oc_status st = OC_ERR_INTERNAL;
    size_t cn = compress1(data, n, t, algo, c, cap, &st);
    CHECK_MSG(st == OC_OK, "%s type %d algorithm_type %d: compress %s", name, (int)t, algo,
              oc_status_name(st));
    CHECK(cn <= cap);
    CHECK_MSG(decode_copy(c, cn, n, data, n) == OC_OK, "%s type %d algorithm_type %d: decode", name, (int)t,
              algo);
    if (n) { /* one byte short, both ways */
        CHECK_STATUS(decode_copy(c, cn, n - 1, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);
        uint8_t *d = tu_xmalloc(cn);
        oc_status st2 = OC_OK;
        compress1(data, n, t, algo, d, cn - 1, &st2);
        CHECK_STATUS(st2, OC_ERR_OUTPUT_TOO_SMALL);
        free(d);
    }
    free(c);
    return cn;
}

/* The same bytes for 1, 3 and 8 warps; 3 and 8 warps decode them. */
static void warps_agree(const uint8_t *data, size_t n, uint32_t type, uint32_t algo)
{
    size_t cap = (size_t)bc_bound(n);
    uint8_t *a = tu_xmalloc(cap), *b = tu_xmalloc(cap), *back = tu_xmalloc(n ? n : 1);
    uint64_t na = 0, nb = 0, got = 0;
    CHECK_OK(bc_compress_chunk(&g_ws, data, n, type, algo, a, cap, &na, 1));
    static const uint32_t warps[] = {3, 8};
    for (int k = 0; k < 2; k++) {
        CHECK_OK(bc_compress_chunk(&g_ws, data, n, type, algo, b, cap, &nb, warps[k]));
        CHECK_MSG(na == nb && !memcmp(a, b, (size_t)na),
                  "type %u algorithm_type %u: %u warps write other bytes", type, algo, warps[k]);
        CHECK_OK(bc_decompress_chunk(&g_ws, a, (size_t)na, back, n, &got, warps[k]));
        CHECK(got == n && (n == 0 || !memcmp(back, data, n)));
    }
    free(a);
    free(b);
    free(back);
}

/* Columns: 0 sorted keys in runs with gaps (i64), 1 dates (i32), 2 prices
 * with two decimals as f64, 3 mostly zeros (i32), 4 float32 weights. */
static uint8_t *generated(int kind, size_t n)
{
    uint8_t *p = tu_xmalloc(n);
    memset(p, 0, n);
    tu_rng r;
    tu_rng_seed(&r, 2000 + (uint64_t)kind);
    int64_t key = 1;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t v = tu_rng_next(&r);
        if (kind == 0) {
            int64_t k = v % 4 == 0 ? (key += (v >> 8) % 8 == 0 ? 25 : 1) : key;
            memcpy(p + i, &k, 8);
        } else if (kind == 1) {
            int32_t d[2] = {8036 + (int32_t)(v % 2526), 8036 + (int32_t)((v >> 20) % 2526)};
            memcpy(p + i, d, 8);
        } else if (kind == 2) {
            double x = (double)(100 + v % 9000000) / 100.0;
            memcpy(p + i, &x, 8);
        } else if (kind == 3) {
            int32_t d[2] = {v % 50 == 0 ? (int32_t)(v >> 40) % 1000 : 0, (v >> 8) % 50 == 0 ? 7 : 0};
            memcpy(p + i, d, 8);
        } else {
            float f[2] = {(float)((double)(int64_t)(v % 20001 - 10000) / 300000.0),
                          (float)((double)(int64_t)((v >> 32) % 20001 - 10000) / 300000.0)};
            memcpy(p + i, f, 8);
        }
    }
    return p;
}

/* ---- the spec's encoder, from docs/FORMAT.md alone ----------------------------------------- */

static uint64_t sp_load(const uint8_t *p, uint32_t w)
{
    uint64_t v = 0;
    for (uint32_t b = 0; b < w; b++)
        v |= (uint64_t)p[b] << (8 * b);
    return v;
}

static uint32_t sp_bits(uint64_t x)
{
    uint32_t b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

static uint32_t sp_ctz(uint64_t x)
{
    uint32_t z = 0;
    while (x && !(x & 1)) {
        z++;
        x >>= 1;
    }
    return z;
}

static int64_t sp_signed(uint64_t x, uint32_t w)
{
    if (w == 8)
        return (int64_t)x;
    uint64_t half = (uint64_t)1 << (8 * w - 1);
    return x >= half ? (int64_t)x - (int64_t)(half * 2) : (int64_t)x;
}

/* "base of a set of values" (n > 0) */
static uint64_t sp_base(const uint64_t *v, uint32_t n, uint32_t w, uint64_t M1)
{
    uint64_t umin = v[0], umax = v[0];
    int64_t smin = sp_signed(v[0], w), smax = smin;
    for (uint32_t i = 1; i < n; i++) {
        umin = v[i] < umin ? v[i] : umin;
        umax = v[i] > umax ? v[i] : umax;
        int64_t s = sp_signed(v[i], w);
        smin = s < smin ? s : smin;
        smax = s > smax ? s : smax;
    }
    uint32_t bu = sp_bits(umax - umin), bs = sp_bits(((uint64_t)smax - (uint64_t)smin) & M1);
    return bs < bu ? ((uint64_t)smin & M1) : umin;
}

/* s and k "as FOR's" over r[0..n) */
static void sp_shift_width(const uint64_t *r, uint32_t n, uint32_t *s, uint32_t *k)
{
    uint64_t or_ = 0, mx = 0;
    for (uint32_t i = 0; i < n; i++) {
        or_ |= r[i];
        mx = r[i] > mx ? r[i] : mx;
    }
    *s = or_ ? sp_ctz(or_) : 0;
    *k = sp_bits(mx >> *s);
}

/* "x is a decimal at exponent e": v converted to the float type and
 * divided by 10^e gives x's bits (f = 8: double, 4: float). */
static int sp_decimal(uint64_t x, uint32_t e, int f, int64_t *v)
{
    if (f == 8) {
        double d, p = 1, back;
        memcpy(&d, &x, 8);
        for (uint32_t i = 0; i < e; i++)
            p *= 10;
        double t = d * p;
        if (!(fabs(t) < 9007199254740992.0))
            return 0;
        *v = (int64_t)llrint(t);
        back = (double)*v / p;
        return memcmp(&back, &x, 8) == 0;
    }
    float d, p = 1, back;
    uint32_t x32 = (uint32_t)x;
    memcpy(&d, &x32, 4);
    for (uint32_t i = 0; i < e; i++)
        p *= 10;
    float t = d * p;
    if (!(fabsf(t) < 16777216.0f))
        return 0;
    *v = (int64_t)llrint((double)t);
    back = (float)*v / p;
    return memcmp(&back, &x32, 4) == 0;
}

typedef struct sp_writer {
    uint8_t *p;
    uint64_t bit;
} sp_writer;

static void sp_put(sp_writer *wr, uint64_t v, uint32_t k)
{
    for (uint32_t i = 0; i < k; i++, wr->bit++)
        if ((v >> i) & 1)
            wr->p[wr->bit / 8] |= (uint8_t)(1u << (wr->bit % 8));
}

/* Version 2's patched search over n residuals r (PDELTA, PFLT): k from
 * bits(max) - 1 down while at most 32 residuals have more than k bits;
 * the smallest size, the first found on ties.  Returns 0 if none. */
static int sp_patch(const uint64_t *r, uint32_t n, uint32_t *pk, uint32_t *pnx, uint32_t *pkx,
                    uint64_t *pbits)
{
    uint64_t mx = 0;
    for (uint32_t i = 0; i < n; i++)
        mx = r[i] > mx ? r[i] : mx;
    uint32_t mb = sp_bits(mx);
    int found = 0;
    for (uint32_t k = mb; k-- > 0;) {
        uint32_t nx = 0;
        for (uint32_t i = 0; i < n; i++)
            nx += sp_bits(r[i]) > k;
        if (nx > 32)
            break;
        uint64_t size = (uint64_t)n * k + (uint64_t)nx * (7 + mb - k);
        if (!found || size < *pbits)
            found = 1, *pk = k, *pnx = nx, *pkx = mb - k, *pbits = size;
    }
    return found;
}

/* One tile: returns its length (coded, or cnt * w stored).  fp: a float type. */
static size_t sp_tile(const uint8_t *src, uint32_t cnt, uint32_t w, int algo, int flt, int fp, uint8_t *out)
{
    static uint64_t xhi[32][32];
    static uint32_t xpos[32][32], xn[32], xk[32];
    memset(xn, 0, sizeof xn);
    uint64_t M1 = w == 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * w)) - 1);
    uint32_t B = (cnt + 127) / 128;
    uint8_t kinds[32], hdr[32][64];
    uint32_t hlen[32];
    static uint64_t vals[32][128];
    uint32_t nvals[32], vbits[32];
    size_t total_h = B;
    for (uint32_t b = 0; b < B; b++) {
        uint32_t c = cnt - 128 * b < 128 ? cnt - 128 * b : 128;
        uint64_t x[128];
        for (uint32_t e = 0; e < c; e++)
            x[e] = sp_load(src + ((size_t)128 * b + e) * w, w);
        int same = 1;
        for (uint32_t e = 1; e < c; e++)
            same &= x[e] == x[0];
        uint8_t *h = hdr[b];
        if (same) {
            kinds[b] = 0;
            for (uint32_t i = 0; i < w; i++)
                h[i] = (uint8_t)(x[0] >> (8 * i));
            hlen[b] = w, nvals[b] = 0, vbits[b] = 0;
            total_h += hlen[b];
            continue;
        }
        /* FOR */
        uint64_t r[128];
        uint64_t base = sp_base(x, c, w, M1);
        for (uint32_t e = 0; e < c; e++)
            r[e] = (x[e] - base) & M1;
        uint32_t s, k;
        sp_shift_width(r, c, &s, &k);
        uint32_t sb = s ? 1 : 0; /* FOR with a shift byte: kind 5 */
        uint64_t best = 8ull * (1 + sb + w) + (uint64_t)c * k;
        kinds[b] = s ? 5 : 1;
        h[0] = (uint8_t)k, h[1] = (uint8_t)s;
        for (uint32_t i = 0; i < w; i++)
            h[1 + sb + i] = (uint8_t)(base >> (8 * i));
        hlen[b] = 1 + sb + w, nvals[b] = c, vbits[b] = k;
        for (uint32_t e = 0; e < c; e++)
            vals[b][e] = r[e] >> s;
        if (algo == 0 && c > 1) { /* DELTA */
            uint64_t d[128], q[128];
            for (uint32_t e = 1; e < c; e++)
                d[e - 1] = (x[e] - x[e - 1]) & M1;
            uint64_t dmin = sp_base(d, c - 1, w, M1);
            for (uint32_t e = 0; e + 1 < c; e++)
                q[e] = (d[e] - dmin) & M1;
            uint32_t ds, dk;
            sp_shift_width(q, c - 1, &ds, &dk);
            uint32_t db = ds ? 1 : 0; /* DELTA with a shift byte: kind 6 */
            uint64_t size = 8ull * (1 + db + 2 * w) + (uint64_t)(c - 1) * dk;
            if (size < best) {
                best = size;
                kinds[b] = ds ? 6 : 2;
                h[0] = (uint8_t)dk, h[1] = (uint8_t)ds;
                for (uint32_t i = 0; i < w; i++)
                    h[1 + db + i] = (uint8_t)(x[0] >> (8 * i)),
                               h[1 + db + w + i] = (uint8_t)(dmin >> (8 * i));
                hlen[b] = 1 + db + 2 * w, nvals[b] = c - 1, vbits[b] = dk;
                for (uint32_t e = 0; e + 1 < c; e++)
                    vals[b][e] = q[e] >> ds;
            }
        }
        if (algo == 0) { /* PLANES */
            uint64_t and_ = M1, or_ = 0;
            for (uint32_t e = 0; e < c; e++)
                and_ &= x[e], or_ |= x[e];
            uint64_t mask = and_ ^ or_;
            uint32_t pk = sp_bits(0), pc = 0;
            for (uint64_t m = mask; m; m >>= 1)
                pc += (uint32_t)(m & 1);
            pk = pc;
            uint64_t size = 8ull * (2 * w) + (uint64_t)c * pk;
            if (size < best) {
                best = size;
                kinds[b] = 3;
                for (uint32_t i = 0; i < w; i++)
                    h[i] = (uint8_t)(mask >> (8 * i)), h[w + i] = (uint8_t)(and_ >> (8 * i));
                hlen[b] = 2 * w, nvals[b] = c, vbits[b] = pk;
                for (uint32_t e = 0; e < c; e++) { /* extract the mask's bits, lowest first */
                    uint64_t v = 0;
                    uint32_t o = 0;
                    for (uint32_t bit = 0; bit < 8 * w; bit++)
                        if ((mask >> bit) & 1)
                            v |= ((x[e] >> bit) & 1) << o++;
                    vals[b][e] = v;
                }
            }
        }
        if (flt && algo == 0) { /* DECIMAL */
            uint32_t emax = flt == 8 ? 18 : 10, be = 0;
            int ok = 1;
            int64_t v[128];
            for (uint32_t e = 0; e < c && ok; e++) {
                uint32_t ee = 0;
                while (ee <= emax && !sp_decimal(x[e], ee, flt, &v[e]))
                    ee++;
                ok = ee <= emax;
                be = ee > be ? ee : be;
            }
            for (uint32_t e = 0; e < c && ok; e++)
                ok = sp_decimal(x[e], be, flt, &v[e]);
            if (ok) {
                int64_t lo = v[0], hi = v[0];
                for (uint32_t e = 1; e < c; e++) {
                    lo = v[e] < lo ? v[e] : lo;
                    hi = v[e] > hi ? v[e] : hi;
                }
                uint32_t dk = sp_bits((uint64_t)hi - (uint64_t)lo);
                uint64_t size = 8ull * (2 + w) + (uint64_t)c * dk;
                if (size < best) {
                    best = size;
                    kinds[b] = 7;
                    h[0] = (uint8_t)be, h[1] = (uint8_t)dk;
                    for (uint32_t i = 0; i < w; i++)
                        h[2 + i] = (uint8_t)((uint64_t)lo >> (8 * i));
                    hlen[b] = 2 + w, nvals[b] = c, vbits[b] = dk;
                    for (uint32_t e = 0; e < c; e++)
                        vals[b][e] = (uint64_t)v[e] - (uint64_t)lo;
                }
            }
        }
        uint32_t nnz = 0;
        uint64_t nz[128];
        for (uint32_t e = 0; e < c; e++)
            if (x[e])
                nz[nnz++] = x[e];
        if (nnz < c) { /* SPARSE */
            uint64_t nbase = nnz ? sp_base(nz, nnz, w, M1) : 0;
            uint64_t q[128];
            for (uint32_t i = 0; i < nnz; i++)
                q[i] = (nz[i] - nbase) & M1;
            uint32_t ns, nk;
            sp_shift_width(q, nnz, &ns, &nk);
            uint32_t bm = (c + 7) / 8;
            uint64_t size = 8ull * (bm + 2 + w) + (uint64_t)nnz * nk;
            if (size < best) {
                best = size;
                kinds[b] = 4;
                memset(h, 0, bm);
                for (uint32_t e = 0; e < c; e++)
                    if (x[e])
                        h[e / 8] |= (uint8_t)(1u << (e % 8));
                h[bm] = (uint8_t)nk, h[bm + 1] = (uint8_t)ns;
                for (uint32_t i = 0; i < w; i++)
                    h[bm + 2 + i] = (uint8_t)(nbase >> (8 * i));
                hlen[b] = bm + 2 + w, nvals[b] = nnz, vbits[b] = nk;
                for (uint32_t i = 0; i < nnz; i++)
                    vals[b][i] = q[i] >> ns;
            }
        }
        if (algo == 0 && c > 1) { /* PDELTA: DELTA's dmin, residuals patched */
            uint64_t d[128], q[128];
            for (uint32_t e = 1; e < c; e++)
                d[e - 1] = (x[e] - x[e - 1]) & M1;
            uint64_t dmin = sp_base(d, c - 1, w, M1);
            for (uint32_t e = 0; e + 1 < c; e++)
                q[e] = (d[e] - dmin) & M1;
            uint32_t pk, pnx, pkx;
            uint64_t pb;
            if (sp_patch(q, c - 1, &pk, &pnx, &pkx, &pb) && 8ull * (3 + 2 * w) + pb < best) {
                best = 8ull * (3 + 2 * w) + pb;
                kinds[b] = 9;
                h[0] = (uint8_t)pk, h[1] = (uint8_t)pnx, h[2] = (uint8_t)pkx;
                for (uint32_t i = 0; i < w; i++)
                    h[3 + i] = (uint8_t)(x[0] >> (8 * i)), h[3 + w + i] = (uint8_t)(dmin >> (8 * i));
                hlen[b] = 3 + 2 * w, nvals[b] = c - 1, vbits[b] = pk, xn[b] = 0, xk[b] = pkx;
                for (uint32_t e = 0; e + 1 < c; e++) {
                    vals[b][e] = q[e] & (((uint64_t)1 << pk) - 1) /* pk < 64 */;
                    if (sp_bits(q[e]) > pk)
                        xpos[b][xn[b]] = e + 1, xhi[b][xn[b]++] = q[e] >> pk;
                }
            }
        }
        if (algo == 0 && fp) { /* PFLT: the sign rotated to bit 0, down from the maximum */
            uint64_t y[128], q[128], top = 0;
            for (uint32_t e = 0; e < c; e++) {
                y[e] = ((x[e] << 1) | (x[e] >> (8 * w - 1))) & M1;
                top = y[e] > top ? y[e] : top;
            }
            for (uint32_t e = 0; e < c; e++)
                q[e] = (top - y[e]) & M1;
            uint32_t pk, pnx, pkx;
            uint64_t pb;
            if (sp_patch(q, c, &pk, &pnx, &pkx, &pb) && 8ull * (3 + w) + pb < best) {
                best = 8ull * (3 + w) + pb;
                kinds[b] = 10;
                h[0] = (uint8_t)pk, h[1] = (uint8_t)pnx, h[2] = (uint8_t)pkx;
                for (uint32_t i = 0; i < w; i++)
                    h[3 + i] = (uint8_t)(top >> (8 * i));
                hlen[b] = 3 + w, nvals[b] = c, vbits[b] = pk, xn[b] = 0, xk[b] = pkx;
                for (uint32_t e = 0; e < c; e++) {
                    vals[b][e] = q[e] & (((uint64_t)1 << pk) - 1) /* pk < 64 */;
                    if (sp_bits(q[e]) > pk)
                        xpos[b][xn[b]] = e, xhi[b][xn[b]++] = q[e] >> pk;
                }
            }
        }
        if (kinds[b] < 9)
            xn[b] = 0;
        (void)best;
        total_h += hlen[b];
    }
    uint64_t pbits = 0;
    for (uint32_t b = 0; b < B; b++)
        pbits += (uint64_t)nvals[b] * vbits[b] + (uint64_t)xn[b] * (7 + xk[b]);
    size_t len = total_h + (size_t)((pbits + 7) / 8);
    /* version 2: the whole tile as one frame of reference when strictly
     * smaller (base the unsigned minimum, k the bits of the range) */
    uint64_t lo = M1, hi = 0;
    for (uint32_t e = 0; e < cnt; e++) {
        uint64_t x = sp_load(src + (size_t)e * w, w);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    uint32_t uk = sp_bits(hi - lo);
    size_t ulen = 2 + w + (size_t)(((uint64_t)cnt * uk + 7) / 8);
    if (ulen < len && ulen < (size_t)cnt * w) {
        memset(out, 0, ulen);
        out[0] = 8, out[1] = (uint8_t)uk;
        for (uint32_t i = 0; i < w; i++)
            out[2 + i] = (uint8_t)(lo >> (8 * i));
        sp_writer uw = {out + 2 + w, 0};
        for (uint32_t e = 0; e < cnt; e++)
            sp_put(&uw, sp_load(src + (size_t)e * w, w) - lo, uk);
        return ulen;
    }
    if (len >= (size_t)cnt * w) {
        memcpy(out, src, (size_t)cnt * w);
        return (size_t)cnt * w;
    }
    memset(out, 0, len);
    size_t pos = 0;
    for (uint32_t b = 0; b < B; b++)
        out[pos++] = kinds[b];
    for (uint32_t b = 0; b < B; b++) {
        memcpy(out + pos, hdr[b], hlen[b]);
        pos += hlen[b];
    }
    sp_writer wr = {out + pos, 0};
    for (uint32_t b = 0; b < B; b++) {
        for (uint32_t i = 0; i < nvals[b]; i++)
            sp_put(&wr, vals[b][i], vbits[b]);
        for (uint32_t i = 0; i < xn[b]; i++) { /* patched blocks' exceptions */
            sp_put(&wr, xpos[b][i], 7);
            sp_put(&wr, xhi[b][i], xk[b]);
        }
    }
    return len;
}

static size_t sp_encode(const uint8_t *src, size_t n, uint32_t type, int algo, uint8_t *out)
{
    uint32_t w = (uint32_t)oc_data_type_size((oc_data_type)type);
    size_t m = n / w, T = (m + 4095) / 4096, pos = 8 + 4 * T, area = pos;
    out[0] = 'B', out[1] = 2, out[2] = (uint8_t)type, out[3] = (uint8_t)algo;
    for (int i = 0; i < 4; i++)
        out[4 + i] = (uint8_t)(n >> (8 * i));
    for (size_t t = 0; t < T; t++) {
        uint32_t cnt = (uint32_t)(m - 4096 * t < 4096 ? m - 4096 * t : 4096);
        int flt = type == OC_TYPE_F64 ? 8 : type == OC_TYPE_F32 ? 4 : 0;
        int fp = type == OC_TYPE_F16 || type == OC_TYPE_BF16 || type == OC_TYPE_F32 || type == OC_TYPE_F64;
        pos += sp_tile(src + 4096 * t * w, cnt, w, algo, flt, fp, out + pos);
        for (int i = 0; i < 4; i++)
            out[8 + 4 * t + (size_t)i] = (uint8_t)((pos - area) >> (8 * i));
    }
    memcpy(out + pos, src + m * w, n - m * w);
    return pos + n - m * w;
}

static void spec_encoder(void)
{
    size_t n = 3 * 32768 + 13;
    uint8_t *want = tu_xmalloc(bc_bound(n)), *got = tu_xmalloc(bc_bound(n));
    for (int kind = 0; kind < 5; kind++) {
        uint8_t *d = generated(kind, n);
        for (int t = OC_TYPE_U8; t < OC_TYPE_COUNT; t++) {
            for (int algo = 0; algo <= 1; algo++) {
                size_t wn = sp_encode(d, n, (uint32_t)t, algo, want);
                oc_status st = OC_ERR_INTERNAL;
                size_t gn = compress1(d, n, (oc_data_type)t, algo, got, bc_bound(n), &st);
                CHECK_OK(st);
                CHECK_MSG(
                    gn == wn && !memcmp(got, want, wn),
                    "column %d type %d algorithm_type %d: the codec's %zu bytes differ from the spec's %zu",
                    kind, t, algo, gn, wn);
            }
        }
        free(d);
    }
    free(want);
    free(got);
}

/* ---- real data, ratios ------------------------------------------------------------------ */

/* A plain frame-of-reference bit-packer (the design class of Bitcomp): per
 * 128 elements, one kind byte, the unsigned minimum, a width byte, and the
 * elements minus the minimum in that width, byte-aligned. */
static size_t plain_for(const uint8_t *d, size_t n, uint32_t w)
{
    size_t m = n / w, total = 8 + 4 * ((m + 4095) / 4096) + n % w;
    for (size_t b0 = 0; b0 < m; b0 += 128) {
        size_t c = m - b0 < 128 ? m - b0 : 128;
        uint64_t lo = ~(uint64_t)0, hi = 0;
        for (size_t e = 0; e < c; e++) {
            uint64_t v = sp_load(d + (b0 + e) * w, w);
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        total += 1 + w + 1 + (c * sp_bits(hi - lo) + 7) / 8;
    }
    return total;
}

static void real_data(void)
{
    static const struct {
        const char *file;
        oc_data_type type;
        int halves; /* bf16 from the float32 file's high halves */
    } files[] = {{"tpch_l_orderkey.i64", OC_TYPE_I64, 0},     {"tpch_l_partkey.i32", OC_TYPE_I32, 0},
                 {"tpch_l_shipdate.i32", OC_TYPE_I32, 0},     {"sorted_partkey.i64", OC_TYPE_I64, 0},
                 {"tpch_l_quantity.f64", OC_TYPE_F64, 0},     {"tpch_l_extendedprice.f64", OC_TYPE_F64, 0},
                 {"weights_minilm_l0-1.f32", OC_TYPE_F32, 0}, {"weights_minilm_l0-1.f32", OC_TYPE_BF16, 1},
                 {"text_linux_docs.txt", OC_TYPE_U8, 0}};
    int found = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        size_t n = 0;
        uint8_t *d = corpus_file(files[f].file, (size_t)4 << 20, &n);
        if (!d)
            continue;
        found++;
        if (files[f].halves) {
            size_t m = n / 4;
            for (size_t i = 0; i < m; i++)
                d[2 * i] = d[4 * i + 2], d[2 * i + 1] = d[4 * i + 3];
            n = 2 * m;
        }
        uint32_t w = (uint32_t)oc_data_type_size(files[f].type);
        for (int algo = 0; algo <= 1; algo++) {
            size_t total = 0, plain = 0;
            for (size_t off = 0; off < n; off += 65536) {
                size_t len = n - off < 65536 ? n - off : 65536;
                total += roundtrip(files[f].file, d + off, len, files[f].type, algo);
                plain += plain_for(d + off, len, w);
            }
            printf("  %-26s %-4s algorithm_type %d: ratio %.3f (a plain FOR bit-packer: %.3f)\n",
                   files[f].file, oc_data_type_name(files[f].type), algo, (double)n / (double)total,
                   (double)n / (double)plain);
            /* the default mode; "sparse" (1) pays the shift byte of its FOR headers without
             * DELTA and PLANES to make up for it (orderkey: 7.79 against 7.85) */
            if (algo == 0)
                CHECK_MSG(total <= plain, "%s: %zu bytes, more than a plain FOR bit-packer's %zu",
                          files[f].file, total, plain);
        }
        warps_agree(d, n < 200000 ? n : 200000, files[f].type, 0);
        warps_agree(d, n < 200000 ? n : 200000, files[f].type, 1);
        free(d);
    }
    if (!found)
        printf("  bench/corpus-data not built (bench/corpus): generated columns and system files only\n");
    tu_buf bufs[TU_CORPUS_MAX];
    size_t nb = tu_corpus(bufs, TU_CORPUS_MAX, 300000);
    for (size_t i = 0; i < nb; i++) {
        for (int t = OC_TYPE_U8; t < OC_TYPE_COUNT; t++)
            for (int algo = 0; algo <= 1; algo++)
                roundtrip(bufs[i].name, bufs[i].data, bufs[i].size < 70001 ? bufs[i].size : 70001,
                          (oc_data_type)t, algo);
        warps_agree(bufs[i].data, bufs[i].size < 100003 ? bufs[i].size : 100003, OC_TYPE_U16, 0);
        tu_buf_free(&bufs[i]);
    }
    for (int kind = 0; kind < 5; kind++) {
        uint8_t *d = generated(kind, 100003);
        for (int t = OC_TYPE_U8; t < OC_TYPE_COUNT; t++)
            warps_agree(d, 100003, (uint32_t)t, (uint32_t)(t % 2));
        free(d);
    }
    uint8_t small[64];
    tu_fill_random(small, sizeof small, 5);
    static const size_t sizes[] = {0, 1, 7, 9, 63};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int t = OC_TYPE_U8; t < OC_TYPE_COUNT; t++)
            roundtrip("small", small, sizes[k], (oc_data_type)t, 0);
}

/* Pinned sizes of generated 1 MiB columns, 64 KiB chunks.  Measured once
 * (format version 1), again for version 2: PIN_DATES smaller by TILE_FOR,
 * PIN_KEYS and PIN_SPARSE by PDELTA, PIN_WEIGHTS by PFLT (algorithm_type 1
 * tries neither: PIN_SPARSE_1 unchanged); change only with a deliberate format or encoder
 * change, and say why in the commit. */
#define PIN_KEYS 42397
#define PIN_DATES 393984
#define PIN_PRICES 404688
#define PIN_SPARSE 49186
#define PIN_SPARSE_1 49235
#define PIN_WEIGHTS 885986

static void pinned_sizes(void)
{
    static const struct {
        int kind, algo;
        oc_data_type type;
        size_t size;
    } pins[] = {{0, 0, OC_TYPE_I64, PIN_KEYS},     {1, 0, OC_TYPE_I32, PIN_DATES},
                {2, 0, OC_TYPE_F64, PIN_PRICES},   {3, 0, OC_TYPE_I32, PIN_SPARSE},
                {3, 1, OC_TYPE_I32, PIN_SPARSE_1}, {4, 0, OC_TYPE_F32, PIN_WEIGHTS}};
    for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
        size_t n = (size_t)1 << 20, total = 0;
        uint8_t *d = generated(pins[i].kind, n);
        for (size_t off = 0; off < n; off += 65536)
            total += roundtrip("generated", d + off, 65536, pins[i].type, pins[i].algo);
        CHECK_MSG(total == pins[i].size, "generated column %d algorithm_type %d: %zu bytes, pinned %zu",
                  pins[i].kind, pins[i].algo, total, pins[i].size);
        free(d);
    }
}

/* ---- hand-built chunks ------------------------------------------------------------------- */

static void le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A one-tile chunk of `size` bytes of type `type`, format version `version`. */
static size_t chunk1v(uint8_t *out, uint32_t version, uint32_t type, uint32_t size, const uint8_t *tile,
                      size_t tn)
{
    out[0] = 'B', out[1] = (uint8_t)version, out[2] = (uint8_t)type, out[3] = 0;
    le(out + 4, size, 4);
    le(out + 8, tn, 4);
    memcpy(out + 12, tile, tn);
    return 12 + tn;
}

/* The same, version 1 (every block coding but TILE_FOR is version 1's). */
static size_t chunk1(uint8_t *out, uint32_t type, uint32_t size, const uint8_t *tile, size_t tn)
{
    return chunk1v(out, 1, type, size, tile, tn);
}

static void hand_built(void)
{
    uint8_t tile[128], buf[256], bad[256];
    size_t n;
    /* 1. <u2, 300 elements, three blocks:
     *    kinds 00 05 04 (CONST, FOR with a shift, SPARSE)
     *    block 0 CONST 0x1234:                          34 12
     *    block 1 FOR k 2, s 2, base 1000 (E8 03):       02 02 E8 03   x = 1000 + 4 (e % 4)
     *    block 2 (44 elements) SPARSE: presence bits 0, 11, 22, 33 -> 01 08 40 00 02 00,
     *            k 0, s 0, base 7:                      ... 00 00 07 00   x = 7 at e % 11 == 0, else 0
     *    payload: block 1's 128 values e % 4 in 2 bits -> bytes E4 (0, 1, 2, 3) x 32
     *    3 + 16 + 32 = 51 bytes < 600 */
    size_t t = 0;
    static const uint8_t head1[] = {0x00, 0x05, 0x04, 0x34, 0x12, 0x02, 0x02, 0xE8, 0x03, 0x01,
                                    0x08, 0x40, 0x00, 0x02, 0x00, 0x00, 0x00, 0x07, 0x00};
    memcpy(tile, head1, sizeof head1);
    t = sizeof head1;
    memset(tile + t, 0xE4, 32);
    t += 32;
    CHECK_SIZE_EQ(t, 51);
    n = chunk1(buf, OC_TYPE_U16, 600, tile, t);
    uint8_t want1[600];
    for (uint32_t e = 0; e < 300; e++) {
        uint32_t x = e < 128 ? 0x1234u : e < 256 ? 1000u + 4u * (e % 4) : ((e - 256) % 11 == 0 ? 7u : 0u);
        le(want1 + 2 * e, x, 2);
    }
    CHECK_STATUS(decode_copy(buf, n, 600, want1, 600), OC_OK);
    for (size_t k = 0; k < n; k++)
        CHECK_MSG(decode_copy(buf, k, 600, NULL, 0) == OC_ERR_TRUNCATED, "prefix %zu of %zu", k, n);
    CHECK_STATUS(decode_copy(buf, n, 599, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);
    buf[n] = 0;
    CHECK_STATUS(decode_copy(buf, n + 1, 600, NULL, 0), OC_ERR_CORRUPT);
    static const struct {
        size_t at;
        uint8_t v;
        const char *what;
    } bad1[] = {{0, 'C', "another codec's id"},
                {1, 3, "version 3"},
                {1, 0, "version 0"},
                {2, 0, "type 0"},
                {3, 2, "flags 2"},
                {12 + 1, 7, "kind 7"},
                {12 + 5, 17, "k 17 > 16 bits"},
                {12 + 6, 16, "s 16"},
                {12 + 6, 15, "k + s > 16"},
                {12 + 14, 0x10, "a presence bit past the block's 44 elements"},
                {12 + 15, 1, "SPARSE k 1: a payload of the wrong length"}};
    for (size_t i = 0; i < sizeof bad1 / sizeof bad1[0]; i++) {
        memcpy(bad, buf, n);
        bad[bad1[i].at] = bad1[i].v;
        CHECK_MSG(decode_copy(bad, n, 600, NULL, 0) == OC_ERR_CORRUPT, "%s: not CORRUPT", bad1[i].what);
    }
    /* the tile one byte shorter, and longer than its elements */
    memcpy(bad, buf, n);
    le(bad + 8, 50, 4);
    CHECK_STATUS(decode_copy(bad, n - 1, 600, NULL, 0), OC_ERR_CORRUPT);
    memset(bad, 0, sizeof bad);
    n = chunk1(bad, OC_TYPE_U8, 3, (const uint8_t *)"abcd", 4);
    CHECK_STATUS(decode_copy(bad, n, 3, NULL, 0), OC_ERR_CORRUPT);
    /* a stored tile: the elements as they are */
    n = chunk1(bad, OC_TYPE_U8, 4, (const uint8_t *)"abcd", 4);
    CHECK_STATUS(decode_copy(bad, n, 4, (const uint8_t *)"abcd", 4), OC_OK);

    /* 2. <u4, 256 elements, two blocks, and a trailing byte 0x5A (n = 1025):
     *    kinds 02 03 (DELTA, PLANES)
     *    block 0 DELTA k 0, first 100, dmin 3:          00 64 00 00 00 03 00 00 00   x = 100 + 3e
     *    block 1 PLANES mask 0x80000008, bits 0x3F800000: 08 00 00 80 00 00 80 3F
     *            x = 0x3F800000 | (e % 4 bit 0 -> bit 3) | (e % 4 bit 1 -> bit 31)
     *    payload: block 1's 128 values e % 4 in 2 bits -> E4 x 32
     *    2 + 17 + 32 = 51 bytes */
    static const uint8_t head2[] = {0x02, 0x03, 0x00, 0x64, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00,
                                    0x00, 0x08, 0x00, 0x00, 0x80, 0x00, 0x00, 0x80, 0x3F};
    memcpy(tile, head2, sizeof head2);
    t = sizeof head2;
    memset(tile + t, 0xE4, 32);
    t += 32;
    n = chunk1(buf, OC_TYPE_U32, 1025, tile, t);
    buf[n++] = 0x5A;
    uint8_t want2[1025];
    for (uint32_t e = 0; e < 256; e++) {
        uint32_t v = e % 4;
        uint32_t x = e < 128 ? 100u + 3u * e : 0x3F800000u | ((v & 1u) << 3) | ((v >> 1) << 31);
        le(want2 + 4 * e, x, 4);
    }
    want2[1024] = 0x5A;
    CHECK_STATUS(decode_copy(buf, n, 1025, want2, 1025), OC_OK);
    for (size_t k = 0; k < n; k++)
        CHECK_MSG(decode_copy(buf, k, 1025, NULL, 0) == OC_ERR_TRUNCATED, "prefix %zu of %zu", k, n);
    memcpy(bad, buf, n);
    bad[12 + 2 + 9 + 7] = 0x3F | 0x80; /* bits overlapping the mask */
    CHECK_STATUS(decode_copy(bad, n, 1025, NULL, 0), OC_ERR_CORRUPT);
    memcpy(bad, buf, n);
    bad[12 + 2] = 33; /* DELTA k 33 > 32 bits */
    CHECK_STATUS(decode_copy(bad, n, 1025, NULL, 0), OC_ERR_CORRUPT);

    /* 3. version 2's TILE_FOR: <u2, 300 elements, x = 1000 + e % 8:
     *    08 03 E8 03 (kind byte 8, k 3, base 1000), then the 300 values e % 8
     *    in 3 bits each, least significant bit first (113 bytes): 117 bytes */
    memset(tile, 0, sizeof tile);
    tile[0] = 0x08, tile[1] = 0x03, tile[2] = 0xE8, tile[3] = 0x03;
    for (uint32_t e = 0; e < 300; e++)
        for (uint32_t i = 0; i < 3; i++)
            if (((e % 8) >> i) & 1u)
                tile[4 + (3 * e + i) / 8] |= (uint8_t)(1u << ((3 * e + i) % 8));
    t = 4 + 113;
    n = chunk1v(buf, 2, OC_TYPE_U16, 600, tile, t);
    uint8_t want3[600];
    for (uint32_t e = 0; e < 300; e++)
        le(want3 + 2 * e, 1000u + e % 8u, 2);
    CHECK_STATUS(decode_copy(buf, n, 600, want3, 600), OC_OK);
    for (size_t k = 0; k < n; k++)
        CHECK_MSG(decode_copy(buf, k, 600, NULL, 0) == OC_ERR_TRUNCATED, "prefix %zu of %zu", k, n);
    CHECK_STATUS(decode_copy(buf, n, 599, NULL, 0), OC_ERR_OUTPUT_TOO_SMALL);
    memcpy(bad, buf, n);
    bad[1] = 1; /* kind byte 8 in a version 1 chunk */
    CHECK_STATUS(decode_copy(bad, n, 600, NULL, 0), OC_ERR_CORRUPT);
    memcpy(bad, buf, n);
    bad[12 + 1] = 17; /* k 17 > 16 bits */
    CHECK_STATUS(decode_copy(bad, n, 600, NULL, 0), OC_ERR_CORRUPT);
    memcpy(bad, buf, n);
    bad[12 + 1] = 2; /* k 2: a payload of the wrong length */
    CHECK_STATUS(decode_copy(bad, n, 600, NULL, 0), OC_ERR_CORRUPT);
    memcpy(bad, buf, n);
    le(bad + 8, t - 1, 4); /* the tile a byte short */
    CHECK_STATUS(decode_copy(bad, n - 1, 600, NULL, 0), OC_ERR_CORRUPT);
    /* kind byte 8 after the first block's: CORRUPT (version 1's tile 1, version 2) */
    memcpy(tile, head1, sizeof head1);
    memset(tile + sizeof head1, 0xE4, 32);
    tile[1] = 0x08;
    n = chunk1v(bad, 2, OC_TYPE_U16, 600, tile, 51);
    CHECK_STATUS(decode_copy(bad, n, 600, NULL, 0), OC_ERR_CORRUPT);
    /* version 1's tile 1 in a version 2 chunk decodes the same */
    tile[1] = 0x05;
    n = chunk1v(bad, 2, OC_TYPE_U16, 600, tile, 51);
    CHECK_STATUS(decode_copy(bad, n, 600, want1, 600), OC_OK);

    /* 4. version 2's PDELTA: <u4, 128 elements, x = 10 + e + 300 (e >= 50) + 5 (e >= 100):
     *    kind 09; k 0, nx 2, kx 9, first 10, dmin 1:  00 02 09 0A 00 00 00 01 00 00 00
     *    payload: 127 values of 0 bits, then the exceptions (7-bit position, 9-bit high part):
     *    50 | 300 << 7 = 0x9632 -> 32 96; 100 | 5 << 7 = 0x02E4 -> E4 02.  16 bytes */
    static const uint8_t pd4[] = {0x09, 0x00, 0x02, 0x09, 0x0A, 0x00, 0x00, 0x00,
                                  0x01, 0x00, 0x00, 0x00, 0x32, 0x96, 0xE4, 0x02};
    n = chunk1v(buf, 2, OC_TYPE_U32, 512, pd4, sizeof pd4);
    uint8_t want4[512];
    for (uint32_t e = 0; e < 128; e++)
        le(want4 + 4 * e, 10u + e + (e >= 50 ? 300u : 0u) + (e >= 100 ? 5u : 0u), 4);
    CHECK_STATUS(decode_copy(buf, n, 512, want4, 512), OC_OK);
    for (size_t k = 0; k < n; k++)
        CHECK_MSG(decode_copy(buf, k, 512, NULL, 0) == OC_ERR_TRUNCATED, "prefix %zu of %zu", k, n);
    static const struct {
        size_t at;
        uint8_t v;
        const char *what;
    } bad4[] = {{1, 1, "PDELTA in a version 1 chunk"},
                {12 + 1, 33, "k 33 > 32 bits"},
                {12 + 3, 24, "k 0 + kx 24: a payload of the wrong length"},
                {12 + 1, 24, "k 24 + kx 9 > 32 bits"},
                {12 + 2, 33, "nx 33 > 32"},
                {12 + 2, 3, "nx 3: a payload of the wrong length"}};
    for (size_t i = 0; i < sizeof bad4 / sizeof bad4[0]; i++) {
        memcpy(bad, buf, n);
        bad[bad4[i].at] = bad4[i].v;
        CHECK_MSG(decode_copy(bad, n, 512, NULL, 0) == OC_ERR_CORRUPT, "%s: not CORRUPT", bad4[i].what);
    }

    /* 5. version 2's PFLT: bf16, 128 elements, base 0x7F00 (of the rotated values):
     *    kind 0A; k 2, nx 1, kx 2, base 0x7F00:  02 01 02 00 7F
     *    payload: the 128 values e % 4 in 2 bits (E4 x 32), then the exception at 7 with
     *    high part 3: 7 | 3 << 7 = 0x187 (9 bits) -> 87 01.  40 bytes
     *    r = e % 4 (e = 7: 3 | 3 << 2 = 15), y = 0x7F00 - r, x = y >> 1 | (y & 1) << 15 */
    memset(tile, 0, sizeof tile);
    static const uint8_t pf5[] = {0x0A, 0x02, 0x01, 0x02, 0x00, 0x7F};
    memcpy(tile, pf5, sizeof pf5);
    memset(tile + 6, 0xE4, 32);
    tile[38] = 0x87, tile[39] = 0x01;
    n = chunk1v(buf, 2, OC_TYPE_BF16, 256, tile, 40);
    uint8_t want5[256];
    for (uint32_t e = 0; e < 128; e++) {
        uint32_t r = e % 4 | (e == 7 ? 12u : 0u), y = (0x7F00u - r) & 0xFFFFu;
        le(want5 + 2 * e, (y >> 1) | ((y & 1u) << 15), 2);
    }
    CHECK_STATUS(decode_copy(buf, n, 256, want5, 256), OC_OK);
    memcpy(bad, buf, n);
    bad[12 + 3] = 15; /* k 2 + kx 15 > 16 bits */
    CHECK_STATUS(decode_copy(bad, n, 256, NULL, 0), OC_ERR_CORRUPT);
    memcpy(bad, buf, n);
    bad[12] = 11; /* kind 11 */
    CHECK_STATUS(decode_copy(bad, n, 256, NULL, 0), OC_ERR_CORRUPT);
}

static void flips(void)
{
    size_t n = 65536 + 13;
    for (int kind = 0; kind < 5; kind++) {
        uint8_t *d = generated(kind, n);
        size_t cap = oc_compress_bound(OC_ALGO_BITCOMP, n);
        uint8_t *c = tu_xmalloc(cap);
        oc_status st = OC_OK;
        oc_data_type type = kind == 0 || kind == 2 ? OC_TYPE_I64 : kind == 4 ? OC_TYPE_F32 : OC_TYPE_I32;
        size_t cn = compress1(d, n, type, 0, c, cap, &st);
        CHECK_OK(st);
        for (size_t k = 0; k < cn; k += 1 + cn / 500) {
            uint8_t keep = c[k];
            c[k] ^= (uint8_t)(0x81u >> (k % 8));
            (void)decode_copy(c, cn, n, NULL, 0);
            (void)decode_copy(c, cn, k % 97, NULL, 0);
            c[k] = keep;
        }
        CHECK_STATUS(decode_copy(c, cn, n, d, n), OC_OK);
        free(c);
        free(d);
    }
}

static void container(void)
{
    size_t n = 300000;
    uint8_t *d = generated(0, n);
    oc_buffer_options o = OC_BUFFER_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BITCOMP;
    o.typed.data_type = OC_TYPE_I64;
    o.chunk_size = 65536;
    size_t cap = oc_buffer_compress_bound(&o, n);
    uint8_t *c = tu_xmalloc(cap), *out = tu_xmalloc(n);
    uint64_t cn = 0, got = 0, failed = 0;
    CHECK_OK(oc_buffer_compress(g_ctx, &o, d, n, c, cap, &cn));
    CHECK(cn < n / 8);
    CHECK_OK(oc_buffer_decompress(g_ctx, NULL, c, cn, out, n, &got, &failed));
    CHECK(got == n && !memcmp(out, d, n));
    o.typed.algorithm_type = 1;
    CHECK_OK(oc_buffer_compress(g_ctx, &o, d, n, c, cap, &cn));
    CHECK_OK(oc_buffer_decompress(g_ctx, NULL, c, cn, out, n, &got, &failed));
    CHECK(got == n && !memcmp(out, d, n));
    o.typed.algorithm_type = 2;
    CHECK_STATUS(oc_buffer_compress(g_ctx, &o, d, n, c, cap, &cn), OC_ERR_INVALID_ARGUMENT);
    o.typed.algorithm_type = 0;
    o.chunk_size = 65532; /* not whole i64 elements */
    CHECK_STATUS(oc_buffer_compress(g_ctx, &o, d, n, c, cap, &cn), OC_ERR_INVALID_ARGUMENT);
    free(c);
    free(out);
    free(d);
}

int main(void)
{
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.num_threads = 2;
    CHECK_OK(oc_context_create(&co, &g_ctx));
    hand_built();
    spec_encoder();
    flips();
    container();
    real_data();
    pinned_sizes();
    oc_context_destroy(g_ctx);
    printf("test_codec_bitcomp: ok\n");
    return 0;
}
