"""opencomp.numcodecs against numcodecs' own Zstd, LZ4, Zlib and GZip: same
configuration, streams decodable both ways on real data, decode(out=...) into
caller memory with exact size checks, batch calls, corrupt input statuses,
entry points, register()/unregister() and zarr v2 arrays, pickling."""

import importlib.metadata
import pickle

import numpy as np
import pytest

numcodecs = pytest.importorskip("numcodecs")
import opencomp as oc  # noqa: E402
import opencomp.numcodecs as ocn  # noqa: E402
from conftest import CORPUS  # noqa: E402

PAIRS = [
    ("zstd", lambda: ocn.Zstd(level=3), lambda: numcodecs.Zstd(level=3)),
    ("zstd-neg", lambda: ocn.Zstd(level=-3), lambda: numcodecs.Zstd(level=-3)),
    ("zstd-checksum", lambda: ocn.Zstd(level=1, checksum=True), lambda: numcodecs.Zstd(level=1, checksum=True)),
    ("lz4", lambda: ocn.LZ4(), lambda: numcodecs.LZ4()),
    ("lz4-acc", lambda: ocn.LZ4(acceleration=20), lambda: numcodecs.LZ4(acceleration=20)),
    ("zlib", lambda: ocn.Zlib(level=6), lambda: numcodecs.Zlib(level=6)),
    ("zlib-0", lambda: ocn.Zlib(level=0), lambda: numcodecs.Zlib(level=0)),
    ("gzip", lambda: ocn.GZip(level=9), lambda: numcodecs.GZip(level=9)),
]
PAIR_IDS = [p[0] for p in PAIRS]
DATA = [(name, d) for name, d in CORPUS if name != "empty"]


@pytest.fixture(params=PAIRS, ids=PAIR_IDS)
def pair(request):
    return request.param[1](), request.param[2]()


def test_configuration_is_numcodecs(pair):
    ours, stock = pair
    assert ours.get_config() == stock.get_config()
    assert ours.codec_id == stock.codec_id
    again = type(ours).from_config({k: v for k, v in stock.get_config().items() if k != "id"})
    assert again.get_config() == stock.get_config()


@pytest.mark.parametrize("name", [n for n, _ in DATA])
def test_interop_both_ways(pair, name):
    ours, stock = pair
    data = dict(DATA)[name]
    mine = ours.encode(data)
    assert type(mine) is bytes  # what numcodecs' encode returns
    assert bytes(stock.decode(mine)) == data
    theirs = stock.encode(data)
    assert bytes(ours.decode(theirs)) == data


def test_decode_into_caller_memory(pair):
    ours, stock = pair
    col = np.cumsum(np.random.default_rng(3).normal(size=20_000)).astype(np.float32)
    comp = stock.encode(col)
    out = np.empty_like(col)
    assert ours.decode(comp, out=out) is out
    assert out.tobytes() == col.tobytes()
    # typed slices of one large buffer
    big = np.zeros(3 * col.size, np.float32)
    ours.decode(comp, out=big[col.size : 2 * col.size])
    assert big[col.size : 2 * col.size].tobytes() == col.tobytes() and not big[: col.size].any()
    ba = bytearray(col.nbytes)
    ours.decode(comp, out=ba)
    assert bytes(ba) == col.tobytes()


def test_out_too_small_is_a_value_error(pair):
    # numcodecs raises ValueError when out cannot hold the chunk; so do we
    # (an opencomp.Error too, with the status), and nothing lands past out
    ours, stock = pair
    data = dict(DATA)["price-column-f8"]
    big = np.zeros(len(data), np.uint8)
    with pytest.raises(ValueError) as ei:
        ours.decode(stock.encode(data), out=big[: len(data) - 4])
    assert isinstance(ei.value, oc.Error) and ei.value.status == oc.Status.OUTPUT_TOO_SMALL
    assert not big[len(data) - 4 :].any()


def test_larger_out_fills_its_start(pair):
    # numcodecs' Zstd, LZ4 and GZip decode into the start of a larger out
    ours, stock = pair
    data = dict(DATA)["price-column-f8"]
    out = np.zeros(len(data) + 4, np.uint8)
    assert ours.decode(stock.encode(data), out=out) is out
    assert out[: len(data)].tobytes() == data and not out[len(data) :].any()


