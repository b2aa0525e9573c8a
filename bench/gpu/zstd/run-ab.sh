#!/usr/bin/env bash
# run-ab.sh - run THERE (the GPU machine, from the repository root): an A/B
# of a GPU codec (zstd unless --codecs says otherwise) with the full-scale
# instrument, both builds on the same device in one command, plus an Nsight
# Compute profile of the new one.
#
#   bench/gpu/zstd/run-ab.sh BASEDIR [--typed]
#   bench/gpu/zstd/run-ab.sh BASEDIR --codecs LIST [--chunks LIST]
#
# BASEDIR holds the baseline's versions of the files the change touched, at
# their paths relative to the repository root (an ignored folder carried
# along, e.g. made here with `git show BASE:path > BASEDIR/path`).  The
# working tree is "new"; a copy with BASEDIR laid over it is "base".  Each is
# built and timed by bench/gpu/full-scale with zstd only, 1 GiB per call, at
# 64 KiB, 1 MiB and 4 MiB chunks plus libzstd -3 frames of 1 and 4 MiB;
# nvCOMP runs beside "new" only (it is the same library both times).
# With --typed, both trees run `full-scale --typed` instead (the typed
# codecs of issue 18 beside nvCOMP's), and there is no ncu step.
# With --codecs (e.g. lz4,snappy), those codecs instead of zstd, 1 GiB per
# call at --chunks (default 64K,256K,1M), no stock streams; the ncu step
# profiles the first codec's main decode kernel (zstd: zd_decode, lz4 and
# snappy: the split decoder's parse) at 64 KiB.
# Why: timings compare only within one device, so the baseline is re-run here
# rather than taken from an earlier run.
# $OUT: new.json, base.json, ncu.txt, logs.tgz.
set -uo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$PWD
BASEDIR=${1:?usage: run-ab.sh BASEDIR [--typed | --codecs LIST [--chunks LIST]]}
shift
TYPED="" CODECS=zstd CHUNKS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --typed) TYPED=--typed ;;
    --codecs) CODECS=$2; shift ;;
    --chunks) CHUNKS=$2; shift ;;
    *) echo "run-ab.sh: unknown argument $1"; exit 2 ;;
  esac
  shift
done
OUTDIR=${OUT:-/tmp/ab-out}
mkdir -p "$OUTDIR" /tmp/ab-new /tmp/ab-base-out
# seconds: new's budget and limit, base's, ncu's (within one 600 s device command)
if [ "$CODECS" = zstd ]; then
  ARGS="--codecs zstd --chunks ${CHUNKS:-64K,1M,4M} --sizes 1G --rung-cap 12"
  T_NEW=230 TO_NEW=280 T_BASE=200 TO_BASE=250 TO_NCU=120
else
  ARGS="--codecs $CODECS --chunks ${CHUNKS:-64K,256K,1M} --sizes 1G --rung-cap 12 --stock none"
  T_NEW=200 TO_NEW=240 T_BASE=170 TO_BASE=210 TO_NCU=100
fi
case "${CODECS%%,*}" in
  zstd) KERNEL=zd_decode ;;
  lz4 | snappy) KERNEL=oc_lzs_parse_kernel ;;
  *) KERNEL="" ;;
esac

echo "== new"
if [ "$TYPED" = --typed ]; then
  OUT=/tmp/ab-new OC_BENCH_BUILD=/tmp/build-new timeout 280 bench/gpu/full-scale --typed | tail -n 40
else
  OUT=/tmp/ab-new OC_BENCH_BUILD=/tmp/build-new OC_BENCH_ARGS="$ARGS" OC_BENCH_PY_BUDGET=0 OC_BENCH_TOTAL=$T_NEW \
    timeout $TO_NEW bench/gpu/full-scale | tail -n 25
fi

echo "== base"
BASE=/tmp/ab-base
rm -rf "$BASE" && mkdir -p "$BASE/bench"
tar -C "$ROOT" --exclude=./.gpu --exclude=./bench/corpus-sample --exclude=./bench/corpus-sample-pack \
  --exclude=./bench/corpus-data --exclude="./build*" -cf - . | tar -C "$BASE" -xf -
cp -r "$ROOT/$BASEDIR/." "$BASE/"
cp -r "$ROOT/bench/corpus-sample" "$BASE/bench/corpus-sample" # a copy: find does not follow a link
if [ "$TYPED" = --typed ]; then
  OUT=/tmp/ab-base-out OC_BENCH_DEPS=$ROOT/.gpu/bench-deps OC_BENCH_BUILD=/tmp/build-base \
    timeout 250 "$BASE/bench/gpu/full-scale" --typed | tail -n 32
  tar -czf "$OUTDIR/logs.tgz" -C /tmp ab-new ab-base-out 2>/dev/null
  exit 0
fi
OUT=/tmp/ab-base-out OC_BENCH_DEPS=$ROOT/.gpu/bench-deps OC_BENCH_BUILD=/tmp/build-base \
  OC_BENCH_ARGS="$ARGS --contenders opencomp" OC_BENCH_PY_BUDGET=0 OC_BENCH_TOTAL=$T_BASE \
  timeout $TO_BASE "$BASE/bench/gpu/full-scale" | tail -n 15

if [ -n "$KERNEL" ]; then
  echo "== ncu (new, $KERNEL, 256 MiB of 64 KiB chunks)"
  export LD_LIBRARY_PATH=/tmp/oc-prefix/usr/lib/x86_64-linux-gnu:/tmp/oc-site/nvidia/libnvcomp/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  files=$(find bench/corpus-sample -maxdepth 1 -type f ! -name '*.md' ! -name '*.sha256' | sort)
  timeout $TO_NCU ncu --clock-control none --kernel-name regex:$KERNEL --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats \
    --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
    /tmp/build-new/bench/gpu/oc_gpu_bench --codecs "${CODECS%%,*}" --chunks 64K --sizes 256M --stock none \
    --contenders opencomp --max-repeats 2 $files >"$OUTDIR/ncu.txt" 2>&1
  echo "ncu rc $?"
  grep -E "Issue Slots Busy|Issued Warp Per Scheduler|No Eligible|Active Warps Per Scheduler|Eligible Warps|Warp Cycles Per Issued|Achieved Occupancy|Registers Per|Executed Ipc A|Duration" "$OUTDIR/ncu.txt" | head -n 20
fi

cp /tmp/ab-new/full-scale.json "$OUTDIR/new.json" 2>/dev/null
cp /tmp/ab-base-out/full-scale.json "$OUTDIR/base.json" 2>/dev/null
tar -czf "$OUTDIR/logs.tgz" -C /tmp ab-new ab-base-out 2>/dev/null
echo
echo "== base"
python3 bench/report.py --summary "$OUTDIR/base.json" 2>&1 | sed -n '3,12p'
echo "== new"
python3 bench/report.py --summary "$OUTDIR/new.json" 2>&1 | sed -n '1,12p'
