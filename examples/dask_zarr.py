"""Write and read a zarr v3 store with dask, each task's chunks decoded in one opencomp call.

    python3 examples/dask_zarr.py                       # small sample, CPU LocalCluster
    python3 examples/dask_zarr.py --gpu                 # the same, chunks decoded on the GPU
    python3 examples/dask_zarr.py --gib 4 --codec blosc --scaling --json out.json

The store is a float32 array of quantised random walks (the kind of data a
simulation or sensor writes), compressed with a *stock* zarr codec: ``zstd``
(zarr v3's ``ZstdCodec``, level 3) or ``blosc`` (``BloscCodec``, lz4 with byte
shuffle: zarr-python 2's default compressor; ``blosc-zstd`` for zstd inside).
Any zarr reader can open it.  Every dask task covers ``--group`` zarr chunks,
so its read is one batch, i.e. one opencomp call.

dask pickles the zarr array (with its codec objects) into the task graph and
each worker resolves zarr's config itself: ``worker_setup`` runs
``opencomp.zarr.enable()`` (and ``zarr.config.enable_gpu()``) on every
worker.  With ``--gpu`` the workers are dask-cuda's ``LocalCUDACluster``
(one worker per GPU, each seeing its own device; the same layout by hand if
dask-cuda is missing), the chunks land in device memory (CuPy) and decode on
the GPU.  ``--scaling`` reads the store with stock zarr and its CPU codecs,
with opencomp on the CPU, and with opencomp on 1, 2, 4, 8 GPUs (as many as
there are), and prints the aggregate read GB/s of each (bench/NOTES.md,
"dask across GPUs").  tests/python/test_dask.py runs ``main()`` on the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import warnings

import numpy as np

COLS = 1024  # elements per row: a zarr chunk is rows x COLS float32


def worker_setup(gpu: bool = False, batch_size: int = 1024) -> None:
    """Run on every worker: opencomp's codecs for zstd/blosc/..., batched; GPU buffers if asked."""
    import zarr

    import opencomp.zarr

    opencomp.zarr.enable(batch_size=batch_size)
    if gpu:
        zarr.config.enable_gpu()
    warnings.filterwarnings("ignore", "Numcodecs codecs are not in the Zarr version 3")


def stock_codec(name: str):
    """The stock zarr compressor the store is written with."""
    from zarr.codecs import BloscCodec, ZstdCodec

    if name == "zstd":
        return ZstdCodec(level=3)
    if name == "blosc":
        return BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=4)
    if name == "blosc-zstd":
        return BloscCodec(cname="zstd", clevel=3, shuffle="shuffle", typesize=4)
    raise ValueError(f"unknown codec {name!r}: zstd, blosc or blosc-zstd")


def make_block(block_info=None) -> np.ndarray:
    """Rows of random walks rounded to 1/100, the same for a block index on any machine."""
    info = block_info[None]
    (r0, r1), (c0, c1) = info["array-location"]
    rng = np.random.default_rng([7, r0, c0])
    steps = rng.normal(0, 0.5, (r1 - r0, c1 - c0)).astype(np.float32)
    return np.round(np.cumsum(steps, axis=1), 2).astype(np.float32)


