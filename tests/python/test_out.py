"""decode(out=...) and encode(out=...): chunks go straight into caller
memory (slices of one buffer, typed or not), capacity checked in bytes, no
size query when sizes are known, results are views of the outputs (same
addresses: no intermediate array, no copy)."""

import numpy as np
import pytest

import opencomp as oc
from conftest import ALGORITHMS, CORPUS, KINDS

PAGES = [d for name, d in CORPUS if name not in ("empty", "one-byte")]


def addr(x):
    return np.asarray(x).__array_interface__["data"][0]


def slices(sizes, dtype=np.uint8, extra=0):
    total = sum(sizes) + extra
    buf = np.full(total, 0xEE, dtype=np.uint8)
    offs = np.cumsum([0] + list(sizes))
    outs = [buf[offs[i] : offs[i + 1]] for i in range(len(sizes))]
    return buf, outs


@pytest.mark.parametrize("alg", ALGORITHMS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_decode_into_slices_of_one_buffer(alg, kind):
    codec = oc.Codec(algorithm=alg, bitstream_kind=kind)
    comp = codec.encode(PAGES)
    sizes = [len(p) for p in PAGES]
    buf, outs = slices(sizes)
    before = oc._opencomp._size_queries()
    res = codec.decode(comp, out=outs, uncomp_sizes=sizes)
    assert oc._opencomp._size_queries() == before, "sizes were given: no size query may run"
    assert buf.tobytes() == b"".join(PAGES)
    for r, o, p in zip(res, outs, PAGES):
        assert r.ptr == addr(o) == addr(r)  # the result *is* the caller's memory
        assert r.buffer_size == len(p)
    # without uncomp_sizes the outputs' capacities are enough: still no query
    buf2, outs2 = slices(sizes)
    codec.decode(comp, out=outs2)
    assert oc._opencomp._size_queries() == before
    assert buf2.tobytes() == buf.tobytes()


def test_decode_without_sizes_runs_one_query():
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    comp = codec.encode(PAGES)
    before = oc._opencomp._size_queries()
    codec.decode(comp)
    assert oc._opencomp._size_queries() == before + 1


def test_decode_into_typed_slices():
    cols = [np.arange(1000 * (i + 1), dtype=np.float64) * 0.5 for i in range(4)]
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=oc.BitstreamKind.RAW)
    comp = codec.encode(cols)
    total = np.empty(sum(c.size for c in cols), dtype=np.float64)
    offs = np.cumsum([0] + [c.size for c in cols])
    outs = [total[offs[i] : offs[i + 1]] for i in range(len(cols))]
    res = codec.decode(comp, out=outs, uncomp_sizes=[c.nbytes for c in cols])
    np.testing.assert_array_equal(total, np.concatenate(cols))
    assert all(r.dtype == np.float64 for r in res)  # typed like the outputs
    assert [r.ptr for r in res] == [addr(o) for o in outs]
    # an explicit data_type wins over the outputs' type
    res = codec.decode(comp, out=outs, data_type="|u1")
    assert res[0].dtype == np.uint8 and res[0].size == cols[0].nbytes


def test_decode_into_larger_outputs_returns_the_decoded_part():
    codec = oc.Codec(algorithm="Snappy", bitstream_kind=oc.BitstreamKind.RAW)
    comp = codec.encode(PAGES)
    buf, outs = slices([len(p) + 100 for p in PAGES])
    res = codec.decode(comp, out=outs)
    for r, o, p in zip(res, outs, PAGES):
        assert r.buffer_size == len(p) and bytes(r) == p and r.ptr == addr(o)
        assert (o[len(p) :] == 0xEE).all()  # nothing written past the stream


def test_decode_into_bytearray_and_memoryview():
    codec = oc.Codec(algorithm="Gzip")
    data = PAGES[0]
    comp = codec.encode(data)
    ba = bytearray(len(data))
    codec.decode(comp, out=ba)
    assert bytes(ba) == data
    big = bytearray(len(data) * 2)
    codec.decode(comp, out=memoryview(big)[len(data) :])
    assert bytes(big[len(data) :]) == data


