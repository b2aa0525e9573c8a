/*
 * test_fork.c - opencomp after fork().
 *
 * Regression pinned here (issue 11 item 3): a context used before fork()
 * hung forever in the child (the thread pool's workers exist only in the
 * parent; the child waited for them in pthread_cond_wait).  Now the child
 * re-creates the pool on first use, decodes with the parent's context and
 * with new ones (batched and whole-buffer layers), destroys the parent's
 * context without touching its threads, and the parent goes on.  CUDA in a
 * child forked after the parent initialised CUDA: the engine is
 * unavailable there and asking for it gives OC_ERR_FORKED (builds without
 * CUDA: NO_DEVICE, as in the parent).  Each child runs under alarm(), so a
 * hang fails the test instead of stalling it.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/test_util.h"

#define CHUNKS 16

static tu_buf g_text;

/* Compresses CHUNKS chunks, decodes them back, checks; returns 0 if good. */
static int round_trip(oc_context *ctx)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    size_t piece = g_text.size / CHUNKS, bound = oc_compress_bound(OC_ALGO_ZSTD, piece);
    const void *src[CHUNKS], *csrc[CHUNKS];
    void *dst[CHUNKS], *out[CHUNKS];
    size_t ss[CHUNKS], dc[CHUNKS], ds[CHUNKS], oc[CHUNKS], os[CHUNKS];
    oc_status st[CHUNKS];
    uint8_t *comp = tu_xmalloc(CHUNKS * bound), *back = tu_xmalloc(CHUNKS * piece);
    for (int i = 0; i < CHUNKS; i++) {
        src[i] = g_text.data + i * piece;
        ss[i] = piece;
        dst[i] = comp + i * bound;
        dc[i] = bound;
        out[i] = back + i * piece;
        oc[i] = piece;
    }
    int bad = oc_batch_compress(ctx, &o, CHUNKS, src, ss, dst, dc, ds, st) != OC_OK;
    for (int i = 0; i < CHUNKS; i++) {
        bad |= st[i] != OC_OK;
        csrc[i] = dst[i];
    }
    bad |= oc_batch_decompress(ctx, &o, CHUNKS, csrc, ds, out, oc, os, st) != OC_OK;
    for (int i = 0; i < CHUNKS; i++)
        bad |= st[i] != OC_OK || os[i] != piece;
    bad |= memcmp(back, g_text.data, CHUNKS * piece) != 0;
    /* the whole-buffer layer (its own worker threads) */
    oc_buffer_options bo = OC_BUFFER_OPTIONS_INIT;
    bo.algorithm = OC_ALGO_LZ4;
    bo.chunk_size = 4096;
    uint64_t cb = oc_buffer_compress_bound(&bo, g_text.size), clen = 0, got = 0;
    uint8_t *whole = tu_xmalloc(cb), *again = tu_xmalloc(g_text.size);
    bad |= oc_buffer_compress(ctx, &bo, g_text.data, g_text.size, whole, cb, &clen) != OC_OK;
    bad |= oc_buffer_decompress(ctx, NULL, whole, clen, again, g_text.size, &got, NULL) != OC_OK;
    bad |= got != g_text.size || memcmp(again, g_text.data, g_text.size) != 0;
    free(whole);
    free(again);
    free(comp);
    free(back);
    return bad;
}

/* Runs fn in a forked child under a 60 s alarm; returns its exit status
 * (128 + signal if it died). */
static int in_child(int (*fn)(oc_context *), oc_context *ctx)
{
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        alarm(60);
        _exit(fn(ctx));
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int child_uses_parent_context(oc_context *ctx)
{
    int bad = round_trip(ctx) != 0;
    bad |= round_trip(ctx) != 0; /* the re-created pool again */
    oc_context_destroy(ctx);     /* the parent's threads are not touched */
    oc_context *fresh;
    bad |= oc_context_create(NULL, &fresh) != OC_OK;
    bad |= round_trip(fresh) != 0;
    oc_context_destroy(fresh);
    return bad;
}

static int child_asks_for_cuda(oc_context *ctx)
{
    (void)ctx;
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CUDA;
    oc_context *c = NULL;
    oc_status st = oc_context_create(&co, &c);
    int cuda_build = strstr(oc_build_info(), "cuda: none") == NULL;
    if (cuda_build && st != OC_ERR_FORKED) {
        fprintf(stderr, "child: CUDA context: %s, want FORKED\n", oc_status_name(st));
        return 1;
    }
    if (!cuda_build && st != OC_ERR_NO_DEVICE)
        return 1;
    if (oc_engine_available(OC_ENGINE_CUDA))
        return 1;
    /* AUTO still runs host data on the CPU */
    oc_context *autoc;
    if (oc_context_create(NULL, &autoc) != OC_OK)
        return 1;
    int bad = round_trip(autoc);
    oc_context_destroy(autoc);
    return bad;
}

int main(void)
{
    tu_corpus_get("text", 1 << 20, &g_text);
    CHECK(g_text.size >= 16 * 1024);
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.num_threads = 4; /* a real pool, whatever the machine */
    oc_context *ctx;
    CHECK_OK(oc_context_create(&co, &ctx));
    CHECK_MSG(round_trip(ctx) == 0, "parent before fork");
    int r = in_child(child_uses_parent_context, ctx);
    CHECK_MSG(r == 0, "child with the parent's context: %s %d", r >= 128 ? "killed by signal" : "exit status",
              r >= 128 ? r - 128 : r);
    CHECK_MSG(round_trip(ctx) == 0, "parent after the child");
    /* CUDA: the parent looks for a GPU (initialising CUDA), then forks */
    (void)oc_engine_available(OC_ENGINE_CUDA);
    r = in_child(child_asks_for_cuda, ctx);
    CHECK_MSG(r == 0, "child asking for CUDA: %d", r);
    oc_context_destroy(ctx);
    tu_buf_free(&g_text);
    printf("test_fork: contexts work in forked children; CUDA there is %s\n",
           strstr(oc_build_info(), "cuda: none") ? "absent (no CUDA build)" : "FORKED");
    return 0;
}
