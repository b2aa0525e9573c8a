/*
 * cuda_buffer_decode.cu - oc_buffer_decompress on device buffers, on the
 * GPU, for the containers whose chunks an index describes (LZ4 frame with
 * our index, snappy framing with our index, zstd seekable, our own formats'
 * container: Cascaded, ANS, Bitcomp, GDeflate pages) and for RAW /
 * WITH_UNCOMPRESSED_SIZE streams of LZ4, snappy and zstd (WITH_UNCOMPRESSED_
 * SIZE also of deflate/zlib/gzip, decoded by the GPU inflate kernel through
 * the batched call).  Everything else goes to the host-staged path.
 *
 * The API layer (src/api/buffer.c) reads only the head (64 bytes) and the
 * tail (the index) with small device-to-host copies (one synchronisation;
 * a second when an index is longer than the first guess of 4 KiB),
 * src/format/sparse_plan.c builds the CPU parser's own plan from them
 * (statuses included), plus probes: words the index implies that a kernel
 * checks in the real bytes (CORRUPT otherwise, as the CPU parser would
 * say), and the API chooses this path for the plans the GPU runs.  Here,
 * oc_cuda_plan_begin and oc_cuda_plan_steps are the GPU's steps of running
 * such a plan, which buffer.c's run_plan drives as it drives the host's:
 * the whole plan is one group, so ONE batched GPU decode writes every
 * chunk straight into its slice of dst, a block per chunk copies stored
 * chunks and checks sizes (oc_k_dfinish), a thread per chunk checksums
 * (oc_k_dsums), a block finds the first failing chunk (oc_k_dreduce), the
 * tail and the LZ4 content checksum follow, and the end step's one
 * synchronisation returns the result; nothing else synchronises but the
 * corrupt step (asked only when dst is too small, and by the size query,
 * which runs the device checks alone).
 *
 * Zstd seek-table entries: each frame is walked on the device
 * (zstd_walk.h, the CPU reader's own walk), so statuses match the CPU path.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_buffer.h"
#include "../../common/crc.h"
#include "../../common/xxh.h"

extern "C" {
#include "../../format/sparse_plan.h"
}

/* One chunk as the device sees it. */
struct oc_dchunk {
    uint64_t src_off, src_size, dst_off, dst_size;
    uint32_t checksum; /* from the plan (zstd: seek table) */
    uint8_t stored;
    uint8_t snappy_varint; /* check the snappy preamble against dst_size */
    uint8_t zstd_walk;     /* walk the zstd frame: whole, exact size, content size */
};

struct oc_dres {
    int32_t status;
    int32_t probe_failed;
    uint64_t failed;  /* first failing chunk */
    uint64_t size;    /* tail decode: bytes decoded */
    uint32_t content; /* XXH32 of dst[0..total) */
    uint32_t pad;
};

struct oc_dargs {
    uint64_t n;
    uint64_t first; /* the group's first chunk in the plan (oc_k_dreduce's answer) */
    const oc_dchunk *c;
    const uint8_t *src;
    uint8_t *dst;
    const uint8_t **sp;
    size_t *ss;
    uint8_t **dp;
    size_t *dc;
    size_t *ds;
    int32_t *st;
    int check; /* oc_chunk_check */
    int verify;
    oc_dres *res;
};

static __global__ void oc_k_dprep(oc_dargs a)
{
    OC_GRID_STRIDE(i, a.n)
    {
        const oc_dchunk c = a.c[i];
        a.sp[i] = a.src + c.src_off;
        /* Stored chunks are copied later: the decoder sees nothing to do. */
        a.ss[i] = c.stored ? 0 : (size_t)c.src_size;
        a.dp[i] = c.dst_size && !c.stored ? a.dst + c.dst_off : (uint8_t *)a.res;
        a.dc[i] = c.stored ? 0 : (size_t)c.dst_size;
        a.ds[i] = 0;
        a.st[i] = OC_ERR_INTERNAL;
    }
}

static __global__ void oc_k_probe(const oc_probe *p, uint64_t m, const uint8_t *src, uint64_t src_size,
                                  oc_dres *r)
{
    OC_GRID_STRIDE(i, m)
    {
        if (p[i].pos > src_size || src_size - p[i].pos < 4 || oc_load_le32(src + p[i].pos) != p[i].word)
            atomicOr(&r->probe_failed, 1);
    }
}

/* A snappy raw buffer starts with its decoded size (varint, <= 5 bytes),
 * which must equal the index entry (snappy_framing.c checks the same). */
