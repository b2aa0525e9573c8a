"""Interop with the reference formats' own Python packages, both ways:
our RAW streams are lz4.block / snappy raw / raw deflate / zlib / gzip / zstd
frames; our NVCOMP_NATIVE output is the format's standard container (LZ4
frame, zstd frames with a seek table, gzip members, snappy framing)."""

import gzip
import io
import zlib

import cramjam
import lz4.block
import lz4.frame
import pytest
import zstandard

import opencomp as oc
from conftest import CORPUS

RAW = oc.BitstreamKind.RAW
NATIVE = oc.BitstreamKind.NVCOMP_NATIVE

SAMPLES = [d for name, d in CORPUS if name not in ("empty",)]


def zstd_all_frames(buf):
    r = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(bytes(buf)), read_across_frames=True)
    return r.read()


# ---- ours -> theirs ------------------------------------------------------

OURS_TO_THEIRS = {
    ("LZ4", RAW): lambda b, n: lz4.block.decompress(bytes(b), uncompressed_size=n),
    ("LZ4", NATIVE): lambda b, n: lz4.frame.decompress(bytes(b)),
    ("Snappy", RAW): lambda b, n: bytes(cramjam.snappy.decompress_raw(bytes(b))),
    ("Snappy", NATIVE): lambda b, n: bytes(cramjam.snappy.decompress(bytes(b))),
    ("Deflate", RAW): lambda b, n: zlib.decompress(bytes(b), -15),
    ("Zlib", RAW): lambda b, n: zlib.decompress(bytes(b)),
    ("Gzip", RAW): lambda b, n: gzip.decompress(bytes(b)),
    ("Gzip", NATIVE): lambda b, n: gzip.decompress(bytes(b)),
    ("Zstd", RAW): lambda b, n: zstandard.ZstdDecompressor().decompress(bytes(b), max_output_size=max(n, 1)),
    ("Zstd", NATIVE): lambda b, n: zstd_all_frames(b),
}


@pytest.mark.parametrize("alg,kind", list(OURS_TO_THEIRS), ids=lambda x: getattr(x, "name", x))
def test_ours_decoded_by_reference(alg, kind):
    codec = oc.Codec(algorithm=alg, bitstream_kind=kind, uncomp_chunk_size=32768)
    for data in SAMPLES:
        comp = codec.encode(data)
        assert OURS_TO_THEIRS[(alg, kind)](comp, len(data)) == data


def test_with_uncompressed_size_layout():
    data = SAMPLES[0]
    comp = bytes(oc.Codec(algorithm="Zstd", bitstream_kind=oc.BitstreamKind.WITH_UNCOMPRESSED_SIZE).encode(data))
    assert int.from_bytes(comp[:8], "little") == len(data)
    assert zstandard.ZstdDecompressor().decompress(comp[8:]) == data


# ---- theirs -> ours ------------------------------------------------------

THEIRS = {
    ("LZ4", RAW): lambda d: lz4.block.compress(d, store_size=False),
    ("LZ4", NATIVE): lambda d: lz4.frame.compress(d, block_linked=False, content_checksum=True),
    ("Snappy", RAW): lambda d: bytes(cramjam.snappy.compress_raw(d)),
    ("Snappy", NATIVE): lambda d: bytes(cramjam.snappy.compress(d)),
    ("Deflate", RAW): lambda d: (lambda c: c.compress(d) + c.flush())(zlib.compressobj(6, zlib.DEFLATED, -15)),
    ("Zlib", RAW): lambda d: zlib.compress(d, 9),
    ("Gzip", RAW): lambda d: gzip.compress(d),
    ("Gzip", NATIVE): lambda d: gzip.compress(d[: len(d) // 2]) + gzip.compress(d[len(d) // 2 :]),
    ("Zstd", RAW): lambda d: zstandard.ZstdCompressor(level=5, write_checksum=True).compress(d),
    ("Zstd", NATIVE): lambda d: zstandard.ZstdCompressor().compress(d),
}


@pytest.mark.parametrize("alg,kind", list(THEIRS), ids=lambda x: getattr(x, "name", x))
def test_reference_decoded_by_ours(alg, kind):
    codec = oc.Codec(algorithm=alg, bitstream_kind=kind)
    comps = [THEIRS[(alg, kind)](d) for d in SAMPLES]
    # one at a time, and as a batch
    for d, c in zip(SAMPLES, comps):
        assert bytes(codec.decode(c)) == d
    assert [bytes(x) for x in codec.decode(comps)] == SAMPLES


def test_reference_raw_with_known_sizes_into_one_buffer():
    """The uproot case: zstd/lz4/zlib pages of known sizes decode into slices."""
    import numpy as np

    pages = [d for d in SAMPLES if len(d) > 1000][:4]
    sizes = [len(p) for p in pages]
    for alg, comp in [
        ("Zstd", lambda d: zstandard.ZstdCompressor().compress(d)),
        ("LZ4", lambda d: lz4.block.compress(d, store_size=False)),
        ("Zlib", lambda d: zlib.compress(d)),
    ]:
        buf = np.zeros(sum(sizes), dtype=np.uint8)
        offs = np.cumsum([0] + sizes)
        outs = [buf[offs[i] : offs[i + 1]] for i in range(len(pages))]
        oc.Codec(algorithm=alg, bitstream_kind=RAW).decode([comp(p) for p in pages], out=outs, uncomp_sizes=sizes)
        assert buf.tobytes() == b"".join(pages)


def test_lz4_frame_with_linked_blocks():
    """A stock lz4 frame (linked blocks, the library default) still decodes."""
    data = SAMPLES[0] * 3
    comp = lz4.frame.compress(data)
    assert bytes(oc.Codec(algorithm="LZ4").decode(comp)) == data
