#!/usr/bin/env bash
# test_bench.sh - `opencomp bench` runs: on the built-in sample it prints a
# row for every part, algorithm and contender, all verified (opencomp's own
# formats, cascaded, ans and bitcomp, and gdeflate have no reference library: no reference-cpu row);
# --json writes
# the bench schema (parsed by python3, every field checked for type and
# sense, never for speed); on files it benches those with lists of
# algorithms and chunk sizes.  Timings are never asserted.
source "$(dirname "$0")/lib.sh"
make_inputs

"$OC" bench -T 2 --repeat 1 --json sample.json > bench.out 2> bench.err ||
    fail "bench on the built-in sample: exit status $? ($(head -n 3 bench.err))"
for part in text int64-sorted float64 source; do
    for alg in lz4 snappy deflate zlib gzip zstd blosc cascaded ans bitcomp gdeflate; do
        for contender in "opencomp-cpu +kernel" "reference-cpu +kernel" "opencomp-cpu +end-to-end"; do
            case "$alg" in cascaded | ans | bitcomp | gdeflate) [ "$contender" = "reference-cpu +kernel" ] && continue ;; esac
            grep -Eq "^$part +$alg +-?[0-9]+ +64K +$contender +[0-9-]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +yes$" bench.out ||
                fail "bench: no verified row for $part $alg $contender"
        done
    done
done
grep -q '^totals over all inputs' bench.out || fail "bench: no totals"
grep -q 'NO\|FAILED' bench.out && fail "bench: unverified or failed rows: $(grep 'NO\|FAILED' bench.out)"

python3 - sample.json << 'PY' || fail "bench --json: schema check failed"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["tool"] == "opencomp-bench", d.get("tool")
for k in ("date", "commit", "host", "device", "results"):
    assert k in d, k
assert isinstance(d["host"]["cores"], int) and d["host"]["cpu"] and d["host"]["os"]
rows = d["results"]
standard = {"lz4", "snappy", "deflate", "zlib", "gzip", "zstd", "blosc"}
own = {"cascaded", "ans", "bitcomp", "gdeflate"}  # no reference library
assert {r["algorithm"] for r in rows} == standard | own, {r["algorithm"] for r in rows}
assert {r["file"] for r in rows} == {"text", "int64-sorted", "float64", "source"}
# 4 parts x (7 algorithms x 3 CPU rows + 4 x 2) (+ GPU rows when a GPU is present).
assert len(rows) >= 116, len(rows)
assert not any(r["contender"] == "reference-cpu" and r["algorithm"] in own for r in rows)
for r in rows:
    assert r["contender"] in ("opencomp-cpu", "reference-cpu", "opencomp-gpu"), r
    assert r["scope"] in ("kernel", "end-to-end") and r["timing"] == "wall-clock", r
    assert r["chunk_size"] == 65536 and r["file_bytes"] == r["uncompressed_bytes"] > 0, r
    assert r["num_chunks"] == -(-r["file_bytes"] // 65536), r
    assert r["verified"] is True and r["repeats"] == 1, r
    assert r["compressed_bytes"] > 0 and abs(r["ratio"] - r["uncompressed_bytes"] / r["compressed_bytes"]) < 1e-3 * r["ratio"], r
    assert r["compress_gbps"] > 0 and r["decompress_gbps"] > 0, r
    if r["contender"] == "reference-cpu":
        assert r["threads"] == 1, r
    elif r["contender"] == "opencomp-cpu":
        assert r["threads"] == 2, r
# The same chunks give the same compressed bytes for opencomp-cpu and the
# reference library at the same level (same library underneath).
kern = {}
for r in rows:
    if r["scope"] == "kernel" and r["contender"] != "opencomp-gpu":
        kern.setdefault((r["file"], r["algorithm"]), {})[r["contender"]] = r["compressed_bytes"]
for key, v in kern.items():
    assert len(v) == (1 if key[1] in own else 2), key
PY

# Files, algorithm and chunk-size lists, a level.
"$OC" bench -q -a lz4,zstd --chunk-size 64K,1M --level 1 --repeat 2 in/text in/binary --json - > files.out 2> files.err ||
    fail "bench on files: $(head -n 3 files.err)"
python3 - files.out << 'PY' || fail "bench on files: JSON on stdout"
import json, sys
text = open(sys.argv[1]).read()
d = json.loads(text[text.index("{\n"):])
rows = d["results"]
assert {(r["file"], r["algorithm"], r["chunk_size"]) for r in rows} == {
    (f, a, c) for f in ("text", "binary") for a in ("lz4", "zstd") for c in (65536, 1048576)}
assert all(r["level"] == 1 and r["repeats"] == 2 and r["verified"] for r in rows)
PY
# An empty file and a bad algorithm.
"$OC" bench -q -a zstd --repeat 1 in/empty > empty.out 2>&1 || fail "bench on an empty file: $(cat empty.out)"
"$OC" bench -a zip > bad.out 2>&1 && fail "bench -a zip: exit 0"
finish
