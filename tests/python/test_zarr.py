"""opencomp.zarr against stock zarr-python 3: arrays written by stock zarr read
back through opencomp's codecs and the other way round, bit-identical, with
identical metadata; whole batches in one opencomp call; sharded arrays;
corrupt chunks named by key; enable()/disable(); entry points; pickling."""

import importlib.metadata
import os
import pickle
import warnings

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
import zarr.codecs.numcodecs as zn  # noqa: E402
from zarr.codecs import BloscCodec, Crc32cCodec, GzipCodec, ShardingCodec, ZstdCodec  # noqa: E402

import opencomp as oc  # noqa: E402
import opencomp.zarr as ocz  # noqa: E402
from opencomp.numcodecs import _batch  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Numcodecs codecs are not in the Zarr version 3")


def stock_codecs():
    """(id, stock instance, opencomp instance with the same configuration)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Numcodecs codecs are not in the Zarr version 3")
        return _stock_codecs()


def _stock_codecs():
    return [
        ("zstd", ZstdCodec(level=3), ocz.ZstdCodec(level=3)),
        ("zstd-checksum", ZstdCodec(level=1, checksum=True), ocz.ZstdCodec(level=1, checksum=True)),
        ("zstd-fast", ZstdCodec(level=-20), ocz.ZstdCodec(level=-20)),
        ("gzip", GzipCodec(level=5), ocz.GzipCodec(level=5)),
        ("gzip-0", GzipCodec(level=0), ocz.GzipCodec(level=0)),
        ("numcodecs.zstd", zn.Zstd(level=2), ocz.NumcodecsZstd(level=2)),
        ("numcodecs.lz4", zn.LZ4(acceleration=1), ocz.NumcodecsLZ4(acceleration=1)),
        ("numcodecs.lz4-acc", zn.LZ4(acceleration=8), ocz.NumcodecsLZ4(acceleration=8)),
        ("numcodecs.zlib", zn.Zlib(level=6), ocz.NumcodecsZlib(level=6)),
        ("numcodecs.gzip", zn.GZip(level=1), ocz.NumcodecsGZip(level=1)),
        ("blosc", BloscCodec(), ocz.BloscCodec()),  # zstd, typesize and shuffle from the dtype
        ("blosc-lz4-shuffle", BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=4),
         ocz.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=4)),
        ("blosc-zlib-noshuffle", BloscCodec(cname="zlib", clevel=1, shuffle="noshuffle", typesize=8, blocksize=16384),
         ocz.BloscCodec(cname="zlib", clevel=1, shuffle="noshuffle", typesize=8, blocksize=16384)),
        ("blosc-blosclz-bitshuffle", BloscCodec(cname="blosclz", clevel=9, shuffle="bitshuffle", typesize=2),
         ocz.BloscCodec(cname="blosclz", clevel=9, shuffle="bitshuffle", typesize=2)),
        ("blosc-lz4hc-0", BloscCodec(cname="lz4hc", clevel=0, shuffle="shuffle", typesize=4),
         ocz.BloscCodec(cname="lz4hc", clevel=0, shuffle="shuffle", typesize=4)),
        ("numcodecs.blosc", zn.Blosc(cname="lz4", clevel=5, shuffle=1), ocz.NumcodecsBlosc(cname="lz4", clevel=5, shuffle=1)),
        ("numcodecs.blosc-auto", zn.Blosc(cname="zstd", clevel=1, shuffle=-1),
         ocz.NumcodecsBlosc(cname="zstd", clevel=1, shuffle=-1)),
    ]


CODEC_IDS = [c[0] for c in stock_codecs()]


def _pair(cid):
    return {c[0]: c[1:] for c in stock_codecs()}[cid]


def _data(dtype, shape, seed=7):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "f":
        v = np.cumsum(rng.normal(0, 1, n)).astype(dt)
        v[::97] = np.nan
    elif dt.kind == "c":
        v = (rng.normal(size=n) + 1j * rng.normal(size=n)).astype(dt)
    elif dt.kind == "b":
        v = rng.integers(0, 2, n).astype(dt)
    else:
        info = np.iinfo(dt)
        v = rng.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True).astype(dt)
        v[: n // 3] = 0  # long runs, so chunks really compress
    return v.reshape(shape)


def _same(a, b):
    """Bit-identical values (byte order aside: zarr reads '>i4' back as native int32)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype.newbyteorder("=") != b.dtype.newbyteorder("="):
        return False
    native = a.dtype.newbyteorder("=")
    return a.astype(native).tobytes() == b.astype(native).tobytes()


