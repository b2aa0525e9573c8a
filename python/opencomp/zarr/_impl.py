"""The implementation of opencomp.zarr (imports zarr); see opencomp/zarr/__init__.py."""


from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Tuple

import numpy as np
import zarr
import zarr.codecs
import zarr.codecs.numcodecs as _zn
from zarr.core.codec_pipeline import BatchedCodecPipeline
from zarr.registry import register_codec, register_pipeline

import opencomp

from ..numcodecs import decode_level, deflate_level, lz4_level, zstd_level
from ..numcodecs._batch import BatchCodec, ChunkFailure, GpuFallbackWarning, is_device_array
from . import _fastread

__all__ = [
    "ChunkDecodeError",
    "GpuFallbackWarning",
    "GzipCodec",
    "NumcodecsGZip",
    "NumcodecsLZ4",
    "NumcodecsZlib",
    "NumcodecsZstd",
    "OpencompCodecPipeline",
    "ZstdCodec",
    "disable",
    "enable",
]


class ChunkDecodeError(opencomp.Error):
    """A zarr chunk failed to decode.

    ``status``: the opencomp.Status; ``chunk``: its index in the batch the codec
    saw (None once the key is known); ``key``: the chunk's store key when the
    array was opened with OpencompCodecPipeline (``enable()``), else None;
    ``codec``: the zarr codec name.
    """

    def __init__(self, message: str, *, status: Any, chunk: Optional[int], key: Optional[str], codec: str,
                 batch_len: int = 1, reason: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.chunk = chunk
        self.key = key
        self.codec = codec
        self.batch_len = batch_len
        self.reason = reason

    def __reduce__(self):
        return (_rebuild_error, (self.args[0] if self.args else "", self.status, self.chunk, self.key, self.codec,
                                 self.batch_len, self.reason))


def _rebuild_error(message, status, chunk, key, codec, batch_len, reason):
    return ChunkDecodeError(message, status=status, chunk=chunk, key=key, codec=codec, batch_len=batch_len,
                            reason=reason)


def _spec_nbytes(spec: Any) -> Optional[int]:
    """Decoded size of a chunk of this spec if its dtype is fixed-size (a capacity hint)."""
    try:
        dt = np.dtype(spec.dtype.to_native_dtype())
    except Exception:
        return None
    if dt.hasobject or dt.itemsize == 0:
        return None
    return int(math.prod(spec.shape)) * dt.itemsize


def _to_buffer(arr: Any, spec: Any) -> Any:
    """A decoded/encoded uint8 array as the prototype's Buffer (no copy when the memory kinds agree)."""
    buffer_cls = spec.prototype.buffer
    if is_device_array(arr) and buffer_cls.__module__.startswith("zarr.core.buffer.cpu"):
        import cupy  # type: ignore

        arr = cupy.asnumpy(arr)
    return buffer_cls.from_array_like(arr)


class _OpencompBatchMixin:
    """Batch decode/encode of a zarr BytesBytesCodec through one BatchCodec call."""

    _oc_fmt = ""

    def _oc_make_batch(self) -> BatchCodec:
        """The BatchCodec of the current settings; it must decode whatever
        they are (a setting the stock codec refuses compresses at the default)."""
        raise NotImplementedError

    def _oc_check_encode(self) -> None:
        """Raise what the stock codec raises when it encodes with a setting it refuses."""

    @property
    def _oc_batch(self) -> BatchCodec:
        b = self.__dict__.get("_oc_batch_codec")
        if b is None:
            b = self._oc_make_batch()
            self.__dict__["_oc_batch_codec"] = b  # frozen dataclass: bypass __setattr__
        return b

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_oc_")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    @property
    def _oc_name(self) -> str:
        return self.to_dict()["name"]  # type: ignore[attr-defined]

    def _oc_decode_items(self, items: List[Tuple[Any, Any]]) -> List[Any]:
        out: List[Any] = [None] * len(items)
        groups: dict = {False: [], True: []}
        for i, (buf, spec) in enumerate(items):
            if buf is None:
                continue
            arr = buf.as_array_like()
            groups[is_device_array(arr)].append((i, arr, spec))
        for grp in groups.values():
            if not grp:
                continue
            res, fails = self._oc_batch.decode([a for _, a, _ in grp], [_spec_nbytes(s) for _, _, s in grp])
            if fails:
                raise self._oc_error(fails[0], grp[fails[0].index][0], len(items))
            for (i, _, spec), r in zip(grp, res):
                out[i] = _to_buffer(r, spec)
        return out

    def _oc_error(self, failure: ChunkFailure, index: int, n: int) -> ChunkDecodeError:
        name = self._oc_name
        msg = (
            f"zarr codec {name!r} (opencomp): chunk {index} of the {n} in this batch failed to decode: "
            f"{failure.message}. Open the array after opencomp.zarr.enable() to have the chunk key named."
        )
        return ChunkDecodeError(msg, status=failure.status, chunk=index, key=None, codec=name, batch_len=n,
                                reason=failure.message)

    def _oc_encode_items(self, items: List[Tuple[Any, Any]]) -> List[Any]:
        out: List[Any] = [None] * len(items)
        groups: dict = {False: [], True: []}
        for i, (buf, spec) in enumerate(items):
            if buf is None:
                continue
            arr = buf.as_array_like()
            groups[is_device_array(arr)].append((i, arr, spec))
        if any(groups.values()):
            self._oc_check_encode()
        for grp in groups.values():
            if grp:
                res = self._oc_batch.encode([a for _, a, _ in grp])
                for (i, _, spec), r in zip(grp, res):
                    out[i] = _to_buffer(r, spec)
        return out

    async def decode(self, chunks_and_specs: Iterable[Tuple[Any, Any]]) -> Iterable[Any]:
        items = list(chunks_and_specs)
        if not any(b is not None for b, _ in items):
            return [None] * len(items)
        return await asyncio.to_thread(self._oc_decode_items, items)

    async def encode(self, chunks_and_specs: Iterable[Tuple[Any, Any]]) -> Iterable[Any]:
        items = list(chunks_and_specs)
        if not any(b is not None for b, _ in items):
            return [None] * len(items)
        return await asyncio.to_thread(self._oc_encode_items, items)

    async def _decode_single(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
        return (await self.decode([(chunk_bytes, chunk_spec)]))[0]

    async def _encode_single(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
        return (await self.encode([(chunk_bytes, chunk_spec)]))[0]

    def _decode_sync(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
        return self._oc_decode_items([(chunk_bytes, chunk_spec)])[0]

    def _encode_sync(self, chunk_bytes: Any, chunk_spec: Any) -> Any:
        return self._oc_encode_items([(chunk_bytes, chunk_spec)])[0]


class ZstdCodec(_OpencompBatchMixin, zarr.codecs.ZstdCodec):
    """zarr's ``zstd`` codec (``level``, ``checksum``) on opencomp.  Levels below -7
    compress at -7; frames with ``checksum=True`` are written on the CPU."""

    def _oc_make_batch(self) -> BatchCodec:
        return BatchCodec("zstd", decode_level(zstd_level, self.level), zstd_checksum=self.checksum)


class GzipCodec(_OpencompBatchMixin, zarr.codecs.GzipCodec):
    """zarr's ``gzip`` codec (``level`` 0..9; 0 compresses at 1) on opencomp."""

    def _oc_make_batch(self) -> BatchCodec:
        return BatchCodec("gzip", decode_level(deflate_level, self.level, "gzip"))


_BLOSC_SHUFFLE = {"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}


def _blosc_batch(cname: str, clevel: int, shuffle: int, typesize: int, blocksize: int) -> BatchCodec:
    """A BatchCodec of Blosc chunks; the settings only matter when encoding
    (decoding reads them from each chunk's header).  clevel 0 is c-blosc's
    "store", opencomp's level -1."""
    return BatchCodec("blosc", int(clevel) if int(clevel) > 0 else -1,
                      options={"cname": str(cname), "shuffle": int(shuffle),
                               "typesize": int(typesize) if 1 <= int(typesize) <= 255 else 1,
                               "blocksize": int(blocksize)})


class BloscCodec(_OpencompBatchMixin, zarr.codecs.BloscCodec):
    """zarr's ``blosc`` codec (c-blosc 1.x chunks: ``cname``, ``clevel``,
    ``shuffle``, ``typesize``, ``blocksize``) on opencomp: device chunks decode
    on the GPU, each chunk's blocks in parallel."""

    def _oc_make_batch(self) -> BatchCodec:
        return _blosc_batch(self.cname.value, self.clevel, _BLOSC_SHUFFLE[self.shuffle.value], self.typesize,
                            self.blocksize)


def _cfg(codec: Any, key: str, default: Any) -> Any:
    return codec.codec_config.get(key, default)


# The numcodecs.* codecs take numcodecs' settings as numcodecs does: any value
# is stored, and only encoding looks at it (opencomp.numcodecs maps them).


class NumcodecsZstd(_OpencompBatchMixin, _zn.Zstd):
    """zarr's ``numcodecs.zstd`` (numcodecs Zstd: ``level``, ``checksum``) on opencomp."""

    def _oc_make_batch(self) -> BatchCodec:
        return BatchCodec("zstd", decode_level(zstd_level, _cfg(self, "level", 0)),
                          zstd_checksum=bool(_cfg(self, "checksum", False)))

    def _oc_check_encode(self) -> None:
        zstd_level(_cfg(self, "level", 0))


class NumcodecsLZ4(_OpencompBatchMixin, _zn.LZ4):
    """zarr's ``numcodecs.lz4`` (4-byte LE size + LZ4 block; ``acceleration``) on opencomp."""

    def _oc_make_batch(self) -> BatchCodec:
        return BatchCodec("lz4", decode_level(lz4_level, _cfg(self, "acceleration", 1)))

    def _oc_check_encode(self) -> None:
        lz4_level(_cfg(self, "acceleration", 1))


class NumcodecsZlib(_OpencompBatchMixin, _zn.Zlib):
    """zarr's ``numcodecs.zlib`` (``level`` -1 or 0..9) on opencomp."""

    def _oc_make_batch(self) -> BatchCodec:
        return BatchCodec("zlib", decode_level(deflate_level, _cfg(self, "level", 1), "zlib"))

    def _oc_check_encode(self) -> None:
        deflate_level(_cfg(self, "level", 1), "zlib")


class NumcodecsGZip(_OpencompBatchMixin, _zn.GZip):
    """zarr's ``numcodecs.gzip`` (``level`` -1 or 0..9) on opencomp."""

    def _oc_make_batch(self) -> BatchCodec:
        return BatchCodec("gzip", decode_level(deflate_level, _cfg(self, "level", 1), "gzip"))

    def _oc_check_encode(self) -> None:
        deflate_level(_cfg(self, "level", 1), "gzip")


class NumcodecsBlosc(_OpencompBatchMixin, _zn.Blosc):
    """zarr's ``numcodecs.blosc`` (numcodecs Blosc: ``cname``, ``clevel``,
    ``shuffle`` -1..2, ``blocksize``) on opencomp."""

    def _oc_make_batch(self) -> BatchCodec:
        shuffle = int(_cfg(self, "shuffle", 1))
        typesize = int(_cfg(self, "typesize", 0) or 0) or 1
        if shuffle == -1:  # AUTOSHUFFLE, as numcodecs resolves it
            shuffle = 2 if typesize == 1 else 1
        return _blosc_batch(_cfg(self, "cname", "lz4"), _cfg(self, "clevel", 5), shuffle, typesize,
                            _cfg(self, "blocksize", 0))


# zarr codec name -> (opencomp class, stock class path)
CODECS = {
    "zstd": (ZstdCodec, "zarr.codecs.zstd.ZstdCodec"),
    "gzip": (GzipCodec, "zarr.codecs.gzip.GzipCodec"),
    "blosc": (BloscCodec, "zarr.codecs.blosc.BloscCodec"),
    "numcodecs.blosc": (NumcodecsBlosc, "zarr.codecs.numcodecs.Blosc"),
    "numcodecs.zstd": (NumcodecsZstd, "zarr.codecs.numcodecs.Zstd"),
    "numcodecs.lz4": (NumcodecsLZ4, "zarr.codecs.numcodecs.LZ4"),
    "numcodecs.zlib": (NumcodecsZlib, "zarr.codecs.numcodecs.Zlib"),
    "numcodecs.gzip": (NumcodecsGZip, "zarr.codecs.numcodecs.GZip"),
}


def _qualname(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# ---------------------------------------------------------------- the pipeline


def _getter_key(getter: Any) -> Tuple[str, bool]:
    """(description, is_inner) of a ByteGetter: a store key, or a shard's inner chunk."""
    coords = getattr(getter, "chunk_coords", None)
    if coords is not None and not hasattr(getter, "store"):
        return f"inner chunk {tuple(coords)}", True
    path = getattr(getter, "path", None)
    store = getattr(getter, "store", None)
    if path is not None:
        return (f"{path!r} in {store}" if store is not None else repr(path)), False
    return repr(getter), False


@dataclass(frozen=True)
class OpencompCodecPipeline(BatchedCodecPipeline):
    """zarr's BatchedCodecPipeline, plus chunk keys in decode errors.

    When an opencomp codec fails on a chunk, the ChunkDecodeError raised names
    the chunk's store key (``'arr/c/1/0' in file:///data.zarr``) and, for
    sharded arrays, the inner chunk of the shard (``..., inner chunk (0, 2)``).
    Basic selections of plain arrays (``bytes`` + one opencomp codec, or
    shards of such chunks) take the direct read of _fastread.py: the chunk files in one buffer, one
    decode call straight into the output, no per-chunk zarr work; other
    reads of them into device memory take one host-to-device copy and one
    decode call a batch.  Reading is otherwise the stock pipeline's, batch
    for batch.
    """

    async def read(self, batch_info: Any, out: Any, drop_axes: Tuple[int, ...] = ()) -> None:
        batch_info = list(batch_info)
        codec = _fastread.plan(self)
        if codec is not None:
            try:
                if await _fastread.read_selection(codec, batch_info, out, drop_axes):
                    return
            except opencomp.Error as e:
                raise await self._named(e, batch_info) from e
        await super().read(batch_info, out, drop_axes)

    async def read_batch(self, batch_info: Any, out: Any, drop_axes: Tuple[int, ...] = ()) -> None:
        batch_info = list(batch_info)
        try:
            codec = _fastread.plan(self)
            if codec is not None and await _fastread.read_batch(codec, batch_info, out, drop_axes):
                return
            await super().read_batch(batch_info, out, drop_axes)
        except opencomp.Error as e:
            raise await self._named(e, batch_info) from e

    async def write_batch(self, batch_info: Any, value: Any, drop_axes: Tuple[int, ...] = ()) -> None:
        batch_info = list(batch_info)
        try:
            await super().write_batch(batch_info, value, drop_axes)
        except opencomp.Error as e:
            raise await self._named(e, batch_info) from e

    async def _locate(self, batch_info: List[Any]) -> Optional[int]:
        """Index of the first entry of batch_info that fails to decode on its own."""
        for i, (getter, spec, *_rest) in enumerate(batch_info):
            try:
                chunk = await getter.get(prototype=spec.prototype)
                await self.decode_batch([(chunk, spec)])
            except opencomp.Error:
                return i
        return None

    async def _named(self, e: Exception, batch_info: List[Any]) -> Exception:
        codec = getattr(e, "codec", None)
        reason = getattr(e, "reason", "") or str(e)
        inner = getattr(e, "key", None)
        index = getattr(e, "chunk", None)
        if not (isinstance(e, ChunkDecodeError) and index is not None and e.batch_len == len(batch_info)):
            index = 0 if len(batch_info) == 1 else await self._locate(batch_info)
        if index is None:
            return e
        where, is_inner = _getter_key(batch_info[index][0])
        key = f"{where}, {inner}" if inner else where
        if is_inner:
            # A shard's own pipeline: the outer pipeline adds the shard's key.
            return ChunkDecodeError(f"{where}: {reason}", status=getattr(e, "status", None), chunk=None, key=key,
                                    codec=codec or "", reason=reason)
        msg = f"zarr chunk {key}" + (f": {codec} decode failed" if codec else "") + f": {reason}"
        return ChunkDecodeError(msg, status=getattr(e, "status", None), chunk=None, key=key, codec=codec or "",
                                reason=reason)


# ---------------------------------------------------------------- registration


# The public names live in opencomp.zarr (this module is its implementation,
# loaded on first use): zarr's config and pickle name them there.
for _cls in (ChunkDecodeError, OpencompCodecPipeline, *(cls for cls, _stock in CODECS.values())):
    _cls.__module__ = "opencomp.zarr"


def _register() -> None:
    for name, (cls, _stock) in CODECS.items():
        register_codec(name, cls)
    register_pipeline(OpencompCodecPipeline)


_register()

_STOCK_PIPELINE = "zarr.core.codec_pipeline.BatchedCodecPipeline"


def enable(*, batch_size: Optional[int] = None, pipeline: bool = True) -> Any:
    """Make opencomp's classes serve zstd, gzip, numcodecs.zstd/lz4/zlib/gzip.

    Sets zarr.config (``codecs.<name>``, and ``codec_pipeline.path`` to
    OpencompCodecPipeline unless ``pipeline=False``; ``codec_pipeline.batch_size``
    if given).  Arrays opened afterwards use them (an array keeps the classes
    it was opened with).  Returns zarr's config-set object: call it once at
    start-up, or use ``with opencomp.zarr.enable(): ...`` to undo on exit.
    """
    codecs = dict(zarr.config.get("codecs"))
    for name, (cls, _stock) in CODECS.items():
        codecs[name] = _qualname(cls)
    changes: dict = {"codecs": codecs}
    if pipeline:
        changes["codec_pipeline.path"] = _qualname(OpencompCodecPipeline)
    if batch_size is not None:
        if int(batch_size) < 1:
            raise ValueError("batch_size must be >= 1")
        changes["codec_pipeline.batch_size"] = int(batch_size)
    return zarr.config.set(changes)


def disable() -> None:
    """Point zarr's config back at its own codec classes and pipeline.

    ``codec_pipeline.batch_size`` is left as it is (it helps zarr's own codecs
    too); arrays opened while enabled keep opencomp's classes."""
    codecs = dict(zarr.config.get("codecs"))
    for name, (_cls, stock) in CODECS.items():
        codecs[name] = stock
    changes: dict = {"codecs": codecs}
    if zarr.config.get("codec_pipeline.path") == _qualname(OpencompCodecPipeline):
        changes["codec_pipeline.path"] = _STOCK_PIPELINE
    zarr.config.set(changes)


def enabled() -> bool:
    """True if zarr's config currently selects opencomp's class for every codec name above."""
    codecs = zarr.config.get("codecs")
    return all(codecs.get(name) == _qualname(cls) for name, (cls, _s) in CODECS.items())
