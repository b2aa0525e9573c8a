/*
 * context.c - _Context: one oc_context and the lock that makes it safe to
 * share.  The C library allows one thread per context at a time; Python
 * objects can be reached from any thread, so every use of a context goes
 * through OC_PY_CTX_CALL (lock taken with the GIL released).
 *
 * A Codec keeps a small pool of contexts (one per concurrent caller); the
 * module keeps one "memory context" per device for Array allocations and
 * host<->device copies, so that an Array's memory never depends on a Codec,
 * and one "stream context" per device that owns the device's internal
 * stream (OC_CONTEXT_OWN_STREAM), shared by every Codec made without
 * cuda_stream=, as nvCOMP's Python layer keeps one per device.
 */
#include "oc_py.h"

/* Keep the calling thread's pending exception (if any) across the callback. */
#if PY_VERSION_HEX >= 0x030C0000
#define SAVE_EXC() PyObject *saved_exc_ = PyErr_GetRaisedException()
#define RESTORE_EXC() PyErr_SetRaisedException(saved_exc_)
#else
#define SAVE_EXC()                                                                                           \
    PyObject *et_, *ev_, *tb_;                                                                               \
    PyErr_Fetch(&et_, &ev_, &tb_)
#define RESTORE_EXC() PyErr_Restore(et_, ev_, tb_)
#endif

static void *tramp_alloc(void *opaque, size_t size, void *stream)
{
    oc_py_tramp *t = (oc_py_tramp *)opaque;
    if (!Py_IsInitialized())
        return NULL;
    PyGILState_STATE g = PyGILState_Ensure();
    SAVE_EXC();
    void *p = NULL;
    PyObject *mem = oc_py_call_allocator(t->st, t->alloc, size, (uintptr_t)stream, &p);
    PyObject *key = mem ? PyLong_FromVoidPtr(p) : NULL;
    if (!key || PyDict_SetItem(t->live, key, mem) != 0) {
        /* the library sees NULL and reports OUT_OF_MEMORY */
        PyErr_WriteUnraisable(t->alloc);
        p = NULL;
    }
    Py_XDECREF(key);
    Py_XDECREF(mem);
    RESTORE_EXC();
    PyGILState_Release(g);
    return p;
}

static void tramp_free(void *opaque, void *ptr, size_t size, void *stream)
{
    (void)size;
    (void)stream;
    oc_py_tramp *t = (oc_py_tramp *)opaque;
    if (!ptr || !Py_IsInitialized())
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    SAVE_EXC();
    PyObject *key = PyLong_FromVoidPtr(ptr);
    if (!key || PyDict_DelItem(t->live, key) != 0)
        PyErr_Clear();
    Py_XDECREF(key);
    RESTORE_EXC();
    PyGILState_Release(g);
}

static oc_py_tramp *tramp_new(oc_py_state *st, PyObject *alloc)
{
    oc_py_tramp *t = PyMem_RawCalloc(1, sizeof *t);
    if (!t) {
        PyErr_NoMemory();
        return NULL;
    }
    t->st = st;
    t->alloc = Py_NewRef(alloc);
    t->live = PyDict_New();
    if (!t->live) {
        Py_DECREF(t->alloc);
        PyMem_RawFree(t);
        return NULL;
    }
    return t;
}

static void tramp_free_all(oc_py_tramp *t)
{
    if (!t)
        return;
    Py_XDECREF(t->alloc);
    Py_XDECREF(t->live);
    PyMem_RawFree(t);
}

