/*
 * test_cuda_stream.c - the streaming writer and reader on a CUDA-engine
 * context (src/api/stream_device.c): each group of chunks is compressed or
 * decoded on the GPU, the caller's bytes staying in host memory.
 *
 * Guards, for every streaming container (LZ4 frame, zstd seekable, gzip
 * members, snappy framing) over ~20 MiB of real text and binary bytes
 * (several groups): a stream written on the GPU reads back to the input
 * on the CPU engine; a stream written on the CPU engine reads back on the
 * GPU; a stream with a damaged byte gives the GPU reader the CPU reader's
 * status and failed chunk (zstd: or CORRUPT where the CPU reader's checksum
 * catches what libzstd decoded to wrong bytes; docs/API.md "Per-chunk
 * errors").  Without a GPU (CI) the test says so and
 * passes; scripts/gpu-check runs it on a GPU machine.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_stream_util.h"

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;

static oc_status write_stream(oc_context *ctx, oc_algorithm a, const unsigned char *src, size_t n, sink *out)
{
    oc_buffer_options o = tb_opts(a, OC_BITSTREAM_NATIVE, 65536, OC_CHECKSUM_VERIFY);
    oc_stream_writer *w = NULL;
    memset(out, 0, sizeof *out);
    oc_status st = oc_stream_writer_create(ctx, &o, OC_SIZE_UNKNOWN, sink_write, out, &w);
    for (size_t pos = 0; st == OC_OK && pos < n;) {
        size_t piece = 1 + (size_t)(tb_rng(&g_rng) % 3000000);
        piece = piece < n - pos ? piece : n - pos;
        st = oc_stream_writer_write(w, src + pos, piece);
        pos += piece;
    }
    if (st == OC_OK)
        st = oc_stream_writer_finish(w, NULL);
    oc_stream_writer_destroy(w);
    return st;
}

static oc_status read_stream(oc_context *ctx, const unsigned char *src, size_t n, sink *out, uint64_t *failed)
{
    oc_stream_position pos;
    oc_status st = read_whole_stream(ctx, NULL, src, n, 1 << 20, &g_rng, out, &pos);
    *failed = pos.failed_chunk;
    return st;
}

int main(void)
{
    if (oc_cuda_device_count() == 0) {
        printf("SKIP: test_cuda_stream needs a CUDA GPU (%s); run scripts/gpu-check on a GPU machine\n",
               oc_build_info());
        return 0;
    }
    oc_context_options go = OC_CONTEXT_OPTIONS_INIT, co = OC_CONTEXT_OPTIONS_INIT;
    go.engine = OC_ENGINE_CUDA;
    co.engine = OC_ENGINE_CPU;
    oc_context *gpu = NULL, *cpu = NULL;
    CHECK_ST(oc_context_create(&go, &gpu), OC_OK);
    CHECK_ST(oc_context_create(&co, &cpu), OC_OK);
    if (!gpu || !cpu)
        return tb_finish("test_cuda_stream");
    /* ~20 MiB: this repo's text and a system binary, alternating */
    tb_data text = tb_text(4u << 20), bin = tb_binary(4u << 20);
    size_t n = 0, cap = 20u << 20;
    unsigned char *data = (unsigned char *)tb_xmalloc(cap);
    for (int k = 0; n < cap; k++) {
        const tb_data *d = (k % 2) ? &bin : &text;
        size_t take = d->n < cap - n ? d->n : cap - n;
        memcpy(data + n, d->p, take);
        n += take;
    }
    static const oc_algorithm algos[] = {OC_ALGO_LZ4, OC_ALGO_ZSTD, OC_ALGO_GZIP, OC_ALGO_SNAPPY};
    for (size_t i = 0; i < sizeof algos / sizeof algos[0]; i++) {
        oc_algorithm a = algos[i];
        const char *name = oc_algorithm_name(a);
        sink g, c, back;
        uint64_t failed = 0, cfailed = 0;
        /* written on the GPU, read on the CPU */
        CHECK_ST(write_stream(gpu, a, data, n, &g), OC_OK);
        CHECK_ST(read_stream(cpu, g.p, g.n, &back, &failed), OC_OK);
        if (!(back.n == n && !memcmp(back.p, data, n))) {
            fprintf(stderr, "%s: the GPU-written stream does not read back on the CPU\n", name);
            tb_failures++;
        }
        free(back.p);
        /* written on the CPU, read on the GPU */
        CHECK_ST(write_stream(cpu, a, data, n, &c), OC_OK);
        CHECK_ST(read_stream(gpu, c.p, c.n, &back, &failed), OC_OK);
        if (!(back.n == n && !memcmp(back.p, data, n))) {
            fprintf(stderr, "%s: the CPU-written stream does not read back on the GPU\n", name);
            tb_failures++;
        }
        free(back.p);
        /* a damaged byte a third of the way in: the same verdict */
        c.p[c.n / 3] ^= 0x21;
        oc_status gs = read_stream(gpu, c.p, c.n, &back, &failed);
        free(back.p);
        oc_status cs = read_stream(cpu, c.p, c.n, &back, &cfailed);
        free(back.p);
        /* zstd: the GPU decoder also refuses frames libzstd decodes to wrong
         * bytes (docs/API.md "Per-chunk errors"): CORRUPT where the CPU
         * engine's seek-table checksum says CHECKSUM_MISMATCH, same chunk */
        int zstd_stricter = a == OC_ALGO_ZSTD && gs == OC_ERR_CORRUPT && cs == OC_ERR_CHECKSUM_MISMATCH;
        if (gs == OC_OK || (gs != cs && !zstd_stricter) || failed != cfailed) {
            fprintf(stderr, "%s: damaged stream: GPU %s (chunk %llu), CPU %s (chunk %llu)\n", name,
                    oc_status_name(gs), (unsigned long long)failed, oc_status_name(cs),
                    (unsigned long long)cfailed);
            tb_failures++;
        }
        printf("%-7s %zu bytes: GPU-written %zu bytes read on the CPU, CPU-written %zu read on the GPU, "
               "damaged: GPU %s, CPU %s (chunk %llu)\n",
               name, n, g.n, c.n, oc_status_name(gs), oc_status_name(cs), (unsigned long long)failed);
        free(g.p);
        free(c.p);
    }
    free(data);
    free(text.p);
    free(bin.p);
    oc_context_destroy(gpu);
    oc_context_destroy(cpu);
    return tb_finish("test_cuda_stream");
}
