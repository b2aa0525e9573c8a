/*
 * oc_py.h - declarations shared by the files of the opencomp CPython
 * extension (opencomp._opencomp).
 *
 * The extension is a thin layer over the public C API (opencomp.h): it turns
 * Python objects into (pointer, size, memory kind) views, runs the batched
 * and whole-buffer calls with the GIL released, and wraps results in Array
 * objects.  It needs no CUDA headers: device memory moves through the C
 * library's memory helpers (oc_memory_alloc/copy, oc_context_synchronize).
 *
 * Layout of the extension:
 *   module.c   multi-phase init, module state, module-level functions
 *   context.c  _Context: an oc_context plus the lock that serialises its use;
 *              the internal stream of each device; stream ordering by events
 *   view.c     any Python object -> oc_py_view (buffer protocol, array
 *              interfaces, DLPack), with contiguity and writability checks
 *   dlpack.c   DLPack import (capsules) and export (Array.__dlpack__)
 *   array.c    the Array type (nvidia.nvcomp.Array's names)
 *   codec.c    the Codec type (encode/decode, out=, errors=)
 *   pending.c  _Pending: a decode batch enqueued on a stream whose statuses
 *              are read at the sync point (stream-ordered decode)
 *   typestr.c  array-protocol type strings <-> struct formats / DLPack
 *
 * Locking: every oc_context is used under its _Context's lock, taken and
 * released only while the GIL is released (OC_PY_CTX_CALL), so no Python
 * code ever runs while a context lock is held by that thread.
 */
#ifndef OC_PY_H
#define OC_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdint.h>

#include "opencomp.h"

#define OC_PY_MAXDIM 32
#define OC_PY_MAX_DEVICES 16
#define OC_PY_DEVFREE 64 /* device result blocks kept for reuse */

#if defined(__GNUC__)
#define OC_PY_HIDDEN __attribute__((visibility("hidden")))
#else
#define OC_PY_HIDDEN
#endif

/* Module state: everything that would otherwise be a C global. */
typedef struct oc_py_state {
    PyTypeObject *array_type;
    PyTypeObject *codec_type;
    PyTypeObject *context_type;
    PyObject *error;                         /* opencomp.Error (a RuntimeError) */
    PyObject *allocators[3];                 /* host, pinned, device Python allocators (NULL = default) */
    PyObject *mem_ctx[OC_PY_MAX_DEVICES];    /* _Context per device for Array memory and copies */
    PyObject *stream_ctx[OC_PY_MAX_DEVICES]; /* _Context owning the internal stream of each device */
    PyTypeObject *pending_type;              /* _Pending */
    PyObject *status_enum;                   /* opencomp.Status, registered by __init__.py */
    PyObject *buffer_kind_enum;              /* opencomp.ArrayBufferKind */
    PyObject *stream_type;                   /* opencomp.CudaStream */
    unsigned long long size_queries;         /* decode calls that ran a size query (tests read it) */
    unsigned long alloc_generation;   /* bumped by set_*_allocator: older pooled contexts are dropped */
    unsigned long long pending_waits; /* stream-ordered batches waited for (tests read it) */
    int defer_host;                   /* tests without a GPU: host batches take the deferred path */
    /* device blocks for the results (sizes, statuses) of device-offset decodes, free for reuse:
     * kept rather than freed, so that a steady stream of calls allocates nothing (codec.c) */
    struct oc_py_devblock {
        void *ptr;
        size_t bytes;
        int device_id;
        PyObject *ctx; /* the _Context that allocated it (frees it) */
    } devfree[OC_PY_DEVFREE];
    int ndevfree;
    unsigned long long devblock_allocs; /* device result blocks allocated (tests read it) */
    void *fetch_buf;                    /* host buffer the device batches' results are copied into */
    size_t fetch_cap;
    int fetch_busy; /* a fetch holds it (the GIL is released during the copies) */
} oc_py_state;

enum { OC_PY_ALLOC_HOST = 0, OC_PY_ALLOC_PINNED = 1, OC_PY_ALLOC_DEVICE = 2 };

/* ---- _Context ------------------------------------------------------------ */

/* A Python allocator seen as an oc_allocator: calls it with the GIL taken
 * (from any thread) and keeps each allocation object alive until freed. */
typedef struct oc_py_tramp {
    oc_py_state *st;
    PyObject *alloc; /* the callable */
    PyObject *live;  /* dict: pointer -> allocation object */
} oc_py_tramp;

typedef struct oc_py_context {
    PyObject_HEAD
    oc_context *ctx;
    PyThread_type_lock lock;
    void *stream;
    int device_id;
    oc_py_tramp *tramp[2]; /* pinned, device scratch through set_*_allocator (NULL = default) */
    PyObject
        *stream_owner; /* what owns a borrowed `stream`: cuda_stream= object, internal stream's _Context */
    unsigned long alloc_generation;
} oc_py_context;

