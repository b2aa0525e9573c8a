"""Array: nvidia.nvcomp.Array's names and protocols on the host: buffer
protocol, __array_interface__, DLPack export/import (numpy), as_array(s),
from_dlpack, cpu()/cuda(), shape/dtype/strides/... ; lifetimes (an Array
keeps its source alive; DLPack capsules keep the Array alive)."""

import gc
import sys
import weakref

import numpy as np
import pytest

import opencomp as oc


def test_as_array_zero_copy_and_attributes():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = oc.as_array(x)
    assert isinstance(a, oc.Array)
    assert a.shape == (3, 4) and a.ndim == 2 and a.size == 12
    assert a.item_size == 4 and a.buffer_size == 48 and a.strides == (16, 4)
    assert a.dtype == np.float32 and a.precision == 0
    assert a.buffer_kind == oc.ArrayBufferKind.STRIDED_HOST
    ai = a.__array_interface__
    assert ai["data"][0] == x.ctypes.data and ai["typestr"] == "<f4" and ai["version"] == 3
    assert not hasattr(a, "__cuda_array_interface__")
    y = np.asarray(a)
    assert y.ctypes.data == x.ctypes.data  # zero copy both ways
    np.testing.assert_array_equal(y, x)
    assert a.__dlpack_device__() == (1, 0)
    assert oc.as_array(a) is a


def test_buffer_protocol_of_array():
    x = np.arange(10, dtype=np.int16)
    a = oc.as_array(x)
    m = memoryview(a)
    assert m.format == "h" and m.itemsize == 2 and m.shape == (10,) and m.nbytes == 20
    assert m.tolist() == list(range(10))
    assert bytes(a) == x.tobytes() and a.tobytes() == x.tobytes()


def test_as_array_of_bytes_is_read_only():
    a = oc.as_array(b"hello")
    assert a.dtype == np.uint8 and a.shape == (5,)
    assert a.__array_interface__["data"][1] is True
    assert memoryview(a).readonly
    with pytest.raises(TypeError):
        memoryview(a)[0:1] = b"x"


def test_dlpack_export_to_numpy():
    x = np.arange(1000, dtype=np.float64)
    a = oc.as_array(x)
    y = np.from_dlpack(a)
    assert y.ctypes.data == x.ctypes.data
    np.testing.assert_array_equal(y, x)
    cap = a.to_dlpack()
    assert type(cap).__name__ == "PyCapsule"


def test_dlpack_import_from_numpy():
    x = np.arange(100, dtype=np.uint32)
    a = oc.from_dlpack(x)
    assert a.ptr == x.ctypes.data and a.dtype == np.uint32 and a.shape == (100,)
    b = oc.from_dlpack(x.__dlpack__())  # a bare capsule
    assert b.ptr == x.ctypes.data
    with pytest.raises(TypeError):
        oc.from_dlpack(b"abc")


def test_dlpack_capsule_keeps_array_alive():
    codec = oc.Codec(algorithm="LZ4")
    data = np.arange(5000, dtype=np.int64)
    out = codec.decode(codec.encode(data), data_type="<i8")
    ref = weakref.ref(out) if hasattr(type(out), "__weakref__") else None
    y = np.from_dlpack(out)
    del out
    gc.collect()
    np.testing.assert_array_equal(y, data)  # memory still valid
    del y
    gc.collect()
    if ref is not None:
        assert ref() is None


def test_array_keeps_source_alive():
    x = np.arange(100000, dtype=np.uint8)
    before = sys.getrefcount(x)
    a = oc.as_array(x)
    assert sys.getrefcount(x) > before
    del a
    assert sys.getrefcount(x) == before


def test_as_arrays():
    xs = [np.arange(i + 1, dtype=np.uint8) for i in range(5)]
    arrs = oc.as_arrays(xs)
    assert [a.shape for a in arrs] == [(i + 1,) for i in range(5)]
    with pytest.raises(TypeError):
        oc.as_arrays(5)


def test_cpu_returns_self_for_host():
    a = oc.as_array(np.arange(4))
    assert a.cpu() is a


def test_cuda_without_gpu_raises_or_copies():
    a = oc.as_array(np.arange(4, dtype=np.uint8))
    if oc.cuda_available():
        d = a.cuda()
        assert d.buffer_kind == oc.ArrayBufferKind.STRIDED_DEVICE
        assert bytes(d.cpu()) == bytes(a)
    else:
        with pytest.raises(oc.Error, match="no CUDA device") as ei:
            a.cuda()
        assert ei.value.status == oc.Status.NO_DEVICE


def test_array_cannot_be_instantiated_directly():
    with pytest.raises(TypeError):
        oc.Array()


def test_results_are_arrays_with_protocols():
    codec = oc.Codec(algorithm="Zstd")
    r = codec.decode(codec.encode(np.arange(10, dtype=np.float32)), data_type="<f4")
    assert "opencomp.Array" in repr(r)
    np.testing.assert_array_equal(np.asarray(r), np.arange(10, dtype=np.float32))
    np.testing.assert_array_equal(np.from_dlpack(r), np.arange(10, dtype=np.float32))


def test_cuda_stream_wrapper():
    s = oc.CudaStream.borrow(0)
    assert s.ptr == 0 and s.is_special
    with pytest.raises(TypeError):
        oc.CudaStream.borrow("x")
    # a made-up stream value is only safe where no CUDA call is made:
    # test_cuda_stream.py has the rest


def test_host_allocator_is_used_for_results():
    calls = []

    class Buf:
        def __init__(self, n, stream):
            self.arr = np.empty(max(n, 1), np.uint8)
            self.ptr = self.arr.ctypes.data
            calls.append((n, stream))

    oc.set_host_allocator(Buf)
    try:
        codec = oc.Codec(algorithm="Snappy")
        data = bytes(range(256)) * 100
        r = codec.decode(codec.encode(data))
        assert bytes(r) == data
        assert len(calls) == 2 and calls[1][0] == len(data)
        assert isinstance(calls[0][1], oc.CudaStream)
    finally:
        oc.set_host_allocator(None)
    with pytest.raises(TypeError):
        oc.set_host_allocator(5)
    oc.set_device_allocator(None)
    oc.set_pinned_allocator(None)


def test_bad_allocator_result():
    oc.set_host_allocator(lambda n, s: object())
    try:
        with pytest.raises(TypeError, match=r"\.ptr"):
            oc.Codec(algorithm="LZ4").encode(b"abc")
    finally:
        oc.set_host_allocator(None)


def test_module_metadata():
    assert oc.__version__ == "0.1.0"
    assert "opencomp" in oc.build_info()
    names = oc.algorithms()
    # the standard six, then whatever else the library's table holds (Blosc, our own codecs), once each
    assert names[:6] == ["LZ4", "Snappy", "Deflate", "Zlib", "Gzip", "Zstd"]
    assert len(set(names)) == len(names)
    for name in names:
        assert oc.Codec(algorithm=name).algorithm == name
    assert oc.algorithms("cpu") == oc.algorithms()
    assert set(oc.algorithms("cuda")) <= set(oc.algorithms())
    if not oc.cuda_available():
        assert oc.algorithms("cuda") == []
    with pytest.raises(ValueError):
        oc.algorithms("tpu")
    assert issubclass(oc.Error, RuntimeError)
