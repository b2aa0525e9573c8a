#!/usr/bin/env bash
# ans-rows.sh - run THERE (the GPU machine, repository root): the ANS rows
# of `full-scale --typed` alone (text files as |u1, bf16 weights in <f2
# mode), opencomp beside nvCOMP, 64 KiB chunks, 1 GiB per call, every
# output verified, in about two minutes instead of the whole typed run.
#
#   bench/gpu/owncodecs/ans-rows.sh [BUILD]
#
# BUILD: a CMake build of this tree with the CUDA engine and nvCOMP
# (OC_NVCOMP_ROOT) that has bench/gpu/oc_gpu_bench, e.g. the one
# bench/gpu/full-scale makes (build-full-scale, the default) or the lead's
# verification build.  The corpus: bench/corpus-sample (bench/unpack
# --sample) or bench/corpus-data.  Needs the libraries full-scale unpacks
# (/tmp/oc-prefix, /tmp/oc-site) on LD_LIBRARY_PATH, as profile.sh does.
# $OUT: ans-txt.json, ans-bf16.json, their logs; the summary on stdout.
set -uo pipefail
cd "$(dirname "$0")/../../.."
BUILD=${1:-$PWD/build-full-scale}
BENCH=$BUILD/bench/gpu/oc_gpu_bench
OUTDIR=${OUT:-/tmp/ans-rows}
mkdir -p "$OUTDIR"
export LD_LIBRARY_PATH=/tmp/oc-prefix/usr/lib/x86_64-linux-gnu:/tmp/oc-site/nvidia/libnvcomp/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -x "$BENCH" ] || { echo "ans-rows.sh: no $BENCH"; exit 1; }
C=bench/corpus-sample
if ! ls $C/*.txt >/dev/null 2>&1 && [ -f bench/corpus-sample-pack/SAMPLE ]; then
  python3 bench/unpack --sample 2>&1 | tail -n 1
fi
ls $C/*.txt >/dev/null 2>&1 || C=bench/corpus-data
COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || cat .commit 2>/dev/null || echo unknown)
# bf16 weights as full-scale --typed makes them (the high halves of the f32 weights)
mkdir -p /tmp/oc-typed
for f in $C/*.f32; do
  [ -f "$f" ] || continue
  python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); o = bytearray(len(b) // 2)
o[0::2] = b[2::4]; o[1::2] = b[3::4]; open(sys.argv[2], "wb").write(o)' "$f" "/tmp/oc-typed/$(basename "$f" .f32).bf16"
done
rc=0
timeout 110 "$BENCH" --json "$OUTDIR/ans-txt.json" --commit "$COMMIT" --label "ans rows, |u1" --per-file \
  --chunks 64K --sizes 1G --stock none --codecs ans --data-type '|u1' --budget 80 $C/*.txt \
  >"$OUTDIR/ans-txt.log" 2>&1 || rc=1
timeout 70 "$BENCH" --json "$OUTDIR/ans-bf16.json" --commit "$COMMIT" --label "ans rows, bf16" --per-file \
  --chunks 64K --sizes 1G --stock none --codecs ans --data-type bf16 --budget 45 /tmp/oc-typed/*.bf16 \
  >"$OUTDIR/ans-bf16.log" 2>&1 || rc=1
grep -hE "not run|^oc_gpu_bench:|^FAILED" "$OUTDIR"/ans-*.log | head -n 8
python3 bench/report.py --summary "$OUTDIR"/ans-*.json || rc=1
exit $rc
