/*
 * cuda_engine.cu - the host side of the CUDA engine: availability, the
 * per-context state (device scratch, pinned staging slots, events), the
 * batched calls and the memory helpers of cuda_engine.h.  Codecs are
 * reached only through gpu_codec.h, found in the algorithm's table row.
 *
 * Batched calls never synchronise the host.  Pointer, size and status arrays
 * that the GPU can reach (device, managed or pinned memory) are used in
 * place; pageable host arrays are copied into a pinned slot at call time and
 * sent with one cudaMemcpyAsync, and host result arrays are filled by a host
 * function enqueued after the kernel, so results are valid when the stream
 * reaches that point, as the API promises.  Scratch comes from the context's
 * allocators and is cached in ctx->cuda_state; it only grows.
 *
 * oc_batch_decompress_packed (one source buffer, one destination buffer,
 * offsets instead of pointers) runs the same call with a kernel in front
 * that builds the pointer and size arrays in the scratch and bounds-checks
 * each chunk against its buffer (an out-of-range chunk gets sizes 0, so
 * the codec touches nothing of it), and one after the codec that marks
 * those chunks INVALID_ARGUMENT: a batch whose offsets live on the GPU
 * costs the host no per-chunk work.
 *
 * The WITH_UNCOMPRESSED_SIZE kind runs any codec between two header
 * kernels (cuda_wus.cu), their arrays in the same scratch; its size query
 * reads the headers alone, so it needs no codec size query.  The
 * stand-alone filters (oc_codec_options.filter) run any codec between the
 * filter's kernels (cuda_filter.cu), their slab in the same scratch, sized
 * from the host-readable source sizes or capacities.
 *
 * The runtime is linked statically: with no driver or GPU,
 * cudaGetDeviceCount fails and every entry point reports NO_DEVICE, while
 * the CPU engine keeps working.
 */
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "../../common/algo_table.h"
#include <cuda_runtime.h>

#include "../../common/shuffle.h"
#include "cuda_engine.h"
#include "cuda_filter.h"
#include "cuda_wus.h"
#include "gpu_codec.h"
#include "../codecs/lz4/lz4_gpu.h"
#include "../codecs/snappy/snappy_gpu.h"
#include "../codecs/zstd/zstd_gpu.h"

#ifndef OC_CUDA_ARCH_STRING
#define OC_CUDA_ARCH_STRING "unknown"
#endif

#define OC_PINNED_SLOTS 4
#define OC_ALIGN_UP(x) (((x) + 255) & ~(size_t)255)

/* A pinned staging area and the event that says when the GPU is done with it. */
struct oc_pinned_slot {
    uint8_t *ptr;
    size_t size;
    cudaEvent_t done;
    int used;
};

struct oc_cuda_state {
    int device;
    uint8_t *dev_scratch;
    size_t dev_scratch_size;
    cudaStream_t scratch_stream; /* stream the scratch was last used on */
    cudaEvent_t scratch_done;    /* recorded after the last use of dev_scratch */
    int scratch_used;
    oc_pinned_slot pinned[OC_PINNED_SLOTS];
    int next_slot;
    cudaEvent_t order_event; /* oc_context_wait_stream's, made on first use (NULL until then) */
    oc_gpu_side side;        /* gpu_codec.h's second stream, made on first use (side_made) */
    int side_made;
};

/* Host-side write-back of results for callers whose result arrays are
 * pageable: lives at the start of the pinned slot. */
struct oc_writeback {
    size_t n;
    size_t *user_sizes;
    oc_status *user_statuses;
    const size_t *pinned_sizes;
    const int32_t *pinned_statuses;
};

static void CUDART_CB oc_writeback_fn(void *p)
{
    const oc_writeback *w = (const oc_writeback *)p;
    if (w->user_sizes)
        memcpy(w->user_sizes, w->pinned_sizes, w->n * sizeof(size_t));
    if (w->user_statuses)
        for (size_t i = 0; i < w->n; i++)
            w->user_statuses[i] = (oc_status)w->pinned_statuses[i];
}

/* ---- availability ------------------------------------------------------ */

static volatile int g_device_count = -1;
static volatile pid_t g_cuda_pid; /* the process that initialised CUDA */

/* 1 in a child forked after this process initialised CUDA: no CUDA call may
 * be made there (the driver's state is the parent's), so the engine is
 * unavailable and explicit requests get OC_ERR_FORKED (opencomp.h, fork). */
extern "C" int oc_cuda_forked(void)
{
    return g_device_count >= 0 && g_cuda_pid != getpid();
}

extern "C" int oc_cuda_device_count(void)
{
    int c = g_device_count;
    if (c < 0) {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            (void)cudaGetLastError();
            n = 0;
        }
        g_cuda_pid = getpid();
        g_device_count = c = n;
    } else if (oc_cuda_forked()) {
        return 0;
    }
    return c;
}

extern "C" int oc_cuda_available(void)
{
    return oc_cuda_device_count() > 0;
}

extern "C" oc_status oc_cuda_stream_device(void *cuda_stream, int *device)
{
    if (device == NULL)
        return OC_ERR_INVALID_ARGUMENT;
    if (oc_cuda_forked())
        return OC_ERR_FORKED;
    if (oc_cuda_device_count() == 0)
        return OC_ERR_NO_DEVICE;
    int d = -1;
    cudaError_t e;
    uintptr_t v = (uintptr_t)cuda_stream;
    if (v == 0 || cuda_stream == (void *)cudaStreamLegacy || cuda_stream == (void *)cudaStreamPerThread) {
        e = cudaGetDevice(&d);
    } else {
#if CUDART_VERSION >= 12080
        e = cudaStreamGetDevice((cudaStream_t)cuda_stream, &d);
#else
        return OC_ERR_UNSUPPORTED; /* a toolkit without cudaStreamGetDevice */
#endif
    }
    if (e == cudaErrorCallRequiresNewerDriver || e == cudaErrorNotSupported) {
        (void)cudaGetLastError();
        return OC_ERR_UNSUPPORTED; /* a driver without it */
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return OC_ERR_CUDA;
    }
    *device = d;
    return OC_OK;
}

