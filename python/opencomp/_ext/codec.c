/*
 * codec.c - the Codec type: nvidia.nvcomp.Codec's constructor, encode and
 * decode, plus what its users asked for and nvCOMP lacks:
 *
 *   - decode(srcs, out=outs): every chunk decodes straight into the caller's
 *     memory (any slice of any array), capacity checked in bytes; when the
 *     sizes are known (uncomp_sizes=, the WITH_UNCOMPRESSED_SIZE header, or
 *     out= capacities) no size query runs;
 *   - encode(srcs, out=outs) likewise;
 *   - errors="raise" names the failing chunk and the cause; errors="status"
 *     returns a status per chunk instead;
 *   - the GIL is released around every library call, and a Codec can be used
 *     from several threads: it hands each concurrent call its own oc_context
 *     from a small pool (the C library allows one thread per context);
 *   - stream-ordered calls, as nvCOMP's: without cuda_stream= a Codec runs on
 *     the internal non-blocking stream of each device (context.c); inputs'
 *     producer streams (CAI "stream", DLPack) are waited for with events, not
 *     by the host; a device decode whose sizes are known returns without
 *     synchronising and leaves its statuses in a _Pending (pending.c) that
 *     its results hold and Codec.synchronize() reads.
 *
 * Bitstream kinds: RAW and WITH_UNCOMPRESSED_SIZE run through the batched
 * layer (one bare stream per array, all arrays in parallel); NVCOMP_NATIVE
 * runs through the whole-buffer layer (each format's standard container,
 * chunked by uncomp_chunk_size, chunks in parallel).
 */
#include "oc_py.h"

#include <stdlib.h>
#include <string.h>

#define OC_PY_POOL 8
#define WUS_HEADER 8 /* the WITH_UNCOMPRESSED_SIZE header, which the library writes and reads */

typedef struct {
    PyObject_HEAD
    oc_algorithm algorithm; /* OC_ALGO_NONE: detect when decoding */
    int level;
    size_t chunk_size;
    int kind; /* oc_bitstream_kind */
    int checksum_policy;
    int compute_checksum;
    int verify_checksum;
    int device_id;
    uintptr_t stream;
    int num_threads;
    char data_type[16];
    oc_typed_options typed;   /* Cascaded's layers (data_type is chosen per call) */
    uint8_t filter;           /* oc_filter: shuffle= (Blosc: written in each chunk; others: both ways) */
    uint8_t typesize;         /* the filter's element size (typesize=), 0 = 1 */
    uint8_t blosc_codec;      /* Blosc compression: cname= (oc_blosc_codec) */
    uint32_t blosc_blocksize; /* Blosc compression: blocksize= (0 = c-blosc's choice) */
    PyObject *stream_obj;     /* keeps a CudaStream given as cuda_stream alive */
    int has_stream;           /* cuda_stream= given (else: each device's internal stream) */
    PyObject *pendings;       /* list of _Pending batches not yet read by Codec.synchronize() */
    PyThread_type_lock lock;  /* guards the context pool */
    PyObject *pool[OC_PY_POOL];
    int npool;
    void *block;      /* packed calls' per-chunk arrays, reused (job_take_block) */
    size_t block_cap; /* its bytes */
    int block_busy;   /* a call holds it */
} oc_py_codec;

static oc_py_state *state_of(PyObject *self)
{
    return oc_py_state_of_type(Py_TYPE(self));
}

/* ---- context pool ---------------------------------------------------------- */

/* The stream a call on `device` runs on: cuda_stream= if given, else for
 * device data the device's internal stream (made on first use), else none
 * (the CPU engine).  Returns 0, or -1 with an exception set. */
static int call_stream(oc_py_codec *c, int device, int on_device, uintptr_t *out)
{
    *out = c->stream;
    if (c->has_stream || !on_device)
        return 0;
    return oc_py_internal_stream(state_of((PyObject *)c), device, out);
}

/* A context of the pool on `device` (the device the call's data is on), or
 * a new one: contexts, with their scratch and caches, are per device.  Its
 * stream is set to the call's. */
static oc_py_context *pool_take_raw(oc_py_codec *c, int device);
static oc_py_context *pool_take(oc_py_codec *c, int device, int on_device)
{
    uintptr_t stream = 0;
    if (call_stream(c, device, on_device, &stream) != 0)
        return NULL;
    oc_py_context *ctx = pool_take_raw(c, device);
    /* The context keeps the stream's owner alive (the cuda_stream= object, or
     * the device's internal stream): results and stream-ordered batches keep
     * their context, and free or wait on that stream when they go, which may
     * be after the Codec and the caller's stream object are gone. */
    PyObject *owner =
        c->has_stream ? c->stream_obj : oc_py_internal_stream_owner(state_of((PyObject *)c), device);
    if (ctx && (ctx->stream != (void *)stream || ctx->stream_owner != owner))
        oc_py_context_use_stream(ctx, stream, owner);
    return ctx;
}

static oc_py_context *pool_take_raw(oc_py_codec *c, int device)
{
    oc_py_context *ctx = NULL;
    /* The critical section never releases the GIL, so waiting here cannot deadlock. */
    oc_py_state *st = state_of((PyObject *)c);
    PyThread_acquire_lock(c->lock, WAIT_LOCK);
    for (int i = c->npool - 1; i >= 0; i--)
        if (((oc_py_context *)c->pool[i])->device_id == device) {
            ctx = (oc_py_context *)c->pool[i];
            c->pool[i] = c->pool[--c->npool];
            break;
        }
    PyThread_release_lock(c->lock);
    if (ctx && ctx->alloc_generation == st->alloc_generation)
        return ctx;
    Py_XDECREF(ctx); /* made before set_*_allocator changed the allocators */
    return oc_py_context_new(st, device, (void *)c->stream, c->num_threads, 1);
}

static void pool_put(oc_py_codec *c, oc_py_context *ctx)
{
    PyThread_acquire_lock(c->lock, WAIT_LOCK);
    if (c->npool < OC_PY_POOL) {
        c->pool[c->npool++] = (PyObject *)ctx;
        ctx = NULL;
    }
    PyThread_release_lock(c->lock);
    Py_XDECREF(ctx);
}

/* ---- stream-ordered batches ------------------------------------------------ */

#define OC_PY_MAX_IN_FLIGHT 32

/* Keep a stream-ordered batch for Codec.synchronize(): batches already read
 * and either fine or reported are dropped (limit_in_flight bounds the
 * others). */
static int remember_pending(oc_py_codec *c, PyObject *p)
{
    PyObject *keep = PyList_New(0);
    if (!keep)
        return -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(c->pendings); i++) {
        PyObject *q = PyList_GET_ITEM(c->pendings, i);
        oc_py_pending *pq = (oc_py_pending *)q;
        if (pq->settled && (pq->failed < 0 || pq->reported))
            continue;
        if (PyList_Append(keep, q) != 0) {
            Py_DECREF(keep);
            return -1;
        }
    }
    if (PyList_Append(keep, p) != 0) {
        Py_DECREF(keep);
        return -1;
    }
    Py_SETREF(c->pendings, keep);
    return 0;
}

/* Before a stream-ordered batch is enqueued: with OC_PY_MAX_IN_FLIGHT
 * batches of this Codec unread, wait for the oldest one's stream, so that
 * a caller who never synchronises does not keep every input alive (a
 * failure is still raised by Codec.synchronize() or the batch's results).
 * The wait comes before this call's work joins the stream, so a call never
 * waits for its own decode; and every unread batch enqueued on that stream
 * before the wait is settled with it, so the next calls do not wait again.
 * (Waiting after the enqueue, for one batch at a time, made every call
 * past the 32nd synchronous: the stream wait included the call's own
 * decode.) */
static int limit_in_flight(oc_py_codec *c)
{
    Py_ssize_t in_flight = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(c->pendings); i++)
        in_flight += oc_py_pending_in_flight(PyList_GET_ITEM(c->pendings, i));
    if (in_flight < OC_PY_MAX_IN_FLIGHT)
        return 0;
    PyObject *snap = PySequence_List(c->pendings); /* the wait releases the GIL: the list may change */
    if (!snap)
        return -1;
    int rc = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(snap); i++) {
        PyObject *q = PyList_GET_ITEM(snap, i);
        if (!oc_py_pending_in_flight(q))
            continue;
        rc = oc_py_pending_wait(q, 0);
        for (Py_ssize_t k = i + 1; rc == 0 && k < PyList_GET_SIZE(snap); k++)
            oc_py_pending_settle_with(PyList_GET_ITEM(snap, k), q);
        break;
    }
    Py_DECREF(snap);
    return rc;
}

/* Codec.synchronize(): wait for every stream-ordered batch of this Codec
 * whose statuses have not been read, and raise the first failed chunk of
 * the first that failed and was not raised yet. */
static PyObject *codec_synchronize(PyObject *self, PyObject *unused)
{
    (void)unused;
    oc_py_codec *c = (oc_py_codec *)self;
    PyObject *list = c->pendings;
    c->pendings = PyList_New(0);
    if (!c->pendings) {
        c->pendings = list;
        return NULL;
    }
    PyObject *fail = NULL;
    int rc = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(list) && rc == 0; i++) {
        PyObject *q = PyList_GET_ITEM(list, i);
        rc = oc_py_pending_wait(q, 0);
        if (rc == 0 && !fail && oc_py_pending_failed(q) && !((oc_py_pending *)q)->reported)
            fail = q;
    }
    if (rc == 0 && fail)
        rc = oc_py_pending_wait(fail, 1);
    Py_DECREF(list);
    if (rc != 0)
        return NULL;
    Py_RETURN_NONE;
}

/* ---- constructor ------------------------------------------------------------ */

/* data_type= "bf16" or "bfloat16" (a str): bfloat16, which numpy's type
 * strings cannot name. */
static int is_bf16_name(PyObject *o)
{
    if (!o || !PyUnicode_Check(o))
        return 0;
    const char *u = PyUnicode_AsUTF8(o);
    if (!u) {
        PyErr_Clear();
        return 0;
    }
    return !strcmp(u, "bf16") || !strcmp(u, "bfloat16");
}

static size_t type_width(oc_data_type t);

/* The algorithms, their nvCOMP spellings and the rest come from the
 * library's algorithm table (oc_algorithm_get_info). */
void oc_py_available_algorithms(char *buf, size_t cap, int engine)
{
    size_t used = 0;
    buf[0] = '\0';
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    for (oc_algorithm a = (oc_algorithm)1; oc_algorithm_get_info(a, &info) == OC_OK;
         a = (oc_algorithm)(a + 1)) {
        int ok = engine >= 0
                     ? oc_algorithm_available((oc_engine)engine, a)
                     : oc_algorithm_available(OC_ENGINE_CPU, a) || oc_algorithm_available(OC_ENGINE_CUDA, a);
        if (!ok)
            continue;
        int n = PyOS_snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", info.display_name);
        if (n < 0 || (size_t)n >= cap - used)
            break;
        used += (size_t)n;
    }
}

/* Raise for a failed call (not a chunk): say which algorithm and where it ran. */
static void raise_call(oc_py_state *st, oc_status call, const char *what, oc_algorithm alg, int on_device)
{
    char avail[256] = "";
    if (call == OC_ERR_UNSUPPORTED && on_device)
        oc_py_available_algorithms(avail, sizeof avail, OC_ENGINE_CUDA);
    oc_py_raise(st, call, -1, "%s: %s: %s (algorithm %s, %s memory)%s%s%s", what, oc_status_name(call),
                oc_status_message(call), alg == OC_ALGO_NONE ? "detected" : oc_algorithm_name(alg),
                on_device ? "device" : "host",
                call == OC_ERR_UNSUPPORTED && on_device ? "; on the GPU: " : "", avail,
                call == OC_ERR_UNSUPPORTED && on_device && !avail[0] ? "none" : "");
}

static int parse_algorithm(PyObject *obj, oc_algorithm *out)
{
    *out = OC_ALGO_NONE;
    if (obj == NULL || obj == Py_None)
        return 0;
    if (!PyUnicode_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "algorithm must be a str such as 'LZ4', not %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    const char *name = PyUnicode_AsUTF8(obj);
    if (!name)
        return -1;
    if (name[0] == '\0')
        return 0;
    char avail[256];
    oc_py_available_algorithms(avail, sizeof avail, -1);
    if (oc_algorithm_from_name(name, out) != OC_OK || *out == OC_ALGO_NONE) {
        PyErr_Format(PyExc_ValueError, "unknown algorithm '%s'; available: %s", name, avail);
        return -1;
    }
    if (!oc_algorithm_available(OC_ENGINE_CPU, *out) && !oc_algorithm_available(OC_ENGINE_CUDA, *out)) {
        PyErr_Format(PyExc_ValueError, "algorithm '%s' is not available in this build; available: %s", name,
                     avail);
        return -1;
    }
    return 0;
}

static int int_arg(PyObject *obj, const char *name, long lo, long hi, long *out)
{
    long v = PyLong_AsLong(obj);
    if (v == -1 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    if (v < lo || v > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be in [%ld, %ld], got %ld", name, lo, hi, v);
        return -1;
    }
    *out = v;
    return 0;
}

/* Blosc's cname=, blocksize= and the shuffle filter's shuffle=, typesize=
 * (numcodecs' Blosc names: shuffle 0 NOSHUFFLE, 1 SHUFFLE, 2 BITSHUFFLE,
 * -1 AUTOSHUFFLE = bitshuffle for 1-byte items, else byte shuffle).  A
 * filter on another algorithm is applied to RAW and WITH_UNCOMPRESSED_SIZE
 * streams, which do not record it: decode with the same settings. */
static int filter_args(oc_py_codec *c, PyObject *cname, PyObject *shuffle, PyObject *typesize,
                       PyObject *blocksize)
{
    static const char *const cnames[] = {"lz4", "blosclz", "lz4hc", "snappy", "zlib", "zstd"};
    int blosc = c->algorithm == OC_ALGO_BLOSC;
    long v, ts = 1;
    if ((cname != Py_None || blocksize != Py_None) && !blosc) {
        PyErr_SetString(PyExc_ValueError, "cname and blocksize apply to Blosc only");
        return -1;
    }
    if (cname != Py_None) {
        const char *name = PyUnicode_Check(cname) ? PyUnicode_AsUTF8(cname) : NULL;
        if (!name) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "cname must be a str, not %.100s", Py_TYPE(cname)->tp_name);
            return -1;
        }
        size_t k = 0;
        while (k < 6 && strcmp(name, cnames[k]) != 0)
            k++;
        if (k == 6) {
            PyErr_Format(PyExc_ValueError,
                         "cname '%s' is not a Blosc codec (blosclz, lz4, lz4hc, snappy, zlib, zstd)", name);
            return -1;
        }
        c->blosc_codec = (uint8_t)k;
    }
    if (blocksize != Py_None) {
        if (int_arg(blocksize, "blocksize", 0, 1L << 30, &v) != 0)
            return -1;
        c->blosc_blocksize = (uint32_t)v;
    }
    if (typesize != Py_None) {
        if (int_arg(typesize, "typesize", 1, 255, &ts) != 0)
            return -1;
        c->typesize = (uint8_t)ts;
    }
    if (shuffle != Py_None) {
        if (int_arg(shuffle, "shuffle", -1, 2, &v) != 0)
            return -1;
        if (v == -1)
            v = ts == 1 ? OC_FILTER_BITSHUFFLE : OC_FILTER_SHUFFLE;
        c->filter = (uint8_t)v;
    } else if (blosc) {
        c->filter = OC_FILTER_SHUFFLE; /* numcodecs' and c-blosc's default */
    }
    if (c->filter && !blosc && c->kind == OC_BITSTREAM_NATIVE) {
        PyErr_SetString(PyExc_ValueError,
                        "shuffle= with a codec other than Blosc needs bitstream_kind RAW or "
                        "WITH_UNCOMPRESSED_SIZE (the NATIVE containers do not record a filter)");
        return -1;
    }
    return 0;
}

