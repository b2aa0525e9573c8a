#!/usr/bin/env python3
"""bench/zarr_read.py - read a ~1 GiB compressed zarr array into GPU memory:
stock zarr (CPU decode, then a copy to the GPU) vs opencomp.zarr (GPU decode).

Runs only on a machine with a CUDA GPU, CuPy, zarr-python 3 and opencomp
installed (the GPU machine: see docs/ZARR.md, "Benchmark").  Usage:

    python3 bench/zarr_read.py [--size-gib 1] [--chunk-kib 1024] [--shard-kib 0] [--codec zstd]
                               [--batch-size 256] [--repeat 5] [--store DIR] [--json FILE]
                               [--contenders a,b,...] [--breakdown]

It writes the array once with zarr's own codec (``--codec``: zstd, gzip, blosc,
numcodecs.zstd, numcodecs.lz4, numcodecs.zlib, numcodecs.gzip) to a LocalStore
(page cache warm after the write, so every contender reads the same cached
files), then reads the whole array with each contender, every result landing
in device memory as a CuPy array:

  stock-host+copy     stock codecs, host buffers, then cupy.asarray(result)
  stock-gpu-buffers   stock codecs under zarr.config.enable_gpu() (zarr copies
                      each chunk to the host, decodes, copies it back)
  opencomp-gpu        opencomp.zarr.enable(batch_size) + enable_gpu(): the
                      direct read (docs/ZARR.md): the chunk files into one
                      pinned buffer, ONE copy to the device, ONE decode call
                      straight into the output (GPU kernel if this build has
                      one for the algorithm: see `gpu_kernel`)
  opencomp-gpu-batched  the same with the direct read switched off by this
                      script: zarr's batches of batch_size chunks, each one
                      copy and one call (the one-copy path of 450a340)
  opencomp-host+copy  opencomp.zarr.enable(batch_size), host buffers (the
                      direct read on the CPU engine), then one copy
  opencomp-gpu-kvikio   opencomp-gpu with the chunk files read straight into
                      device memory by kvikio's CuFile (needs kvikio; the
                      library does this itself only when GPUDirect Storage is
                      live, not in kvikio's compatibility mode, which this
                      contender forces)
  kvikio-gdsstore     stock codecs under enable_gpu() on kvikio's GDSStore
                      (kvikio's zarr store: each chunk read into a device buffer)
  opencomp-gpu-slabMxK  opencomp-gpu with the direct read's device slabs set
                      by this script (--slab-variants M:K,...): slabs of M MiB
                      decoded bytes on K lanes (M = 0: the whole read one slab,
                      i.e. read everything, one copy, one call; no floor of
                      DEVICE_SLAB_CHUNKS chunks a slab); a bench experiment,
                      the library's defaults are DEVICE_SLAB_BYTES,
                      DEVICE_SLAB_CHUNKS and LANES in opencomp/zarr/_fastread.py

A second table isolates the codec (``--codec-only``, on by default): the
chunks' compressed bytes already sit in memory as zarr Buffers, and the
timed work is the codec's batch ``decode`` alone:

  codec stock   (device in)  zarr's codec on device buffers (per chunk: to host, decode, back)
  codec opencomp(device in)  opencomp's codec, --decode-batch chunks per call, on device buffers
  codec stock   (host in)    zarr's codec on host buffers
  codec opencomp(host in)    opencomp's codec on host buffers (CPU engine)

Each contender: one warm-up read, then --repeat timed reads (device
synchronised before the clock stops), median and best reported as GB/s of
uncompressed bytes (1 GB = 10^9 B).  Every result is compared with the
original array on the device.  Prints a table; --json writes the figures with
the device, date and opencomp build.  --breakdown adds, for the opencomp
contenders, the time inside opencomp's decode calls and the rest per chunk
(store reads, copies, zarr's and opencomp's Python), from the median read.
--profile adds, for opencomp-gpu (the direct read), --repeat more reads with
a device synchronisation after each phase, and prints the median of each:
store read (the chunk or shard files into one pinned buffer), shard index
(sharded arrays: the indexes read and checked), H2D (the one copy), decode
(the packed call and its kernels, to the synchronisation), assembly (the rest
of the direct read: staging copies, fill values), and zarr (the rest of the
read: zarr's indexing and event loop, the worker-thread hand-off).  The
synchronisations cost the overlap the real read has, so the phases sum to a
little more than the timed read.  It then stamps one more read (after a
warm-up) without added synchronisations: per slab of the device read, the
host's part and the decode's start and end on the GPU (CUDA events on the
lane's stream), in ms from the read's start ("timeline" in the JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
import warnings


def _codec(name: str, level: int | None):
    from zarr.codecs import GzipCodec, ZstdCodec
    import zarr.codecs.numcodecs as zn

    if name == "zstd":
        return ZstdCodec(level=3 if level is None else level)
    if name == "gzip":
        return GzipCodec(level=5 if level is None else level)
    if name == "blosc":  # zarr-python 2's default compressor: lz4 + byte shuffle
        from zarr.codecs import BloscCodec

        return BloscCodec(cname="lz4", clevel=5 if level is None else level, shuffle="shuffle", typesize=4)
    cls = {"numcodecs.zstd": zn.Zstd, "numcodecs.lz4": zn.LZ4, "numcodecs.zlib": zn.Zlib, "numcodecs.gzip": zn.GZip}[name]
    if name == "numcodecs.lz4":
        return cls(acceleration=1)
    return cls() if level is None else cls(level=level)


def make_data(n: int, seed: int = 1):
    """float32 sensor-like samples: a quantised random walk (compresses ~2-4x)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    out = np.empty(n, np.float32)
    step = 1 << 24
    base = 0
    for i in range(0, n, step):
        k = min(step, n - i)
        walk = np.cumsum(rng.integers(-3, 4, k, dtype=np.int8), dtype=np.int64) + base
        base = int(walk[-1])
        out[i : i + k] = walk.astype(np.float32) / 16
    return out