/* The GPU codec of an algorithm's row, NULL when it has none. */
static const oc_gpu_codec *oc_gpu_codec_of(oc_algorithm algorithm)
{
    const oc_algo_desc *d = oc_algo(algorithm);
    return d ? d->gpu : NULL;
}

extern "C" int oc_cuda_has_op(oc_algorithm algorithm, int op)
{
    const oc_gpu_codec *g = oc_gpu_codec_of(algorithm);
    return g != NULL && (op == 0   ? g->compress != NULL
                         : op == 1 ? g->decompress != NULL
                                   : g->decompressed_sizes != NULL);
}

extern "C" int oc_cuda_algorithm_available(oc_algorithm algorithm)
{
    if (!oc_cuda_available())
        return 0;
    /* kernels both ways (the others are host-staged) */
    const oc_gpu_codec *g = oc_gpu_codec_of(algorithm);
    return g != NULL && g->compress != NULL && g->decompress != NULL;
}

extern "C" const char *oc_cuda_build_info(void)
{
    return "cuda: " OC_CUDA_ARCH_STRING;
}

extern "C" oc_memory_kind oc_cuda_pointer_kind(const void *p)
{
    if (p == NULL || !oc_cuda_available())
        return OC_MEMORY_HOST;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return OC_MEMORY_HOST;
    }
    switch (a.type) {
    case cudaMemoryTypeDevice:
        return OC_MEMORY_DEVICE;
    case cudaMemoryTypeManaged:
        return OC_MEMORY_MANAGED;
    case cudaMemoryTypeHost:
        return OC_MEMORY_PINNED;
    default:
        return OC_MEMORY_HOST;
    }
}

extern "C" int oc_cuda_pointer_device(const void *p)
{
    if (p == NULL || !oc_cuda_available())
        return -1;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? a.device : -1;
}

extern "C" int oc_cuda_is_device_pointer(const void *p)
{
    oc_memory_kind k = oc_cuda_pointer_kind(p);
    return k == OC_MEMORY_DEVICE || k == OC_MEMORY_MANAGED;
}

/* The address the GPU uses for p, or NULL if the GPU cannot reach p. */
static const void *oc_gpu_address(const void *p)
{
    if (p == NULL)
        return NULL;
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged || a.type == cudaMemoryTypeHost)
        return a.devicePointer;
    return NULL;
}

/* ---- device selection, allocators -------------------------------------- */

static cudaStream_t oc_stream(const oc_context *ctx)
{
    return (cudaStream_t)ctx->opts.cuda_stream;
}

/* Make the context's device current; *prev receives the caller's. */
extern "C" oc_status oc_cuda_enter(oc_context *ctx, int *prev)
{
    if (oc_cuda_forked())
        return OC_ERR_FORKED;
    if (!oc_cuda_available())
        return OC_ERR_NO_DEVICE;
    if (ctx->opts.device_id < 0 || ctx->opts.device_id >= oc_cuda_device_count())
        return OC_ERR_NO_DEVICE;
    if (cudaGetDevice(prev) != cudaSuccess)
        *prev = -1;
    if (*prev != ctx->opts.device_id && cudaSetDevice(ctx->opts.device_id) != cudaSuccess) {
        (void)cudaGetLastError();
        return OC_ERR_CUDA;
    }
    return OC_OK;
}

extern "C" void oc_cuda_leave(oc_context *ctx, int prev)
{
    if (prev >= 0 && prev != ctx->opts.device_id)
        (void)cudaSetDevice(prev);
}

