/*
 * test_cuda_lz_split.c - the GPU LZ4 and Snappy split decoders (chunks of
 * at most 64 KiB; src/cuda/codecs/lz_common/lz_split_launch.cuh with the
 * formats' parse steps, lz4_kernels.cu, snappy_kernels.cu) whose copy
 * kernel runs beside its parse kernel on a second stream, with a copy warp
 * decoding alone any chunk that no parse lane has claimed (its
 * "self-decode" path, which keeps progress guaranteed whatever the
 * scheduling) or that the parse gave back (a Snappy chunk needing more
 * records than its slot holds).  Runs on a GPU machine (scripts/gpu-check);
 * without a GPU it says SKIP and passes.
 *
 * Guards, per format, on real data (tu_corpus: text, an ELF binary,
 * source, a numeric column, random bytes, zeros) compressed by liblz4
 * (fast and HC) or libsnappy in chunks of 64 KiB, 4 KiB and 1000 bytes,
 * each also damaged (cut, bytes flipped, a random tail) and decoded with
 * its exact capacity, 64 KiB, one byte less, or less still, plus (Snappy)
 * hand-built hostile streams (preamble cut, too long, above 2^32 - 1; a
 * literal of 2^32 bytes; offsets 0 and before the start; past the
 * declared length; a declared length above the capacity with a corrupt
 * body; a stream of 1-byte copies that overflows the record slots):
 *   - the split decoder (parse and copy at once; forced on batches of any
 *     size, oc_cuda_lz_decompress_forced) gives every chunk exactly
 *     the status and size of the pipe decoder (the same batch with one
 *     chunk of capacity above 64 KiB, which sends the whole batch to the
 *     pipe), its OK chunks the CPU engine's bytes, and every status the
 *     CPU engine's (for LZ4 too: a block that overflows its capacity and
 *     is damaged further on is CORRUPT or TRUNCATED, as the CPU engine,
 *     which scans the whole block first, says);
 *   - the copy kernel alone (the parse never runs, so every chunk takes
 *     the self-decode path) gives the same statuses, sizes and bytes;
 *   - the public call gives them too (the pipe alone on a batch of fewer
 *     than OC_LZS_MIN_BATCH = 10,240 chunks, the split decoder on more);
 *   - both with the argument arrays in host memory (the largest capacity
 *     known: record slots sized for it) and in device memory (64 KiB
 *     slots); no write past any chunk's capacity (guard bytes);
 *   - OK, CORRUPT, TRUNCATED and OUTPUT_TOO_SMALL each occur, so no
 *     comparison passes vacuously;
 *   - (full size only) a batch of more than one wave (24,576 chunks).
 * OC_TEST_SMALL=1 shrinks the data (for compute-sanitizer runs).
 */
#include <lz4.h>
#include <lz4hc.h>
#include <snappy-c.h>
#include <string.h>

#include "cuda/runtime/cuda_engine.h"
#include "helpers/test_util.h"

#define GUARD 32
#define CAP_PIPE (65536 + 1) /* a capacity that sends the whole batch to the pipe decoder */

static oc_context *g_cpu, *g_gpu;
static int g_small;
static size_t g_seen[8];    /* statuses seen (OK, CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL) */
static oc_algorithm g_algo; /* the format under test */

typedef struct batch {
    size_t n, cap_n; /* chunks; allocated entries */
    uint8_t **data;  /* host copies of the inputs (owned) */
    size_t *len, *cap;
} batch;

static void batch_add(batch *b, const uint8_t *p, size_t len, size_t cap)
{
    if (b->n == b->cap_n) {
        b->cap_n = b->cap_n ? 2 * b->cap_n : 1024;
        b->data = realloc(b->data, b->cap_n * sizeof(*b->data));
        b->len = realloc(b->len, b->cap_n * sizeof(*b->len));
        b->cap = realloc(b->cap, b->cap_n * sizeof(*b->cap));
        CHECK(b->data && b->len && b->cap);
    }
    b->data[b->n] = tu_xmalloc(len);
    if (len)
        memcpy(b->data[b->n], p, len);
    b->len[b->n] = len;
    b->cap[b->n] = cap;
    b->n++;
}

static void batch_free(batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->data[i]);
    free(b->data), free(b->len), free(b->cap);
    memset(b, 0, sizeof(*b));
}

/* raw[0..n) compressed in the format under test into c (room for
 * compress_bound(n)); returns the size. */
