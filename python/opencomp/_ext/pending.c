/*
 * pending.c - _Pending: one stream-ordered decode batch.
 *
 * A device decode whose output sizes are known (uncomp_sizes=, the
 * WITH_UNCOMPRESSED_SIZE headers, a one-buffer batch) enqueues on the
 * Codec's stream and returns at once, as nvCOMP's calls do; so does one
 * into out= buffers without uncomp_sizes= (their capacities bound the
 * chunks; each result's length is its decoded size, read here: array.c's
 * oc_py_array_resolve).  The per-chunk
 * sizes and statuses that the stream writes back (host arrays filled by the
 * CUDA engine's write-back when the stream gets there, include/opencomp.h
 * "The batched layer") live here until someone needs them: a result
 * Array's cpu(), synchronize(), host interfaces, a DLPack export once
 * settled, or Codec.synchronize().  Then the stream is waited for once
 * (GIL released), the statuses settled (a chunk that decodes to another size
 * than promised is SIZE_MISMATCH, as in the synchronous call) and the first
 * failed chunk raised with its index and cause, as the synchronous call
 * would have raised it.
 *
 * The inputs' views are held until then: their memory must not be reused
 * while the GPU reads it.  A batch dropped while in flight waits for its
 * stream first (the write-back targets and the inputs are freed with it).
 *
 * A batch whose offsets live on the device (codec.c, decode_packed_device)
 * has no host arrays while in flight: the stream writes its sizes and
 * statuses into a device block (kept for reuse by the module when the batch
 * is settled: oc_py_devblock_*), and settling copies them, and the promised
 * sizes, to the host once, after the stream wait.
 */
#include "oc_py.h"

#include <string.h>

/* Decoding without an algorithm failed as undetectable input does (codec.c's DETECT_HINT). */
#define DETECT_HINT                                                                                          \
    " (the format was not recognised: RAW LZ4, Snappy and Deflate streams do not name themselves; "          \
    "pass algorithm=)"

static void release_inputs(oc_py_pending *p)
{
    if (p->src) {
        for (size_t i = 0; i < p->nsrc; i++)
            oc_py_view_release(&p->src[i]);
        PyMem_Free(p->src);
        p->src = NULL;
    }
}

/* A device-offset batch's results to the host (after its stream wait):
 * the sizes and statuses the stream wrote, and the promised sizes, copied
 * into a host buffer the module reuses (no fresh per-chunk arrays, whose
 * page faults were most of a call's host time: bench/NOTES.md, issue 16),
 * checked there (a size other than promised is SIZE_MISMATCH); p->st is
 * kept only when a chunk failed or keep_st asks for it (errors='status').
 * The device block goes back to the module. */
static int fetch_device(oc_py_pending *p)
{
    oc_py_state *st = oc_py_state_of_type(Py_TYPE(p));
    size_t n = p->n, need = n * (2 * sizeof(size_t) + sizeof(oc_status));
    uint8_t *buf = NULL;
    int own = 0;
    if (!st->fetch_busy && st->fetch_cap >= need) {
        buf = st->fetch_buf;
    } else if (!st->fetch_busy) {
        PyMem_Free(st->fetch_buf);
        st->fetch_cap = 0;
        if (!(st->fetch_buf = PyMem_Malloc(need ? need : 1))) {
            PyErr_NoMemory();
            return -1;
        }
        st->fetch_cap = need;
        buf = st->fetch_buf;
    } else if (!(buf = PyMem_Malloc(need ? need : 1))) { /* another thread's fetch holds it */
        PyErr_NoMemory();
        return -1;
    } else {
        own = 1;
    }
    if (!own)
        st->fetch_busy = 1;
    size_t *got = (size_t *)(void *)buf, *known = got + n;
    oc_status *got_st = (oc_status *)(void *)(known + n);
    oc_py_context *ctx = (oc_py_context *)p->dev_ctx;
    const uint8_t *d = (const uint8_t *)p->dev;
    const void *promised = p->src[5].ptr;
    int enc = p->encode; /* dev: the statuses alone, and no size promised */
    oc_status s = OC_OK;
    /* the copies release the GIL: another thread reading this batch meanwhile waits (oc_py_pending_wait) */
    p->settling = 1;
    if (n)
        OC_PY_CTX_CALL(ctx, {
            if (!enc)
                s = oc_memory_copy(ctx->ctx, got, d, n * sizeof *got);
            if (s == OC_OK)
                s = oc_memory_copy(ctx->ctx, got_st, enc ? d : d + n * sizeof(size_t), n * sizeof *got_st);
            if (s == OC_OK && !enc)
                s = oc_memory_copy(ctx->ctx, known, promised, n * sizeof *known);
            if (s == OC_OK)
                s = oc_context_synchronize(ctx->ctx);
        });
    p->settling = 0;
    int rc = -1;
    if (s != OC_OK) {
        oc_py_raise(st, s, -1, "decode: reading the batch's statuses from the device: %s",
                    oc_status_message(s));
        goto done;
    }
    p->failed = -1;
    for (size_t i = 0; i < n; i++) {
        if (!enc && got_st[i] == OC_OK && got[i] != known[i])
            got_st[i] = OC_ERR_SIZE_MISMATCH;
        if (got_st[i] != OC_OK && p->failed < 0)
            p->failed = (Py_ssize_t)i;
    }
    PyMem_Free(p->st);
    p->st = NULL;
    if (p->failed >= 0 || p->keep_st) {
        if (!(p->st = PyMem_Malloc((n ? n : 1) * sizeof *p->st))) {
            PyErr_NoMemory();
            goto done;
        }
        memcpy(p->st, got_st, n * sizeof *p->st);
    }
    p->k = 0; /* nothing in idx/got: oc_py_pending_size is not asked of packed batches */
    oc_py_devblock_give(st, p->dev, p->dev_bytes, p->device_id, p->dev_ctx);
    p->dev = NULL;
    p->dev_ctx = NULL;
    rc = 0;
done:
    if (own)
        PyMem_Free(buf);
    else
        st->fetch_busy = 0;
    return rc;
}

