"""bench_out_buffers.py - not a test: times the uproot pattern on a GPU.

Pages of known sizes decode into slices of one device buffer:
  opencomp  decode(pages, out=slices, uncomp_sizes=...)   (no allocation, no copy)
  opencomp  decode(pages)                                 (allocates results)
  nvcomp    decode(as_arrays(pages)) then copy each result into its slice
Prints GB/s of uncompressed bytes (best of N), after checking the bytes.
Usage: python3 bench_out_buffers.py [MiB] [chunk_KiB] [algorithm]
"""

import glob
import sys
import time

import cupy as cp
import numpy as np

import opencomp as oc


def corpus(nbytes):
    text = b"".join(open(p, "rb").read() for p in sorted(glob.glob("/usr/share/doc/*/copyright"))[:200])
    rng = np.random.default_rng(0)
    col = np.cumsum(rng.normal(0, 1, nbytes // 8)).astype(np.float32).tobytes()
    text = (text * (nbytes // (2 * max(len(text), 1)) + 1))[: nbytes // 2]
    return (text + col)[:nbytes]


def best(fn, n=5):
    fn()
    t = 1e9
    for _ in range(n):
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        t = min(t, time.perf_counter() - t0)
    return t


def main():
    mib = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    chunk = (int(sys.argv[2]) if len(sys.argv) > 2 else 64) * 1024
    alg = sys.argv[3] if len(sys.argv) > 3 else "LZ4"
    data = corpus(mib << 20)
    pages = [data[i : i + chunk] for i in range(0, len(data), chunk)]
    sizes = [len(p) for p in pages]
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    comp = [bytes(c) for c in codec.encode(pages)]  # CPU engine
    dev_comp = [cp.asarray(np.frombuffer(c, np.uint8)) for c in comp]
    total = cp.empty(len(data), cp.uint8)
    offs = np.cumsum([0] + sizes)
    slices = [total[offs[i] : offs[i + 1]] for i in range(len(pages))]
    expect = cp.asarray(np.frombuffer(data, np.uint8))
    results = {}

    def ours_out():
        codec.decode(dev_comp, out=slices, uncomp_sizes=sizes)

    total.fill(0)
    ours_out()
    assert bool((total == expect).all())
    results["opencomp decode(out=slices)"] = best(ours_out)
    results["opencomp decode() allocating"] = best(lambda: codec.decode(dev_comp))
    try:
        from nvidia import nvcomp as nv

        nvc = nv.Codec(algorithm=alg, bitstream_kind=nv.BitstreamKind.RAW)
        nv_in = nv.as_arrays(dev_comp)

        def theirs():
            for s, d in zip(slices, nvc.decode(nv_in)):
                s[...] = cp.asarray(d)

        total.fill(0)
        theirs()
        assert bool((total == expect).all())
        results["nvcomp decode + copy into slices"] = best(theirs)
        results["nvcomp decode only"] = best(lambda: nvc.decode(nv_in))
    except ImportError:
        print("nvidia.nvcomp not installed: skipped")
    ratio = len(data) / sum(len(c) for c in comp)
    print(f"{alg}, {len(pages)} pages of {chunk >> 10} KiB, {mib} MiB, ratio {ratio:.2f}, "
          f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    for k, t in results.items():
        print(f"  {k:36s} {len(data) / t / 1e9:7.2f} GB/s  ({t * 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
