"""numcodecs codecs backed by opencomp: Zstd, LZ4, Zlib, GZip and Blosc.

Each class reads and writes exactly what numcodecs' codec of the same
``codec_id`` reads and writes (same configuration keys, standard streams; LZ4
keeps numcodecs' 4-byte little-endian size prefix), so data written by one
decodes with the other, and behaves as that codec does: buffers compressed
in memory order, settings taken as numcodecs takes them, bytes from
encode()/decode(), numcodecs' repr, error types and buffer checks (numcodecs'
own tests pass with these classes swapped in: tests/numcodecs-suite).  On
top of numcodecs' API:

* ``decode(buf, out=...)`` decodes straight into the caller's memory (numpy,
  bytearray, or on a GPU a CuPy array / torch tensor): no intermediate buffer;
* ``decode_batch(bufs, out=None)`` / ``encode_batch(bufs)`` run a whole list
  of chunks as one opencomp call (CPU threads, or the GPU for device data).

Use them directly (``opencomp.numcodecs.Zstd(level=3)``), through the
``numcodecs.codecs`` entry points (ids ``opencomp.zstd``, ``opencomp.lz4``,
``opencomp.zlib``, ``opencomp.gzip``; the objects they give write the stock
ids), or call ``register()`` to make them serve the stock ids ``zstd``,
``lz4``, ``zlib`` and ``gzip`` in ``numcodecs.get_codec`` (and so in zarr v2
arrays).  See docs/ZARR.md.
"""

from __future__ import annotations

import gzip as _gzip
import operator
import zlib as _zlib
from typing import Any, List, Optional, Sequence

import numpy as np
from numcodecs.abc import Codec as _NumcodecsCodec
from numcodecs.compat import ensure_contiguous_ndarray_like

import opencomp

from ._batch import (
    LZ4_SHORT,
    BatchCodec,
    ChunkFailure,
    GpuFallbackWarning,
    as_u8,
    describe,
    is_device_array,
    memory_order_flat,
)

__all__ = [
    "Blosc",
    "BloscDecodeError",
    "BufferTooSmallError",
    "DecodeError",
    "GZip",
    "GZipDecodeError",
    "GZipEOFError",
    "GpuFallbackWarning",
    "LZ4",
    "Zlib",
    "ZlibDecodeError",
    "Zstd",
    "register",
    "unregister",
]

_NO_ENGINE = (opencomp.Status.UNSUPPORTED, opencomp.Status.NO_DEVICE)
_ZSTD_MIN, _ZSTD_MAX = -7, 22  # opencomp's zstd levels; numcodecs' lower levels clamp to -7
_LZ4_MAX_ACCELERATION = 65536  # opencomp's (LZ4 itself clamps at 65537)
_DEFLATE_DEFAULT = 6  # zlib's level -1 (Z_DEFAULT_COMPRESSION) is level 6


# ---------------------------------------------------------------- settings
#
# numcodecs accepts any value at construction and only its encode looks at
# it, so a stream written with any setting can always be read.  These
# functions turn a stock setting into opencomp's level the way the stock
# codec maps it, and raise what the stock codec raises at encode time for
# the settings it refuses.  Decoding never calls them with raise_errors.


def _c_int(value: Any) -> int:
    """A setting as Cython's ``int`` argument takes it (numcodecs' Zstd and LZ4)."""
    if isinstance(value, float):
        value = int(value)  # Cython truncates floats
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("an integer is required") from None
    if not -(2**31) <= v < 2**31:
        raise OverflowError("value too large to convert to int")
    return v


def zstd_level(level: Any) -> int:
    """numcodecs/zarr zstd level -> opencomp level: as libzstd clamps them
    (0 = zstd's default, 3; above 22 = 22), and below -7 (opencomp's fastest) -7."""
    return max(_ZSTD_MIN, min(_ZSTD_MAX, _c_int(level)))


