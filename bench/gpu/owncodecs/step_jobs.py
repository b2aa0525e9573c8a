#!/usr/bin/env python3
"""step_jobs.py - why: the ANS decoder's per-SASS-line profile (ncu --page source --csv --print-source
sass, with SourceCounters and WarpStateStats) is thousands of rows; the question it has to answer is
where a warp-step's ~33 instructions and its stalls go, by job.  This groups the lines of the v2 window
loop (bench/gpu/owncodecs/NOTES.md, session 12) by what they do, from their opcodes and operands:

  lookup   the slot (x & mask), its table address, the table's LDS
  fields   f and the bias out of the table entry
  update   x = f * (x >> pb) + bias on 32-bit halves (shifts, IMAD, IMAD.WIDE, the moves between them)
  store    the byte (STG) and the output pointer
  renorm   below 2^31: the test, the selects, the word counter, the guard and the next word's LDS
  block    once a block of 4 steps: the window vote, the loop test, rematerialised values
  topup    inside the loop's address range but not run every block: the window top-ups (cp.async =
           LDGSTS, their addresses, the votes and waits around them)
  outside  everything before or after the loop: tile heads, the table's read and build (its binary
           searches and walks), the tails, the barriers; its busiest address ranges are listed

    step_jobs.py FILE.csv WARP_STEPS [BLOCK_STEPS]

WARP_STEPS: symbols / 32 of the profiled launch (256 MiB of text: 8388608).  Prints, per job, the
instructions executed a warp-step, the share of stall samples and the top stall reasons; then the loop's
lines with their job, so that a reader can check the grouping.
"""
import csv
import re
import sys
from collections import defaultdict


def num(s):
    try:
        return float(s.replace(",", ""))
    except (ValueError, AttributeError):
        return 0.0


def job_of(src):
    s = re.sub(r"^@!?P[T0-9]+\s+", "", src.strip())
    op = s.split()[0] if s else ""
    if op.startswith("STG") or op.startswith("IADD3") and ", P" in s or op.startswith("IMAD.X"):
        return "store"
    if op.startswith("VOTE") or op.startswith("BRA") or op.startswith("UMOV") or op.startswith("VIADDMNMX"):
        return "block"
    if op.startswith("LDS"):
        return "renorm" if src.strip().startswith("@") or "0x780" in s else "lookup"
    if op.startswith("LOP3") and "0x780" in s:
        return "renorm"
    if op.startswith("LOP3") and s.rstrip().endswith("0x30, !PT"):
        return "lookup"
    if re.match(r"IMAD R\d+, R\d+, 0x4, R\d+", s):
        return "lookup"
    if op.startswith("SHF.R.U32.HI") and (", 0x14," in s or ", 0x8," in s):
        return "fields"
    if op.startswith("LOP3") and "0xfff" in s:
        return "fields"
    if op.startswith("SHF.R.U64") or op.startswith("IMAD.WIDE") or re.match(r"SHF\.R\.U32\.HI R\d+, RZ, R\d+", s):
        return "update"
    if re.match(r"IMAD R\d+, R\d+, R\d+, RZ", s) or (op.startswith("VIADD") and "UR" in s):
        return "update"
    if op.startswith("SEL") or op.startswith("ISETP.NE.AND") or op.startswith("ISETP.GT.AND"):
        return "renorm"
    if op.startswith("ISETP.GE.U32.OR") or (op.startswith("VIADD") and "0x80" in s):
        return "renorm"
    if op.startswith("IMAD.MOV") and src.strip().startswith("@"):
        return "renorm"
    if op.startswith("IMAD.IADD") and src.strip().startswith("@"):
        return "renorm"
    return "block"