@pytest.mark.parametrize("delta", [-4, 4])
def test_batch_out_of_the_wrong_size_is_an_error(pair, delta):
    # decode_batch(out=) promises exact sizes (slices of one buffer)
    ours, stock = pair
    data = dict(DATA)["price-column-f8"]
    out = np.zeros(len(data) + delta, np.uint8)
    with pytest.raises(oc.Error) as ei:
        ours.decode_batch([stock.encode(data)], out=[out])
    assert ei.value.status in (oc.Status.SIZE_MISMATCH, oc.Status.OUTPUT_TOO_SMALL)
    assert not out[len(data) :].any()  # nothing written past the chunk's size


def test_batches(pair):
    ours, stock = pair
    datas = [d for _, d in DATA]
    comp = ours.encode_batch(datas)
    assert [bytes(stock.decode(c)) for c in comp] == datas
    theirs = [stock.encode(d) for d in datas]
    assert [bytes(r) for r in ours.decode_batch(theirs)] == datas
    total = np.zeros(sum(len(d) for d in datas), np.uint8)
    offs = np.cumsum([0] + [len(d) for d in datas])
    outs = [total[offs[i] : offs[i + 1]] for i in range(len(datas))]
    assert ours.decode_batch(theirs, out=outs) == outs
    assert total.tobytes() == b"".join(datas)


