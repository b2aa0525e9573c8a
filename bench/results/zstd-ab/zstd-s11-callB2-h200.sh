#!/usr/bin/env bash
# zstd.sh - helper "zstd", session 11 call B2: one H200, <= 150 s wall, build included.  The library's
# frame kernel is now v9 (3 executor + 5 entropy warps, 8 slots; zstd_decode.cu, commit b4924bf;
# bench/gpu/zstd/NOTES.md "Run 11"): verify it before call F.
# 1. build test_cuda_zstd_frames, test_cuda_zstd_dispatch, zstd_bigframe, oc_gpu_bench;
# 2. correctness first, in parallel: test_cuda_zstd_frames (full), _dispatch, and compute-sanitizer
#    memcheck + racecheck of test_cuda_zstd_frames on small data (OC_TEST_SMALL=1);
# 3. A/B 4 MiB x 256 (1 GiB) text and source: library auto (= v9 now) vs dev v8 / v9 shapes, incl. 3+5
#    with 6 slots (same process);
# 4. oc_gpu_bench: libzstd -3 4 MiB frames of the mix, 64 MiB and 1 GiB, ours vs nVCOMP.
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
left() { echo $((145 - $(el))); }
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
# the tests read OC_SOURCE_DIR/bench/corpus-sample (else they SKIP)
[ -d bench/corpus-sample ] || { [ -d "$C" ] && ln -s "$C" bench/corpus-sample; }
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
oc_build $B test_cuda_zstd_frames test_cuda_zstd_dispatch zstd_bigframe oc_gpu_bench >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
grep -E "error|FAILED" "$RES/build.txt" | head -n 20
BF=$B/bench/gpu/dev/zstd_bigframe
TXT=$C/text_linux_docs.txt SRC=$C/source_linux_net.tar
T=$B/tests
[ -x $T/test_cuda_zstd_frames ] || T=$(dirname "$(find $B -name test_cuda_zstd_frames -type f | head -n 1)")

# 2. correctness, in parallel
echo "== tests + sanitizers in parallel ($(el) s)"
bg() { # name timeout cmd...
  local name=$1 to=$2; shift 2
  ( timeout "$to" "$@" >"$RES/$name.txt" 2>&1; echo "rc $?" >>"$RES/$name.txt" ) &
}
bg frames 50 $T/test_cuda_zstd_frames
bg dispatch 50 $T/test_cuda_zstd_dispatch
bg memcheck-frames 55 env OC_TEST_SMALL=1 compute-sanitizer --tool memcheck --error-exitcode 9 --leak-check no $T/test_cuda_zstd_frames
bg racecheck-frames 55 env OC_TEST_SMALL=1 compute-sanitizer --tool racecheck --error-exitcode 9 $T/test_cuda_zstd_frames
wait
for f in frames dispatch memcheck-frames racecheck-frames; do
  echo "-- $f: $(grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" $RES/$f.txt | head -n 1) $(tail -n 3 $RES/$f.txt | tr '\n' ' ' | cut -c1-200)"
done
echo "   ($(el) s)"

# 3. A/B, 4 MiB x 256, same process (median of 3): library (v9 now) vs dev v8 / v9 (+ 3+5 with 6 slots)
step ab-4M 30 $BF --ooo --chunks 4M --reps 3 $TXT $SRC; show ab-4M

# 4. the mix, libzstd -3 4 MiB frames, 64 MiB and 1 GiB, ours vs nVCOMP
FILES=$(find "$C"/ -maxdepth 1 -type f ! -name "*.md" ! -name "*.sha256" | sort)
step nv-mix 32 $B/bench/gpu/oc_gpu_bench --codecs zstd --chunks 4M --sizes 64M,1G --stock 4M --stock-only \
  --contenders opencomp,nvcomp --target 0.1 --max-repeats 3 --rung-cap 3 --budget 28 --json $RES/nv-mix.json $FILES
grep -hiE "decomp" $RES/nv-mix.txt | head -n 20
echo "done ($(el) s)"