extern "C" void *oc_cuda_dev_alloc(oc_context *ctx, size_t size)
{
    const oc_allocator *a = &ctx->opts.device_alloc;
    if (a->alloc)
        return a->alloc(a->opaque, size, ctx->opts.cuda_stream);
    void *p = NULL;
    if (cudaMallocAsync(&p, size, oc_stream(ctx)) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

extern "C" void oc_cuda_dev_free(oc_context *ctx, void *p, size_t size)
{
    if (p == NULL)
        return;
    const oc_allocator *a = &ctx->opts.device_alloc;
    if (a->alloc)
        a->free(a->opaque, p, size, ctx->opts.cuda_stream);
    else
        (void)cudaFreeAsync(p, oc_stream(ctx));
}

static void *oc_pinned_alloc(oc_context *ctx, size_t size)
{
    const oc_allocator *a = &ctx->opts.pinned_alloc;
    if (a->alloc)
        return a->alloc(a->opaque, size, ctx->opts.cuda_stream);
    void *p = NULL;
    if (cudaMallocHost(&p, size) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return p;
}

static void oc_pinned_free(oc_context *ctx, void *p, size_t size)
{
    if (p == NULL)
        return;
    const oc_allocator *a = &ctx->opts.pinned_alloc;
    if (a->alloc)
        a->free(a->opaque, p, size, ctx->opts.cuda_stream);
    else
        (void)cudaFreeHost(p);
}

/* ---- context state ----------------------------------------------------- */

static oc_status oc_state_get(oc_context *ctx, oc_cuda_state **out)
{
    oc_cuda_state *s = (oc_cuda_state *)ctx->cuda_state;
    if (s == NULL) {
        s = (oc_cuda_state *)calloc(1, sizeof(*s));
        if (s == NULL)
            return OC_ERR_OUT_OF_MEMORY;
        s->device = ctx->opts.device_id;
        if (cudaEventCreateWithFlags(&s->scratch_done, cudaEventDisableTiming) != cudaSuccess) {
            (void)cudaGetLastError();
            free(s);
            return OC_ERR_CUDA;
        }
        for (int i = 0; i < OC_PINNED_SLOTS; i++) {
            if (cudaEventCreateWithFlags(&s->pinned[i].done, cudaEventDisableTiming) != cudaSuccess) {
                (void)cudaGetLastError();
                for (int j = 0; j < i; j++)
                    cudaEventDestroy(s->pinned[j].done);
                cudaEventDestroy(s->scratch_done);
                free(s);
                return OC_ERR_CUDA;
            }
        }
        ctx->cuda_state = s;
    }
    *out = s;
    return OC_OK;
}

extern "C" void oc_cuda_context_release(oc_context *ctx)
{
    oc_cuda_state *s = ctx ? (oc_cuda_state *)ctx->cuda_state : NULL;
    if (s == NULL)
        return;
    if (oc_cuda_forked()) { /* the parent's device memory and events: not ours to free */
        free(s);
        ctx->cuda_state = NULL;
        return;
    }
    int prev = -1;
    int entered = oc_cuda_enter(ctx, &prev) == OC_OK;
    oc_cuda_dev_free(ctx, s->dev_scratch, s->dev_scratch_size);
    for (int i = 0; i < OC_PINNED_SLOTS; i++) {
        if (s->pinned[i].used)
            (void)cudaEventSynchronize(s->pinned[i].done);
        oc_pinned_free(ctx, s->pinned[i].ptr, s->pinned[i].size);
        cudaEventDestroy(s->pinned[i].done);
    }
    cudaEventDestroy(s->scratch_done);
    if (s->order_event)
        cudaEventDestroy(s->order_event);
    if (s->side_made) { /* returns at once; CUDA frees the stream when its work is done */
        cudaStreamDestroy(s->side.stream);
        cudaEventDestroy(s->side.fork);
        cudaEventDestroy(s->side.join);
    }
    if (entered)
        oc_cuda_leave(ctx, prev);
    free(s);
    ctx->cuda_state = NULL;
}

/* The context's second stream and its two events (gpu_codec.h,
 * oc_gpu_side), made once; NULL when CUDA cannot make them (the codec then
 * runs on the caller's stream alone). */
static const oc_gpu_side *oc_side_get(oc_cuda_state *s)
{
    if (s->side_made)
        return &s->side;
    oc_gpu_side d;
    memset(&d, 0, sizeof(d));
    int least = 0, greatest = 0;
    if (cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, s->device) != cudaSuccess ||
        cudaDeviceGetStreamPriorityRange(&least, &greatest) != cudaSuccess ||
        cudaStreamCreateWithPriority(&d.stream, cudaStreamNonBlocking, greatest) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    if (cudaEventCreateWithFlags(&d.fork, cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaGetLastError();
        cudaStreamDestroy(d.stream);
        return NULL;
    }
    if (cudaEventCreateWithFlags(&d.join, cudaEventDisableTiming) != cudaSuccess) {
        (void)cudaGetLastError();
        cudaEventDestroy(d.fork);
        cudaStreamDestroy(d.stream);
        return NULL;
    }
    s->side = d;
    s->side_made = 1;
    return &s->side;
}

/* Device scratch of at least `size` bytes, ordered after its previous use
 * even if the caller changed streams. */
static oc_status oc_scratch(oc_context *ctx, oc_cuda_state *s, size_t size, uint8_t **out)
{
    cudaStream_t stream = oc_stream(ctx);
    if (s->scratch_used && s->scratch_stream != stream &&
        cudaStreamWaitEvent(stream, s->scratch_done, 0) != cudaSuccess)
        return OC_ERR_CUDA;
    if (s->dev_scratch_size < size) {
        oc_cuda_dev_free(ctx, s->dev_scratch, s->dev_scratch_size);
        size_t want = size + size / 2;
        s->dev_scratch = (uint8_t *)oc_cuda_dev_alloc(ctx, want);
        s->dev_scratch_size = s->dev_scratch ? want : 0;
        if (s->dev_scratch == NULL)
            return OC_ERR_OUT_OF_MEMORY;
    }
    *out = s->dev_scratch;
    return OC_OK;
}

static oc_status oc_scratch_release(oc_context *ctx, oc_cuda_state *s)
{
    s->scratch_stream = oc_stream(ctx);
    s->scratch_used = 1;
    return cudaEventRecord(s->scratch_done, s->scratch_stream) == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

/* A pinned slot of at least `size` bytes that the GPU no longer uses.  Only
 * when every slot is still in flight does this wait (for the oldest). */
static oc_status oc_pinned_slot_get(oc_context *ctx, oc_cuda_state *s, size_t size, oc_pinned_slot **out)
{
    oc_pinned_slot *slot = NULL;
    for (int k = 0; k < OC_PINNED_SLOTS && slot == NULL; k++) {
        oc_pinned_slot *c = &s->pinned[(s->next_slot + k) % OC_PINNED_SLOTS];
        if (!c->used || cudaEventQuery(c->done) == cudaSuccess)
            slot = c;
    }
    (void)cudaGetLastError(); /* cudaErrorNotReady from the queries */
    if (slot == NULL) {
        slot = &s->pinned[s->next_slot];
        if (cudaEventSynchronize(slot->done) != cudaSuccess)
            return OC_ERR_CUDA;
    }
    s->next_slot = (int)((slot - s->pinned) + 1) % OC_PINNED_SLOTS;
    if (slot->size < size) {
        oc_pinned_free(ctx, slot->ptr, slot->size);
        size_t want = size < 4096 ? 4096 : size + size / 2;
        slot->ptr = (uint8_t *)oc_pinned_alloc(ctx, want);
        slot->size = slot->ptr ? want : 0;
        if (slot->ptr == NULL)
            return OC_ERR_OUT_OF_MEMORY;
    }
    *out = slot;
    return OC_OK;
}

/* ---- batched calls ----------------------------------------------------- */

/* oc_batch_decompress_packed's two buffers; its four arrays travel as
 * oc_batch_run's src_ptrs (the source offsets), src_sizes, dst_ptrs (the
 * destination offsets) and dst_caps. */
struct oc_packed_layout {
    const uint8_t *src;
    size_t src_bytes;
    uint8_t *dst;
    size_t dst_bytes;
};

/* 1 when the host can read the array (pageable or pinned memory). */
static int oc_host_readable(const void *p)
{
    return oc_gpu_address(p) == NULL || oc_cuda_pointer_kind(p) == OC_MEMORY_PINNED;
}

/* 1 when [off, off + len) does not lie inside a buffer of `bytes` (no overflow). */
__host__ __device__ static inline int oc_packed_out(size_t off, size_t len, size_t bytes)
{
    return off > bytes || len > bytes - off;
}

/* ptrs and sizes of every chunk from the offsets (one thread a chunk); an
 * out-of-range chunk gets its buffer's start and sizes 0, so that no codec
 * reads or writes anything of it. */
__global__ static void oc_packed_build_kernel(size_t n, oc_packed_layout L, const size_t *so,
                                              const size_t *ss, const size_t *dof, const size_t *dc,
                                              const void **sp, size_t *sz, void **dp, size_t *cap)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t a = so[i], b = ss[i], c = dof[i], d = dc[i];
        int bad = oc_packed_out(a, b, L.src_bytes) || oc_packed_out(c, d, L.dst_bytes);
        sp[i] = L.src + (bad ? 0 : a);
        sz[i] = bad ? 0 : b;
        dp[i] = L.dst + (bad ? 0 : c);
        cap[i] = bad ? 0 : d;
    }
}

/* After the codec: the out-of-range chunks' results (the same test on the caller's arrays). */
__global__ static void oc_packed_fix_kernel(size_t n, oc_packed_layout L, const size_t *so, const size_t *ss,
                                            const size_t *dof, const size_t *dc, size_t *res_sizes,
                                            oc_status *res_status)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (!oc_packed_out(so[i], ss[i], L.src_bytes) && !oc_packed_out(dof[i], dc[i], L.dst_bytes))
            continue;
        if (res_sizes)
            res_sizes[i] = 0;
        if (res_status)
            res_status[i] = OC_ERR_INVALID_ARGUMENT;
    }
}

static unsigned oc_packed_blocks(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b < 4096 ? b : 4096);
}

