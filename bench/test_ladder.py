#!/usr/bin/env python3
"""bench/test_ladder.py - self-test of the full-scale benchmark's CPU side, runnable
with plain `python3 bench/test_ladder.py` (no pytest, no GPU), exit status 0 = pass.

Guards:
  - bench/gpu/batch_plan.py: every chunk once per cycle, files spread in
    proportion, rungs as the fewest chunks that reach them, aligned offsets;
  - with --c-out DIR (ctest passes the output of bench/gpu/test_bench_host):
    the C planner and the Python one agree chunk for chunk, offset for offset,
    identity for identity, and the run file the C writer wrote passes
    report.py's validator (roofline fraction, batch fields, escaping);
  - report.py on ladder rows: refusals (roofline that disagrees with the
    figures, bad batch_plan, Python rows not timed by the wall clock, a chunk
    count no batch can have), the full-scale table at the largest batch of
    >= 1 GiB, the latency table in microseconds, the summary;
  - plot.py's ladder plot is a real PNG;
  - bench/gpu/python_ladder.py: its argument handling and dry run (no GPU),
    and that its budget rules are ladder_budget.c's;
  - bench/update-results: on a synthetic run, writes the results copy,
    LATEST-<device>.md, the plot and the README block, leaving the rest of
    the README alone, and refuses a run without ladder rows.
The compressed sizes in the synthetic run are real (raw deflate of 64 KiB
chunks of files of this repository, summed over the repeated cycle); the
speeds are sample figures chosen so the expected values are easy to compute.
"""

import copy
import importlib.machinery
import importlib.util
import io
import json
import os
import struct
import sys
import tempfile
import zlib
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "gpu"))
import batch_plan as bp  # noqa: E402
import python_ladder as pl  # noqa: E402
import report  # noqa: E402

FAILS = []
CHECKS = [0]


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


