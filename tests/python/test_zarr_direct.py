"""The direct read of OpencompCodecPipeline (opencomp/zarr/_fastread.py,
``read_selection``): a basic selection of a plain array (``bytes`` + one
opencomp codec) is read without zarr's per-chunk path -- the chunk files in
one buffer, one packed decode call straight into the output (or into a block
of chunks and one copy), fill values for missing chunks.  Guards: it must
read exactly what stock zarr reads (full reads, slabs, edge chunks, integer
indices, missing chunks, several dtypes and layouts, zstd and Blosc,
MemoryStore and LocalStore), on the host (CPU engine, real) and on a
stand-in device (a fake CuPy, numpy underneath); it must actually be taken
(decode calls counted, zarr's batches and LocalStore.get never entered);
and what it does not take must still read right through zarr's path."""

import types
import warnings

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
from zarr.codecs import BloscCodec, GzipCodec, ZstdCodec  # noqa: E402

import opencomp as oc  # noqa: E402
import opencomp.zarr as ocz  # noqa: E402
from opencomp.zarr import _fastread, _impl  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Numcodecs codecs are not in the Zarr version 3")


@pytest.fixture(params=["host", "device"])
def where(request, monkeypatch, decode_calls):
    """Yields (where, log): log["calls"] the Codec's decode calls, log["copies"]
    the host-to-device copies, log["batches"] zarr's batches entered.  The
    device is conftest.py's fake_cupy (numpy underneath)."""
    copies = request.getfixturevalue("fake_cupy") if request.param == "device" else []
    log = {"calls": decode_calls, "copies": copies, "batches": 0}
    real_batch = _impl.OpencompCodecPipeline.read_batch

    async def read_batch(self, *a, **kw):
        log["batches"] += 1
        return await real_batch(self, *a, **kw)

    monkeypatch.setattr(_impl.OpencompCodecPipeline, "read_batch", read_batch)
    yield request.param, log
    ocz.disable()
    zarr.config.reset()


def _data(dtype, shape, seed=5):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return (rng.integers(0, 3, n) == 0).reshape(shape)
    if dt.kind == "f":
        return np.round(np.cumsum(rng.normal(0, 1, n)), 2).astype(dt).reshape(shape)
    return (rng.integers(0, 200, n) // 3).astype(dt).reshape(shape)


CODECS = {
    "zstd": lambda: ZstdCodec(level=3),
    "blosc": lambda: BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=4),
    "gzip": lambda: GzipCodec(level=1),
}

# dtype, shape, chunks, selections (numpy-style basic indices)
CASES = [
    ("<f8", (256, 40), (32, 40), [np.s_[:], np.s_[32:128], np.s_[10:100], np.s_[200:], np.s_[7], np.s_[5:9, 3:30]]),
    ("<i8", (1000,), (128,), [np.s_[:], np.s_[128:512], np.s_[100:900], np.s_[999], np.s_[-5:]]),
    ("<f4", (300, 70), (64, 32), [np.s_[:], np.s_[64:192], np.s_[5:250, 3:60], np.s_[7], np.s_[:, 33],
                                 np.s_[7, 5:40], np.s_[299, 69]]),
    ("|u1", (17, 9, 5), (8, 4, 5), [np.s_[:], np.s_[3:12, 2:7, 1:4], np.s_[:, 3], np.s_[5], np.s_[16, 8, 4]]),
    ("|b1", (40, 40), (16, 40), [np.s_[:], np.s_[16:32], np.s_[3:37]]),
    ("<u2", (64, 64), (16, 16), [np.s_[:], np.s_[16:48, 32:64]]),
    (">i4", (50, 6), (10, 6), [np.s_[:], np.s_[12:40]]),  # a big-endian dtype: the bytes codec is native-endian
]


def _store(kind, tmp_path):
    if kind == "memory":
        return zarr.storage.MemoryStore()
    return zarr.storage.LocalStore(str(tmp_path / "a.zarr"))


def _memory_array(dtype, shape, chunks, compressor):
    """A MemoryStore holding one array of _data(dtype, shape), every chunk
    written with `compressor`; returns (store, data)."""
    store = zarr.storage.MemoryStore()
    data = _data(dtype, shape)
    zarr.create_array(store, shape=shape, chunks=chunks, dtype=dtype, compressors=[compressor])[:] = data
    return store, data


