/*
 * opencomp.h - the public C API of opencomp.
 *
 * opencomp compresses and decompresses batches of independent chunks with
 * standard formats (LZ4 block, Snappy raw, Deflate RFC 1951, zlib RFC 1950,
 * gzip RFC 1952, Zstandard RFC 8878) and formats of its own for typed data
 * (Cascaded; specified in docs/FORMAT.md), on CPU threads for host memory
 * and on NVIDIA GPUs for device memory.  The algorithm is a value, not a
 * family of function names: one set of calls serves every format.
 *
 * Two layers:
 *
 *   - the BATCHED layer (oc_batch_*): N independent chunks in, N out, a status
 *     per chunk.  Outputs are caller-provided pointers (any addresses, e.g.
 *     slices of one big buffer) whose capacities are checked in bytes.
 *
 *   - the WHOLE-BUFFER layer (oc_buffer_*): one buffer is split into chunks
 *     (64 KiB by default), compressed in parallel, and written as one of three
 *     bitstream kinds: RAW (a single bare stream), WITH_UNCOMPRESSED_SIZE (an
 *     8-byte little-endian size, then RAW) or NATIVE (each format's own
 *     chunked container, readable by the stock `lz4`, `zstd`, `gzip` tools and
 *     snappy framing readers; see docs/FORMAT.md).  Decoding auto-detects the
 *     container.
 *
 * Where things run.  Every call takes an oc_context, which says which engine
 * runs the work (CPU threads, or a CUDA device and stream) and which
 * allocators give scratch memory.  With OC_ENGINE_AUTO the location of the
 * data decides: host memory runs on the CPU engine, device memory on the
 * CUDA engine (when this build has one and a GPU is present).
 *
 * fork().  A process may fork after using opencomp, and the child may keep
 * using its copies of the contexts on the CPU engine: the child re-creates
 * the thread pool on first use (the parent's worker threads do not exist in
 * a child), and destroying a context in the child frees its memory without
 * touching the parent's threads.  CUDA cannot be used in a child forked
 * after the parent initialised CUDA (any opencomp call that looked for a
 * GPU): there the CUDA engine is not available, OC_ENGINE_AUTO runs host
 * data on the CPU, and asking for the CUDA engine, device or pinned memory
 * gives OC_ERR_FORKED.  Start GPU workers with 'spawn' or 'forkserver'
 * (Python multiprocessing, PyTorch DataLoader with
 * multiprocessing_context), or fork before the first GPU call.
 *
 * Threading.  Functions without an oc_context are thread-safe.  An oc_context
 * may be used by one thread at a time; create one per thread for concurrency
 * (each context owns its own thread pool and scratch).
 *
 * Statuses.  Every function that can fail returns an oc_status.  Batched
 * calls additionally write one status per chunk, so one bad chunk never
 * stops the others.  The numeric values are pinned and never renumbered.
 *
 * Options structs.  Every options struct (oc_context_options,
 * oc_codec_options, oc_buffer_options, and oc_typed_options inside them)
 * means "defaults" when it is all zero, as libzstd's parameters and LZ4F's
 * preferences do: `oc_buffer_options o = {0}; o.algorithm = OC_ALGO_ZSTD;`
 * behaves exactly as OC_BUFFER_OPTIONS_INIT with that algorithm (64 KiB
 * chunks, the default level, checksums written and verified), and a zeroed
 * oc_context_options as NULL (every core, engine by memory location).  Each
 * field's zero is its default; a struct_size of 0 is read as sizeof of the
 * struct in this header (the *_INIT macros set it, for callers that want
 * the size checked).  The structs the library fills in (oc_algorithm_info,
 * oc_frame_info, oc_stream_position) are outputs, not options: their
 * struct_size must be set.
 *
 * Memory ownership.  opencomp never keeps a pointer the caller passed after
 * the call returns (for the CUDA engine: after the work enqueued on the
 * stream completes).  It never allocates output buffers: the caller owns all
 * inputs and outputs.  Scratch memory comes from the context's allocators.
 */
#ifndef OPENCOMP_H
#define OPENCOMP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define OC_API __declspec(dllexport)
#elif defined(__GNUC__)
#define OC_API __attribute__((visibility("default")))
#else
#define OC_API
#endif

/* ========================================================================
 * Version and build information
 * ======================================================================== */

#define OC_VERSION_MAJOR 0
#define OC_VERSION_MINOR 1
#define OC_VERSION_PATCH 0
#define OC_VERSION_STRING "0.1.0"
/* OC_VERSION_NUMBER: major * 10000 + minor * 100 + patch. */
#define OC_VERSION_NUMBER (OC_VERSION_MAJOR * 10000 + OC_VERSION_MINOR * 100 + OC_VERSION_PATCH)

/*
 * oc_version_number returns OC_VERSION_NUMBER of the linked library (compare
 * with the header's to detect a mismatch); oc_version_string returns a static
 * string such as "0.1.0".
 */
OC_API unsigned oc_version_number(void);
OC_API const char *oc_version_string(void);

/*
 * oc_build_info returns a static, human-readable, one-line description of
 * this build: version, engines compiled in, reference library versions,
 * CUDA architectures.  Example:
 * "opencomp 0.1.0; cpu: lz4 1.9.4, snappy, libdeflate 1.14, zstd 1.5.4; cuda: none".
 */
OC_API const char *oc_build_info(void);

/* ========================================================================
 * Statuses
 * ======================================================================== */

typedef enum oc_status {
    OC_OK = 0,                    /* success */
    OC_ERR_INVALID_ARGUMENT = 1,  /* a NULL pointer, bad enum value, size out of range, ... */
    OC_ERR_UNSUPPORTED = 2,       /* algorithm, engine or option not available in this build */
    OC_ERR_CORRUPT = 3,           /* input is not a valid stream of the expected format */
    OC_ERR_TRUNCATED = 4,         /* input ends before the stream does */
    OC_ERR_OUTPUT_TOO_SMALL = 5,  /* output capacity smaller than the decoded/encoded data */
    OC_ERR_CHECKSUM_MISMATCH = 6, /* stream decoded but a stored checksum does not match */
    OC_ERR_SIZE_MISMATCH = 7,     /* decoded size differs from the size recorded in the stream/index */
    OC_ERR_CHUNK_TOO_LARGE = 8,   /* a chunk exceeds the format's or engine's size limit */
    OC_ERR_NEEDS_DICTIONARY = 9,  /* the stream needs a dictionary (e.g. a Zstd frame with a dictionary ID) */
    OC_ERR_OUT_OF_MEMORY = 10,    /* an allocator returned NULL */
    OC_ERR_NO_DEVICE = 11,        /* the CUDA engine was asked for but no usable GPU/driver exists */
    OC_ERR_CUDA = 12,             /* a CUDA runtime call failed */
    OC_ERR_SIZE_UNKNOWN = 13,     /* the decompressed size is not recorded in the stream */
    OC_ERR_INTERNAL = 14,         /* a bug in opencomp; please report it */
    OC_ERR_IO = 15,               /* reading or writing a file failed (CLI and file helpers) */
    OC_ERR_FORKED = 16            /* CUDA engine in a process forked after CUDA was initialised: see below */
} oc_status;

/* oc_status_name returns the enum name without prefix ("OK", "CORRUPT", ...);
 * oc_status_message a short English sentence.  Both are static strings; an
 * unknown value gives "UNKNOWN" / "unknown status". */
OC_API const char *oc_status_name(oc_status status);
OC_API const char *oc_status_message(oc_status status);

/* ========================================================================
 * Algorithms and engines
 * ======================================================================== */

