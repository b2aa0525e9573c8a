#!/usr/bin/env bash
# test_seekable.sh - zstd seekable files of other writers, read index first
# (issue 19 item 1): a regular file goes to the reader as seekable, so the
# seek table at its end is read first and every frame is decoded in a
# batch, frames that state no content size included (stdin redirected from
# a file too, from the offset where the command starts reading); a pipe of
# the same bytes takes the serial fallback.  -vv says which (the reader's counts).
#   - hand-built: frames of `zstd` from stdin (no content size in their
#     headers) and a seek table written here from the format's
#     specification (a skippable frame of magic 0x184D2A5E, entries
#     {compressed size, decompressed size} as little-endian u32s, footer
#     {count, descriptor 0, magic 0x8F92EAB1});
#   - pyzstd's SeekableZstdFile (skipped with a message where the module is
#     absent), both ways: its files decode here, ours decode there;
#   - a damaged table or frame: exit status 1, the frame named, and no
#     output file left behind.
source "$(dirname "$0")/lib.sh"
make_inputs
command -v zstd > /dev/null || die "the zstd command is needed"

# seekable OUT PIECE...: the pieces' zstd frames (from stdin: no content
# size) and a seek table of their sizes.
seekable() {
    local out=$1 p
    shift
    : > "$out.frames"
    for p in "$@"; do
        zstd -q -c < "$p" > "$p.zst"
        cat "$p.zst" >> "$out.frames"
    done
    python3 - "$out" "$@" << 'EOF'
import os, struct, sys
out, pieces = sys.argv[1], sys.argv[2:]
entries = b"".join(struct.pack("<II", os.path.getsize(p + ".zst"), os.path.getsize(p)) for p in pieces)
footer = struct.pack("<IBI", len(pieces), 0, 0x8F92EAB1)
table = struct.pack("<II", 0x184D2A5E, len(entries) + len(footer)) + entries + footer
with open(out, "wb") as f:
    f.write(open(out + ".frames", "rb").read() + table)
EOF
}

split -b 250000 in/binary piece.
n=$(ls piece.* | wc -l)
seekable hand.zst piece.*
[ "$(python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); print(b[4] & 0xE0)' hand.zst)" = 0 ] ||
    fail "fixture: the first frame states a content size"
zstd -q -d -c hand.zst | cmp -s - in/binary || fail "fixture: zstd -d does not decode hand.zst"

# index first from a file, serial from a pipe: the same bytes
"$OC" -vv -d -c hand.zst > out 2> err || fail "hand.zst: exit status $?"
same out in/binary "hand.zst"
grep -qx "opencomp: hand.zst: seek table read first ($n frames); $n chunks: $n in batches, 0 serially" err ||
    fail "hand.zst: not read index first: $(cat err)"
cat hand.zst | "$OC" -vv -d -c > out 2> err || fail "hand.zst from a pipe: exit status $?"
same out in/binary "hand.zst from a pipe"
grep -qx "opencomp: stdin: $n chunks: 0 in batches, $n serially" err ||
    fail "hand.zst from a pipe: not the serial fallback: $(cat err)"
# stdin redirected from a file is seekable too, from where its reader starts
{ printf 'skip!'; cat hand.zst; } > offset.bin
{ dd bs=1 count=5 of=/dev/null 2> /dev/null; "$OC" -vv -d -c > out 2> err; } < offset.bin ||
    fail "hand.zst on stdin at offset 5: exit status $?"
same out in/binary "hand.zst on stdin at offset 5"
grep -qx "opencomp: stdin: seek table read first ($n frames); $n chunks: $n in batches, 0 serially" err ||
    fail "hand.zst on stdin at offset 5: not read index first: $(cat err)"
"$OC" -t hand.zst 2> err || fail "-t hand.zst: exit status $? ($(cat err))"

# damage: python3 patches a u32 of the table (entry I field F) or a byte
patch() { # IN OUT usize|desc ENTRY
    python3 - "$@" << 'EOF'
import struct, sys
src, out, what, i = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
b = bytearray(open(src, "rb").read())
count = struct.unpack_from("<I", b, len(b) - 9)[0]
table = len(b) - 9 - 8 * count          # first entry
if what == "usize":
    struct.pack_into("<I", b, table + 8 * i + 4, struct.unpack_from("<I", b, table + 8 * i + 4)[0] + 1)
elif what == "desc":
    b[len(b) - 5] |= 0x04
open(out, "wb").write(bytes(b))
EOF
}
patch hand.zst bad1.zst usize 3
"$OC" -d bad1.zst -o bad1.out 2> err
st=$?
[ $st = 1 ] || fail "bad1.zst: exit status $st"
grep -qx "opencomp: bad1.zst: cannot decompress: chunk 3: decoded size differs from the recorded size" err ||
    fail "bad1.zst: message: $(cat err)"
[ ! -e bad1.out ] || fail "bad1.zst: a partial output was left behind"
no_temp_files .
patch hand.zst bad2.zst desc 0
"$OC" -d -c bad2.zst > /dev/null 2> err
st=$?
[ $st = 1 ] || fail "bad2.zst: exit status $st"
grep -qx "opencomp: bad2.zst: cannot decompress: damaged seek table ($n frames): input is not a valid stream of the expected format" err ||
    fail "bad2.zst: message: $(cat err)"

# pyzstd, where installed
if python3 -c 'import pyzstd; pyzstd.SeekableZstdFile' 2> /dev/null; then
    python3 - << 'EOF' || fail "pyzstd could not write py.zst"
import pyzstd
data = open("in/binary", "rb").read() + open("in/text", "rb").read()
open("py.raw", "wb").write(data)
with pyzstd.SeekableZstdFile("py.zst", "w", max_frame_content_size=200000) as f:
    f.write(data)
EOF
    m=$(python3 -c 'import struct; b=open("py.zst","rb").read(); print(struct.unpack_from("<I", b, len(b)-9)[0])')
    "$OC" -vv -d -c py.zst > out 2> err || fail "py.zst: exit status $?"
    same out py.raw "py.zst"
    grep -qx "opencomp: py.zst: seek table read first ($m frames); $m chunks: $m in batches, 0 serially" err ||
        fail "py.zst: not read index first: $(cat err)"
    # and the other way: pyzstd reads our seekable files, seeking
    "$OC" -q -a zstd -c py.raw > ours.zst
    python3 - << 'EOF' || fail "pyzstd does not read our seekable file"
import pyzstd
data = open("py.raw", "rb").read()
with pyzstd.SeekableZstdFile("ours.zst", "r") as f:
    assert f.read() == data
    f.seek(len(data) // 3)
    assert f.read(1000) == data[len(data) // 3:len(data) // 3 + 1000]
EOF
else
    echo "pyzstd part skipped: the Python module pyzstd is not installed (pip install pyzstd)"
fi
finish
