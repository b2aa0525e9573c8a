"""Bad inputs give clear exceptions and never crash: wrong types, unknown or
unavailable algorithms, non-contiguous arrays, corrupt and truncated
streams (exact statuses), per-chunk errors naming the chunk, and
errors="status"."""

import random

import numpy as np
import pytest

import opencomp as oc
from conftest import ALGORITHMS, CORPUS, KINDS

RAW = oc.BitstreamKind.RAW
TEXT = dict(CORPUS)["ext-sources"]


def test_unknown_algorithm():
    with pytest.raises(ValueError, match="unknown algorithm 'brotli'; available: LZ4"):
        oc.Codec(algorithm="brotli")
    with pytest.raises(TypeError):
        oc.Codec(algorithm=3)


def test_algorithm_names_case_insensitive():
    for name in ["lz4", "SNAPPY", "deflate", "zlib", "GZIP", "zstd"]:
        assert oc.Codec(algorithm=name).algorithm.lower() == name.lower()


def test_bad_codec_options():
    with pytest.raises(TypeError):
        oc.Codec(algorithm="LZ4", no_such_option=1)
    with pytest.raises(ValueError):
        oc.Codec(algorithm="LZ4", bitstream_kind=7)
    with pytest.raises(ValueError):
        oc.Codec(algorithm="LZ4", checksum_policy=9)
    with pytest.raises(ValueError):
        oc.Codec(algorithm="LZ4", uncomp_chunk_size=0)
    with pytest.raises(ValueError):
        oc.Codec(algorithm="Zstd", level=99)
    with pytest.raises(ValueError):
        oc.Codec(algorithm="LZ4", algorithm_type=1)
    with pytest.raises(ValueError):
        oc.Codec(algorithm="LZ4", data_type="not a type")
    with pytest.raises(TypeError):
        oc.Codec(algorithm="LZ4", cuda_stream="abc")


def test_encode_needs_an_algorithm():
    with pytest.raises(ValueError, match="needs an algorithm"):
        oc.Codec().encode(b"abc")


@pytest.mark.parametrize("bad", [None, 3, 1.5, "text", object(), {"a": 1}])
def test_wrong_input_types(bad):
    codec = oc.Codec(algorithm="LZ4")
    with pytest.raises(TypeError, match="array or bytes-like"):
        codec.encode(bad)
    with pytest.raises(TypeError, match=r"srcs\[1\]"):
        codec.decode([codec.encode(b"abc"), bad])


def test_non_contiguous_inputs():
    codec = oc.Codec(algorithm="Zstd")
    a = np.arange(1000, dtype=np.int32)[::3]
    with pytest.raises(ValueError, match="C-contiguous"):
        codec.encode(a)
    b = np.arange(100, dtype=np.int16).reshape(10, 10).T
    with pytest.raises(ValueError, match=r"srcs\[0\] is not C-contiguous"):
        codec.encode([b])
    # a contiguous copy works
    assert np.array_equal(np.asarray(codec.decode(codec.encode(np.ascontiguousarray(a)), data_type="<i4")), a)


def test_bad_errors_argument_and_sizes():
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    comp = codec.encode(TEXT)
    with pytest.raises(ValueError, match="errors must be"):
        codec.decode(comp, errors="ignore")
    with pytest.raises(ValueError, match="uncomp_sizes has 2 entries"):
        codec.decode([comp], uncomp_sizes=[1, 2])
    with pytest.raises(TypeError, match="uncomp_sizes"):
        codec.decode([comp], uncomp_sizes=[-1])


