"""The public surface: every nvidia.nvcomp name exists with a docstring,
and the type stubs (__init__.pyi) declare every public name and method."""

import ast
import os

import pytest

import opencomp as oc

NVCOMP_NAMES = [
    "Array", "ArrayBufferKind", "BitstreamKind", "ChecksumPolicy", "Codec", "CudaStream", "ExternalMemory",
    "as_array", "as_arrays", "from_dlpack", "set_device_allocator", "set_pinned_allocator", "set_host_allocator",
]
ARRAY_MEMBERS = [
    "__cuda_array_interface__", "__array_interface__", "__dlpack__", "__dlpack_device__", "to_dlpack", "cpu",
    "cuda", "buffer_kind", "buffer_size", "dtype", "shape", "strides", "item_size", "ndim", "size", "precision",
]


def stub_tree():
    path = os.path.join(os.path.dirname(oc.__file__), "__init__.pyi")
    with open(path) as f:
        return ast.parse(f.read())


@pytest.mark.parametrize("name", NVCOMP_NAMES + ["Error", "Status", "algorithms", "build_info", "cuda_available"])
def test_name_exists_with_docstring(name):
    obj = getattr(oc, name)
    assert obj.__doc__ and len(obj.__doc__.strip()) > 10
    assert name in oc.__all__


@pytest.mark.parametrize("member", ARRAY_MEMBERS)
def test_array_members_documented(member):
    attr = getattr(oc.Array, member)
    assert attr.__doc__


def test_codec_methods_documented():
    for m in ("encode", "decode"):
        doc = getattr(oc.Codec, m).__doc__
        assert "out" in doc and "errors" in doc


def test_stubs_declare_everything():
    tree = stub_tree()
    top = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    for name in oc.__all__:
        assert name in top, name
    array = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Array")
    members = {n.name for n in array.body if isinstance(n, ast.FunctionDef)}
    for m in ARRAY_MEMBERS:
        assert m in members, m


def test_py_typed_marker_installed():
    assert os.path.exists(os.path.join(os.path.dirname(oc.__file__), "py.typed"))
