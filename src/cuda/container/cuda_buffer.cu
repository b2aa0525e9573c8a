/*
 * cuda_buffer.cu - oc_buffer_compress of a NATIVE container on device
 * buffers, on the GPU: the payload never goes through host memory.  The
 * API layer (src/api/buffer.c) chooses this path (device output, chunks
 * with a GPU compressor), compresses RAW and WITH_UNCOMPRESSED_SIZE itself
 * and stages the rest.
 *
 * NATIVE: a kernel builds the chunk pointer arrays in device memory; ONE
 * batched compression writes every chunk into device scratch; one block
 * computes the container length of every chunk (src/format/layout.h) and
 * their prefix sum, the first failed chunk and the total; one thread per
 * chunk computes its checksum (XXH32 / CRC-32C / XXH64 / CRC-32); one block
 * the LZ4 content checksum; a block per chunk writes its prefix, payload,
 * suffix and index entry into dst; one thread writes the header and the
 * trailer.  Nothing is written when the container does not fit in
 * dst_capacity (OUTPUT_TOO_SMALL).  The host synchronises once, at the end,
 * for *dst_size.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_buffer.h"
#include "../../common/algo_table.h"
#include "../../common/crc.h"
#include "../../common/xxh.h"

extern "C" {
#include "../../format/container.h"
}

/* ---- shared helpers ----------------------------------------------------- */

oc_status oc_cuda_buffer_err(cudaError_t e)
{
    if (e == cudaSuccess)
        return OC_OK;
    (void)cudaGetLastError();
    return OC_ERR_CUDA;
}

#define OC_XXH_TILE 16384

static __global__ void __launch_bounds__(256) oc_k_xxh32_whole(const uint8_t *p, uint64_t len, uint32_t *out)
{
    __shared__ uint8_t tile[OC_XXH_TILE];
    __shared__ uint32_t v[4];
    unsigned t = threadIdx.x;
    uint64_t body = len / 16 * 16;
    if (t < 4)
        v[t] = oc_xxh32_lane_init(t, 0);
    for (uint64_t base = 0; base < body; base += OC_XXH_TILE) {
        unsigned m = (unsigned)(body - base < OC_XXH_TILE ? body - base : OC_XXH_TILE);
        __syncthreads();
        for (unsigned j = t; j < m; j += blockDim.x)
            tile[j] = p[base + j];
        __syncthreads();
        if (t < 4) {
            uint32_t acc = v[t];
            for (unsigned s = 0; s < m / 16; s++)
                acc = oc_xxh32_round(acc, oc_load_le32(tile + 16 * s + 4 * t));
            v[t] = acc;
        }
    }
    __syncthreads();
    if (t == 0) {
        uint32_t lanes[4] = {v[0], v[1], v[2], v[3]};
        *out = oc_xxh32_finish(lanes, p + body, len, 0);
    }
}

cudaError_t oc_cuda_xxh32_whole_launch(const uint8_t *p, uint64_t len, uint32_t *out, cudaStream_t stream)
{
    oc_k_xxh32_whole<<<1, 256, 0, stream>>>(p, len, out);
    return cudaGetLastError();
}

/* ---- NATIVE compression kernels ---------------------------------------- */

/* Result of one compression, read back by the single synchronisation. */
struct oc_cres {
    uint64_t total;    /* container bytes */
    uint64_t body_end; /* header + all chunks: where the trailer starts */
    uint32_t content;  /* LZ4 content checksum */
    int32_t status;
};

struct oc_cargs {
    uint32_t layout; /* the container's OC_LAYOUT_* */
    int check;       /* oc_chunk_check: what the per-chunk checksum covers */
    int checksums;
    uint64_t n;
    const uint8_t **sp;
    size_t *ss;
    uint8_t **dp;
    size_t *dc;
    size_t *ds;
    int32_t *st;
    uint32_t *sum; /* NULL when no checksum is stored */
    uint64_t *off;
    oc_cres *res;
};

