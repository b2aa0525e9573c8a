#!/usr/bin/env bash
# run-lz-smem.sh - the one command the lead runs on the GPU machine for the
# v8 experiment (the split decoder's parse reading its input through shared
# memory; bench/NOTES.md "v8", README.md here), from the repository root,
# carrying bench/corpus-sample-pack and .gpu/bench-deps/debs (snappy's
# .debs; liblz4 is the machine's):
#   1. (with 2., lz-run-prologue.sh) the corpus: bench/unpack --sample (else bench/corpus-sample or
#      bench/corpus-data if present, else bench/gpu/make-corpus.py);
#   2. one nvcc line for this GPU (sm_90), the CPU references linked by path;
#   3. lz_split with the library's decoder, v7's split-r0 and the three v8
#      variants at 64 KiB, 256 KiB and 1 MiB chunks, >= 1 GiB per call,
#      every output byte checked, then damaged chunks' statuses compared;
#   4. compute-sanitizer memcheck, then racecheck, of the v8 variants on a
#      small batch of text and incompressible data, damaged chunks included
#      (time-boxed).
# Aims to end within 4 minutes; the table comes first.  $OUT gets the logs.
set -u
cd "$(dirname "$0")/../../.."
NAME=lz-smem
REGS='smem_parse|split_copy_kernelILj0|lib_' REGS_COLS=140
. bench/gpu/dev/lz-run-prologue.sh
V8=smem-w256-t2,smem-w512-t2,smem-w256-t1

# 3. the table
timeout 190 $B/lz_split --repeats 5 --chunks 65536,262144,1048576 --variants split-r0,$V8 $files 2>&1 |
  tee "$OUT/lz_smem.log"
rc=${PIPESTATUS[0]}
echo "run-lz-smem: lz_split exit $rc after $((SECONDS - T0)) s"

# 4. sanitizers on a small batch: 1 MiB of text + 1 MiB of the least
#    compressible file (LZ4 length runs longer than a 256-byte window: the
#    slow phases), 64 KiB and 1 MiB chunks, damaged chunks included
left=$((225 - (SECONDS - T0)))
if [ $left -gt 30 ] && command -v compute-sanitizer >/dev/null; then
  T=$(echo $files | tr ' ' '\n' | grep -m1 text || echo $files | cut -d' ' -f1)
  I=$(echo $files | tr ' ' '\n' | grep -m1 weights || echo $files | tr ' ' '\n' | grep -m1 partkey.i32 ||
    echo $files | cut -d' ' -f1)
  S=/tmp/lz-smem-sanitize.bin
  { head -c 1048576 "$T"; head -c 1048576 "$I"; } >"$S"
  timeout $((left * 3 / 5)) compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 5 $B/lz_split \
    --chunks 65536,1048576 --min-bytes 2097152 --repeats 1 --variants $V8 "$S" >"$OUT/memcheck.log" 2>&1
  echo "memcheck rc $? (0 = clean; 124 = out of time)"; tail -n 3 "$OUT/memcheck.log"
  left=$((235 - (SECONDS - T0)))
  [ $left -gt 15 ] && {
    timeout $left compute-sanitizer --tool racecheck --error-exitcode 99 --print-limit 5 $B/lz_split \
      --chunks 65536 --min-bytes 2097152 --repeats 1 --variants $V8 "$S" >"$OUT/racecheck.log" 2>&1
    echo "racecheck rc $? (0 = clean; 124 = out of time)"; tail -n 3 "$OUT/racecheck.log"
  }
fi
echo "run-lz-smem: done in $((SECONDS - T0)) s, exit $rc"
exit $rc