def lz4_level(acceleration: Any) -> int:
    """numcodecs LZ4 acceleration -> opencomp level: <= 1 is LZ4's default
    (numcodecs maps <= 0 to 1), N > 1 is acceleration N (level -N), capped at
    65536 as LZ4 caps it."""
    acceleration = _c_int(acceleration)
    return 1 if acceleration <= 1 else -min(acceleration, _LZ4_MAX_ACCELERATION)


def deflate_level(level: Any, fmt: str = "zlib") -> int:
    """zlib/gzip level -> opencomp (libdeflate) level, as Python's zlib takes
    it: -1 is zlib's default (6), 0..9 as given (0, stored, compresses at 1).
    Other values raise what numcodecs' Zlib (zlib.error) or GZip (ValueError)
    raises when it encodes."""
    level = operator.index(level)
    if level == -1:
        return _DEFLATE_DEFAULT
    if not 0 <= level <= 9:
        if fmt == "gzip":
            raise ValueError("Invalid initialization option")
        raise _zlib.error("Bad compression level")
    return max(1, level)


def decode_level(mapping: Any, *args: Any) -> int:
    """mapping(*args), or 0 (opencomp's default) where the setting is one stock
    refuses: used for the Codec that decodes, which no setting may break."""
    try:
        return mapping(*args)
    except (TypeError, ValueError, OverflowError, _zlib.error):
        return 0


# ---------------------------------------------------------------- errors


class DecodeError(opencomp.Error):
    """A chunk failed to decode.  A RuntimeError, as numcodecs' Zstd and LZ4
    raise; ``status`` (opencomp.Status) and ``chunk`` (index in a batch, or
    None) say which and why."""


class ZlibDecodeError(DecodeError, _zlib.error):
    """Zlib: also a ``zlib.error``, as numcodecs' Zlib raises."""


class GZipDecodeError(DecodeError, _gzip.BadGzipFile, _zlib.error):
    """GZip: also a ``gzip.BadGzipFile`` (an OSError) and a ``zlib.error``, the
    two numcodecs' GZip raises (for a bad member header or trailer, and for
    bad deflate data)."""


class GZipEOFError(GZipDecodeError, EOFError):
    """GZip, the stream ends early: also an ``EOFError``, as Python's gzip raises."""


class BufferTooSmallError(DecodeError, ValueError):
    """``out`` is smaller than the decoded chunk (or an LZ4 chunk is shorter
    than its size prefix): also a ``ValueError``, as numcodecs raises."""


_NAMES = {"zstd": "Zstd", "lz4": "LZ4", "zlib": "Zlib", "gzip": "GZip"}


def decode_error(failure: ChunkFailure, codec_id: str, n: int) -> DecodeError:
    """The exception for one failed chunk of a batch of n: numcodecs' type and wording, plus .status/.chunk."""
    name = _NAMES.get(codec_id, codec_id)
    where = f" for chunk {failure.index} of {n}" if n > 1 else ""
    if failure.status == opencomp.Status.OUTPUT_TOO_SMALL or failure.message == LZ4_SHORT:
        cls = BufferTooSmallError
        what = "destination buffer too small" if failure.status == opencomp.Status.OUTPUT_TOO_SMALL else "bad input data"
    else:
        cls = {"zlib": ZlibDecodeError, "gzip": GZipDecodeError}.get(codec_id, DecodeError)
        if codec_id == "gzip" and failure.status == opencomp.Status.TRUNCATED:
            cls = GZipEOFError
        what = "invalid input data"
    err = cls(f"{name} decompression error{where}: {what} ({failure.message})")
    err.status = failure.status
    err.chunk = failure.index if n > 1 else None
    return err


def raise_failure(failure: ChunkFailure, codec_name: str, n: int) -> None:
    """Raise decode_error() for one failed chunk of a batch of n."""
    raise decode_error(failure, codec_name, n)


# ---------------------------------------------------------------- buffers


