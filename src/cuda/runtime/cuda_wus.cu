/*
 * cuda_wus.cu - the WITH_UNCOMPRESSED_SIZE kind's kernels on the CUDA
 * engine (cuda_wus.h): a thread per chunk reads or writes its 8-byte header
 * around any GPU codec's launch, with the check every engine runs
 * (src/common/wus.h's oc_wus_read, host and device code), so device
 * batches need no host copy of a header and no synchronisation.  They read
 * 8 bytes and a few words per chunk: negligible beside the codec.
 */
#include <cuda_runtime.h>

#include "../../common/wus.h"
#include "cuda_wus.h"

#define OC_WUS_THREADS 256

/* The scratch: the codec's four argument arrays, the header sizes and the
 * codec's sizes (words), the statuses found before the codec and the
 * codec's statuses (32-bit), each from a 256-byte boundary. */
typedef struct oc_wus_arrays {
    const void **src;
    size_t *src_sizes;
    void **dst;
    size_t *caps;
    uint64_t *want; /* decoding: each header's size */
    size_t *sizes;  /* the codec's */
    oc_status *pre; /* the status found before the codec (OK: the codec's stands) */
    oc_status *st;  /* the codec's */
} oc_wus_arrays;

static size_t oc_wus_align(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

extern "C" size_t oc_wus_scratch_size(size_t n)
{
    return 6 * oc_wus_align(n * 8) + 2 * oc_wus_align(n * sizeof(oc_status));
}

static oc_wus_arrays oc_wus_carve(void *scratch_dev, size_t n)
{
    uint8_t *p = (uint8_t *)scratch_dev;
    size_t w = oc_wus_align(n * 8), s = oc_wus_align(n * sizeof(oc_status));
    oc_wus_arrays a;
    a.src = (const void **)p;
    a.src_sizes = (size_t *)(p + w);
    a.dst = (void **)(p + 2 * w);
    a.caps = (size_t *)(p + 3 * w);
    a.want = (uint64_t *)(p + 4 * w);
    a.sizes = (size_t *)(p + 5 * w);
    a.pre = (oc_status *)(p + 6 * w);
    a.st = (oc_status *)(p + 6 * w + s);
    return a;
}

static unsigned oc_wus_grid(size_t n)
{
    size_t b = (n + OC_WUS_THREADS - 1) / OC_WUS_THREADS;
    return (unsigned)(b > 65535 ? 65535 : b);
}

#define OC_WUS_FOR(i, n)                                                                                     \
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                                  \
         i += (size_t)gridDim.x * blockDim.x)

static __global__ void oc_k_wus_before(oc_wus_arrays a, int decode, uint32_t ratio, size_t n,
                                       const void *const *src_dev, const size_t *src_sizes_dev,
                                       void *const *dst_dev, const size_t *dst_caps_dev)
{
    OC_WUS_FOR(i, n)
    {
        const uint8_t *src = (const uint8_t *)src_dev[i];
        uint8_t *dst = (uint8_t *)dst_dev[i];
        size_t sn = src_sizes_dev[i], cap = dst_caps_dev[i];
        uint64_t want = 0;
        oc_status st = OC_OK;
        if ((src == NULL && sn != 0) || (dst == NULL && cap != 0))
            st = OC_ERR_INVALID_ARGUMENT;
        else if (decode && (st = oc_wus_read(src, sn, ratio, &want)) == OC_OK && want > cap)
            st = OC_ERR_OUTPUT_TOO_SMALL;
        else if (!decode && cap < OC_WUS_HEADER)
            st = OC_ERR_OUTPUT_TOO_SMALL;
        int ok = st == OC_OK;
        size_t in = decode && ok ? OC_WUS_HEADER : 0, out = !decode && ok ? OC_WUS_HEADER : 0;
        /* a chunk that failed here runs as an empty one: its status stays */
        a.src[i] = src == NULL ? NULL : src + in;
        a.src_sizes[i] = ok ? sn - in : 0;
        a.dst[i] = dst == NULL ? NULL : dst + out;
        a.caps[i] = ok ? cap - out : 0;
        a.want[i] = want;
        a.pre[i] = st;
    }
}

static __global__ void oc_k_wus_after(oc_wus_arrays a, int decode, size_t n, const size_t *src_sizes_dev,
                                      void *const *dst_dev, size_t *dst_sizes_dev, oc_status *statuses_dev)
{
    OC_WUS_FOR(i, n)
    {
        oc_status st = a.pre[i] != OC_OK ? a.pre[i] : a.st[i];
        size_t size = a.sizes[i];
        if (decode && st == OC_OK && size != a.want[i])
            st = OC_ERR_SIZE_MISMATCH;
        if (!decode && st == OC_OK) {
            oc_store_le64((uint8_t *)dst_dev[i], (uint64_t)src_sizes_dev[i]);
            size += OC_WUS_HEADER;
        }
        if (dst_sizes_dev)
            dst_sizes_dev[i] = st == OC_OK ? size : 0;
        if (statuses_dev)
            statuses_dev[i] = st;
    }
}

