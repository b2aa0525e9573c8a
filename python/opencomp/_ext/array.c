/*
 * array.c - the Array type: nvidia.nvcomp.Array's names over memory that is
 * either ours (allocated for a result) or the caller's (wrapped zero-copy by
 * as_array / decode(out=...)).
 *
 * It speaks every array protocol so results flow into numpy, cupy and torch
 * without copies: the buffer protocol and __array_interface__ for host
 * memory, __cuda_array_interface__ (v3, with stream) for device memory, and
 * DLPack for both.  Device memory moves only through the C library's memory
 * helpers (cpu() / cuda()), with the GIL released.
 *
 * A result of a stream-ordered decode holds the batch's _Pending
 * (pending.c): the interfaces export its stream (CAI's "stream", DLPack's
 * consumer stream made to wait on an event), and what reads the bytes on
 * the host (cpu(), synchronize(), the host interfaces) waits for it and
 * raises the batch's first failed chunk.  A result of decode(out=) without
 * uncomp_sizes= is also lazily sized: its length is its chunk's decoded
 * size, which the batch knows once read, so everything that tells its
 * length or exports it (shape, size, buffer_size, strides, both array
 * interfaces, DLPack, copies, the buffer protocol, and a call that takes it
 * as an argument: view.c) waits for the batch first (oc_py_array_resolve).
 */
#include "oc_py.h"

#include <stdlib.h>
#include <string.h>

static oc_py_state *state_of(PyObject *self)
{
    return oc_py_state_of_type(Py_TYPE(self));
}

static void set_c_strides(oc_py_array *a)
{
    Py_ssize_t s = a->v.itemsize;
    for (int d = a->v.ndim - 1; d >= 0; d--) {
        a->strides[d] = s;
        s *= a->v.shape[d];
    }
}

