"""Reads of plain zarr arrays for OpencompCodecPipeline without zarr's per-chunk path.

zarr's own read spends most of a read of MB-sized chunks outside the codec:
per chunk a store call (an asyncio.to_thread and a bytes object), under
``enable_gpu()`` a host-to-device copy and a synchronisation, a Buffer, a
decode, a copy into the output (bench/NOTES.md, "Where zarr's per-chunk time
goes").  For arrays whose chunks are plain -- the ``bytes`` codec in native
byte order, then ONE opencomp bytes-to-bytes codec (zstd, gzip, zlib,
blosc), no array-to-array codec -- this module reads instead.  Sharded
arrays whose inner chunks are plain (``sharding_indexed`` over those two
codecs, its index ``bytes`` (+ ``crc32c``) at either end) are read the same
way: the shard files whole, each index checked and read on the host, and
the inner chunks of every shard take the place of the chunks below:

``read_selection`` (the pipeline's ``read``: every chunk of a selection at
once), for a basic selection (slices of step 1, integers), host or device:

1. the chunk files of a LocalStore (or kvikio's GDSStore) straight into one
   host buffer (pinned for a device read) from a thread pool; other stores
   through their ``get``;
2. device output: ONE copy to the device; or, where kvikio is installed
   with GPUDirect Storage live (not its compatibility mode), the files of a
   plain array read straight into one device buffer by kvikio's
   ``CuFile.pread`` (no host buffer, no copy);
3. ONE packed opencomp call decodes every chunk, at its exact size
   (``uncomp_sizes=``: a stream of another size is ``SIZE_MISMATCH``),
   straight into the output where chunks are row blocks of it, else into a
   block of chunks that ONE copy moves into the output;
4. missing chunks get the fill value, as zarr does.

A read goes in slabs (whole rows of chunks along its first axis), steps 1-4
a slab: on the host slabs of SLAB_BYTES (a memory bound); into device
memory slabs of DEVICE_SLAB_BYTES and DEVICE_SLAB_CHUNKS chunks at least on
LANES lanes (``_Lanes``: a CUDA stream and a Codec each), where a slab's
copy, decode and placement are enqueued on its lane's stream without a
host wait, so the files of the next slab are read while the slabs before it
decode, side by side; the host waits for a lane only to reuse it and for
all of them at the end, where failures are raised.

``read_batch`` (the pipeline's ``read_batch``, for what ``read_selection``
does not take: strided and fancy selections) reads one of zarr's batches
into a device output: one host buffer, ONE copy, ONE packed call into one
device buffer, then each chunk's selection written into the output.

``plan`` says whether a pipeline qualifies; both readers return False
(nothing written, or everything to be rewritten) when the read must take
zarr's path after all: chunks the GPU kernel reports UNSUPPORTED for (none
that the codecs above write: Blosc's every inner codec, zlib included,
decodes on the GPU), a chunk file that changed size while read.  A chunk that fails
raises the codec's ChunkDecodeError; the pipeline names its key.
"""

from __future__ import annotations

import asyncio
import functools
import os
import stat
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, List, Optional, Tuple

import numpy as np

import opencomp

from ..numcodecs._batch import ChunkFailure, describe, gpu_kernel, is_device_array

# wire formats whose RAW streams carry everything a decoder needs
_FORMATS = ("zstd", "gzip", "zlib", "blosc")


def plan(pipeline: Any) -> Optional[Any]:
    """What a pipeline that qualifies for the direct read reads with, else
    None: its opencomp codec for a plain array, a ``_Sharded`` for a sharded
    array whose inner chunks are plain."""
    from zarr.codecs.sharding import ShardingCodec

    if pipeline.array_array_codecs:
        return None
    ab = pipeline.array_bytes_codec
    if type(ab) is ShardingCodec:
        return None if pipeline.bytes_bytes_codecs else _plan_sharded(ab)
    if len(pipeline.bytes_bytes_codecs) != 1:
        return None
    return _plain_codec(ab, pipeline.bytes_bytes_codecs[0])


def _plain_codec(ab: Any, bb: Any) -> Optional[Any]:
    """bb when ``ab, bb`` are the ``bytes`` codec in native order and one
    opencomp codec whose RAW streams the direct read decodes, else None."""
    from zarr.codecs import BytesCodec

    if type(ab) is not BytesCodec:  # vlen strings, ...: zarr's path
        return None
    endian = getattr(ab, "endian", None)
    if endian is not None and getattr(endian, "value", endian) != sys.byteorder:
        return None
    batch = getattr(bb, "_oc_batch", None)  # an opencomp zarr codec
    if batch is None or batch.fmt not in _FORMATS or batch.zstd_checksum:
        return None
    return bb


class _Sharded:
    """plan()'s answer for a sharded array: the inner chunks' opencomp codec,
    the sharding codec, and its index layout (little-endian uint64 pairs,
    optionally followed by a CRC-32C, at the shard's end or start)."""

    __slots__ = ("codec", "sharding", "crc", "at_end")

    def __init__(self, codec: Any, sharding: Any, crc: bool, at_end: bool) -> None:
        self.codec, self.sharding, self.crc, self.at_end = codec, sharding, crc, at_end


def _plan_sharded(ab: Any) -> Optional[_Sharded]:
    from zarr.codecs import BytesCodec, Crc32cCodec

    inner = tuple(ab.codecs)
    if len(inner) != 2:
        return None
    codec = _plain_codec(inner[0], inner[1])
    index = tuple(ab.index_codecs)
    if codec is None or not index or type(index[0]) is not BytesCodec or len(index) > 2:
        return None
    endian = getattr(index[0], "endian", None)
    if endian is not None and getattr(endian, "value", endian) != "little":
        return None
    if len(index) == 2 and type(index[1]) is not Crc32cCodec:
        return None
    where = getattr(ab.index_location, "value", ab.index_location)
    if where not in ("start", "end"):
        return None
    return _Sharded(codec, ab, len(index) == 2, where == "end")


