#!/usr/bin/env python3
"""bench/report.py - merge benchmark run files (bench/SCHEMA.md) into one table.

Runs come from different programs and machines (`opencomp bench --json` for
the CPU contenders, the GPU bench program for opencomp-gpu and nvcomp-gpu), so
this script is where they meet: it validates every file against the schema
(a result it cannot trust is refused, not guessed at), keeps the newest figure
when two runs measured the same thing on the same machine, and prints

    python3 bench/report.py RUN.json [DIR ...]              terminal table
    python3 bench/report.py --markdown RUN.json [DIR ...]   markdown for the README

    python3 bench/report.py --summary RUN.json [DIR ...]    full-scale and latency tables (terminal)

Ladder rows (the GPU benchmark's batches, bench/README.md "Full scale": rows
with a "batch_plan") make three tables: **full scale**, each codec and chunk
size at the largest batch of at least 1 GiB (decompress and compress GB/s of
both libraries, opencomp over nvCOMP, the roofline fraction, the Python
API's decompress GB/s); **latency**, the time of a one-chunk call and of a
1 MiB batch; and the whole ladder per codec.  The other rows (one file per
call) make one table per algorithm: a row per file and chunk size, a
column per contender (with its thread count, a non-default level, e2e, and the
machine where a table holds several), each cell "ratio · compress / decompress GB/s",
and a "corpus" row: total uncompressed / total compressed, and total bytes over
total time (what processing the whole corpus costs; not a mean of rates).
Standard library only.
"""

import argparse
import json
import os
import re
import sys

CONTENDERS = ["opencomp-gpu", "nvcomp-gpu", "opencomp-cpu", "reference-cpu"]
TIMINGS = ("cuda-events", "wall-clock")
SCOPES = ("kernel", "end-to-end", "python")
PATHS = ("gpu-kernel", "host-staged")
FULL_SCALE = 1 << 30  # bytes per call from which a figure counts as full scale (DESIGN.md)
ALGO_ORDER = ["lz4", "snappy", "deflate", "zlib", "gzip", "zstd", "blosc", "gdeflate", "cascaded", "bitcomp", "ans"]

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
    if "batch_plan" in r:
        # a ladder batch mixes files: each file's last chunk may be partial, anywhere in the batch
        if not expect_chunks <= r["num_chunks"] <= r["uncompressed_bytes"]:
            raise SchemaError("%s: num_chunks %d, but %d bytes in chunks of at most %d bytes make at least %d" % (
                where, r["num_chunks"], r["uncompressed_bytes"], r["chunk_size"], expect_chunks))
    elif r["num_chunks"] != expect_chunks:
        raise SchemaError("%s: num_chunks %d, but %d bytes in %d-byte chunks make %d" % (
            where, r["num_chunks"], r["uncompressed_bytes"], r["chunk_size"], expect_chunks))
    ratio = r["uncompressed_bytes"] / r["compressed_bytes"]
    if abs(ratio - r["ratio"]) > 0.01 * ratio + 0.005:
        raise SchemaError("%s: ratio %.4g disagrees with bytes (%.4g)" % (where, r["ratio"], ratio))
    if r["scope"] == "python" and r["timing"] != "wall-clock":
        raise SchemaError("%s: Python-scope figures are wall-clock times" % where)
    _check_optional(r, where)


def _number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _check_optional(r, where):
    """The fields beyond the required ones, when present (SCHEMA.md)."""
    if "path" in r and r["path"] not in PATHS:
        raise SchemaError("%s: unknown path %r" % (where, r["path"]))
    for k in ("streams", "note", "frame", "batch_plan", "blosc"):
        if k in r and not isinstance(r[k], str):
            raise SchemaError("%s: %r must be a string" % (where, k))
    if "batch_plan" in r and (len(r["batch_plan"]) != 16 or any(c not in "0123456789abcdef" for c in r["batch_plan"])):
        raise SchemaError("%s: batch_plan must be 16 hex digits" % where)
    if "batch_target" in r and not (isinstance(r["batch_target"], int) and not isinstance(r["batch_target"], bool)
                                    and r["batch_target"] >= 0):
        raise SchemaError("%s: batch_target must be a non-negative integer" % where)
    for d in ("compress", "decompress"):
        sec = r.get(d + "_s")
        if sec is None:
            continue
        if not _number(sec) or not sec > 0:
            raise SchemaError("%s: %s_s must be a positive number or null" % (where, d))
        g = r[d + "_gbps"]
        if g is None or abs(r["uncompressed_bytes"] / sec / 1e9 - g) > 0.01 * g:
            raise SchemaError("%s: %s_s disagrees with %s_gbps" % (where, d, d))
    if "decompress_roofline" in r:
        v = r["decompress_roofline"]
        if not _number(v) or not v >= 0 or r["decompress_gbps"] is None:
            raise SchemaError("%s: decompress_roofline needs a decompress figure and a non-negative value" % where)


