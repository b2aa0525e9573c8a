"""Host-side cost of opencomp's Python batch path per chunk (issue 16).

The full-scale GPU ladder showed our Python decode at 17 GB/s against 80 GB/s
for the C harness on 16,384 chunks of 64 KiB: about 3 us per chunk spent on
the host.  That cost does not need a GPU to be found: this script calls the
same entry points as bench/gpu/python_ladder.py (Codec.decode with a list of
sources, out= views and uncomp_sizes=) on tiny host chunks with the CPU
engine, so the decode itself is nearly free and what is left is marshalling.
It also times the same call with objects that expose only an
__array_interface__ dict built in Python per access, the shape of CuPy's
__cuda_array_interface__ path.  Prints microseconds per chunk; no pass/fail.

    python3 bench/python_overhead.py [--chunks 16384] [--chunk-bytes 64]
"""
import argparse
import time

import numpy as np

import opencomp as oc


class DictInterface:
    """Exposes one array only through a freshly built __array_interface__."""
    __slots__ = ("a",)

    def __init__(self, a):
        self.a = a

    @property
    def __array_interface__(self):
        a = self.a
        return {"shape": a.shape, "typestr": "|u1", "data": (a.ctypes.data, False), "version": 3,
                "strides": None}


def best_of(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        s = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - s)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=16384)
    ap.add_argument("--chunk-bytes", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    n, sz = args.chunks, args.chunk_bytes
    rng = np.random.default_rng(1)
    data = rng.integers(0, 4, n * sz, dtype=np.uint8)
    ins = [data[i * sz:(i + 1) * sz] for i in range(n)]
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW, uncomp_chunk_size=sz)
    comp = [np.asarray(a).view(np.uint8).reshape(-1) for a in codec.encode(ins)]
    outbuf = np.empty(n * sz, np.uint8)
    outs = [outbuf[i * sz:(i + 1) * sz] for i in range(n)]
    sizes = [sz] * n
    comp_d = [DictInterface(a) for a in comp]
    outs_d = [DictInterface(a) for a in outs]
    one = codec.encode([data])
    soffs, pos = [], 0
    for a in comp:
        soffs.append(pos)
        pos += a.nbytes
    cbuf = np.concatenate(comp)
    ssizes = [a.nbytes for a in comp]
    ooffs = [i * sz for i in range(n)]
    cases = [
        ("decode(list, out=views, uncomp_sizes=)  [the ladder's call]",
         lambda: codec.decode(comp, out=outs, uncomp_sizes=sizes), n),
        ("decode(buf, src_offsets=, src_sizes=, out=buf, out_offsets=, uncomp_sizes=)  [one-buffer fast path]",
         lambda: codec.decode(cbuf, out=outbuf, src_offsets=soffs, src_sizes=ssizes, out_offsets=ooffs,
                              uncomp_sizes=sizes), n),
        ("decode(list, uncomp_sizes=)  [results allocated]", lambda: codec.decode(comp, uncomp_sizes=sizes), n),
        ("decode(list)  [sizes queried]", lambda: codec.decode(comp), n),
        ("decode(dict-interface srcs, out=dict-interface views, uncomp_sizes=)",
         lambda: codec.decode(comp_d, out=outs_d, uncomp_sizes=sizes), n),
        ("  building those 2 dicts per chunk in Python alone",
         lambda: [(a.__array_interface__, b.__array_interface__) for a, b in zip(comp_d, outs_d)], n),
        ("one chunk holding all the bytes (decode work, per original chunk)",
         lambda: codec.decode(one, uncomp_sizes=[n * sz]), n),
    ]
    print("%d chunks of %d B, best of %d; us per chunk" % (n, sz, args.repeats))
    for name, fn, count in cases:
        print("%8.2f  %s" % (best_of(fn, args.repeats) / count * 1e6, name))


if __name__ == "__main__":
    main()