enum oc_batch_op { OC_OP_COMPRESS, OC_OP_DECOMPRESS, OC_OP_SIZES };

/* Scratch layout of one call: four input arrays of n words, the sizes
 * array, the statuses array (the pinned slot mirrors these after a
 * header); then the WITH_UNCOMPRESSED_SIZE kind's arrays (cuda_wus.h), the
 * filter's arrays and slab (cuda_filter.h) and the codec's scratch. */
#define OC_SLOT_HEADER 256

/* A filtered call (cuda_filter.h) around the codec's launch, with the
 * WITH_UNCOMPRESSED_SIZE kind's kernels too when wus_dev is not NULL:
 * compression filters into the slab, then the header kernels and the codec
 * read it; decompression reads the header, decodes into the slab, then
 * unfilters before the size check.  g_in: the four argument arrays. */
static oc_status oc_filtered_launch(oc_gpu_launch_fn launch, void *codec_scratch, size_t codec_bytes,
                                    const oc_gpu_config *cfg, size_t n, const void *const g_in[4],
                                    size_t *res_sizes, oc_status *res_status, void *wus_dev, uint32_t ratio,
                                    void *filt_dev, size_t filt_bytes, int fmode, uint32_t ft, int decode,
                                    cudaStream_t stream)
{
    const void *const *src = (const void *const *)g_in[0];
    const size_t *src_sizes = (const size_t *)g_in[1];
    void *const *dst = (void *const *)g_in[2];
    const size_t *caps = (const size_t *)g_in[3];
    oc_filter_codec_args f;
    oc_wus_codec_args w;
    if (!decode) {
        FORWARD_IF_ERROR(oc_filter_launch_before(filt_dev, filt_bytes, 0, fmode, ft, n, src, src_sizes, dst,
                                                 caps, res_sizes, res_status, &f, stream));
        if (wus_dev == NULL)
            return launch(codec_scratch, codec_bytes, cfg, n, f.src_dev, f.src_sizes_dev, f.dst_dev,
                          f.dst_caps_dev, res_sizes, res_status, stream);
        FORWARD_IF_ERROR(oc_wus_launch_before(wus_dev, 0, ratio, n, f.src_dev, f.src_sizes_dev, f.dst_dev,
                                              f.dst_caps_dev, &w, stream));
        FORWARD_IF_ERROR(launch(codec_scratch, codec_bytes, cfg, n, w.src_dev, w.src_sizes_dev, w.dst_dev,
                                w.dst_caps_dev, w.dst_sizes_dev, w.statuses_dev, stream));
        return oc_wus_launch_after(wus_dev, 0, n, src_sizes, dst, res_sizes, res_status, stream);
    }
    /* decompression: the arrays the filter wraps (the header kernel's, or the caller's) */
    w.src_dev = src, w.src_sizes_dev = src_sizes, w.dst_dev = dst, w.dst_caps_dev = caps;
    w.dst_sizes_dev = res_sizes, w.statuses_dev = res_status;
    if (wus_dev != NULL)
        FORWARD_IF_ERROR(oc_wus_launch_before(wus_dev, 1, ratio, n, src, src_sizes, dst, caps, &w, stream));
    FORWARD_IF_ERROR(oc_filter_launch_before(filt_dev, filt_bytes, 1, fmode, ft, n, w.src_dev,
                                             w.src_sizes_dev, w.dst_dev, w.dst_caps_dev, w.dst_sizes_dev,
                                             w.statuses_dev, &f, stream));
    FORWARD_IF_ERROR(launch(codec_scratch, codec_bytes, cfg, n, f.src_dev, f.src_sizes_dev, f.dst_dev,
                            f.dst_caps_dev, f.dst_sizes_dev, f.statuses_dev, stream));
    FORWARD_IF_ERROR(
        oc_filter_launch_after(filt_dev, fmode, ft, n, w.dst_dev, w.dst_sizes_dev, w.statuses_dev, stream));
    if (wus_dev == NULL)
        return OC_OK;
    return oc_wus_launch_after(wus_dev, 1, n, src_sizes, dst, res_sizes, res_status, stream);
}

