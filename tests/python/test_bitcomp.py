"""Bitcomp through the Python API: nvCOMP's options with nvCOMP's defaults
(algorithm_type 0, or 1 "sparse"; data_type), the element type taken from
the input arrays, every bitstream kind, exact errors for bad options, and
ratios on column shapes: integer keys, decimals stored as floats, model
weights, mostly-zero data."""

import numpy as np
import pytest

import opencomp as oc

KINDS = list(oc.BitstreamKind)
RNG = np.random.default_rng(18)


def columns():
    keys = np.repeat(np.arange(1, 20001, dtype=np.int64) * 3, RNG.integers(1, 8, 20000))
    dates = (8036 + RNG.integers(0, 2526, 60000)).astype(np.int32)
    prices = RNG.integers(90000, 10494950, 30000).astype(np.float64) / 100.0
    weights = (RNG.standard_normal(50001) * 0.02).astype(np.float32)
    sparse = np.where(RNG.random(70000) < 0.03, RNG.integers(1, 1000, 70000), 0).astype(np.int32)
    halves = (RNG.standard_normal(40000) * 0.02).astype(np.float16)
    return {"keys-i8": keys, "dates-i4": dates, "prices-f8": prices, "weights-f4": weights,
            "sparse-i4": sparse, "weights-f2": halves}


COLUMNS = columns()


@pytest.mark.parametrize("name", sorted(COLUMNS))
@pytest.mark.parametrize("algorithm_type", [0, 1])
@pytest.mark.parametrize("kind", KINDS)
def test_roundtrip(name, algorithm_type, kind):
    a = COLUMNS[name]
    codec = oc.Codec(algorithm="Bitcomp", bitstream_kind=kind, algorithm_type=algorithm_type)
    comp = codec.encode(a)
    back = np.asarray(codec.decode(comp, data_type=a.dtype.str))
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)


def size(a, **kw):
    return len(bytes(oc.Codec(algorithm="Bitcomp", **kw).encode(a)))


def test_ratios():
    keys = COLUMNS["keys-i8"]
    assert keys.nbytes / size(keys) > 8
    assert size(keys) * 4 < size(keys, data_type="|u1")
    prices = COLUMNS["prices-f8"]  # two decimals: coded as integers of cents
    assert prices.nbytes / size(prices) > 2.2
    sparse = COLUMNS["sparse-i4"]
    assert sparse.nbytes / size(sparse, algorithm_type=1) > 5
    w = COLUMNS["weights-f4"]
    assert w.nbytes / size(w) > 1.05


def test_data_type_from_the_input_and_given():
    keys = COLUMNS["keys-i8"]
    typed = size(keys)
    given = len(bytes(oc.Codec(algorithm="Bitcomp", data_type="<i8").encode(keys.view(np.uint8))))
    assert typed == given


def test_bad_options():
    with pytest.raises(ValueError, match="algorithm_type"):
        oc.Codec(algorithm="Bitcomp", algorithm_type=2)
    with pytest.raises(ValueError, match="algorithm_type"):
        oc.Codec(algorithm="Zstd", algorithm_type=1)
    with pytest.raises(ValueError, match="data_type"):
        oc.Codec(algorithm="Bitcomp", data_type="<c8")
    with pytest.raises(ValueError, match="Cascaded only"):
        oc.Codec(algorithm="Bitcomp", num_rles=1)
    codec = oc.Codec(algorithm="Bitcomp", data_type="<i8", uncomp_chunk_size=65537)
    with pytest.raises((ValueError, oc.Error)):
        codec.encode(COLUMNS["keys-i8"])


def test_corrupt_and_truncated_streams():
    codec = oc.Codec(algorithm="Bitcomp", bitstream_kind=oc.BitstreamKind.RAW)
    comp = bytes(codec.encode(COLUMNS["dates-i4"]))
    with pytest.raises(oc.Error) as ei:
        codec.decode(np.frombuffer(comp[:-1], np.uint8))
    assert ei.value.status in (oc.Status.TRUNCATED, oc.Status.CORRUPT)
    bad = bytearray(comp)
    bad[0] = ord("C")
    with pytest.raises(oc.Error) as ei:
        codec.decode(np.frombuffer(bytes(bad), np.uint8))
    assert ei.value.status == oc.Status.CORRUPT


@pytest.mark.gpu
def test_gpu_and_cpu_write_the_same_bytes():
    cp = pytest.importorskip("cupy")
    for algorithm_type in (0, 1):
        for name, a in COLUMNS.items():
            codec = oc.Codec(algorithm="Bitcomp", bitstream_kind=oc.BitstreamKind.RAW,
                             algorithm_type=algorithm_type)
            host = bytes(codec.encode(a))
            dev = codec.encode(cp.asarray(a))
            assert bytes(dev.cpu()) == host, (name, algorithm_type)
            back = codec.decode(dev, data_type=a.dtype.str)
            np.testing.assert_array_equal(cp.asnumpy(cp.asarray(back)), a)
