#!/usr/bin/env bash
# run-lz-split.sh - the one command the lead runs on the GPU machine for the
# split LZ4/Snappy decoder experiment (v7, bench/NOTES.md "v7"; README.md
# here), from the repository root, carrying bench/corpus-sample-pack and
# .gpu/bench-deps/debs (snappy's .debs; liblz4 is the machine's):
#   1. (with 2., lz-run-prologue.sh) the corpus: bench/unpack --sample (else bench/corpus-sample or
#      bench/corpus-data if present, else bench/gpu/make-corpus.py);
#   2. one nvcc line for this GPU (sm_90), the CPU references linked by path;
#   3. lz_split: the library's decoder and the split variants at 64 KiB,
#      256 KiB, 1 MiB and 4 MiB chunks, >= 1 GiB per call, every output
#      byte checked, then damaged chunks' statuses compared;
#   4. compute-sanitizer memcheck and racecheck on a small batch (time-boxed).
# Aims to end within 5 minutes; the table comes first.  $OUT gets the logs.
set -u
cd "$(dirname "$0")/../../.."
NAME=lz-split
. bench/gpu/dev/lz-run-prologue.sh

# 3. the table
timeout 270 $B/lz_split --repeats 5 $files 2>&1 | tee "$OUT/lz_split.log"
rc=${PIPESTATUS[0]}
echo "run-lz-split: lz_split exit $rc after $((SECONDS - T0)) s"

# 4. sanitizers on a small batch (what is left of ~5 minutes)
left=$((290 - (SECONDS - T0)))
if [ $left -gt 40 ] && command -v compute-sanitizer >/dev/null; then
  F=$(echo $files | tr ' ' '\n' | grep -m1 text || echo $files | cut -d' ' -f1)
  S=/tmp/lz-split-sanitize.bin
  head -c 2097152 "$F" >"$S"
  timeout $((left / 2)) compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 5 $B/lz_split \
    --chunks 65536,1048576 --min-bytes 2097152 --repeats 1 "$S" >"$OUT/memcheck.log" 2>&1
  echo "memcheck rc $? (0 = clean; 124 = out of time)"; tail -n 3 "$OUT/memcheck.log"
  left=$((295 - (SECONDS - T0)))
  [ $left -gt 20 ] && {
    timeout $left compute-sanitizer --tool racecheck --error-exitcode 99 --print-limit 5 $B/lz_split \
      --chunks 65536 --min-bytes 2097152 --repeats 1 "$S" >"$OUT/racecheck.log" 2>&1
    echo "racecheck rc $? (0 = clean; 124 = out of time)"; tail -n 3 "$OUT/racecheck.log"
  }
fi
echo "run-lz-split: done in $((SECONDS - T0)) s, exit $rc"
exit $rc