static PyObject *codec_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"algorithm",       "device_id",      "cuda_stream", "uncomp_chunk_size",
                             "checksum_policy", "bitstream_kind", "data_type",   "algorithm_type",
                             "level",           "num_threads",    "num_rles",    "num_deltas",
                             "use_bitpack",     "auto_layers",    "cname",       "shuffle",
                             "typesize",        "blocksize",      NULL};
    PyObject *alg = Py_None, *device = Py_None, *stream = Py_None, *chunk = Py_None, *checksum = Py_None,
             *kind = Py_None, *dtype = Py_None, *algtype = Py_None, *level = Py_None, *threads = Py_None,
             *rles = Py_None, *deltas = Py_None, *bitpack = Py_None, *autol = Py_None, *cname = Py_None,
             *shuffle = Py_None, *typesize = Py_None, *blocksize = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OOOOOOOOOOOOOOOOO:Codec", kwlist, &alg, &device, &stream,
                                     &chunk, &checksum, &kind, &dtype, &algtype, &level, &threads, &rles,
                                     &deltas, &bitpack, &autol, &cname, &shuffle, &typesize, &blocksize))
        return NULL;
    oc_py_codec *c = (oc_py_codec *)type->tp_alloc(type, 0);
    if (!c)
        return NULL;
    c->chunk_size = OC_DEFAULT_CHUNK_SIZE;
    c->kind = OC_BITSTREAM_NATIVE;
    c->device_id = -1; /* follow the data: each call runs on the device its buffers are on */
    /* Without checksum_policy=: verify every checksum present (as python-lz4,
     * python-snappy, cramjam and the stock tools do) and write none beyond
     * the mandatory ones; nvCOMP's NO_COMPUTE_NO_VERIFY only when asked for. */
    c->checksum_policy = 2; /* NO_COMPUTE_AND_VERIFY_IF_PRESENT */
    c->verify_checksum = 1;
    c->lock = PyThread_allocate_lock();
    if (!c->lock) {
        PyErr_NoMemory();
        goto fail;
    }
    long v;
    if (parse_algorithm(alg, &c->algorithm) != 0)
        goto fail;
    if (device != Py_None) {
        if (int_arg(device, "device_id", -1, OC_PY_MAX_DEVICES - 1, &v) != 0)
            goto fail;
        c->device_id = (int)v;
    }
    if (stream != Py_None) {
        if (oc_py_stream_arg(stream, &c->stream) != 0)
            goto fail;
        c->stream_obj = Py_NewRef(stream);
        c->has_stream = 1;
    }
    if (!(c->pendings = PyList_New(0)))
        goto fail;
    if (chunk != Py_None) {
        if (int_arg(chunk, "uncomp_chunk_size", 1, 1L << 30, &v) != 0)
            goto fail;
        c->chunk_size = (size_t)v;
    }
    if (checksum != Py_None) {
        /* ChecksumPolicy: NO_COMPUTE_NO_VERIFY 0, COMPUTE_AND_NO_VERIFY 1,
         * NO_COMPUTE_AND_VERIFY_IF_PRESENT 2, COMPUTE_AND_VERIFY_IF_PRESENT 3, COMPUTE_AND_VERIFY 4 */
        if (int_arg(checksum, "checksum_policy", 0, 4, &v) != 0)
            goto fail;
        c->checksum_policy = (int)v;
        c->compute_checksum = v == 1 || v == 3 || v == 4;
        c->verify_checksum = v >= 2;
    }
    if (kind != Py_None) {
        if (int_arg(kind, "bitstream_kind", 0, 2, &v) != 0)
            goto fail;
        c->kind = (int)v;
    }
    /* bfloat16 has no array-protocol type string: the typed codecs take it by
     * name ("bf16" or "bfloat16"); their decoded Arrays are '<u2' */
    if (is_bf16_name(dtype))
        memcpy(c->data_type, "bf16", sizeof "bf16");
    else if (oc_py_typestr_from_object(dtype, c->data_type, sizeof c->data_type) != 0)
        goto fail;
    if (algtype != Py_None) {
        /* nvCOMP's Deflate/GDeflate algorithm_type 0..5 (fastest .. best ratio);
         * Bitcomp's 0 (default) and 1 ("sparse") */
        if (c->algorithm == OC_ALGO_BITCOMP) {
            if (int_arg(algtype, "algorithm_type", 0, 1, &v) != 0)
                goto fail;
            c->typed.algorithm_type = (int)v;
        } else {
            if (int_arg(algtype, "algorithm_type", 0, 5, &v) != 0)
                goto fail;
            if (c->algorithm == OC_ALGO_DEFLATE || c->algorithm == OC_ALGO_ZLIB ||
                c->algorithm == OC_ALGO_GZIP) {
                static const int levels[6] = {1, 1, 4, 6, 7, 12};
                c->level = levels[v];
            } else if (c->algorithm == OC_ALGO_GDEFLATE) {
                static const int levels[6] = {1, 1, 4, 6, 7, 9}; /* its levels stop at 9 */
                c->level = levels[v];
            } else {
                PyErr_SetString(PyExc_ValueError,
                                "algorithm_type applies to Deflate, Zlib, Gzip and GDeflate (0..5; use "
                                "level= for the others) and Bitcomp (0, 1)");
                goto fail;
            }
        }
    }
    if (level != Py_None) {
        int lo = 0, hi = 0, def = 0;
        if (c->algorithm == OC_ALGO_NONE) {
            PyErr_SetString(PyExc_ValueError, "level= needs an algorithm");
            goto fail;
        }
        oc_level_range(c->algorithm, &lo, &hi, &def);
        if (int_arg(level, "level", lo, hi, &v) != 0)
            goto fail;
        c->level = (int)v;
    }
    if (threads != Py_None) {
        if (int_arg(threads, "num_threads", 0, 4096, &v) != 0)
            goto fail;
        c->num_threads = (int)v;
    }
    if (rles != Py_None || deltas != Py_None || bitpack != Py_None || autol != Py_None) {
        /* Cascaded: nvCOMP's num_rles (2), num_deltas (1), use_bitpack (True);
         * auto_layers=True (an extension) chooses them per tile */
        if (c->algorithm != OC_ALGO_CASCADED) {
            PyErr_SetString(PyExc_ValueError,
                            "num_rles, num_deltas, use_bitpack and auto_layers apply to Cascaded only");
            goto fail;
        }
        long r = 2, d = 1;
        int b = 1, a = 0;
        if (rles != Py_None && int_arg(rles, "num_rles", 0, 3, &r) != 0)
            goto fail;
        if (deltas != Py_None && int_arg(deltas, "num_deltas", 0, 3, &d) != 0)
            goto fail;
        if (bitpack != Py_None && (b = PyObject_IsTrue(bitpack)) < 0)
            goto fail;
        if (autol != Py_None && (a = PyObject_IsTrue(autol)) < 0)
            goto fail;
        if (a && (rles != Py_None || deltas != Py_None || bitpack != Py_None)) {
            PyErr_SetString(PyExc_ValueError,
                            "auto_layers=True chooses num_rles, num_deltas and use_bitpack");
            goto fail;
        }
        c->typed.cascaded = a ? OC_CASCADED_AUTO : OC_CASCADED_LAYERS(r, d, b);
    }
    if (filter_args(c, cname, shuffle, typesize, blocksize) != 0)
        goto fail;
    if (!strcmp(c->data_type, "bf16") && c->algorithm != OC_ALGO_CASCADED &&
        c->algorithm != OC_ALGO_BITCOMP && c->algorithm != OC_ALGO_ANS) {
        PyErr_SetString(PyExc_ValueError,
                        "data_type 'bf16' is for Cascaded, Bitcomp and ANS (the other algorithms code bytes: "
                        "give the decoded Arrays' type as an array-protocol type string such as '<u2')");
        goto fail;
    }
    if (c->data_type[0] && (c->algorithm == OC_ALGO_CASCADED || c->algorithm == OC_ALGO_BITCOMP)) {
        oc_data_type t;
        if (oc_data_type_from_name(c->data_type, &t) != OC_OK) {
            PyErr_Format(PyExc_ValueError,
                         "data_type '%s' is not a type %s codes (|u1 |i1 <u2 <i2 <u4 <i4 "
                         "<u8 <i8 <f2 <f4 <f8 bf16)",
                         c->data_type, c->algorithm == OC_ALGO_CASCADED ? "Cascaded" : "Bitcomp");
            goto fail;
        }
    }
    if (c->data_type[0] && c->algorithm == OC_ALGO_ANS) {
        /* nvCOMP's |u1 and <f2; also |i1, <u2, <i2 and bf16 (the 16-bit
         * types code their high bytes) */
        oc_data_type t;
        if (oc_data_type_from_name(c->data_type, &t) != OC_OK || type_width(t) > 2) {
            PyErr_Format(PyExc_ValueError,
                         "data_type '%s' is not a type ANS codes (|u1, <f2; also |i1 <u2 <i2 bf16)",
                         c->data_type);
            goto fail;
        }
    }
    return (PyObject *)c;
fail:
    Py_DECREF(c);
    return NULL;
}

static void codec_dealloc(PyObject *self)
{
    oc_py_codec *c = (oc_py_codec *)self;
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    for (int i = 0; i < c->npool; i++)
        Py_CLEAR(c->pool[i]);
    c->npool = 0;
    Py_CLEAR(c->stream_obj);
    Py_CLEAR(c->pendings);
    if (c->lock)
        PyThread_free_lock(c->lock);
    PyMem_Free(c->block);
    c->block = NULL;
    tp->tp_free(self);
    Py_DECREF(tp);
}

