"""numcodecs codecs backed by opencomp: Zstd, LZ4, Zlib, GZip.

Each class reads and writes exactly what numcodecs' codec of the same
``codec_id`` reads and writes (same configuration keys, standard streams; LZ4
keeps numcodecs' 4-byte little-endian size prefix), so data written by one
decodes with the other.  On top of numcodecs' API:

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

from typing import Any, List, Optional, Sequence

import numpy as np
from numcodecs.abc import Codec as _NumcodecsCodec

import opencomp

from ._batch import BatchCodec, ChunkFailure, GpuFallbackWarning, describe, is_device_array

__all__ = ["GZip", "GpuFallbackWarning", "LZ4", "Zlib", "Zstd", "register", "unregister"]

_NO_ENGINE = (opencomp.Status.UNSUPPORTED, opencomp.Status.NO_DEVICE)
_ZSTD_MIN, _ZSTD_MAX = -7, 22  # opencomp's zstd levels; numcodecs' lower levels clamp to -7


def zstd_level(level: int) -> int:
    """numcodecs/zarr zstd level -> opencomp level (0 = zstd's default, 3)."""
    return max(_ZSTD_MIN, min(_ZSTD_MAX, int(level)))


def deflate_level(level: int) -> int:
    """zlib level 0..9 -> opencomp (libdeflate) level 1..9; 0 (stored) compresses at 1."""
    level = int(level)
    if not 0 <= level <= 9:
        raise ValueError(f"zlib/gzip level must be 0..9, got {level}")
    return max(1, level)


def lz4_level(acceleration: int) -> int:
    """numcodecs LZ4 acceleration (>= 1 faster) -> opencomp level (1 = default, -N = acceleration N)."""
    acceleration = int(acceleration)
    return 1 if acceleration <= 1 else -acceleration


def raise_failure(failure: ChunkFailure, codec_name: str, n: int) -> None:
    """Raise opencomp.Error for one failed chunk of a batch of n."""
    where = f"chunk {failure.index} of {n}" if n > 1 else "the chunk"
    err = opencomp.Error(f"{codec_name} decode failed for {where}: {failure.message}")
    err.status = failure.status
    err.chunk = failure.index if n > 1 else None
    raise err


class _OpencompCodec(_NumcodecsCodec):
    """Shared decode/encode over a BatchCodec; subclasses set codec_id and _fmt."""

    codec_id: Optional[str] = None
    _fmt = ""

    def _batch_codec(self) -> BatchCodec:
        raise NotImplementedError

    @property
    def _batch(self) -> BatchCodec:
        b = self.__dict__.get("_oc_batch")
        if b is None:
            b = self._batch_codec()
            self.__dict__["_oc_batch"] = b
        return b

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_oc_")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def get_config(self) -> dict:
        return {"id": self.codec_id, **{k: v for k, v in self.__dict__.items() if not k.startswith("_")}}

    def encode(self, buf: Any) -> Any:
        """Compress one buffer; host data gives a numpy uint8 array, device data a CuPy array."""
        return self._batch.encode([_contiguous(buf)])[0]

    def decode(self, buf: Any, out: Any = None) -> Any:
        """Decompress one buffer; into ``out`` (exactly the decoded size, any type) if given."""
        if out is None:
            res, fails = self._batch.decode([_contiguous(buf)])
            if fails:
                raise_failure(fails[0], self.codec_id or "", 1)
            return res[0]
        self.decode_batch([buf], out=[out])
        return out

    def encode_batch(self, bufs: Sequence[Any]) -> List[Any]:
        """Compress a list of buffers in one opencomp call."""
        return self._batch.encode([_contiguous(b) for b in bufs])

    def decode_batch(self, bufs: Sequence[Any], out: Optional[Sequence[Any]] = None) -> List[Any]:
        """Decompress a list of buffers in one opencomp call.

        With ``out`` (one buffer per input, each exactly its chunk's decoded
        size, e.g. slices of one large array) the chunks decode in place and
        ``out`` is returned; a chunk of another size fails with SIZE_MISMATCH.
        """
        bufs = [_contiguous(b) for b in bufs]
        if out is None:
            res, fails = self._batch.decode(bufs)
            if fails:
                raise_failure(fails[0], self.codec_id or "", len(bufs))
            return res
        if len(out) != len(bufs):
            raise ValueError("out must have one buffer per input")
        if self._fmt != "lz4":
            sizes = [_nbytes(o) for o in out]
            try:
                _res, statuses = self._batch.codec.decode(bufs, out=list(out), uncomp_sizes=sizes, errors="status")
            except opencomp.Error as e:
                if e.status not in _NO_ENGINE:
                    raise
                statuses = [e.status]
            if not all(s in _NO_ENGINE for s in statuses):
                for i, s in enumerate(statuses):
                    if s != opencomp.Status.OK:
                        raise_failure(ChunkFailure(i, s, describe(s)), self.codec_id or "", len(bufs))
                return list(out)
        # LZ4 (the size prefix is part of the stream), or device data whose
        # algorithm has no GPU kernel here: decode, check the size, copy.
        res = self.decode_batch(bufs)
        for i, (r, o) in enumerate(zip(res, out)):
            view = _writable_bytes(o)
            if view.size != r.size:
                msg = f"SIZE_MISMATCH: decodes to {r.size} bytes, out holds {view.size}"
                raise_failure(ChunkFailure(i, opencomp.Status.SIZE_MISMATCH, msg), self.codec_id or "", len(bufs))
            view[...] = r
        return list(out)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items() if k != "id")
        return f"opencomp.numcodecs.{type(self).__name__}({params})"


