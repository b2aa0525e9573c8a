/*
 * view.c - see any array-like Python object as (pointer, bytes, where).
 *
 * This is what lets encode/decode take numpy arrays, bytes, memoryviews,
 * cupy arrays and torch tensors directly, and what makes decode(out=...)
 * zero-copy: the pointer we decode into is the caller's pointer.  Order of
 * the protocols tried: our own Array; a bare "dltensor" capsule; bytes,
 * bytearray and memoryview directly; __cuda_array_interface__ (device); the
 * buffer protocol (host); __array_interface__ (host); DLPack (__dlpack__ +
 * __dlpack_device__).
 *
 * Every view must be C-contiguous (a strided view cannot be one chunk of
 * bytes); writable when it is an output.  Views of Python objects (object
 * arrays, object fields) raise TypeError: their bytes are pointers, and
 * decoding into them would hand numpy pointers the stream chose.  Type
 * strings must be ones numpy defines, and a shape whose byte count would
 * overflow raises instead of wrapping.
 */
#include "oc_py.h"

#include <string.h>

static int shape_contiguous(oc_py_view *v, PyObject *strides, const char *what)
{
    /* strides None (or absent) means C-contiguous; else it must equal it */
    if (strides == NULL || strides == Py_None)
        return 0;
    if (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != v->ndim) {
        PyErr_Format(PyExc_ValueError, "%s: malformed strides in its array interface", what);
        return -1;
    }
    Py_ssize_t expect = v->itemsize;
    for (int d = v->ndim - 1; d >= 0; d--) {
        Py_ssize_t s = PyLong_AsSsize_t(PyTuple_GET_ITEM(strides, d));
        if (s == -1 && PyErr_Occurred())
            return -1;
        if (v->shape[d] > 1 && s != expect) {
            PyErr_Format(PyExc_ValueError,
                         "%s is not C-contiguous (strides %R); pass a contiguous array (e.g. "
                         "numpy.ascontiguousarray / cupy.ascontiguousarray)",
                         what, strides);
            return -1;
        }
        expect *= v->shape[d];
    }
    return 0;
}

/* Shape and byte count from an interface's shape tuple.  The product of the
 * dimensions and the item size must fit in a Py_ssize_t (as numpy requires):
 * a larger claim raises instead of wrapping to a small size.  Zero-length
 * dimensions are left out of the check, so every partial product of the
 * strides computed from this shape fits too. */
static int parse_shape(oc_py_view *v, PyObject *shape, const char *what)
{
    if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > OC_PY_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "%s: malformed shape in its array interface", what);
        return -1;
    }
    v->ndim = (int)PyTuple_GET_SIZE(shape);
    size_t n = 1, nonzero = (size_t)v->itemsize;
    for (int d = 0; d < v->ndim; d++) {
        Py_ssize_t s = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, d));
        if (s == -1 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "%s: dimension %d of shape %R is too large", what, d, shape);
            }
            return -1;
        }
        if (s < 0) {
            PyErr_Format(PyExc_ValueError, "%s: negative dimension in shape", what);
            return -1;
        }
        if (s > 0 && nonzero > (size_t)PY_SSIZE_T_MAX / (size_t)s) {
            PyErr_Format(PyExc_ValueError,
                         "%s: shape %R of %zd-byte items is larger than the largest possible array", what,
                         shape, v->itemsize);
            return -1;
        }
        if (s > 0)
            nonzero *= (size_t)s;
        v->shape[d] = s;
        n *= (size_t)s;
    }
    v->nbytes = n == 0 ? 0 : nonzero;
    return 0;
}

/* 1 if an interface's 'descr' (a list of (name, typestr or descr[, shape]))
 * holds object items anywhere, 0 if not, -1 with an exception set. */
static int descr_has_object(PyObject *descr, int depth)
{
    if (descr == NULL || !PyList_Check(descr))
        return 0;
    if (depth > 32) {
        PyErr_SetString(PyExc_ValueError, "array interface 'descr' is nested too deeply");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(descr); i++) {
        PyObject *f = PyList_GET_ITEM(descr, i);
        if (!PyTuple_Check(f) || PyTuple_GET_SIZE(f) < 2)
            continue;
        PyObject *t = PyTuple_GET_ITEM(f, 1);
        if (PyUnicode_Check(t)) {
            const char *ts = PyUnicode_AsUTF8(t);
            char k;
            Py_ssize_t n;
            if (!ts)
                return -1;
            if (oc_py_typestr_parse(ts, &k, &n) == OC_PY_TS_OBJECT)
                return 1;
        } else {
            int r = descr_has_object(t, depth + 1);
            if (r != 0)
                return r;
        }
    }
    return 0;
}

