#!/usr/bin/env bash
# run-lz-fused.sh - the one command the lead runs on the GPU machine for the
# v9 experiment (the LZ4 split decoder with its copy running during its
# parse; bench/NOTES.md "v9", "v9 in the library"), from the repository root,
# carrying bench/corpus-sample-pack and .gpu/bench-deps/debs (snappy's
# .debs, which lz_split links; liblz4 is the machine's):
#   1. (with 2., lz-run-prologue.sh) the corpus: bench/unpack --sample (else bench/corpus-sample or
#      bench/corpus-data if present, else bench/gpu/make-corpus.py);
#   2. one nvcc line for this GPU (sm_90), the CPU references linked by path;
#   3. lz_split, LZ4 only, with its copy of the library's pipe decoder, v8's
#      smem-w512-t2 (parse, then copy) and library-split (v9 in the library:
#      src/cuda/codecs/lz4/lz4_kernels.cu, both kernels at once) at
#      64 KiB and 256 KiB chunks, >= 1 GiB per call: every output byte
#      checked against the corpus (compressed by liblz4, which reads each
#      chunk back first), then damaged chunks' statuses and sizes compared
#      with the pipe's;
#   4. compute-sanitizer memcheck of library-split on a small batch of text and
#      incompressible data, damaged chunks included (time-boxed).
# Aims to end within 4 minutes; the table comes first.  $OUT gets the logs.
set -u
cd "$(dirname "$0")/../../.."
NAME=lz-fused
REGS='oc_lz4_split|smem_parse_kernelILb0ELj512|split_copy_kernelILj0' REGS_COLS=140
. bench/gpu/dev/lz-run-prologue.sh

# 3. the table
timeout 200 $B/lz_split --algo lz4 --repeats 5 --chunks 65536,262144 --variants smem-w512-t2,library-split $files 2>&1 |
  tee "$OUT/lz_fused.log"
rc=${PIPESTATUS[0]}
echo "run-lz-fused: lz_split exit $rc after $((SECONDS - T0)) s"

# 4. memcheck on a small batch: 1 MiB of text + 1 MiB of the least
#    compressible file (length runs longer than a window), 64 KiB chunks
left=$((230 - (SECONDS - T0)))
if [ $left -gt 30 ] && command -v compute-sanitizer >/dev/null; then
  T=$(echo $files | tr ' ' '\n' | grep -m1 text || echo $files | cut -d' ' -f1)
  I=$(echo $files | tr ' ' '\n' | grep -m1 weights || echo $files | tr ' ' '\n' | grep -m1 partkey.i32 ||
    echo $files | cut -d' ' -f1)
  S=/tmp/lz-fused-sanitize.bin
  { head -c 1048576 "$T"; head -c 1048576 "$I"; } >"$S"
  timeout $left compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 5 $B/lz_split \
    --algo lz4 --chunks 65536 --min-bytes 2097152 --repeats 1 --variants library-split "$S" >"$OUT/memcheck.log" 2>&1
  echo "memcheck rc $? (0 = clean; 124 = out of time)"; tail -n 3 "$OUT/memcheck.log"
fi
echo "run-lz-fused: done in $((SECONDS - T0)) s, exit $rc"
exit $rc
