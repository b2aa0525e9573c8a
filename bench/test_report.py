#!/usr/bin/env python3
"""bench/test_report.py - self-test of bench/report.py and bench/plot.py, runnable
with plain `python3 bench/test_report.py` (no pytest), exit status 0 = pass.

Guards: the arithmetic of the merged tables (corpus ratio = total / total,
corpus throughput = total bytes / total time, not a mean of rates), the merge
rule (newest run wins), that contenders are compared on the files they all
measured, that malformed or inconsistent runs are refused with a message
instead of being plotted, and that the plot is a real PNG.  The compressed
sizes in the sample runs are real: zlib and raw-deflate over 4 KiB chunks of
files of this repository; the speeds are sample figures chosen so the
expected aggregates are easy to compute by hand.
"""

import copy
import io
import json
import os
import struct
import sys
import tempfile
import zlib
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402

CHUNK = 4096
FAILS = []
CHECKS = [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


def chunked_size(data, level, chunk=CHUNK):
    total = 0
    for i in range(0, len(data), chunk):
        c = zlib.compressobj(level, zlib.DEFLATED, -15)
        total += len(c.compress(data[i:i + chunk]) + c.flush())
    return total


def result(name, data, contender, comp, dec, level=6, chunk=CHUNK, **kw):
    cb = chunked_size(data, level, chunk)
    r = {"file": name, "file_bytes": len(data), "algorithm": "deflate", "level": level, "chunk_size": chunk,
         "num_chunks": -(-len(data) // chunk), "contender": contender, "uncompressed_bytes": len(data),
         "compressed_bytes": cb, "ratio": len(data) / cb, "compress_gbps": comp, "decompress_gbps": dec,
         "timing": "cuda-events" if contender.endswith("-gpu") else "wall-clock", "repeats": 5,
         "scope": "kernel", "verified": True}
    if contender.endswith("-cpu"):
        r["threads"] = 1 if contender == "reference-cpu" else 2
    r.update(kw)
    return r


def run(tool, date, results, gpu):
    return {"schema": 1, "tool": tool, "date": date, "commit": "0123456789abcdef",
            "host": {"cpu": "test cpu", "cores": 2, "os": "Linux"},
            "device": {"name": "Test GPU", "driver": "1.0", "cuda_runtime": "13.0", "sms": 4} if gpu else None,
            "results": results}


def write(d, name, obj):
    p = os.path.join(d, name)
    with open(p, "w") as f:
        json.dump(obj, f)
    return p


def call(main, argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(argv)
    return rc, out.getvalue(), err.getvalue()


def main():
    root = os.path.dirname(HERE)
    files = {}
    for rel in ("bench/report.py", "bench/corpuslib.py", "include/opencomp.h"):
        p = os.path.join(root, rel)
        if os.path.exists(p):
            with open(p, "rb") as f:
                files[os.path.basename(rel)] = f.read()
    check(len(files) >= 2, "found real input files")
    names = sorted(files)
    a, b = names[0], names[1]

    with tempfile.TemporaryDirectory() as d:
        cpu = run("opencomp-bench", "2026-11-21T06:00:00Z",
                  [result(n, files[n], c, s, 2 * s) for n in names
                   for c, s in (("opencomp-cpu", 1.0), ("reference-cpu", 0.5))], gpu=False)
        gpu = run("oc-gpu-bench", "2026-11-21T06:10:00Z",
                  [result(a, files[a], "opencomp-gpu", 100.0, 200.0),
                   result(b, files[b], "opencomp-gpu", 50.0, 100.0),
                   result(a, files[a], "nvcomp-gpu", 80.0, 160.0)], gpu=True)
        p_cpu = write(d, "cpu.json", cpu)
        p_gpu = write(d, "gpu.json", gpu)

        # terminal table: one line per result plus the header
        rc, out, err = call(report.main, [p_cpu, p_gpu])
        check(rc == 0, "terminal report exits 0 (%r)" % err)
        lines = out.strip().splitlines()
        check(len(lines) == 1 + len(cpu["results"]) + len(gpu["results"]), "one line per result")
        check("reference-cpu" in out and "nvcomp-gpu" in out, "all contenders in the table")

        # markdown: corpus row of opencomp-gpu is over the files nvcomp-gpu also measured (only a)
        rc, md, err = call(report.main, ["--markdown", d])
        check(rc == 0, "markdown report over a folder exits 0 (%r)" % err)
        check("| **corpus** (1 files) | 4 KiB |" in md, "corpus row restricted to common files")
        ra = result(a, files[a], "opencomp-gpu", 100.0, 200.0)
        expect = "**%.2f · 100 / 200**" % (ra["uncompressed_bytes"] / ra["compressed_bytes"])
        check(expect in md, "corpus cell of opencomp-gpu = %s" % expect)
        check("Test GPU (driver 1.0, CUDA 13.0, 4 SMs)" in md, "device described")

        # kernel and end-to-end figures of one contender stay in separate columns
        e2e = copy.deepcopy(cpu)
        e2e["results"] = [result(a, files[a], "opencomp-cpu", 0.7, 1.4, scope="end-to-end")]
        p_e2e = write(d, "e2e.json", e2e)
        rc, md2, err = call(report.main, ["--markdown", p_cpu, p_e2e])
        check(rc == 0 and "| opencomp-cpu 2T L6 | opencomp-cpu 2T L6 e2e |" in md2, "CPU kernel and e2e columns apart")
        check("replaces" not in err, "kernel and e2e results do not replace each other")
        check("(1 of %d files)" % len(names) in md2, "e2e corpus cell says it covers fewer files")
        os.remove(p_e2e)

        # aggregate: total bytes / total time, not a mean of rates
        r1 = result(a, files[a], "opencomp-gpu", 100.0, 200.0)
        r2 = result(b, files[b], "opencomp-gpu", 50.0, 100.0)
        agg = report.aggregate([r1, r2])
        u = r1["uncompressed_bytes"] + r2["uncompressed_bytes"]
        t = r1["uncompressed_bytes"] / 100.0 + r2["uncompressed_bytes"] / 50.0
        check(abs(agg["compress_gbps"] - u / t) < 1e-9, "aggregate compress = bytes / time")
        check(abs(agg["ratio"] - u / (r1["compressed_bytes"] + r2["compressed_bytes"])) < 1e-12,
              "aggregate ratio = total / total")
        check(agg["compress_gbps"] < 75.0, "aggregate is below the arithmetic mean when sizes differ")

        # merge: the later run wins, and says so
        newer = copy.deepcopy(gpu)
        newer["date"] = "2026-11-21T07:00:00Z"
        newer["results"] = [result(a, files[a], "opencomp-gpu", 123.0, 456.0)]
        p_new = write(d, "newer.json", newer)
        rc, out, err = call(report.main, [p_new, p_gpu])
        row = [ln.split() for ln in out.splitlines() if ln.startswith(a + " ") and "opencomp-gpu" in ln]
        check(len(row) == 1 and row[0][-3:] == ["123", "456", "yes"], "newer run's figure kept (%r)" % row)
        check("replaces" in err, "replacement noted")
        os.remove(p_new)

        # the same contender measured on two hosts: both kept, labelled by host;
        # level 0 (default, as GPU benches write) and level 6 share one table
        other = copy.deepcopy(cpu)
        other["host"]["cores"] = 16
        other["date"] = "2026-11-21T08:00:00Z"
        other["results"] = [result(a, files[a], "reference-cpu", 0.9, 1.8, level=0)]
        p_other = write(d, "other.json", other)
        rc, md3, err = call(report.main, ["--markdown", p_cpu, p_other])
        check(rc == 0 and "replaces" not in err, "another host's figure replaces nothing (%r)" % err)
        check("reference-cpu 1T L6 @2-core host" in md3 and "reference-cpu 1T @16-core host" in md3,
              "columns labelled by host and level")
        check(md3.count("### deflate") == 1, "one table per algorithm whatever the levels")
        try:
            import plot

            png = os.path.join(d, "hosts.png")
            rc, _, err = call(plot.main, ["-o", png, "--chunk", str(CHUNK), p_cpu, p_other])
            check(rc == 0 and os.path.getsize(png) > 1000, "plot of two hosts (%r)" % err)
        except ImportError:
            pass
        os.remove(p_other)

        # refusals: every one must exit 2 with a message naming the problem
        bad_cases = {
            "missing field": lambda r: r.pop("compressed_bytes"),
            "ratio disagrees": lambda r: r.update(ratio=r["ratio"] * 2),
            "boolean as number": lambda r: r.update(compressed_bytes=True),
            "NaN speed": lambda r: r.update(compress_gbps=float("nan")),
            "negative speed": lambda r: r.update(decompress_gbps=-1.0),
            "chunk count": lambda r: r.update(num_chunks=r["num_chunks"] + 1),
            "unknown contender": lambda r: r.update(contender="zlib-gpu"),
            "cpu without threads": lambda r: r.update(contender="opencomp-cpu"),
        }
        for what, mutate in bad_cases.items():
            g = copy.deepcopy(gpu)
            mutate(g["results"][0])
            p = write(d, "bad.json", g)
            rc, out, err = call(report.main, [p])
            check(rc == 2 and "results[0]" in err, "refuses %s (rc %d, %r)" % (what, rc, err.strip()))
        g = copy.deepcopy(gpu)
        g["device"] = None
        rc, _, err = call(report.main, [write(d, "bad.json", g)])
        check(rc == 2 and "device" in err, "refuses GPU results without a device")
        with open(os.path.join(d, "bad.json"), "w") as f:
            f.write('{"schema": 1, "results": [')
        rc, _, err = call(report.main, [os.path.join(d, "bad.json")])
        check(rc == 2, "refuses truncated JSON")
        rc, out, err = call(report.main, ["--skip-invalid", os.path.join(d, "bad.json"), p_gpu])
        check(rc == 0 and "skipped: " in err and "nvcomp-gpu" in out, "--skip-invalid names and leaves out a bad file")
        rc, _, err = call(report.main, [write(d, "bad.json", {"schema": 2, "results": []})])
        check(rc == 2 and "schema-1" in err, "refuses another schema version")
        os.remove(os.path.join(d, "bad.json"))

        # a contender that only decodes (no GPU encoder yet) has compress_gbps null: shown as "-"
        g = copy.deepcopy(gpu)
        for r in g["results"]:
            if r["contender"] == "nvcomp-gpu":
                r["compress_gbps"] = None
        rc, md4, err = call(report.main, ["--markdown", write(d, "dec.json", g)])
        check(rc == 0 and "· - / 160" in md4, "decode-only figure shown as '-' (%r)" % err)
        os.remove(os.path.join(d, "dec.json"))

        # unverified results are flagged, never silently shown as fine
        g = copy.deepcopy(gpu)
        g["results"][0]["verified"] = False
        rc, md, err = call(report.main, ["--markdown", write(d, "unv.json", g)])
        check(rc == 0 and "**unverified**" in md and "verification" in err, "unverified flagged")
        os.remove(os.path.join(d, "unv.json"))

        # plot: a real PNG of a sensible size, if matplotlib is installed
        try:
            import matplotlib  # noqa: F401

            have_mpl = True
        except ImportError:
            have_mpl = False
        if have_mpl:
            import plot

            png = os.path.join(d, "out", "bench.png")
            rc, out, err = call(plot.main, ["-o", png, "--chunk", str(CHUNK), p_cpu, p_gpu])
            check(rc == 0 and os.path.exists(png), "plot written (%r)" % err)
            with open(png, "rb") as f:
                head = f.read(24)
            check(head[:8] == b"\x89PNG\r\n\x1a\n", "plot is a PNG")
            w, h = struct.unpack(">II", head[16:24])
            check(w >= 300 and h >= 300, "plot is %dx%d" % (w, h))
            try:
                call(plot.main, ["-o", png, "--chunk", "12345", p_cpu])
                check(False, "plot refuses a chunk size with no results")
            except SystemExit as e:
                check("no results" in str(e), "plot names the missing chunk size")
        else:
            print("note: matplotlib not installed, plot checks not run")

        # Blosc rows (oc_gpu_bench --blosc): one table of their own, the quotients of issue 17's targets
        u, plan = 1 << 30, "00112233445566aa"

        def brow(contender, algo, dec, chunk=4 << 20, n=256, ub=u, cb=u // 2, **kw):
            r = {"file": "typesize 4: a.i32", "file_bytes": 16 << 20, "algorithm": algo, "level": 5, "chunk_size": chunk,
                 "num_chunks": n, "contender": contender, "uncompressed_bytes": ub, "compressed_bytes": cb,
                 "ratio": ub / cb, "compress_gbps": None, "decompress_gbps": dec,
                 "timing": "cuda-events" if contender.endswith("-gpu") else "wall-clock", "repeats": 5,
                 "scope": "kernel", "verified": True, "batch_plan": plan, "batch_target": u,
                 "blosc": "lz4 shuffle ts4", "streams": "libblosc test"}
            r.update(kw)
            return r

        brun = run("oc-gpu-bench", "2026-11-27T06:00:00Z",
                   [brow("opencomp-gpu", "blosc", 60.0),
                    brow("opencomp-gpu", "lz4", 50.0, chunk=128 << 10, n=6144, ub=3 * u // 4, cb=u // 2, level=0,
                         streams="split streams of libblosc test"),
                    brow("reference-cpu", "blosc", 20.0, threads=16),
                    brow("opencomp-cpu", "blosc", 30.0, threads=16)], gpu=True)
        p_b = write(d, "blosc.json", brun)
        rc, out, err = call(report.main, ["--summary", p_b])
        check(rc == 0, "blosc summary exits 0 (%r)" % err)
        line = next((x for x in out.splitlines() if x.startswith("lz4 shuffle ts4")), "")
        check(line.split() == ["lz4", "shuffle", "ts4", "typesize", "4", "4", "MiB", "1", "GiB,", "256", "chunks",
                               "2.00", "60.0", "50.0", "lz4", "25.0%", "1.20", "20.0", "(16T)", "30.0", "(16T)",
                               "2.00"], "blosc row: GPU/plain 1.20, GPU over the faster c-blosc 2.00 (%r)" % line)
        check("full scale" not in out and "latency" not in out, "a Blosc run prints only its own table")
        rc, out, err = call(report.main, ["--summary", p_b, p_gpu])
        check(rc == 0 and "full scale" in out and "lz4 shuffle ts4" not in out.split("blosc (GB/s")[0],
              "Blosc rows stay out of the ladder tables (%r)" % err)
        rc, md, err = call(report.main, ["--markdown", p_b])
        check(rc == 0 and "## Blosc" in md and "## Full scale" not in md, "blosc markdown section (%r)" % err)
        bad = copy.deepcopy(brun)
        bad["results"][0]["blosc"] = 5
        rc, out, err = call(report.main, [write(d, "bad-blosc.json", bad)])
        check(rc == 2 and "'blosc' must be a string" in err, "a non-string blosc case is refused (%r)" % err)

    # oc_gpu_bench --foreign: a group decoding nvCOMP's pages gets nvCOMP's own decode of the same batch (same run)
    u, plan = 1 << 30, "0123456789abcdef"

    def lrow(contender, dec, comp=None, **kw):
        r = {"file": "mix of 11 files", "file_bytes": 88 << 20, "algorithm": "gdeflate", "level": 0,
             "chunk_size": 65536, "num_chunks": 16384, "contender": contender, "uncompressed_bytes": u,
             "compressed_bytes": u // 3, "ratio": 3.0, "compress_gbps": comp, "decompress_gbps": dec,
             "timing": "cuda-events", "repeats": 5, "scope": "kernel", "verified": True, "batch_plan": plan,
             "batch_target": u}
        r.update(kw)
        return r

    run_a, run_b = {"id": "a"}, {"id": "b"}
    rows = [lrow("nvcomp-gpu", 100.0, 14.0, _run=run_a),
            lrow("nvcomp-gpu", 90.0, 13.0, _run=run_b),
            lrow("opencomp-gpu", 110.0, _run=run_a, streams="nvcomp-gpu gdeflate, nvCOMP's default options"),
            lrow("opencomp-gpu", 120.0, 11.0, level=1, _run=run_a),
            lrow("nvcomp-gpu", 95.0, _run=run_a, streams="opencomp-gpu gdeflate level 1")]
    fs = {g[3]: cells for g, top, n, cells in report.full_scale(rows)}
    nv_pages = fs.get("nvcomp-gpu gdeflate, nvCOMP's default options", {})
    check(nv_pages.get(("opencomp-gpu", "kernel"), {}).get("decompress_gbps") == 110.0 and
          nv_pages.get(("nvcomp-gpu", "kernel"), {}).get("decompress_gbps") == 100.0 and
          nv_pages[("nvcomp-gpu", "kernel")].get("compress_gbps") is None,
          "nvCOMP's pages: opencomp 110 beside nvCOMP's own 100 of the same run, no compression (%r)" % nv_pages)
    oc_pages = fs.get("opencomp-gpu gdeflate level 1", {})
    check(oc_pages.get(("opencomp-gpu", "kernel"), {}).get("decompress_gbps") == 120.0 and
          oc_pages.get(("nvcomp-gpu", "kernel"), {}).get("decompress_gbps") == 95.0,
          "our level-1 pages: nvCOMP 95 beside our own 120 (the level-1 row, not level 0) (%r)" % oc_pages)

    # compression's roofline fraction: the decompression's, scaled by compress / decompress GB/s
    row = {"decompress_roofline": 0.10, "compress_gbps": 5.0, "decompress_gbps": 50.0}
    got = report.compress_roofline(row)
    check(got is not None and abs(got - 0.01) < 1e-12, "compress roofline 0.10 x 5 / 50 = 0.01 (%r)" % got)
    check(report.compress_roofline({"decompress_roofline": 0.1, "decompress_gbps": 50.0}) is None,
          "no compress roofline without a compress figure")
    check(report.compress_roofline(None) is None, "no compress roofline without a row")

    print("%d passed, %d failed" % (CHECKS[0] - len(FAILS), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
