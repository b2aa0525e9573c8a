"""opencomp: batched lossless compression on NVIDIA GPUs and CPUs, in standard bitstreams.

The API mirrors ``nvidia.nvcomp`` (Codec, Array, as_array(s), from_dlpack,
BitstreamKind, ChecksumPolicy, ArrayBufferKind, CudaStream, ExternalMemory,
set_*_allocator), so code written for nvCOMP ports by changing the import::

    import opencomp as nvcomp
    codec = nvcomp.Codec(algorithm="Zstd", bitstream_kind=nvcomp.BitstreamKind.RAW)
    comp = codec.encode(numpy_array)            # no as_array needed
    codec.decode(pages, out=slices_of_one_buffer, uncomp_sizes=sizes)

Formats: LZ4 (block), Snappy (raw), Deflate (RFC 1951), Zlib, Gzip, Zstd,
Blosc, GDeflate (DirectStorage's pages; decoded and encoded on the GPU or the CPU), and nvCOMP's Cascaded, ANS and Bitcomp schemes in formats of ours
(specified in docs/FORMAT.md).
Host data runs on the CPU engine, device data on the CUDA engine. Everything
heavy lives in the C extension ``opencomp._opencomp``; this file only adds the
enums, the CudaStream wrapper and ExternalMemory.  See docs/API.md.
"""

from __future__ import annotations

import enum as _enum

from ._opencomp import (  # noqa: F401  (re-exported names)
    Array,
    Codec,
    Error,
    __version__,
    _register,
    _stream_device,
    algorithms,
    as_array,
    as_arrays,
    build_info,
    cuda_available,
    from_dlpack,
    set_device_allocator,
    set_host_allocator,
    set_pinned_allocator,
)

__all__ = [
    "Array",
    "ArrayBufferKind",
    "BitstreamKind",
    "ChecksumPolicy",
    "Codec",
    "CudaStream",
    "Error",
    "ExternalMemory",
    "Status",
    "algorithms",
    "as_array",
    "as_arrays",
    "build_info",
    "cuda_available",
    "from_dlpack",
    "set_device_allocator",
    "set_host_allocator",
    "set_pinned_allocator",
]


class BitstreamKind(_enum.IntEnum):
    """How Codec.encode lays out its output (nvidia.nvcomp.BitstreamKind).

    NVCOMP_NATIVE: the input is split into uncomp_chunk_size chunks compressed in
    parallel and written in the format's *standard* chunked container (LZ4 frame,
    Zstandard seekable, multi-member gzip, snappy framing), readable by the stock
    tools -- not nvCOMP's private container.
    RAW: one bare stream of the algorithm.
    WITH_UNCOMPRESSED_SIZE: an 8-byte little-endian uncompressed size, then RAW.
    """

    NVCOMP_NATIVE = 0
    RAW = 1
    WITH_UNCOMPRESSED_SIZE = 2


class ChecksumPolicy(_enum.IntEnum):
    """Checksum computation and verification (nvidia.nvcomp.ChecksumPolicy).

    "Compute" writes the container's optional per-chunk checksums when encoding
    NVCOMP_NATIVE; "verify" checks every checksum present when decoding.
    Checksums that a format makes mandatory (gzip CRC-32, zlib Adler-32) are
    always written.  A Codec made without checksum_policy= uses
    NO_COMPUTE_AND_VERIFY_IF_PRESENT (nvCOMP's default is NO_COMPUTE_NO_VERIFY,
    which opencomp applies only when asked for it).
    """

    NO_COMPUTE_NO_VERIFY = 0
    COMPUTE_AND_NO_VERIFY = 1
    NO_COMPUTE_AND_VERIFY_IF_PRESENT = 2
    COMPUTE_AND_VERIFY_IF_PRESENT = 3
    COMPUTE_AND_VERIFY = 4


class ArrayBufferKind(_enum.IntEnum):
    """Where an Array's data lives (nvidia.nvcomp.ArrayBufferKind)."""

    STRIDED_DEVICE = 0
    STRIDED_HOST = 1


class Status(_enum.IntEnum):
    """Per-chunk outcome (the C library's oc_status; values are pinned).

    Returned by encode/decode(errors="status") and carried by Error.status.
    """

    OK = 0
    INVALID_ARGUMENT = 1
    UNSUPPORTED = 2
    CORRUPT = 3
    TRUNCATED = 4
    OUTPUT_TOO_SMALL = 5
    CHECKSUM_MISMATCH = 6
    SIZE_MISMATCH = 7
    CHUNK_TOO_LARGE = 8
    NEEDS_DICTIONARY = 9
    OUT_OF_MEMORY = 10
    NO_DEVICE = 11
    CUDA = 12
    SIZE_UNKNOWN = 13
    INTERNAL = 14
    IO = 15
    FORKED = 16


