/*
 * module.c - opencomp._opencomp: multi-phase init, module state (no C
 * globals), the exception type, and the module-level functions of
 * nvidia.nvcomp (as_array, as_arrays, from_dlpack, set_*_allocator).
 *
 * At import the linked library's version is checked against the header the
 * extension was compiled with.
 */
#include "oc_py.h"

#include <stdarg.h>
#include <string.h>

static struct PyModuleDef oc_py_module;

oc_py_state *oc_py_state_of_type(PyTypeObject *tp)
{
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *m = PyType_GetModuleByDef(tp, &oc_py_module);
#else
    PyObject *m = PyType_GetModule(tp); /* our types are final: no subclass can get here */
#endif
    if (!m)
        return NULL;
    return (oc_py_state *)PyModule_GetState(m);
}

static oc_py_state *state_of_module(PyObject *m)
{
    return (oc_py_state *)PyModule_GetState(m);
}

PyObject *oc_py_status_object(oc_py_state *st, oc_status status)
{
    if (st->status_enum) {
        PyObject *r = PyObject_CallFunction(st->status_enum, "i", (int)status);
        if (r)
            return r;
        PyErr_Clear();
    }
    return PyLong_FromLong((long)status);
}

void oc_py_raise(oc_py_state *st, oc_status status, Py_ssize_t chunk, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    if (!msg)
        return;
    PyObject *exc = PyObject_CallOneArg(st->error, msg);
    Py_DECREF(msg);
    if (!exc)
        return;
    PyObject *s = oc_py_status_object(st, status);
    PyObject *ch = chunk >= 0 ? PyLong_FromSsize_t(chunk) : Py_NewRef(Py_None);
    if (!s || !ch || PyObject_SetAttrString(exc, "status", s) != 0 ||
        PyObject_SetAttrString(exc, "chunk", ch) != 0) {
        Py_XDECREF(s);
        Py_XDECREF(ch);
        Py_DECREF(exc);
        return;
    }
    Py_DECREF(s);
    Py_DECREF(ch);
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
}

int oc_py_stream_arg(PyObject *obj, uintptr_t *out)
{
    *out = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    PyObject *v = NULL;
    if (PyLong_Check(obj)) {
        v = Py_NewRef(obj);
    } else if (PyObject_HasAttrString(obj, "ptr")) {
        v = PyObject_GetAttrString(obj, "ptr"); /* CudaStream, cupy.cuda.Stream */
    } else if (PyObject_HasAttrString(obj, "cuda_stream")) {
        v = PyObject_GetAttrString(obj, "cuda_stream"); /* torch.cuda.Stream */
    }
    if (!v || !PyLong_Check(v)) {
        Py_XDECREF(v);
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError,
                         "a CUDA stream must be an int (cudaStream_t), a CudaStream or an object "
                         "with .ptr / .cuda_stream, not %.100s",
                         Py_TYPE(obj)->tp_name);
        return -1;
    }
    unsigned long long s = PyLong_AsUnsignedLongLong(v);
    Py_DECREF(v);
    if (s == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    *out = (uintptr_t)s;
    return 0;
}

PyObject *oc_py_call_allocator(oc_py_state *st, PyObject *alloc, size_t nbytes, uintptr_t stream, void **ptr)
{
    PyObject *sobj;
    if (st->stream_type)
        sobj = PyObject_CallMethod(st->stream_type, "borrow", "K", (unsigned long long)stream);
    else
        sobj = PyLong_FromUnsignedLongLong(stream);
    if (!sobj)
        return NULL;
    PyObject *mem = PyObject_CallFunction(alloc, "nO", (Py_ssize_t)nbytes, sobj);
    Py_DECREF(sobj);
    if (!mem)
        return NULL;
    PyObject *p = PyObject_GetAttrString(mem, "ptr");
    if (!p || !PyLong_Check(p)) {
        Py_XDECREF(p);
        Py_DECREF(mem);
        if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "an allocator must return an object with an int .ptr attribute");
        }
        return NULL;
    }
    *ptr = PyLong_AsVoidPtr(p);
    Py_DECREF(p);
    if (!*ptr && nbytes) {
        Py_DECREF(mem);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_MemoryError, "the allocator returned a NULL pointer");
        return NULL;
    }
    return mem;
}

/* ---- module functions ------------------------------------------------------ */

