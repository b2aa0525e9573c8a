#!/usr/bin/env bash
# ans-w2-rows.sh - why this exists: the GPU job of helper "ansdec", issue 18, session 12 call B (run as
# /work/wt/gpu-req/ansdec.sh through scripts/device-lanes; one H200, <= 180 s wall, build included).  It
# measures the library's ANS decoder with CTAs of 2 warps for a caller's 16-bit data type (ans_kernels_w2,
# "library-w2" in ans3_dev) against the 4-warp decoder and session 11's win2-16s, the dev variant "lean"
# (the renormalisation's next word without guard or add: bench/gpu/dev/ans_lean_kernels.cuh), and profiles
# the 4-warp decoder on text line by line (bench/gpu/owncodecs/NOTES.md, "Session 12 (helper ansdec)"):
#   1. outputs first: ans3_dev at 32 MiB (text, bf16): library, library-w2, win2-16s, lean4, lean2;
#   2. A/B at 1 GiB of 64 KiB chunks, median of 5 (outputs checked again): text, bf16; then 1 MiB chunks;
#   3. test_cuda_ans small (the 2-warp decode on every column, hostile input, size query);
#   4. ncu with source counters of the library's 4-warp decoder on text (256 MiB, one launch): the per-SASS
#      line CSV (instructions executed, stall reasons) for the step's table by job;
#   5. memcheck (4 MiB, text and bf16) of library-w2, lean4, lean2; racecheck (1 MiB) of them;
#   6. oc_gpu_bench text and bf16 at 1 GiB, ours (the type passed on decode) beside nVCOMP;
#   7. ncu of nVCOMP's ANS decode kernel on text (launch shape, registers, issue rate): facts, not code;
#   8. if time is left: ncu of lean4 on text and library-w2 on bf16, and the full test_cuda_ans.
# Results under $RES; a summary on stdout (log.txt).
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
left() { echo $((172 - $(el))); }
if ! type oc_cmake >/dev/null 2>&1; then
  export PATH=/usr/local/cuda/bin:$PATH LIBDIR=${PREFIX:-/tmp/oc-prefix}/usr/lib/x86_64-linux-gnu
  oc_cmake() {
    local b=$1; shift
    cmake -S . -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release -DOC_WITH_CUDA=ON -DOC_CUDA_ARCHS=90 \
      -DOC_BUILD_TESTS=ON -DOC_BUILD_CLI=ON -DOC_BUILD_SHARED=OFF -DCMAKE_PREFIX_PATH="${PREFIX:-/tmp/oc-prefix}/usr" \
      -DCMAKE_INCLUDE_PATH="${PREFIX:-/tmp/oc-prefix}/usr/include" -DCMAKE_LIBRARY_PATH="$LIBDIR" \
      ${NVROOT:+-DOC_NVCOMP_ROOT=$NVROOT} "$@"
  }
  oc_build() { local b=$1; shift; cmake --build "$b" -j 16 --target "$@"; }
