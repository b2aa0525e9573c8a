/*
 * cuda_buffer.cu - oc_buffer_compress of a NATIVE container on device
 * buffers, on the GPU: the payload never goes through host memory.  The
 * API layer (src/api/buffer.c) chooses this path (device output, chunks
 * with a GPU compressor), compresses RAW and WITH_UNCOMPRESSED_SIZE itself
 * and stages the rest.
 *
 * NATIVE, as the GPU's steps of src/api/buffer.c's compress_native (the
 * loop that drives the host's steps too; the whole input is one group):
 * a kernel builds the chunk pointer arrays in device memory; ONE
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

/* ---- host side: the GPU's steps of NATIVE compression ---------------------- */

/* One compression on the device (oc_cuda_native_begin .. the end step):
 * the arrays of every chunk and the scratch in one device allocation, the
 * result read back by the end step's one synchronisation. */
struct oc_cuda_native {
    oc_context *ctx;
    cudaStream_t stream;
    int prev; /* the caller's device, given back at the end */
    const oc_native *nt;
    oc_codec_options co;
    const uint8_t *src;
    uint64_t src_size;
    uint8_t *dst;
    uint64_t dst_capacity;
    oc_cargs g;
    uint8_t *scratch;
    uint64_t bound;
    uint64_t trailer;
    uint32_t trailer_head, esize;
    int has_trailer;
    oc_header_bytes h;
    int scanned; /* oc_k_scan ran (a group did) */
    uint8_t *mem;
    size_t total;
    oc_cres hr;
};

static oc_status oc_native_end(void *self, oc_native_result *r)
{
    oc_cuda_native *p = (oc_cuda_native *)self;
    oc_status st = OC_OK;
    if (r) {
        st = oc_cuda_buffer_err(
            cudaMemcpyAsync(&p->hr, p->g.res, sizeof p->hr, cudaMemcpyDeviceToHost, p->stream));
        if (st == OC_OK)
            st = oc_cuda_buffer_err(cudaStreamSynchronize(p->stream));
        if (st == OC_OK) {
            r->status = (oc_status)p->hr.status;
            r->total = p->hr.total;
        }
    }
    if (p->mem)
        oc_cuda_dev_free(p->ctx, p->mem, p->total);
    oc_cuda_leave(p->ctx, p->prev);
    free(p);
    return st;
}

/* The layout's sizes, the header's bytes (the host writer's), one device
 * allocation: argument arrays, then a bound of scratch per chunk. */
extern "C" oc_status oc_cuda_native_begin(oc_context *ctx, const oc_buffer_options *o, const oc_native *nt,
                                          const void *src, uint64_t src_size, void *dst,
                                          uint64_t dst_capacity, void **self, size_t *per_group)
{
    *self = NULL;
    *per_group = (size_t)(nt->n ? nt->n : 1); /* one group */
    RETURN_ERROR_IF(!oc_cuda_available(), OC_ERR_NO_DEVICE);
    uint64_t n = nt->n;
    uint32_t a = nt->ops->layout;
    int checksums = nt->checksums;
    size_t bound = oc_compress_bound(nt->chunk_algorithm, nt->chunk_size);
    RETURN_ERROR_IF(bound == 0, OC_ERR_CHUNK_TOO_LARGE);
    uint32_t esize = oc_layout_entry_size(a, checksums);
    RETURN_ERROR_IF(esize && n * esize + OC_LAYOUT_INDEX_FOOTER > 0xffffffffu, OC_ERR_INVALID_ARGUMENT);
    uint64_t words = n ? n : 1;
    RETURN_ERROR_IF(bound > (SIZE_MAX / 4) / words, OC_ERR_INVALID_ARGUMENT);
    oc_cuda_native *p = (oc_cuda_native *)calloc(1, sizeof *p);
    RETURN_ERROR_IF(!p, OC_ERR_OUT_OF_MEMORY);
    p->ctx = ctx;
    p->nt = nt;
    p->src = (const uint8_t *)src;
    p->src_size = src_size;
    p->dst = (uint8_t *)dst;
    p->dst_capacity = dst_capacity;
    p->bound = bound;
    p->trailer = oc_layout_trailer_size(a, checksums, n);
    uint8_t tb[16];
    p->trailer_head = oc_layout_trailer_head(a, checksums, n, 0, tb);
    p->has_trailer = p->trailer != 0;
    p->esize = p->has_trailer ? esize : 0;
    oc_writer w = {p->h.b, sizeof p->h.b, 0};
    oc_status st = oc_container_write_header(&w, nt, src_size);
    p->h.len = (uint32_t)w.pos;
    p->co = (oc_codec_options)OC_CODEC_OPTIONS_INIT;
    p->co.algorithm = nt->chunk_algorithm;
    p->co.level = o->level;
    p->co.typed = o->typed;
    if (st != OC_OK) {
        free(p);
        return st;
    }
    st = oc_cuda_enter(ctx, &p->prev);
    if (st != OC_OK) {
        free(p);
        return st;
    }
    p->stream = (cudaStream_t)ctx->opts.cuda_stream;
    size_t arrays = (size_t)(words * (8 * 6 + 4 + 4) + 256);
    p->total = arrays + (size_t)(words * bound);
    p->mem = (uint8_t *)oc_cuda_dev_alloc(ctx, p->total);
    if (p->mem == NULL) {
        oc_native_end(p, NULL);
        return OC_ERR_OUT_OF_MEMORY;
    }
    oc_cargs *g = &p->g;
    g->layout = a;
    g->check = nt->ops->check;
    g->checksums = checksums;
    g->n = n;
    g->res = (oc_cres *)p->mem;
    g->sp = (const uint8_t **)(p->mem + 256);
    g->ss = (size_t *)(g->sp + words);
    g->dp = (uint8_t **)(g->ss + words);
    g->dc = (size_t *)(g->dp + words);
    g->ds = (size_t *)(g->dc + words);
    g->off = (uint64_t *)(g->ds + words);
    g->st = (int32_t *)(g->off + words);
    g->sum = nt->sums ? (uint32_t *)(g->st + words) : NULL;
    p->scratch = p->mem + arrays;
    *self = p;
    return OC_OK;
}

