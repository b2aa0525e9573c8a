#!/usr/bin/env bash
# ab-s8.sh - run THERE (the GPU machine, repository root): session 8's A/B of the Cascaded encoder
# in one writing pass (bench/gpu/dev/cz_enc1.h; NOTES.md beside this file, "Session 8"), in the
# two shapes the lead's calls take:
#   check  (may share the GPU) cz_dev --no-decode on 64 MiB of every column (i32, i64, the i32
#          column as u16 and u8), nVCOMP's layers and the automatic choice, and on random bytes
#          (tiles that code larger than raw: the stream guard of cz_enc1): enc1 and enc1-vload
#          must write the library's bytes; memcheck (16 MiB) and racecheck (2 MiB) of the same
#          encoders on i32 and on random bytes, each time-boxed to 150 s.  ~100-150 s.
#   time   alone: cz_dev --no-decode (the library's encoder, enc1, enc1-vload; 1 GiB of 64 KiB
#          chunks, median of 7) on partkey/shipdate.i32, orderkey/sorted_partkey.i64, shipdate
#          as u16, and the automatic layers on partkey.i32 and orderkey.i64; nVCOMP Cascaded's
#          compression beside the library's in the same run (oc_gpu_bench, 1 GiB, partkey.i32 and
#          orderkey.i64); ncu instruction counts of cz_k_encode and cz1_k_encode<1> (partkey.i32,
#          256 MiB).  ~90-120 s.
#   verify (call B, after the one-pass encoder went into the library's core; cz_dev's variant is
#          then `two-pass`, the encoder before, cz_enc0.h) test_cuda_cascaded (GPU bytes = CPU bytes
#          for every layer set, hostile input; time-boxed to 200 s), memcheck and racecheck of it
#          (OC_TEST_SMALL=1) and of cz_dev --no-decode (16 / 2 MiB, i32, i64 and random bytes), all
#          side by side, each sanitizer time-boxed to 150 s; then four cz_dev --no-decode runs of
#          64 MiB (the library and two-pass must write the same bytes).  ~220-240 s.
#   The `time` rows after the landing: the library's encoder, then two-pass (the one before).
#
#   bench/gpu/owncodecs/ab-s8.sh check|time|verify [BUILD]     (BUILD default /tmp/build-gpu)
# $OUT (default /tmp/ab-s8): one log per step; the summary on stdout.
set -uo pipefail
cd "$(dirname "$0")/../../.."
MODE=${1:-time}
B=${2:-/tmp/build-gpu}
O=${OUT:-/tmp/ab-s8}
mkdir -p "$O"
export LD_LIBRARY_PATH=/tmp/oc-prefix/usr/lib/x86_64-linux-gnu:/tmp/oc-site/nvidia/libnvcomp/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S=bench/corpus-sample
ls $S/*.i32 >/dev/null 2>&1 || S=bench/corpus-data
mkdir -p /tmp/oc-typed
RND=/tmp/oc-typed/random.bin
[ -f "$RND" ] || python3 -c 'import random, sys; r = random.Random(11)
open(sys.argv[1], "wb").write(r.randbytes(1 << 23))' "$RND"
CZ=$B/bench/gpu/dev/cz_dev
rc=0
summary() { grep -hE "compress|ratio|FAILED|DIFFERS|all outputs checked|SUMMARY|launch failed|error" "$@" | head -n 12; }
if [ "$MODE" = verify ]; then
  export OC_CORPUS_DIR=$PWD/$S
  CS="timeout 150 compute-sanitizer --error-exitcode 9 --leak-check no"
  ( timeout 200 $B/tests/test_cuda_cascaded >$O/test_cuda_cascaded.txt 2>&1
    echo "test_cuda_cascaded exit $?" >>$O/test_cuda_cascaded.txt ) &
  OC_TEST_SMALL=1 $CS --tool memcheck $B/tests/test_cuda_cascaded >$O/memcheck-test-cascaded.txt 2>&1 &
  OC_TEST_SMALL=1 $CS --tool racecheck $B/tests/test_cuda_cascaded >$O/racecheck-test-cascaded.txt 2>&1 &
  $CS --tool memcheck $CZ --no-decode --mib 16 --reps 1 $S/tpch_l_partkey.i32 >$O/memcheck-enc-i32.txt 2>&1 &
  $CS --tool memcheck $CZ --no-decode --mib 16 --reps 1 --dtype u8 $RND >$O/memcheck-enc-rand.txt 2>&1 &
  $CS --tool racecheck $CZ --no-decode --mib 2 --reps 1 $S/tpch_l_orderkey.i64 >$O/racecheck-enc-i64.txt 2>&1 &
  $CS --tool racecheck $CZ --no-decode --mib 2 --reps 1 --dtype u8 $RND >$O/racecheck-enc-rand.txt 2>&1 &
  wait
  echo "== test_cuda_cascaded"; tail -n 4 $O/test_cuda_cascaded.txt
  grep -q "exit 0" $O/test_cuda_cascaded.txt || rc=1
  for f in memcheck-test-cascaded racecheck-test-cascaded memcheck-enc-i32 memcheck-enc-rand racecheck-enc-i64 \
    racecheck-enc-rand; do
    echo "== $f"; grep -hE "SUMMARY|all outputs checked|FAILED|DIFFERS|Timeout|timed out|passed|failed" $O/$f.txt | head -n 6
    tail -n 2 $O/$f.txt
  done
  n=0
  for a in "tpch_l_partkey.i32" "tpch_l_orderkey.i64 --layers auto" "tpch_l_shipdate.i32 --dtype u16"; do
    set -- $a
    f=$1; shift
    n=$((n + 1))
    timeout 120 $CZ --no-decode --mib 64 --reps 1 "$@" $S/$f >$O/verify-$n.txt 2>&1 || rc=1
    echo "== cz_dev --no-decode --mib 64 $* $f"; summary $O/verify-$n.txt
  done
  timeout 120 $CZ --no-decode --mib 64 --reps 1 --dtype u8 $RND >$O/verify-rand.txt 2>&1 || rc=1
  echo "== cz_dev --no-decode --mib 64 --dtype u8 random bytes"; summary $O/verify-rand.txt
  exit $rc
fi
if [ "$MODE" = check ]; then
  n=0
  for a in "tpch_l_partkey.i32" "tpch_l_orderkey.i64" "sorted_partkey.i64" "tpch_l_shipdate.i32 --dtype u16" \
    "tpch_l_shipdate.i32 --dtype u8" "tpch_l_partkey.i32 --layers auto" "tpch_l_orderkey.i64 --layers auto" \
    "tpch_l_partkey.i32 --layers 3,3" "tpch_l_shipdate.i32 --layers 0,2"; do
    set -- $a
    f=$1; shift
    n=$((n + 1))
    timeout 120 $CZ --no-decode --mib 64 --reps 1 "$@" $S/$f >$O/check-$n.txt 2>&1 || rc=1
    echo "== cz_dev --no-decode --mib 64 $* $f"; summary $O/check-$n.txt
  done
  for a in "--dtype u8" "--dtype u16 --layers 1,0" "--dtype i32 --layers auto"; do
    n=$((n + 1))
    timeout 120 $CZ --no-decode --mib 64 --reps 1 $a $RND >$O/check-$n.txt 2>&1 || rc=1
    echo "== cz_dev --no-decode --mib 64 $a random bytes"; summary $O/check-$n.txt
  done
  CS="timeout 150 compute-sanitizer --error-exitcode 9 --leak-check no"
  $CS --tool memcheck $CZ --no-decode --mib 16 --reps 1 $S/tpch_l_partkey.i32 >$O/memcheck-enc1-i32.txt 2>&1 &
  $CS --tool memcheck $CZ --no-decode --mib 16 --reps 1 --dtype u8 $RND >$O/memcheck-enc1-rand.txt 2>&1 &
  $CS --tool racecheck $CZ --no-decode --mib 2 --reps 1 $S/tpch_l_partkey.i32 >$O/racecheck-enc1-i32.txt 2>&1 &
  $CS --tool racecheck $CZ --no-decode --mib 2 --reps 1 --dtype u8 $RND >$O/racecheck-enc1-rand.txt 2>&1 &
  wait
  for f in memcheck-enc1-i32 memcheck-enc1-rand racecheck-enc1-i32 racecheck-enc1-rand; do
    echo "== $f"; grep -hE "SUMMARY|all outputs checked|FAILED|DIFFERS|Timeout|timed out" $O/$f.txt | head -n 6
    tail -n 2 $O/$f.txt
  done
  exit $rc
fi
echo "== cz_dev --no-decode: compression, the library's encoder vs enc1 (one pass) and enc1-vload (1 GiB)"
for a in "tpch_l_partkey.i32" "tpch_l_shipdate.i32" "tpch_l_orderkey.i64" "sorted_partkey.i64" \
  "tpch_l_shipdate.i32 --dtype u16" "tpch_l_partkey.i32 --layers auto" "tpch_l_orderkey.i64 --layers auto"; do
  set -- $a
  f=$1; shift
  tag=$(echo "$f $*" | tr ' ,' '__')
  timeout 60 $CZ --no-decode --reps 7 "$@" $S/$f >$O/cz-enc-$tag.txt 2>&1 || rc=1
  cat $O/cz-enc-$tag.txt
done
BENCH=$B/bench/gpu/oc_gpu_bench
echo "== nVCOMP Cascaded beside the library (oc_gpu_bench, 1 GiB of 64 KiB chunks, default layers)"
for g in "tpch_l_partkey.i32 <i4" "tpch_l_orderkey.i64 <i8"; do
  read -r f dt <<<"$g"
  timeout 60 $BENCH --codecs cascaded --data-type "$dt" --chunks 64K --sizes 1G --stock none --per-file \
    --budget 15 --json $O/bench-$f.json $S/$f >$O/bench-$f.txt 2>&1 || rc=1
  grep -E "cascaded" $O/bench-$f.txt | head -n 4
done
echo "== ncu: the library's encoder and enc1-vload (partkey.i32, 256 MiB)"
timeout 90 ncu --clock-control none --kernel-name regex:"cz_k_encode|cz1_k_encode" --launch-skip 0 --launch-count 6 \
  --section SchedulerStats --section InstructionStats --section WarpStateStats --section LaunchStats --section SpeedOfLight \
  $CZ --no-decode --mib 256 --reps 1 $S/tpch_l_partkey.i32 >$O/ncu-enc.txt 2>&1 || rc=1
grep -E "^  [a-z_0-9<>]*(cz_k_encode|cz1_k_encode)|^\s+(Duration|Issued Warp Per Scheduler|Executed Instructions|Registers Per Thread|Achieved Active Warps Per SM) " \
  $O/ncu-enc.txt | sed 's/  */ /g' | cut -c1-110
exit $rc
