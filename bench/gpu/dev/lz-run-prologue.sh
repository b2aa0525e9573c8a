# lz-run-prologue.sh - the steps that run-lz-split.sh, run-lz-smem.sh and
# run-lz-fused.sh share, written once; each sources it from the repository
# root (after its `cd`) with NAME set (lz-split, lz-smem, lz-fused: the
# name of its messages and of its /tmp folders) and, if it likes, REGS (a
# grep -E pattern: the kernels whose register counts it prints; all by
# default) and REGS_COLS (how much of each such line; 110 by default):
#   1. the corpus: bench/unpack --sample (else bench/corpus-sample or
#      bench/corpus-data if present, else bench/gpu/make-corpus.py), in
#      CORPUS, its files in `files`;
#   2. one nvcc line for this GPU (ARCH, sm_90 by default), the CPU
#      references (liblz4 of the machine, libsnappy from
#      .gpu/bench-deps/debs) linked by path, into $B/lz_split.
# It sets T0 (the start, for the callers' time boxes), OUT (the logs;
# $OUT if set), B, PATH and LD_LIBRARY_PATH, and exits the shell on a
# failed build.
T0=$SECONDS
OUT=${OUT:-/tmp/$NAME-out}
B=/tmp/$NAME-build
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
  CORPUS=/tmp/$NAME-corpus
  python3 bench/gpu/make-corpus.py "$CORPUS" 8
fi
files=$(find "$CORPUS" -maxdepth 1 -type f ! -name '*.md' ! -name '*.sha256' | sort)
echo "run-$NAME: corpus $CORPUS, $(echo $files | wc -w) files; $((SECONDS - T0)) s"

# 2. build (CPU references by path: no -dev packages needed)
P=/tmp/oc-prefix
mkdir -p "$P"
for d in .gpu/bench-deps/debs/libsnappy*.deb; do [ -f "$d" ] && dpkg -x "$d" "$P"; done
lib() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return; }; done; }
M=/usr/lib/x86_64-linux-gnu
LZ4=$(lib $M/liblz4.so $M/liblz4.so.1 /usr/lib/liblz4.so /usr/local/lib/liblz4.so)
SNAPPY=$(lib $P$M/libsnappy.so $P$M/libsnappy.so.1 $M/libsnappy.so $M/libsnappy.so.1)
[ -n "$LZ4" ] && [ -n "$SNAPPY" ] || { echo "run-$NAME: liblz4 ($LZ4) or libsnappy ($SNAPPY) not found"; exit 1; }
export LD_LIBRARY_PATH=$P$M${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! nvcc -std=c++17 -O3 -lineinfo -arch=$ARCH -Werror=all-warnings --expt-relaxed-constexpr \
     -Xcompiler -Wall,-Wextra -Xptxas -v -Iinclude -Isrc bench/gpu/dev/lz_split.cu -o $B/lz_split \
     "$LZ4" "$SNAPPY" >"$OUT/build.log" 2>&1; then
  tail -n 30 "$OUT/build.log"; echo "run-$NAME: build FAILED"; exit 1
fi
grep -E "Compiling entry|registers" "$OUT/build.log" | sed -E 's/.*(function|Used)/\1/' | paste - - |
  grep -E "${REGS:-.}" | cut -c1-"${REGS_COLS:-110}"
echo "run-$NAME: built in $((SECONDS - T0)) s"