static int codec_traverse(PyObject *self, visitproc visit, void *arg)
{
    oc_py_codec *c = (oc_py_codec *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(c->stream_obj);
    Py_VISIT(c->pendings);
    return 0;
}

/* ---- shared machinery of encode and decode ------------------------------ */

/* Everything one call holds; freed by job_free. */
typedef struct {
    size_t n;
    size_t nviews; /* views in src and out: n, or 1 for one packed buffer (src_offsets=) */
    int single;
    int on_device;
    int device_id;
    oc_py_view *src;   /* nviews views of the inputs */
    oc_py_view *out;   /* nviews views of out= (NULL without out=) */
    oc_py_array **res; /* n result Arrays (NULL entries for failed chunks; NULL when packed) */
    const void **src_ptrs;
    size_t *src_sizes;
    void **dst_ptrs;
    size_t *dst_caps;
    size_t *dst_sizes;
    size_t *known; /* decoded sizes when known, else (size_t)-1 */
    oc_status *st;
    oc_py_array *backing; /* one block holding every result (NULL: per-chunk Arrays or out=) */
    size_t *offs;         /* offset of chunk i in backing */
    int detect;           /* decoding with algorithm='': the format is detected */
    int carved;           /* src_ptrs, src_sizes, dst_ptrs, dst_caps, known lie in `block` (packed calls) */
    void *block;          /* that block: the Codec's (block_codec set) or this call's own */
    void *block_codec;    /* the oc_py_codec whose block this is, given back by job_free */
} job;

/* Decoding without an algorithm failed as undetectable input does: say
 * what to do about it. */
#define DETECT_HINT                                                                                          \
    " (the format was not recognised: RAW LZ4, Snappy and Deflate streams do not name themselves; "          \
    "pass algorithm=)"
static int detect_failure(oc_status s)
{
    return s == OC_ERR_CORRUPT || s == OC_ERR_INVALID_ARGUMENT || s == OC_ERR_UNSUPPORTED;
}

static void job_give_block(job *j);

static void job_free(job *j)
{
    for (size_t i = 0; i < j->nviews; i++) {
        if (j->src)
            oc_py_view_release(&j->src[i]);
        if (j->out)
            oc_py_view_release(&j->out[i]);
    }
    for (size_t i = 0; j->res && i < j->n; i++)
        Py_XDECREF(j->res[i]);
    PyMem_Free(j->src);
    PyMem_Free(j->out);
    PyMem_Free(j->res);
    if (j->carved) {
        job_give_block(j);
    } else {
        PyMem_Free(j->src_ptrs);
        PyMem_Free(j->src_sizes);
        PyMem_Free(j->dst_ptrs);
        PyMem_Free(j->dst_caps);
        PyMem_Free(j->known);
    }
    PyMem_Free(j->dst_sizes);
    PyMem_Free(j->st);
    PyMem_Free(j->offs);
    Py_XDECREF(j->backing);
}

static PyObject *as_sequence(PyObject *obj, const char *name, int *single)
{
    *single = !(PyList_Check(obj) || PyTuple_Check(obj));
    if (*single)
        return PyTuple_Pack(1, obj);
    return PySequence_Fast(obj, name);
}

/* Views of the inputs (and of out=, writable), arrays allocated. */
static int job_bind_device(oc_py_codec *c, job *j);

static int job_prepare(oc_py_state *st, oc_py_codec *c, job *j, PyObject *srcs, PyObject *outs,
                       const char *verb)
{
    PyObject *seq = as_sequence(srcs, "srcs must be an array or a list of arrays", &j->single);
    if (!seq)
        return -1;
    PyObject *oseq = NULL;
    int rc = -1;
    size_t n = (size_t)PySequence_Fast_GET_SIZE(seq);
    j->n = n;
    j->nviews = n;
    size_t m = n ? n : 1;
    j->src = PyMem_Calloc(m, sizeof *j->src);
    j->res = PyMem_Calloc(m, sizeof *j->res);
    j->src_ptrs = PyMem_Calloc(m, sizeof *j->src_ptrs);
    j->src_sizes = PyMem_Calloc(m, sizeof *j->src_sizes);
    j->dst_ptrs = PyMem_Calloc(m, sizeof *j->dst_ptrs);
    j->dst_caps = PyMem_Calloc(m, sizeof *j->dst_caps);
    j->dst_sizes = PyMem_Calloc(m, sizeof *j->dst_sizes);
    j->known = PyMem_Calloc(m, sizeof *j->known);
    j->st = PyMem_Calloc(m, sizeof *j->st);
    if (!j->src || !j->res || !j->src_ptrs || !j->src_sizes || !j->dst_ptrs || !j->dst_caps ||
        !j->dst_sizes || !j->known || !j->st) {
        PyErr_NoMemory();
        goto done;
    }
    uintptr_t consumer = c->stream ? c->stream : 1;
    char what[64];
    for (size_t i = 0; i < n; i++) {
        if (j->single)
            PyOS_snprintf(what, sizeof what, "the input of %s", verb);
        else
            PyOS_snprintf(what, sizeof what, "srcs[%zu]", i);
        if (oc_py_view_get(st, PySequence_Fast_GET_ITEM(seq, i), 0, consumer, what, &j->src[i]) != 0)
            goto done;
        j->src_ptrs[i] = j->src[i].ptr;
        j->src_sizes[i] = j->src[i].nbytes;
        j->known[i] = (size_t)-1;
        if (i == 0) {
            j->on_device = j->src[0].on_device;
        } else if (j->src[i].on_device != j->on_device) {
            PyErr_Format(PyExc_ValueError,
                         "srcs[%zu] is in %s memory but srcs[0] in %s memory: one batch runs "
                         "on one engine",
                         i, j->src[i].on_device ? "device" : "host", j->on_device ? "device" : "host");
            goto done;
        }
    }
    if (j->on_device && !oc_engine_available(OC_ENGINE_CUDA)) {
        oc_py_raise(st, OC_ERR_NO_DEVICE, -1, "inputs are in device memory but no CUDA device is usable (%s)",
                    oc_build_info());
        goto done;
    }
    if (outs != NULL && outs != Py_None) {
        int osingle;
        oseq = as_sequence(outs, "out must be an array or a list of arrays", &osingle);
        if (!oseq)
            goto done;
        if (osingle != j->single || (size_t)PySequence_Fast_GET_SIZE(oseq) != n) {
            PyErr_Format(PyExc_ValueError, "out must match srcs: %s of %zu output(s) for %s of %zu input(s)",
                         osingle ? "one array" : "a list", (size_t)PySequence_Fast_GET_SIZE(oseq),
                         j->single ? "one array" : "a list", n);
            goto done;
        }
        j->out = PyMem_Calloc(m, sizeof *j->out);
        if (!j->out) {
            PyErr_NoMemory();
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            if (j->single)
                PyOS_snprintf(what, sizeof what, "out");
            else
                PyOS_snprintf(what, sizeof what, "out[%zu]", i);
            if (oc_py_view_get(st, PySequence_Fast_GET_ITEM(oseq, i), 1, consumer, what, &j->out[i]) != 0)
                goto done;
            if (j->out[i].on_device != j->on_device) {
                PyErr_Format(PyExc_ValueError, "%s is in %s memory but the inputs are in %s memory", what,
                             j->out[i].on_device ? "device" : "host", j->on_device ? "device" : "host");
                goto done;
            }
            j->dst_ptrs[i] = j->out[i].ptr;
            j->dst_caps[i] = j->out[i].nbytes;
        }
    }
    rc = job_bind_device(c, j);
done:
    Py_DECREF(seq);
    Py_XDECREF(oseq);
    return rc;
}

/* Which device the call runs on: the device of its data, which must be the
 * Codec's device_id when one was given.  With several GPUs every view's
 * device is checked (a kernel on one device reading another's memory faults,
 * and the fault poisons the process's CUDA context); DLPack views carry
 * theirs, __cuda_array_interface__ ones cost one driver query each.  With
 * one GPU there is nothing to check.  Host calls run on the CPU engine:
 * their context's device does not matter. */
static int job_bind_device(oc_py_codec *c, job *j)
{
    if (!j->on_device) {
        j->device_id = c->device_id >= 0 ? c->device_id : 0;
        return 0;
    }
    int dev = oc_py_view_device(&j->src[0]);
    int several = oc_cuda_device_count() > 1;
    for (size_t i = 0; i < j->nviews; i++) {
        oc_py_view *vs[2] = {&j->src[i], j->out ? &j->out[i] : NULL};
        for (int k = 0; k < 2; k++) {
            if (vs[k] && vs[k]->on_device && several)
                (void)oc_py_view_device(vs[k]);
            if (vs[k] && vs[k]->on_device && vs[k]->device_id >= 0 && vs[k]->device_id != dev) {
                PyErr_Format(
                    PyExc_ValueError,
                    "%s[%zu] is on CUDA device %d but srcs[0] on device %d: one call runs on one device",
                    k ? "out" : "srcs", i, vs[k]->device_id, dev);
                return -1;
            }
        }
    }
    if (c->device_id >= 0 && c->device_id != dev) {
        PyErr_Format(
            PyExc_ValueError,
            "the data is on CUDA device %d but this Codec was made with device_id=%d (leave device_id "
            "unset to run on the data's device)",
            dev, c->device_id);
        return -1;
    }
    j->device_id = dev;
    return 0;
}

/* The distinct producer streams of the call's device views (CAI "stream",
 * the stream named to DLPack producers, an Array's pending stream) other
 * than the call's own; at most `cap` (the rest: *more = 1). */
static size_t job_streams(job *j, int outs_only, uintptr_t own, uintptr_t *list, size_t cap, int *more)
{
    size_t m = 0;
    *more = 0;
    for (size_t i = 0; i < j->nviews; i++) {
        oc_py_view *vs[2] = {outs_only ? NULL : &j->src[i], j->out ? &j->out[i] : NULL};
        for (int k = 0; k < 2; k++) {
            oc_py_view *v = vs[k];
            if (!v || !v->on_device || !v->has_stream || v->stream == own)
                continue;
            size_t q = 0;
            while (q < m && list[q] != v->stream)
                q++;
            if (q < m)
                continue;
            if (m == cap) {
                *more = 1;
                continue;
            }
            list[m++] = v->stream;
        }
    }
    return m;
}

/* The waits of job_wait_producers (called with the context's lock held,
 * the GIL released). */
static oc_status wait_streams(oc_context *ctx, job *j, const uintptr_t *list, size_t m, int more)
{
    oc_status s = OC_OK;
    for (size_t q = 0; q < m && s == OC_OK; q++)
        s = oc_context_wait_stream(ctx, (void *)list[q]);
    /* more than 16 producer streams: one wait per view for the rest */
    for (size_t i = 0; more && i < j->nviews && s == OC_OK; i++) {
        oc_py_view *vs[2] = {&j->src[i], j->out ? &j->out[i] : NULL};
        for (int k = 0; k < 2 && s == OC_OK; k++) {
            size_t q = 0;
            if (!vs[k] || !vs[k]->on_device || !vs[k]->has_stream)
                continue;
            while (q < m && list[q] != vs[k]->stream)
                q++;
            if (q == m)
                s = oc_context_wait_stream(ctx, (void *)vs[k]->stream);
        }
    }
    return s;
}

/* Make producers' work visible before we read (or write) their memory: the
 * call's stream waits on an event recorded on each producer's stream; the
 * host does not wait (CAI v3's and DLPack's contract). */
static int job_wait_producers(oc_py_state *st, oc_py_context *ctx, job *j)
{
    if (!j->on_device)
        return 0;
    uintptr_t list[16];
    int more = 0;
    oc_status s = OC_OK;
    size_t m = job_streams(j, 0, (uintptr_t)ctx->stream, list, 16, &more);
    if (m == 0 && !more)
        return 0;
    OC_PY_CTX_CALL(ctx, s = wait_streams(ctx->ctx, j, list, m, more));
    if (s != OC_OK) {
        oc_py_raise(st, s, -1, "cannot order the call's CUDA stream after its inputs' streams: %s",
                    oc_status_message(s));
        return -1;
    }
    return 0;
}

/* After a stream-ordered decode: the out= buffers' streams (CAI "stream",
 * DLPack) wait for it, so that work their owner enqueues there later reads
 * the decoded bytes; the host does not wait. */
static int job_order_outputs(oc_py_state *st, oc_py_context *ctx, job *j)
{
    if (!j->on_device || !j->out)
        return 0;
    uintptr_t list[16];
    int more = 0;
    size_t m = job_streams(j, 1, (uintptr_t)ctx->stream, list, 16, &more);
    if (m == 0 && !more)
        return 0;
    oc_status s = OC_OK;
    void *own = ctx->stream;
    OC_PY_CTX_CALL(ctx, {
        for (size_t q = 0; q < m && s == OC_OK; q++) {
            s = oc_context_set_stream(ctx->ctx, (void *)list[q]);
            if (s == OC_OK)
                s = oc_context_wait_stream(ctx->ctx, own);
        }
        oc_context_set_stream(ctx->ctx, own);
    });
    if (s == OC_OK && more) {
        /* more than 16 streams among the outputs: the host waits instead */
        OC_PY_CTX_CALL(ctx, s = oc_context_synchronize(ctx->ctx));
    }
    if (s != OC_OK) {
        oc_py_raise(st, s, -1, "cannot order the outputs' CUDA streams after the decode: %s",
                    oc_status_message(s));
        return -1;
    }
    return 0;
}

static int parse_errors(PyObject *obj, int *status_mode)
{
    *status_mode = 0;
    if (obj == NULL || obj == Py_None)
        return 0;
    const char *s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    if (s && strcmp(s, "raise") == 0)
        return 0;
    if (s && strcmp(s, "status") == 0) {
        *status_mode = 1;
        return 0;
    }
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "errors must be 'raise' or 'status'");
    return -1;
}

/* Result Arrays: views of out= when given (zero copy), else our allocations
 * (made before the call); shaped as 1-D arrays of `typestr`.  Then either
 * raise for the first failed chunk or build (results, statuses). */
static PyObject *job_finish(oc_py_state *st, job *j, int status_mode, const char *verb,
                            const char *typestr_default, const size_t *sizes)
{
    for (size_t i = 0; i < j->n; i++) {
        if (j->st[i] != OC_OK) {
            Py_CLEAR(j->res[i]);
            continue;
        }
        char ts[16] = "";
        if (typestr_default)
            memcpy(ts, typestr_default, strnlen(typestr_default, sizeof ts - 1));
        if (j->out) {
            if (!ts[0])
                memcpy(ts, j->out[i].typestr, sizeof ts);
            PyObject *a = oc_py_array_from_view(st, &j->out[i]);
            if (!a)
                return NULL;
            j->res[i] = (oc_py_array *)a;
        }
        if (!ts[0])
            memcpy(ts, "|u1", 4);
        if (oc_py_array_set_1d(j->res[i], sizes[i], ts) != 0)
            return NULL;
    }
    if (!status_mode) {
        for (size_t i = 0; i < j->n; i++) {
            if (j->st[i] == OC_OK)
                continue;
            const char *detail = "";
            char buf[160] = "";
            if (j->st[i] == OC_ERR_OUTPUT_TOO_SMALL && j->out) {
                if (j->single)
                    PyOS_snprintf(buf, sizeof buf, " (out holds %zu bytes)", j->out[i].nbytes);
                else
                    PyOS_snprintf(buf, sizeof buf, " (out[%zu] holds %zu bytes)", i, j->out[i].nbytes);
                detail = buf;
            }
            if (j->detect && detect_failure(j->st[i]))
                detail = DETECT_HINT;
            if (j->single)
                oc_py_raise(st, j->st[i], (Py_ssize_t)i, "%s failed: %s: %s%s", verb,
                            oc_status_name(j->st[i]), oc_status_message(j->st[i]), detail);
            else
                oc_py_raise(st, j->st[i], (Py_ssize_t)i, "%s failed for chunk %zu of %zu: %s: %s%s", verb, i,
                            j->n, oc_status_name(j->st[i]), oc_status_message(j->st[i]), detail);
            return NULL;
        }
    }
    PyObject *results, *statuses = NULL;
    if (j->single) {
        results = j->res[0] ? Py_NewRef((PyObject *)j->res[0]) : Py_NewRef(Py_None);
        if (status_mode)
            statuses = oc_py_status_object(st, j->st[0]);
    } else {
        results = PyList_New((Py_ssize_t)j->n);
        if (status_mode)
            statuses = PyList_New((Py_ssize_t)j->n);
        if (!results || (status_mode && !statuses)) {
            Py_XDECREF(results);
            Py_XDECREF(statuses);
            return NULL;
        }
        for (size_t i = 0; i < j->n; i++) {
            PyList_SET_ITEM(results, (Py_ssize_t)i,
                            j->res[i] ? Py_NewRef((PyObject *)j->res[i]) : Py_NewRef(Py_None));
            if (status_mode) {
                PyObject *s = oc_py_status_object(st, j->st[i]);
                if (!s) {
                    Py_DECREF(results);
                    Py_DECREF(statuses);
                    return NULL;
                }
                PyList_SET_ITEM(statuses, (Py_ssize_t)i, s);
            }
        }
    }
    if (!status_mode)
        return results;
    if (!statuses) {
        Py_DECREF(results);
        return NULL;
    }
    return Py_BuildValue("(NN)", results, statuses);
}

/*
 * Result memory for every chunk still OK, of j->dst_caps[i] bytes: one block
 * for the batch (one allocation, and for device memory one synchronisation,
 * instead of one per chunk; the results are views that keep the block
 * alive), or, if that block cannot be had, one Array per chunk, a chunk
 * whose memory fails getting OUT_OF_MEMORY.  Returns 0, or -1 with an
 * exception set (an allocator's error other than MemoryError).
 */
