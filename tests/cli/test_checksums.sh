#!/usr/bin/env bash
# test_checksums.sh - the command verifies every checksum a file carries
# unless told otherwise (issue 11 item 15: python-snappy, cramjam and
# python-lz4 reject a wrong snappy-framing CRC-32C or LZ4 content checksum
# by default; so must we).  Stock files (cramjam's snappy framing, the lz4
# command's frames, zstd -C, gzip) and ours, one checksum damaged each:
# refused by default with the checksum message, decoded with --checksum none.
source "$(dirname "$0")/lib.sh"
make_inputs
src=in/text
python3 -c '
import cramjam, sys
open("s.sz", "wb").write(bytes(cramjam.snappy.compress(open(sys.argv[1], "rb").read())))' "$src" ||
    die "cramjam missing (scripts/install-deps installs requirements-test.txt)"
lz4 -q -c "$src" > l.lz4
zstd -q -C -c "$src" > z.zst
gzip -c "$src" > g.gz
"$OC" -q -a snappy -o o.sz "$src"
"$OC" -q -a lz4 -o o.lz4 "$src"
"$OC" -q -a zstd -o o.zst "$src"
# flip: a byte of the first snappy chunk's CRC (after the 10-byte stream
# identifier and the 4-byte chunk header), the last byte (LZ4 content
# checksum, zstd checksum, gzip ISIZE/CRC trailer of the last member)
flip() { python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[int(sys.argv[2])] ^= 0x01
open(sys.argv[3], "wb").write(b)' "$@"; }
flip s.sz 14 s.bad.sz
flip l.lz4 -1 l.bad.lz4
flip z.zst -1 z.bad.zst
flip g.gz -5 g.bad.gz
flip o.sz 14 o.bad.sz
size=$(stat -c %s o.lz4)
python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", b[-9:-5])[0]      # index footer: chunk count
at = len(b) - 9 - 8 * n - 8 - 4           # the content checksum, just before the index frame
print(at)' o.lz4 > at
flip o.lz4 "$(cat at)" o.bad.lz4
for f in s.bad.sz l.bad.lz4 z.bad.zst g.bad.gz o.bad.sz o.bad.lz4; do
    "$OC" -d -c "$f" > /dev/null 2> "$f.err" && fail "$f: decoded with a wrong checksum"
    grep -q "stored checksum does not match the data" "$f.err" || fail "$f: $(cat "$f.err")"
done
for f in s.bad.sz l.bad.lz4 o.bad.sz o.bad.lz4; do
    "$OC" -d -c --checksum none "$f" > "$f.out" || fail "$f: --checksum none refused it"
    same "$f.out" "$src" "$f with --checksum none"
done
finish
