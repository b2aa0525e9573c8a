"""Regression tests of issue 11 items 1, 10 and 11: opencomp.numcodecs behaves
as numcodecs' own Zstd, LZ4, Zlib and GZip.

1. Arrays are compressed in memory order, as numcodecs does: a
   Fortran-ordered array (or zarr v2 array with order='F') was written in C
   order, so stock readers got transposed data.
10. Every setting numcodecs accepts is accepted and mapped as numcodecs maps
   it (Zlib/GZip level=-1, LZ4 acceleration=1000000); decoding never fails
   because of a setting.
11. API parity: decode() returns bytes, repr is stock's, Zstd's level
   classmethods and LZ4.max_buffer_size exist, non-contiguous input raises
   ValueError, error types match, Zstd(checksum=True) works with its stock
   name swapped for ours.  (numcodecs' own test suite runs against these
   classes in tests/numcodecs-suite.)"""

import gzip
import zlib

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")
import numcodecs.zstd  # noqa: E402

import opencomp as oc  # noqa: E402
import opencomp.numcodecs as ocn  # noqa: E402

NAMES = ["Zstd", "LZ4", "Zlib", "GZip"]


def classes(name):
    return getattr(ocn, name), getattr(numcodecs, name)


# ------------------------------------------------------------ 1: memory order


@pytest.mark.parametrize("name", NAMES)
def test_fortran_order_is_compressed_as_it_lies(name):
    ours, stock = (c() for c in classes(name))
    a = np.arange(12, dtype="i4").reshape(3, 4, order="F")
    memory = a.tobytes(order="A")  # 0 1 2 ... as the bytes lie
    assert memory != a.tobytes(order="C")
    assert bytes(stock.decode(ours.encode(a))) == memory
    assert bytes(ours.decode(stock.encode(a))) == memory
    assert bytes(ours.encode(a)) == bytes(ours.encode(memory))
    # decode(out=) of a Fortran-ordered array fills it in memory order, as stock does
    out = np.zeros((3, 4), dtype="i4", order="F")
    assert ours.decode(stock.encode(a), out=out) is out
    assert np.array_equal(out, a)
    theirs = np.zeros((3, 4), dtype="i4", order="F")
    stock.decode(stock.encode(a), out=theirs)
    assert np.array_equal(out, theirs)


@pytest.mark.parametrize("name", NAMES)
def test_other_contiguous_layouts(name):
    ours, stock = (c() for c in classes(name))
    base = np.arange(2 * 3 * 4, dtype="<f8").reshape(2, 3, 4)
    for a in (base.transpose(2, 1, 0), base.T, base[:1].T, np.asfortranarray(base)):
        assert bytes(stock.decode(ours.encode(a))) == a.tobytes(order="A")
        assert ours.encode_batch([a])[0].tobytes() == bytes(ours.encode(a))


@pytest.mark.parametrize("name", NAMES)
def test_non_contiguous_input_is_a_value_error(name):
    ours, _stock = (c() for c in classes(name))
    a = np.arange(1000, dtype="i4")[::2]
    with pytest.raises(ValueError, match="contiguous"):
        ours.encode(a)
    with pytest.raises(ValueError, match="contiguous"):
        ours.decode(ours.encode(np.arange(500, dtype="i4")), out=np.zeros(1000, "i4")[::2])
    with pytest.raises(ValueError, match="contiguous"):
        ours.encode_batch([a])


def test_zarr_v2_fortran_order_both_ways():
    zarr = pytest.importorskip("zarr")
    data = (np.arange(3000, dtype="<i4") * 7 % 1000).reshape(60, 50)

    def write(store, compressor):
        z = zarr.create_array(store, shape=data.shape, chunks=(25, 20), dtype=data.dtype, zarr_format=2,
                              order="F", compressors=compressor)
        z[:] = data

    for name in NAMES:
        ours, stock = classes(name)
        theirs = zarr.storage.MemoryStore()
        write(theirs, stock())
        ocn.register()
        try:
            mine = zarr.storage.MemoryStore()
            write(mine, ours())
            assert np.array_equal(zarr.open_array(theirs, mode="r")[:], data)
            assert np.array_equal(zarr.open_array(mine, mode="r")[:], data)
        finally:
            ocn.unregister()
        assert type(numcodecs.get_codec({"id": ours.codec_id})) is stock
        assert np.array_equal(zarr.open_array(mine, mode="r")[:], data)  # stock reads ours
        # the chunks decode to the same bytes whichever codec wrote them
        for key in sorted(k for k in theirs._store_dict if not k.startswith(".")):
            assert bytes(stock().decode(mine._store_dict[key].to_bytes())) == bytes(
                stock().decode(theirs._store_dict[key].to_bytes())
            )


# ------------------------------------------------------------ 10: settings


