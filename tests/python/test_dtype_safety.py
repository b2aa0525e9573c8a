"""Regression tests of issue 11 item 2: the array descriptions the extension
accepts.  Object items (object arrays, object fields, '|O' type strings,
DLPack opaque handles) raise TypeError for encode inputs, out= and
data_type=: their bytes are pointers, and decoding into them handed numpy
pointers the stream chose (a segfault, or worse).  Type strings must be ones
numpy defines ('<f3' is not), and a shape whose byte count overflows raises
instead of wrapping to a few bytes."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opencomp as oc

RAW = oc.BitstreamKind.RAW


@pytest.fixture
def codec():
    return oc.Codec(algorithm="Zstd", bitstream_kind=RAW)


@pytest.fixture
def comp(codec):
    return codec.encode(np.arange(64))


class Interface:
    """An object exposing only __array_interface__ (as ctypes-based or foreign arrays do)."""

    def __init__(self, shape, typestr, descr=None, nbytes=64):
        self.mem = np.zeros(nbytes, np.uint8)
        self.ai = {"shape": shape, "typestr": typestr, "data": (self.mem.ctypes.data, False), "version": 3}
        if descr is not None:
            self.ai["descr"] = descr

    @property
    def __array_interface__(self):
        return self.ai


def test_decode_into_object_array_raises_in_a_child_process():
    # The reproduction of the report: before the fix the child died of SIGSEGV
    # when numpy printed the pointers the decoder had written.
    code = textwrap.dedent(
        """
        import numpy as np, opencomp as oc
        c = oc.Codec(algorithm='Zstd', bitstream_kind=oc.BitstreamKind.RAW)
        out = np.empty(64, dtype=object)
        try:
            c.decode(c.encode(np.arange(64)), out=out)
        except TypeError as e:
            print('TypeError', e)
        print(out)
        """
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("TypeError out: object arrays are not supported")


@pytest.mark.parametrize("dtype", ["|O8", "|O", "<O8", np.dtype(object), object])
def test_object_data_type_raises(codec, comp, dtype):
    with pytest.raises(TypeError, match="object"):
        codec.decode(comp, data_type=dtype)
    with pytest.raises(TypeError, match="object"):
        oc.Codec(algorithm="Zstd", bitstream_kind=RAW, data_type=dtype)


@pytest.mark.parametrize(
    "dtype", [np.dtype([("a", "<i8")]), np.dtype([("a", "O")]), np.dtype(("<i4", (2,)))], ids=str
)
def test_structured_data_type_raises(codec, comp, dtype):
    # a type string cannot carry fields or a sub-array shape: say so, do not drop them
    with pytest.raises(TypeError):
        codec.decode(comp, data_type=dtype)


def test_object_inputs_raise(codec):
    with pytest.raises(TypeError, match="object"):
        codec.encode(np.array(["foo", "bar", "baz"], dtype=object))
    with pytest.raises(TypeError, match="object"):
        codec.encode([np.arange(3), np.array([1, None], dtype=object)])
    with pytest.raises(TypeError, match="object"):
        codec.encode(np.zeros(3, [("Off", "O"), ("b", "<i4")]))
    with pytest.raises(TypeError, match="object"):
        oc.as_array(np.empty(3, dtype=object))


def test_object_outputs_raise(codec, comp):
    with pytest.raises(TypeError, match="object"):
        codec.decode([comp], out=[np.empty(64, dtype=object)])
    with pytest.raises(TypeError, match="object"):
        codec.decode(comp, out=np.zeros(64, [("p", "O")]))


def test_object_through_array_interface_raises(codec):
    with pytest.raises(TypeError, match="object"):
        codec.encode(Interface((8,), "|O8"))
    # a void type string whose descr holds an object field
    with pytest.raises(TypeError, match="object"):
        codec.encode(Interface((4,), "|V16", descr=[("a", "<i8"), ("b", "|O8")]))
    with pytest.raises(TypeError, match="object"):
        codec.encode(Interface((4,), "|V16", descr=[("a", "<i8"), ("s", [("x", "|O")])]))


def test_plain_structured_arrays_still_work(codec):
    # fields without objects are plain bytes, as numcodecs treats them
    a = np.zeros(10, [("x", "<f8"), ("n", "<i4")])
    a["x"] = np.arange(10) / 3
    a["n"] = np.arange(10)
    comp = codec.encode(a)
    out = np.zeros_like(a)
    codec.decode(comp, out=out)
    assert out.tobytes() == a.tobytes()


@pytest.mark.parametrize("ts", ["<f3", "<f12", "<i3", "<u16", "|b2", "<c4", "<M4", "<f0", "|V0", "<x4", "f", ""])
def test_undefined_typestr_raises(codec, comp, ts):
    if ts:
        with pytest.raises(ValueError):
            codec.decode(comp, data_type=ts)
    with pytest.raises(ValueError):
        codec.encode(Interface((4,), ts or "<"))


@pytest.mark.parametrize("ts,items", [("<f2", 256), ("<f8", 64), ("<c16", 32), ("|b1", 512), ("<U2", 64), ("|S3", None)])
def test_defined_typestr_sizes(codec, comp, ts, items):
    if items is None:  # 512 bytes are no whole number of 3-byte items
        with pytest.raises(ValueError):
            codec.decode(comp, data_type=ts)
        return
    r = np.asarray(codec.decode(comp, data_type=ts))
    assert r.dtype == np.dtype(ts) and r.shape == (items,)
    assert r.tobytes() == np.arange(64).tobytes()


def test_unicode_typestr_counts_characters(codec):
    # '<U3' is 3 UCS-4 characters: 12 bytes per item, not 3
    a = np.array(["abc", "de", "f"], dtype="<U3")
    comp = codec.encode(Interface((3,), "<U3", nbytes=36))
    assert bytes(codec.decode(comp)) == bytes(36)
    comp = codec.encode(a)
    r = np.asarray(codec.decode(comp, data_type="<U3"))
    assert r.tolist() == ["abc", "de", "f"]


@pytest.mark.parametrize(
    "shape,ts",
    [((2**61 + 1,), "<f8"), ((2**32, 2**32), "<f8"), ((2**62, 4), "|u1"), ((3, 2**63 - 1), "|u1"), ((2**64,), "|u1")],
)
def test_shape_overflow_raises(codec, shape, ts):
    # before the fix (2**61+1,) of <f8 "encoded" 8 bytes: the product wrapped
    with pytest.raises(ValueError):
        codec.encode(Interface(shape, ts))


def test_zero_length_dimension_is_empty(codec):
    comp = codec.encode(Interface((0, 2**40), "<f8"))
    assert len(bytes(codec.decode(comp))) == 0


def test_dlpack_export_of_items_wider_than_255_bits_is_bytes(codec):
    # complex256 is 256 bits: DLPack's 8-bit width wrapped to 0 bits
    a = np.zeros(4, dtype="<c32")
    a.real = np.arange(4)
    r = codec.decode(codec.encode(a), data_type="<c32")
    cap = r.__dlpack__()
    back = np.from_dlpack(r)
    assert back.dtype == np.uint8 and back.tobytes() == a.tobytes()
    del cap