def _gpu_decodes(codec: Any) -> bool:
    """False when this build is known to have no GPU kernel for the codec's
    algorithm: zarr's path then, where the batch engine falls back to the CPU
    (a read here would copy everything to the device first, for nothing)."""
    if isinstance(codec, _Sharded):
        codec = codec.codec
    return gpu_kernel(codec._oc_batch.algorithm) is not False


def _device_output(out: Any) -> bool:
    try:
        return is_device_array(out.as_ndarray_like())
    except AttributeError:
        return False


async def read_batch(codec: Any, batch_info: List[Any], out: Any, drop_axes: Tuple[int, ...]) -> bool:
    """Read one batch into ``out`` (a device NDBuffer) as the module docstring says."""
    if not batch_info or isinstance(codec, _Sharded) or not _device_output(out) or not _gpu_decodes(codec):
        return False
    import cupy  # type: ignore
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.common import concurrent_map
    from zarr.core.config import config
    from zarr.core.codec_pipeline import fill_value_or_default

    for _getter, spec, *_rest in batch_info:
        if spec.dtype.to_native_dtype().hasobject:
            return False
    host_proto = default_buffer_prototype()
    chunk_bytes = await concurrent_map(
        [(getter, host_proto) for getter, *_rest in batch_info],
        lambda getter, proto: getter.get(proto),
        config.get("async.concurrency"),
    )
    present = [i for i, b in enumerate(chunk_bytes) if b is not None]
    decoded: dict = {}
    if present:
        parts = [np.asarray(chunk_bytes[i].as_numpy_array()).reshape(-1).view(np.uint8) for i in present]
        src_sizes = [p.size for p in parts]
        src_offsets = np.cumsum([0] + src_sizes[:-1]).tolist()
        dtypes = [batch_info[i][1].dtype.to_native_dtype() for i in present]
        sizes = [int(np.prod(batch_info[i][1].shape)) * dt.itemsize for i, dt in zip(present, dtypes)]
        out_offsets = np.cumsum([0] + sizes[:-1]).tolist()
        src = cupy.asarray(np.concatenate(parts))  # the one copy
        dst = cupy.empty(max(1, sum(sizes)), dtype=cupy.uint8)
        _, statuses = codec._oc_batch.codec.decode(
            src, src_offsets=src_offsets, src_sizes=src_sizes, out=dst, out_offsets=out_offsets,
            uncomp_sizes=sizes, errors="status")
        if any(s == opencomp.Status.UNSUPPORTED for s in statuses):
            return False  # a chunk the kernel does not serve: zarr's path (and the batch engine's CPU fallback)
        for k, s in enumerate(statuses):
            if s != opencomp.Status.OK:
                raise codec._oc_error(ChunkFailure(present[k], s, describe(s)), present[k], len(batch_info))
        for k, i in enumerate(present):
            spec = batch_info[i][1]
            decoded[i] = dst[out_offsets[k]:out_offsets[k] + sizes[k]].view(dtypes[k]).reshape(spec.shape)
    for i, (_getter, spec, chunk_selection, out_selection, *_rest) in enumerate(batch_info):
        chunk = decoded.get(i)
        if chunk is None:
            out[out_selection] = fill_value_or_default(spec)
            continue
        tmp = spec.prototype.nd_buffer.from_ndarray_like(chunk)[chunk_selection]
        if drop_axes:
            tmp = tmp.squeeze(axis=drop_axes)
        out[out_selection] = tmp
    return True


# ------------------------------------------------ whole-selection reads


class _Geometry:
    """Where each chunk of a basic selection lands: ``None`` from ``_geometry``
    when the selection is not a rectangular block of slices and integers."""

    __slots__ = ("chunk_shape", "dtype", "grid", "cells", "base", "ints", "out_shape", "rows")


def _geometry(batch_info: List[Any], arr: Any) -> Optional[_Geometry]:
    spec0 = batch_info[0][1]
    cshape = tuple(int(c) for c in spec0.shape)
    ndim = len(cshape)
    dtype = np.dtype(spec0.dtype.to_native_dtype())
    if dtype.hasobject or dtype.itemsize == 0 or not dtype.isnative or np.dtype(arr.dtype) != dtype:
        return None  # object data, bytes to swap, or a field selection (out holds one field)
    origins: List[List[int]] = [[] for _ in range(ndim)]
    ints: List[Optional[int]] = [None] * ndim
    out_shape = tuple(int(n) for n in arr.shape)
    for k, (_g, spec, csel, osel, *_rest) in enumerate(batch_info):
        if k and (spec.shape != spec0.shape or spec.dtype != spec0.dtype):
            return None
        if not isinstance(csel, tuple) or not isinstance(osel, tuple) or len(csel) != ndim:
            return None
        j = 0
        for d, cs in enumerate(csel):
            if isinstance(cs, (int, np.integer)) and not isinstance(cs, bool):
                if ints[d] is None and k == 0:
                    ints[d] = int(cs)
                elif ints[d] != int(cs):
                    return None
                continue
            if k and ints[d] is not None:
                return None
            if j >= len(osel):
                return None
            os_ = osel[j]
            j += 1
            if not (isinstance(cs, slice) and isinstance(os_, slice) and cs.step in (None, 1)
                    and os_.step in (None, 1) and isinstance(cs.start, (int, np.integer))
                    and isinstance(os_.start, (int, np.integer))):
                return None
            origins[d].append(int(os_.start) - int(cs.start))
        if j != len(osel):
            return None
    slice_dims = [d for d in range(ndim) if ints[d] is None]
    if len(slice_dims) != len(out_shape):
        return None
    base = [0] * ndim
    grid = [1] * ndim
    cells: List[Tuple[int, ...]] = []
    for d in slice_dims:
        base[d] = min(origins[d])
    for k in range(len(batch_info)):
        cell = []
        for d in range(ndim):
            if ints[d] is not None:
                cell.append(0)
                continue
            off = origins[d][k] - base[d]
            if off % cshape[d]:
                return None  # an irregular chunk grid
            cell.append(off // cshape[d])
            grid[d] = max(grid[d], cell[-1] + 1)
        cells.append(tuple(cell))
    if len(set(cells)) != len(cells) or len(cells) != int(np.prod(grid)):
        return None  # not a full rectangular block of chunks
    for d, n in zip(slice_dims, out_shape):
        if base[d] > 0 or -base[d] + n > grid[d] * cshape[d]:
            return None
    g = _Geometry()
    g.chunk_shape, g.dtype, g.grid, g.cells, g.base, g.ints, g.out_shape = cshape, dtype, grid, cells, base, ints, \
        out_shape
    # Row blocks: chunks are whole rows of a C-ordered output (every axis after
    # the first covered by one chunk exactly), so a chunk inside the selection
    # is one contiguous range of the output and decodes straight into it.
    g.rows = (ndim > 0 and all(i is None for i in ints) and bool(arr.flags.c_contiguous)
              and all(grid[d] == 1 and base[d] == 0 and cshape[d] == out_shape[d] for d in range(1, ndim)))
    return g


_POOL: Optional[ThreadPoolExecutor] = None
_POOL_LOCK = threading.Lock()
_READERS = min(16, os.cpu_count() or 4)  # threads reading chunk files (page-cache copies release the GIL)


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=_READERS, thread_name_prefix="opencomp-zarr-read")
        return _POOL


