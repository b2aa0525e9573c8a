"""Shared fixtures of the Python tests: real data (text, binaries, source
files, numeric columns) and the `gpu` marker, which skips cleanly when no GPU
(or no CUDA engine) is present."""

import glob
import os

import numpy as np
import pytest

import opencomp as oc

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ALGORITHMS = ["LZ4", "Snappy", "Deflate", "Zlib", "Gzip", "Zstd", "Cascaded", "ANS", "Bitcomp"]
KINDS = list(oc.BitstreamKind)


def _read(path, limit):
    with open(path, "rb") as f:
        return f.read(limit)


def _corpus():
    items = []
    docs = sorted(glob.glob("/usr/share/doc/*/copyright"))[:3]
    for p in docs:
        items.append((os.path.basename(os.path.dirname(p)) + "-copyright", _read(p, 1 << 20)))
    for p in ("/bin/bash", "/usr/bin/env"):
        if os.path.exists(p):
            items.append((os.path.basename(p), _read(p, 300_000)))
    srcs = sorted(glob.glob(os.path.join(REPO, "python", "opencomp", "_ext", "*.c")))
    items.append(("ext-sources", b"".join(_read(p, 1 << 20) for p in srcs)))
    rng = np.random.default_rng(1234)
    prices = np.cumsum(rng.normal(0, 0.01, 50_000)).astype(np.float64) + 100.0
    items.append(("price-column-f8", prices.tobytes()))
    ids = np.sort(rng.integers(0, 1 << 40, 40_000)).astype(np.int64)
    items.append(("sorted-ids-i8", ids.tobytes()))
    items.append(("random", rng.bytes(70_000)))
    items.append(("zeros", bytes(200_000)))
    items.append(("one-byte", b"x"))
    items.append(("empty", b""))
    return items


CORPUS = _corpus()


@pytest.fixture(params=[name for name, _ in CORPUS])
def sample(request):
    return dict(CORPUS)[request.param]


@pytest.fixture
def corpus():
    return list(CORPUS)


def pytest_collection_modifyitems(config, items):
    if oc.cuda_available():
        return
    skip = pytest.mark.skip(reason="no CUDA GPU (or this build has no CUDA engine)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (skipped cleanly when none is present)")