static int alloc_results(oc_py_state *st, job *j)
{
    size_t align = j->on_device ? 256 : 64, total = 0;
    int fits = 1;
    j->offs = PyMem_Calloc(j->n ? j->n : 1, sizeof *j->offs);
    if (!j->offs) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < j->n; i++) {
        if (j->st[i] != OC_OK)
            continue;
        size_t n = j->dst_caps[i];
        if (n > SIZE_MAX / 4 || total > SIZE_MAX / 4) {
            fits = 0;
            break;
        }
        j->offs[i] = total;
        total += (n + align - 1) / align * align;
    }
    if (fits && j->n > 1) {
        j->backing = oc_py_array_alloc(st, total, j->on_device, j->device_id, "|u1");
        if (j->backing) {
            for (size_t i = 0; i < j->n; i++) {
                if (j->st[i] != OC_OK)
                    continue;
                j->res[i] = oc_py_array_slice(st, j->backing, j->offs[i], j->dst_caps[i]);
                if (!j->res[i])
                    return -1;
                j->dst_ptrs[i] = j->res[i]->v.ptr;
            }
            return 0;
        }
        if (!PyErr_ExceptionMatches(PyExc_MemoryError))
            return -1;
        PyErr_Clear();
    }
    for (size_t i = 0; i < j->n; i++) {
        if (j->st[i] != OC_OK) {
            j->dst_caps[i] = 0;
            continue;
        }
        j->res[i] = oc_py_array_alloc(st, j->dst_caps[i], j->on_device, j->device_id, "|u1");
        if (!j->res[i]) {
            if (!PyErr_ExceptionMatches(PyExc_MemoryError))
                return -1;
            /* this chunk's memory: its status, not the batch's failure */
            PyErr_Clear();
            j->st[i] = OC_ERR_OUT_OF_MEMORY;
            j->dst_caps[i] = 0;
            continue;
        }
        j->dst_ptrs[i] = j->res[i]->v.ptr;
    }
    return 0;
}

/* Host encode results in one block: move the compressed streams together and
 * give the block's unused tail back (bounds exceed compressed sizes). */
static void compact_host_block(job *j)
{
    oc_py_array *b = j->backing;
    if (!b || b->v.on_device || !b->own_ptr || b->own_kind != OC_MEMORY_HOST)
        return;
    char *base = b->own_ptr;
    size_t pos = 0;
    for (size_t i = 0; i < j->n; i++) {
        if (j->st[i] != OC_OK || !j->res[i])
            continue;
        memmove(base + pos, base + j->offs[i], j->dst_sizes[i]);
        j->offs[i] = pos;
        pos += (j->dst_sizes[i] + 15) / 16 * 16;
    }
    void *p = realloc(base, pos ? pos : 16);
    if (p)
        base = p;
    b->own_ptr = base;
    b->own_size = pos;
    b->v.ptr = base;
    oc_py_array_set_1d(b, pos, "|u1");
    for (size_t i = 0; i < j->n; i++)
        if (j->st[i] == OC_OK && j->res[i])
            j->res[i]->v.ptr = base + j->offs[i];
}

/* nvCOMP names the first argument differently per overload (encode: array_s
 * or srcs; decode: src or srcs): accept every spelling.  Returns a new
 * reference to kw (or a renamed copy), NULL with an exception set. */
static PyObject *alias_kw(PyObject *kw, const char *const *aliases, const char *name)
{
    PyObject *out = NULL;
    for (const char *const *a = aliases; *a; a++) {
        PyObject *v = PyDict_GetItemString(kw, *a);
        if (!v)
            continue;
        if (!out && !(out = PyDict_Copy(kw)))
            return NULL;
        if (PyDict_GetItemString(out, name)) {
            Py_DECREF(out);
            PyErr_Format(PyExc_TypeError, "got both %s= and %s=", *a, name);
            return NULL;
        }
        if (PyDict_SetItemString(out, name, v) != 0 || PyDict_DelItemString(out, *a) != 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out ? out : Py_NewRef(kw);
}

/* ---- encode -------------------------------------------------------------- */

/* Bytes per element of a data type (the typestr's size). */
static size_t type_width(oc_data_type t)
{
    const char *ts = oc_data_type_name(t);
    if (!ts || !ts[0])
        return 1;
    if (!strcmp(ts, "bf16"))
        return 2;
    return (size_t)(ts[2] - '0');
}

/* The element type typed formats code: the Codec's data_type, else the
 * inputs' own when they all have one the library knows (and, for ANS, of
 * 1 or 2 bytes), else bytes. */
static oc_data_type encode_data_type(const oc_py_codec *c, const job *j)
{
    oc_data_type t = OC_TYPE_DEFAULT;
    if (c->data_type[0])
        return oc_data_type_from_name(c->data_type, &t) == OC_OK ? t : OC_TYPE_DEFAULT;
    for (size_t i = 0; i < j->nviews; i++) { /* packed: the one buffer's type */
        oc_data_type ti = OC_TYPE_DEFAULT;
        if (oc_data_type_from_name(j->src[i].typestr, &ti) != OC_OK || (i > 0 && ti != t))
            return OC_TYPE_DEFAULT;
        t = ti;
    }
    if (c->algorithm == OC_ALGO_ANS && type_width(t) > 2)
        return OC_TYPE_DEFAULT;
    return t;
}

/* The element type a decode hints to the engine, from a type string (the
 * call's data_type, else the Codec's): ANS's GPU decoder takes CTAs of 2
 * warps for 16-bit data (a 64 KiB chunk is 2 tiles; 1.21x on bf16).  A hint
 * only: each chunk's header says how it decodes, and a chunk decodes to the
 * same bytes either way.  Default for the other algorithms, and for a type
 * ANS does not code (oc_typed_check would refuse it). */
static oc_data_type decode_type_hint(const oc_py_codec *c, const char *ts)
{
    oc_data_type t = OC_TYPE_DEFAULT;
    if (c->algorithm != OC_ALGO_ANS || !ts || !ts[0] || oc_data_type_from_name(ts, &t) != OC_OK ||
        type_width(t) > 2)
        return OC_TYPE_DEFAULT;
    return t;
}

/* The filter's element size: typesize= if given; for Blosc (whose chunks
 * record it) else the inputs' common item size (their typestr, as
 * numcodecs' Blosc takes the buffer's itemsize); else 1, as decoding
 * assumes for the other algorithms. */
static uint8_t encode_typesize(const oc_py_codec *c, const job *j)
{
    if (c->typesize || c->algorithm != OC_ALGO_BLOSC)
        return c->typesize;
    Py_ssize_t w = 0;
    for (size_t i = 0; i < j->nviews; i++) { /* packed: the one buffer's item size */
        char kind;
        Py_ssize_t wi;
        if (oc_py_typestr_parse(j->src[i].typestr, &kind, &wi) != 0 || wi < 1 || wi > 255 ||
            (i > 0 && wi != w))
            return 1;
        w = wi;
    }
    return (uint8_t)(w ? w : 1);
}

static int job_prepare_packed(oc_py_state *st, oc_py_codec *c, job *j, PyObject *srcs, PyObject *outs,
                              PyObject *soffs, PyObject *ssizes, PyObject *ooffs, PyObject *caps, int encode);
static PyObject *packed_encode_finish(oc_py_state *st, job *j, int status_mode);

/* ---- one buffer plus offsets that live on the device -------------------- */

/* 1 when obj is an array in device memory by its interfaces (CUDA array
 * interface, or a DLPack device other than the CPU), without taking a view.
 * The CUDA array interface is asked before the buffer protocol, as view.c
 * asks: CuPy arrays have a buffer slot (which refuses device memory). */
static int is_device_array(PyObject *obj)
{
    if (PyList_Check(obj) || PyTuple_Check(obj) || PyBytes_Check(obj) || PyByteArray_Check(obj) ||
        PyMemoryView_Check(obj))
        return 0;
    if (PyObject_HasAttrString(obj, "__cuda_array_interface__"))
        return 1;
    if (PyObject_CheckBuffer(obj))
        return 0;
    PyObject *d = PyObject_HasAttrString(obj, "__dlpack_device__")
                      ? PyObject_CallMethod(obj, "__dlpack_device__", NULL)
                      : NULL;
    if (!d) {
        PyErr_Clear();
        return 0;
    }
    long kind = PyTuple_Check(d) && PyTuple_GET_SIZE(d) >= 1 ? PyLong_AsLong(PyTuple_GET_ITEM(d, 0)) : 1;
    Py_DECREF(d);
    PyErr_Clear();
    return kind != 1 && kind != 3; /* kDLCPU, kDLCUDAHost: host memory */
}

/*
 * The start of a packed call whose offset arrays are on the device
 * (decode_packed_device, encode_packed_device): objs[0] and objs[1] the two
 * buffers, objs[2..count) 1-D arrays of 8-byte integers of one length, the
 * chunk count (*n).  Each view is taken into v (the caller releases
 * v[0..*nv)), writable where bit k of `writable` is set.  Every view must be
 * device memory, on one device, and on the Codec's device if it names one.
 * The call is deferred (*defer: stream-ordered, returning at once) when
 * `defer_views` is non-zero and every view it marks names a stream; then
 * the in-flight limit applies.  The context for the device is taken and
 * its stream ordered after every view's producer stream, each stream once
 * (no host wait).  Returns the context, or NULL with a Python exception set.
 */
static oc_py_context *packed_device_start(oc_py_state *st, oc_py_codec *c, PyObject *const *objs,
                                          const char *const *names, int count, unsigned writable,
                                          unsigned defer_views, oc_py_view *v, int *nv, size_t *n,
                                          int *dev_out, int *defer)
{
    uintptr_t consumer = c->stream ? c->stream : 1;
    *n = 0;
    for (*nv = 0; *nv < count; (*nv)++) {
        int k = *nv;
        if (oc_py_view_get(st, objs[k], (writable >> k) & 1u, consumer, names[k], &v[k]) != 0)
            return NULL;
        if (!v[k].on_device) {
            PyErr_Format(PyExc_ValueError,
                         "%s is in host memory but src_offsets in device memory: with offsets on the device, "
                         "the buffers and the offset and size arrays are all device memory",
                         names[k]);
            (*nv)++;
            return NULL;
        }
        if (k < 2)
            continue;
        char kind = 0;
        Py_ssize_t isz = 0;
        if (oc_py_typestr_parse(v[k].typestr, &kind, &isz) != 0 || (kind != 'i' && kind != 'u') || isz != 8 ||
            v[k].ndim != 1) {
            PyErr_Format(
                PyExc_ValueError,
                "%s must be a 1-D array of 8-byte integers (int64, uint64), not %s of %d dimension(s)",
                names[k], v[k].typestr, v[k].ndim);
            (*nv)++;
            return NULL;
        }
        if (k == 2)
            *n = (size_t)v[2].shape[0];
        else if ((size_t)v[k].shape[0] != *n) {
            PyErr_Format(PyExc_ValueError, "%s has %zd entries for %zu chunks", names[k], v[k].shape[0], *n);
            (*nv)++;
            return NULL;
        }
    }
    if (!oc_engine_available(OC_ENGINE_CUDA)) {
        oc_py_raise(st, OC_ERR_NO_DEVICE, -1, "inputs are in device memory but no CUDA device is usable (%s)",
                    oc_build_info());
        return NULL;
    }
    /* one device (with several GPUs, each view's is asked) */
    int dev = oc_py_view_device(&v[0]);
    int several = oc_cuda_device_count() > 1;
    for (int k = 1; k < count && several; k++)
        if (oc_py_view_device(&v[k]) != dev) {
            PyErr_Format(PyExc_ValueError,
                         "%s is on CUDA device %d but %s on device %d: one call runs on one device", names[k],
                         v[k].device_id, names[0], dev);
            return NULL;
        }
    if (c->device_id >= 0 && c->device_id != dev) {
        PyErr_Format(
            PyExc_ValueError,
            "the data is on CUDA device %d but this Codec was made with device_id=%d (leave device_id "
            "unset to run on the data's device)",
            dev, c->device_id);
        return NULL;
    }
    *defer = defer_views != 0;
    for (int k = 0; k < count; k++)
        if ((defer_views >> k) & 1u)
            *defer = *defer && v[k].has_stream;
    if (*defer && limit_in_flight(c) != 0)
        return NULL;
    oc_py_context *ctx = pool_take(c, dev, 1);
    if (!ctx)
        return NULL;
    oc_status s = OC_OK;
    uintptr_t own = (uintptr_t)ctx->stream;
    OC_PY_CTX_CALL(ctx, {
        for (int k = 0; k < count && s == OC_OK; k++) {
            int seen = !v[k].has_stream || v[k].stream == own;
            for (int q = 0; q < k && !seen; q++)
                seen = v[q].has_stream && v[q].stream == v[k].stream;
            if (!seen)
                s = oc_context_wait_stream(ctx->ctx, (void *)v[k].stream);
        }
    });
    if (s != OC_OK) {
        oc_py_raise(st, s, -1, "cannot order the call's CUDA stream after its inputs' streams: %s",
                    oc_status_message(s));
        pool_put(c, ctx);
        return NULL;
    }
    *dev_out = dev;
    return ctx;
}

/*
 * decode(buf, src_offsets=, src_sizes=, out=, out_offsets=, uncomp_sizes=)
 * with the four arrays in device memory (CuPy, torch, any CAI/DLPack
 * producer; 1-D, 8-byte integers): oc_batch_decompress_packed builds the
 * pointer arrays on the GPU, so the call does no per-chunk work on the
 * host at all: six views, one launch sequence, and the sizes and statuses
 * left in a device block (reused: oc_py_devblock_*) until the batch is read
 * (pending.c copies them once).  Stream-ordered as the other packed call:
 * it returns `out` at once unless errors='status' asks for the statuses or
 * out names no stream (then it waits, as the host-offset call does).  A
 * chunk whose range leaves its buffer is INVALID_ARGUMENT (the library's
 * device check; a negative offset reads as one past every buffer).
 */
static PyObject *decode_packed_device(oc_py_state *st, oc_py_codec *c, PyObject *srcs, PyObject *outs,
                                      PyObject *soffs, PyObject *ssizes, PyObject *ooffs, PyObject *sizes,
                                      int status_mode)
{
    static const char *const names[6] = {"srcs",      "out",         "src_offsets",
                                         "src_sizes", "out_offsets", "uncomp_sizes"};
    PyObject *objs[6] = {srcs, outs, soffs, ssizes, ooffs, sizes};
    if (outs == Py_None || ssizes == Py_None || ooffs == Py_None || sizes == Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "src_offsets= needs src_sizes=, out= (one buffer), out_offsets= and "
                        "uncomp_sizes=");
        return NULL;
    }
    oc_py_view *v = PyMem_Calloc(6, sizeof *v);
    if (!v)
        return PyErr_NoMemory();
    PyObject *ret = NULL;
    oc_py_context *ctx = NULL;
    oc_py_pending *pend = NULL;
    int nv = 0, dev = -1, defer = 0;
    size_t n = 0;
    ctx = packed_device_start(st, c, objs, names, 6, 1u << 1, status_mode ? 0u : 1u << 1, v, &nv, &n, &dev,
                              &defer);
    if (!ctx)
        goto done;
    oc_status s = OC_OK;
    uintptr_t own = (uintptr_t)ctx->stream;
    pend = PyObject_New(oc_py_pending, st->pending_type);
    if (!pend)
        goto done;
    memset((char *)pend + sizeof(PyObject), 0, sizeof *pend - sizeof(PyObject));
    pend->failed = -1;
    size_t words = (n ? n : 1) * sizeof(size_t), need = words + (n ? n : 1) * sizeof(oc_status);
    need = (need + 255) & ~(size_t)255;
    if (oc_py_devblock_take(st, ctx, need, &pend->dev, &pend->dev_bytes, &pend->dev_ctx) != 0)
        goto done;
    pend->on_device = 1;
    pend->device_id = dev;
    pend->stream = own;
    pend->stream_owner = Py_XNewRef(ctx->stream_owner);
    pend->packed = 1;
    pend->has_out = 1;
    pend->detect = c->algorithm == OC_ALGO_NONE;
    pend->n = n;
    pend->keep_st = status_mode;
    pend->out_bytes = v[1].nbytes;
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = c->algorithm;
    co.filter = c->filter;
    co.typesize = c->typesize;
    co.typed.data_type = decode_type_hint(c, c->data_type);
    size_t *res_sizes = (size_t *)pend->dev;
    oc_status *res_st = (oc_status *)(void *)((char *)pend->dev + words);
    const size_t *so = (const size_t *)(void *)v[2].ptr, *ss = (const size_t *)(void *)v[3].ptr;
    const size_t *oo = (const size_t *)(void *)v[4].ptr, *us = (const size_t *)(void *)v[5].ptr;
    void *sbuf = v[0].ptr, *obuf = v[1].ptr;
    size_t sn = v[0].nbytes, on = v[1].nbytes;
    /* the batch holds the six views until it is read: the GPU reads them */
    pend->src = v;
    pend->nsrc = 6;
    v = NULL;
    nv = 0;
    OC_PY_CTX_CALL(ctx, s = oc_batch_decompress_packed(ctx->ctx, &co, n, sbuf, sn, so, ss, obuf, on, oo, us,
                                                       res_sizes, res_st));
    if (s == OC_OK && defer) {
        job j; /* job_order_outputs' view of the call: out= alone */
        memset(&j, 0, sizeof j);
        j.nviews = 1;
        j.on_device = 1;
        j.src = &pend->src[0];
        j.out = &pend->src[1];
        if (job_order_outputs(st, ctx, &j) != 0)
            s = OC_ERR_CUDA;
    }
    pool_put(c, ctx);
    ctx = NULL;
    if (s != OC_OK) {
        if (!PyErr_Occurred())
            raise_call(st, s, "decode", c->algorithm, 1);
        goto done; /* the batch's dealloc waits for the stream before freeing */
    }
    if (defer) {
        if (remember_pending(c, (PyObject *)pend) == 0)
            ret = Py_NewRef(outs);
        goto done;
    }
    if (oc_py_pending_wait((PyObject *)pend, !status_mode) != 0)
        goto done;
    if (!status_mode) {
        ret = Py_NewRef(outs);
        goto done;
    }
    PyObject *statuses = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; statuses && i < n; i++) {
        PyObject *so_ = oc_py_status_object(st, pend->st[i]);
        if (!so_)
            Py_CLEAR(statuses);
        else
            PyList_SET_ITEM(statuses, (Py_ssize_t)i, so_);
    }
    if (statuses)
        ret = Py_BuildValue("(ON)", outs, statuses);
done:
    if (ctx)
        pool_put(c, ctx);
    Py_XDECREF(pend);
    for (int k = 0; v && k < nv; k++)
        oc_py_view_release(&v[k]);
    PyMem_Free(v);
    return ret;
}

