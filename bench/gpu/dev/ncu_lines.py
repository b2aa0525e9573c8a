#!/usr/bin/env python3
"""ncu_lines.py - per-source-line instructions and stall samples of one kernel
from an Nsight Compute report (.ncu-rep), here, without ncu.

Why: `ncu --import R --page source --csv --print-source cuda` on the GPU
machine returned the source text without its metric columns (session 9), so
the "top source lines" of a profile were out of reach once the machine was
gone.  The report holds what is needed: the kernel's cubin (with the
-lineinfo the library is built with) and, per SASS address, the instanced
metrics `inst_executed` and `smsp__pcsamp_*` (SourceCounters).  This script
reads the report's protobuf wire format generically (no schema: the layout
below was observed in reports of Nsight Compute 2025.x, file version 7),
extracts the cubin, disassembles it with nvdisasm -gi (PyPI:
nvidia-cuda-nvdisasm) to map addresses to file:line, and sums the metrics
per line and per named part of the source.

  ncu_lines.py REPORT.ncu-rep [--nvdisasm PATH] [--top N] [--src ROOT]
               [--part NAME=FILE:FIRST-LAST ...]

Layout observed: "NVR\\0", u32 n, a FileHeader of n bytes; then blocks: u32 n,
a BlockHeader of n bytes (field 4: the metric names, repeated field 1; field
5: the payload's bytes), then the payload: u32 n + a message, repeated.  A
result message has metric results in repeated field 13: {1: name index, 2:
value, 3: instances {1: {5: address}, 2: {5: value}}}.  The first profiled
kernel's cubin is the first ELF image in the file.
"""
import argparse
import collections
import os
import re
import struct
import subprocess
import sys

STALLS = ["wait", "long_scoreboard", "short_scoreboard", "branch_resolving", "math_pipe_throttle",
          "no_instructions", "not_selected", "mio_throttle", "lg_throttle", "barrier", "dispatch_stall"]


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b, i, end):
    """[(field, wire type, value or (start, end))] of one message; ValueError if it is not one."""
    out = []
    while i < end:
        key, i = varint(b, i)
        f, wt = key >> 3, key & 7
        if f == 0:
            raise ValueError("field 0")
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 1:
            v, i = b[i:i + 8], i + 8
        elif wt == 5:
            v, i = b[i:i + 4], i + 4
        elif wt == 2:
            n, i = varint(b, i)
            v, i = (i, i + n), i + n
        else:
            raise ValueError("wire type %d" % wt)
        out.append((f, wt, v))
    if i != end:
        raise ValueError("overrun")
    return out


def scalar(b, span):
    """The number in a value message such as {5: 4096}."""
    for f, wt, v in fields(b, *span):
        if wt == 0:
            return v
        if wt == 1:
            return struct.unpack("<d", v)[0]
        if wt == 5:
            return struct.unpack("<f", v)[0]
    return None


def first_result(b):
    """({metric name: {address: value}}) of the first result with instanced metrics."""
    i = 8 + struct.unpack("<I", b[4:8])[0]
    while i < len(b):
        n = struct.unpack("<I", b[i:i + 4])[0]
        hdr = fields(b, i + 4, i + 4 + n)
        i += 4 + n
        names, size = [], 0
        for f, wt, v in hdr:
            if f == 4 and wt == 2 and v[1] > v[0]:
                names = [b[s:e].decode(errors="replace") for f2, wt2, (s, e) in fields(b, *v) if wt2 == 2]
            elif f == 5 and wt == 0:
                size = v
        end, j = i + size, i
        i = end
        while j < end:
            n = struct.unpack("<I", b[j:j + 4])[0]
            s, e, j = j + 4, j + 4 + n, j + 4 + n
            try:
                msg = fields(b, s, e)
            except (ValueError, IndexError):
                continue
            res = {}
            for f, wt, v in msg:
                if f != 13 or wt != 2:
                    continue
                mid, inst = None, {}
                for f2, wt2, v2 in fields(b, *v):
                    if f2 == 1 and wt2 == 0:
                        mid = v2
                    elif f2 == 3 and wt2 == 2:
                        kv = dict((f3, v3) for f3, wt3, v3 in fields(b, *v2))
                        if 1 in kv and 2 in kv:
                            inst[scalar(b, kv[1])] = scalar(b, kv[2])
                if mid is not None and inst and mid < len(names):
                    res[names[mid]] = inst
            if "inst_executed" in res:
                return res
    raise SystemExit("no result with per-address inst_executed (was SourceCounters collected?)")