static PyObject *wrap(oc_py_state *st, PyObject *src, PyObject *stream_obj, int dlpack_only)
{
    uintptr_t stream = 0;
    if (oc_py_stream_arg(stream_obj, &stream) != 0)
        return NULL;
    if (PyObject_TypeCheck(src, st->array_type))
        return Py_NewRef(src);
    if (dlpack_only && !PyCapsule_CheckExact(src) && !PyObject_HasAttrString(src, "__dlpack__")) {
        PyErr_Format(PyExc_TypeError,
                     "from_dlpack needs a DLPack capsule or an object with __dlpack__, not %.100s",
                     Py_TYPE(src)->tp_name);
        return NULL;
    }
    oc_py_view v;
    int rc;
    if (dlpack_only && !PyCapsule_CheckExact(src)) {
        /* force the DLPack path even for objects that also speak other protocols */
        PyObject *dev = PyObject_CallMethod(src, "__dlpack_device__", NULL);
        if (!dev)
            return NULL;
        int type = PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2
                       ? (int)PyLong_AsLong(PyTuple_GET_ITEM(dev, 0))
                       : 1;
        Py_DECREF(dev);
        PyObject *cap;
        if (type == 2 || type == 13) {
            PyObject *kw = Py_BuildValue("{s:K}", "stream", (unsigned long long)(stream ? stream : 1));
            PyObject *meth = PyObject_GetAttrString(src, "__dlpack__");
            PyObject *args = PyTuple_New(0);
            cap = (kw && meth && args) ? PyObject_Call(meth, args, kw) : NULL;
            Py_XDECREF(kw);
            Py_XDECREF(meth);
            Py_XDECREF(args);
        } else {
            cap = PyObject_CallMethod(src, "__dlpack__", NULL);
        }
        if (!cap)
            return NULL;
        memset(&v, 0, sizeof v);
        rc = oc_py_dlpack_import(cap, "source", &v);
        Py_DECREF(cap);
        if (rc != 0)
            oc_py_view_release(&v);
    } else {
        rc = oc_py_view_get(st, src, 0, stream ? stream : 1, "source", &v);
    }
    if (rc != 0)
        return NULL;
    if (v.on_device && v.has_stream && v.stream != (stream ? stream : 1)) {
        /* the Array's stream waits for the producer's on the GPU: no host wait */
        if (oc_py_order(st, oc_py_view_device(&v), stream ? stream : 1, v.stream) != 0) {
            oc_py_view_release(&v);
            return NULL;
        }
        v.stream = stream ? stream : 1;
    }
    return oc_py_array_from_view(st, &v);
}

static PyObject *mod_as_array(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"source", "cuda_stream", NULL};
    PyObject *src, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:as_array", kwlist, &src, &stream))
        return NULL;
    return wrap(state_of_module(m), src, stream, 0);
}

static PyObject *mod_from_dlpack(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"source", "cuda_stream", NULL};
    PyObject *src, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:from_dlpack", kwlist, &src, &stream))
        return NULL;
    return wrap(state_of_module(m), src, stream, 1);
}

static PyObject *mod_as_arrays(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"sources", "cuda_stream", NULL};
    PyObject *srcs, *stream = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:as_arrays", kwlist, &srcs, &stream))
        return NULL;
    PyObject *seq = PySequence_Fast(srcs, "as_arrays needs a list of arrays");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject *r = PyList_New(n);
    if (!r) {
        Py_DECREF(seq);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = wrap(state_of_module(m), PySequence_Fast_GET_ITEM(seq, i), stream, 0);
        if (!a) {
            Py_DECREF(r);
            Py_DECREF(seq);
            return NULL;
        }
        PyList_SET_ITEM(r, i, a);
    }
    Py_DECREF(seq);
    return r;
}

static PyObject *set_allocator(PyObject *m, PyObject *args, PyObject *kw, int which, const char *name)
{
    static char *kwlist[] = {"allocator", NULL};
    PyObject *alloc = Py_None;
    char fmt[64];
    PyOS_snprintf(fmt, sizeof fmt, "|O:%s", name);
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &alloc))
        return NULL;
    if (alloc != Py_None && !PyCallable_Check(alloc)) {
        PyErr_Format(PyExc_TypeError, "%s: allocator must be callable (nbytes, stream) or None", name);
        return NULL;
    }
    oc_py_state *st = state_of_module(m);
    Py_XSETREF(st->allocators[which], alloc == Py_None ? NULL : Py_NewRef(alloc));
    st->alloc_generation++;
    Py_RETURN_NONE;
}

