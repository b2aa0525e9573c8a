#!/usr/bin/env python3
"""bench/gpu/dev/zarr_slab_latency.py - is the GPU zstd decode of MB-sized frames
bound by one frame's latency or by the batch's bytes?  The answer decides how
opencomp.zarr's direct read may cut a read into slabs (issue 16, session 10):
if a call of n frames takes about as long for n = 16 as for n = 256, slabs
decoded one after another each cost that time, and only slabs decoded side by
side (a stream each: the lanes of opencomp/zarr/_fastread.py) can hide the
store reads behind the decode.

Needs CuPy and a GPU (run it on the GPU machine).  It compresses the same
float32 random walk as bench/zarr_read.py with the CPU engine (libzstd,
level 3, RAW frames as zarr's ZstdCodec writes them), copies the frames to
the device once, then times, median of --repeat after a warm-up:

  one call    the first n frames in one packed call (errors="status": it
              synchronises), for each n of --counts
  two streams n frames as two stream-ordered calls of n/2 on two Codecs with
              streams of their own, each call under its stream (CuPy's
              current stream), both synchronised (what two lanes do)

Every output is compared with the input.  Prints one line a measurement.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chunk-kib", type=int, default=4096)
    ap.add_argument("--counts", default="16,64,128,256")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    import cupy as cp
    import numpy as np

    import opencomp

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    from zarr_read import make_data  # the same data as the zarr read

    counts = [int(c) for c in args.counts.split(",")]
    chunk = args.chunk_kib << 10
    nmax = max(counts)
    data = make_data(nmax * chunk // 4).view(np.uint8)
    host = opencomp.Codec("zstd", bitstream_kind=opencomp.BitstreamKind.RAW, level=3)
    offs = list(range(0, nmax * chunk, chunk))
    frames = [np.frombuffer(bytes(f), np.uint8) for f in host.encode([data[o:o + chunk] for o in offs])]
    sizes = [f.size for f in frames]
    coffs = np.cumsum([0] + sizes[:-1]).tolist()
    src = cp.asarray(np.concatenate(frames))
    out = cp.empty(nmax * chunk, cp.uint8)
    ref = cp.asarray(data)
    print(f"zarr_slab_latency: {nmax} frames of {args.chunk_kib} KiB, ratio {nmax * chunk / sum(sizes):.2f}, "
          f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}", flush=True)
    dev = opencomp.Codec("zstd", bitstream_kind=opencomp.BitstreamKind.RAW)
    streams = [cp.cuda.Stream(non_blocking=True) for _ in range(2)]
    lanes = [opencomp.Codec("zstd", bitstream_kind=opencomp.BitstreamKind.RAW, cuda_stream=s) for s in streams]

    def one(n):
        _, st = dev.decode(src, src_offsets=coffs[:n], src_sizes=sizes[:n], out=out, out_offsets=offs[:n],
                           uncomp_sizes=[chunk] * n, errors="status")
        assert all(s == opencomp.Status.OK for s in st)

    def two(n):
        # Each call under its own stream, as the zarr read's lanes call: src's
        # and out's __cuda_array_interface__ then name the lane's stream.
        # Called on CuPy's default stream instead (call Z2's version), the
        # calls serialised: out='s stream (the legacy default) waits for the
        # first decode, and the second lane waits for that stream.
        h = n // 2
        for stream, lane, lo, hi in ((streams[0], lanes[0], 0, h), (streams[1], lanes[1], h, n)):
            with stream:
                lane.decode(src, src_offsets=coffs[lo:hi], src_sizes=sizes[lo:hi], out=out,
                            out_offsets=offs[lo:hi], uncomp_sizes=[chunk] * (hi - lo))
        for lane in lanes:
            lane.synchronize()

    for how, fn in (("one call", one), ("two streams", two)):
        for n in counts:
            out.fill(0)
            cp.cuda.Device().synchronize()
            fn(n)
            ok = bool(cp.array_equal(out[: n * chunk], ref[: n * chunk]))
            times = []
            for _ in range(args.repeat):
                cp.cuda.Device().synchronize()
                t = time.perf_counter()
                fn(n)
                times.append(time.perf_counter() - t)
            med = statistics.median(times)
            print(f"  {how:11s} n={n:5d}  {med * 1e3:8.1f} ms  {n * chunk / med / 1e9:6.2f} GB/s"
                  f"{'' if ok else '  RESULT DIFFERS'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