def _is_ours(codec):
    return type(codec).__module__ == "opencomp.zarr"


# dtype, shape, chunks, fill value
LAYOUTS = [
    ("<f8", (100, 70), (32, 32), 0.0),
    ("<f4", (1000,), (128,), np.nan),
    ("<i2", (20, 30, 7), (8, 8, 7), -5),
    (">i4", (333,), (100,), 3),
    ("<u8", (64, 64), (64, 64), 0),
    ("|u1", (4097,), (1000,), 255),
    ("|b1", (50, 50), (20, 25), False),
    ("<c8", (40, 10), (16, 10), 0j),
]
LAYOUT_IDS = [f"{d}-{'x'.join(map(str, s))}-c{'x'.join(map(str, c))}" for d, s, c, _ in LAYOUTS]


@pytest.fixture(autouse=True)
def _restore_config():
    yield
    ocz.disable()
    zarr.config.reset()


@pytest.mark.parametrize("cid", CODEC_IDS)
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUT_IDS)
def test_stock_written_reads_through_opencomp(cid, layout):
    dtype, shape, chunks, fill = layout
    stock, _ours = _pair(cid)
    data = _data(dtype, shape)
    store = zarr.storage.MemoryStore()
    a = zarr.create_array(store, shape=shape, chunks=chunks, dtype=dtype, compressors=[stock], fill_value=fill)
    a[:] = data
    if len(shape) == 1:
        a[: chunks[0]] = fill  # one chunk left at the fill value: not stored
    expect = zarr.open_array(store, mode="r")[:]  # stock zarr's reading (native byte order)
    ref = data.copy()
    if len(shape) == 1:
        ref[: chunks[0]] = fill
    assert np.array_equal(expect, ref, equal_nan=np.dtype(dtype).kind in "fc")
    with ocz.enable(batch_size=8):
        b = zarr.open_array(store, mode="r")
        assert _is_ours(b.compressors[0])
        assert _same(b[:], expect)
        sel = tuple(slice(1, max(2, n - 3)) for n in shape)
        assert _same(b[sel], expect[sel])
    c = zarr.open_array(store, mode="r")
    assert not _is_ours(c.compressors[0])


@pytest.mark.parametrize("cid", CODEC_IDS)
@pytest.mark.parametrize("layout", LAYOUTS[:4], ids=LAYOUT_IDS[:4])
def test_opencomp_written_reads_through_stock(cid, layout):
    dtype, shape, chunks, fill = layout
    stock, ours = _pair(cid)
    data = _data(dtype, shape, seed=11)
    mine, theirs = zarr.storage.MemoryStore(), zarr.storage.MemoryStore()
    with zarr.config.set({"codec_pipeline.batch_size": 4}):
        a = zarr.create_array(mine, shape=shape, chunks=chunks, dtype=dtype, compressors=[ours], fill_value=fill)
        a[:] = data
    zarr.create_array(theirs, shape=shape, chunks=chunks, dtype=dtype, compressors=[stock], fill_value=fill)[:] = data
    # The metadata is the stock codec's, byte for byte.
    assert mine._store_dict["zarr.json"].to_bytes() == theirs._store_dict["zarr.json"].to_bytes()
    assert sorted(mine._store_dict) == sorted(theirs._store_dict)
    b = zarr.open_array(mine, mode="r")
    assert not _is_ours(b.compressors[0])
    assert _same(b[:], data)


def test_every_chunk_decodes_with_the_stock_codec_too():
    """Each chunk opencomp writes is a standard stream numcodecs decodes on its own."""
    import numcodecs

    data = _data("<f8", (300, 40))
    for cid in CODEC_IDS:
        stock, ours = _pair(cid)
        store = zarr.storage.MemoryStore()
        zarr.create_array(store, shape=data.shape, chunks=(64, 40), dtype=data.dtype, compressors=[ours])[:] = data
        cfg = ours.to_dict()
        name, conf = cfg["name"], dict(cfg.get("configuration", {}))
        nid = name.split(".", 1)[1] if name.startswith("numcodecs.") else name
        ref = numcodecs.get_codec({"id": nid, **conf})
        keys = sorted(k for k in store._store_dict if k.startswith("c/"))
        assert len(keys) == 5
        for k in keys:
            i = int(k.split("/")[1])
            raw = bytes(ref.decode(store._store_dict[k].to_bytes()))
            part = data[64 * i : 64 * (i + 1)].tobytes()  # the last chunk is padded with the fill value
            assert len(raw) == 64 * 40 * 8 and raw[: len(part)] == part, (cid, k)
            assert raw[len(part) :] == bytes(len(raw) - len(part)), (cid, k)


