#!/usr/bin/env python3
"""py_vs_c.py - the Python layer against its kernels, row by row (issue 16: "the Python batch path within 10% of
the C harness on >= 1 GiB batches, 64 KiB to 4 MiB chunks, all algorithms").

Reads run files in which oc_gpu_bench's rows (scope "kernel", CUDA events) and python_ladder.py's rows of the same
batches (scope "python", wall clock; --append-to put them in the same file) sit side by side, pairs each Python
row with the kernel row of the same contender, algorithm, level, chunk size, chunk count and batch (the
"batch_plan" identity where both rows carry one, else the "file" label; Blosc rows also by their case), and
prints Python / kernel for decompression (and compression where both were timed).  Only batches of at least
--min-bytes (default 1 GiB) are listed; a row with no partner is named.  Exit status 0 (a report, no verdict:
timings never fail a run), 2 on unreadable input.

    python3 bench/gpu/py_vs_c.py RUN.json [RUN2.json ...] [--min-bytes 1G] [--json OUT.json]
"""
import argparse
import json
import sys


def key(r):
    plan = r.get("batch_plan")
    return (r["contender"], r["algorithm"], r.get("level") or 0, r["chunk_size"], r["num_chunks"],
            r.get("blosc") or "", plan if plan else "file:" + str(r.get("file")))


def human(n):
    for unit, s in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= s and n % s == 0:
            return "%d %s" % (n // s, unit)
    return "%d B" % n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--min-bytes", type=float, default=float(1 << 30))
    ap.add_argument("--json", help="write the pairs here")
    args = ap.parse_args(argv)
    kernel, python = {}, []
    for path in args.runs:
        try:
            with open(path) as f:
                run = json.load(f)
        except (OSError, ValueError) as e:
            print("py_vs_c: %s: %s" % (path, e), file=sys.stderr)
            return 2
        for r in run.get("results", []):
            if r.get("uncompressed_bytes", 0) < args.min_bytes or str(r.get("streams", "")).startswith("split"):
                continue
            if r.get("scope") == "python":
                python.append(r)
            elif r.get("scope", "kernel") == "kernel" and r.get("contender", "").endswith("-gpu"):
                kernel.setdefault(key(r), r)
    pairs, alone = [], []
    for p in python:
        k = kernel.get(key(p))
        if k is None:
            alone.append(p)
            continue
        row = {"contender": p["contender"], "algorithm": p["algorithm"], "level": p.get("level") or 0,
               "blosc": p.get("blosc"), "file": p.get("file"), "chunk_size": p["chunk_size"],
               "num_chunks": p["num_chunks"], "uncompressed_bytes": p["uncompressed_bytes"]}
        for d in ("decompress", "compress"):
            kg, pg = k.get(d + "_gbps"), p.get(d + "_gbps")
            row[d + "_kernel_gbps"], row[d + "_python_gbps"] = kg, pg
            row[d + "_ratio"] = pg / kg if kg and pg else None
        pairs.append(row)
    pairs.sort(key=lambda r: (r["contender"], r["algorithm"], r["blosc"] or "", str(r["file"]), r["chunk_size"]))
    print("%-13s %-9s %-24s %-8s %6s  %9s %9s %6s   %9s %9s %6s" % (
        "contender", "codec", "batch", "chunk", "chunks", "dec C", "dec Py", "Py/C", "comp C", "comp Py", "Py/C"))
    for r in pairs:
        what = r["blosc"] or (r["file"] if not str(r["file"]).startswith("mix of") else "mix")
        f = lambda v, fmt="%9.2f": fmt % v if v else "%9s" % "-"  # noqa: E731
        print("%-13s %-9s %-24.24s %-8s %6d  %s %s %6s   %s %s %6s%s" % (
            r["contender"], r["algorithm"] + ("" if not r["level"] else " L%d" % r["level"]), what,
            human(r["chunk_size"]), r["num_chunks"], f(r["decompress_kernel_gbps"]), f(r["decompress_python_gbps"]),
            "%.3f" % r["decompress_ratio"] if r["decompress_ratio"] else "-", f(r["compress_kernel_gbps"]),
            f(r["compress_python_gbps"]), "%.3f" % r["compress_ratio"] if r["compress_ratio"] else "-",
            "  <0.90" if r["decompress_ratio"] and r["decompress_ratio"] < 0.9 else ""))
    for p in alone:
        print("no kernel row for python %s %s %s x %d (%s)" % (p["contender"], p["algorithm"], human(p["chunk_size"]),
                                                              p["num_chunks"], p.get("blosc") or p.get("file")))
    within = [r for r in pairs if r["decompress_ratio"]]
    if within:
        print("py_vs_c: %d pairs, decompression Python/C %.3f..%.3f; %d below 0.90" % (
            len(within), min(r["decompress_ratio"] for r in within), max(r["decompress_ratio"] for r in within),
            sum(r["decompress_ratio"] < 0.9 for r in within)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": pairs, "unpaired": [key(p) for p in alone]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