static void array_dealloc(PyObject *self)
{
    oc_py_array *a = (oc_py_array *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (a->weakreflist)
        PyObject_ClearWeakRefs(self);
    if (oc_py_pending_in_flight(a->pending)) {
        /* the stream still writes this memory: wait before it is given back */
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        if (oc_py_pending_wait(a->pending, 0) != 0)
            PyErr_WriteUnraisable(self);
        PyErr_Restore(et, ev, tb);
    }
    oc_py_view_release(&a->v);
    if (a->own_ptr) {
        if (a->own_kind == OC_MEMORY_HOST) {
            free(a->own_ptr);
        } else if (a->own_ctx) {
            oc_py_context *c = (oc_py_context *)a->own_ctx;
            void *p = a->own_ptr;
            size_t n = a->own_size;
            int k = a->own_kind;
            OC_PY_CTX_CALL(c, oc_memory_free(c->ctx, (oc_memory_kind)k, p, n));
        }
        a->own_ptr = NULL;
    }
    Py_CLEAR(a->own_ctx);
    Py_CLEAR(a->pending);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static int array_traverse(PyObject *self, visitproc visit, void *arg)
{
    oc_py_array *a = (oc_py_array *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(a->v.keep);
    Py_VISIT(a->own_ctx);
    Py_VISIT(a->pending);
    return 0;
}

static oc_py_array *array_new(oc_py_state *st)
{
    oc_py_array *a = PyObject_GC_New(oc_py_array, st->array_type);
    if (!a)
        return NULL;
    memset(&a->v, 0, sizeof *a - offsetof(oc_py_array, v));
    PyObject_GC_Track((PyObject *)a);
    return a;
}

PyObject *oc_py_array_from_view(oc_py_state *st, oc_py_view *v)
{
    oc_py_array *a = array_new(st);
    if (!a) {
        oc_py_view_release(v);
        return NULL;
    }
    (void)oc_py_view_device(v); /* an Array always knows its device */
    a->v = *v;
    memset(v, 0, sizeof *v);
    if (a->v.has_buf) {
        /* The Py_buffer moved into the Array: its internal pointers stay valid. */
    }
    if (a->v.itemsize <= 0)
        a->v.itemsize = 1;
    set_c_strides(a);
    return (PyObject *)a;
}

int oc_py_array_set_1d(oc_py_array *a, size_t nbytes, const char *typestr)
{
    char kind;
    Py_ssize_t isz;
    if (oc_py_typestr_check(typestr, "data_type", &kind, &isz) != 0)
        return -1;
    if (nbytes % (size_t)isz != 0) {
        PyErr_Format(PyExc_ValueError, "%zu bytes are not a whole number of %s items (%zd bytes each)",
                     nbytes, typestr, isz);
        return -1;
    }
    PyOS_snprintf(a->v.typestr, sizeof a->v.typestr, "%s", typestr);
    a->v.itemsize = isz;
    a->v.nbytes = nbytes;
    a->v.ndim = 1;
    a->v.shape[0] = (Py_ssize_t)(nbytes / (size_t)isz);
    set_c_strides(a);
    return 0;
}

int oc_py_array_resolve(oc_py_array *a)
{
    if (!a->lazy)
        return 0;
    if (oc_py_pending_wait(a->pending, 1) != 0)
        return -1;
    char ts[sizeof a->v.typestr];
    memcpy(ts, a->v.typestr, sizeof ts);
    if (oc_py_array_set_1d(a, oc_py_pending_size(a->pending, a->lazy_index), ts) != 0)
        return -1;
    a->lazy = 0;
    return 0;
}

oc_py_array *oc_py_array_alloc(oc_py_state *st, size_t nbytes, int on_device, int device_id,
                               const char *typestr)
{
    oc_py_array *a = array_new(st);
    if (!a)
        return NULL;
    a->v.on_device = on_device;
    a->v.device_id = on_device ? device_id : 0;
    PyObject *alloc = st->allocators[on_device ? OC_PY_ALLOC_DEVICE : OC_PY_ALLOC_HOST];
    if (alloc) {
        void *p = NULL;
        PyObject *mem = oc_py_call_allocator(st, alloc, nbytes, 0, &p);
        if (!mem)
            goto fail;
        a->v.keep = mem;
        a->v.ptr = p;
    } else if (!on_device) {
        size_t n = (nbytes + 63) & ~(size_t)63;
        a->own_ptr = aligned_alloc(64, n ? n : 64);
        if (!a->own_ptr) {
            PyErr_NoMemory();
            goto fail;
        }
        a->own_kind = OC_MEMORY_HOST;
        a->own_size = nbytes;
        a->v.ptr = a->own_ptr;
    } else {
        oc_py_context *c = oc_py_mem_context(st, device_id);
        if (!c)
            goto fail;
        void *p = NULL;
        oc_status s = OC_OK;
        size_t n = nbytes ? nbytes : 1;
        OC_PY_CTX_CALL(c, {
            s = oc_memory_alloc(c->ctx, OC_MEMORY_DEVICE, n, &p);
            if (s == OC_OK)
                s = oc_context_synchronize(c->ctx);
        });
        if (s != OC_OK) {
            if (p)
                OC_PY_CTX_CALL(c, oc_memory_free(c->ctx, OC_MEMORY_DEVICE, p, n));
            if (s == OC_ERR_OUT_OF_MEMORY) {
                PyErr_Format(PyExc_MemoryError, "cannot allocate %zu bytes of device memory on device %d",
                             nbytes, device_id);
                goto fail;
            }
            oc_py_raise(st, s, -1, "cannot allocate %zu bytes of device memory on device %d", nbytes,
                        device_id);
            goto fail;
        }
        a->own_ptr = p;
        a->own_size = n;
        a->own_kind = OC_MEMORY_DEVICE;
        a->own_ctx = Py_NewRef((PyObject *)c);
        a->v.ptr = p;
    }
    if (oc_py_array_set_1d(a, nbytes, typestr && typestr[0] ? typestr : "|u1") != 0)
        goto fail;
    return a;
fail:
    Py_DECREF(a);
    return NULL;
}

oc_py_array *oc_py_array_slice(oc_py_state *st, oc_py_array *parent, size_t offset, size_t nbytes)
{
    oc_py_array *a = array_new(st);
    if (!a)
        return NULL;
    a->v.ptr = parent->v.ptr + offset;
    a->v.on_device = parent->v.on_device;
    a->v.device_id = parent->v.device_id;
    a->v.keep = Py_NewRef((PyObject *)parent);
    if (oc_py_array_set_1d(a, nbytes, "|u1") != 0) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* ---- properties ------------------------------------------------------------ */

static PyObject *tuple_of(const Py_ssize_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    if (!t)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromSsize_t(v[i]);
        if (!x) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *interface_dict(oc_py_array *a, int with_stream)
{
    PyObject *shape = tuple_of(a->v.shape, a->v.ndim);
    if (!shape)
        return NULL;
    PyObject *d = Py_BuildValue("{s:N,s:s,s:(NO),s:i,s:O}", "shape", shape, "typestr", a->v.typestr, "data",
                                PyLong_FromVoidPtr(a->v.ptr), a->v.readonly ? Py_True : Py_False, "version",
                                3, "strides", Py_None);
    if (d && with_stream) {
        /* the stream of work still pending (None once a stream-ordered batch has been waited for) */
        int pending = a->v.has_stream && (!a->pending || oc_py_pending_in_flight(a->pending));
        PyObject *s = pending ? PyLong_FromUnsignedLongLong(a->v.stream) : Py_NewRef(Py_None);
        if (!s || PyDict_SetItemString(d, "stream", s) != 0)
            Py_CLEAR(d);
        Py_XDECREF(s);
    }
    return d;
}

static PyObject *get_cai(PyObject *self, void *c)
{
    (void)c;
    oc_py_array *a = (oc_py_array *)self;
    if (!a->v.on_device) {
        PyErr_SetString(
            PyExc_AttributeError,
            "__cuda_array_interface__: this Array is in host memory (use .cuda() to copy it to a GPU)");
        return NULL;
    }
    if (oc_py_array_resolve(a) != 0)
        return NULL;
    return interface_dict(a, 1);
}

static PyObject *get_ai(PyObject *self, void *c)
{
    (void)c;
    oc_py_array *a = (oc_py_array *)self;
    if (a->v.on_device) {
        PyErr_SetString(
            PyExc_AttributeError,
            "__array_interface__: this Array is in device memory (use .cpu() to copy it to the host)");
        return NULL;
    }
    if (a->pending && oc_py_pending_wait(a->pending, 1) != 0)
        return NULL;
    if (oc_py_array_resolve(a) != 0)
        return NULL;
    return interface_dict(a, 0);
}

static PyObject *get_buffer_kind(PyObject *self, void *c)
{
    (void)c;
    oc_py_state *st = state_of(self);
    int dev = ((oc_py_array *)self)->v.on_device;
    /* ArrayBufferKind: STRIDED_DEVICE = 0, STRIDED_HOST = 1 (as nvCOMP lists them) */
    if (st && st->buffer_kind_enum)
        return PyObject_CallFunction(st->buffer_kind_enum, "i", dev ? 0 : 1);
    return PyLong_FromLong(dev ? 0 : 1);
}

static PyObject *get_buffer_size(PyObject *self, void *c)
{
    (void)c;
    if (oc_py_array_resolve((oc_py_array *)self) != 0)
        return NULL;
    return PyLong_FromSize_t(((oc_py_array *)self)->v.nbytes);
}

static PyObject *get_dtype(PyObject *self, void *c)
{
    (void)c;
    oc_py_array *a = (oc_py_array *)self;
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) {
        PyErr_Clear();
        return PyUnicode_FromString(a->v.typestr);
    }
    PyObject *r = PyObject_CallMethod(np, "dtype", "s", a->v.typestr);
    Py_DECREF(np);
    return r;
}

static PyObject *get_shape(PyObject *self, void *c)
{
    (void)c;
    oc_py_array *a = (oc_py_array *)self;
    if (oc_py_array_resolve(a) != 0)
        return NULL;
    return tuple_of(a->v.shape, a->v.ndim);
}

static PyObject *get_strides(PyObject *self, void *c)
{
    (void)c;
    oc_py_array *a = (oc_py_array *)self;
    if (oc_py_array_resolve(a) != 0)
        return NULL;
    return tuple_of(a->strides, a->v.ndim);
}

static PyObject *get_item_size(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromSsize_t(((oc_py_array *)self)->v.itemsize);
}

static PyObject *get_ndim(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromLong(((oc_py_array *)self)->v.ndim);
}

static PyObject *get_size(PyObject *self, void *c)
{
    (void)c;
    oc_py_array *a = (oc_py_array *)self;
    if (oc_py_array_resolve(a) != 0)
        return NULL;
    return PyLong_FromSize_t(a->v.nbytes / (size_t)a->v.itemsize);
}

static PyObject *get_precision(PyObject *self, void *c)
{
    (void)self;
    (void)c;
    return PyLong_FromLong(0); /* not tracked: 0, nvCOMP's "the data type's full bit depth" */
}

static PyObject *get_ptr(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromVoidPtr(((oc_py_array *)self)->v.ptr);
}

static PyGetSetDef array_getset[] = {
    {"__cuda_array_interface__", get_cai, NULL,
     "CUDA Array Interface v3 of a device Array (AttributeError for host Arrays). 'stream' is the stream on "
     "which pending work was enqueued, or None when the data is ready.",
     NULL},
    {"__array_interface__", get_ai, NULL,
     "NumPy array interface v3 of a host Array (AttributeError on device).", NULL},
    {"buffer_kind", get_buffer_kind, NULL, "ArrayBufferKind.STRIDED_HOST or STRIDED_DEVICE.", NULL},
    {"buffer_size", get_buffer_size, NULL, "The total number of bytes to store the array.", NULL},
    {"dtype", get_dtype, NULL, "numpy.dtype of the items (the type string if numpy is not installed).", NULL},
    {"shape", get_shape, NULL, "Tuple of dimensions.", NULL},
    {"strides", get_strides, NULL, "Strides of axes in bytes (always C-contiguous).", NULL},
    {"item_size", get_item_size, NULL, "Size of each element in bytes.", NULL},
    {"ndim", get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", get_size, NULL, "Number of elements this array holds.", NULL},
    {"precision", get_precision, NULL,
     "nvCOMP's maximum number of significant bits of the data type (0: the type's full bit depth). "
     "Not tracked by opencomp: always 0, since no array protocol carries it and no codec here uses it.",
     NULL},
    {"ptr", get_ptr, NULL, "Address of the first byte, as an int (opencomp extension).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- methods --------------------------------------------------------------- */

static int dlpack_prepare(oc_py_array *a, PyObject *stream)
{
    if (oc_py_array_resolve(a) != 0) /* the export needs the length */
        return -1;
    /* A batch already waited for raises its failure; a host Array of a
     * deferred batch (tests) is waited for. */
    if (a->pending && (oc_py_pending_failed(a->pending) || !a->v.on_device) &&
        oc_py_pending_wait(a->pending, 1) != 0)
        return -1;
    /* A consumer's stream asks us to make pending work visible to it: it
     * waits on an event recorded on our stream, the host does not wait.
     * None (DLPack: the legacy default stream) and 0 are the legacy stream;
     * -1 asks for nothing. */
    if (a->v.on_device && a->v.has_stream && (!a->pending || oc_py_pending_in_flight(a->pending))) {
        oc_py_state *st = state_of((PyObject *)a);
        uintptr_t consumer = 1;
        if (stream && stream != Py_None) {
            if (PyLong_Check(stream)) {
                long long v = PyLong_AsLongLong(stream);
                if (v == -1 && !PyErr_Occurred())
                    return 0;
                PyErr_Clear(); /* a pointer above LLONG_MAX: oc_py_stream_arg reads it */
            }
            if (oc_py_stream_arg(stream, &consumer) != 0)
                return -1;
            if (consumer == 0)
                consumer = 1;
        }
        if (oc_py_order(st, a->v.device_id, consumer, a->v.stream) != 0)
            return -1;
    }
    return 0;
}

static PyObject *array_dlpack(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = Py_None, *max_version = Py_None, *dl_device = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO:__dlpack__", kwlist, &stream, &max_version, &dl_device,
                                     &copy))
        return NULL;
    oc_py_array *a = (oc_py_array *)self;
    if (dl_device != Py_None) {
        int type = -1, id = -1;
        if (!PyArg_ParseTuple(dl_device, "ii", &type, &id))
            return NULL;
        int mine = a->v.on_device ? 2 : 1;
        if (type != mine || (a->v.on_device && id != a->v.device_id)) {
            PyErr_SetString(PyExc_BufferError, "__dlpack__: dl_device differs from the Array's device; use "
                                               ".cpu() or .cuda() to copy");
            return NULL;
        }
    }
    if (copy == Py_True) {
        PyErr_SetString(PyExc_BufferError, "__dlpack__(copy=True) is not supported; export is zero-copy");
        return NULL;
    }
    if (dlpack_prepare(a, stream) != 0)
        return NULL;
    return oc_py_dlpack_export(a);
}

static PyObject *array_dlpack_device(PyObject *self, PyObject *unused)
{
    (void)unused;
    oc_py_array *a = (oc_py_array *)self;
    return Py_BuildValue("(ii)", a->v.on_device ? 2 : 1, a->v.on_device ? a->v.device_id : 0);
}

static PyObject *array_to_dlpack(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"cuda_stream", NULL};
    PyObject *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:to_dlpack", kwlist, &stream))
        return NULL;
    oc_py_array *a = (oc_py_array *)self;
    if (dlpack_prepare(a, stream) != 0)
        return NULL;
    return oc_py_dlpack_export(a);
}

static PyObject *copy_array(oc_py_array *a, int to_device, int synchronize, uintptr_t stream)
{
    oc_py_state *st = state_of((PyObject *)a);
    if (to_device && !oc_engine_available(OC_ENGINE_CUDA)) {
        oc_py_raise(st, OC_ERR_NO_DEVICE, -1,
                    "no CUDA device is available (this build: %s); host Arrays run on the CPU engine",
                    oc_build_info());
        return NULL;
    }
    int dev = a->v.device_id;
    if (a->pending && oc_py_pending_wait(a->pending, 1) != 0)
        return NULL;
    if (oc_py_array_resolve(a) != 0)
        return NULL;
    oc_py_array *r = oc_py_array_alloc(st, a->v.nbytes, to_device, dev, a->v.typestr);
    if (!r)
        return NULL;
    if (a->v.on_device && a->v.has_stream && !a->pending && oc_py_sync_stream(st, dev, a->v.stream) != 0) {
        Py_DECREF(r);
        return NULL;
    }
    oc_py_context *c = oc_py_mem_context(st, dev);
    if (!c) {
        Py_DECREF(r);
        return NULL;
    }
    oc_status s = OC_OK;
    void *dst = r->v.ptr, *src = a->v.ptr;
    size_t n = a->v.nbytes;
    OC_PY_CTX_CALL(c, {
        s = oc_context_set_stream(c->ctx, (void *)stream);
        if (s == OC_OK)
            s = oc_memory_copy(c->ctx, dst, src, n);
        if (s == OC_OK && synchronize)
            s = oc_context_synchronize(c->ctx);
        oc_context_set_stream(c->ctx, NULL);
    });
    if (s != OC_OK) {
        Py_DECREF(r);
        oc_py_raise(st, s, -1, "copy of %zu bytes %s failed", n, to_device ? "to the device" : "to the host");
        return NULL;
    }
    /* keep the shape of the source */
    r->v.ndim = a->v.ndim;
    memcpy(r->v.shape, a->v.shape, sizeof r->v.shape);
    memcpy(r->strides, a->strides, sizeof r->strides);
    if (!synchronize) {
        r->v.has_stream = 1;
        r->v.stream = stream ? stream : 1;
    }
    return (PyObject *)r;
}

static PyObject *array_cpu(PyObject *self, PyObject *unused)
{
    (void)unused;
    oc_py_array *a = (oc_py_array *)self;
    if (!a->v.on_device) {
        if (a->pending && oc_py_pending_wait(a->pending, 1) != 0)
            return NULL;
        if (oc_py_array_resolve(a) != 0)
            return NULL;
        return Py_NewRef(self);
    }
    return copy_array(a, 0, 1, 0);
}

/* Wait for the work that writes this Array (a stream-ordered decode, a
 * cuda(synchronize=False) copy) and raise its batch's failure. */
static PyObject *array_synchronize(PyObject *self, PyObject *unused)
{
    (void)unused;
    oc_py_array *a = (oc_py_array *)self;
    if (a->pending) {
        if (oc_py_pending_wait(a->pending, 1) != 0 || oc_py_array_resolve(a) != 0)
            return NULL;
    } else if (a->v.on_device && a->v.has_stream) {
        if (oc_py_sync_stream(state_of(self), a->v.device_id, a->v.stream) != 0)
            return NULL;
        a->v.has_stream = 0;
    }
    Py_RETURN_NONE;
}

static PyObject *array_cuda(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"synchronize", "cuda_stream", NULL};
    int synchronize = 1;
    PyObject *stream_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|pO:cuda", kwlist, &synchronize, &stream_obj))
        return NULL;
    uintptr_t stream = 0;
    if (oc_py_stream_arg(stream_obj, &stream) != 0)
        return NULL;
    oc_py_array *a = (oc_py_array *)self;
    if (a->v.on_device)
        return Py_NewRef(self);
    return copy_array(a, 1, synchronize, stream);
}

static PyObject *array_repr(PyObject *self)
{
    oc_py_array *a = (oc_py_array *)self;
    if (a->lazy && !oc_py_pending_in_flight(a->pending) && !oc_py_pending_failed(a->pending) &&
        oc_py_array_resolve(a) != 0)
        PyErr_Clear(); /* a length that does not fit the type: shown as pending */
    if (a->lazy)       /* repr does not wait for the stream */
        return PyUnicode_FromFormat("opencomp.Array(shape=(?,), typestr='%s', buffer_size=? (the decoded "
                                    "length, known once the batch is read), %s)",
                                    a->v.typestr, a->v.on_device ? "device" : "host");
    PyObject *shape = tuple_of(a->v.shape, a->v.ndim);
    if (!shape)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("opencomp.Array(shape=%R, typestr='%s', buffer_size=%zu, %s)", shape,
                                       a->v.typestr, a->v.nbytes, a->v.on_device ? "device" : "host");
    Py_DECREF(shape);
    return r;
}

static PyObject *array_len_bytes(PyObject *self, PyObject *unused)
{
    (void)unused;
    oc_py_array *a = (oc_py_array *)self;
    if (a->v.on_device) {
        PyErr_SetString(PyExc_BufferError, "Array is in device memory; call .cpu() first");
        return NULL;
    }
    if (a->pending && oc_py_pending_wait(a->pending, 1) != 0)
        return NULL;
    if (oc_py_array_resolve(a) != 0)
        return NULL;
    return PyBytes_FromStringAndSize(a->v.ptr, (Py_ssize_t)a->v.nbytes);
}

static PyMethodDef array_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))array_dlpack, METH_VARARGS | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None)\n--\n\n"
     "Export the array as a DLPack capsule (zero-copy). For device Arrays with pending work, the work is "
     "made visible to the consumer's `stream` first."},
    {"__dlpack_device__", array_dlpack_device, METH_NOARGS,
     "__dlpack_device__()\n--\n\n(device_type, device_id): (1, 0) for host, (2, id) for CUDA."},
    {"to_dlpack", (PyCFunction)(void (*)(void))array_to_dlpack, METH_VARARGS | METH_KEYWORDS,
     "to_dlpack(cuda_stream=None)\n--\n\nExport the array with zero-copy conversion to a DLPack capsule."},
    {"cpu", array_cpu, METH_NOARGS,
     "cpu()\n--\n\nA copy of this array in host memory; the array itself if it already is in host memory."},
    {"cuda", (PyCFunction)(void (*)(void))array_cuda, METH_VARARGS | METH_KEYWORDS,
     "cuda(synchronize=True, cuda_stream=0)\n--\n\nA copy of this array in device memory (the array itself "
     "if "
     "already there). Raises opencomp.Error (status NO_DEVICE) when no GPU is present."},
    {"tobytes", array_len_bytes, METH_NOARGS, "tobytes()\n--\n\nThe bytes of a host Array (a copy)."},
    {"synchronize", array_synchronize, METH_NOARGS,
     "synchronize()\n--\n\nWait for the work that writes this Array (a stream-ordered decode, a "
     "cuda(synchronize=False) copy); raises opencomp.Error naming the batch's first failed chunk (opencomp "
     "extension)."},
    {NULL, NULL, 0, NULL},
};