typedef enum oc_algorithm {
    OC_ALGO_NONE = 0,     /* "not set": for decoders, auto-detect where the format allows */
    OC_ALGO_LZ4 = 1,      /* LZ4 block format (no frame) */
    OC_ALGO_SNAPPY = 2,   /* Snappy raw format (varint length preamble) */
    OC_ALGO_DEFLATE = 3,  /* RFC 1951 raw deflate */
    OC_ALGO_ZLIB = 4,     /* RFC 1950: deflate with 2-byte header and Adler-32 */
    OC_ALGO_GZIP = 5,     /* RFC 1952: one gzip member (decoders accept several) */
    OC_ALGO_ZSTD = 6,     /* RFC 8878: one Zstandard frame (decoders accept several) */
    OC_ALGO_BLOSC = 7,    /* one Blosc 1.x chunk (c-blosc, numcodecs' and zarr v2's Blosc): a
                             16-byte header, blocks of blosclz/LZ4/Snappy/zlib/Zstd streams,
                             byte shuffle or bitshuffle (docs/FORMAT.md, "Blosc") */
    OC_ALGO_CASCADED = 8, /* opencomp Cascaded: run-length, delta and bit-packing layers over typed
                             integers (nvCOMP's scheme in a published format: docs/FORMAT.md) */
    OC_ALGO_ANS = 9,      /* opencomp ANS: rANS entropy coding of bytes, or of the sign and exponent
                             bytes of 16-bit floats (published format: docs/FORMAT.md) */
    OC_ALGO_BITCOMP = 10, /* opencomp Bitcomp: per block of 128 typed elements the smallest of frame
                             of reference, delta, bit-plane and sparse codings (a Bitcomp-class
                             codec in a published format: docs/FORMAT.md) */
    OC_ALGO_GDEFLATE = 11 /* GDeflate (Microsoft DirectStorage's open format): one page of deflate
                             blocks whose bits are dealt over 32 interleaved sub-streams, at most
                             64 KiB decoded (docs/FORMAT.md, "GDeflate"); decoded by either
                             engine, encoded by the CPU engine (device data host-staged) */
} oc_algorithm;
#define OC_ALGO_COUNT 12

typedef enum oc_engine {
    OC_ENGINE_AUTO = 0, /* decide per call from where the data lives */
    OC_ENGINE_CPU = 1,  /* CPU threads over the reference libraries */
    OC_ENGINE_CUDA = 2  /* opencomp's CUDA kernels on the context's device and stream */
} oc_engine;

/* oc_algorithm_name returns "lz4", "snappy", "deflate", "zlib", "gzip",
 * "zstd", "blosc", "cascaded", "ans", "bitcomp", "gdeflate" ("none" for OC_ALGO_NONE,
 * NULL for an invalid value).  oc_algorithm_from_name parses those names
 * case-insensitively (nvCOMP's spellings "LZ4", "Snappy", "Deflate", "Zstd",
 * "Gzip", "Zlib", "Cascaded", "ANS", "Bitcomp", "GDeflate" included, and "Blosc");
 * it returns OC_ERR_UNSUPPORTED for an unknown name and leaves *out alone. */
OC_API const char *oc_algorithm_name(oc_algorithm algorithm);
OC_API oc_status oc_algorithm_from_name(const char *name, oc_algorithm *out);

/* oc_engine_available returns 1 if `engine` is compiled in and usable now
 * (for OC_ENGINE_CUDA: a driver and at least one GPU are present), else 0.
 * oc_algorithm_available returns 1 if `engine` can run `algorithm` in both
 * directions; oc_algorithm_decode_available if it can decode it.  (Blosc
 * runs both ways on the GPU; its blosclz and zlib inner codecs are encoded
 * by the CPU engine, device data host-staged.)  All are cheap after the
 * first call and thread-safe. */
OC_API int oc_engine_available(oc_engine engine);
OC_API int oc_algorithm_available(oc_engine engine, oc_algorithm algorithm);
OC_API int oc_algorithm_decode_available(oc_engine engine, oc_algorithm algorithm);

/* Compression levels.  0 always means the algorithm's default.
 *   lz4:     1 = LZ4 fast (default); negative = faster ("acceleration" = -level);
 *            2..12 = LZ4HC levels.  CUDA engine: <= 1 greedy matching, >= 2 lazy
 *            matching (the best of six candidate starts).
 *   snappy:  no levels; any value is accepted and ignored.
 *   deflate/zlib/gzip: 1..12 (libdeflate's scale; 6 default).  CUDA engine
 *            (GPU compressor): 1 greedy hash matching (the fast level); 2..12
 *            lazy matching over 8 (2), 16 (3-5), 32 (6), 64 (7-8) or 128
 *            (9-12) candidates a position, two positions of lookahead from 8;
 *            levels >= 9 compress at or above zlib -6's ratio.
 *   zstd:    -7..-1 fast levels, 1..19 normal (3 default), 20..22 ultra.
 *            CUDA engine (GPU encoder): <= 1 greedy hash matching; 2 lazy,
 *            chain depth 4; 3 (default) depth 8; 4-5 depth 16; >= 6 depth 32
 *            (slowest: one thread per chunk); every level may build FSE
 *            tables from the block's statistics.
 *   blosc:   1..9, c-blosc's clevel (5 default, numcodecs' default); -1 is
 *            c-blosc's clevel 0 (the data stored uncompressed).  The inner codec, shuffle and block
 *            size are oc_codec_options fields (blosc_codec, filter, typesize,
 *            blosc_blocksize).  CUDA engine (GPU encoder; lz4, lz4hc, snappy,
 *            zstd inner codecs, blosclz and zlib host-staged): c-blosc's block
 *            size, splits and flags; inner streams by the GPU LZ4 compressor
 *            (lz4: greedy, lz4hc: lazy matching), Snappy's, and the GPU Zstd
 *            encoder at c-blosc's zstd level (2 clevel - 1; 22 at 9).  It
 *            writes at most nbytes + 16 bytes (a chunk whose streams do not
 *            fit is stored, memcpyed); its scratch holds about twice the
 *            batch (sizes on the host), or 4 MiB a chunk when the size array
 *            is in device memory, and a chunk whose share of it does not fit
 *            (batches above ~4 GiB, or chunks over 4 MiB with device-only
 *            sizes) is CHUNK_TOO_LARGE.
 *   cascaded: no levels (the layers are options: oc_typed_options).
 *   gdeflate: 1..9 (6 default): the match finder's effort (hash-chain depth
 *            4 at 1 to 4096 at 9, lazy matching from 4); every level picks
 *            the smallest of dynamic, fixed and stored blocks.
 * oc_level_range writes the accepted range and the default; it returns
 * OC_ERR_INVALID_ARGUMENT for OC_ALGO_NONE or an invalid value. */
OC_API oc_status oc_level_range(oc_algorithm algorithm, int *min_level, int *max_level, int *default_level);

/*
 * oc_algorithm_info: what the library knows about one algorithm, from its
 * row of the algorithm table.  Every string is static (never freed).
 */
typedef struct oc_algorithm_info {
    size_t struct_size;         /* sizeof(oc_algorithm_info), set by the caller */
    oc_algorithm algorithm;     /* the value described */
    const char *name;           /* canonical lower-case name, as oc_algorithm_name: "lz4" */
    const char *display_name;   /* nvCOMP's spelling: "LZ4", "Snappy", "Deflate", "Zlib", "Gzip", "Zstd" */
    const char *const *aliases; /* further names oc_algorithm_from_name accepts, NULL-terminated */
    const char *suffix;         /* file suffix of the NATIVE container: ".lz4", ".sz", ".gz", ".zst" */
    const char *const *decode_suffixes; /* suffixes that name a file of this algorithm when decoding,
                                           NULL-terminated (".zst", ".zstd"; ".gz" only for gzip,
                                           since deflate and zlib write the same gzip container) */
    int min_level;                      /* as oc_level_range */
    int max_level;
    int default_level;
    int has_levels;          /* 0: levels are accepted and ignored (snappy) */
    int self_identifying;    /* 1: a RAW stream starts with a magic number, so decoders
                                detect it with OC_ALGO_NONE (zlib, gzip, zstd) */
    uint64_t max_chunk_size; /* largest chunk one stream holds (oc_compress_bound is 0 above) */
    uint64_t max_expansion;  /* a stream of n bytes decodes to at most n * max_expansion + 65536
                                bytes: a size header claiming more is corrupt */
    uint32_t type_widths;    /* the element sizes (oc_data_type_size) that oc_typed_options'
                                data_type may have: bit w set for w bytes; 0 for any (the type is
                                ignored, or every width is coded).  ANS: 1 and 2 bytes */
    int max_algorithm_type;  /* the largest oc_typed_options.algorithm_type accepted (0: none) */
    uint64_t reserved[3];
} oc_algorithm_info;

#define OC_ALGORITHM_INFO_INIT                                                                               \
    {                                                                                                        \
        sizeof(oc_algorithm_info), OC_ALGO_NONE, NULL, NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0,    \
        {                                                                                                    \
            0                                                                                                \
        }                                                                                                    \
    }

/*
 * oc_algorithm_get_info fills *info (initialise it with
 * OC_ALGORITHM_INFO_INIT: info->struct_size must be sizeof(oc_algorithm_info))
 * for `algorithm`.  It returns OC_OK, or
 * INVALID_ARGUMENT for OC_ALGO_NONE or a bad struct_size, or UNSUPPORTED
 * for a value past the last algorithm this library knows.  To enumerate
 * every algorithm (names, suffixes, levels for a CLI or a benchmark), call
 * it with 1, 2, 3, ... until it returns UNSUPPORTED; oc_algorithm_available
 * then says which engine runs each.  Thread-safe; no allocation.
 */
