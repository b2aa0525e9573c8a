#!/usr/bin/env bash
# test_info.sh - `opencomp info` reports what a file is: for each NATIVE
# container (zstd, lz4, gzip, snappy) written with a known chunk size, the
# algorithm, the chunk count (ceil(size / chunk)), the decompressed size,
# the ratio (decompressed / compressed), the index and the checksums; it
# fails with one line on a non-compressed file.
source "$(dirname "$0")/lib.sh"
make_inputs

field() { # FILE KEY -> value
    sed -n "s/^  $2: *//p" "$1"
}

size=$(stat -c %s in/binary)
for spec in "zstd zst 64K 65536" "lz4 lz4 256K 262144" "gzip gz 100000 100000" "snappy sz 64K 65536" \
    "deflate gz 64K 65536"; do
    set -- $spec
    alg=$1 sfx=$2 cs=$3 csb=$4
    "$OC" -q -a "$alg" --chunk-size "$cs" -o "f.$alg.$sfx" in/binary || { fail "compress $alg"; continue; }
    "$OC" info "f.$alg.$sfx" > info.out || { fail "info $alg exit status"; continue; }
    head -n 1 info.out | grep -qx "f.$alg.$sfx" || fail "info $alg: first line is not the file name"
    want_alg=$alg
    [ "$alg" = deflate ] && want_alg=gzip # deflate NATIVE is the gzip container
    [ "$(field info.out algorithm)" = "$want_alg" ] || fail "info $alg: algorithm '$(field info.out algorithm)'"
    [ "$(field info.out kind)" = native ] || fail "info $alg: kind '$(field info.out kind)'"
    chunks=$(((size + csb - 1) / csb))
    [ "$(field info.out chunks)" = "$chunks" ] || fail "info $alg: chunks '$(field info.out chunks)', want $chunks"
    [ "$(field info.out 'decompressed size')" = "$size" ] ||
        fail "info $alg: decompressed size '$(field info.out 'decompressed size')', want $size"
    fsize=$(stat -c %s "f.$alg.$sfx")
    [ "$(field info.out 'file size')" = "$fsize" ] || fail "info $alg: file size"
    comp=$(field info.out 'compressed size')
    want_ratio=$(python3 -c "print('%.3f' % ($size / $comp))")
    [ "$(field info.out ratio)" = "$want_ratio" ] || fail "info $alg: ratio '$(field info.out ratio)', want $want_ratio"
    [ "$(field info.out indexed)" = yes ] || fail "info $alg: not indexed"
    [ "$(field info.out checksums)" = yes ] || fail "info $alg: checksums not reported"
    [ -n "$(field info.out container)" ] || fail "info $alg: no container line"
done
# Without checksums, zstd and lz4 say so.
for alg in zstd lz4; do
    "$OC" -q -a "$alg" --checksum none -o "n.$alg" in/text
    "$OC" info -a "$alg" "n.$alg" > info.out || fail "info --checksum none $alg"
    [ "$(field info.out checksums)" = no ] || fail "info $alg --checksum none: checksums '$(field info.out checksums)'"
done
# Several files: one block each; stdin works.
"$OC" -q -o two.zst in/text
"$OC" info two.zst f.lz4.lz4 > info.out || fail "info two files"
[ "$(grep -c '^  algorithm:' info.out)" = 2 ] || fail "info two files: $(cat info.out)"
"$OC" info < two.zst > info.out || fail "info from stdin"
head -n 1 info.out | grep -qx stdin || fail "info from stdin: first line"
# Not a compressed file: one error line, exit 1.
"$OC" info in/text > info.out 2> info.err && fail "info on plain text: exit 0"
[ "$(wc -l < info.err)" = 1 ] && grep -q '^opencomp: in/text: ' info.err || fail "info on plain text: $(cat info.err)"
finish