/* forced: a codec to run instead of the table's (tests only: its scratch
 * and launch for `op`); NULL for every public call. */
static oc_status oc_batch_run(oc_context *ctx, const oc_codec_options *options, oc_batch_op op, size_t n,
                              const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                              const size_t *dst_caps, size_t *out_sizes, oc_status *statuses,
                              const oc_gpu_codec *forced, const oc_packed_layout *pk)
{
    if (ctx == NULL || options == NULL || !OC_OPTIONS_SIZE_OK(options, oc_codec_options))
        return OC_ERR_INVALID_ARGUMENT;
    if (n > 0 && (src_ptrs == NULL || src_sizes == NULL))
        return OC_ERR_INVALID_ARGUMENT;
    if (n > 0 && op != OC_OP_SIZES && (dst_ptrs == NULL || dst_caps == NULL))
        return OC_ERR_INVALID_ARGUMENT;
    if (n > 0 && op == OC_OP_SIZES && out_sizes == NULL)
        return OC_ERR_INVALID_ARGUMENT;
    if (!oc_cuda_available())
        return OC_ERR_NO_DEVICE;
    if ((unsigned)options->algorithm >= OC_ALGO_COUNT)
        return OC_ERR_INVALID_ARGUMENT;
    if (n == 0)
        return OC_OK;
    /* WITH_UNCOMPRESSED_SIZE: headers around the codec; its size query reads
     * them alone.  Detection (OC_ALGO_NONE) is host-staged by the API. */
    int wus = options->kind == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
    int wus_sizes = wus && op == OC_OP_SIZES;
    if (wus && options->algorithm == OC_ALGO_NONE)
        return OC_ERR_UNSUPPORTED;
    const oc_gpu_codec *codec = wus_sizes ? NULL : forced ? forced : oc_gpu_codec_of(options->algorithm);
    oc_gpu_launch_fn launch = codec == NULL            ? NULL
                              : op == OC_OP_COMPRESS   ? codec->compress
                              : op == OC_OP_DECOMPRESS ? codec->decompress
                                                       : codec->decompressed_sizes;
    if (launch == NULL && !wus_sizes) /* the API stages such work through the CPU engine (oc_cuda_has_op) */
        return OC_ERR_UNSUPPORTED;
    if (n > ((size_t)1 << 40))
        return OC_ERR_INVALID_ARGUMENT;
    oc_gpu_config cfg;
    cfg.algorithm = options->algorithm;
    cfg.level = 0;
    cfg.max_capacity = (size_t)-1;
    cfg.typed = options->typed;
    cfg.sizes_only = op == OC_OP_SIZES;
    cfg.side = NULL;
    cfg.options = op == OC_OP_COMPRESS ? options : NULL;
    cfg.src_sizes_host = NULL;
    if (op == OC_OP_COMPRESS && pk == NULL && /* packed: the caller's sizes are not the chunks' (ranges) */
        (oc_gpu_address(src_sizes) == NULL || oc_cuda_pointer_kind(src_sizes) == OC_MEMORY_PINNED))
        cfg.src_sizes_host = src_sizes;
    if (op == OC_OP_COMPRESS)
        FORWARD_IF_ERROR(oc_resolve_level(options->algorithm, options->level, &cfg.level));
    oc_gpu_scratch_fn scratch_fn = codec == NULL          ? NULL
                                   : op == OC_OP_COMPRESS ? codec->compress_scratch
                                                          : codec->decompress_scratch;
    uint32_t ratio = oc_algo_expansion(options->algorithm);
    /* The filter around the codec (the CPU engine's rule, shuffle.h): its
     * slab is sized from the source sizes (compression) or capacities,
     * which the host must read; the API stages a call whose are device-only. */
    uint32_t ft = 1;
    int fmode = op == OC_OP_SIZES ? 0
                                  : oc_filter_of(options->filter, options->typesize,
                                                 options->algorithm == OC_ALGO_BLOSC, &ft);
    const size_t *fsizes = op == OC_OP_COMPRESS ? src_sizes : dst_caps;
    if (fmode && oc_gpu_address(fsizes) != NULL && oc_cuda_pointer_kind(fsizes) != OC_MEMORY_PINNED)
        return OC_ERR_UNSUPPORTED;

    int prev = -1;
    FORWARD_IF_ERROR(oc_cuda_enter(ctx, &prev));
    oc_status st = OC_OK;
    oc_cuda_state *s = NULL;
    cudaStream_t stream = oc_stream(ctx);
    size_t words = OC_ALIGN_UP(n * 8);
    size_t off_in = 0, off_sizes = 4 * words, off_status = 5 * words;
    size_t total = 5 * words + OC_ALIGN_UP(n * 4);
    size_t pk_off = total, pk_bytes = pk != NULL ? 4 * words : 0; /* the built pointer and size arrays */
    size_t wus_off = total + pk_bytes,
           wus_bytes = wus && !wus_sizes ? OC_ALIGN_UP(oc_wus_scratch_size(n)) : 0;
    size_t filt_off = wus_off + wus_bytes, filt_bytes = 0;
    if (fmode) {
        /* packed: the slab of the chunks in range (an out-of-range chunk's size, 2^64-1 say, is no chunk's)
         */
        size_t *in_range = NULL;
        if (pk != NULL && oc_host_readable(src_ptrs) && oc_host_readable(src_sizes) &&
            oc_host_readable(dst_ptrs) && oc_host_readable(dst_caps)) {
            const size_t *so = (const size_t *)src_ptrs, *dof = (const size_t *)dst_ptrs;
            if ((in_range = (size_t *)malloc(n * sizeof(size_t))) == NULL)
                return OC_ERR_OUT_OF_MEMORY;
            for (size_t i = 0; i < n; i++)
                in_range[i] = oc_packed_out(so[i], src_sizes[i], pk->src_bytes) ||
                                      oc_packed_out(dof[i], dst_caps[i], pk->dst_bytes)
                                  ? 0
                                  : fsizes[i];
        }
        filt_bytes = oc_filter_scratch_size(n, in_range != NULL ? in_range : fsizes);
        free(in_range);
    }
    if (filt_bytes > ((size_t)1 << 46)) /* an overflowing sum: no allocator gives this */
        return OC_ERR_OUT_OF_MEMORY;
    filt_bytes = OC_ALIGN_UP(filt_bytes);
    /* The codec's own scratch after the argument arrays; the largest
     * capacity is known when the capacities are host-readable. */
    size_t codec_off = filt_off + filt_bytes, codec_bytes = 0;
    if (scratch_fn != NULL) {
        if (op == OC_OP_DECOMPRESS &&
            (oc_gpu_address(dst_caps) == NULL || oc_cuda_pointer_kind(dst_caps) == OC_MEMORY_PINNED)) {
            cfg.max_capacity = 0;
            for (size_t i = 0; i < n; i++)
                if (dst_caps[i] > cfg.max_capacity && (pk == NULL || dst_caps[i] <= pk->dst_bytes))
                    cfg.max_capacity = dst_caps[i];
        }
        codec_bytes = scratch_fn(&cfg, n);
    }
    size_t dev_total = codec_off + OC_ALIGN_UP(codec_bytes); /* total: the argument arrays alone */
    uint8_t *dev = NULL;
    oc_pinned_slot *slot = NULL;

    /* Which arrays the GPU reaches as they are. */
    const void *g_in[4] = {oc_gpu_address(src_ptrs), oc_gpu_address(src_sizes),
                           op == OC_OP_SIZES ? NULL : oc_gpu_address(dst_ptrs),
                           op == OC_OP_SIZES ? NULL : oc_gpu_address(dst_caps)};
    const void *h_in[4] = {src_ptrs, src_sizes, op == OC_OP_SIZES ? NULL : dst_ptrs,
                           op == OC_OP_SIZES ? NULL : dst_caps};
    void *g_sizes = (void *)oc_gpu_address(out_sizes);
    void *g_status = (void *)oc_gpu_address(statuses);
    int need_in = 0;
    for (int k = 0; k < 4; k++)
        need_in |= h_in[k] != NULL && g_in[k] == NULL;
    int host_sizes = out_sizes != NULL && g_sizes == NULL;
    int host_status = statuses != NULL && g_status == NULL;

    st = oc_state_get(ctx, &s);
    if (st != OC_OK)
        goto out;
    if (op == OC_OP_DECOMPRESS && codec != NULL && codec->decompress_side)
        cfg.side = oc_side_get(s);
    st = oc_scratch(ctx, s, dev_total, &dev);
    if (st != OC_OK)
        goto out;
    if (need_in || host_sizes || host_status) {
        st = oc_pinned_slot_get(ctx, s, OC_SLOT_HEADER + total, &slot);
        if (st != OC_OK)
            goto out;
    }
    if (need_in) {
        uint8_t *pin = slot->ptr + OC_SLOT_HEADER;
        for (int k = 0; k < 4; k++)
            if (h_in[k] != NULL && g_in[k] == NULL) {
                memcpy(pin + off_in + k * words, h_in[k], n * 8);
                g_in[k] = dev + off_in + k * words;
            }
        if (cudaMemcpyAsync(dev + off_in, pin + off_in, 4 * words, cudaMemcpyHostToDevice, stream) !=
            cudaSuccess) {
            st = OC_ERR_CUDA;
            goto out;
        }
    }
    const void *g_arr[4]; /* the caller's four arrays as the GPU reaches them (packed: the offsets) */
    for (int k = 0; k < 4; k++)
        g_arr[k] = g_in[k];
    if (pk != NULL) {
        uint8_t *b = dev + pk_off;
        for (int k = 0; k < 4; k++)
            g_in[k] = b + k * words;
        oc_packed_build_kernel<<<oc_packed_blocks(n), 256, 0, stream>>>(
            n, *pk, (const size_t *)g_arr[0], (const size_t *)g_arr[1], (const size_t *)g_arr[2],
            (const size_t *)g_arr[3], (const void **)g_in[0], (size_t *)g_in[1], (void **)g_in[2],
            (size_t *)g_in[3]);
        if (cudaGetLastError() != cudaSuccess) {
            st = OC_ERR_CUDA;
            goto out;
        }
    }
    {
        size_t *res_sizes = host_sizes ? (size_t *)(dev + off_sizes) : (size_t *)g_sizes;
        oc_status *res_status = host_status ? (oc_status *)(dev + off_status) : (oc_status *)g_status;
        void *codec_scratch = codec_bytes ? dev + codec_off : NULL;
        if (wus_sizes) {
            st = oc_wus_launch_sizes(ratio, n, (const void *const *)g_in[0], (const size_t *)g_in[1],
                                     res_sizes, res_status, stream);
        } else if (fmode) {
            st = oc_filtered_launch(launch, codec_scratch, codec_bytes, &cfg, n, g_in, res_sizes, res_status,
                                    wus ? dev + wus_off : NULL, ratio, dev + filt_off, filt_bytes, fmode, ft,
                                    op == OC_OP_DECOMPRESS, stream);
        } else if (wus) {
            int decode = op == OC_OP_DECOMPRESS;
            oc_wus_codec_args a;
            st = oc_wus_launch_before(dev + wus_off, decode, ratio, n, (const void *const *)g_in[0],
                                      (const size_t *)g_in[1], (void *const *)g_in[2],
                                      (const size_t *)g_in[3], &a, stream);
            if (st == OC_OK)
                st = launch(codec_scratch, codec_bytes, &cfg, n, a.src_dev, a.src_sizes_dev, a.dst_dev,
                            a.dst_caps_dev, a.dst_sizes_dev, a.statuses_dev, stream);
            if (st == OC_OK)
                st = oc_wus_launch_after(dev + wus_off, decode, n, (const size_t *)g_in[1],
                                         (void *const *)g_in[2], res_sizes, res_status, stream);
        } else {
            st = launch(codec_scratch, codec_bytes, &cfg, n, (const void *const *)g_in[0],
                        (const size_t *)g_in[1], (void *const *)g_in[2], (const size_t *)g_in[3], res_sizes,
                        res_status, stream);
            if (st == OC_OK && op == OC_OP_SIZES) /* the hostile-size guard (cuda_wus.h) */
                st = oc_size_guard_launch(ratio, n, (const size_t *)g_in[1], res_sizes, res_status, stream);
        }
        if (st == OC_OK && pk != NULL) {
            oc_packed_fix_kernel<<<oc_packed_blocks(n), 256, 0, stream>>>(
                n, *pk, (const size_t *)g_arr[0], (const size_t *)g_arr[1], (const size_t *)g_arr[2],
                (const size_t *)g_arr[3], res_sizes, res_status);
            if (cudaGetLastError() != cudaSuccess)
                st = OC_ERR_CUDA;
        }
    }
    if (st != OC_OK)
        goto out;
    if (host_sizes || host_status) {
        uint8_t *pin = slot->ptr + OC_SLOT_HEADER;
        if (cudaMemcpyAsync(pin + off_sizes, dev + off_sizes, total - off_sizes, cudaMemcpyDeviceToHost,
                            stream) != cudaSuccess) {
            st = OC_ERR_CUDA;
            goto out;
        }
        oc_writeback *w = (oc_writeback *)slot->ptr;
        w->n = n;
        w->user_sizes = host_sizes ? out_sizes : NULL;
        w->user_statuses = host_status ? statuses : NULL;
        w->pinned_sizes = (const size_t *)(pin + off_sizes);
        w->pinned_statuses = (const int32_t *)(pin + off_status);
        if (cudaLaunchHostFunc(stream, oc_writeback_fn, w) != cudaSuccess) {
            st = OC_ERR_CUDA;
            goto out;
        }
    }
    if (slot != NULL) {
        slot->used = 1;
        if (cudaEventRecord(slot->done, stream) != cudaSuccess)
            st = OC_ERR_CUDA;
    }
    if (st == OC_OK)
        st = oc_scratch_release(ctx, s);
out:
    if (st == OC_ERR_CUDA)
        (void)cudaGetLastError();
    oc_cuda_leave(ctx, prev);
    return st;
}

