"""dask.array.from_zarr on arrays read through opencomp's zarr codecs, computed
on a distributed.LocalCluster (threads, CPU): the example examples/dask_zarr.py
end to end (zstd and Blosc stores written by the workers, read back whole),
its --scaling rows, batches of many chunks per opencomp call, and an array
opened with opencomp's codec objects pickled into the graph."""

import importlib.util
import os

import numpy as np
import pytest

pytest.importorskip("zarr")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

import opencomp.zarr as ocz  # noqa: E402
from opencomp.numcodecs import _batch  # noqa: E402

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "dask_zarr.py")


@pytest.fixture
def example():
    spec = importlib.util.spec_from_file_location("dask_zarr_example", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(autouse=True)
def _restore_config():
    import zarr

    yield
    ocz.disable()
    zarr.config.reset()


class _Counting:
    """An opencomp.Codec seen through a proxy that logs the chunks of each decode
    call: a list of chunks (zarr's batches) or one packed buffer (the direct read)."""

    def __init__(self, codec, calls):
        self._codec, self._calls = codec, calls

    def decode(self, srcs, *a, **kw):
        self._calls.append(len(kw["src_sizes"]) if "src_sizes" in kw else len(srcs))
        return self._codec.decode(srcs, *a, **kw)

    def __getattr__(self, name):
        return getattr(self._codec, name)


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = _batch.BatchCodec.codec
    monkeypatch.setattr(_batch.BatchCodec, "codec", property(lambda self: _Counting(real.fget(self), calls)))
    return calls


@pytest.mark.parametrize("codec", ["zstd", "blosc", "blosc-zstd"])
def test_example_on_a_local_cluster(example, tmp_path, spy, codec):
    """The example end to end on the CPU: a store written by the workers with a
    stock codec's format, read back whole, one opencomp call per dask task."""
    r = example.main(store=str(tmp_path / "sample.zarr"), workers=2, codec=codec)
    assert r["ok"] and r["total"] == pytest.approx(r["expect_total"], rel=1e-9)
    assert r["tasks"] == 2 and r["stored_bytes"] < r["nbytes"]
    # 32 zarr chunks in 2 tasks: every read of a task is one batch of 16 chunks.
    assert sum(spy) >= 32 and max(spy) == 16, spy
    import zarr

    ocz.disable()  # the thread workers enabled opencomp in this process
    z = zarr.open_array(r["path"], mode="r")  # stock zarr reads what the workers wrote
    assert type(z.compressors[0]).__module__.startswith("zarr.")
    assert float(z[:].sum(dtype=np.float64)) == pytest.approx(r["expect_total"], rel=1e-9)


def test_example_scaling_rows_on_the_cpu(example, tmp_path):
    """--scaling without GPUs: stock zarr and opencomp on CPU workers read the same values."""
    out = example.scaling(str(tmp_path / "s.zarr"), "blosc", 0.004, 0.125, 8, 1, 1, max_gpus=0)
    assert [r["mode"] for r in out["rows"]] == ["stock-cpu", "opencomp-cpu"]
    assert all(r["ok"] and r["gb_s"] > 0 for r in out["rows"])


@pytest.mark.filterwarnings("ignore:Numcodecs codecs are not in the Zarr version 3")
def test_pickled_array_with_opencomp_codecs(tmp_path, spy):
    import zarr
    from distributed import Client, LocalCluster

    data = (np.arange(300 * 200, dtype=np.int64) % 1013).reshape(300, 200)
    path = str(tmp_path / "a.zarr")
    a = zarr.create_array(path, shape=data.shape, chunks=(50, 50), dtype=data.dtype,
                          compressors=[ocz.NumcodecsLZ4()], fill_value=-1)
    a[:] = data
    with zarr.config.set({"codec_pipeline.batch_size": 32}):
        z = zarr.open_array(path, mode="r")  # opened without enable(): zarr's own class
        assert type(z.compressors[0]).__module__ == "zarr.codecs.numcodecs._codecs"
        with ocz.enable(batch_size=32):
            z = zarr.open_array(path, mode="r")
        assert type(z.compressors[0]) is ocz.NumcodecsLZ4  # fixed when opened, travels with the array
        with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as cl, \
                Client(cl):
            x = da.from_array(z, chunks=(150, 200))
            got = x.compute()
            assert np.array_equal(got, data)
            assert int((x % 2).sum().compute()) == int((data % 2).sum())
    assert spy and max(spy) == 12, spy  # 3x4 zarr chunks per dask chunk


@pytest.mark.gpu
def test_example_on_the_gpu(example, tmp_path):
    """The example with --gpu: CuPy blocks (cupy meta), chunks decoded into device memory
    by worker processes (dask-cuda's), so no batch sizes can be counted here."""
    cupy = pytest.importorskip("cupy")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ocz.GpuFallbackWarning)  # zstd may have no GPU kernel yet
        r = example.main(store=str(tmp_path / "sample.zarr"), workers=1, gpu=True)
    assert r["ok"] and r["mode"] == "opencomp-gpu" and r["workers"] == 1
    assert cupy.cuda.runtime.getDeviceCount() > 0
