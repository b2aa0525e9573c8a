#!/usr/bin/env bash
# ans3-rows.sh - why this exists: the GPU job that measured ANS format v3 (helper "ansdec", issue 18, session 11
# call B, run as /work/wt/gpu-req/ansdec.sh through scripts/device-lanes): one H200, <= 180 s wall, build included.
# ANS format version 3 (two interleaved states a lane; bench/gpu/owncodecs/NOTES.md, "ANS format version 3"):
#   1. outputs first: ans3_dev at 32 MiB (text, bf16): every decoder (v2: library, win2-32; v3 with tiles of
#      16384 symbols: v3-win4-16, -16m8, -32b8, v3-win2-32, v3-win2-16; v3 with tiles of 32768 ("v3t", v2's
#      ratio): v3t-win2-16, v3t-win2-32, v3t-win4-16) must give back the input; ratios v2 / v3 / v3t printed;
#   2. memcheck (4 MiB, text and bf16) of the v3 decoders and racecheck (1 MiB text) of two, side by side;
#   3. A/B at 1 GiB of 64 KiB chunks, median of 5 (every output checked again): text, then bf16;
#   4. nVCOMP beside the library in the same job (oc_gpu_bench, text and bf16);
#   5. if time is left: ncu of v3-win4-16 and v3t-win2-16 on text (256 MiB; session 10 has the library's).
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
      -DOC_BUILD_TESTS=ON -DOC_BUILD_CLI=ON -DOC_BUILD_SHARED=OFF -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
      -DCMAKE_INCLUDE_PATH="$PREFIX/usr/include" -DCMAKE_LIBRARY_PATH="$LIBDIR" ${NVROOT:+-DOC_NVCOMP_ROOT=$NVROOT} "$@"
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
oc_build $B ans3_dev oc_gpu_bench >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
grep -iE "error" "$RES/build.txt" | head -n 20
AD=$B/bench/gpu/dev/ans3_dev BENCH=$B/bench/gpu/oc_gpu_bench
W=$(ls $C/*.f32 | head -n 1)
BF=/tmp/oc-ansdec/$(basename "$W" .f32).bf16
mkdir -p /tmp/oc-ansdec
python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); o = bytearray(len(b) // 2)
o[0::2] = b[2::4]; o[1::2] = b[3::4]; open(sys.argv[2], "wb").write(o)' "$W" "$BF"
TXT=$C/text_linux_docs.txt
s() { grep -hE "ratio|FAIL|checked|CTAs|GB/s|error|launch" "$RES/$1.txt" | head -n 30; }

# ---- 1. outputs first (32 MiB; every variant, every output compared with the input)
step bytes-txt 25 $AD --mib 32 --reps 1 $TXT; s bytes-txt
step bytes-bf16 25 $AD --mib 32 --reps 1 --dtype bf16 $BF; s bytes-bf16

# ---- 2. memcheck of the v3 decoders (4 MiB), text and bf16 side by side
CS="compute-sanitizer --error-exitcode 9 --leak-check no --tool memcheck"
V3=v3-win4-16,v3-win4-16m8,v3-win4-32b8,v3-win2-32,v3-win2-16,v3t-win2-16,v3t-win2-32,v3t-win4-16
if [ "$(left)" -gt 40 ]; then
  echo "== memcheck txt + bf16 ($(el) s)"
  timeout 30 $CS $AD --mib 4 --reps 1 --only $V3 $TXT >"$RES/memcheck-txt.txt" 2>&1 &
  timeout 30 $CS $AD --mib 4 --reps 1 --dtype bf16 --only $V3 $BF >"$RES/memcheck-bf16.txt" 2>&1 &
  timeout 25 compute-sanitizer --error-exitcode 9 --tool racecheck $AD --mib 1 --reps 1 --only v3-win4-16,v3t-win2-16 \
    $TXT >"$RES/racecheck-txt.txt" 2>&1 &
  wait
  for f in memcheck-txt memcheck-bf16 racecheck-txt; do
    echo "-- $f: $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $RES/$f.txt | head -n 1) $(grep -hcE "FAILED" $RES/$f.txt) failed; $(tail -n 1 $RES/$f.txt | cut -c1-80)"
  done
  echo "   ($(el) s)"
fi

# ---- 3. A/B at 1 GiB of 64 KiB chunks, median of 5 (outputs checked again at this size)
step time-txt 30 $AD --reps 5 $TXT; s time-txt
step time-bf16 30 $AD --reps 5 --dtype bf16 $BF; s time-bf16

# ---- 4. nVCOMP beside the library, same chunks
nv() { # name dtype files...
  local name=$1 dt=$2; shift 2
  step $name 25 $BENCH --codecs ans --data-type "$dt" --chunks 64K --sizes 1G --stock none --per-file \
    --budget 6 --max-repeats 3 --json $RES/$name.json "$@"
  grep -hE "opencomp-gpu|nvcomp-gpu" $RES/$name.txt | sed 's/  */ /g' | head -n 6
}
nv nv-txt "|u1" $TXT
nv nv-bf16 bf16 $BF

# ---- 5. ncu: v3-win4-16 and v3t-win2-16 on text (256 MiB, each variant's check launch and its timed one)
SECTIONS="--section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats
  --section LaunchStats --section InstructionStats"
step ncu-v3 35 ncu --clock-control none --kernel-name "regex:ans3_k_groups" --launch-count 4 \
  $SECTIONS -f -o "$RES/ncu-v3" $AD --mib 256 --reps 1 --only v3-win4-16,v3t-win2-16 $TXT
if [ -f "$RES/ncu-v3.ncu-rep" ]; then
  ncu --import "$RES/ncu-v3.ncu-rep" --page details >"$RES/ncu-v3-details.txt" 2>&1
  grep -E "ans3_k_groups|^\s+(Duration|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Warp Cycles Per Issued Instruction|Executed Instructions|Registers Per Thread|Block Limit Registers|Block Limit Shared Mem) " \
    "$RES/ncu-v3-details.txt" | sed 's/  */ /g' | cut -c1-110
  gzip -f "$RES/ncu-v3.ncu-rep"
fi
echo "done ($(el) s)"
