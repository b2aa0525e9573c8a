/*
 * lz_variants.cu - harness of the LZ4 and Snappy GPU decoders that left the
 * library, beside their CPU reference (llm.c's dev/cuda/ pattern): every
 * variant decodes the same chunks, compressed on the CPU by the reference
 * library (liblz4's LZ4_compress_default, snappy_compress), and its output
 * is checked byte for byte against the input before it is timed.
 *
 *   variant   kernel                                            notes
 *   serial    one warp, one element at a time (v3)              dev_*_kernels.cuh
 *   rounds    one warp, rounds of 32 elements (v4)              dev_*_decode_rounds.cuh
 *   pipe-v6c  two warps: parser + copier without byte rounds    dev_lz_decode_pipe.cuh
 *   pipe-v6d  two warps: parser + copier with byte rounds       = the library's decoder
 *
 * Usage: lz_variants [--algo lz4|snappy|both] [--chunk BYTES] [--repeats N] FILE...
 * Prints, per file, algorithm and variant, the decode rate in GB/s of
 * uncompressed bytes (CUDA events, median of N launches after a checked
 * first run) and its ratio to pipe-v6d.  Exits 1 if any variant's output
 * or status is wrong.  History and numbers: bench/NOTES.md (v3 .. v6e).
 */
#include <cuda_runtime.h>
#include <lz4.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev_lz4_kernels.cuh"
#include "dev_snappy_kernels.cuh"

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                      \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

enum { V_SERIAL, V_ROUNDS, V_PIPE_V6C, V_PIPE_V6D, V_COUNT };
static const char *const variant_names[V_COUNT] = {"serial", "rounds", "pipe-v6c", "pipe-v6d"};

static void launch(int snappy, int variant, const oc_cuda_batch &b, cudaStream_t s)
{
    unsigned warp_blocks = (unsigned)((b.n + OC_DECODE_WARPS - 1) / OC_DECODE_WARPS);
    if (variant == V_SERIAL && !snappy)
        oc_lz4_decompress_kernel<true, false><<<warp_blocks, OC_DECODE_WARPS * 32, 0, s>>>(b);
    else if (variant == V_ROUNDS && !snappy)
        oc_lz4_decompress_kernel<true, true><<<warp_blocks, OC_DECODE_WARPS * 32, 0, s>>>(b);
    else if (!snappy)
        oc_lz4_decompress_pipe_kernel<<<(unsigned)b.n, 64, 0, s>>>(b, variant == V_PIPE_V6D);
    else if (variant == V_SERIAL)
        oc_snappy_decompress_kernel<true, false><<<warp_blocks, OC_DECODE_WARPS * 32, 0, s>>>(b);
    else if (variant == V_ROUNDS)
        oc_snappy_decompress_kernel<true, true><<<warp_blocks, OC_DECODE_WARPS * 32, 0, s>>>(b);
    else
        oc_snappy_decompress_pipe_kernel<<<(unsigned)b.n, 64, 0, s>>>(b, variant == V_PIPE_V6D);
    CUDA_OK(cudaGetLastError());
}

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = (uint8_t *)malloc(len > 0 ? (size_t)len : 1);
    *n = p && len > 0 ? fread(p, 1, (size_t)len, f) : 0;
    fclose(f);
    return p;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* One file, one algorithm: every variant, checked then timed. */