@pytest.mark.parametrize(
    "name,config",
    [
        ("Zlib", {"level": -1}),
        ("GZip", {"level": -1}),
        ("Zlib", {"level": 0}),
        ("LZ4", {"acceleration": 1000000}),
        ("LZ4", {"acceleration": 0}),
        ("LZ4", {"acceleration": -1}),
        ("Zstd", {"level": 100}),
        ("Zstd", {"level": -1000}),
        ("Zstd", {"level": 22, "checksum": True}),
    ],
)
def test_every_stock_setting_reads_and_writes(name, config):
    ours_cls, stock_cls = classes(name)
    data = np.cumsum(np.random.default_rng(5).normal(size=5000)).astype("<f8")
    ours, stock = ours_cls(**config), stock_cls(**config)
    assert ours.get_config() == stock.get_config() and ours == stock
    assert bytes(stock.decode(ours.encode(data))) == data.tobytes()
    assert bytes(ours.decode(stock.encode(data))) == data.tobytes()
    assert type(numcodecs.get_codec(stock.get_config())) is stock_cls


def test_deflate_level_minus_one_is_zlibs_default():
    data = np.arange(20000, dtype="<i4").tobytes() * 3
    assert ocn.deflate_level(-1) == 6
    assert len(ocn.Zlib(level=-1).encode(data)) == len(ocn.Zlib(level=6).encode(data))


@pytest.mark.parametrize("name,config,exc", [("Zlib", {"level": 10}, zlib.error), ("GZip", {"level": -2}, ValueError),
                                             ("Zlib", {"level": "x"}, TypeError), ("LZ4", {"acceleration": "x"}, TypeError)])
def test_settings_stock_refuses_fail_on_encode_only(name, config, exc):
    ours_cls, stock_cls = classes(name)
    data = b"abc" * 1000
    with pytest.raises(exc):
        stock_cls(**config).encode(data)
    ours = ours_cls(**config)  # constructing is fine, as in numcodecs
    with pytest.raises(exc):
        ours.encode(data)
    # and a stream of the same id still decodes: a setting never breaks reading
    assert bytes(ours.decode(stock_cls().encode(data))) == data


def test_settings_changed_after_use_are_followed():
    c = ocn.Zlib(level=1)
    data = bytes(range(256)) * 400
    first = c.encode(data)
    c.level = 9
    assert bytes(c.decode(first)) == data
    assert len(c.encode(data)) <= len(first)
    c.level = 42
    with pytest.raises(zlib.error):
        c.encode(data)
    assert bytes(c.decode(first)) == data


@pytest.mark.filterwarnings("ignore:Numcodecs codecs are not in the Zarr version 3 specification")
def test_zarr_v3_numcodecs_settings_decode_after_enable():
    zarr = pytest.importorskip("zarr")
    import zarr.codecs.numcodecs as zn

    import opencomp.zarr as ocz

    data = np.arange(4000, dtype="<i8") % 97
    for codec in (zn.Zlib(level=-1), zn.GZip(level=-1), zn.LZ4(acceleration=1000000)):
        store = zarr.storage.MemoryStore()
        zarr.create_array(store, shape=data.shape, chunks=(1000,), dtype=data.dtype, compressors=codec)[:] = data
        with ocz.enable():
            a = zarr.open_array(store, mode="r")
            assert np.array_equal(a[:], data)
            b = zarr.create_array(zarr.storage.MemoryStore(), shape=data.shape, chunks=(1000,), dtype=data.dtype,
                                  compressors=codec)
            b[:] = data
            assert np.array_equal(b[:], data)


# ------------------------------------------------------------ 11: API parity


@pytest.mark.parametrize("name", NAMES)
def test_decode_returns_bytes_and_encode_bytes(name):
    ours, stock = (c() for c in classes(name))
    data = b"Hello world!" * 50
    assert type(ours.decode(stock.encode(data))) is type(stock.decode(stock.encode(data))) is bytes
    assert type(ours.encode(data)) is type(stock.encode(data)) is bytes
    assert ours.decode(ours.encode(data) * 2 if name in ("Zstd", "GZip") else ours.encode(data)) in (data, data * 2)


@pytest.mark.parametrize(
    "stmt", ["Zstd(level=3)", "Zstd(level=3, checksum=True)", "LZ4(acceleration=100)", "Zlib(level=3)", "GZip(level=-1)"]
)
def test_repr_is_stocks(stmt):
    assert repr(eval("ocn." + stmt)) == repr(eval("numcodecs." + stmt))


