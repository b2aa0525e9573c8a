/*
 * cuda_buffer.h - what the whole-buffer layer on device buffers
 * (cuda_buffer.cu: compression, cuda_buffer_decode.cu: decompression)
 * shares: a CUDA error as a status, grid sizes, and the device kernels
 * both directions use (device memory and the current device are the
 * engine's: cuda_engine.h).  What these paths do not run (host output buffers,
 * containers without an index, algorithms without GPU codecs) they leave
 * to the API layer, which stages it through the CPU engine.
 */
#ifndef OC_CUDA_BUFFER_H
#define OC_CUDA_BUFFER_H

#include <cuda_runtime.h>

#include "../runtime/cuda_engine.h"

/* OK, or OC_ERR_CUDA (the error cleared). */
oc_status oc_cuda_buffer_err(cudaError_t e);

/* Blocks of per_block threads for n items (at least 1, at most 65535 * 16:
 * the kernels stride). */
static inline unsigned oc_buffer_grid(uint64_t n, unsigned per_block)
{
    uint64_t g = (n + per_block - 1) / per_block;
    if (g < 1)
        g = 1;
    return g > 65535u * 16 ? 65535u * 16 : (unsigned)g;
}

/* i over [0, n) across the whole grid. */
#define OC_GRID_STRIDE(i, n)                                                                                 \
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                              \
         i += (uint64_t)gridDim.x * blockDim.x)

/* XXH32 (seed 0) of p[0..len) by one block of 256 threads into *out: the
 * LZ4 content checksum (sequential by nature: 4 lanes, tiles in shared memory). */
cudaError_t oc_cuda_xxh32_whole_launch(const uint8_t *p, uint64_t len, uint32_t *out, cudaStream_t stream);

#endif /* OC_CUDA_BUFFER_H */
