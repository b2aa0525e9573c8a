"""pytest plugin for run-zarr-suite: zarr-python's own tests with opencomp's
pipeline and codecs (selected through zarr's config, ZARR_* variables set by
the runner), with every array the tests create reopened from its metadata.

Why reopen: zarr.create_array builds its default compressor (zstd) from
zarr's own class, not from the codec registry, so without it the tests'
arrays would never reach opencomp's codecs or its direct read.  Reopening
loses what zarr keeps only in the creating object (config= such as
write_empty_chunks and order, a non-native in-memory byte order, the info
text, the count of store reads at creation): the runner deselects the tests
of exactly those.  At the end the plugin prints how many reads took the
direct read, and fails the run if none did (the suite would prove nothing);
under pytest-xdist each worker writes its counts to OC_ZARR_SUITE_STATS and
the controller sums them.

OC_ZARR_SUITE_STOCK=1 (run-zarr-suite --stock): zarr's own pipeline, the
baseline; no count required.  OC_ZARR_SUITE_GPU=1 (--gpu, with zarr's GPU
buffers selected): numpy.testing's comparisons and numpy.array_equal take
CuPy arrays (copied to the host first), so that the tests' checks of what
a read returned still run on device results."""

import json
import os

import zarr
import zarr.api.synchronous as _sync

from opencomp.zarr import _fastread

_stats = {"direct": 0, "declined": 0}
_real_read = _fastread.read_selection


async def _read_selection(*a, **k):
    done = await _real_read(*a, **k)
    _stats["direct" if done else "declined"] += 1
    return done


_fastread.read_selection = _read_selection
_real_create = _sync.create_array


def _create_array(*a, **k):
    z = _real_create(*a, **k)
    try:
        return zarr.open_array(store=z.store_path, mode="r+")
    except Exception:  # noqa: BLE001 - what cannot be reopened is tested as created
        return z


zarr.create_array = _create_array


def _host_comparisons():
    """numpy.testing and numpy.array_equal on CuPy arrays: each argument that
    is one is copied to the host, then numpy compares as usual."""
    import cupy
    import numpy
    import numpy.testing

    def host(x):
        return cupy.asnumpy(x) if isinstance(x, cupy.ndarray) else x

    def wrap(fn):
        def wrapper(*a, **k):
            return fn(*(host(x) for x in a), **{n: host(v) for n, v in k.items()})

        wrapper.__wrapped__ = fn
        return wrapper

    for name in ("assert_array_equal", "assert_equal", "assert_allclose", "assert_array_almost_equal"):
        setattr(numpy.testing, name, wrap(getattr(numpy.testing, name)))
    numpy.array_equal = wrap(numpy.array_equal)


_STOCK = os.environ.get("OC_ZARR_SUITE_STOCK") == "1"
if os.environ.get("OC_ZARR_SUITE_GPU") == "1":
    _host_comparisons()


def pytest_sessionfinish(session, exitstatus):
    stats_dir = os.environ.get("OC_ZARR_SUITE_STATS")
    worker = getattr(session.config, "workerinput", None)
    if worker is not None:  # an xdist worker: the controller sums
        if stats_dir:
            with open(os.path.join(stats_dir, worker["workerid"] + ".json"), "w") as f:
                json.dump(_stats, f)
        return
    total = dict(_stats)
    if stats_dir and os.path.isdir(stats_dir):
        for name in os.listdir(stats_dir):
            with open(os.path.join(stats_dir, name)) as f:
                for k, v in json.load(f).items():
                    total[k] = total.get(k, 0) + v
    print(f"\nrun-zarr-suite: {total['direct']} reads took opencomp's direct read, "
          f"{total['declined']} were declined (zarr's batches); pipeline {zarr.config.get('codec_pipeline.path')}; "
          f"buffers {zarr.config.get('buffer')}")
    if not _STOCK and total["direct"] == 0 and session.testscollected:
        session.exitstatus = 1