def test_zstd_checksum_frames_carry_a_checksum():
    zstandard = pytest.importorskip("zstandard")
    store = zarr.storage.MemoryStore()
    data = _data("<i4", (5000,))
    zarr.create_array(store, shape=data.shape, chunks=(1000,), dtype=data.dtype,
                      compressors=[ocz.ZstdCodec(checksum=True)])[:] = data
    for k in (k for k in store._store_dict if k.startswith("c/")):
        assert zstandard.get_frame_parameters(store._store_dict[k].to_bytes()).has_checksum


def test_whole_batch_is_one_opencomp_call(monkeypatch):
    calls = []
    real = _batch.BatchCodec.decode

    def spy(self, srcs, sizes=None, **kw):
        calls.append(len(srcs))
        return real(self, srcs, sizes, **kw)

    monkeypatch.setattr(_batch.BatchCodec, "decode", spy)
    data = _data("<f8", (90, 90))
    store = zarr.storage.MemoryStore()
    zarr.create_array(store, shape=data.shape, chunks=(30, 30), dtype=data.dtype, compressors=[ZstdCodec()])[:] = data
    # A strided selection takes zarr's batches (whole-chunk selections take
    # the direct read of test_zarr_direct.py, which calls the Codec itself).
    with ocz.enable(batch_size=64):
        assert _same(zarr.open_array(store, mode="r")[::2], data[::2])
    assert calls == [9]
    calls.clear()
    with ocz.enable(batch_size=4):
        assert _same(zarr.open_array(store, mode="r")[::2], data[::2])
    assert sorted(calls) == [1, 4, 4]


def test_size_hint_too_small_is_retried():
    """crc32c between bytes and zstd: zstd's output is 4 bytes longer than the
    chunk, so the shape-derived capacity is too small and the chunk is re-sized."""
    data = _data("<i8", (1000,))
    store = zarr.storage.MemoryStore()
    zarr.create_array(store, shape=data.shape, chunks=(256,), dtype=data.dtype,
                      compressors=[Crc32cCodec(), ZstdCodec()])[:] = data
    with ocz.enable(batch_size=16):
        assert _same(zarr.open_array(store, mode="r")[:], data)


def test_variable_length_strings():
    data = np.array(["", "a", "opencomp", "zarr" * 50, "ünïcödé"] * 40, dtype=object)
    for cid in ("zstd", "gzip", "numcodecs.lz4", "numcodecs.zlib"):
        stock, ours = _pair(cid)
        for writer in (stock, ours):
            store = zarr.storage.MemoryStore()
            zarr.create_array(store, shape=data.shape, chunks=(64,), dtype=str, compressors=[writer])[:] = data
            with ocz.enable(batch_size=8):
                back = zarr.open_array(store, mode="r")[:]
            assert list(back) == list(data), cid


@pytest.mark.parametrize("cid", ["zstd", "gzip", "numcodecs.lz4", "numcodecs.zlib"])
def test_sharded_arrays(cid):
    stock, ours = _pair(cid)
    data = _data("<f4", (64, 48))
    for writer, reader in ((stock, True), (ours, False)):
        store = zarr.storage.MemoryStore()
        a = zarr.create_array(store, shape=data.shape, chunks=(8, 8), shards=(32, 24), dtype=data.dtype,
                              compressors=[writer])
        a[:] = data
        a[40:, :] = 0.0  # a shard partly written back, then read-modify-written
        a[40:, :] = data[40:, :]
        if reader:
            with ocz.enable(batch_size=16):
                b = zarr.open_array(store, mode="r")
                codec = b.metadata.codecs[0]
                assert isinstance(codec, ShardingCodec) and _is_ours(codec.codecs[1])
                assert _same(b[:], data)
                assert _same(b[5:37, 3:30], data[5:37, 3:30])
        else:
            assert _same(zarr.open_array(store, mode="r")[:], data)


def _local_array(tmp_path, compressors, shards=None):
    data = _data("<i4", (40, 40))
    path = str(tmp_path / "a.zarr")
    a = zarr.create_array(zarr.storage.LocalStore(path), shape=data.shape, chunks=(10, 10), shards=shards,
                          dtype=data.dtype, compressors=compressors)
    a[:] = data
    return path, data


