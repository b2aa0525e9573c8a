/*
 * cuda_buffer_decode.cu - oc_buffer_decompress on device buffers, on the
 * GPU, for the containers whose chunks an index describes (LZ4 frame with
 * our index, snappy framing with our index, zstd seekable) and for RAW /
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
 * oc_cuda_buffer_run_plan runs such a plan: ONE batched GPU
 * decode writes every chunk straight into its slice of dst, a block per
 * chunk copies stored chunks and verifies sizes and checksums on the
 * device, a reduction finds the first failing chunk, and one
 * synchronisation returns the result.  oc_cuda_buffer_check_plan runs the
 * same device checks without decoding, for the size query.
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

/* One block: the first failing chunk (in stream order). */
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
        if (r->probe_failed) {
            r->status = OC_ERR_CORRUPT; /* the CPU parser rejects the container */
            r->failed = ~(uint64_t)0;
        } else if (f != ~(uint64_t)0) {
            r->status = a.st[f];
            r->failed = f;
        } else {
            r->status = OC_OK;
            r->failed = ~(uint64_t)0;
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

/* Runs a plan on the device.  Probes (may be none) are checked first in
 * effect: a failed probe is CORRUPT whatever the chunks say. */
static oc_status oc_run_plan(oc_context *ctx, const oc_container_plan *plan, const oc_sparse *sh, int verify,
                             const uint8_t *src, uint64_t src_size, uint8_t *dst, uint64_t dst_capacity,
                             uint64_t *dst_size, uint64_t *failed_chunk)
{
    cudaStream_t stream = (cudaStream_t)ctx->opts.cuda_stream;
    uint64_t nd = plan->n - (plan->tail ? 1 : 0);
    uint64_t words = plan->n ? plan->n : 1;
    uint64_t np = sh ? sh->np : 0;
    size_t arrays =
        (size_t)(256 + words * (sizeof(oc_dchunk) + 8 * 5 + 8) + (np ? np : 1) * sizeof(oc_probe));
    uint8_t *mem = (uint8_t *)oc_cuda_dev_alloc(ctx, arrays);
    if (mem == NULL)
        return OC_ERR_OUT_OF_MEMORY;
    oc_dargs a;
    a.n = nd;
    a.res = (oc_dres *)mem;
    oc_dchunk *dc = (oc_dchunk *)(mem + 256);
    a.c = dc;
    a.sp = (const uint8_t **)(dc + words);
    a.ss = (size_t *)(a.sp + words);
    a.dp = (uint8_t **)(a.ss + words);
    a.dc = (size_t *)(a.dp + words);
    a.ds = (size_t *)(a.dc + words);
    a.st = (int32_t *)(a.ds + words);
    oc_probe *dprobes = (oc_probe *)(a.st + 2 * words);
    a.src = src;
    a.dst = dst;
    a.check = plan->check;
    a.verify = verify;
    oc_dres hr;
    memset(&hr, 0, sizeof hr);
    int32_t tail_st = OC_OK;
    size_t tail_size = 0;
    oc_dchunk *hc = (oc_dchunk *)calloc((size_t)words, sizeof *hc);
    oc_status st = hc ? OC_OK : OC_ERR_OUT_OF_MEMORY;
    uint64_t known = oc_plan_known_size(plan);
    if (st == OC_OK)
        st = oc_plan_checks(a, plan, sh, hc, dprobes, src_size, stream);
    if (st == OC_OK && known > dst_capacity) {
        /* Too small, unless the container is corrupt (the CPU parser says so first). */
        st = oc_cuda_buffer_err(cudaMemcpyAsync(&hr, a.res, sizeof hr, cudaMemcpyDeviceToHost, stream));
        if (st == OC_OK)
            st = oc_cuda_buffer_err(cudaStreamSynchronize(stream));
        if (st == OC_OK && hr.probe_failed)
            st = OC_ERR_CORRUPT;
        else if (st == OC_OK) {
            st = OC_ERR_OUTPUT_TOO_SMALL;
            if (failed_chunk)
                *failed_chunk = oc_plan_first_over(plan, dst_capacity);
        }
        goto done;
    }
    if (st == OC_OK && nd) {
        oc_k_dprep<<<oc_buffer_grid(nd, 256), 256, 0, stream>>>(a);
        st = oc_cuda_buffer_err(cudaGetLastError());
        oc_codec_options co = OC_CODEC_OPTIONS_INIT;
        co.algorithm = plan->algorithm;
        if (st == OC_OK)
            st = oc_cuda_batch_decompress(ctx, &co, (size_t)nd, (const void *const *)a.sp, a.ss,
                                          (void *const *)a.dp, a.dc, a.ds, (oc_status *)a.st);
        if (st == OC_OK)
            oc_k_dfinish<<<oc_buffer_grid(nd, 1), 256, 0, stream>>>(a);
        if (st == OC_OK && verify && plan->check != OC_CHECK_NONE)
            oc_k_dsums<<<oc_buffer_grid(nd, 128), 128, 0, stream>>>(a);
    }
    if (st == OC_OK)
        oc_k_dreduce<<<1, 1024, 0, stream>>>(a);
    if (st == OC_OK && plan->tail) {
        /* The tail (RAW LZ4 and the like): decodes into the rest of dst. */
        const oc_chunk_ref *c = &plan->chunks[plan->n - 1];
        oc_codec_options co = OC_CODEC_OPTIONS_INIT;
        co.algorithm = plan->tail_algorithm;
        const void *sp = src + c->src_off;
        size_t ss = (size_t)c->src_size;
        uint64_t room = dst_capacity - c->dst_off;
        void *dp = room ? (void *)(dst + c->dst_off) : (void *)a.res;
        size_t cap = room > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)room;
        size_t *d_size = &a.ds[plan->n - 1];
        oc_status *d_st = (oc_status *)&a.st[plan->n - 1];
        const void **d_sp = (const void **)&a.sp[plan->n - 1];
        size_t *d_ss = &a.ss[plan->n - 1];
        void **d_dp = (void **)&a.dp[plan->n - 1];
        size_t *d_dc = &a.dc[plan->n - 1];
        st = oc_cuda_buffer_err(cudaMemcpyAsync(d_sp, &sp, sizeof sp, cudaMemcpyHostToDevice, stream));
        if (st == OC_OK)
            st = oc_cuda_buffer_err(cudaMemcpyAsync(d_ss, &ss, sizeof ss, cudaMemcpyHostToDevice, stream));
        if (st == OC_OK)
            st = oc_cuda_buffer_err(cudaMemcpyAsync(d_dp, &dp, sizeof dp, cudaMemcpyHostToDevice, stream));
        if (st == OC_OK)
            st = oc_cuda_buffer_err(cudaMemcpyAsync(d_dc, &cap, sizeof cap, cudaMemcpyHostToDevice, stream));
        if (st == OC_OK)
            st = oc_cuda_batch_decompress(ctx, &co, 1, d_sp, d_ss, d_dp, d_dc, d_size, d_st);
    }
    if (st == OC_OK && verify && plan->lz4_content_checksum)
        st = oc_cuda_buffer_err(oc_cuda_xxh32_whole_launch(dst, known, &a.res->content, stream));
    if (st == OC_OK)
        st = oc_cuda_buffer_err(cudaMemcpyAsync(&hr, a.res, sizeof hr, cudaMemcpyDeviceToHost, stream));
    if (st == OC_OK && plan->tail) {
        st = oc_cuda_buffer_err(
            cudaMemcpyAsync(&tail_st, &a.st[plan->n - 1], sizeof tail_st, cudaMemcpyDeviceToHost, stream));
        if (st == OC_OK)
            st = oc_cuda_buffer_err(cudaMemcpyAsync(&tail_size, &a.ds[plan->n - 1], sizeof tail_size,
                                                    cudaMemcpyDeviceToHost, stream));
    }
    if (st == OC_OK)
        st = oc_cuda_buffer_err(cudaStreamSynchronize(stream));
    if (st != OC_OK)
        goto done;
    if (hr.status != OC_OK) {
        st = (oc_status)hr.status;
        if (failed_chunk && hr.failed != ~(uint64_t)0)
            *failed_chunk = hr.failed;
        goto done;
    }
    if (plan->tail && tail_st != OC_OK) {
        st = (oc_status)tail_st;
        if (failed_chunk)
            *failed_chunk = plan->n - 1;
        goto done;
    }
    if (verify && plan->lz4_content_checksum && hr.content != plan->content_checksum) {
        st = OC_ERR_CHECKSUM_MISMATCH;
        goto done;
    }
    *dst_size = known + (plan->tail ? tail_size : 0);
done:
    free(hc);
    oc_cuda_dev_free(ctx, mem, arrays);
    return st;
}