def _device_flat(buf: Any, max_buffer_size: Optional[int] = None) -> Any:
    """A device array as a 1-D CuPy view in memory order (numcodecs' rules)."""
    import cupy  # type: ignore  # device data implies CuPy

    a = memory_order_flat(cupy.asarray(buf))
    if max_buffer_size is not None and a.nbytes > max_buffer_size:
        raise ValueError(f"Codec does not support buffers of > {max_buffer_size} bytes")
    return a


def _flat(buf: Any, max_buffer_size: Optional[int] = None) -> Any:
    """buf as numcodecs' codecs see it: a 1-D view of its memory in memory order
    (Fortran-ordered arrays are not reordered), no copy.  Object arrays raise
    TypeError, non-contiguous ones ValueError, as in numcodecs."""
    if is_device_array(buf):
        return _device_flat(buf, max_buffer_size)
    a = ensure_contiguous_ndarray_like(buf, max_buffer_size=max_buffer_size)
    if a.dtype.hasobject:  # object fields of a structured array: pointers, not data
        raise TypeError("object arrays are not supported")
    return a


class _OpencompCodec(_NumcodecsCodec):
    """Shared decode/encode over a BatchCodec; subclasses set codec_id and _fmt."""

    codec_id: Optional[str] = None
    _fmt = ""
    max_buffer_size: Optional[int] = None

    def _levels(self, decode_only: bool) -> tuple:
        """(opencomp level, zstd checksum) of the current settings; with
        decode_only a setting stock refuses gives the default instead of raising."""
        raise NotImplementedError

    @property
    def _batch(self) -> BatchCodec:
        # Settings are plain attributes that callers may change: the BatchCodec
        # follows them.  It decodes whatever they are.
        key = self._levels(True)
        cached = self.__dict__.get("_oc_batch")
        if cached is None or cached[0] != key:
            cached = (key, BatchCodec(self._fmt, key[0], zstd_checksum=key[1]))
            self.__dict__["_oc_batch"] = cached
        return cached[1]

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_oc_")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def encode(self, buf: Any) -> Any:
        """Compress one buffer in memory order.  Host data gives ``bytes``, as
        numcodecs returns; device data a CuPy uint8 array."""
        self._levels(False)  # a setting numcodecs refuses raises here, as it does there
        r = self._batch.encode([_flat(buf, self.max_buffer_size)])[0]
        return r if is_device_array(r) else r.tobytes()

    def decode(self, buf: Any, out: Any = None) -> Any:
        """Decompress one buffer.  Without ``out``: ``bytes``, as numcodecs
        returns (a CuPy array for device data).  With ``out`` (any writable
        array or buffer of at least the decoded size, filled from its start in
        memory order, as numcodecs fills it): returns ``out``."""
        src = _flat(buf, self.max_buffer_size)
        if out is None:
            res, fails = self._batch.decode([src])
            if fails:
                raise decode_error(fails[0], self.codec_id or "", 1)
            return res[0] if is_device_array(res[0]) else res[0].tobytes()
        self._decode_into([src], [_flat(out)], exact=False)
        return out

    def encode_batch(self, bufs: Sequence[Any]) -> List[Any]:
        """Compress a list of buffers in one opencomp call: a list of uint8
        arrays (numpy, or CuPy for device data), views of one block."""
        self._levels(False)
        return self._batch.encode([_flat(b, self.max_buffer_size) for b in bufs])

    def decode_batch(self, bufs: Sequence[Any], out: Optional[Sequence[Any]] = None) -> List[Any]:
        """Decompress a list of buffers in one opencomp call.

        Without ``out``: a list of uint8 arrays (numpy, or CuPy for device
        data).  With ``out`` (one buffer per input, each exactly its chunk's
        decoded size, e.g. slices of one large array) the chunks decode in
        place and ``out`` is returned; a chunk of another size fails with
        SIZE_MISMATCH.
        """
        bufs = [_flat(b, self.max_buffer_size) for b in bufs]
        if out is None:
            res, fails = self._batch.decode(bufs)
            if fails:
                raise decode_error(fails[0], self.codec_id or "", len(bufs))
            return res
        if len(out) != len(bufs):
            raise ValueError("out must have one buffer per input")
        self._decode_into(bufs, [_flat(o) for o in out], exact=True)
        return list(out)

    def _decode_into(self, bufs: List[Any], outs: List[Any], exact: bool) -> None:
        """Decode flat inputs straight into flat outputs, each of exactly the
        decoded size (exact) or at least it (filled from the start)."""
        n = len(bufs)
        name = self.codec_id or ""
        if n == 0:
            return
        # Device outputs decode on the GPU: host inputs go there first (one copy each).
        device = is_device_array(bufs[0]) or is_device_array(outs[0])
        views = [_writable_bytes(o) for o in outs]
        srcs = [as_u8(b if is_device_array(b) else as_u8(b, False), device) for b in bufs]
        dsts, sizes = list(views), [int(v.size) for v in views] if exact else None
        if self._fmt == "lz4":
            # the size prefix says how much of out the block fills
            srcs, prefixes, fails = self._batch.strip_lz4_prefix(srcs, device)
            if fails:
                raise decode_error(fails[0], name, n)
            for i, (size, v) in enumerate(zip(prefixes, views)):
                if size > v.size or (exact and size != v.size):
                    status = opencomp.Status.OUTPUT_TOO_SMALL if size > v.size else opencomp.Status.SIZE_MISMATCH
                    msg = f"{status.name}: the chunk decodes to {size} bytes, out holds {v.size}"
                    raise decode_error(ChunkFailure(i, status, msg), name, n)
            dsts, sizes = [v[:size] for v, size in zip(views, prefixes)], prefixes
        kw = {"uncomp_sizes": sizes} if sizes is not None else {}
        try:
            _res, statuses = self._batch.codec.decode(srcs, out=dsts, errors="status", **kw)
        except opencomp.Error as e:
            if e.status not in _NO_ENGINE:
                raise
            statuses = [e.status]
        if not all(s in _NO_ENGINE for s in statuses):
            for i, s in enumerate(statuses):
                if s != opencomp.Status.OK:
                    raise decode_error(ChunkFailure(i, s, describe(s)), name, n)
            return
        # Device data whose algorithm has no GPU kernel in this build: decode
        # (on the CPU, one copy to the device), check the size, copy.
        res, fails = self._batch.decode(bufs)
        if fails:
            raise decode_error(fails[0], name, n)
        for i, (r, v) in enumerate(zip(res, views)):
            if v.size < r.size or (exact and v.size != r.size):
                status = opencomp.Status.OUTPUT_TOO_SMALL if v.size < r.size else opencomp.Status.SIZE_MISMATCH
                msg = f"{status.name}: the chunk decodes to {r.size} bytes, out holds {v.size}"
                raise decode_error(ChunkFailure(i, status, msg), name, n)
            v[: r.size] = r

    # __repr__, get_config and __eq__ are numcodecs' own (sorted public
    # attributes), so a codec looks the same whichever class serves its id.


