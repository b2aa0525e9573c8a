#!/usr/bin/env python3
"""bench/report.py - merge benchmark run files (bench/SCHEMA.md) into one table.

Runs come from different programs and machines (`opencomp bench --json` for
the CPU contenders, the GPU bench program for opencomp-gpu and nvcomp-gpu), so
this script is where they meet: it validates every file against the schema
(a result it cannot trust is refused, not guessed at), keeps the newest figure
when two runs measured the same thing on the same machine, and prints

    python3 bench/report.py RUN.json [DIR ...]              terminal table
    python3 bench/report.py --markdown RUN.json [DIR ...]   markdown for the README

The markdown has one table per algorithm: a row per file and chunk size, a
column per contender (with its thread count, a non-default level, e2e, and the
machine where a table holds several), each cell "ratio · compress / decompress GB/s",
and a "corpus" row: total uncompressed / total compressed, and total bytes over
total time (what processing the whole corpus costs; not a mean of rates).
Standard library only.
"""

import argparse
import json
import os
import sys

CONTENDERS = ["opencomp-gpu", "nvcomp-gpu", "opencomp-cpu", "reference-cpu"]
TIMINGS = ("cuda-events", "wall-clock")
SCOPES = ("kernel", "end-to-end")
ALGO_ORDER = ["lz4", "snappy", "deflate", "zlib", "gzip", "zstd"]

# field -> accepted Python types (bool is excluded from numbers on purpose)
_REQUIRED = {
    "file": (str,),
    "file_bytes": (int,),
    "algorithm": (str,),
    "level": (int,),
    "chunk_size": (int,),
    "num_chunks": (int,),
    "contender": (str,),
    "uncompressed_bytes": (int,),
    "compressed_bytes": (int,),
    "ratio": (int, float),
    "compress_gbps": (int, float, type(None)),
    "decompress_gbps": (int, float, type(None)),
    "timing": (str,),
    "repeats": (int,),
    "scope": (str,),
    "verified": (bool,),
}


class SchemaError(ValueError):
    pass


