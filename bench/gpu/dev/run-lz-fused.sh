#!/usr/bin/env bash
# run-lz-fused.sh - the one command the lead runs on the GPU machine for the
# v9 experiment (the LZ4 split decoder with its copy running during its
# parse; bench/NOTES.md "v9", dev_lz_fused.cuh), from the repository root,
# carrying bench/corpus-sample-pack and .gpu/bench-deps/debs (snappy's
# .debs, which lz_split links; liblz4 is the machine's):
#   1. the corpus: bench/unpack --sample (else bench/corpus-sample or
#      bench/corpus-data if present, else bench/gpu/make-corpus.py);
#   2. one nvcc line for this GPU (sm_90), the CPU references linked by path;
#   3. lz_split, LZ4 only, with its copy of the library's pipe decoder, v8's
#      smem-w512-t2 (parse, then copy) and v9's fused-w512 (both at once) at
#      64 KiB and 256 KiB chunks, >= 1 GiB per call: every output byte
#      checked against the corpus (compressed by liblz4, which reads each
#      chunk back first), then damaged chunks' statuses and sizes compared
#      with the pipe's;
#   4. compute-sanitizer memcheck of fused-w512 on a small batch of text and
#      incompressible data, damaged chunks included (time-boxed).
# Aims to end within 4 minutes; the table comes first.  $OUT gets the logs.
set -u
cd "$(dirname "$0")/../../.."
T0=$SECONDS
OUT=${OUT:-/tmp/lz-fused-out}
B=/tmp/lz-fused-build
mkdir -p "$OUT" "$B"
export PATH=/usr/local/cuda/bin:$PATH
ARCH=${ARCH:-sm_90}

# 1. corpus
if [ -f bench/corpus-sample-pack/SAMPLE ] && ! ls bench/corpus-sample/* >/dev/null 2>&1; then
  python3 bench/unpack --sample 2>&1 | tail -n 1
fi
if ls bench/corpus-sample/* >/dev/null 2>&1; then
  CORPUS=bench/corpus-sample
elif ls bench/corpus-data/* >/dev/null 2>&1; then
  CORPUS=bench/corpus-data
else
  CORPUS=/tmp/lz-fused-corpus
  python3 bench/gpu/make-corpus.py "$CORPUS" 8
fi
files=$(find "$CORPUS/" -maxdepth 1 -type f ! -name '*.md' ! -name '*.sha256' | sort)
echo "run-lz-fused: corpus $CORPUS, $(echo $files | wc -w) files; $((SECONDS - T0)) s"

# 2. build (CPU references by path: no -dev packages needed)
P=/tmp/oc-prefix
mkdir -p "$P"
for d in .gpu/bench-deps/debs/libsnappy*.deb; do [ -f "$d" ] && dpkg -x "$d" "$P"; done
lib() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return; }; done; }
M=/usr/lib/x86_64-linux-gnu
LZ4=$(lib $M/liblz4.so $M/liblz4.so.1 /usr/lib/liblz4.so /usr/local/lib/liblz4.so)
SNAPPY=$(lib $P$M/libsnappy.so $P$M/libsnappy.so.1 $M/libsnappy.so $M/libsnappy.so.1)
[ -n "$LZ4" ] && [ -n "$SNAPPY" ] || { echo "run-lz-fused: liblz4 ($LZ4) or libsnappy ($SNAPPY) not found"; exit 1; }
export LD_LIBRARY_PATH=$P$M${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! nvcc -std=c++17 -O3 -lineinfo -arch=$ARCH -Werror=all-warnings --expt-relaxed-constexpr \
     -Xcompiler -Wall,-Wextra -Xptxas -v -Iinclude -Isrc bench/gpu/dev/lz_split.cu -o $B/lz_split \
     "$LZ4" "$SNAPPY" >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log"; echo "run-lz-fused: build FAILED"; exit 1
fi
grep -E "Compiling entry|registers" "$OUT/build.log" | sed -E 's/.*(function|Used)/\1/' | paste - - |
  grep -E "fused|smem_parse_kernelILb0ELj512|split_copy_kernelILj0" | cut -c1-140
echo "run-lz-fused: built in $((SECONDS - T0)) s"

# 3. the table
timeout 200 $B/lz_split --algo lz4 --repeats 5 --chunks 65536,262144 --variants smem-w512-t2,fused-w512 $files 2>&1 |
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
    --algo lz4 --chunks 65536 --min-bytes 2097152 --repeats 1 --variants fused-w512 "$S" >"$OUT/memcheck.log" 2>&1
  echo "memcheck rc $? (0 = clean; 124 = out of time)"; tail -n 3 "$OUT/memcheck.log"
fi
echo "run-lz-fused: done in $((SECONDS - T0)) s, exit $rc"
exit $rc
