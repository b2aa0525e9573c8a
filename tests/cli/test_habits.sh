#!/usr/bin/env bash
# test_habits.sh - the habits users bring from zstd, lz4 and gzip (issue 19):
# -k accepted; -t/--test checks and writes nothing (exit 1 on a bad file);
# -l/--list lists as `info` does; levels as -# and --level=, --fast[=N],
# --ultra for zstd 20..22; --format= as -a; .tzst/.tlz4/.tgz decode to
# .tar; called as unopencomp or opencompcat it decompresses (opencompcat to
# stdout); a file that already has the suffix is skipped with a message;
# -r walks directories.
# The messages themselves are pinned in tests/cli/golden (test_golden.sh).
source "$(dirname "$0")/lib.sh"
make_inputs
cp in/text doc

"$OC" -k -q doc || fail "-k not accepted"
[ -e doc ] && [ -s doc.zst ] || fail "-k: doc or doc.zst missing"
"$OC" -t doc.zst > t.out 2> t.err || fail "-t on a good file: exit status $?"
[ ! -s t.out ] && [ ! -s t.err ] || fail "-t wrote something: $(cat t.out t.err | head -c 200)"
"$OC" --test -v doc.zst 2>&1 | grep -q "doc.zst: OK" || fail "--test -v: no OK line"
cp doc.zst bad.zst
python3 -c '
b = bytearray(open("bad.zst", "rb").read()); b[len(b) // 3] ^= 0xFF; open("bad.zst", "wb").write(b)'
"$OC" -t bad.zst 2> /dev/null && fail "-t on a damaged file: exit status 0"
[ ! -e bad ] || fail "-t wrote an output"
"$OC" -d -c doc.zst | cmp -s - doc || fail "-d -c"

"$OC" info doc.zst > info.out || fail "info"
"$OC" -l doc.zst > l.out || fail "-l"
"$OC" --list doc.zst > list.out || fail "--list"
cmp -s info.out l.out && cmp -s info.out list.out || fail "-l/--list differ from info"
grep -q "zstd-seekable" l.out || fail "-l: no container named: $(head -c 200 l.out)"

for lv in "-1" "-19" "--level=5" "--fast" "--fast=3" "--ultra -22"; do
    # shellcheck disable=SC2086
    "$OC" -q -f $lv -o lv.zst doc || fail "level $lv refused"
    "$OC" -d -q -c lv.zst | cmp -s - doc || fail "level $lv: round trip"
    zstd -q -d -c lv.zst | cmp -s - doc || fail "level $lv: zstd -d"
done
"$OC" -q -f -a lz4 --fast=8 -o fast.lz4 doc && lz4 -q -d -c fast.lz4 | cmp -s - doc || fail "lz4 --fast=8"
"$OC" -q -f -1 -o one.zst doc && "$OC" -q -f -19 -o nineteen.zst doc || fail "-1 / -19"
[ "$(stat -c %s nineteen.zst)" -lt "$(stat -c %s one.zst)" ] || fail "-19 not smaller than -1"

"$OC" -q --format=gzip doc && gzip -d -c doc.gz | cmp -s - doc || fail "--format=gzip"

tar cf t.tar doc in/source
for s in tzst tlz4 tgz; do
    case $s in tzst) a=zstd ;; tlz4) a=lz4 ;; tgz) a=gzip ;; esac
    "$OC" -q -a $a -o "t.$s" t.tar || fail "compress t.$s"
    mkdir -p "x$s" && mv "t.$s" "x$s/"
    "$OC" -d -q "x$s/t.$s" || fail "-d t.$s"
    cmp -s "x$s/t.tar" t.tar || fail "t.$s did not decode to t.tar"
done

ln -s "$OC" unopencomp
ln -s "$OC" opencompcat
rm -f doc.out
cp doc.zst un.zst
./unopencomp -q un.zst && cmp -s un doc || fail "unopencomp did not decompress"
./opencompcat doc.zst | cmp -s - doc || fail "opencompcat did not write the decoded bytes to stdout"
./unopencomp -z -q -f -o re.zst doc && zstd -q -d -c re.zst | cmp -s - doc || fail "unopencomp -z did not compress"

cp doc.zst again.zst
"$OC" again.zst 2> skip.err || fail "a file with the suffix: exit status $?"
[ ! -e again.zst.zst ] || fail "a file with the suffix was compressed again"
grep -qx "opencomp: again.zst: already has .zst suffix -- ignored" skip.err || fail "no skip message: $(cat skip.err)"
"$OC" -q -c again.zst > twice.zst || fail "-c compresses a .zst anyway"
# -r: every regular file under a directory, links not followed; -d -r takes
# the files with a known suffix; with --rm both ways the tree comes back.
mkdir -p tree/sub/deeper
cp in/text tree/a
cp in/binary tree/sub/b
cp in/source tree/sub/deeper/c
printf 'x' > tree/sub/one
ln -s ../in/text tree/link
cp -r tree copy
"$OC" -r -q --rm tree || fail "-r --rm: exit status $?"
for f in a sub/b sub/deeper/c sub/one; do
    [ -s "tree/$f.zst" ] && [ ! -e "tree/$f" ] || fail "-r: tree/$f not compressed"
done
[ -L tree/link ] && [ ! -e tree/link.zst ] || fail "-r followed a link"
echo stray > tree/sub/notes.txt
"$OC" -d -r -q --rm tree || fail "-d -r --rm: exit status $?"
rm tree/sub/notes.txt
diff -r copy tree > /dev/null || fail "-r then -d -r: the tree differs"
"$OC" -r -o x tree 2> /dev/null && fail "-r with -o accepted"
no_temp_files .
finish
