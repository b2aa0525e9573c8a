#!/usr/bin/env python3
"""bench/plot.py - one PNG of throughput vs compression ratio, per codec and
contender, from benchmark run files (bench/SCHEMA.md), merged and validated
exactly as bench/report.py does.

    python3 bench/plot.py -o bench/out/bench.png RUN.json [DIR ...] [--chunk 65536]

Layout: one column of panels per algorithm, the top row
compression GB/s, the bottom row decompression GB/s, both on a log scale
against ratio.  Each contender has one colour, circles for kernel scope and squares
for end-to-end: small translucent points are single files, the large
outlined point is the whole corpus (total bytes over total time, over the
files every contender measured), so "up and to the right" is better.
Unverified results are drawn hollow with a red edge.  Needs matplotlib (Agg).
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import report  # noqa: E402

COLORS = {"opencomp-gpu": "#1b9e77", "nvcomp-gpu": "#76b900", "opencomp-cpu": "#7570b3",
          "reference-cpu": "#d95f02"}


def marker(r, machine_index=0):
    """Circles (then triangles, diamonds for further machines of one kind)
    for kernel-scope figures, squares (then diamonds, pluses) for end-to-end
    ones (whole-buffer API, host buffer in to host buffer out)."""
    shapes = ("s", "D", "P") if r["scope"] == "end-to-end" else ("o", "^", "v")
    return shapes[min(machine_index, len(shapes) - 1)]


def legend_label(r, labels):
    """Contender, threads, e2e and machine: the level is left out (tables show it)."""
    c = r["contender"]
    if c.endswith("-cpu"):
        c += " %dT" % r["threads"]
    if r["scope"] == "end-to-end":
        c += " e2e"
    if r["_machine"] in labels:
        c += " @" + labels[r["_machine"]]
    return c


def plot(results, out, chunk, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    rs = [r for r in results if r["chunk_size"] == chunk]
    if not rs:
        raise SystemExit("plot: no results at chunk size %d (have: %s)" % (
            chunk, ", ".join(sorted({str(r["chunk_size"]) for r in results}))))
    groups = sorted({r["algorithm"] for r in rs}, key=report._algo_rank)
    fig, axes = plt.subplots(2, len(groups), figsize=(max(8.0, 3.6 * len(groups) + 1.5), 7.2), squeeze=False)
    files = report.corpus_files(rs)
    labels = report._machine_labels(rs)
    machine_index = {}
    for kind in ("gpu:", "cpu:"):
        for k, mname in enumerate(sorted({r["_machine"] for r in rs if r["_machine"].startswith(kind)})):
            machine_index[mname] = k
    handles = {}
    for j, algo in enumerate(groups):
        g = [r for r in rs if r["algorithm"] == algo]
        gfiles = report.corpus_files(g)
        for i, (d, label) in enumerate((("compress_gbps", "compress"), ("decompress_gbps", "decompress"))):
            ax = axes[i][j]
            for col in sorted({report.column(r) for r in g}, key=report._col_rank):
                sel = [r for r in g if report.column(r) == col and r[d] is not None]
                if not sel:
                    continue
                c = COLORS[sel[0]["contender"]]
                m = marker(sel[0], machine_index[sel[0]["_machine"]])
                name = legend_label(sel[0], labels)
                for r in sel:
                    ax.scatter(r["uncompressed_bytes"] / r["compressed_bytes"], r[d], s=18, color=c, marker=m,
                               alpha=0.35 if r["verified"] else 1.0,
                               facecolors=c if r["verified"] else "none",
                               edgecolors=c if r["verified"] else "red", linewidths=0.8)
                tot = [r for r in sel if r["file"] in gfiles]
                if tot:
                    a = report.aggregate(tot)
                    # later contenders smaller and on top, so equal-ratio markers stay visible
                    k = report._col_rank(col)[0]
                    h = ax.scatter(a["ratio"], a[d], s=150 - 28 * k, color=c, marker=m, edgecolors="black",
                                   linewidths=1.2, zorder=3 + k, label=name)
                    handles.setdefault(name, h)
            ax.set_yscale("log")
            ax.set_xscale("log")
            for axis in (ax.xaxis, ax.yaxis):  # plain numbers (2, 5, 10, 20), not 2x10^0
                axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
                axis.set_major_formatter(FuncFormatter(lambda v, _pos: "%g" % v))
                axis.set_minor_formatter(NullFormatter())
            ax.grid(True, which="both", alpha=0.25)
            if i == 0:
                ax.set_title(algo)
            if i == 1:
                ax.set_xlabel("compression ratio")
            if j == 0:
                ax.set_ylabel("%s GB/s" % label)
    order = sorted(handles, key=report._col_rank)
    ncol = min(4, len(order))
    legend_rows = -(-len(order) // ncol) if order else 0
    fig.legend([handles[k] for k in order], order, loc="lower center", ncol=ncol, frameon=False)
    fig.suptitle("%s — chunk %s, %d files (big marker: whole corpus)" % (title, report.human(chunk), len(files)))
    fig.tight_layout(rect=(0, 0.035 * legend_rows + 0.02, 1, 0.95))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", help="run JSON files or folders of them")
    ap.add_argument("-o", "--output", default="bench/out/bench.png", help="PNG to write")
    ap.add_argument("--chunk", type=int, default=65536, help="chunk size to plot (bytes)")
    ap.add_argument("--title", default="opencomp benchmark", help="figure title")
    ap.add_argument("--skip-invalid", action="store_true", help="leave out (and name) run files that fail validation")
    args = ap.parse_args(argv)
    try:
        runs = report.load_runs(args.paths, args.skip_invalid, "plot")
    except report.SchemaError as e:
        print("plot: %s" % e, file=sys.stderr)
        return 2
    if not runs:
        print("plot: no valid run files", file=sys.stderr)
        return 2
    results, _ = report.merge(runs)
    plot(results, args.output, args.chunk, args.title)
    print("plot: wrote %s" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
