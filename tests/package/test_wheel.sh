#!/usr/bin/env bash
# test_wheel.sh [WHEEL] - the portable wheel (scripts/build-wheel, issue 19)
# installs and works in a fresh virtual environment that sees none of this
# machine's build set-up.  Without WHEEL it builds one first with
# `scripts/build-wheel --cpu-only` (about 2 minutes on 2 cores); pass the
# CUDA wheel to test that one (the CPU engine serves where no GPU is).
#
# Guards:
#   - the wheel's tag is manylinux_2_N_x86_64 with N no higher than this
#     machine's glibc, and auditwheel agrees (`auditwheel show`);
#   - the extension inside names no compression library among its NEEDED
#     entries (liblz4, libzstd, libsnappy, libdeflate, libblosc, zlib are
#     linked in), and after a round trip of every algorithm none of those
#     libraries is mapped into the process (/proc/self/maps): the wheel
#     works without Debian's packages;
#   - in a venv without system site-packages, installed with --no-index,
#     run with an environment emptied of LD_LIBRARY_PATH, PYTHONPATH and
#     the rest: LZ4, Snappy, Deflate, Zlib, Gzip, Zstd, GDeflate, Cascaded,
#     ANS, Bitcomp and Blosc (each of its inner compressors, which run in
#     libblosc) round-trip real data on the CPU engine, RAW and in the
#     container, which also decodes with the algorithm read from it; where
#     a GPU answers (the CUDA wheel on a GPU machine), LZ4, Snappy, Deflate
#     and Zstd also round-trip from device memory and the CPU decodes the
#     GPU's streams.
# Not in `make check` (building a wheel there would double the Python
# build): scripts/run-tests package runs it; CI runs build-wheel --check.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

wheel=${1:-}
if [ -z "$wheel" ]; then
  t0=$SECONDS
  "$src/scripts/build-wheel" --cpu-only --out "$tmp/dist" >"$tmp/build.log" 2>&1 ||
    { tail -n 40 "$tmp/build.log"; fail "scripts/build-wheel --cpu-only"; }
  wheel=$(tail -n 1 "$tmp/build.log")
  echo "built $(basename "$wheel") in $((SECONDS - t0)) s"
fi
[ -f "$wheel" ] || fail "no wheel at '$wheel'"
name=$(basename "$wheel")

# ---- the tag ------------------------------------------------------------------
glibc=$(getconf GNU_LIBC_VERSION | sed 's/^glibc //')
tag_minor=$(echo "$name" | sed -n 's/.*manylinux_2_\([0-9]*\)_x86_64\.whl$/\1/p')
[ -n "$tag_minor" ] || fail "$name is not tagged manylinux_2_N_x86_64"
[ "$tag_minor" -le "${glibc#2.}" ] || fail "$name needs glibc 2.$tag_minor, this machine has $glibc"
tools=${OC_WHEEL_TOOLS:-/tmp/opencomp-wheel-tools}
if [ -x "$tools/bin/auditwheel" ]; then
  PATH=$tools/bin:$PATH auditwheel show "$wheel" >"$tmp/show.txt" 2>&1 || { cat "$tmp/show.txt"; fail "auditwheel show"; }
  grep -q "manylinux_2_${tag_minor}_x86_64" "$tmp/show.txt" || { cat "$tmp/show.txt"; fail "auditwheel does not find the tag"; }
fi

# ---- the extension's NEEDED entries ---------------------------------------------
"$PY" -m zipfile -e "$wheel" "$tmp/unpacked"
ext=$(ls "$tmp"/unpacked/opencomp/_opencomp*.so)
needed=$(readelf -d "$ext" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
# (libblosc excepted: Debian's archive is not position-independent, so the
# wheel carries the shared library, renamed by auditwheel)
if grep -E '^lib(lz4|zstd|snappy|deflate|z)[.-]' <<<"$needed"; then
  fail "the extension needs a compression library at run time: not linked statically"
fi
grep -q '^libblosc' <<<"$needed" || fail "the extension does not name the bundled libblosc"

# ---- a fresh venv, an empty environment -----------------------------------------
"$PY" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --no-deps "$wheel" ||
  fail "pip install $name"
cat >"$tmp/check.py" <<'PYEOF'
import os, re, sys
import opencomp as oc

here = os.path.realpath(os.path.dirname(oc.__file__))
assert not here.startswith(sys.argv[1]), ("imported from the source tree", here)
data = b""
for path in (sys.argv[1] + "/README.md", oc._opencomp.__file__, sys.argv[1] + "/src/api/buffer.c"):
    with open(path, "rb") as f:
        data += f.read(300000)
data += bytes(range(256)) * 200
assert len(data) > 350000, len(data)

checked = []
for alg in ["LZ4", "Snappy", "Deflate", "Zlib", "Gzip", "Zstd", "GDeflate", "Cascaded", "ANS", "Bitcomp"]:
    # RAW: one chunk of 64 KiB (GDeflate's page); the container: all of it,
    # decoded once more with the algorithm read from the container
    for kind, d in ((oc.BitstreamKind.RAW, data[:65536]), (oc.BitstreamKind.NVCOMP_NATIVE, data)):
        codec = oc.Codec(algorithm=alg, bitstream_kind=kind)
        comp = codec.encode(d)
        assert bytes(codec.decode(comp)) == d, (alg, kind)
        if kind == oc.BitstreamKind.NVCOMP_NATIVE:
            assert bytes(oc.Codec().decode(comp)) == d, alg
        checked.append("%s/%s" % (alg, kind.name))
for cname in ["lz4", "blosclz", "lz4hc", "snappy", "zlib", "zstd"]:
    codec = oc.Codec(algorithm="Blosc", bitstream_kind=oc.BitstreamKind.RAW, cname=cname)  # Blosc has no container
    comp = codec.encode(data)
    assert len(bytes(comp)) < len(data), cname
    assert bytes(codec.decode(comp)) == data, cname
    checked.append("Blosc/" + cname)

# With a GPU (a CUDA wheel on a GPU machine): the GPU engine writes and reads
# the same bytes, from device memory.
gpu = oc.algorithms("cuda") if oc.cuda_available() else []
for alg in [a for a in ("LZ4", "Snappy", "Deflate", "Zstd") if a in gpu]:
    codec = oc.Codec(algorithm=alg)
    comp = codec.encode(oc.as_array(data).cuda())
    assert bytes(codec.decode(comp).cpu()) == data, alg + " on the GPU"
    assert bytes(codec.decode(bytes(comp.cpu()))) == data, alg + ": the CPU reads the GPU's stream"
    checked.append(alg + "/GPU")

# No compression library of the system is loaded: they are inside the
# extension, or (libblosc and what it needs) in the wheel's opencomp.libs.
# zlib is a system library every manylinux policy allows (and Python's own).
libs = os.path.realpath(os.path.join(here, "..", "opencomp.libs"))
with open("/proc/self/maps") as f:
    mapped = {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}
for path in sorted(mapped):
    name = os.path.basename(path)
    if re.match(r"lib(lz4|zstd|snappy|deflate|blosc)[.-]", name):
        assert os.path.realpath(path).startswith(libs + os.sep), path + " is loaded from outside the wheel"
print("wheel ok: %d round trips (%s); %s" % (len(checked), ", ".join(checked), oc.build_info()))
PYEOF
env -i HOME="$tmp" PATH=/usr/bin:/bin LANG=C.UTF-8 "$tmp/venv/bin/python" -I "$tmp/check.py" "$src" ||
  fail "round trips in the fresh venv"
echo "1 passed, 0 failed"
