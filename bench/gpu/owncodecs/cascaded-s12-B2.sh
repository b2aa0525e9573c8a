#!/usr/bin/env bash
# cascaded.sh - helper "cascaded" (issue 18), session 12 call B2: one H200, <= 150 s, build included.
# Since call B (pair lost: 0.72-0.76x, its spills miss L1 and go to L2/DRAM; the library's own loop spills
# 200 bytes too): the library's tile loop is now `lean` (warp 0 alone locates each tile and passes it through
# shared memory: 44 bytes of spills instead of 200); cz_dev `single` is the loop before it.  Predicted: lean
# 1.05-1.15x single on the i64 columns, 1.0-1.08x on the i32; lean-pair 1.0-1.2x, lean-pair-2cta 1.1-1.25x.
#  1. correctness of the library: OC_TEST_SMALL=1 test_cuda_cascaded;
#  2. cz_dev A/B (1 GiB, median of 5, every output + 4096 damaged chunks checked): library (lean) vs single,
#     lean-pair, lean-pair-2cta, lean-onestage (one stage, 4 CTAs an SM) on the i64 columns, vs single and
#     lean-onestage on the i32 columns;
#  3. ours (lean) vs nVCOMP in the same run (oc_gpu_bench, 1 GiB, 4 columns);
#  4. ncu of nVCOMP's decompress kernels (the first three launches, orderkey 256 MiB) and of the library;
#  5. sanitizers side by side on what is left: memcheck of test_cuda_cascaded --race, racecheck --race 1.
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
left() { echo $((146 - $(el))); }
if ! type oc_cmake >/dev/null 2>&1; then
  export PATH=/usr/local/cuda/bin:$PATH LIBDIR=${PREFIX:-/tmp/oc-prefix}/usr/lib/x86_64-linux-gnu
  oc_cmake() {
    local b=$1; shift
    cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOC_WITH_CUDA=ON -DOC_CUDA_ARCHS=90 \
      -DOC_BUILD_TESTS=ON -DOC_BUILD_CLI=ON -DOC_BUILD_SHARED=OFF -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
      -DCMAKE_INCLUDE_PATH="$PREFIX/usr/include" -DCMAKE_LIBRARY_PATH="$LIBDIR" ${NVROOT:+-DOC_NVCOMP_ROOT=$NVROOT} "$@"
  }
  oc_build() { local b=$1; shift; cmake --build "$b" -j 16 --target "$@"; }
fi
RES=${RES:-/tmp/cascaded-res}
mkdir -p "$RES"
C=${CORPUS:-$PWD/bench/corpus-sample}
B=/tmp/b-cascaded
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
export OC_CORPUS_DIR=$C # test_cuda_cascaded reads the real columns from there
step() { # name timeout cmd...: runs, logs to $RES/name.txt, prints rc
  local name=$1 to=$2; shift 2
  local l; l=$(left)
  if [ "$l" -lt 5 ]; then echo "SKIP $name (no time: $(el) s)"; return 0; fi
  [ "$to" -gt "$l" ] && to=$l
  echo "== $name ($(el) s): $*"
  timeout "$to" "$@" >"$RES/$name.txt" 2>&1
  local rc=$?
  echo "   rc $rc ($(el) s)"
  return $rc
}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
git log --oneline -1 2>/dev/null
oc_cmake $B -DOC_BUILD_PYTHON=OFF >"$RES/cmake.txt" 2>&1
echo "cmake rc $? ($(el) s)"
oc_build $B cz_dev oc_gpu_bench test_cuda_cascaded >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
grep -iE "error" "$RES/build.txt" | head -n 20
CZ=$B/bench/gpu/dev/cz_dev BENCH=$B/bench/gpu/oc_gpu_bench TEST=$B/tests/test_cuda_cascaded
PK=$C/tpch_l_partkey.i32 SD=$C/tpch_l_shipdate.i32 OK=$C/tpch_l_orderkey.i64 SP=$C/sorted_partkey.i64
SEC="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats"
KEYS="Duration|DRAM Throughput|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Theoretical Active Warps per SM|Registers Per Thread|Warp Cycles Per Issued Instruction|Executed Instructions|Grid Size|Block Size|Dynamic Shared Memory Per Block|Static Shared Memory Per Block|Eligible Warps Per Scheduler"
summ() { # ncu text file: the key metrics of each profiled kernel
  grep -E "^  [a-z_0-9]+.*\(|^\s+($KEYS) " "$1" | sed 's/  */ /g' | cut -c1-150
}

# ---- 1. the library (lean loop): GPU = CPU bytes, hostile statuses
OC_TEST_SMALL=1 step test-small 30 $TEST
grep -hE "FAIL|differ|passed|failed" "$RES/test-small.txt" | head -n 8
tail -n 1 "$RES/test-small.txt"

# ---- 2. A/B: library (lean) vs single (the loop before) and the pair loops
for f in $OK $SP; do
  n=$(basename $f)
  step time-$n 17 $CZ --reps 5 --only single,lean-pair,lean-pair-2cta,lean-onestage $f
  grep -hE "GB/s|DIFFER|FAIL|checked|same statuses" "$RES/time-$n.txt" | grep -v compress | head -n 8
done
for f in $SD $PK; do
  n=$(basename $f)
  step time-$n 12 $CZ --reps 5 --only single,lean-onestage $f
  grep -hE "GB/s|DIFFER|FAIL|checked|same statuses" "$RES/time-$n.txt" | grep -v compress | head -n 6
done

# ---- 3. ours vs nVCOMP in this run, 1 GiB of 64 KiB chunks, default layers
nv() { # name dtype files...
  local name=$1 dt=$2; shift 2
  step $name 14 $BENCH --codecs cascaded --data-type "$dt" --chunks 64K --sizes 1G --stock none --per-file \
    --budget 6 --max-repeats 3 --json $RES/$name.json "$@"
  grep -hE "opencomp-gpu|nvcomp-gpu" $RES/$name.txt | sed 's/  */ /g' | head -n 4
}
nv nv-i64 "<i8" $OK $SP
nv nv-i32 "<i4" $PK $SD

# ---- 4. ncu: nVCOMP's decompress launches (the size pass came first in call B), the library on orderkey
step ncu-nv 24 ncu --clock-control none -k regex:decompress_kernel -c 3 $SEC $BENCH --codecs cascaded \
  --data-type "<i8" --chunks 64K --sizes 256M --stock none --contenders nvcomp --max-repeats 1 --budget 2 $OK
summ $RES/ncu-nv.txt
step ncu-lib-ok 14 ncu --clock-control none -k regex:cz_k_tiles -c 1 $SEC --section InstructionStats $CZ --mib 256 --reps 0 --only none $OK
summ $RES/ncu-lib-ok.txt

# ---- 5. sanitizers side by side on what is left
l=$(left); to=$((l - 2))
if [ "$to" -ge 10 ]; then
  echo "== sanitizers, $to s each ($(el) s)"
  timeout $to compute-sanitizer --error-exitcode 9 --leak-check no --tool memcheck $TEST --race >$RES/memcheck-test.txt 2>&1 &
  timeout $to compute-sanitizer --error-exitcode 9 --tool racecheck $TEST --race 1 >$RES/racecheck-test1.txt 2>&1 &
  wait
  for f in memcheck-test racecheck-test1; do
    echo "-- $f: $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $RES/$f.txt | head -n 1) | $(grep -hcE "FAIL" $RES/$f.txt) fail lines | $(tail -n 1 $RES/$f.txt | cut -c1-90)"
  done
fi
echo "done ($(el) s)"