static __device__ int oc_snappy_varint_ok(const uint8_t *p, uint64_t n, uint64_t want)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 5 && i < n; i++) {
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80))
            return v == want && v <= 65536;
    }
    return 0;
}

/* A thread per chunk: what the CPU parser reads inside chunks, checked
 * where the bytes are: a compressed snappy chunk's preamble, a zstd
 * seek-table entry's frame walk (zstd_seekable.c's checks).  Any failure is
 * the parser's CORRUPT. */
static __global__ void oc_k_dcheck(oc_dargs a, uint64_t n)
{
    OC_GRID_STRIDE(i, n)
    {
        const oc_dchunk c = a.c[i];
        const uint8_t *s = a.src + c.src_off;
        if (c.snappy_varint && !oc_snappy_varint_ok(s, c.src_size, c.dst_size))
            atomicOr(&a.res->probe_failed, 1);
        if (c.zstd_walk) {
            oc_zstd_frame f;
            int ws = oc_zstd_walk_frame(s, c.src_size, &f);
            if (ws != OC_OK || f.skippable || f.size != c.src_size ||
                (f.has_size && f.content_size != c.dst_size))
                atomicOr(&a.res->probe_failed, 1);
        }
    }
}

/* A block per chunk: stored copy, size check. */
static __global__ void __launch_bounds__(256) oc_k_dfinish(oc_dargs a)
{
    for (uint64_t i = blockIdx.x; i < a.n; i += gridDim.x) {
        const oc_dchunk c = a.c[i];
        const uint8_t *s = a.src + c.src_off;
        if (c.stored) {
            uint8_t *d = a.dst + c.dst_off;
            for (uint64_t j = threadIdx.x; j < c.src_size; j += blockDim.x)
                d[j] = s[j];
        }
        if (threadIdx.x == 0) {
            int32_t st = c.stored ? OC_OK : a.st[i];
            uint64_t got = c.stored ? c.src_size : a.ds[i];
            if (st == OC_ERR_OUTPUT_TOO_SMALL || (st == OC_OK && got != c.dst_size))
                st = OC_ERR_SIZE_MISMATCH;
            a.st[i] = st;
        }
    }
}

/* A thread per chunk (after oc_k_dfinish: stored chunks are in dst): the
 * checksum per policy, as src/api/buffer.c's finish_chunk orders it. */
static __global__ void __launch_bounds__(128) oc_k_dsums(oc_dargs a)
{
    __shared__ uint32_t table[256];
    uint32_t poly = a.check == OC_CHECK_CRC32C_MASKED ? OC_CRC32C_POLY : OC_CRC32_POLY;
    for (unsigned k = threadIdx.x; k < 256; k += blockDim.x)
        table[k] = oc_crc_table_entry(poly, k);
    __syncthreads();
    OC_GRID_STRIDE(i, a.n)
    {
        const oc_dchunk c = a.c[i];
        const uint8_t *s = a.src + c.src_off;
        const uint8_t *d = a.dst + c.dst_off;
        int32_t st = a.st[i];
        if (a.check == OC_CHECK_XXH32_STORED) {
            /* LZ4: the stored checksum follows the block's data; it is
             * the most exact diagnosis, whatever the decoder said. */
            if (oc_xxh32(s, c.src_size, 0) != oc_load_le32(s + c.src_size))
                st = OC_ERR_CHECKSUM_MISMATCH;
        } else if (st == OC_OK) {
            uint32_t want = c.checksum, have;
            if (a.check == OC_CHECK_XXH64_LOW) {
                have = (uint32_t)oc_xxh64(d, c.dst_size, 0);
            } else if (a.check == OC_CHECK_XXH32_CONTENT) {
                have = oc_xxh32(d, c.dst_size, 0);
                want = oc_load_le32(s + c.src_size); /* our own container: after the payload */
            } else if (a.check == OC_CHECK_CRC32C_MASKED) {
                have = oc_crc32c_mask(oc_crc_update(table, 0, d, c.dst_size));
                want = oc_load_le32(s - 4); /* snappy: the masked CRC before the data */
            } else {
                have = oc_crc_update(table, 0, d, c.dst_size);
            }
            if (have != want)
                st = OC_ERR_CHECKSUM_MISMATCH;
        }
        a.st[i] = st;
    }
}

/* One block: the group's first failing chunk, unless an earlier group's
 * is already there (groups run in stream order). */
