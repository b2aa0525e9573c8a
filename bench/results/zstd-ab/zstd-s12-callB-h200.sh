#!/usr/bin/env bash
# zstd.sh - helper "zstd", session 12 call B: one H200, <= 180 s wall, build included.
# Issue 18's zstd decode rows at 64 KiB - 1 MiB (0.41-0.47x nVCOMP; bench/gpu/zstd/NOTES.md "Run 12").
# (order: build, A/B 1 MiB, ncu ours, ncu nVCOMP, A/B 256 KiB, rows; what time cuts is owed to B2)
# 1. build oc_gpu_bench, zstd_lanes_q (v6q) and zstd_bigframe (dev: small v9 CTAs --v9cfg 7-10, per-chunk MINB 3/5 --minb);
# 2. A/B, same process, 1 GiB of libzstd -3 frames: library per-chunk (what 256 KiB - 1 MiB take today)
#    vs per-chunk MINB 3/5 vs v9 small CTAs 1+1 (2 and 4 slots), 1+2, 2+2; 1 MiB text + source, 256 KiB text;
# 2b. v6q (64 KiB: a round's batches by lane quarters) vs library-auto, and its damaged chunks;
# 3. ncu of the library at full scale (1 GiB, libzstd -3 frames of the mix): zd_decode_kernel at 1 MiB,
#    zl_decode_kernel at 64 KiB (SourceCounters: per-line stalls and the time split by part);
# 4. ncu of nVCOMP's zstd decode on the same input (256 MiB; kernels, launch shapes, time each);
# 4b. the same A/B at 256 KiB (text);
# 5. the full-scale rows: oc_gpu_bench --codecs zstd --chunks 64K,256K,1M --sizes 1G, ours and libzstd's
#    frames, opencomp vs nvcomp.
set -u
T0=$(date +%s)
el() { echo $(($(date +%s) - T0)); }
left() { echo $((175 - $(el))); }
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
[ -d bench/corpus-sample ] || { [ -d "$C" ] && ln -s "$C" bench/corpus-sample; }
step() { # name timeout cmd...: runs, logs to $RES/name.txt, prints rc
  local name=$1 to=$2; shift 2
  local l; l=$(left)
  if [ "$l" -lt 8 ]; then echo "SKIP $name (no time: $(el) s)"; return 0; fi
  [ "$to" -gt "$l" ] && to=$l
  echo "== $name ($(el) s, limit $to s): $*"
  timeout "$to" "$@" >"$RES/$name.txt" 2>&1
  local rc=$?
  echo "   rc $rc ($(el) s)"
  return $rc
}
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
git log --oneline -1 2>/dev/null
which ncu nvdisasm 2>&1 | head -n 2

# 1. build
oc_cmake $B -DOC_BUILD_PYTHON=OFF >"$RES/cmake.txt" 2>&1
echo "cmake rc $? ($(el) s)"
oc_build $B oc_gpu_bench zstd_bigframe zstd_lanes_q >"$RES/build.txt" 2>&1
echo "build rc $? ($(el) s)"
grep -E "error|FAILED" "$RES/build.txt" | head -n 20
BF=$B/bench/gpu/dev/zstd_bigframe
OB=$B/bench/gpu/oc_gpu_bench
TXT=$C/text_linux_docs.txt SRC=$C/source_linux_net.tar
FILES=$(find "$C"/ -maxdepth 1 -type f ! -name "*.md" ! -name "*.sha256" | sort)

# 2. A/B of the designs, same process (median of 3): per-chunk kernel (today's 256 KiB - 1 MiB) vs MINB 3/5
#    vs v9 small CTAs (7: 1+1 R2, 8: 1+1 R4, 9: 1+2 R3, 10: 2+2 R3)
step ab-1M 26 $BF --ooo --no-v8 --minb --v9cfg 7,8,9,10 --chunks 1M --reps 3 $TXT $SRC
grep -hE "chunk|GB/s|FAIL|verified" $RES/ab-1M.txt | head -n 30

# 2b. v6q (zstd_lanes_q: a round's 4 batches executed at once by lane quarters) vs library-auto, same process
LQ=$B/bench/gpu/dev/zstd_lanes_q
step lanes-q 24 $LQ --groups 4 --levels 3 --reps 5 $TXT $C/tpch_l_comment.txt $SRC
grep -hE "GB/s|FAIL|passed" $RES/lanes-q.txt | head -n 8
step lanes-q-damage 14 $LQ --groups 4 --levels 3 --reps 1 --damage --small $TXT
grep -hE "damage|FAIL|passed" $RES/lanes-q-damage.txt | head -n 8

