#!/usr/bin/env python3
"""cz_lines.py - why: stall_lines.py ranks SASS lines by stall samples; to
find where a tile decoder's instructions go (which per-tile fixed costs
dominate at 8 elements a thread), this ranks ncu's CUDA-source view
(ncu --import R --page source --csv --print-source cuda, of a -lineinfo
build) by warp instructions executed, with each line's share of the
kernel's instructions and of its stall samples.

    cz_lines.py FILE.csv [N]
"""
import csv
import sys


def num(s):
    try:
        return float(s.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def main():
    path, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30
    with open(path, newline="", errors="replace") as f:
        rows = list(csv.reader(f))
    heads = [i for i, r in enumerate(rows) if "Source" in r]
    if not heads:
        print(f"{path}: no header row with 'Source' ({len(rows)} rows)")
        return
    body, cols, fname = [], None, ""
    for h in heads:  # one block per source file
        cols = rows[h]
        src = cols.index("Source")
        line = cols.index("Line") if "Line" in cols else None
        ins = next((i for i, c in enumerate(cols) if c.strip() == "Instructions Executed"), None)
        stl = next((i for i, c in enumerate(cols) if c.startswith("Warp Stall Sampling (All")), None)
        if ins is None:
            print(f"{path}: columns {cols[:10]}: no 'Instructions Executed'")
            return
        for k in range(h - 1, max(h - 4, -1), -1):  # the file's name, printed above its block
            if rows[k] and "File" in rows[k][0]:
                fname = rows[k][-1].split("/")[-1]
                break
        for r in rows[h + 1:]:
            if len(r) != len(cols) or r == cols:
                break
            v = num(r[ins])
            if v is None:
                continue
            body.append((v, num(r[stl]) or 0 if stl is not None else 0,
                         f"{fname}:{r[line] if line is not None else '?'}", r[src].strip()))
    ti = sum(b[0] for b in body) or 1.0
    ts = sum(b[1] for b in body) or 1.0
    print(f"  {len(body)} source lines, {ti:.4g} warp instructions, {ts:.0f} stall samples")
    print(f"  top {n} lines by instructions executed (share of instructions, of stalls):")
    for v, s, where, text in sorted(body, key=lambda b: -b[0])[:n]:
        print(f"  {100 * v / ti:5.1f}% {100 * s / ts:5.1f}%  {where:<34} {text[:80]}")


if __name__ == "__main__":
    main()
