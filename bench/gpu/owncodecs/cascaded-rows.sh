#!/usr/bin/env bash
# cascaded-rows.sh - run THERE (the GPU machine, repository root): the
# Cascaded rows of `full-scale --typed` alone (*.i64 as <i8, *.i32 as <i4,
# nvCOMP's default layers), opencomp beside nvCOMP, 64 KiB chunks, 1 GiB
# per call, every output verified, in about two minutes instead of the
# whole typed run (written for the decoder v2, NOTES.md "Cascaded decode").
#
#   bench/gpu/owncodecs/cascaded-rows.sh [BUILD]
#
# BUILD, corpus and libraries as ans-rows.sh (beside this file).
# $OUT: cz-i64.json, cz-i32.json, their logs; the summary on stdout.
set -uo pipefail
cd "$(dirname "$0")/../../.."
BUILD=${1:-$PWD/build-full-scale}
BENCH=$BUILD/bench/gpu/oc_gpu_bench
OUTDIR=${OUT:-/tmp/cascaded-rows}
mkdir -p "$OUTDIR"
export LD_LIBRARY_PATH=/tmp/oc-prefix/usr/lib/x86_64-linux-gnu:/tmp/oc-site/nvidia/libnvcomp/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x "$BENCH" ] || { echo "cascaded-rows.sh: no $BENCH"; exit 1; }
C=bench/corpus-sample
if ! ls $C/*.i32 >/dev/null 2>&1 && [ -f bench/corpus-sample-pack/SAMPLE ]; then
  python3 bench/unpack --sample 2>&1 | tail -n 1
fi
ls $C/*.i32 >/dev/null 2>&1 || C=bench/corpus-data
COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || cat .commit 2>/dev/null || echo unknown)
rc=0
timeout 80 "$BENCH" --json "$OUTDIR/cz-i64.json" --commit "$COMMIT" --label "cascaded rows, <i8" --per-file \
  --chunks 64K --sizes 1G --stock none --codecs cascaded --data-type '<i8' --budget 50 $C/*.i64 \
  >"$OUTDIR/cz-i64.log" 2>&1 || rc=1
timeout 80 "$BENCH" --json "$OUTDIR/cz-i32.json" --commit "$COMMIT" --label "cascaded rows, <i4" --per-file \
  --chunks 64K --sizes 1G --stock none --codecs cascaded --data-type '<i4' --budget 50 $C/tpch_*.i32 \
  >"$OUTDIR/cz-i32.log" 2>&1 || rc=1
grep -hE "not run|^oc_gpu_bench:|^FAILED" "$OUTDIR"/cz-*.log | head -n 8
python3 bench/report.py --summary "$OUTDIR"/cz-*.json || rc=1
exit $rc
