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
direct read, and fails the run if none did (the suite would prove nothing)."""

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


def pytest_sessionfinish(session, exitstatus):
    print(f"\nrun-zarr-suite: {_stats['direct']} reads took opencomp's direct read, "
          f"{_stats['declined']} were declined (zarr's batches); pipeline {zarr.config.get('codec_pipeline.path')}")
    if _stats["direct"] == 0 and session.testscollected:
        session.exitstatus = 1
