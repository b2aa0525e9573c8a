#!/usr/bin/env bash
# zstddec.sh - helper "zstddec" (issue 16), session 9 call A: one H200, ~300 s, build included.
# The zstd decoder's copies by words (bench/gpu/dev/zstd_dec_copy_words.h, dev library
# opencomp_static_wc) against the library (bench/gpu/zstd/NOTES.md "Run 10"):
# 1. build: oc_gpu_bench (library) and oc_gpu_bench_wc + test_cuda_zstd_*_wc (variant);
# 2. correctness of the variant, all in parallel (no timing): the GPU zstd tests linked with it
#    (damaged frames, exact statuses) and compute-sanitizer memcheck + racecheck of its frame and
#    lane tests on small damaged input (OC_TEST_SMALL=1);
# 3. A/B, 1 GiB per call (and 64 MiB: the 16 x 4 MiB case): zstd 4M/1M/64K, our frames and libzstd -3
#    frames (stock 4M, 1M), the library + nVCOMP, then the variant (every output verified by the bench);
# 4. per file (text, i64 keys), 4 MiB frames, both; 5. ncu of the variant's frame kernel (4 MiB frames);
# 6. ncu of the variant's per-chunk kernel (1 MiB frames), if time is left.
# Results under $RES; a summary on stdout (log.txt).
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
left() { echo $((295 - $(el))); }
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
RES=${RES:-/tmp/zstddec-res}
mkdir -p "$RES"
C=${CORPUS:-$PWD/bench/corpus-sample}
B=/tmp/b
# the tests read OC_SOURCE_DIR/bench/corpus-sample (else they SKIP)
[ -d bench/corpus-sample ] || { [ -d "$C" ] && ln -s "$C" bench/corpus-sample; }
ls bench/corpus-sample | head -n 3
step() { # name timeout cmd...: runs, logs to $RES/name.txt, prints rc
  local name=$1 to=$2; shift 2
  local l; l=$(left)
  if [ "$l" -lt 8 ]; then echo "SKIP $name (no time: $(el) s)"; return 0; fi
  [ "$to" -gt "$l" ] && to=$l
  echo "== $name ($(el) s, limit $to s): $*"
  timeout "$to" "$@" >"$RES/$name.txt" 2>&1
  local rc=$?
  echo "   rc $rc ($(el) s)"
  tail -n 3 "$RES/$name.txt" | sed 's/^/   | /'
  return $rc
}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
COMMIT=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "tree $COMMIT"

# 1. build
oc_cmake $B -DOC_BUILD_PYTHON=OFF >"$RES/cmake.txt" 2>&1
echo "cmake rc $? ($(el) s)"
WCT="test_cuda_zstd_frames_wc test_cuda_zstd_lanes_wc test_cuda_zstd_dispatch_wc test_cuda_zstd_shapes_wc test_cuda_truncation_wc"
oc_build $B oc_gpu_bench oc_gpu_bench_wc $WCT >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
grep -E "error|FAILED" "$RES/build.txt" | head -n 20
D=$B/bench/gpu/dev
export OC_TEST_DATA_DIR=$C

# 2. correctness of the variant, all at once (no timing here)
echo "== tests _wc + sanitizers, in parallel ($(el) s)"
for t in $WCT; do
  ( timeout 45 $D/$t >"$RES/$t.txt" 2>&1; echo "$t rc $?" >"$RES/$t.rc" ) &
done
for k in memcheck racecheck; do
  for t in test_cuda_zstd_frames_wc test_cuda_zstd_lanes_wc; do
    ( OC_TEST_SMALL=1 timeout 50 compute-sanitizer --tool $k --error-exitcode 9 $D/$t >"$RES/$k-$t.txt" 2>&1
      echo "$k $t rc $?" >"$RES/$k-$t.rc" ) &
  done
done
wait
for t in $WCT; do cat "$RES/$t.rc"; tail -n 2 "$RES/$t.txt" | sed 's/^/   | /'; done
for f in $RES/memcheck-*.rc $RES/racecheck-*.rc; do
  cat "$f"; grep -hE "ERROR SUMMARY|RACECHECK SUMMARY" "${f%.rc}.txt" | sed 's/^/   | /'
done
echo "   correctness done ($(el) s)"

# 3. A/B at full scale: the library (and nVCOMP) first, then the variant; zstd only
FILES=$(find "$C"/ -maxdepth 1 -type f ! -name "*.md" ! -name "*.sha256" | sort)
echo "corpus: $(echo $FILES | wc -w) files"
ARGS="--codecs zstd --chunks 4M,1M,64K --sizes 64M,1G --stock 4M,1M --target 0.2 --max-repeats 5 --rung-cap 6 --check-size 32M --commit $COMMIT"
step ab_lib 85 $B/bench/gpu/oc_gpu_bench $ARGS --budget 75 --contenders opencomp,nvcomp --label "mix lib" --json $RES/ab_lib.json $FILES
step ab_wc 70 $D/oc_gpu_bench_wc $ARGS --budget 60 --contenders opencomp --label "mix wc" --json $RES/ab_wc.json $FILES
grep -hiE "decomp" $RES/ab_lib.txt $RES/ab_wc.txt | head -n 60

# 4. per file, 4 MiB frames only (the mix's 4 MiB batch is one wave: its slowest frames set its time;
#    NOTES "Run 10" addendum): text and the i64 keys, library then variant
PF="--codecs zstd --chunks 4M --sizes 1G --stock 4M --contenders opencomp --per-file --target 0.1 --max-repeats 3 --rung-cap 4 --commit $COMMIT"
step pf_lib 30 $B/bench/gpu/oc_gpu_bench $PF --budget 25 --json $RES/pf_lib.json $C/text_linux_docs.txt $C/tpch_l_orderkey.i64
step pf_wc 30 $D/oc_gpu_bench_wc $PF --budget 25 --json $RES/pf_wc.json $C/text_linux_docs.txt $C/tpch_l_orderkey.i64
grep -hiE "decomp" $RES/pf_lib.txt $RES/pf_wc.txt | head -n 20
# 5. ncu of the variant: frame kernel on 4 MiB frames, per-chunk kernel on 1 MiB frames
NCU_SEC="--section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SourceCounters --section LaunchStats"
step ncu_frame 45 ncu $NCU_SEC -k regex:zf_decode_kernel --launch-count 4 -o $RES/ncu_frame_wc \
  $D/oc_gpu_bench_wc --codecs zstd --chunks 4M --sizes 1G --stock 4M --contenders opencomp --target 0.01 --max-repeats 1 --budget 40 $FILES
ncu --import $RES/ncu_frame_wc.ncu-rep --page details --print-units base >"$RES/ncu_frame_wc.txt" 2>&1
ncu --import $RES/ncu_frame_wc.ncu-rep --page source --csv --print-source sass >"$RES/ncu_frame_wc_src.csv" 2>/dev/null
step ncu_chunk 40 ncu $NCU_SEC -k regex:zd_decode_kernel --launch-count 3 -o $RES/ncu_chunk_wc \
  $D/oc_gpu_bench_wc --codecs zstd --chunks 1M --sizes 1G --stock 1M --contenders opencomp --target 0.01 --max-repeats 1 --budget 30 $FILES
ncu --import $RES/ncu_chunk_wc.ncu-rep --page details --print-units base >"$RES/ncu_chunk_wc.txt" 2>&1
grep -hE "Achieved Occupancy|Issued Warp Per Scheduler|Duration|Registers Per" $RES/ncu_frame_wc.txt $RES/ncu_chunk_wc.txt | head -n 20
echo "done ($(el) s)"
