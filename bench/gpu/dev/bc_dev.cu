/*
 * bc_dev.cu - why this exists: Bitcomp-class compression on the GPU runs at
 * 0.06-0.25x nVCOMP and its encoder is issue-bound (ncu: 4.1
 * warp-instructions a byte on orderkey.i64, 2 CTAs an SM at 115
 * registers).  This harness times the library's Bitcomp kernels
 * (src/cuda/codecs/bitcomp/bitcomp_kernels.cu, included whole, its codec
 * table renamed) on 1 GiB of 64 KiB chunks of one file (--mib M: M MiB)
 * through the batch driver: the encoder as the library builds it (3 CTAs
 * an SM since session 7: __launch_bounds__(256, 3), 80 registers, ptxas
 * spills ~64 bytes) and the same encoder compiled without the bound (2
 * CTAs an SM at 96 registers), staged-in (session 9: the tile copied
 * into shared memory by 16-byte loads before the core's passes, bc_ws_in)
 * and staged-in-32 (staged-in with the block statistics of 1-4 byte
 * elements in 32-bit arithmetic, bc_enc_choose32) - all must write the
 * same bytes - then the library's decoder, every
 * output checked.  --no-2ctas: skip the unbounded encoder; --reps 0: one
 * call of each (for ncu).
 *
 *   bc_dev [--dtype i64|i32|f64|f32|bf16] [--algo 0|1] [--reps N] [--mib M] [--no-2ctas] FILE
 *
 * --dtype defaults from the extension (.i64 .i32 .f64 .f32; bf16 files are
 * the high halves of f32 weights, made by the caller).  Exit status 0 only
 * if every check passed.  bench/gpu/owncodecs/NOTES.md has the numbers.
 */
#define oc_gpu_codec_bitcomp oc_gpu_codec_bitcomp_dev_copy
#include "cuda/codecs/bitcomp/bitcomp_kernels.cu"
#undef oc_gpu_codec_bitcomp

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

/* The library's encoder without the bound of 3 CTAs an SM. */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_encode2(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws *ws = (bc_ws *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         return bc_compress_chunk(ws, p, len, dtype, algo, d, cap, out, BCK_WARPS);
                     });
}

/* The staged-input encoder (session 9's prediction in bench/gpu/owncodecs/
 * NOTES.md): the tile is copied into shared memory first, by 16-byte loads
 * a thread issues together (one DRAM round trip for the tile instead of one
 * per 32 elements a warp, in bc_enc_choose's first pass), then the library's
 * core runs on the copy: the same function on the same values, so the same
 * bytes.  The workspace grows by the largest tile (32 KiB): ~68 KiB, still
 * 3 CTAs an SM on the H100/H200 (228 KiB). */
typedef struct bc_ws_in {
    bc_ws ws;
    uint4 in[BC_TILE_MAX_BYTES / 16u];
} bc_ws_in;

/* bytes of src into in (every thread of the CTA; then a barrier). */
static __device__ __forceinline__ void bc_in_stage(uint4 *in, const uint8_t *src, uint32_t bytes)
{
    uint32_t t = threadIdx.x, nt = BCK_THREADS, done = 0;
    if (((uintptr_t)src & 15u) == 0) {
        const uint4 *s = (const uint4 *)src;
        uint32_t n16 = bytes / 16u;
        for (uint32_t k0 = 0; k0 < n16; k0 += 8u * nt) {
            uint4 r[8];
#pragma unroll
            for (uint32_t u = 0; u < 8; u++) {
                uint32_t k = k0 + u * nt + t;
                if (k < n16)
                    r[u] = __ldg(s + k);
            }
#pragma unroll
            for (uint32_t u = 0; u < 8; u++) {
                uint32_t k = k0 + u * nt + t;
                if (k < n16)
                    in[k] = r[u];
            }
        }
        done = n16 * 16u;
    }
    for (uint32_t k = done + t; k < bytes; k += nt)
        ((uint8_t *)in)[k] = src[k];
    __syncthreads();
}

static __device__ uint32_t bc_tile_encode_in(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                             uint32_t dtype, uint32_t nw)
{
    bc_ws_in *W = (bc_ws_in *)ws;
    bc_in_stage(W->in, tile, cnt * own_type_width(dtype));
    return bc_encode_tile(&W->ws, (const uint8_t *)W->in, cnt, dtype, *(const uint32_t *)opts, nw);
}