static int run(const char *path, const uint8_t *data, size_t size, size_t chunk, int snappy, int repeats)
{
    size_t n = (size + chunk - 1) / chunk,
           bound = snappy ? snappy_max_compressed_length(chunk) : (size_t)LZ4_compressBound((int)chunk);
    uint8_t *comp = (uint8_t *)malloc(n * bound), *back = (uint8_t *)malloc(chunk);
    size_t *csize = (size_t *)malloc(n * sizeof(size_t)), *usize = (size_t *)malloc(n * sizeof(size_t));
    size_t total_c = 0;
    for (size_t i = 0; i < n; i++) { /* the CPU reference writes, and reads back, every chunk */
        const uint8_t *u = data + i * chunk;
        usize[i] = size - i * chunk < chunk ? size - i * chunk : chunk;
        size_t c = bound, d = chunk;
        if (snappy) {
            if (snappy_compress((const char *)u, usize[i], (char *)comp + i * bound, &c) != SNAPPY_OK ||
                snappy_uncompress((const char *)comp + i * bound, c, (char *)back, &d) != SNAPPY_OK)
                return 1;
        } else {
            c = (size_t)LZ4_compress_default((const char *)u, (char *)comp + i * bound, (int)usize[i],
                                             (int)bound);
            d = (size_t)LZ4_decompress_safe((const char *)comp + i * bound, (char *)back, (int)c, (int)chunk);
        }
        if (d != usize[i] || memcmp(back, u, d) != 0) {
            fprintf(stderr, "%s: the CPU reference does not round-trip chunk %zu\n", path, i);
            return 1;
        }
        csize[i] = c;
        total_c += c;
    }
    uint8_t *d_comp, *d_out;
    const uint8_t **h_src = (const uint8_t **)malloc(n * sizeof(void *));
    uint8_t **h_dst = (uint8_t **)malloc(n * sizeof(void *));
    CUDA_OK(cudaMalloc(&d_comp, n * bound));
    CUDA_OK(cudaMalloc(&d_out, n * chunk));
    CUDA_OK(cudaMemcpy(d_comp, comp, n * bound, cudaMemcpyHostToDevice));
    for (size_t i = 0; i < n; i++) {
        h_src[i] = d_comp + i * bound;
        h_dst[i] = d_out + i * chunk;
    }
    oc_cuda_batch b;
    void *arrays;
    CUDA_OK(cudaMalloc(&arrays, n * (4 * sizeof(size_t) + 2 * sizeof(void *) + sizeof(int32_t))));
    b.n = n;
    b.src = (const uint8_t *const *)arrays;
    b.dst = (uint8_t *const *)(b.src + n);
    b.src_sizes = (const size_t *)(b.dst + n);
    b.dst_caps = b.src_sizes + n;
    b.dst_sizes = (size_t *)(b.dst_caps + n);
    b.statuses = (int32_t *)(b.dst_sizes + n);
    CUDA_OK(cudaMemcpy((void *)b.src, h_src, n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)b.dst, h_dst, n * sizeof(void *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)b.src_sizes, csize, n * sizeof(size_t), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy((void *)b.dst_caps, usize, n * sizeof(size_t), cudaMemcpyHostToDevice));
    cudaStream_t s;
    cudaEvent_t t0, t1;
    CUDA_OK(cudaStreamCreate(&s));
    CUDA_OK(cudaEventCreate(&t0));
    CUDA_OK(cudaEventCreate(&t1));
    uint8_t *out = (uint8_t *)malloc(n * chunk);
    int32_t *st = (int32_t *)malloc(n * sizeof(int32_t));
    size_t *got = (size_t *)malloc(n * sizeof(size_t));
    float *ms = (float *)malloc((size_t)repeats * sizeof(float)), rate[V_COUNT];
    int bad = 0;
    for (int v = 0; v < V_COUNT; v++) {
        CUDA_OK(cudaMemset(d_out, 0, n * chunk));
        launch(snappy, v, b, s);
        CUDA_OK(cudaStreamSynchronize(s));
        CUDA_OK(cudaMemcpy(out, d_out, n * chunk, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(st, b.statuses, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(got, b.dst_sizes, n * sizeof(size_t), cudaMemcpyDeviceToHost));
        int ok = 1;
        for (size_t i = 0; i < n && ok; i++)
            ok = st[i] == OC_D_OK && got[i] == usize[i] &&
                 memcmp(out + i * chunk, data + i * chunk, usize[i]) == 0;
        if (!ok) {
            fprintf(stderr, "%s %s %s: output differs from the input\n", path, snappy ? "snappy" : "lz4",
                    variant_names[v]);
            bad = 1;
            rate[v] = 0;
            continue;
        }
        for (int r = 0; r < repeats; r++) {
            CUDA_OK(cudaEventRecord(t0, s));
            launch(snappy, v, b, s);
            CUDA_OK(cudaEventRecord(t1, s));
            CUDA_OK(cudaEventSynchronize(t1));
            CUDA_OK(cudaEventElapsedTime(&ms[r], t0, t1));
        }
        qsort(ms, (size_t)repeats, sizeof(float), cmp_float);
        rate[v] = (float)size / (ms[repeats / 2] * 1e-3f) / 1e9f;
    }
    for (int v = 0; v < V_COUNT; v++)
        printf("%-28s %-6s ratio %5.2f  %-8s %7.2f GB/s  %5.2fx pipe-v6d\n", path, snappy ? "snappy" : "lz4",
               (double)size / (double)(total_c ? total_c : 1), variant_names[v], rate[v],
               rate[V_PIPE_V6D] > 0 ? rate[v] / rate[V_PIPE_V6D] : 0.0);
    CUDA_OK(cudaFree(arrays));
    CUDA_OK(cudaFree(d_comp));
    CUDA_OK(cudaFree(d_out));
    CUDA_OK(cudaStreamDestroy(s));
    free(comp), free(back), free(csize), free(usize), free(h_src), free(h_dst), free(out), free(st),
        free(got);
    free(ms);
    return bad;
}

int main(int argc, char **argv)
{
    size_t chunk = 65536;
    int repeats = 5, algos = 3, bad = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--chunk") && i + 1 < argc) {
            chunk = strtoull(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--repeats") && i + 1 < argc) {
            repeats = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--algo") && i + 1 < argc) {
            i++;
            algos = !strcmp(argv[i], "lz4") ? 1 : !strcmp(argv[i], "snappy") ? 2 : 3;
        } else {
            size_t size = 0;
            uint8_t *data = read_file(argv[i], &size);
            if (!data || size == 0) {
                fprintf(stderr, "%s: cannot read (or empty)\n", argv[i]);
                return 2;
            }
            for (int a = 0; a < 2; a++)
                if (algos & (1 << a))
                    bad |= run(argv[i], data, size, chunk, a, repeats < 1 ? 1 : repeats);
            free(data);
            files++;
        }
    }
    if (files == 0 || chunk == 0 || chunk > ((size_t)1 << 30)) {
        fprintf(stderr,
                "usage: lz_variants [--algo lz4|snappy|both] [--chunk BYTES] [--repeats N] FILE...\n");
        return 2;
    }
    return bad;
}