def _contiguous(buf: Any) -> Any:
    if is_device_array(buf):
        return buf
    if isinstance(buf, np.ndarray):
        return np.ascontiguousarray(buf)
    return buf


def _nbytes(o: Any) -> int:
    if is_device_array(o):
        cai = o.__cuda_array_interface__
        n = 1
        for d in cai["shape"]:
            n *= d
        return n * np.dtype(cai["typestr"]).itemsize
    if isinstance(o, np.ndarray):
        return o.nbytes
    return memoryview(o).nbytes


def _writable_bytes(o: Any) -> Any:
    if is_device_array(o):
        import cupy  # type: ignore

        return cupy.asarray(o).reshape(-1).view(cupy.uint8)
    if isinstance(o, np.ndarray):
        return o.reshape(-1).view(np.uint8)
    return np.frombuffer(memoryview(o).cast("B"), dtype=np.uint8)


class Zstd(_OpencompCodec):
    """numcodecs ``zstd``: zstd frames.  ``level`` (negative = fast, 0 = default 3,
    up to 22; levels below -7 compress at -7), ``checksum`` (write a content
    checksum: done on the CPU through numcodecs; checksums present are always
    verified on decode)."""

    codec_id = "zstd"
    _fmt = "zstd"

    def __init__(self, level: int = 0, checksum: bool = False) -> None:
        self.level = int(level)
        self.checksum = bool(checksum)

    def _batch_codec(self) -> BatchCodec:
        return BatchCodec("zstd", zstd_level(self.level), zstd_checksum=self.checksum)


class LZ4(_OpencompCodec):
    """numcodecs ``lz4``: 4-byte little-endian size, then an LZ4 block.
    ``acceleration`` >= 1 (higher = faster, less compression)."""

    codec_id = "lz4"
    _fmt = "lz4"

    def __init__(self, acceleration: int = 1) -> None:
        self.acceleration = int(acceleration)

    def _batch_codec(self) -> BatchCodec:
        return BatchCodec("lz4", lz4_level(self.acceleration))


class Zlib(_OpencompCodec):
    """numcodecs ``zlib``: an RFC 1950 stream; ``level`` 0..9 (0 compresses at 1)."""

    codec_id = "zlib"
    _fmt = "zlib"

    def __init__(self, level: int = 1) -> None:
        deflate_level(level)
        self.level = int(level)

    def _batch_codec(self) -> BatchCodec:
        return BatchCodec("zlib", deflate_level(self.level))


class GZip(_OpencompCodec):
    """numcodecs ``gzip``: RFC 1952 members; ``level`` 0..9 (0 compresses at 1)."""

    codec_id = "gzip"
    _fmt = "gzip"

    def __init__(self, level: int = 1) -> None:
        deflate_level(level)
        self.level = int(level)

    def _batch_codec(self) -> BatchCodec:
        return BatchCodec("gzip", deflate_level(self.level))


_CLASSES = (Zstd, LZ4, Zlib, GZip)


def register() -> None:
    """Make these classes serve the stock ids zstd, lz4, zlib, gzip in numcodecs.get_codec."""
    import numcodecs

    for cls in _CLASSES:
        numcodecs.register_codec(cls)


def unregister() -> None:
    """Give the stock ids back to numcodecs' own classes."""
    import numcodecs
    import numcodecs.gzip
    import numcodecs.lz4
    import numcodecs.zlib
    import numcodecs.zstd

    for cls in (numcodecs.zstd.Zstd, numcodecs.lz4.LZ4, numcodecs.zlib.Zlib, numcodecs.gzip.GZip):
        numcodecs.register_codec(cls)
