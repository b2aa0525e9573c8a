#!/usr/bin/env bash
# run-snappy-fast.sh - v10's GPU run (issue 13, bench/NOTES.md "v10"): the
# library's Snappy split decoder against the same with the fast parse step
# (snappy_fast.cu), from the repository root on the GPU machine.
#   run-snappy-fast.sh check   memcheck and racecheck on a small batch with the
#                              split decoder forced (damaged chunks included),
#                              variants CHECK_VARIANTS (default library,spec,pairs:
#                              v11's two lanes a chunk in one warp, and v11b's
#                              in two, dev_lz_pair.cuh; ~1-2 min)
#   run-snappy-fast.sh time    the A/B at 1 GiB per call (median of 5; every
#                              variant: library, v10b, v9, fast1/2/4, spec,
#                              spec9, pairs, pairs9, skew, clock, skewclock;
#                              VARIANTS picks some), then ncu of the parse
#                              kernels of NCU_PARSE (default: library pairs) (warp states,
#                              instructions, scheduler, source hot spots) and of
#                              the library's copy kernel alone (~1 min;
#                              NCU_COPY=0 skips the copy's)
# Uses $B/bench/gpu/dev/snappy_fast (the lead's CMake build) when present,
# else builds it with nvcc; S is the corpus (bench/corpus-sample by
# default); logs go to $OUT/snappy/.
set -u
cd "$(dirname "$0")/../../.."
export PATH=/usr/local/cuda/bin:$PATH
S=${S:-bench/corpus-sample}
O=${OUT:-/tmp/snappy-fast-out}/snappy
mkdir -p "$O"
X=${B:-/tmp/build-gpu}/bench/gpu/dev/snappy_fast
if [ ! -x "$X" ]; then
  X=/tmp/snappy-fast-build/snappy_fast
  mkdir -p "$(dirname "$X")"
  nvcc -std=c++17 -O3 -lineinfo -arch=sm_90 -Werror=all-warnings --expt-relaxed-constexpr -Xptxas -v \
    -Iinclude -Isrc bench/gpu/dev/snappy_fast.cu -o "$X" -lsnappy >"$O/build.log" 2>&1 ||
    { tail -n 30 "$O/build.log"; echo "run-snappy-fast: build FAILED"; exit 1; }
fi
T0=$SECONDS
case "${1:-time}" in
check)
  F=$S/text_linux_docs.txt
  for tool in memcheck racecheck; do
    timeout 140 compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 5 "$X" --split \
      --variants "${CHECK_VARIANTS:-library,spec,pairs}" \
      --min-bytes 4194304 --repeats 1 "$F" "$S/tpch_l_extendedprice.f64" >"$O/$tool.log" 2>&1
    echo "$tool rc $? (0 = clean, 124 = out of time) after $((SECONDS - T0)) s"; tail -n 4 "$O/$tool.log"
  done
  ;;
time)
  timeout 120 "$X" --repeats 5 ${VARIANTS:+--variants $VARIANTS} $S/* 2>&1 | tee "$O/ab.log"
  echo "run-snappy-fast: A/B exit ${PIPESTATUS[0]} after $((SECONDS - T0)) s"
  for v in ${NCU_PARSE:-library pairs}; do
    k=oc_lzs_parse_kernel
    case $v in spec*) k=spec_parse_kernel ;; pairs*) k=oc_lzs_pair_kernel ;; skew* | clock | word) k=dev_lzs_parse_kernel ;; esac
    timeout 100 ncu --kernel-name regex:$k --launch-count 1 --section SpeedOfLight \
      --section Occupancy --section WarpStateStats --section InstructionStats --section SchedulerStats \
      --section SourceCounters --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__cycles_active.avg \
      "$X" --only $v $S/* >"$O/ncu-parse-$v.txt" 2>&1
    echo "ncu $v rc $? after $((SECONDS - T0)) s"
    grep -E "Duration|Warp Cycles Per Issued|Issued Warp|Executed Ipc A|No Eligible|Stall|Achieved Occ|Executed Instructions  |SM Active Cycles|Elapsed Cycles|l1tex__data|smsp__cycles_active|excessive" \
      "$O/ncu-parse-$v.txt" | head -n 24
  done
  # the copy kernel alone (ncu serialises: it runs after the parse, every record published); NCU_COPY=0 skips it
  [ "${NCU_COPY:-1}" = 0 ] && { echo "run-snappy-fast: done in $((SECONDS - T0)) s"; exit 0; }
  timeout 100 ncu --kernel-name regex:oc_lzs_copy_kernel --launch-count 1 --section SpeedOfLight \
    --section Occupancy --section WarpStateStats --section InstructionStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section SourceCounters "$X" --only library $S/* >"$O/ncu-copy.txt" 2>&1
  echo "ncu copy rc $? after $((SECONDS - T0)) s"
  grep -E "Duration|Warp Cycles Per Issued|Issued Warp|No Eligible|Achieved Occ|Memory Throughput|DRAM Throughput" \
    "$O/ncu-copy.txt" | head -n 10
  ;;
esac
echo "run-snappy-fast: done in $((SECONDS - T0)) s"
