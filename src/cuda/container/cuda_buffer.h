/*
 * cuda_buffer.h - what the whole-buffer layer on device buffers
 * (cuda_buffer.cu: compression, cuda_buffer_decode.cu: decompression)
 * shares: device memory for one call and the device kernels both
 * directions use.  What these paths do not run (host output buffers,
 * containers without an index, algorithms without GPU codecs) they leave
 * to the API layer, which stages it through the CPU engine.
 */
#ifndef OC_CUDA_BUFFER_H
#define OC_CUDA_BUFFER_H

#include <cuda_runtime.h>

#include "../runtime/cuda_engine.h"

/* Device memory of one call through the context's allocator (stream-ordered). */
void *oc_cuda_buffer_alloc(oc_context *ctx, size_t size);
void oc_cuda_buffer_free(oc_context *ctx, void *p, size_t size);
/* Makes the context's device current; *prev gets the caller's (-1: none). */
oc_status oc_cuda_buffer_enter(oc_context *ctx, int *prev);
void oc_cuda_buffer_leave(oc_context *ctx, int prev);
oc_status oc_cuda_buffer_err(cudaError_t e);

/* XXH32 (seed 0) of p[0..len) by one block of 256 threads into *out: the
 * LZ4 content checksum (sequential by nature: 4 lanes, tiles in shared memory). */
cudaError_t oc_cuda_xxh32_whole_launch(const uint8_t *p, uint64_t len, uint32_t *out, cudaStream_t stream);

#endif /* OC_CUDA_BUFFER_H */