static size_t compress_bound(size_t n)
{
    return g_algo == OC_ALGO_LZ4 ? (size_t)LZ4_compressBound((int)n) : snappy_max_compressed_length(n);
}
static size_t compress(const uint8_t *raw, size_t n, uint8_t *c, int hc)
{
    size_t bound = compress_bound(n);
    if (g_algo == OC_ALGO_SNAPPY) {
        CHECK(snappy_compress((const char *)raw, n, (char *)c, &bound) == SNAPPY_OK);
        return bound;
    }
    int m = hc ? LZ4_compress_HC((const char *)raw, (char *)c, (int)n, (int)bound, 9)
               : LZ4_compress_default((const char *)raw, (char *)c, (int)n, (int)bound);
    CHECK(m > 0);
    return (size_t)m;
}

/* One chunk of raw bytes, compressed, then added as is and damaged. */
static void add_chunk(batch *b, tu_rng *r, const uint8_t *raw, size_t n, int hc)
{
    uint8_t *c = tu_xmalloc(compress_bound(n) + 300);
    size_t cn = compress(raw, n, c, hc);
    /* valid, at its exact capacity and at 64 KiB */
    batch_add(b, c, cn, n);
    batch_add(b, c, cn, 65536);
    if (n > 0)
        batch_add(b, c, cn, n - 1 - tu_rng_below(r, n < 64 ? n : 64)); /* too little room */
    switch (tu_rng_below(r, 3)) {
    case 0: /* cut */
        batch_add(b, c, tu_rng_below(r, cn), n);
        break;
    case 1: { /* bytes flipped */
        for (int f = 0; f < 3; f++)
            c[tu_rng_below(r, cn)] ^= (uint8_t)(1 + tu_rng_below(r, 255));
        batch_add(b, c, cn, tu_rng_below(r, 2) ? n : 65536);
        break;
    }
    default: { /* a random tail after a valid head */
        size_t keep = tu_rng_below(r, cn), tail = 1 + tu_rng_below(r, 256);
        for (size_t j = 0; j < tail; j++)
            c[keep + j] = (uint8_t)tu_rng_next(r);
        batch_add(b, c, keep + tail, 65536);
        break;
    }
    }
    free(c);
}

/* Results of one run. */
typedef struct result {
    size_t *size;
    oc_status *st;
    uint8_t *out; /* every chunk's slot: cap + GUARD bytes */
} result;

/* RUN_GPU: the public call (the split decoder from OC_LZS_MIN_BATCH chunks
 * on, the pipe alone below); RUN_SPLIT: the split decoder whatever the
 * batch's size; RUN_COPY_ONLY: its copy kernel alone. */
enum { RUN_CPU, RUN_GPU, RUN_SPLIT, RUN_COPY_ONLY };
static const char *const run_names[] = {"cpu", "public call", "parse+copy", "copy alone"};

/* Runs the batch through one path; extra_pipe_chunk appends a chunk of
 * capacity CAP_PIPE (the pipe decoder then takes the whole batch). */
