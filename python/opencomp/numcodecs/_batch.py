"""The batch engine shared by opencomp.zarr and opencomp.numcodecs.

zarr's and numcodecs' compressors store five wire formats that opencomp's
Codec reads and writes in RAW mode: a zstd frame (or several), a zlib stream,
a gzip member (or several), numcodecs' LZ4 layout (a 4-byte little-endian
uncompressed size, then an LZ4 block), and a Blosc chunk (c-blosc 1.x).  ``BatchCodec`` turns a list of chunks,
all in host memory (numpy) or all in device memory (CuPy), into ONE opencomp
call and gives back 1-D uint8 arrays in the same memory as the input:

* sizes that are known (the LZ4 prefix, or a capacity hint such as a zarr
  chunk's shape x itemsize) become slices of one output allocation passed as
  ``out=``, so no size query and no per-chunk allocation runs;
* a chunk whose hint was too small (another codec changed the size) is
  decoded again with opencomp sizing it;
* on device data whose algorithm has no GPU kernel in this build, the batch
  is decoded on the CPU and copied to the device in one copy, with one
  warning per algorithm and process;
* failures come back per chunk (index, Status, text), never as a partial
  result, so callers can name the chunk that failed.

This module imports neither zarr nor numcodecs.
"""

from __future__ import annotations

import ctypes
import threading
import warnings
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

import opencomp

__all__ = [
    "LZ4_SHORT",
    "BatchCodec",
    "ChunkFailure",
    "FORMATS",
    "GpuFallbackWarning",
    "as_u8",
    "describe",
    "gpu_kernel",
    "is_device_array",
    "memory_order_flat",
]

# Wire format name -> opencomp algorithm.
FORMATS = {"zstd": "Zstd", "gzip": "Gzip", "zlib": "Zlib", "lz4": "LZ4", "blosc": "Blosc"}

# An LZ4 block expands at most ~255x; a size prefix claiming more is corrupt
# (checked before anything is allocated).
_LZ4_MAX_RATIO = 255

# The failure of an LZ4 chunk too short to hold numcodecs' size prefix.
LZ4_SHORT = "TRUNCATED: shorter than the 4-byte LZ4 size prefix"

_STATUS_TEXT = {
    "CORRUPT": "the bytes are not a valid stream of this format",
    "TRUNCATED": "the stream ends early",
    "OUTPUT_TOO_SMALL": "the stream decodes to more bytes than the chunk holds",
    "SIZE_MISMATCH": "the stream decodes to another size than the chunk holds",
    "CHECKSUM_MISMATCH": "the stored checksum does not match the data",
    "OUT_OF_MEMORY": "out of memory",
}


class GpuFallbackWarning(UserWarning):
    """Device chunks ran on the CPU engine (no GPU kernel for the algorithm in this build)."""


class ChunkFailure(Tuple[int, "opencomp.Status", str]):
    """(index in the batch, opencomp.Status, message) of one chunk that failed."""

    __slots__ = ()

    def __new__(cls, index: int, status: Any, message: str) -> "ChunkFailure":
        return tuple.__new__(cls, (index, status, message))

    @property
    def index(self) -> int:
        return self[0]

    @property
    def status(self) -> "opencomp.Status":
        return self[1]

    @property
    def message(self) -> str:
        return self[2]


def describe(status: Any) -> str:
    """'NAME: what it means' for an opencomp.Status."""
    name = getattr(status, "name", str(status))
    text = _STATUS_TEXT.get(name)
    return f"{name}: {text}" if text else name


def is_device_array(a: Any) -> bool:
    """True for CUDA memory (objects with __cuda_array_interface__, e.g. CuPy arrays)."""
    return hasattr(a, "__cuda_array_interface__")


def _cupy():
    import cupy  # type: ignore  # only reached with device data, which implies CuPy

    return cupy


def memory_order_flat(a: Any) -> Any:
    """A 1-D view of a contiguous numpy or CuPy array in the order its bytes
    lie in memory (Fortran-ordered arrays are not reordered: numcodecs
    compresses them as they lie).  Non-contiguous arrays raise ValueError."""
    if a.flags.c_contiguous:
        return a.reshape(-1)
    if a.flags.f_contiguous:
        return a.T.reshape(-1)  # the transpose is C-contiguous: its C order is the memory order
    raise ValueError("an array with contiguous memory is required")