def _writable_bytes(o: Any) -> Any:
    if is_device_array(o):
        import cupy  # type: ignore

        return cupy.asarray(o).reshape(-1).view(cupy.uint8)
    return o.reshape(-1).view(np.uint8)


class Zstd(_OpencompCodec):
    """numcodecs ``zstd``: zstd frames.  ``level`` as numcodecs takes it
    (negative = fast, 0 = default 3, up to 22; above 22 compresses at 22,
    below -7 at -7), ``checksum`` (write a content checksum: done on the CPU
    through numcodecs' zstd module; checksums present are always verified on
    decode)."""

    codec_id = "zstd"
    _fmt = "zstd"

    def __init__(self, level: int = 0, checksum: bool = False) -> None:
        self.level = level
        self.checksum = checksum

    def _levels(self, decode_only: bool) -> tuple:
        level = decode_level(zstd_level, self.level) if decode_only else zstd_level(self.level)
        return level, bool(self.checksum)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(level={self.level!r})"  # numcodecs' Zstd leaves checksum out

    # The level range of the zstd library numcodecs reports (libzstd 1.5:
    # ZSTD_defaultCLevel, ZSTD_minCLevel, ZSTD_maxCLevel).  Every level in it
    # is accepted; opencomp compresses those below -7 at -7.
    @classmethod
    def default_level(cls) -> int:
        """zstd's default compression level (3), used for level 0."""
        return 3

    @classmethod
    def min_level(cls) -> int:
        """The lowest level accepted (zstd's, -131072; below -7 compresses at -7)."""
        return -131072

    @classmethod
    def max_level(cls) -> int:
        """The highest level (22; higher levels compress at 22)."""
        return 22