/*
 * encode(buf, src_offsets=, src_sizes=, out=, out_offsets=, out_sizes=,
 * comp_sizes=) with the arrays in device memory (1-D, 8-byte integers; the
 * capacities out_sizes= are required, comp_sizes= receives the compressed
 * sizes): oc_batch_compress_packed builds the pointer arrays on the GPU, so
 * the call does no per-chunk host work, and returns comp_sizes at once
 * (stream-ordered: its producer stream and out's wait for the call; the
 * statuses stay on the device until codec.synchronize(), which raises the
 * first failed chunk).  errors='status' waits and returns (comp_sizes,
 * statuses).
 */
static PyObject *encode_packed_device(oc_py_state *st, oc_py_codec *c, PyObject *srcs, PyObject *outs,
                                      PyObject *soffs, PyObject *ssizes, PyObject *ooffs, PyObject *osizes,
                                      PyObject *csizes, int status_mode)
{
    static const char *const names[7] = {"array_s",     "out",       "src_offsets", "src_sizes",
                                         "out_offsets", "out_sizes", "comp_sizes"};
    PyObject *objs[7] = {srcs, outs, soffs, ssizes, ooffs, osizes, csizes};
    if (outs == Py_None || ssizes == Py_None || ooffs == Py_None || osizes == Py_None || csizes == Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "src_offsets= in device memory needs src_sizes=, out= (one buffer), out_offsets=, "
                        "out_sizes= (the capacities) and comp_sizes= (receives the compressed sizes), all "
                        "device arrays");
        return NULL;
    }
    oc_py_view *v = PyMem_Calloc(7, sizeof *v);
    if (!v)
        return PyErr_NoMemory();
    PyObject *ret = NULL;
    oc_py_context *ctx = NULL;
    oc_py_pending *pend = NULL;
    int nv = 0, dev = -1, defer = 0;
    size_t n = 0;
    ctx = packed_device_start(st, c, objs, names, 7, (1u << 1) | (1u << 6),
                              status_mode ? 0u : (1u << 1) | (1u << 6), v, &nv, &n, &dev, &defer);
    if (!ctx)
        goto done;
    oc_status s = OC_OK;
    uintptr_t own = (uintptr_t)ctx->stream;
    job tj; /* encode_data_type's and encode_typesize's view of the call: the one input buffer */
    memset(&tj, 0, sizeof tj);
    tj.nviews = 1;
    tj.src = &v[0];
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = c->algorithm;
    co.level = c->level;
    co.typed = c->typed;
    co.typed.data_type = encode_data_type(c, &tj);
    co.filter = c->filter;
    co.typesize = encode_typesize(c, &tj);
    co.blosc_codec = c->blosc_codec;
    co.blosc_blocksize = c->blosc_blocksize;
    co.kind = (uint8_t)c->kind;
    pend = PyObject_New(oc_py_pending, st->pending_type);
    if (!pend)
        goto done;
    memset((char *)pend + sizeof(PyObject), 0, sizeof *pend - sizeof(PyObject));
    pend->failed = -1;
    size_t need = ((n ? n : 1) * sizeof(oc_status) + 255) & ~(size_t)255;
    if (oc_py_devblock_take(st, ctx, need, &pend->dev, &pend->dev_bytes, &pend->dev_ctx) != 0)
        goto done;
    pend->on_device = 1;
    pend->device_id = dev;
    pend->stream = own;
    pend->stream_owner = Py_XNewRef(ctx->stream_owner);
    pend->packed = 1;
    pend->has_out = 1;
    pend->encode = 1;
    pend->n = n;
    pend->keep_st = status_mode;
    pend->out_bytes = v[1].nbytes;
    oc_status *res_st = (oc_status *)pend->dev;
    const size_t *so = (const size_t *)(void *)v[2].ptr, *ss = (const size_t *)(void *)v[3].ptr;
    const size_t *oo = (const size_t *)(void *)v[4].ptr, *caps = (const size_t *)(void *)v[5].ptr;
    size_t *got = (size_t *)(void *)v[6].ptr;
    void *sbuf = v[0].ptr, *obuf = v[1].ptr;
    size_t sn = v[0].nbytes, on = v[1].nbytes;
    pend->src = v; /* held until the batch is read: the GPU reads and writes them */
    pend->nsrc = 7;
    v = NULL;
    nv = 0;
    OC_PY_CTX_CALL(ctx, s = oc_batch_compress_packed(ctx->ctx, &co, n, sbuf, sn, so, ss, obuf, on, oo, caps,
                                                     got, res_st));
    for (int k = 1; s == OC_OK && defer && k < 7;
         k += 5) { /* out's and comp_sizes' streams wait for the call */
        job j;
        memset(&j, 0, sizeof j);
        j.nviews = 1;
        j.on_device = 1;
        j.src = &pend->src[0];
        j.out = &pend->src[k];
        if (job_order_outputs(st, ctx, &j) != 0)
            s = OC_ERR_CUDA;
    }
    pool_put(c, ctx);
    ctx = NULL;
    if (s != OC_OK) {
        if (!PyErr_Occurred())
            raise_call(st, s, "encode", c->algorithm, 1);
        goto done;
    }
    if (defer) {
        if (remember_pending(c, (PyObject *)pend) == 0)
            ret = Py_NewRef(csizes);
        goto done;
    }
    if (oc_py_pending_wait((PyObject *)pend, !status_mode) != 0)
        goto done;
    if (!status_mode) {
        ret = Py_NewRef(csizes);
        goto done;
    }
    PyObject *statuses = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; statuses && i < n; i++) {
        PyObject *so_ = oc_py_status_object(st, pend->st[i]);
        if (!so_)
            Py_CLEAR(statuses);
        else
            PyList_SET_ITEM(statuses, (Py_ssize_t)i, so_);
    }
    if (statuses)
        ret = Py_BuildValue("(ON)", csizes, statuses);
done:
    if (ctx)
        pool_put(c, ctx);
    Py_XDECREF(pend);
    for (int k = 0; v && k < nv; k++)
        oc_py_view_release(&v[k]);
    PyMem_Free(v);
    return ret;
}

static PyObject *codec_encode(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"array_s",     "out",       "errors",     "src_offsets", "src_sizes",
                             "out_offsets", "out_sizes", "comp_sizes", NULL};
    static const char *const aliases[] = {"srcs", "array", NULL};
    PyObject *srcs, *outs = Py_None, *errors = Py_None;
    PyObject *soffs = Py_None, *ssizes = Py_None, *ooffs = Py_None, *osizes = Py_None, *csizes = Py_None;
    PyObject *kw2 = NULL;
    if (kw && !(kw2 = alias_kw(kw, aliases, "array_s")))
        return NULL;
    int ok = PyArg_ParseTupleAndKeywords(args, kw2, "O|$OOOOOOO:encode", kwlist, &srcs, &outs, &errors,
                                         &soffs, &ssizes, &ooffs, &osizes, &csizes);
    Py_XDECREF(kw2);
    if (!ok)
        return NULL;
    oc_py_codec *c = (oc_py_codec *)self;
    oc_py_state *st = state_of(self);
    int status_mode;
    if (parse_errors(errors, &status_mode) != 0)
        return NULL;
    int packed = soffs != Py_None;
    if (!packed && (ssizes != Py_None || ooffs != Py_None || osizes != Py_None || csizes != Py_None)) {
        PyErr_SetString(PyExc_ValueError,
                        "src_sizes=, out_offsets=, out_sizes= and comp_sizes= go with src_offsets=");
        return NULL;
    }
    if (packed && c->kind != OC_BITSTREAM_RAW) {
        PyErr_SetString(PyExc_ValueError, "src_offsets= encodes RAW chunks (bitstream_kind=RAW)");
        return NULL;
    }
    if (c->algorithm == OC_ALGO_NONE) {
        PyErr_SetString(PyExc_ValueError, "encode needs an algorithm: Codec(algorithm='LZ4' | 'Snappy' | "
                                          "'Deflate' | 'Zlib' | 'Gzip' | 'Zstd' | 'Cascaded' | 'ANS' | "
                                          "'Bitcomp')");
        return NULL;
    }
    if (packed && is_device_array(soffs))
        return encode_packed_device(st, c, srcs, outs, soffs, ssizes, ooffs, osizes, csizes, status_mode);
    if (csizes != Py_None) {
        PyErr_SetString(PyExc_ValueError, "comp_sizes= goes with offset arrays in device memory (with host "
                                          "offsets the sizes are returned as a list)");
        return NULL;
    }
    job j;
    memset(&j, 0, sizeof j);
    PyObject *ret = NULL;
    oc_py_context *ctx = NULL;
    if (packed ? job_prepare_packed(st, c, &j, srcs, outs, soffs, ssizes, ooffs, osizes, 1) != 0
               : job_prepare(st, c, &j, srcs, outs, "encode") != 0)
        goto done;
    oc_buffer_options bo = OC_BUFFER_OPTIONS_INIT;
    bo.algorithm = c->algorithm;
    bo.level = c->level;
    bo.chunk_size = c->chunk_size;
    bo.typed = c->typed;
    bo.typed.data_type = encode_data_type(c, &j);
    bo.kind = (oc_bitstream_kind)c->kind;
    bo.checksum = c->compute_checksum ? (c->verify_checksum ? OC_CHECKSUM_VERIFY : OC_CHECKSUM_COMPUTE)
                                      : OC_CHECKSUM_NONE;
    /* WITH_UNCOMPRESSED_SIZE: the library writes each 8-byte header (on
     * the device for device data): the capacity counts it. */
    size_t wus = c->kind == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE ? WUS_HEADER : 0;
    if ((c->algorithm == OC_ALGO_CASCADED || c->algorithm == OC_ALGO_ANS ||
         c->algorithm == OC_ALGO_BITCOMP) &&
        c->kind == OC_BITSTREAM_NATIVE) {
        size_t w = type_width(bo.typed.data_type);
        if (c->chunk_size % w != 0) {
            PyErr_Format(PyExc_ValueError,
                         "encode: uncomp_chunk_size %zu is not a multiple of the data type's %zu bytes "
                         "(chunks hold whole elements)",
                         c->chunk_size, w);
            goto done;
        }
    }
    if (!j.out) {
        for (size_t i = 0; i < j.n; i++) {
            size_t bound;
            if (c->kind == OC_BITSTREAM_NATIVE)
                bound = oc_buffer_compress_bound(&bo, j.src_sizes[i]);
            else
                bound = oc_compress_bound(c->algorithm, j.src_sizes[i]);
            if (bound == 0) {
                oc_py_raise(st, OC_ERR_CHUNK_TOO_LARGE, (Py_ssize_t)i,
                            "encode: input %zu (%zu bytes) exceeds what %s can compress in one %s", i,
                            j.src_sizes[i], oc_algorithm_name(c->algorithm),
                            c->kind == OC_BITSTREAM_NATIVE ? "container" : "stream");
                goto done;
            }
            j.dst_caps[i] = bound + wus;
        }
        if (alloc_results(st, &j) != 0)
            goto done;
    }
    ctx = pool_take(c, j.device_id, j.on_device);
    if (!ctx || job_wait_producers(st, ctx, &j) != 0)
        goto done;
    oc_status call = OC_OK;
    if (c->kind == OC_BITSTREAM_NATIVE) {
        OC_PY_CTX_CALL(ctx, {
            for (size_t i = 0; i < j.n; i++) {
                uint64_t dsz = 0;
                j.st[i] = oc_buffer_compress(ctx->ctx, &bo, j.src_ptrs[i], j.src_sizes[i], j.dst_ptrs[i],
                                             j.dst_caps[i], &dsz);
                j.dst_sizes[i] = j.st[i] == OC_OK ? (size_t)dsz : 0;
            }
        });
    } else {
        oc_codec_options co = OC_CODEC_OPTIONS_INIT;
        co.algorithm = c->algorithm;
        co.level = c->level;
        co.typed = bo.typed;
        co.filter = c->filter;
        co.typesize = encode_typesize(c, &j);
        co.blosc_codec = c->blosc_codec;
        co.blosc_blocksize = c->blosc_blocksize;
        co.kind = (uint8_t)c->kind;
        int dev = j.on_device;
        OC_PY_CTX_CALL(ctx, {
            call = oc_batch_compress(ctx->ctx, &co, j.n, j.src_ptrs, j.src_sizes, j.dst_ptrs, j.dst_caps,
                                     j.dst_sizes, j.st);
            if (dev) {
                oc_status s2 = oc_context_synchronize(ctx->ctx);
                if (call == OC_OK)
                    call = s2;
            }
        });
    }
    pool_put(c, ctx);
    ctx = NULL;
    if (call != OC_OK) {
        raise_call(st, call, "encode", c->algorithm, j.on_device);
        goto done;
    }
    if (packed) {
        ret = packed_encode_finish(st, &j, status_mode);
        goto done;
    }
    if (!j.out && j.backing) {
        compact_host_block(&j);
    } else if (!j.out) {
        /* per-chunk host results: give the unused tail back */
        for (size_t i = 0; i < j.n; i++) {
            oc_py_array *a = j.res[i];
            if (j.st[i] == OC_OK && a && a->own_kind == OC_MEMORY_HOST && a->own_ptr && j.dst_sizes[i] > 0 &&
                j.dst_sizes[i] + 4096 < a->own_size) {
                void *p = realloc(a->own_ptr, j.dst_sizes[i]);
                if (p) {
                    a->own_ptr = p;
                    a->own_size = j.dst_sizes[i];
                    a->v.ptr = p;
                }
            }
        }
    }
    ret = job_finish(st, &j, status_mode, "encode", "|u1", j.dst_sizes);
