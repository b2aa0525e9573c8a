/*
 * dlpack.c - DLPack in both directions, zero-copy.
 *
 * Import: a "dltensor" capsule is renamed "used_dltensor" (so its producer's
 * destructor leaves it alone) and its DLManagedTensor is owned by a capsule
 * of ours whose destructor calls the producer's deleter: the view's `keep`.
 *
 * Export (Array.__dlpack__): a DLManagedTensor whose manager_ctx holds a
 * reference to the Array; the deleter may run on any thread, with or
 * without the GIL, so it takes the GIL itself and frees with raw malloc.
 * dlpack.h (Debian's libdlpack-dev) is DLPack 0.6: we produce unversioned
 * capsules, which every consumer accepts.
 */
#include "oc_py.h"

#include <dlpack/dlpack.h>
#include <stdlib.h>
#include <string.h>

#define OC_DL_BOOL 6 /* kDLBool (DLPack >= 0.8) */

static void owner_destructor(PyObject *cap)
{
    DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(cap, "opencomp.dlpack_owner");
    if (m && m->deleter)
        m->deleter(m);
}

static int dl_typestr(DLDataType t, char *buf, size_t cap, Py_ssize_t *itemsize)
{
    char kind;
    switch (t.code) {
    case kDLInt:
        kind = 'i';
        break;
    case kDLUInt:
        kind = 'u';
        break;
    case kDLFloat:
        kind = 'f';
        break;
    case kDLComplex:
        kind = 'c';
        break;
    case OC_DL_BOOL:
        kind = 'b';
        break;
    case kDLOpaqueHandle:
        return -2; /* pointers, not data */
    default:
        kind = 'V';
        break; /* bfloat16 and others: opaque bytes */
    }
    if (t.lanes != 1 || t.bits % 8 != 0 || t.bits == 0)
        return -1;
    *itemsize = t.bits / 8;
    char k;
    Py_ssize_t n;
    PyOS_snprintf(buf, cap, "%c%c%d", *itemsize == 1 || kind == 'V' || kind == 'b' ? '|' : '<', kind,
                  (int)*itemsize);
    if (oc_py_typestr_parse(buf, &k, &n) != 0) /* a size numpy has no type for: opaque bytes */
        PyOS_snprintf(buf, cap, "|V%d", (int)*itemsize);
    return 0;
}

int oc_py_dlpack_import(PyObject *capsule, const char *what, oc_py_view *v)
{
    if (!PyCapsule_IsValid(capsule, "dltensor")) {
        PyErr_Format(PyExc_ValueError, "%s: not an unused DLPack capsule (name 'dltensor')", what);
        return -1;
    }
    DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(capsule, "dltensor");
    DLTensor *t = &m->dl_tensor;
    int tsr = t->ndim < 0 || t->ndim > OC_PY_MAXDIM
                  ? -1
                  : dl_typestr(t->dtype, v->typestr, sizeof v->typestr, &v->itemsize);
    if (tsr == -2) {
        PyErr_Format(PyExc_TypeError, "%s: DLPack opaque handles are pointers, not data", what);
        return -1;
    }
    if (tsr != 0) {
        PyErr_Format(PyExc_ValueError,
                     "%s: unsupported DLPack tensor (ndim %d, dtype code %d bits %d lanes %d)", what, t->ndim,
                     t->dtype.code, t->dtype.bits, t->dtype.lanes);
        return -1;
    }
    switch (t->device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:
        v->on_device = 0;
        break;
    case kDLCUDA:
    case kDLCUDAManaged:
        v->on_device = 1;
        v->device_id = t->device.device_id;
        break;
    default:
        PyErr_Format(PyExc_ValueError, "%s: DLPack device type %d is neither CPU nor CUDA", what,
                     (int)t->device.device_type);
        return -1;
    }
    v->ndim = t->ndim;
    /* the byte count must fit in a Py_ssize_t: never let it wrap (zero
     * dimensions are left out, so every partial product below fits too) */
    size_t n = 1, nonzero = (size_t)v->itemsize;
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] < 0) {
            PyErr_Format(PyExc_ValueError, "%s: negative DLPack dimension", what);
            return -1;
        }
        if (t->shape[d] > 0 && (uint64_t)t->shape[d] > (uint64_t)PY_SSIZE_T_MAX / nonzero) {
            PyErr_Format(PyExc_ValueError,
                         "%s: DLPack shape of %zd-byte items is larger than the largest possible array", what,
                         v->itemsize);
            return -1;
        }
        if (t->shape[d] > 0)
            nonzero *= (size_t)t->shape[d];
        v->shape[d] = (Py_ssize_t)t->shape[d];
        n *= (size_t)t->shape[d];
    }
    if (t->strides) {
        int64_t expect = 1;
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (t->shape[d] > 1 && t->strides[d] != expect) {
                PyErr_Format(PyExc_ValueError,
                             "%s is not C-contiguous; pass a contiguous tensor (.contiguous())", what);
                return -1;
            }
            expect *= t->shape[d];
        }
    }
    v->nbytes = n == 0 ? 0 : nonzero;
    v->ptr = (char *)t->data + t->byte_offset;
    v->readonly = 0;
    /* Take ownership: the producer's capsule no longer deletes it. */
    PyObject *owner = PyCapsule_New(m, "opencomp.dlpack_owner", owner_destructor);
    if (!owner)
        return -1;
    if (PyCapsule_SetName(capsule, "used_dltensor") != 0) {
        PyCapsule_SetDestructor(owner, NULL);
        Py_DECREF(owner);
        return -1;
    }
    v->keep = owner;
    return 0;
}