def test_single_decode_into_out():
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=oc.BitstreamKind.RAW)
    data = PAGES[1]
    out = np.empty(len(data), np.uint8)
    r = codec.decode(codec.encode(data), out=out)
    assert r.ptr == addr(out) and out.tobytes() == data


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_out_too_small_is_reported_and_never_overrun(kind):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=kind)
    data = PAGES[0]
    comp = codec.encode(data)
    guard = np.full(len(data) + 64, 0x5A, dtype=np.uint8)
    out = guard[: len(data) - 1]
    with pytest.raises(oc.Error, match="OUTPUT_TOO_SMALL") as ei:
        codec.decode(comp, out=out)
    assert ei.value.status == oc.Status.OUTPUT_TOO_SMALL
    assert (guard[len(data) - 1 :] == 0x5A).all()
    with pytest.raises(oc.Error, match="chunk 1"):
        codec.decode([comp, comp], out=[np.empty(len(data), np.uint8), out])


def test_uncomp_sizes_larger_than_out():
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=oc.BitstreamKind.RAW)
    comp = codec.encode(PAGES[0])
    with pytest.raises(oc.Error, match="OUTPUT_TOO_SMALL"):
        codec.decode(comp, out=np.empty(10, np.uint8), uncomp_sizes=len(PAGES[0]))


def test_wrong_uncomp_sizes_is_a_size_mismatch():
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=oc.BitstreamKind.RAW)
    comp = codec.encode(PAGES[0])
    n = len(PAGES[0])
    with pytest.raises(oc.Error) as ei:
        codec.decode(comp, out=np.empty(n + 10, np.uint8), uncomp_sizes=n + 10)
    assert ei.value.status == oc.Status.SIZE_MISMATCH


@pytest.mark.parametrize("alg", ALGORITHMS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_encode_into_out(alg, kind):
    codec = oc.Codec(algorithm=alg, bitstream_kind=kind)
    ref = codec.encode(PAGES)
    caps = [r.buffer_size + 64 for r in ref]
    buf, outs = slices(caps)
    res = codec.encode(PAGES, out=outs)
    assert [r.ptr for r in res] == [addr(o) for o in outs]
    assert [bytes(x) for x in codec.decode(res)] == PAGES


def test_encode_out_too_small():
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=oc.BitstreamKind.RAW)
    with pytest.raises(oc.Error, match="OUTPUT_TOO_SMALL"):
        codec.encode(PAGES[0], out=np.empty(8, np.uint8))
    res, st = codec.encode([PAGES[0], PAGES[1]], out=[np.empty(8, np.uint8), np.empty(len(PAGES[1]) + 1000, np.uint8)],
                           errors="status")
    assert st == [oc.Status.OUTPUT_TOO_SMALL, oc.Status.OK] and res[0] is None
    assert bytes(codec.decode(res[1])) == PAGES[1]


def test_out_must_match_srcs():
    codec = oc.Codec(algorithm="LZ4")
    comp = codec.encode(PAGES[:2])
    with pytest.raises(ValueError, match="out must match"):
        codec.decode(comp, out=[np.empty(10, np.uint8)])
    with pytest.raises(ValueError, match="out must match"):
        codec.decode(comp, out=np.empty(10, np.uint8))


def test_out_read_only_rejected():
    codec = oc.Codec(algorithm="LZ4")
    comp = codec.encode(PAGES[0])
    ro = np.empty(len(PAGES[0]), np.uint8)
    ro.flags.writeable = False
    for bad in (bytes(len(PAGES[0])), ro):
        with pytest.raises(TypeError, match="writable"):
            codec.decode(comp, out=bad)


def test_out_non_contiguous_rejected():
    codec = oc.Codec(algorithm="LZ4")
    comp = codec.encode(PAGES[0])
    strided = np.empty(2 * len(PAGES[0]), np.uint8)[::2]
    with pytest.raises(ValueError, match="C-contiguous"):
        codec.decode(comp, out=strided)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_batch_results_share_one_compact_block(kind):
    """Without out=, a batch's results are views of one allocation: encode
    results are packed (bounds given back), each result outlives the others."""
    import gc

    codec = oc.Codec(algorithm="Zstd", bitstream_kind=kind)
    comp = codec.encode(PAGES)
    ptrs = [c.ptr for c in comp]
    span = ptrs[-1] + comp[-1].buffer_size - ptrs[0]
    assert ptrs == sorted(ptrs)
    assert span <= sum(c.buffer_size for c in comp) + 16 * len(comp)
    res = codec.decode(comp)
    last, first = res[-1], bytes(comp[0])
    del res, comp
    gc.collect()
    assert bytes(last) == PAGES[-1]
    assert bytes(codec.decode(first)) == PAGES[0]