def codec_only(args, z, ref, nbytes, cp, sync):
    """Time the codecs' batch decode alone on chunks already in (device or host) memory."""
    import asyncio

    import zarr.core.buffer.gpu as gpu_buffer
    from zarr.core.array_spec import ArrayConfig, ArraySpec
    from zarr.core.buffer import default_buffer_prototype

    import opencomp.zarr as ocz

    stock = _codec(args.codec, args.level)
    ours = ocz.CODECS[args.codec][0].from_dict(stock.to_dict())
    keys = sorted(os.listdir(os.path.join(args.store, "c")), key=int)
    raw = [open(os.path.join(args.store, "c", k), "rb").read() for k in keys]
    chunk = z.chunks[0]
    print(f"codec only: {len(raw)} chunks in memory, opencomp {args.decode_batch or len(raw)} chunks per call",
          flush=True)
    out = []
    for where in ("device", "host"):
        proto = gpu_buffer.buffer_prototype if where == "device" else default_buffer_prototype()
        spec = ArraySpec(shape=(chunk,), dtype=z.metadata.data_type, fill_value=0.0,
                         config=ArrayConfig(order="C", write_empty_chunks=False), prototype=proto)
        bufs = [proto.buffer.from_bytes(r) for r in raw]
        sync()
        for name, codec, batch in (("stock", stock, len(bufs)), ("opencomp", ours, args.decode_batch or len(bufs))):

            async def run(codec=codec, batch=batch, spec=spec):
                res = []
                for i in range(0, len(bufs), batch):
                    res.extend(await codec.decode([(b, spec) for b in bufs[i : i + batch]]))
                return res

            res = asyncio.run(run())
            sync()
            got = [r.as_array_like() for r in res]
            flat = cp.concatenate([cp.asarray(g) for g in got]).view(cp.float32)
            ok = bool(cp.array_equal(flat, ref))
            del res, got, flat
            times = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                res = asyncio.run(run())
                sync()
                times.append(time.perf_counter() - t)
                del res
            med, best = statistics.median(times), min(times)
            r = {"contender": f"codec-{name}-{where}-in", "verified": ok, "median_s": med, "best_s": best,
                 "median_gbps": nbytes / med / 1e9, "best_gbps": nbytes / best / 1e9}
            out.append(r)
            print(f"  codec {name:9s} ({where} in) median {r['median_gbps']:7.2f} GB/s  best {r['best_gbps']:7.2f} GB/s"
                  f"  ({med * 1e3:.0f} ms){'' if ok else '  RESULT DIFFERS'}", flush=True)
    return out