def _flip(path, key, at=None, keep=None):
    p = os.path.join(path, *key.split("/"))
    raw = bytearray(open(p, "rb").read())
    if keep is not None:
        raw = raw[:keep]
    else:
        pos = len(raw) // 2 if at is None else at
        raw[pos] ^= 0xFF
        raw[pos + 1] ^= 0x5A
    open(p, "wb").write(bytes(raw))


@pytest.mark.parametrize("cid", ["zstd", "gzip", "numcodecs.zstd", "numcodecs.lz4", "numcodecs.zlib",
                                 "numcodecs.gzip"])
def test_corrupt_chunk_error_names_the_key(tmp_path, cid):
    stock, _ours = _pair(cid)
    path, data = _local_array(tmp_path, [stock])
    _flip(path, "c/2/1", keep=9)  # truncated
    with ocz.enable(batch_size=8):
        a = zarr.open_array(zarr.storage.LocalStore(path), mode="r")
        with pytest.raises(ocz.ChunkDecodeError) as ei:
            a[:]
        e = ei.value
        assert "'c/2/1'" in str(e) and path in str(e), str(e)
        assert e.key is not None and "'c/2/1'" in e.key
        assert e.status in (oc.Status.TRUNCATED, oc.Status.CORRUPT), e.status
        assert isinstance(e, oc.Error)
        # Chunks around it still read.
        assert _same(a[:20, :], data[:20, :])
        assert _same(a[20:30, 20:], data[20:30, 20:])


def test_checksum_mismatch_names_the_key(tmp_path):
    path, _ = _local_array(tmp_path, [ZstdCodec(checksum=True)])
    p = os.path.join(path, "c", "1", "3")
    raw = bytearray(open(p, "rb").read())
    raw[-1] ^= 0x01  # the frame's content checksum
    open(p, "wb").write(bytes(raw))
    with ocz.enable(batch_size=4):
        with pytest.raises(ocz.ChunkDecodeError, match=r"'c/1/3'.*CHECKSUM_MISMATCH") as ei:
            zarr.open_array(zarr.storage.LocalStore(path), mode="r")[:]
    assert ei.value.status == oc.Status.CHECKSUM_MISMATCH


def test_corrupt_inner_chunk_of_a_shard(tmp_path):
    path, data = _local_array(tmp_path, [ZstdCodec()], shards=(20, 20))
    p = os.path.join(path, "c", "1", "0")
    raw = bytearray(open(p, "rb").read())
    # The first inner chunk starts at offset 0 of the shard (index at the end).
    raw[0:4] = b"\x00\x00\x00\x00"  # kill the zstd magic of inner chunk (0, 0)
    open(p, "wb").write(bytes(raw))
    with ocz.enable(batch_size=8):
        with pytest.raises(ocz.ChunkDecodeError) as ei:
            zarr.open_array(zarr.storage.LocalStore(path), mode="r")[:]
    msg = str(ei.value)
    assert "'c/1/0'" in msg and "inner chunk (0, 0)" in msg, msg
    assert ei.value.status == oc.Status.CORRUPT


def test_corrupt_chunk_without_the_pipeline_names_the_batch_index(tmp_path):
    path, _ = _local_array(tmp_path, [ZstdCodec()])
    _flip(path, "c/3/3", at=5)
    with ocz.enable(batch_size=1, pipeline=False):
        with pytest.raises(ocz.ChunkDecodeError, match="chunk 0 of the 1 in this batch") as ei:
            zarr.open_array(zarr.storage.LocalStore(path), mode="r")[30:, 30:]
    assert ei.value.key is None and ei.value.status == oc.Status.CORRUPT


def test_enable_disable_and_context():
    assert not ocz.enabled()
    with ocz.enable(batch_size=32):
        assert ocz.enabled()
        assert zarr.config.get("codec_pipeline.batch_size") == 32
        assert zarr.config.get("codec_pipeline.path") == "opencomp.zarr.OpencompCodecPipeline"
        for name, (cls, _stock) in ocz.CODECS.items():
            assert zarr.registry.get_codec_class(name) is cls
    assert not ocz.enabled()
    assert zarr.registry.get_codec_class("zstd") is ZstdCodec
    ocz.enable()
    assert ocz.enabled()
    ocz.disable()
    assert not ocz.enabled()
    assert zarr.config.get("codec_pipeline.path") == "zarr.core.codec_pipeline.BatchedCodecPipeline"
    with pytest.raises(ValueError):
        ocz.enable(batch_size=0)


