# gpu-deps.sh - sourced, not run, by scripts/gpu-check and
# bench/gpu/dask-scaling on a GPU machine (no network): puts the carried
# dependencies of $DEPS (filled here by scripts/fetch-gpu-deps) where the
# build and Python find them, written once for both.
#   - every $DEPS/debs/*.deb is unpacked (dpkg -x) into PREFIX=/tmp/oc-prefix;
#     its libraries folder is LIBDIR and goes first on LD_LIBRARY_PATH;
#   - every $DEPS/whl/*.whl, if any, is installed (no index, no deps) into
#     SITE=/tmp/oc-site, which goes first on PYTHONPATH;
#   - OC_DEPS_SKBUILD_ARGS holds the CMake arguments (';'-separated, for
#     SKBUILD_CMAKE_ARGS) that point a build at PREFIX's headers and libraries.
# Sets PREFIX, SITE, LIBDIR and OC_DEPS_SKBUILD_ARGS; exports
# LD_LIBRARY_PATH and PYTHONPATH.  Needs DEPS set by the caller.
PREFIX=/tmp/oc-prefix
SITE=/tmp/oc-site
mkdir -p "$PREFIX" "$SITE"
for d in "$DEPS"/debs/*.deb; do [ -f "$d" ] && dpkg -x "$d" "$PREFIX"; done
LIBDIR=$PREFIX/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ls "$DEPS"/whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$SITE" \
    "$DEPS"/whl/*.whl 2>&1 | tail -n 3
fi
export PYTHONPATH=$SITE${PYTHONPATH:+:$PYTHONPATH}
# kvikio's wheels (fetch-gpu-deps --zarr) keep their libraries beside their packages
for d in "$SITE"/libkvikio/lib64 "$SITE"/rapids_logger/lib64; do
  [ -d "$d" ] && export LD_LIBRARY_PATH=$d:$LD_LIBRARY_PATH
done
OC_DEPS_SKBUILD_ARGS="-DCMAKE_PREFIX_PATH=$PREFIX/usr;-DCMAKE_INCLUDE_PATH=$PREFIX/usr/include;-DCMAKE_LIBRARY_PATH=$LIBDIR"
