#!/usr/bin/env bash
# ans-carve-rows.sh - why this exists: the GPU job of helper "ansdec", issue 18, session 12 call B2 (run as
# /work/wt/gpu-req/ansdec.sh through scripts/device-lanes; one H200, <= 150 s wall, build included).  Call B
# found that the ANS decoders lose 18% on text whenever their CTAs' shared memory pushes the SM to the 228 KiB
# configuration (28 KiB of L1 instead of 60: library-w2, lean4; bench/gpu/owncodecs/NOTES.md, session 12).
# This measures the same kernels with a preferred shared memory carveout (ans3_dev's *-c196, *-c164: fewer
# CTAs an SM, more L1), and retries the profile of nVCOMP's ANS decode kernel:
#   1. outputs first: ans3_dev at 32 MiB (text, bf16) for every variant below;
#   2. A/B at 1 GiB of 64 KiB chunks, median of 5: text, bf16; then 1 MiB chunks;
#   3. ncu (memory and occupancy sections) of library and library-w2 on text;
#   4. nVCOMP's kernels listed (LaunchStats), then its decode kernel profiled on text (256 MiB); then ncu of
#      library-c164 and library-w2-c196;
#   5. if time is left: oc_gpu_bench bf16 and text at 1 GiB (ours beside nVCOMP), test_cuda_ans small.
# Results under $RES; a summary on stdout (log.txt).
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
left() { echo $((142 - $(el))); }
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
oc_build $B ans3_dev >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
grep -iE "error" "$RES/build.txt" | head -n 20
(oc_build $B oc_gpu_bench test_cuda_ans >"$RES/build-bench.txt" 2>&1; echo "rc $?" >>"$RES/build-bench.txt") &
BPID=$!
AD=$B/bench/gpu/dev/ans3_dev TCA=$B/tests/test_cuda_ans BENCH=$B/bench/gpu/oc_gpu_bench
W=$(ls $C/*.f32 | head -n 1)
BF=/tmp/oc-ansdec/$(basename "$W" .f32).bf16
mkdir -p /tmp/oc-ansdec
python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); o = bytearray(len(b) // 2)
o[0::2] = b[2::4]; o[1::2] = b[3::4]; open(sys.argv[2], "wb").write(o)' "$W" "$BF"
TXT=$C/text_linux_docs.txt
VT=library,library-c164,library-w2,library-w2-c196,library-w2-c164,win2-16s,win2-16s-c164,lean4,lean4-c196
VB=$VT,lean2,lean2-c196
V1=library,library-c164,library-w2,library-w2-c196,library-w2-c164
s() { grep -hE "ratio|FAIL|checked|CTAs|GB/s|error|launch|passed|SUMMARY" "$RES/$1.txt" | head -n 40; }

# ---- 1. outputs first (32 MiB)
step bytes-txt 25 $AD --mib 32 --reps 1 --only $VB $TXT; grep -hE "FAIL|checked" $RES/bytes-txt.txt
step bytes-bf16 25 $AD --mib 32 --reps 1 --dtype bf16 --only $VB $BF; grep -hE "FAIL|checked" $RES/bytes-bf16.txt

# ---- 2. A/B at 1 GiB, median of 5
step time-txt 40 $AD --reps 5 --only $VT $TXT; s time-txt
step time-bf16 40 $AD --reps 5 --dtype bf16 --only $VB $BF; s time-bf16
step time-bf16-1m 30 $AD --reps 5 --dtype bf16 --chunk 1048576 --only $V1 $BF; s time-bf16-1m
step time-txt-1m 30 $AD --reps 5 --chunk 1048576 --only $V1 $TXT; s time-txt-1m

# ---- 3. ncu: L1 and occupancy of four of them on text (256 MiB, the check launch)
SEC="--section SpeedOfLight --section Occupancy --section SchedulerStats --section MemoryWorkloadAnalysis
  --section MemoryWorkloadAnalysis_Tables --section LaunchStats --section InstructionStats"
ncum() { # variant: L1 and occupancy on text, the report's details kept as text only
  local v=$1
  step ncu-$v 25 ncu --clock-control none --kernel-name regex:ans_k_groups --launch-count 1 $SEC -f \
    -o "$RES/ncu-$v" $AD --mib 256 --reps 1 --only $v $TXT
  if [ -f "$RES/ncu-$v.ncu-rep" ]; then
    ncu --import "$RES/ncu-$v.ncu-rep" --page details >"$RES/ncu-$v-details.txt" 2>&1
    grep -E "^\s+(Duration|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Executed Instructions|L1/TEX Hit Rate|L2 Hit Rate|Shared Memory Configuration Size|Theoretical Occupancy|Block Limit Shared Mem|Mem Busy|L1/TEX Cache Throughput) " \
      "$RES/ncu-$v-details.txt" | sed 's/  */ /g' | cut -c1-100
    rm -f "$RES/ncu-$v.ncu-rep"
  fi
}
ncum library
ncum library-w2