def test_corrupt_and_truncated_chunks(pair):
    ours, stock = pair
    data = dict(DATA)["ext-sources"]
    comp = bytes(stock.encode(data))
    for bad, allowed in (
        # A cut that lands between LZ4 sequences leaves a valid, shorter
        # block: it decodes to fewer bytes than the header says (SIZE_MISMATCH);
        # where the cut falls depends on the corpus (this repo's _ext/*.c).
        (comp[: len(comp) // 2], {oc.Status.TRUNCATED, oc.Status.CORRUPT, oc.Status.SIZE_MISMATCH}),
        (comp[:3], {oc.Status.TRUNCATED, oc.Status.CORRUPT}),
        (b"\x00" * 64, {oc.Status.CORRUPT, oc.Status.TRUNCATED, oc.Status.SIZE_MISMATCH}),
    ):
        with pytest.raises(oc.Error) as ei:
            ours.decode(bad)
        assert ei.value.status in allowed, (ei.value.status, str(ei.value))
    with pytest.raises(oc.Error) as ei:
        ours.decode_batch([comp, comp[:-7], comp])
    assert ei.value.chunk == 1 and "chunk 1 of 3" in str(ei.value)


@pytest.mark.skipif(oc.cuda_available(), reason="CPU-only check (test_gpu.py checks the GPU answer)")
def test_gpu_kernel_query_without_a_gpu():
    """The extension's _gpu_kernel, which decides whether device chunks stay on
    the GPU: with no CUDA engine no algorithm has GPU kernels either way, and
    an unknown name has no answer."""
    from opencomp import _opencomp
    from opencomp.numcodecs import _batch

    assert _opencomp._gpu_kernel("gzip", False) is False
    assert _opencomp._gpu_kernel("zstd", True) is False
    assert _opencomp._gpu_kernel("no-such-codec", False) is None
    assert _batch._cuda_kernel_check("Gzip", False) is False


def test_lz4_size_prefix_is_checked_before_allocating():
    block = bytes(numcodecs.LZ4().encode(b"abc" * 1000))
    huge = (0xFFFFFFF0).to_bytes(4, "little") + block[4:]
    with pytest.raises(oc.Error) as ei:
        ocn.LZ4().decode(huge)
    assert ei.value.status == oc.Status.CORRUPT and "size prefix" in str(ei.value)
    with pytest.raises(oc.Error) as ei:
        ocn.LZ4().decode(block[:3])
    assert ei.value.status == oc.Status.TRUNCATED
    wrong = (2999).to_bytes(4, "little") + block[4:]
    with pytest.raises(oc.Error) as ei:
        ocn.LZ4().decode(wrong)
    assert ei.value.status in (oc.Status.SIZE_MISMATCH, oc.Status.OUTPUT_TOO_SMALL)


def test_zstd_streams_numcodecs_can_meet():
    """Frames without a content size and several concatenated frames (what
    streaming writers produce) decode, as numcodecs' Zstd decodes them."""
    zstandard = pytest.importorskip("zstandard")
    data = dict(DATA)["price-column-f8"]
    nosize = zstandard.ZstdCompressor(write_content_size=False).compress(data)
    two = zstandard.ZstdCompressor().compress(data[:1000]) + zstandard.ZstdCompressor().compress(data[1000:])
    for stream in (nosize, two):
        assert bytes(numcodecs.Zstd().decode(stream)) == data
        assert bytes(ocn.Zstd().decode(stream)) == data
        out = np.empty(len(data), np.uint8)
        ocn.Zstd().decode(stream, out=out)
        assert out.tobytes() == data


def test_entry_points_and_get_codec():
    eps = {e.name: e.value for e in importlib.metadata.entry_points(group="numcodecs.codecs")}
    for cls in (ocn.Zstd, ocn.LZ4, ocn.Zlib, ocn.GZip):
        assert eps.get(f"opencomp.{cls.codec_id}") == f"opencomp.numcodecs:{cls.__name__}"
    c = numcodecs.get_codec({"id": "opencomp.zstd", "level": 5})
    assert type(c) is ocn.Zstd and c.get_config() == {"id": "zstd", "level": 5, "checksum": False}


def test_register_serves_the_stock_ids_and_zarr_v2_arrays():
    zarr = pytest.importorskip("zarr")
    data = np.arange(10_000, dtype="<i8") // 7
    store = zarr.storage.MemoryStore()
    zarr.create_array(store, shape=data.shape, chunks=(1000,), dtype=data.dtype, zarr_format=2,
                      compressors=numcodecs.Zstd(level=2))[:] = data
    ocn.register()
    try:
        assert type(numcodecs.get_codec({"id": "zstd", "level": 1})) is ocn.Zstd
        assert type(numcodecs.get_codec({"id": "gzip"})) is ocn.GZip
        a = zarr.open_array(store, mode="r")
        assert np.array_equal(a[:], data)
        # written through opencomp's class: same v2 metadata as stock
        s2 = zarr.storage.MemoryStore()
        zarr.create_array(s2, shape=data.shape, chunks=(1000,), dtype=data.dtype, zarr_format=2,
                          compressors=ocn.Zstd(level=2))[:] = data
        assert s2._store_dict[".zarray"].to_bytes() == store._store_dict[".zarray"].to_bytes()
    finally:
        ocn.unregister()
    assert type(numcodecs.get_codec({"id": "zstd"})) is numcodecs.Zstd
    assert np.array_equal(zarr.open_array(s2, mode="r")[:], data)


def test_pickle(pair):
    ours, _stock = pair
    data = dict(DATA)["sorted-ids-i8"]
    comp = ours.encode(data)  # the opencomp.Codec exists now and must not travel
    back = pickle.loads(pickle.dumps(ours))
    assert back.get_config() == ours.get_config()
    assert bytes(back.decode(comp)) == data


def test_empty_buffers(pair):
    """Empty input: same stream as numcodecs writes, and it decodes (numcodecs'
    own Zstd and LZ4 reject their empty streams; opencomp reads them)."""
    ours, stock = pair
    mine = bytes(ours.encode(b""))
    assert bytes(ours.decode(mine)) == b""
    assert bytes(ours.decode(stock.encode(b""))) == b""
    out = np.empty(0, np.uint8)
    assert ours.decode(mine, out=out) is out
    if ours.codec_id in ("zlib", "gzip"):
        assert bytes(stock.decode(mine)) == b""


def test_gzip_several_members():
    import gzip

    data = dict(DATA)["ext-sources"]
    two = gzip.compress(data[:5000]) + gzip.compress(data[5000:])
    assert bytes(numcodecs.GZip().decode(two)) == data
    assert bytes(ocn.GZip().decode(two)) == data
    out = np.empty(len(data), np.uint8)
    ocn.GZip().decode(two, out=out)
    assert out.tobytes() == data