def roofline(r, copy_gbps):
    """Decompress GB/s over the copy roofline at the row's ratio: copy x r / (1 + r)."""
    ratio = r["uncompressed_bytes"] / r["compressed_bytes"]
    return r["decompress_gbps"] / (copy_gbps * ratio / (1 + ratio))


def compress_roofline(r):
    """Compress GB/s over the same roofline as the row's decompression (a compressor reads n bytes and
    writes n / r, as a decoder writes n and reads n / r): None without both figures."""
    if not r or not r.get("decompress_roofline") or not _g(r, "compress") or not _g(r, "decompress"):
        return None
    return r["decompress_roofline"] * _g(r, "compress") / _g(r, "decompress")


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
        if "decompress_roofline" in r:
            copy = (run.get("device") or {}).get("d2d_copy_gbps")
            if not _number(copy) or not copy > 0:
                raise SchemaError("%s: results[%d]: a roofline fraction but no device 'd2d_copy_gbps'" % (path, i))
            want = roofline(r, copy)
            if abs(r["decompress_roofline"] - want) > 0.02 * want + 1e-9:
                raise SchemaError("%s: results[%d]: decompress_roofline %.4g, but the figures give %.4g" % (
                    path, i, r["decompress_roofline"], want))
    for k in ("skipped", "failures"):
        if k in run and not (isinstance(run[k], list) and all(isinstance(x, str) for x in run[k])):
            raise SchemaError("%s: %r must be a list of strings" % (path, k))
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
    return (r["file"], r["algorithm"], r["level"], r["chunk_size"], r["uncompressed_bytes"], r.get("streams"),
            r["contender"], r["scope"], r.get("threads"), r["_machine"])


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
    if r["scope"] == "python":
        c += " python"
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


# ---- the ladder: full scale, latency, every rung -----------------------------------------------------------------

SHORT = {"opencomp-gpu": "opencomp", "nvcomp-gpu": "nvCOMP"}


def is_ladder(r):
    """A row of the GPU benchmark's batch ladder (one batch of the mixed corpus per call)."""
    return "batch_plan" in r and "blosc" not in r


def is_blosc(r):
    """A row of `oc_gpu_bench --blosc` (Blosc chunks beside the plain decoders and c-blosc): its own table."""
    return "blosc" in r


def blosc_table(results, md):
    """Header and rows of the Blosc table (issue 17's targets), a row per case, chunk size and batch: opencomp's
    GPU Blosc decoder, the plain GPU decoder on the same compressed split streams, c-blosc on the host's cores
    both ways (libblosc's own threads one chunk at a time; opencomp's CPU engine, a chunk per thread), and the
    two quotients the targets are about: GPU over the faster c-blosc (>= 3) and Blosc over plain (>= 0.8)."""
    head = ["case", "files", "chunk", "batch", "ratio", "GPU blosc", "plain GPU", "stored", "blosc/plain",
            "c-blosc own thr", "c-blosc chunk/thr", "GPU/c-blosc"]
    if md:
        head = ["case", "files", "chunk", "batch", "ratio", "GPU Blosc GB/s", "plain GPU decoder GB/s (same streams)",
                "bytes stored", "Blosc/plain (target >= 0.8)", "c-blosc, its own threads", "c-blosc, a chunk per thread",
                "GPU/c-blosc (target >= 3)"]
    cases = {}  # one batch (its batch_plan) of one case: {"plain" or the contender: row}
    for r in results:
        if is_blosc(r):
            cases.setdefault((r["file"], r["blosc"], r.get("batch_plan")), {})[
                "plain" if r["algorithm"] != "blosc" else r["contender"]] = r
    rows = []

    def order(k):
        b = next((r for r in cases[k].values() if r["algorithm"] == "blosc"), None)
        return (k[0], b["chunk_size"] if b else 0, k[1], b["uncompressed_bytes"] if b else 0)

    for k in sorted(cases, key=order):
        f, case, _ = k
        c = cases[k]
        b = next((r for r in c.values() if r["algorithm"] == "blosc"), None)
        if b is None:
            continue
        gpu, plain = c.get("opencomp-gpu"), c.get("plain")
        ref, eng = c.get("reference-cpu"), c.get("opencomp-cpu")
        g = _g(gpu, "decompress")
        pg = _g(plain, "decompress")
        best = max([x for x in (_g(ref, "decompress"), _g(eng, "decompress")) if x] or [0]) or None
        q = lambda a, z: "%.2f" % (a / z) if a and z else "-"  # noqa: E731
        stored = "%.1f%%" % (100 * (1 - plain["uncompressed_bytes"] / b["uncompressed_bytes"])) if plain else "-"
        cpu_col = lambda r: fmt_gbps(_g(r, "decompress")) + (" (%dT)" % r["threads"] if r else "")  # noqa: E731
        unver = any(not r["verified"] for r in c.values())
        rows.append([case, f.split(":")[0], human(b["chunk_size"]), "%s, %d chunks" % (human_size(b["uncompressed_bytes"]),
                                                                                         b["num_chunks"]),
                     "%.2f" % (b["uncompressed_bytes"] / b["compressed_bytes"]), fmt_gbps(g),
                     ("%s %s" % (fmt_gbps(pg), plain["algorithm"])) if plain else "-", stored, q(g, pg),
                     cpu_col(ref), cpu_col(eng), q(g, best) + (" UNVERIFIED" if unver else "")])
    return head, rows