OC_API oc_status oc_algorithm_get_info(oc_algorithm algorithm, oc_algorithm_info *info);

/* ========================================================================
 * Allocators and contexts
 * ======================================================================== */

/*
 * oc_allocator: where scratch memory comes from.  `alloc` returns `size`
 * bytes (aligned to at least 256 bytes for device and pinned memory, 64 for
 * host) or NULL; `free` releases what `alloc` returned, with the same size.
 * `stream` is the context's cudaStream_t (NULL for host allocators and the
 * default stream): stream-ordered allocators (cudaMallocAsync, RMM) may use
 * it.  `opaque` is passed back unchanged.  An allocator with alloc == NULL
 * means "the default": malloc/free for host, cudaMallocHost/cudaFreeHost for
 * pinned, cudaMallocAsync/cudaFreeAsync on the context's stream for device.
 * The context caches scratch between calls, so allocators are not called on
 * every batch once sizes settle.
 */
typedef struct oc_allocator {
    void *(*alloc)(void *opaque, size_t size, void *stream);
    void (*free)(void *opaque, void *ptr, size_t size, void *stream);
    void *opaque;
} oc_allocator;

/*
 * oc_progress_fn: called by the whole-buffer layer from the calling thread
 * as chunks complete, with uncompressed bytes done so far and in total (total
 * may be 0 if unknown).  Returning non-zero does not cancel; the value is
 * reserved.  Calls are throttled (at most ~100 per call of the layer).
 */
typedef int (*oc_progress_fn)(void *opaque, uint64_t done_bytes, uint64_t total_bytes);

/*
 * oc_context_options: how a context runs work.  All-zero means defaults
 * (the same context as OC_CONTEXT_OPTIONS_INIT or a NULL options pointer);
 * struct_size is sizeof(oc_context_options) or 0 (see "Options structs"
 * at the top).
 */
typedef struct oc_context_options {
    size_t struct_size;        /* sizeof(oc_context_options), or 0 */
    oc_engine engine;          /* AUTO (default): by memory location */
    int num_threads;           /* CPU threads; 0 = number of online cores */
    int device_id;             /* CUDA device ordinal (default 0) */
    void *cuda_stream;         /* cudaStream_t for all GPU work; NULL = legacy default stream, or the
                                  context's own stream with OC_CONTEXT_OWN_STREAM */
    oc_allocator host_alloc;   /* scratch in pageable host memory */
    oc_allocator pinned_alloc; /* scratch in pinned host memory (CUDA engine) */
    oc_allocator device_alloc; /* scratch in device memory (CUDA engine) */
    oc_progress_fn progress;   /* optional progress callback (whole-buffer layer) */
    void *progress_opaque;     /* passed to progress */
    uint64_t flags;            /* OC_CONTEXT_* bits; 0 = none (other bits: INVALID_ARGUMENT) */
    uint64_t reserved[7];      /* must be zero */
} oc_context_options;

#define OC_CONTEXT_OPTIONS_INIT                                                                              \
    {                                                                                                        \
        sizeof(oc_context_options), OC_ENGINE_AUTO, 0, 0, NULL, {0}, {0}, {0}, NULL, NULL, 0,                \
        {                                                                                                    \
            0                                                                                                \
        }                                                                                                    \
    }

/*
 * OC_CONTEXT_OWN_STREAM (a flags bit): when cuda_stream is NULL, the context
 * makes its own CUDA stream on device_id, created non-blocking
 * (cudaStreamNonBlocking: it does not wait for, nor hold up, work on the
 * legacy default stream), uses it for all GPU work, and destroys it in
 * oc_context_destroy.  nvCOMP's Python Codec and opencomp's keep such an
 * internal stream per device.  It is made at oc_context_create where a GPU
 * is usable (errors: NO_DEVICE for a device_id the machine lacks, CUDA);
 * elsewhere the flag changes nothing.  oc_context_set_stream(ctx, NULL)
 * returns to it.  Without the flag the default stays the legacy default
 * stream, as it always was for C callers, who may pass any stream of their
 * own (nvCOMP's C API takes an explicit stream on every call).
 */
#define OC_CONTEXT_OWN_STREAM ((uint64_t)1)

/*
 * A call may run part of its GPU work on a second stream that the context
 * makes for itself on device_id (non-blocking, the device's greatest
 * priority; made once, on the first LZ4 decompression of chunks of at most
 * 64 KiB, and destroyed in oc_context_destroy): forked from the call's
 * stream and joined back to it with events inside the call, so everything
 * enqueued on the stream after the call still follows all of the call's
 * work, and the pattern is legal inside CUDA graph capture.
 */

typedef struct oc_context oc_context;

/*
 * oc_context_create makes a context from `options` (NULL = all defaults) and
 * stores it in *out.  It starts the CPU thread pool lazily (on first use).
 * Errors: INVALID_ARGUMENT (bad struct_size, negative threads, non-zero
 * reserved), NO_DEVICE (engine CUDA requested but unavailable), OUT_OF_MEMORY.
 * oc_context_destroy waits for nothing on the GPU (synchronise the stream
 * first if work is in flight) and frees all scratch; NULL is a no-op.
 */
OC_API oc_status oc_context_create(const oc_context_options *options, oc_context **out);
OC_API void oc_context_destroy(oc_context *ctx);

/* oc_context_set_stream changes the CUDA stream of later calls (NULL: the
 * legacy default stream, or the context's own with OC_CONTEXT_OWN_STREAM).
 * oc_context_stream returns the cudaStream_t later calls run on (NULL for
 * the legacy default stream and for a NULL ctx); with OC_CONTEXT_OWN_STREAM
 * the context's own stream, which callers may hand to other contexts (it
 * lives as long as this one).
 * oc_context_num_threads returns the CPU thread count in use. */
OC_API oc_status oc_context_set_stream(oc_context *ctx, void *cuda_stream);
OC_API void *oc_context_stream(const oc_context *ctx);
OC_API int oc_context_num_threads(const oc_context *ctx);

/*
 * oc_context_wait_stream orders streams without the host waiting: work
 * enqueued on the context's stream after this call starts only after all
 * the work enqueued on `other` (a cudaStream_t of the context's device; the
 * special streams 0, 1 legacy and 2 per-thread stand for the device's) up to
 * this call has completed: an event recorded on `other` and waited for by
 * the context's stream (cudaEventRecord + cudaStreamWaitEvent; the event is
 * the context's, reused).  To make another stream wait for this context's
 * work, call it on a context whose stream is that one (set_stream) with
 * `other` = this context's stream.  `other` equal to the context's stream:
 * OC_OK, nothing to do.  Returns OC_OK; NO_DEVICE without a usable GPU or
 * CUDA engine; FORKED; CUDA when CUDA refuses (a destroyed stream).  Thread
 * safety: as any call on the context.
 */
OC_API oc_status oc_context_wait_stream(oc_context *ctx, void *other);

/* ========================================================================
 * The batched layer
 *
 * Argument order (fixed for every call): context, options, count, inputs,
 * outputs, output sizes, statuses.
 *
 * Engine CPU: every array and every buffer is host memory; the call is
 * synchronous and runs chunks in parallel on the context's threads.
 * Engine CUDA: the pointer arrays, size arrays and status array may be in
 * device memory or in host memory (host arrays are staged through pinned
 * scratch); the buffers they point to are device memory.  The call enqueues
 * work on the context's stream and returns without synchronising: results
 * (sizes, statuses) are valid once the stream reaches that point.
 * Engine AUTO: CUDA when the engine is usable and the array src_ptrs itself,
 * or else the buffer src_ptrs[0] points to, is device (or managed) memory.
 *
 * Return value: about the call itself (arguments, engine, launch).  OC_OK
 * means every chunk was processed and each chunk's outcome is in statuses[i].
 * For the CPU engine a batch-level convenience is given: when all arguments
 * are valid the return is OC_OK even if chunks failed; check statuses.
 * ======================================================================== */

/*
 * oc_data_type: the element type of the data given to Cascaded, ANS and
 * Bitcomp, as nvCOMP's data_type.  The comment gives the
 * array-protocol type string the Python package maps to each value.
 * OC_TYPE_DEFAULT (0) means bytes ("|u1").  Streams record their type, so
 * decoders need none.
 */
