"""numcodecs ``blosc`` backed by opencomp: c-blosc 1.x chunks, as numcodecs'
Blosc (zarr v2's default compressor) reads and writes them.

Same constructor, configuration, constants and repr as numcodecs.Blosc;
buffers are compressed in memory order with the buffer's item size as the
shuffle's element size (unless ``typesize`` says otherwise), as numcodecs
does.  Host buffers run on the CPU engine (c-blosc itself); device buffers
(CuPy arrays, torch tensors) decode on the GPU, where every block and split
stream of a chunk is decoded in parallel, and ``decode(buf, out=...)`` writes
straight into the caller's array.  Blosc's zlib inner codec has no GPU
kernel yet: such device chunks decode on the CPU and are copied back, with a
GpuFallbackWarning.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, Optional, Tuple

import numpy as np
from numcodecs.abc import Codec as _NumcodecsCodec

import opencomp

from . import DecodeError, _flat, _writable_bytes
from ._batch import GpuFallbackWarning, as_u8, describe, is_device_array

__all__ = ["Blosc", "BloscDecodeError"]

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
    max_buffer_size = _MAX_BUFFERSIZE

    def __init__(
        self, cname: str = "lz4", clevel: int = 5, shuffle: int = SHUFFLE, blocksize: int = 0, typesize: Optional[int] = None
    ) -> None:
        self.cname = cname
        self.clevel = clevel
        self.shuffle = shuffle
        self.blocksize = blocksize
        self.typesize = typesize

    def get_config(self) -> dict:
        config = {"id": self.codec_id, "cname": self.cname, "clevel": self.clevel, "shuffle": self.shuffle}
        config["blocksize"] = self.blocksize
        if self.typesize is not None:
            config["typesize"] = self.typesize
        return config

    def __repr__(self) -> str:
        shuffle = _SHUFFLE_NAMES.get(self.shuffle, repr(self.shuffle))
        return (
            f"{type(self).__name__}(cname={self.cname!r}, clevel={self.clevel!r}, shuffle={shuffle}, "
            f"blocksize={self.blocksize!r})"
        )

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_oc_")}

    def __setstate__(self, state: dict) -> None:
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
        if self.cname not in _CNAMES:
            raise ValueError(
                f"bad compressor or compressor not supported: {self.cname!r}; expected one of {list(_CNAMES)}"
            )
        if self.shuffle not in _SHUFFLE_NAMES:
            raise ValueError(f"invalid shuffle argument; expected -1, 0, 1 or 2, found {self.shuffle!r}")
        if not 0 <= int(self.clevel) <= 9:
            raise ValueError("`clevel` parameter must be between 0 and 9")
        typesize = int(self.typesize) if self.typesize is not None else itemsize
        if not 1 <= typesize <= 255:
            typesize = 1  # c-blosc treats element sizes above its maximum as bytes
        shuffle = int(self.shuffle)
        if shuffle == self.AUTOSHUFFLE:
            shuffle = self.BITSHUFFLE if typesize == 1 else self.SHUFFLE
        return (self.cname, int(self.clevel), shuffle, int(self.blocksize), typesize)

    # ------------------------------------------------------------ API

    def encode(self, buf: Any) -> Any:
        """Compress one buffer in memory order: ``bytes`` for host data, a
        CuPy uint8 array for device data."""
        a = _flat(buf, self.max_buffer_size)
        codec = self._codec(self._encode_key(int(a.dtype.itemsize)))
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
        nbytes = _decoded_size(src)
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
            # an inner codec without a GPU kernel (zlib): the CPU, then one copy
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


def _decoded_size(src: Any) -> int:
    """The chunk's uncompressed size from its header (bytes 4..7, little-endian)."""
    if src.size < _HEADER:
        raise _failure(opencomp.Status.TRUNCATED, f"{src.size} bytes: shorter than the 16-byte Blosc header")
    head = src[:_HEADER]
    head = bytes(head.get() if hasattr(head, "get") else np.asarray(head))
    return int.from_bytes(head[4:8], "little")


def _failure(status: "opencomp.Status", message: str) -> BloscDecodeError:
    err = BloscDecodeError(f"error during blosc decompression: {status.name}: {message}")
    err.status = status
    err.chunk = None
    return err
