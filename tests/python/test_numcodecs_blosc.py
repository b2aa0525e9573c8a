"""opencomp.numcodecs.Blosc against numcodecs' own Blosc (c-blosc): chunks
written by either decode with the other, for every inner codec the stock
build has, every shuffle and several element sizes; numcodecs' repr and
configuration; exact errors on bad chunks and bad settings; decode(out=)."""

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")
from numcodecs.blosc import Blosc as StockBlosc  # noqa: E402

import opencomp.numcodecs as ocn  # noqa: E402

STOCK_CNAMES = [c for c in ("blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd") if c in numcodecs.blosc.list_compressors()]


def arrays():
    rng = np.random.default_rng(7)
    yield np.arange(50_000, dtype="<i4")
    yield (rng.standard_normal(30_000) * 100).round(2)  # float64 with structure
    yield rng.integers(0, 4, 70_001, dtype="u1")  # odd length: a leftover partial block
    yield np.arange(24, dtype="<i8").reshape(2, 3, 4, order="F")  # memory order is kept


@pytest.mark.parametrize("cname", STOCK_CNAMES)
@pytest.mark.parametrize("shuffle", [0, 1, 2, -1])
def test_both_ways(cname, shuffle):
    ours, stock = ocn.Blosc(cname=cname, clevel=5, shuffle=shuffle), StockBlosc(cname=cname, clevel=5, shuffle=shuffle)
    for a in arrays():
        raw = a.tobytes(order="A")
        mine = ours.encode(a)
        assert isinstance(mine, bytes)
        assert stock.decode(mine) == raw
        assert ours.decode(stock.encode(a)) == raw
        assert ours.decode(mine) == raw
        # the header records what was asked: typesize from the item size, the shuffle flags
        typesize = mine[3]
        assert typesize == a.dtype.itemsize
        flags = mine[2]
        want = {0: 0, 1: 0x01, 2: 0x04, -1: 0x04 if a.dtype.itemsize == 1 else 0x01}[shuffle]
        if len(raw) >= 256 and not flags & 0x02:  # c-blosc stores tiny or incompressible chunks unshuffled
            assert flags & 0x05 == want


def test_clevel_zero_and_blocksize():
    a = np.arange(100_000, dtype="<u4")
    stored = ocn.Blosc(clevel=0).encode(a)
    assert len(stored) == a.nbytes + 16 and stored[2] & 0x02  # memcpyed
    assert StockBlosc().decode(stored) == a.tobytes()
    blocked = ocn.Blosc(cname="zstd", blocksize=16384).encode(a)
    assert int.from_bytes(blocked[8:12], "little") == 16384
    assert StockBlosc().decode(blocked) == a.tobytes()


def test_typesize_setting():
    a = np.arange(10_000, dtype="<i8")
    c = ocn.Blosc(typesize=4)
    enc = c.encode(a)
    assert enc[3] == 4
    assert c.decode(enc) == a.tobytes()
    assert c.get_config()["typesize"] == 4


def test_config_and_repr():
    for kw in ({}, {"cname": "zstd", "clevel": 3, "shuffle": 2}):
        ours, stock = ocn.Blosc(**kw), StockBlosc(**kw)
        assert repr(ours) == repr(stock)
        assert ours.get_config() == stock.get_config()
    config = StockBlosc(cname="zlib").get_config()
    config.pop("id")
    assert ocn.Blosc.from_config(config).cname == "zlib"
    assert (ocn.Blosc.NOSHUFFLE, ocn.Blosc.SHUFFLE, ocn.Blosc.BITSHUFFLE, ocn.Blosc.AUTOSHUFFLE) == (0, 1, 2, -1)


def test_bad_settings_raise_at_encode():
    a = np.arange(10)
    with pytest.raises(ValueError, match="bad compressor"):
        ocn.Blosc(cname="foo").encode(a)
    with pytest.raises(ValueError, match="invalid shuffle"):
        ocn.Blosc(shuffle=5).encode(a)
    with pytest.raises(ValueError, match="clevel"):
        ocn.Blosc(clevel=10).encode(a)
    # any setting decodes
    assert ocn.Blosc(cname="foo", clevel=10).decode(StockBlosc().encode(a)) == a.tobytes()


def test_decode_into_out():
    a = np.arange(5000, dtype="<f4")
    enc = StockBlosc(cname="lz4").encode(a)
    out = np.zeros(5000, dtype="<f4")
    assert ocn.Blosc().decode(enc, out=out) is out
    assert np.array_equal(out, a)
    big = bytearray(a.nbytes + 100)
    ocn.Blosc().decode(enc, out=big)
    assert bytes(big[: a.nbytes]) == a.tobytes()
    with pytest.raises(ocn.BloscDecodeError) as e:
        ocn.Blosc().decode(enc, out=np.zeros(10, dtype="<f4"))
    assert e.value.status.name == "OUTPUT_TOO_SMALL"


def test_bad_chunks():
    a = np.arange(20_000, dtype="<i4")
    enc = bytearray(StockBlosc(cname="zstd").encode(a))
    with pytest.raises(ocn.BloscDecodeError) as e:
        ocn.Blosc().decode(bytes(enc[:10]))
    assert e.value.status.name == "TRUNCATED"
    assert isinstance(e.value, RuntimeError)  # as numcodecs raises
    with pytest.raises(ocn.BloscDecodeError):
        ocn.Blosc().decode(bytes(enc[: len(enc) // 2]))
    enc[0] = 9  # an unknown format version
    with pytest.raises(ocn.BloscDecodeError):
        ocn.Blosc().decode(bytes(enc))


def test_register_serves_stock_id():
    ocn.register()
    try:
        c = numcodecs.get_codec({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 1})
        assert isinstance(c, ocn.Blosc)
    finally:
        ocn.unregister()
    assert isinstance(numcodecs.get_codec({"id": "blosc"}), StockBlosc)
