"""pytest plugin: numcodecs' own tests of Zstd, LZ4, Zlib, GZip and Blosc, run
with opencomp.numcodecs' classes in the place of numcodecs' (issue 11 item 11,
issue 17 for Blosc).

numcodecs ships its tests inside the package (numcodecs.tests); they import
the codec classes from numcodecs.zstd, numcodecs.lz4, numcodecs.zlib,
numcodecs.gzip and numcodecs.blosc at collection time.  Before collection
this plugin puts opencomp's classes there (and at numcodecs.<Name>, which the
repr tests' `from numcodecs import *` reads) and registers them for the stock
ids, so every check -- round trips in memory order, decode(out=), repr,
config, object and non-contiguous buffers, max_buffer_size, the
stock-written fixtures -- runs against opencomp.

test_blosc also calls numcodecs.blosc's module functions (compress,
cbuffer_sizes, cbuffer_complib, _cbuffer_metainfo, list_compressors,
use_threads) through its global `blosc`: that global becomes
opencomp.numcodecs._blosc, which has the same functions over opencomp's
codec, so the block size, type size, shuffle and codec that those tests
read back are what opencomp wrote.  The tests that still cannot apply are
skipped with their reason (SKIPS below), never left to pass on numcodecs'
own code.

The tests are the ones of the numcodecs version pinned below
(requirements-test.txt installs it); another version is refused, so a change
of numcodecs' tests is a deliberate update here.  Run by run-numcodecs-suite
beside this file.
"""

import numcodecs
import pytest

PINNED_NUMCODECS = "0.16.6"
MODULES = ("zstd", "lz4", "zlib", "gzip", "blosc")
CLASSES = ("Zstd", "LZ4", "Zlib", "GZip", "Blosc")

# (numcodecs' test module, test function) -> why it cannot apply to opencomp
SKIPS = {
    ("numcodecs.tests.test_blosc", "test_compress_complib"): (
        "its table of expected libraries covers the cnames numcodecs' bundled c-blosc is built with, "
        "which lack snappy; opencomp's list_compressors() also names snappy (Debian's libblosc writes "
        "it), so the test's dict lookup fails for a codec it has no entry for"
    ),
}


def pytest_configure(config):
    if numcodecs.__version__ != PINNED_NUMCODECS:
        raise pytest.UsageError(
            f"numcodecs {numcodecs.__version__} is installed; this suite runs the tests of numcodecs "
            f"{PINNED_NUMCODECS} (pip install numcodecs=={PINNED_NUMCODECS}, as requirements-test.txt says)"
        )
    import importlib

    import opencomp.numcodecs as ocn

    for name in MODULES:
        mod = importlib.import_module(f"numcodecs.{name}")
        for attr in CLASSES:
            if hasattr(mod, attr):
                setattr(mod, attr, getattr(ocn, attr))
                setattr(numcodecs, attr, getattr(ocn, attr))
    ocn.register()


def pytest_collection_modifyitems(session, config, items):
    """numcodecs.tests.test_blosc's `blosc` module global -> opencomp's functions;
    the tests that cannot apply get their reason."""
    from opencomp.numcodecs import _blosc

    for item in items:
        if item.module.__name__ == "numcodecs.tests.test_blosc":
            item.module.blosc = _blosc
        why = SKIPS.get((item.module.__name__, getattr(item, "originalname", item.name)))
        if why:
            item.add_marker(pytest.mark.skip(reason=why))


def pytest_collection_finish(session):
    """Refuse to pass vacuously: every test module must hold opencomp's class."""
    import opencomp.numcodecs as ocn
    from opencomp.numcodecs import _blosc

    seen = set()
    for item in session.items:
        mod = item.module
        for attr in CLASSES:
            cls = getattr(mod, attr, None)
            if cls is not None:
                if cls is not getattr(ocn, attr):
                    raise pytest.UsageError(f"{mod.__name__}.{attr} is {cls!r}, not opencomp's class")
                seen.add(attr)
        if mod.__name__ == "numcodecs.tests.test_blosc" and mod.blosc is not _blosc:
            raise pytest.UsageError("numcodecs.tests.test_blosc.blosc is not opencomp's module")
    if seen != set(CLASSES):
        raise pytest.UsageError(f"collected tests of {sorted(seen)} only")