def cubin(b):
    i = b.find(b"\x7fELF")
    if i < 0:
        raise SystemExit("no cubin in the report")
    phoff, shoff = struct.unpack("<QQ", b[i + 0x20:i + 0x30])
    phsz, phn, shsz, shn = struct.unpack("<HHHH", b[i + 0x36:i + 0x3E])
    return b[i:i + max(shoff + shsz * shn, phoff + phsz * phn)]


def line_map(elf, nvdisasm):
    """{(function, offset): (file, line)} from nvdisasm -gi (the innermost line of inlined code)."""
    path = "/tmp/ncu_lines_%d.cubin" % os.getpid()
    with open(path, "wb") as f:
        f.write(elf)
    try:
        sass = subprocess.run([nvdisasm, "-c", "-gi", path], capture_output=True, text=True, check=True).stdout
    finally:
        os.remove(path)
    out, fn, cur = {}, None, None
    for line in sass.splitlines():
        m = re.match(r"\.text\.(\S+):$", line.strip())
        if m:
            fn, cur = m.group(1), None
            continue
        m = re.search(r'//## File "([^"]+)", line (\d+)', line)
        if m:
            cur = (m.group(1), int(m.group(2)))
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/", line)
        if m and fn:
            out[(fn, int(m.group(1), 16))] = cur
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report")
    ap.add_argument("--nvdisasm", default="nvdisasm")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--src", default=None, help="source root to quote lines from (default: the paths as built)")
    ap.add_argument("--part", action="append", default=[], help="NAME=FILE:FIRST-LAST, a named range of lines")
    a = ap.parse_args(argv)
    b = open(a.report, "rb").read()
    res = first_result(b)
    lines = line_map(cubin(b), a.nvdisasm)
    ie = res["inst_executed"]
    base = min(ie)
    # the kernel: the function whose offsets cover the most sampled addresses
    fns = collections.Counter(fn for fn, off in lines)
    fn = max(fns, key=lambda f: sum(1 for x in ie if (f, x - base) in lines))
    agg = collections.defaultdict(collections.Counter)
    for name, key in [("inst_executed", "inst"), ("smsp__pcsamp_sample_count", "samp")] + \
            [("smsp__pcsamp_warps_issue_stalled_" + s, s) for s in STALLS]:
        for addr, v in res.get(name, {}).items():
            agg[lines.get((fn, addr - base))][key] += v or 0
    ti = sum(c["inst"] for c in agg.values()) or 1
    ts = sum(c["samp"] for c in agg.values()) or 1
    print("%s: %s, %d addresses, %.3e warp instructions, %d stall samples" % (
        os.path.basename(a.report), fn, len(ie), ti, ts))
    src = {}

    def quote(f, n):
        p = f if not a.src else os.path.join(a.src, f.split("/src/", 1)[-1])
        try:
            if p not in src:
                src[p] = open(p).read().splitlines()
            return src[p][n - 1].strip()[:72]
        except (OSError, IndexError):
            return ""

    print(" samp%  inst%  top stalls                      line")
    for ln, c in sorted(agg.items(), key=lambda x: -x[1]["samp"])[:a.top]:
        st = sorted(((c[s], s) for s in STALLS), reverse=True)[:2]
        f, n = ln if ln else ("?", 0)
        print("%5.1f %5.1f  %-30s %s:%d  %s" % (100 * c["samp"] / ts, 100 * c["inst"] / ti,
                                               " ".join("%s %.0f%%" % (s[:10], 100 * v / max(c["samp"], 1))
                                                        for v, s in st),
                                               os.path.basename(f), n, quote(f, n)))
    if a.part:
        parts = []
        for p in a.part:
            name, rng = p.split("=", 1)
            f, r = rng.rsplit(":", 1)
            lo, hi = (int(x) for x in r.split("-"))
            parts.append((name, f, lo, hi))
        g, gi = collections.Counter(), collections.Counter()
        for ln, c in agg.items():
            f, n = ln if ln else ("?", 0)
            name = next((p[0] for p in parts if f.endswith(p[1]) and p[2] <= n <= p[3]), "other")
            g[name] += c["samp"]
            gi[name] += c["inst"]
        print("by part:")
        for name in sorted(g, key=lambda x: -g[x]):
            print("  %-44s samples %5.1f%%  instructions %5.1f%%" % (name, 100 * g[name] / ts, 100 * gi[name] / ti))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