def _write(store, dtype, shape, chunks, codec, *, holes=True):
    data = _data(dtype, shape)
    fill = True if np.dtype(dtype).kind == "b" else 7
    a = zarr.create_array(store, shape=shape, chunks=chunks, dtype=dtype, compressors=[CODECS[codec]()],
                          fill_value=fill)
    a[:] = data
    if holes:  # two chunks at the fill value: not stored, read back as fill
        a[tuple(slice(0, c) for c in chunks)] = fill
        a[tuple(slice(c, 2 * c) if n >= 2 * c else slice(0, c) for n, c in zip(shape, chunks))] = fill
    return data


@pytest.mark.parametrize("store_kind", ["memory", "local"])
@pytest.mark.parametrize("codec", list(CODECS))
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{'x'.join(map(str, c[1]))}")
def test_reads_what_stock_zarr_reads_in_one_call(where, tmp_path, store_kind, codec, case):
    kind, log = where
    dtype, shape, chunks, selections = case
    store = _store(store_kind, tmp_path)
    _write(store, dtype, shape, chunks, codec)
    stock = zarr.open_array(store, mode="r")
    with ocz.enable(batch_size=4):
        ours = zarr.open_array(store, mode="r")
        assert _fastread.plan(ours.async_array.codec_pipeline) is not None
        for sel in selections:
            expect = stock[sel]
            del log["calls"][:], log["copies"][:]
            got = ours[sel]
            assert np.asarray(got).dtype == np.asarray(expect).dtype
            assert np.array_equal(got, expect), sel
            assert log["batches"] == 0, sel  # never zarr's batches
            assert set(log["calls"]) <= {"packed"}, sel
            if kind == "device":  # one copy and one call, whatever the layout (or none: all chunks missing)
                assert len(log["calls"]) == len(log["copies"]) <= 1, sel
            else:  # the CPU engine decodes the chunks the output only partly holds in a second call
                assert len(log["calls"]) <= 2, sel


def test_full_reads_of_whole_chunks_are_one_call(where):
    """Row blocks decode straight into the output; 2-D blocks through one copy:
    both one call, and a full read of 64 chunks is not 64 of anything."""
    kind, log = where
    for shape, chunks in (((512, 16), (64, 16)), ((256, 256), (32, 32))):
        store, data = _memory_array("<f4", shape, chunks, ZstdCodec())
        del log["calls"][:]
        with ocz.enable(batch_size=1):
            assert np.array_equal(zarr.open_array(store, mode="r")[:], data)
        assert log["calls"] == ["packed"] and log["batches"] == 0


def test_missing_everywhere_is_the_fill_value(where):
    kind, log = where
    store = zarr.storage.MemoryStore()
    zarr.create_array(store, shape=(100, 10), chunks=(30, 10), dtype="<f8", compressors=[ZstdCodec()],
                      fill_value=np.nan)
    with ocz.enable():
        got = zarr.open_array(store, mode="r")[:]
    assert got.shape == (100, 10) and np.isnan(got).all()
    assert log["calls"] == [] and log["batches"] == 0


def test_zero_dimensional_array(where):
    store = zarr.storage.MemoryStore()
    a = zarr.create_array(store, shape=(), chunks=(), dtype="<i4", compressors=[ZstdCodec()], fill_value=3)
    a[()] = 42
    with ocz.enable():
        assert zarr.open_array(store, mode="r")[()] == 42


def _count_chunk_gets(monkeypatch, store_class):
    """The chunk keys store_class.get is asked for from now on (a list that fills)."""
    gets = []
    real = zarr.storage.LocalStore.get

    async def get(self, key, *a, **kw):
        if "/c/" in f"/{key}":
            gets.append(key)
        return await real(self, key, *a, **kw)

    monkeypatch.setattr(store_class, "get", get)
    return gets


def test_local_store_files_are_read_without_its_get(where, tmp_path, monkeypatch):
    """The chunk files of a LocalStore go straight into one buffer: the store's
    per-chunk get (an asyncio.to_thread and a bytes object each) is not used."""
    kind, log = where
    store = zarr.storage.LocalStore(str(tmp_path / "a.zarr"))
    data = _write(store, "<f4", (300, 70), (64, 32), "zstd")
    expect = zarr.open_array(store, mode="r")[:]
    gets = _count_chunk_gets(monkeypatch, zarr.storage.LocalStore)
    with ocz.enable():
        assert np.array_equal(zarr.open_array(str(tmp_path / "a.zarr"), mode="r")[:], expect)
    assert gets == [] and log["calls"] == ["packed"]
    assert not np.array_equal(expect, data)  # the holes are there


def test_a_file_that_changes_while_read_takes_zarrs_path(where, tmp_path, monkeypatch):
    kind, log = where
    path = str(tmp_path / "a.zarr")
    data = _write(zarr.storage.LocalStore(path), "<i8", (1000,), (128,), "zstd", holes=False)

    def changed(paths, host_buffer):
        raise _fastread._Changed(paths[0])

    monkeypatch.setattr(_fastread, "_read_files", changed)
    with ocz.enable(batch_size=64):
        assert np.array_equal(zarr.open_array(path, mode="r")[:], data)
    assert log["batches"] == 1


