"""No leaks over 10^5 calls: reference counts of inputs and outputs return
to where they started, and neither traced Python memory nor the process's
RSS grows (sys.gettotalrefcount is not in release builds)."""

import gc
import sys
import tracemalloc

import numpy as np

import opencomp as oc


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_no_leak_over_100k_calls():
    data = np.arange(256, dtype=np.uint8)
    payload = bytes(range(200)) * 2
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    comp = codec.encode(payload)
    out = np.empty(len(payload), np.uint8)
    refs = (sys.getrefcount(data), sys.getrefcount(comp), sys.getrefcount(out), sys.getrefcount(codec))

    def rounds(n):
        for i in range(n):
            codec.encode(data)
            codec.decode(comp, out=out)
            codec.decode([comp, comp], uncomp_sizes=[len(payload)] * 2)
            if i % 1000 == 0:
                codec.decode(b"garbage!", errors="status")
                try:
                    codec.decode(b"garbage!")
                except oc.Error:
                    pass
                oc.as_array(data)
                np.from_dlpack(oc.as_array(data))

    rounds(2000)  # warm-up: caches, pools, allocator arenas
    gc.collect()
    tracemalloc.start()
    rss0 = rss_kib()
    snap0 = tracemalloc.take_snapshot()
    rounds(100_000 // 3)  # 3 codec calls per round: 10^5 calls
    gc.collect()
    snap1 = tracemalloc.take_snapshot()
    rss1 = rss_kib()
    tracemalloc.stop()
    grown = sum(s.size_diff for s in snap1.compare_to(snap0, "filename") if s.size_diff > 0)
    assert grown < 256 * 1024, f"traced Python memory grew by {grown} bytes"
    assert rss1 - rss0 < 16 * 1024, f"RSS grew by {rss1 - rss0} KiB over 10^5 calls"
    assert (sys.getrefcount(data), sys.getrefcount(comp), sys.getrefcount(out), sys.getrefcount(codec)) == refs
    assert np.asarray(codec.decode(comp)).tobytes() == payload
