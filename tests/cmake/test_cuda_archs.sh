#!/usr/bin/env bash
# test_cuda_archs.sh - which GPU architectures a build compiles for
# (cmake/cuda_archs.cmake; issue 19): OC_CUDA_ARCHS=native asks nvidia-smi
# and builds for the GPUs it names, each once; where it fails or names none
# (CI, no driver) the portable list, never a failed build; "all" and
# explicit lists as given; anything else refused.  And `pip install .`
# defaults to native unless OC_CUDA_ARCHS is set in the environment
# (pyproject.toml).  A fake nvidia-smi stands in for the GPUs, so this runs
# anywhere.  Usage: test_cuda_archs.sh SOURCE_DIR
set -u
src=${1:?source dir}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

resolve() { # resolve VALUE [SMI] -> the list, or "ERROR"
  local smi=${2:-$tmp/none}
  local out
  if out=$(cmake -DOC_CUDA_ARCHS="$1" -DOC_NVIDIA_SMI="$smi" -P "$src/cmake/cuda_archs.cmake" 2>&1); then
    sed -n 's/.*archs: //p' <<<"$out"
  else
    echo ERROR
  fi
}
expect() { # expect WHAT GOT WANT
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: got '$2', want '$3'"
    fail=1
  fi
}
smi() { # smi NAME EXIT LINES... : a fake nvidia-smi
  local f=$tmp/$1 code=$2
  shift 2
  { echo '#!/bin/sh'; for l in "$@"; do echo "echo '$l'"; done; echo "exit $code"; } >"$f"
  chmod +x "$f"
  echo "$f"
}

expect "two H100s and an RTX A6000" "$(resolve native "$(smi mixed 0 9.0 8.6 9.0)")" "86;90"
expect "a B200" "$(resolve native "$(smi b200 0 10.0)")" "100"
expect "nvidia-smi fails (no driver)" "$(resolve native "$(smi broken 9)")" "80;90;100"
expect "no GPU listed" "$(resolve native "$(smi nogpu 0 'No devices were found')")" "80;90;100"
expect "no nvidia-smi at all" "$(resolve native "$tmp/absent")" "80;90;100"
mkdir -p "$tmp/bin" && cp "$(smi h100 0 9.0)" "$tmp/bin/nvidia-smi"
expect "nvidia-smi found on PATH" \
  "$(PATH="$tmp/bin:$PATH" cmake -DOC_CUDA_ARCHS=native -P "$src/cmake/cuda_archs.cmake" 2>&1 | sed -n 's/.*archs: //p')" "90"
expect "all" "$(resolve all)" "80;90;100"
expect "a list" "$(resolve '80;90')" "80;90"
expect "arch-specific" "$(resolve '90a')" "90a"
expect "garbage" "$(resolve 'sm_90')" "ERROR"
expect "empty" "$(resolve '')" "ERROR"

# pip install . : native by default, the environment's OC_CUDA_ARCHS otherwise
if python3 -c 'import tomllib' 2>/dev/null; then
  got=$(python3 - "$src/pyproject.toml" <<'PY'
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))["tool"]["scikit-build"]["cmake"]["define"]["OC_CUDA_ARCHS"]
print(d["env"], d["default"])
PY
)
  expect "pyproject.toml's OC_CUDA_ARCHS" "$got" "OC_CUDA_ARCHS native"
fi

[ $fail = 0 ] && echo "test_cuda_archs: all checks passed"
exit $fail