def test_selections_it_does_not_take_read_through_zarrs_batches(where):
    kind, log = where
    store, data = _memory_array("<i4", (90, 90), (30, 30), ZstdCodec())
    with ocz.enable(batch_size=64):
        b = zarr.open_array(store, mode="r")
        for sel, expect in ((np.s_[::2, 5], data[::2, 5]), (np.s_[3:80:7], data[3:80:7])):
            log["batches"] = 0
            assert np.array_equal(b[sel], expect)
            assert log["batches"] == 1
        log["batches"] = 0
        assert np.array_equal(b.oindex[[1, 40, 89], :], data[[1, 40, 89], :])
        assert np.array_equal(b.vindex[[1, 40, 89], [2, 3, 88]], data[[1, 40, 89], [2, 3, 88]])
        assert log["batches"] == 2


def test_non_contiguous_out_buffer(where):
    """A caller's out= of another memory order gets the block through one copy."""
    kind, log = where
    from zarr.core.buffer.cpu import NDBuffer

    store, data = _memory_array("<f8", (256, 40), (32, 40), ZstdCodec())
    out = np.zeros(data.shape, dtype="<f8", order="F")
    with ocz.enable():
        zarr.open_array(store, mode="r").get_basic_selection(np.s_[:], out=NDBuffer.from_numpy_array(out))
    assert np.array_equal(out, data) and log["calls"] == ["packed"]