def test_zarr_config_alone_selects_a_codec():
    data = _data("<u2", (500,))
    store = zarr.storage.MemoryStore()
    zarr.create_array(store, shape=data.shape, chunks=(100,), dtype=data.dtype, compressors=[GzipCodec()])[:] = data
    with zarr.config.set({"codecs.gzip": "opencomp.zarr.GzipCodec"}):
        b = zarr.open_array(store, mode="r")
        assert type(b.compressors[0]) is ocz.GzipCodec
        assert _same(b[:], data)


def test_entry_points_are_installed():
    eps = {e.name: e.value for e in importlib.metadata.entry_points(group="zarr.codecs")}
    for name, (cls, _stock) in ocz.CODECS.items():
        assert eps.get(name) == f"opencomp.zarr:{cls.__name__}", name
    pipes = {e.value for e in importlib.metadata.entry_points(group="zarr.codec_pipeline")}
    assert "opencomp.zarr:OpencompCodecPipeline" in pipes


def test_codecs_pickle_and_compare():
    for _cid, stock, ours in stock_codecs():
        ours.to_dict()
        ours._oc_batch.codec  # make the opencomp.Codec, which must not travel
        back = pickle.loads(pickle.dumps(ours))
        assert back == ours and type(back) is type(ours)
        assert back.to_dict() == stock.to_dict()
        assert isinstance(ours, type(stock))


def test_invalid_configuration_is_rejected_like_stock():
    with pytest.raises(ValueError):
        ocz.ZstdCodec(level=23)
    with pytest.raises(ValueError):
        ocz.GzipCodec(level=10)
    with pytest.raises(TypeError):
        ocz.ZstdCodec(checksum="yes")


def test_no_gpu_warning_on_host_data():
    data = _data("<f8", (64, 64))
    store = zarr.storage.MemoryStore()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ocz.GpuFallbackWarning)
        zarr.create_array(store, shape=data.shape, chunks=(16, 64), dtype=data.dtype,
                          compressors=[ocz.ZstdCodec()])[:] = data
        with ocz.enable(batch_size=8):
            assert _same(zarr.open_array(store, mode="r")[:], data)


# ------------------------------------------- device buffers with no GPU engine


class _FakeDeviceArray(np.ndarray):
    """Host memory that claims to be device memory (it has __cuda_array_interface__)."""

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ctypes.data, False), "version": 3}

    def get(self):
        return np.array(self, copy=True).view(np.ndarray)


class _FakeCupy:
    """The few CuPy calls the fallback path makes, over _FakeDeviceArray."""

    uint8 = np.uint8
    copies_to_device = 0

    @classmethod
    def asarray(cls, a, dtype=None):
        if isinstance(a, _FakeDeviceArray):
            return a
        cls.copies_to_device += 1  # host -> "device": a copy, as in CuPy
        return np.array(a, dtype=dtype, copy=True).view(_FakeDeviceArray)

    @staticmethod
    def concatenate(xs):
        return np.concatenate([np.asarray(x) for x in xs]).view(_FakeDeviceArray)

    @staticmethod
    def asnumpy(a):
        return np.array(a, copy=True).view(np.ndarray)


@pytest.mark.skipif(oc.cuda_available(), reason="CPU-only check of the fallback (a GPU would be asked first)")
@pytest.mark.parametrize("fmt", ["zstd", "gzip", "zlib", "lz4"])
def test_device_chunks_without_gpu_engine_fall_back_once(monkeypatch, fmt):
    """Device chunks, no GPU engine: decode on the CPU, ONE copy per batch to the
    device, results in device memory, and one warning per algorithm and direction however many batches."""
    monkeypatch.setattr(_batch, "_cupy", lambda: _FakeCupy)
    monkeypatch.setattr(_batch, "_gpu_ok", {})
    monkeypatch.setattr(_batch, "_gpu_warned", set())
    monkeypatch.setattr(_FakeCupy, "copies_to_device", 0)
    host = _batch.BatchCodec(fmt, 0 if fmt != "lz4" else 1)
    chunks = [_data("<i4", (2000,), seed=s).tobytes() for s in range(6)]
    comp = [np.asarray(c) for c in host.encode([np.frombuffer(c, np.uint8) for c in chunks])]
    dev = [c.view(_FakeDeviceArray) for c in comp]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            before = _FakeCupy.copies_to_device
            res, fails = host.decode(dev, [len(c) for c in chunks])
            assert not fails
            assert _FakeCupy.copies_to_device - before == 1  # one copy for the whole batch
            assert all(isinstance(r, _FakeDeviceArray) for r in res)
            assert [r.get().tobytes() for r in res] == chunks
        enc = host.encode([np.frombuffer(c, np.uint8).view(_FakeDeviceArray) for c in chunks])
        assert all(isinstance(e, _FakeDeviceArray) for e in enc)
        back, fails = host.decode([np.asarray(e) for e in enc])
        assert not fails and [bytes(b) for b in back] == chunks
    fallbacks = [w for w in caught if issubclass(w.category, _batch.GpuFallbackWarning)]
    # one warning per algorithm and direction, however many batches
    assert sorted("encoded on the CPU" in str(w.message) for w in fallbacks) == [False, True], \
        [str(w.message) for w in caught]