static __device__ oc_status bc_compress_chunk_in(bc_ws_in *ws, const uint8_t *src, uint64_t n, uint32_t dtype,
                                                 uint32_t algo, uint8_t *dst, uint64_t cap, uint64_t *out,
                                                 uint32_t nw)
{
    *out = 0;
    if (own_type_width(dtype) == 0 || algo > 1)
        return OC_ERR_INVALID_ARGUMENT;
    return own_tiled_compress(ws, &algo, src, n, OWN_ID_BITCOMP, dtype, algo, BC_TILE, dst, cap, out, nw,
                              bc_tile_encode_in, bc_tile_put, bc_bytes_copy);
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_in(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                   const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws_in *ws = (bc_ws_in *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         return bc_compress_chunk_in(ws, p, len, dtype, algo, d, cap, out, BCK_WARPS);
                     });
}

/* staged-in-32: staged-in with bc_enc_choose's statistics in 32-bit
 * arithmetic for elements of W <= 4 bytes (the core keeps 64-bit minima,
 * maxima, and/or and their 64-bit warp reductions - two dependent
 * redux.sync each - for every width), and each element's predecessor
 * taken from the lane before (a shuffle) instead of a second load, the
 * ballot from the value loaded.  The same statistics, widened to the
 * core's 64-bit ones before the choice, so the same bytes.  8-byte
 * elements take the core's bc_enc_choose. */
template <uint32_t W> static __device__ __forceinline__ uint32_t bc_ld32(const uint8_t *p, uint32_t e)
{
    if (W == 4)
        return ((const uint32_t *)p)[e];
    if (W == 2)
        return ((const uint16_t *)p)[e];
    return p[e];
}

template <uint32_t W> static __device__ __forceinline__ int32_t bc_sext32(uint32_t v)
{
    return W == 4 ? (int32_t)v : (int32_t)(v << (32u - 8u * W)) >> (32u - 8u * W);
}

typedef struct bc_stats32 {
    uint32_t umin, umax, and_, or_;
    int32_t smin, smax;
} bc_stats32;

static __device__ __forceinline__ void bc_s32_init(bc_stats32 *st)
{
    st->umin = 0xffffffffu, st->umax = 0, st->and_ = 0xffffffffu, st->or_ = 0;
    st->smin = INT32_MAX, st->smax = INT32_MIN;
}

template <uint32_t W> static __device__ __forceinline__ void bc_s32_add(bc_stats32 *st, uint32_t v)
{
    int32_t sv = bc_sext32<W>(v);
    st->umin = min(st->umin, v), st->umax = max(st->umax, v);
    st->smin = min(st->smin, sv), st->smax = max(st->smax, sv);
    st->and_ &= v, st->or_ |= v;
}

/* Reduced over the warp and widened to the core's statistics. */
static __device__ __forceinline__ bc_stats bc_s32_reduce(bc_stats32 st)
{
    bc_stats r;
    r.umin = __reduce_min_sync(OWN_FULL, st.umin);
    r.umax = __reduce_max_sync(OWN_FULL, st.umax);
    r.smin = (int64_t)__reduce_min_sync(OWN_FULL, (int)st.smin);
    r.smax = (int64_t)__reduce_max_sync(OWN_FULL, (int)st.smax);
    r.and_ = __reduce_and_sync(OWN_FULL, st.and_);
    r.or_ = __reduce_or_sync(OWN_FULL, st.or_);
    return r;
}

