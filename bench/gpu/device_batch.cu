/*
 * device_batch.cu - the ladder's batch on the GPU (device_batch.h): buffers,
 * argument arrays, and two small kernels: the byte-for-byte check of the
 * decoded chunks and the copy that repeats compressed slots.  Both work a
 * block per chunk with 16-byte loads where both ends are aligned (every
 * chunk starts 256-byte aligned, every slot too).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_batch.h"

#define CK(x)                                                                                                \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));              \
            return -1;                                                                                       \
        }                                                                                                    \
    } while (0)

/* Block i checks chunk i: status, size, then every byte against the input. */
__global__ void verify_kernel(size_t n, void *const *in_ptrs, void *const *out_ptrs, const size_t *in_sizes,
                              const size_t *out_sizes, const int32_t *status, unsigned long long *check)
{
    size_t i = blockIdx.x;
    if (i >= n)
        return;
    __shared__ int bad;
    if (threadIdx.x == 0)
        bad = status[i] != 0 || out_sizes[i] != in_sizes[i];
    __syncthreads();
    if (!bad) {
        const uint8_t *a = (const uint8_t *)in_ptrs[i], *b = (const uint8_t *)out_ptrs[i];
        size_t len = in_sizes[i], words = len / 16;
        const uint4 *a4 = (const uint4 *)a, *b4 = (const uint4 *)b;
        int mine = 0;
        for (size_t k = threadIdx.x; k < words; k += blockDim.x) {
            uint4 x = a4[k], y = b4[k];
            mine |= x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w;
        }
        for (size_t k = words * 16 + threadIdx.x; k < len; k += blockDim.x)
            mine |= a[k] != b[k];
        if (mine)
            bad = 1; /* benign race: every writer writes 1 */
        __syncthreads();
    }
    if (threadIdx.x == 0 && bad) {
        atomicAdd(&check[0], 1ull);
        atomicMin(&check[1], (unsigned long long)i);
    }
}

/* Block k copies slot (from + k) % period into slot from + k. */
__global__ void replicate_kernel(size_t from, size_t to, size_t period, uint8_t *comp, size_t slot,
                                 size_t *sizes)
{
    size_t dst = from + blockIdx.x;
    if (dst >= to)
        return;
    size_t src = dst % period;
    size_t len = sizes[src];
    const uint4 *s = (const uint4 *)(comp + src * slot);
    uint4 *d = (uint4 *)(comp + dst * slot);
    for (size_t k = threadIdx.x; k < (len + 15) / 16; k += blockDim.x)
        d[k] = s[k]; /* whole 16-byte words: a slot is a multiple of 256 bytes */
    if (threadIdx.x == 0)
        sizes[dst] = len;
}

/* Bytes the first n chunks span in the input/output buffers. */
static uint64_t span_bytes(const ocb_dev_batch *b, size_t n)
{
    return n ? b->offsets[n - 1] + b->in_sizes[n - 1] : 0;
}

static int upload(void **dst, const void *src, size_t bytes)
{
    CK(cudaMalloc(dst, bytes));
    CK(cudaMemcpy(*dst, src, bytes, cudaMemcpyHostToDevice));
    return 0;
}

int ocb_dev_batch_make(ocb_dev_batch *b, const ocb_plan *p, size_t n, const uint8_t *host)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    b->buf_bytes = ocb_plan_buffer_bytes(p, n);
    b->in_sizes = (size_t *)malloc(n * sizeof(size_t));
    b->offsets = (uint64_t *)malloc(n * sizeof(uint64_t));
    void **in = (void **)malloc(n * sizeof(void *)), **out = (void **)malloc(n * sizeof(void *));
    int rc = -1;
    if (!b->in_sizes || !b->offsets || !in || !out)
        goto done;
    if (cudaMalloc((void **)&b->in_dev, b->buf_bytes) != cudaSuccess ||
        cudaMalloc((void **)&b->out_dev, b->buf_bytes) != cudaSuccess ||
        cudaMemcpy(b->in_dev, host, b->buf_bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
        fprintf(stderr, "device batch: cannot allocate/upload 2 x %llu bytes: %s\n",
                (unsigned long long)b->buf_bytes, cudaGetErrorString(cudaGetLastError()));
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        b->in_sizes[i] = ocb_plan_chunk(p, i)->size;
        b->offsets[i] = ocb_plan_offset(p, i);
        in[i] = b->in_dev + b->offsets[i];
        out[i] = b->out_dev + b->offsets[i];
    }
    if (upload((void **)&b->in_ptrs_dev, in, n * sizeof(void *)) ||
        upload((void **)&b->out_ptrs_dev, out, n * sizeof(void *)) ||
        upload((void **)&b->in_sizes_dev, b->in_sizes, n * sizeof(size_t)) ||
        cudaMalloc((void **)&b->comp_sizes_dev, n * sizeof(size_t)) != cudaSuccess ||
        cudaMalloc((void **)&b->out_sizes_dev, n * sizeof(size_t)) != cudaSuccess ||
        cudaMalloc((void **)&b->status_dev, n * sizeof(int32_t)) != cudaSuccess ||
        cudaMalloc((void **)&b->check_dev, 2 * sizeof(unsigned long long)) != cudaSuccess)
        goto done;
    rc = 0;
done:
    free(in);
    free(out);
    if (rc)
        ocb_dev_batch_free(b);
    return rc;
}