fi
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
RES=${RES:-/tmp/ansdec-res}
mkdir -p "$RES"
C=${CORPUS:-$PWD/bench/corpus-sample}
B=/tmp/b-ansdec
step() { # name timeout cmd...: runs, logs to $RES/name.txt, prints rc
  local name=$1 to=$2; shift 2
  local l; l=$(left)
  if [ "$l" -lt 6 ]; then echo "SKIP $name (no time: $(el) s)"; return 0; fi
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
oc_build $B ans3_dev test_cuda_ans >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
grep -iE "error" "$RES/build.txt" | head -n 20
# the benchmark builds while the dev steps run (the GPU steps use one core)
(oc_build $B oc_gpu_bench >"$RES/build-bench.txt" 2>&1; echo "rc $?" >>"$RES/build-bench.txt") &
BPID=$!
AD=$B/bench/gpu/dev/ans3_dev TCA=$B/tests/test_cuda_ans BENCH=$B/bench/gpu/oc_gpu_bench
W=$(ls $C/*.f32 | head -n 1)
BF=/tmp/oc-ansdec/$(basename "$W" .f32).bf16
mkdir -p /tmp/oc-ansdec
python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); o = bytearray(len(b) // 2)
o[0::2] = b[2::4]; o[1::2] = b[3::4]; open(sys.argv[2], "wb").write(o)' "$W" "$BF"
TXT=$C/text_linux_docs.txt
V=library,library-w2,win2-16s,lean4,lean2
s() { grep -hE "ratio|FAIL|checked|CTAs|GB/s|error|launch|passed|SUMMARY" "$RES/$1.txt" | head -n 30; }

# ---- 1. outputs first (32 MiB)
step bytes-txt 25 $AD --mib 32 --reps 1 --only $V $TXT; s bytes-txt
step bytes-bf16 25 $AD --mib 32 --reps 1 --dtype bf16 --only $V $BF; s bytes-bf16

# ---- 2. A/B at 1 GiB of 64 KiB chunks, median of 5 (outputs checked again at this size)
step time-txt 30 $AD --reps 5 --only $V $TXT; s time-txt
step time-bf16 30 $AD --reps 5 --dtype bf16 --only $V $BF; s time-bf16
# 1 MiB chunks (32 tiles of bf16, 64 of text): the 2-warp CTAs must not lose where 4 warps are all busy
step time-bf16-1m 30 $AD --reps 5 --dtype bf16 --chunk 1048576 --only library,library-w2,lean4,lean2 $BF; s time-bf16-1m
step time-txt-1m 30 $AD --reps 5 --chunk 1048576 --only library,library-w2,lean4 $TXT; s time-txt-1m

# ---- 3. the library's tests, small (the 2-warp decode on every column: case (7))
step tca-small 40 env OC_CORPUS_DIR=$C OC_TEST_SMALL=1 $TCA; s tca-small | tail -n 4

# ---- 4. ncu with source counters: the library's 4-warp decoder on text (256 MiB, its check launch)
SECTIONS="--section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats
  --section SourceCounters --section LaunchStats --section InstructionStats"
prof() { # name kernel-regex args...: the report, its details, the per-SASS-line and per-source-line CSVs
  local name=$1 kre=$2; shift 2
  step ncu-$name 45 ncu --clock-control none --kernel-name "regex:$kre" --launch-count 1 $SECTIONS \
    --import-source yes -f -o "$RES/ncu-$name" "$@"
  [ -f "$RES/ncu-$name.ncu-rep" ] || return 0
  ncu --import "$RES/ncu-$name.ncu-rep" --page details >"$RES/ncu-$name-details.txt" 2>&1
  ncu --import "$RES/ncu-$name.ncu-rep" --page source --csv --print-source sass >"$RES/ncu-$name-sass.csv" 2>&1
  ncu --import "$RES/ncu-$name.ncu-rep" --page source --csv --print-source cuda >"$RES/ncu-$name-cuda.csv" 2>&1
  grep -E "^  [a-zA-Z_]|^\s+(Duration|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Warp Cycles Per Issued Instruction|Executed Instructions|Registers Per Thread|Block Limit Registers|Block Limit Shared Mem) " \
    "$RES/ncu-$name-details.txt" | sed 's/  */ /g' | cut -c1-110 | head -n 12
  python3 bench/gpu/owncodecs/stall_lines.py "$RES/ncu-$name-sass.csv" 12 2>&1 | head -n 20
  gzip -f "$RES/ncu-$name.ncu-rep" "$RES/ncu-$name-sass.csv" "$RES/ncu-$name-cuda.csv"
}
prof lib-txt "ans_k_groups" $AD --mib 256 --reps 1 --only library $TXT

# ---- 5. memcheck (4 MiB, text and bf16) and racecheck (1 MiB bf16) of library-w2, side by side
CS="compute-sanitizer --error-exitcode 9 --leak-check no --tool memcheck"
if [ "$(left)" -gt 40 ]; then
  echo "== memcheck txt + bf16, racecheck bf16 ($(el) s)"
  timeout 35 $CS $AD --mib 4 --reps 1 --only library-w2,lean4,lean2 $TXT >"$RES/memcheck-txt.txt" 2>&1 &
  P1=$!
  timeout 35 $CS $AD --mib 4 --reps 1 --dtype bf16 --only library-w2,lean4,lean2 $BF >"$RES/memcheck-bf16.txt" 2>&1 &
  P2=$!
  timeout 30 compute-sanitizer --error-exitcode 9 --tool racecheck $AD --mib 1 --reps 1 --dtype bf16 \
    --only library-w2,lean2 $BF >"$RES/racecheck-bf16.txt" 2>&1 &
  P3=$!
  wait $P1 $P2 $P3
  timeout 30 compute-sanitizer --error-exitcode 9 --tool racecheck $AD --mib 1 --reps 1 \
    --only lean4 $TXT >"$RES/racecheck-txt.txt" 2>&1 &
  P4=$!
  wait $P4
  for f in memcheck-txt memcheck-bf16 racecheck-bf16 racecheck-txt; do
    echo "-- $f: $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $RES/$f.txt | head -n 1) $(grep -hcE "FAILED" $RES/$f.txt) failed; $(tail -n 1 $RES/$f.txt | cut -c1-80)"
  done
  echo "   ($(el) s)"
fi

# ---- 6. through the API, ours (the type passed on decode) beside nVCOMP, 1 GiB of 64 KiB chunks
wait $BPID
echo "bench build: $(tail -n 1 $RES/build-bench.txt) ($(el) s)"
NV="--codecs ans --chunks 64K --sizes 1G --stock none --per-file --budget 6 --max-repeats 3"
step nv-txt 25 $BENCH $NV --data-type '|u1' --json $RES/nv-txt.json $TXT; grep -E "ans " $RES/nv-txt.txt
step nv-bf16 25 $BENCH $NV --data-type bf16 --json $RES/nv-bf16.json $BF; grep -E "ans " $RES/nv-bf16.txt

# ---- 7. nVCOMP's ANS decode on text (256 MiB): the kernels a call launches, then the decoder's profile
NVS="--codecs ans --chunks 64K --sizes 256M --stock none --per-file --budget 1 --max-repeats 1 --contenders nvcomp --data-type |u1"
step ncu-nv-list 30 ncu --clock-control none --launch-count 60 --section LaunchStats --metrics gpu__time_duration.sum \
  $BENCH $NVS $TXT
grep -E "^  [a-zA-Z_]|gpu__time|Grid Size|Block Size|Registers Per|Shared Memory" $RES/ncu-nv-list.txt | sed 's/  */ /g' | cut -c1-120 | head -n 60 >$RES/ncu-nv-list-short.txt
head -n 40 $RES/ncu-nv-list-short.txt
kname() { sed -E 's/^ *//; s/^void //; s/[(<].*//; s/.*:://'; }
K=$(grep -E "^  [a-zA-Z_]" $RES/ncu-nv-list.txt | grep -iE "decomp|decode" | head -n 1 | kname)
[ -z "$K" ] && K=$(grep -E "^  [a-zA-Z_]" $RES/ncu-nv-list.txt | grep -iE "ans" | tail -n 1 | kname)
echo "nVCOMP decode kernel: '$K'"
[ -n "$K" ] && prof nv-txt "$K" $BENCH $NVS $TXT

# ---- 8. if time is left: lean4 on text and the 2-warp decoder on bf16, profiled; the full test
prof lean-txt "ans_k_groups_lean" $AD --mib 256 --reps 1 --only lean4 $TXT
prof w2-bf16 "ans_k_groups" $AD --mib 256 --reps 1 --dtype bf16 --only library-w2 $BF
step tca-full 40 env OC_CORPUS_DIR=$C $TCA; s tca-full | tail -n 6
echo "done ($(el) s)"