def main():
    path, steps = sys.argv[1], float(sys.argv[2])
    bsteps = float(sys.argv[3]) if len(sys.argv) > 3 else 4.0
    with open(path, newline="", errors="replace") as f:
        rows = list(csv.reader(f))
    head = next((i for i, r in enumerate(rows) if "Source" in r and "Address" in r), None)
    if head is None:
        print(f"{path}: no header row")
        return
    cols = rows[head]
    end = next((i for i in range(head + 1, len(rows)) if rows[i] and rows[i][0] == "Kernel Name"), len(rows))
    ia, isrc = cols.index("Address"), cols.index("Source")
    iex = cols.index("Instructions Executed")
    iall = next(i for i, c in enumerate(cols) if c.startswith("Warp Stall Sampling (All"))
    reasons = [i for i, c in enumerate(cols) if c.startswith("stall_") and "Not Issued" not in c]
    lines = []
    for r in rows[head + 1:end]:
        if len(r) <= max(iex, iall):
            continue
        lines.append((r[ia], r[isrc], num(r[iex]), num(r[iall]), {cols[i]: num(r[i]) for i in reasons}))
    top = max(x[2] for x in lines)
    blocks = steps / bsteps
    ex_all = sum(x[2] for x in lines)
    smp_all = sum(x[3] for x in lines) or 1.0
    # the block loop: the lines executed about once a block (within 10% of the most executed line)
    hot_lo = 0.9 * top
    # top-ups and waits: lines executed between 1% and 90% of the blocks, inside the loop's address range
    acc = defaultdict(lambda: [0.0, 0.0, defaultdict(float)])
    listing = []
    addr = [int(x[0], 16) for x in lines]
    hot_at = [i for i, x in enumerate(lines) if x[2] >= hot_lo]
    lo_i, hi_i = min(hot_at), max(hot_at)
    ranges = []  # the outside's busy address ranges: [first, last, instructions, samples]
    for i, (a, src, ex, smp, rs) in enumerate(lines):
        hot = ex >= hot_lo
        if hot:
            j = job_of(src)
        elif lo_i <= i <= hi_i:
            j = "topup"
        else:
            j = "outside"
            if ex or smp:
                if ranges and addr[i] - ranges[-1][1] <= 0x100:
                    ranges[-1][1] = addr[i]
                    ranges[-1][2] += ex
                    ranges[-1][3] += smp
                else:
                    ranges.append([addr[i], addr[i], ex, smp])
        acc[j][0] += ex
        acc[j][1] += smp
        for k, v in rs.items():
            acc[j][2][k] += v
        if hot:
            listing.append((a, src, ex, smp, j))
    print(f"{path}: {ex_all / 1e6:.1f} M instructions, {ex_all / steps:.2f} a warp-step ({steps:.0f} warp-steps, "
          f"the loop executed {top / 1e6:.2f} M times = {top * bsteps / steps:.2f} x steps/{bsteps:.0f}); "
          f"{smp_all:.0f} stall samples")
    print(f"{'job':8s} {'instr/step':>10s} {'share':>6s} {'stalls':>7s}  top stall reasons")
    for j in ["lookup", "fields", "update", "store", "renorm", "block", "topup", "outside"]:
        if j not in acc:
            continue
        ex, smp, rs = acc[j]
        t = sorted(rs.items(), key=lambda kv: -kv[1])[:3]
        print(f"{j:8s} {ex / steps:10.2f} {ex / ex_all:6.1%} {smp / smp_all:7.1%}  "
              + ", ".join(f"{k[6:]} {v / smp_all:.1%}" for k, v in t))
    base = addr[0]
    print("outside the loop, the busiest address ranges (offsets from the kernel's first instruction):")
    for r in sorted(ranges, key=lambda r: -r[2])[:6]:
        print(f"  {r[0] - base:6x}-{r[1] - base:6x}  {r[2] / steps:5.2f} a warp-step, {r[3] / smp_all:5.1%} of the stalls")
    print("the loop's lines (address, executions, stall samples, job):")
    for a, src, ex, smp, j in listing:
        print(f"  {a[-5:]} {ex / 1e6:6.2f}M {smp:6.0f} {j:7s} {src.strip()[:70]}")


if __name__ == "__main__":
    main()
