"""The installed distribution's metadata (issue 19): the licence as an SPDX
expression with the LICENSE file carried (PEP 639), and the extras
opencomp[zarr] and opencomp[numcodecs] naming what those modules import."""
from importlib import metadata


def test_license_expression_and_file():
    md = metadata.metadata("opencomp")
    assert md["License-Expression"] == "BSD-3-Clause"
    assert "LICENSE" in (md.get_all("License-File") or [])
    files = [str(f) for f in metadata.files("opencomp") or []]
    assert any(f.endswith("licenses/LICENSE") for f in files), files


def test_extras():
    md = metadata.metadata("opencomp")
    extras = set(md.get_all("Provides-Extra") or [])
    assert {"zarr", "numcodecs", "test"} <= extras
    reqs = metadata.requires("opencomp") or []
    assert any(r.startswith("zarr") and 'extra == "zarr"' in r for r in reqs), reqs
    assert any(r.startswith("numcodecs") and 'extra == "numcodecs"' in r for r in reqs), reqs
