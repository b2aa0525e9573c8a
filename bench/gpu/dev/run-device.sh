#!/usr/bin/env bash
# run-device.sh - what the lead runs on the GPU machine for the Deflate
# kernels, from the repository root (bench/corpus-data unpacked there, see
# bench/README.md): builds deflate_dev for this GPU, checks it against the
# host build of the cores on damaged input under compute-sanitizer memcheck
# and racecheck, then times decoding at full scale (>= 1 GiB per call) at
# 64 KiB and 1 MiB chunks.  Logs go to $OUT (or /tmp/deflate-out).
set -u
cd "$(dirname "$0")"
OUT=${OUT:-/tmp/deflate-out}
mkdir -p "$OUT"
ARCH=${ARCH:-sm_90}
D=${CORPUS:-../../corpus-data}
make -j8 BUILD=/tmp/deflate-build GENCODE="-arch=$ARCH" all >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
B=/tmp/deflate-build/deflate_dev
T=$D/text_linux_docs.txt
timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 5 $B --damage --quick --reps 0 \
  --algo all "$T" >"$OUT/memcheck.log" 2>&1
echo "memcheck rc $? (0 = clean and GPU == host core)"; tail -n 2 "$OUT/memcheck.log"
timeout 300 compute-sanitizer --tool racecheck --error-exitcode 99 --print-limit 5 $B --damage --quick --reps 0 \
  --algo gzip --max-bytes 1048576 "$T" >"$OUT/racecheck.log" 2>&1
echo "racecheck rc $?"; tail -n 2 "$OUT/racecheck.log"
timeout 600 $B --damage --algo all $D/* >"$OUT/decode-64k.log" 2>&1
echo "decode 64 KiB rc $?"; grep -E "GB/s|checks" "$OUT/decode-64k.log"
timeout 600 $B --chunk 1048576 --algo gzip $D/* >"$OUT/decode-1m.log" 2>&1
echo "decode 1 MiB rc $?"; grep -E "GB/s|checks" "$OUT/decode-1m.log"