_SPECIAL_STREAMS = (0, 1, 2)  # default, legacy default, per-thread default


class CudaStream:
    """A CUDA stream handle (nvidia.nvcomp.CudaStream).

    ``borrow`` makes a view of an existing cudaStream_t; ``make_new`` creates a
    stream (through CuPy or PyTorch when installed, else the CUDA runtime found
    with ctypes) and owns it.  Allocators set with set_*_allocator receive one.

    ``device`` is the stream's device, as nvCOMP's: a stream's own device
    (cudaStreamGetDevice), or for the special streams (0: default, 1: legacy,
    2: per-thread), which stand for whichever device is current, the device
    given to ``borrow`` or else the device current when borrowed.  Where no
    GPU can answer (a build without the CUDA engine, no GPU, a child forked
    after CUDA started, CUDA older than 12.8 for a non-special stream) it is
    the ``device_idx`` given, -1 if none.
    """

    __slots__ = ("_ptr", "_device", "_owner", "__weakref__")

    def __init__(self, ptr: int = 0, device: int = -1, owner: object = None) -> None:
        self._ptr = int(ptr)
        self._device = int(device)
        self._owner = owner

    @staticmethod
    def borrow(cuda_stream: int, device_idx: int = -1) -> "CudaStream":
        """A view of an existing stream, associated with a device as nvCOMP does.

        ``device_idx`` -1 (default): a special stream (0, 1, 2) is associated
        with the current device, any other with its own device.  Otherwise a
        special stream is associated with ``device_idx``, and for any other
        stream ``device_idx`` must be its own device (ValueError if not).
        """
        if isinstance(cuda_stream, CudaStream):
            if device_idx == -1:
                return cuda_stream
            cuda_stream = cuda_stream.ptr
        elif hasattr(cuda_stream, "ptr"):
            cuda_stream = cuda_stream.ptr
        if not isinstance(cuda_stream, int) or isinstance(cuda_stream, bool) or cuda_stream < 0:
            raise TypeError("cuda_stream must be a cudaStream_t as a non-negative int")
        if not isinstance(device_idx, int) or isinstance(device_idx, bool):
            raise TypeError(f"device_idx must be an int, not {type(device_idx).__name__}")
        if device_idx < -1:
            raise ValueError(f"device_idx must be -1 (see CudaStream.borrow) or a device index, not {device_idx}")
        if cuda_stream in _SPECIAL_STREAMS:
            dev = device_idx if device_idx >= 0 else _stream_device(0)
        else:
            dev = _stream_device(cuda_stream)  # -1 where no GPU can say
            if dev < 0:
                dev = device_idx
            elif device_idx not in (-1, dev):
                raise ValueError(
                    f"CudaStream.borrow: stream 0x{cuda_stream:x} belongs to device {dev}, "
                    f"not device_idx={device_idx}"
                )
        return CudaStream(cuda_stream, dev)

    @staticmethod
    def make_new(device_idx: int = -1) -> "CudaStream":
        """A new non-blocking stream on ``device_idx`` (-1: the current device), owned by the returned object."""
        if not isinstance(device_idx, int) or isinstance(device_idx, bool):
            raise TypeError(f"device_idx must be an int, not {type(device_idx).__name__}")
        if device_idx < -1:
            raise ValueError(f"device_idx must be -1 (the current device) or a device index, not {device_idx}")
        if not cuda_available():
            raise Error("CudaStream.make_new: no CUDA device is available")
        dev = device_idx if device_idx >= 0 else max(_stream_device(0), 0)
        try:
            import cupy  # type: ignore

            with cupy.cuda.Device(dev):
                s = cupy.cuda.Stream(non_blocking=True)
            return CudaStream(s.ptr, dev, s)
        except ImportError:
            pass
        try:
            import torch  # type: ignore

            s = torch.cuda.Stream(device=dev)
            return CudaStream(s.cuda_stream, dev, s)
        except ImportError:
            pass
        return CudaStream(*_cudart_stream(dev))

    @property
    def ptr(self) -> int:
        """The cudaStream_t as an int."""
        return self._ptr

    @property
    def device(self) -> int:
        """The device index associated with the stream (see the class docstring).

        A CudaStream made with device -1 (``CudaStream(ptr)``) resolves it
        here: the stream's own device, or the current device for a special
        stream; -1 where no GPU can say.
        """
        if self._device >= 0:
            return self._device
        if self._ptr in _SPECIAL_STREAMS:
            return _stream_device(0)
        dev = _stream_device(self._ptr)
        if dev >= 0:
            self._device = dev
        return dev

    @property
    def is_special(self) -> bool:
        """Whether this is the default, legacy or per-thread default stream."""
        return self._ptr in _SPECIAL_STREAMS

    def __int__(self) -> int:
        return self._ptr

    def __repr__(self) -> str:
        return f"opencomp.CudaStream(ptr=0x{self._ptr:x}, device={self._device})"


