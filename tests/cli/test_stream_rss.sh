#!/usr/bin/env bash
# test_stream_rss.sh - the command's memory stays bounded whatever the
# input's size (issue 19): 1 GiB of real bytes (ELF binaries repeated)
# through stdin and stdout, and 256 MiB through files, compressed and
# decompressed with zstd, lz4 and gzip, and stock zstd/gzip/lz4 -BD streams
# decoded (the serial fallbacks); each run's peak RSS (GNU time's %M) must
# stay under 256 MiB (a generous bound: about 30-60 MiB is expected with
# 2 threads; reading the input whole, as the command did before, needs
# more than the input's size), and every round trip must give the input back.
# No timing is asserted.  In sanitizer builds (whose shadow memory and
# quarantine are not the command's) the round trips run on 1/16 of the sizes
# and RSS is not asserted.
source "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time, Debian package time) is needed"
LIMIT_KB=$((128 * 1024))
BIG=$((1 << 30))
FILE=$((256 << 20))
SANITIZED=0
if nm "$OC" 2> /dev/null | grep -q '__asan_init\|__ubsan_handle'; then
    SANITIZED=1
    BIG=$((BIG / 16))
    FILE=$((FILE / 16))
fi

# A deterministic stream of real bytes, $1 bytes long.
gen() {
    local f
    for f in /usr/bin/cmake /usr/bin/bash /bin/bash "$OC"; do
        [ -r "$f" ] && break
    done
    while cat "$f"; do :; done 2>/dev/null | head -c "$1"
}

# check_rss NAME FILE: the peak RSS recorded in FILE is under the bound.
check_rss() {
    local kb
    kb=$(tail -n 1 "$2")
    case $kb in '' | *[!0-9]*) fail "$1: no peak RSS recorded ($(cat "$2"))"; return ;; esac
    echo "$1: peak RSS $((kb / 1024)) MiB"
    [ "$SANITIZED" = 0 ] || return 0
    [ "$kb" -lt "$LIMIT_KB" ] || fail "$1: peak RSS $((kb / 1024)) MiB, over $((LIMIT_KB / 1024)) MiB"
}

T="/usr/bin/time -f %M -o"
want=$(gen $BIG | cksum)

# stdin -> stdout, both ways, in one pipeline per codec
for a in zstd lz4 gzip; do
    got=$(gen $BIG | $T c.rss "$OC" -a "$a" -T 2 -c | $T d.rss "$OC" -d -T 2 -c | cksum)
    [ "$got" = "$want" ] || fail "$a: stdin/stdout round trip of 1 GiB differs"
    check_rss "$a compress 1 GiB stdin->stdout" c.rss
    check_rss "$a decompress stdin->stdout" d.rss
done

# files: the pledged size path, and --rm's verification from disk
gen $FILE > big.bin
fwant=$(cksum < big.bin)
cp big.bin keep.bin
$T c.rss "$OC" -q -T 2 --rm big.bin || fail "zstd file compress --rm failed"
[ ! -e big.bin ] && [ -s big.bin.zst ] || fail "--rm: big.bin not replaced by big.bin.zst"
check_rss "zstd compress --rm 256 MiB file" c.rss
$T d.rss "$OC" -d -q -T 2 --rm big.bin.zst || fail "zstd file decompress --rm failed"
[ "$(cksum < big.bin)" = "$fwant" ] || fail "file round trip differs"
check_rss "zstd decompress --rm 256 MiB file" d.rss

# stock streams the reader cannot cut: decoded serially, still bounded
zstd -q -c < keep.bin > stock.zst # from a pipe: one frame, no content size
gzip -1 -c keep.bin > stock.gz
lz4 -q -BD -c keep.bin > stock.lz4
for f in stock.zst stock.gz stock.lz4; do
    [ "$($T s.rss "$OC" -d -T 2 -c "$f" | cksum)" = "$fwant" ] || fail "$f: decoded bytes differ"
    check_rss "decompress $f (256 MiB, serial)" s.rss
done
no_temp_files .
finish