static int settle(oc_py_pending *p)
{
    if (p->dev) {
        if (fetch_device(p) != 0)
            return -1;
        goto settled;
    }
    for (size_t q = 0; q < p->k; q++) {
        size_t i = p->idx[q];
        oc_status s = p->got_st[q];
        if (s == OC_OK && p->known[i] != (size_t)-1 && p->got[q] != p->known[i])
            s = OC_ERR_SIZE_MISMATCH;
        p->st[i] = s;
    }
    p->failed = -1;
    for (size_t i = 0; i < p->n && p->failed < 0; i++)
        if (p->st[i] != OC_OK)
            p->failed = (Py_ssize_t)i;
settled:
    release_inputs(p);
    Py_CLEAR(p->stream_owner);
    p->settled = 1;
    return 0;
}

static void raise_failure(oc_py_state *st, oc_py_pending *p)
{
    size_t i = (size_t)p->failed;
    oc_status s = p->st[i];
    char buf[160] = "";
    const char *detail = "";
    if (s == OC_ERR_OUTPUT_TOO_SMALL && p->has_out) {
        if (p->single)
            PyOS_snprintf(buf, sizeof buf, " (out holds %zu bytes)", p->caps ? p->caps[i] : p->out_bytes);
        else
            PyOS_snprintf(buf, sizeof buf, " (out[%zu] holds %zu bytes)", i,
                          p->caps ? p->caps[i] : p->out_bytes);
        detail = buf;
    }
    if (p->detect && (s == OC_ERR_CORRUPT || s == OC_ERR_INVALID_ARGUMENT || s == OC_ERR_UNSUPPORTED))
        detail = DETECT_HINT;
    p->reported = 1;
    if (p->single)
        oc_py_raise(st, s, (Py_ssize_t)i, "decode failed: %s: %s%s", oc_status_name(s), oc_status_message(s),
                    detail);
    else
        oc_py_raise(st, s, (Py_ssize_t)i, "%s failed for chunk %zu of %zu: %s: %s%s",
                    p->encode ? "encode" : "decode", i, p->n, oc_status_name(s), oc_status_message(s),
                    p->packed ? "" : detail);
}

int oc_py_pending_wait(PyObject *o, int check)
{
    oc_py_pending *p = (oc_py_pending *)o;
    oc_py_state *st = oc_py_state_of_type(Py_TYPE(o));
    if (!p->settled) {
        if (p->on_device && oc_py_sync_stream(st, p->device_id, p->stream) != 0)
            return -1;
        while (p->settling) { /* another thread copies its results from the device: let it finish */
            Py_BEGIN_ALLOW_THREADS
            Py_END_ALLOW_THREADS
        }
        if (!p->settled) { /* another thread may have settled it while this one waited */
            if (settle(p) != 0)
                return -1;
            st->pending_waits++;
        }
    }
    if (check && p->failed >= 0) {
        raise_failure(st, p);
        return -1;
    }
    return 0;
}

int oc_py_pending_in_flight(PyObject *o)
{
    return o && !((oc_py_pending *)o)->settled;
}

void oc_py_pending_settle_with(PyObject *o, PyObject *waited)
{
    oc_py_pending *p = (oc_py_pending *)o, *w = (oc_py_pending *)waited;
    if (o == waited || p->settled || p->settling || !w->settled || p->on_device != w->on_device ||
        (p->on_device && (p->device_id != w->device_id || p->stream != w->stream)))
        return;
    /* A device-offset batch's results are read from the device now (its stream is done): leaving it to
     * its own wait made every call past the 32nd wait for the whole stream again (call A, py_phases:
     * the host part with the GPU busy 0.08 -> 40 ms).  A failed read leaves it unsettled: its own wait
     * tries again and raises. */
    if (settle(p) != 0)
        PyErr_Clear();
}

