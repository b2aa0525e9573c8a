"""opencomp.numcodecs.Blosc against numcodecs' own Blosc (c-blosc): chunks
written by either decode with the other, for every inner codec the stock
build has, every shuffle and several element sizes; numcodecs' repr and
configuration; exact errors on bad chunks and bad settings; decode(out=);
decode_batch/encode_batch; headers that would make us allocate gigabytes;
the numcodecs.blosc module functions; numcodecs' snappy fixtures."""

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
    assert c.typesize == 4
    # numcodecs keeps typesize out of the configuration (its test_config_no_typesize)
    assert "typesize" not in c.get_config()
    with pytest.raises(ValueError, match="Cannot use typesize"):
        ocn.Blosc(typesize=0)


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


def test_decode_batch_and_encode_batch():
    arrs = list(arrays())
    encs = [StockBlosc(cname=STOCK_CNAMES[i % len(STOCK_CNAMES)], shuffle=i % 3).encode(a) for i, a in enumerate(arrs)]
    c = ocn.Blosc()
    res = c.decode_batch(encs)
    assert [r.tobytes() for r in res] == [a.tobytes(order="A") for a in arrs]
    assert all(r.dtype == np.uint8 for r in res)
    # into slices of one array, in place
    sizes = [a.nbytes for a in arrs]
    whole = np.zeros(sum(sizes), dtype=np.uint8)
    offs = np.cumsum([0] + sizes)
    outs = [whole[offs[i] : offs[i + 1]] for i in range(len(arrs))]
    assert c.decode_batch(encs, out=outs) == outs
    assert whole.tobytes() == b"".join(a.tobytes(order="A") for a in arrs)
    # an out of another size: SIZE_MISMATCH naming the chunk
    with pytest.raises(ocn.BloscDecodeError) as e:
        c.decode_batch(encs, out=outs[:1] + [outs[1][:-1]] + outs[2:])
    assert e.value.status.name == "SIZE_MISMATCH" and e.value.chunk == 1
    with pytest.raises(ValueError, match="one buffer per input"):
        c.decode_batch(encs, out=outs[:1])
    # a damaged chunk fails alone, named
    bad = bytearray(encs[2])
    bad[len(bad) // 2 :] = bytes(len(bad) - len(bad) // 2)
    with pytest.raises(ocn.BloscDecodeError) as e:
        c.decode_batch(encs[:2] + [bytes(bad)] + encs[3:])
    assert e.value.chunk == 2
    assert c.decode_batch([]) == []
    # encode_batch: each buffer's own item size, stock reads every chunk
    ours = ocn.Blosc(cname="zstd", shuffle=ocn.Blosc.BITSHUFFLE).encode_batch(arrs)
    assert [bytes(x)[3] for x in ours] == [a.dtype.itemsize for a in arrs]
    assert [StockBlosc().decode(x) for x in ours] == [a.tobytes(order="A") for a in arrs]


def test_hostile_header_allocates_nothing():
    enc = bytearray(StockBlosc(cname="lz4").encode(np.arange(1000, dtype="<i4")))
    enc[4:8] = (0xFFFFFFF0).to_bytes(4, "little")  # nbytes near 4 GiB
    with pytest.raises(ocn.BloscDecodeError) as e:
        ocn.Blosc().decode(bytes(enc))
    assert e.value.status.name == "CORRUPT"
    enc = bytearray(StockBlosc(cname="lz4").encode(np.arange(1000, dtype="<i4")))
    enc[12:16] = (len(enc) + 1).to_bytes(4, "little")  # says it is longer than the buffer
    with pytest.raises(ocn.BloscDecodeError) as e:
        ocn.Blosc().decode_batch([bytes(enc)])
    assert e.value.status.name == "TRUNCATED"


def test_module_functions_read_headers_as_numcodecs():
    from opencomp.numcodecs import _blosc

    a = np.arange(1000, dtype="<i8")
    for cname in STOCK_CNAMES:
        for shuffle in (0, 1, 2):
            enc = numcodecs.blosc.compress(a, cname.encode(), 1, shuffle)
            assert _blosc.cbuffer_sizes(enc) == numcodecs.blosc._cbuffer_sizes(enc)
            assert _blosc.cbuffer_complib(enc) == numcodecs.blosc.cbuffer_complib(enc)
            t, s, m = numcodecs.blosc._cbuffer_metainfo(enc)
            assert _blosc.cbuffer_metainfo(enc) == (t, s, bool(m))
            ours = _blosc.compress(a, cname.encode(), 1, shuffle, 256)
            assert _blosc.cbuffer_sizes(ours)[2] == numcodecs.blosc._cbuffer_sizes(
                numcodecs.blosc.compress(a, cname.encode(), 1, shuffle, 256)
            )[2]
            assert _blosc.decompress(ours) == a.tobytes()
    assert "snappy" in _blosc.list_compressors()


def test_pickled_public_typesize_still_loads():
    c = ocn.Blosc.__new__(ocn.Blosc)
    c.__setstate__({"cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0, "typesize": 2})
    assert c.typesize == 2
    assert c.encode(np.arange(100, dtype="<i8"))[3] == 2


def test_device_decode_batch():
    cp = pytest.importorskip("cupy")
    import opencomp

    if not opencomp.cuda_available():
        pytest.skip("no usable CUDA engine")
    arrs = [a for a in arrays()]
    encs = [StockBlosc(cname=c, shuffle=s).encode(a) for a, c, s in zip(arrs, ["lz4", "zstd", "blosclz", "zlib"], [1, 2, 0, 1])]
    res = ocn.Blosc().decode_batch([cp.asarray(np.frombuffer(e, np.uint8)) for e in encs])
    assert [r.get().tobytes() for r in res] == [a.tobytes(order="A") for a in arrs]
    whole = cp.zeros(sum(a.nbytes for a in arrs), dtype=cp.uint8)
    offs = np.cumsum([0] + [a.nbytes for a in arrs])
    outs = [whole[offs[i] : offs[i + 1]] for i in range(len(arrs))]
    ocn.Blosc().decode_batch(encs, out=outs)  # host chunks, device outputs
    assert whole.get().tobytes() == b"".join(a.tobytes(order="A") for a in arrs)


def test_stock_snappy_fixtures_decode():
    """numcodecs' fixture/blosc/codec.09: chunks an older numcodecs wrote with
    cname='snappy' (its test_blosc no longer lists that codec): every one
    decodes to its array, as numcodecs' check_backwards_compatibility would."""
    import json
    import pathlib

    fixture = pathlib.Path(__file__).resolve().parents[1] / "numcodecs-suite" / "fixture" / "blosc"
    config = json.loads((fixture / "codec.09" / "config.json").read_text())
    assert config["cname"] == "snappy"
    codec = ocn.Blosc.from_config({k: v for k, v in config.items() if k != "id"})
    done = 0
    for enc_fn in sorted((fixture / "codec.09").glob("encoded.*.dat")):
        i = int(enc_fn.name.split(".")[1])
        arr = np.load(fixture / f"array.{i:02d}.npy", allow_pickle=True)
        enc = enc_fn.read_bytes()
        assert enc[2] >> 5 == 2  # Blosc's snappy format code
        assert codec.decode(enc) == arr.tobytes(order="A")
        done += 1
    assert done == 13
