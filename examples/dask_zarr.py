"""Read a zarr array with opencomp's codecs from dask workers.

    python3 examples/dask_zarr.py [--gpu] [--store PATH] [--workers N]

Writes a small zstd-compressed array (stock zarr codecs: any zarr reader can
open it), then reads it with ``dask.array.from_zarr`` on a
``distributed.LocalCluster``, opencomp decoding every batch of chunks.  With
``--gpu`` the workers read into device memory (CuPy chunks) and the chunks are
decoded on the GPU.  tests/python/test_dask.py runs ``main()``.

dask pickles the zarr array (with its codec objects) into the task graph, and
each worker resolves zarr's config itself: ``worker_setup`` runs
``opencomp.zarr.enable()`` (and ``zarr.config.enable_gpu()``) on every worker,
so the workers' pipelines batch chunks and name failing chunk keys.
"""

from __future__ import annotations

import argparse
import tempfile

import numpy as np


def worker_setup(gpu: bool = False, batch_size: int = 64) -> None:
    """Run on every worker: opencomp's codecs for zstd/gzip/..., batched; GPU buffers if asked."""
    import zarr

    import opencomp.zarr

    opencomp.zarr.enable(batch_size=batch_size)
    if gpu:
        zarr.config.enable_gpu()


def write_sample(path: str, shape=(2048, 1024), chunks=(256, 256)) -> np.ndarray:
    """A float32 array of smooth random walks, zstd-compressed with zarr's own codec."""
    import zarr
    from zarr.codecs import ZstdCodec

    rng = np.random.default_rng(42)
    data = np.cumsum(rng.normal(0, 1, shape), axis=1).astype(np.float32)
    a = zarr.create_array(path, shape=shape, chunks=chunks, dtype=data.dtype, compressors=[ZstdCodec(level=3)],
                          overwrite=True)
    a[:] = data
    return data


def main(store: str | None = None, gpu: bool = False, workers: int = 2, processes: bool = False) -> dict:
    import dask.array as da
    from distributed import Client, LocalCluster

    path = store or tempfile.mkdtemp(suffix=".zarr")
    data = write_sample(path)
    worker_setup(gpu)  # the client too: from_zarr opens the array here
    with LocalCluster(n_workers=workers, threads_per_worker=2, processes=processes, dashboard_address=None) as cl, \
            Client(cl) as client:
        client.run(worker_setup, gpu)
        # One dask task per 4x4 zarr chunks: each task's read is one batch of 16
        # chunks, i.e. one opencomp call (a task per zarr chunk would batch one).
        x = da.from_zarr(path, chunks=(1024, 1024))
        if gpu:
            import cupy

            x = x.map_blocks(cupy.asarray, dtype=x.dtype, meta=cupy.empty((0, 0), x.dtype))
        total = float(x.sum(dtype=np.float64).compute())
        col_means = x.mean(axis=0).compute()
        if gpu:
            col_means = col_means.get()
    expect_total = float(data.sum(dtype=np.float64))
    result = {
        "path": path,
        "tasks": int(np.prod(x.numblocks)),
        "total": total,
        "expect_total": expect_total,
        "col_means_ok": bool(np.allclose(col_means, data.mean(axis=0), rtol=1e-5, atol=1e-4)),
    }
    return result


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", action="store_true", help="read into device memory (needs CuPy and a GPU)")
    ap.add_argument("--store", help="where to write the sample array (default: a temporary folder)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--processes", action="store_true", help="worker processes instead of threads")
    args = ap.parse_args()
    r = main(args.store, args.gpu, args.workers, args.processes)
    print(f"{r['tasks']} dask chunks of 16 zarr chunks each from {r['path']}: sum {r['total']:.6g} (numpy: {r['expect_total']:.6g}), "
          f"column means {'match' if r['col_means_ok'] else 'DIFFER'}")
    raise SystemExit(0 if r["col_means_ok"] and np.isclose(r["total"], r["expect_total"], rtol=1e-6) else 1)