/* ---- buffer protocol ----------------------------------------------------- */

static int array_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    oc_py_array *a = (oc_py_array *)self;
    if (a->v.on_device) {
        PyErr_SetString(PyExc_BufferError, "Array is in device memory; call .cpu() for a host copy");
        view->obj = NULL;
        return -1;
    }
    if ((a->pending && oc_py_pending_wait(a->pending, 1) != 0) || oc_py_array_resolve(a) != 0) {
        view->obj = NULL;
        return -1;
    }
    if ((flags & PyBUF_WRITABLE) && a->v.readonly) {
        PyErr_SetString(PyExc_BufferError, "Array is read-only");
        view->obj = NULL;
        return -1;
    }
    view->buf = a->v.ptr;
    view->obj = Py_NewRef(self);
    view->len = (Py_ssize_t)a->v.nbytes;
    view->readonly = a->v.readonly;
    view->itemsize = a->v.itemsize;
    const char *fmt = oc_py_typestr_format(a->v.typestr);
    if (!fmt) {
        /* opaque items: bytes */
        fmt = "B";
        view->itemsize = 1;
    }
    view->format = (flags & PyBUF_FORMAT) ? (char *)fmt : NULL;
    if (view->itemsize == a->v.itemsize) {
        view->ndim = a->v.ndim;
        view->shape = (flags & PyBUF_ND) ? a->v.shape : NULL;
        view->strides = (flags & PyBUF_STRIDES) == PyBUF_STRIDES ? a->strides : NULL;
    } else {
        view->ndim = 1;
        view->shape = NULL;
        view->strides = NULL;
        if (flags & PyBUF_ND) {
            Py_DECREF(self);
            view->obj = NULL;
            PyErr_SetString(PyExc_BufferError, "Array's item type has no buffer format; use bytes");
            return -1;
        }
    }
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static PyType_Slot array_slots[] = {
    {Py_tp_dealloc, array_dealloc},
    {Py_tp_traverse, array_traverse},
    {Py_tp_repr, array_repr},
    {Py_tp_getset, array_getset},
    {Py_tp_methods, array_methods},
    {Py_bf_getbuffer, array_getbuffer},
    {Py_tp_doc,
     "Array: a typed, C-contiguous block of host or device memory (nvidia.nvcomp.Array's names).\n\n"
     "Created by as_array/as_arrays/from_dlpack and returned by Codec.encode/decode. It exposes the "
     "buffer protocol and __array_interface__ (host), __cuda_array_interface__ (device) and DLPack "
     "(both), so numpy.asarray, cupy.asarray and torch.from_dlpack take it without a copy."},
    {0, NULL},
};

PyType_Spec oc_py_array_spec = {
    .name = "opencomp.Array",
    .basicsize = sizeof(oc_py_array),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = array_slots,
};
