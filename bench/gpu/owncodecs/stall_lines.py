#!/usr/bin/env python3
"""stall_lines.py - why: ncu's per-SASS-line CSV (ncu --import R --page source
--csv --print-source sass) is thousands of rows; stalls.sh prints only the
lines where the sampled warps stalled most, with their top stall reasons.

    stall_lines.py FILE.csv [N]
"""
import csv
import sys


def num(s):
    try:
        return float(s.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def main():
    path, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25
    with open(path, newline="", errors="replace") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if "Source" in r), None)
    if head is None:
        print(f"{path}: no header row with 'Source' ({len(rows)} rows)")
        for r in rows[:5]:
            print("  ", r[:6])
        return
    cols = rows[head]
    src = cols.index("Source")
    addr = cols.index("Address") if "Address" in cols else None
    allc = next((i for i, c in enumerate(cols) if c.startswith("Warp Stall Sampling (All")), None)
    if allc is None:
        print(f"{path}: columns {cols[:12]} ...: no 'Warp Stall Sampling (All Samples)'")
        return
    # all samples only (not the "(Not Issued)" copies of the reasons)
    reasons = [i for i, c in enumerate(cols)
               if "stall" in c.lower() and i != allc and "Sampling" not in c and "Not Issued" not in c]
    # the first kernel's block only (an import can print a kernel's source twice)
    end = next((i for i in range(head + 1, len(rows)) if rows[i] and rows[i][0] == "Kernel Name"), len(rows))
    body = [r for r in rows[head + 1:end] if len(r) == len(cols) and num(r[allc]) is not None]
    total = sum(num(r[allc]) for r in body) or 1.0
    sums = sorted(((sum(num(r[i]) or 0 for r in body), cols[i]) for i in reasons), reverse=True)[:8]
    print(f"  {len(body)} SASS lines, {total:.0f} stall samples; by reason: " +
          ", ".join(f"{c.split('(')[0].strip()} {100 * v / total:.0f}%" for v, c in sums if v > 0))
    print(f"  top {n} lines:")
    for r in sorted(body, key=lambda r: -num(r[allc]))[:n]:
        s = num(r[allc])
        why = sorted(((num(r[i]) or 0, cols[i]) for i in reasons), reverse=True)[:3]
        why = ", ".join(f"{c.split('(')[0].strip()} {v:.0f}" for v, c in why if v > 0)
        a = r[addr] if addr is not None else ""
        print(f"  {100 * s / total:5.1f}% {a:>8} {r[src].strip()[:70]:<70} {why}")


if __name__ == "__main__":
    main()