def as_u8(a: Any, device: bool) -> Any:
    """A 1-D uint8 view of a contiguous host or device array-like, its bytes
    in memory order (no copy).  Object arrays raise TypeError."""
    if device:
        cp = _cupy()
        a = cp.asarray(a)
        return memory_order_flat(a).view(cp.uint8) if a.dtype != cp.uint8 or a.ndim != 1 else a
    if not isinstance(a, np.ndarray):
        a = np.asarray(memoryview(a))
    if a.dtype.hasobject:
        raise TypeError("object arrays are not supported")
    if a.dtype != np.uint8 or a.ndim != 1:
        if a.dtype.kind in "mM":
            a = a.view(np.int64)  # numpy exports no buffer for datetimes; the bytes are int64
        a = memory_order_flat(a).view(np.uint8)
    return a


def _result_array(r: Any, device: bool) -> Any:
    """An opencomp.Array result as a numpy/CuPy uint8 array (zero copy, keeps r alive)."""
    if device:
        return _cupy().asarray(r).reshape(-1).view("u1")
    return np.asarray(r).reshape(-1).view(np.uint8)


# Per-process memory of which algorithms have a usable GPU engine here, per
# direction: "Zstd" (decoding) or "Zstd:encode" -> True/False, learned on the
# first device batch.  (Blosc runs both ways on the GPU; its blosclz and zlib
# chunks are encoded on the CPU by the library itself, host-staged.)
_gpu_ok: dict = {}
_gpu_warned: set = set()
_gpu_lock = threading.Lock()


def _warn_once(key: str, message: str) -> None:
    """One GpuFallbackWarning per key and process."""
    with _gpu_lock:
        first = key not in _gpu_warned
        _gpu_warned.add(key)
    if first:
        warnings.warn(message, GpuFallbackWarning, stacklevel=5)


def _gpu_unavailable(key: str, why: str) -> None:
    with _gpu_lock:
        _gpu_ok[key] = False
    algorithm, _, direction = key.partition(":")
    done = "encoded" if direction == "encode" else "decoded"
    _warn_once(key, f"opencomp: {why}; {algorithm} chunks in device memory are {done} on the CPU "
               "and copied to the device (one copy per batch). They move to the GPU with no change on "
               "your side once this opencomp build has the kernel.")


def _gpu_partial(algorithm: str) -> None:
    """Warn once per algorithm that some device chunks took the CPU (the GPU kernel
    reported UNSUPPORTED for them: a variant of a format its kernel does not serve)."""
    _warn_once(algorithm + "/partial",
               f"opencomp: some {algorithm} chunks in device memory use a variant the GPU kernel does not "
               "decode; those chunks are decoded on the CPU and copied to the device.")


def _unsupported_everywhere(statuses: Sequence[Any]) -> bool:
    return bool(statuses) and all(s in (opencomp.Status.UNSUPPORTED, opencomp.Status.NO_DEVICE) for s in statuses)


def _cuda_kernel_check(algorithm: str, encode: bool) -> Optional[bool]:
    """Whether the CUDA engine decodes (or with `encode`, also encodes)
    `algorithm` with GPU kernels: the C API's oc_algorithm_decode_available or
    oc_algorithm_available for OC_ENGINE_CUDA, through the extension's
    ``_gpu_kernel``.  None when that cannot be asked (then the first device
    batch probes the engine)."""
    if not opencomp.cuda_available():
        return False
    try:
        from opencomp import _opencomp

        return _opencomp._gpu_kernel(algorithm.lower(), bool(encode))
    except (AttributeError, ImportError):
        return None


def gpu_kernel(algorithm: str, encode: bool = False) -> Optional[bool]:
    """True if device chunks of `algorithm` decode (with `encode`: encode) on GPU
    kernels in this build, False if they take the CPU fallback, None if not known yet."""
    key = algorithm + ":encode" if encode else algorithm
    with _gpu_lock:
        if key not in _gpu_ok:
            known = _cuda_kernel_check(algorithm, encode)
            if known is not None:
                _gpu_ok[key] = known
        return _gpu_ok.get(key)