static void context_dealloc(PyObject *self)
{
    oc_py_context *c = (oc_py_context *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (c->ctx) {
        /* Nothing may be in flight on the stream when scratch is freed. */
        Py_BEGIN_ALLOW_THREADS
        oc_context_synchronize(c->ctx);
        oc_context_destroy(c->ctx);
        Py_END_ALLOW_THREADS
    }
    /* after oc_context_destroy: it may still return scratch to the allocators */
    tramp_free_all(c->tramp[0]);
    tramp_free_all(c->tramp[1]);
    Py_CLEAR(c->stream_owner); /* after oc_context_destroy: its scratch was freed on that stream */
    if (c->lock)
        PyThread_free_lock(c->lock);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot context_slots[] = {
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_doc, "Internal: an opencomp context (engine, device, stream, scratch) and its lock."},
    {0, NULL},
};

PyType_Spec oc_py_context_spec = {
    .name = "opencomp._opencomp._Context",
    .basicsize = sizeof(oc_py_context),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = context_slots,
};

static oc_py_context *context_new(oc_py_state *st, int device_id, void *stream, int num_threads,
                                  int with_allocators, uint64_t flags)
{
    oc_py_context *c = PyObject_New(oc_py_context, st->context_type);
    if (!c)
        return NULL;
    c->ctx = NULL;
    c->lock = PyThread_allocate_lock();
    c->stream = stream;
    c->device_id = device_id;
    c->tramp[0] = c->tramp[1] = NULL;
    c->stream_owner = NULL;
    c->alloc_generation = st->alloc_generation;
    if (!c->lock) {
        Py_DECREF(c);
        PyErr_NoMemory();
        return NULL;
    }
    oc_context_options o = OC_CONTEXT_OPTIONS_INIT;
    o.device_id = device_id;
    o.cuda_stream = stream;
    o.num_threads = num_threads;
    o.flags = flags;
    if (with_allocators) {
        PyObject *pa = st->allocators[OC_PY_ALLOC_PINNED], *da = st->allocators[OC_PY_ALLOC_DEVICE];
        if ((pa && !(c->tramp[0] = tramp_new(st, pa))) || (da && !(c->tramp[1] = tramp_new(st, da)))) {
            Py_DECREF(c);
            return NULL;
        }
        if (c->tramp[0])
            o.pinned_alloc = (oc_allocator){tramp_alloc, tramp_free, c->tramp[0]};
        if (c->tramp[1])
            o.device_alloc = (oc_allocator){tramp_alloc, tramp_free, c->tramp[1]};
    }
    oc_status s;
    Py_BEGIN_ALLOW_THREADS
    s = oc_context_create(&o, &c->ctx);
    Py_END_ALLOW_THREADS
    if (s != OC_OK) {
        c->ctx = NULL;
        Py_DECREF(c);
        oc_py_raise(st, s, -1, "cannot create an opencomp context (device %d)", device_id);
        return NULL;
    }
    c->stream = oc_context_stream(c->ctx);
    return c;
}

oc_py_context *oc_py_context_new(oc_py_state *st, int device_id, void *stream, int num_threads,
                                 int with_allocators)
{
    return context_new(st, device_id, stream, num_threads, with_allocators, 0);
}

int oc_py_internal_stream(oc_py_state *st, int device_id, uintptr_t *out)
{
    if (device_id < 0 || device_id >= OC_PY_MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "device id %d out of range", device_id);
        return -1;
    }
    /* Creation happens with the GIL held: no other thread can race here. */
    if (!st->stream_ctx[device_id]) {
        oc_py_context *c = context_new(st, device_id, NULL, 1, 0, OC_CONTEXT_OWN_STREAM);
        if (!c)
            return -1;
        if (!st->stream_ctx[device_id])
            st->stream_ctx[device_id] = (PyObject *)c;
        else
            Py_DECREF(c);
    }
    *out = (uintptr_t)((oc_py_context *)st->stream_ctx[device_id])->stream;
    return 0;
}

PyObject *oc_py_internal_stream_owner(oc_py_state *st, int device_id)
{
    return device_id >= 0 && device_id < OC_PY_MAX_DEVICES ? st->stream_ctx[device_id] : NULL;
}

void oc_py_context_use_stream(oc_py_context *c, uintptr_t stream, PyObject *owner)
{
    /* a context is used by one call at a time: no lock needed */
    oc_context_set_stream(c->ctx, (void *)stream);
    c->stream = (void *)stream;
    Py_XINCREF(owner);
    Py_XSETREF(c->stream_owner, owner);
}

int oc_py_order(oc_py_state *st, int device_id, uintptr_t waiter, uintptr_t producer)
{
    if (waiter == producer)
        return 0;
    oc_py_context *c = oc_py_mem_context(st, device_id);
    if (!c)
        return -1;
    oc_status s = OC_OK;
    OC_PY_CTX_CALL(c, {
        s = oc_context_set_stream(c->ctx, (void *)waiter);
        if (s == OC_OK)
            s = oc_context_wait_stream(c->ctx, (void *)producer);
        oc_context_set_stream(c->ctx, NULL);
    });
    if (s != OC_OK) {
        oc_py_raise(st, s, -1, "cannot order CUDA stream 0x%llx after stream 0x%llx",
                    (unsigned long long)waiter, (unsigned long long)producer);
        return -1;
    }
    return 0;
}

oc_py_context *oc_py_mem_context(oc_py_state *st, int device_id)
{
    if (device_id < 0)
        device_id = 0;
    if (device_id >= OC_PY_MAX_DEVICES) {
        PyErr_Format(PyExc_ValueError, "device id %d out of range", device_id);
        return NULL;
    }
    /* Creation happens with the GIL held: no other thread can race here. */
    if (!st->mem_ctx[device_id]) {
        oc_py_context *c = oc_py_context_new(st, device_id, NULL, 1, 0);
        if (!c)
            return NULL;
        if (!st->mem_ctx[device_id])
            st->mem_ctx[device_id] = (PyObject *)c;
        else
            Py_DECREF(c);
    }
    return (oc_py_context *)st->mem_ctx[device_id];
}

int oc_py_sync_stream(oc_py_state *st, int device_id, uintptr_t stream)
{
    oc_py_context *c = oc_py_mem_context(st, device_id);
    if (!c)
        return -1;
    oc_status s = OC_OK;
    OC_PY_CTX_CALL(c, {
        s = oc_context_set_stream(c->ctx, (void *)stream);
        if (s == OC_OK)
            s = oc_context_synchronize(c->ctx);
        oc_context_set_stream(c->ctx, NULL);
    });
    if (s != OC_OK) {
        oc_py_raise(st, s, -1, "cannot synchronise CUDA stream 0x%llx", (unsigned long long)stream);
        return -1;
    }
    return 0;
}