/* The chunk pointer arrays built on the device, then ONE batched
 * compression into scratch (the whole input is one group). */
static oc_status oc_native_compress(void *self, uint64_t first, size_t m)
{
    (void)first; /* 0, and m the whole of n */
    oc_cuda_native *p = (oc_cuda_native *)self;
    oc_k_setup<<<oc_buffer_grid(m, 256), 256, 0, p->stream>>>(p->g, p->src, p->src_size, p->nt->chunk_size,
                                                              p->scratch, p->bound);
    FORWARD_IF_ERROR(oc_cuda_buffer_err(cudaGetLastError()));
    return oc_cuda_batch_compress(p->ctx, &p->co, m, (const void *const *)p->g.sp, p->g.ss,
                                  (void *const *)p->g.dp, p->g.dc, p->g.ds, (oc_status *)p->g.st);
}

/* One block: the first failed chunk, every chunk's offset, the total
 * (OUTPUT_TOO_SMALL above dst_capacity); read back by the end step. */
static oc_status oc_native_scan(oc_cuda_native *p)
{
    p->scanned = 1;
    oc_k_scan<<<1, 1024, 0, p->stream>>>(p->g, p->h.len, p->trailer, p->dst_capacity);
    return oc_cuda_buffer_err(cudaGetLastError());
}

static oc_status oc_native_first_failure(void *self, uint64_t first, size_t m, oc_native_result *r)
{
    (void)first, (void)m, (void)r;
    return oc_native_scan((oc_cuda_native *)self);
}

/* A thread per chunk: its stored checksum; one block: the LZ4 content checksum. */
static oc_status oc_native_sums(void *self, uint64_t first, size_t m)
{
    (void)first;
    oc_cuda_native *p = (oc_cuda_native *)self;
    if (p->nt->sums)
        oc_k_sums<<<oc_buffer_grid(m, 128), 128, 0, p->stream>>>(p->g);
    if (p->nt->ops->content_checksum && p->nt->checksums)
        oc_k_xxh32_whole<<<1, 256, 0, p->stream>>>(p->src, p->src_size, &p->g.res->content);
    return oc_cuda_buffer_err(cudaGetLastError());
}

/* A block per chunk: prefix, payload, suffix and index entry into dst. */
static oc_status oc_native_assemble(void *self, uint64_t first, size_t m, oc_native_result *r)
{
    (void)first, (void)r;
    oc_cuda_native *p = (oc_cuda_native *)self;
    oc_k_write<<<oc_buffer_grid(m, 1), 256, 0, p->stream>>>(p->g, p->dst, p->trailer_head, p->esize);
    return oc_cuda_buffer_err(cudaGetLastError());
}

/* One thread: the header and the trailer (no chunk: the scan and the
 * content checksum first). */
static oc_status oc_native_trailer(void *self, oc_native_result *r)
{
    (void)r;
    oc_cuda_native *p = (oc_cuda_native *)self;
    if (!p->scanned) {
        FORWARD_IF_ERROR(oc_native_scan(p));
        FORWARD_IF_ERROR(oc_native_sums(p, 0, 0));
    }
    oc_k_trailer<<<1, 1, 0, p->stream>>>(p->g, p->dst, p->h, p->has_trailer, p->esize);
    return oc_cuda_buffer_err(cudaGetLastError());
}

extern "C" const oc_native_steps oc_cuda_native_steps = {
    0,
    oc_native_compress,
    oc_native_first_failure,
    oc_native_sums,
    oc_native_assemble,
    oc_native_trailer,
    oc_native_end,
};