class LZ4(_OpencompCodec):
    """numcodecs ``lz4``: 4-byte little-endian size, then an LZ4 block.
    ``acceleration`` as numcodecs takes it (<= 1: LZ4's default; higher =
    faster, less compression, capped at 65536 as LZ4 caps it).  Buffers over
    ``max_buffer_size`` bytes raise ValueError, as in numcodecs."""

    codec_id = "lz4"
    _fmt = "lz4"
    max_buffer_size = 0x7E000000

    def __init__(self, acceleration: int = 1) -> None:
        self.acceleration = acceleration

    def _levels(self, decode_only: bool) -> tuple:
        a = decode_level(lz4_level, self.acceleration) if decode_only else lz4_level(self.acceleration)
        return a, False

    def __repr__(self) -> str:
        return f"{type(self).__name__}(acceleration={self.acceleration!r})"


class Zlib(_OpencompCodec):
    """numcodecs ``zlib``: an RFC 1950 stream; ``level`` -1 (zlib's default, 6)
    or 0..9 (0 compresses at 1); other levels raise zlib.error on encode, as
    in numcodecs, and decode all the same."""

    codec_id = "zlib"
    _fmt = "zlib"

    def __init__(self, level: int = 1) -> None:
        self.level = level

    def _levels(self, decode_only: bool) -> tuple:
        if decode_only:
            return decode_level(deflate_level, self.level, "zlib"), False
        return deflate_level(self.level, "zlib"), False


class GZip(_OpencompCodec):
    """numcodecs ``gzip``: RFC 1952 members; ``level`` -1 (zlib's default, 6) or
    0..9 (0 compresses at 1); other levels raise ValueError on encode, as in
    numcodecs, and decode all the same."""

    codec_id = "gzip"
    _fmt = "gzip"

    def __init__(self, level: int = 1) -> None:
        self.level = level

    def _levels(self, decode_only: bool) -> tuple:
        if decode_only:
            return decode_level(deflate_level, self.level, "gzip"), False
        return deflate_level(self.level, "gzip"), False


# Blosc uses the helpers above: imported last.
from ._blosc import Blosc, BloscDecodeError  # noqa: E402

_CLASSES = (Zstd, LZ4, Zlib, GZip, Blosc)


def register() -> None:
    """Make these classes serve the stock ids zstd, lz4, zlib, gzip and blosc in numcodecs.get_codec."""
    import numcodecs

    for cls in _CLASSES:
        numcodecs.register_codec(cls)


def unregister() -> None:
    """Give the stock ids back to numcodecs' own classes."""
    import numcodecs
    import numcodecs.blosc
    import numcodecs.gzip
    import numcodecs.lz4
    import numcodecs.zlib
    import numcodecs.zstd

    stock = (numcodecs.zstd.Zstd, numcodecs.lz4.LZ4, numcodecs.zlib.Zlib, numcodecs.gzip.GZip, numcodecs.blosc.Blosc)
    for cls in stock:
        numcodecs.register_codec(cls)
