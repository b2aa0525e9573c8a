# Type stubs of opencomp (the C extension's names are re-exported here).
# Keep in step with python/opencomp/_ext/*.c docstrings and docs/API.md.
import enum
from typing import Any, Literal, Optional, Protocol, Sequence, Tuple, Union, overload

__version__: str

class _HasPtr(Protocol):
    @property
    def ptr(self) -> int: ...

# Anything opencomp reads or writes: an Array, bytes-like objects, numpy
# arrays, or objects with __cuda_array_interface__ / __array_interface__ /
# __dlpack__ (cupy arrays, torch tensors), or a DLPack capsule.
ArrayLike = Any
StreamLike = Union[None, int, "CudaStream", _HasPtr]
DataType = Union[str, Any]  # array-protocol type string or numpy dtype
Errors = Literal["raise", "status"]

class Error(RuntimeError):
    """An opencomp call failed; ``status`` says why, ``chunk`` which chunk (or None)."""

    status: "Status"
    chunk: Optional[int]

class BitstreamKind(enum.IntEnum):
    NVCOMP_NATIVE = 0
    RAW = 1
    WITH_UNCOMPRESSED_SIZE = 2

class ChecksumPolicy(enum.IntEnum):
    NO_COMPUTE_NO_VERIFY = 0
    COMPUTE_AND_NO_VERIFY = 1
    NO_COMPUTE_AND_VERIFY_IF_PRESENT = 2
    COMPUTE_AND_VERIFY_IF_PRESENT = 3
    COMPUTE_AND_VERIFY = 4

class ArrayBufferKind(enum.IntEnum):
    STRIDED_DEVICE = 0
    STRIDED_HOST = 1

class Status(enum.IntEnum):
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

class CudaStream:
    """A cudaStream_t: a view (borrow) or an owned new stream (make_new)."""

    @staticmethod
    def borrow(cuda_stream: int, device_idx: int = -1) -> CudaStream: ...
    @staticmethod
    def make_new(device_idx: int = -1) -> CudaStream: ...
    @property
    def ptr(self) -> int: ...
    @property
    def device(self) -> int: ...
    @property
    def is_special(self) -> bool: ...
    def __int__(self) -> int: ...

class ExternalMemory:
    """Memory an allocator made, bound to the stream it was made on (keeps the stream alive)."""

    def __init__(self, memory: Any, stream: Union[CudaStream, int, _HasPtr]) -> None: ...
    @property
    def ptr(self) -> int: ...
    @property
    def stream(self) -> CudaStream: ...