static PyObject *mod_set_device_allocator(PyObject *m, PyObject *a, PyObject *k)
{
    return set_allocator(m, a, k, OC_PY_ALLOC_DEVICE, "set_device_allocator");
}
static PyObject *mod_set_pinned_allocator(PyObject *m, PyObject *a, PyObject *k)
{
    return set_allocator(m, a, k, OC_PY_ALLOC_PINNED, "set_pinned_allocator");
}
static PyObject *mod_set_host_allocator(PyObject *m, PyObject *a, PyObject *k)
{
    return set_allocator(m, a, k, OC_PY_ALLOC_HOST, "set_host_allocator");
}

static PyObject *mod_build_info(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyUnicode_FromString(oc_build_info());
}

static PyObject *mod_algorithms(PyObject *m, PyObject *args, PyObject *kw)
{
    (void)m;
    static char *kwlist[] = {"engine", NULL};
    const char *engine = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|z:algorithms", kwlist, &engine))
        return NULL;
    int e = -1;
    if (engine && strcmp(engine, "cpu") == 0) {
        e = OC_ENGINE_CPU;
    } else if (engine && strcmp(engine, "cuda") == 0) {
        e = OC_ENGINE_CUDA;
    } else if (engine) {
        PyErr_SetString(PyExc_ValueError, "engine must be None, 'cpu' or 'cuda'");
        return NULL;
    }
    char buf[256];
    oc_py_available_algorithms(buf, sizeof buf, e);
    PyObject *s = PyUnicode_FromString(buf);
    if (!s)
        return NULL;
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *r = sep ? PyUnicode_Split(s, sep, -1) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(s);
    if (r && PyList_GET_SIZE(r) == 1 && PyUnicode_GET_LENGTH(PyList_GET_ITEM(r, 0)) == 0)
        PyList_SetSlice(r, 0, 1, NULL);
    return r;
}

static PyObject *mod_cuda_available(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    return PyBool_FromLong(oc_engine_available(OC_ENGINE_CUDA));
}

/* _stream_device(stream): the device of a cudaStream_t (the current device
 * for the special streams 0, 1, 2), or -1 where no GPU can say (no CUDA
 * engine, no GPU, a forked child, CUDA older than 12.8);
 * opencomp.Error(Status.CUDA) for a stream CUDA refuses
 * (oc_cuda_stream_device).  CudaStream.borrow and .device use it. */
static PyObject *mod_stream_device(PyObject *m, PyObject *arg)
{
    uintptr_t stream;
    if (oc_py_stream_arg(arg, &stream) != 0)
        return NULL;
    int dev = -1;
    oc_status st;
    Py_BEGIN_ALLOW_THREADS
    st = oc_cuda_stream_device((void *)stream, &dev);
    Py_END_ALLOW_THREADS
    if (st == OC_ERR_NO_DEVICE || st == OC_ERR_FORKED || st == OC_ERR_UNSUPPORTED)
        return PyLong_FromLong(-1);
    if (st != OC_OK) {
        oc_py_raise(state_of_module(m), st, -1, "CUDA refuses stream 0x%zx (%s)", (size_t)stream,
                    oc_status_name(st));
        return NULL;
    }
    return PyLong_FromLong(dev);
}

static PyObject *mod_register(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"Status", "ArrayBufferKind", "CudaStream", NULL};
    PyObject *s, *b, *cs;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:_register", kwlist, &s, &b, &cs))
        return NULL;
    oc_py_state *st = state_of_module(m);
    Py_XSETREF(st->status_enum, Py_NewRef(s));
    Py_XSETREF(st->buffer_kind_enum, Py_NewRef(b));
    Py_XSETREF(st->stream_type, Py_NewRef(cs));
    Py_RETURN_NONE;
}

static PyObject *mod_size_queries(PyObject *m, PyObject *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(state_of_module(m)->size_queries);
}

/* _gpu_kernel(name, encode): whether the CUDA engine runs `name` on GPU
 * kernels, decoding (oc_algorithm_decode_available) or, with `encode`, both
 * ways (oc_algorithm_available): the engine host-stages the others without
 * saying so, and opencomp.numcodecs must know (its one-copy CPU path and
 * warning).  None for a name this build does not know.  (It asked the C API
 * through ctypes before; builds that keep the library's symbols hidden in
 * the extension left it with no answer.) */
static PyObject *mod_gpu_kernel(PyObject *m, PyObject *args)
{
    (void)m;
    const char *name;
    int encode;
    if (!PyArg_ParseTuple(args, "sp:_gpu_kernel", &name, &encode))
        return NULL;
    oc_algorithm a;
    if (oc_algorithm_from_name(name, &a) != OC_OK)
        Py_RETURN_NONE;
    return PyBool_FromLong(encode ? oc_algorithm_available(OC_ENGINE_CUDA, a)
                                  : oc_algorithm_decode_available(OC_ENGINE_CUDA, a));
}

