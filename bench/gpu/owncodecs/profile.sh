#!/usr/bin/env bash
# profile.sh - run THERE (the GPU machine, repository root): Nsight Compute
# profiles of the typed codecs' hot kernels (issue 18), one kernel launch
# each on 256 MiB of one corpus file in 64 KiB chunks, to explain the gaps
# the full-scale --typed rows show (NOTES.md beside this file).
#
#   bench/gpu/owncodecs/profile.sh            (after bench/gpu/full-scale --typed built
#                                              build-full-scale/ and unpacked the corpus)
# $OUT: ncu-<kernel>.txt per kernel, summary lines on stdout.
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUTDIR=${OUT:-/tmp/own-prof}
BENCH=${OC_BENCH_BUILD:-$PWD/build-full-scale}/bench/gpu/oc_gpu_bench
C=bench/corpus-sample
mkdir -p "$OUTDIR"
export LD_LIBRARY_PATH=/tmp/oc-prefix/usr/lib/x86_64-linux-gnu:/tmp/oc-site/nvidia/libnvcomp/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x "$BENCH" ] || { echo "profile.sh: no $BENCH (run bench/gpu/full-scale --typed first)"; exit 1; }
# bf16 weights as full-scale --typed makes them
if [ ! -f /tmp/oc-typed/weights.bf16 ]; then
  mkdir -p /tmp/oc-typed
  f=$(ls $C/*.f32 | head -n 1)
  python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); o = bytearray(len(b) // 2)
o[0::2] = b[2::4]; o[1::2] = b[3::4]; open(sys.argv[2], "wb").write(o)' "$f" /tmp/oc-typed/weights.bf16
fi
prof() { # kernel codec dtype file
  local k=$1 codec=$2 dt=$3 file=$4
  timeout 120 ncu --clock-control none --kernel-name "$k" --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats \
    --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats \
    "$BENCH" --codecs "$codec" --data-type "$dt" --chunks 64K --sizes 256M --stock none \
    --contenders opencomp --max-repeats 2 "$file" >"$OUTDIR/ncu-$k.txt" 2>&1
  echo "== $k ($codec $dt $(basename "$file")): rc $?"
  grep -E "^\s+(Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Issued Warp Per Scheduler|Achieved Active Warps Per SM|Theoretical Active Warps per SM|Registers Per Thread|Warp Cycles Per Issued Instruction|Grid Size|Block Size|Executed Instructions) " \
    "$OUTDIR/ncu-$k.txt" | sed 's/  */ /g'
  grep -E "stalled waiting|represents about" "$OUTDIR/ncu-$k.txt" | head -n 4 | sed 's/  */ /g'
}
prof ans_k_groups ans '|u1' $C/text_linux_docs.txt
prof ans_k_encode ans '|u1' $C/text_linux_docs.txt
prof cz_k_tiles cascaded '<i4' $C/tpch_l_partkey.i32
prof cz_k_encode cascaded '<i4' $C/tpch_l_partkey.i32
prof bc_k_tiles bitcomp bf16 /tmp/oc-typed/weights.bf16
prof bc_k_encode bitcomp '<i8' $C/tpch_l_orderkey.i64