static __global__ void __launch_bounds__(1024) oc_k_dreduce(oc_dargs a)
{
    __shared__ uint64_t first[1024];
    uint64_t f = ~(uint64_t)0;
    for (uint64_t i = threadIdx.x; i < a.n; i += blockDim.x)
        if (a.st[i] != OC_OK && i < f)
            f = i;
    first[threadIdx.x] = f;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned k = 1; k < blockDim.x; k++)
            f = first[k] < f ? first[k] : f;
        f = first[0] < f ? first[0] : f;
        oc_dres *r = a.res;
        if (f != ~(uint64_t)0 && r->status == OC_OK) {
            r->status = a.st[f];
            r->failed = a.first + f;
        }
    }
}

/* ---- host ---------------------------------------------------------------- */

/* How decoding and the size query both start: the plan's chunks as the
 * device sees them (hc: a host array of plan->n entries, filled here, then
 * copied to a.c), the result zeroed, the probes (copied to dprobes) and
 * the in-chunk checks the plan asks for launched: a container the CPU
 * parser rejects sets a.res->probe_failed. */
static oc_status oc_plan_checks(oc_dargs a, const oc_container_plan *plan, const oc_sparse *sh, oc_dchunk *hc,
                                oc_probe *dprobes, uint64_t src_size, cudaStream_t stream)
{
    for (uint64_t i = 0; i < plan->n; i++) {
        const oc_chunk_ref *c = &plan->chunks[i];
        hc[i].src_off = c->src_off;
        hc[i].src_size = c->src_size;
        hc[i].dst_off = c->dst_off;
        hc[i].dst_size = c->dst_size;
        hc[i].checksum = c->checksum;
        hc[i].stored = c->stored;
        hc[i].snappy_varint = sh->snappy_check && !c->stored;
        hc[i].zstd_walk = (uint8_t)sh->zstd_check;
    }
    oc_status st = oc_cuda_buffer_err(cudaMemsetAsync(a.res, 0, 256, stream));
    if (st == OC_OK && plan->n)
        st = oc_cuda_buffer_err(
            cudaMemcpyAsync((void *)a.c, hc, (size_t)(plan->n * sizeof *hc), cudaMemcpyHostToDevice, stream));
    if (st == OC_OK && sh->np)
        st = oc_cuda_buffer_err(cudaMemcpyAsync(dprobes, sh->probes, (size_t)(sh->np * sizeof(oc_probe)),
                                                cudaMemcpyHostToDevice, stream));
    if (st == OC_OK && sh->np)
        oc_k_probe<<<oc_buffer_grid(sh->np, 256), 256, 0, stream>>>(dprobes, sh->np, a.src, src_size, a.res);
    if (st == OC_OK && (sh->snappy_check || sh->zstd_check) && plan->n)
        oc_k_dcheck<<<oc_buffer_grid(plan->n, 128), 128, 0, stream>>>(a, plan->n);
    return st;
}

/* One plan run on the device (oc_cuda_plan_begin .. the end step):
 * arrays of every chunk in one device allocation, the result read back at
 * the end with one synchronisation. */
struct oc_cuda_plan {
    oc_context *ctx;
    cudaStream_t stream;
    int prev; /* the caller's device, given back at the end */
    const oc_container_plan *plan;
    int verify;
    uint64_t dst_capacity;
    oc_dargs a; /* every chunk's arrays (words entries each) */
    uint8_t *mem;
    size_t bytes;
    oc_dchunk *hc; /* the chunk list's host copy */
    /* The tail's arguments (copied to the device from here) and results. */
    const void *tail_sp;
    size_t tail_ss;
    void *tail_dp;
    size_t tail_dc;
    int tail_ran;
    oc_dres hr;
    int32_t tail_st;
    size_t tail_size;
};

/* The arrays of chunks [first, first + m). */
static oc_dargs oc_plan_group(const oc_cuda_plan *p, size_t first, size_t m)
{
    oc_dargs g = p->a;
    g.n = m;
    g.first = first;
    g.c += first;
    g.sp += first;
    g.ss += first;
    g.dp += first;
    g.dc += first;
    g.ds += first;
    g.st += first;
    return g;
}

