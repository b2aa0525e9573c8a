#!/usr/bin/env bash
# test_install.sh BUILD_DIR SOURCE_DIR [cuda] - the C library installs like libzstd:
# `cmake --install` into a temporary prefix gives the header, the static and
# shared libraries (SONAME libopencomp.so.0, versioned), the CMake package
# and opencomp.pc; then a consumer project outside the tree
# (tests/package/consumer) builds and runs against it, once with
# find_package (shared and static targets) and once with pkg-config (shared,
# and static from a tree without the .so), after the tree was MOVED (both
# find their prefix from where they lie).  Guards issue 19's packaging.
set -euo pipefail
build=$1
src=$2
# A build with the CUDA engine: its static library holds C++ (nvcc) objects,
# so the static consumers are not linked here (the shared ones are).
static=1
[ "${3:-}" = cuda ] && static=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/first" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
mv "$tmp/first" "$tmp/prefix" # relocated: nothing may name the install-time prefix
prefix=$tmp/prefix
[ -f "$prefix/include/opencomp.h" ] || fail "no include/opencomp.h"
pc=$(find "$prefix" -name opencomp.pc)
[ -n "$pc" ] || fail "no opencomp.pc"
libdir=$(dirname "$(dirname "$pc")")
[ -f "$libdir/libopencomp.a" ] || fail "no libopencomp.a in $libdir"
[ -f "$libdir/cmake/opencomp/opencompConfig.cmake" ] || fail "no opencompConfig.cmake"
[ -f "$libdir/cmake/opencomp/opencompConfigVersion.cmake" ] || fail "no opencompConfigVersion.cmake"
[ -x "$prefix/bin/opencomp" ] || fail "no bin/opencomp"
[ -f "$prefix/share/doc/opencomp/LICENSE" ] || fail "no LICENSE"
if grep -q "$tmp/first" -r "$prefix" --include='*.cmake' --include='*.pc'; then fail "installed files name the install prefix"; fi
version=$(sed -n 's/^#define OC_VERSION_STRING "\(.*\)"/\1/p' "$src/include/opencomp.h")
[ -f "$libdir/libopencomp.so.$version" ] || fail "no libopencomp.so.$version"
[ "$(readlink "$libdir/libopencomp.so")" = libopencomp.so.0 ] || fail "libopencomp.so does not link to the SONAME"
soname=$(readelf -d "$libdir/libopencomp.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libopencomp.so.0 ] || fail "SONAME is '$soname', not libopencomp.so.0"
# Only the API's symbols are exported (oc_ prefix).
bad=$(nm -D --defined-only "$libdir/libopencomp.so.$version" | awk '$2 ~ /^[TDBR]$/ {print $3}' | grep -v '^oc_' || true)
[ -z "$bad" ] || fail "exported symbols without the oc_ prefix: $bad"

gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$src/tests/package/consumer" -B "$tmp/consumer" "${gen[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
  -DOC_CONSUMER_STATIC=$([ $static = 1 ] && echo ON || echo OFF) \
  >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; fail "find_package(opencomp)"; }
cmake --build "$tmp/consumer" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "consumer build (find_package)"; }
ran() { local out; out=$("$@") && [[ $out == "ok $version "* ]]; }
ran "$tmp/consumer/consumer" || fail "consumer (opencomp::opencomp) did not run"
[ $static = 0 ] || ran "$tmp/consumer/consumer_static" || fail "consumer (opencomp::opencomp_static) did not run"
ldd "$tmp/consumer/consumer" > "$tmp/ldd.txt"; grep -q "libopencomp.so.0 => $prefix" "$tmp/ldd.txt" || { cat "$tmp/ldd.txt"; fail "opencomp::opencomp is not the installed shared library"; }
if [ $static = 1 ]; then
  ldd "$tmp/consumer/consumer_static" > "$tmp/ldd_static.txt"
  if grep -q libopencomp "$tmp/ldd_static.txt"; then fail "opencomp::opencomp_static links the .so"; fi
fi

export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --modversion opencomp)" = "$version" ] || fail "pkg-config --modversion"
# shellcheck disable=SC2046
cc -std=c11 -o "$tmp/pc_shared" "$src/tests/package/consumer/consumer.c" $(pkg-config --cflags --libs opencomp) ||
  fail "consumer build (pkg-config)"
LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ran "$tmp/pc_shared" || fail "consumer (pkg-config, shared) did not run"
if [ $static = 1 ]; then
  rm -f "$libdir"/libopencomp.so*
  # shellcheck disable=SC2046
  cc -std=c11 -o "$tmp/pc_static" "$src/tests/package/consumer/consumer.c" $(pkg-config --static --cflags --libs opencomp) ||
    fail "consumer build (pkg-config --static)"
  ran "$tmp/pc_static" || fail "consumer (pkg-config, static) did not run"
fi
echo "install tree, find_package and pkg-config consumers: ok ($version$([ $static = 1 ] || echo ', shared only: CUDA build'))"
