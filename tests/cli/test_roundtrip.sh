#!/usr/bin/env bash
# test_roundtrip.sh - byte-exact round trips through the `opencomp` command
# for every algorithm and bitstream kind, via files (default names and -o)
# and via stdin/stdout, on real files, an empty file and a 1-byte file,
# with chunk sizes that do and do not divide the input.
source "$(dirname "$0")/lib.sh"
make_inputs

algs="lz4 snappy deflate zlib gzip zstd"
for alg in $algs; do
    for kind in native raw size; do
        for f in in/*; do
            name=$(basename "$f")
            base=$alg-$kind-$name
            cp "$f" "$base"
            # Via files: default output name, then decompress by suffix.
            if ! "$OC" compress -q -a "$alg" --kind "$kind" --chunk-size 64K "$base"; then
                fail "compress $alg $kind $name"
                continue
            fi
            case $kind in
            native) case $alg in lz4) sfx=.lz4 ;; snappy) sfx=.sz ;; zstd) sfx=.zst ;; *) sfx=.gz ;; esac ;;
            raw) sfx=.raw ;;
            size) sfx=.sized ;;
            esac
            [ -f "$base$sfx" ] || { fail "$alg $kind: expected output $base$sfx"; continue; }
            [ -f "$base" ] || fail "$alg $kind: input removed without --rm"
            mv "$base" "$base.orig"
            # RAW/size streams of lz4, snappy, deflate do not name their format: give -a.
            if ! "$OC" decompress -q -a "$alg" "$base$sfx"; then
                fail "decompress $alg $kind $name"
                continue
            fi
            same "$base" "$base.orig" "$alg $kind $name (files)"
            [ -f "$base$sfx" ] || fail "$alg $kind: compressed input removed without --rm"

            # Via stdin/stdout, odd chunk size for the chunked kind.
            "$OC" -q -a "$alg" --kind "$kind" --chunk-size 1000 < "$f" > pipe.c ||
                fail "compress via pipe $alg $kind $name"
            "$OC" -d -q -a "$alg" --kind "$kind" < pipe.c > pipe.d || fail "decompress via pipe $alg $kind $name"
            same pipe.d "$f" "$alg $kind $name (pipes)"
            # -c and '-' operands.
            "$OC" -c -q -a "$alg" --kind "$kind" - < "$f" | "$OC" -d -c -q -a "$alg" --kind "$kind" - > pipe2.d ||
                fail "-c - round trip $alg $kind $name"
            same pipe2.d "$f" "$alg $kind $name (-c -)"
            rm -f "$base" "$base.orig" "$base$sfx" pipe.c pipe.d pipe2.d
        done
    done
done

# opencomp's own formats with their data types: NATIVE by suffix, RAW and
# size with -a (the streams record their type; decoding needs none).
for spec in "cascaded i64 column" "cascaded u8 text" "cascaded i32 binary" "ans u8 text" "ans f16 binary" \
    "ans bf16 column" "bitcomp i64 column" "bitcomp f64 column" "bitcomp u8 text" "bitcomp f32 binary"; do
    set -- $spec
    for kind in native raw size; do
        base=$1-$2-$kind-$3
        cp "in/$3" "$base"
        "$OC" compress -q -a "$1" --data-type "$2" --kind "$kind" "$base" || {
            fail "compress $spec $kind"
            continue
        }
        case $kind in native) sfx=.$1 ;; raw) sfx=.raw ;; size) sfx=.sized ;; esac
        mv "$base" "$base.orig"
        "$OC" decompress -q -a "$1" "$base$sfx" || fail "decompress $spec $kind"
        same "$base" "$base.orig" "$spec $kind"
        rm -f "$base" "$base.orig" "$base$sfx"
    done
done
# GDeflate: NATIVE (opencomp-chunked, 64 KiB pages) by suffix, default and
# odd chunk sizes; RAW and size streams are one page (at most 64 KiB): the
# small inputs, and a clear error beyond.
for f in in/*; do
    name=$(basename "$f")
    for chunk in 64K 1000; do
        "$OC" -q -a gdeflate --chunk-size "$chunk" -o "gd-$name.gdeflate" "$f" || {
            fail "compress gdeflate $name $chunk"
            continue
        }
        "$OC" -d -q -o "gd-$name.back" "gd-$name.gdeflate" || fail "decompress gdeflate $name $chunk"
        same "gd-$name.back" "$f" "gdeflate $name $chunk"
        rm -f "gd-$name.gdeflate" "gd-$name.back"
    done
done
for kind in raw size; do
    for name in empty one; do
        "$OC" -q -a gdeflate --kind "$kind" < "in/$name" > gd.c || fail "compress gdeflate $kind $name"
        "$OC" -d -q -a gdeflate --kind "$kind" < gd.c > gd.d || fail "decompress gdeflate $kind $name"
        same gd.d "in/$name" "gdeflate $kind $name"
    done
done
"$OC" -q -a gdeflate --kind raw < in/binary > gd.c 2> gd.err && fail "gdeflate accepted a RAW page over 64 KiB"
rm -f gd.c gd.d gd.err
# Bitcomp's sparse mode, and an algorithm type no other format has.
"$OC" -q -a bitcomp --data-type i64 --algorithm-type 1 -o sparse.bitcomp in/column || fail "bitcomp --algorithm-type 1"
"$OC" -d -q -o sparse.back sparse.bitcomp || fail "decompress bitcomp --algorithm-type 1"
same sparse.back in/column "bitcomp --algorithm-type 1"
"$OC" -q -a zstd --algorithm-type 1 -o never.zst in/text 2> at.err && fail "zstd accepted --algorithm-type 1"
grep -q "zstd has no algorithm type 1" at.err || fail "zstd --algorithm-type 1: $(cat at.err)"
rm -f sparse.bitcomp sparse.back
# A type the format does not code: a clear error, no output.
"$OC" -q -a ans --data-type i32 -o never.ans in/text 2> ans.err && fail "ans accepted --data-type i32"
grep -q "ans codes data types of 1 or 2 bytes, not <i4" ans.err || fail "ans --data-type i32: $(cat ans.err)"
[ ! -e never.ans ] || fail "ans --data-type i32 left never.ans"

# -o, levels, threads and checksum policies.
for spec in "zstd 19" "zstd -5" "lz4 9" "lz4 -3" "gzip 1" "deflate 12"; do
    set -- $spec
    for t in 1 2; do
        "$OC" -q -a "$1" --level="$2" -T "$t" -o lv.out in/text || fail "compress -a $1 --level=$2 -T $t"
        "$OC" -d -q -a "$1" -o lv.back lv.out || fail "decompress -a $1 --level=$2"
        same lv.back in/text "level $2 $1 threads $t"
        rm -f lv.out lv.back
    done
done
for policy in none compute verify; do
    "$OC" -q --checksum "$policy" -o ck.zst in/binary || fail "compress --checksum $policy"
    "$OC" -d -q --checksum "$policy" -o ck.back ck.zst || fail "decompress --checksum $policy"
    same ck.back in/binary "checksum $policy"
    rm -f ck.zst ck.back
done
# A chunk size over the input, a tiny one, 1M.
for cs in 1 4096 1M 16M; do
    "$OC" -q --chunk-size "$cs" -c in/source | "$OC" -d -q -c > cs.back || fail "chunk size $cs"
    same cs.back in/source "chunk size $cs"
done
# Several files in one call.
cp in/text m1; cp in/source m2
"$OC" -q -a lz4 m1 m2 || fail "two files"
rm m1 m2
"$OC" -d -q m1.lz4 m2.lz4 || fail "decompress two files"
same m1 in/text "multi m1"; same m2 in/source "multi m2"
no_temp_files .
finish