# ---- 4. nVCOMP's ANS decode on text (256 MiB): the kernels listed, then the decoder profiled
wait $BPID
echo "bench build: $(tail -n 1 $RES/build-bench.txt) ($(el) s)"
NVS="--codecs ans --chunks 64K --sizes 256M --stock none --per-file --budget 15 --max-repeats 1 --contenders nvcomp --data-type |u1"
step ncu-nv-list 30 ncu --clock-control none --launch-count 30 --section LaunchStats --metrics gpu__time_duration.sum \
  $BENCH $NVS $TXT
grep -E "Context [0-9]+, Stream" $RES/ncu-nv-list.txt | sed -E 's/ *\(.*//' | sort | uniq -c
kname() { sed -E 's/^ *//; s/^void //; s/[(<].*//; s/.*:://'; }
K=$(grep -E "Context [0-9]+, Stream" $RES/ncu-nv-list.txt | grep -viE "compress_kernel" | grep -iE "decomp|decode" | head -n 1 | kname)
[ -z "$K" ] && K=$(grep -E "Context [0-9]+, Stream" $RES/ncu-nv-list.txt | grep -v "compress_kernel<CharEncode" | tail -n 1 | kname)
echo "nVCOMP decode kernel: '$K'"
if [ -n "$K" ]; then
  step ncu-nv 30 ncu --clock-control none --kernel-name "regex:$K" --launch-count 1 $SEC --section WarpStateStats \
    -f -o "$RES/ncu-nv" $BENCH $NVS $TXT
  if [ -f "$RES/ncu-nv.ncu-rep" ]; then
    ncu --import "$RES/ncu-nv.ncu-rep" --page details >"$RES/ncu-nv-details.txt" 2>&1
    grep -E "Context [0-9]+, Stream|^\s+(Duration|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Executed Instructions|Registers Per Thread|Block Size|Grid Size|Static Shared Memory Per Block|Dynamic Shared Memory Per Block|L1/TEX Hit Rate|Theoretical Occupancy|Warp Cycles Per Issued Instruction) " \
      "$RES/ncu-nv-details.txt" | sed 's/  */ /g' | cut -c1-110
    rm -f "$RES/ncu-nv.ncu-rep"
  fi
fi
ncum library-c164
ncum library-w2-c196

# ---- 5. if time is left: through the API, and the library's test
NV="--codecs ans --chunks 64K --sizes 1G --stock none --per-file --budget 6 --max-repeats 3"
step nv-bf16 25 $BENCH $NV --data-type bf16 --json $RES/nv-bf16.json $BF; grep -E "ans " $RES/nv-bf16.txt
step tca-small 40 env OC_CORPUS_DIR=$C OC_TEST_SMALL=1 $TCA; s tca-small | tail -n 2
echo "done ($(el) s)"