extern "C" oc_status oc_cuda_batch_compress(oc_context *ctx, const oc_codec_options *options, size_t n,
                                            const void *const *src_ptrs, const size_t *src_sizes,
                                            void *const *dst_ptrs, const size_t *dst_capacities,
                                            size_t *dst_sizes, oc_status *statuses)
{
    return oc_batch_run(ctx, options, OC_OP_COMPRESS, n, src_ptrs, src_sizes, dst_ptrs, dst_capacities,
                        dst_sizes, statuses, NULL, NULL);
}

extern "C" oc_status oc_cuda_batch_decompress(oc_context *ctx, const oc_codec_options *options, size_t n,
                                              const void *const *src_ptrs, const size_t *src_sizes,
                                              void *const *dst_ptrs, const size_t *dst_capacities,
                                              size_t *dst_sizes, oc_status *statuses)
{
    return oc_batch_run(ctx, options, OC_OP_DECOMPRESS, n, src_ptrs, src_sizes, dst_ptrs, dst_capacities,
                        dst_sizes, statuses, NULL, NULL);
}

extern "C" oc_status oc_cuda_batch_decompress_packed(oc_context *ctx, const oc_codec_options *options,
                                                     size_t n, const void *src, size_t src_bytes,
                                                     const size_t *src_offsets, const size_t *src_sizes,
                                                     void *dst, size_t dst_bytes, const size_t *dst_offsets,
                                                     const size_t *dst_capacities, size_t *dst_sizes,
                                                     oc_status *statuses)
{
    oc_packed_layout L;
    L.src = (const uint8_t *)src;
    L.src_bytes = src_bytes;
    L.dst = (uint8_t *)dst;
    L.dst_bytes = dst_bytes;
    /* the arrays travel in the pointer arrays' places (8-byte words alike) */
    return oc_batch_run(ctx, options, OC_OP_DECOMPRESS, n, (const void *const *)src_offsets, src_sizes,
                        (void *const *)dst_offsets, dst_capacities, dst_sizes, statuses, NULL, &L);
}