PHASES = ("store read", "shard index", "H2D", "decode", "assembly", "zarr")


def phase_profile(args, read, ref, nbytes, nchunks, cp, sync):
    """opencomp-gpu's direct read timed in phases (--profile): _fastread's steps
    wrapped, a device synchronisation after each; the median of --repeat reads."""
    from opencomp.zarr import _fastread
    from opencomp.numcodecs import _batch

    cur: dict = {}
    saved = {k: getattr(_fastread, k) for k in ("_read_files", "_pack", "_shard_ranges", "_to_device", "_read_sync")}
    real_codec = _batch.BatchCodec.codec

    def timed(phase, fn, gpu=False):
        def wrapper(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                if gpu:
                    sync()
                cur[phase] = cur.get(phase, 0.0) + time.perf_counter() - t
        return wrapper

    class _Sync:
        def __init__(self, codec):
            self._codec = codec

        def decode(self, *a, **k):
            sync()  # the copy before it is done: the decode's own time only
            return timed("decode", self._codec.decode, gpu=True)(*a, **k)

        def __getattr__(self, name):
            return getattr(self._codec, name)

    _fastread._read_files = timed("store read", saved["_read_files"])
    _fastread._pack = timed("store read", saved["_pack"])
    _fastread._shard_ranges = timed("shard index", saved["_shard_ranges"])
    _fastread._to_device = timed("H2D", saved["_to_device"], gpu=True)
    _fastread._read_sync = timed("direct", saved["_read_sync"], gpu=True)
    _batch.BatchCodec.codec = property(lambda self: _Sync(real_codec.fget(self)))
    real_on = _batch.BatchCodec.codec_on
    _batch.BatchCodec.codec_on = lambda self, stream: _Sync(real_on(self, stream))
    _fastread._LANE_POOL.clear()  # lanes made now, through _Sync
    runs = []
    ok = True
    try:
        for _ in range(max(1, args.repeat)):
            cur.clear()
            t = time.perf_counter()
            got = read()
            sync()
            total = time.perf_counter() - t
            ok = ok and bool(cp.array_equal(got, ref))
            del got
            ph = {p: cur.get(p, 0.0) for p in PHASES}
            ph["assembly"] = cur.get("direct", 0.0) - sum(cur.get(p, 0.0) for p in PHASES[:4])
            ph["zarr"] = total - cur.get("direct", 0.0)
            ph["total"] = total
            runs.append(ph)
    finally:
        for k, v in saved.items():
            setattr(_fastread, k, v)
        _batch.BatchCodec.codec = real_codec
        _batch.BatchCodec.codec_on = real_on
        _fastread._LANE_POOL.clear()
    med = {p: statistics.median(r[p] for r in runs) for p in PHASES + ("total",)}
    print(f"profile: opencomp-gpu direct read in phases (a sync after each; median of {len(runs)}; "
          f"{nchunks} chunks){'' if ok else '  RESULT DIFFERS'}", flush=True)
    for p in PHASES + ("total",):
        print(f"  {p:12s} {med[p] * 1e3:8.1f} ms  {100 * med[p] / med['total']:5.1f}%"
              + (f"  {nbytes / med[p] / 1e9:7.2f} GB/s" if p in ("decode", "total") and med[p] > 0 else ""),
              flush=True)
    return {"phases_s": med, "runs": len(runs), "verified": ok,
            "note": "a device synchronisation after each phase; medians per phase, so they need not sum to total"}


def lane_timeline(read, ref, cp):
    """One opencomp-gpu read (the library's slabs and lanes) stamped without
    an added synchronisation (--profile): per slab, the host's part
    (_read_sync: the files read, the copy and the decode enqueued) in ms from
    the read's start, and its decode on the GPU (CUDA events around the call
    on the lane's stream; the start is when the stream reaches the call,
    after the copy); a warm-up read first (the lanes are made anew here)."""
    from opencomp.zarr import _fastread
    from opencomp.numcodecs import _batch

    real_sync, real_on = _fastread._read_sync, _batch.BatchCodec.codec_on
    slabs: list = []
    t0 = [0.0]

    def stamped_sync(*a, **k):
        rec = {"host_start_ms": (time.perf_counter() - t0[0]) * 1e3, "events": []}
        slabs.append(rec)
        try:
            return real_sync(*a, **k)
        finally:
            rec["host_end_ms"] = (time.perf_counter() - t0[0]) * 1e3

    class _Stamped:
        def __init__(self, codec, stream):
            self._codec, self._stream = codec, stream

        def decode(self, *a, **k):
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            e0.record(self._stream)
            try:
                return self._codec.decode(*a, **k)
            finally:
                e1.record(self._stream)
                if slabs:
                    slabs[-1]["events"].append((e0, e1))

        def __getattr__(self, name):
            return getattr(self._codec, name)

    _fastread._read_sync = stamped_sync
    _batch.BatchCodec.codec_on = lambda self, stream: _Stamped(real_on(self, stream), stream)
    _fastread._LANE_POOL.clear()
    try:
        got = read()  # warm-up: the lanes' Codecs, scratch and pinned buffers
        del got
        cp.cuda.Device().synchronize()
        del slabs[:]
        start = cp.cuda.Event()
        t0[0] = time.perf_counter()
        start.record()
        got = read()
        cp.cuda.Device().synchronize()
        total = (time.perf_counter() - t0[0]) * 1e3
        ok = bool(cp.array_equal(got, ref))
        del got
    finally:
        _fastread._read_sync, _batch.BatchCodec.codec_on = real_sync, real_on
        _fastread._LANE_POOL.clear()
    rows = []
    for k, rec in enumerate(slabs):
        row = {"slab": k, "host_start_ms": rec["host_start_ms"], "host_end_ms": rec.get("host_end_ms")}
        if rec["events"]:
            e0, e1 = rec["events"][0][0], rec["events"][-1][1]
            row["gpu_decode_start_ms"] = cp.cuda.get_elapsed_time(start, e0)
            row["gpu_decode_end_ms"] = cp.cuda.get_elapsed_time(start, e1)
        rows.append(row)
    print(f"timeline: one opencomp-gpu read, {total:.1f} ms{'' if ok else '  RESULT DIFFERS'} "
          f"(slabs of >= {_fastread.DEVICE_SLAB_BYTES >> 20} MiB and >= {_fastread.DEVICE_SLAB_CHUNKS} chunks on "
          f"{_fastread.LANES} lanes; ms from the read's start)",
          flush=True)
    for r in rows:
        gpu = (f"  decode on the GPU {r['gpu_decode_start_ms']:7.1f} .. {r['gpu_decode_end_ms']:7.1f}"
               if "gpu_decode_start_ms" in r else "  (no decode)")
        print(f"  slab {r['slab']:2d}  host {r['host_start_ms']:7.1f} .. {r['host_end_ms']:7.1f}{gpu}", flush=True)
    return {"total_ms": total, "verified": ok, "slabs": rows, "device_slab_bytes": _fastread.DEVICE_SLAB_BYTES,
            "device_slab_chunks": _fastread.DEVICE_SLAB_CHUNKS, "lanes": _fastread.LANES}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="zarr read into GPU memory: stock vs opencomp")
    ap.add_argument("--size-gib", type=float, default=1.0)
    ap.add_argument("--chunk-kib", type=int, default=1024, help="uncompressed chunk size")
    ap.add_argument("--shard-kib", type=int, default=0,
                    help="store the chunks in zarr v3 shards of this many KiB (0: no sharding; implies "
                         "--no-codec-only, the chunk files being shards)")
    ap.add_argument("--codec", default="zstd")
    ap.add_argument("--level", type=int, default=None)
    ap.add_argument("--batch-size", type=int, default=256, help="codec_pipeline.batch_size for opencomp")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--store", default="/tmp/opencomp_zarr_read_bench.zarr")
    ap.add_argument("--contenders",
                    default="stock-host+copy,stock-gpu-buffers,opencomp-gpu,opencomp-gpu-batched,opencomp-host+copy")
    ap.add_argument("--breakdown", action="store_true",
                    help="time opencomp's decode calls inside each opencomp read (adds a spy, not a sync)")
    ap.add_argument("--profile", action="store_true",
                    help="opencomp-gpu's direct read in phases, a synchronisation after each (module docstring)")
    ap.add_argument("--slab-variants", default="",
                    help="M:K,... adds opencomp-gpu-slabMxK contenders: the direct read in slabs of M MiB "
                         "(0: one slab) on K lanes")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--no-codec-only", action="store_true", help="skip the codec-only table")
    ap.add_argument("--decode-batch", type=int, default=0,
                    help="chunks per opencomp call in the codec-only table (0 = all chunks in one call)")
    args = ap.parse_args(argv)

    try:
        import cupy as cp
    except ImportError:
        print("zarr_read: needs CuPy and a CUDA GPU (run it on the GPU machine)", file=sys.stderr)
        return 2
    try:
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        print(f"zarr_read: no usable GPU ({e})", file=sys.stderr)
        return 2
    import numpy as np
    import zarr

    import opencomp
    import opencomp.zarr as ocz
    from opencomp.numcodecs import _batch

    warnings.filterwarnings("ignore", message="Numcodecs codecs are not in the Zarr version 3")
    fallback_warnings = []
    warnings.simplefilter("always", ocz.GpuFallbackWarning)
    _show = warnings.showwarning

    def _catch(message, category, *a, **k):
        if issubclass(category, ocz.GpuFallbackWarning):
            fallback_warnings.append(str(message))
        else:
            _show(message, category, *a, **k)

    warnings.showwarning = _catch

    n = int(args.size_gib * (1 << 30)) // 4
    chunk = max(1, args.chunk_kib * 1024 // 4)
    n -= n % chunk
    nbytes = n * 4
    print(f"zarr_read: {nbytes / 2**30:.2f} GiB float32, {n // chunk} chunks of {args.chunk_kib} KiB"
          f"{f' in shards of {args.shard_kib} KiB' if args.shard_kib else ''}, "
          f"codec {args.codec}, opencomp batch_size {args.batch_size}", flush=True)
    t0 = time.perf_counter()
    data = make_data(n)
    shutil.rmtree(args.store, ignore_errors=True)
    shards = None
    if args.shard_kib:
        shard = args.shard_kib * 1024 // 4
        if shard % chunk or n % shard:
            ap.error("--shard-kib must be a multiple of --chunk-kib and divide the array")
        shards = (shard,)
        args.no_codec_only = True
    z = zarr.create_array(args.store, shape=(n,), chunks=(chunk,), shards=shards, dtype=np.float32,
                          compressors=[_codec(args.codec, args.level)], fill_value=0.0)
    z[:] = data
    stored = sum(e.stat().st_size for e in os.scandir(os.path.join(args.store, "c")))
    print(f"zarr_read: wrote {args.store} in {time.perf_counter() - t0:.1f} s, "
          f"ratio {nbytes / stored:.2f} ({stored / 2**20:.0f} MiB stored)", flush=True)
    ref = cp.asarray(data)
    del data

    def sync():
        cp.cuda.Device().synchronize()

    def read_stock_host():
        return cp.asarray(zarr.open_array(args.store, mode="r")[:])

    def read_stock_gpu():
        with zarr.config.enable_gpu():
            return zarr.open_array(args.store, mode="r")[:]

    def read_oc_gpu():
        with zarr.config.enable_gpu(), ocz.enable(batch_size=args.batch_size):
            return zarr.open_array(args.store, mode="r")[:]

    def read_oc_host():
        with ocz.enable(batch_size=args.batch_size):
            return cp.asarray(zarr.open_array(args.store, mode="r")[:])

    from opencomp.zarr import _fastread

    direct_read = _fastread.read_selection

    async def no_direct(*a, **k):
        return False

    def read_oc_gpu_batched():
        _fastread.read_selection = no_direct  # a bench experiment, not a library switch
        try:
            return read_oc_gpu()
        finally:
            _fastread.read_selection = direct_read

    codec_calls = []  # seconds inside opencomp.Codec.decode, for --breakdown
    if args.breakdown:
        real_codec = _batch.BatchCodec.codec

        class _Timed:
            def __init__(self, codec):
                self._codec = codec

            def decode(self, *a, **k):
                t = time.perf_counter()
                try:
                    return self._codec.decode(*a, **k)
                finally:
                    codec_calls.append(time.perf_counter() - t)

            def __getattr__(self, name):
                return getattr(self._codec, name)

        _batch.BatchCodec.codec = property(lambda self: _Timed(real_codec.fget(self)))
        # the direct read's lanes (a Codec each, stream-ordered: their calls return at once)
        real_on = _batch.BatchCodec.codec_on
        _batch.BatchCodec.codec_on = lambda self, stream: _Timed(real_on(self, stream))
        _fastread._LANE_POOL.clear()

    real_gds = _fastread._gds

    def read_oc_gpu_kvikio():
        """The direct read through kvikio's CuFile even in its compatibility
        mode (the library takes it only with GPUDirect Storage live)."""
        import kvikio

        _fastread._gds = lambda: kvikio  # a bench experiment, not a library switch
        try:
            return read_oc_gpu()
        finally:
            _fastread._gds = real_gds

    def read_kvikio_gdsstore():
        """kvikio's own zarr store (GDSStore: each chunk read by kvikio into a
        device buffer), stock codecs under enable_gpu()."""
        from kvikio.zarr import GDSStore

        with zarr.config.enable_gpu():
            return zarr.open_array(GDSStore(args.store), mode="r")[:]

    def slab_variant(mib, lanes):
        def read():
            saved = _fastread.DEVICE_SLAB_BYTES, _fastread.DEVICE_SLAB_CHUNKS, _fastread.LANES
            # a bench experiment, not a library switch: slabs of exactly M MiB (no chunk-count floor)
            _fastread.DEVICE_SLAB_BYTES = (mib << 20) if mib else 1 << 62
            _fastread.DEVICE_SLAB_CHUNKS = 1
            _fastread.LANES = lanes
            try:
                return read_oc_gpu()
            finally:
                _fastread.DEVICE_SLAB_BYTES, _fastread.DEVICE_SLAB_CHUNKS, _fastread.LANES = saved
        return read

    contenders = {
        "opencomp-gpu-kvikio": read_oc_gpu_kvikio,
        "kvikio-gdsstore": read_kvikio_gdsstore,
        "stock-host+copy": read_stock_host,
        "stock-gpu-buffers": read_stock_gpu,
        "opencomp-gpu": read_oc_gpu,
        "opencomp-gpu-batched": read_oc_gpu_batched,
        "opencomp-host+copy": read_oc_host,
    }
    names = args.contenders.split(",")
    for v in filter(None, args.slab_variants.split(",")):
        mib, lanes = (int(x) for x in v.split(":"))
        contenders[f"opencomp-gpu-slab{mib}x{lanes}"] = slab_variant(mib, lanes)
        names.append(f"opencomp-gpu-slab{mib}x{lanes}")
    results = []
    for name in names:
        fn = contenders[name]
        got = fn()
        sync()
        ok = isinstance(got, cp.ndarray) and got.shape == ref.shape and bool(cp.array_equal(got, ref))
        del got
        times, inside = [], []
        for _ in range(args.repeat):
            del codec_calls[:]
            t = time.perf_counter()
            got = fn()
            sync()
            times.append(time.perf_counter() - t)
            inside.append(sum(codec_calls))
            del got
        med, best = statistics.median(times), min(times)
        r = {"contender": name, "verified": ok, "median_s": med, "best_s": best,
             "median_gbps": nbytes / med / 1e9, "best_gbps": nbytes / best / 1e9}
        results.append(r)
        print(f"  {name:20s} median {r['median_gbps']:7.2f} GB/s  best {r['best_gbps']:7.2f} GB/s  "
              f"({med * 1e3:.0f} ms){'' if ok else '  RESULT DIFFERS'}", flush=True)
        if args.breakdown and name.startswith("opencomp"):
            k = times.index(sorted(times)[len(times) // 2])
            r["codec_calls_s"] = inside[k]
            rest = times[k] - inside[k]
            print(f"  {'':20s} of which opencomp decode calls {inside[k] * 1e3:.0f} ms, the rest {rest * 1e3:.0f} ms "
                  f"= {rest / (n // chunk) * 1e3:.3f} ms a chunk", flush=True)

    profile = phase_profile(args, read_oc_gpu, ref, nbytes, n // chunk, cp, sync) if args.profile else None
    timeline = None
    if args.profile:
        try:
            timeline = lane_timeline(read_oc_gpu, ref, cp)
        except Exception as e:  # noqa: BLE001 - a diagnostic; the rows above stand without it
            timeline = {"error": repr(e)}
            print(f"timeline: failed: {e!r}", flush=True)
    codec_results = [] if args.no_codec_only else codec_only(args, z, ref, nbytes, cp, sync)

    algorithm = _batch.FORMATS[args.codec.split(".")[-1]]
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    except OSError:
        commit = ""
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    try:
        import kvikio.defaults

        kvikio_compat = bool(kvikio.defaults.is_compat_mode_preferred())
    except Exception:  # noqa: BLE001 - not installed
        kvikio_compat = None
    report = {
        "benchmark": "zarr_read",
        "kvikio_compat_mode": kvikio_compat,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": os.environ.get("OC_COMMIT", commit),
        "device": props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"]),
        "opencomp_build": opencomp.build_info(),
        "cuda_available": opencomp.cuda_available(),
        "gpu_kernel": _batch._gpu_ok.get(algorithm),
        "gpu_fallback_warnings": fallback_warnings,
        "codec": args.codec,
        "uncompressed_bytes": nbytes,
        "stored_bytes": stored,
        "chunk_bytes": chunk * 4,
        "shard_bytes": args.shard_kib * 1024,
        "chunks": n // chunk,
        "batch_size": args.batch_size,
        "repeat": args.repeat,
        "zarr": zarr.__version__,
        "cupy": cp.__version__,
        "results": results,
        "codec_only": codec_results,
        "profile": profile,
        "timeline": timeline,
        "decode_batch": args.decode_batch,
        "device_slab_bytes": _fastread.DEVICE_SLAB_BYTES,
        "device_slab_chunks": _fastread.DEVICE_SLAB_CHUNKS,
        "lanes": _fastread.LANES,
    }
    print(f"zarr_read: device {report['device']}; opencomp GPU kernel for {algorithm}: "
          f"{ {True: 'yes', False: 'no (CPU decode + one copy per batch)', None: 'not tried'}[report['gpu_kernel']] }")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
    shutil.rmtree(args.store, ignore_errors=True)
    return 0 if all(r["verified"] for r in results + codec_results) else 1


if __name__ == "__main__":
    sys.exit(main())