class Array:
    """Typed, C-contiguous host or device memory; speaks every array protocol."""

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...
    @property
    def __array_interface__(self) -> dict[str, Any]: ...
    def __dlpack__(
        self,
        *,
        stream: Optional[int] = None,
        max_version: Optional[Tuple[int, int]] = None,
        dl_device: Optional[Tuple[int, int]] = None,
        copy: Optional[bool] = None,
    ) -> Any: ...
    def __dlpack_device__(self) -> Tuple[int, int]: ...
    def __buffer__(self, flags: int) -> memoryview: ...
    def to_dlpack(self, cuda_stream: StreamLike = None) -> Any: ...
    def cpu(self) -> Array: ...
    def cuda(self, synchronize: bool = True, cuda_stream: StreamLike = 0) -> Array: ...
    def tobytes(self) -> bytes: ...
    def synchronize(self) -> None: ...
    @property
    def buffer_kind(self) -> ArrayBufferKind: ...
    @property
    def buffer_size(self) -> int: ...
    @property
    def dtype(self) -> Any: ...
    @property
    def shape(self) -> Tuple[int, ...]: ...
    @property
    def strides(self) -> Tuple[int, ...]: ...
    @property
    def item_size(self) -> int: ...
    @property
    def ndim(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def precision(self) -> int: ...
    @property
    def ptr(self) -> int: ...

class Codec:
    """Compress/decompress with one algorithm: 'LZ4', 'Snappy', 'Deflate', 'Zlib', 'Gzip', 'Zstd', 'Blosc', 'Cascaded', 'ANS', 'Bitcomp', 'GDeflate'."""

    def __init__(
        self,
        algorithm: Optional[str] = "",
        *,
        device_id: Optional[int] = None,
        cuda_stream: StreamLike = None,
        uncomp_chunk_size: Optional[int] = 65536,
        checksum_policy: Optional[ChecksumPolicy] = None,
        bitstream_kind: Optional[BitstreamKind] = None,
        data_type: Optional[DataType] = "",
        algorithm_type: Optional[int] = None,
        level: Optional[int] = None,
        num_threads: Optional[int] = None,
        num_rles: Optional[int] = None,
        num_deltas: Optional[int] = None,
        use_bitpack: Optional[bool] = None,
        auto_layers: Optional[bool] = None,
        cname: Optional[str] = None,
        shuffle: Optional[int] = None,
        typesize: Optional[int] = None,
        blocksize: Optional[int] = None,
    ) -> None: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def device_id(self) -> int: ...
    @property
    def level(self) -> int: ...
    @property
    def bitstream_kind(self) -> int: ...
    @property
    def checksum_policy(self) -> int: ...
    @property
    def uncomp_chunk_size(self) -> int: ...
    @property
    def cuda_stream(self) -> int: ...
    @property
    def data_type(self) -> str: ...
    def synchronize(self) -> None: ...
    @overload
    def encode(self, array_s: Sequence[ArrayLike], *, out: Optional[Sequence[ArrayLike]] = None,
               errors: Literal["raise"] = "raise") -> list[Array]: ...
    @overload
    def encode(self, array_s: Sequence[ArrayLike], *, out: Optional[Sequence[ArrayLike]] = None,
               errors: Literal["status"]) -> Tuple[list[Optional[Array]], list[Status]]: ...
    @overload
    def encode(self, array_s: ArrayLike, *, out: Optional[ArrayLike] = None,
               errors: Errors = "raise", src_offsets: Optional[Any] = None,
               src_sizes: Optional[Any] = None, out_offsets: Optional[Any] = None,
               out_sizes: Optional[Any] = None, comp_sizes: Optional[ArrayLike] = None) -> Any: ...
    @overload
    def decode(self, srcs: Sequence[ArrayLike], data_type: DataType = "", *,
               out: Optional[Sequence[ArrayLike]] = None, uncomp_sizes: Optional[Sequence[int]] = None,
               errors: Literal["raise"] = "raise") -> list[Array]: ...
    @overload
    def decode(self, srcs: Sequence[ArrayLike], data_type: DataType = "", *,
               out: Optional[Sequence[ArrayLike]] = None, uncomp_sizes: Optional[Sequence[int]] = None,
               errors: Literal["status"]) -> Tuple[list[Optional[Array]], list[Status]]: ...
    @overload
    def decode(self, srcs: ArrayLike, data_type: DataType = "", *, out: Optional[ArrayLike] = None,
               uncomp_sizes: Optional[int] = None, errors: Errors = "raise") -> Any: ...

def as_array(source: ArrayLike, cuda_stream: StreamLike = 0) -> Array: ...
def as_arrays(sources: Sequence[ArrayLike], cuda_stream: StreamLike = 0) -> list[Array]: ...
def from_dlpack(source: Any, cuda_stream: StreamLike = 0) -> Array: ...
def set_device_allocator(allocator: Optional[Any] = None) -> None: ...
def set_pinned_allocator(allocator: Optional[Any] = None) -> None: ...
def set_host_allocator(allocator: Optional[Any] = None) -> None: ...
def build_info() -> str: ...
def algorithms(engine: Optional[Literal["cpu", "cuda"]] = None) -> list[str]: ...
def cuda_available() -> bool: ...
