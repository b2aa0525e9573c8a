/*
 * lz_enc_dev.cu - harness of the LZ4 and Snappy GPU compressors (issue 13,
 * bench/NOTES.md "Compressors (issue 13)"): the library's kernel and the
 * variants of dev_lz_enc.cuh compress the same batch, the benchmark's mix
 * (batch_plan.h: the files cut into chunks, interleaved, repeated up to
 * --min-bytes, default 1 GiB, in 64 KiB chunks), and every output chunk is
 * decoded by the reference library (liblz4's LZ4_decompress_safe, snappy's
 * snappy_uncompress) and compared with its input before the variant is
 * timed (CUDA events around one launch, a warm-up, median of --repeats).
 *
 *   lz_enc_dev [--algo lz4|snappy|both] [--chunk BYTES] [--min-bytes N]
 *              [--repeats N] [--variants NAME,...] FILE...
 *
 * Prints one line per algorithm and variant: GB/s of uncompressed bytes,
 * the ratio (input bytes / output bytes), the speed relative to the
 * library's kernel, and whether the bytes equal the library's.  Exits 1 if
 * any output fails to decode to its input or any status is not OK.
 */
#include <lz4.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "../batch_plan.h"
#include "dev_lz_enc.h"

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                      \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

typedef int (*launch_fn)(int, const oc_cuda_batch *, cudaStream_t, const lze_variant **);

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

static int wanted(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t k = strlen(name);
    for (const char *s = list; *s;) {
        const char *e = strchr(s, ',');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == k && strncmp(s, name, k) == 0)
            return 1;
        s += l + (e ? 1 : 0);
    }
    return 0;
}

/* Decode chunk i's output with the reference library; 1 if it gives the input. */
static int check_chunk(int snappy, const uint8_t *out, size_t outn, const uint8_t *in, size_t inn,
                       std::vector<uint8_t> &tmp)
{
    if (snappy) {
        size_t len = 0;
        if (snappy_uncompressed_length((const char *)out, outn, &len) != SNAPPY_OK || len != inn)
            return 0;
        size_t got = tmp.size();
        if (snappy_uncompress((const char *)out, outn, (char *)tmp.data(), &got) != SNAPPY_OK || got != inn)
            return 0;
    } else {
        int got = LZ4_decompress_safe((const char *)out, (char *)tmp.data(), (int)outn, (int)tmp.size());
        if (got < 0 || (size_t)got != inn)
            return 0;
    }
    return memcmp(tmp.data(), in, inn) == 0;
}