template <uint32_t W>
static __device__ void bc_enc_choose32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    const uint32_t w = W, bits = 8u * W;
    const uint64_t m = own_mask64(bits);
    const uint32_t m32 = (uint32_t)m;
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        bc_block *bl = &ws->blk[b];
        uint32_t cnt = bc_block_count(ws->cnt, b);
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * w;
        bc_stats32 a, d, z;
        bc_s32_init(&a);
        bc_s32_init(&d);
        bc_s32_init(&z);
        uint32_t nnz = 0, bm[4] = {0, 0, 0, 0}, carry = 0;
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            uint32_t v = e < cnt ? bc_ld32<W>(p, e) : 0u;
            uint32_t pv = __shfl_up_sync(OWN_FULL, v, 1);
            pv = OWN_LANE() == 0 ? carry : pv;
            carry = __shfl_sync(OWN_FULL, v, 31);
            if (e < cnt) {
                bc_s32_add<W>(&a, v);
                if (e > 0)
                    bc_s32_add<W>(&d, (v - pv) & m32);
                if (v) {
                    bc_s32_add<W>(&z, v);
                    nnz++;
                }
            }
            uint32_t ball = own_ballot(e < cnt && v != 0);
            if (OWN_LANE() == 0)
                bm[base / 32] = ball;
        }
        bc_stats sv = bc_s32_reduce(a), sd = bc_s32_reduce(d), sn = bc_s32_reduce(z);
        nnz = own_warp_sum32(nnz);
        uint64_t fbase = bc_base(sv.umin, sv.umax, sv.smin, sv.smax, m);
        uint64_t dbase = cnt > 1 ? bc_base(sd.umin, sd.umax, sd.smin, sd.smax, m) : 0;
        uint64_t nbase = nnz ? bc_base(sn.umin, sn.umax, sn.smin, sn.smax, m) : 0;
        uint32_t fb = (uint32_t)fbase, db = (uint32_t)dbase, nb = (uint32_t)nbase;
        uint32_t fo32 = 0, fx32 = 0, do32 = 0, dx32 = 0, no32 = 0, nx32 = 0;
        carry = 0;
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            uint32_t v = e < cnt ? bc_ld32<W>(p, e) : 0u;
            uint32_t pv = __shfl_up_sync(OWN_FULL, v, 1);
            pv = OWN_LANE() == 0 ? carry : pv;
            carry = __shfl_sync(OWN_FULL, v, 31);
            if (e < cnt) {
                uint32_t r = (v - fb) & m32;
                fo32 |= r;
                fx32 = max(fx32, r);
                if (e > 0) {
                    uint32_t dd = ((v - pv) - db) & m32;
                    do32 |= dd;
                    dx32 = max(dx32, dd);
                }
                if (v) {
                    uint32_t q = (v - nb) & m32;
                    no32 |= q;
                    nx32 = max(nx32, q);
                }
            }
        }
        uint64_t fo = __reduce_or_sync(OWN_FULL, fo32), dorr = __reduce_or_sync(OWN_FULL, do32),
                 no = __reduce_or_sync(OWN_FULL, no32);
        uint64_t fx = __reduce_max_sync(OWN_FULL, fx32), dx = __reduce_max_sync(OWN_FULL, dx32),
                 nx = __reduce_max_sync(OWN_FULL, nx32);
        /* decimals: the core's code, as it is (f32 only here) */
        int dec = ws->flt != 0 && ws->algo == 0 && sv.umin != sv.umax;
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
                if (own_warp_any(fail))
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
            continue;
        /* the core's choice, as it is */
        uint32_t fs = fo ? bc_ctz64(fo) : 0u, fk = own_bits64(fx >> fs);
        uint32_t ds = dorr ? bc_ctz64(dorr) : 0u, dk = own_bits64(dx >> ds);
        uint32_t ns = no ? bc_ctz64(no) : 0u, nk = own_bits64(nx >> ns);
        uint64_t mask = (sv.and_ ^ sv.or_) & m;
        uint64_t best;
        bl->cnt = cnt;
        if (sv.umin == sv.umax) {
            bl->kind = bl->wire = BC_CONST;
            bl->a = sv.umin;
            best = 8ull * w;
        } else {
            bl->kind = BC_FOR, bl->wire = fs ? BC_FOR_S : BC_FOR, bl->k = fk, bl->s = fs, bl->a = fbase;
            best = 8ull * bc_header_size(bl->wire, w, cnt) + (uint64_t)cnt * fk;
            if (ws->algo == 0 && cnt > 1) {
                uint32_t dw = ds ? BC_DELTA_S : BC_DELTA;
                uint64_t c = 8ull * bc_header_size(dw, w, cnt) + (uint64_t)(cnt - 1) * dk;
                if (c < best) {
                    best = c;
                    bl->kind = BC_DELTA, bl->wire = dw, bl->k = dk, bl->s = ds, bl->a = bc_load(p, w),
                    bl->b = dbase;
                }
            }
            if (ws->algo == 0) {
                uint64_t c = 8ull * bc_header_size(BC_PLANES, w, cnt) + (uint64_t)cnt * bc_popc64(mask);
                if (c < best) {
                    best = c;
                    bl->kind = bl->wire = BC_PLANES, bl->a = mask, bl->b = sv.and_ & m;
                }
            }
            if (dec) {
                uint64_t c = 8ull * bc_header_size(BC_DEC, w, cnt) + (uint64_t)cnt * ek;
                if (c < best) {
                    best = c;
                    bl->kind = bl->wire = BC_DEC, bl->k = ek, bl->s = de, bl->a = (uint64_t)vmin & m;
                }
            }
            if (nnz < cnt) {
                uint64_t c = 8ull * bc_header_size(BC_SPARSE, w, cnt) + (uint64_t)nnz * nk;
                if (c < best) {
                    best = c;
                    bl->kind = bl->wire = BC_SPARSE, bl->k = nk, bl->s = ns, bl->a = nbase, bl->nnz = nnz;
                    for (uint32_t q = 0; q < 4; q++)
                        bl->bitmap[q] = bm[q];
                }
            }
        }
        bl->hsize = bc_header_size(bl->wire, w, cnt);
        bl->pbits = bc_payload_bits(bl);
    }
}

