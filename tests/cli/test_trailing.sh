#!/usr/bin/env bash
# test_trailing.sh - gzip files followed by zero padding or garbage (issue
# 11 item 9): decoded as `gzip -d` decodes them, with gzip's warning for
# garbage (a note with -v for zero padding), exit status 0, and the same
# bytes as gzip -d.
source "$(dirname "$0")/lib.sh"
make_inputs
gzip -c in/text > t.gz
{ cat t.gz; head -c 1000 /dev/zero; } > pad.gz
{ cat t.gz; printf 'trailing garbage\n'; } > junk.gz

"$OC" -d -c pad.gz > pad.out 2> pad.err || fail "zero padding: exit status $?"
same pad.out in/text "zero padding"
[ ! -s pad.err ] || fail "zero padding: said something without -v: $(cat pad.err)"
"$OC" -d -v -c pad.gz 2>&1 > /dev/null | grep -q "1000 trailing zero bytes ignored" ||
    fail "zero padding: no note with -v"

"$OC" -d -c junk.gz > junk.out 2> junk.err || fail "garbage: exit status $?"
same junk.out in/text "trailing garbage"
grep -qx "opencomp: junk.gz: warning: decompression OK, trailing garbage ignored (17 bytes after the data)" junk.err ||
    fail "garbage: no warning: $(cat junk.err)"
gzip -dc junk.gz 2> /dev/null | cmp -s - junk.out || fail "garbage: gzip -d decodes other bytes"
"$OC" -d -q -c junk.gz 2> q.err > /dev/null && [ ! -s q.err ] || fail "-q: warned anyway"
# a file of ours (indexed members) with garbage, decoded to a file
"$OC" -q -a gzip -o ours.gz in/text && printf 'JUNK' >> ours.gz
"$OC" -d -o ours.out ours.gz 2> ours.err || fail "ours + garbage: exit status $?"
same ours.out in/text "ours + garbage"
grep -q "trailing garbage ignored (4 bytes" ours.err || fail "ours + garbage: no warning"
no_temp_files .
finish