int oc_py_pending_failed(PyObject *o)
{
    return o && ((oc_py_pending *)o)->settled && ((oc_py_pending *)o)->failed >= 0;
}

size_t oc_py_pending_size(PyObject *o, size_t i)
{
    oc_py_pending *p = (oc_py_pending *)o;
    if (i < p->k && p->idx[i] == i) /* a deferred batch enqueues every chunk, in order */
        return p->got[i];
    for (size_t q = 0; q < p->k; q++)
        if (p->idx[q] == i)
            return p->got[q];
    return 0;
}

static void pending_dealloc(PyObject *self)
{
    oc_py_pending *p = (oc_py_pending *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (!p->settled && (p->st || p->dev)) {
        /* the stream still writes into got/got_st and reads the inputs */
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        if (oc_py_pending_wait(self, 0) != 0)
            PyErr_WriteUnraisable(self);
        PyErr_Restore(et, ev, tb);
    }
    if (p->dev) /* never settled (its wait failed): the block is not trusted again */
        Py_CLEAR(p->dev_ctx);
    release_inputs(p);
    Py_CLEAR(p->stream_owner);
    PyMem_Free(p->idx);
    PyMem_Free(p->got);
    PyMem_Free(p->got_st);
    PyMem_Free(p->known);
    PyMem_Free(p->caps);
    PyMem_Free(p->st);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *pending_repr(PyObject *self)
{
    oc_py_pending *p = (oc_py_pending *)self;
    return PyUnicode_FromFormat("<opencomp stream-ordered batch of %zu chunk(s): %s>", p->n,
                                !p->settled      ? "in flight"
                                : p->failed >= 0 ? "failed"
                                                 : "done");
}

static PyType_Slot pending_slots[] = {
    {Py_tp_dealloc, pending_dealloc},
    {Py_tp_repr, pending_repr},
    {Py_tp_doc, "Internal: a decode batch enqueued on a stream whose statuses are read at the sync point."},
    {0, NULL},
};

PyType_Spec oc_py_pending_spec = {
    .name = "opencomp._opencomp._Pending",
    .basicsize = sizeof(oc_py_pending),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = pending_slots,
};

/* ---- device result blocks ------------------------------------------------ */

int oc_py_devblock_take(oc_py_state *st, oc_py_context *ctx, size_t bytes, void **ptr, size_t *got_bytes,
                        PyObject **owner)
{
    int best = -1;
    for (int i = 0; i < st->ndevfree; i++)
        if (st->devfree[i].device_id == ctx->device_id && st->devfree[i].bytes >= bytes &&
            (best < 0 || st->devfree[i].bytes < st->devfree[best].bytes))
            best = i;
    if (best >= 0) {
        *ptr = st->devfree[best].ptr;
        *got_bytes = st->devfree[best].bytes;
        *owner = st->devfree[best].ctx;
        st->devfree[best] = st->devfree[--st->ndevfree];
        return 0;
    }
    void *p = NULL;
    oc_status s = OC_OK;
    OC_PY_CTX_CALL(ctx, s = oc_memory_alloc(ctx->ctx, OC_MEMORY_DEVICE, bytes, &p));
    if (s != OC_OK) {
        oc_py_raise(st, s, -1, "decode: device memory for %zu bytes of statuses: %s", bytes,
                    oc_status_message(s));
        return -1;
    }
    st->devblock_allocs++;
    *ptr = p;
    *got_bytes = bytes;
    *owner = Py_NewRef((PyObject *)ctx);
    return 0;
}

static void devblock_free(void *ptr, size_t bytes, PyObject *owner)
{
    oc_py_context *ctx = (oc_py_context *)owner;
    OC_PY_CTX_CALL(ctx, oc_memory_free(ctx->ctx, OC_MEMORY_DEVICE, ptr, bytes));
    Py_DECREF(owner);
}

void oc_py_devblock_give(oc_py_state *st, void *ptr, size_t bytes, int device_id, PyObject *owner)
{
    if (st->ndevfree < OC_PY_DEVFREE) {
        struct oc_py_devblock *b = &st->devfree[st->ndevfree++];
        b->ptr = ptr;
        b->bytes = bytes;
        b->device_id = device_id;
        b->ctx = owner;
        return;
    }
    devblock_free(ptr, bytes, owner);
}

void oc_py_devblock_clear(oc_py_state *st)
{
    while (st->ndevfree > 0) {
        struct oc_py_devblock *b = &st->devfree[--st->ndevfree];
        devblock_free(b->ptr, b->bytes, b->ctx);
    }
}
