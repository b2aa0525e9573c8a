#!/usr/bin/env bash
# test_interop.sh - the stock tools read what `opencomp` writes (zstd -d,
# lz4 -d, gzip -d and pigz -d on the NATIVE containers; the snappy framing
# format through python3 + cramjam), and `opencomp` reads what they write
# (single and multi-frame zstd, lz4 with and without content size and with
# linked blocks, gzip, pigz, concatenated gzip members).
source "$(dirname "$0")/lib.sh"
make_inputs
big=in/binary

have() { command -v "$1" > /dev/null 2>&1; }

# ---- ours -> theirs -------------------------------------------------------
for f in in/text "$big" in/column in/empty; do
    n=$(basename "$f")
    if have zstd; then
        "$OC" -q -a zstd -o "$n.zst" "$f" || fail "compress zstd $n"
        zstd -q -d -c "$n.zst" > "$n.zstd-out" || fail "zstd -d cannot read our $n.zst"
        same "$n.zstd-out" "$f" "zstd -d of ours ($n)"
    else
        fail "zstd command missing (scripts/install-deps installs it)"
    fi
    if have lz4; then
        for ck in verify none; do
            "$OC" -q -a lz4 --checksum "$ck" --chunk-size 256K -o "$n.lz4" "$f" || fail "compress lz4 $n"
            lz4 -q -d -c "$n.lz4" > "$n.lz4-out" || fail "lz4 -d cannot read our $n.lz4 (checksum $ck)"
            same "$n.lz4-out" "$f" "lz4 -d of ours ($n, checksum $ck)"
            rm -f "$n.lz4"
        done
    else
        fail "lz4 command missing"
    fi
    for alg in gzip deflate zlib; do
        "$OC" -q -a "$alg" -o "$n.$alg.gz" "$f" || fail "compress $alg $n"
        gzip -d -c "$n.$alg.gz" > "$n.gz-out" || fail "gzip -d cannot read our $alg container ($n)"
        same "$n.gz-out" "$f" "gzip -d of ours ($alg, $n)"
        if have pigz; then
            pigz -d -c "$n.$alg.gz" > "$n.pigz-out" || fail "pigz -d cannot read ours ($alg, $n)"
            same "$n.pigz-out" "$f" "pigz -d of ours ($alg, $n)"
        fi
    done
    "$OC" -q -a snappy -o "$n.sz" "$f" || fail "compress snappy $n"
    if python3 -c 'import cramjam' 2> /dev/null; then
        python3 -c '
import sys, cramjam
data = bytes(cramjam.snappy.decompress(open(sys.argv[1], "rb").read()))
open(sys.argv[2], "wb").write(data)' "$n.sz" "$n.sz-out" || fail "cramjam cannot read our $n.sz"
        same "$n.sz-out" "$f" "cramjam snappy framing of ours ($n)"
    else
        fail "python3 module cramjam missing (scripts/install-deps installs requirements-test.txt)"
    fi
done

# ---- theirs -> ours --------------------------------------------------------
check_ours_reads() { # FILE.suffix ORIGINAL WHAT
    rm -f back.out
    "$OC" -d -q -o back.out "$1" || { fail "opencomp cannot read $3"; return; }
    same back.out "$2" "opencomp reading $3"
}
for f in in/text "$big" in/empty; do
    n=$(basename "$f")
    zstd -q -3 -c "$f" > t1.zst && check_ours_reads t1.zst "$f" "zstd -3 ($n)"
    zstd -q -19 -c "$f" > t2.zst && check_ours_reads t2.zst "$f" "zstd -19 ($n)"
    zstd -q -c < "$f" > t3.zst && check_ours_reads t3.zst "$f" "zstd from stdin, no content size ($n)"
    zstd -q -c "$f" > t4.zst && zstd -q -c in/source >> t4.zst && cat "$f" in/source > t4.orig &&
        check_ours_reads t4.zst t4.orig "two concatenated zstd frames ($n)"
    lz4 -q -c "$f" > t1.lz4 && check_ours_reads t1.lz4 "$f" "lz4 ($n)"
    lz4 -q -BD -c "$f" > t2.lz4 && check_ours_reads t2.lz4 "$f" "lz4 -BD linked blocks ($n)"
    lz4 -q --content-size -c "$f" > t3.lz4 && check_ours_reads t3.lz4 "$f" "lz4 --content-size ($n)"
    gzip -c "$f" > t1.gz && check_ours_reads t1.gz "$f" "gzip ($n)"
    gzip -c "$f" > t2.gz && gzip -c in/source >> t2.gz && cat "$f" in/source > t2.orig &&
        check_ours_reads t2.gz t2.orig "two gzip members ($n)"
    if have pigz; then
        pigz -c "$f" > t3.gz && check_ours_reads t3.gz "$f" "pigz ($n)"
    fi
    # cramjam writes NO bytes for an empty input (not even the stream
    # identifier the framing format starts with); like `gzip -d` and `zstd -d`
    # on an empty file, opencomp refuses that, so the empty case is left out.
    if [ -s "$f" ] && python3 -c 'import cramjam' 2> /dev/null; then
        python3 -c '
import sys, cramjam
open(sys.argv[2], "wb").write(bytes(cramjam.snappy.compress(open(sys.argv[1], "rb").read())))' "$f" t1.sz &&
            check_ours_reads t1.sz "$f" "cramjam snappy framing ($n)"
    fi
done
# info reads stock files too (no index: a serial scan).
zstd -q -c in/text > plain.zst
"$OC" info plain.zst > info.out || fail "info on a zstd-made file"
grep -q '^  algorithm: *zstd$' info.out || fail "info on zstd file: algorithm line: $(cat info.out)"
no_temp_files .
finish
