"""corpuslib - shared pieces of the benchmark corpus builder (bench/corpus) and
of the pack expander that runs on the GPU machine (bench/unpack).

Why a module: the TPC-H columns and the sorted column are rebuilt on the GPU
machine from the carried tpchgen-cli binary instead of being carried (their
xz size alone would exceed the carry budget), so the code that turns
lineitem.tbl into raw little-endian columns must be byte-for-byte the same on
both machines.  Pure standard library: the GPU machine has no network and
maybe no numpy.
"""

import array
import datetime
import hashlib
import os
import subprocess
import sys

MIB = 1 << 20

# Everything pinned.  Changing a pin changes the bytes: rerun
# `bench/corpus --write-manifest` and update bench/CORPUS.md in one commit.
TPCHGEN_PIN = "tpchgen-cli==4.0.0"
TPCH_SCALE = "1"  # 6,001,215 lineitem rows
COMMENT_CAP = 16 * MIB  # l_comment: whole strings only, up to this many bytes
SORTED_VALUES = 2 * MIB  # sorted column: this many int64 values (16 MiB)

# Files rebuilt from tpchgen-cli (here and on the GPU machine).
TPCH_FILES = [
    "tpch_l_orderkey.i64",
    "tpch_l_partkey.i32",
    "tpch_l_quantity.f64",
    "tpch_l_extendedprice.f64",
    "tpch_l_shipdate.i32",
    "tpch_l_comment.txt",
    "sorted_partkey.i64",
]

_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()


# The sample pack (bench/pack --sample MIB): from each corpus file, MIB
# slices of SAMPLE_SLICE bytes spread evenly from its start to its end (a file
# no longer than the sample is taken whole), so the sample keeps every kind of
# data at a fraction of the carry.  The full-scale GPU benchmark repeats it to
# reach its batch sizes (bench/README.md, "Full scale").
SAMPLE_SLICE = MIB


def sample_slices(size, mib):
    """[(offset, length)] of the sample of a file of `size` bytes: `mib`
    slices of SAMPLE_SLICE bytes, the k-th at k/(mib-1) of the way from the
    start to the last slice position, rounded down to 4 KiB (so fixed-width
    columns keep their alignment)."""
    if mib < 1:
        raise ValueError("a sample needs at least one slice")
    if size <= mib * SAMPLE_SLICE:
        return [(0, size)]
    if mib == 1:
        return [(0, SAMPLE_SLICE)]
    last = size - SAMPLE_SLICE
    return [((k * last // (mib - 1)) // 4096 * 4096, SAMPLE_SLICE) for k in range(mib)]


def write_sample(src, dst, mib):
    """Write the sample of file src to dst; returns its sha256."""
    size = os.path.getsize(src)
    h = hashlib.sha256()
    with open(src, "rb") as fi, open(dst + ".tmp", "wb") as fo:
        for off, length in sample_slices(size, mib):
            fi.seek(off)
            b = fi.read(length)
            h.update(b)
            fo.write(b)
    os.replace(dst + ".tmp", dst)
    return h.hexdigest()


def log(msg):
    print("corpus: " + msg, file=sys.stderr, flush=True)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(4 * MIB)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def read_manifest(path):
    """Return {name: sha256} from a `sha256sum`-style file ('' if absent)."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            digest, name = line.split(None, 1)
            out[name.lstrip("*")] = digest
    return out


def write_atomic(path, chunks):
    """Write an iterable of bytes-like objects to path via a temp file + rename,
    so an interrupted build never leaves a file that looks finished."""
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        for c in chunks:
            f.write(c)
    os.replace(tmp, path)


def _le(arr):
    """Bytes of an array.array in little-endian order whatever the host."""
    if sys.byteorder != "little":
        arr = array.array(arr.typecode, arr)
        arr.byteswap()
    return arr.tobytes()


def run_tpchgen(binary, workdir):
    """Run tpchgen-cli for lineitem at TPCH_SCALE in TBL format; returns the
    path of lineitem.tbl (about 760 MB, deleted by the caller)."""
    os.makedirs(workdir, exist_ok=True)
    tbl = os.path.join(workdir, "lineitem.tbl")
    if os.path.exists(tbl):
        os.remove(tbl)
    subprocess.run([binary, "tbl", "-s", TPCH_SCALE, "-T", "lineitem", "-o", workdir, "-q"], check=True)
    return tbl


def tbl_to_columns(tbl, outdir):
    """Turn lineitem.tbl into the raw columns of TPCH_FILES, the way nvCOMP's
    benchmarks feed TPC-H to a codec: one column per file, little-endian,
    no header.

    l_orderkey int64, l_partkey int32, l_quantity float64,
    l_extendedprice float64 (parsed from the decimal text, correctly rounded),
    l_shipdate int32 days since 1970-01-01, l_comment: the strings each
    followed by '\\n' (comments never contain '\\n' or '|'), whole strings
    only, up to COMMENT_CAP bytes, in row order.  sorted_partkey.i64:
    l_partkey of every row sorted ascending as int64, first SORTED_VALUES
    values (each key repeats ~30 times: the shape of nvCOMP's Mortgage
    column 0, a sorted loan id)."""
    orderkey = array.array("q")
    partkey = array.array("i")
    quantity = array.array("d")
    price = array.array("d")
    shipdate = array.array("i")
    comments = []
    comment_bytes = 0
    comment_full = False
    dates = {}
    with open(tbl, "rb") as f:
        for line in f:
            c = line.split(b"|")
            orderkey.append(int(c[0]))
            partkey.append(int(c[1]))
            quantity.append(float(c[4]))
            price.append(float(c[5]))
            d = dates.get(c[10])
            if d is None:
                y, m, dd = c[10].split(b"-")
                d = datetime.date(int(y), int(m), int(dd)).toordinal() - _EPOCH_ORDINAL
                dates[c[10]] = d
            shipdate.append(d)
            if not comment_full:
                s = c[15] + b"\n"
                if comment_bytes + len(s) > COMMENT_CAP:
                    comment_full = True
                else:
                    comments.append(s)
                    comment_bytes += len(s)
    outs = {
        "tpch_l_orderkey.i64": [_le(orderkey)],
        "tpch_l_partkey.i32": [_le(partkey)],
        "tpch_l_quantity.f64": [_le(quantity)],
        "tpch_l_extendedprice.f64": [_le(price)],
        "tpch_l_shipdate.i32": [_le(shipdate)],
        "tpch_l_comment.txt": comments,
    }
    sorted_keys = array.array("q", sorted(partkey)[:SORTED_VALUES])
    outs["sorted_partkey.i64"] = [_le(sorted_keys)]
    for name, chunks in outs.items():
        write_atomic(os.path.join(outdir, name), chunks)
    return len(orderkey)


def build_tpch(binary, outdir, workdir):
    tbl = run_tpchgen(binary, workdir)
    try:
        rows = tbl_to_columns(tbl, outdir)
    finally:
        os.remove(tbl)
    log("tpch: %d lineitem rows" % rows)


def verify(outdir, manifest, names=None):
    """Check files against the manifest; returns a list of problems."""
    bad = []
    for name, digest in sorted(manifest.items()):
        if names is not None and name not in names:
            continue
        p = os.path.join(outdir, name)
        if not os.path.exists(p):
            bad.append("%s: missing" % name)
        elif sha256_file(p) != digest:
            bad.append("%s: sha256 mismatch" % name)
    return bad