done:
    if (ctx)
        pool_put(c, ctx);
    job_free(&j);
    return ret;
}

/* ---- decode -------------------------------------------------------------- */

static int parse_sizes(PyObject *obj, job *j)
{
    if (obj == NULL || obj == Py_None)
        return 0;
    PyObject *seq;
    if (j->single && PyLong_Check(obj))
        seq = PyTuple_Pack(1, obj);
    else
        seq = PySequence_Fast(obj, "uncomp_sizes must be an int or a list of ints");
    if (!seq)
        return -1;
    if ((size_t)PySequence_Fast_GET_SIZE(seq) != j->n) {
        PyErr_Format(PyExc_ValueError, "uncomp_sizes has %zd entries for %zu inputs",
                     PySequence_Fast_GET_SIZE(seq), j->n);
        Py_DECREF(seq);
        return -1;
    }
    for (size_t i = 0; i < j->n; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i);
        Py_ssize_t v = PyNumber_Check(x) ? PyNumber_AsSsize_t(x, PyExc_OverflowError) : -1;
        if (v < 0) {
            if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError, "uncomp_sizes[%zu] must be a non-negative int", i);
            }
            Py_DECREF(seq);
            return -1;
        }
        j->known[i] = (size_t)v;
    }
    Py_DECREF(seq);
    return 0;
}

/* WITH_UNCOMPRESSED_SIZE: the library reads and guards each chunk's header
 * (oc_batch_decompressed_sizes with the kind reads only the headers, on
 * the device for device data: not a size query); a size given in
 * uncomp_sizes must agree. */
static int wus_sizes(oc_py_state *st, oc_py_context *ctx, job *j, const oc_codec_options *co)
{
    size_t *qs = PyMem_Calloc(j->n ? j->n : 1, sizeof *qs);
    oc_status *qst = PyMem_Calloc(j->n ? j->n : 1, sizeof *qst);
    oc_status call = OC_ERR_OUT_OF_MEMORY;
    int dev = j->on_device;
    if (qs && qst) {
        OC_PY_CTX_CALL(ctx, {
            call = oc_batch_decompressed_sizes(ctx->ctx, co, j->n, j->src_ptrs, j->src_sizes, qs, qst);
            if (dev) {
                oc_status s2 = oc_context_synchronize(ctx->ctx);
                if (call == OC_OK)
                    call = s2;
            }
        });
    }
    for (size_t i = 0; call == OC_OK && i < j->n; i++) {
        if (j->st[i] != OC_OK)
            continue;
        if (qst[i] != OC_OK)
            j->st[i] = qst[i];
        else if (qs[i] > (size_t)PY_SSIZE_T_MAX)
            j->st[i] = OC_ERR_CORRUPT;
        else if (j->known[i] != (size_t)-1 && j->known[i] != qs[i])
            j->st[i] = OC_ERR_SIZE_MISMATCH;
        else
            j->known[i] = qs[i];
    }
    PyMem_Free(qs);
    PyMem_Free(qst);
    if (call != OC_OK) {
        oc_py_raise(st, call, -1, "decode: reading size headers: %s", oc_status_message(call));
        return -1;
    }
    return 0;
}

/* ---- decode of one buffer plus offsets (no per-chunk Python objects) ------ */

/* A 1-D contiguous buffer of 8-byte integers (numpy int64/uint64, array('q'),
 * memoryview casts): copied at once into *dst (allocated here when NULL),
 * negatives refused.  Returns 1 when obj was such a buffer (0 or -1 in
 * *rc), 0 to fall back to the sequence path. */
static int int_buffer(PyObject *obj, const char *name, size_t *n, size_t **dst, int *rc)
{
    if (!PyObject_CheckBuffer(obj) || PyBytes_Check(obj) || PyByteArray_Check(obj))
        return 0;
    Py_buffer b;
    if (PyObject_GetBuffer(obj, &b, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Clear();
        return 0;
    }
    const char *f = b.format ? b.format : "B";
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    int is_signed = (*f == 'q' || *f == 'l' || *f == 'n');
    int ok_fmt =
        f[0] && !f[1] && b.itemsize == 8 && b.ndim == 1 && (is_signed || *f == 'Q' || *f == 'L' || *f == 'N');
    if (!ok_fmt) {
        PyBuffer_Release(&b);
        return 0;
    }
    *rc = -1;
    size_t m = (size_t)b.shape[0];
    if (*n != (size_t)-1 && m != *n) {
        PyErr_Format(PyExc_ValueError, "%s has %zu entries for %zu chunks", name, m, *n);
    } else if (!*dst && !(*dst = PyMem_Malloc((m ? m : 1) * sizeof **dst))) { /* *dst: room given */
        PyErr_NoMemory();
    } else {
        memcpy(*dst, b.buf, m * sizeof **dst);
        *n = m;
        *rc = 0;
        for (size_t i = 0; is_signed && i < m; i++)
            if ((int64_t)(*dst)[i] < 0) {
                PyErr_Format(PyExc_ValueError, "%s[%zu] must be a non-negative int", name, i);
                *rc = -1;
                break;
            }
    }
    PyBuffer_Release(&b);
    return 1;
}

/* The n non-negative ints of obj (a sequence, or a 1-D array of 8-byte
 * integers, copied whole) into dst, which has room for n: another length
 * is a ValueError naming `name`. */
static int int_seq_fill(PyObject *obj, const char *name, size_t n, size_t *dst)
{
    size_t got = n;
    int rc;
    if (int_buffer(obj, name, &got, &dst, &rc))
        return rc;
    PyObject *seq = PySequence_Fast(obj, name);
    if (!seq)
        return -1;
    size_t m = (size_t)PySequence_Fast_GET_SIZE(seq);
    if (m != n) {
        PyErr_Format(PyExc_ValueError, "%s has %zu entries for %zu chunks", name, m, n);
        Py_DECREF(seq);
        return -1;
    }
    for (size_t i = 0; i < m; i++) {
        PyObject *x = PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i);
        Py_ssize_t v = PyLong_Check(x) ? PyLong_AsSsize_t(x) : PyNumber_AsSsize_t(x, PyExc_OverflowError);
        if (v < 0) {
            if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError) ||
                PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "%s[%zu] must be a non-negative int", name, i);
            }
            Py_DECREF(seq);
            return -1;
        }
        dst[i] = (size_t)v;
    }
    Py_DECREF(seq);
    return 0;
}

/* The block of a packed call's per-chunk arrays that do not outlive it
 * (offsets, sizes, capacities, pointers, known sizes): the Codec's own
 * block when no other call holds it, grown as needed and kept for the next
 * call, else a block of this call's.  Fresh blocks of a MiB or more a call
 * were most of the call's host time (page faults: bench/NOTES.md, issue 16
 * "Session 9"); a reused block faults nothing in.  The GIL guards the
 * Codec's block (taken and given back with it held). */
static void *job_take_block(oc_py_codec *c, job *j, size_t bytes)
{
    if (!c->block_busy) {
        if (c->block_cap < bytes) {
            PyMem_Free(c->block);
            c->block_cap = 0;
            if (!(c->block = PyMem_Malloc(bytes)))
                return NULL;
            c->block_cap = bytes;
        }
        c->block_busy = 1;
        j->block_codec = c;
        j->block = c->block;
        return c->block;
    }
    j->block_codec = NULL;
    j->block = PyMem_Malloc(bytes);
    return j->block;
}

static void job_give_block(job *j)
{
    oc_py_codec *c = (oc_py_codec *)j->block_codec;
    if (c && j->block == c->block)
        c->block_busy = 0;
    else
        PyMem_Free(j->block);
    j->block = NULL;
    j->block_codec = NULL;
    j->carved = 0;
}

/* srcs is one buffer holding chunk i at src_offsets[i] (src_sizes[i] bytes);
 * out is one buffer receiving it at out_offsets[i], with room for caps[i]
 * bytes: decode's uncomp_sizes=, encode's out_sizes= (by default
 * oc_compress_bound of the chunk).  The pointer and size arrays are filled
 * in one C pass, bounds-checked, in job_take_block's block. */
static int job_prepare_packed(oc_py_state *st, oc_py_codec *c, job *j, PyObject *srcs, PyObject *outs,
                              PyObject *soffs, PyObject *ssizes, PyObject *ooffs, PyObject *caps, int encode)
{
    const char *capname = encode ? "out_sizes" : "uncomp_sizes";
    if (outs == Py_None || ssizes == Py_None || ooffs == Py_None || (!encode && caps == Py_None)) {
        PyErr_SetString(PyExc_ValueError, encode ? "src_offsets= needs src_sizes=, out= (one buffer) and "
                                                   "out_offsets="
                                                 : "src_offsets= needs src_sizes=, out= (one buffer), "
                                                   "out_offsets= and uncomp_sizes=");
        return -1;
    }
    /* the chunk count: src_offsets' length (an iterable without one is listed first) */
    PyObject *held = NULL;
    Py_ssize_t len = PyObject_Size(soffs);
    if (len < 0) {
        PyErr_Clear();
        if (!(held = PySequence_Fast(soffs, "src_offsets must be a sequence of ints or a 1-D integer array")))
            return -1;
        soffs = held;
        len = PySequence_Fast_GET_SIZE(held);
    }
    size_t n = (size_t)len, m = n ? n : 1;
    /* seven arrays of m 8-byte entries, carved from one block */
    size_t *blk = job_take_block(c, j, 7 * m * sizeof(size_t));
    if (!blk) {
        Py_XDECREF(held);
        PyErr_NoMemory();
        return -1;
    }
    size_t *so = blk, *oo = blk + m, *ss = blk + 2 * m, *us = blk + 3 * m, *known = blk + 6 * m;
    j->carved = 1;
    int bad = int_seq_fill(soffs, "src_offsets", n, so) != 0;
    Py_XDECREF(held);
    if (bad || int_seq_fill(ssizes, "src_sizes", n, ss) != 0 ||
        int_seq_fill(ooffs, "out_offsets", n, oo) != 0)
        return -1;
    if (caps != Py_None) {
        if (int_seq_fill(caps, capname, n, us) != 0)
            return -1;
    } else { /* encode: each chunk's bound */
        for (size_t i = 0; i < n; i++)
            if ((us[i] = oc_compress_bound(c->algorithm, ss[i])) == 0) {
                oc_py_raise(st, OC_ERR_CHUNK_TOO_LARGE, (Py_ssize_t)i,
                            "encode: input %zu (%zu bytes) exceeds what %s can compress in one stream", i,
                            ss[i], oc_algorithm_name(c->algorithm));
                return -1;
            }
    }
    j->n = n;
    j->single = 0;
    /* one view each of the two buffers, and no per-chunk result objects:
     * nothing in this call grows with n but the pointer and size arrays */
    j->nviews = 1;
    j->src_ptrs = (const void **)(blk + 4 * m);
    j->dst_ptrs = (void **)(blk + 5 * m);
    j->src_sizes = ss;
    j->dst_caps = us;
    j->known = known;
    /* these two go with a stream-ordered batch: their own allocations */
    j->src = PyMem_Calloc(1, sizeof *j->src);
    j->out = PyMem_Calloc(1, sizeof *j->out);
    j->dst_sizes = PyMem_Calloc(m, sizeof *j->dst_sizes);
    j->st = PyMem_Calloc(m, sizeof *j->st);
    if (!j->src || !j->out || !j->dst_sizes || !j->st) {
        PyErr_NoMemory();
        return -1;
    }
    uintptr_t consumer = c->stream ? c->stream : 1;
    if (oc_py_view_get(st, srcs, 0, consumer, "srcs", &j->src[0]) != 0 ||
        oc_py_view_get(st, outs, 1, consumer, "out", &j->out[0]) != 0)
        return -1;
    j->on_device = j->src[0].on_device;
    if (j->out[0].on_device != j->on_device) {
        PyErr_Format(PyExc_ValueError, "out is in %s memory but srcs in %s memory",
                     j->out[0].on_device ? "device" : "host", j->on_device ? "device" : "host");
        return -1;
    }
    if (j->on_device && !oc_engine_available(OC_ENGINE_CUDA)) {
        oc_py_raise(st, OC_ERR_NO_DEVICE, -1, "inputs are in device memory but no CUDA device is usable (%s)",
                    oc_build_info());
        return -1;
    }
    const uint8_t *sb = (const uint8_t *)j->src[0].ptr;
    uint8_t *ob = (uint8_t *)j->out[0].ptr;
    size_t sn = j->src[0].nbytes, on = j->out[0].nbytes;
    for (size_t i = 0; i < n; i++) {
        if (so[i] > sn || ss[i] > sn - so[i]) {
            PyErr_Format(PyExc_ValueError,
                         "chunk %zu: src_offsets[%zu] + src_sizes[%zu] = %zu + %zu is past the "
                         "end of srcs (%zu bytes)",
                         i, i, i, so[i], ss[i], sn);
            return -1;
        }
        if (oo[i] > on || us[i] > on - oo[i]) {
            PyErr_Format(PyExc_ValueError,
                         "chunk %zu: out_offsets[%zu] + %s[%zu] = %zu + %zu is past "
                         "the end of out (%zu bytes)",
                         i, i, capname, i, oo[i], us[i], on);
            return -1;
        }
        j->src_ptrs[i] = sb + so[i];
        j->dst_ptrs[i] = ob + oo[i];
    }
    memcpy(known, us, n * sizeof *us);
    return job_bind_device(c, j);
}

