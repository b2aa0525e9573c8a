"""GDeflate (DirectStorage's deflate of 32 interleaved lanes, docs/FORMAT.md)
through the Python package on the CPU: nvCOMP's name, RAW pages of at most
64 KiB, the NATIVE container (our opencomp-chunked, pages as chunks),
algorithm_type and level, and exact errors for oversized and corrupt pages."""

import numpy as np
import pytest

import opencomp as oc
from conftest import CORPUS

RAW = oc.BitstreamKind.RAW
PAGE = 65536


def test_gdeflate_is_an_algorithm():
    codec = oc.Codec(algorithm="GDeflate")
    assert codec.algorithm == "GDeflate"
    assert "GDeflate" in oc.algorithms()
    assert oc.Codec(algorithm="gdeflate").algorithm == "GDeflate"


@pytest.mark.parametrize("name,data", CORPUS, ids=[n for n, _ in CORPUS])
def test_raw_pages_roundtrip(name, data):
    pages = [data[i : i + PAGE] for i in range(0, len(data), PAGE)] or [b""]
    codec = oc.Codec(algorithm="GDeflate", bitstream_kind=RAW)
    comp = codec.encode(pages)
    for c in comp:
        assert len(bytes(c)) % 4 == 0 and len(bytes(c)) >= 128
    back = codec.decode(comp)
    assert [bytes(b) for b in back] == pages


@pytest.mark.parametrize("kind", [oc.BitstreamKind.NVCOMP_NATIVE, oc.BitstreamKind.WITH_UNCOMPRESSED_SIZE])
def test_native_and_sized_roundtrip(kind):
    data = dict(CORPUS)["ext-sources"]
    codec = oc.Codec(algorithm="GDeflate", bitstream_kind=kind)
    if kind == oc.BitstreamKind.WITH_UNCOMPRESSED_SIZE:
        data = data[:PAGE]
    comp = codec.encode(data)
    assert len(bytes(comp)) * 2 < len(data)  # text compresses
    assert bytes(codec.decode(comp)) == data
    if kind == oc.BitstreamKind.NVCOMP_NATIVE:
        assert bytes(oc.Codec().decode(comp)) == data  # the container names the algorithm


def test_levels_and_algorithm_type():
    data = dict(CORPUS)["ext-sources"][:PAGE]
    sizes = {}
    for t in range(6):
        codec = oc.Codec(algorithm="GDeflate", bitstream_kind=RAW, algorithm_type=t)
        comp = codec.encode(data)
        assert bytes(codec.decode(comp)) == data
        sizes[t] = len(bytes(comp))
    assert sizes[5] <= sizes[0]
    for level in (1, 9):
        codec = oc.Codec(algorithm="GDeflate", bitstream_kind=RAW, level=level)
        assert bytes(codec.decode(codec.encode(data))) == data
    with pytest.raises(ValueError):
        oc.Codec(algorithm="GDeflate", level=10)


def test_oversized_page_and_corrupt_page():
    codec = oc.Codec(algorithm="GDeflate", bitstream_kind=RAW)
    with pytest.raises(Exception) as ei:
        codec.encode(bytes(PAGE + 1))
    assert "CHUNK_TOO_LARGE" in str(ei.value) or "exceeds" in str(ei.value)
    comp = np.frombuffer(bytes(codec.encode(dict(CORPUS)["ext-sources"][:PAGE])), dtype=np.uint8)
    with pytest.raises(Exception) as ei:
        codec.decode(comp[: len(comp) // 2])
    assert "TRUNCATED" in str(ei.value) or "truncated" in str(ei.value)
    bad = comp.copy()
    bad[0] |= 0x06  # BTYPE 3
    with pytest.raises(Exception) as ei:
        codec.decode(bad)
    assert "CORRUPT" in str(ei.value) or "corrupt" in str(ei.value)
