#!/usr/bin/env python3
"""py_phases.py - where the Python decode call's time goes, beside the kernel's (issue 16).

The full-scale run puts opencomp's Python LZ4 decode at 64 KiB chunks at 0.88x of
the C harness (111 against 126 GB/s for 1 GiB in 16,384 chunks): about 1.2 ms of a
9.7 ms call is not kernel time.  This script builds the same kind of batch (the
corpus files given, cut in chunks and repeated to --total bytes), compresses it
with opencomp on the GPU, packs the streams into one buffer, and times the
fast-path call bench/gpu/python_ladder.py times:

    codec.decode(buf, src_offsets=, src_sizes=, out=, out_offsets=, uncomp_sizes=)

split into its phases:
  wall     the call and a device synchronisation (the ladder's figure)
  return   the call alone: host work until it returns (the decode is stream-ordered)
  events   CUDA events on the codec's stream around the call: first event to last,
           which holds any host-side gap before the first enqueue too
  host     the call's return time while the GPU is busy with earlier work, so
           that it is host work alone (marshalling, the library's host side)
The kernel alone is oc_gpu_bench's row for the same codec and chunk size.
Prints one line per phase (median of --repeats, microseconds and GB/s); no
pass/fail.  Every output is checked against the input once.

    python3 bench/gpu/dev/py_phases.py [--codec lz4] [--chunk 65536] [--total 1073741824] FILE...
"""
import argparse
import glob
import os
import statistics
import time

import cupy as cp
import numpy as np

import opencomp as oc

NAMES = {"lz4": "LZ4", "snappy": "Snappy", "zstd": "Zstd", "deflate": "Deflate", "gdeflate": "GDeflate",
         "cascaded": "Cascaded", "bitcomp": "Bitcomp", "ans": "ANS"}


def batch(files, chunk, total):
    data = b"".join(open(f, "rb").read() for f in files)
    n = total // chunk
    cyc = len(data) // chunk
    host = np.frombuffer(data[: cyc * chunk], dtype=np.uint8)
    reps = (n + cyc - 1) // cyc
    full = np.tile(host, reps)[: n * chunk]
    return cp.asarray(full), n


def median_us(fn, repeats):
    ts = []
    for _ in range(repeats):
        s = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - s)
    return statistics.median(ts) * 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--codec", default="lz4", choices=sorted(NAMES))
    ap.add_argument("--chunk", type=int, default=65536)
    ap.add_argument("--total", type=int, default=1 << 30)
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--offsets", choices=["device", "host"], default="device",
                    help="offset and size arrays as CuPy (device) or numpy (host) int64 arrays")
    ap.add_argument("--data-type", default="", help="element type of cascaded/bitcomp/ans (<i4, <f8, bf16, ...)")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    files = [f for p in a.files for f in (sorted(glob.glob(os.path.join(p, "*"))) if os.path.isdir(p) else [p])]
    inp, n = batch(files, a.chunk, a.total)
    nbytes = n * a.chunk
    stream = cp.cuda.Stream(non_blocking=True)  # the codec's, so that events can be recorded on it
    # the stream object, not its .ptr: the Codec then keeps it alive.  With the int, the stream was destroyed
    # before the Codec when main()'s locals went (in order of definition), and the Codec's teardown on the
    # destroyed stream ended the process with SIGSEGV after every line was printed (call P, session 9)
    typed = {"data_type": a.data_type} if a.data_type else {}
    codec = oc.Codec(algorithm=NAMES[a.codec], bitstream_kind=oc.BitstreamKind.RAW, uncomp_chunk_size=a.chunk,
                     cuda_stream=stream, **typed)
    views = [inp[i * a.chunk:(i + 1) * a.chunk] for i in range(n)]
    comp = codec.encode(views)
    cviews = [cp.asarray(c).view(cp.uint8).reshape(-1) for c in comp]
    csz = np.array([int(v.size) for v in cviews], dtype=np.int64)
    coff = np.zeros(n, dtype=np.int64)
    coff[1:] = np.cumsum((csz + 255) // 256 * 256)[:-1]
    buf = cp.empty(int(coff[-1] + csz[-1]), dtype=cp.uint8)
    for o, v in zip(coff.tolist(), cviews):
        buf[o:o + v.size] = v
    del comp, cviews, views
    out = cp.empty(nbytes, dtype=cp.uint8)
    ooff = np.arange(n, dtype=np.int64) * a.chunk
    usz = np.full(n, a.chunk, dtype=np.int64)
    if a.offsets == "device":
        coff, csz, ooff, usz = (cp.asarray(x) for x in (coff, csz, ooff, usz))
    cp.cuda.runtime.deviceSynchronize()

    def call():
        return codec.decode(buf, out=out, src_offsets=coff, src_sizes=csz, out_offsets=ooff, uncomp_sizes=usz)

    call()
    cp.cuda.runtime.deviceSynchronize()
    ok = bool(cp.array_equal(out, inp))
    print("%s %d B chunks, %d chunks, %.1f MiB, ratio %.3f, offsets in %s memory, output %s" % (
        a.codec, a.chunk, n, nbytes / 2**20, nbytes / float(csz.sum()), a.offsets, "verified" if ok else "DIFFERS"))

    def line(what, us):
        print("  %-34s %10.1f us  %7.1f GB/s" % (what, us, nbytes / us / 1e3))

    line("wall: call + device sync", median_us(lambda: (call(), cp.cuda.runtime.deviceSynchronize()), a.repeats))
    rets, syncs = [], []
    for _ in range(a.repeats):
        s = time.perf_counter()
        call()
        m = time.perf_counter()
        cp.cuda.runtime.deviceSynchronize()
        e = time.perf_counter()
        rets.append(m - s)
        syncs.append(e - m)
    line("return: the call alone (host)", statistics.median(rets) * 1e6)
    line("sync after return", statistics.median(syncs) * 1e6)
    gpu = []
    for _ in range(a.repeats):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record(stream)
        call()
        e1.record(stream)
        e1.synchronize()
        gpu.append(cp.cuda.get_elapsed_time(e0, e1) * 1e3)
    line("events on the codec stream", statistics.median(gpu))
    # the host work alone, with the GPU busy elsewhere: queue a long kernel first,
    # so that the call's host part overlaps it and its return time is pure host work
    big = cp.empty(1 << 30, dtype=cp.uint8)
    hosts = []
    for _ in range(a.repeats):
        with stream:
            for _ in range(8):
                big.fill(1)
        s = time.perf_counter()
        call()
        hosts.append(time.perf_counter() - s)
        cp.cuda.runtime.deviceSynchronize()
    line("host part with the GPU busy", statistics.median(hosts) * 1e6)
    codec.synchronize()  # read every batch while its stream (ours) still exists


if __name__ == "__main__":
    main()
