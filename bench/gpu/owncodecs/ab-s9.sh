#!/usr/bin/env bash
# ab-s9.sh - run THERE (the GPU machine, repository root; session 9 call A, helper "typed", as
# /work/wt/gpu-req/typed.sh): issue 18, one H200, ~300 s, build included.
# 1. staged-input encoders (bc_dev staged-in, -32; ans_dev staged-in, -32k) vs the library: bytes first
#    (32 MiB, then memcheck 16 MiB, racecheck 1 MiB), then 1 GiB timings beside nVCOMP (oc_gpu_bench);
# 2. Cascaded rows (4 integer columns, nVCOMP's default layers and ours) beside nVCOMP;
# 3. ncu (WarpStateStats + SourceCounters) of bc_k_encode, ans_k_encode, the variants, ans_k_groups.
# Results under $RES; a summary on stdout (log.txt).
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
left() { echo $((290 - $(el))); }
# prelude.sh's functions (the runner sources it in the parent shell; functions do not cross into
# `bash typed.sh`, and .abz is not in the tree copy): the same definitions.
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
RES=${RES:-/tmp/typed-res}
mkdir -p "$RES"
C=${CORPUS:-$PWD/bench/corpus-sample}
B=/tmp/b
step() { # name timeout cmd...: runs, logs to $RES/name.txt, prints rc
  local name=$1 to=$2; shift 2
  local l; l=$(left)
  if [ "$l" -lt 8 ]; then echo "SKIP $name (no time: $(el) s)"; return 0; fi
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
oc_build $B bc_dev ans_dev cz_dev oc_gpu_bench >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
tail -n 5 "$RES/build.txt" | grep -iE "error|FAILED" && grep -iE "error" "$RES/build.txt" | head -n 20
BC=$B/bench/gpu/dev/bc_dev AD=$B/bench/gpu/dev/ans_dev CZ=$B/bench/gpu/dev/cz_dev BENCH=$B/bench/gpu/oc_gpu_bench
# bf16 weights: the high halves of the f32 weights (bfloat16 by truncation), as full-scale --typed
W=$(ls $C/*.f32 | head -n 1)
BF=/tmp/oc-typed/$(basename "$W" .f32).bf16
mkdir -p /tmp/oc-typed
python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); o = bytearray(len(b) // 2)
o[0::2] = b[2::4]; o[1::2] = b[3::4]; open(sys.argv[2], "wb").write(o)' "$W" "$BF"
TXT=$C/text_linux_docs.txt OK8=$C/tpch_l_orderkey.i64 PK4=$C/tpch_l_partkey.i32
s() { grep -hE "compress|ratio|DIFFER|same bytes|FAIL|checked|CTAs an SM|error|launch" "$RES/$1.txt" | head -n 16; }

# ---- 1a. correctness: the variants write the library's bytes (32 MiB), then the sanitizers
step bytes-bc-i64 40 $BC --mib 32 --reps 0 --no-2ctas $OK8; s bytes-bc-i64
step bytes-bc-i32 40 $BC --mib 32 --reps 0 --no-2ctas $PK4; s bytes-bc-i32
step bytes-bc-bf16 40 $BC --mib 32 --reps 0 --no-2ctas --dtype bf16 $BF; s bytes-bc-bf16
step bytes-bc-f32a1 40 $BC --mib 32 --reps 0 --no-2ctas --algo 1 $W; s bytes-bc-f32a1
step bytes-bc-f32 40 $BC --mib 32 --reps 0 --no-2ctas $W; s bytes-bc-f32
step bytes-bc-date 40 $BC --mib 32 --reps 0 --no-2ctas $C/tpch_l_shipdate.i32; s bytes-bc-date
step bytes-ans-txt 40 $AD --mib 32 --reps 0 --enc-only --no-staged $TXT; s bytes-ans-txt
step bytes-ans-bf16 40 $AD --mib 32 --reps 0 --enc-only --no-staged --dtype bf16 $BF; s bytes-ans-bf16
CS="compute-sanitizer --error-exitcode 9 --leak-check no --tool memcheck"
echo "== memcheck (4) and racecheck (2) side by side ($(el) s)"
timeout 40 $CS $BC --mib 16 --reps 0 --no-2ctas $OK8 >"$RES/memcheck-bc-i64.txt" 2>&1 &
timeout 40 $CS $BC --mib 16 --reps 0 --no-2ctas --dtype bf16 $BF >"$RES/memcheck-bc-bf16.txt" 2>&1 &
timeout 40 $CS $AD --small --reps 0 --enc-only --no-staged $TXT >"$RES/memcheck-ans-txt.txt" 2>&1 &
timeout 40 $CS $AD --small --reps 0 --enc-only --no-staged --dtype bf16 $BF >"$RES/memcheck-ans-bf16.txt" 2>&1 &
RC="compute-sanitizer --error-exitcode 9 --tool racecheck"
timeout 40 $RC $BC --mib 1 --reps 0 --no-2ctas $PK4 >"$RES/racecheck-bc-i32.txt" 2>&1 &
timeout 40 $RC $AD --mib 1 --reps 0 --enc-only --no-staged $TXT >"$RES/racecheck-ans-txt.txt" 2>&1 &
wait
for f in memcheck-bc-i64 memcheck-bc-bf16 memcheck-ans-txt memcheck-ans-bf16 racecheck-bc-i32 racecheck-ans-txt; do
  echo "-- $f: $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $RES/$f.txt | head -n 1) $(grep -hcE "DIFFER" $RES/$f.txt) differ; $(tail -n 1 $RES/$f.txt | cut -c1-80)"
done
echo "   ($(el) s)"

# ---- 1b. timings (1 GiB of 64 KiB chunks, median of 5): library vs staged-in, then nVCOMP
step time-bc-i64 30 $BC --reps 5 --no-2ctas $OK8; s time-bc-i64
step time-bc-i32 30 $BC --reps 5 --no-2ctas $PK4; s time-bc-i32
step time-bc-bf16 30 $BC --reps 5 --no-2ctas --dtype bf16 $BF; s time-bc-bf16
step time-ans-txt 30 $AD --reps 5 --enc-only --no-staged $TXT; s time-ans-txt
step time-ans-bf16 30 $AD --reps 5 --enc-only --no-staged --dtype bf16 $BF; s time-ans-bf16
nv() { # name dtype codecs files...
  local name=$1 dt=$2 cod=$3; shift 3
  step $name 30 $BENCH --codecs $cod --data-type "$dt" --chunks 64K --sizes 1G --stock none --per-file \
    --budget 10 --max-repeats 3 --json $RES/$name.json "$@"
  grep -hE "opencomp-gpu|nvcomp-gpu" $RES/$name.txt | sed 's/  */ /g' | head -n 12
}
# nVCOMP beside the library (item 1: Bitcomp, ANS; item 2: Cascaded with nVCOMP's default layers = ours)
nv nv-i64 "<i8" cascaded,bitcomp $OK8 $C/sorted_partkey.i64
nv nv-i32 "<i4" cascaded,bitcomp $PK4 $C/tpch_l_shipdate.i32
nv nv-bf16 bf16 bitcomp,ans $BF
nv nv-txt "|u1" ans $TXT
# ---- 3a. ncu: warp states + source counters, one launch each (256 MiB)
SECTIONS="--section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats
  --section SourceCounters --section LaunchStats --section InstructionStats"
prof() { # name "kernel1 kernel2" launch-count cmd...: one profiling run, then each kernel apart
  local name=$1 ks=$2 cnt=$3; shift 3
  local re; re=$(echo $ks | sed 's/ /|/g')
  step ncu-$name 60 ncu --clock-control none --kernel-name "regex:^($re)\$" --launch-count $cnt $SECTIONS -f \
    -o "$RES/$name" "$@"
  [ -f "$RES/$name.ncu-rep" ] || return 0
  local nof=""
  for k in $ks; do
    ncu --import "$RES/$name.ncu-rep" --kernel-name "$k" --page details >"$RES/ncu-$name-$k.txt" 2>&1
    ncu --import "$RES/$name.ncu-rep" --kernel-name "$k" --page source --csv --print-source sass \
      >"$RES/ncu-$name-$k-sass.csv" 2>&1
    if grep -q "==ERROR==" "$RES/ncu-$name-$k.txt"; then # no filter on import: every kernel, once
      ncu --import "$RES/$name.ncu-rep" --page details >"$RES/ncu-$name-$k.txt" 2>&1
      ncu --import "$RES/$name.ncu-rep" --page source --csv --print-source sass >"$RES/ncu-$name-$k-sass.csv" 2>&1
      nof=1
    fi
    echo "-- ncu $name: $k"
    grep -E "^\s+(Duration|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Warp Cycles Per Issued Instruction|Executed Instructions|Registers Per Thread|Dynamic Shared Memory Per Block) " \
      "$RES/ncu-$name-$k.txt" | sed 's/  */ /g' | cut -c1-110
    python3 bench/gpu/owncodecs/stall_lines.py "$RES/ncu-$name-$k-sass.csv" 14 | head -n 20
    gzip -f "$RES/ncu-$name-$k-sass.csv"
    [ -n "$nof" ] && break
  done
  gzip -f "$RES/$name.ncu-rep"
}
prof bc-enc-i64 "bc_k_encode bc_k_encode_in" 2 $BC --mib 256 --reps 0 --no-2ctas $OK8
prof ans-enc-txt "ans_k_encode ans_k_encode_in" 2 $AD --mib 256 --reps 0 --enc-only --no-staged $TXT
# ---- 2. Cascaded with the automatic layers (ours), decode and compress, 1 GiB
for f in tpch_l_partkey.i32 tpch_l_shipdate.i32 tpch_l_orderkey.i64 sorted_partkey.i64; do
  step cz-auto-$f 25 $CZ --layers auto --reps 3 --mib 1024 $C/$f; s cz-auto-$f
done

prof ans-dec-txt "ans_k_groups" 1 $AD --mib 256 --reps 1 --no-staged --only library $TXT
prof bc-enc-bf16 "bc_k_encode bc_k_encode_in bc_k_encode_in32" 3 $BC --mib 256 --reps 0 --no-2ctas --dtype bf16 $BF
prof cz-dec-i32 "cz_k_tiles" 1 $BENCH --codecs cascaded --data-type "<i4" --chunks 64K --sizes 256M --stock none \
  --contenders opencomp --max-repeats 2 $PK4
echo "done ($(el) s)"