def test_corrupt_chunk_is_named_by_key(where, tmp_path):
    kind, log = where
    path = tmp_path / "a.zarr"
    a = zarr.create_array(str(path), shape=(400,), chunks=(100,), dtype="<f8", compressors=[ZstdCodec()])
    a[:] = np.arange(400.0)
    raw = bytearray((path / "c" / "2").read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    raw[-3:] = b"\0\0\0"
    (path / "c" / "2").write_bytes(bytes(raw))
    with ocz.enable():
        with pytest.raises(ocz.ChunkDecodeError, match=r"'c/2'"):
            zarr.open_array(str(path), mode="r")[:]


def test_sharded_arrays_read_their_inner_chunks_directly(where):
    kind, log = where
    store = zarr.storage.MemoryStore()
    data = _data("<i4", (64, 64))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zarr.create_array(store, shape=data.shape, shards=(32, 64), chunks=(16, 64), dtype="<i4",
                          compressors=[ZstdCodec()])[:] = data
    with ocz.enable(batch_size=64):
        b = zarr.open_array(store, mode="r")
        assert isinstance(_fastread.plan(b.async_array.codec_pipeline), _fastread._Sharded)
        assert np.array_equal(b[:], data)
    assert log["calls"] == ["packed"]  # both shards' inner chunks: one direct read
    assert log["batches"] == 0


def _sharded(store, data, shards, chunks, comp, index_location="end", fill_value=0):
    from zarr.codecs import BytesCodec, ShardingCodec

    serializer = ShardingCodec(chunk_shape=chunks, codecs=[BytesCodec(), comp], index_location=index_location)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = zarr.create_array(store, shape=data.shape, chunks=shards, serializer=serializer, compressors=None,
                              dtype=data.dtype, fill_value=fill_value)
        a[:] = data
    return a


@pytest.mark.parametrize("index_location", ["end", "start"])
@pytest.mark.parametrize("codec", ["zstd", "blosc"])
def test_sharded_selections_match_stock(where, tmp_path, index_location, codec):
    """Every basic selection of a sharded array (index at either end, edge
    shards, shards of fill that zarr never wrote, inner chunks never written)
    reads what stock zarr reads, in one call a selection, never through
    zarr's batches."""
    kind, log = where
    data = _data("<i4", (70, 90))
    store = zarr.storage.LocalStore(str(tmp_path / "s.zarr"))
    a = _sharded(store, data, (20, 45), (10, 15), CODECS[codec](), index_location, fill_value=7)
    a[0:20, 0:45] = 7  # a whole shard of fill: no file
    a[20:30, 45:60] = 7  # one inner chunk of fill: never written in its shard
    sels = [np.s_[:], np.s_[5:63, 3:88], np.s_[33, :], np.s_[:, 44], np.s_[19:21, 44:46], np.s_[65:, 80:]]
    stock = zarr.open_array(store, mode="r")
    expected = [stock[sel] for sel in sels]  # before enable(): a shard's own pipeline would be ours
    ref = data.copy()
    ref[0:20, 0:45] = 7
    ref[20:30, 45:60] = 7
    assert np.array_equal(expected[0], ref)
    del log["calls"][:]
    with ocz.enable():
        ours = zarr.open_array(store, mode="r")
        assert isinstance(_fastread.plan(ours.async_array.codec_pipeline), _fastread._Sharded)
        for sel, want in zip(sels, expected):
            del log["calls"][:]
            got = ours[sel]
            assert np.array_equal(got, want), sel
            assert log["calls"] == ["packed"], (sel, log["calls"])
    assert log["batches"] == 0


def test_sharded_damaged_index_takes_zarrs_path(tmp_path):
    """A shard whose index checksum fails is not read here: zarr's path runs
    and raises what zarr raises."""
    data = _data("<i4", (40, 40))
    path = tmp_path / "d.zarr"
    _sharded(zarr.storage.LocalStore(str(path)), data, (20, 40), (10, 10), ZstdCodec())
    shard = path / "c" / "1" / "0"
    raw = bytearray(shard.read_bytes())
    raw[-8] ^= 0x01  # an index entry (the CRC-32C no longer matches)
    shard.write_bytes(bytes(raw))
    with pytest.raises(Exception) as stock_err:
        zarr.open_array(zarr.storage.LocalStore(str(path)), mode="r")[:]
    with ocz.enable():
        with pytest.raises(type(stock_err.value)):
            zarr.open_array(zarr.storage.LocalStore(str(path)), mode="r")[:]
        assert np.array_equal(zarr.open_array(zarr.storage.LocalStore(str(path)), mode="r")[:20], data[:20])


@pytest.mark.gpu
@pytest.mark.parametrize("codec", ["zstd", "blosc", "gzip"])  # gzip: the GPU deflate kernels (issue 15)
@pytest.mark.parametrize("case", CASES[:4], ids=lambda c: f"{c[0]}-{'x'.join(map(str, c[1]))}")
def test_gpu_direct_read(cp, tmp_path, decode_calls, codec, case):
    """On a GPU: every selection of CASES read into device memory equals stock
    zarr's host read, through the direct read (one packed call, no batches)."""
    calls = decode_calls
    dtype, shape, chunks, selections = case
    store = zarr.storage.LocalStore(str(tmp_path / "a.zarr"))
    _write(store, dtype, shape, chunks, codec)
    stock = zarr.open_array(store, mode="r")
    try:
        with zarr.config.enable_gpu(), ocz.enable(batch_size=4):
            ours = zarr.open_array(store, mode="r")
            for sel in selections:
                del calls[:]
                got = ours[sel]
                expect = stock[sel]
                if isinstance(got, cp.ndarray):
                    got = got.get()
                if isinstance(expect, cp.ndarray):  # stock zarr reads into device buffers too under enable_gpu()
                    expect = expect.get()
                assert np.array_equal(got, expect), sel
                assert calls in ([], ["packed"]), (sel, calls)
    finally:
        ocz.disable()
        zarr.config.reset()


@pytest.mark.gpu
@pytest.mark.parametrize("codec", ["zstd", "blosc", "gzip"])
def test_gpu_sharded_direct_read(cp, tmp_path, decode_calls, codec):
    """On a GPU: a sharded array (inner chunks never written, a shard of fill)
    read into device memory in one packed call equals stock zarr's host read."""
    data = _data("<i4", (70, 90))
    store = zarr.storage.LocalStore(str(tmp_path / "g.zarr"))
    a = _sharded(store, data, (20, 45), (10, 15), CODECS[codec](), fill_value=7)
    a[0:20, 0:45] = 7
    a[20:30, 45:60] = 7
    sels = [np.s_[:], np.s_[5:63, 3:88], np.s_[33, :]]
    expected = [zarr.open_array(store, mode="r")[sel] for sel in sels]
    try:
        with zarr.config.enable_gpu(), ocz.enable():
            ours = zarr.open_array(store, mode="r")
            for sel, want in zip(sels, expected):
                del decode_calls[:]
                got = ours[sel]
                assert isinstance(got, cp.ndarray)
                assert np.array_equal(got.get(), want), sel
                assert decode_calls == ["packed"], (sel, decode_calls)
    finally:
        ocz.disable()
        zarr.config.reset()


@pytest.mark.gpu
def test_gpu_direct_read_in_slabs_on_lanes(cp, tmp_path, decode_calls, monkeypatch):
    """On a GPU: a read in slabs on lanes (copies and decodes stream-ordered
    on non-blocking streams of their own, the host waiting only to reuse a
    lane and at the end) reads what stock zarr reads, row blocks straight
    into the output and column blocks through the staging copy; a truncated
    chunk in an early slab (raised when its lane is taken again) and in the
    last (raised at the end) is named by its key."""
    data = _data("<f4", (64, 4096))
    path = tmp_path / "a.zarr"
    a = zarr.create_array(zarr.storage.LocalStore(str(path)), shape=data.shape, chunks=(4, 4096), dtype="<f4",
                          compressors=[ZstdCodec()], fill_value=7)
    a[:] = data
    a[8:12] = 7  # a chunk at the fill value: not stored
    sels = [np.s_[:], np.s_[5:60, 100:4000], np.s_[3:61], np.s_[17]]
    stock = zarr.open_array(zarr.storage.LocalStore(str(path)), mode="r")
    expected = [stock[sel] for sel in sels]  # stock zarr's own read, on the host
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_BYTES", 2 * 4 * 4096 * 4)  # 8 slabs of 2 chunks
    monkeypatch.setattr(_fastread, "LANES", 3)
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_CHUNKS", 1)
    try:
        with zarr.config.enable_gpu(), ocz.enable():
            ours = zarr.open_array(zarr.storage.LocalStore(str(path)), mode="r")
            for sel, want in zip(sels, expected):
                del decode_calls[:]
                got = ours[sel]
                assert isinstance(got, cp.ndarray)
                assert np.array_equal(got.get(), want), sel
                assert set(decode_calls) == {"packed"}, (sel, decode_calls)
            current = cp.cuda.get_current_stream().ptr
            lanes = [ln for free in _fastread._LANE_POOL.values() for ln in free]
            assert len(lanes) == 3 and all(ln.stream.ptr not in (0, current) for ln in lanes)
            for bad in ("1", "15"):  # slab 0 (lane 0, taken again by slab 3), slab 7 (the last)
                f = path / "c" / bad / "0"
                good = f.read_bytes()
                f.write_bytes(good[: len(good) // 2])
                try:
                    with pytest.raises(ocz.ChunkDecodeError, match=rf"'c/{bad}/0'"):
                        ours[:]
                finally:
                    f.write_bytes(good)
            assert np.array_equal(ours[:].get(), expected[0])
    finally:
        ocz.disable()
        zarr.config.reset()


def test_no_gpu_kernel_takes_zarrs_path(where, monkeypatch):
    """Device output of an algorithm this build has no GPU kernel for: zarr's
    batches (and the batch engine's CPU fallback), not a copy to the device first."""
    kind, log = where
    monkeypatch.setattr(_fastread, "_gpu_decodes", lambda codec: False)
    store, data = _memory_array("<i4", (400,), (100,), GzipCodec())
    with ocz.enable(batch_size=64):
        assert np.array_equal(zarr.open_array(store, mode="r")[:], data)
    if kind == "device":
        assert log["batches"] == 1 and "packed" not in log["calls"] and log["copies"] == []
    else:  # host reads never ask for a GPU kernel
        assert log["batches"] == 0 and log["calls"] == ["packed"]


@pytest.mark.parametrize("shape, chunks, sel", [((1000,), (128,), np.s_[:]), ((300, 70), (64, 32), np.s_[5:290, 3:60]),
                                                ((256, 40), (32, 40), np.s_[10:250])])
def test_large_reads_go_in_slabs(where, monkeypatch, shape, chunks, sel):
    """Above SLAB_BYTES a read goes in slabs along its first axis: one copy and
    one call a slab, the same result."""
    kind, log = where
    store = zarr.storage.MemoryStore()
    data = _write(store, "<f4", shape, chunks, "zstd")
    expect = zarr.open_array(store, mode="r")[sel]
    monkeypatch.setattr(_fastread, "SLAB_BYTES", int(np.prod(chunks)) * 4)  # one row of chunks a slab
    with ocz.enable():
        assert np.array_equal(zarr.open_array(store, mode="r")[sel], expect)
    assert log["batches"] == 0 and len(log["calls"]) >= 4  # 5-8 rows of chunks, two missing
    if kind == "device":
        assert len(log["calls"]) == len(log["copies"])
    assert data.shape == shape


class _Deferred:
    """A lane's Codec as the GPU runs it: decode returns at once and a failed
    chunk is raised by synchronize(), not by the call (the CPU engine under the
    fake device raises at once, which would skip the lanes' settling).
    ``unsupported``: the decode calls (counted from 0) whose batch the kernel
    "does not serve"."""

    made = []

    def __init__(self, codec, unsupported=()):
        self._codec, self._error, self.pending, self.unsupported = codec, None, False, unsupported
        self.calls = 0
        _Deferred.made.append(self)

    def decode(self, *a, **kw):
        assert "errors" not in kw  # the stream-ordered form
        assert not self.pending, "a lane took a slab before its last one was settled"
        self.pending = True
        self.calls += 1
        try:
            out = self._codec.decode(*a, **kw)
        except oc.Error as e:
            self._error = e
            return kw["out"]
        if self.calls - 1 in self.unsupported:
            self._error = oc.Error("UNSUPPORTED (test)")
            self._error.status, self._error.chunk = oc.Status.UNSUPPORTED, 0
        return out

    def synchronize(self):
        self.pending = False
        e, self._error = self._error, None
        if e is not None:
            raise e


def _deferred_lanes(monkeypatch, **kw):
    from opencomp.numcodecs import _batch

    real_on = _batch.BatchCodec.codec_on
    _Deferred.made = []
    monkeypatch.setattr(_batch.BatchCodec, "codec_on", lambda self, stream: _Deferred(real_on(self, stream), **kw))
    monkeypatch.setattr(_fastread, "_LANE_POOL", {})
    return _Deferred.made


@pytest.mark.parametrize("shape, chunks, sel", [((1000,), (128,), np.s_[:]), ((300, 70), (64, 32), np.s_[5:290, 3:60]),
                                                ((256, 40), (32, 40), np.s_[10:250]), ((1000,), (128,), np.s_[130:900])])
@pytest.mark.parametrize("sharded", [False, True])
def test_device_reads_go_in_slabs_on_lanes(fake_cupy, decode_calls, monkeypatch, tmp_path, shape, chunks, sel,
                                           sharded):
    """A device read goes in slabs of DEVICE_SLAB_BYTES (here one row of
    chunks, or of shards), slab k on lane k % LANES (a stream and a Codec of
    its own): what stock zarr reads, one copy and one stream-ordered call a
    slab that holds a chunk, every lane waiting for CuPy's stream (an event)
    before its first slab, each lane settled before it takes another slab,
    and the lanes kept for the next read (no new streams, no new Codecs)."""
    import sys

    made = _deferred_lanes(monkeypatch)
    path = str(tmp_path / "a.zarr")
    data = _data("<f4", shape)
    if sharded:
        shards = tuple(2 * c if n >= 2 * c else c for n, c in zip(shape, chunks))
        a = _sharded(zarr.storage.LocalStore(path), data, shards, chunks, ZstdCodec(), fill_value=7)
        row = int(np.prod(shards)) * 4
    else:
        a = zarr.create_array(zarr.storage.LocalStore(path), shape=shape, chunks=chunks, dtype="<f4",
                              compressors=[ZstdCodec()], fill_value=7)
        a[:] = data
        row = int(np.prod(chunks)) * 4
    a[tuple(slice(c, 2 * c) for c in chunks)] = 7  # a chunk at the fill value (never stored, or an empty inner chunk)
    expect = zarr.open_array(path, mode="r")[sel]
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_BYTES", row)
    monkeypatch.setattr(_fastread, "LANES", 2)
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_CHUNKS", 1)
    lanes = sys.modules["cupy"].cuda.lanes
    try:
        with ocz.enable():
            for _ in range(2):
                del decode_calls[:], fake_cupy[:]
                assert np.array_equal(zarr.open_array(path, mode="r")[sel], expect)
                assert len(decode_calls) >= 3 and set(decode_calls) == {"packed"}
                assert len(fake_cupy) == len(decode_calls)  # one copy a slab
                assert not any(d.pending for d in made)  # every slab settled before the read returned
    finally:
        ocz.disable()
    assert len(lanes) == 2 and len(made) == 2  # the second read took the first one's lanes
    assert [len(ln.waited) for ln in lanes] == [2, 2]  # once a read, before the lane's first slab
    assert sum(d.calls for d in made) == 2 * len(decode_calls)


@pytest.mark.parametrize("shard, slab_chunks, slab_bytes, calls", [
    (None, 3, 8, 4), (None, 1, 8, 10), (None, 1, 4 * 100 * 8, 3), (None, 16, 8, 1),
    (100, 3, 8, 4),  # shards of one inner chunk
    (200, 4, 8, 3),  # shards of two: 4 inner chunks are 2 shards a slab (not 4 shards)
    (200, 1, 8, 5),  # never less than one shard
])
def test_device_slabs_hold_at_least_slab_chunks_and_bytes(fake_cupy, decode_calls, monkeypatch, tmp_path, shard,
                                                          slab_chunks, slab_bytes, calls):
    """A device slab holds at least DEVICE_SLAB_CHUNKS chunks (inner chunks of
    a sharded array: the frame kernel's round is counted in frames) and at
    least DEVICE_SLAB_BYTES decoded bytes, in whole rows of chunks (of
    shards): 10 chunks of 800 bytes read in as many calls as slabs."""
    _deferred_lanes(monkeypatch)
    path = str(tmp_path / "a.zarr")
    data = _data("<i8", (1000,))
    if shard:
        _sharded(zarr.storage.LocalStore(path), data, (shard,), (100,), ZstdCodec())
    else:
        zarr.create_array(zarr.storage.LocalStore(path), shape=(1000,), chunks=(100,), dtype="<i8",
                          compressors=[ZstdCodec()])[:] = data
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_CHUNKS", slab_chunks)
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_BYTES", slab_bytes)
    try:
        with ocz.enable():
            assert np.array_equal(zarr.open_array(path, mode="r")[:], data)
    finally:
        ocz.disable()
    assert decode_calls == ["packed"] * calls


@pytest.mark.parametrize("bad", [2, 6, 7])
def test_lane_failures_name_their_chunk(fake_cupy, monkeypatch, tmp_path, bad):
    """A chunk that fails in a stream-ordered slab is raised when its lane is
    settled (when the lane is taken again, or at the end of the read), named
    by its key in the read's batch (not searched for again by zarr's path),
    and every lane is waited for before the error leaves the read."""
    made = _deferred_lanes(monkeypatch)
    path = tmp_path / "a.zarr"
    a = zarr.create_array(str(path), shape=(1000,), chunks=(125,), dtype="<f8", compressors=[ZstdCodec()])
    a[:] = np.arange(1000.0)
    raw = bytearray((path / "c" / str(bad)).read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    raw[-3:] = b"\0\0\0"
    (path / "c" / str(bad)).write_bytes(bytes(raw))

    async def no_search(*_a, **_k):
        raise AssertionError("the failing chunk was searched for: the slab's index was lost")

    monkeypatch.setattr(_impl.OpencompCodecPipeline, "_locate", no_search)
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_BYTES", 125 * 8)  # a slab a chunk: 8 slabs on 2 lanes
    monkeypatch.setattr(_fastread, "LANES", 2)
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_CHUNKS", 1)
    try:
        with ocz.enable():
            with pytest.raises(ocz.ChunkDecodeError, match=rf"'c/{bad}'"):
                zarr.open_array(str(path), mode="r")[:]
    finally:
        ocz.disable()
    assert len(made) == 2 and not any(d.pending for d in made)
    assert [len(v) for v in _fastread._LANE_POOL.values()] == [2]  # given back


def test_lane_unsupported_takes_zarrs_path(fake_cupy, monkeypatch, tmp_path):
    """A slab the GPU kernel turns down (UNSUPPORTED, raised when its lane is
    settled) sends the whole read to zarr's path, after every lane is done:
    the same result."""
    made = _deferred_lanes(monkeypatch, unsupported=(1,))  # each lane's second slab
    batches = []
    real_batch = _impl.OpencompCodecPipeline.read_batch

    async def read_batch(self, *a, **kw):
        batches.append(1)
        return await real_batch(self, *a, **kw)

    monkeypatch.setattr(_impl.OpencompCodecPipeline, "read_batch", read_batch)
    path = str(tmp_path / "a.zarr")
    data = _write(zarr.storage.LocalStore(path), "<i8", (1000,), (100,), "zstd")
    expect = zarr.open_array(path, mode="r")[:]
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_BYTES", 100 * 8)
    monkeypatch.setattr(_fastread, "LANES", 3)
    monkeypatch.setattr(_fastread, "DEVICE_SLAB_CHUNKS", 1)
    try:
        with ocz.enable():
            assert np.array_equal(zarr.open_array(path, mode="r")[:], expect)
    finally:
        ocz.disable()
    assert batches and len(made) == 3 and not any(d.pending for d in made)
    assert sum(d.calls for d in made) >= 4  # the 4th slab (lane 0's second) was turned down when lane 0 was taken
    assert not np.array_equal(expect, data)  # the holes read as fill


def _read_in_child(path):
    with ocz.enable():
        return zarr.open_array(path, mode="r")[:].sum()


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_a_forked_child_reads_too(tmp_path):
    """The file-reading thread pool of a parent that read before forking is
    not inherited half-alive: the child's direct read finishes (zarr's own
    test_multiprocessing[local-fork] hung on it)."""
    import multiprocessing

    path = str(tmp_path / "a.zarr")
    data = _write(zarr.storage.LocalStore(path), "<i8", (1000,), (128,), "zstd", holes=False)
    try:
        with ocz.enable():
            assert np.array_equal(zarr.open_array(path, mode="r")[:], data)  # the pool exists now
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork of a process with threads
            with multiprocessing.get_context("fork").Pool(1) as pool:
                assert pool.apply_async(_read_in_child, (path,)).get(timeout=120) == data.sum()
    finally:
        ocz.disable()
        zarr.config.reset()


class _FakeKvikio:
    """kvikio as _fastread sees it: CuFile.pread copies the file's bytes into
    the (numpy) device buffer; compat mode as asked.  Logs the files read."""

    def __init__(self, compat):
        self.read = []
        fake = self

        class CuFile:
            def __init__(self, path, flags="r"):
                assert flags == "r"
                self.path, self.closed = path, False

            def pread(self, buf):
                data = np.fromfile(self.path, np.uint8)
                buf[: data.size] = data[: buf.size]
                fake.read.append(self.path)
                return types.SimpleNamespace(get=lambda: min(data.size, buf.size))

            def close(self):
                self.closed = True

        self.CuFile = CuFile
        self.defaults = types.SimpleNamespace(is_compat_mode_preferred=lambda: compat)


@pytest.mark.parametrize("compat", [False, True])
def test_kvikio_gds_reads_the_files_straight_to_the_device(tmp_path, monkeypatch, fake_cupy, decode_calls, compat):
    """With kvikio installed and GPUDirect Storage live, a device read of a
    plain array takes the chunk files straight into device memory with
    CuFile.pread: no host-to-device copy.  In kvikio's compatibility mode
    (host bounce buffers) the pinned buffer and one copy are kept."""
    import sys

    kv = _FakeKvikio(compat)
    monkeypatch.setitem(sys.modules, "kvikio", kv)
    monkeypatch.setitem(sys.modules, "kvikio.defaults", kv.defaults)
    # kvikio's reads are not ordered on CuPy's stream: the read waits for it once
    monkeypatch.setattr(sys.modules["cupy"].cuda, "get_current_stream",
                        lambda: types.SimpleNamespace(synchronize=lambda: None))
    path = str(tmp_path / "a.zarr")
    data = _write(zarr.storage.LocalStore(path), "<f4", (300, 70), (64, 32), "zstd")
    expect = zarr.open_array(path, mode="r")[:]
    try:
        with ocz.enable():
            got = zarr.open_array(path, mode="r")[:]
    finally:
        ocz.disable()
    assert np.array_equal(got, expect) and not np.array_equal(expect, data)
    assert decode_calls == ["packed"]
    n_files = sum(1 for _ in (tmp_path / "a.zarr").rglob("c/*/*"))
    if compat:
        assert kv.read == [] and len(fake_cupy) == 1
    else:
        assert len(kv.read) == n_files and fake_cupy == []


def test_kvikio_gdsstore_is_read_as_a_local_store(tmp_path, monkeypatch, decode_calls):
    """kvikio's GDSStore (a LocalStore) takes the direct read too: its files
    are read by the pipeline, its per-chunk get is not called."""
    Gds = type("GDSStore", (zarr.storage.LocalStore,), {"__module__": "kvikio.zarr._zarr_python_3"})
    gets = _count_chunk_gets(monkeypatch, Gds)
    path = str(tmp_path / "a.zarr")
    _write(zarr.storage.LocalStore(path), "<i8", (1000,), (128,), "zstd")
    expect = zarr.open_array(path, mode="r")[:]
    try:
        with ocz.enable():
            got = zarr.open_array(Gds(path), mode="r")[:]
    finally:
        ocz.disable()
    assert np.array_equal(got, expect) and gets == [] and set(decode_calls) == {"packed"}


@pytest.mark.gpu
def test_gpu_read_through_real_kvikio(cp, tmp_path, decode_calls):
    """On a GPU with kvikio installed: the CuFile path reads what stock zarr
    reads (forced here even in kvikio's compatibility mode, where the library
    keeps its pinned path), sharded arrays keep the host path."""
    kvikio = pytest.importorskip("kvikio")
    store = zarr.storage.LocalStore(str(tmp_path / "a.zarr"))
    _write(store, "<f4", (300, 70), (64, 32), "zstd")
    expect = zarr.open_array(store, mode="r")[:]
    real = _fastread._gds
    try:
        _fastread._gds = lambda: kvikio
        with zarr.config.enable_gpu(), ocz.enable():
            got = zarr.open_array(store, mode="r")[:]
    finally:
        _fastread._gds = real
        ocz.disable()
        zarr.config.reset()
    assert isinstance(got, cp.ndarray) and np.array_equal(got.get(), expect)
    assert decode_calls == ["packed"]