/* The core's bc_encode_tile with bc_enc_choose32 for widths 1, 2 and 4. */
static __device__ uint32_t bc_encode_tile32(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype,
                                            uint32_t algo, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo);
    if (w == 4)
        OWN_RUN(nw, bc_enc_choose32<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bc_enc_choose32<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bc_enc_choose32<1>, ws, src);
    else
        OWN_RUN(nw, bc_enc_choose, ws, src);
    OWN_RUN(nw, bc_enc_layout, ws);
    uint32_t size = ws->size;
    if (size >= raw)
        return raw;
    OWN_RUN(nw, bc_enc_zero, ws, (size + 3u) / 4u + 4u);
    OWN_RUN(nw, bc_enc_write, ws, src);
    return size;
}

static __device__ uint32_t bc_tile_encode_in32(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                               uint32_t dtype, uint32_t nw)
{
    bc_ws_in *W = (bc_ws_in *)ws;
    bc_in_stage(W->in, tile, cnt * own_type_width(dtype));
    return bc_encode_tile32(&W->ws, (const uint8_t *)W->in, cnt, dtype, *(const uint32_t *)opts, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_in32(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                     const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype,
                     uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws_in *ws = (bc_ws_in *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         *out = 0;
                         if (own_type_width(dtype) == 0 || algo > 1)
                             return OC_ERR_INVALID_ARGUMENT;
                         uint32_t a = algo;
                         return own_tiled_compress(ws, &a, p, len, OWN_ID_BITCOMP, dtype, algo, BC_TILE, d,
                                                   cap, out, BCK_WARPS, bc_tile_encode_in32, bc_tile_put,
                                                   bc_bytes_copy);
                     });
}

static __global__ void k_count_diff(const uint8_t *a, const uint8_t *b, size_t n, unsigned long long *bad)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long c = 0;
    for (; i < n / 16; i += stride) {
        uint4 x = ((const uint4 *)a)[i], y = ((const uint4 *)b)[i];
        c += (x.x != y.x) + (x.y != y.y) + (x.z != y.z) + (x.w != y.w);
    }
    if (c)
        atomicAdd(bad, c);
}

#define NENC 4 /* the library's encoder, 2-ctas, staged-in, staged-in-32 */

template <typename T> static T *dmalloc(size_t n)
{
    T *p;
    CUDA_OK(cudaMalloc(&p, n * sizeof(T)));
    return p;
}

