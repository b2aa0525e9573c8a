#!/usr/bin/env bash
# test_golden.sh - exact stderr and exit status of error cases, compared
# with tests/cli/golden/NAME.stderr and NAME.exit (zstd's tests/cli-tests
# idea): error messages are part of the interface.  Each case runs in a
# scratch folder holding doc (generated text), doc.zst (exists), plain.txt and
# corrupt.zst (a valid file with bytes flipped in a chunk).
# OC_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
source "$(dirname "$0")/lib.sh"
GOLDEN=$SRC_DIR/tests/cli/golden

# A fixed input (pure arithmetic, the same bytes everywhere and forever).
python3 -c '
import sys
words = "the quick brown fox jumps over a lazy dog while opencomp compresses chunks".split()
out = []
for i in range(6000):
    out.append("line %d: %s %s %s %d\n" % (i, words[i % 13], words[(i * 7) % 13], words[(i * i) % 13], (i * i) % 977))
sys.stdout.write("".join(out))' > doc
cp doc doc2
"$OC" -q -o doc.zst doc || die "setup: compress"
cp doc plain.txt
"$OC" -q --chunk-size 4K -o corrupt.zst doc || die "setup: compress corrupt.zst"
# Flip 16 bytes in the payload of the third chunk (offset ~ 40% of the file).
python3 -c '
import sys
b = bytearray(open("corrupt.zst", "rb").read())
at = len(b) * 2 // 5
for i in range(at, at + 16): b[i] ^= 0xFF
open("corrupt.zst", "wb").write(b)'

run_case() { # NAME -- command...
    local name=$1
    shift 2
    "$@" > /dev/null 2> "$name.stderr"
    echo $? > "$name.exit"
    if [ "${OC_UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$name.stderr" "$name.exit" "$GOLDEN/"
        return
    fi
    for ext in stderr exit; do
        if [ ! -f "$GOLDEN/$name.$ext" ]; then
            fail "$name: golden file $GOLDEN/$name.$ext missing"
        elif ! cmp -s "$name.$ext" "$GOLDEN/$name.$ext"; then
            fail "$name.$ext differs from golden:"
            diff "$GOLDEN/$name.$ext" "$name.$ext" >&2
        fi
    done
}

run_case missing_file -- "$OC" compress nosuchfile
run_case unknown_suffix -- "$OC" decompress plain.txt
run_case refuse_overwrite -- "$OC" compress doc
run_case refuse_overwrite_d -- "$OC" -d -o doc2 doc.zst
run_case bad_algorithm -- "$OC" -a brotli doc
run_case bad_level -- "$OC" --level fast doc
# issue 19: levels checked at parse time against the algorithm's range
run_case level_out_of_range -- "$OC" -a lz4 --level=13 -o never doc
run_case level_needs_ultra -- "$OC" -22 -o never doc
run_case bad_fast -- "$OC" --fast=0 -o never doc
# -t: the corrupt chunk named, nothing written; a file with the suffix: skipped
run_case test_corrupt -- "$OC" -t corrupt.zst
run_case suffix_skipped -- "$OC" doc.zst
run_case bad_chunk_size -- "$OC" --chunk-size 0 doc
run_case bad_checksum_policy -- "$OC" --checksum maybe doc
run_case output_two_inputs -- "$OC" -o out doc plain.txt
run_case bad_option -- "$OC" --frobnicate doc
run_case corrupt_chunk -- "$OC" -d -o out corrupt.zst
# issue 11 item 8: a zstd frame with a 256 MiB window and no content size
# (`zstd --long=28` from a pipe) needs --memory; the message names the window.
zstd -q --long=28 -c < doc > long28.zst || die "setup: zstd --long=28"
run_case window_over_limit -- "$OC" -d -o out long28.zst
run_case bad_memory -- "$OC" -d --memory 3G -o out long28.zst
"$OC" -d -q --memory=256M -o long28.out long28.zst || fail "--memory=256M: decoding long28.zst failed"
same long28.out doc "--memory=256M decodes the --long=28 frame"
# Nothing was created by any of the failing cases.
[ ! -e out ] || fail "a failing case left 'out' behind"
same doc2 doc "refuse_overwrite_d kept doc2"
no_temp_files .
finish