# 3. ncu of the library at full scale (the kernels the 1 GiB rows take), per-line stalls
SECT="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis --section SourceCounters"
lines() { # rep parts...: per-line stalls and the split by part (bench/gpu/dev/ncu_lines.py, nvdisasm here)
  local r=$1; shift
  [ -f "$r" ] || return 0
  python3 bench/gpu/dev/ncu_lines.py "$r" --nvdisasm "$(command -v nvdisasm || echo /usr/local/cuda/bin/nvdisasm)" \
    --top 30 --src "$PWD/src" "$@" >"${r%.ncu-rep}-lines.txt" 2>&1
  ncu --import "$r" --page details >"${r%.ncu-rep}-details.txt" 2>&1
  grep -E "^\s+(Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Issued Warp Per Scheduler|No Eligible|Achieved Active Warps Per SM|Theoretical Active Warps per SM|Registers Per Thread|Warp Cycles Per Issued Instruction|Grid Size|Block Size|Executed Instructions|L1/TEX Hit Rate|L2 Hit Rate) " \
    "${r%.ncu-rep}-details.txt" | sed 's/  */ /g' | head -n 24
  head -n 40 "${r%.ncu-rep}-lines.txt"
  ncu --import "$r" --page source --csv --print-source sass 2>&1 | gzip >"${r%.ncu-rep}-sass.csv.gz"
  gzip -f "$r"
}
PC="--part literals=zstd_dec_block.h:13-116 --part literals=zstd_dec_huf.h:1-400 --part tables=zstd_dec_fse.h:1-400 --part tables=zstd_dec_block.h:117-154 --part exec=zstd_dec_block.h:155-363 --part seqdec=zstd_dec_block.h:364-503 --part seqdec=bitreader.h:1-400 --part seqdec=zstd_dec_common.h:1-200 --part checksum=zstd_decode_core.h:40-55 --part checksum=xxh.h:1-400"
step ncu-oc-1M 36 ncu --clock-control none -k regex:zd_decode_kernel -c 1 $SECT -f -o $RES/ncu-oc-1M \
  $OB --codecs zstd --stock 1M --stock-only --sizes 1G --check-size 1G --contenders opencomp --max-repeats 1 --rung-cap 2 --budget 20 $FILES
lines $RES/ncu-oc-1M.ncu-rep $PC
PL="--part prepare=zstd_dec_lanes.h:172-346 --part lanedec=zstd_dec_lanes.h:347-525 --part lanedec=bitreader.h:1-400 --part exec=zstd_dec_lanes.h:526-569 --part exec=zstd_dec_block.h:155-363 --part group=zstd_dec_lanes.h:570-707 --part literals=zstd_dec_huf.h:1-400 --part literals=zstd_dec_block.h:13-116 --part tables=zstd_dec_fse.h:1-400 --part tables=zstd_dec_block.h:117-154 --part percore=zstd_dec_block.h:364-503 --part checksum=zstd_decode_core.h:40-55 --part checksum=xxh.h:1-400"
step ncu-oc-64K 30 ncu --clock-control none -k regex:zl_decode_kernel -c 1 $SECT -f -o $RES/ncu-oc-64K \
  $OB --codecs zstd --stock 64K --stock-only --sizes 1G --check-size 1G --contenders opencomp --max-repeats 1 --rung-cap 2 --budget 20 $FILES
lines $RES/ncu-oc-64K.ncu-rep $PL

# 4. nVCOMP's decode of the same frames: every kernel of its first calls (names, grid, block, time)
NSECT="--section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats"
for cs in 1M 64K; do
  step ncu-nv-$cs 15 ncu --clock-control none -c 16 $NSECT -f -o $RES/ncu-nv-$cs \
    $OB --codecs zstd --stock $cs --stock-only --sizes 256M --check-size 256M --contenders nvcomp --max-repeats 1 --rung-cap 2 --budget 10 $FILES
  if [ -f $RES/ncu-nv-$cs.ncu-rep ]; then
    ncu --import $RES/ncu-nv-$cs.ncu-rep --page details >$RES/ncu-nv-$cs-details.txt 2>&1
    grep -E "^  [A-Za-z_].*\(|^\s+(Duration|Grid Size|Block Size|Registers Per Thread|Dynamic Shared|Static Shared|Achieved Active Warps Per SM|Issued Warp Per Scheduler|Memory Throughput|Compute \(SM\) Throughput) " \
      $RES/ncu-nv-$cs-details.txt | sed 's/  */ /g' | cut -c1-150 | head -n 70
    gzip -f $RES/ncu-nv-$cs.ncu-rep
  fi
done

# 4b. the same A/B at 256 KiB (4096 frames of 2 blocks)
step ab-256K 14 $BF --ooo --no-v8 --minb --v9cfg 7,8,9,10 --chunks 256K --reps 3 $TXT
grep -hE "chunk|GB/s|FAIL|verified" $RES/ab-256K.txt | head -n 16

# 5. the full-scale rows, ours vs nVCOMP (own streams and libzstd -3 frames)
step rows 30 $OB --codecs zstd --chunks 64K,256K,1M --sizes 1G --stock 64K,256K,1M --contenders opencomp,nvcomp \
  --target 0.1 --max-repeats 3 --rung-cap 3 --budget 26 --json $RES/rows.json $FILES
grep -hiE "decomp" $RES/rows.txt | head -n 20
echo "done ($(el) s)"