static void run(const batch *b, int how, int arrays_on_device, int extra_pipe_chunk, result *res)
{
    size_t n = b->n + (extra_pipe_chunk ? 1 : 0);
    size_t *caps = tu_xmalloc(n * sizeof(size_t)), *off = tu_xmalloc((n + 1) * sizeof(size_t));
    size_t in_total = 0, out_total = 0;
    for (size_t i = 0; i < n; i++) {
        caps[i] = i < b->n ? b->cap[i] : CAP_PIPE;
        off[i] = out_total;
        out_total += caps[i] + GUARD;
        in_total += i < b->n ? b->len[i] : 1;
    }
    uint8_t *h_in = tu_xmalloc(in_total + 1), *h_out = tu_xmalloc(out_total);
    const void **h_src = tu_xmalloc(n * sizeof(void *));
    void **h_dst = tu_xmalloc(n * sizeof(void *));
    size_t *lens = tu_xmalloc(n * sizeof(size_t));
    for (size_t i = 0, o = 0; i < n; i++) {
        lens[i] = i < b->n ? b->len[i] : 1;
        if (i < b->n)
            memcpy(h_in + o, b->data[i], lens[i]);
        else
            h_in[o] = 0; /* the empty block (LZ4 token 0) or stream (Snappy preamble 0) */
        o += lens[i];
    }
    memset(h_out, TU_GUARD_BYTE, out_total);
    res->size = tu_xmalloc(n * sizeof(size_t));
    res->st = tu_xmalloc(n * sizeof(oc_status));
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = g_algo;
    if (how == RUN_CPU) {
        for (size_t i = 0, p = 0; i < n; i++) {
            h_src[i] = h_in + p;
            h_dst[i] = h_out + off[i];
            p += lens[i];
        }
        CHECK_OK(oc_batch_decompress(g_cpu, &o, n, h_src, lens, h_dst, caps, res->size, res->st));
        res->out = h_out;
    } else {
        uint8_t *d_in = NULL, *d_out = NULL, *d_arr = NULL;
        CHECK_OK(oc_memory_alloc(g_gpu, OC_MEMORY_DEVICE, in_total + 1, (void **)&d_in));
        CHECK_OK(oc_memory_alloc(g_gpu, OC_MEMORY_DEVICE, out_total, (void **)&d_out));
        CHECK_OK(oc_memory_copy(g_gpu, d_in, h_in, in_total));
        CHECK_OK(oc_memory_copy(g_gpu, d_out, h_out, out_total));
        for (size_t i = 0, p = 0; i < n; i++) {
            h_src[i] = d_in + p;
            h_dst[i] = d_out + off[i];
            p += lens[i];
        }
        const void *const *a_src = h_src;
        const size_t *a_len = lens, *a_cap = caps;
        void *const *a_dst = h_dst;
        size_t *a_size = res->size;
        oc_status *a_st = res->st;
        size_t w = n * 8;
        if (arrays_on_device) {
            CHECK_OK(oc_memory_alloc(g_gpu, OC_MEMORY_DEVICE, 6 * w, (void **)&d_arr));
            CHECK_OK(oc_memory_copy(g_gpu, d_arr, h_src, w));
            CHECK_OK(oc_memory_copy(g_gpu, d_arr + w, lens, w));
            CHECK_OK(oc_memory_copy(g_gpu, d_arr + 2 * w, h_dst, w));
            CHECK_OK(oc_memory_copy(g_gpu, d_arr + 3 * w, caps, w));
            a_src = (const void *const *)d_arr;
            a_len = (const size_t *)(d_arr + w);
            a_dst = (void *const *)(d_arr + 2 * w);
            a_cap = (const size_t *)(d_arr + 3 * w);
            a_size = (size_t *)(d_arr + 4 * w);
            a_st = (oc_status *)(d_arr + 5 * w);
        }
        if (how == RUN_GPU)
            CHECK_OK(oc_batch_decompress(g_gpu, &o, n, a_src, a_len, a_dst, a_cap, a_size, a_st));
        else
            CHECK_OK(oc_cuda_lz_decompress_forced(g_gpu, g_algo, how == RUN_COPY_ONLY, n, a_src, a_len, a_dst,
                                                  a_cap, a_size, a_st));
        if (arrays_on_device) {
            CHECK_OK(oc_memory_copy(g_gpu, res->size, d_arr + 4 * w, w));
            CHECK_OK(oc_memory_copy(g_gpu, res->st, d_arr + 5 * w, n * sizeof(oc_status)));
        }
        CHECK_OK(oc_memory_copy(g_gpu, h_out, d_out, out_total));
        CHECK_OK(oc_context_synchronize(g_gpu));
        oc_memory_free(g_gpu, OC_MEMORY_DEVICE, d_in, in_total + 1);
        oc_memory_free(g_gpu, OC_MEMORY_DEVICE, d_out, out_total);
        if (d_arr)
            oc_memory_free(g_gpu, OC_MEMORY_DEVICE, d_arr, 6 * w);
        res->out = h_out;
    }
    /* no write past any capacity; keep only the slots' offsets for the checks */
    for (size_t i = 0; i < n; i++)
        CHECK_GUARD(h_out + off[i] + caps[i], GUARD);
    free(h_in), free(h_src), free(h_dst), free(lens), free(caps), free(off);
}

static void result_free(result *r)
{
    free(r->size), free(r->st), free(r->out);
}