def _forget_pool() -> None:
    """In a forked child the pool's threads are gone (and its lock may be
    held): a pool inherited from the parent would take work and never run it."""
    global _POOL, _POOL_LOCK
    _POOL = None
    _POOL_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


class _Changed(Exception):
    """A chunk file changed size while it was read: the read takes zarr's path."""


def _plain_local_store(store: Any, LocalStore: type) -> bool:
    """A LocalStore, or kvikio's GDSStore (a LocalStore whose get reads with
    kvikio): both are files under a root, which this module reads itself.
    Other subclasses may change what a key's bytes are, so they keep zarr's path."""
    t = type(store)
    return t is LocalStore or (t.__name__ == "GDSStore" and t.__module__.startswith("kvikio.")
                               and issubclass(t, LocalStore))


def _gds() -> Any:
    """kvikio when it is installed and reads straight into device memory
    (GPUDirect Storage live, not its compatibility mode), else None.  In
    compatibility mode kvikio reads through host bounce buffers, which is what
    _read_files and the one copy do already, so the pinned path is kept."""
    try:
        import kvikio  # type: ignore
        import kvikio.defaults  # type: ignore

        return None if kvikio.defaults.is_compat_mode_preferred() else kvikio
    except Exception:  # noqa: BLE001 - kvikio is optional; a broken install is no install
        return None


def _read_files_to_device(kvikio: Any, paths: List[str], xp: Any) -> Tuple[Any, List[int], List[Optional[int]]]:
    """Every chunk file straight into one device buffer with kvikio's CuFile
    (GPUDirect Storage): (device buffer, offsets, sizes or None where absent).

    The reads run in kvikio's thread pool, all at once; the buffer is only
    written by them, so the current stream is synchronised first (CuPy's pool
    may hand out memory that queued work on that stream still reads)."""
    sizes = _file_sizes(paths)
    offsets, total = _offsets(sizes)
    dev = xp.empty(max(1, total), dtype=xp.uint8)[:total]
    xp.cuda.get_current_stream().synchronize()
    pending = []
    got = {}
    try:
        for i, p in enumerate(paths):
            if sizes[i]:
                f = kvikio.CuFile(p, "r")
                pending.append((i, f, f.pread(dev[offsets[i] : offsets[i] + sizes[i]])))
        for i, _f, fut in pending:
            got[i] = fut.get()
    finally:
        for i, f, fut in pending:  # no file closed, nor buffer freed, under a read still running
            if i not in got:
                try:
                    fut.get()
                except Exception:  # noqa: BLE001 - the first error is the one raised
                    pass
            f.close()
    for i, n in got.items():
        if n != sizes[i] or os.stat(paths[i]).st_size != sizes[i]:
            raise _Changed(paths[i])
    return dev, offsets, sizes


def _local_paths(batch_info: List[Any]) -> Optional[List[str]]:
    """The chunk files of a batch whose getters are keys of one open LocalStore, else None."""
    from zarr.storage import LocalStore

    store = getattr(batch_info[0][0], "store", None)
    if not _plain_local_store(store, LocalStore) or not getattr(store, "_is_open", False):
        return None
    root = str(store.root)
    paths = []
    for getter, *_rest in batch_info:
        if getattr(getter, "store", None) is not store:
            return None
        paths.append(os.path.join(root, getter.path))
    return paths


def _file_sizes(paths: List[str]) -> List[Optional[int]]:
    """Each chunk file's size, None where it is absent (a chunk at the fill value)."""
    sizes: List[Optional[int]] = []
    for p in paths:
        try:
            st = os.stat(p)
            sizes.append(st.st_size if stat.S_ISREG(st.st_mode) else None)
        except (FileNotFoundError, NotADirectoryError):
            sizes.append(None)
    return sizes


def _offsets(sizes: List[Optional[int]]) -> Tuple[List[int], int]:
    """Where each chunk starts in one buffer of them all, and its total size."""
    offsets, total = [], 0
    for s in sizes:
        offsets.append(total)
        total += s or 0
    return offsets, total