template <typename T> static T *dcopy(const std::vector<T> &v)
{
    T *p = dmalloc<T>(v.size());
    CUDA_OK(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return p;
}

int main(int argc, char **argv)
{
    const char *file = NULL;
    int reps = 7, mib = 1024, algo = 0, only_in = 0;
    oc_data_type dtype = OC_TYPE_DEFAULT;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--dtype") && a + 1 < argc) {
            a++;
            dtype = !strcmp(argv[a], "i64")   ? OC_TYPE_I64
                    : !strcmp(argv[a], "i32") ? OC_TYPE_I32
                    : !strcmp(argv[a], "f64") ? OC_TYPE_F64
                    : !strcmp(argv[a], "f32") ? OC_TYPE_F32
                                              : OC_TYPE_BF16;
        } else if (!strcmp(argv[a], "--algo") && a + 1 < argc) {
            algo = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--mib") && a + 1 < argc) {
            mib = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--no-2ctas")) {
            only_in = 1;
        } else {
            file = argv[a];
        }
    }
    if (!file) {
        fprintf(stderr, "usage: bc_dev [--dtype i64|i32|f64|f32|bf16] [--algo 0|1] [--reps N] [--mib M] "
                        "[--no-2ctas] FILE\n");
        return 2;
    }
    if (dtype == OC_TYPE_DEFAULT) {
        size_t L = strlen(file);
        const char *x = L > 4 ? file + L - 4 : "";
        dtype = !strcmp(x, ".i64")   ? OC_TYPE_I64
                : !strcmp(x, ".i32") ? OC_TYPE_I32
                : !strcmp(x, ".f64") ? OC_TYPE_F64
                : !strcmp(x, ".f32") ? OC_TYPE_F32
                                     : OC_TYPE_BF16;
    }
    FILE *fp = fopen(file, "rb");
    if (!fp) {
        perror(file);
        return 2;
    }
    const size_t CH = 65536, total = (size_t)(mib > 0 ? mib : 1024) << 20, n = total / CH;
    std::vector<uint8_t> host(64u << 20);
    size_t got = fread(host.data(), 1, host.size(), fp);
    fclose(fp);
    got -= got % CH;
    if (got == 0) {
        fprintf(stderr, "%s: under 64 KiB\n", file);
        return 2;
    }
    uint8_t *fdev = dmalloc<uint8_t>(got), *in = dmalloc<uint8_t>(total), *out = dmalloc<uint8_t>(total);
    CUDA_OK(cudaMemcpy(fdev, host.data(), got, cudaMemcpyHostToDevice));
    for (size_t at = 0; at < total; at += got)
        CUDA_OK(cudaMemcpy(in + at, fdev, std::min(got, total - at), cudaMemcpyDeviceToDevice));
    const size_t CAP = CH + 4096;
    uint8_t *comp[NENC];
    for (int e = 0; e < NENC; e++) {
        comp[e] = dmalloc<uint8_t>(n * CAP);
        CUDA_OK(cudaMemset(comp[e], 0, n * CAP));
    }
    std::vector<const void *> hin(n);
    std::vector<void *> hc[NENC], hout(n);
    std::vector<size_t> hsz(n, CH), hcap(n, CAP), hocap(n, CH);
    for (size_t i = 0; i < n; i++) {
        hin[i] = in + i * CH;
        for (int e = 0; e < NENC; e++) {
            hc[e].resize(n);
            hc[e][i] = comp[e] + i * CAP;
        }
        hout[i] = out + i * CH;
    }
    const void **d_in = dcopy(hin);
    void **d_comp[NENC], **d_out = dcopy(hout);
    size_t *d_sz = dcopy(hsz), *d_cap = dcopy(hcap), *d_ocap = dcopy(hocap), *d_csz[NENC],
           *d_osz = dmalloc<size_t>(n);
    for (int e = 0; e < NENC; e++) {
        d_comp[e] = dcopy(hc[e]);
        d_csz[e] = dmalloc<size_t>(n);
    }
    oc_status *d_st = dmalloc<oc_status>(n);
    oc_gpu_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.typed.data_type = dtype;
    cfg.typed.algorithm_type = algo;
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    float ms = 0;
    own_gpu_kernels k2 = bc_kernels, k3 = bc_kernels, k4 = bc_kernels;
    k2.encode = (const void *)bc_k_encode2;
    k3.encode = (const void *)bc_k_encode_in;
    k3.encode_smem = sizeof(bc_ws_in);
    k4.encode = (const void *)bc_k_encode_in32;
    k4.encode_smem = sizeof(bc_ws_in);
    const own_gpu_kernels *ks[NENC] = {&bc_kernels, &k2, &k3, &k4};
    const char *names[NENC] = {"library", "2-ctas", "staged-in", "staged-in-32"};
    double gbs[NENC] = {0, 0, 0, 0};
    std::vector<size_t> csz[NENC];
    for (int e = 0; e < NENC; e++) {
        if (only_in && e == 1)
            continue;
        int per = 0;
        CUDA_OK(cudaFuncSetAttribute(ks[e]->encode, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)ks[e]->encode_smem));
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, ks[e]->encode, (int)ks[e]->encode_threads,
                                                              ks[e]->encode_smem));
        std::vector<float> t;
        for (int r = 0; r < reps + 1; r++) {
            CUDA_OK(cudaEventRecord(e0));
            if (oc_own_gpu_compress(ks[e], &cfg, n, (const void *const *)d_in, d_sz, d_comp[e], d_cap,
                                    d_csz[e], d_st, 0) != OC_OK) {
                fprintf(stderr, "compress launch failed\n");
                return 2;
            }
            CUDA_OK(cudaEventRecord(e1));
            CUDA_OK(cudaEventSynchronize(e1));
            CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
            if (r || reps == 0) /* --reps 0: one call (ncu) */
                t.push_back(ms);
        }
        std::sort(t.begin(), t.end());
        gbs[e] = total / (t[t.size() / 2] * 1e6);
        std::vector<oc_status> hst(n);
        CUDA_OK(cudaMemcpy(hst.data(), d_st, n * sizeof(oc_status), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++)
            if (hst[i] != OC_OK) {
                fprintf(stderr, "%s: chunk %zu: compress status %d\n", names[e], i, (int)hst[i]);
                return 1;
            }
        csz[e].resize(n);
        CUDA_OK(cudaMemcpy(csz[e].data(), d_csz[e], n * sizeof(size_t), cudaMemcpyDeviceToHost));
        printf("compress %-8s %8.1f GB/s  %.2fx library  (%d CTAs an SM)\n", names[e], gbs[e],
               gbs[e] / gbs[0], per);
    }
    size_t csum = 0;
    bool same = true;
    for (size_t i = 0; i < n; i++)
        csum += csz[0][i];
    unsigned long long bad = 0, *d_bad = dmalloc<unsigned long long>(1);
    for (int e = 1; e < NENC; e++) { /* whole slots: all were zeroed */
        if (only_in && e == 1)
            continue;
        unsigned long long b = 0;
        CUDA_OK(cudaMemset(d_bad, 0, sizeof *d_bad));
        k_count_diff<<<1024, 256>>>(comp[0], comp[e], n * CAP, d_bad);
        CUDA_OK(cudaMemcpy(&b, d_bad, sizeof b, cudaMemcpyDeviceToHost));
        printf("  %s vs library: %s\n", names[e], csz[e] == csz[0] && !b ? "the same bytes" : "DIFFER");
        same = same && csz[e] == csz[0];
        bad += b;
    }
    printf("%s (type %d, algo %d): %zu chunks of 64 KiB, ratio %.3f; the encoders %s\n", file, (int)dtype,
           algo, n, (double)total / (double)csum, same && !bad ? "write the same bytes" : "DIFFER");
    size_t scr_size = oc_own_gpu_decompress_scratch(&cfg, n);
    void *scr;
    CUDA_OK(cudaMalloc(&scr, scr_size));
    std::vector<float> t;
    int fails = !(same && !bad);
    for (int r = 0; r < reps + 1; r++) {
        CUDA_OK(cudaEventRecord(e0));
        oc_own_gpu_decompress(&bc_kernels, scr, scr_size, n, (const void *const *)d_comp[0], d_csz[0], d_out,
                              d_ocap, d_osz, d_st, 0);
        CUDA_OK(cudaEventRecord(e1));
        CUDA_OK(cudaEventSynchronize(e1));
        CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
        if (r || reps == 0)
            t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    CUDA_OK(cudaMemset(d_bad, 0, sizeof *d_bad));
    k_count_diff<<<1024, 256>>>(in, out, total, d_bad);
    CUDA_OK(cudaMemcpy(&bad, d_bad, sizeof bad, cudaMemcpyDeviceToHost));
    std::vector<oc_status> hst(n);
    CUDA_OK(cudaMemcpy(hst.data(), d_st, n * sizeof(oc_status), cudaMemcpyDeviceToHost));
    size_t badst = 0;
    for (size_t i = 0; i < n; i++)
        badst += hst[i] != OC_OK;
    printf("decompress library %8.1f GB/s; %s\n", total / (t[t.size() / 2] * 1e6),
           bad || badst ? "OUTPUT DIFFERS" : "every output checked");
    fails += bad || badst;
    return fails ? 1 : 0;
}