extern "C" oc_status oc_cuda_batch_compress_packed(oc_context *ctx, const oc_codec_options *options, size_t n,
                                                   const void *src, size_t src_bytes,
                                                   const size_t *src_offsets, const size_t *src_sizes,
                                                   void *dst, size_t dst_bytes, const size_t *dst_offsets,
                                                   const size_t *dst_capacities, size_t *dst_sizes,
                                                   oc_status *statuses)
{
    oc_packed_layout L;
    L.src = (const uint8_t *)src;
    L.src_bytes = src_bytes;
    L.dst = (uint8_t *)dst;
    L.dst_bytes = dst_bytes;
    return oc_batch_run(ctx, options, OC_OP_COMPRESS, n, (const void *const *)src_offsets, src_sizes,
                        (void *const *)dst_offsets, dst_capacities, dst_sizes, statuses, NULL, &L);
}

extern "C" oc_status oc_cuda_lz_decompress_forced(oc_context *ctx, oc_algorithm algo, int copy_only, size_t n,
                                                  const void *const *src_ptrs, const size_t *src_sizes,
                                                  void *const *dst_ptrs, const size_t *dst_capacities,
                                                  size_t *dst_sizes, oc_status *statuses)
{
    const oc_gpu_codec *codec;
    if (algo == OC_ALGO_LZ4)
        codec = copy_only ? &oc_gpu_codec_lz4_copy_only : &oc_gpu_codec_lz4_split;
    else if (algo == OC_ALGO_SNAPPY)
        codec = copy_only ? &oc_gpu_codec_snappy_copy_only : &oc_gpu_codec_snappy_split;
    else
        return OC_ERR_INVALID_ARGUMENT;
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = algo;
    return oc_batch_run(ctx, &o, OC_OP_DECOMPRESS, n, src_ptrs, src_sizes, dst_ptrs, dst_capacities,
                        dst_sizes, statuses, codec, NULL);
}

