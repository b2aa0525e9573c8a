#!/usr/bin/env bash
# test_names.sh - output names and what an interrupted run leaves behind
# (issue 11 item 13):
#   - names of 237-251 bytes failed because the temporary ".NAME.oc-tmp-XXXXXX"
#     was 15 bytes longer than the name limit: now the temporary keeps only
#     what fits; a name that is itself too long is one clear error;
#   - after kill -9 a ".NAME.oc-tmp-XXXXXX" stays behind: the next run on the
#     same name says so (and removes nothing);
#   - a .sized file claiming 2^34 bytes for 1.6 KB of data is refused at once
#     (CORRUPT), without reserving 16 GiB (run under a 2 GiB address-space limit).
source "$(dirname "$0")/lib.sh"
printf 'some text to compress, some text to compress\n' > doc
for len in 236 237 244 251; do
    name=$(printf 'n%.0s' $(seq 1 "$len"))
    cp doc "$name"
    "$OC" -q "$name" || fail "compress a $len-byte name"
    rm "$name"
    "$OC" -q -d "$name.zst" || fail "decompress a $len-byte name"
    same "$name" doc "$len-byte name round trip"
    rm -f "$name" "$name.zst"
done
name=$(printf 'n%.0s' $(seq 1 252))
cp doc "$name"
"$OC" "$name" 2> long.err && fail "a 256-byte output name was accepted"
grep -q "output name of 256 bytes is longer than the folder allows (255); use -o or -c" long.err ||
    fail "252-byte name: $(cat long.err)"
"$OC" -q -c "$name" > long.zst || fail "-c with a 252-byte input name"
rm -f "$name"

# a temporary left by kill -9
: > .doc.zst.oc-tmp-Ab12Cd
"$OC" doc 2> left.err || fail "compress with a leftover temporary: exit $?"
grep -qx "opencomp: doc.zst: warning: .doc.zst.oc-tmp-Ab12Cd was left by an interrupted run (kill -9, a crash); remove it once no opencomp is writing doc.zst" left.err ||
    fail "leftover temporary not reported: $(cat left.err)"
[ -e .doc.zst.oc-tmp-Ab12Cd ] || fail "the leftover temporary was removed"
rm -f .doc.zst.oc-tmp-Ab12Cd doc.zst
# a size claim of 2^34 bytes for 1.6 KB of LZ4
head -c 1600 /dev/urandom > small
"$OC" -q -a lz4 --kind size small || fail "compress small.sized"
python3 -c '
b = bytearray(open("small.sized", "rb").read()); b[4] = 4; open("claim.sized", "wb").write(b)'
# (sanitizer builds cannot start under an address-space limit: no limit there)
limit="ulimit -v 2097152"
bash -c "$limit; \"\$0\" --version || exit 1" "$OC" > /dev/null 2>&1 || limit=:
( eval "$limit"; "$OC" -d -a lz4 -c claim.sized > /dev/null 2> claim.err ); rc=$?
[ "$rc" = 1 ] || fail "claim of 2^34 bytes: exit status $rc"
grep -qx "opencomp: claim.sized: cannot decompress: input is not a valid stream of the expected format" claim.err ||
    fail "claim of 2^34 bytes: $(cat claim.err)"
finish