# ---------------------------------------------------------------- GPU


@pytest.mark.gpu
@pytest.mark.parametrize("cid", CODEC_IDS)
def test_gpu_read_lands_in_device_memory(cp, cid):
    stock, ours = _pair(cid)
    data = _data("<f4", (256, 64))
    store = zarr.storage.MemoryStore()
    zarr.create_array(store, shape=data.shape, chunks=(32, 64), dtype=data.dtype, compressors=[stock])[:] = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ocz.GpuFallbackWarning)
        with zarr.config.enable_gpu(), ocz.enable(batch_size=16):
            b = zarr.open_array(store, mode="r")
            got = b[:]
            assert isinstance(got, cp.ndarray)
            assert _same(got.get(), data)
            # and written from the GPU, read by stock zarr on the host
            store2 = zarr.storage.MemoryStore()
            c = zarr.create_array(store2, shape=data.shape, chunks=(32, 64), dtype=data.dtype, compressors=[ours])
            c[:] = cp.asarray(data)
    assert _same(zarr.open_array(store2, mode="r")[:], data)


@pytest.mark.gpu
def test_gpu_batch_is_decoded_in_one_call_on_device(cp, monkeypatch):
    """Plain device chunks take the direct read for a whole read (one packed
    decode for the selection) and the one-copy path for a strided one (one
    packed decode a batch), landing in device memory; the same chunks behind a
    second bytes codec reach BatchCodec as CuPy arrays and come back as CuPy arrays."""
    from opencomp.zarr import _fastread

    fast, direct, seen = [], [], []
    real_fast, real_direct, real = _fastread.read_batch, _fastread.read_selection, _batch.BatchCodec.decode

    async def fast_spy(codec, batch_info, out, drop_axes):
        done = await real_fast(codec, batch_info, out, drop_axes)
        fast.append((len(batch_info), done))
        return done

    async def direct_spy(codec, batch_info, out, drop_axes):
        done = await real_direct(codec, batch_info, out, drop_axes)
        direct.append((len(batch_info), done))
        return done

    def spy(self, srcs, sizes=None, **kw):
        seen.append((len(srcs), all(_batch.is_device_array(s) for s in srcs)))
        res, fails = real(self, srcs, sizes, **kw)
        assert all(_batch.is_device_array(r) for r in res if r is not None)
        return res, fails

    monkeypatch.setattr(_fastread, "read_batch", fast_spy)
    monkeypatch.setattr(_fastread, "read_selection", direct_spy)
    monkeypatch.setattr(_batch.BatchCodec, "decode", spy)
    data = np.arange(512, dtype="<i8") * 3  # no chunk equals the fill value: all 8 are stored
    plain, crc = zarr.storage.MemoryStore(), zarr.storage.MemoryStore()
    zarr.create_array(plain, shape=data.shape, chunks=(64,), dtype=data.dtype, compressors=[ZstdCodec()])[:] = data
    zarr.create_array(crc, shape=data.shape, chunks=(64,), dtype=data.dtype,
                      compressors=[ZstdCodec(), Crc32cCodec()])[:] = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ocz.GpuFallbackWarning)
        with zarr.config.enable_gpu(), ocz.enable(batch_size=64):
            got = zarr.open_array(plain, mode="r")[:]
            assert isinstance(got, cp.ndarray) and _same(got.get(), data)
            assert direct == [(8, True)] and fast == [] and seen == []
            got = zarr.open_array(plain, mode="r")[::2]
            assert isinstance(got, cp.ndarray) and _same(got.get(), data[::2])
            assert fast == [(8, True)] and seen == []
            assert _same(zarr.open_array(crc, mode="r")[:].get(), data)
    assert seen == [(8, True)]