BLOSC_LEGEND = ("Blosc rows (`oc_gpu_bench --blosc`, `bench/gpu/full-scale --blosc`): chunks written by libblosc as "
                "numcodecs' Blosc writes them (clevel 5, c-blosc's block size), decoded in one batched call; GB/s of "
                "uncompressed bytes.  \"plain\": our plain GPU decoder of the inner codec on exactly the compressed "
                "split streams of that batch (stored streams are copies and not in it; \"stored\" = their share of "
                "the bytes), GB/s of the bytes those streams decode to.  c-blosc: wall clock on the host's cores, "
                "libblosc's own threads over one chunk at a time (numcodecs' Blosc.decode), and opencomp's CPU "
                "engine (libblosc per chunk, a chunk per thread); GPU/c-blosc divides by the faster.")


def stream_label(r):
    """Who wrote the decoded streams, shortly ("" = the contender itself)."""
    s = r.get("streams") or ""
    for prefix, short in (("liblz4", "liblz4 blocks"), ("libzstd", "libzstd -3 frames")):
        if s.startswith(prefix):
            return short
    return s


def _codec_label(algo, streams):
    return "%s (%s)" % (algo, streams) if streams else algo


def _ladder_groups(results, scopes=("kernel", "python")):
    """{(file, algorithm, chunk, streams): [rows]} of the ladder rows, ordered by codec, streams, chunk.  Where
    opencomp ran a codec at several levels (oc_gpu_bench --deflate-level 0,1), the rows of its lowest level
    make the group and each other level a group of its own, "deflate L1", beside the same nvCOMP rows (nvCOMP
    has no levels)."""
    groups = {}
    for r in results:
        if is_ladder(r) and r["scope"] in scopes:
            groups.setdefault((r["file"], r["algorithm"], r["chunk_size"], stream_label(r)), []).append(r)
    for g, rs in list(groups.items()):
        levels = sorted({r["level"] for r in rs if r["contender"] == "opencomp-gpu"})
        for lv in levels[1:]:
            groups[(g[0], "%s L%d" % (g[1], lv), g[2], g[3])] = [
                r for r in rs if (r["level"] == lv) == (r["contender"] == "opencomp-gpu")]
        if len(levels) > 1:
            groups[g] = [r for r in rs if r["contender"] != "opencomp-gpu" or r["level"] == levels[0]]
    _add_authors(groups, [r for r in results if is_ladder(r) and r["scope"] in scopes])
    order = sorted(groups, key=lambda g: (_algo_rank(g[1].split(" ")[0]), g[1], g[3], g[2], g[0]))
    return [(g, groups[g]) for g in order]


_AUTHOR = re.compile(r"^(opencomp-gpu|nvcomp-gpu) (\S+)(?: level (\d+)|, .*)$")