static __global__ void oc_k_setup(oc_cargs a, const uint8_t *src, uint64_t src_size, uint64_t cs,
                                  uint8_t *scratch, uint64_t bound)
{
    OC_GRID_STRIDE(i, a.n)
    {
        uint64_t off = i * cs;
        a.sp[i] = src + off;
        a.ss[i] = (size_t)(src_size - off < cs ? src_size - off : cs);
        a.dp[i] = scratch + i * bound;
        a.dc[i] = (size_t)bound;
        a.ds[i] = 0;
        a.st[i] = OC_ERR_INTERNAL;
    }
}

static __device__ uint64_t oc_chunk_len(const oc_cargs &a, uint64_t i)
{
    if (a.st[i] != OC_OK)
        return 0;
    oc_chunk_layout l;
    oc_layout_chunk(a.layout, a.checksums, (uint32_t)a.ss[i], (uint32_t)a.ds[i], 0, &l);
    return (uint64_t)l.prefix_len + l.payload + l.suffix_len;
}

/* One block of 1024 threads: chunk offsets, total, first failed chunk. */
static __global__ void __launch_bounds__(1024)
    oc_k_scan(oc_cargs a, uint64_t header, uint64_t trailer, uint64_t cap)
{
    __shared__ uint64_t part[1024];
    __shared__ uint64_t bad[1024];
    unsigned t = threadIdx.x;
    uint64_t per = (a.n + 1023) / 1024;
    uint64_t lo = t * per < a.n ? t * per : a.n, hi = lo + per < a.n ? lo + per : a.n;
    uint64_t sum = 0, first_bad = ~(uint64_t)0;
    for (uint64_t i = lo; i < hi; i++) {
        if (a.st[i] != OC_OK && first_bad == ~(uint64_t)0)
            first_bad = i;
        sum += oc_chunk_len(a, i);
    }
    part[t] = sum;
    bad[t] = first_bad;
    __syncthreads();
    if (t == 0) {
        uint64_t run = 0, fb = ~(uint64_t)0;
        for (unsigned k = 0; k < 1024; k++) {
            uint64_t v = part[k];
            part[k] = run;
            run += v;
            if (bad[k] < fb)
                fb = bad[k];
        }
        oc_cres *r = a.res;
        r->body_end = header + run;
        r->total = header + run + trailer;
        r->content = 0;
        if (fb != ~(uint64_t)0) {
            int32_t s = a.st[fb];
            /* A capacity of the compress bound always suffices. */
            r->status = s == OC_ERR_OUTPUT_TOO_SMALL ? OC_ERR_INTERNAL : s;
        } else {
            r->status = r->total > cap ? OC_ERR_OUTPUT_TOO_SMALL : OC_OK;
        }
    }
    __syncthreads();
    uint64_t base = header + part[t];
    for (uint64_t i = lo; i < hi; i++) {
        a.off[i] = base;
        base += oc_chunk_len(a, i);
    }
}

/* One thread per chunk: the checksum its container stores. */
static __global__ void oc_k_sums(oc_cargs a)
{
    __shared__ uint32_t table[256];
    uint32_t poly = a.check == OC_CHECK_CRC32C_MASKED ? OC_CRC32C_POLY : OC_CRC32_POLY;
    for (unsigned k = threadIdx.x; k < 256; k += blockDim.x)
        table[k] = oc_crc_table_entry(poly, k);
    __syncthreads();
    if (a.res->status != OC_OK)
        return;
    OC_GRID_STRIDE(i, a.n)
    {
        const uint8_t *u = a.sp[i];
        uint64_t us = a.ss[i];
        uint32_t s;
        if (a.check == OC_CHECK_XXH32_STORED) /* of the bytes stored */
            s = a.ds[i] >= us ? oc_xxh32(u, us, 0) : oc_xxh32(a.dp[i], a.ds[i], 0);
        else if (a.check == OC_CHECK_CRC32C_MASKED)
            s = oc_crc32c_mask(oc_crc_update(table, 0, u, us));
        else if (a.check == OC_CHECK_XXH64_LOW)
            s = (uint32_t)oc_xxh64(u, us, 0);
        else if (a.check == OC_CHECK_XXH32_CONTENT)
            s = oc_xxh32(u, us, 0);
        else
            s = oc_crc_update(table, 0, u, us);
        a.sum[i] = s;
    }
}

