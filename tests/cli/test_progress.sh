#!/usr/bin/env bash
# test_progress.sh - the progress bar: drawn on stderr (percentage and MiB/s)
# when stderr is a terminal and the input is over 64 MiB, erased at the end;
# never drawn with -q, when stderr is not a terminal, or for small inputs.
# The terminal comes from `script` (util-linux).
source "$(dirname "$0")/lib.sh"
command -v script > /dev/null 2>&1 || die "script (util-linux) is needed for a terminal"

# 80 MiB of real bytes: binaries, then text, repeated.
{ cat /usr/bin/* 2> /dev/null | head -c 60000000; for _ in $(seq 1 700); do cat /usr/share/common-licenses/GPL-3 2> /dev/null || cat "$SRC_DIR"/include/opencomp.h; done; } | head -c 83886080 > big.bin
[ "$(stat -c %s big.bin)" -gt 67108864 ] || die "could not make an input over 64 MiB"

script -qec "$OC -a lz4 -T 2 -o big.lz4 big.bin" /dev/null > tty.out 2>&1 || fail "compress under a terminal failed: $(tr -cd '[:print:]' < tty.out | head -c 300)"
grep -aq '%' tty.out && grep -aq 'MiB/s' tty.out || fail "no progress bar on a terminal: $(tr -cd '[:print:]' < tty.out | head -c 300)"
grep -aq $'\033\[K' tty.out || fail "the progress bar was not erased at the end"
script -qec "$OC -d -T 2 -o big.back big.lz4" /dev/null > tty2.out 2>&1 || fail "decompress under a terminal failed"
grep -aq 'MiB/s' tty2.out || fail "no progress bar while decompressing"
same big.back big.bin "round trip with a progress bar"
rm -f big.lz4 big.back

script -qec "$OC -q -a lz4 -o big.lz4 big.bin" /dev/null > quiet.out 2>&1 || fail "compress -q under a terminal failed"
[ ! -s quiet.out ] || fail "-q still printed: $(tr -cd '[:print:]' < quiet.out | head -c 300)"
rm -f big.lz4
"$OC" -a lz4 -o big.lz4 big.bin 2> notty.err || fail "compress without a terminal failed"
[ ! -s notty.err ] || fail "progress drawn although stderr is not a terminal: $(head -c 200 notty.err)"
head -c 1000000 big.bin > small.bin
script -qec "$OC -a lz4 -o small.lz4 small.bin" /dev/null > small.out 2>&1 || fail "small compress failed"
[ ! -s small.out ] || fail "progress drawn for a 1 MB input"
finish
