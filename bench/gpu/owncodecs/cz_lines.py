#!/usr/bin/env python3
"""cz_lines.py - why: to find where a tile decoder's instructions go (which
per-tile costs dominate at 8 elements a thread), this splits ncu's per-SASS
line CSV (ncu --import R --page source --csv --print-source sass) into the
regions between barriers, calls, returns and warp syncs (the phases of a
tile: the loop, the parse and unpacks before a scan, the scan, the walk, the
copy-out) and prints each region's share of the kernel's warp instructions
and of its stall samples, its SASS line range and its top opcodes.  ncu's
CUDA-source view carried no counters in session 12's call B (a CSV of
"Line No","Source" only), hence the SASS regions.  Session 12's NOTES use it
on the library's cz_k_tiles (bench/gpu/owncodecs/NOTES.md).

    cz_lines.py FILE.csv[.gz] [TILES WARPS]   (TILES x WARPS: per-warp-tile counts)
"""
import csv
import gzip
import sys

BOUNDS = ("BAR.SYNC", "BAR.RED", "RET.", "CALL.", "EXIT", "WARPSYNC")


def num(s):
    try:
        return float(s.replace(",", ""))
    except (ValueError, AttributeError):
        return 0.0


def main():
    path = sys.argv[1]
    per = int(sys.argv[2]) * int(sys.argv[3]) if len(sys.argv) > 3 else 0
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="", errors="replace") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if "Source" in r and "Instructions Executed" in r), None)
    if head is None:
        print(f"{path}: no header with 'Source' and 'Instructions Executed' ({len(rows)} rows)")
        return
    cols = rows[head]
    src, ins = cols.index("Source"), cols.index("Instructions Executed")
    stl = next((i for i, c in enumerate(cols) if c.startswith("Warp Stall Sampling (All")), None)
    end = next((i for i in range(head + 1, len(rows)) if rows[i] and rows[i][0] == "Kernel Name"), len(rows))
    body = [r for r in rows[head + 1:end] if len(r) == len(cols)]
    ti = sum(num(r[ins]) for r in body) or 1.0
    ts = sum(num(r[stl]) for r in body) if stl is not None else 0.0
    print(f"  {len(body)} SASS lines, {ti:.4g} warp instructions, {ts:.0f} stall samples")
    regions, start = [], 0
    for i, r in enumerate(body):
        if any(b in r[src] for b in BOUNDS) or i == len(body) - 1:
            regions.append((start, i))
            start = i + 1
    for a, b in regions:
        seg = body[a:b + 1]
        n = sum(num(r[ins]) for r in seg)
        s = sum(num(r[stl]) for r in seg) if stl is not None else 0.0
        if n / ti < 0.004 and (not ts or s / ts < 0.01):
            continue
        ops = {}
        for r in seg:
            words = r[src].split()
            op = (words[1] if words and words[0].startswith("@") and len(words) > 1 else (words or ["?"])[0])
            ops[op.split(".")[0]] = ops.get(op.split(".")[0], 0.0) + num(r[ins])
        top = " ".join(f"{k}:{100 * v / n:.0f}%" for k, v in sorted(ops.items(), key=lambda x: -x[1])[:5] if n)
        pw = f" {n / per:7.0f}/warp-tile" if per else ""
        print(f"  {100 * n / ti:5.1f}% inst {100 * s / (ts or 1):5.1f}% stall  lines {a:5d}-{b:5d}{pw}  "
              f"ends {seg[-1][src].strip()[:28]:<28} {top}")


if __name__ == "__main__":
    main()