class BatchCodec:
    """One wire format at one level: batch decode/encode of host or device chunks.

    ``fmt`` is a key of FORMATS; ``level`` is opencomp's level for the
    algorithm (0 = its default); ``zstd_checksum`` asks encode to write zstd
    frames with a content checksum (done on the CPU through numcodecs, because
    opencomp's RAW zstd frames carry none; checksums are always verified on
    decode).  Instances are thread-safe and cheap to pickle (the opencomp.Codec
    is made on first use).
    """

    def __init__(self, fmt: str, level: int = 0, zstd_checksum: bool = False,
                 options: Optional[dict] = None) -> None:
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}; known: {sorted(FORMATS)}")
        self.fmt = fmt
        self.algorithm = FORMATS[fmt]
        self.level = int(level)
        self.zstd_checksum = bool(zstd_checksum) and fmt == "zstd"
        # further opencomp.Codec keywords of the encoder (Blosc's cname=, shuffle=, typesize=, blocksize=)
        self.options = dict(options or {})
        self._codec: Optional[opencomp.Codec] = None
        self._lock = threading.Lock()

    def __getstate__(self) -> dict:
        return {"fmt": self.fmt, "level": self.level, "zstd_checksum": self.zstd_checksum, "options": self.options}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["fmt"], state["level"], state["zstd_checksum"], state.get("options"))

    def __repr__(self) -> str:
        return f"BatchCodec({self.fmt!r}, level={self.level})"

    @property
    def codec(self) -> "opencomp.Codec":
        c = self._codec
        if c is None:
            with self._lock:
                if self._codec is None:
                    self._codec = opencomp.Codec(
                        self.algorithm, bitstream_kind=opencomp.BitstreamKind.RAW, level=self.level or None,
                        **self.options
                    )
                c = self._codec
        return c

    def codec_on(self, stream: Any) -> "opencomp.Codec":
        """A new opencomp.Codec of this format running on ``stream`` (a CUDA
        stream object: CuPy's, or anything with ``.ptr``), with contexts of its
        own.  For callers that keep stream-ordered decodes in flight on
        several streams at once and read each batch's statuses on their own
        (``Codec.synchronize()`` reads every unread batch of its Codec, so a
        Codec shared with other threads would hand their failures around):
        opencomp.zarr's direct read keeps a few, one per lane."""
        return opencomp.Codec(self.algorithm, bitstream_kind=opencomp.BitstreamKind.RAW, level=self.level or None,
                              cuda_stream=stream, **self.options)

    # ------------------------------------------------------------------ decode

    def decode(
        self, srcs: Sequence[Any], sizes: Optional[Sequence[Optional[int]]] = None, *, exact: bool = False
    ) -> Tuple[List[Any], List[ChunkFailure]]:
        """Decode a batch; returns (arrays, failures).

        ``srcs``: 1-D byte arrays (or anything with the buffer protocol), all
        host or all device.  ``sizes[i]``: the decoded size of chunk i if known,
        else None; with ``exact`` a different size is a failure (SIZE_MISMATCH),
        otherwise it is a capacity hint.  ``arrays[i]`` is a uint8 array in the
        memory of the input, or None where chunk i failed (see ``failures``).
        """
        n = len(srcs)
        if n == 0:
            return [], []
        device = is_device_array(srcs[0])
        if any(is_device_array(s) != device for s in srcs):
            raise ValueError("a batch must be all host or all device memory")
        srcs = [as_u8(s, device) for s in srcs]
        sizes = list(sizes) if sizes is not None else [None] * n
        if len(sizes) != n:
            raise ValueError("sizes must have one entry per chunk")
        failures: List[ChunkFailure] = []
        if self.fmt == "lz4":
            srcs, prefixes, failures = self.strip_lz4_prefix(srcs, device)
            sizes = [p if b is not None else None for b, p in zip(srcs, prefixes)]
            exact = True
        todo = [i for i in range(n) if srcs[i] is not None]
        results: List[Any] = [None] * n
        if todo:
            if device and gpu_kernel(self.algorithm) is not True:
                self._decode_device_maybe_cpu(srcs, sizes, exact, todo, results, failures)
            else:
                self._decode_into(srcs, sizes, exact, todo, results, failures, device)
            unsupported = [f.index for f in failures if f.status == opencomp.Status.UNSUPPORTED] if device else []
            if unsupported:  # chunks the GPU kernel does not serve: the CPU decodes those
                _gpu_partial(self.algorithm)
                failures = [f for f in failures if f.status != opencomp.Status.UNSUPPORTED]
                self._decode_on_host(srcs, sizes, exact, unsupported, results, failures)
        failures.sort(key=lambda f: f.index)
        return results, failures

    def strip_lz4_prefix(self, srcs: Sequence[Any], device: bool) -> Tuple[List[Any], List[int], List[ChunkFailure]]:
        """numcodecs' LZ4 layout of 1-D uint8 chunks: (blocks, the sizes their
        prefixes give, failures sorted by index); a failed chunk's block is
        None and its size 0.  A prefix claiming more than a block can expand
        to is CORRUPT (checked before anything is allocated)."""
        n = len(srcs)
        failures: List[ChunkFailure] = []
        out_srcs: List[Any] = [None] * n
        out_sizes: List[int] = [0] * n
        ok = [i for i in range(n) if srcs[i].size >= 4]
        for i in range(n):
            if srcs[i].size < 4:
                failures.append(ChunkFailure(i, opencomp.Status.TRUNCATED, LZ4_SHORT))
        if ok:
            if device:
                cp = _cupy()
                heads = cp.concatenate([srcs[i][:4] for i in ok]).get()  # one device-to-host copy
            else:
                heads = np.concatenate([srcs[i][:4] for i in ok])
            prefixes = heads.view("<u4").tolist()
            for i, size in zip(ok, prefixes):
                body = srcs[i][4:]
                if size > _LZ4_MAX_RATIO * body.size + 16:
                    failures.append(
                        ChunkFailure(
                            i,
                            opencomp.Status.CORRUPT,
                            f"CORRUPT: the LZ4 size prefix claims {size} bytes from a {body.size}-byte block",
                        )
                    )
                    continue
                out_srcs[i] = body
                out_sizes[i] = size
        failures.sort(key=lambda f: f.index)
        return out_srcs, out_sizes, failures

    def _decode_device_maybe_cpu(self, srcs, sizes, exact, todo, results, failures) -> None:
        """Device batch: GPU engine if it serves this algorithm, else CPU + one copy to the device."""
        if not opencomp.cuda_available():
            _gpu_unavailable(self.algorithm, "this opencomp build has no usable CUDA engine")
        elif gpu_kernel(self.algorithm) is False:
            _gpu_unavailable(self.algorithm, f"this opencomp build has no GPU {self.algorithm} kernel")
        elif _gpu_ok.get(self.algorithm) is None:
            try:
                got = self._decode_into(srcs, sizes, exact, todo, results, failures, True, probe=True)
            except opencomp.Error as e:
                if e.status not in (opencomp.Status.UNSUPPORTED, opencomp.Status.NO_DEVICE):
                    raise
                got = False
            if got:
                with _gpu_lock:
                    _gpu_ok[self.algorithm] = True
                return
            _gpu_unavailable(self.algorithm, f"this opencomp build has no GPU {self.algorithm} kernel")
            todo_set = set(todo)
            for i in todo:
                results[i] = None
            failures[:] = [f for f in failures if f.index not in todo_set]
        if _gpu_ok.get(self.algorithm) is True:
            self._decode_into(srcs, sizes, exact, todo, results, failures, True)
            return
        self._decode_on_host(srcs, sizes, exact, todo, results, failures)

    def _decode_on_host(self, srcs, sizes, exact, todo, results, failures) -> None:
        """Device chunks `todo` decoded on the CPU into one host buffer, then one copy to the device."""
        cp = _cupy()
        host_srcs: List[Any] = [None] * len(srcs)
        joined = cp.concatenate([srcs[i] for i in todo]).get() if todo else np.empty(0, np.uint8)
        off = 0
        for i in todo:
            host_srcs[i] = joined[off : off + srcs[i].size]
            off += srcs[i].size
        host_results: List[Any] = [None] * len(srcs)
        self._decode_into(host_srcs, sizes, exact, todo, host_results, failures, False)
        good = [i for i in todo if host_results[i] is not None]
        if good:
            parts = [host_results[i] for i in good]
            addrs = [p.__array_interface__["data"][0] for p in parts]
            if all(a + p.size == b for a, p, b in zip(addrs, parts, addrs[1:])):
                # Consecutive slices of the decode buffer: copy the span as it is.
                span = np.ctypeslib.as_array((ctypes.c_uint8 * sum(p.size for p in parts)).from_address(addrs[0]))
                dev = cp.asarray(span)  # the one copy (parts keep the memory alive)
            else:
                dev = cp.asarray(np.concatenate(parts))  # the one copy
            off = 0
            for i in good:
                k = host_results[i].size
                results[i] = dev[off : off + k]
                off += k

    def _decode_into(self, srcs, sizes, exact, todo, results, failures, device, probe=False) -> bool:
        """Decode chunks `todo` with one opencomp call (two if some sizes are unknown,
        plus one retry for hints that were too small).  Returns False only when
        ``probe`` is set and the engine reported UNSUPPORTED/NO_DEVICE for all."""
        xp = _cupy() if device else np
        known = [i for i in todo if sizes[i] is not None]
        unknown = [i for i in todo if sizes[i] is None]
        retry: List[int] = []
        if known:
            total = sum(sizes[i] for i in known)
            buf = xp.empty(total, dtype=xp.uint8)
            outs, off = [], 0
            for i in known:
                outs.append(buf[off : off + sizes[i]])
                off += sizes[i]
            kw = {"uncomp_sizes": [sizes[i] for i in known]} if exact else {}
            res, st = self.codec.decode([srcs[i] for i in known], out=outs, errors="status", **kw)
            if probe and _unsupported_everywhere(st):
                return False
            for i, out, r, s in zip(known, outs, res, st):
                if s == opencomp.Status.OK:
                    results[i] = out[: r.buffer_size]
                elif s == opencomp.Status.OUTPUT_TOO_SMALL and not exact:
                    retry.append(i)  # the hint was low (another codec changed the size)
                else:
                    failures.append(ChunkFailure(i, s, describe(s)))
        rest = unknown + retry
        if rest:
            res, st = self.codec.decode([srcs[i] for i in rest], errors="status")
            if probe and not known and _unsupported_everywhere(st):
                return False
            for i, r, s in zip(rest, res, st):
                if s == opencomp.Status.OK:
                    results[i] = _result_array(r, device)
                else:
                    failures.append(ChunkFailure(i, s, describe(s)))
        return True

    # ------------------------------------------------------------------ encode

    def encode(self, srcs: Sequence[Any]) -> List[Any]:
        """Encode a batch (all host or all device); returns uint8 arrays in the same memory.

        Raises opencomp.Error naming the chunk if one fails (only resource
        errors can make an encode fail).
        """
        n = len(srcs)
        if n == 0:
            return []
        device = is_device_array(srcs[0])
        if any(is_device_array(s) != device for s in srcs):
            raise ValueError("a batch must be all host or all device memory")
        srcs = [as_u8(s, device) for s in srcs]
        if device:
            key = self.algorithm + ":encode"
            gpu = gpu_kernel(self.algorithm, encode=True)
            if not opencomp.cuda_available():
                _gpu_unavailable(key, "this opencomp build has no usable CUDA engine")
                gpu = False
            elif gpu is False:
                _gpu_unavailable(key, f"this opencomp build has no GPU {self.algorithm} encoder")
            if self.zstd_checksum:
                gpu = False  # frames with checksums are written on the CPU
            if gpu is not False:
                try:
                    out = self._encode_on(srcs, True)
                    with _gpu_lock:
                        _gpu_ok.setdefault(key, True)
                    return out
                except opencomp.Error as e:
                    if e.status not in (opencomp.Status.UNSUPPORTED, opencomp.Status.NO_DEVICE):
                        raise
                    _gpu_unavailable(key, f"this opencomp build has no GPU {self.algorithm} encoder")
            cp = _cupy()
            host = self._encode_on([cp.asnumpy(s) for s in srcs], False)
            joined = cp.asarray(np.concatenate(host))  # one copy to the device
            outs, off = [], 0
            for h in host:
                outs.append(joined[off : off + h.size])
                off += h.size
            return outs
        return self._encode_on(srcs, False)

    def _encode_on(self, srcs, device):
        if self.zstd_checksum:
            # Frames with a content checksum, through numcodecs' zstd module
            # function: not its Zstd class, which register() or a test may
            # have replaced by opencomp's (that would call back here forever).
            from numcodecs.zstd import compress as _zstd_compress

            return [np.frombuffer(_zstd_compress(s, self.level, True), dtype=np.uint8) for s in srcs]
        res = self.codec.encode(list(srcs))
        outs = [_result_array(r, device) for r in res]
        if self.fmt == "lz4":
            xp = _cupy() if device else np
            heads = np.array([s.size for s in srcs], dtype="<u4").view(np.uint8).reshape(-1, 4)
            for s in srcs:
                if s.size >= 1 << 32:
                    raise ValueError("numcodecs' LZ4 layout holds chunks below 4 GiB only")
            outs = [xp.concatenate([xp.asarray(h), o]) for h, o in zip(heads, outs)]
        return outs
