#!/usr/bin/env python3
"""sass_phases.py - why: ncu's per-SASS-line csv (ncu --import R --page source --csv
--print-source sass) says where a kernel's instructions and stalls are, but by
address only: a kernel whose phases are all inlined into one function (the
Bitcomp encoder: 26,000 SASS lines) needs each address charged to the source
call it came from.  This joins the csv with `nvdisasm -gi -c` of the same code
compiled here with -lineinfo and the same nvcc (the opcodes are checked line by
line) and sums Instructions Executed and stall samples by the deepest inlined
frame that lies in one of the DRIVER functions (e.g. bc_encode_tile32: one row
a phase), and optionally by the frames inside SUB (one row a call of SUB).

    sass_phases.py DIS CSV[.gz] MANGLED_KERNEL DRIVER[,DRIVER...] [SUB] [SRC_FROM=SRC_TO]

DIS: nvdisasm -gi -c output; SRC_FROM=SRC_TO rewrites the device's source paths
to where the same sources are here (default /tmp/t-bitcomp=/work/main).
"""
import collections
import csv
import gzip
import os
import re
import sys


def main():
    dis, csvf, fn = sys.argv[1], sys.argv[2], sys.argv[3]
    drivers = set(sys.argv[4].split(","))
    sub = sys.argv[5] if len(sys.argv) > 5 and "=" not in sys.argv[5] else None
    remap = next((a.split("=", 1) for a in sys.argv[5:] if "=" in a), ("/tmp/t-bitcomp", "/work/main"))
    chains, inside, ann, cur = {}, False, [], []
    for line in open(dis):
        if line.startswith(".text."):
            inside = line.startswith(".text." + fn + ":")
            continue
        if not inside:
            continue
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)', line)
        if m:
            ann.append((m.group(1), int(m.group(2))))
            continue
        m = re.match(r"\s*/\*([0-9a-f]+)\*/\s+(.*?);", line)
        if m:
            if ann:
                cur = ann
            ann = []
            chains[int(m.group(1), 16)] = (m.group(2).split()[0], cur)
    files = {}

    def src(p):
        p = os.path.normpath(p.replace(remap[0], remap[1]))
        if p not in files:
            try:
                files[p] = open(p).read().split("\n")
            except OSError:
                files[p] = []
        return files[p]

    def func_of(path, ln):
        s = src(path)
        for i in range(min(ln, len(s)) - 1, -1, -1):
            m = re.match(r"^(?:static |OWN_DEV |OWN_HD |template <[^>]*> static |__device__ )[^;]*?"
                         r"\b([a-zA-Z_][a-zA-Z0-9_]*)\s*\(", s[i])
            if m:
                return m.group(1)
        return "?"

    opener = gzip.open if csvf.endswith(".gz") else open
    rows = list(csv.reader(opener(csvf, "rt", errors="replace")))
    h = next(i for i, r in enumerate(rows) if "Source" in r)
    cols = rows[h]
    body = [r for r in rows[h + 1:] if len(r) == len(cols)]
    ia, isrc = cols.index("Address"), cols.index("Source")
    iex, ist = cols.index("Instructions Executed"), cols.index("Warp Stall Sampling (All Samples)")
    base = int(body[0][ia], 16)

    def num(s):
        try:
            return float(s.replace(",", ""))
        except ValueError:
            return 0.0

    agg, agg2 = collections.defaultdict(lambda: [0.0, 0.0]), collections.defaultdict(lambda: [0.0, 0.0])
    tot, bad = [0.0, 0.0], 0
    for r in body:
        op, ch = chains.get(int(r[ia], 16) - base, ("?", []))
        if op.lstrip("@!P0123456789T") != r[isrc].split()[-1 if r[isrc].strip().startswith("@") else 0] \
                and op.split(".")[0] not in r[isrc]:
            bad += 1
        e, s = num(r[iex]), num(r[ist])
        tot[0] += e
        tot[1] += s
        key = "other"
        for f, ln in ch:  # innermost first
            if func_of(f, ln) in drivers:
                key = "%s:%d %s" % (func_of(f, ln), ln, src(f)[ln - 1].strip()[:60])
                break
        agg[key][0] += e
        agg[key][1] += s
        if sub:
            for f, ln in ch:
                if func_of(f, ln) == sub:
                    k2 = "%s:%d %s" % (sub, ln, src(f)[ln - 1].strip()[:64])
                    agg2[k2][0] += e
                    agg2[k2][1] += s
                    break
    print("%d SASS lines, %d opcode mismatches; %.4g instructions executed, %.0f stall samples" %
          (len(body), bad, tot[0], tot[1]))
    for k, v in sorted(agg.items(), key=lambda kv: -kv[1][0]):
        if v[0] > 0.002 * tot[0] or v[1] > 0.005 * tot[1]:
            print("%6.1f%% instr %6.1f%% samples  %s" % (100 * v[0] / tot[0], 100 * v[1] / tot[1], k))
    if sub:
        print("-- inside", sub)
        for k, v in sorted(agg2.items(), key=lambda kv: -kv[1][0])[:20]:
            print("%6.1f%% instr %6.1f%% samples  %s" % (100 * v[0] / tot[0], 100 * v[1] / tot[1], k))


if __name__ == "__main__":
    main()
