#!/usr/bin/env python3
"""bench/test_corpuslib.py - self-test of bench/corpuslib.py, runnable with plain
`python3 bench/test_corpuslib.py` (no pytest, no download), exit 0 = pass.

Guards the byte layout of the TPC-H columns (the part of the corpus that is
rebuilt on the GPU machine and must match bench/corpus.sha256 there): int64 /
int32 / float64 little-endian, ship dates as days since 1970-01-01, comments
newline-terminated and cut only between whole strings, the sorted column; and
that the manifest check reports a changed or missing file.  Input: the first
rows of TPC-H SF1 lineitem as dbgen (and tpchgen-cli) print them.
"""

import datetime
import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import corpuslib as cl  # noqa: E402

ROWS = b"""1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|
1|67310|7311|2|36|45983.16|0.09|0.06|N|O|1996-04-12|1996-02-28|1996-04-20|TAKE BACK RETURN|MAIL|ly final dependencies: slyly bold |
1|63700|3701|3|8|13309.60|0.10|0.02|N|O|1996-01-29|1996-03-05|1996-01-31|TAKE BACK RETURN|REG AIR|riously. regular, express dep|
1|2132|4633|4|28|28955.64|0.09|0.06|N|O|1996-04-21|1996-03-30|1996-05-16|NONE|AIR|lites. fluffily even de|
"""

CHECKS = [0]
FAILS = []


def check(cond, what):
    CHECKS[0] += 1
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what)


def read(d, name):
    with open(os.path.join(d, name), "rb") as f:
        return f.read()


def main():
    with tempfile.TemporaryDirectory() as d:
        tbl = os.path.join(d, "lineitem.tbl")
        with open(tbl, "wb") as f:
            f.write(ROWS)
        # room for the first two comments only: the third must not be cut in half
        cl.COMMENT_CAP = len(b"egular courts above the\n") + len(b"ly final dependencies: slyly bold \n") + 5
        cl.SORTED_VALUES = 3
        n = cl.tbl_to_columns(tbl, d)
        check(n == 4, "4 rows read (%d)" % n)
        check(read(d, "tpch_l_orderkey.i64") == struct.pack("<4q", 1, 1, 1, 1), "l_orderkey int64 LE")
        check(read(d, "tpch_l_partkey.i32") == struct.pack("<4i", 155190, 67310, 63700, 2132), "l_partkey int32 LE")
        check(read(d, "tpch_l_quantity.f64") == struct.pack("<4d", 17.0, 36.0, 8.0, 28.0), "l_quantity float64 LE")
        check(read(d, "tpch_l_extendedprice.f64") == struct.pack("<4d", 21168.23, 45983.16, 13309.60, 28955.64),
              "l_extendedprice float64 LE, correctly rounded from the decimal text")
        days = [(datetime.date(1996, m, dd) - datetime.date(1970, 1, 1)).days
                for m, dd in ((3, 13), (4, 12), (1, 29), (4, 21))]
        check(days[0] == 9568, "1996-03-13 is day 9568")
        check(read(d, "tpch_l_shipdate.i32") == struct.pack("<4i", *days), "l_shipdate int32 days since epoch")
        check(read(d, "tpch_l_comment.txt") == b"egular courts above the\nly final dependencies: slyly bold \n",
              "l_comment: whole strings, newline-terminated, trailing space kept, cut before the cap")
        check(read(d, "sorted_partkey.i64") == struct.pack("<3q", 2132, 63700, 67310), "sorted column: first 3, int64")

        # manifest: write, verify clean, then detect a flipped byte and a missing file
        names = ["tpch_l_orderkey.i64", "tpch_l_partkey.i32"]
        man = os.path.join(d, "m.sha256")
        with open(man, "w") as f:
            f.write("# comment line\n")
            for nm in names:
                f.write("%s  %s\n" % (cl.sha256_file(os.path.join(d, nm)), nm))
        m = cl.read_manifest(man)
        check(sorted(m) == sorted(names), "manifest read back")
        check(cl.verify(d, m) == [], "clean files verify")
        p = os.path.join(d, names[1])
        b = bytearray(read(d, names[1]))
        b[5] ^= 1
        with open(p, "wb") as f:
            f.write(b)
        os.remove(os.path.join(d, names[0]))
        bad = cl.verify(d, m)
        check(bad == ["%s: missing" % names[0], "%s: sha256 mismatch" % names[1]], "mismatch and missing found (%r)" % bad)
        check(cl.verify(d, m, {names[1]}) == ["%s: sha256 mismatch" % names[1]], "verify restricted to names")

        # write_atomic leaves no temporary behind
        cl.write_atomic(os.path.join(d, "x.bin"), [b"ab", bytearray(b"cd")])
        check(read(d, "x.bin") == b"abcd" and not os.path.exists(os.path.join(d, "x.bin.tmp")), "write_atomic")
    # the sample pack's slices: evenly spread, 4 KiB aligned, the whole file when short
    sl = cl.sample_slices(100 * cl.MIB + 12345, 8)
    check(len(sl) == 8 and sl[0][0] == 0 and all(o % 4096 == 0 and n == cl.MIB for o, n in sl), "8 aligned slices")
    check(sl[-1][0] + cl.MIB <= 100 * cl.MIB + 12345 and sl[-1][0] > 99 * cl.MIB - 4096, "the last slice ends the file")
    check(all(b[0] - a[0] > 13 * cl.MIB for a, b in zip(sl, sl[1:])), "slices spread evenly")
    check(cl.sample_slices(5 * cl.MIB, 8) == [(0, 5 * cl.MIB)], "a short file is taken whole")
    check(cl.sample_slices(9 * cl.MIB, 1) == [(0, cl.MIB)], "one slice: the start")
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "f"), os.path.join(d, "s")
        data = bytes(range(256)) * (12 * 4096)  # 12 MiB
        with open(src, "wb") as f:
            f.write(data)
        digest = cl.write_sample(src, dst, 2)
        want = data[: cl.MIB] + data[11 * cl.MIB:]
        check(read(d, "s") == want and digest == __import__("hashlib").sha256(want).hexdigest(), "write_sample")
    print("%d passed, %d failed" % (CHECKS[0] - len(FAILS), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