typedef enum oc_data_type {
    OC_TYPE_DEFAULT = 0, /* the algorithm's default: bytes */
    OC_TYPE_U8 = 1,      /* "|u1" */
    OC_TYPE_I8 = 2,      /* "|i1" */
    OC_TYPE_U16 = 3,     /* "<u2" */
    OC_TYPE_I16 = 4,     /* "<i2" */
    OC_TYPE_U32 = 5,     /* "<u4" */
    OC_TYPE_I32 = 6,     /* "<i4" */
    OC_TYPE_U64 = 7,     /* "<u8" */
    OC_TYPE_I64 = 8,     /* "<i8" */
    OC_TYPE_F16 = 9,     /* "<f2": IEEE binary16 */
    OC_TYPE_BF16 = 10,   /* bfloat16 (no array-protocol string; DLPack's bfloat) */
    OC_TYPE_F32 = 11,    /* "<f4" */
    OC_TYPE_F64 = 12     /* "<f8" */
} oc_data_type;
#define OC_TYPE_COUNT 13

/* oc_data_type_name returns the array-protocol type string of a data type
 * ("|u1", "<i4", "<f2", ...; "bf16" for OC_TYPE_BF16, "" for
 * OC_TYPE_DEFAULT, NULL for an invalid value).  oc_data_type_from_name
 * parses those strings ('=' and '>' byte orders are not accepted: the
 * formats are little-endian; "|u1"/"|i1" also as "<u1"/"<i1") and the
 * short names "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f16",
 * "bf16", "f32", "f64"; it returns OC_ERR_UNSUPPORTED for anything else
 * and leaves *out alone.  Thread-safe. */
OC_API const char *oc_data_type_name(oc_data_type type);
OC_API oc_status oc_data_type_from_name(const char *name, oc_data_type *out);

/* oc_data_type_size returns the bytes of one element of `type` (1, 2, 4 or
 * 8; 1 for OC_TYPE_DEFAULT, 0 for an invalid value).  Thread-safe. */
OC_API size_t oc_data_type_size(oc_data_type type);

/*
 * oc_typed_options: the options of opencomp's typed formats, with
 * nvCOMP's names and defaults; all-zero means those defaults.  Other
 * algorithms ignore them (values must still be valid).
 *
 *   data_type: the element type (oc_data_type).  Cascaded works on the
 *       elements' bit patterns of that width (floats are coded as integers
 *       of their width); an input whose size is not a multiple of the width
 *       keeps its last bytes as they are.  ANS takes 1- and 2-byte types
 *       only (INVALID_ARGUMENT for others): bytes are entropy-coded; of a
 *       2-byte type (nvCOMP's "<f2": float16, bfloat16, also <u2 <i2) the
 *       high byte of each value (sign and exponent) is entropy-coded and
 *       the low byte stored.  Bitcomp codes elements of any type's width
 *       (floats by their bit patterns: bit planes catch their constant
 *       exponent bits).  Decoding reads the type from each chunk, but
 *       passing the type that compressed the data helps the GPU: ANS
 *       decodes chunks of a 2-byte type faster when told (their 64 KiB
 *       chunks have half the tiles of bytes' chunks); the type is a hint
 *       only: the bytes and statuses are the same with any valid type.
 *   cascaded: which layers Cascaded applies, per 16 KiB tile:
 *       0                         nvCOMP's default: 2 run-length encodings,
 *                                 1 delta, bit-packing (OC_CASCADED_DEFAULT)
 *       OC_CASCADED_LAYERS(r, d, b)  r run-length encodings (0..3), d deltas
 *                                 (0..3), bit-packing b (0 or 1): nvCOMP's
 *                                 num_rles, num_deltas, use_bitpack; with
 *                                 bit-packing, a tile where the layers do
 *                                 not pay is bit-packed without them (as
 *                                 nvCOMP does; docs/FORMAT.md)
 *       OC_CASCADED_AUTO          per tile, the smallest of a few layer
 *                                 choices (an extension; docs/FORMAT.md says
 *                                 which)
 *   algorithm_type: Bitcomp's, as nvCOMP's: 0 (default) chooses among all
 *       its block codings, 1 ("sparse", for data that is mostly zeros)
 *       among constant, frame of reference and sparse blocks only (faster
 *       to encode); must be 0 for the other algorithms.
 *   reserved: must be zero.
 */
typedef struct oc_typed_options {
    oc_data_type data_type;
    int algorithm_type;
    uint32_t cascaded;
    uint32_t reserved;
} oc_typed_options;

#define OC_CASCADED_DEFAULT 0u
#define OC_CASCADED_AUTO 0x40000000u
#define OC_CASCADED_LAYERS(rles, deltas, bitpack)                                                            \
    (0x80000000u | ((uint32_t)(rles)&0xfu) | (((uint32_t)(deltas)&0xfu) << 4) |                              \
     (((uint32_t)(bitpack)&1u) << 8))

/*
 * oc_filter: a reversible transform of typed data before a codec, which
 * often lets the codec find more (the columns of numeric arrays).  Blosc
 * records its filter in each chunk; for any other algorithm the filter is
 * applied before compression and undone after decoding, and the stream
 * does not record it: decode with the same filter and typesize.
 */
typedef enum oc_filter {
    OC_FILTER_NONE = 0,      /* no filter */
    OC_FILTER_SHUFFLE = 1,   /* byte shuffle: byte 0 of every element, then byte 1, ... */
    OC_FILTER_BITSHUFFLE = 2 /* bitshuffle: bit 0 of every element, then bit 1, ...; applied when the
                                element count is a multiple of 8 (else the data is left as it is) */
} oc_filter;

/* The inner codec of Blosc compression (c-blosc's cnames); 0 = lz4, the
 * default of numcodecs and zarr v2. */
typedef enum oc_blosc_codec {
    OC_BLOSC_LZ4 = 0,     /* "lz4" */
    OC_BLOSC_BLOSCLZ = 1, /* "blosclz" */
    OC_BLOSC_LZ4HC = 2,   /* "lz4hc" (LZ4 streams) */
    OC_BLOSC_SNAPPY = 3,  /* "snappy" */
    OC_BLOSC_ZLIB = 4,    /* "zlib" */
    OC_BLOSC_ZSTD = 5     /* "zstd" */
} oc_blosc_codec;

/*
 * oc_codec_options: per-algorithm settings for the batched layer.
 * All-zero (struct_size 0 included) means OC_CODEC_OPTIONS_INIT: algorithm
 * unset, default level, default memory limit, no filter, typed defaults.
 *
 * filter, typesize: a shuffle filter (oc_filter) of elements of `typesize`
 * bytes (1..255; 0 means 1; with typesize 1 byte shuffle changes nothing).
 * Any algorithm: compression shuffles each chunk before the codec runs and
 * decoding unshuffles after it, on the engine that runs the codec (the
 * stream does not record the filter, so decode with the same values).  On
 * the CUDA engine the filter needs device scratch of about the batch's
 * size (the source sizes, or the capacities when decoding), from the
 * context's device allocator like the rest of its scratch; it is sized
 * from those arrays, so with them in device or managed memory the call is
 * staged through the CPU engine (docs/API.md, "Shuffle filters from C").
 * Blosc: the chunk's own shuffle (its flags record it; decoding reads them
 * and ignores these fields).  The trailing size % typesize bytes of a
 * chunk are never moved.
 *
 * blosc_codec, blosc_blocksize: Blosc compression only: the inner codec
 * (oc_blosc_codec) and the bytes per Blosc block (0: c-blosc's choice from
 * level, typesize and codec; else as c-blosc takes it: at least 128 and a
 * multiple of typesize).
 *
 * kind: the layout of each chunk (an oc_bitstream_kind value; the batched
 * layer has no container, so 0 means RAW here).  With
 * OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE each chunk is the 8-byte
 * little-endian uncompressed size, then the RAW stream (docs/FORMAT.md):
 *   - compression writes the header: a capacity below 8 is
 *     OUTPUT_TOO_SMALL, dst_sizes count the header, and
 *     oc_compress_bound(alg, n) + 8 always suffices;
 *   - decoding and oc_batch_decompressed_sizes read it: below 8 bytes is
 *     TRUNCATED; a size more than the stream can decode to (the
 *     algorithm's oc_algorithm_info.max_expansion; with OC_ALGO_NONE the
 *     detected algorithm's) is CORRUPT, so a hostile header never makes a
 *     caller allocate; decoding gives OUTPUT_TOO_SMALL when the size
 *     exceeds the capacity (nothing written) and SIZE_MISMATCH when the
 *     stream decodes to another size; the size query reads only headers.
 * Both engines: on device data the CUDA engine writes and reads the
 * headers on the GPU, stream-ordered like any batched call (with
 * OC_ALGO_NONE, device data is staged through the CPU engine).
 * Values above 2 are INVALID_ARGUMENT.
 */
