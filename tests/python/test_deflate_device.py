"""Issue 15's promise to zarr and numcodecs users: with GPU deflate kernels in
the engine, zarr's `gzip` codec and numcodecs' GZip/Zlib (zarr's
`numcodecs.gzip`/`numcodecs.zlib` and opencomp.numcodecs' classes) decode
chunks in device memory on the GPU and compress device arrays there, with no
GpuFallbackWarning and no host detour.  The per-process memory of warnings
and engines is reset first (a warning given earlier in the session would
otherwise hide one here) and the CPU detour for device chunks fails the test
if taken.  GPU only: the `gpu` marker skips it without a CUDA engine."""

import warnings

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")
zarr = pytest.importorskip("zarr")
from opencomp.numcodecs import _batch  # noqa: E402 (imports numcodecs: after the skip)
import opencomp.numcodecs as ocn  # noqa: E402
import opencomp.zarr as ocz  # noqa: E402
import zarr.codecs.numcodecs as zn  # noqa: E402
from zarr.codecs import Crc32cCodec, GzipCodec  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.filterwarnings("ignore:Numcodecs codecs are not in the Zarr version 3")]


_WARNED: list = []  # every fallback warning the batch layer gives while no_detour is on, from any thread


@pytest.fixture
def no_detour(monkeypatch, cp):
    """Fresh per-process memory of warnings and GPU engines; the CPU detour of
    device chunks (BatchCodec._decode_on_host) fails the test if taken, and
    the batch layer's warnings are also counted where it gives them
    (_warn_once: zarr runs codecs on its own threads)."""
    monkeypatch.setattr(_batch, "_gpu_ok", {})
    monkeypatch.setattr(_batch, "_gpu_warned", set())
    real_warn = _batch._warn_once

    def counted(key, message):
        _WARNED.append(message)
        real_warn(key, message)

    def detour(*args, **kwargs):
        raise AssertionError("device chunks were decoded on the CPU")

    _WARNED.clear()
    monkeypatch.setattr(_batch, "_warn_once", counted)
    monkeypatch.setattr(_batch.BatchCodec, "_decode_on_host", detour)
    return cp


def _fallbacks(recwarn):
    caught = [str(w.message) for w in recwarn if issubclass(w.category, _batch.GpuFallbackWarning)]
    return caught + [m for m in _WARNED if m not in caught]


def _data(n=40_000, seed=3):
    rng = np.random.default_rng(seed)
    v = np.cumsum(rng.integers(-3, 4, n)).astype("<i4")
    v[: n // 4] = 0  # runs, so the chunks really compress
    return v


@pytest.mark.parametrize("algorithm", ["Gzip", "Zlib"])
def test_engine_reports_gpu_kernels(no_detour, algorithm):
    """The C API's per-engine query, as the Python layer reads it: a decoder
    and an encoder on the CUDA engine (else every device chunk would fall back)."""
    assert _batch.gpu_kernel(algorithm) is True
    assert _batch.gpu_kernel(algorithm, encode=True) is True


@pytest.mark.parametrize("name", ["GZip", "Zlib"])
def test_numcodecs_device_chunks_on_the_gpu(no_detour, recwarn, name):
    """opencomp.numcodecs.GZip/Zlib: chunks written by stock numcodecs, in
    device memory, decode into device memory (one chunk, a batch, into out=);
    device arrays encode on the GPU into streams stock numcodecs reads; no
    fallback warning at any step."""
    cp = no_detour
    ours, stock = getattr(ocn, name)(level=1), getattr(numcodecs, name)(level=1)
    parts = [_data(seed=s) for s in range(5)]
    comp = [cp.asarray(np.frombuffer(stock.encode(p), np.uint8)) for p in parts]
    one = ours.decode(comp[0])
    assert isinstance(one, cp.ndarray) and one.get().tobytes() == parts[0].tobytes()
    many = ours.decode_batch(comp)
    assert all(isinstance(r, cp.ndarray) for r in many)
    assert [r.get().tobytes() for r in many] == [p.tobytes() for p in parts]
    out = cp.zeros(parts[1].shape, parts[1].dtype)
    assert ours.decode(comp[1], out=out) is out
    assert np.array_equal(out.get(), parts[1])
    enc = ours.encode(cp.asarray(parts[2]))
    assert isinstance(enc, cp.ndarray)
    assert bytes(stock.decode(enc.get().tobytes())) == parts[2].tobytes()
    assert _fallbacks(recwarn) == []


# zarr codec id: (stock class, opencomp's class), at one level each
ZARR_CODECS = {
    "gzip": (lambda: GzipCodec(level=5), lambda: ocz.GzipCodec(level=5)),
    "numcodecs.gzip": (lambda: zn.GZip(level=1), lambda: ocz.NumcodecsGZip(level=1)),
    "numcodecs.zlib": (lambda: zn.Zlib(level=6), lambda: ocz.NumcodecsZlib(level=6)),
}


@pytest.mark.parametrize("cid", sorted(ZARR_CODECS))
def test_zarr_device_reads_and_writes_on_the_gpu(no_detour, recwarn, monkeypatch, cid):
    """Arrays written by stock zarr with gzip/zlib read into device memory
    through opencomp's pipeline (a whole read: the direct read; a strided one:
    the one-copy batches; behind a crc32c codec: BatchCodec on device chunks),
    and a device array written with opencomp's codec reads back through stock
    zarr on the host: equal data, no fallback warning."""
    cp = no_detour
    stock, ours = ZARR_CODECS[cid]
    seen = []
    real = _batch.BatchCodec.decode

    def spy(self, srcs, sizes=None, **kw):
        seen.append(all(_batch.is_device_array(s) for s in srcs))
        return real(self, srcs, sizes, **kw)

    monkeypatch.setattr(_batch.BatchCodec, "decode", spy)
    data = _data(64 * 1024).reshape(256, 256)
    plain, crc, written = zarr.storage.MemoryStore(), zarr.storage.MemoryStore(), zarr.storage.MemoryStore()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Numcodecs codecs are not in the Zarr version 3")
        zarr.create_array(plain, shape=data.shape, chunks=(64, 64), dtype=data.dtype, compressors=[stock()])[:] = data
        zarr.create_array(crc, shape=data.shape, chunks=(64, 64), dtype=data.dtype,
                          compressors=[stock(), Crc32cCodec()])[:] = data
    try:
        with zarr.config.enable_gpu(), ocz.enable(batch_size=16):
            a = zarr.open_array(plain, mode="r")
            got = a[:]
            assert isinstance(got, cp.ndarray) and np.array_equal(got.get(), data)
            got = a[::3, 1::2]
            assert isinstance(got, cp.ndarray) and np.array_equal(got.get(), data[::3, 1::2])
            got = zarr.open_array(crc, mode="r")[:]
            assert isinstance(got, cp.ndarray) and np.array_equal(got.get(), data)
            assert seen and all(seen), seen  # the crc32c array's chunks reached BatchCodec in device memory
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "Numcodecs codecs are not in the Zarr version 3")
                b = zarr.create_array(written, shape=data.shape, chunks=(64, 64), dtype=data.dtype,
                                      compressors=[ours()])
            b[:] = cp.asarray(data)
    finally:
        ocz.disable()
        zarr.config.reset()
    assert np.array_equal(zarr.open_array(written, mode="r")[:], data)
    assert _fallbacks(recwarn) == []