static PyObject *mod_pending_waits(PyObject *m, PyObject *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(state_of_module(m)->pending_waits);
}

static PyObject *mod_devblock_allocs(PyObject *m, PyObject *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(state_of_module(m)->devblock_allocs);
}

/* Tests without a GPU: host batches of a decode with known sizes take the
 * stream-ordered path (statuses settled and raised at the sync point, not
 * in the call), so the deferred checks run on the CPU engine too.  The
 * CPU engine has finished when the call returns, so nothing waits. */
static PyObject *mod_defer_host(PyObject *m, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0)
        return NULL;
    oc_py_state *st = state_of_module(m);
    int was = st->defer_host;
    st->defer_host = on;
    return PyBool_FromLong(was);
}

static PyObject *mod_internal_stream(PyObject *m, PyObject *arg)
{
    long dev = PyLong_AsLong(arg);
    if (dev == -1 && PyErr_Occurred())
        return NULL;
    uintptr_t s = 0;
    if (oc_py_internal_stream(state_of_module(m), (int)dev, &s) != 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(s);
}

static PyObject *mod_status_name(PyObject *m, PyObject *arg)
{
    (void)m;
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred())
        return NULL;
    return Py_BuildValue("(ss)", oc_status_name((oc_status)v), oc_status_message((oc_status)v));
}

#define KW(f) (PyCFunction)(void (*)(void))(f), METH_VARARGS | METH_KEYWORDS

static PyMethodDef module_methods[] = {
    {"as_array", KW(mod_as_array),
     "as_array(source, cuda_stream=0)\n--\n\nWrap an external buffer (buffer protocol, __array_interface__, "
     "__cuda_array_interface__, __dlpack__ or a DLPack capsule) as an Array, zero-copy; the Array keeps the "
     "source alive."},
    {"as_arrays", KW(mod_as_arrays), "as_arrays(sources, cuda_stream=0)\n--\n\nas_array for each of a list."},
    {"from_dlpack", KW(mod_from_dlpack),
     "from_dlpack(source, cuda_stream=0)\n--\n\nZero-copy conversion from a DLPack capsule or an object with "
     "__dlpack__ to an Array."},
    {"set_device_allocator", KW(mod_set_device_allocator),
     "set_device_allocator(allocator=None)\n--\n\nAllocator (nbytes, stream) -> object with .ptr for the "
     "device "
     "memory of future Arrays; None restores the default."},
    {"set_pinned_allocator", KW(mod_set_pinned_allocator),
     "set_pinned_allocator(allocator=None)\n--\n\nAllocator (nbytes, stream) -> object with .ptr for the "
     "pinned "
     "host scratch of Codecs' later calls; None restores the default."},
    {"set_host_allocator", KW(mod_set_host_allocator),
     "set_host_allocator(allocator=None)\n--\n\nAllocator (nbytes, stream) -> object with .ptr for the host "
     "memory of future Arrays; None restores the default."},
    {"build_info", mod_build_info, METH_NOARGS,
     "build_info()\n--\n\nThe C library's one-line build description."},
    {"algorithms", KW(mod_algorithms),
     "algorithms(engine=None)\n--\n\nNames of the algorithms this build can run: on any engine (None), on "
     "the "
     "CPU engine ('cpu') or on the CUDA engine now ('cuda': empty without a GPU)."},
    {"cuda_available", mod_cuda_available, METH_NOARGS,
     "cuda_available()\n--\n\nTrue if the CUDA engine is built in and a GPU is usable."},
    {"_register", KW(mod_register), "Internal: the Python-level enum and stream types."},
    {"_stream_device", mod_stream_device, METH_O,
     "Internal: the device of a cudaStream_t (current device for 0, 1, 2), -1 without a GPU."},
    {"_size_queries", mod_size_queries, METH_NOARGS,
     "Internal: number of decode calls that ran a size query."},
    {"_gpu_kernel", mod_gpu_kernel, METH_VARARGS,
     "Internal: _gpu_kernel(name, encode) -> whether the CUDA engine decodes (encode: also encodes) the "
     "algorithm on GPU kernels now; None for an unknown name."},
    {"_pending_waits", mod_pending_waits, METH_NOARGS,
     "Internal: stream-ordered batches waited for so far (tests)."},
    {"_devblock_allocs", mod_devblock_allocs, METH_NOARGS,
     "Internal: device blocks allocated so far for the results of device-offset decodes (tests: reused, "
     "not allocated per call)."},
    {"_defer_host", mod_defer_host, METH_O,
     "Internal (tests without a GPU): host decodes of known sizes settle their statuses at the sync point; "
     "returns the previous setting."},
    {"_internal_stream", mod_internal_stream, METH_O,
     "Internal: the internal (non-blocking) stream of a device, made on first use."},
    {"_status_name", mod_status_name, METH_O, "Internal: (name, message) of a status value."},
    {NULL, NULL, 0, NULL},
};

