"""Cascaded through the Python API: nvCOMP's options with nvCOMP's defaults
(data_type, num_rles=2, num_deltas=1, use_bitpack=True), the automatic layer
choice (auto_layers=True, an extension), the element type taken from the
input arrays, every bitstream kind, exact errors for bad options, and the
ratio on column shapes (typed coding beats bytes)."""

import numpy as np
import pytest

import opencomp as oc

KINDS = list(oc.BitstreamKind)
RNG = np.random.default_rng(18)


def columns():
    keys = np.repeat(np.arange(1, 20001, dtype=np.int64) * 3, RNG.integers(1, 8, 20000))
    dates = (8036 + RNG.integers(0, 2526, 60000)).astype(np.int32)
    small = RNG.integers(-50, 50, 70000).astype(np.int16)
    u8 = np.frombuffer(b"abc" * 30000 + RNG.bytes(5000), dtype=np.uint8)
    f64 = np.round(RNG.uniform(1, 50, 30000)).astype(np.float64)
    return {"keys-i8": keys, "dates-i4": dates, "small-i2": small, "bytes-u1": u8, "quantity-f8": f64}


COLUMNS = columns()
LAYERS = [
    {},
    {"num_rles": 0, "num_deltas": 0},
    {"num_rles": 3, "num_deltas": 3},
    {"num_rles": 1, "num_deltas": 2, "use_bitpack": False},
    {"auto_layers": True},
]


@pytest.mark.parametrize("name", sorted(COLUMNS))
@pytest.mark.parametrize("layers", LAYERS, ids=lambda d: ",".join(f"{k}={v}" for k, v in d.items()) or "default")
@pytest.mark.parametrize("kind", KINDS)
def test_roundtrip(name, layers, kind):
    a = COLUMNS[name]
    codec = oc.Codec(algorithm="Cascaded", bitstream_kind=kind, **layers)
    comp = codec.encode(a)
    back = np.asarray(codec.decode(comp, data_type=a.dtype.str))
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)


def test_data_type_from_the_input_and_given():
    keys = COLUMNS["keys-i8"]
    typed = len(bytes(oc.Codec(algorithm="Cascaded").encode(keys)))
    as_bytes = len(bytes(oc.Codec(algorithm="Cascaded", data_type="|u1").encode(keys)))
    given = len(bytes(oc.Codec(algorithm="Cascaded", data_type="<i8").encode(keys.view(np.uint8))))
    assert typed == given
    assert typed * 4 < as_bytes, (typed, as_bytes)
    assert keys.nbytes / typed > 20


def test_auto_layers_never_larger_than_the_default():
    for name, a in COLUMNS.items():
        default = len(bytes(oc.Codec(algorithm="Cascaded").encode(a)))
        auto = len(bytes(oc.Codec(algorithm="Cascaded", auto_layers=True).encode(a)))
        assert auto <= default, name


def test_a_batch_and_odd_sizes():
    codec = oc.Codec(algorithm="Cascaded", data_type="<i4", uncomp_chunk_size=4096)
    srcs = [COLUMNS["dates-i4"][:n] for n in (0, 1, 1000, 4096, 20000)]
    comps = codec.encode(srcs)
    for s, c in zip(srcs, comps):
        np.testing.assert_array_equal(np.asarray(codec.decode(c, data_type="<i4")), s)
    # a byte string whose length is not a multiple of the type: RAW keeps the tail
    raw = oc.Codec(algorithm="Cascaded", data_type="<i8", bitstream_kind=oc.BitstreamKind.RAW)
    data = COLUMNS["keys-i8"].tobytes()[:8003]
    assert bytes(raw.decode(raw.encode(np.frombuffer(data, np.uint8)), data_type="|u1")) == data


def test_bad_options():
    with pytest.raises(ValueError, match="num_rles"):
        oc.Codec(algorithm="Cascaded", num_rles=4)
    with pytest.raises(ValueError, match="num_deltas"):
        oc.Codec(algorithm="Cascaded", num_deltas=-1)
    with pytest.raises(ValueError, match="Cascaded only"):
        oc.Codec(algorithm="LZ4", num_rles=1)
    with pytest.raises(ValueError, match="auto_layers"):
        oc.Codec(algorithm="Cascaded", auto_layers=True, num_rles=1)
    with pytest.raises(ValueError, match="data_type"):
        oc.Codec(algorithm="Cascaded", data_type="<c8")
    # NATIVE chunks hold whole elements
    codec = oc.Codec(algorithm="Cascaded", data_type="<i8", uncomp_chunk_size=65537)
    with pytest.raises((ValueError, oc.Error)):
        codec.encode(COLUMNS["keys-i8"])


def test_corrupt_and_truncated_streams():
    codec = oc.Codec(algorithm="Cascaded", bitstream_kind=oc.BitstreamKind.RAW)
    comp = bytes(codec.encode(COLUMNS["keys-i8"]))
    with pytest.raises(oc.Error) as ei:
        codec.decode(np.frombuffer(comp[:-1], np.uint8))
    assert ei.value.status in (oc.Status.TRUNCATED, oc.Status.CORRUPT)
    bad = bytearray(comp)
    bad[0] = ord("B")
    with pytest.raises(oc.Error) as ei:
        codec.decode(np.frombuffer(bytes(bad), np.uint8))
    assert ei.value.status == oc.Status.CORRUPT


@pytest.mark.gpu
def test_gpu_and_cpu_write_the_same_bytes():
    cp = pytest.importorskip("cupy")
    for layers in LAYERS:
        for name, a in COLUMNS.items():
            codec = oc.Codec(algorithm="Cascaded", bitstream_kind=oc.BitstreamKind.RAW, **layers)
            host = bytes(codec.encode(a))
            dev = codec.encode(cp.asarray(a))
            assert bytes(dev.cpu()) == host, (name, layers)
            back = codec.decode(dev, data_type=a.dtype.str)
            np.testing.assert_array_equal(cp.asnumpy(cp.asarray(back)), a)
