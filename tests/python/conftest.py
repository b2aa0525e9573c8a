"""Shared fixtures of the Python tests: real data (text, binaries, source
files, numeric columns), the `gpu` marker, which skips cleanly when no GPU
(or no CUDA engine) is present, and the zarr tests' scaffolding: a CuPy that
must reach a GPU (`cp`), a count of the Codec's decode calls
(`decode_calls`) and a fake CuPy over numpy standing in for the device
(`fake_cupy`)."""

import glob
import os
import sys
import types

import numpy as np
import pytest

import opencomp as oc

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ALGORITHMS = ["LZ4", "Snappy", "Deflate", "Zlib", "Gzip", "Zstd", "Cascaded", "ANS", "Bitcomp"]
KINDS = list(oc.BitstreamKind)


def _read(path, limit):
    with open(path, "rb") as f:
        return f.read(limit)


def _corpus():
    items = []
    docs = sorted(glob.glob("/usr/share/doc/*/copyright"))[:3]
    for p in docs:
        items.append((os.path.basename(os.path.dirname(p)) + "-copyright", _read(p, 1 << 20)))
    for p in ("/bin/bash", "/usr/bin/env"):
        if os.path.exists(p):
            items.append((os.path.basename(p), _read(p, 300_000)))
    srcs = sorted(glob.glob(os.path.join(REPO, "python", "opencomp", "_ext", "*.c")))
    items.append(("ext-sources", b"".join(_read(p, 1 << 20) for p in srcs)))
    rng = np.random.default_rng(1234)
    prices = np.cumsum(rng.normal(0, 0.01, 50_000)).astype(np.float64) + 100.0
    items.append(("price-column-f8", prices.tobytes()))
    ids = np.sort(rng.integers(0, 1 << 40, 40_000)).astype(np.int64)
    items.append(("sorted-ids-i8", ids.tobytes()))
    items.append(("random", rng.bytes(70_000)))
    items.append(("zeros", bytes(200_000)))
    items.append(("one-byte", b"x"))
    items.append(("empty", b""))
    return items


CORPUS = _corpus()


@pytest.fixture(params=[name for name, _ in CORPUS])
def sample(request):
    return dict(CORPUS)[request.param]


@pytest.fixture
def corpus():
    return list(CORPUS)


def pytest_collection_modifyitems(config, items):
    if oc.cuda_available():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU (or this build has no CUDA engine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped cleanly when none is present)")


@pytest.fixture
def cp():
    """CuPy, skipping the test unless it can reach a GPU.  (test_gpu.py and
    test_nvcomp_interop.py define their own, which only import it.)"""
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception:
        pytest.skip("cupy without a usable GPU")
    return cupy


class _CountingCodec:
    """An opencomp.Codec seen through a proxy that counts decode calls by form."""

    def __init__(self, codec, calls):
        self._codec, self._calls = codec, calls

    def decode(self, *a, **kw):
        self._calls.append("packed" if "src_offsets" in kw else "list")
        return self._codec.decode(*a, **kw)

    def __getattr__(self, name):
        return getattr(self._codec, name)


@pytest.fixture
def decode_calls(monkeypatch):
    """The list of decode calls of every BatchCodec's opencomp.Codec (the
    numcodecs and zarr codecs), in order: "packed" (one call with
    src_offsets) or "list"."""
    from opencomp.numcodecs import _batch

    from opencomp.zarr import _fastread

    calls = []
    real = _batch.BatchCodec.codec
    real_on = _batch.BatchCodec.codec_on
    monkeypatch.setattr(_batch.BatchCodec, "codec", property(lambda self: _CountingCodec(real.fget(self), calls)))
    # the direct read's lanes (Codecs of their own on their own streams), counted too and
    # not kept past the test (a pooled lane would count into this test's list)
    monkeypatch.setattr(_batch.BatchCodec, "codec_on", lambda self, stream: _CountingCodec(real_on(self, stream), calls))
    monkeypatch.setattr(_fastread, "_LANE_POOL", {})
    return calls


@pytest.fixture
def fake_cupy(monkeypatch):
    """Device output as far as opencomp.zarr's direct read can tell, with a
    GPU kernel for every algorithm; CuPy's calls answered by numpy, and a
    current stream that fails the test if anything synchronises it (the
    decode is ordered after it by events), lane streams (``cupy.cuda.lanes``
    lists those made) and events.  Returns the list of host-to-device copies
    (cupy.asarray's sizes)."""
    from opencomp.zarr import _fastread

    copies = []

    def asarray(a):
        copies.append(a.size)
        return np.array(a, copy=True)

    class _Stream:
        def synchronize(self):  # the decode is ordered after CuPy's stream by events, not by the host
            raise AssertionError("opencomp.zarr synchronised CuPy's stream")

    class _LaneStream:
        """cupy.cuda.Stream(non_blocking=True): a device read's lane (ptr 1,
        the legacy default stream, for the lane's opencomp.Codec; its data is
        on the host, so the CPU engine runs it).  Logs the events it waits for."""

        ptr = 1

        def __init__(self, non_blocking=False):
            assert non_blocking  # a lane must not serialise with the legacy default stream
            self.waited = []
            lanes.append(self)

        def synchronize(self):
            pass

        def wait_event(self, event):
            assert event.recorded, "a lane waited for an event never recorded"
            self.waited.append(event)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    class _Event:
        def __init__(self, disable_timing=False):
            self.recorded = False

        def record(self, stream=None):
            assert stream is not None and not isinstance(stream, _LaneStream)  # CuPy's current stream
            self.recorded = True

    lanes = []
    cuda = types.SimpleNamespace(get_current_stream=_Stream, Stream=_LaneStream, Event=_Event, lanes=lanes)
    monkeypatch.setitem(sys.modules, "cupy",
                        types.SimpleNamespace(asarray=asarray, empty=np.empty, uint8=np.uint8, cuda=cuda))
    monkeypatch.setattr(_fastread, "_device_output", lambda out: True)
    monkeypatch.setattr(_fastread, "_gpu_decodes", lambda codec: True)
    monkeypatch.setattr(_fastread, "_LANE_POOL", {})  # lanes on this test's fake streams only
    return copies
