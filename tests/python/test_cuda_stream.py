"""CudaStream as nvCOMP's (issue 19): borrow() checks device_idx and
associates special streams (0 default, 1 legacy, 2 per-thread) with the
given or the current device; .device resolves a stream's own device where a
GPU can say.  What a machine without a GPU can check is here; the GPU half
(real devices of real streams, the ValueError for a wrong device_idx) is in
test_gpu.py::test_stream_device_*.  Guards against the old behaviour:
device_idx taken unchecked and .device left at -1."""

import pytest

import opencomp as oc
from opencomp import _opencomp

NO_GPU = not oc.cuda_available()


@pytest.mark.parametrize("bad", [-2, -100])
def test_device_idx_below_minus_one_is_refused(bad):
    with pytest.raises(ValueError, match="device_idx"):
        oc.CudaStream.borrow(0, bad)
    with pytest.raises(ValueError, match="device_idx"):
        oc.CudaStream.make_new(bad)


@pytest.mark.parametrize("bad", ["1", 1.0, None, True])
def test_device_idx_must_be_an_int(bad):
    with pytest.raises(TypeError, match="device_idx"):
        oc.CudaStream.borrow(0, bad)


@pytest.mark.parametrize("special", [0, 1, 2])
def test_special_stream_takes_the_device_given(special):
    s = oc.CudaStream.borrow(special, 3)
    assert s.is_special and s.ptr == special and s.device == 3


def test_borrow_of_a_cudastream():
    s = oc.CudaStream.borrow(2, 1)
    assert oc.CudaStream.borrow(s) is s
    t = oc.CudaStream.borrow(s, 4)  # a special stream: the association given
    assert t.ptr == 2 and t.device == 4


def test_array_precision_is_not_tracked():
    """nvCOMP: 0 means the data type's full bit depth; opencomp tracks no
    other precision (docs/API.md), whatever the type."""
    import numpy as np

    for dt in (np.uint8, np.int16, np.uint16, np.float32, np.int64):
        assert oc.as_array(np.zeros(4, dt)).precision == 0
    assert "not tracked" in oc.Array.precision.__doc__.lower()


@pytest.mark.skipif(not NO_GPU, reason="checks what happens where no GPU can answer")
def test_without_a_gpu_nothing_is_resolved_or_checked():
    assert _opencomp._stream_device(0) == -1
    assert _opencomp._stream_device(0x1234) == -1
    assert oc.CudaStream.borrow(0).device == -1
    assert oc.CudaStream.borrow(0x1234).device == -1
    t = oc.CudaStream.borrow(0x1234, 1)  # cannot be checked: taken as given
    assert t.ptr == 0x1234 and not t.is_special and t.device == 1
    assert oc.CudaStream(0x1234).device == -1
    with pytest.raises(oc.Error):
        oc.CudaStream.make_new()