/* __cuda_array_interface__ (v2/v3) or __array_interface__ (v3) dict. */
static int from_interface(PyObject *obj, PyObject *ai, int device, const char *what, oc_py_view *v)
{
    if (!PyDict_Check(ai)) {
        PyErr_Format(PyExc_TypeError, "%s: array interface is not a dict", what);
        return -1;
    }
    PyObject *typestr = PyDict_GetItemString(ai, "typestr");
    PyObject *shape = PyDict_GetItemString(ai, "shape");
    PyObject *data = PyDict_GetItemString(ai, "data");
    PyObject *strides = PyDict_GetItemString(ai, "strides");
    PyObject *mask = PyDict_GetItemString(ai, "mask");
    if (!typestr || !PyUnicode_Check(typestr) || !shape || !data) {
        PyErr_Format(PyExc_ValueError, "%s: array interface lacks typestr, shape or data", what);
        return -1;
    }
    if (mask && mask != Py_None) {
        PyErr_Format(PyExc_ValueError, "%s: masked arrays are not supported", what);
        return -1;
    }
    if (!PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2) {
        PyErr_Format(PyExc_TypeError, "%s: array interface 'data' must be a (pointer, read_only) tuple",
                     what);
        return -1;
    }
    const char *ts = PyUnicode_AsUTF8(typestr);
    if (!ts || oc_py_typestr_check(ts, what, NULL, &v->itemsize) != 0)
        return -1;
    int obj_fields = descr_has_object(PyDict_GetItemString(ai, "descr"), 0);
    if (obj_fields < 0)
        return -1;
    if (obj_fields) {
        PyErr_Format(PyExc_TypeError,
                     "%s: arrays with object fields are not supported (their items hold "
                     "pointers to Python objects, not data)",
                     what);
        return -1;
    }
    PyOS_snprintf(v->typestr, sizeof v->typestr, "%s", ts);
    if (parse_shape(v, shape, what) != 0 || shape_contiguous(v, strides, what) != 0)
        return -1;
    v->ptr = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
    if (v->ptr == NULL && PyErr_Occurred())
        return -1;
    v->readonly = PyObject_IsTrue(PyTuple_GET_ITEM(data, 1));
    if (v->readonly < 0)
        return -1;
    v->on_device = device;
    if (device) {
        /* The interface does not name the device: oc_py_view_device asks the
         * driver when someone needs it (once per batch, not once per chunk). */
        v->device_id = -1;
        PyObject *stream = PyDict_GetItemString(ai, "stream");
        if (stream && stream != Py_None) {
            unsigned long long s = PyLong_AsUnsignedLongLong(stream);
            if (s == (unsigned long long)-1 && PyErr_Occurred())
                return -1;
            if (s == 0) {
                PyErr_Format(PyExc_ValueError, "%s: __cuda_array_interface__ stream 0 is disallowed", what);
                return -1;
            }
            v->has_stream = 1;
            v->stream = (uintptr_t)s;
        }
    }
    v->keep = Py_NewRef(obj);
    return 0;
}

static int from_buffer(PyObject *obj, int writable, const char *what, oc_py_view *v)
{
    int flags = PyBUF_RECORDS_RO | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &v->buf, flags) != 0) {
        if (writable &&
            (PyErr_ExceptionMatches(PyExc_BufferError) || PyErr_ExceptionMatches(PyExc_ValueError))) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be writable (got a read-only %.100s)", what,
                         Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    v->has_buf = 1;
    if (oc_py_format_has_object(v->buf.format)) {
        PyErr_Format(PyExc_TypeError,
                     "%s: object arrays are not supported (their items are pointers to Python objects, "
                     "not data)",
                     what);
        return -1;
    }
    if (!PyBuffer_IsContiguous(&v->buf, 'C')) {
        PyErr_Format(PyExc_ValueError,
                     "%s is not C-contiguous; pass a contiguous array (e.g. numpy.ascontiguousarray)", what);
        return -1;
    }
    v->ptr = v->buf.buf;
    v->nbytes = (size_t)v->buf.len;
    v->readonly = v->buf.readonly;
    v->itemsize = v->buf.itemsize > 0 ? v->buf.itemsize : 1;
    char k;
    Py_ssize_t n;
    if (oc_py_format_typestr(v->buf.format, v->itemsize, v->typestr, sizeof v->typestr) != 0 ||
        oc_py_typestr_parse(v->typestr, &k, &n) != 0 || n != v->itemsize)
        PyOS_snprintf(v->typestr, sizeof v->typestr, "|V%zd", v->itemsize); /* opaque items */
    if (v->buf.ndim > OC_PY_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "%s has too many dimensions", what);
        return -1;
    }
    v->ndim = v->buf.ndim;
    for (int d = 0; d < v->ndim; d++)
        v->shape[d] = v->buf.shape ? v->buf.shape[d] : (Py_ssize_t)v->nbytes / v->itemsize;
    return 0;
}