extern "C" oc_status oc_cuda_buffer_run_plan(oc_context *ctx, const oc_container_plan *plan,
                                             const oc_sparse *sh, int verify, const void *src,
                                             uint64_t src_size, void *dst, uint64_t dst_capacity,
                                             uint64_t *dst_size, uint64_t *failed_chunk)
{
    int prev = -1;
    FORWARD_IF_ERROR(oc_cuda_enter(ctx, &prev));
    oc_status st = oc_run_plan(ctx, plan, sh, verify, (const uint8_t *)src, src_size, (uint8_t *)dst,
                               dst_capacity, dst_size, failed_chunk);
    if (st != OC_OK)
        *dst_size = 0;
    oc_cuda_leave(ctx, prev);
    return st;
}

extern "C" oc_status oc_cuda_buffer_check_plan(oc_context *ctx, const oc_container_plan *plan,
                                               const oc_sparse *sh, const void *src, uint64_t src_size)
{
    int prev = -1;
    FORWARD_IF_ERROR(oc_cuda_enter(ctx, &prev));
    cudaStream_t stream = (cudaStream_t)ctx->opts.cuda_stream;
    uint64_t words = plan->n ? plan->n : 1, np = sh->np;
    size_t bytes = (size_t)(256 + words * sizeof(oc_dchunk) + (np ? np : 1) * sizeof(oc_probe));
    uint8_t *mem = (uint8_t *)oc_cuda_dev_alloc(ctx, bytes);
    oc_dchunk *hc = (oc_dchunk *)calloc((size_t)words, sizeof *hc);
    oc_dres hr;
    memset(&hr, 0, sizeof hr);
    oc_status st = mem && hc ? OC_OK : OC_ERR_OUT_OF_MEMORY;
    oc_dargs a;
    memset(&a, 0, sizeof a);
    a.res = (oc_dres *)mem;
    a.c = (oc_dchunk *)(mem + 256);
    a.src = (const uint8_t *)src;
    if (st == OC_OK)
        st = oc_plan_checks(a, plan, sh, hc, (oc_probe *)(mem + 256 + words * sizeof(oc_dchunk)), src_size,
                            stream);
    if (st == OC_OK)
        st = oc_cuda_buffer_err(cudaMemcpyAsync(&hr, a.res, sizeof hr, cudaMemcpyDeviceToHost, stream));
    if (st == OC_OK)
        st = oc_cuda_buffer_err(cudaStreamSynchronize(stream));
    if (st == OC_OK && hr.probe_failed)
        st = OC_ERR_CORRUPT;
    free(hc);
    if (mem)
        oc_cuda_dev_free(ctx, mem, bytes);
    oc_cuda_leave(ctx, prev);
    return st;
}