/* A block per chunk: prefix, payload, suffix, index entry. */
static __global__ void __launch_bounds__(256)
    oc_k_write(oc_cargs a, uint8_t *dst, uint32_t trailer_head, uint32_t entry_size)
{
    if (a.res->status != OC_OK)
        return;
    uint64_t entries = a.res->body_end + trailer_head;
    for (uint64_t i = blockIdx.x; i < a.n; i += gridDim.x) {
        oc_chunk_layout l;
        oc_layout_chunk(a.layout, a.checksums, (uint32_t)a.ss[i], (uint32_t)a.ds[i], a.sum ? a.sum[i] : 0u,
                        &l);
        uint8_t *o = dst + a.off[i];
        const uint8_t *pl = l.stored ? a.sp[i] : a.dp[i];
        unsigned t = threadIdx.x;
        if (t < l.prefix_len)
            o[t] = l.prefix[t];
        for (uint64_t j = t; j < l.payload; j += blockDim.x)
            o[l.prefix_len + j] = pl[j];
        if (t < l.suffix_len)
            o[l.prefix_len + l.payload + t] = l.suffix[t];
        if (t < entry_size) {
            uint8_t e[12];
            oc_layout_entry(a.layout, a.checksums, l.entry_csize, l.entry_usize, l.entry_checksum, e);
            dst[entries + i * entry_size + t] = e[t];
        }
    }
}

struct oc_header_bytes {
    uint8_t b[16];
    uint32_t len;
};

/* One thread: the container header and the trailer's head and footer. */
static __global__ void oc_k_trailer(oc_cargs a, uint8_t *dst, oc_header_bytes h, int trailer,
                                    uint32_t entry_size)
{
    const oc_cres *r = a.res;
    if (r->status != OC_OK)
        return;
    for (uint32_t k = 0; k < h.len; k++)
        dst[k] = h.b[k];
    if (!trailer)
        return;
    uint8_t b[16];
    uint32_t al = a.layout;
    uint32_t hl = oc_layout_trailer_head(al, a.checksums, a.n, r->content, b);
    for (uint32_t k = 0; k < hl; k++)
        dst[r->body_end + k] = b[k];
    uint64_t foot = r->body_end + hl + a.n * entry_size;
    uint32_t fl = oc_layout_trailer_foot(al, a.checksums, a.n, b);
    for (uint32_t k = 0; k < fl; k++)
        dst[foot + k] = b[k];
}

/* ---- host side ---------------------------------------------------------- */