static int from_dlpack_object(PyObject *obj, uintptr_t consumer_stream, const char *what, oc_py_view *v)
{
    PyObject *dev = PyObject_CallMethod(obj, "__dlpack_device__", NULL);
    if (!dev)
        return -1;
    long type = -1;
    if (PyTuple_Check(dev) && PyTuple_GET_SIZE(dev) == 2)
        type = PyLong_AsLong(PyTuple_GET_ITEM(dev, 0));
    Py_DECREF(dev);
    if (type == -1 && PyErr_Occurred())
        return -1;
    PyObject *cap;
    if (type == 2 /* kDLCUDA */ || type == 13 /* kDLCUDAManaged */) {
        PyObject *kw =
            Py_BuildValue("{s:K}", "stream", (unsigned long long)(consumer_stream ? consumer_stream : 1));
        if (!kw)
            return -1;
        PyObject *meth = PyObject_GetAttrString(obj, "__dlpack__");
        PyObject *args = PyTuple_New(0);
        cap = (meth && args) ? PyObject_Call(meth, args, kw) : NULL;
        Py_XDECREF(args);
        Py_XDECREF(meth);
        Py_DECREF(kw);
    } else {
        cap = PyObject_CallMethod(obj, "__dlpack__", NULL);
    }
    if (!cap)
        return -1;
    int rc = oc_py_dlpack_import(cap, what, v);
    Py_DECREF(cap);
    if (rc == 0 && v->on_device) {
        /* The producer made its work visible to the stream we named: work on
         * any other stream is ordered after that one (job_wait_producers). */
        v->has_stream = 1;
        v->stream = consumer_stream ? consumer_stream : 1;
    }
    return rc;
}

/* obj.name, or NULL: *err stays 0 when the attribute is missing, 1 on another error. */
static PyObject *optional_attr(PyObject *obj, const char *name, int *err)
{
    PyObject *r = PyObject_GetAttrString(obj, name);
    if (!r) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError))
            PyErr_Clear();
        else
            *err = 1;
    }
    return r;
}

int oc_py_view_get(oc_py_state *st, PyObject *obj, int writable, uintptr_t consumer_stream, const char *what,
                   oc_py_view *v)
{
    memset(v, 0, sizeof *v);
    int rc = -1;
    if (PyObject_TypeCheck(obj, st->array_type)) {
        oc_py_array *a = (oc_py_array *)obj;
        if (oc_py_array_resolve(a) != 0) /* a lazily sized result: its length, once its batch is read */
            return -1;
        *v = a->v;
        v->has_buf = 0;
        v->keep = Py_NewRef(obj);
        rc = 0;
    } else if (PyCapsule_CheckExact(obj)) {
        rc = oc_py_dlpack_import(obj, what, v);
    } else if (PyBytes_CheckExact(obj) || PyByteArray_CheckExact(obj) || PyMemoryView_Check(obj)) {
        rc = from_buffer(obj, writable, what, v);
    } else {
        /* __cuda_array_interface__ before the buffer protocol: cupy arrays have
         * a buffer slot that refuses device memory.  Each property is read
         * once (cupy builds its interface dict per read). */
        int err = 0;
        PyObject *ai = optional_attr(obj, "__cuda_array_interface__", &err);
        if (ai) {
            rc = from_interface(obj, ai, 1, what, v);
            Py_DECREF(ai);
        } else if (err) {
            /* the property raised something other than AttributeError */
        } else if (PyObject_CheckBuffer(obj)) {
            rc = from_buffer(obj, writable, what, v);
        } else if ((ai = optional_attr(obj, "__array_interface__", &err)) != NULL) {
            rc = from_interface(obj, ai, 0, what, v);
            Py_DECREF(ai);
        } else if (!err && PyObject_HasAttrString(obj, "__dlpack__") &&
                   PyObject_HasAttrString(obj, "__dlpack_device__")) {
            rc = from_dlpack_object(obj, consumer_stream, what, v);
        } else if (!err) {
            PyErr_Format(PyExc_TypeError,
                         "%s must be an array or bytes-like object (buffer protocol, __array_interface__, "
                         "__cuda_array_interface__ or __dlpack__), not %.100s",
                         what, Py_TYPE(obj)->tp_name);
        }
    }
    if (rc == 0 && writable && v->readonly) {
        PyErr_Format(PyExc_TypeError, "%s must be writable (got a read-only %.100s)", what,
                     Py_TYPE(obj)->tp_name);
        rc = -1;
    }
    if (rc != 0)
        oc_py_view_release(v);
    return rc;
}

void oc_py_view_release(oc_py_view *v)
{
    if (v->has_buf) {
        PyBuffer_Release(&v->buf);
        v->has_buf = 0;
    }
    Py_CLEAR(v->keep);
}