/* Checks one GPU run against the pipe's verdicts and the CPU engine's. */
static void compare(const batch *b, const result *got, const result *pipe, const result *cpu,
                    const char *what)
{
    size_t off = 0, ok = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (got->st[i] != pipe->st[i] || got->size[i] != pipe->size[i])
            tu_fail(__FILE__, __LINE__,
                    "%s: chunk %zu (%zu bytes, capacity %zu): status %s size %zu, the pipe's %s %zu", what, i,
                    b->len[i], b->cap[i], oc_status_name(got->st[i]), got->size[i],
                    oc_status_name(pipe->st[i]), pipe->size[i]);
        /* the GPU decoders keep the CPU scanner's order of checks (an LZ4
           block that overflows its capacity is scanned on to its end) */
        CHECK_MSG(got->st[i] == cpu->st[i], "%s: chunk %zu (%zu bytes, capacity %zu): GPU %s, CPU engine %s",
                  what, i, b->len[i], b->cap[i], oc_status_name(got->st[i]), oc_status_name(cpu->st[i]));
        if (got->st[i] == OC_OK) {
            ok++;
            CHECK_SIZE_EQ(got->size[i], cpu->size[i]);
            CHECK_MEM_EQ(got->out + off, cpu->out + off, got->size[i]);
        } else {
            CHECK_SIZE_EQ(got->size[i], 0);
        }
        if ((unsigned)got->st[i] < 8)
            g_seen[got->st[i]]++;
        off += b->cap[i] + GUARD;
    }
    printf("  %-34s %6zu chunks: %6zu OK, statuses equal to the pipe's and the CPU engine's\n", what, b->n,
           ok);
}

/* dev_arrays: also with the argument arrays in device memory (64 KiB
 * record slots per chunk: ~260 KB of scratch a chunk). */
static void check_batch(const batch *b, const char *name, int dev_arrays)
{
    result cpu, pipe;
    run(b, RUN_CPU, 0, 0, &cpu);
    run(b, RUN_GPU, 0, 1, &pipe); /* the pipe decoder: one capacity above 64 KiB */
    char what[96];
    for (int how = RUN_GPU; how <= RUN_COPY_ONLY; how++)
        for (int dev = 0; dev <= dev_arrays; dev++) {
            result r;
            run(b, how, dev, 0, &r);
            snprintf(what, sizeof(what), "%s %s %s%s", g_algo == OC_ALGO_LZ4 ? "lz4" : "snappy", name,
                     run_names[how], dev ? " (dev arrays)" : "");
            compare(b, &r, &pipe, &cpu, what);
            result_free(&r);
        }
    result_free(&cpu);
    result_free(&pipe);
}

/* Snappy streams built by hand (snappy's format_description.txt), each
 * at a roomy capacity and, where it would decode, one byte short. */
static void add_snappy_hostile(batch *b)
{
    static const struct {
        const char *bytes;
        size_t len, cap;
    } h[] = {
        /* 'a' is \x61, 'b' \x62, 'c' \x63 */
        {"\x80", 1, 64},                                      /* preamble cut: TRUNCATED */
        {"\x80\x80\x80\x80\x80", 5, 64},                      /* five continued bytes, the end: TRUNCATED */
        {"\x80\x80\x80\x80\x80\x01", 6, 64},                  /* a sixth preamble byte: CORRUPT */
        {"\xFF\xFF\xFF\xFF\x1F", 5, 64},                      /* above 2^32 - 1: CORRUPT */
        {"\x05\xFC\xFF\xFF\xFF\xFF\x61", 7, 64},              /* a literal of 2^32 bytes: CORRUPT */
        {"\xFF\xFF\xFF\xFF\x0F\xFC\xFF\xFF\xFF\xFF", 10, 64}, /* the same, declared 2^32 - 1: CORRUPT */
        {"\x02\x08\x61", 3, 64},                     /* literal past the length and the input: CORRUPT */
        {"\x40\xF0", 2, 64},                         /* literal length byte cut: TRUNCATED */
        {"\x05\x00\x61\x01\x00", 5, 64},             /* offset 0: CORRUPT */
        {"\x05\x00\x61\x0E\x02\x00", 6, 64},         /* offset before the start: CORRUPT */
        {"\x04\x00\x61\x01\x01", 5, 64},             /* copy past the declared length: CORRUPT */
        {"\x06\x00\x61\x01\x01", 5, 64},             /* short of the declared length: TRUNCATED */
        {"\x05\x00\x61\x0F\x01\x00", 6, 64},         /* copy-4 cut: TRUNCATED */
        {"\x05\x00\x61\x0F\x01\x00\x00\x00", 8, 64}, /* copy-4 at offset 1: OK */
        {"\x05\x00\x61\x0F\x01\x00\x00\x00", 8, 4},  /* the same one byte short */
        {"\x64\x00\x61\x01\x00", 5, 8},              /* declared 100 > 8, offset 0: CORRUPT */
        {"\x08\x04\x61\x62\x00\x63\x05\x03", 8, 8},  /* two literals, then a copy: OK */
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++)
        batch_add(b, (const uint8_t *)h[i].bytes, h[i].len, h[i].cap);
    /* 1-byte copies (copy-2, length 1, offset 1): 65,535 records for 65,536
     * bytes, more than a slot's 16,385: the parse gives the chunk back */
    size_t count = 65535, n = 5 + 3 * count;
    uint8_t *s = tu_xmalloc(n);
    s[0] = 0x80, s[1] = 0x80, s[2] = 0x04, s[3] = 0x00, s[4] = 'z';
    for (size_t i = 0; i < count; i++)
        s[5 + 3 * i] = 0x02, s[6 + 3 * i] = 0x01, s[7 + 3 * i] = 0x00;
    batch_add(b, s, n, 65536);
    batch_add(b, s, n, 65535); /* OUTPUT_TOO_SMALL */
    s[7 + 3 * 40000] = 0x01;   /* the 40,001st copy's offset 257 (fine) */
    s[6 + 3 * 50000] = 0x00;   /* the 50,001st copy's offset 0: CORRUPT after the slot is full */
    batch_add(b, s, n, 65536);
    free(s);
}