/* Run `stmt` with the GIL released and the context's lock held. */
#define OC_PY_CTX_CALL(c, stmt)                                                                              \
    do {                                                                                                     \
        Py_BEGIN_ALLOW_THREADS                                                                               \
        PyThread_acquire_lock((c)->lock, WAIT_LOCK);                                                         \
        stmt;                                                                                                \
        PyThread_release_lock((c)->lock);                                                                    \
        Py_END_ALLOW_THREADS                                                                                 \
    } while (0)

OC_PY_HIDDEN extern PyType_Spec oc_py_context_spec;
/* New context on device_id/stream; with_allocators routes its pinned and
 * device scratch through the Python allocators set at this moment. */
OC_PY_HIDDEN oc_py_context *oc_py_context_new(oc_py_state *st, int device_id, void *stream, int num_threads,
                                              int with_allocators);
/* The internal stream of device_id (nvCOMP's: one per device, made on first
 * use, non-blocking: OC_CONTEXT_OWN_STREAM), used by Codecs made without
 * cuda_stream=.  Returns 0, or -1 with an exception set. */
OC_PY_HIDDEN int oc_py_internal_stream(oc_py_state *st, int device_id, uintptr_t *out);
/* Set a context's stream; `owner` (may be NULL) is kept alive as long as the
 * context uses it (the _Context of an internal stream). */
OC_PY_HIDDEN void oc_py_context_use_stream(oc_py_context *c, uintptr_t stream, PyObject *owner);
/* The _Context that owns device_id's internal stream, if made (borrowed). */
OC_PY_HIDDEN PyObject *oc_py_internal_stream_owner(oc_py_state *st, int device_id);
/* Order streams of device_id without a host wait: work enqueued on `waiter`
 * afterwards waits for the work enqueued on `producer` so far
 * (oc_context_wait_stream).  Returns 0, or -1 with an exception set. */
OC_PY_HIDDEN int oc_py_order(oc_py_state *st, int device_id, uintptr_t waiter, uintptr_t producer);
/* The module's memory context for device_id (created on first use). Borrowed. */
OC_PY_HIDDEN oc_py_context *oc_py_mem_context(oc_py_state *st, int device_id);

/* Wait (GIL released) for all work on a CUDA stream of device_id. */
OC_PY_HIDDEN int oc_py_sync_stream(oc_py_state *st, int device_id, uintptr_t stream);

/* ---- views: a Python object seen as bytes ------------------------------- */

typedef struct oc_py_view {
    char *ptr;
    size_t nbytes;
    int on_device; /* 1: CUDA device (or managed) memory */
    int device_id; /* -1: not known yet (__cuda_array_interface__): use oc_py_view_device */
    int readonly;
    int ndim;
    Py_ssize_t itemsize;
    Py_ssize_t shape[OC_PY_MAXDIM];
    char typestr[16];
    int has_stream; /* CAI producer stream to wait for */
    uintptr_t stream;
    PyObject *keep; /* new reference keeping the memory alive (object, capsule) */
    Py_buffer buf;  /* when taken through the buffer protocol */
    int has_buf;
} oc_py_view;

/*
 * oc_py_view_get fills *v from obj: an Array, a buffer-protocol object, an
 * object with __cuda_array_interface__, __array_interface__ or
 * __dlpack__/__dlpack_device__, or a "dltensor" capsule.  The memory must be
 * C-contiguous; `writable` asks for writable memory.  `consumer_stream` is
 * passed to __dlpack__(stream=...) for device producers.  `what` names the
 * argument in error messages ("srcs[3]").  Returns 0, or -1 with an
 * exception set (TypeError/ValueError/BufferError).
 */
OC_PY_HIDDEN int oc_py_view_get(oc_py_state *st, PyObject *obj, int writable, uintptr_t consumer_stream,
                                const char *what, oc_py_view *v);
OC_PY_HIDDEN void oc_py_view_release(oc_py_view *v);

/* The device that holds a device view's bytes (asked of the driver the first
 * time; an address the driver does not know counts as device 0). */
static inline int oc_py_view_device(oc_py_view *v)
{
    if (v->on_device && v->device_id < 0) {
        int d = oc_pointer_device(v->ptr);
        v->device_id = d >= 0 ? d : 0;
    }
    return v->on_device ? v->device_id : 0;
}

/* ---- Array ------------------------------------------------------------ */