static oc_status oc_compress_native_gpu(oc_context *ctx, const oc_buffer_options *o, const uint8_t *src,
                                        uint64_t src_size, uint8_t *dst, uint64_t dst_capacity,
                                        uint64_t *dst_size)
{
    oc_native nt; /* the container, as the host writer resolves it (src/format/container.h) */
    FORWARD_IF_ERROR(oc_native_resolve(o, src_size, &nt));
    size_t cs = nt.chunk_size;
    uint64_t n = nt.n;
    uint32_t a = nt.ops->layout;
    oc_algorithm ca = nt.chunk_algorithm;
    int checksums = nt.checksums;
    size_t bound = oc_compress_bound(ca, cs);
    if (bound == 0)
        return OC_ERR_CHUNK_TOO_LARGE;
    uint32_t esize = oc_layout_entry_size(a, checksums);
    if (esize && n * esize + OC_LAYOUT_INDEX_FOOTER > 0xffffffffu)
        return OC_ERR_INVALID_ARGUMENT;
    uint64_t trailer = oc_layout_trailer_size(a, checksums, n);
    uint8_t tb[16];
    uint32_t trailer_head = oc_layout_trailer_head(a, checksums, n, 0, tb);
    int has_trailer = trailer != 0;
    if (!has_trailer)
        esize = 0;

    oc_header_bytes h;
    memset(&h, 0, sizeof h);
    oc_writer w = {h.b, sizeof h.b, 0};
    FORWARD_IF_ERROR(oc_container_write_header(&w, &nt, src_size));
    h.len = (uint32_t)w.pos;

    int need_sums = nt.sums;
    uint64_t words = n ? n : 1;
    size_t arrays = (size_t)(words * (8 * 6 + 4 + 4) + 256);
    if (bound > (SIZE_MAX / 4) / words)
        return OC_ERR_INVALID_ARGUMENT;
    size_t total = arrays + (size_t)(words * bound);
    uint8_t *mem = (uint8_t *)oc_cuda_dev_alloc(ctx, total);
    if (mem == NULL)
        return OC_ERR_OUT_OF_MEMORY;
    cudaStream_t stream = (cudaStream_t)ctx->opts.cuda_stream;
    oc_cargs g;
    g.layout = a;
    g.check = nt.ops->check;
    g.checksums = checksums;
    g.n = n;
    g.res = (oc_cres *)mem;
    g.sp = (const uint8_t **)(mem + 256);
    g.ss = (size_t *)(g.sp + words);
    g.dp = (uint8_t **)(g.ss + words);
    g.dc = (size_t *)(g.dp + words);
    g.ds = (size_t *)(g.dc + words);
    g.off = (uint64_t *)(g.ds + words);
    g.st = (int32_t *)(g.off + words);
    g.sum = need_sums ? (uint32_t *)(g.st + words) : NULL;
    uint8_t *scratch = mem + arrays;
    oc_cres hr;
    memset(&hr, 0, sizeof hr);
    oc_status st = OC_OK;
    if (n) {
        oc_k_setup<<<oc_buffer_grid(n, 256), 256, 0, stream>>>(g, src, src_size, cs, scratch, bound);
        st = oc_cuda_buffer_err(cudaGetLastError());
        oc_codec_options co = OC_CODEC_OPTIONS_INIT;
        co.algorithm = ca;
        co.level = o->level;
        co.typed = o->typed;
        if (st == OC_OK)
            st = oc_cuda_batch_compress(ctx, &co, (size_t)n, (const void *const *)g.sp, g.ss,
                                        (void *const *)g.dp, g.dc, g.ds, (oc_status *)g.st);
    }
    if (st != OC_OK)
        goto done;
    oc_k_scan<<<1, 1024, 0, stream>>>(g, h.len, trailer, dst_capacity);
    if (n && need_sums)
        oc_k_sums<<<oc_buffer_grid(n, 128), 128, 0, stream>>>(g);
    if (nt.ops->content_checksum && checksums)
        oc_k_xxh32_whole<<<1, 256, 0, stream>>>(src, src_size, &g.res->content);
    if (n)
        oc_k_write<<<oc_buffer_grid(n, 1), 256, 0, stream>>>(g, dst, trailer_head, esize);
    oc_k_trailer<<<1, 1, 0, stream>>>(g, dst, h, has_trailer, esize);
    st = oc_cuda_buffer_err(cudaGetLastError());
    if (st == OC_OK)
        st = oc_cuda_buffer_err(cudaMemcpyAsync(&hr, g.res, sizeof hr, cudaMemcpyDeviceToHost, stream));
    if (st == OC_OK)
        st = oc_cuda_buffer_err(cudaStreamSynchronize(stream));
    if (st == OC_OK)
        st = (oc_status)hr.status;
    if (st == OC_OK)
        *dst_size = hr.total;
done:
    oc_cuda_dev_free(ctx, mem, total);
    return st;
}

extern "C" oc_status oc_cuda_buffer_compress(oc_context *ctx, const oc_buffer_options *options,
                                             const void *src, uint64_t src_size, void *dst,
                                             uint64_t dst_capacity, uint64_t *dst_size)
{
    if (ctx == NULL || dst_size == NULL || options == NULL || options->kind != OC_BITSTREAM_NATIVE)
        return OC_ERR_INVALID_ARGUMENT;
    if (!oc_cuda_available())
        return OC_ERR_NO_DEVICE;
    if (src_size > SIZE_MAX / 2)
        return OC_ERR_INVALID_ARGUMENT;
    *dst_size = 0;
    int prev = -1;
    FORWARD_IF_ERROR(oc_cuda_enter(ctx, &prev));
    oc_status st = oc_compress_native_gpu(ctx, options, (const uint8_t *)src, src_size, (uint8_t *)dst,
                                          dst_capacity, dst_size);
    if (st != OC_OK)
        *dst_size = 0;
    oc_cuda_leave(ctx, prev);
    return st;
}