def layout(gib: float, chunk_mib: float, group: int):
    """(shape, zarr chunks, dask chunks): whole zarr chunks, ``group`` of them per dask task."""
    rows_per_chunk = max(1, int(chunk_mib * 2**20) // (4 * COLS))
    rows = max(rows_per_chunk * group, int(gib * 2**30) // (4 * COLS) // (rows_per_chunk * group) *
               rows_per_chunk * group)
    return (rows, COLS), (rows_per_chunk, COLS), (rows_per_chunk * group, COLS)


def write_store(client, path: str, codec: str, gib: float, chunk_mib: float, group: int) -> dict:
    """Write the store from the workers (opencomp's CPU engine compresses); return what a read must find."""
    import dask.array as da
    import zarr

    import opencomp.zarr

    shape, chunks, tasks = layout(gib, chunk_mib, group)
    with opencomp.zarr.enable():  # the array's codec objects are opencomp's: they travel to the workers
        arr = zarr.create_array(path, shape=shape, chunks=chunks, dtype=np.float32,
                                compressors=[stock_codec(codec)], overwrite=True)
    x = da.map_blocks(make_block, chunks=tuple(tuple([c] * (n // c)) for n, c in zip(shape, tasks)),
                      dtype=np.float32)
    t0 = time.perf_counter()
    da.store(x, arr, lock=False, compute=True)
    seconds = time.perf_counter() - t0
    total = float(x.sum(dtype=np.float64).compute())  # generated again: the reference sum
    stored = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path) for f in fs)
    nbytes = int(np.prod(shape)) * 4
    return {"path": path, "codec": codec, "shape": list(shape), "chunks": list(chunks), "tasks": list(tasks),
            "nbytes": nbytes, "stored_bytes": stored, "ratio": nbytes / stored, "write_s": seconds,
            "expect_total": total}


def read_store(client, store: dict, gpu: bool, repeats: int = 3, group: int | None = None) -> dict:
    """Read the whole store ``repeats`` times (sum of every value); the best time counts.
    ``group``: zarr chunks per dask task if not the store's own."""
    import dask.array as da

    tasks = list(store["tasks"])
    if group:
        tasks[0] = store["chunks"][0] * group
    x = da.from_zarr(store["path"], chunks=tuple(tasks))
    if gpu:
        import cupy

        x = x.map_blocks(cupy.asarray, dtype=x.dtype, meta=cupy.empty((0, 0), x.dtype))
    times, total = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        total = float(x.sum(dtype=np.float64).compute())
        times.append(time.perf_counter() - t0)
    best = min(times)
    return {"tasks": int(np.prod(x.numblocks)), "chunks_per_task": tasks[0] // store["chunks"][0],
            "total": total, "times_s": times,
            "gb_s": store["nbytes"] / best / 1e9,
            "ok": bool(np.isclose(total, store["expect_total"], rtol=1e-9, atol=1e-3))}


def cpu_cluster(workers: int, threads: int, processes: bool):
    from distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=threads, processes=processes,
                        dashboard_address=None)


def gpu_cluster(ngpus: int, threads: int):
    """dask-cuda's LocalCUDACluster on the first ``ngpus`` GPUs (one worker
    each).  Without a working dask-cuda: the same layout by hand (one nanny
    per GPU, each worker's CUDA_VISIBLE_DEVICES naming its own), with a warning."""
    try:
        from dask_cuda import LocalCUDACluster
    except Exception as e:  # not installed, or its CUDA bindings do not import
        from distributed import Nanny, Scheduler, SpecCluster

        warnings.warn(f"dask-cuda unusable ({e}); one worker per GPU started without it")
        workers = {f"gpu{i}": {"cls": Nanny, "options": {"nthreads": threads,
                                                          "env": {"CUDA_VISIBLE_DEVICES": str(i)}}}
                   for i in range(ngpus)}
        return SpecCluster(scheduler={"cls": Scheduler, "options": {"dashboard_address": None}}, workers=workers)
    return LocalCUDACluster(CUDA_VISIBLE_DEVICES=list(range(ngpus)), threads_per_worker=threads,
                            dashboard_address=None)


def run_read(cluster, store: dict, mode: str, gpu: bool, opencomp_on: bool, repeats: int,
             group: int | None = None) -> dict:
    """One cluster, one configuration of readers: the read's result row."""
    from distributed import Client

    with cluster as cl, Client(cl) as client:
        if opencomp_on:
            client.run(worker_setup, gpu)
        else:
            client.run(warnings.filterwarnings, "ignore", "Numcodecs codecs are not in the Zarr version 3")
        r = read_store(client, store, gpu, repeats, group)
        r["workers"] = len(client.scheduler_info()["workers"])
    r["cluster"] = type(cluster).__name__
    r["mode"] = mode
    return r


def one_task_profile(store: dict, repeats: int = 5, group: int | None = None) -> dict:
    """Where one dask task's time goes, in this process on GPU 0: the batch of
    one task (its zarr chunks, compressed bytes already in device memory)
    decoded by opencomp alone, the same batch from host memory on the CPU
    engine, and the task's region read through zarr (``enable_gpu()`` and
    opencomp's codecs: store reads, per-chunk copies, assembly).  Seconds are
    the median of ``repeats``."""
    import cupy
    import zarr

    def median_time(fn) -> float:
        fn()  # warm-up
        ts = []
        for _ in range(repeats):
            cupy.cuda.Device().synchronize()
            t0 = time.perf_counter()
            fn()
            cupy.cuda.Device().synchronize()
            ts.append(time.perf_counter() - t0)
        return sorted(ts)[len(ts) // 2]

    worker_setup(True)
    arr = zarr.open_array(store["path"], mode="r")
    cols = store["tasks"][1]
    group = group or store["tasks"][0] // store["chunks"][0]
    rows = store["chunks"][0] * group
    chunk_bytes = store["chunks"][0] * cols * 4
    # zarr v3's default chunk keys: c/<row block>/<column block>
    host = [np.fromfile(os.path.join(store["path"], "c", str(i), "0"), np.uint8) for i in range(group)]
    dev = [cupy.asarray(h) for h in host]
    batch = arr.compressors[0]._oc_batch
    sizes = [chunk_bytes] * group
    nbytes = chunk_bytes * group
    out = {"chunks": group, "chunk_bytes": chunk_bytes}
    out["gpu_codec_s"] = median_time(lambda: batch.decode(dev, sizes))
    out["cpu_codec_s"] = median_time(lambda: batch.decode(host, sizes))
    out["zarr_gpu_read_s"] = median_time(lambda: arr[0:rows, :])
    for k in ("gpu_codec", "cpu_codec", "zarr_gpu_read"):
        out[k + "_gb_s"] = nbytes / out[k + "_s"] / 1e9
    zarr.config.reset()
    return out


def gpu_count() -> int:
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no CuPy or no driver
        return 0


def main(store: str | None = None, gpu: bool = False, workers: int = 2, processes: bool = False,
         codec: str = "zstd", gib: float = 0.008, chunk_mib: float = 0.25, group: int = 16,
         threads: int = 2, repeats: int = 1) -> dict:
    """Write the store on a CPU cluster, read it back (on the GPU with ``gpu``); the result's fields
    say whether every value came back (``total`` against ``expect_total``)."""
    from distributed import Client

    path = store or tempfile.mkdtemp(suffix=".zarr")
    with cpu_cluster(workers, threads, processes) as cl, Client(cl) as client:
        client.run(worker_setup, False)
        written = write_store(client, path, codec, gib, chunk_mib, group)
    if gpu:
        r = run_read(gpu_cluster(1, threads), written, "opencomp-gpu", True, True, repeats)
    else:
        r = run_read(cpu_cluster(workers, threads, processes), written, "opencomp-cpu", False, True, repeats)
    return {**written, **r}


def scaling(store: str | None, codec: str, gib: float, chunk_mib: float, group: int, threads: int,
            repeats: int, max_gpus: int, gpu_group: int | None = None) -> dict:
    """The read of one store by every configuration: stock zarr and opencomp on all CPU cores
    (``group`` zarr chunks per task: a task per CPU thread), opencomp on 1, 2, 4, 8 GPUs
    (``gpu_group`` chunks per task, default ``group``: a GPU wants few, large batches)."""
    from distributed import Client

    cores = os.cpu_count() or 2
    cpu_workers, cpu_threads = max(1, cores // 4), 4
    path = store or tempfile.mkdtemp(suffix=".zarr")
    with cpu_cluster(cpu_workers, cpu_threads, True) as cl, Client(cl) as client:
        client.run(worker_setup, False)
        written = write_store(client, path, codec, gib, chunk_mib, group)
    print(f"wrote {written['nbytes'] / 2**30:.2f} GiB ({codec}, ratio {written['ratio']:.2f}, "
          f"{len(written['chunks'])}-d chunks of {written['chunks']}) in {written['write_s']:.1f} s", flush=True)
    rows = []
    for mode, opencomp_on in (("stock-cpu", False), ("opencomp-cpu", True)):
        r = run_read(cpu_cluster(cpu_workers, cpu_threads, True), written, mode, False, opencomp_on, repeats)
        r["gpus"] = 0
        rows.append(r)
        print(f"{mode:14s} {r['workers']:3d} workers x {cpu_threads} threads: {r['gb_s']:7.2f} GB/s "
              f"{'ok' if r['ok'] else 'WRONG SUM'}", flush=True)
    profile = None
    if max_gpus > 0:
        profile = one_task_profile(written, group=gpu_group)
        print(f"one task of {profile['chunks']} chunks on GPU 0: opencomp decode alone "
              f"{profile['gpu_codec_gb_s']:.2f} GB/s (device) / {profile['cpu_codec_gb_s']:.2f} GB/s (CPU engine, "
              f"host), zarr read of its region {profile['zarr_gpu_read_gb_s']:.2f} GB/s", flush=True)
    n = 1
    while n <= max_gpus:
        r = run_read(gpu_cluster(n, threads), written, "opencomp-gpu", True, True, repeats, gpu_group)
        r["gpus"] = n
        rows.append(r)
        print(f"opencomp-gpu   {n:3d} GPU(s) x {threads} threads, {r['chunks_per_task']} chunks a task: "
              f"{r['gb_s']:7.2f} GB/s "
              f"{'ok' if r['ok'] else 'WRONG SUM'}", flush=True)
        n *= 2
    return {"store": written, "cpu_cores": cores, "rows": rows, "one_task_profile": profile}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", action="store_true", help="read into device memory (needs CuPy and a GPU)")
    ap.add_argument("--scaling", action="store_true",
                    help="stock zarr, opencomp on the CPU, opencomp on 1, 2, 4.. GPUs; prints GB/s")
    ap.add_argument("--store", help="where to write the array (default: a temporary folder)")
    ap.add_argument("--codec", default="zstd", choices=["zstd", "blosc", "blosc-zstd"])
    ap.add_argument("--gib", type=float, default=0.008, help="array size in GiB (default: 8 MiB)")
    ap.add_argument("--chunk-mib", type=float, default=0.25, help="zarr chunk size in MiB")
    ap.add_argument("--group", type=int, default=16, help="zarr chunks per dask task (one opencomp call)")
    ap.add_argument("--gpu-group", type=int, default=None, help="with --scaling: zarr chunks per task on GPUs")
    ap.add_argument("--workers", type=int, default=2, help="CPU workers (without --scaling)")
    ap.add_argument("--threads", type=int, default=2, help="threads per worker")
    ap.add_argument("--repeats", type=int, default=1, help="reads of the store; the best time counts")
    ap.add_argument("--max-gpus", type=int, default=None, help="with --scaling: at most this many GPUs")
    ap.add_argument("--processes", action="store_true", help="worker processes instead of threads")
    ap.add_argument("--json", help="write the result here")
    args = ap.parse_args()
    if args.scaling:
        out = scaling(args.store, args.codec, args.gib, args.chunk_mib, args.group, args.threads, args.repeats,
                      args.max_gpus if args.max_gpus is not None else gpu_count(), args.gpu_group)
        ok = all(r["ok"] for r in out["rows"])
    else:
        out = main(args.store, args.gpu, args.workers, args.processes, args.codec, args.gib, args.chunk_mib,
                   args.group, args.threads, args.repeats)
        print(f"{out['tasks']} dask tasks of {args.group} zarr chunks each from {out['path']} "
              f"({out['nbytes'] / 2**20:.1f} MiB, {args.codec}, ratio {out['ratio']:.2f}): "
              f"{out['gb_s']:.2f} GB/s, sum {out['total']:.6g} (written: {out['expect_total']:.6g}) "
              f"{'ok' if out['ok'] else 'WRONG'}")
        ok = out["ok"]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    raise SystemExit(0 if ok else 1)