typedef struct oc_codec_options {
    size_t struct_size;       /* sizeof(oc_codec_options), or 0 */
    oc_algorithm algorithm;   /* required for compression and for raw decoding */
    int level;                /* 0 = default; see oc_level_range */
    uint64_t memory_limit;    /* decoding: largest zstd window to set aside; 0 = OC_DEFAULT_MEMORY_LIMIT */
    uint8_t filter;           /* oc_filter (0 = none) */
    uint8_t typesize;         /* element size of the filter, 0 = 1 */
    uint8_t blosc_codec;      /* Blosc compression: oc_blosc_codec (0 = lz4) */
    uint8_t kind;             /* oc_bitstream_kind of every chunk: 0 (NATIVE, the default) or RAW = a bare
                                 stream; WITH_UNCOMPRESSED_SIZE = an 8-byte size header + the stream */
    uint32_t blosc_blocksize; /* Blosc compression: bytes per block, 0 = automatic */
    oc_typed_options typed;   /* compression with Cascaded: data type and layers (all-zero = defaults) */
    uint64_t reserved[2];     /* must be zero */
} oc_codec_options;

/*
 * Memory limit of zstd decoding (oc_codec_options / oc_buffer_options
 * .memory_limit), as `zstd --memory=`.  Decoding into a caller's buffer
 * needs no window memory and is not limited.  Counting the decoded size of
 * a frame that records no content size (oc_batch_decompressed_sizes,
 * oc_buffer_decompressed_size) streams it through a window buffer of the
 * frame's window size: above the limit that frame is CHUNK_TOO_LARGE
 * (oc_buffer_inspect's window_size names the window; raise the limit, or
 * give the size).  Frames from `zstd --long=28` (256 MiB) or `--long=31`
 * (2 GiB) without a content size need a raised limit.  Larger values act
 * as OC_MAX_MEMORY_LIMIT, the largest window libzstd decodes (2 GiB).
 */
#define OC_DEFAULT_MEMORY_LIMIT ((uint64_t)128 << 20)
#define OC_MAX_MEMORY_LIMIT ((uint64_t)1 << 31)

#define OC_CODEC_OPTIONS_INIT                                                                                \
    {                                                                                                        \
        sizeof(oc_codec_options), OC_ALGO_NONE, 0, 0, 0, 0, 0, 0, 0, {OC_TYPE_DEFAULT, 0, 0, 0},             \
        {                                                                                                    \
            0                                                                                                \
        }                                                                                                    \
    }

/*
 * oc_compress_bound returns the largest compressed size one chunk of
 * `uncompressed_size` bytes can take with `algorithm` (a worst case, for
 * sizing outputs), or 0 if the size exceeds the algorithm's limit
 * (LZ4: LZ4_MAX_INPUT_SIZE; snappy: 2^32-1) or the algorithm is invalid.
 */
OC_API size_t oc_compress_bound(oc_algorithm algorithm, size_t uncompressed_size);

/*
 * oc_batch_compress compresses n independent chunks.
 *   src_ptrs[i], src_sizes[i]:  chunk i's uncompressed bytes (read only).
 *   dst_ptrs[i], dst_capacities[i]: where chunk i's compressed stream goes;
 *       a capacity of oc_compress_bound(alg, src_sizes[i]) always suffices.
 *       Any byte of dst_ptrs[i][0..dst_capacities[i]) may be written (the
 *       GPU zstd encoder stages a large chunk's blocks there); the stream
 *       is the first dst_sizes[i] bytes.
 *   dst_sizes[i] (out, required): compressed size of chunk i (0 on failure);
 *       NULL with n > 0 is INVALID_ARGUMENT.
 *   statuses[i] (out, may be NULL): OK, OUTPUT_TOO_SMALL, CHUNK_TOO_LARGE, ...
 * Outputs may not overlap each other or the inputs.  The CPU engine checks
 * each chunk's output against its own input: a chunk whose
 * dst_ptrs[i][0..dst_capacities[i]) shares a byte with src_ptrs[i][0..
 * src_sizes[i]) gets INVALID_ARGUMENT and nothing is read or written for it
 * (the reference libraries assume separate buffers; no in-place work).
 * n == 0 is valid.
 */
OC_API oc_status oc_batch_compress(oc_context *ctx, const oc_codec_options *options, size_t n,
                                   const void *const *src_ptrs, const size_t *src_sizes,
                                   void *const *dst_ptrs, const size_t *dst_capacities, size_t *dst_sizes,
                                   oc_status *statuses);

/*
 * oc_batch_decompress decodes n independent chunks of options->algorithm.
 *   src_ptrs[i], src_sizes[i]: chunk i's compressed stream (exactly its size;
 *       for gzip and zstd several concatenated members/frames are accepted
 *       and skippable zstd frames are skipped; zero bytes after a gzip
 *       member are padding, as Python's gzip reads them; other trailing
 *       bytes are CORRUPT).
 *   dst_ptrs[i], dst_capacities[i]: where chunk i decodes; the decoder never
 *       writes past the capacity and reports OUTPUT_TOO_SMALL instead.
 *   dst_sizes[i] (out, may be NULL): bytes written for chunk i.
 *   statuses[i] (out, may be NULL): OK, CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL,
 *       CHECKSUM_MISMATCH (zstd content checksum, gzip CRC, zlib Adler),
 *       NEEDS_DICTIONARY, ...  A failed chunk's output bytes are unspecified.
 * With options->algorithm == OC_ALGO_NONE the format is detected per chunk
 * where it has a magic number (zstd, gzip, zlib); otherwise INVALID_ARGUMENT.
 * Overlap: as for oc_batch_compress (INVALID_ARGUMENT for a chunk whose
 * output range shares a byte with its input).
 */
OC_API oc_status oc_batch_decompress(oc_context *ctx, const oc_codec_options *options, size_t n,
                                     const void *const *src_ptrs, const size_t *src_sizes,
                                     void *const *dst_ptrs, const size_t *dst_capacities, size_t *dst_sizes,
                                     oc_status *statuses);

/*
 * oc_batch_decompress_packed decodes n chunks that lie in one source buffer
 * into one destination buffer, given by offsets instead of pointers (the
 * layout of a Parquet page list, a zarr shard or RNTuple cluster read in
 * one piece): chunk i is src[src_offsets[i] .. + src_sizes[i]) and decodes
 * into dst + dst_offsets[i] with room for dst_capacities[i] bytes.
 * src_bytes and dst_bytes are the two buffers' sizes: a chunk whose range
 * does not lie inside its buffer (offset + size > bytes, overflow
 * included) gets INVALID_ARGUMENT, dst_sizes[i] = 0, and nothing is read or
 * written for it; the other chunks decode.  Everything else (statuses,
 * sizes, detection, overlap, kinds, filters) is oc_batch_decompress's.
 *
 * The four input arrays are all in host memory, or all GPU-reachable
 * (device, managed or pinned memory; with device arrays on the CUDA engine
 * only).  On the CUDA engine the pointer and size arrays are built and
 * bounds-checked by one small kernel on the context's stream before the
 * codec and the out-of-range statuses written by another after it: no
 * per-chunk work on the host and no host synchronisation, so a batch whose
 * offsets already live on the GPU costs the host O(1) work (host arrays
 * are staged through pinned scratch as oc_batch_decompress stages its
 * own).  dst_sizes and statuses may be anywhere, as for
 * oc_batch_decompress.  With device arrays and work the CUDA engine stages
 * (a shuffle filter, which sizes its slab from the capacities; an
 * algorithm without a GPU decoder) the arrays are first copied to the host
 * (a synchronisation).  On the CPU engine the arrays are host memory and
 * the call is synchronous.  src and dst are both host or both device
 * memory.  Returns what oc_batch_decompress returns; OC_OK with n == 0.
 */
OC_API oc_status oc_batch_decompress_packed(oc_context *ctx, const oc_codec_options *options, size_t n,
                                            const void *src, size_t src_bytes, const size_t *src_offsets,
                                            const size_t *src_sizes, void *dst, size_t dst_bytes,
                                            const size_t *dst_offsets, const size_t *dst_capacities,
                                            size_t *dst_sizes, oc_status *statuses);

/*
 * oc_batch_compress_packed is oc_batch_compress with the same layout:
 * chunk i is src[src_offsets[i] .. + src_sizes[i]) and its stream goes to
 * dst + dst_offsets[i] with room for dst_capacities[i] bytes (required: no
 * default bound); dst_sizes (required) and statuses as for
 * oc_batch_compress.  Ranges, arrays, engines, kernels and staging as for
 * oc_batch_decompress_packed (an out-of-range chunk is INVALID_ARGUMENT
 * with size 0, nothing read or written for it).
 */