def _add_authors(groups, ladder):
    """oc_gpu_bench --foreign: a group of rows decoding another GPU contender's streams ("nvcomp-gpu gdeflate,
    nvCOMP's default options", "opencomp-gpu deflate level 1") also gets that contender's own decoding of the same
    batch in the same run, so the two libraries sit side by side on the same bytes (its compression left out)."""
    for g, rs in groups.items():
        m = _AUTHOR.match(g[3] or "")
        if not m or any(r["contender"] == m.group(1) for r in rs):
            continue
        author, algo, level = m.group(1), m.group(2), int(m.group(3) or 0)
        own = [o for o in ladder if o["contender"] == author and o["algorithm"] == algo and o["file"] == g[0]
               and o["chunk_size"] == g[2] and not o.get("streams") and (author == "nvcomp-gpu" or o["level"] == level)]
        for r in list(rs):
            for o in own:
                if o.get("_run") is r.get("_run") and o.get("batch_plan") == r.get("batch_plan") and o["scope"] == r["scope"]:
                    rs.append(dict(o, compress_gbps=None, compress_s=None))
                    break


def _seconds(r, d):
    """Median seconds of direction d ("compress"/"decompress") of a row, or None."""
    if r.get(d + "_s") is not None:
        return r[d + "_s"]
    g = r.get(d + "_gbps")
    return r["uncompressed_bytes"] / (g * 1e9) if g else None


def _pair(a, b, f):
    return "%s · %s" % (f(a) if a is not None else "-", f(b) if b is not None else "-")


def _us(v):
    return "%.0f" % (v * 1e6) if v * 1e6 >= 100 else "%.1f" % (v * 1e6)


def _staged(r):
    return "†" if r is not None and r.get("path") == "host-staged" else ""


def _g(r, d):
    return r.get(d + "_gbps") if r is not None else None


def full_scale(results):
    """[(group, batch bytes, chunks, {(contender, scope): row})]: per codec, chunk size and stream source, the largest
    batch of at least FULL_SCALE bytes."""
    out = []
    for g, rs in _ladder_groups(results):
        big = [r for r in rs if r["uncompressed_bytes"] >= FULL_SCALE]
        if big:
            top = max(r["uncompressed_bytes"] for r in big)
            sel = [r for r in big if r["uncompressed_bytes"] == top]
            out.append((g, top, sel[0]["num_chunks"], {(r["contender"], r["scope"]): r for r in sel}))
    return out


def full_scale_table(results, md, copy_by_machine=None):
    """Header and rows of the full-scale table (GB/s of uncompressed bytes per call)."""
    head = ["codec", "chunk", "batch", "ratio oc · nv", "decompress opencomp", "decompress nvCOMP", "oc/nv",
            "roofline oc · nv", "compress opencomp", "compress nvCOMP", "compress roofline oc · nv",
            "Python decompress oc · nv"]
    if not md:  # a terminal (the device tool returns 12,000 characters): short names
        head = ["codec", "chunk", "batch", "ratio oc·nv", "dec oc", "dec nv", "oc/nv", "roofline oc·nv", "comp oc",
                "comp nv", "comp roof oc·nv", "py dec oc·nv"]
    rows = []
    groups = full_scale(results)
    per_file = len({g[0][0] for g in groups}) > 1  # per-file runs (full-scale --typed): name the file
    for (f, algo, chunk, streams), top, n, cells in groups:
        oc, nv = cells.get(("opencomp-gpu", "kernel")), cells.get(("nvcomp-gpu", "kernel"))
        poc, pnv = cells.get(("opencomp-gpu", "python")), cells.get(("nvcomp-gpu", "python"))
        ratio = lambda r: "%.2f" % (r["uncompressed_bytes"] / r["compressed_bytes"])  # noqa: E731
        dec_oc, dec_nv = _g(oc, "decompress"), _g(nv, "decompress")
        q = "%.2f" % (dec_oc / dec_nv) if dec_oc and dec_nv else "-"
        if md and dec_oc and dec_nv:
            q = "**%s**" % q
        roof = _pair(oc.get("decompress_roofline") if oc else None, nv.get("decompress_roofline") if nv else None,
                     lambda v: "%.1f%%" % (100 * v))
        croof = _pair(compress_roofline(oc), compress_roofline(nv), lambda v: "%.1f%%" % (100 * v))
        label = _codec_label(algo, streams) + (" " + f if per_file else "")
        rows.append([label, human(chunk), "%s, %d chunks" % (human_size(top), n),
                     _pair(oc, nv, ratio),
                     fmt_gbps(dec_oc) + _staged(oc), fmt_gbps(dec_nv), q, roof,
                     fmt_gbps(_g(oc, "compress")) + (_staged(oc) if _g(oc, "compress") else ""),
                     fmt_gbps(_g(nv, "compress")), croof,
                     _pair(_g(poc, "decompress"), _g(pnv, "decompress"), fmt_gbps)])
    return head, rows