typedef struct oc_py_array {
    PyObject_HEAD
    oc_py_view v; /* memory, shape, typestr; v.keep/v.buf keep foreign memory alive */
    Py_ssize_t strides[OC_PY_MAXDIM];
    void *own_ptr; /* memory this Array allocated itself (NULL if foreign) */
    size_t own_size;
    int own_kind;      /* oc_memory_kind of own_ptr */
    PyObject *own_ctx; /* _Context that frees device memory */
    PyObject *weakreflist;
    PyObject *pending; /* _Pending of the stream-ordered batch that writes this Array (NULL: none) */
    int lazy;          /* length unknown until `pending` is read: decode(out=) without uncomp_sizes= */
    size_t lazy_index; /* with lazy: the chunk of `pending` whose decoded size is this Array's length */
} oc_py_array;

OC_PY_HIDDEN extern PyType_Spec oc_py_array_spec;
/* New Array taking over the view (v is zeroed on success and on failure). */
OC_PY_HIDDEN PyObject *oc_py_array_from_view(oc_py_state *st, oc_py_view *v);
/* New 1-D Array of nbytes/itemsize items with fresh memory (host or device). */
OC_PY_HIDDEN oc_py_array *oc_py_array_alloc(oc_py_state *st, size_t nbytes, int on_device, int device_id,
                                            const char *typestr);
/* New 1-D '|u1' Array viewing parent's bytes [offset, offset + nbytes); keeps parent alive. */
OC_PY_HIDDEN oc_py_array *oc_py_array_slice(oc_py_state *st, oc_py_array *parent, size_t offset,
                                            size_t nbytes);
/* Re-shape an Array to nbytes of typestr as a 1-D array (nbytes % itemsize checked). */
OC_PY_HIDDEN int oc_py_array_set_1d(oc_py_array *a, size_t nbytes, const char *typestr);
/* A lazily sized Array (oc_py_array.lazy): wait for its batch (raising the
 * batch's first failed chunk) and give it its decoded length; 0 at once for
 * any other Array.  Returns 0, or -1 with an exception set. */
OC_PY_HIDDEN int oc_py_array_resolve(oc_py_array *a);

/* ---- _Pending: a stream-ordered batch ----------------------------------- */

typedef struct oc_py_pending {
    PyObject_HEAD
    int settled;   /* 0: in flight (statuses not read yet) */
    int reported;  /* its failure has been raised at least once */
    int on_device; /* 0: a host batch (tests: _defer_host), nothing to wait for */
    int device_id;
    uintptr_t stream; /* the stream the batch was enqueued on */
    int single, detect, packed, has_out;
    size_t n, k;       /* chunks; chunks enqueued (packed at the front of the arrays below) */
    size_t *idx;       /* k: batch index of enqueued chunk q */
    size_t *got;       /* k: decoded sizes, written back by the stream */
    oc_status *got_st; /* k: statuses, written back by the stream */
    size_t *known;     /* n: the sizes promised (uncomp_sizes=, headers); (size_t)-1: bounded by out= only */
    size_t *caps;      /* n: output capacities (messages) */
    oc_status *st;     /* n: final statuses once settled */
    oc_py_view *src;   /* nsrc views of the inputs (n, or 1 packed buffer), kept until settled */
    size_t nsrc;
    PyObject *stream_owner; /* the owner of `stream` (its context's stream_owner), kept while in flight */
    Py_ssize_t failed;      /* first failed chunk once settled, else -1 */
    /* A batch whose offsets live on the device (decode(src_offsets=<device array>)): the stream writes
     * sizes and statuses into dev (n sizes, then n statuses), and the promised sizes are src[5]'s device
     * array; no per-chunk host array is made (idx, got, got_st, known, caps stay NULL, k 0): settling
     * copies them into the module's fetch buffer and keeps st only for a failed batch or keep_st, and
     * dev goes back to the module's free blocks. */
    void *dev;
    size_t dev_bytes;
    PyObject *dev_ctx; /* the _Context that allocated dev */
    int settling;      /* its results are being copied from the device (the GIL released meanwhile) */
    int keep_st;       /* keep st once settled even when every chunk is OK (errors='status') */
    int encode;        /* an encode batch: dev holds n statuses only, nothing promised */
    size_t out_bytes;  /* the out buffer's bytes (messages; caps is NULL) */
} oc_py_pending;

OC_PY_HIDDEN extern PyType_Spec oc_py_pending_spec;
/* Wait (GIL released) for the batch's stream and settle its statuses; with
 * `check`, raise opencomp.Error for its first failed chunk (every time it is
 * asked).  Returns 0, or -1 with an exception set. */
OC_PY_HIDDEN int oc_py_pending_wait(PyObject *pending, int check);
/* 1 while the batch's statuses have not been settled. */
OC_PY_HIDDEN int oc_py_pending_in_flight(PyObject *pending);
/* After `waited` was waited for: settle `pending` too if it is in flight on
 * the same stream of the same device, where it was enqueued earlier (the
 * caller's ordering), so that its work is done; no wait of its own. */