/* ---- init ---------------------------------------------------------------- */

static int module_exec(PyObject *m)
{
    oc_py_state *st = state_of_module(m);
    if (oc_version_number() != OC_VERSION_NUMBER) {
        PyErr_Format(PyExc_ImportError, "opencomp: extension built for library %s but linked with %s",
                     OC_VERSION_STRING, oc_version_string());
        return -1;
    }
    st->error = PyErr_NewExceptionWithDoc("opencomp.Error",
                                          "An opencomp call failed. Attributes: status (opencomp.Status) and "
                                          "chunk (index of the failed chunk in a batch, or None).",
                                          PyExc_RuntimeError, NULL);
    if (!st->error || PyModule_AddObjectRef(m, "Error", st->error) != 0)
        return -1;
    st->context_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &oc_py_context_spec, NULL);
    st->array_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &oc_py_array_spec, NULL);
    st->codec_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &oc_py_codec_spec, NULL);
    st->pending_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &oc_py_pending_spec, NULL);
    if (!st->context_type || !st->array_type || !st->codec_type || !st->pending_type)
        return -1;
    if (PyModule_AddType(m, st->array_type) != 0 || PyModule_AddType(m, st->codec_type) != 0 ||
        PyModule_AddType(m, st->context_type) != 0)
        return -1;
    if (PyModule_AddStringConstant(m, "__version__", oc_version_string()) != 0)
        return -1;
    return 0;
}

static int module_traverse(PyObject *m, visitproc visit, void *arg)
{
    oc_py_state *st = state_of_module(m);
    Py_VISIT(st->array_type);
    Py_VISIT(st->codec_type);
    Py_VISIT(st->context_type);
    Py_VISIT(st->error);
    for (int i = 0; i < 3; i++)
        Py_VISIT(st->allocators[i]);
    for (int i = 0; i < OC_PY_MAX_DEVICES; i++) {
        Py_VISIT(st->mem_ctx[i]);
        Py_VISIT(st->stream_ctx[i]);
    }
    for (int i = 0; i < st->ndevfree; i++)
        Py_VISIT(st->devfree[i].ctx);
    Py_VISIT(st->pending_type);
    Py_VISIT(st->status_enum);
    Py_VISIT(st->buffer_kind_enum);
    Py_VISIT(st->stream_type);
    return 0;
}

static int module_clear(PyObject *m)
{
    oc_py_state *st = state_of_module(m);
    Py_CLEAR(st->status_enum);
    Py_CLEAR(st->buffer_kind_enum);
    Py_CLEAR(st->stream_type);
    for (int i = 0; i < 3; i++)
        Py_CLEAR(st->allocators[i]);
    oc_py_devblock_clear(st); /* frees through their _Contexts, before those go */
    PyMem_Free(st->fetch_buf);
    st->fetch_buf = NULL;
    st->fetch_cap = 0;
    for (int i = 0; i < OC_PY_MAX_DEVICES; i++) {
        Py_CLEAR(st->mem_ctx[i]);
        Py_CLEAR(st->stream_ctx[i]); /* after every Codec context that borrowed its stream */
    }
    Py_CLEAR(st->pending_type);
    Py_CLEAR(st->error);
    Py_CLEAR(st->codec_type);
    Py_CLEAR(st->array_type);
    Py_CLEAR(st->context_type);
    return 0;
}

static void module_free(void *m)
{
    module_clear((PyObject *)m);
}

static PyModuleDef_Slot module_slots[] = {
    {Py_mod_exec, module_exec},
    {0, NULL},
};

static struct PyModuleDef oc_py_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "opencomp._opencomp",
    .m_doc = "C extension of opencomp: batched "
             "LZ4/Snappy/Deflate/zlib/gzip/Zstd/Blosc/Cascaded/ANS/Bitcomp/GDeflate "
             "on CPUs "
             "and NVIDIA "
             "GPUs.",
    .m_size = sizeof(oc_py_state),
    .m_methods = module_methods,
    .m_slots = module_slots,
    .m_traverse = module_traverse,
    .m_clear = module_clear,
    .m_free = module_free,
};

PyMODINIT_FUNC PyInit__opencomp(void);
PyMODINIT_FUNC PyInit__opencomp(void)
{
    return PyModuleDef_Init(&oc_py_module);
}
