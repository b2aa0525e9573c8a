"""Codec(shuffle=, typesize=, cname=, blocksize=): Blosc's settings, and the
shuffle filters before any other codec (RAW streams), with exact errors for
settings that do not apply."""

import numpy as np
import pytest

import opencomp

RAW = opencomp.BitstreamKind.RAW


def _bytes(x):
    return bytes(np.asarray(x).view(np.uint8))


@pytest.mark.parametrize("alg", ["LZ4", "Snappy", "Zstd", "Deflate"])
@pytest.mark.parametrize("shuffle", [1, 2])
def test_filter_round_trip_and_gain(alg, shuffle):
    a = np.arange(200_000, dtype="<i8") * 3
    plain = opencomp.Codec(alg, bitstream_kind=RAW)
    filt = opencomp.Codec(alg, bitstream_kind=RAW, shuffle=shuffle, typesize=8)
    enc = filt.encode(a)
    assert _bytes(filt.decode(enc)) == a.tobytes()
    assert len(_bytes(enc)) < len(_bytes(plain.encode(a)))  # the columns of the integers line up
    # the stream does not record the filter: decoding without it gives the shuffled bytes
    assert _bytes(plain.decode(enc)) != a.tobytes()


def test_blosc_settings_in_the_header():
    a = np.arange(100_000, dtype="<f8")
    c = opencomp.Codec("Blosc", bitstream_kind=RAW, cname="zstd", level=3, shuffle=2, blocksize=32768)
    enc = _bytes(c.encode(a))
    assert enc[3] == 8  # typesize from the array's item size
    assert enc[2] & 0x04 and (enc[2] >> 5) == 4  # bitshuffle, zstd
    assert int.from_bytes(enc[8:12], "little") == 32768
    assert _bytes(c.decode(enc)) == a.tobytes()


def test_settings_that_do_not_apply():
    with pytest.raises(ValueError, match="Blosc only"):
        opencomp.Codec("LZ4", cname="lz4")
    with pytest.raises(ValueError, match="Blosc only"):
        opencomp.Codec("Zstd", blocksize=4096)
    with pytest.raises(ValueError, match="RAW or WITH_UNCOMPRESSED_SIZE"):
        opencomp.Codec("LZ4", shuffle=1)  # NATIVE containers do not record a filter
    with pytest.raises(ValueError, match="not a Blosc codec"):
        opencomp.Codec("Blosc", cname="brotli")
    with pytest.raises(ValueError, match="shuffle must be in"):
        opencomp.Codec("Blosc", shuffle=3)
    with pytest.raises(ValueError, match="typesize must be in"):
        opencomp.Codec("LZ4", bitstream_kind=RAW, shuffle=1, typesize=0)
    with pytest.raises(TypeError, match="cname must be a str"):
        opencomp.Codec("Blosc", cname=4)


@pytest.mark.gpu
@pytest.mark.parametrize("alg", ["LZ4", "Zstd", "Snappy", "Deflate"])
@pytest.mark.parametrize("shuffle", [1, 2])
@pytest.mark.parametrize("typesize", [1, 2, 3, 4, 8, 16])
def test_filter_on_device_arrays_matches_the_host(cp, alg, shuffle, typesize):
    """Codec(shuffle=, typesize=) on device arrays: the CUDA engine runs the
    filter around the GPU codec (src/cuda/runtime/cuda_filter.cu); the
    chunks it writes decode on the host to the input, the host's decode on
    the device, and without the filter both give the host's filtered bytes.
    Sizes that are not multiples of the typesize (nor, for bitshuffle, of 8
    elements) keep their trailing bytes as they are."""
    raw = opencomp.Codec(alg, bitstream_kind=RAW)
    filt = opencomp.Codec(alg, bitstream_kind=RAW, shuffle=shuffle, typesize=typesize)
    base = (np.arange(150_001, dtype="<u8") * 7 + (np.arange(150_001) % 5)).view(np.uint8)
    datas = [bytes(base[: typesize * 8 * 4096 + 5]), bytes(base[: typesize * 1001 + 1]), bytes(base[:1])]
    dev = [cp.asarray(np.frombuffer(d, np.uint8)) for d in datas]
    enc_dev = filt.encode(dev)
    enc_host = [bytes(filt.encode(np.frombuffer(d, np.uint8))) for d in datas]
    for e, d in zip(enc_dev, datas):
        assert _bytes(filt.decode(bytes(e.cpu()))) == d
    # the filtered bytes the GPU wrote are the host's (the codec's own bytes may differ)
    for e, h in zip(enc_dev, enc_host):
        assert _bytes(raw.decode(bytes(e.cpu()))) == _bytes(raw.decode(h))
    back = filt.decode([cp.asarray(np.frombuffer(h, np.uint8)) for h in enc_host])
    for b, d in zip(back, datas):
        assert cp.asarray(b).get().tobytes() == d
