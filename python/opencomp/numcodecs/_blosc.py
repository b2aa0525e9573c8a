"""numcodecs ``blosc`` backed by opencomp: c-blosc 1.x chunks, as numcodecs'
Blosc (zarr v2's default compressor) reads and writes them.

Same constructor, configuration, constants and repr as numcodecs.Blosc;
buffers are compressed in memory order with the buffer's item size as the
shuffle's element size (unless ``typesize`` says otherwise), as numcodecs
does.  Host buffers run on the CPU engine (c-blosc itself); device buffers
(CuPy arrays, torch tensors) decode on the GPU, where every block and split
stream of a chunk is decoded in parallel, and ``decode(buf, out=...)`` writes
straight into the caller's array.  ``decode_batch``/``encode_batch`` run a
list of chunks as one call, as the other classes of opencomp.numcodecs do.
Every inner codec (blosclz, lz4, lz4hc, snappy, zlib, zstd) decodes on the
GPU; a device chunk the GPU reports UNSUPPORTED for (none that c-blosc 1.x
writes) would decode on the CPU and be copied back, with a
GpuFallbackWarning.

numcodecs.blosc's module functions (compress, decompress, cbuffer_sizes,
cbuffer_complib, cbuffer_metainfo, list_compressors) are here too, over
opencomp's codec.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from numcodecs.abc import Codec as _NumcodecsCodec

import opencomp

from . import DecodeError, _flat, _writable_bytes
from ._batch import GpuFallbackWarning, as_u8, describe, is_device_array

_NO_ENGINE = (opencomp.Status.UNSUPPORTED, opencomp.Status.NO_DEVICE)

__all__ = [
    "Blosc",
    "BloscDecodeError",
    "cbuffer_complib",
    "cbuffer_metainfo",
    "cbuffer_sizes",
    "compress",
    "decompress",
    "list_compressors",
]

_CNAMES = ("blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd")
_SHUFFLE_NAMES = {-1: "AUTOSHUFFLE", 0: "NOSHUFFLE", 1: "SHUFFLE", 2: "BITSHUFFLE"}
_HEADER = 16  # c-blosc's chunk header
_MAX_BUFFERSIZE = 2**31 - 1 - _HEADER  # c-blosc's BLOSC_MAX_BUFFERSIZE


class BloscDecodeError(DecodeError, RuntimeError):
    """A chunk that is not valid Blosc (RuntimeError, as numcodecs raises), with .status and .chunk."""


class Blosc(_NumcodecsCodec):
    """numcodecs ``blosc``: ``cname`` 'lz4' (default), 'blosclz', 'lz4hc',
    'snappy', 'zlib' or 'zstd'; ``clevel`` 0..9 (default 5; 0 stores the
    data); ``shuffle`` NOSHUFFLE, SHUFFLE (default), BITSHUFFLE or
    AUTOSHUFFLE (bitshuffle for 1-byte items, else byte shuffle);
    ``blocksize`` 0 (automatic) or bytes per block; ``typesize`` the
    element size (default: the buffer's item size).  Settings are checked
    when encoding, as numcodecs checks them; any chunk decodes whatever
    they are."""

    codec_id = "blosc"
    NOSHUFFLE = 0
    SHUFFLE = 1
    BITSHUFFLE = 2
    AUTOSHUFFLE = -1
    max_buffer_size = 2**31 - 1  # numcodecs' (c-blosc itself takes 16 bytes less: _MAX_BUFFERSIZE)

    def __init__(
        self, cname: str = "lz4", clevel: int = 5, shuffle: int = SHUFFLE, blocksize: int = 0, typesize: Optional[int] = None
    ) -> None:
        if isinstance(typesize, int) and typesize < 1:
            raise ValueError(f"Cannot use typesize {typesize} less than 1.")
        self.cname = cname
        self.clevel = clevel
        self.shuffle = shuffle
        self.blocksize = blocksize
        # private, as numcodecs keeps it: not in get_config() (a zarr array's
        # metadata never records it), the buffer's item size when None
        self._typesize = typesize

    @property
    def typesize(self) -> Optional[int]:
        return self._typesize

    @typesize.setter
    def typesize(self, value: Optional[int]) -> None:
        self._typesize = value

    def get_config(self) -> dict:
        return {
            "id": self.codec_id,
            "cname": self.cname,
            "clevel": self.clevel,
            "shuffle": self.shuffle,
            "blocksize": self.blocksize,
        }

    def __repr__(self) -> str:
        shuffle = _SHUFFLE_NAMES.get(self.shuffle, repr(self.shuffle))
        return (
            f"{type(self).__name__}(cname={self.cname!r}, clevel={self.clevel!r}, shuffle={shuffle}, "
            f"blocksize={self.blocksize!r})"
        )

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_oc_")}

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        if "typesize" in state:  # pickled by an opencomp that kept it public
            state["_typesize"] = state.pop("typesize")
        self.__dict__.update(state)

    # ------------------------------------------------------------ codecs

    def _codec(self, key: Tuple[Any, ...]) -> "opencomp.Codec":
        cache: Dict[Tuple[Any, ...], opencomp.Codec] = self.__dict__.setdefault("_oc_codecs", {})
        c = cache.get(key)
        if c is None:
            if key == ("decode",):
                c = opencomp.Codec("Blosc", bitstream_kind=opencomp.BitstreamKind.RAW)
            else:
                cname, clevel, shuffle, blocksize, typesize = key
                c = opencomp.Codec(
                    "Blosc",
                    bitstream_kind=opencomp.BitstreamKind.RAW,
                    cname=cname,
                    level=clevel if clevel > 0 else -1,  # opencomp's -1 is c-blosc's clevel 0
                    shuffle=shuffle,
                    blocksize=blocksize,
                    typesize=typesize,
                )
            cache[key] = c
        return c

    def _encode_key(self, itemsize: int) -> Tuple[Any, ...]:
        cname = self.cname.decode("ascii", "replace") if isinstance(self.cname, bytes) else self.cname
        if cname not in _CNAMES:
            raise ValueError(
                f"bad compressor or compressor not supported: {self.cname!r}; expected one of {list(_CNAMES)}"
            )
        if self.shuffle not in _SHUFFLE_NAMES:
            raise ValueError(f"invalid shuffle argument; expected -1, 0, 1 or 2, found {self.shuffle!r}")
        if not 0 <= int(self.clevel) <= 9:
            raise ValueError("`clevel` parameter must be between 0 and 9")
        own = getattr(self, "_typesize", None)
        if own is not None and int(own) < 1:
            raise ValueError(f"Cannot use typesize {own} less than 1.")
        typesize = int(own) if own is not None else itemsize
        if not 1 <= typesize <= 255:
            typesize = 1  # c-blosc treats element sizes above its maximum as bytes
        shuffle = int(self.shuffle)
        if shuffle == self.AUTOSHUFFLE:
            shuffle = self.BITSHUFFLE if typesize == 1 else self.SHUFFLE
        return (cname, int(self.clevel), shuffle, int(self.blocksize), typesize)

    # ------------------------------------------------------------ API

    def encode(self, buf: Any) -> Any:
        """Compress one buffer in memory order: ``bytes`` for host data, a
        CuPy uint8 array for device data."""
        a = _flat(buf, self.max_buffer_size)
        codec = self._codec(self._encode_key(int(a.dtype.itemsize)))
        if a.nbytes > _MAX_BUFFERSIZE:
            raise ValueError(f"Codec does not support buffers of > {_MAX_BUFFERSIZE} bytes (c-blosc's limit)")
        r = codec.encode(a)
        if is_device_array(a):
            import cupy  # type: ignore

            return cupy.asarray(r).view(cupy.uint8)
        return bytes(np.asarray(r).view(np.uint8))

    def decode(self, buf: Any, out: Any = None) -> Any:
        """Decompress one chunk.  Without ``out``: ``bytes`` (a CuPy array for
        device data).  With ``out`` (any writable array or buffer of at least
        the decoded size, filled from its start in memory order): ``out``."""
        src = _flat(buf, self.max_buffer_size)
        src = as_u8(src, is_device_array(src))
        nbytes = self._checked_size(src)
        device = is_device_array(src) or (out is not None and is_device_array(out))
        if out is None:
            if device:
                import cupy  # type: ignore

                dst = cupy.empty(nbytes, dtype=cupy.uint8)
            else:
                dst = np.empty(nbytes, dtype=np.uint8)
        else:
            dst = _writable_bytes(_flat(out))
            if dst.size < nbytes:
                raise _failure(opencomp.Status.OUTPUT_TOO_SMALL, f"the chunk decodes to {nbytes} bytes, out holds {dst.size}")
            dst = dst[:nbytes]
        if device and not is_device_array(src):
            import cupy  # type: ignore

            src = cupy.asarray(src)
        _res, statuses = self._codec(("decode",)).decode([src], out=[dst], errors="status")
        status = statuses[0]
        if status in (opencomp.Status.UNSUPPORTED, opencomp.Status.NO_DEVICE) and device:
            # a chunk the GPU kernel does not serve: the CPU, then one copy
            warnings.warn(f"Blosc chunk decoded on the CPU ({status.name} on the GPU)", GpuFallbackWarning, stacklevel=2)
            host = np.empty(nbytes, dtype=np.uint8)
            src_h = src.get() if hasattr(src, "get") else np.asarray(src)
            _res, statuses = self._codec(("decode",)).decode([src_h], out=[host], errors="status")
            status = statuses[0]
            if status == opencomp.Status.OK:
                dst.set(host)  # dst is on the device here
        if status != opencomp.Status.OK:
            raise _failure(status, describe(status))
        if out is not None:
            return out
        return dst if device else dst.tobytes()

    # ------------------------------------------------------------ batches

    def encode_batch(self, bufs: Sequence[Any]) -> List[Any]:
        """Compress a list of buffers (all host or all device), each as
        ``encode`` would (its own item size as typesize unless ``typesize``
        is set): a list of uint8 arrays, numpy or CuPy.  Buffers of one item
        size go through opencomp in one call."""
        flats = [_flat(b, self.max_buffer_size) for b in bufs]
        if not flats:
            return []
        device = is_device_array(flats[0])
        if any(is_device_array(a) != device for a in flats):
            raise ValueError("a batch must be all host or all device memory")
        groups: Dict[Tuple[Any, ...], List[int]] = {}
        for i, a in enumerate(flats):
            if a.nbytes > _MAX_BUFFERSIZE:
                raise ValueError(f"Codec does not support buffers of > {_MAX_BUFFERSIZE} bytes (c-blosc's limit)")
            groups.setdefault(self._encode_key(int(a.dtype.itemsize)), []).append(i)
        outs: List[Any] = [None] * len(flats)
        for key, idx in groups.items():
            res = self._codec(key).encode([flats[i] for i in idx])
            for i, r in zip(idx, res):
                outs[i] = _as_result(r, device)
        return outs

    def decode_batch(self, bufs: Sequence[Any], out: Optional[Sequence[Any]] = None) -> List[Any]:
        """Decompress a list of chunks in one opencomp call (on the GPU, every
        block and split stream of every chunk in parallel).

        Without ``out``: a list of uint8 arrays (numpy, or CuPy for device
        data), each its chunk's decoded bytes.  With ``out`` (one buffer per
        chunk, each exactly its chunk's decoded size, e.g. slices of one
        large array) the chunks decode in place and ``out`` is returned; a
        chunk of another size fails with SIZE_MISMATCH.  A bad chunk raises
        BloscDecodeError naming it (``.chunk`` is its index).
        """
        srcs = [_flat(b, self.max_buffer_size) for b in bufs]
        n = len(srcs)
        if out is not None and len(out) != n:
            raise ValueError("out must have one buffer per input")
        if n == 0:
            return [] if out is None else list(out)
        device = is_device_array(srcs[0]) or (out is not None and is_device_array(out[0]))
        srcs = [as_u8(s, is_device_array(s)) for s in srcs]
        sizes = []
        for i, src in enumerate(srcs):
            sizes.append(self._checked_size(src, i, n))
        if out is None:
            xp = _cupy_module() if device else np
            dsts = [xp.empty(k, dtype=xp.uint8) for k in sizes]
        else:
            dsts = [_writable_bytes(_flat(o)) for o in out]
            for i, (d, k) in enumerate(zip(dsts, sizes)):
                if int(d.size) != k:
                    raise _failure(
                        opencomp.Status.SIZE_MISMATCH, f"the chunk decodes to {k} bytes, out holds {d.size}", i, n
                    )
        if device:
            cp = _cupy_module()
            srcs = [s if is_device_array(s) else cp.asarray(s) for s in srcs]
        _res, statuses = self._codec(("decode",)).decode(srcs, out=dsts, errors="status")
        statuses = list(statuses)
        fallback = [i for i, st in enumerate(statuses) if device and st in _NO_ENGINE]
        if fallback:
            # chunks the GPU kernel does not serve: those on the CPU, one copy each
            warnings.warn(
                f"{len(fallback)} Blosc chunk(s) decoded on the CPU (no GPU path)", GpuFallbackWarning, stacklevel=2
            )
            hosts = [np.empty(sizes[i], dtype=np.uint8) for i in fallback]
            _res, st2 = self._codec(("decode",)).decode(
                [srcs[i].get() if hasattr(srcs[i], "get") else np.asarray(srcs[i]) for i in fallback],
                out=hosts,
                errors="status",
            )
            for i, h, st in zip(fallback, hosts, st2):
                statuses[i] = st
                if st == opencomp.Status.OK:
                    dsts[i].set(h)
        for i, st in enumerate(statuses):
            if st != opencomp.Status.OK:
                raise _failure(st, describe(st), i, n)
        return dsts if out is None else list(out)

    def _checked_size(self, src: Any, index: Optional[int] = None, n: int = 1) -> int:
        """The chunk's decoded size from its header; a header no valid chunk
        has (a size beyond c-blosc's limit, a chunk size other than the
        buffer's) raises the decoder's verdict before anything is allocated."""
        nbytes = _decoded_size(src, index, n)
        if nbytes > _MAX_BUFFERSIZE or _chunk_size(src) != src.size:
            host = src.get() if hasattr(src, "get") else src
            _res, statuses = self._codec(("decode",)).decode([host], out=[np.empty(0, np.uint8)], errors="status")
            raise _failure(statuses[0], describe(statuses[0]), index, n)
        return nbytes


def _cupy_module() -> Any:
    import cupy  # type: ignore  # device data implies CuPy

    return cupy


def _as_result(r: Any, device: bool) -> Any:
    if device:
        return _cupy_module().asarray(r).view(_cupy_module().uint8)
    return np.asarray(r).view(np.uint8)


def _header(src: Any, index: Optional[int] = None, n: int = 1) -> bytes:
    if src.size < _HEADER:
        raise _failure(
            opencomp.Status.TRUNCATED, f"{src.size} bytes: shorter than the 16-byte Blosc header", index, n
        )
    head = src[:_HEADER]
    return bytes(head.get() if hasattr(head, "get") else np.asarray(head))


def _decoded_size(src: Any, index: Optional[int] = None, n: int = 1) -> int:
    """The chunk's uncompressed size from its header (bytes 4..7, little-endian)."""
    return int.from_bytes(_header(src, index, n)[4:8], "little")


def _chunk_size(src: Any) -> int:
    """The chunk's size, header included, from its header (bytes 12..15)."""
    return int.from_bytes(_header(src)[12:16], "little")


# ---------------------------------------------------------------- numcodecs.blosc's functions
#
# numcodecs.blosc also has module functions (compress, decompress and the
# cbuffer_* header readers) that numcodecs' own test_blosc exercises; these
# are the same over opencomp's codec, so tests/numcodecs-suite runs those
# tests against opencomp too.  use_threads is numcodecs' switch between
# c-blosc's global and contextual calls; opencomp always runs contexts, so
# it is accepted and ignored.

use_threads = None
_COMPLIBS = ("BloscLZ", "LZ4", "Snappy", "Zlib", "Zstd")  # c-blosc's names by format code (flags >> 5)


def list_compressors() -> list:
    """The cnames opencomp writes (numcodecs' build lacks snappy; Debian's libblosc has it)."""
    return list(_CNAMES)


def compress(
    source: Any,
    cname: bytes,
    clevel: int,
    shuffle: int = Blosc.SHUFFLE,
    blocksize: int = 0,
    typesize: Optional[int] = None,
) -> bytes:
    """numcodecs.blosc.compress: ``cname`` as bytes (b'lz4', ...)."""
    if isinstance(cname, bytes):
        cname = cname.decode("ascii", "replace")
    return Blosc(cname=cname, clevel=clevel, shuffle=shuffle, blocksize=blocksize, typesize=typesize).encode(source)


def decompress(source: Any, dest: Any = None) -> Any:
    """numcodecs.blosc.decompress: ``bytes``, or ``dest`` filled."""
    return Blosc().decode(source, out=dest)


def cbuffer_sizes(source: Any) -> Tuple[int, int, int]:
    """(nbytes, cbytes, blocksize) from the chunk's header."""
    h = _header(as_u8(_flat(source), False))
    return tuple(int.from_bytes(h[k : k + 4], "little") for k in (4, 12, 8))  # type: ignore[return-value]


def cbuffer_complib(source: Any) -> str:
    """The inner codec's library name ('BloscLZ', 'LZ4', 'Snappy', 'Zlib', 'Zstd')."""
    code = _header(as_u8(_flat(source), False))[2] >> 5
    if code >= len(_COMPLIBS):
        raise _failure(opencomp.Status.CORRUPT, f"unknown Blosc codec format {code}")
    return _COMPLIBS[code]


def cbuffer_metainfo(source: Any) -> Tuple[int, int, bool]:
    """(typesize, shuffle, memcpyed) from the header; shuffle as numcodecs names it
    (SHUFFLE when the byte-shuffle flag is set, else BITSHUFFLE or NOSHUFFLE)."""
    h = _header(as_u8(_flat(source), False))
    flags = h[2]
    shuffle = Blosc.SHUFFLE if flags & 0x01 else Blosc.BITSHUFFLE if flags & 0x04 else Blosc.NOSHUFFLE
    return h[3], shuffle, bool(flags & 0x02)


_cbuffer_sizes = cbuffer_sizes
_cbuffer_metainfo = cbuffer_metainfo


def _failure(status: "opencomp.Status", message: str, index: Optional[int] = None, n: int = 1) -> BloscDecodeError:
    where = f" (chunk {index} of {n})" if index is not None and n > 1 else ""
    status = opencomp.Status(status)
    if not message.startswith(status.name):
        message = f"{status.name}: {message}"
    err = BloscDecodeError(f"error during blosc decompression: {message}{where}")
    err.status = status
    err.chunk = index if n > 1 else None
    return err