static oc_status oc_plan_end(void *self, oc_plan_result *r)
{
    oc_cuda_plan *p = (oc_cuda_plan *)self;
    oc_status st = OC_OK;
    if (r) {
        st = oc_cuda_buffer_err(
            cudaMemcpyAsync(&p->hr, p->a.res, sizeof p->hr, cudaMemcpyDeviceToHost, p->stream));
        if (st == OC_OK && p->tail_ran) {
            uint64_t t = p->plan->n - 1;
            st = oc_cuda_buffer_err(cudaMemcpyAsync(&p->tail_st, &p->a.st[t], sizeof p->tail_st,
                                                    cudaMemcpyDeviceToHost, p->stream));
            if (st == OC_OK)
                st = oc_cuda_buffer_err(cudaMemcpyAsync(&p->tail_size, &p->a.ds[t], sizeof p->tail_size,
                                                        cudaMemcpyDeviceToHost, p->stream));
        }
        if (st == OC_OK)
            st = oc_cuda_buffer_err(cudaStreamSynchronize(p->stream));
        if (st == OC_OK) {
            /* A failed probe: the CPU parser rejects the container, whatever the chunks say. */
            r->status = p->hr.probe_failed ? OC_ERR_CORRUPT : (oc_status)p->hr.status;
            r->failed = p->hr.probe_failed || p->hr.status == OC_OK ? UINT64_MAX : p->hr.failed;
            if (p->tail_ran) {
                r->tail_status = (oc_status)p->tail_st;
                r->tail_size = p->tail_size;
            }
            r->content = p->hr.content;
        }
    }
    free(p->hc);
    if (p->mem)
        oc_cuda_dev_free(p->ctx, p->mem, p->bytes);
    oc_cuda_leave(p->ctx, p->prev);
    free(p);
    return st;
}

/* The plan's chunk list to the device, the result zeroed, its probes and
 * in-chunk checks launched (oc_plan_checks). */
extern "C" oc_status oc_cuda_plan_begin(oc_context *ctx, const oc_container_plan *plan, const oc_sparse *sh,
                                        int verify, const void *src, uint64_t src_size, void *dst,
                                        uint64_t dst_capacity, void **self)
{
    *self = NULL;
    oc_cuda_plan *p = (oc_cuda_plan *)calloc(1, sizeof *p);
    RETURN_ERROR_IF(!p, OC_ERR_OUT_OF_MEMORY);
    oc_status st = oc_cuda_enter(ctx, &p->prev);
    if (st != OC_OK) {
        free(p);
        return st;
    }
    p->ctx = ctx;
    p->stream = (cudaStream_t)ctx->opts.cuda_stream;
    p->plan = plan;
    p->verify = verify;
    p->dst_capacity = dst_capacity;
    uint64_t words = plan->n ? plan->n : 1;
    uint64_t np = sh->np;
    p->bytes = (size_t)(256 + words * (sizeof(oc_dchunk) + 8 * 5 + 8) + (np ? np : 1) * sizeof(oc_probe));
    p->mem = (uint8_t *)oc_cuda_dev_alloc(ctx, p->bytes);
    p->hc = (oc_dchunk *)calloc((size_t)words, sizeof *p->hc);
    if (!p->mem || !p->hc) {
        oc_plan_end(p, NULL);
        return OC_ERR_OUT_OF_MEMORY;
    }
    oc_dargs *a = &p->a;
    a->n = plan->n - (plan->tail ? 1 : 0);
    a->res = (oc_dres *)p->mem;
    oc_dchunk *dc = (oc_dchunk *)(p->mem + 256);
    a->c = dc;
    a->sp = (const uint8_t **)(dc + words);
    a->ss = (size_t *)(a->sp + words);
    a->dp = (uint8_t **)(a->ss + words);
    a->dc = (size_t *)(a->dp + words);
    a->ds = (size_t *)(a->dc + words);
    a->st = (int32_t *)(a->ds + words);
    oc_probe *dprobes = (oc_probe *)(a->st + 2 * words);
    a->src = (const uint8_t *)src;
    a->dst = (uint8_t *)dst;
    a->check = plan->check;
    a->verify = verify;
    st = oc_plan_checks(*a, plan, sh, p->hc, dprobes, src_size, p->stream);
    if (st != OC_OK) {
        oc_plan_end(p, NULL);
        return st;
    }
    *self = p;
    return OC_OK;
}

static oc_status oc_plan_corrupt(void *self, int *corrupt)
{
    oc_cuda_plan *p = (oc_cuda_plan *)self;
    oc_status st = oc_cuda_buffer_err(
        cudaMemcpyAsync(&p->hr, p->a.res, sizeof p->hr, cudaMemcpyDeviceToHost, p->stream));
    if (st == OC_OK)
        st = oc_cuda_buffer_err(cudaStreamSynchronize(p->stream));
    *corrupt = st == OC_OK && p->hr.probe_failed;
    return st;
}

/* The group's argument arrays built on the device (stored chunks get
 * nothing to decode), then ONE batched decode into dst's slices. */