OC_PY_HIDDEN void oc_py_pending_settle_with(PyObject *pending, PyObject *waited);
/* 1 for a batch that was settled and failed (no wait). */
OC_PY_HIDDEN int oc_py_pending_failed(PyObject *pending);
/* A device block of at least `bytes` for a device-offset batch's results, on ctx's device: a free one,
 * or a new one from ctx (its stream).  Returns 0 (*ptr, *got_bytes, *owner: a new reference to the
 * allocating _Context), or -1 with an exception set. */
OC_PY_HIDDEN int oc_py_devblock_take(oc_py_state *st, oc_py_context *ctx, size_t bytes, void **ptr,
                                     size_t *got_bytes, PyObject **owner);
/* Give a block back (its work done): kept for reuse, or freed when the free list is full.  Steals owner. */
OC_PY_HIDDEN void oc_py_devblock_give(oc_py_state *st, void *ptr, size_t bytes, int device_id,
                                      PyObject *owner);
/* Free every kept block (module teardown). */
OC_PY_HIDDEN void oc_py_devblock_clear(oc_py_state *st);
/* The decoded size of chunk i of a settled batch (0 for a chunk not enqueued). */
OC_PY_HIDDEN size_t oc_py_pending_size(PyObject *pending, size_t i);

/* ---- Codec -------------------------------------------------------------- */

OC_PY_HIDDEN extern PyType_Spec oc_py_codec_spec;

/* ---- DLPack ------------------------------------------------------------- */

/* Import a "dltensor" capsule into v (the capsule becomes "used_dltensor"). */
OC_PY_HIDDEN int oc_py_dlpack_import(PyObject *capsule, const char *what, oc_py_view *v);
/* Array.__dlpack__ */
OC_PY_HIDDEN PyObject *oc_py_dlpack_export(oc_py_array *a);

/* ---- type strings ------------------------------------------------------- */

/* Parse an array-protocol type string ("<f4", "|u1", "<U3"; byte order
 * optional) into its kind and item size in bytes ('U' counts characters of 4
 * bytes).  Only the kinds and sizes numpy defines are accepted.  Returns 0,
 * OC_PY_TS_OBJECT for object items ('|O', '|O8') or OC_PY_TS_BAD; sets no
 * exception. */
#define OC_PY_TS_BAD (-1)
#define OC_PY_TS_OBJECT (-2)
OC_PY_HIDDEN int oc_py_typestr_parse(const char *ts, char *kind, Py_ssize_t *itemsize);
/* oc_py_typestr_parse that raises for `what`: TypeError for objects,
 * ValueError for anything else it rejects.  kind/itemsize may be NULL. */
OC_PY_HIDDEN int oc_py_typestr_check(const char *ts, const char *what, char *kind, Py_ssize_t *itemsize);
/* 1 if a buffer-protocol (PEP 3118) format describes Python objects anywhere
 * ("O", "T{O:name:i:b:}", "2O"), else 0. */
OC_PY_HIDDEN int oc_py_format_has_object(const char *fmt);
/* Normalise a data_type argument (str, numpy dtype, type with .str, None) into buf. */
OC_PY_HIDDEN int oc_py_typestr_from_object(PyObject *obj, char *buf, size_t cap);
/* struct-module format of a typestr ("B", "<f" ...) or NULL if none fits. */
OC_PY_HIDDEN const char *oc_py_typestr_format(const char *ts);
/* typestr of a struct-module format with itemsize; 0 on success. */
OC_PY_HIDDEN int oc_py_format_typestr(const char *fmt, Py_ssize_t itemsize, char *buf, size_t cap);

/* ---- module helpers ----------------------------------------------------- */

OC_PY_HIDDEN oc_py_state *oc_py_state_of_type(PyTypeObject *tp);
/* Raise opencomp.Error for status st (with .status and .chunk attributes). */
OC_PY_HIDDEN void oc_py_raise(oc_py_state *st, oc_status status, Py_ssize_t chunk, const char *fmt, ...);
/* Status enum member (or int) for a status. */
OC_PY_HIDDEN PyObject *oc_py_status_object(oc_py_state *st, oc_status status);
/* Parse a stream argument (None, int, object with .ptr) into a cudaStream_t value. */
OC_PY_HIDDEN int oc_py_stream_arg(PyObject *obj, uintptr_t *out);
/* Call a Python allocator: returns a new reference to the allocation and its pointer. */
OC_PY_HIDDEN PyObject *oc_py_call_allocator(oc_py_state *st, PyObject *alloc, size_t nbytes, uintptr_t stream,
                                            void **ptr);
/* Comma-separated list of algorithms this build can run, e.g. "LZ4, Snappy, ...". */
/* engine: an oc_engine, or -1 for "any engine". */
OC_PY_HIDDEN void oc_py_available_algorithms(char *buf, size_t cap, int engine);

#endif /* OC_PY_H */