extern "C" oc_status oc_cuda_zstd_decompress_forced(oc_context *ctx, int lanes, size_t n,
                                                    const void *const *src_ptrs, const size_t *src_sizes,
                                                    void *const *dst_ptrs, const size_t *dst_capacities,
                                                    size_t *dst_sizes, oc_status *statuses)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    return oc_batch_run(ctx, &o, OC_OP_DECOMPRESS, n, src_ptrs, src_sizes, dst_ptrs, dst_capacities,
                        dst_sizes, statuses,
                        lanes == 2   ? &oc_gpu_codec_zstd_frames
                        : lanes != 0 ? &oc_gpu_codec_zstd_lanes
                                     : &oc_gpu_codec_zstd_per_chunk,
                        NULL);
}

extern "C" oc_status oc_cuda_batch_decompressed_sizes(oc_context *ctx, const oc_codec_options *options,
                                                      size_t n, const void *const *src_ptrs,
                                                      const size_t *src_sizes, size_t *sizes,
                                                      oc_status *statuses)
{
    return oc_batch_run(ctx, options, OC_OP_SIZES, n, src_ptrs, src_sizes, NULL, NULL, sizes, statuses, NULL,
                        NULL);
}

/* ---- memory helpers ---------------------------------------------------- */

extern "C" oc_status oc_cuda_memory_alloc(oc_context *ctx, oc_memory_kind kind, size_t size, void **out)
{
    if (ctx == NULL || out == NULL)
        return OC_ERR_INVALID_ARGUMENT;
    if (kind != OC_MEMORY_DEVICE && kind != OC_MEMORY_PINNED)
        return OC_ERR_INVALID_ARGUMENT;
    int prev = -1;
    FORWARD_IF_ERROR(oc_cuda_enter(ctx, &prev));
    void *p = kind == OC_MEMORY_DEVICE ? oc_cuda_dev_alloc(ctx, size ? size : 1)
                                       : oc_pinned_alloc(ctx, size ? size : 1);
    oc_cuda_leave(ctx, prev);
    if (p == NULL)
        return OC_ERR_OUT_OF_MEMORY;
    *out = p;
    return OC_OK;
}

extern "C" void oc_cuda_memory_free(oc_context *ctx, oc_memory_kind kind, void *ptr, size_t size)
{
    if (ctx == NULL || ptr == NULL)
        return;
    int prev = -1;
    if (oc_cuda_enter(ctx, &prev) != OC_OK)
        return;
    if (kind == OC_MEMORY_DEVICE)
        oc_cuda_dev_free(ctx, ptr, size ? size : 1);
    else if (kind == OC_MEMORY_PINNED)
        oc_pinned_free(ctx, ptr, size ? size : 1);
    oc_cuda_leave(ctx, prev);
}

extern "C" oc_status oc_cuda_memory_copy(oc_context *ctx, void *dst, const void *src, size_t n)
{
    if (ctx == NULL || (n > 0 && (dst == NULL || src == NULL)))
        return OC_ERR_INVALID_ARGUMENT;
    if (n == 0)
        return OC_OK;
    int prev = -1;
    FORWARD_IF_ERROR(oc_cuda_enter(ctx, &prev));
    cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, oc_stream(ctx));
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    oc_cuda_leave(ctx, prev);
    return e == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

extern "C" oc_status oc_cuda_synchronize(oc_context *ctx)
{
    if (ctx == NULL)
        return OC_ERR_INVALID_ARGUMENT;
    if (!oc_cuda_available())
        return OC_OK;
    int prev = -1;
    FORWARD_IF_ERROR(oc_cuda_enter(ctx, &prev));
    cudaError_t e = cudaStreamSynchronize(oc_stream(ctx));
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    oc_cuda_leave(ctx, prev);
    return e == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

/* ---- streams: the context's own, and ordering between streams ----------- */

extern "C" oc_status oc_cuda_stream_create(oc_context *ctx, void **out)
{
    int prev = -1;
    FORWARD_IF_ERROR(oc_cuda_enter(ctx, &prev));
    cudaStream_t st = NULL;
    cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    if (e != cudaSuccess)
        (void)cudaGetLastError();
    oc_cuda_leave(ctx, prev);
    if (e != cudaSuccess)
        return OC_ERR_CUDA;
    *out = (void *)st;
    return OC_OK;
}

extern "C" void oc_cuda_stream_destroy(oc_context *ctx, void *stream)
{
    int prev = -1;
    if (stream == NULL || oc_cuda_forked() || oc_cuda_enter(ctx, &prev) != OC_OK)
        return;
    /* returns at once; CUDA frees the stream when its work is done */
    if (cudaStreamDestroy((cudaStream_t)stream) != cudaSuccess)
        (void)cudaGetLastError();
    oc_cuda_leave(ctx, prev);
}

extern "C" oc_status oc_cuda_wait_stream(oc_context *ctx, void *other)
{
    int prev = -1;
    FORWARD_IF_ERROR(oc_cuda_enter(ctx, &prev));
    oc_cuda_state *s = NULL;
    oc_status st = oc_state_get(ctx, &s);
    if (st == OC_OK && s->order_event == NULL &&
        cudaEventCreateWithFlags(&s->order_event, cudaEventDisableTiming) != cudaSuccess) {
        s->order_event = NULL;
        st = OC_ERR_CUDA;
    }
    if (st == OC_OK && (cudaEventRecord(s->order_event, (cudaStream_t)other) != cudaSuccess ||
                        cudaStreamWaitEvent(oc_stream(ctx), s->order_event, 0) != cudaSuccess))
        st = OC_ERR_CUDA;
    if (st == OC_ERR_CUDA)
        (void)cudaGetLastError();
    oc_cuda_leave(ctx, prev);
    return st;
}