/* Every check of the header for one format. */
static void check_format(oc_algorithm algo, const tu_buf *corpus, size_t nc, tu_rng *r)
{
    g_algo = algo;
    memset(g_seen, 0, sizeof g_seen);
    batch b = {0};
    static const size_t sizes[] = {65536, 4096, 1000};
    for (size_t k = 0; k < nc; k++)
        for (size_t s = 0; s < 3; s++) {
            size_t chunk = sizes[s], span = s == 0 ? corpus[k].size : s == 1 ? 524288 : 65536;
            span = span < corpus[k].size ? span : corpus[k].size;
            if (g_small)
                span = span < 4 * chunk ? span : 4 * chunk;
            for (size_t o = 0; o < span; o += chunk)
                add_chunk(&b, r, corpus[k].data + o, span - o < chunk ? span - o : chunk,
                          (int)((o / chunk) & 1));
        }
    if (algo == OC_ALGO_SNAPPY)
        add_snappy_hostile(&b);
    check_batch(&b, "corpus", 1);
    batch_free(&b);

    if (!g_small) { /* more than one wave (OC_LZS_WAVE = 24,576 chunks), capacities of 512 bytes */
        tu_buf big;
        size_t piece = 512, count = 26000;
        tu_big_real(piece * count, &big);
        for (size_t i = 0; i < count; i++) {
            uint8_t c[700]; /* above both formats' bound for 512 bytes */
            size_t cn = compress(big.data + i * piece, piece, c, 0);
            if (i % 16 == 5) /* cut */
                cn = tu_rng_below(r, cn);
            if (i % 16 == 9) /* a byte flipped */
                c[tu_rng_below(r, cn)] ^= (uint8_t)(1 + tu_rng_below(r, 255));
            batch_add(&b, c, cn, i % 16 == 13 ? piece - 1 : piece);
        }
        tu_buf_free(&big);
        check_batch(&b, "two waves", 0);
        batch_free(&b);
    }
    CHECK(g_seen[OC_OK] > 0 && g_seen[OC_ERR_CORRUPT] > 0 && g_seen[OC_ERR_TRUNCATED] > 0 &&
          g_seen[OC_ERR_OUTPUT_TOO_SMALL] > 0);
}

int main(void)
{
    if (!oc_engine_available(OC_ENGINE_CUDA)) {
        printf("SKIP: test_cuda_lz_split needs a CUDA GPU (engine: %s); run scripts/gpu-check on a GPU "
               "machine\n",
               oc_cuda_build_info());
        return 0;
    }
    g_small = getenv("OC_TEST_SMALL") != NULL;
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    CHECK_OK(oc_context_create(&co, &g_cpu));
    co.engine = OC_ENGINE_CUDA;
    co.flags = OC_CONTEXT_OWN_STREAM;
    CHECK_OK(oc_context_create(&co, &g_gpu));

    tu_rng r;
    tu_rng_seed(&r, 13);
    tu_buf corpus[TU_CORPUS_MAX];
    size_t nc = tu_corpus(corpus, TU_CORPUS_MAX, g_small ? 262144 : 2097152);
    CHECK(nc >= 4);
    check_format(OC_ALGO_LZ4, corpus, nc, &r);
    check_format(OC_ALGO_SNAPPY, corpus, nc, &r);
    for (size_t k = 0; k < nc; k++)
        tu_buf_free(&corpus[k]);
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    printf("test_cuda_lz_split: all checks passed\n");
    return 0;
}