/* Raise for the first failed chunk, or return out / (out, statuses). */
static PyObject *packed_finish(oc_py_state *st, job *j, PyObject *outs, int status_mode)
{
    if (!status_mode) {
        for (size_t i = 0; i < j->n; i++)
            if (j->st[i] != OC_OK) {
                oc_py_raise(st, j->st[i], (Py_ssize_t)i, "decode failed for chunk %zu of %zu: %s: %s", i,
                            j->n, oc_status_name(j->st[i]), oc_status_message(j->st[i]));
                return NULL;
            }
        return Py_NewRef(outs);
    }
    PyObject *statuses = PyList_New((Py_ssize_t)j->n);
    if (!statuses)
        return NULL;
    for (size_t i = 0; i < j->n; i++) {
        PyObject *s = oc_py_status_object(st, j->st[i]);
        if (!s) {
            Py_DECREF(statuses);
            return NULL;
        }
        PyList_SET_ITEM(statuses, (Py_ssize_t)i, s);
    }
    return Py_BuildValue("(ON)", outs, statuses);
}

/* A packed encode's result: the compressed sizes (a list of ints), raising
 * for the first failed chunk; with errors='status', (sizes, statuses), 0 for
 * a failed chunk's size. */
static PyObject *packed_encode_finish(oc_py_state *st, job *j, int status_mode)
{
    for (size_t i = 0; !status_mode && i < j->n; i++)
        if (j->st[i] != OC_OK) {
            oc_py_raise(st, j->st[i], (Py_ssize_t)i, "encode failed for chunk %zu of %zu: %s: %s", i, j->n,
                        oc_status_name(j->st[i]), oc_status_message(j->st[i]));
            return NULL;
        }
    PyObject *sizes = PyList_New((Py_ssize_t)j->n);
    PyObject *statuses = status_mode ? PyList_New((Py_ssize_t)j->n) : NULL;
    if (!sizes || (status_mode && !statuses))
        goto fail;
    for (size_t i = 0; i < j->n; i++) {
        PyObject *v = PyLong_FromSize_t(j->st[i] == OC_OK ? j->dst_sizes[i] : 0);
        if (!v)
            goto fail;
        PyList_SET_ITEM(sizes, (Py_ssize_t)i, v);
        if (statuses) {
            PyObject *s = oc_py_status_object(st, j->st[i]);
            if (!s)
                goto fail;
            PyList_SET_ITEM(statuses, (Py_ssize_t)i, s);
        }
    }
    if (!statuses)
        return sizes;
    return Py_BuildValue("(NN)", sizes, statuses);
fail:
    Py_XDECREF(sizes);
    Py_XDECREF(statuses);
    return NULL;
}

static PyObject *codec_decode(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"srcs",      "data_type",   "out", "uncomp_sizes", "errors", "src_offsets",
                             "src_sizes", "out_offsets", NULL};
    static const char *const aliases[] = {"src", NULL};
    PyObject *srcs, *dtype = Py_None, *outs = Py_None, *sizes = Py_None, *errors = Py_None;
    PyObject *soffs = Py_None, *ssizes = Py_None, *ooffs = Py_None;
    PyObject *kw2 = NULL;
    if (kw && !(kw2 = alias_kw(kw, aliases, "srcs")))
        return NULL;
    int ok = PyArg_ParseTupleAndKeywords(args, kw2, "O|O$OOOOOO:decode", kwlist, &srcs, &dtype, &outs, &sizes,
                                         &errors, &soffs, &ssizes, &ooffs);
    Py_XDECREF(kw2);
    if (!ok)
        return NULL;
    oc_py_codec *c = (oc_py_codec *)self;
    oc_py_state *st = state_of(self);
    int status_mode;
    char ts[16];
    if (parse_errors(errors, &status_mode) != 0 || oc_py_typestr_from_object(dtype, ts, sizeof ts) != 0)
        return NULL;
    if (!ts[0])
        snprintf(ts, sizeof ts, "%s", strcmp(c->data_type, "bf16") ? c->data_type : "<u2");
    job j;
    memset(&j, 0, sizeof j);
    PyObject *ret = NULL;
    oc_py_context *ctx = NULL;
    int packed = soffs != Py_None;
    if (!packed && (ssizes != Py_None || ooffs != Py_None)) {
        PyErr_SetString(PyExc_ValueError, "src_sizes= and out_offsets= go with src_offsets=");
        return NULL;
    }
    if (packed && (c->kind == OC_BITSTREAM_NATIVE || c->kind == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE)) {
        PyErr_SetString(PyExc_ValueError, "src_offsets= decodes RAW chunks (bitstream_kind=RAW)");
        return NULL;
    }
    if (packed && is_device_array(soffs))
        return decode_packed_device(st, c, srcs, outs, soffs, ssizes, ooffs, sizes, status_mode);
    if (packed ? job_prepare_packed(st, c, &j, srcs, outs, soffs, ssizes, ooffs, sizes, 0) != 0
               : (job_prepare(st, c, &j, srcs, outs, "decode") != 0 || parse_sizes(sizes, &j) != 0))
        goto done;
    ctx = pool_take(c, j.device_id, j.on_device);
    if (!ctx || job_wait_producers(st, ctx, &j) != 0)
        goto done;
    int dev = j.on_device;
    oc_status call = OC_OK;
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = c->algorithm;
    co.filter = c->filter; /* undone after the codec (Blosc reads its own from each chunk) */
    co.typesize = c->typesize;
    co.typed.data_type = decode_type_hint(c, ts);
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    hint.algorithm = c->algorithm;
    hint.chunk_size = c->chunk_size;
    hint.kind = (oc_bitstream_kind)c->kind;
    hint.checksum = c->verify_checksum ? OC_CHECKSUM_VERIFY : OC_CHECKSUM_NONE;

    /* 1. sizes: given, from headers, from out= capacities, or queried */
    if (c->kind == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE) {
        co.kind = OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
        if (wus_sizes(st, ctx, &j, &co) != 0)
            goto done;
    }
    size_t nquery = 0;
    for (size_t i = 0; i < j.n; i++)
        if (j.st[i] == OC_OK && j.known[i] == (size_t)-1 && !j.out)
            nquery++;
    if (nquery) {
        st->size_queries++;
        size_t *qs = j.dst_sizes; /* scratch: overwritten by the decode below */
        oc_status *qst = PyMem_Calloc(j.n, sizeof *qst);
        if (!qst) {
            PyErr_NoMemory();
            goto done;
        }
        if (c->kind == OC_BITSTREAM_NATIVE) {
            /* The library reads what it needs: for device containers with an
             * index, only their heads and tails (device checks included). */
            OC_PY_CTX_CALL(ctx, {
                for (size_t i = 0; i < j.n; i++) {
                    uint64_t sz = 0;
                    if (j.st[i] != OC_OK || j.known[i] != (size_t)-1)
                        continue;
                    qst[i] = oc_buffer_decompressed_size(ctx->ctx, &hint, j.src_ptrs[i], j.src_sizes[i], &sz);
                    qs[i] = (size_t)sz;
                }
            });
        } else {
            OC_PY_CTX_CALL(ctx, {
                call = oc_batch_decompressed_sizes(ctx->ctx, &co, j.n, j.src_ptrs, j.src_sizes, qs, qst);
                if (dev) {
                    oc_status s2 = oc_context_synchronize(ctx->ctx);
                    if (call == OC_OK)
                        call = s2;
                }
            });
        }
        for (size_t i = 0; i < j.n; i++) {
            if (j.st[i] != OC_OK || j.known[i] != (size_t)-1)
                continue;
            /* The library guards the sizes against hostile headers
             * (CORRUPT above the table's max_expansion), on both engines. */
            if (qst[i] != OC_OK)
                j.st[i] = qst[i];
            else
                j.known[i] = qs[i];
        }
        PyMem_Free(qst);
        if (call != OC_OK) {
            raise_call(st, call, "decode (size query)", c->algorithm, j.on_device);
            goto done;
        }
    }
    /* 2. outputs: out= (capacity checked by the decoder) or fresh Arrays of the known size;
     * allocation may run Python allocators, so hold no context meanwhile */
    if (!j.out) {
        pool_put(c, ctx);
        ctx = NULL;
    }
    if (j.out) {
        for (size_t i = 0; i < j.n; i++)
            if (j.st[i] == OC_OK && j.known[i] != (size_t)-1 && j.known[i] > j.dst_caps[i])
                j.st[i] = OC_ERR_OUTPUT_TOO_SMALL;
    } else {
        for (size_t i = 0; i < j.n; i++)
            j.dst_caps[i] = j.st[i] == OC_OK ? j.known[i] : 0;
        if (alloc_results(st, &j) != 0)
            goto done;
    }
    if (!ctx && !(ctx = pool_take(c, j.device_id, j.on_device)))
        goto done;
    /* 3. decode; failed chunks (st != OK) get capacity 0 and keep their status.
     * Stream-ordered (no host wait; statuses read at the sync point) when
     * every chunk is still OK and its size is known or bounded by out=, for
     * RAW and WITH_UNCOMPRESSED_SIZE on the device; errors='status' must
     * return statuses, and NATIVE containers are decoded by
     * oc_buffer_decompress, which synchronises (its sizes are host values).
     * A result of out= without a known size is shaped when its batch is
     * read (array.c's oc_py_array_resolve): its length is the decoded size.
     * A call with out= defers only where every device out= buffer names a
     * stream (CAI v3, DLPack) that job_order_outputs can order after the
     * decode: the owner of a buffer that names none (torch's CAI v2, which
     * by that interface's contract holds ready data) reads it on a stream
     * we cannot know, so that call synchronises. */
    int defer = (dev || st->defer_host) && !status_mode && c->kind != OC_BITSTREAM_NATIVE;
    for (size_t v = 0; defer && dev && j.out && v < j.nviews; v++)
        if (!j.out[v].has_stream)
            defer = 0;
    for (size_t i = 0; defer && i < j.n; i++)
        if (j.st[i] != OC_OK || (j.known[i] == (size_t)-1 && !j.out))
            defer = 0;
    oc_status *dst_st = PyMem_Calloc(j.n ? j.n : 1, sizeof *dst_st);
    size_t *idx = NULL, k = 0;
    oc_py_pending *pend = NULL;
    if (!dst_st) {
        PyErr_NoMemory();
        goto done;
    }
    if (c->kind == OC_BITSTREAM_NATIVE) {
        OC_PY_CTX_CALL(ctx, {
            for (size_t i = 0; i < j.n; i++) {
                uint64_t dsz = 0;
                if (j.st[i] != OC_OK)
                    continue;
                dst_st[i] = oc_buffer_decompress(ctx->ctx, &hint, j.src_ptrs[i], j.src_sizes[i],
                                                 j.dst_ptrs[i], j.dst_caps[i], &dsz, NULL);
                j.dst_sizes[i] = (size_t)dsz;
            }
        });
    } else {
        /* the chunks still OK, packed at the front of the pointer arrays */
        idx = PyMem_Calloc(j.n ? j.n : 1, sizeof *idx);
        if (!idx) {
            PyMem_Free(dst_st);
            PyErr_NoMemory();
            goto done;
        }
        if (defer && limit_in_flight(c) != 0) {
            PyMem_Free(dst_st);
            PyMem_Free(idx);
            goto done;
        }
        if (defer) {
            /* what the stream writes back (sizes, statuses) and what the
             * messages need, kept by the batch until it is read */
            pend = PyObject_New(oc_py_pending, st->pending_type);
            if (pend) {
                memset((char *)pend + sizeof(PyObject), 0, sizeof *pend - sizeof(PyObject));
                pend->known = PyMem_Calloc(j.n ? j.n : 1, sizeof *pend->known);
                pend->caps = PyMem_Calloc(j.n ? j.n : 1, sizeof *pend->caps);
            }
            if (!pend || !pend->known || !pend->caps) {
                Py_XDECREF(pend);
                PyMem_Free(dst_st);
                PyMem_Free(idx);
                if (!PyErr_Occurred())
                    PyErr_NoMemory();
                goto done;
            }
            memcpy(pend->known, j.known, j.n * sizeof *j.known);
            for (size_t i = 0; i < j.n; i++)
                pend->caps[i] = j.out ? j.out[packed ? 0 : i].nbytes : j.dst_caps[i];
        }
        for (size_t i = 0; i < j.n; i++) {
            j.dst_sizes[i] = 0;
            if (j.st[i] != OC_OK)
                continue;
            idx[k] = i;
            j.src_ptrs[k] = j.src_ptrs[i];
            j.src_sizes[k] = j.src_sizes[i];
            j.dst_ptrs[k] = j.dst_ptrs[i];
            j.dst_caps[k] = j.dst_caps[i];
            k++;
        }
        OC_PY_CTX_CALL(ctx, {
            call = oc_batch_decompress(ctx->ctx, &co, k, j.src_ptrs, j.src_sizes, j.dst_ptrs, j.dst_caps,
                                       j.dst_sizes, dst_st);
            if (dev && !defer) {
                oc_status s2 = oc_context_synchronize(ctx->ctx);
                if (call == OC_OK)
                    call = s2;
            }
        });
        if (call == OC_OK && defer && job_order_outputs(st, ctx, &j) != 0) {
            /* the decode is enqueued: its write-back targets go with the batch */
            call = OC_ERR_CUDA;
        }
        if (defer) {
            /* the stream owns these until the batch is read: the batch takes them */
            pend->on_device = dev;
            pend->device_id = j.device_id;
            pend->stream = (uintptr_t)ctx->stream;
            pend->stream_owner = Py_XNewRef(ctx->stream_owner);
            pend->single = j.single;
            pend->packed = packed;
            pend->has_out = j.out != NULL;
            pend->detect = c->algorithm == OC_ALGO_NONE;
            pend->n = j.n;
            pend->k = k;
            pend->idx = idx;
            pend->got = j.dst_sizes;
            pend->got_st = dst_st;
            pend->st = j.st;
            pend->src = j.src;
            pend->nsrc = j.nviews;
            pend->failed = -1;
            idx = NULL;
            dst_st = NULL;
            j.dst_sizes = NULL;
            j.st = NULL;
            j.src = NULL;
            if (call != OC_OK) {
                pool_put(c, ctx);
                ctx = NULL;
                Py_DECREF(pend); /* waits for the stream before freeing */
                if (!PyErr_Occurred())
                    raise_call(st, call, "decode", c->algorithm, j.on_device);
                goto done;
            }
        } else {
            /* unpack from the back so that no entry is overwritten before it is read */
            for (size_t q = k; q-- > 0;) {
                size_t i = idx[q];
                size_t dsz = j.dst_sizes[q];
                oc_status sq = dst_st[q];
                size_t cap = j.dst_caps[q];
                j.dst_sizes[q] = 0;
                dst_st[q] = OC_OK;
                j.dst_sizes[i] = dsz;
                dst_st[i] = sq;
                j.dst_caps[i] = cap;
            }
        }
        PyMem_Free(idx);
    }
    for (size_t i = 0; !pend && i < j.n; i++) {
        if (j.st[i] != OC_OK)
            continue;
        j.st[i] = dst_st[i];
        if (j.st[i] == OC_OK && j.known[i] != (size_t)-1 && j.dst_sizes[i] != j.known[i])
            j.st[i] = OC_ERR_SIZE_MISMATCH;
    }
    PyMem_Free(dst_st);
    pool_put(c, ctx);
    ctx = NULL;
    if (call != OC_OK) {
        raise_call(st, call, "decode", c->algorithm, j.on_device);
        goto done;
    }
    j.detect = c->algorithm == OC_ALGO_NONE;
    if (pend) {
        /* every status is OK until the batch is read: results of the promised sizes */
        j.st = PyMem_Calloc(j.n ? j.n : 1, sizeof *j.st);
        if (!j.st) {
            Py_DECREF(pend);
            PyErr_NoMemory();
            goto done;
        }
        /* out= chunks of unknown size: 0 bytes until the batch is read (pend->known keeps -1) */
        for (size_t i = 0; i < j.n; i++)
            if (j.known[i] == (size_t)-1)
                j.known[i] = 0;
        ret = packed ? Py_NewRef(outs) : job_finish(st, &j, 0, "decode", ts, j.known);
        if (ret && remember_pending(c, (PyObject *)pend) != 0)
            Py_CLEAR(ret);
        for (size_t i = 0; ret && !packed && i < j.n; i++) {
            oc_py_array *a = j.res[i];
            a->pending = Py_NewRef((PyObject *)pend);
            a->lazy = pend->known[i] == (size_t)-1;
            a->lazy_index = i;
            if (dev) {
                a->v.has_stream = 1;
                a->v.stream = pend->stream;
            }
        }
        Py_DECREF(pend);
    } else {
        ret = packed ? packed_finish(st, &j, outs, status_mode)
                     : job_finish(st, &j, status_mode, "decode", ts, j.dst_sizes);
    }
