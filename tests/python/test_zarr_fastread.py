"""The one-copy device read of OpencompCodecPipeline's batches
(opencomp/zarr/_fastread.py, ``read_batch``), checked on the CPU: a fake CuPy
(numpy underneath) stands in for the device, so the same code runs -- one
buffer of compressed chunks, ONE packed decode call a batch, each chunk's
selection written into the output, fill values for missing chunks -- and must
read exactly what stock zarr reads.  Whole reads take the direct read
(``read_selection``, test_zarr_direct.py), strided ones these batches.  The
GPU run of the same paths is test_zarr.py's and test_zarr_direct.py's gpu tests."""

import warnings

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
import zarr.codecs.numcodecs as zn  # noqa: E402
from zarr.codecs import BloscCodec, BytesCodec, Crc32cCodec, GzipCodec, ShardingCodec, ZstdCodec  # noqa: E402

import opencomp.zarr as ocz  # noqa: E402
from opencomp.zarr import _fastread  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Numcodecs codecs are not in the Zarr version 3")


@pytest.fixture
def fake_gpu(fake_cupy, decode_calls):
    """Device output as far as _fastread can tell, CuPy's calls answered by
    numpy (conftest.py's fake_cupy); yields (decode calls, host-to-device
    copies)."""
    yield decode_calls, fake_cupy
    ocz.disable()
    zarr.config.reset()


def _codecs():
    return {
        "zstd": ZstdCodec(level=3),
        "gzip": GzipCodec(level=5),
        "numcodecs.zlib": zn.Zlib(level=1),
        "blosc": BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=4),
        "blosc-zstd-bit": BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle", typesize=8),
    }


LAYOUTS = [  # dtype, shape, chunks
    ("<f4", (300, 70), (64, 32)),  # edge chunks on both axes
    ("<i8", (1000,), (128,)),
    ("|u1", (17, 9, 5), (8, 4, 5)),
    ("|b1", (40, 40), (16, 40)),
]


def _data(dtype, shape):
    rng = np.random.default_rng(3)
    n = int(np.prod(shape))
    if np.dtype(dtype).kind == "f":
        return np.round(np.cumsum(rng.normal(0, 1, n)), 2).astype(dtype).reshape(shape)
    if np.dtype(dtype).kind == "b":
        return (rng.integers(0, 3, n) == 0).reshape(shape)
    return (rng.integers(0, 50, n) // 7).astype(dtype).reshape(shape)


@pytest.mark.parametrize("cid", list(_codecs()))
@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda L: f"{L[0]}-{'x'.join(map(str, L[1]))}")
def test_reads_what_stock_zarr_reads_with_one_call_a_batch(fake_gpu, cid, layout):
    calls, copies = fake_gpu
    dtype, shape, chunks = layout
    data = _data(dtype, shape)
    store = zarr.storage.MemoryStore()
    a = zarr.create_array(store, shape=shape, chunks=chunks, dtype=dtype, compressors=[_codecs()[cid]],
                          fill_value=7 if dtype != "|b1" else True)
    a[:] = data
    a[tuple(slice(0, c) for c in chunks)] = 7 if dtype != "|b1" else True  # a chunk at the fill value: not stored
    expect = zarr.open_array(store, mode="r")[:]
    with ocz.enable(batch_size=1000):
        b = zarr.open_array(store, mode="r")
        assert _fastread.plan(b.async_array.codec_pipeline) is not None
        got = b[:]
        assert np.array_equal(got, expect) and got.dtype == expect.dtype
        assert calls == ["packed"] and len(copies) == 1  # the whole read: one copy, one call
        sel = tuple(slice(1, max(2, n - 3), 2) for n in shape)  # strided: zarr's batches, one call each
        assert np.array_equal(b[sel], expect[sel])
        assert calls == ["packed"] * 2 and len(copies) == 2


def test_batches_follow_zarrs_batch_size(fake_gpu):
    """Selections the direct read does not take (strided here) go through
    zarr's batches, one packed call each; a whole read is one call."""
    calls, copies = fake_gpu
    store = zarr.storage.MemoryStore()
    a = zarr.create_array(store, shape=(1000,), chunks=(100,), dtype="<i4", compressors=[ZstdCodec()])
    a[:] = np.arange(1000, dtype="<i4")
    with ocz.enable(batch_size=4):
        assert np.array_equal(zarr.open_array(store, mode="r")[::3], np.arange(1000)[::3])
        assert calls == ["packed"] * 3 and len(copies) == 3  # 10 chunks in batches of 4, 4, 2
        assert np.array_equal(zarr.open_array(store, mode="r")[:], np.arange(1000))
        assert calls == ["packed"] * 4 and len(copies) == 4


def test_corrupt_chunk_is_named_by_key(fake_gpu):
    store = zarr.storage.MemoryStore()
    a = zarr.create_array(store, shape=(400,), chunks=(100,), dtype="<f8", compressors=[ZstdCodec()])
    a[:] = np.arange(400.0)
    import asyncio

    from zarr.core.buffer import default_buffer_prototype

    key = "c/2"
    buf = asyncio.run(store.get(key, default_buffer_prototype()))
    raw = bytearray(buf.to_bytes())
    raw[len(raw) // 2] ^= 0xFF
    raw[-3:] = b"\0\0\0"
    asyncio.run(store.set(key, default_buffer_prototype().buffer.from_bytes(bytes(raw))))
    with ocz.enable(batch_size=16):
        with pytest.raises(ocz.ChunkDecodeError, match=r"'c/2'"):
            zarr.open_array(store, mode="r")[:]


def test_what_does_not_qualify_takes_zarrs_path(fake_gpu):
    calls, _ = fake_gpu
    data = np.arange(4096, dtype="<i4").reshape(64, 64)
    cases = {
        # (sharded arrays with plain inner chunks take the direct read: test_zarr_direct.py)
        "sharded, big-endian inner chunks": dict(
            chunks=(32, 64), compressors=None,
            serializer=ShardingCodec(chunk_shape=(16, 64), codecs=[BytesCodec(endian="big"), ZstdCodec()])),
        "two codecs": dict(chunks=(16, 64), compressors=[ZstdCodec(), Crc32cCodec()]),
        "big-endian bytes": dict(chunks=(16, 64), compressors=[ZstdCodec()], serializer=BytesCodec(endian="big")),
        "numcodecs.lz4 (size prefix)": dict(chunks=(16, 64), compressors=[zn.LZ4()]),
    }
    for name, kw in cases.items():
        store = zarr.storage.MemoryStore()
        kw.setdefault("dtype", "<i4")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            zarr.create_array(store, shape=data.shape, **kw)[:] = data
        del calls[:]
        with ocz.enable(batch_size=64):
            b = zarr.open_array(store, mode="r")
            assert _fastread.plan(b.async_array.codec_pipeline) is None, name
            assert np.array_equal(b[:], data), name
        assert "packed" not in calls, name