def latency_table(results):
    """Header and rows of the small-batch table: microseconds of one call."""
    head = ["codec", "chunk", "1 chunk: decompress µs oc · nv", "compress µs oc · nv",
            "Python decompress µs oc · nv", "1 MiB batch: decompress µs oc · nv"]
    rows = []
    for (f, algo, chunk, streams), rs in _ladder_groups(results):
        one = {(r["contender"], r["scope"]): r for r in rs if r["num_chunks"] == 1}
        mib = {(r["contender"], r["scope"]): r for r in rs
               if r["num_chunks"] > 1 and r.get("batch_target") == 1 << 20}
        if not one and not mib:
            continue

        def t(cells, c, scope, d):
            r = cells.get((c, scope))
            return _seconds(r, d) if r else None

        rows.append([_codec_label(algo, streams), human(chunk),
                     _pair(t(one, "opencomp-gpu", "kernel", "decompress"), t(one, "nvcomp-gpu", "kernel", "decompress"), _us),
                     _pair(t(one, "opencomp-gpu", "kernel", "compress"), t(one, "nvcomp-gpu", "kernel", "compress"), _us),
                     _pair(t(one, "opencomp-gpu", "python", "decompress"), t(one, "nvcomp-gpu", "python", "decompress"), _us),
                     _pair(t(mib, "opencomp-gpu", "kernel", "decompress"), t(mib, "nvcomp-gpu", "kernel", "decompress"), _us)
                     if mib else "(1 chunk)"])
    return head, rows


def render(head, rows, md):
    """A markdown table, or aligned text columns for a terminal."""
    if md:
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * 2 + "---:|" * (len(head) - 2)]
        out += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(out)
    widths = [max(len(x) for x in col) for col in zip(head, *rows)] if rows else [len(h) for h in head]
    return "\n".join("  ".join(x.ljust(w) if i < 2 else x.rjust(w) for i, (x, w) in enumerate(zip(row, widths)))
                     for row in [head] + rows)


def ladder_table(rs, md=True):
    """Every rung of one codec: a row per chunk size, stream source and batch, a column per contender and scope."""
    cols = sorted({(r["contender"], r["scope"]) for r in rs}, key=lambda c: (c[1] != "kernel", CONTENDERS.index(c[0])))
    head = ["chunk", "batch"] + ["%s%s" % (SHORT.get(c, c), "" if s == "kernel" else " " + s) for c, s in cols]
    head.append("roofline oc · nv")
    cells = {}
    for r in rs:
        cells[(r["chunk_size"], stream_label(r), r["uncompressed_bytes"], r["num_chunks"], r["contender"], r["scope"])] = r
    rows = []
    for cs, st, u, n in sorted({k[:4] for k in cells}, key=lambda k: (k[1], k[0], k[2])):
        row = [human(cs) + (" " + st if st else ""), "1 chunk" if n == 1 else "%s, %d chunks" % (human_size(u), n)]
        for c, s in cols:
            r = cells.get((cs, st, u, n, c, s))
            row.append(cell(r) + _staged(r) if r else "")
        oc, nv = cells.get((cs, st, u, n, "opencomp-gpu", "kernel")), cells.get((cs, st, u, n, "nvcomp-gpu", "kernel"))
        row.append(_pair(oc.get("decompress_roofline") if oc else None, nv.get("decompress_roofline") if nv else None,
                         lambda v: "%.1f%%" % (100 * v)))
        rows.append(row)
    return render(head, rows, md)


LADDER_LEGEND = ("GB/s of uncompressed bytes per call (1 GB = 1e9 B), the median of the timed calls after a "
                 "warm-up; GPU kernels timed by CUDA events around one batched call, Python rows by the wall clock "
                 "around the call and a device synchronisation.  oc/nv = opencomp's decompress GB/s over nvCOMP's.  "
                 "Roofline = decompress GB/s over the device-to-device copy bandwidth of the same run times "
                 "r/(1+r) (r = the ratio).  † = opencomp's host-staged path (no GPU kernel yet: the engine copies "
                 "the chunks through the CPU engine).  \"(liblz4 blocks)\", \"(libzstd -3 frames)\": streams "
                 "the stock CPU libraries wrote (zstd as numcodecs' Zstd(level=3, checksum=True)), decoded by both.")