int main(int argc, char **argv)
{
    const char *algo = "both", *variants = NULL;
    uint64_t chunk = 65536, min_bytes = (uint64_t)1 << 30;
    int repeats = 5, nfiles = 0;
    std::vector<const char *> paths;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--algo") == 0 && v)
            algo = v, i++;
        else if (strcmp(a, "--chunk") == 0 && v && ocb_parse_bytes(v, &chunk) == 0)
            i++;
        else if (strcmp(a, "--min-bytes") == 0 && v && ocb_parse_bytes(v, &min_bytes) == 0)
            i++;
        else if (strcmp(a, "--repeats") == 0 && v && atoi(v) > 0)
            repeats = atoi(v), i++;
        else if (strcmp(a, "--variants") == 0 && v)
            variants = v, i++;
        else if (a[0] == '-') {
            fprintf(stderr, "usage: lz_enc_dev [--algo lz4|snappy|both] [--chunk B] [--min-bytes N] "
                            "[--repeats N] [--variants A,B] FILE...\n");
            return 2;
        } else
            paths.push_back(a);
    }
    nfiles = (int)paths.size();
    if (nfiles == 0 || chunk > 0x7E000000u) {
        fprintf(stderr, "lz_enc_dev: no files, or a chunk too large\n");
        return 2;
    }
    std::vector<uint8_t *> data(nfiles);
    std::vector<uint64_t> sizes(nfiles);
    for (int f = 0; f < nfiles; f++) {
        size_t n = 0;
        data[f] = read_file(paths[f], &n);
        sizes[f] = n;
        if (!data[f] || n == 0) {
            fprintf(stderr, "lz_enc_dev: cannot read %s (or it is empty)\n", paths[f]);
            return 2;
        }
    }
    ocb_plan plan;
    if (ocb_plan_make(&plan, sizes.data(), (size_t)nfiles, (size_t)chunk) != 0) {
        fprintf(stderr, "lz_enc_dev: cannot plan the batch\n");
        return 2;
    }
    uint64_t total = 0;
    size_t n = ocb_plan_rung_chunks(&plan, min_bytes, &total);
    uint64_t in_bytes = ocb_plan_buffer_bytes(&plan, n);
    std::vector<uint8_t> host_in(in_bytes);
    std::vector<size_t> in_sizes(n), in_off(n);
    for (size_t i = 0; i < n; i++) {
        const ocb_chunk *c = ocb_plan_chunk(&plan, i);
        in_off[i] = ocb_plan_offset(&plan, i);
        in_sizes[i] = c->size;
        memcpy(host_in.data() + in_off[i], data[c->file] + c->offset, c->size);
    }
    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    printf("lz_enc_dev: %s, %d SMs; %d files; %zu chunks of %llu bytes, %llu bytes; median of %d\n",
           prop.name, prop.multiProcessorCount, nfiles, n, (unsigned long long)chunk,
           (unsigned long long)total, repeats);

    /* device batch: inputs in one buffer, outputs of capacity `cap` each */
    size_t bound =
        std::max((size_t)LZ4_compressBound((int)chunk), snappy_max_compressed_length((size_t)chunk));
    size_t cap = (bound + 255) & ~(size_t)255;
    uint8_t *d_in, *d_out;
    CUDA_OK(cudaMalloc(&d_in, in_bytes));
    CUDA_OK(cudaMalloc(&d_out, cap * n));
    CUDA_OK(cudaMemcpy(d_in, host_in.data(), in_bytes, cudaMemcpyHostToDevice));
    std::vector<const uint8_t *> h_src(n);
    std::vector<uint8_t *> h_dst(n);
    std::vector<size_t> h_caps(n, cap);
    for (size_t i = 0; i < n; i++) {
        h_src[i] = d_in + in_off[i];
        h_dst[i] = d_out + i * cap;
    }
    const uint8_t **d_src;
    uint8_t **d_dst;
    size_t *d_sizes, *d_caps, *d_outsizes;
    int32_t *d_st;
    CUDA_OK(cudaMalloc(&d_src, n * sizeof *d_src));
    CUDA_OK(cudaMalloc(&d_dst, n * sizeof *d_dst));
    CUDA_OK(cudaMalloc(&d_sizes, n * sizeof *d_sizes));
    CUDA_OK(cudaMalloc(&d_caps, n * sizeof *d_caps));
    CUDA_OK(cudaMalloc(&d_outsizes, n * sizeof *d_outsizes));
    CUDA_OK(cudaMalloc(&d_st, n * sizeof *d_st));
    CUDA_OK(cudaMemcpy(d_src, h_src.data(), n * sizeof *d_src, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_dst, h_dst.data(), n * sizeof *d_dst, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_sizes, in_sizes.data(), n * sizeof *d_sizes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d_caps, h_caps.data(), n * sizeof *d_caps, cudaMemcpyHostToDevice));
    oc_cuda_batch b;
    b.n = n;
    b.src = d_src;
    b.src_sizes = d_sizes;
    b.dst = d_dst;
    b.dst_caps = d_caps;
    b.dst_sizes = d_outsizes;
    b.statuses = d_st;

    cudaStream_t s;
    CUDA_OK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    std::vector<uint8_t> host_out(cap * n), lib_out;
    std::vector<size_t> out_sizes(n), lib_sizes;
    std::vector<int32_t> st(n);
    std::vector<uint8_t> tmp(chunk);
    int bad = 0;
    for (int snappy = 0; snappy < 2; snappy++) {
        const char *an = snappy ? "snappy" : "lz4";
        if (strcmp(algo, "both") != 0 && strcmp(algo, an) != 0)
            continue;
        launch_fn launch = snappy ? lze_launch_snappy : lze_launch_lz4;
        double lib_gbs = 0;
        lib_sizes.clear();
        for (int v = 0;; v++) {
            const lze_variant *info = NULL;
            if (launch(v, NULL, s, &info) != 0)
                break;
            if (v != 0 && !wanted(variants, info->name))
                continue;
            CUDA_OK(cudaMemset(d_outsizes, 0xff, n * sizeof *d_outsizes));
            if (launch(v, &b, s, NULL) != 0) {
                fprintf(stderr, "%s %s: launch failed\n", an, info->name);
                return 2;
            }
            CUDA_OK(cudaStreamSynchronize(s));
            CUDA_OK(cudaMemcpy(out_sizes.data(), d_outsizes, n * sizeof(size_t), cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(st.data(), d_st, n * sizeof(int32_t), cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(host_out.data(), d_out, cap * n, cudaMemcpyDeviceToHost));
            uint64_t out_total = 0;
            size_t failed = 0, first_fail = 0;
            int same = v != 0 && !lib_sizes.empty();
            for (size_t i = 0; i < n; i++) {
                int ok = st[i] == 0 && out_sizes[i] <= cap &&
                         check_chunk(snappy, host_out.data() + i * cap, out_sizes[i],
                                     host_in.data() + in_off[i], in_sizes[i], tmp);
                if (!ok && failed++ == 0)
                    first_fail = i;
                out_total += out_sizes[i] <= cap ? out_sizes[i] : 0;
                if (same && (out_sizes[i] != lib_sizes[i] ||
                             memcmp(host_out.data() + i * cap, lib_out.data() + i * cap, out_sizes[i]) != 0))
                    same = 0;
            }
            if (v == 0) {
                lib_sizes = out_sizes;
                lib_out = host_out;
            }
            if (failed) {
                printf("%-6s %-12s FAILED: %zu chunks do not decode to their input (first: chunk %zu, status "
                       "%d, "
                       "%zu bytes)\n",
                       an, info->name, failed, first_fail, (int)st[first_fail], out_sizes[first_fail]);
                bad = 1;
                continue;
            }
            std::vector<float> ms(repeats);
            for (int r = 0; r < repeats; r++) {
                CUDA_OK(cudaEventRecord(e0, s));
                launch(v, &b, s, NULL);
                CUDA_OK(cudaEventRecord(e1, s));
                CUDA_OK(cudaEventSynchronize(e1));
                CUDA_OK(cudaEventElapsedTime(&ms[r], e0, e1));
            }
            std::sort(ms.begin(), ms.end());
            double gbs = (double)total / (ms[repeats / 2] * 1e-3) / 1e9;
            if (v == 0)
                lib_gbs = gbs;
            printf("%-6s %-12s ht%d skip %-2d %s multi%d  ratio %6.4f  %8.2f GB/s  %5.3fx library  %s, all "
                   "decoded\n",
                   an, info->name, info->ht_log, info->skip, info->many ? "many  " : "nomany", info->multi,
                   (double)total / (double)out_total, gbs, lib_gbs > 0 ? gbs / lib_gbs : 0.0,
                   v == 0 ? "(the library)"
                   : same ? "same bytes as the library"
                          : "other bytes");
            fflush(stdout);
        }
    }
    printf("lz_enc_dev: %s\n", bad ? "FAILED" : "all outputs checked");
    return bad;
}