static __global__ void oc_k_wus_sizes(uint32_t ratio, size_t n, const void *const *src_dev,
                                      const size_t *src_sizes_dev, size_t *sizes_dev, oc_status *statuses_dev)
{
    OC_WUS_FOR(i, n)
    {
        const uint8_t *src = (const uint8_t *)src_dev[i];
        size_t sn = src_sizes_dev[i];
        uint64_t want = 0; /* size_t is 64-bit here: every header's size fits */
        oc_status st = src == NULL && sn != 0 ? OC_ERR_INVALID_ARGUMENT : oc_wus_read(src, sn, ratio, &want);
        sizes_dev[i] = st == OC_OK ? (size_t)want : 0;
        if (statuses_dev)
            statuses_dev[i] = st;
    }
}

static oc_status oc_wus_launched(void)
{
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

extern "C" oc_status oc_wus_launch_before(void *scratch_dev, int decode, uint32_t ratio, size_t n,
                                          const void *const *src_dev, const size_t *src_sizes_dev,
                                          void *const *dst_dev, const size_t *dst_caps_dev,
                                          oc_wus_codec_args *args, cudaStream_t stream)
{
    if (scratch_dev == NULL || args == NULL || n == 0)
        return OC_ERR_INVALID_ARGUMENT;
    oc_wus_arrays a = oc_wus_carve(scratch_dev, n);
    oc_k_wus_before<<<oc_wus_grid(n), OC_WUS_THREADS, 0, stream>>>(a, decode, ratio, n, src_dev,
                                                                   src_sizes_dev, dst_dev, dst_caps_dev);
    args->src_dev = a.src;
    args->src_sizes_dev = a.src_sizes;
    args->dst_dev = a.dst;
    args->dst_caps_dev = a.caps;
    args->dst_sizes_dev = a.sizes;
    args->statuses_dev = a.st;
    return oc_wus_launched();
}

extern "C" oc_status oc_wus_launch_after(void *scratch_dev, int decode, size_t n, const size_t *src_sizes_dev,
                                         void *const *dst_dev, size_t *dst_sizes_dev, oc_status *statuses_dev,
                                         cudaStream_t stream)
{
    if (scratch_dev == NULL || n == 0)
        return OC_ERR_INVALID_ARGUMENT;
    oc_k_wus_after<<<oc_wus_grid(n), OC_WUS_THREADS, 0, stream>>>(
        oc_wus_carve(scratch_dev, n), decode, n, src_sizes_dev, dst_dev, dst_sizes_dev, statuses_dev);
    return oc_wus_launched();
}

extern "C" oc_status oc_wus_launch_sizes(uint32_t ratio, size_t n, const void *const *src_dev,
                                         const size_t *src_sizes_dev, size_t *sizes_dev,
                                         oc_status *statuses_dev, cudaStream_t stream)
{
    if (sizes_dev == NULL || n == 0)
        return OC_ERR_INVALID_ARGUMENT;
    oc_k_wus_sizes<<<oc_wus_grid(n), OC_WUS_THREADS, 0, stream>>>(ratio, n, src_dev, src_sizes_dev, sizes_dev,
                                                                  statuses_dev);
    return oc_wus_launched();
}

static __global__ void oc_k_size_guard(uint32_t ratio, size_t n, const size_t *src_sizes_dev,
                                       size_t *sizes_dev, oc_status *statuses_dev)
{
    OC_WUS_FOR(i, n)
    {
        if (sizes_dev[i] > oc_max_decoded_at(ratio, src_sizes_dev[i])) {
            sizes_dev[i] = 0;
            if (statuses_dev)
                statuses_dev[i] = OC_ERR_CORRUPT;
        }
    }
}

extern "C" oc_status oc_size_guard_launch(uint32_t ratio, size_t n, const size_t *src_sizes_dev,
                                          size_t *sizes_dev, oc_status *statuses_dev, cudaStream_t stream)
{
    if (sizes_dev == NULL || n == 0)
        return OC_ERR_INVALID_ARGUMENT;
    oc_k_size_guard<<<oc_wus_grid(n), OC_WUS_THREADS, 0, stream>>>(ratio, n, src_sizes_dev, sizes_dev,
                                                                   statuses_dev);
    return oc_wus_launched();
}