OC_API oc_status oc_batch_compress_packed(oc_context *ctx, const oc_codec_options *options, size_t n,
                                          const void *src, size_t src_bytes, const size_t *src_offsets,
                                          const size_t *src_sizes, void *dst, size_t dst_bytes,
                                          const size_t *dst_offsets, const size_t *dst_capacities,
                                          size_t *dst_sizes, oc_status *statuses);

/*
 * oc_batch_decompressed_sizes writes the decompressed size of each chunk into
 * sizes[i] without writing any decoded data anywhere.  Where the format
 * records the size (snappy preamble, zstd content size) it is read; where it
 * does not (lz4 block, deflate, zlib, gzip, zstd frames without content
 * size) the stream is scanned or decoded into scratch to count it, which
 * costs about as much as decoding.  statuses[i] as for decompression; a
 * size more than the chunk can decode to (src_sizes[i] *
 * oc_algorithm_info.max_expansion + 65536) is CORRUPT, on either engine,
 * so the sizes are safe to allocate.
 */
OC_API oc_status oc_batch_decompressed_sizes(oc_context *ctx, const oc_codec_options *options, size_t n,
                                             const void *const *src_ptrs, const size_t *src_sizes,
                                             size_t *sizes, oc_status *statuses);

/* ========================================================================
 * The whole-buffer layer
 * ======================================================================== */

typedef enum oc_bitstream_kind {
    OC_BITSTREAM_NATIVE = 0,                /* chunked, the format's own container */
    OC_BITSTREAM_RAW = 1,                   /* one bare stream, no container */
    OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE = 2 /* 8-byte LE uncompressed size + RAW */
} oc_bitstream_kind;

/* The default, VERIFY, is 0 so that a zeroed oc_buffer_options checks
 * everything (these values changed before the first release: NONE was 0). */
typedef enum oc_checksum_policy {
    OC_CHECKSUM_VERIFY = 0,  /* default: write per-chunk checksums; verify every checksum present on decode */
    OC_CHECKSUM_COMPUTE = 1, /* write per-chunk checksums; do not verify on decode */
    OC_CHECKSUM_NONE = 2     /* write no optional checksums, verify none */
} oc_checksum_policy;

/*
 * oc_buffer_options: settings of the whole-buffer layer, of the streaming
 * layer, and the hint of decoding.  OC_BUFFER_OPTIONS_INIT and an all-zero
 * struct (struct_size 0 included) mean the same defaults: NATIVE, 64 KiB
 * chunks, default level, checksums computed and verified, the default zstd
 * memory limit, typed defaults.
 *
 * chunk_size limits per container: LZ4 frame blocks hold at most 4 MiB; the
 * snappy framing format at most 64 KiB (larger requests are clamped to
 * 65536 for snappy NATIVE).  Formats whose mandatory checksums cannot be
 * omitted (gzip CRC-32) always write them; NONE only skips verification.
 */
typedef struct oc_buffer_options {
    size_t struct_size;          /* sizeof(oc_buffer_options), or 0 */
    oc_algorithm algorithm;      /* required for compression and for RAW decoding */
    int level;                   /* 0 = default */
    size_t chunk_size;           /* 0 = OC_DEFAULT_CHUNK_SIZE (65536) */
    oc_bitstream_kind kind;      /* NATIVE by default */
    oc_checksum_policy checksum; /* VERIFY (0) by default */
    uint64_t memory_limit;       /* zstd window limit of the size query; 0 = OC_DEFAULT_MEMORY_LIMIT */
    oc_typed_options typed;      /* Cascaded: data type and layers (all-zero = defaults) */
    uint64_t reserved[3];        /* must be zero */
} oc_buffer_options;

#define OC_DEFAULT_CHUNK_SIZE ((size_t)65536)
#define OC_BUFFER_OPTIONS_INIT                                                                               \
    {                                                                                                        \
        sizeof(oc_buffer_options), OC_ALGO_NONE, 0, OC_DEFAULT_CHUNK_SIZE, OC_BITSTREAM_NATIVE,              \
            OC_CHECKSUM_VERIFY, 0, {OC_TYPE_DEFAULT, 0, 0, 0},                                               \
        {                                                                                                    \
            0                                                                                                \
        }                                                                                                    \
    }

/*
 * oc_buffer_compress_bound returns the largest size oc_buffer_compress can
 * produce for `src_size` bytes with `options` (0 on invalid options).
 */
OC_API size_t oc_buffer_compress_bound(const oc_buffer_options *options, uint64_t src_size);

/*
 * oc_buffer_compress compresses src[0..src_size) into dst as options->kind
 * says and writes the compressed size to *dst_size.  Never writes past
 * dst_capacity (OUTPUT_TOO_SMALL instead; oc_buffer_compress_bound always
 * suffices).  src and dst are both host or both device memory (CUDA engine:
 * asynchronous on the stream except that *dst_size is a host value, so the
 * call synchronises once at the end).  src[0..src_size) and
 * dst[0..dst_capacity) must not overlap: INVALID_ARGUMENT, nothing written.
 */
OC_API oc_status oc_buffer_compress(oc_context *ctx, const oc_buffer_options *options, const void *src,
                                    uint64_t src_size, void *dst, uint64_t dst_capacity, uint64_t *dst_size);

/*
 * oc_frame_info: what oc_buffer_inspect learns from a compressed buffer.
 */
typedef struct oc_frame_info {
    size_t struct_size;         /* sizeof(oc_frame_info), set by the caller */
    oc_bitstream_kind kind;     /* NATIVE if a container was recognised */
    oc_algorithm algorithm;     /* chunk format */
    const char *container;      /* static name: "lz4-frame", "zstd-seekable", "zstd-frames",
                                   "gzip-indexed", "gzip", "zlib", "snappy-framed",
                                   "with-uncompressed-size", "raw" */
    uint64_t num_chunks;        /* chunks (frames, members, blocks) found */
    uint64_t compressed_size;   /* bytes of the container that were recognised */
    uint64_t decompressed_size; /* total, if known (see size_known) */
    int size_known;             /* 1 if decompressed_size came from headers/index */
    int indexed;                /* 1 if an index gave chunk positions (no serial scan) */
    int has_checksums;          /* 1 if per-chunk or content checksums are present */
    uint64_t max_chunk_size;    /* largest uncompressed chunk, if known */
    uint64_t window_size;       /* zstd: largest window of a frame that records no content size (0: none) */
    uint64_t reserved[3];
} oc_frame_info;

/*
 * oc_buffer_inspect parses the container of src (host memory) without
 * decoding chunk payloads where the container records sizes.  gzip members
 * without our index (files from gzip, pigz) are inflated, counting only, to
 * give their decoded size and where the gzip data ends: compressed_size
 * below src_size means trailing bytes that decoding ignores (see
 * oc_buffer_decompress).  `hint` may be
 * NULL; hint->algorithm and hint->kind are used when the bytes do not
 * identify themselves (RAW LZ4, snappy, deflate).  On error info is
 * unspecified.
 */
OC_API oc_status oc_buffer_inspect(const void *src, uint64_t src_size, const oc_buffer_options *hint,
                                   oc_frame_info *info);

/*
 * oc_buffer_decompressed_size returns in *size the decompressed size of src:
 * from the container or header if recorded, otherwise by decoding into
 * scratch (as costly as decompression).  A size more than src_size bytes
 * can decode to (src_size * oc_algorithm_info.max_expansion + 65536, of
 * hint->algorithm, or the largest of all without one) is CORRUPT, so the
 * size is safe to allocate.
 */
OC_API oc_status oc_buffer_decompressed_size(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                                             uint64_t src_size, uint64_t *size);

/*
 * oc_buffer_decompress decodes src into dst[0..dst_capacity) and writes the
 * decoded size to *dst_size.  The container is auto-detected (hint as for
 * oc_buffer_inspect); checksums are verified when hint->checksum is VERIFY
 * (hint NULL = VERIFY).  Never writes past dst_capacity.  On failure the
 * status says why; for chunked containers the first failing chunk's index is
 * stored in *failed_chunk if that pointer is not NULL (else ignored).
 * src[0..src_size) and dst[0..dst_capacity) must not overlap:
 * INVALID_ARGUMENT, nothing written.
 * gzip data followed by bytes that begin no further member (zero padding,
 * trailing garbage) decodes as `gzip -d` decodes it, the trailing bytes
 * ignored; oc_buffer_inspect's compressed_size says where the gzip data
 * ends, so a caller can warn as gzip does (the CLI does).  A member whose
 * magic number is damaged is not trailing garbage: CORRUPT.
 */
