#!/usr/bin/env bash
# cascaded.sh - helper "cascaded" (issue 18), session 12 call B: one H200, <= 180 s, build included.
# Why: the i64 Cascaded decode rows (orderkey 0.86x, sorted_partkey 0.69x nVCOMP) and the roofline row
# (14-40%) have no profile yet.  Profile first, then one design A/B:
#  1. ncu --set full + source of the library's cz_k_tiles on orderkey.i64 (256 MiB, cz_dev): time, DRAM,
#     issue rate, occupancy, stall reasons, per-line instructions and stalls (cz_lines.py);
#  2. cz_dev A/B (1 GiB, median of 5, every output + 4096 damaged chunks checked): library vs `pair`
#     (bench/gpu/dev/cz_v7.cuh: a CTA decodes two i64 tiles per round of barriers, 16 elements a thread;
#     predicted 1.15-1.4x) and `pair-2cta` (the same at 2 CTAs an SM, no spills);
#  3. ncu sections of the library and pair on sorted_partkey.i64 and the library on shipdate.i32;
#  4. ncu of nVCOMP's Cascaded decompress kernel (orderkey, sorted_partkey, 256 MiB via oc_gpu_bench);
#  5. ncu of pair on orderkey (sections), memcheck of cz_dev pair (2 MiB orderkey, every chunk damaged).
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
left() { echo $((172 - $(el))); }
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
git log --oneline -2 2>/dev/null
oc_cmake $B -DOC_BUILD_PYTHON=OFF >"$RES/cmake.txt" 2>&1
echo "cmake rc $? ($(el) s)"
oc_build $B cz_dev oc_gpu_bench >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
grep -iE "error" "$RES/build.txt" | head -n 20
CZ=$B/bench/gpu/dev/cz_dev BENCH=$B/bench/gpu/oc_gpu_bench
PK=$C/tpch_l_partkey.i32 SD=$C/tpch_l_shipdate.i32 OK=$C/tpch_l_orderkey.i64 SP=$C/sorted_partkey.i64
SEC="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis"
KEYS="Duration|DRAM Throughput|Memory Throughput|Compute \(SM\) Throughput|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Theoretical Active Warps per SM|Registers Per Thread|Warp Cycles Per Issued Instruction|Executed Instructions|Grid Size|Block Size|Dynamic Shared Memory Per Block|Block Limit (Registers|Shared Mem)|L2 Hit Rate|Eligible Warps Per Scheduler|Stall (Barrier|Long Scoreboard|Short Scoreboard|MIO Throttle|Wait|Not Selected|Math Pipe Throttle|Branch Resolving|LG Throttle|Dispatch Stall|No Instruction|Selected)"
summ() { # ncu text file: the key metrics of each profiled kernel
  grep -E "^  [a-z_0-9]+.*\(|^\s+($KEYS) " "$1" | sed 's/  */ /g' | cut -c1-150
}
PY=bench/gpu/owncodecs/cz_lines.py

# ---- 1. the profile: library cz_k_tiles on orderkey.i64, 256 MiB, full set with source lines
step ncu-lib-ok 45 ncu --clock-control none -k regex:cz_k_tiles -c 1 --set full --import-source yes -f -o $RES/lib-ok \
  $CZ --mib 256 --reps 0 --only none $OK
ncu -i $RES/lib-ok.ncu-rep --page details >$RES/ncu-lib-ok.txt 2>&1
summ $RES/ncu-lib-ok.txt
ncu -i $RES/lib-ok.ncu-rep --page source --csv --print-source sass >$RES/lib-ok-sass.csv 2>/dev/null
ncu -i $RES/lib-ok.ncu-rep --page source --csv --print-source cuda >$RES/lib-ok-cuda.csv 2>/dev/null
python3 bench/gpu/owncodecs/stall_lines.py $RES/lib-ok-sass.csv 20
python3 $PY $RES/lib-ok-cuda.csv 30
ncu -i $RES/lib-ok.ncu-rep --page details --csv >$RES/ncu-lib-ok-details.csv 2>/dev/null
gzip -f $RES/lib-ok-sass.csv $RES/lib-ok-cuda.csv $RES/ncu-lib-ok-details.csv
rm -f $RES/lib-ok.ncu-rep # the text above is what comes back (the archive's limit)

# ---- 2. A/B: library vs pair, 1 GiB, median of 5, checked
for f in $OK $SP; do
  n=$(basename $f)
  step time-$n 16 $CZ --reps 5 --only pair,pair-2cta $f
  grep -hE "GB/s|DIFFER|FAIL|checked|same statuses" "$RES/time-$n.txt" | head -n 8
done

# ---- 3. sections: library + pair on sorted_partkey, library on shipdate
step ncu-sp 25 ncu --clock-control none -k regex:"cz_k_tiles|cz7_k_tiles" -c 2 $SEC $CZ --mib 256 --reps 0 --only pair $SP
summ $RES/ncu-sp.txt
step ncu-sd 18 ncu --clock-control none -k regex:cz_k_tiles -c 1 $SEC $CZ --mib 256 --reps 0 --only none $SD
summ $RES/ncu-sd.txt

# ---- 4. nVCOMP's Cascaded decompress kernel, 256 MiB, nVCOMP's default options
for f in $OK $SP; do
  n=$(basename $f)
  step ncu-nv-$n 22 ncu --clock-control none -k regex:decompress_kernel -c 1 $SEC $BENCH --codecs cascaded \
    --data-type "<i8" --chunks 64K --sizes 256M --stock none --contenders nvcomp --max-repeats 1 --budget 2 $f
  summ $RES/ncu-nv-$n.txt
done

# ---- 4b. ours vs nVCOMP in this run (1 GiB of 64 KiB chunks, default layers), and pair on shipdate (i32: the library's path)
step nv-i64 20 $BENCH --codecs cascaded --data-type "<i8" --chunks 64K --sizes 1G --stock none --per-file \
  --budget 8 --max-repeats 3 --json $RES/nv-i64.json $OK $SP
grep -hE "opencomp-gpu|nvcomp-gpu" $RES/nv-i64.txt | sed 's/  */ /g' | head -n 4
step time-sd 14 $CZ --reps 5 --only pair $SD
grep -hE "GB/s|DIFFER|FAIL|checked|same statuses" "$RES/time-sd.txt" | head -n 6

# ---- 5. pair on orderkey (sections), memcheck of pair
step ncu-pair-ok 18 ncu --clock-control none -k regex:cz7_k_tiles -c 1 $SEC $CZ --mib 256 --reps 0 --only pair $OK
summ $RES/ncu-pair-ok.txt
l=$(left); to=40; [ "$to" -gt "$l" ] && to=$l
if [ "$to" -ge 8 ]; then
  echo "== sanitizers side by side, $to s each ($(el) s)"
  timeout $to compute-sanitizer --error-exitcode 9 --leak-check no --tool memcheck $CZ --small --mib 2 --reps 0 --only pair $OK >$RES/memcheck-ok.txt 2>&1 &
  timeout $to compute-sanitizer --error-exitcode 9 --tool racecheck $CZ --small --mib 1 --reps 0 --only pair $SP >$RES/racecheck-sp.txt 2>&1 &
  wait
  for f in memcheck-ok racecheck-sp; do
    echo "-- $f: $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $RES/$f.txt | head -n 1) | $(grep -hcE "DIFFER|FAIL" $RES/$f.txt) fail lines | $(tail -n 1 $RES/$f.txt | cut -c1-90)"
  done
fi
echo "done ($(el) s)"
