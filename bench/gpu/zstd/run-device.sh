#!/usr/bin/env bash
# run-device.sh - what run 3 executed on the GPU machine (from the copied
# tree's bench/gpu/zstd; data = the first 16 MiB of each corpus file,
# zstd-compressed, in ../../../data).  Builds for sm_90, runs compute-sanitizer
# memcheck on the damage set, the per-phase profile, then the full harness.
set -u
OUT=${OUT:-/tmp/zstd-out}
mkdir -p "$OUT"
make -j8 BUILD=/tmp/b GENCODE='-arch=sm_90' all prof >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
D=../../../data
timeout 60 compute-sanitizer --tool memcheck --print-limit 5 /tmp/b/zstd_harness --damage --quick --reps 0 \
  --min-bytes 0 --max-bytes 400000 $D/text_linux_docs.txt.zst >"$OUT/sanitizer.log" 2>&1
echo "sanitizer rc $?"
timeout 60 /tmp/b/zstd_harness_prof --quick --reps 0 --min-bytes 67108864 --max-bytes 4194304 \
  $D/text_linux_docs.txt.zst $D/elf_gdb_cmake_libstdcxx.tar.zst >"$OUT/profile.log" 2>&1
timeout 300 /tmp/b/zstd_harness --damage --variants $D/*.zst >"$OUT/harness.log" 2>&1
echo "harness rc $?"