OC_API oc_status oc_buffer_decompress(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                                      uint64_t src_size, void *dst, uint64_t dst_capacity, uint64_t *dst_size,
                                      uint64_t *failed_chunk);

/* ========================================================================
 * The one-call layer
 *
 * The simple case in one call each, as ZSTD_compress / ZSTD_decompress:
 * no context, no options struct.  oc_compress writes the NATIVE container
 * of `algorithm` (64 KiB chunks compressed in parallel on every core,
 * per-chunk checksums written): the bytes of oc_buffer_compress with
 * OC_BUFFER_OPTIONS_INIT, that algorithm and level, so the stock tools read
 * it.  oc_decompress detects the container (or a self-identifying RAW
 * stream: zstd, gzip, zlib) and verifies every checksum.  Where the data
 * lives decides the engine, as for oc_buffer_* with OC_ENGINE_AUTO.
 * Thread-safe: each call makes and frees its own context (for many small
 * calls, keep a context and use oc_buffer_*).
 * ======================================================================== */

/* oc_compress_bound_simple: a dst_capacity that always suffices for
 * oc_compress (0 for an algorithm without a container, or a size too large). */
OC_API size_t oc_compress_bound_simple(oc_algorithm algorithm, uint64_t src_size);
/* oc_compress: level 0 = the algorithm's default.  *dst_size gets the
 * compressed size.  Statuses as oc_buffer_compress (OUTPUT_TOO_SMALL,
 * UNSUPPORTED for blosc, which has no container). */
OC_API oc_status oc_compress(oc_algorithm algorithm, int level, const void *src, size_t src_size, void *dst,
                             size_t dst_capacity, size_t *dst_size);
/* oc_decompress: *dst_size gets the decoded size.  Statuses as
 * oc_buffer_decompress (OUTPUT_TOO_SMALL when dst_capacity is short: the
 * size is oc_buffer_decompressed_size's, or the container's record). */
OC_API oc_status oc_decompress(const void *src, size_t src_size, void *dst, size_t dst_capacity,
                               size_t *dst_size);

/* ========================================================================
 * The streaming layer
 *
 * For data that does not fit in memory, or arrives through a pipe: the
 * NATIVE containers (LZ4 frame, zstd seekable, gzip members, snappy
 * framing) written and read a group of chunks at a time, each group
 * compressed or decoded by ONE batched call (all chunks in parallel), with
 * memory bounded by the group, whatever the stream's length.  The bytes are
 * those oc_buffer_compress writes for the same options (the index goes at
 * the end, after the last chunk), and the reader takes everything
 * oc_buffer_decompress takes in those containers, stock streams included.
 * Host memory only; the context's engine runs the batches (the CPU engine
 * for host memory under OC_ENGINE_AUTO).
 *
 * Memory: a writer holds one group of input (about 4 MiB per thread of the
 * context, at least 8 MiB and at most 64 MiB, and at least one chunk) and
 * its compressed bound, plus 12 bytes of index per chunk written (768 KiB
 * for 4 GiB in 64 KiB chunks).  A reader holds a group of compressed input
 * and its decoded bytes (the same budget; a zstd frame decoded in a batch
 * is at most OC_STREAM_MAX_UNIT), plus 12 bytes per zstd frame for the
 * seek-table check (and as much again for a seek table read first,
 * oc_stream_reader_set_seekable).
 * ======================================================================== */

/* OC_SIZE_UNKNOWN: no pledged size (oc_stream_writer_create). */
#define OC_SIZE_UNKNOWN UINT64_MAX
/* Largest zstd frame (decoded) or gzip member that the reader decodes in a
 * batch; larger ones, and frames that state no size, decode serially
 * through libzstd / zlib with memory bounded by the zstd window (the
 * options' memory_limit) or 32 KiB (gzip). */
#define OC_STREAM_MAX_UNIT ((uint64_t)64 << 20)

/*
 * oc_write_fn: where a writer's bytes go.  Called from the calling thread
 * with `size` > 0 bytes; returns OC_OK, or any other status (e.g. OC_ERR_IO),
 * which the writer returns to its caller and keeps (sticky).
 * oc_read_fn: where a reader's bytes come from.  Writes up to `capacity`
 * bytes to buf and their count to *got; *got == 0 with OC_OK means end of
 * input.  Any other status is returned to the reader's caller (sticky).
 */
typedef oc_status (*oc_write_fn)(void *opaque, const void *data, size_t size);
typedef oc_status (*oc_read_fn)(void *opaque, void *buf, size_t capacity, size_t *got);
/*
 * oc_pread_fn: random access to a seekable source (a regular file, a
 * memory buffer), for oc_stream_reader_set_seekable.  Writes up to
 * `capacity` bytes found at `offset` (counted from the first byte the
 * read function gives) to buf and their count to *got; fewer only where
 * the source ends.  Does not move the read function's position.  Any
 * status but OC_OK is returned to the reader's caller (sticky).
 */
typedef oc_status (*oc_pread_fn)(void *opaque, uint64_t offset, void *buf, size_t capacity, size_t *got);

typedef struct oc_stream_writer oc_stream_writer;
typedef struct oc_stream_reader oc_stream_reader;

/*
 * oc_stream_writer_create makes a writer of options->kind NATIVE for
 * options->algorithm (a standard container: lz4, snappy, deflate, zlib,
 * gzip, zstd; UNSUPPORTED for the others), chunk size, level and
 * checksum policy as for oc_buffer_compress.  `pledged_size` is the total
 * input size if known (the LZ4 frame header records it, and finish checks
 * it: SIZE_MISMATCH), or OC_SIZE_UNKNOWN.  Nothing is written before the
 * first group is full or finish runs.  The writer keeps ctx (one thread at
 * a time, as for any call with it) until destroyed.  Errors:
 * INVALID_ARGUMENT (NULL ctx/out/write, bad options, RAW kinds),
 * UNSUPPORTED (blosc, cascaded, ans), OUT_OF_MEMORY.
 */
OC_API oc_status oc_stream_writer_create(oc_context *ctx, const oc_buffer_options *options,
                                         uint64_t pledged_size, oc_write_fn write, void *opaque,
                                         oc_stream_writer **out);
/*
 * oc_stream_writer_write takes src[0..size) (host memory, any size, read
 * during the call only).  Each time a group of chunks is complete it is
 * compressed in one batch and its container bytes go to the write
 * function; a group is taken straight from src when src holds whole groups
 * (no copy).  After an error every later call returns it.
 */
OC_API oc_status oc_stream_writer_write(oc_stream_writer *w, const void *src, size_t size);
/*
 * oc_stream_writer_finish compresses what remains, then writes the trailer
 * (LZ4: end mark, content checksum, index; zstd: the seek table; snappy:
 * the index chunk; gzip: nothing, the index is in each member's header).
 * Written bytes so far in *total_out if not NULL.  Once only: later writes
 * are INVALID_ARGUMENT.
 */
OC_API oc_status oc_stream_writer_finish(oc_stream_writer *w, uint64_t *total_out);
/* oc_stream_writer_destroy frees the writer (NULL: no-op); a writer never
 * finished leaves an incomplete stream behind. */
OC_API void oc_stream_writer_destroy(oc_stream_writer *w);

/*
 * oc_stream_reader_create makes a reader of a NATIVE container coming
 * through `read`.  `hint` may be NULL (checksums verified); its checksum
 * policy (VERIFY / other) and memory_limit apply; its algorithm, when set,
 * must match the container found.  The container is recognised from its
 * first bytes: LZ4 frames (and legacy frames, skippable frames), zstd
 * frames, gzip members, the snappy framing format.
 *
 * How each is read.  Chunks whose sizes the stream's own headers give are
 * gathered into groups and decoded in one batch each: LZ4 frames with
 * independent blocks (lz4's default; ours), legacy LZ4 blocks, zstd frames
 * that state a content size up to OC_STREAM_MAX_UNIT (ours, and zstd's for
 * inputs of known size), gzip members with our size subfield, every
 * snappy chunk.  The rest decodes serially, memory still bounded: LZ4
 * frames with linked blocks (liblz4's LZ4F decoder), zstd frames without a
 * content size or larger (libzstd's streaming decoder), gzip members of
 * other writers (zlib); zstd frames without a content size are decoded in
 * batches where the seek table is read first (oc_stream_reader_set_seekable).
 * The index at the end (LZ4 frame index, seek table, snappy index chunk) is
 * checked against the chunks read (CORRUPT if it differs); the zstd seek
 * table's checksums are verified (CHECKSUM_MISMATCH) for frames decoded in
 * batches, and for every frame when the table is read first.  Every checksum the stream carries is
 * verified unless hint->checksum says otherwise (as oc_buffer_decompress).
 */