/* ---- export --------------------------------------------------------------- */

typedef struct {
    DLManagedTensor m;
    int64_t shape[OC_PY_MAXDIM];
    int64_t strides[OC_PY_MAXDIM];
} export_block;

static void export_deleter(DLManagedTensor *m)
{
    if (!m)
        return;
    PyObject *arr = (PyObject *)m->manager_ctx;
    if (arr && Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_DECREF(arr);
        PyGILState_Release(g);
    }
    free(m);
}

static void export_capsule_destructor(PyObject *cap)
{
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *m = (DLManagedTensor *)PyCapsule_GetPointer(cap, "dltensor");
        if (m && m->deleter)
            m->deleter(m);
    }
}

PyObject *oc_py_dlpack_export(oc_py_array *a)
{
    char kind;
    Py_ssize_t size;
    if (oc_py_typestr_parse(a->v.typestr, &kind, &size) != 0 || a->v.typestr[0] == '>') {
        PyErr_Format(PyExc_BufferError, "DLPack cannot describe type %s", a->v.typestr);
        return NULL;
    }
    uint8_t code;
    switch (kind) {
    case 'i':
        code = kDLInt;
        break;
    case 'u':
        code = kDLUInt;
        break;
    case 'f':
        code = kDLFloat;
        break;
    case 'c':
        code = kDLComplex;
        break;
    case 'b':
        code = OC_DL_BOOL;
        break;
    default:
        code = kDLUInt;
        size = 1;
        break; /* opaque: export as bytes */
    }
    if (size * 8 > UINT8_MAX) {
        /* wider than DLPack's 8-bit `bits` holds (complex256): bytes, not a wrapped width */
        code = kDLUInt;
        size = 1;
    }
    export_block *b = calloc(1, sizeof *b);
    if (!b)
        return PyErr_NoMemory();
    DLTensor *t = &b->m.dl_tensor;
    t->data = a->v.ptr;
    t->device.device_type = a->v.on_device ? kDLCUDA : kDLCPU;
    t->device.device_id = a->v.on_device ? a->v.device_id : 0;
    t->dtype.code = code;
    t->dtype.bits = (uint8_t)(size * 8);
    t->dtype.lanes = 1;
    if (size == a->v.itemsize) {
        t->ndim = a->v.ndim;
        for (int d = 0; d < a->v.ndim; d++) {
            b->shape[d] = a->v.shape[d];
            b->strides[d] = a->strides[d] / a->v.itemsize;
        }
    } else {
        t->ndim = 1;
        b->shape[0] = (int64_t)a->v.nbytes;
        b->strides[0] = 1;
    }
    t->shape = b->shape;
    t->strides = b->strides;
    t->byte_offset = 0;
    b->m.manager_ctx = Py_NewRef((PyObject *)a);
    b->m.deleter = export_deleter;
    PyObject *cap = PyCapsule_New(&b->m, "dltensor", export_capsule_destructor);
    if (!cap) {
        Py_DECREF((PyObject *)a);
        free(b);
        return NULL;
    }
    return cap;
}