def _address_of(memory: object) -> int:
    """The address an allocator's memory object stands for: its ``ptr``
    (cupy MemoryPointer, rmm DeviceBuffer, CudaStream-style objects), else
    the data pointer of its __cuda_array_interface__ or __array_interface__."""
    ptr = getattr(memory, "ptr", None)
    if isinstance(ptr, int) and not isinstance(ptr, bool):
        return ptr
    for name in ("__cuda_array_interface__", "__array_interface__"):
        iface = getattr(memory, name, None)
        if isinstance(iface, dict) and isinstance(iface.get("data"), tuple):
            return int(iface["data"][0])
    raise TypeError(
        f"ExternalMemory: {type(memory).__name__} has no int .ptr, __cuda_array_interface__ or __array_interface__"
    )


class ExternalMemory:
    """Memory an allocator made, bound to the stream it was made on
    (nvidia.nvcomp.ExternalMemory).

    An allocator set with set_device_allocator, set_pinned_allocator or
    set_host_allocator is called as ``allocator(nbytes, stream)`` and returns
    an object with an int ``ptr``.  When freeing the memory needs that stream
    (stream-ordered pools: cupy's, rmm's), return
    ``ExternalMemory(memory, stream)``: it keeps the stream alive until the
    memory is released, and releases the memory first.  From then on use the
    memory only through this wrapper.

    ``memory``: any object with an int ``ptr`` (cupy.cuda.MemoryPointer,
    rmm.DeviceBuffer), or with __cuda_array_interface__ or
    __array_interface__ (numpy arrays for host allocators); it is kept alive
    as long as the wrapper.  ``stream``: the CudaStream the allocator was
    given (an int or an object with ``ptr`` is borrowed).
    """

    __slots__ = ("_memory", "_stream", "_ptr")

    def __init__(self, memory: object, stream: object) -> None:
        if memory is None:
            raise TypeError("ExternalMemory: memory must be a memory object, not None")
        self._ptr = _address_of(memory)
        self._stream = stream if isinstance(stream, CudaStream) else CudaStream.borrow(stream)
        self._memory = memory

    @property
    def ptr(self) -> int:
        """The address of the memory, as an int (what the allocator protocol reads)."""
        return self._ptr

    @property
    def stream(self) -> CudaStream:
        """The stream the memory was allocated on, alive as long as this wrapper."""
        return self._stream

    def __del__(self) -> None:
        # the memory goes first, while the stream it may free on still exists
        try:
            self._memory = None
        except AttributeError:  # __init__ failed before setting it
            pass

    def __repr__(self) -> str:
        return f"opencomp.ExternalMemory(ptr=0x{self._ptr:x}, stream={self._stream!r})"


class _OwnedCudartStream:
    """Destroys a stream created through the CUDA runtime when collected."""

    def __init__(self, lib, handle) -> None:
        self._lib, self._handle = lib, handle

    def __del__(self) -> None:
        try:
            self._lib.cudaStreamDestroy(self._handle)
        except Exception:
            pass


def _cudart_stream(dev: int):
    import ctypes
    import ctypes.util

    names = [ctypes.util.find_library("cudart"), "libcudart.so", "libcudart.so.13", "libcudart.so.12"]
    for name in filter(None, names):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    else:
        raise Error("CudaStream.make_new: install cupy or torch, or make libcudart.so loadable")
    handle = ctypes.c_void_p()
    if lib.cudaSetDevice(dev) != 0 or lib.cudaStreamCreateWithFlags(ctypes.byref(handle), 1) != 0:
        raise Error("CudaStream.make_new: cudaStreamCreateWithFlags failed")
    return handle.value or 0, dev, _OwnedCudartStream(lib, handle)


_register(Status=Status, ArrayBufferKind=ArrayBufferKind, CudaStream=CudaStream)