def call(main, argv):
    out, err = io.StringIO(), io.StringIO()
    rc = None
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def load_script(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


# ---- the planner -------------------------------------------------------------------------------------------------

def test_plan():
    sizes = [10000, 3 * 4096 + 7, 2 * 4096]
    p = bp.Plan(sizes, 4096)
    check(p.ndistinct == 3 + 4 + 2 and p.distinct_bytes == sum(sizes), "cycle size")
    nxt = [0, 0, 0]
    for i in range(p.ndistinct):
        f, off, size = p.chunk(i)
        check(off == nxt[f] and size == min(4096, sizes[f] - off), "chunk %d in file order" % i)
        nxt[f] += size
    check(nxt == sizes, "every byte once per cycle")
    check(p.chunk(p.ndistinct + 2) == p.chunk(2), "batches repeat the cycle")
    check(all(p.offset(i) % bp.ALIGN == 0 for i in range(30)), "aligned offsets")
    for target in (1, 4096, 4097, p.distinct_bytes, p.distinct_bytes + 1, 7 * p.distinct_bytes):
        n = p.rung_chunks(target)
        check(p.bytes(n) >= target > p.bytes(n - 1), "rung %d: the fewest chunks that reach it" % target)
    check(p.rung_chunks(0) == 1 and p.rung_chunks(bp.CYCLE) == p.ndistinct, "1c and all")
    names = ["a", "b", "c"]
    check(p.plan_id(names, 5) != p.plan_id(names, 4) and len(p.plan_id(names, 5)) == 16, "identities")
    check(p.plan_id(names, 5) != p.plan_id(["x", "b", "c"], 5), "identity depends on the file names")
    for bad in ([], [0], [5, -1]):
        try:
            bp.Plan(bad, 4096)
            check(False, "refuses files %r" % bad)
        except ValueError:
            pass
    check(bp.parse_bytes("64K") == 65536 and bp.parse_bytes("256KiB") == 262144 and bp.parse_bytes("1G") == 1 << 30,
          "parse_bytes")
    for bad in ("", "0", "K", "1.5M", "-1", "1X"):
        try:
            bp.parse_bytes(bad)
            check(False, "parse_bytes refuses %r" % bad)
        except ValueError:
            pass
    check(bp.parse_rung("1c") == 0 and bp.parse_rung("all") is bp.CYCLE, "parse_rung")
    check(bp.human(1 << 30) == "1 GiB" and bp.human(65536) == "64 KiB" and bp.human(1000) == "1000 B", "human")


def test_c_agrees(out_dir):
    """The C planner's own output (test_bench_host's plans.txt) against batch_plan.py."""
    with open(os.path.join(out_dir, "plans.txt")) as f:
        lines = f.read().splitlines()
    plans = 0
    i = 0
    while i < len(lines):
        parts = lines[i].split()
        check(parts[0] == "plan", "plans.txt: a plan line (%r)" % lines[i])
        chunk, nfiles = int(parts[1]), int(parts[2])
        names = [x.rsplit(":", 1)[0] for x in parts[3:3 + nfiles]]
        sizes = [int(x.rsplit(":", 1)[1]) for x in parts[3:3 + nfiles]]
        p = bp.Plan(sizes, chunk)
        i += 1
        k = 0
        while i < len(lines) and lines[i].startswith("chunk "):
            f, off, size, aoff = map(int, lines[i].split()[1:])
            check(p.chunk(k) == (f, off, size) and p.offset(k) == aoff, "C and Python plans agree on chunk %d" % k)
            i += 1
            k += 1
        check(k == p.ndistinct, "C cycle of %d chunks, Python %d" % (k, p.ndistinct))
        while i < len(lines) and lines[i].startswith(("id ", "rung ")):
            w = lines[i].split()
            if w[0] == "id":
                check(p.plan_id(names, int(w[1])) == w[2], "batch identity of %s chunks agrees" % w[1])
            else:
                check(p.rung_chunks(int(w[1])) == int(w[2]), "rung %s agrees" % w[1])
            i += 1
        plans += 1
    check(plans >= 3, "plans.txt holds the C test's plans (%d)" % plans)
    run = report.load_run(os.path.join(out_dir, "run.json"))  # raises (fails the test) if invalid
    r = run["results"][0]
    check(r["note"].endswith("\nnewline") and '"quote"' in r["note"], "escaping survives the JSON round trip")
    check(r["path"] == "host-staged" and r["batch_plan"] == "0123456789abcdef", "C row fields")
    check(run["skipped"] and run["failures"] == ['none "really"'], "skipped and failures lists")
    check(abs(r["decompress_roofline"] - report.roofline(r, 3000.0)) < 1e-6, "C roofline = report's")


# ---- a synthetic full-scale run ------------------------------------------------------------------------------------

def synthetic_run(device="NVIDIA H100 80GB HBM3"):
    """Ladder rows of deflate at 64 KiB chunks over three files of this repository: rungs 1 chunk, 1 MiB and
    1 GiB; opencomp (level 6, host-staged) and nvCOMP (level 1 sizes); kernel and Python scope."""
    rels = ["bench/report.py", "include/opencomp.h", "bench/corpuslib.py"]
    datas = [open(os.path.join(ROOT, r), "rb").read() for r in rels]
    names = [os.path.basename(r) for r in rels]
    chunk = 65536
    p = bp.Plan([len(d) for d in datas], chunk)

    def comp_sizes(level):
        out = []
        for i in range(p.ndistinct):
            f, off, size = p.chunk(i)
            c = zlib.compressobj(level, zlib.DEFLATED, -15)
            out.append(len(c.compress(datas[f][off:off + size]) + c.flush()))
        return out

    sizes = {"opencomp-gpu": comp_sizes(6), "nvcomp-gpu": comp_sizes(1)}
    copy_gbps = 3000.0
    # GB/s by (contender, scope, rung): decompress, compress (None = not measured)
    speeds = {("opencomp-gpu", "kernel"): [(0.5, 0.2), (2.0, 0.5), (4.0, 1.0)],
              ("nvcomp-gpu", "kernel"): [(1.0, 0.5), (20.0, 5.0), (100.0, 20.0)],
              ("opencomp-gpu", "python"): [(0.4, 0.1), (1.5, 0.4), (3.0, None)],
              ("nvcomp-gpu", "python"): [(0.8, 0.3), (10.0, 4.0), (50.0, 10.0)]}
    rows = []
    for ri, target in enumerate((0, 1 << 20, 1 << 30)):
        n = p.rung_chunks(target)
        u = p.bytes(n)
        for (c, scope), sp in speeds.items():
            cs = sizes[c]
            cb = (n // p.ndistinct) * sum(cs) + sum(cs[: n % p.ndistinct])
            d, k = sp[ri]
            r = {"file": "mix of 3 files", "file_bytes": p.distinct_bytes, "algorithm": "deflate",
                 "level": 0 if c == "opencomp-gpu" else 0, "chunk_size": chunk, "num_chunks": n,
                 "contender": c, "uncompressed_bytes": u, "compressed_bytes": cb, "ratio": u / cb,
                 "compress_gbps": k, "decompress_gbps": d,
                 "timing": "cuda-events" if scope == "kernel" else "wall-clock", "repeats": 3, "scope": scope,
                 "verified": True, "compress_s": u / k / 1e9 if k else None, "decompress_s": u / d / 1e9,
                 "batch_target": target, "batch_plan": p.plan_id(names, n)}
            r["decompress_roofline"] = report.roofline(r, copy_gbps)
            if c == "opencomp-gpu":
                r["path"] = "host-staged"
            rows.append(r)
    return {"schema": 1, "tool": "oc-gpu-bench", "date": "2026-11-24T10:00:00Z", "commit": "fedcba9876543210",
            "host": {"cpu": "test cpu", "cores": 16, "os": "Linux"},
            "device": {"name": device, "driver": "580", "cuda_runtime": "13.0", "sms": 132,
                       "d2d_copy_gbps": copy_gbps},
            "nvcomp": "6.0.0.12", "libzstd": "1.5.5",
            "ladder": {"chunks": [chunk], "sizes": [0, 1 << 20, 1 << 30], "files": names,
                       "distinct_bytes": p.distinct_bytes, "budget_s": 420},
            "skipped": ["opencomp-gpu zstd 4 MiB: compression at 1 GiB (256 chunks): estimated 12.0 s > the 8 s cap"],
            "failures": [], "results": rows}


def write(d, name, obj):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        json.dump(obj, f)
    return path


def test_report(d):
    run = synthetic_run()
    path = write(d, "full.json", run)
    rc, out, err = call(report.main, ["--summary", path])
    check(rc == 0, "summary exits 0 (%r)" % err)
    line = [ln for ln in out.splitlines() if ln.startswith("deflate ") and "GiB," in ln]
    check(len(line) == 1, "one full-scale row for deflate 64 KiB (%r)" % out)
    if line:
        check("4.00†" in line[0] and "100" in line[0] and "0.04" in line[0],
              "full-scale row: opencomp 4.00 (host-staged), nvCOMP 100, oc/nv 0.04 (%r)" % line[0])
        check("3.00 · 50.0" in line[0], "Python decompress beside the kernels (%r)" % line[0])
    results, _ = report.merge(report.load_runs([path]))
    fs = report.full_scale(results)
    check(len(fs) == 1 and fs[0][1] >= 1 << 30, "the full-scale batch is the >= 1 GiB rung")
    head, rows = report.latency_table(results)
    one = run["results"][0]
    us = one["uncompressed_bytes"] / (0.5 * 1e9) * 1e6
    check(rows and rows[0][2].startswith(report._us(us * 1e-6) + " · "), "latency: one chunk of opencomp in µs (%r)" % rows)
    rc, md, err = call(report.main, ["--markdown", path])
    check(rc == 0 and "## Full scale" in md and "## Latency" in md and "### deflate (mix of 3 files)" in md,
          "markdown: full-scale, latency and ladder sections (%r)" % err)
    check("## One file per call" not in md, "no per-file section without per-file rows")

    refusals = {
        "roofline disagrees": lambda r: r.update(decompress_roofline=r["decompress_roofline"] * 1.5),
        "bad batch_plan": lambda r: r.update(batch_plan="xyz"),
        "python timed by events": lambda r: r.update(scope="python", timing="cuda-events"),
        "too few chunks": lambda r: r.update(num_chunks=1, uncompressed_bytes=r["uncompressed_bytes"],
                                             chunk_size=1024),
        "unknown path": lambda r: r.update(path="magic"),
        "seconds disagree": lambda r: r.update(decompress_s=r["decompress_s"] * 2),
    }
    for what, mutate in refusals.items():
        g = copy.deepcopy(run)
        mutate(g["results"][4])
        rc, _, err = call(report.main, [write(d, "bad.json", g)])
        check(rc == 2 and "results[4]" in err, "refuses %s (rc %s, %r)" % (what, rc, err.strip()))
    g = copy.deepcopy(run)
    del g["device"]["d2d_copy_gbps"]
    rc, _, err = call(report.main, [write(d, "bad.json", g)])
    check(rc == 2 and "d2d_copy_gbps" in err, "refuses a roofline without the copy bandwidth")
    g = copy.deepcopy(run)
    g["skipped"] = "a string"
    rc, _, err = call(report.main, [write(d, "bad.json", g)])
    check(rc == 2 and "skipped" in err, "refuses a skipped list that is not a list")
    os.remove(os.path.join(d, "bad.json"))
    # opencomp at a second deflate level (oc_gpu_bench --deflate-level 0,1): a row "deflate L1" of its own,
    # beside the same nvCOMP rows; the default level's row keeps its figures
    g = copy.deepcopy(run)
    for r in run["results"]:
        if r["contender"] == "opencomp-gpu":
            r1 = dict(copy.deepcopy(r), level=1, decompress_gbps=r["decompress_gbps"] * 2)
            r1["decompress_s"] = r["decompress_s"] / 2
            r1["decompress_roofline"] = report.roofline(r1, 3000.0)
            g["results"].append(r1)
    rc, out, err = call(report.main, ["--summary", write(d, "levels.json", g)])
    rows = [ln for ln in out.splitlines() if ln.startswith("deflate") and "GiB," in ln]
    check(rc == 0 and len(rows) == 2 and rows[0].startswith("deflate ") and rows[1].startswith("deflate L1 "),
          "a full-scale row per opencomp level, default first (%r)" % rows)
    if len(rows) == 2:
        check("4.00†" in rows[0] and "8.00†" in rows[1] and all("100" in x for x in rows),
              "each level's own decompress figure beside nvCOMP's (%r)" % rows)
    os.remove(os.path.join(d, "levels.json"))
    # a ladder row and a per-file row of the same file do not replace each other
    per_file = copy.deepcopy(run["results"][8])
    for k in ("batch_plan", "batch_target", "decompress_roofline", "compress_s", "decompress_s"):
        per_file.pop(k, None)
    per_file["num_chunks"] = -(-per_file["uncompressed_bytes"] // per_file["chunk_size"])
    g = copy.deepcopy(run)
    g["results"].append(per_file)
    rc, md, err = call(report.main, ["--markdown", write(d, "mixed.json", g)])
    check(rc == 0 and "## One file per call" in md, "per-file rows keep their own section (%r)" % err)
    try:
        import matplotlib  # noqa: F401

        import plot

        png = os.path.join(d, "ladder.png")
        rc, _, err = call(plot.main, ["-o", png, path])
        with open(png, "rb") as f:
            head = f.read(24)
        w, h = struct.unpack(">II", head[16:24])
        check(rc == 0 and head[:8] == b"\x89PNG\r\n\x1a\n" and w >= 600 and h >= 600, "ladder plot is a PNG")
    except ImportError:
        print("note: matplotlib not installed, plot checks not run")
    return path


# ---- python_ladder.py ------------------------------------------------------------------------------------------

def test_python_ladder(d):
    f1, f2 = os.path.join(ROOT, "bench/report.py"), os.path.join(ROOT, "include/opencomp.h")
    rc, out, err = call(pl.main, ["--dry-run", "--chunks", "4K,64K", "--sizes", "1c,16K,all", f1, f2])
    check(rc == 0, "dry run exits 0 (%r)" % err)
    p = bp.Plan([os.path.getsize(f1), os.path.getsize(f2)], 4096)
    n = p.rung_chunks(16384)
    check("%d chunks / %d bytes (plan %s)" % (n, p.bytes(n), p.plan_id(["report.py", "opencomp.h"], n)) in out,
          "dry run shows the rungs and their batch identities (%r)" % out)
    check("cells: 20" in out, "dry run counts the cells")
    bad = {
        "no output mode": [f1],
        "unknown codec": ["--dry-run", "--codecs", "lz4,brotli", f1],
        "zero chunk": ["--dry-run", "--chunks", "0", f1],
        "chunk too large": ["--dry-run", "--chunks", "4G", f1],
        "bad rung": ["--dry-run", "--sizes", "1c,huge", f1],
        "unknown contender": ["--dry-run", "--contenders", "zlib", f1],
        "negative budget": ["--dry-run", "--budget", "-5", f1],
        "two output modes": ["--dry-run", "--json", "x.json", f1],
        "same base name twice": ["--dry-run", f1, f1],
    }
    for what, argv in bad.items():
        rc, out, err = call(pl.main, argv)
        check(rc == 2 and "usage" in err, "refuses %s (rc %r)" % (what, rc))
    rc, out, err = call(pl.main, ["--dry-run", os.path.join(d, "missing-file")])
    check(rc == 2 and "missing-file" in err, "names a missing file")
    # the budget: ladder_budget.c's rules
    b = pl.Budget(100, 8.0, 0.5, 15)
    check(b.plan(1000, 1, (0, 0, 0))[:2] == (True, True), "first rung runs with a warm-up")
    run, warm, pred, _ = b.plan(4000, 2000, (1000, 500, 0.5))
    check(run and not warm and abs(pred - 2.0) < 1e-9, "a 2 s call: no warm-up")
    check(abs(b.plan(8000, 8, (1000, 1, 0.1))[2] - 0.1) < 1e-9, "8 chunks side by side take as long as one")
    check(abs(b.plan(264000, 264, (1000, 1, 0.1))[2] - 0.2) < 1e-9, "264 chunks on 132 SMs: two rounds")
    check(not b.plan(100000, 10000, (1000, 200, 0.1))[0], "past the rung cap: skipped")
    check(b.repeats(1e-6, 0) == 15 and b.repeats(0.1, 0) == 5 and b.repeats(3.0, 3.0) == 1, "repeats")
    check(pl.rungs_of(p, [0, 1 << 30, 0, bp.CYCLE])[0][0] == 1, "rungs deduplicated and ascending")


def fake_cupy():
    """numpy dressed as the parts of CuPy python_ladder.py uses: with it the whole Python ladder runs on the host
    (opencomp's CPU engine), so everything but the GPU itself is tested here."""
    import types

    import numpy as np

    cp = types.ModuleType("cupy")
    cp.uint8 = np.uint8
    cp.asarray = np.asarray
    cp.empty = np.empty
    cp.ones = np.ones
    cp.array_equal = np.array_equal
    cp.get_default_memory_pool = lambda: types.SimpleNamespace(free_all_blocks=lambda: None)
    cp.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(deviceSynchronize=lambda: None))
    return cp


def test_python_ladder_host(d, run_path):
    """python_ladder.gpu_run end to end on the host: opencomp encodes and decodes (out= slices) every rung, the
    rows join the run file and pass report.py, a compression skipped at the top rung feeds the decode with one
    cycle's streams repeated."""
    try:
        import numpy  # noqa: F401

        import opencomp  # noqa: F401
    except ImportError:
        print("note: opencomp or numpy not importable: the host run of python_ladder.py is not tested")
        return
    sys.modules["cupy"] = fake_cupy()
    base = synthetic_run()
    path = write(d, "append.json", base)
    f1, f2 = os.path.join(ROOT, "bench/report.py"), os.path.join(ROOT, "include/opencomp.h")
    args = pl.parse_args(["--append-to", path, "--contenders", "opencomp", "--codecs", "lz4,zstd,deflate",
                          "--chunks", "4K", "--sizes", "1c,16K,all", "--label", "mix of 2 files", f1, f2])
    datas = [open(f, "rb").read() for f in (f1, f2)]
    real_plan = pl.Budget.plan

    def plan(self, nbytes, chunks, prev):  # compression of the largest rung "too slow": skipped
        if self.__dict__.get("_calls", 0) % 2 == 0 and nbytes >= sum(len(x) for x in datas):
            self._calls = self.__dict__.get("_calls", 0) + 1
            return False, True, 9.0, "estimated 9.0 s > the 4 s cap per rung"
        self._calls = self.__dict__.get("_calls", 0) + 1
        return real_plan(self, nbytes, chunks, prev)

    pl.Budget.plan = plan
    try:
        rc, out, err = call(lambda a: pl.gpu_run(args, datas, [len(x) for x in datas]), None)
    finally:
        pl.Budget.plan = real_plan
        del sys.modules["cupy"]
    check(rc == 0, "python_ladder host run exits 0 (%r %r)" % (out[-2000:], err[-2000:]))
    run = report.load_run(path)  # raises if the appended rows break the schema
    py = [r for r in run["results"] if r["scope"] == "python"]
    check(len(py) == 9, "3 codecs x 3 rungs of Python rows (%d)" % len(py))
    check(all(r["verified"] for r in py), "every Python decode verified")
    p = bp.Plan([len(x) for x in datas], 4096)
    names = [os.path.basename(f1), os.path.basename(f2)]
    check({r["batch_plan"] for r in py} == {p.plan_id(names, n) for n in (1, 4, p.ndistinct)},
          "Python rows carry the batch identities of the plan")
    top = [r for r in py if r["num_chunks"] == p.ndistinct]
    check(top and all(r["compress_gbps"] is None and r["decompress_gbps"] and "one cycle's, repeated" in r["note"]
                      for r in top), "a skipped compression: decode of the repeated cycle, and a note")
    check(any("python: " in s and "9.0 s" in s for s in run["skipped"]), "the skip is named in the run file")
    check(len([r for r in run["results"] if r["scope"] == "kernel"]) == 6, "the kernel rows kept, the old Python rows replaced")


def test_python_ladder_keeps_other_labels(d):
    """--keep-other-labels: a second run (another file, as full-scale --typed runs one a file) appends its rows
    beside the first run's; without it a run replaces every earlier Python row."""
    try:
        import numpy  # noqa: F401

        import opencomp  # noqa: F401
    except ImportError:
        return
    f1, f2 = os.path.join(ROOT, "bench/report.py"), os.path.join(ROOT, "include/opencomp.h")
    path = write(d, "keep.json", synthetic_run())
    sys.modules["cupy"] = fake_cupy()
    try:
        for f, keep in ((f1, True), (f2, True), (f1, False)):
            argv = ["--append-to", path, "--contenders", "opencomp", "--codecs", "lz4", "--chunks", "4K", "--sizes",
                    "all", "--label", os.path.basename(f), f] + (["--keep-other-labels"] if keep else [])
            args = pl.parse_args(argv)
            data = open(f, "rb").read()
            rc, out, err = call(lambda a: pl.gpu_run(args, [data], [len(data)]), None)
            check(rc == 0, "python_ladder run for %s exits 0 (%r)" % (os.path.basename(f), err[-500:]))
            labels = {r["file"] for r in report.load_run(path)["results"] if r["scope"] == "python"}
            if f == f2:
                check(labels == {"report.py", "opencomp.h", "mix of 3 files"},
                      "--keep-other-labels: both files' rows beside the earlier ones (%r)" % labels)
        check(labels == {"report.py"}, "without it: the earlier Python rows replaced (%r)" % labels)
    finally:
        del sys.modules["cupy"]


# ---- py_vs_c.py ----------------------------------------------------------------------------------------------------

def test_py_vs_c(d):
    """Each Python row of a >= 1 GiB batch paired with the kernel row of the same batch: the ratios of the synthetic
    run (opencomp 3.0 / 4.0, nvCOMP 50 / 100), a row without a partner named, small batches left out."""
    pvc = load_script("py_vs_c", os.path.join(HERE, "gpu", "py_vs_c.py"))
    run = synthetic_run()
    lone = dict(next(r for r in run["results"] if r["scope"] == "python" and r["uncompressed_bytes"] >= 1 << 30))
    lone.update(algorithm="zlib")
    run["results"].append(lone)
    out_json = os.path.join(d, "pairs.json")
    rc, out, err = call(pvc.main, [write(d, "pvc.json", run), "--json", out_json])
    check(rc == 0, "py_vs_c exits 0 (%r)" % err)
    with open(out_json) as f:
        pairs = json.load(f)["pairs"]
    got = {(p["contender"], round(p["decompress_ratio"], 3)) for p in pairs}
    check(got == {("opencomp-gpu", 0.75), ("nvcomp-gpu", 0.5)}, "the 1 GiB pairs and their ratios (%r)" % got)
    check(all(p["uncompressed_bytes"] >= 1 << 30 for p in pairs), "only batches of at least 1 GiB")
    check(next(p for p in pairs if p["contender"] == "opencomp-gpu")["compress_ratio"] is None,
          "no compression ratio where the Python compression was not timed")
    check("no kernel row for python opencomp-gpu zlib" in out and "below 0.90" in out, "the lone row named (%r)" % out)
    rc, _, err = call(pvc.main, [os.path.join(d, "missing.json")])
    check(rc == 2 and "missing.json" in err, "an unreadable run file: exit 2")


# ---- update-results --------------------------------------------------------------------------------------------

def test_update_results(d, run_path):
    ur = load_script("update_results", os.path.join(HERE, "update-results"))
    check(ur.device_slug("NVIDIA H100 80GB HBM3") == "h100" and ur.device_slug("NVIDIA H200") == "h200",
          "device slugs")
    repo = os.path.join(d, "repo")
    os.makedirs(os.path.join(repo, "bench", "results"))
    readme = ("# project\n\nintro\n\n%s\nold table: LZ4 2x faster than nvCOMP\n%s\n\n## Later\n\n"
              "Snappy runs at 12 GB/s, 0.4x of nvCOMP.\n" % (ur.START, ur.END))
    with open(os.path.join(repo, "README.md"), "w") as f:
        f.write(readme)
    rc, out, err = call(ur.main, [run_path, "--repo", repo])
    check(rc == 0, "update-results exits 0 (%r)" % err)
    res = os.path.join(repo, "bench", "results")
    check(os.path.exists(os.path.join(res, "gpu-h100-full-fedcba987654.json")), "run copied into bench/results")
    with open(os.path.join(res, "LATEST-h100.md")) as f:
        latest = f.read()
    check("## Full scale" in latest and "## Skipped (1)" in latest and "estimated 12.0 s" in latest,
          "LATEST: tables and the skips")
    with open(os.path.join(repo, "README.md")) as f:
        new = f.read()
    check("old table" not in new and "### GPU at full scale (NVIDIA H100 80GB HBM3" in new, "README block replaced")
    check(new.startswith("# project\n\nintro\n") and "## Later" in new, "the rest of the README kept")
    check("deflate, 64 KiB chunks: opencomp decodes at 0.04x nvCOMP's speed (host-staged" in new,
          "claims written from the figures (%r)" % new)
    check("Snappy runs at 12 GB/s" in out, "claims outside the block listed for checking (%r)" % out)
    try:
        import matplotlib  # noqa: F401

        check(os.path.getsize(os.path.join(res, "latest-h100.png")) > 1000, "plot written")
    except ImportError:
        pass
    g = synthetic_run()
    g["results"] = [dict(r) for r in g["results"]]
    for r in g["results"]:
        for k in ("batch_plan", "batch_target"):
            r.pop(k)
        r["num_chunks"] = -(-r["uncompressed_bytes"] // r["chunk_size"])
    rc, _, err = call(ur.main, [write(d, "nolad.json", g), "--repo", repo])
    check(rc == 2 and "no ladder rows" in err, "refuses a run without ladder rows (%r)" % err)


def main(argv):
    c_out = None
    if len(argv) == 2 and argv[0] == "--c-out":
        c_out = argv[1]
    elif argv:
        print("usage: test_ladder.py [--c-out DIR]", file=sys.stderr)
        return 2
    test_plan()
    if c_out:
        test_c_agrees(c_out)
    with tempfile.TemporaryDirectory() as d:
        run_path = test_report(d)
        test_python_ladder(d)
        test_python_ladder_host(d, run_path)
        test_python_ladder_keeps_other_labels(d)
        test_py_vs_c(d)
        test_update_results(d, run_path)
    print("%d passed, %d failed" % (CHECKS[0] - len(FAILS), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
