#!/usr/bin/env bash
# ab-s7.sh - run THERE (the GPU machine, repository root): the session-7 checks and A/B rows of
# the typed codecs (issue 18; NOTES.md beside this file, "Session 7"), in the two shapes the
# lead's calls take:
#   check  tests and sanitizers (may share the GPU): test_cuda_ans (the ring fallback),
#          test_cuda_bitcomp and test_cuda_cascaded (w-byte element loads and stores, redux
#          reductions in the encoders: the CPU's bytes), memcheck of test_cuda_ans,
#          test_cuda_bitcomp and test_cuda_cascaded (OC_TEST_SMALL) and of cz_dev (Cascaded v3
#          and v2, 16 MiB, i32 and i64, damaged chunks included), racecheck of test_cuda_cascaded
#          (OC_TEST_SMALL=2), of cz_dev and of ans_dev's library decoder on 2 MiB of bytes of
#          96 equally likely values (every group's second tile takes the ring); the tests and the
#          sanitizers run side by side (the tests' printed GB/s mean nothing then), each
#          sanitizer time-boxed to 150 s.  ~150 s.
#   time   alone: cz_dev (the library's decoder, v3 since call A, vs v2) on the four
#          TPC-H/sorted columns; ans_dev library vs no-ringfb on text, comments, bf16,
#          96-value bytes; bc_dev (Bitcomp compress at 3 and 2 CTAs an SM, decompress; 1 GiB)
#          on orderkey.i64, partkey.i32, quantity.f64 and bf16 weights; ncu of cz_k_tiles
#          (partkey.i32) with its top stall lines, and bc_k_encode's instruction count
#          (orderkey.i64; before this session 1.10 G for 256 MiB).  ~120-150 s.
#
#   bench/gpu/owncodecs/ab-s7.sh check|time [BUILD]     (BUILD default /tmp/build-gpu)
# $OUT (default /tmp/ab-s7): one log per step; the summary on stdout.
set -uo pipefail
cd "$(dirname "$0")/../../.."
MODE=${1:-time}
B=${2:-/tmp/build-gpu}
O=${OUT:-/tmp/ab-s7}
mkdir -p "$O"
export LD_LIBRARY_PATH=/tmp/oc-prefix/usr/lib/x86_64-linux-gnu:/tmp/oc-site/nvidia/libnvcomp/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S=bench/corpus-sample
ls $S/*.i32 >/dev/null 2>&1 || S=bench/corpus-data
mkdir -p /tmp/oc-typed
W=$(ls $S/*.f32 | head -n 1)
BF=/tmp/oc-typed/$(basename "$W" .f32).bf16
[ -f "$BF" ] || python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); o = bytearray(len(b) // 2)
o[0::2] = b[2::4]; o[1::2] = b[3::4]; open(sys.argv[2], "wb").write(o)' "$W" "$BF"
U96=/tmp/oc-typed/u96.bin
[ -f "$U96" ] || python3 -c 'import random, sys; r = random.Random(7)
open(sys.argv[1], "wb").write(bytes(32 + r.randrange(96) for _ in range(1 << 22)))' "$U96"
rc=0
if [ "$MODE" = check ]; then
  export OC_CORPUS_DIR=$PWD/$S
  for t in ans bitcomp cascaded; do
    ( timeout 200 $B/tests/test_cuda_$t >$O/test_cuda_$t.txt 2>&1; echo "test_cuda_$t exit $?" >>$O/test_cuda_$t.txt ) &
  done
  CS="timeout 150 compute-sanitizer --error-exitcode 9 --leak-check no"
  OC_TEST_SMALL=1 $CS --tool memcheck $B/tests/test_cuda_ans >$O/memcheck-ans.txt 2>&1 &
  OC_TEST_SMALL=1 $CS --tool memcheck $B/tests/test_cuda_bitcomp >$O/memcheck-bitcomp.txt 2>&1 &
  OC_TEST_SMALL=1 $CS --tool memcheck $B/tests/test_cuda_cascaded >$O/memcheck-cascaded.txt 2>&1 &
  OC_TEST_SMALL=2 $CS --tool racecheck $B/tests/test_cuda_cascaded >$O/racecheck-cascaded.txt 2>&1 &
  $CS --tool memcheck $B/bench/gpu/dev/cz_dev --mib 16 --reps 1 $S/tpch_l_partkey.i32 >$O/memcheck-cz-i32.txt 2>&1 &
  $CS --tool memcheck $B/bench/gpu/dev/cz_dev --mib 16 --reps 1 $S/tpch_l_orderkey.i64 >$O/memcheck-cz-i64.txt 2>&1 &
  $CS --tool racecheck $B/bench/gpu/dev/cz_dev --mib 2 --reps 1 $S/tpch_l_partkey.i32 >$O/racecheck-cz-i32.txt 2>&1 &
  $CS --tool racecheck $B/bench/gpu/dev/ans_dev --mib 2 --reps 1 --only library $U96 \
    >$O/racecheck-ans-ring.txt 2>&1 &
  wait
  for t in ans bitcomp cascaded; do echo "== test_cuda_$t"; tail -n 4 $O/test_cuda_$t.txt; done
  for f in memcheck-ans memcheck-bitcomp memcheck-cascaded racecheck-cascaded memcheck-cz-i32 memcheck-cz-i64 racecheck-cz-i32 racecheck-ans-ring; do
    echo "== $f"; grep -hE "SUMMARY|all outputs checked|FAILED|DIFFERS|hostile:|exit|Timeout|timed out" $O/$f.txt | head -n 6
    tail -n 2 $O/$f.txt
  done
  exit 0
fi
echo "== cz_dev: library (v3) vs v2, 1 GiB of 64 KiB chunks, nVCOMP's layers"
for f in tpch_l_partkey.i32 tpch_l_shipdate.i32 tpch_l_orderkey.i64 sorted_partkey.i64; do
  timeout 60 $B/bench/gpu/dev/cz_dev --reps 7 $S/$f >$O/cz-dev-$f.txt 2>&1 || rc=1
  cat $O/cz-dev-$f.txt
done
timeout 60 $B/bench/gpu/dev/cz_dev --reps 7 --dtype u16 $S/tpch_l_shipdate.i32 >$O/cz-dev-u16.txt 2>&1 || rc=1
cat $O/cz-dev-u16.txt # 2-byte elements (32 a thread)
echo "== ans_dev: library (ring fallback) vs no-ringfb"
for f in $S/text_linux_docs.txt $S/tpch_l_comment.txt $U96; do
  timeout 60 $B/bench/gpu/dev/ans_dev --reps 5 --only library,no-ringfb $f >$O/ans-dev-$(basename $f).txt 2>&1 || rc=1
  cat $O/ans-dev-$(basename $f).txt
done
timeout 60 $B/bench/gpu/dev/ans_dev --reps 5 --dtype bf16 --only library,no-ringfb $BF >$O/ans-dev-bf16.txt 2>&1 || rc=1
cat $O/ans-dev-bf16.txt
echo "== bc_dev: Bitcomp compress (library: 3 CTAs an SM since call A; the same encoder at 2) and decompress"
for f in $S/tpch_l_orderkey.i64 $S/tpch_l_partkey.i32 $S/tpch_l_quantity.f64 $BF; do
  timeout 60 $B/bench/gpu/dev/bc_dev --reps 5 $f >$O/bc-dev-$(basename $f).txt 2>&1 || rc=1
  cat $O/bc-dev-$(basename $f).txt
done
BENCH=$B/bench/gpu/oc_gpu_bench
SECTIONS="--section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats
  --section SourceCounters --section LaunchStats --section InstructionStats"
echo "== ncu cz_k_tiles (the library's v3; partkey.i32, 256 MiB)"
timeout 90 ncu --clock-control none --kernel-name cz_k_tiles --launch-count 1 $SECTIONS --import-source no \
  -f -o $O/cz3 $B/bench/gpu/dev/cz_dev --mib 256 --reps 1 $S/tpch_l_partkey.i32 >/dev/null 2>&1 || rc=1
ncu --import $O/cz3.ncu-rep --page details >$O/ncu-cz3.txt 2>&1
ncu --import $O/cz3.ncu-rep --page source --csv --print-source sass >$O/ncu-cz3-sass.csv 2>&1
grep -E "^\s+(Duration|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Warp Cycles Per Issued Instruction|Executed Instructions|Registers Per Thread) " \
  $O/ncu-cz3.txt | sed 's/  */ /g'
grep -E "represents about" -B2 $O/ncu-cz3.txt | sed 's/  */ /g' | head -n 12
python3 bench/gpu/owncodecs/stall_lines.py $O/ncu-cz3-sass.csv 20
gzip -f $O/ncu-cz3-sass.csv; rm -f $O/cz3.ncu-rep
echo "== ncu bc_k_encode (orderkey.i64, 256 MiB): instructions"
timeout 60 ncu --clock-control none --kernel-name bc_k_encode --launch-count 1 --section SchedulerStats \
  --section InstructionStats --section LaunchStats $BENCH --codecs bitcomp --data-type '<i8' --chunks 64K \
  --sizes 256M --stock none --contenders opencomp --max-repeats 1 $S/tpch_l_orderkey.i64 >$O/ncu-bc-encode.txt 2>&1 || rc=1
grep -E "^\s+(Issued Warp Per Scheduler|Executed Instructions|Registers Per Thread|Duration) " $O/ncu-bc-encode.txt | sed 's/  */ /g'
exit $rc