def test_zstd_level_classmethods_and_lz4_max_buffer_size():
    for m in ("default_level", "min_level", "max_level"):
        assert getattr(ocn.Zstd, m)() == getattr(numcodecs.Zstd, m)()
    assert ocn.LZ4.max_buffer_size == numcodecs.LZ4.max_buffer_size == 0x7E000000
    c = ocn.LZ4()
    c.max_buffer_size = 64
    c.encode(np.zeros(64, np.int8))
    for buf in (b"x" * 65, np.zeros(64, np.int16)):
        with pytest.raises(ValueError):
            c.encode(buf)
        with pytest.raises(ValueError):
            c.decode(buf)


@pytest.mark.parametrize("name", NAMES)
def test_object_buffers_are_type_errors(name):
    ours, _stock = (c() for c in classes(name))
    with pytest.raises(TypeError):
        ours.encode(np.array(["foo", "bar", "baz"], dtype=object))
    with pytest.raises(TypeError):
        ours.decode(ours.encode(np.arange(10)), out=np.empty(10, dtype=object))
    with pytest.raises(TypeError):
        ours.encode(np.zeros(3, [("p", "O"), ("n", "<i4")]))
    with pytest.raises(TypeError):
        ours.encode(["foo", "bar", "baz"])


@pytest.mark.parametrize(
    "name,exc",
    [("Zstd", RuntimeError), ("LZ4", RuntimeError), ("Zlib", zlib.error), ("GZip", (gzip.BadGzipFile, zlib.error))],
)
def test_corrupt_input_raises_the_stock_type(name, exc):
    ours_cls, stock_cls = classes(name)
    comp = bytearray(stock_cls().encode(bytes(range(256)) * 100))
    comp[len(comp) // 2 :] = bytes(len(comp) - len(comp) // 2)
    bad = bytes(comp)
    with pytest.raises(exc):
        stock_cls().decode(bad)
    with pytest.raises(exc) as ei:
        ours_cls().decode(bad)
    assert isinstance(ei.value, oc.Error) and ei.value.status != oc.Status.OK


def test_zstd_garbage_message_is_stocks():
    with pytest.raises(RuntimeError, match="Zstd decompression error: invalid input data"):
        ocn.Zstd().decode(bytes(8))


def test_gzip_truncated_is_an_eof_error():
    comp = gzip.compress(bytes(range(256)) * 100)
    with pytest.raises(EOFError):
        gzip.decompress(comp[:-12])
    with pytest.raises(EOFError):
        ocn.GZip().decode(comp[:-12])


def test_lz4_shorter_than_its_prefix_is_a_value_error():
    with pytest.raises(ValueError):
        numcodecs.LZ4().decode(b"\x01\x00")
    with pytest.raises(ValueError) as ei:
        ocn.LZ4().decode(b"\x01\x00")
    assert ei.value.status == oc.Status.TRUNCATED


def test_zstd_checksum_with_the_stock_name_swapped_for_ours(monkeypatch):
    monkeypatch.setattr(numcodecs.zstd, "Zstd", ocn.Zstd)
    monkeypatch.setattr(numcodecs, "Zstd", ocn.Zstd)
    data = np.arange(0, 64, dtype="uint8")
    plain, summed = ocn.Zstd(level=0).encode(data), ocn.Zstd(level=0, checksum=True).encode(data)
    assert len(plain) + 4 == len(summed)  # numcodecs' test_checksum
    assert bytes(ocn.Zstd().decode(summed)) == data.tobytes()
    # the checksum is verified when decoding: flip a bit of it
    bad = summed[:-1] + bytes([summed[-1] ^ 1])
    with pytest.raises(RuntimeError) as ei:
        ocn.Zstd().decode(bad)
    assert ei.value.status == oc.Status.CHECKSUM_MISMATCH


@pytest.mark.gpu
@pytest.mark.filterwarnings("ignore::opencomp.numcodecs.GpuFallbackWarning")
@pytest.mark.parametrize("name", NAMES)
def test_device_arrays_in_memory_order(name):
    # item 1 for CuPy arrays: a Fortran-ordered device array is compressed as it lies
    cp = pytest.importorskip("cupy")
    ours, stock = (c() for c in classes(name))
    a = (np.arange(30 * 20, dtype="<i4") * 3).reshape(30, 20, order="F")
    d = cp.asfortranarray(cp.asarray(a))
    assert d.flags.f_contiguous and not d.flags.c_contiguous
    comp = ours.encode(d)
    assert hasattr(comp, "__cuda_array_interface__")
    assert bytes(stock.decode(comp.get())) == a.tobytes(order="A")
    out = cp.zeros((30, 20), dtype="<i4", order="F")
    assert ours.decode(stock.encode(a), out=out) is out
    assert np.array_equal(out.get(), a)
    r = ours.decode(cp.asarray(np.frombuffer(stock.encode(a), np.uint8)))
    assert hasattr(r, "__cuda_array_interface__") and r.get().tobytes() == a.tobytes(order="A")
    with pytest.raises(ValueError, match="contiguous"):
        ours.encode(d[::2])