OC_API oc_status oc_stream_reader_create(oc_context *ctx, const oc_buffer_options *hint, oc_read_fn read,
                                         void *opaque, oc_stream_reader **out);
/*
 * oc_stream_reader_set_seekable tells the reader that its source is
 * seekable and `size` bytes long, and how to read it at any offset
 * (`pread`, called with the opaque of oc_stream_reader_create).  Call it
 * after create and before the first next/read (INVALID_ARGUMENT later, or
 * for NULL r or pread).  The reader then reads the index first: if the
 * source ends with a zstd seek table (the footer magic 0x8F92EAB1 in its
 * last 9 bytes), the table is read through pread before any data, and
 * every frame it lists is decoded in a batch with the table's sizes, also
 * frames that state no content size (other writers' seekable files: zstd's
 * contrib/seekable_format library, pyzstd's SeekableZstdFile), which a
 * stream without the table must decode serially.  The data itself is
 * still read once, in order, through `read`.  Per frame, the reader
 * checks that the frame starts where the table says (CORRUPT), ends where
 * the table says (CORRUPT), states no other content size (CORRUPT),
 * decodes to the table's size (SIZE_MISMATCH) and, with checksums in the
 * table and verification on, to the table's checksum (CHECKSUM_MISMATCH,
 * also for frames above OC_STREAM_MAX_UNIT, hashed as they decode
 * serially); oc_stream_position.failed_chunk names the frame.  A table whose own
 * structure is broken (reserved descriptor bits, the skippable frame's
 * magic or length, entries that do not add up to the bytes before it, an
 * entry whose decoded size no frame of its compressed size can reach) is
 * CORRUPT before any data is decoded, as the reference seekable library
 * refuses it; there is no silent fallback.  A source without the footer
 * magic (stock streams, other containers), or with a table over 64 MiB,
 * is read as without this call.  Other containers gain nothing: their
 * chunks' own headers already give the reader every size their index does
 * (docs/API.md, "Streaming").  Memory: the table (12 bytes per frame).
 */
OC_API oc_status oc_stream_reader_set_seekable(oc_stream_reader *r, oc_pread_fn pread, uint64_t size);
/*
 * oc_stream_reader_next decodes the next group and points *data at its
 * bytes (owned by the reader, valid until the next call on it) and *size at
 * their count; *size == 0 with OC_OK means the stream ended cleanly.
 * Statuses: as oc_buffer_decompress (CORRUPT, TRUNCATED for input that ends
 * inside a frame, member or chunk, CHECKSUM_MISMATCH, SIZE_MISMATCH,
 * NEEDS_DICTIONARY, CHUNK_TOO_LARGE for a zstd window above the memory
 * limit), UNSUPPORTED for a stream that is not one of these containers
 * (RAW streams, Blosc, our own formats' container: use oc_buffer_*).  The
 * data of earlier groups was correct; after an error every later call
 * returns it.  oc_stream_reader_read copies up to `capacity` decoded bytes
 * into dst instead (*got == 0: end).
 */
OC_API oc_status oc_stream_reader_next(oc_stream_reader *r, const void **data, size_t *size);
OC_API oc_status oc_stream_reader_read(oc_stream_reader *r, void *dst, size_t capacity, size_t *got);
/*
 * oc_stream_position: where a reader stands (oc_stream_reader_position).
 */
typedef struct oc_stream_position {
    size_t struct_size;      /* sizeof(oc_stream_position), set by the caller */
    uint64_t in_bytes;       /* input bytes consumed */
    uint64_t out_bytes;      /* decoded bytes returned */
    uint64_t chunks;         /* chunks decoded (blocks, frames, members, snappy chunks) */
    uint64_t failed_chunk;   /* after an error: the chunk it concerns, counted from 0 in stream order
                                as oc_buffer_decompress counts them; OC_SIZE_UNKNOWN if none */
    uint64_t window_size;    /* after CHUNK_TOO_LARGE: the zstd window the frame needs */
    uint64_t trailing_bytes; /* bytes after the last gzip member that begin no member, ignored as
                                gzip -d ignores them (a caller may warn) */
    int trailing_zeros;      /* 1 when every trailing byte is zero (padding) */
    uint64_t serial_chunks;  /* of `chunks`, those decoded serially (sizes not known in advance, or
                                above OC_STREAM_MAX_UNIT); the others were decoded in batches */
    uint64_t index_entries;  /* frames listed by a seek table read before the data
                                (oc_stream_reader_set_seekable); 0: the stream was read without */
    uint64_t reserved[2];
} oc_stream_position;

/* oc_stream_reader_position fills *pos (struct_size set by the caller:
 * INVALID_ARGUMENT otherwise); valid at any time, errors included. */
OC_API oc_status oc_stream_reader_position(const oc_stream_reader *r, oc_stream_position *pos);
/* oc_stream_reader_destroy frees the reader (NULL: no-op). */
OC_API void oc_stream_reader_destroy(oc_stream_reader *r);

/* ========================================================================
 * Memory helpers
 *
 * So that callers without their own CUDA bindings (the CLI, the Python
 * package) can move data to and from a GPU through the context's device,
 * stream and allocators.  In builds without the CUDA engine, or with no GPU,
 * every DEVICE/PINNED request returns OC_ERR_NO_DEVICE.
 * ======================================================================== */

typedef enum oc_memory_kind {
    OC_MEMORY_HOST = 0,   /* pageable host memory (malloc) */
    OC_MEMORY_DEVICE = 1, /* device memory of the context's GPU */
    OC_MEMORY_PINNED = 2, /* page-locked host memory */
    OC_MEMORY_MANAGED = 3 /* CUDA managed memory (reported by oc_pointer_kind only) */
} oc_memory_kind;

/* oc_pointer_kind says where p points (HOST for unknown/unregistered memory). */
OC_API oc_memory_kind oc_pointer_kind(const void *p);

/* oc_pointer_device returns the ordinal of the GPU that owns p (device
 * memory, or the preferred device of managed memory), or -1 for host memory,
 * unknown pointers and builds or machines without the CUDA engine.  The
 * Python package uses it to run a batch on the device its data is on. */
OC_API int oc_pointer_device(const void *p);

/* oc_cuda_device_count returns the number of usable GPUs (0 without the CUDA
 * engine or a driver). */
OC_API int oc_cuda_device_count(void);

/* oc_cuda_stream_device writes to *device the ordinal of the GPU that
 * `cuda_stream` (a cudaStream_t) belongs to, as cudaStreamGetDevice does.
 * The special streams (NULL or 0, cudaStreamLegacy = 1, cudaStreamPerThread
 * = 2) stand for the calling thread's current device's stream: for them it
 * writes the current device (cudaGetDevice).  Nothing is enqueued or
 * synchronised.  Returns OC_OK; INVALID_ARGUMENT (device NULL); NO_DEVICE
 * (no CUDA engine in this build, or no GPU); FORKED (a child forked after
 * CUDA was initialised); UNSUPPORTED (a stream other than the special ones,
 * with a build or driver older than CUDA 12.8, which have no
 * cudaStreamGetDevice); CUDA (cudaStreamGetDevice failed: a destroyed
 * stream); *device is left alone on error.  As for any CUDA call, a value
 * that was never a stream is undefined behaviour.  The Python package's
 * CudaStream uses it. */
OC_API oc_status oc_cuda_stream_device(void *cuda_stream, int *device);

/* oc_memory_alloc allocates `size` bytes of `kind` through the context's
 * allocator for that kind (device memory is stream-ordered on the context's
 * stream) and stores the pointer in *out; oc_memory_free releases it with
 * the same kind and size. */
OC_API oc_status oc_memory_alloc(oc_context *ctx, oc_memory_kind kind, size_t size, void **out);
OC_API void oc_memory_free(oc_context *ctx, oc_memory_kind kind, void *ptr, size_t size);

/* oc_memory_copy copies n bytes between any two kinds of memory, enqueued on
 * the context's stream when either side is device memory (asynchronous:
 * call oc_context_synchronize before reading a host destination).  Plain
 * memcpy when both are host memory. */
OC_API oc_status oc_memory_copy(oc_context *ctx, void *dst, const void *src, size_t n);

/* oc_context_synchronize waits for all work enqueued on the context's stream
 * (no-op for the CPU engine) and returns OC_ERR_CUDA if that work failed. */
OC_API oc_status oc_context_synchronize(oc_context *ctx);

#ifdef __cplusplus
}
#endif
#endif /* OPENCOMP_H */
