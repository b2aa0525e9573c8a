#!/usr/bin/env bash
# zstd.sh - helper "zstd" (issue 16 item 4 / issue 14's MB frames), session 11 call B: one H200,
# <= 180 s wall, build included.  v9 / v9s (bench/gpu/dev/zstd_dec_ooo.cuh: a frame's batches executed
# by several warps out of order; v9s with per-byte write stamps; bench/gpu/zstd/NOTES.md "Run 11")
# against the library and dev v8, all in zstd_bigframe:
# 1. build zstd_bigframe + oc_gpu_bench;
# 2. correctness first: v9 (4 shapes) and v9s (2 shapes) alone, every output compared with the input
#    (libzstd -3 frames of 1 and 4 MiB, raw-block frames too), beside compute-sanitizer memcheck of v9
#    and v9s and racecheck of v9 (its progress counters) on a few frames;
# 3. A/B at 1 GiB (256 x 4 MiB, 1024 x 1 MiB) per file, same process: library (per-chunk, auto, frame
#    kernel) vs dev v8 vs v9 x4 vs v9s x2 (v9s last: a hang there loses only its own lines);
#    16 x 4 MiB (64 MiB); nVCOMP beside the library (oc_gpu_bench, libzstd -3 frames of the mix, 1 GiB).
# Results under $RES; a summary on stdout (log.txt).
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
left() { echo $((174 - $(el))); }
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
RES=${RES:-/tmp/zstd-res}
mkdir -p "$RES"
C=${CORPUS:-$PWD/bench/corpus-sample}
B=/tmp/b-zstd
export CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-0}
step() { # name timeout cmd...: runs, logs to $RES/name.txt, prints rc
  local name=$1 to=$2; shift 2
  local l; l=$(left)
  if [ "$l" -lt 6 ]; then echo "SKIP $name (no time: $(el) s)"; return 0; fi
  [ "$to" -gt "$l" ] && to=$l
  echo "== $name ($(el) s, limit $to s): $*"
  timeout "$to" "$@" >"$RES/$name.txt" 2>&1
  local rc=$?
  echo "   rc $rc ($(el) s)"
  return $rc
}
show() { grep -hE "chunk|GB/s|FAIL|verified|error|SUMMARY" "$RES/$1.txt" | head -n ${2:-40}; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
git log --oneline -1 2>/dev/null

# 1. build
oc_cmake $B -DOC_BUILD_PYTHON=OFF >"$RES/cmake.txt" 2>&1
echo "cmake rc $? ($(el) s)"
oc_build $B zstd_bigframe oc_gpu_bench >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
grep -E "error|FAILED" "$RES/build.txt" | head -n 20
BF=$B/bench/gpu/dev/zstd_bigframe
TXT=$C/text_linux_docs.txt SRC=$C/source_linux_net.tar CMT=$C/tpch_l_comment.txt KEY=$C/tpch_l_orderkey.i64
W=$C/weights_minilm_l0-1.f32

# 2. correctness: v9 / v9s alone on 64 MiB of 1 and 4 MiB frames (raw-block frames too), beside the sanitizers
echo "== correctness + sanitizers in parallel ($(el) s)"
CS="compute-sanitizer --error-exitcode 9 --leak-check no --tool memcheck"
RC="compute-sanitizer --error-exitcode 9 --tool racecheck"
bg() { # name timeout cmd...
  local name=$1 to=$2; shift 2
  ( timeout "$to" "$@" >"$RES/$name.txt" 2>&1; echo "rc $?" >>"$RES/$name.txt" ) &
}
CK="--chunks 1M,4M --total 64M --reps 1 $TXT $SRC $KEY $W"
bg v9-check 40 $BF --v9only $CK
bg v9s4-check 40 $BF --v9only --v9cfg 4 $CK
bg v9s5-check 40 $BF --v9only --v9cfg 5 $CK
bg memcheck-v9 45 $CS $BF --v9only --v9cfg 0 --chunks 1M --total 4M --reps 1 $TXT
bg memcheck-v9s 45 $CS $BF --v9only --v9cfg 4 --chunks 1M --total 4M --reps 1 $TXT
bg racecheck-v9 45 $RC $BF --v9only --v9cfg 1 --chunks 1M --total 2M --reps 1 $TXT
wait
for f in v9-check v9s4-check v9s5-check memcheck-v9 memcheck-v9s racecheck-v9; do
  echo "-- $f: $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $RES/$f.txt | head -n 1) $(grep -hcE "FAIL" $RES/$f.txt) FAIL lines; $(tail -n 2 $RES/$f.txt | tr '\n' ' ' | cut -c1-120)"
done
show v9-check 30
show v9s4-check 12
echo "   ($(el) s)"

# 3. A/B, 1 GiB per call, same process: library x3, dev v8, v9 x4, v9s x2 (median of 3)
step ab-text 26 $BF --ooo --v9s --chunks 4M,1M --reps 3 $TXT; show ab-text
step ab-16x4M 14 $BF --ooo --v9s --chunks 4M --total 64M --reps 5 $TXT $SRC; show ab-16x4M
FILES=$(find "$C"/ -maxdepth 1 -type f ! -name "*.md" ! -name "*.sha256" | sort)
step nv-mix 30 $B/bench/gpu/oc_gpu_bench --codecs zstd --chunks 4M,1M --sizes 1G --stock 4M,1M --stock-only \
  --contenders opencomp,nvcomp --target 0.1 --max-repeats 3 --rung-cap 3 --budget 26 --json $RES/nv-mix.json $FILES
grep -hiE "decomp" $RES/nv-mix.txt | head -n 20
step ab-source 24 $BF --ooo --v9s --chunks 4M,1M --reps 3 $SRC; show ab-source
step ab-comment 24 $BF --ooo --v9s --chunks 4M,1M --reps 3 $CMT; show ab-comment
step ab-key 16 $BF --ooo --v9s --chunks 4M --reps 3 $KEY; show ab-key
echo "done ($(el) s)"