def _read_files(paths: List[str], host_buffer: Any) -> Tuple[Any, List[int], List[Optional[int]]]:
    """Every chunk file into one host buffer: (buffer, offsets, sizes or None where absent).

    The files' sizes first, then one buffer, then the reads straight into it
    from a thread pool (the reads release the GIL): no bytes object a chunk
    and no concatenation."""
    sizes = _file_sizes(paths)
    offsets, total = _offsets(sizes)
    buf = host_buffer(total)
    mv = memoryview(buf)

    def read(lo: int, hi: int) -> None:
        for i in range(lo, hi):
            if sizes[i] is None:
                continue
            view = mv[offsets[i] : offsets[i] + sizes[i]]
            with open(paths[i], "rb", buffering=0) as f:
                got = 0
                while got < len(view):
                    n = f.readinto(view[got:])
                    if not n:
                        raise _Changed(paths[i])
                    got += n
                if f.read(1):
                    raise _Changed(paths[i])

    n = len(paths)
    parts = min(n, 4 * _READERS)
    bounds = [n * k // parts for k in range(parts + 1)]
    for fut in [_pool().submit(read, bounds[k], bounds[k + 1]) for k in range(parts)]:
        fut.result()
    return buf, offsets, sizes


def _pack(chunks: List[Any], host_buffer: Any) -> Tuple[Any, List[int], List[Optional[int]]]:
    """zarr Buffers (None where absent) copied into one host buffer."""
    parts = [None if c is None else np.asarray(c.as_numpy_array()).reshape(-1).view(np.uint8) for c in chunks]
    sizes = [None if p is None else int(p.size) for p in parts]
    offsets, total = [], 0
    for s in sizes:
        offsets.append(total)
        total += s or 0
    buf = host_buffer(total)
    for p, o in zip(parts, offsets):
        if p is not None:
            buf[o : o + p.size] = p
    return buf, offsets, sizes


def _inner_entries(plan: _Sharded, shards: List[Any], shard_index: dict) -> Optional[List[Any]]:
    """The inner chunks a selection of shards covers, as read entries:
    ``((shard's index in the read's batch, that batch's length, its index in
    ``shards``, inner chunk coords),
    inner spec, selection in the inner chunk, selection in the output, True)``;
    None for anything but slices of step 1 (zarr's path)."""
    from zarr.core.chunk_grids import RegularChunkGrid
    from zarr.core.indexing import BasicIndexer

    inner_shape = tuple(int(c) for c in plan.sharding.chunk_shape)
    grid = RegularChunkGrid(chunk_shape=inner_shape)
    entries = []
    for k, (getter, spec, csel, osel, *_rest) in enumerate(shards):
        shard_shape = tuple(int(c) for c in spec.shape)
        if len(shard_shape) != len(inner_shape) or any(s % c for s, c in zip(shard_shape, inner_shape)):
            return None
        inner_spec = plan.sharding._get_chunk_spec(spec)
        for coords, isel, iosel, _complete in BasicIndexer(csel, shape=shard_shape, chunk_grid=grid):
            if not isinstance(iosel, tuple) or len(iosel) != len(osel):
                return None
            out_sel = []
            for o, i in zip(osel, iosel):
                if not (isinstance(o, slice) and isinstance(i, slice) and o.step in (None, 1)
                        and i.step in (None, 1) and isinstance(o.start, (int, np.integer))):
                    return None
                out_sel.append(slice(int(o.start) + int(i.start), int(o.start) + int(i.stop)))
            entries.append(((shard_index[id(getter)], len(shard_index), k, tuple(int(c) for c in coords)),
                            inner_spec, isel, tuple(out_sel), True))
    return entries


_EMPTY = (1 << 64) - 1  # an inner chunk that was never written: offset and length both


def _shard_ranges(plan: _Sharded, shards: List[Any], inner: List[Any], buf: Any, offsets: List[int],
                  sizes: List[Optional[int]]) -> Optional[Tuple[List[int], List[Optional[int]]]]:
    """Each inner chunk's (offset in buf, size), None where absent (a missing
    shard, or an inner chunk never written), from the shards' indexes; None
    when an index is damaged or points outside its shard (zarr's path, which
    raises what zarr raises)."""
    inner_shape = tuple(int(c) for c in plan.sharding.chunk_shape)
    tables: dict = {}
    for k, (_getter, spec, *_rest) in enumerate(shards):
        if sizes[k] is None:
            tables[k] = None
            continue
        per_shard = tuple(int(s) // c for s, c in zip(spec.shape, inner_shape))
        nbytes = 16 * int(np.prod(per_shard))
        size = nbytes + (4 if plan.crc else 0)
        if sizes[k] < size:
            return None
        at = offsets[k] + (sizes[k] - size if plan.at_end else 0)
        raw = buf[at : at + size]
        if plan.crc:
            import google_crc32c  # zarr's own dependency for its crc32c codec

            if np.uint32(google_crc32c.value(bytes(raw[:nbytes]))).tobytes() != bytes(raw[nbytes:]):
                return None
        tables[k] = np.frombuffer(bytes(raw[:nbytes]), dtype="<u8").reshape(per_shard + (2,))
    src_offsets: List[int] = []
    src_sizes: List[Optional[int]] = []
    for (_shard, _batch_len, k, coords), *_rest in inner:
        table = tables[k]
        start, length = (int(v) for v in table[coords]) if table is not None else (_EMPTY, _EMPTY)
        if (start, length) == (_EMPTY, _EMPTY):
            src_offsets.append(0)
            src_sizes.append(None)
            continue
        if start > sizes[k] or length > sizes[k] - start:
            return None
        src_offsets.append(offsets[k] + start)
        src_sizes.append(length)
    return src_offsets, src_sizes


async def read_selection(codec: Any, batch_info: List[Any], out: Any, drop_axes: Tuple[int, ...]) -> bool:
    """Read a whole basic selection into ``out`` as the module docstring says;
    False (nothing written, or everything to be rewritten) when it must take
    zarr's path."""
    if not batch_info or drop_axes:
        return False
    device = _device_output(out)
    if device and not _gpu_decodes(codec):
        return False
    arr = out.as_ndarray_like()
    geo = _geometry(batch_info, arr)
    if geo is None:
        return False
    if device:
        import cupy as xp  # type: ignore
    else:
        xp = np
    host_buffer = _host_buffer_factory(xp, device)
    sharded = isinstance(codec, _Sharded)
    shard_index = {id(entry[0]): i for i, entry in enumerate(batch_info)} if sharded else None
    # A device read's slabs decode on lanes, stream-ordered: each slab's files
    # are read while the slabs before it decode (_Lanes).
    lanes = _Lanes(xp, (codec.codec if sharded else codec)._oc_batch) if device else None
    slab_bytes = SLAB_BYTES
    if device:  # at least DEVICE_SLAB_CHUNKS (inner) chunks a slab: one round of the frame kernel
        inner_shape = codec.sharding.chunk_shape if sharded else geo.chunk_shape
        chunk_nbytes = int(np.prod(tuple(int(c) for c in inner_shape))) * geo.dtype.itemsize
        slab_bytes = min(SLAB_BYTES, max(DEVICE_SLAB_BYTES, DEVICE_SLAB_CHUNKS * chunk_nbytes))
    try:
        for part, part_arr, where in _slabs(batch_info, arr, geo, slab_bytes):
            part_geo = geo if part is batch_info else _geometry(part, part_arr)
            inner = None
            if sharded and part_geo is not None:
                # the slab's shards as their inner chunks: each lands where the
                # shard's selection puts it, and the inner chunks make the geometry
                inner = _inner_entries(codec, part, shard_index)
                part_geo = None if inner is None else _geometry(inner, part_arr)
            if part_geo is None:
                return False  # cannot happen for a slab of a block; zarr's path rewrites it all
            paths = _local_paths(part)
            chunks = None
            if paths is None:  # any other store: its own reads, as many at once as zarr allows
                from zarr.core.buffer import default_buffer_prototype
                from zarr.core.common import concurrent_map
                from zarr.core.config import config

                proto = default_buffer_prototype()
                chunks = await concurrent_map([(getter, proto) for getter, *_rest in part],
                                              lambda getter, p: getter.get(p), config.get("async.concurrency"))
            # The rest blocks (file reads, copy, decode): a worker thread, so that
            # zarr's one event loop keeps serving other threads' reads meanwhile.
            if not await asyncio.to_thread(_read_in_thread, codec, part, part_arr, xp, device, part_geo, paths,
                                           chunks, host_buffer, inner, lanes, where):
                return False
        if lanes is not None:  # every slab's decode done, its failures raised
            return await asyncio.to_thread(lanes.finish)
        return True
    finally:
        if lanes is not None and lanes.busy():  # an error or zarr's path: nothing may still write `out`
            await asyncio.to_thread(lanes.drain)


# A read of more decoded bytes than this goes in slabs along its first axis,
# each its own copy and call, so that the compressed bytes (and the block a
# non-row layout decodes into) are held a slab at a time; slabs of GiBs
# still fill a GPU.
SLAB_BYTES = 4 << 30

# A read into device memory goes in slabs of at least DEVICE_SLAB_BYTES
# decoded bytes and at least DEVICE_SLAB_CHUNKS chunks (inner chunks of a
# sharded array), whole rows of chunks, each on one of LANES lanes: a CUDA
# stream of its own and a Codec on it (_Lanes).  A slab's files are read into
# pinned memory, its copy and decode enqueued on its lane, and the next
# slab's files read while it decodes; the slabs of different lanes decode side
# by side.  A lane is reused, LANES slabs later, once its slab is decoded: at
# most LANES slabs' compressed bytes are held.
#
# Measured (call Z2, one H200, 1 GiB zstd; bench/NOTES.md, issue 16 "Session
# 10"): the GPU zstd decoder's time for MB-sized frames is one frame's
# latency, not the batch's size (a call of 16, 64 or 256 frames of 4 MiB:
# 81, 83, 91 ms; of 64 or 256 frames of 1 MiB: 28, 30 ms; 1,024 of them,
# past the frame kernel's one round of <= 264 frames: 65 ms).  So a slab of
# fewer frames costs as long as one of 256: at 4 MiB one slab (256 frames)
# reads in 104 ms, four slabs in 114; at 1 MiB four slabs of 256 frames
# (28 ms each, the store reads of the next slab beside them) read in 114 ms,
# one slab of 1,024 in 141.  256 chunks a slab picks the faster in both.
DEVICE_SLAB_BYTES = 256 << 20
DEVICE_SLAB_CHUNKS = 256
LANES = 4


def _slabs(batch_info: List[Any], arr: Any, geo: _Geometry, slab_bytes: int) -> Any:
    """(entries, output view, where) covering the selection, slab_bytes at most each where it can be split
    (a slab is at least one row of chunks); ``where``: None for the whole
    selection, else (each entry's index in batch_info, len(batch_info)), so
    that a failure names its chunk in the read's batch (the pipeline names
    its key by that index)."""
    chunk_nbytes = int(np.prod(geo.chunk_shape)) * geo.dtype.itemsize
    d0 = next((d for d in range(len(geo.chunk_shape)) if geo.ints[d] is None), None)
    if d0 is None or len(batch_info) * chunk_nbytes <= slab_bytes or geo.grid[d0] == 1:
        yield batch_info, arr, None
        return
    per_slab = max(1, slab_bytes // (len(batch_info) // geo.grid[d0] * chunk_nbytes))
    c = geo.chunk_shape[d0]
    for ga in range(0, geo.grid[d0], per_slab):
        gb = min(geo.grid[d0], ga + per_slab)
        lo = max(0, geo.base[d0] + ga * c)
        hi = min(geo.out_shape[0], geo.base[d0] + gb * c)
        part, where = [], []
        for i, (getter, spec, csel, osel, *rest) in enumerate(batch_info):
            if ga <= geo.cells[i][d0] < gb:
                first = slice(osel[0].start - lo, osel[0].stop - lo, osel[0].step)
                part.append((getter, spec, csel, (first,) + tuple(osel[1:]), *rest))
                where.append(i)
        yield part, arr[lo:hi], (where, len(batch_info))


def _read_in_thread(codec: Any, batch_info: List[Any], arr: Any, xp: Any, device: bool, geo: _Geometry,
                    paths: Optional[List[str]], chunks: Optional[List[Any]], host_buffer: Any,
                    inner: Optional[List[Any]], lanes: Optional["_Lanes"], where: Any = None) -> bool:
    """_read_sync on the output's device (CuPy's current device is per thread),
    with a device read's slab on its lane's stream."""
    dev = getattr(arr, "device", None) if device else None
    Device = getattr(getattr(xp, "cuda", None), "Device", None)
    args = (codec, batch_info, arr, xp, device, geo, paths, chunks, host_buffer, inner, lanes, where)
    if dev is None or Device is None:
        return _read_on_lane(*args)
    with Device(getattr(dev, "id", dev)):
        return _read_on_lane(*args)


def _read_on_lane(codec: Any, batch_info: List[Any], arr: Any, xp: Any, device: bool, geo: _Geometry,
                  paths: Optional[List[str]], chunks: Optional[List[Any]], host_buffer: Any,
                  inner: Optional[List[Any]], lanes: Optional["_Lanes"], where: Any) -> bool:
    if lanes is None:
        return _read_sync(codec, batch_info, arr, xp, device, geo, paths, chunks, host_buffer, inner, None, where)
    try:
        lane = lanes.take()  # waits for the slab this lane decoded LANES slabs ago
        with lane.stream:  # CuPy's work of this slab (copy, staging, placement) on the lane's stream
            return _read_sync(codec, batch_info, arr, xp, device, geo, paths, chunks, host_buffer, inner, lane,
                              where)
    except _Unsupported:
        return False


class _Unsupported(Exception):
    """A lane's decode met a chunk the GPU kernel does not serve: zarr's path."""


class _Lane:
    """A CUDA stream and an opencomp.Codec on it (BatchCodec.codec_on), kept
    between reads; while a read holds it, the one slab it decodes:
    ``pending`` says how to name that slab's failures, ``keep`` holds the
    slab's buffers (pinned host, device) until the GPU is done with them."""

    __slots__ = ("key", "stream", "codec", "pending", "keep")

    def __init__(self, key: Any, stream: Any, codec: Any) -> None:
        self.key, self.stream, self.codec = key, stream, codec
        self.pending: Optional[Tuple[Any, ...]] = None
        self.keep: Any = None

    def settle(self) -> None:
        """Wait for the lane's slab (the host waits for this lane's stream
        only) and raise its first failed chunk, named as _read_sync names it;
        _Unsupported for a chunk the GPU kernel does not serve.  The Codec's
        synchronize() reads the decode's statuses; the stream's then covers
        the CuPy work queued behind it."""
        pending, self.pending = self.pending, None
        try:
            self.codec.synchronize()
        except opencomp.Error as e:
            _lane_failure(pending, e)
        finally:
            # and CuPy's work after the decode (staging copies, fill values),
            # or a slab's fill alone, where no decode ran
            self.stream.synchronize()
            self.keep = None


def _lane_failure(pending: Optional[Tuple[Any, ...]], e: Any) -> None:
    """Raise what a failed lane decode means: (fail, codec, entries, idx) of its slab."""
    if getattr(e, "status", None) == opencomp.Status.UNSUPPORTED:
        raise _Unsupported() from e
    k = getattr(e, "chunk", None)
    if pending is None or not isinstance(k, int) or not 0 <= k < len(pending[3]):
        raise e
    fail, codec, entries, idx = pending
    raise fail(codec, entries, idx[k], e.status) from e


_LANE_POOL: dict = {}  # (format, level, options, device) -> lanes no read holds
_LANE_LOCK = threading.Lock()


def _forget_lanes() -> None:
    """A forked child has no CUDA streams of its parent's."""
    global _LANE_LOCK
    _LANE_POOL.clear()
    _LANE_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_lanes)


class _Lanes:
    """The lanes of one device read: slab k decodes on lane k % LANES, its
    copy and decode enqueued on the lane's stream without a host wait (the
    one-buffer decode is stream-ordered); the host waits for a lane only to
    reuse it, LANES slabs later, and for every lane at the end (``finish``),
    where failures are raised.  The lanes' streams first wait (an event, not
    the host) for the work queued before the read on CuPy's current stream,
    which may still use the output's memory; CuPy work on the output after
    the read needs nothing: the host has waited for every lane.

    A lane has a Codec of its own, so that its synchronize() reads only its
    slab (a Codec shared with other threads reads theirs too); lanes go back
    to a pool per format and device, so a read does not make Codecs and
    streams anew."""

    def __init__(self, xp: Any, batch: Any) -> None:
        self.xp, self.batch = xp, batch
        self.lanes: List[_Lane] = []
        self.slabs = 0
        self.entry: Any = None  # recorded on CuPy's current stream when the first lane is taken

    def take(self) -> _Lane:
        """The next slab's lane (worker thread, under the output's device)."""
        k, self.slabs = self.slabs, self.slabs + 1
        if k < LANES:
            lane = self._new()
            self.lanes.append(lane)
            return lane
        lane = self.lanes[k % LANES]
        lane.settle()
        return lane

    def _new(self) -> _Lane:
        cuda = self.xp.cuda
        dev = getattr(cuda, "Device", None)
        key = (self.batch.fmt, self.batch.level, repr(sorted(self.batch.options.items())),
               dev().id if dev is not None else -1)
        with _LANE_LOCK:
            free = _LANE_POOL.get(key)
            lane = free.pop() if free else None
        if lane is None:
            stream = cuda.Stream(non_blocking=True)
            lane = _Lane(key, stream, self.batch.codec_on(stream))
        if self.entry is None:
            self.entry = cuda.Event(disable_timing=True)
            self.entry.record(cuda.get_current_stream())
        lane.stream.wait_event(self.entry)
        return lane

    def busy(self) -> bool:
        return bool(self.lanes)

    def finish(self) -> bool:
        """Wait for every lane and raise the first failure of the earliest
        slab that failed; False for a chunk the GPU kernel does not serve."""
        n = len(self.lanes)
        # the earliest slab still unread first: slab k is on lane k % LANES
        order = [self.lanes[(self.slabs + j) % n] for j in range(n)] if self.slabs > n else list(self.lanes)
        try:
            for lane in order:
                lane.settle()
        except _Unsupported:
            return False
        finally:
            self.drain()
        return True

    def drain(self) -> None:
        """Wait for every lane, failures unread, and give the lanes back."""
        lanes, self.lanes = self.lanes, []
        for lane in lanes:
            try:
                lane.settle()
            except Exception:  # noqa: BLE001 - the first error is the one raised
                pass
        with _LANE_LOCK:
            for lane in lanes:
                free = _LANE_POOL.setdefault(lane.key, [])
                if len(free) < 2 * LANES:
                    free.append(lane)


def _host_buffer_factory(xp: Any, device: bool) -> Any:
    """A function n -> 1-D uint8 host buffer: pinned memory (CuPy's pool) for a
    device read, so that the one copy to the device runs at full speed."""
    alloc = getattr(getattr(xp, "cuda", None), "alloc_pinned_memory", None) if device else None

    def host_buffer(n: int) -> Any:
        if alloc is not None and n:
            try:
                return np.frombuffer(alloc(n), np.uint8, n)
            except Exception:  # noqa: BLE001 - pinned memory is an optimisation
                pass
        return np.empty(max(n, 1), np.uint8)[:n]

    return host_buffer


def _to_device(xp: Any, buf: Any, stream: Any = None) -> Any:
    """buf (1-D uint8, host) copied to a new device array; with ``stream``,
    enqueued there without a host wait (buf must then live, unchanged, until
    the stream is done with it).  ``cupy.asarray`` would first copy a numpy
    array into pinned memory of its own; ``set`` copies straight from ours."""
    dev = xp.empty(max(1, buf.size), dtype=xp.uint8)[: buf.size]
    if not hasattr(dev, "set"):  # not CuPy (the tests' stand-in)
        return xp.asarray(buf)
    if buf.size:
        if stream is not None:
            dev.set(buf, stream=stream)
        else:
            dev.set(buf)
    return dev


def _chunk_failure(codec: Any, batch_info: List[Any], i: int, s: Any) -> Exception:
    return codec._oc_error(ChunkFailure(i, s, describe(s)), i, len(batch_info))


def _slab_chunk_failure(where: Tuple[List[int], int], codec: Any, batch_info: List[Any], i: int, s: Any) -> Exception:
    """The error of chunk i of a slab: its index in the read's batch (where)."""
    at, n = where
    return codec._oc_error(ChunkFailure(at[i], s, describe(s)), at[i], n)


def _shard_failure(codec: Any, inner: List[Any], i: int, s: Any) -> Exception:
    """The error of inner chunk i: the shard's index in the read's batch (the
    pipeline names its key) and the inner chunk's coordinates."""
    shard, shards, _k, coords = inner[i][0]
    e = codec._oc_error(ChunkFailure(shard, s, describe(s)), shard, shards)
    e.key = f"inner chunk {coords}"
    return e


def _read_sync(codec: Any, batch_info: List[Any], arr: Any, xp: Any, device: bool, geo: _Geometry,
               paths: Optional[List[str]], chunks: Optional[List[Any]], host_buffer: Any,
               inner: Optional[List[Any]] = None, lane: Optional[_Lane] = None, where: Any = None) -> bool:
    """Read the chunk files (or pack the fetched chunks), decode them in one
    call and place them; with ``inner`` (a sharded array) the files are
    shards and the inner chunks are what is decoded and placed.  With a
    ``lane`` (a device read; CuPy's current stream is the lane's) the copy,
    the decode and the placement are enqueued on the lane's stream and the
    call returns without waiting for them: the lane raises the slab's
    failures when it is settled.  ``where``: _slabs' (indices in the read's
    batch, its length) of a slab of a plain array, for naming a failure."""
    from zarr.core.codec_pipeline import fill_value_or_default

    gds = _gds() if device and paths is not None and inner is None else None
    try:
        if gds is not None:  # no host buffer and no copy: the files land in device memory
            buf, src_offsets, src_sizes = _read_files_to_device(gds, paths, xp)
        elif paths is not None:
            buf, src_offsets, src_sizes = _read_files(paths, host_buffer)
        else:
            buf, src_offsets, src_sizes = _pack(chunks, host_buffer)
    except _Changed:
        return False
    if inner is not None:
        ranges = _shard_ranges(codec, batch_info, inner, buf, src_offsets, src_sizes)
        if ranges is None:
            return False
        src_offsets, src_sizes = ranges
        batch_info, codec = inner, codec.codec
    if inner is not None:
        fail = _shard_failure
    elif where is not None:
        fail = functools.partial(_slab_chunk_failure, where)
    else:
        fail = _chunk_failure
    n = len(batch_info)
    fill = fill_value_or_default(batch_info[0][1])
    present = [i for i in range(n) if src_sizes[i] is not None]
    if not present:
        arr[...] = fill
        return True
    itemsize = geo.dtype.itemsize
    cshape = geo.chunk_shape
    chunk_nbytes = int(np.prod(cshape)) * itemsize
    direct: List[int] = []  # batch indices decoded straight into arr
    direct_offsets: List[int] = []
    staged: List[int] = []  # batch indices decoded into the staging buffer
    staged_offsets: List[int] = []
    if geo.rows:
        row_nbytes = chunk_nbytes // cshape[0]
        for i in present:
            start = geo.base[0] + geo.cells[i][0] * cshape[0]
            if start >= 0 and start + cshape[0] <= geo.out_shape[0]:
                direct.append(i)
                direct_offsets.append(start * row_nbytes)
            else:  # an edge chunk, or one the selection starts or ends inside
                staged_offsets.append(len(staged) * chunk_nbytes)
                staged.append(i)
        if staged and device:
            # One GPU call, not two: a second call of one or two chunks would
            # run alone on a few SMs (a zstd frame decodes serially in one
            # block), while the copy of the block below costs a pass at
            # device bandwidth.  On the CPU engine the second call is cheaper
            # than copying the whole block.
            geo.rows = False
            direct, direct_offsets, staged, staged_offsets = [], [], [], []
    if not geo.rows:
        grid = geo.grid
        for i in present:
            staged_offsets.append(int(np.ravel_multi_index(geo.cells[i], grid)) * chunk_nbytes if grid else 0)
            staged.append(i)
    # The one host-to-device copy, on CuPy's current stream.  No host wait
    # here: the decode reads `src` and writes `arr`/`staging` through their
    # __cuda_array_interface__, whose "stream" (CuPy's current stream) the
    # Codec's stream waits for with an event, and that stream in turn waits
    # for the decode, so CuPy's later work on it sees the decoded bytes.
    src = _to_device(xp, buf, lane.stream if lane is not None else None) if device and gds is None else buf
    if geo.rows:
        staging = xp.empty(max(1, len(staged) * chunk_nbytes), dtype=xp.uint8) if staged else None
    else:
        staging = xp.empty(max(1, int(np.prod(geo.grid)) * chunk_nbytes), dtype=xp.uint8)
    calls = []
    if direct:
        calls.append((direct, arr.reshape(-1).view(xp.uint8), direct_offsets))
    if staged:
        calls.append((staged, staging, staged_offsets))
    for idx, dst, dst_offsets in calls:
        if lane is not None:  # stream-ordered: no statuses until the lane is settled
            lane.pending = (fail, codec, batch_info, idx)
            lane.keep = (buf, src, dst)  # the GPU reads and writes them after this returns
            try:
                lane.codec.decode(
                    src, src_offsets=[src_offsets[i] for i in idx], src_sizes=[src_sizes[i] for i in idx], out=dst,
                    out_offsets=dst_offsets, uncomp_sizes=[chunk_nbytes] * len(idx))
            except opencomp.Error as e:  # the call itself failed (or the engine ran it at once: host data)
                pending, lane.pending = lane.pending, None
                try:
                    _lane_failure(pending, e)
                except _Unsupported:
                    return False
            continue
        try:
            _, statuses = codec._oc_batch.codec.decode(
                src, src_offsets=[src_offsets[i] for i in idx], src_sizes=[src_sizes[i] for i in idx], out=dst,
                out_offsets=dst_offsets, uncomp_sizes=[chunk_nbytes] * len(idx), errors="status")
        except opencomp.Error as e:
            if getattr(e, "status", None) == opencomp.Status.UNSUPPORTED:
                return False  # no GPU kernel for it: zarr's path and the batch engine's CPU fallback
            raise
        if any(s == opencomp.Status.UNSUPPORTED for s in statuses):
            return False  # a chunk the kernel does not serve
        for k, s in enumerate(statuses):
            if s != opencomp.Status.OK:
                raise fail(codec, batch_info, idx[k], s)
    missing = [i for i in range(n) if src_sizes[i] is None]
    if geo.rows:
        for k, i in enumerate(staged):
            chunk = staging[k * chunk_nbytes : (k + 1) * chunk_nbytes].view(geo.dtype).reshape(cshape)
            arr[batch_info[i][3]] = chunk[batch_info[i][2]]
        for i in missing:
            arr[batch_info[i][3]] = fill
        return True
    # A block of chunks in the staging buffer, chunk after chunk: as an array of
    # shape grid + chunk_shape, its axes interleaved, it is the block's padded region.
    nd = len(cshape)
    blocks = staging[: int(np.prod(geo.grid)) * chunk_nbytes].view(geo.dtype).reshape(tuple(geo.grid) + cshape)
    for i in missing:
        blocks[geo.cells[i]] = fill
    perm = tuple(a for d in range(nd) for a in (d, nd + d))
    padded = tuple(g * c for g, c in zip(geo.grid, cshape))
    sel = tuple(geo.ints[d] if geo.ints[d] is not None else slice(-geo.base[d], -geo.base[d] + geo.out_shape[
        sum(1 for e in range(d) if geo.ints[e] is None)]) for d in range(nd))
    aligned = all(geo.ints[d] is None and geo.base[d] == 0 and padded[d] == geo.out_shape[d] for d in range(nd))
    if aligned and arr.flags.c_contiguous:
        # one copy: the output seen as blocks, each block a chunk
        arr.reshape(tuple(x for d in range(nd) for x in (geo.grid[d], cshape[d]))).transpose(
            tuple(list(range(0, 2 * nd, 2)) + list(range(1, 2 * nd, 2))))[...] = blocks
    else:
        arr[...] = blocks.transpose(perm).reshape(padded)[sel]
    return True
