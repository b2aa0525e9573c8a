#!/usr/bin/env python3
"""make-corpus.py - a stand-in benchmark corpus for the GPU benchmark, built
from what any Linux machine has, until bench/corpus (branch `bench`) lands.

Usage: make-corpus.py OUTDIR [MiB per file, default 32]
Writes (deterministic for a given machine's files; generated columns are
seeded):
  text.bin      documentation and text files (/usr/share/doc, *.txt/*.md/*.rst/*.html)
  source.bin    Python source files of the installed packages
  elf.bin       shared libraries from /usr/lib/x86_64-linux-gnu
  l_orderkey.i64, l_extendedprice.f64, l_shipdate.i32, l_comment.txt:
                TPC-H lineitem-like columns, generated (raw little-endian)
  mortgage_col0.i64: a sorted, highly repetitive key column (like nvCOMP's
                Mortgage column 0 case)
The file list and sizes are printed; the benchmark JSON names each file.
"""
import os
import sys

import numpy as np

out = sys.argv[1]
cap = int(sys.argv[2] if len(sys.argv) > 2 else 32) << 20
os.makedirs(out, exist_ok=True)


def gather(path, roots, accept, skip_gz=True):
    if os.path.exists(path) and os.path.getsize(path) > 0:
        return
    got = 0
    with open(path, "wb") as f:
        for root in roots:
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames.sort()
                for name in sorted(filenames):
                    p = os.path.join(dirpath, name)
                    if not accept(name) or os.path.islink(p) or not os.path.isfile(p):
                        continue
                    try:
                        with open(p, "rb") as g:
                            data = g.read(cap - got)
                    except OSError:
                        continue
                    if skip_gz and data[:2] == b"\x1f\x8b":
                        continue
                    f.write(data)
                    got += len(data)
                    if got >= cap:
                        return


text_ext = (".txt", ".md", ".rst", ".html", ".htm", ".tex", "copyright", "README", "NEWS")
gather(os.path.join(out, "text.bin"), ["/usr/share/doc", "/usr/share", "/usr/lib/python3"],
       lambda n: n.endswith(text_ext))
site = [p for p in sys.path if p.endswith("site-packages") and os.path.isdir(p)]
gather(os.path.join(out, "source.bin"), site + ["/usr/lib/python3"], lambda n: n.endswith((".py", ".h", ".c")))
gather(os.path.join(out, "elf.bin"), ["/usr/lib/x86_64-linux-gnu"], lambda n: ".so" in n)

rng = np.random.default_rng(20261121)
rows = cap // 8
# orders of 1..7 lines; order keys use 8 of every 32 values as TPC-H does
lines = rng.integers(1, 8, size=rows // 4 + 1)
okeys = np.repeat((np.arange(lines.size) // 8) * 32 + (np.arange(lines.size) % 8) + 1, lines)[:rows]
cols = {
    "l_orderkey.i64": okeys.astype("<i8"),
    "l_extendedprice.f64": (rng.integers(1, 51, rows) * rng.integers(90000, 200000, rows) / 100.0).astype("<f8"),
    "l_shipdate.i32": rng.integers(8036, 10562, rows // 2).astype("<i4"),
    "mortgage_col0.i64": np.repeat(np.arange(rows // 64 + 1, dtype="<i8") * 7 + 100000000000,
                                   64)[:rows],
}
for name, arr in cols.items():
    p = os.path.join(out, name)
    if not os.path.exists(p):
        arr.tofile(p)
p = os.path.join(out, "l_comment.txt")
if not os.path.exists(p):
    words = ("furiously special accounts sleep carefully regular deposits haggle quickly final packages "
             "boost blithely ironic requests nag slyly express instructions wake bold pinto beans cajole "
             "even theodolites detect pending foxes integrate silent ideas among the above").split()
    w = np.array(words)
    parts = []
    total = 0
    while total < cap:
        n = rng.integers(2, 7, 20000)
        idx = rng.integers(0, len(words), int(n.sum()))
        s = []
        k = 0
        for m in n:
            s.append(" ".join(w[idx[k:k + m]]))
            k += m
        blob = ("\n".join(s) + "\n").encode()
        parts.append(blob)
        total += len(blob)
    with open(p, "wb") as f:
        f.write(b"".join(parts)[:cap])
for name in sorted(os.listdir(out)):
    print(f"  {name:24s} {os.path.getsize(os.path.join(out, name)):>10d} bytes")
