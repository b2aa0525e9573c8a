#!/usr/bin/env bash
# run-lz-enc.sh - the LZ4 / Snappy compressor A/B of issue 13 (bench/NOTES.md "Compressors (issue 13,
# session 8)") on the GPU machine, from the CMake build (target lz_enc_dev):
#   check: every variant alone on 64 MiB of the mix (a crash or hang costs one variant only), each output
#          decoded by liblz4 / snappy; then compute-sanitizer memcheck (4 MiB) and racecheck (1 MiB) of
#          the multi variants beside the library.  ~60-120 s.
#   time:  all variants on 1 GiB of the mix in 64 KiB chunks, both formats (library rerun beside them);
#          oc_gpu_bench's nVCOMP and opencomp LZ4/Snappy rows (64 KiB, 1 GiB); ncu of the library's kernel
#          and ht12-multi2 (64 MiB).  ~120 s.
#   bench/gpu/dev/run-lz-enc.sh check|time [BUILD]     (BUILD default /tmp/build-gpu; logs in $OUT)
set -uo pipefail
cd "$(dirname "$0")/../../.."
MODE=${1:-time}
B=${2:-/tmp/build-gpu}
O=${OUT:-/tmp/lz-enc}
mkdir -p "$O"
export LD_LIBRARY_PATH=/tmp/oc-prefix/usr/lib/x86_64-linux-gnu:/tmp/oc-site/nvidia/libnvcomp/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S=bench/corpus-sample
ls $S/*.i32 >/dev/null 2>&1 || S=bench/corpus-data
F=$(ls $S/* | grep -vE '\.(sha256|md)$')
X=$B/bench/gpu/dev/lz_enc_dev
rc=0
if [ "$MODE" = check ]; then
  for v in dev-copy ht12 ht11 skip1 skip3 ht12-skip3 ht11-skip3 nomany ht12-nomany multi1 multi2 ht12-multi2 ht11-multi2; do
    timeout 30 $X --min-bytes 64M --repeats 1 --variants $v $F >$O/check-$v.txt 2>&1 || { echo "== $v: exit $?"; rc=1; }
    grep -E "^(lz4|snappy) +$v|FAILED|launch|error" $O/check-$v.txt | cut -c1-150
  done
  head -c 4194304 $S/text_linux_docs.txt >/tmp/lz-enc-4m.bin
  head -c 2097152 $S/tpch_l_orderkey.i64 >>/tmp/lz-enc-4m.bin
  timeout 150 compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 5 $X --min-bytes 4M --repeats 1 \
    --variants multi1,multi2,ht12-multi2 /tmp/lz-enc-4m.bin >$O/memcheck.txt 2>&1 || { echo "memcheck exit $?"; rc=1; }
  grep -E "ERROR SUMMARY|all outputs|FAILED" $O/memcheck.txt
  head -c 1048576 /tmp/lz-enc-4m.bin >/tmp/lz-enc-1m.bin
  timeout 150 compute-sanitizer --tool racecheck --error-exitcode 99 --print-limit 5 $X --min-bytes 1M --repeats 1 \
    --variants multi2,ht12-multi2 /tmp/lz-enc-1m.bin >$O/racecheck.txt 2>&1 || { echo "racecheck exit $?"; rc=1; }
  grep -E "RACECHECK SUMMARY|ERROR SUMMARY|all outputs|FAILED" $O/racecheck.txt
  exit $rc
fi
echo "== lz_enc_dev: the library's compressors and the variants, 1 GiB of 64 KiB chunks of the mix"
timeout 150 $X --repeats 5 $F 2>&1 | tee $O/time.txt | cut -c1-160 || rc=1
echo "== oc_gpu_bench: nVCOMP and opencomp LZ4 / Snappy compression (64 KiB, 1 GiB)"
timeout 60 $B/bench/gpu/oc_gpu_bench --codecs lz4,snappy --chunks 64K --sizes 1G --stock none --budget 40 \
  --json $O/bench.json $F >$O/bench.txt 2>&1 || rc=1
grep -iE "compress" $O/bench.txt | head -n 12
echo "== ncu: the library's LZ4 kernel, ht12-multi2 and multi2 (64 MiB)"
timeout 90 ncu --clock-control none --kernel-name regex:"compress_kernel" --launch-count 6 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats \
  --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis \
  $X --algo lz4 --min-bytes 64M --repeats 1 --variants ht12-multi2,multi2 $F >$O/ncu.txt 2>&1 || rc=1
grep -E "^  [a-z_0-9<>, ]*compress_kernel|^\s+(Duration|Issued Warp Per Scheduler|Executed Instructions|Achieved Active Warps Per SM|L1/TEX Hit Rate|Registers Per Thread|Theoretical Active Warps per SM|Stall Long Scoreboard|Warp Cycles Per Issued Instruction) " \
  $O/ncu.txt | sed 's/  */ /g' | cut -c1-120
exit $rc