done:
    if (ctx)
        pool_put(c, ctx);
    job_free(&j);
    return ret;
}

/* ---- attributes ------------------------------------------------------------ */

static PyObject *get_algorithm(PyObject *self, void *x)
{
    (void)x;
    oc_py_codec *c = (oc_py_codec *)self;
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    if (c->algorithm != OC_ALGO_NONE && oc_algorithm_get_info(c->algorithm, &info) == OC_OK)
        return PyUnicode_FromString(info.display_name);
    return PyUnicode_FromString("");
}

static PyObject *get_int_field(PyObject *self, void *off)
{
    return PyLong_FromLong(*(int *)((char *)self + (size_t)(uintptr_t)off));
}

static PyObject *get_chunk_size(PyObject *self, void *x)
{
    (void)x;
    return PyLong_FromSize_t(((oc_py_codec *)self)->chunk_size);
}

static PyObject *get_stream(PyObject *self, void *x)
{
    (void)x;
    return PyLong_FromUnsignedLongLong(((oc_py_codec *)self)->stream);
}

static PyObject *get_data_type(PyObject *self, void *x)
{
    (void)x;
    return PyUnicode_FromString(((oc_py_codec *)self)->data_type);
}

#define INT_FIELD(name, field, doc)                                                                          \
    {                                                                                                        \
        name, get_int_field, NULL, doc, (void *)(uintptr_t)offsetof(oc_py_codec, field)                      \
    }

static PyGetSetDef codec_getset[] = {
    {"algorithm", get_algorithm, NULL, "Algorithm name ('' when it is detected while decoding).", NULL},
    INT_FIELD(
        "device_id", device_id,
        "CUDA device ordinal for device data; -1 (unset): each call runs on the device its data is on."),
    INT_FIELD("level", level, "Compression level (0 = the algorithm's default)."),
    INT_FIELD("bitstream_kind", kind, "BitstreamKind value."),
    INT_FIELD("checksum_policy", checksum_policy, "ChecksumPolicy value."),
    {"uncomp_chunk_size", get_chunk_size, NULL, "Uncompressed chunk size of the NVCOMP_NATIVE container.",
     NULL},
    {"cuda_stream", get_stream, NULL,
     "The cudaStream_t given as cuda_stream=, as an int (0 when none was given: each device's internal "
     "non-blocking stream serves, as nvCOMP's does).",
     NULL},
    {"data_type", get_data_type, NULL, "Default data type of decoded Arrays ('' = '|u1').", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* A Codec is a configuration: pickling keeps every setting and the
 * unpickled Codec is built by Codec(**settings) (copyreg.__newobj_ex__),
 * so dask and multiprocessing can ship it.  A CUDA stream is a handle of
 * this process: the copy uses each device's internal stream. */
static int set_item(PyObject *d, const char *k, PyObject *v)
{
    if (!v)
        return -1;
    int r = PyDict_SetItemString(d, k, v);
    Py_DECREF(v);
    return r;
}

static PyObject *codec_reduce(PyObject *self, PyObject *unused)
{
    (void)unused;
    oc_py_codec *c = (oc_py_codec *)self;
    PyObject *kw = PyDict_New(), *copyreg = NULL, *newobj = NULL, *ret = NULL;
    if (!kw)
        return NULL;
    if (set_item(kw, "algorithm", get_algorithm(self, NULL)) ||
        set_item(kw, "device_id", PyLong_FromLong(c->device_id)) ||
        set_item(kw, "uncomp_chunk_size", PyLong_FromSize_t(c->chunk_size)) ||
        set_item(kw, "checksum_policy", PyLong_FromLong(c->checksum_policy)) ||
        set_item(kw, "bitstream_kind", PyLong_FromLong(c->kind)) ||
        set_item(kw, "num_threads", PyLong_FromLong(c->num_threads)))
        goto done;
    if (c->data_type[0] && set_item(kw, "data_type", PyUnicode_FromString(c->data_type)))
        goto done;
    if (c->level && set_item(kw, "level", PyLong_FromLong(c->level)))
        goto done;
    if (c->algorithm == OC_ALGO_BITCOMP && c->typed.algorithm_type &&
        set_item(kw, "algorithm_type", PyLong_FromLong(c->typed.algorithm_type)))
        goto done;
    uint32_t cl = c->typed.cascaded;
    if (c->algorithm == OC_ALGO_CASCADED && cl == OC_CASCADED_AUTO &&
        set_item(kw, "auto_layers", Py_NewRef(Py_True)))
        goto done;
    if (c->algorithm == OC_ALGO_CASCADED && (cl & 0x80000000u) &&
        (set_item(kw, "num_rles", PyLong_FromLong((long)(cl & 0xfu))) ||
         set_item(kw, "num_deltas", PyLong_FromLong((long)((cl >> 4) & 0xfu))) ||
         set_item(kw, "use_bitpack", PyBool_FromLong((long)((cl >> 8) & 1u)))))
        goto done;
    copyreg = PyImport_ImportModule("copyreg");
    newobj = copyreg ? PyObject_GetAttrString(copyreg, "__newobj_ex__") : NULL;
    PyObject *args = newobj ? PyTuple_New(0) : NULL;
    if (args)
        ret = Py_BuildValue("(O(ONO))", newobj, (PyObject *)Py_TYPE(self), args, kw);
done:
    Py_XDECREF(newobj);
    Py_XDECREF(copyreg);
    Py_DECREF(kw);
    return ret;
}

static PyMethodDef codec_methods[] = {
    {"__reduce__", codec_reduce, METH_NOARGS, "Pickle support: a Codec is its settings."},
    {"synchronize", codec_synchronize, METH_NOARGS,
     "synchronize()\n--\n\n"
     "Wait for this Codec's stream-ordered decodes (device decodes of known sizes return before the GPU "
     "has run them) and raise opencomp.Error naming the first failed chunk of the first batch that failed "
     "and has not been raised yet (opencomp extension; the results' cpu() and synchronize() raise too)."},
    {"encode", (PyCFunction)(void (*)(void))codec_encode, METH_VARARGS | METH_KEYWORDS,
     "encode(array_s, *, out=None, errors='raise')\n--\n\n"
     "Compress one array (returns an Array) or a list of arrays (returns a list).\n\n"
     "Inputs may be opencomp Arrays, numpy arrays, bytes, memoryviews, or any object with "
     "__cuda_array_interface__ / __dlpack__ (cupy, torch); all in host memory or all in device memory. "
     "out: an array or a list of writable arrays (any slices) that receive the compressed bytes; "
     "the results are then views of them. errors='status' returns (results, statuses) instead of raising."},
    {"decode", (PyCFunction)(void (*)(void))codec_decode, METH_VARARGS | METH_KEYWORDS,
     "decode(srcs, data_type='', *, out=None, uncomp_sizes=None, errors='raise')\n--\n\n"
     "Decompress one array (returns an Array) or a list of arrays (returns a list).\n\n"
     "data_type: array-protocol type string of the results (default: the Codec's data_type, else the "
     "out= arrays' type, else '|u1'). out: arrays (any writable slices, host or device, typed or not) "
     "that receive the decoded bytes directly; capacity is checked in bytes; the results are views of "
     "them (no copy). uncomp_sizes: the decoded sizes when known (no size query runs; a stream of another "
     "size fails with SIZE_MISMATCH). errors='raise' raises opencomp.Error naming the first failed chunk; "
     "errors='status' returns (results, statuses) with None results for failed chunks."},
    {NULL, NULL, 0, NULL},
};

static PyObject *codec_repr(PyObject *self)
{
    oc_py_codec *c = (oc_py_codec *)self;
    PyObject *alg = get_algorithm(self, NULL);
    if (!alg)
        return NULL;
    PyObject *r =
        PyUnicode_FromFormat("opencomp.Codec(algorithm=%R, bitstream_kind=%d, uncomp_chunk_size=%zu)", alg,
                             c->kind, c->chunk_size);
    Py_DECREF(alg);
    return r;
}

static PyType_Slot codec_slots[] = {
    {Py_tp_new, codec_new},
    {Py_tp_dealloc, codec_dealloc},
    {Py_tp_traverse, codec_traverse},
    {Py_tp_repr, codec_repr},
    {Py_tp_methods, codec_methods},
    {Py_tp_getset, codec_getset},
    {Py_tp_doc,
     "Codec(algorithm='', *, device_id=None, cuda_stream=None, uncomp_chunk_size=65536, "
     "checksum_policy=None, "
     "bitstream_kind=None, data_type='', algorithm_type=None, level=None, num_threads=None, num_rles=2, "
     "num_deltas=1, use_bitpack=True, auto_layers=False, cname=None, shuffle=None, typesize=None, "
     "blocksize=None)\n--\n\n"
     "A compressor/decompressor for one algorithm, as nvidia.nvcomp.Codec.\n\n"
     "algorithm: 'LZ4', 'Snappy', 'Deflate', 'Zlib', 'Gzip', 'Zstd', 'Blosc', 'Cascaded', 'ANS', 'Bitcomp' "
     "or 'GDeflate' "
     "(case-insensitive); empty "
     "to detect the "
     "format while decoding. bitstream_kind: BitstreamKind.NVCOMP_NATIVE (default: the format's standard "
     "chunked container), RAW (one bare stream) or WITH_UNCOMPRESSED_SIZE (8-byte little-endian size + RAW). "
     "checksum_policy: ChecksumPolicy (default NO_COMPUTE_AND_VERIFY_IF_PRESENT: every checksum present is "
     "verified; nvCOMP's default is NO_COMPUTE_NO_VERIFY). algorithm_type: nvCOMP's Deflate levels 0..5. "
     "level: the library's "
     "level (opencomp extension). num_threads: CPU threads (0 = all cores). Cascaded: data_type (the element "
     "type coded; default: the input arrays' dtype, else '|u1'), num_rles 0..3, num_deltas 0..3, use_bitpack "
     "(nvCOMP's names and defaults), auto_layers=True to choose the layers per 16 KiB tile (extension). "
     "ANS: data_type '|u1' (bytes) or '<f2' (16-bit floats: their sign and exponent bytes are "
     "entropy-coded); "
     "default: the input arrays' dtype when it has 1 or 2 bytes, else '|u1'. "
     "Bitcomp: data_type (as Cascaded's) and algorithm_type 0 (default) or 1 ('sparse', for mostly zeros). "
     "Cascaded, Bitcomp and ANS also take data_type='bf16' (or 'bfloat16'): bfloat16, decoded as '<u2'. "
     "Blosc (RAW chunks, as numcodecs.Blosc writes them): cname 'lz4' (default), 'blosclz', 'lz4hc', "
     "'snappy', 'zlib' or 'zstd'; level= is clevel (1..9, default 5); shuffle 0 NOSHUFFLE, 1 SHUFFLE "
     "(default), 2 BITSHUFFLE, -1 AUTOSHUFFLE; typesize 1..255 (the element size); blocksize (0 = "
     "automatic). shuffle= and typesize= on another algorithm: a shuffle filter before the codec (RAW and "
     "WITH_UNCOMPRESSED_SIZE streams; decode with the same settings). "
     "cuda_stream: a cudaStream_t (int, CudaStream, cupy/torch stream); default: each device's internal "
     "non-blocking stream, as nvCOMP's. Device decodes whose sizes are known are stream-ordered: they return "
     "before the GPU has run them, and a failed chunk is raised by the results' cpu()/synchronize() or by "
     "synchronize(). "
     "A Codec may be used from several threads at once."},
    {0, NULL},
};

PyType_Spec oc_py_codec_spec = {
    .name = "opencomp.Codec",
    .basicsize = sizeof(oc_py_codec),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .slots = codec_slots,
};