static oc_status oc_plan_decode(void *self, size_t first, size_t m)
{
    oc_cuda_plan *p = (oc_cuda_plan *)self;
    oc_dargs g = oc_plan_group(p, first, m);
    oc_k_dprep<<<oc_buffer_grid(m, 256), 256, 0, p->stream>>>(g);
    FORWARD_IF_ERROR(oc_cuda_buffer_err(cudaGetLastError()));
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = p->plan->algorithm;
    return oc_cuda_batch_decompress(p->ctx, &co, m, (const void *const *)g.sp, g.ss, (void *const *)g.dp,
                                    g.dc, g.ds, (oc_status *)g.st);
}

static oc_status oc_plan_finish(void *self, size_t first, size_t m)
{
    oc_cuda_plan *p = (oc_cuda_plan *)self;
    oc_dargs g = oc_plan_group(p, first, m);
    oc_k_dfinish<<<oc_buffer_grid(m, 1), 256, 0, p->stream>>>(g);
    if (p->verify && p->plan->check != OC_CHECK_NONE)
        oc_k_dsums<<<oc_buffer_grid(m, 128), 128, 0, p->stream>>>(g);
    return oc_cuda_buffer_err(cudaGetLastError());
}

static oc_status oc_plan_first_failure(void *self, size_t first, size_t m, oc_plan_result *r)
{
    (void)r; /* read back by the end step */
    oc_cuda_plan *p = (oc_cuda_plan *)self;
    oc_k_dreduce<<<1, 1024, 0, p->stream>>>(oc_plan_group(p, first, m));
    return oc_cuda_buffer_err(cudaGetLastError());
}

/* The tail (RAW LZ4 and the like): decodes into the rest of dst, its
 * arguments and results in the last chunk's words. */
static oc_status oc_plan_tail(void *self, oc_plan_result *r)
{
    (void)r; /* read back by the end step */
    oc_cuda_plan *p = (oc_cuda_plan *)self;
    const oc_container_plan *plan = p->plan;
    uint64_t t = plan->n - 1;
    const oc_chunk_ref *c = &plan->chunks[t];
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = plan->tail_algorithm;
    uint64_t room = p->dst_capacity - c->dst_off;
    p->tail_sp = p->a.src + c->src_off;
    p->tail_ss = (size_t)c->src_size;
    p->tail_dp = room ? (void *)(p->a.dst + c->dst_off) : (void *)p->a.res;
    p->tail_dc = room > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)room;
    const void **d_sp = (const void **)&p->a.sp[t];
    void **d_dp = (void **)&p->a.dp[t];
    cudaStream_t s = p->stream;
    oc_status st =
        oc_cuda_buffer_err(cudaMemcpyAsync(d_sp, &p->tail_sp, sizeof p->tail_sp, cudaMemcpyHostToDevice, s));
    if (st == OC_OK)
        st = oc_cuda_buffer_err(
            cudaMemcpyAsync(&p->a.ss[t], &p->tail_ss, sizeof p->tail_ss, cudaMemcpyHostToDevice, s));
    if (st == OC_OK)
        st = oc_cuda_buffer_err(
            cudaMemcpyAsync(d_dp, &p->tail_dp, sizeof p->tail_dp, cudaMemcpyHostToDevice, s));
    if (st == OC_OK)
        st = oc_cuda_buffer_err(
            cudaMemcpyAsync(&p->a.dc[t], &p->tail_dc, sizeof p->tail_dc, cudaMemcpyHostToDevice, s));
    if (st == OC_OK)
        st = oc_cuda_batch_decompress(p->ctx, &co, 1, d_sp, &p->a.ss[t], d_dp, &p->a.dc[t], &p->a.ds[t],
                                      (oc_status *)&p->a.st[t]);
    p->tail_ran = st == OC_OK;
    return st;
}

static oc_status oc_plan_content(void *self, uint64_t len, oc_plan_result *r)
{
    (void)r; /* read back by the end step */
    oc_cuda_plan *p = (oc_cuda_plan *)self;
    return oc_cuda_buffer_err(oc_cuda_xxh32_whole_launch(p->a.dst, len, &p->a.res->content, p->stream));
}

/* One group: the GPU decodes the whole plan with one batched call. */
extern "C" const oc_plan_steps oc_cuda_plan_steps = {
    UINT64_MAX,
    SIZE_MAX,
    0,
    oc_plan_corrupt,
    oc_plan_decode,
    oc_plan_finish,
    oc_plan_first_failure,
    oc_plan_tail,
    oc_plan_content,
    oc_plan_end,
};
