"""Round trips for every algorithm x bitstream kind, one array and batches,
on real data (text, binaries, source, numeric columns, random, empty)."""

import numpy as np
import pytest

import opencomp as oc
from conftest import ALGORITHMS, CORPUS, KINDS


@pytest.mark.parametrize("alg", ALGORITHMS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_roundtrip_each_sample(alg, kind, sample):
    codec = oc.Codec(algorithm=alg, bitstream_kind=kind)
    comp = codec.encode(sample)
    assert isinstance(comp, oc.Array)
    assert comp.buffer_kind == oc.ArrayBufferKind.STRIDED_HOST
    back = codec.decode(comp)
    assert bytes(back) == sample
    assert back.dtype == np.uint8 and back.shape == (len(sample),)


@pytest.mark.parametrize("alg", ALGORITHMS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_roundtrip_batch(alg, kind):
    data = [d for _, d in CORPUS]
    codec = oc.Codec(algorithm=alg, bitstream_kind=kind)
    comp = codec.encode(data)
    assert isinstance(comp, list) and len(comp) == len(data)
    back = codec.decode(comp)
    assert [bytes(b) for b in back] == data


@pytest.mark.parametrize("alg", ALGORITHMS)
def test_decode_detects_native_container_without_algorithm(alg):
    data = dict(CORPUS)["ext-sources"]
    comp = oc.Codec(algorithm=alg).encode(data)
    assert bytes(oc.Codec().decode(comp)) == data


@pytest.mark.parametrize("alg", ["Zstd", "Gzip", "Zlib"])
def test_raw_decode_detects_magic_without_algorithm(alg):
    data = dict(CORPUS)["price-column-f8"]
    comp = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW).encode(data)
    got = oc.Codec(bitstream_kind=oc.BitstreamKind.RAW).decode(comp)
    assert bytes(got) == data


@pytest.mark.parametrize("chunk", [4096, 65536, 1 << 20])
def test_native_chunk_sizes(chunk):
    data = dict(CORPUS)["bash"] if "bash" in dict(CORPUS) else dict(CORPUS)["random"]
    for alg in ALGORITHMS:
        codec = oc.Codec(algorithm=alg, uncomp_chunk_size=chunk)
        assert codec.uncomp_chunk_size == chunk
        assert bytes(codec.decode(codec.encode(data))) == data


@pytest.mark.parametrize("policy", list(oc.ChecksumPolicy), ids=lambda p: p.name)
def test_checksum_policies_roundtrip(policy):
    data = dict(CORPUS)["ext-sources"]
    for alg in ALGORITHMS:
        codec = oc.Codec(algorithm=alg, checksum_policy=policy)
        assert bytes(codec.decode(codec.encode(data))) == data


@pytest.mark.parametrize("alg,levels", [("Zstd", [-5, 1, 19]), ("Deflate", [1, 12]), ("LZ4", [1, 9]), ("Gzip", [9])])
def test_levels(alg, levels):
    data = dict(CORPUS)["ext-sources"]
    sizes = []
    for lv in levels:
        codec = oc.Codec(algorithm=alg, level=lv, bitstream_kind=oc.BitstreamKind.RAW)
        comp = codec.encode(data)
        sizes.append(comp.buffer_size)
        assert bytes(codec.decode(comp)) == data
    # a higher level never compresses this text worse than the fastest one
    assert sizes[-1] <= sizes[0]


def test_algorithm_type_deflate_levels():
    data = dict(CORPUS)["ext-sources"]
    fast = oc.Codec(algorithm="Deflate", algorithm_type=0, bitstream_kind=oc.BitstreamKind.RAW).encode(data)
    best = oc.Codec(algorithm="Deflate", algorithm_type=5, bitstream_kind=oc.BitstreamKind.RAW).encode(data)
    assert best.buffer_size < fast.buffer_size


@pytest.mark.parametrize("dtype", ["<f4", "<f8", "<i2", "|u1", "<u8", "<i4"])
def test_data_type(dtype):
    x = (np.arange(30_000) * 7 % 1000).astype(dtype)
    codec = oc.Codec(algorithm="LZ4")
    out = codec.decode(codec.encode(x), data_type=dtype)
    assert out.dtype == np.dtype(dtype)
    assert out.shape == x.shape and out.item_size == x.itemsize and out.size == x.size
    np.testing.assert_array_equal(np.asarray(out), x)
    # default data type given to the Codec (nvCOMP's LZ4 data_type option)
    codec2 = oc.Codec(algorithm="LZ4", data_type=dtype)
    np.testing.assert_array_equal(np.asarray(codec2.decode(codec2.encode(x))), x)
    # numpy dtype objects are accepted as well as strings
    assert codec.decode(codec.encode(x), data_type=np.dtype(dtype)).dtype == np.dtype(dtype)


def test_data_type_not_a_multiple():
    codec = oc.Codec(algorithm="Zstd")
    with pytest.raises(ValueError, match="whole number"):
        codec.decode(codec.encode(b"12345"), data_type="<f4")


def test_multidimensional_input_is_bytes():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    codec = oc.Codec(algorithm="Snappy")
    out = np.asarray(codec.decode(codec.encode(x), data_type="<i4"))
    np.testing.assert_array_equal(out.reshape(2, 3, 4), x)


def test_inputs_of_every_host_kind():
    data = dict(CORPUS)["ext-sources"]
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=oc.BitstreamKind.RAW)
    arr = np.frombuffer(data, dtype=np.uint8)
    inputs = [data, bytearray(data), memoryview(data), arr, oc.as_array(arr), arr.view(np.int8)]
    for x in inputs:
        comp = codec.encode(x)
        assert bytes(codec.decode(comp)) == data
        assert bytes(codec.decode(bytes(comp))) == data
        assert bytes(codec.decode(memoryview(comp))) == data
        assert bytes(codec.decode(np.asarray(comp))) == data


def test_nvcomp_argument_spellings():
    codec = oc.Codec(algorithm="LZ4")
    data = b"spelling " * 100
    assert bytes(codec.decode(src=codec.encode(array_s=data))) == data
    assert bytes(codec.decode(srcs=codec.encode(array=data))) == data
    assert [bytes(x) for x in codec.decode(srcs=codec.encode(srcs=[data, data]))] == [data, data]
    with pytest.raises(TypeError, match="both"):
        codec.decode(src=b"x", srcs=b"y")