@pytest.mark.parametrize(
    "alg,expected",
    [
        ("LZ4", {oc.Status.CORRUPT, oc.Status.TRUNCATED, oc.Status.SIZE_MISMATCH, oc.Status.OUTPUT_TOO_SMALL}),
        ("Snappy", {oc.Status.CORRUPT, oc.Status.TRUNCATED, oc.Status.SIZE_MISMATCH, oc.Status.OUTPUT_TOO_SMALL}),
        ("Deflate", {oc.Status.CORRUPT, oc.Status.TRUNCATED, oc.Status.SIZE_MISMATCH, oc.Status.OUTPUT_TOO_SMALL}),
        ("Zlib", {oc.Status.CORRUPT, oc.Status.TRUNCATED, oc.Status.CHECKSUM_MISMATCH, oc.Status.SIZE_MISMATCH,
                  oc.Status.OUTPUT_TOO_SMALL}),
        ("Gzip", {oc.Status.CORRUPT, oc.Status.TRUNCATED, oc.Status.CHECKSUM_MISMATCH, oc.Status.SIZE_MISMATCH,
                  oc.Status.OUTPUT_TOO_SMALL}),
        ("Zstd", {oc.Status.CORRUPT, oc.Status.TRUNCATED, oc.Status.CHECKSUM_MISMATCH, oc.Status.SIZE_MISMATCH,
                  oc.Status.OUTPUT_TOO_SMALL}),
    ],
)
def test_truncated_streams(alg, expected):
    codec = oc.Codec(algorithm=alg, bitstream_kind=RAW)
    comp = bytes(codec.encode(TEXT))
    for cut in (1, len(comp) // 2, len(comp) - 1):
        with pytest.raises(oc.Error) as ei:
            codec.decode(comp[:cut], uncomp_sizes=len(TEXT), out=np.empty(len(TEXT), np.uint8))
        assert ei.value.status in expected, (cut, ei.value.status)


def test_one_corrupt_chunk_in_a_batch():
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=RAW)
    chunks = [TEXT[i : i + 5000] for i in range(0, 30000, 5000)]
    comps = [bytes(c) for c in codec.encode(chunks)]
    bad = bytearray(comps[3])
    bad[0] ^= 0xFF  # breaks the zstd magic number
    comps[3] = bytes(bad)
    with pytest.raises(oc.Error, match=r"chunk 3 of 6: CORRUPT") as ei:
        codec.decode(comps)
    assert ei.value.chunk == 3 and ei.value.status == oc.Status.CORRUPT
    assert isinstance(ei.value, RuntimeError)  # nvCOMP raises RuntimeError
    res, st = codec.decode(comps, errors="status")
    assert st == [oc.Status.OK] * 3 + [oc.Status.CORRUPT] + [oc.Status.OK] * 2
    assert res[3] is None
    assert [bytes(r) for i, r in enumerate(res) if i != 3] == [c for i, c in enumerate(chunks) if i != 3]
    # with known sizes and outputs as well (the other chunks still decode)
    outs = [np.zeros(len(c), np.uint8) for c in chunks]
    res, st = codec.decode(comps, out=outs, uncomp_sizes=[len(c) for c in chunks], errors="status")
    assert st[3] == oc.Status.CORRUPT and outs[5].tobytes() == chunks[5]


def test_checksum_mismatch_gzip():
    codec = oc.Codec(algorithm="Gzip", bitstream_kind=RAW)
    comp = bytearray(bytes(codec.encode(TEXT)))
    comp[-6] ^= 1  # a CRC-32 byte of the trailer
    with pytest.raises(oc.Error) as ei:
        codec.decode(bytes(comp))
    assert ei.value.status == oc.Status.CHECKSUM_MISMATCH


def test_checksum_mismatch_native_verified():
    codec = oc.Codec(algorithm="LZ4", checksum_policy=oc.ChecksumPolicy.COMPUTE_AND_VERIFY)
    comp = bytearray(bytes(codec.encode(TEXT)))
    # flip a literal byte inside the first block's payload (frame header is 7-19 bytes, block size 4)
    comp[40] ^= 0x01
    with pytest.raises(oc.Error) as ei:
        codec.decode(bytes(comp))
    assert ei.value.status in (oc.Status.CHECKSUM_MISMATCH, oc.Status.CORRUPT)


