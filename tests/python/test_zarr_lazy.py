"""opencomp.zarr is importable without zarr until used (issue 19): the
import loads nothing of zarr; the first use does, or says which extra to
install when zarr is missing; the classes keep their public module name
(zarr's config and pickle name them as opencomp.zarr.X)."""
import subprocess
import sys
import textwrap


def _run(code):
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_import_does_not_load_zarr():
    out = _run("""
        import sys
        import opencomp.zarr
        print("zarr" in sys.modules)
        opencomp.zarr.ZstdCodec
        print("zarr" in sys.modules, opencomp.zarr.ZstdCodec.__module__)
    """)
    assert out.split() == ["False", "True", "opencomp.zarr"]


def test_without_zarr_first_use_names_the_extra():
    out = _run("""
        import sys
        sys.modules["zarr"] = None   # as if zarr were not installed
        import opencomp.zarr
        try:
            opencomp.zarr.enable()
        except ImportError as e:
            print("ImportError", "opencomp[zarr]" in str(e))
    """)
    assert out.split() == ["ImportError", "True"]