def ladder_markdown(results):
    lines = ["## Full scale: one batch of at least %s per call" % human(FULL_SCALE), ""]
    head, rows = full_scale_table(results, True)
    lines += [render(head, rows, True) if rows else "(no batch of that size in these runs)", ""]
    lines += ["## Latency: small batches", ""]
    head, rows = latency_table(results)
    lines += [render(head, rows, True) if rows else "(no one-chunk rows)", "", LADDER_LEGEND, ""]
    lines += ["## Every rung of the ladder", "",
              "Each cell: ratio · compress / decompress GB/s; \"-\" = not measured (skipped: see the run's "
              "\"skipped\" list) or not a compressor (stock streams are decoded only).", ""]
    by_algo = {}
    for r in results:
        if is_ladder(r):
            by_algo.setdefault((r["algorithm"], r["file"]), []).append(r)
    for (algo, f), rs in sorted(by_algo.items(), key=lambda kv: (_algo_rank(kv[0][0]), kv[0][1])):
        lines += ["### %s (%s)" % (algo, f), "", ladder_table(rs), ""]
    return lines


def summary(runs, results):
    """The terminal summary a device run prints last: full-scale and latency tables, skips and failures."""
    out = []
    for run in sorted(runs, key=lambda r: r["_path"]):
        dev = run.get("device") or {}
        out.append("%s: %s, commit %s, copy %s GB/s; %d rows, %d skipped, %d failures" % (
            os.path.basename(run["_path"]), dev.get("name", "no GPU"), str(run.get("commit", "?"))[:12],
            fmt_gbps(dev.get("d2d_copy_gbps")), len(run["results"]), len(run.get("skipped", [])),
            len(run.get("failures", []))))
        fails = run.get("failures", [])
        out += ["  FAILED: " + f[:220] for f in fails[:15]]
        if len(fails) > 15:
            out.append("  ... %d more failures in the run file" % (len(fails) - 15))
    if not all(is_blosc(r) for r in results):  # a Blosc run (full-scale --blosc) has only its own table
        head, rows = full_scale_table(results, False)
        out += ["", "full scale (GB/s per call, largest batch >= %s; † host-staged):" % human(FULL_SCALE),
                render(head, rows, False) if rows else "  (no batch of that size)"]
        head, rows = latency_table(results)
        head = ["codec", "chunk", "1 chunk dec µs oc·nv", "comp µs oc·nv", "py dec µs oc·nv", "1 MiB dec µs oc·nv"]
        out += ["", "latency (one call):", render(head, rows, False) if rows else "  (no one-chunk rows)"]
    if any(is_blosc(r) for r in results):
        head, rows = blosc_table(results, False)
        out += ["", "blosc (GB/s per call; plain = our plain GPU decoder on the same split streams):",
                render(head, rows, False) if rows else "  (no Blosc rows)"]
    bad = [r for r in results if not r["verified"]]
    out.append("")
    out.append("%d results, %d unverified" % (len(results), len(bad)))
    return "\n".join(out)


def markdown(runs, results):
    lines = ["Runs merged:", ""]
    lines += ["- " + describe_run(run) for run in sorted(runs, key=lambda r: r["_path"])]
    lines.append("")
    if any(is_blosc(r) for r in results):
        head, rows = blosc_table(results, True)
        lines += ["## Blosc: numcodecs' chunks, GPU against plain decoders and c-blosc", "", render(head, rows, True),
                  "", BLOSC_LEGEND, ""]
        results = [r for r in results if not is_blosc(r)]
        if not results:
            return "\n".join(lines)
    if any(is_ladder(r) for r in results):
        lines += ladder_markdown(results)
        results = [r for r in results if not is_ladder(r)]
        if not results:
            return "\n".join(lines)
        lines += ["## One file per call", ""]
    lines += ["Each cell: ratio · compress GB/s / decompress GB/s (1 GB = 1e9 uncompressed bytes; GPU: kernel time "
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
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return "%d %s" % (n // size, unit)
    return str(n)


def human_size(n):
    """human(n) when exact, else three figures: "1.00 GiB", "33.4 MiB"."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            if n % size == 0:
                return "%d %s" % (n // size, unit)
            v = n / size
            return "%s %s" % ("%.2f" % v if v < 10 else "%.1f" % v if v < 100 else "%.0f" % v, unit)
    return "%d B" % n


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
    ap.add_argument("--summary", action="store_true", help="full-scale and latency tables for a terminal")
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
    text = markdown(runs, results) if args.markdown else summary(runs, results) if args.summary else terminal(results)
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