def _check_result(r, where):
    if not isinstance(r, dict):
        raise SchemaError("%s: a result must be an object" % where)
    for k, types in _REQUIRED.items():
        if k not in r:
            raise SchemaError("%s: missing %r" % (where, k))
        v = r[k]
        if isinstance(v, bool) and bool not in types:
            raise SchemaError("%s: %r must be a number, not a boolean" % (where, k))
        if not isinstance(v, types):
            raise SchemaError("%s: %r has type %s" % (where, k, type(v).__name__))
    if r["contender"] not in CONTENDERS:
        raise SchemaError("%s: unknown contender %r" % (where, r["contender"]))
    if r["timing"] not in TIMINGS:
        raise SchemaError("%s: unknown timing %r" % (where, r["timing"]))
    if r["scope"] not in SCOPES:
        raise SchemaError("%s: unknown scope %r" % (where, r["scope"]))
    for k in ("file_bytes", "uncompressed_bytes", "compressed_bytes", "chunk_size", "num_chunks", "repeats"):
        if r[k] <= 0:
            raise SchemaError("%s: %r must be positive" % (where, k))
    for k in ("compress_gbps", "decompress_gbps"):
        if r[k] is not None and not r[k] > 0:  # also refuses NaN
            raise SchemaError("%s: %r must be positive" % (where, k))
    if r["contender"].endswith("-cpu"):
        if not isinstance(r.get("threads"), int) or isinstance(r.get("threads"), bool) or r["threads"] <= 0:
            raise SchemaError("%s: CPU contender needs a positive integer 'threads'" % where)
    expect_chunks = -(-r["uncompressed_bytes"] // r["chunk_size"])
    if r["num_chunks"] != expect_chunks:
        raise SchemaError("%s: num_chunks %d, but %d bytes in %d-byte chunks make %d" % (
            where, r["num_chunks"], r["uncompressed_bytes"], r["chunk_size"], expect_chunks))
    ratio = r["uncompressed_bytes"] / r["compressed_bytes"]
    if abs(ratio - r["ratio"]) > 0.01 * ratio + 0.005:
        raise SchemaError("%s: ratio %.4g disagrees with bytes (%.4g)" % (where, r["ratio"], ratio))


def load_run(path):
    """Parse and validate one run file; returns the run dict."""
    try:
        with open(path) as f:
            run = json.load(f)
    except (OSError, ValueError) as e:
        raise SchemaError("%s: %s" % (path, e))
    if not isinstance(run, dict) or run.get("schema") != 1:
        raise SchemaError("%s: not a schema-1 benchmark run" % path)
    if not isinstance(run.get("results"), list):
        raise SchemaError("%s: 'results' must be a list" % path)
    for i, r in enumerate(run["results"]):
        _check_result(r, "%s: results[%d]" % (path, i))
        if r["contender"].endswith("-gpu") and not isinstance(run.get("device"), dict):
            raise SchemaError("%s: results[%d]: GPU contender but no 'device'" % (path, i))
    run["_path"] = path
    return run


def load_runs(paths, skip_invalid=False, prog="report"):
    """load_run over expand(paths); with skip_invalid, a file that fails is
    named on stderr and left out instead of failing the whole report."""
    runs = []
    for p in expand(paths):
        try:
            runs.append(load_run(p))
        except SchemaError as e:
            if not skip_invalid:
                raise
            print("%s: skipped: %s" % (prog, e), file=sys.stderr)
    return runs


def expand(paths):
    """Files as given; directories as their *.json files, sorted."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p) if f.endswith(".json"))
        else:
            out.append(p)
    return out


def machine(run, contender):
    """What a figure was measured on: the GPU's name for GPU contenders, the
    host description for CPU ones.  Figures from different machines never
    replace each other."""
    if contender.endswith("-gpu"):
        return "gpu:" + str((run.get("device") or {}).get("name"))
    return "cpu:" + json.dumps(run.get("host") or {}, sort_keys=True)


def key(r):
    return (r["file"], r["algorithm"], r["level"], r["chunk_size"], r["contender"], r["scope"], r.get("threads"),
            r["_machine"])


def _machine_labels(results):
    """Short labels for machines, only where one kind (GPU or CPU) was
    measured on several: the GPU's name, or the host's core count (the run
    file's name when cores do not tell the hosts apart)."""
    labels = {}
    for kind in ("gpu:", "cpu:"):
        ms = sorted({r["_machine"] for r in results if r["_machine"].startswith(kind)})
        if len(ms) < 2:
            continue
        if kind == "gpu:":
            for m in ms:
                labels[m] = m[4:]
            continue
        cores = {m: json.loads(m[4:]).get("cores") for m in ms}
        distinct = len(set(cores.values())) == len(ms) and None not in cores.values()
        for m in ms:
            if distinct:
                labels[m] = "%s-core host" % cores[m]
            else:
                labels[m] = os.path.basename(next(r["_run"]["_path"] for r in results if r["_machine"] == m))
    return labels


def merge(runs):
    """All results of all runs; where two measured the same key (on the same
    machine), the run with the later date wins.  Returns (results, notes) with
    notes on replacements.  Each result gets its column label in "_col"."""
    best = {}
    notes = []
    for run in sorted(runs, key=lambda r: str(r.get("date", ""))):
        for r in run["results"]:
            r = dict(r, _run=run, _machine=machine(run, r["contender"]))
            k = key(r)
            if k in best:
                notes.append("%s replaces %s for %s" % (run["_path"], best[k]["_run"]["_path"],
                                                        "/".join(map(str, k[:-1]))))
            best[k] = r
    results = list(best.values())
    by_algo = {}
    for r in results:
        by_algo.setdefault(r["algorithm"], []).append(r)
    for rs in by_algo.values():  # a machine label only where one table needs it
        labels = _machine_labels(rs)
        for r in rs:
            r["_col"] = column(r, labels.get(r["_machine"]))
    return results, notes


def column(r, machine_label=None):
    """The contender column a result belongs to: contender, threads (CPU),
    level (when not 0 = the algorithm's default, as nvCOMP has no levels),
    e2e for end-to-end figures, and the machine where several were used."""
    if "_col" in r and machine_label is None:
        return r["_col"]
    c = r["contender"]
    if c.endswith("-cpu"):
        c += " %dT" % r["threads"]
    if r["level"] != 0:
        c += " L%d" % r["level"]
    if r["scope"] == "end-to-end":
        c += " e2e"  # whole-buffer API incl. container (and transfers on a GPU)
    if machine_label:
        c += " @" + machine_label
    return c


def _algo_rank(a):
    return (ALGO_ORDER.index(a) if a in ALGO_ORDER else len(ALGO_ORDER), a)


def _col_rank(c):
    base = c.split(" ")[0]
    return (CONTENDERS.index(base), c)


def fmt_gbps(v):
    if v is None:
        return "-"
    return "%.0f" % v if v >= 100 else "%.1f" % v if v >= 10 else "%.2f" % v


def aggregate(rs):
    """Corpus figures for one column: total ratio and total bytes / total time
    (None when some result lacks that direction)."""
    u = sum(r["uncompressed_bytes"] for r in rs)
    c = sum(r["compressed_bytes"] for r in rs)
    out = {"ratio": u / c, "verified": all(r["verified"] for r in rs)}
    for d in ("compress_gbps", "decompress_gbps"):
        if any(r[d] is None for r in rs):
            out[d] = None
        else:
            out[d] = u / sum(r["uncompressed_bytes"] / r[d] for r in rs)
    return out


def common_files(rs, col):
    """Files measured by every column among rs, so that a corpus figure
    compares contenders on the same bytes."""
    by_col = {}
    for r in rs:
        by_col.setdefault(col(r), set()).add(r["file"])
    return set.intersection(*by_col.values()) if by_col else set()


def corpus_files(rs):
    """The files a corpus row sums over: those every kernel-scope column
    measured (end-to-end runs, often on fewer files, do not shrink it; their
    cell says how many of these files it covers)."""
    main = [r for r in rs if r["scope"] != "end-to-end"]
    return common_files(main or rs, column)


def cell(x):
    s = "%.2f · %s / %s" % (x["ratio"], fmt_gbps(x["compress_gbps"]), fmt_gbps(x["decompress_gbps"]))
    return s if x["verified"] else s + " **unverified**"


def describe_run(run):
    dev = run.get("device")
    host = run.get("host") or {}
    parts = ["`%s`" % os.path.basename(run["_path"]), str(run.get("tool", "?")), str(run.get("date", "?")),
             "commit %s" % str(run.get("commit", "?"))[:12]]
    if isinstance(dev, dict):
        parts.append("%s (driver %s, CUDA %s, %s SMs)" % (dev.get("name"), dev.get("driver"), dev.get("cuda_runtime"),
                                                         dev.get("sms")))
    h = [str(host[k]) for k in ("cpu",) if host.get(k)]
    if host.get("cores"):
        h.append("%s cores" % host["cores"])
    if host.get("os"):
        h.append(str(host["os"]))
    if h:
        parts.append("host " + ", ".join(h))
    return ", ".join(parts)


def markdown(runs, results):
    lines = ["Runs merged:", ""]
    lines += ["- " + describe_run(run) for run in sorted(runs, key=lambda r: r["_path"])]
    lines += ["", "Each cell: ratio · compress GB/s / decompress GB/s (1 GB = 1e9 uncompressed bytes; GPU: kernel time "
              "by CUDA events, CPU: wall clock, nT = threads; Ln = level (none: the default); e2e = the whole-buffer API, host buffer in to host buffer out, "
              "container and transfers included). "
              "\"corpus\": total uncompressed / total compressed, total bytes / total time.", ""]
    groups = {}
    for r in results:
        groups.setdefault(r["algorithm"], []).append(r)
    for algo in sorted(groups, key=_algo_rank):
        rs = groups[algo]
        cols = sorted({column(r) for r in rs}, key=_col_rank)
        lines.append("### %s" % algo)
        lines.append("")
        lines.append("| file | chunk | " + " | ".join(cols) + " |")
        lines.append("|---|---:|" + "---:|" * len(cols))
        cells = {}
        for r in rs:
            cells[(r["file"], r["chunk_size"], column(r))] = r
        rows = sorted({(r["file"], r["chunk_size"]) for r in rs}, key=lambda x: (x[1], x[0]))
        for f, cs in rows:
            lines.append("| %s | %s | " % (f, human(cs)) + " | ".join(
                cell(cells[(f, cs, c)]) if (f, cs, c) in cells else "" for c in cols) + " |")
        for cs in sorted({r["chunk_size"] for r in rs}):
            files = corpus_files([r for r in rs if r["chunk_size"] == cs])
            if not files:
                continue
            agg = []
            for c in cols:
                sel = [r for r in rs if r["chunk_size"] == cs and column(r) == c and r["file"] in files]
                note = "" if len(sel) == len(files) else " (%d of %d files)" % (len(sel), len(files))
                agg.append("**%s**%s" % (cell(aggregate(sel)), note) if sel else "")
            lines.append("| **corpus** (%d files) | %s | " % (len(files), human(cs)) + " | ".join(agg) + " |")
        lines.append("")
    return "\n".join(lines)


def human(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return "%d %s" % (n // size, unit)
    return str(n)


def terminal(results):
    head = ["file", "algo", "lvl", "chunk", "contender", "thr", "scope", "ratio", "comp GB/s", "decomp GB/s", "ok"]
    rows = []
    for r in sorted(results, key=lambda r: (_algo_rank(r["algorithm"]), r["level"], r["chunk_size"], r["file"],
                                            _col_rank(r["contender"]), r["scope"])):
        rows.append([r["file"], r["algorithm"], str(r["level"]), human(r["chunk_size"]), r["contender"],
                     str(r.get("threads", "-")) if r["contender"].endswith("-cpu") else "-", r["scope"],
                     "%.3f" % (r["uncompressed_bytes"] / r["compressed_bytes"]), fmt_gbps(r["compress_gbps"]),
                     fmt_gbps(r["decompress_gbps"]), "yes" if r["verified"] else "NO"])
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    right = {2, 3, 5, 7, 8, 9}
    out = []
    for row in [head] + rows:
        out.append("  ".join(x.rjust(w) if i in right else x.ljust(w) for i, (x, w) in enumerate(zip(row, widths))))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", help="run JSON files or folders of them")
    ap.add_argument("--markdown", action="store_true", help="markdown tables for the README")
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    ap.add_argument("--skip-invalid", action="store_true", help="leave out (and name) run files that fail validation")
    args = ap.parse_args(argv)
    try:
        runs = load_runs(args.paths, args.skip_invalid)
    except SchemaError as e:
        print("report: %s" % e, file=sys.stderr)
        return 2
    if not runs:
        print("report: no run files", file=sys.stderr)
        return 2
    results, notes = merge(runs)
    for n in notes:
        print("report: note: " + n, file=sys.stderr)
    if not results:
        print("report: the runs hold no results", file=sys.stderr)
        return 2
    text = markdown(runs, results) if args.markdown else terminal(results)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    bad = [r for r in results if not r["verified"]]
    if bad:
        print("report: warning: %d result(s) failed byte-by-byte verification" % len(bad), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
