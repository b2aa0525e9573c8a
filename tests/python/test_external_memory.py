"""ExternalMemory, nvCOMP's allocator protocol (issue 19): an allocator
set with set_*_allocator may return ExternalMemory(memory, stream), which
keeps the stream alive until the memory is released and releases the
memory first.  Guards: results built in such memory are right and keep it
alive; the memory's own finaliser runs while the stream object still
exists (a plain memory object lets the stream go at once); the memory
object's address is found from .ptr, __cuda_array_interface__ or
__array_interface__.  The device allocator's half is in test_gpu.py."""

import gc
import weakref

import numpy as np
import pytest

import opencomp as oc

DATA = bytes(range(256)) * 400


class HostBlock:
    """Host memory for an allocator, recording at release whether the stream
    it was allocated on still existed."""

    released = []

    def __init__(self, nbytes, stream):
        self.buf = np.empty(max(nbytes, 1), np.uint8)
        self.ptr = self.buf.ctypes.data
        self.stream_ref = weakref.ref(stream)

    def __del__(self):
        HostBlock.released.append(self.stream_ref() is not None)


@pytest.fixture
def host_allocator():
    yield lambda alloc: oc.set_host_allocator(alloc)
    oc.set_host_allocator(None)


def test_results_live_in_external_memory(host_allocator):
    made = []

    def alloc(nbytes, stream):
        assert isinstance(stream, oc.CudaStream)
        mem = oc.ExternalMemory(np.empty(max(nbytes, 1), np.uint8), stream)
        made.append(mem)
        return mem

    host_allocator(alloc)
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=oc.BitstreamKind.RAW)
    back = codec.decode(codec.encode(DATA))
    assert bytes(back) == DATA
    assert any(m.ptr == back.ptr for m in made)  # the result sits in the allocator's memory
    assert all(isinstance(m.stream, oc.CudaStream) for m in made)


def test_memory_goes_before_its_stream(host_allocator):
    HostBlock.released.clear()
    host_allocator(lambda n, s: oc.ExternalMemory(HostBlock(n, s), s))
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    back = codec.decode(codec.encode(DATA))
    assert bytes(back) == DATA
    del back
    gc.collect()
    assert HostBlock.released and all(HostBlock.released)


def test_without_the_wrapper_the_stream_goes_first(host_allocator):
    """What ExternalMemory is for: a plain memory object does not keep the
    stream the allocator was given."""
    HostBlock.released.clear()
    host_allocator(HostBlock)
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    back = codec.decode(codec.encode(DATA))
    del back
    gc.collect()
    assert HostBlock.released and not any(HostBlock.released)


def test_the_wrapper_keeps_memory_and_stream():
    class Mem:
        def __init__(self):
            self.buf = np.zeros(16, np.uint8)
            self.ptr = self.buf.ctypes.data

    m, s = Mem(), oc.CudaStream.borrow(0, 0)
    mr, sr = weakref.ref(m), weakref.ref(s)
    ext = oc.ExternalMemory(m, s)
    del m, s
    gc.collect()
    assert mr() is not None and sr() is not None and ext.stream is sr()
    del ext
    gc.collect()
    assert mr() is None and sr() is None


def test_addresses_and_streams_accepted():
    a = np.arange(8, dtype=np.uint8)
    assert oc.ExternalMemory(a, 0).ptr == a.ctypes.data  # __array_interface__

    class CAI:
        __cuda_array_interface__ = {"data": (0xABC000, False), "shape": (4,), "typestr": "|u1", "version": 3}

    assert oc.ExternalMemory(CAI(), 0).ptr == 0xABC000

    class Ptr:
        ptr = 0x1000

    e = oc.ExternalMemory(Ptr(), oc.CudaStream.borrow(2, 0))
    assert e.ptr == 0x1000 and e.stream.ptr == 2 and e.stream.device == 0
    assert oc.ExternalMemory(Ptr(), 1).stream.ptr == 1  # an int stream is borrowed
    assert "ExternalMemory(ptr=0x1000" in repr(e)


@pytest.mark.parametrize("bad", [None, object(), b"bytes", 5])
def test_memory_without_an_address_is_refused(bad):
    with pytest.raises(TypeError):
        oc.ExternalMemory(bad, 0)


def test_bad_stream_is_refused():
    with pytest.raises(TypeError):
        oc.ExternalMemory(np.zeros(4, np.uint8), "stream")
