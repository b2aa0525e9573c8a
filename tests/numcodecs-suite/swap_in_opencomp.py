"""pytest plugin: numcodecs' own tests of Zstd, LZ4, Zlib and GZip, run with
opencomp.numcodecs' classes in the place of numcodecs' (issue 11 item 11).

numcodecs ships its tests inside the package (numcodecs.tests); they import
the codec classes from numcodecs.zstd, numcodecs.lz4, numcodecs.zlib and
numcodecs.gzip at collection time.  Before collection this plugin puts
opencomp's classes there (and at numcodecs.<Name>, which the repr tests'
`from numcodecs import *` reads) and registers them for the stock ids, so
every check -- round trips in memory order, decode(out=), repr, config,
object and non-contiguous buffers, max_buffer_size, the stock-written
fixtures -- runs against opencomp.  The tests are the ones of the numcodecs
version pinned below (requirements-test.txt installs it); another version
is refused, so a change of numcodecs' tests is a deliberate update here.
Run by run-numcodecs-suite beside this file.
"""

import numcodecs
import pytest

PINNED_NUMCODECS = "0.16.6"
MODULES = ("zstd", "lz4", "zlib", "gzip")


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
        for attr in ("Zstd", "LZ4", "Zlib", "GZip"):
            if hasattr(mod, attr):
                setattr(mod, attr, getattr(ocn, attr))
                setattr(numcodecs, attr, getattr(ocn, attr))
    ocn.register()


def pytest_collection_finish(session):
    """Refuse to pass vacuously: every test module must hold opencomp's class."""
    import opencomp.numcodecs as ocn

    seen = set()
    for item in session.items:
        mod = item.module
        for attr in ("Zstd", "LZ4", "Zlib", "GZip"):
            cls = getattr(mod, attr, None)
            if cls is not None:
                if cls is not getattr(ocn, attr):
                    raise pytest.UsageError(f"{mod.__name__}.{attr} is {cls!r}, not opencomp's class")
                seen.add(attr)
    if seen != {"Zstd", "LZ4", "Zlib", "GZip"}:
        raise pytest.UsageError(f"collected tests of {sorted(seen)} only")
