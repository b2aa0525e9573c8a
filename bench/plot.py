#!/usr/bin/env python3
"""bench/plot.py - one PNG from benchmark run files (bench/SCHEMA.md), merged
and validated exactly as bench/report.py does.  Two kinds:

    python3 bench/plot.py -o bench/out/bench.png RUN.json [DIR ...] [--kind ladder]
    python3 bench/plot.py -o bench/out/bench.png RUN.json [DIR ...] [--kind files --chunk 65536]

"ladder" (the default when the runs hold ladder rows, bench/README.md "Full
scale"): GB/s against the bytes of one batched call, one column of panels per
codec; rows: kernel decompression, kernel compression, Python-API
decompression.  Colour = library, line style = chunk size; the dotted grey
line is the decode roofline (the run's device-to-device copy bandwidth x
r/(1+r) at that codec's ratio).  The left end is latency, the right end
throughput.

"files": throughput vs compression ratio per codec and contender, one point
per corpus file.  Layout: one column of panels per algorithm, the top row
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

COLORS = {"opencomp-gpu": "#1f78b4", "nvcomp-gpu": "#76b900", "opencomp-cpu": "#7570b3",
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

    rs = [r for r in results if r["chunk_size"] == chunk and not report.is_ladder(r)]
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


STYLES = {65536: "-", 262144: "--", 1 << 20: "-.", 4 << 20: ":"}


def plot_ladder(results, out, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    rs = [r for r in results if report.is_ladder(r) and not r.get("streams") and r["scope"] in ("kernel", "python")]
    if not rs:
        raise SystemExit("plot: no ladder rows in these runs")
    algos = sorted({r["algorithm"] for r in rs}, key=report._algo_rank)
    panels = (("kernel", "decompress_gbps", "decompress GB/s (kernel)"), ("kernel", "compress_gbps", "compress GB/s (kernel)"),
              ("python", "decompress_gbps", "decompress GB/s (Python API)"))
    fig, axes = plt.subplots(len(panels), len(algos), figsize=(max(8.0, 3.4 * len(algos) + 1.0), 9.0), squeeze=False)
    chunks = sorted({r["chunk_size"] for r in rs})
    for j, algo in enumerate(algos):
        for i, (scope, field, label) in enumerate(panels):
            ax = axes[i][j]
            sel = [r for r in rs if r["algorithm"] == algo and r["scope"] == scope and r[field] is not None]
            for contender in report.CONTENDERS:
                for cs in chunks:
                    line = sorted((r for r in sel if r["contender"] == contender and r["chunk_size"] == cs),
                                  key=lambda r: r["uncompressed_bytes"])
                    if not line:
                        continue
                    staged = any(r.get("path") == "host-staged" for r in line)
                    ax.plot([r["uncompressed_bytes"] for r in line], [r[field] for r in line],
                            STYLES.get(cs, "-"), color=COLORS[contender], marker="o", markersize=3,
                            alpha=0.5 if staged else 0.9,
                            markerfacecolor="none" if not all(r["verified"] for r in line) else COLORS[contender])
            if field == "decompress_gbps" and scope == "kernel" and sel:
                top = max(sel, key=lambda r: r["uncompressed_bytes"])
                copy = ((top.get("_run") or {}).get("device") or {}).get("d2d_copy_gbps")
                if copy:
                    ratio = top["uncompressed_bytes"] / top["compressed_bytes"]
                    ax.axhline(copy * ratio / (1 + ratio), color="grey", linestyle=":", linewidth=1)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.grid(True, which="both", alpha=0.25)
            ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _p: report.human(int(v)) if v >= 1 else ""))
            ax.tick_params(axis="x", labelsize=7, rotation=30)
            if i == 0:
                ax.set_title(algo)
            if i == len(panels) - 1:
                ax.set_xlabel("bytes per call")
            if j == 0:
                ax.set_ylabel(label)
    handles = [Line2D([], [], color=COLORS[c], label=report.SHORT.get(c, c)) for c in ("opencomp-gpu", "nvcomp-gpu")]
    handles += [Line2D([], [], color="black", linestyle=STYLES.get(cs, "-"), label="%s chunks" % report.human(cs))
                for cs in chunks]
    handles.append(Line2D([], [], color="grey", linestyle=":", label="decode roofline (copy x r/(1+r))"))
    fig.legend(handles=handles, loc="lower center", ncol=min(4, len(handles)), frameon=False)
    fig.suptitle("%s — GB/s per batched call, 1 chunk to the largest batch (faint: host-staged)" % title)
    fig.tight_layout(rect=(0, 0.08, 1, 0.95))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", help="run JSON files or folders of them")
    ap.add_argument("-o", "--output", default="bench/out/bench.png", help="PNG to write")
    ap.add_argument("--kind", choices=("auto", "ladder", "files"), default="auto",
                    help="ladder: GB/s per batch size; files: GB/s vs ratio per file (auto: ladder when present)")
    ap.add_argument("--chunk", type=int, default=65536, help="chunk size of the files plot (bytes)")
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
    kind = args.kind
    if kind == "auto":
        kind = "ladder" if any(report.is_ladder(r) for r in results) else "files"
    if kind == "ladder":
        plot_ladder(results, args.output, args.title)
    else:
        plot(results, args.output, args.chunk, args.title)
    print("plot: wrote %s" % args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