def test_wus_header_too_short():
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.WITH_UNCOMPRESSED_SIZE)
    with pytest.raises(oc.Error) as ei:
        codec.decode(b"\x01\x02")
    assert ei.value.status == oc.Status.TRUNCATED


@pytest.mark.parametrize("alg", ALGORITHMS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_random_corruption_never_crashes(alg, kind):
    """Bit flips, truncations and garbage: an exception or the right bytes, nothing else."""
    rnd = random.Random(hash((alg, int(kind))) & 0xFFFF)
    codec = oc.Codec(algorithm=alg, bitstream_kind=kind, uncomp_chunk_size=8192)
    data = TEXT[:40000]
    comp = bytes(codec.encode(data))
    variants = []
    for _ in range(60):
        b = bytearray(comp)
        for _ in range(rnd.randint(1, 4)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        variants.append(bytes(b))
        variants.append(comp[: rnd.randrange(len(comp))])
    variants.append(bytes(rnd.randrange(256) for _ in range(300)))
    res, st = codec.decode(variants, errors="status")
    for r, s in zip(res, st):
        assert (s == oc.Status.OK) == (r is not None)
        assert isinstance(s, oc.Status)
    # with fixed-size outputs too (no size query)
    outs = [np.empty(len(data), np.uint8) for _ in variants]
    codec.decode(variants, out=outs, errors="status")


def test_mixed_host_and_device_not_allowed_message():
    class FakeDevice:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "|u1", "data": (0x1000, False), "version": 3}

    codec = oc.Codec(algorithm="LZ4")
    with pytest.raises(ValueError, match="one batch runs on one engine"):
        codec.encode([b"abcd", FakeDevice()])


@pytest.mark.skipif(oc.cuda_available(), reason="checks the no-GPU behaviour")
def test_device_data_without_gpu_is_a_clear_error():
    class FakeDevice:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "|u1", "data": (0x1000, False), "version": 3}

    codec = oc.Codec(algorithm="LZ4")
    with pytest.raises(oc.Error, match="no CUDA device") as ei:
        codec.encode(FakeDevice())
    assert ei.value.status == oc.Status.NO_DEVICE
    with pytest.raises(oc.Error, match="no CUDA device"):
        oc.as_array(b"abc").cuda()
    with pytest.raises(oc.Error):
        oc.CudaStream.make_new()


def test_malformed_array_interfaces():
    class Bad:
        def __init__(self, ai):
            self.__array_interface__ = ai

    codec = oc.Codec(algorithm="LZ4")
    for ai in [
        {"shape": (4,), "typestr": "|u1"},
        {"shape": (4,), "typestr": "|u1", "data": 5},
        {"shape": (4,), "typestr": "zz", "data": (1, False)},
        {"shape": (-4,), "typestr": "|u1", "data": (1, False)},
        {"shape": (4, 4), "typestr": "|u1", "data": (1, False), "strides": (1, 4)},
        "not a dict",
    ]:
        with pytest.raises((TypeError, ValueError)):
            codec.encode(Bad(ai))


@pytest.mark.parametrize("kind", [oc.BitstreamKind.RAW, oc.BitstreamKind.NVCOMP_NATIVE])
def test_undetected_raw_stream_says_pass_algorithm(kind):
    """Issue 19: RAW LZ4, Snappy and Deflate streams do not name themselves;
    decoding one without algorithm= says to pass it (and still raises with
    the library's status)."""
    import zlib

    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    stream = raw_deflate.compress(b"opencomp " * 1000) + raw_deflate.flush()
    codec = oc.Codec(bitstream_kind=kind)
    with pytest.raises(oc.Error) as e:
        codec.decode(stream)
    assert "pass algorithm=" in str(e.value)
    assert e.value.status in (oc.Status.CORRUPT, oc.Status.INVALID_ARGUMENT)
    # with the algorithm it decodes
    back = oc.Codec(algorithm="Deflate", bitstream_kind=oc.BitstreamKind.RAW).decode(stream)
    assert bytes(back) == b"opencomp " * 1000
