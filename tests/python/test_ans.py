"""ANS through the Python API: nvCOMP's data_type ('|u1' bytes, '<f2'
16-bit floats: the sign and exponent bytes entropy-coded), the type taken
from the input arrays when it has 1 or 2 bytes, every bitstream kind,
exact errors for bad options, and the ratio on text and float16/bfloat16
shaped data."""

import numpy as np
import pytest

import opencomp as oc

KINDS = list(oc.BitstreamKind)
RNG = np.random.default_rng(18)


def columns():
    text = np.frombuffer((b"the quick brown fox jumps over the lazy dog " * 3000)[:100_000], dtype=np.uint8)
    skewed = RNG.choice(np.arange(256, dtype=np.uint8), 90_000, p=np.arange(256, 0, -1) ** 4 / np.sum(np.arange(256, 0, -1) ** 4.0))
    weights = (RNG.standard_normal(70_001) * 0.02).astype(np.float16)
    i16 = RNG.integers(-300, 300, 50_000).astype(np.int16)
    rnd = np.frombuffer(RNG.bytes(70_000), dtype=np.uint8)
    return {"text-u1": text, "skewed-u1": skewed, "weights-f2": weights, "small-i2": i16, "random-u1": rnd}


COLUMNS = columns()


@pytest.mark.parametrize("name", sorted(COLUMNS))
@pytest.mark.parametrize("kind", KINDS)
def test_roundtrip(name, kind):
    a = COLUMNS[name]
    codec = oc.Codec(algorithm="ANS", bitstream_kind=kind)
    comp = codec.encode(a)
    back = np.asarray(codec.decode(comp, data_type=a.dtype.str))
    assert back.dtype == a.dtype
    np.testing.assert_array_equal(back, a)


def test_ratios():
    text = COLUMNS["text-u1"]
    assert text.nbytes / len(bytes(oc.Codec(algorithm="ANS").encode(text))) > 1.7
    w = COLUMNS["weights-f2"]
    f2 = len(bytes(oc.Codec(algorithm="ANS", data_type="<f2").encode(w)))
    inferred = len(bytes(oc.Codec(algorithm="ANS").encode(w)))
    as_bytes = len(bytes(oc.Codec(algorithm="ANS", data_type="|u1").encode(w)))
    assert f2 == inferred
    assert f2 < as_bytes
    assert w.nbytes / f2 > 1.12  # float16: sign, 5 exponent bits and 2 mantissa bits coded
    # incompressible data is stored: a few bytes of header a chunk
    rnd = COLUMNS["random-u1"]
    raw = oc.Codec(algorithm="ANS", bitstream_kind=oc.BitstreamKind.RAW)
    assert len(bytes(raw.encode(rnd))) == rnd.nbytes + 9


def test_wide_inputs_are_coded_as_bytes():
    a = np.arange(20_000, dtype=np.int32)
    codec = oc.Codec(algorithm="ANS")
    comp = codec.encode(a)
    np.testing.assert_array_equal(np.asarray(codec.decode(comp, data_type="<i4")), a)
    assert len(bytes(comp)) == len(bytes(oc.Codec(algorithm="ANS", data_type="|u1").encode(a)))


def test_bad_options():
    with pytest.raises(ValueError, match="data_type"):
        oc.Codec(algorithm="ANS", data_type="<f4")
    with pytest.raises(ValueError, match="Cascaded only"):
        oc.Codec(algorithm="ANS", num_rles=1)
    # <f2 NATIVE chunks hold whole values
    codec = oc.Codec(algorithm="ANS", data_type="<f2", uncomp_chunk_size=65537)
    with pytest.raises((ValueError, oc.Error)):
        codec.encode(COLUMNS["weights-f2"])


def test_corrupt_and_truncated_streams():
    codec = oc.Codec(algorithm="ANS", bitstream_kind=oc.BitstreamKind.RAW)
    comp = bytes(codec.encode(COLUMNS["text-u1"]))
    with pytest.raises(oc.Error) as ei:
        codec.decode(np.frombuffer(comp[:-1], np.uint8))
    assert ei.value.status in (oc.Status.TRUNCATED, oc.Status.CORRUPT)
    bad = bytearray(comp)
    bad[-3] ^= 0x10  # a word of the last tile
    with pytest.raises(oc.Error) as ei:
        codec.decode(np.frombuffer(bytes(bad), np.uint8))
    assert ei.value.status == oc.Status.CORRUPT


@pytest.mark.gpu
def test_gpu_and_cpu_write_the_same_bytes():
    cp = pytest.importorskip("cupy")
    for name, a in COLUMNS.items():
        codec = oc.Codec(algorithm="ANS", bitstream_kind=oc.BitstreamKind.RAW)
        host = bytes(codec.encode(a))
        dev = codec.encode(cp.asarray(a))
        assert bytes(dev.cpu()) == host, name
        back = codec.decode(dev, data_type=a.dtype.str)
        np.testing.assert_array_equal(cp.asnumpy(cp.asarray(back)), a)


@pytest.mark.gpu
def test_gpu_decode_type_hint_never_changes_results():
    """On the GPU a decode's 16-bit data_type is a hint that picks the decoder's 2-warp CTAs: chunks of every
    column (bytes and 16-bit alike) decode to the input's bytes whichever type the call names."""
    cp = pytest.importorskip("cupy")
    codec = oc.Codec(algorithm="ANS", bitstream_kind=oc.BitstreamKind.RAW)
    for name, a in COLUMNS.items():
        dev = codec.encode(cp.asarray(a))
        for ts in ("|u1", "<u2", "<f2"):
            back = cp.asarray(codec.decode(dev, data_type=ts))
            assert back.dtype == np.dtype(ts), (name, ts)
            assert cp.asnumpy(back).tobytes() == a.tobytes(), (name, ts)


@pytest.mark.parametrize("algorithm", ["ANS", "Bitcomp", "Cascaded"])
@pytest.mark.parametrize("name", ["bf16", "bfloat16"])
def test_bfloat16_by_name(algorithm, name):
    """bfloat16 has no numpy type string: the typed codecs take data_type='bf16' (or 'bfloat16'); the chunk's
    header says bfloat16 (FORMAT.md's type 10), the decoded Arrays are '<u2', and the values come back."""
    f32 = (RNG.standard_normal(30_000) * 0.02).astype(np.float32)
    bf16 = (f32.view(np.uint32) >> 16).astype(np.uint16)  # bfloat16 by truncation, as the benchmark's weights
    codec = oc.Codec(algorithm=algorithm, data_type=name, bitstream_kind=oc.BitstreamKind.RAW)
    assert codec.data_type == "bf16"
    comp = codec.encode(bf16)  # one RAW chunk (60,000 bytes)
    raw = bytes(comp)
    assert raw[0] == ord(algorithm[0]) and raw[2] == 10  # the typed chunk header: codec id; data type bfloat16
    back = codec.decode(comp)
    assert back.__array_interface__["typestr"] == "<u2"
    np.testing.assert_array_equal(np.asarray(back), bf16)


def test_bfloat16_name_only_for_typed_codecs():
    with pytest.raises(ValueError, match="data_type 'bf16' is for Cascaded, Bitcomp and ANS"):
        oc.Codec(algorithm="LZ4", data_type="bf16")
