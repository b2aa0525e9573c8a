#!/usr/bin/env bash
# stalls.sh - run THERE (the GPU machine, repository root): why the ANS and
# Cascaded decoders stop at 0.35-0.75x nVCOMP (NOTES.md beside this file:
# the ANS step costs ~200 cycles against a ~75-cycle dependency chain, and
# no profile of the staged ANS decoder or of Cascaded v2 exists).  Three parts:
#   1. bench/gpu/dev/ans_dev on TPC-H comments, text and bf16 weights, 1 GiB
#      of 64 KiB chunks each: the library's decoder beside its size-only
#      run (no stores), fewer CTAs an SM (occ-N), a faster table fill, and a
#      clock64() phase profile (every output checked);
#   2. ncu of ans_k_groups (comments, 256 MiB) and cz_k_tiles (partkey.i32
#      and orderkey.i64 as nVCOMP's default layers, 256 MiB) with the warp
#      state and source counters: the SASS lines where warps stall, and why;
#   3. the same for ans_k_encode (text).
#
#   bench/gpu/owncodecs/stalls.sh [BUILD]     (BUILD: a CUDA build of this tree with
#                                              bench/gpu/dev/ans_dev and oc_gpu_bench)
# $OUT: ans-dev-*.txt, ncu-*.txt (details), ncu-*-sass.csv.gz (per SASS line),
# top stall lines on stdout.  ~100 s on an H100.
set -uo pipefail
cd "$(dirname "$0")/../../.."
BUILD=${1:-/tmp/build-gpu}
OUTDIR=${OUT:-/tmp/own-stalls}
mkdir -p "$OUTDIR"
export LD_LIBRARY_PATH=/tmp/oc-prefix/usr/lib/x86_64-linux-gnu:/tmp/oc-site/nvidia/libnvcomp/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ANSDEV=$BUILD/bench/gpu/dev/ans_dev
BENCH=$BUILD/bench/gpu/oc_gpu_bench
C=bench/corpus-sample
ls $C/*.txt >/dev/null 2>&1 || C=bench/corpus-data
mkdir -p /tmp/oc-typed
W=$(ls $C/*.f32 | head -n 1)
BF=/tmp/oc-typed/$(basename "$W" .f32).bf16
[ -f "$BF" ] || python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); o = bytearray(len(b) // 2)
o[0::2] = b[2::4]; o[1::2] = b[3::4]; open(sys.argv[2], "wb").write(o)' "$W" "$BF"
rc=0
echo "== 1. ans_dev (library / sizes-only / occ-N / fill / prof)"
for f in $C/tpch_l_comment.txt $C/text_linux_docs.txt; do
  timeout 60 "$ANSDEV" --reps 5 "$f" >"$OUTDIR/ans-dev-$(basename "$f").txt" 2>&1 || rc=1
  cat "$OUTDIR/ans-dev-$(basename "$f").txt"
done
timeout 60 "$ANSDEV" --reps 5 --dtype bf16 "$BF" >"$OUTDIR/ans-dev-bf16.txt" 2>&1 || rc=1
cat "$OUTDIR/ans-dev-bf16.txt"

SECTIONS="--section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats
  --section SourceCounters --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables
  --section LaunchStats --section InstructionStats"
top() { # name: the per-SASS-line CSV, its top stall lines
  local name=$1
  ncu --import "$OUTDIR/$name.ncu-rep" --page details >"$OUTDIR/ncu-$name.txt" 2>&1
  ncu --import "$OUTDIR/$name.ncu-rep" --page source --csv --print-source sass >"$OUTDIR/ncu-$name-sass.csv" 2>&1
  grep -E "^\s+(Duration|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Warp Cycles Per Issued Instruction|Executed Instructions) " \
    "$OUTDIR/ncu-$name.txt" | sed 's/  */ /g'
  grep -E "represents about" -B2 "$OUTDIR/ncu-$name.txt" | sed 's/  */ /g' | head -n 12
  python3 bench/gpu/owncodecs/stall_lines.py "$OUTDIR/ncu-$name-sass.csv" 28
  gzip -f "$OUTDIR/ncu-$name-sass.csv"
  rm -f "$OUTDIR/$name.ncu-rep"
}
echo "== 2. ncu ans_k_groups (comments, 256 MiB)"
timeout 120 ncu --clock-control none --kernel-name ans_k_groups --launch-count 1 $SECTIONS --import-source no \
  -f -o "$OUTDIR/ans-groups" "$ANSDEV" --mib 256 --reps 1 $C/tpch_l_comment.txt >/dev/null 2>&1 || rc=1
top ans-groups
for spec in "tpch_l_partkey.i32 <i4 i32" "tpch_l_orderkey.i64 <i8 i64"; do
  set -- $spec
  echo "== 2. ncu cz_k_tiles ($1, 256 MiB)"
  timeout 120 ncu --clock-control none --kernel-name cz_k_tiles --launch-skip 1 --launch-count 1 $SECTIONS \
    -f -o "$OUTDIR/cz-tiles-$3" "$BENCH" --codecs cascaded --data-type "$2" --chunks 64K --sizes 256M --stock none \
    --contenders opencomp --max-repeats 2 $C/$1 >/dev/null 2>&1 || rc=1
  top cz-tiles-$3
done
echo "== 3. ncu ans_k_encode (text, 256 MiB)"
timeout 100 ncu --clock-control none --kernel-name ans_k_encode --launch-count 1 $SECTIONS \
  -f -o "$OUTDIR/ans-encode" "$ANSDEV" --mib 256 --reps 1 $C/text_linux_docs.txt >/dev/null 2>&1 || rc=1
top ans-encode
exit $rc
