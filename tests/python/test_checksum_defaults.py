"""Regression tests of issue 11 item 15 (Python side): checksums present in a
stream are verified by default.  A wrong snappy-framing CRC-32C or LZ4
content checksum decoded silently with the Codec's default policy (nvCOMP's
NO_COMPUTE_NO_VERIFY), while python-snappy, cramjam and python-lz4 reject
both.  Now a Codec without checksum_policy= verifies every checksum present
(and writes no optional ones); nvCOMP's no-verify behaviour needs
checksum_policy= given explicitly.  The numcodecs and zarr codecs verify the
zstd content checksum and the gzip CRC-32 always."""

import gzip

import numpy as np
import pytest

import opencomp as oc

lz4_frame = pytest.importorskip("lz4.frame")
cramjam = pytest.importorskip("cramjam")

DATA = bytes(range(256)) * 1000
NATIVE = oc.BitstreamKind.NVCOMP_NATIVE
NO_VERIFY = oc.ChecksumPolicy.NO_COMPUTE_NO_VERIFY
VERIFY = oc.ChecksumPolicy.NO_COMPUTE_AND_VERIFY_IF_PRESENT


def flip(blob, at):
    b = bytearray(blob)
    b[at] ^= 0x01
    return bytes(b)


def lz4_wrong_content_checksum():
    return flip(lz4_frame.compress(DATA, content_checksum=True), -1)


def lz4_wrong_block_checksum():
    # one block; its checksum is the 4 bytes before the end mark
    comp = lz4_frame.compress(DATA, block_checksum=True, block_size=lz4_frame.BLOCKSIZE_MAX4MB)
    return flip(comp, -5)


def snappy_wrong_crc():
    # stream identifier (10 bytes), then a chunk: type (1), length (3), masked CRC-32C (4)
    return flip(bytes(cramjam.snappy.compress(DATA)), 14)


def zstd_seekable_wrong_checksum():
    codec = oc.Codec(algorithm="Zstd", checksum_policy=oc.ChecksumPolicy.COMPUTE_AND_VERIFY)
    comp = bytes(codec.encode(DATA))
    # the seek table's last entry ends 9 bytes (the footer) before the end: its checksum is its last 4 bytes
    return flip(comp, -10)


def gzip_members_wrong_crc():
    comp = bytes(oc.Codec(algorithm="Gzip", uncomp_chunk_size=65536).encode(DATA))
    second = comp.find(b"\x1f\x8b\x08", 10)
    assert second > 0
    return flip(comp, second - 8)  # the first member's CRC-32


CORRUPT = {
    "lz4-content-checksum": ("LZ4", lz4_wrong_content_checksum),
    "lz4-block-checksum": ("LZ4", lz4_wrong_block_checksum),
    "snappy-framing-crc32c": ("Snappy", snappy_wrong_crc),
    "zstd-seekable-checksum": ("Zstd", zstd_seekable_wrong_checksum),
    "gzip-member-crc32": ("Gzip", gzip_members_wrong_crc),
}


@pytest.mark.parametrize("name", list(CORRUPT))
def test_checksums_are_verified_by_default(name):
    alg, make = CORRUPT[name]
    blob = make()
    with pytest.raises(oc.Error) as ei:
        oc.Codec(algorithm=alg).decode(blob)
    assert ei.value.status == oc.Status.CHECKSUM_MISMATCH
    _res, st = oc.Codec(algorithm=alg).decode([blob], errors="status")
    assert st == [oc.Status.CHECKSUM_MISMATCH]
    # and so with the policy that says it
    with pytest.raises(oc.Error):
        oc.Codec(algorithm=alg, checksum_policy=VERIFY).decode(blob)


def test_the_stock_readers_agree():
    with pytest.raises(RuntimeError):
        lz4_frame.decompress(lz4_wrong_content_checksum())
    with pytest.raises(Exception):
        cramjam.snappy.decompress(snappy_wrong_crc())
    with pytest.raises(gzip.BadGzipFile):
        gzip.decompress(gzip_members_wrong_crc())


# (python-lz4's frames link their blocks, so they decode through liblz4's frame
# decoder, which checks block checksums whatever the policy.)
@pytest.mark.parametrize("name", [n for n in CORRUPT if n != "lz4-block-checksum"])
def test_explicit_no_verify_is_nvcomps(name):
    alg, make = CORRUPT[name]
    out = oc.Codec(algorithm=alg, checksum_policy=NO_VERIFY).decode(make())
    assert bytes(out) == DATA


def test_default_policy_is_reported_and_writes_no_optional_checksums():
    c = oc.Codec(algorithm="LZ4")
    assert c.checksum_policy == VERIFY
    assert oc.Codec(algorithm="LZ4", checksum_policy=NO_VERIFY).checksum_policy == NO_VERIFY
    info = lz4_frame.get_frame_info(bytes(c.encode(DATA)))
    assert not info["content_checksum"] and not info["block_checksum"]
    again = oc.Codec(algorithm="LZ4", checksum_policy=c.checksum_policy)
    assert bytes(again.decode(c.encode(DATA))) == DATA


def test_numcodecs_and_zarr_codecs_verify_zstd_and_gzip_checksums():
    numcodecs = pytest.importorskip("numcodecs")
    import opencomp.numcodecs as ocn

    zbad = flip(numcodecs.Zstd(checksum=True).encode(DATA), -1)
    gbad = flip(numcodecs.GZip().encode(DATA), -6)
    for codec, bad in ((ocn.Zstd(), zbad), (ocn.GZip(), gbad)):
        with pytest.raises(oc.Error) as ei:
            codec.decode(bad)
        assert ei.value.status == oc.Status.CHECKSUM_MISMATCH
        with pytest.raises(oc.Error) as ei:
            codec.decode(bad, out=np.empty(len(DATA), np.uint8))
        assert ei.value.status == oc.Status.CHECKSUM_MISMATCH
        with pytest.raises(oc.Error) as ei:
            codec.decode_batch([codec.encode(DATA), bad])
        assert ei.value.status == oc.Status.CHECKSUM_MISMATCH and ei.value.chunk == 1


def test_zarr_gzip_crc_mismatch():
    zarr = pytest.importorskip("zarr")
    import opencomp.zarr as ocz

    data = np.arange(4000, dtype="<i8")
    store = zarr.storage.MemoryStore()
    zarr.create_array(store, shape=data.shape, chunks=(1000,), dtype=data.dtype,
                      compressors=zarr.codecs.GzipCodec(level=5))[:] = data
    key = "c/2"
    raw = store._store_dict[key].to_bytes()
    store._store_dict[key] = type(store._store_dict[key]).from_bytes(flip(raw, len(raw) - 6))
    with ocz.enable(batch_size=4):
        with pytest.raises(ocz.ChunkDecodeError) as ei:
            zarr.open_array(store, mode="r")[:]
    assert ei.value.status == oc.Status.CHECKSUM_MISMATCH