void ocb_dev_batch_free(ocb_dev_batch *b)
{
    void *ps[] = {b->in_dev,         b->out_dev,       b->comp_dev,     b->in_ptrs_dev,
                  b->out_ptrs_dev,   b->comp_ptrs_dev, b->in_sizes_dev, b->comp_caps_dev,
                  b->comp_sizes_dev, b->out_sizes_dev, b->status_dev,   b->check_dev};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        cudaFree(ps[i]);
    free(b->in_sizes);
    free(b->offsets);
    memset(b, 0, sizeof *b);
}

int ocb_dev_set_slot(ocb_dev_batch *b, size_t slot)
{
    slot = (slot + OCB_ALIGN - 1) / OCB_ALIGN * OCB_ALIGN;
    if (slot == b->slot)
        return 0;
    cudaFree(b->comp_dev);
    cudaFree(b->comp_ptrs_dev);
    cudaFree(b->comp_caps_dev);
    b->comp_dev = NULL;
    b->comp_ptrs_dev = NULL;
    b->comp_caps_dev = NULL;
    b->slot = 0;
    void **ptrs = (void **)malloc(b->n * sizeof(void *));
    size_t *caps = (size_t *)malloc(b->n * sizeof(size_t));
    int rc = -1;
    if (!ptrs || !caps)
        goto done;
    if (cudaMalloc((void **)&b->comp_dev, b->n * slot) != cudaSuccess) {
        fprintf(stderr, "device batch: cannot allocate %zu compressed slots of %zu bytes\n", b->n, slot);
        goto done;
    }
    for (size_t i = 0; i < b->n; i++) {
        ptrs[i] = b->comp_dev + i * slot;
        caps[i] = slot;
    }
    if (upload((void **)&b->comp_ptrs_dev, ptrs, b->n * sizeof(void *)) ||
        upload((void **)&b->comp_caps_dev, caps, b->n * sizeof(size_t)))
        goto done;
    b->slot = slot;
    rc = 0;
done:
    free(ptrs);
    free(caps);
    return rc;
}

int ocb_dev_clear_out(ocb_dev_batch *b, size_t n)
{
    CK(cudaMemsetAsync(b->out_dev, 0xEE, span_bytes(b, n), 0));
    CK(cudaMemsetAsync(b->out_sizes_dev, 0xFF, n * sizeof(size_t), 0));
    CK(cudaMemsetAsync(b->status_dev, 0x7F, n * sizeof(int32_t), 0));
    return 0;
}

int ocb_dev_statuses_ok(const ocb_dev_batch *b, size_t n, size_t *first_bad, int32_t *status)
{
    int32_t *st = (int32_t *)malloc(n * sizeof *st);
    int ok = 0;
    if (st && cudaMemcpy(st, b->status_dev, n * sizeof *st, cudaMemcpyDeviceToHost) == cudaSuccess) {
        ok = 1;
        for (size_t i = 0; i < n; i++)
            if (st[i] != 0) {
                if (first_bad)
                    *first_bad = i;
                if (status)
                    *status = st[i];
                ok = 0;
                break;
            }
    }
    free(st);
    return ok;
}

int ocb_dev_verify(const ocb_dev_batch *b, size_t n, size_t *first_bad, size_t *bad_count)
{
    unsigned long long init[2] = {0, ~0ull}, got[2] = {1, 0};
    if (cudaMemcpy(b->check_dev, init, sizeof init, cudaMemcpyHostToDevice) != cudaSuccess)
        return 0;
    verify_kernel<<<(unsigned)n, 256>>>(n, b->in_ptrs_dev, b->out_ptrs_dev, b->in_sizes_dev, b->out_sizes_dev,
                                        b->status_dev, b->check_dev);
    if (cudaGetLastError() != cudaSuccess ||
        cudaMemcpy(got, b->check_dev, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess)
        return 0;
    if (first_bad)
        *first_bad = (size_t)got[1];
    if (bad_count)
        *bad_count = (size_t)got[0];
    return got[0] == 0;
}

uint64_t ocb_dev_comp_sizes(const ocb_dev_batch *b, size_t n, size_t *sizes)
{
    if (cudaMemcpy(sizes, b->comp_sizes_dev, n * sizeof(size_t), cudaMemcpyDeviceToHost) != cudaSuccess)
        return 0;
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += sizes[i];
    return sum;
}

int ocb_dev_replicate(ocb_dev_batch *b, size_t from, size_t to, size_t period)
{
    if (to <= from)
        return 0;
    if (period == 0 || from < period)
        return -1;
    replicate_kernel<<<(unsigned)(to - from), 256>>>(from, to, period, b->comp_dev, b->slot,
                                                     b->comp_sizes_dev);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    return 0;
}

int ocb_dev_put_comp(ocb_dev_batch *b, size_t first, size_t count, const uint8_t *host, const size_t *sizes)
{
    CK(cudaMemcpy(b->comp_dev + first * b->slot, host, count * b->slot, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b->comp_sizes_dev + first, sizes, count * sizeof(size_t), cudaMemcpyHostToDevice));
    return 0;
}

int ocb_dev_get_comp(const ocb_dev_batch *b, size_t count, uint8_t *host)
{
    CK(cudaMemcpy(host, b->comp_dev, count * b->slot, cudaMemcpyDeviceToHost));
    return 0;
}
