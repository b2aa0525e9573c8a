"""Stream-ordered decode (issue 16 item 2): a device decode whose sizes are
known (or bounded by out= buffers, whose results then learn their lengths at
the sync point) enqueues on the Codec's stream and returns without synchronising;
its statuses are read at the sync point (a result's cpu(), synchronize(),
host interfaces, Codec.synchronize()), where a failed chunk is raised with
its index and cause, as the synchronous call raised it.

Without a GPU the same deferred path runs on the CPU engine through the
extension's test switch ``_opencomp._defer_host(True)`` (the CPU engine has
finished when the call returns; what is deferred is reading the statuses):
these tests guard that the call does not read them, that the sync point
does, once per batch, and that the inputs stay alive until then.  The GPU
half (real streams, a corrupt chunk on the device, the internal
non-blocking stream) is at the end, marked ``gpu``.  Guards against the old
behaviour: every decode synchronised before returning, on the legacy
default stream."""

import gc
import weakref

import numpy as np
import pytest

import opencomp as oc
from opencomp import _opencomp
from conftest import CORPUS

RAW = oc.BitstreamKind.RAW
DATA = b"".join(d for _, d in CORPUS)[:120_000]
CHUNK = 20_000


@pytest.fixture
def deferred():
    was = _opencomp._defer_host(True)
    yield
    _opencomp._defer_host(was)


def _batch(codec, n=4, corrupt=None):
    chunks = [np.frombuffer(DATA[i * CHUNK:(i + 1) * CHUNK], np.uint8) for i in range(n)]
    comp = [np.array(np.asarray(c), copy=True) for c in codec.encode(chunks)]
    if corrupt is not None:
        comp[corrupt][len(comp[corrupt]) // 3:] = 0xFF
    return chunks, comp


def test_call_returns_before_the_statuses_are_read(deferred):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    chunks, comp = _batch(codec, corrupt=2)
    waits = _opencomp._pending_waits()
    res = codec.decode(comp, uncomp_sizes=[CHUNK] * 4)  # no raise: nothing was read yet
    assert _opencomp._pending_waits() == waits
    assert [r.buffer_size for r in res] == [CHUNK] * 4  # shaped by the promised sizes
    with pytest.raises(oc.Error) as e:
        res[0].cpu()  # any result of the batch: the batch's first failed chunk
    assert e.value.chunk == 2 and e.value.status == oc.Status.CORRUPT
    assert "decode failed for chunk 2 of 4: CORRUPT" in str(e.value)
    assert _opencomp._pending_waits() == waits + 1  # one wait for the batch
    for read in (lambda r: r.synchronize(), bytes, np.asarray, lambda r: r.__dlpack__()):
        with pytest.raises(oc.Error, match="chunk 2 of 4"):  # every read of a failed batch raises
            read(res[3])
    assert _opencomp._pending_waits() == waits + 1


def test_a_good_batch_reads_back_after_one_wait(deferred):
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=RAW)
    chunks, comp = _batch(codec)
    waits = _opencomp._pending_waits()
    res = codec.decode(comp, uncomp_sizes=[CHUNK] * 4)
    assert _opencomp._pending_waits() == waits
    assert res[1].synchronize() is None
    assert _opencomp._pending_waits() == waits + 1
    for r, c in zip(res, chunks):
        assert bytes(r) == c.tobytes()
    assert _opencomp._pending_waits() == waits + 1
    codec.synchronize()  # nothing left to wait for, nothing to raise


def test_codec_synchronize_raises_each_failure_once(deferred):
    codec = oc.Codec(algorithm="Snappy", bitstream_kind=RAW)
    _, good = _batch(codec)
    _, bad = _batch(codec, corrupt=1)
    r1 = codec.decode(good, uncomp_sizes=[CHUNK] * 4)
    r2 = codec.decode(bad, uncomp_sizes=[CHUNK] * 4)
    with pytest.raises(oc.Error) as e:
        codec.synchronize()
    assert e.value.chunk == 1 and e.value.status != oc.Status.OK
    codec.synchronize()  # reported: not again
    assert bytes(r1[0]) == DATA[:CHUNK]
    with pytest.raises(oc.Error):  # its results still say so
        r2[0].cpu()


def test_a_failure_raised_by_a_result_is_not_raised_again_by_the_codec(deferred):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    _, bad = _batch(codec, corrupt=0)
    r = codec.decode(bad, uncomp_sizes=[CHUNK] * 4)
    with pytest.raises(oc.Error):
        r[2].synchronize()
    codec.synchronize()


def test_size_promises_are_checked_at_the_sync_point(deferred):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    _, comp = _batch(codec, n=2)
    res = codec.decode(comp, uncomp_sizes=[CHUNK, CHUNK + 100])  # chunk 1 decodes to fewer bytes
    with pytest.raises(oc.Error) as e:
        res[0].synchronize()
    assert e.value.chunk == 1 and e.value.status == oc.Status.SIZE_MISMATCH
    res = codec.decode(comp, uncomp_sizes=[CHUNK - 1, CHUNK])  # chunk 0 needs more room
    with pytest.raises(oc.Error) as e:
        codec.synchronize()
    assert e.value.chunk == 0 and e.value.status == oc.Status.OUTPUT_TOO_SMALL


def test_one_buffer_batches_raise_at_codec_synchronize(deferred):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    chunks, comp = _batch(codec, corrupt=3)
    soffs = [int(x) for x in np.cumsum([0] + [c.size for c in comp])[:-1]]
    src = np.concatenate(comp)
    out = np.zeros(4 * CHUNK, np.uint8)
    got = codec.decode(src, out=out, src_offsets=soffs, src_sizes=[c.size for c in comp],
                       out_offsets=[i * CHUNK for i in range(4)], uncomp_sizes=[CHUNK] * 4)
    assert got is out
    with pytest.raises(oc.Error) as e:
        codec.synchronize()
    assert e.value.chunk == 3 and "chunk 3 of 4" in str(e.value)
    assert out[:CHUNK].tobytes() == DATA[:CHUNK]


def test_out_buffers_take_the_deferred_path_with_sizes(deferred):
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=RAW)
    chunks, comp = _batch(codec)
    total = np.zeros(4 * CHUNK, np.uint8)
    outs = [total[i * CHUNK:(i + 1) * CHUNK] for i in range(4)]
    waits = _opencomp._pending_waits()
    res = codec.decode(comp, out=outs, uncomp_sizes=[CHUNK] * 4)
    assert _opencomp._pending_waits() == waits
    assert [r.ptr for r in res] == [o.ctypes.data for o in outs]  # still the caller's memory
    codec.synchronize()
    assert total.tobytes() == DATA[:4 * CHUNK]


def test_out_buffers_without_sizes_take_the_deferred_path(deferred):
    """out= without uncomp_sizes=: the capacities bound the chunks, so the call
    enqueues and returns; each result is the caller's memory, and its length
    (the decoded size, which may be less than out's) is known when the batch
    is read: whatever tells it waits for the batch, once."""
    codec = oc.Codec(algorithm="Zstd", bitstream_kind=RAW)
    chunks, comp = _batch(codec)
    outs = [np.zeros(CHUNK + 100 * i, np.uint8) for i in range(4)]  # room to spare, but for chunk 0
    waits = _opencomp._pending_waits()
    res = codec.decode(comp, out=outs)
    assert _opencomp._pending_waits() == waits  # nothing was read
    assert [r.ptr for r in res] == [o.ctypes.data for o in outs]  # no wait for the address
    assert "?" in repr(res[1])  # nor for repr
    assert res[2].buffer_size == CHUNK  # the decoded size, not out[2]'s CHUNK + 200
    assert _opencomp._pending_waits() == waits + 1
    assert [r.shape for r in res] == [(CHUNK,)] * 4
    assert [bytes(r) for r in res] == [c.tobytes() for c in chunks]
    assert np.asarray(res[3]).size == CHUNK and res[3].__array_interface__["shape"] == (CHUNK,)
    assert _opencomp._pending_waits() == waits + 1
    # typed outputs: the length in items of out's type
    words = [np.zeros(CHUNK // 4 + 7, "<u4") for _ in range(4)]
    res = codec.decode(comp, out=words)
    assert res[0].size == CHUNK // 4 and res[0].dtype == np.dtype("<u4")
    assert np.array_equal(np.asarray(res[1]), np.frombuffer(chunks[1], "<u4"))
    # a result passed to another call: its length, once its batch is read
    res = codec.decode(comp, out=outs)
    again = codec.encode([res[1]])
    assert bytes(codec.decode(again, uncomp_sizes=[CHUNK])[0]) == chunks[1].tobytes()
    codec.synchronize()


def test_out_buffers_without_sizes_raise_at_the_sync_point(deferred):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    chunks, bad = _batch(codec, corrupt=1)
    outs = [np.zeros(CHUNK, np.uint8) for _ in range(4)]
    res = codec.decode(bad, out=outs)  # no raise: nothing was read yet
    with pytest.raises(oc.Error) as e:
        res[0].shape  # the length needs the batch: its first failed chunk
    assert e.value.chunk == 1 and "decode failed for chunk 1 of 4" in str(e.value)
    with pytest.raises(oc.Error, match="chunk 1 of 4"):
        res[2].buffer_size
    assert outs[0].tobytes() == chunks[0].tobytes()
    # out one byte short: OUTPUT_TOO_SMALL at the sync point, naming out's room
    _, good = _batch(codec)
    outs[3] = np.zeros(CHUNK - 1, np.uint8)
    codec.decode(good, out=outs)
    with pytest.raises(oc.Error) as e:
        codec.synchronize()
    assert e.value.chunk == 3 and e.value.status == oc.Status.OUTPUT_TOO_SMALL
    assert f"out[3] holds {CHUNK - 1} bytes" in str(e.value)
    # one array, not a list
    one = codec.decode(good[2], out=np.zeros(CHUNK + 1, np.uint8))
    assert one.buffer_size == CHUNK and bytes(one) == chunks[2].tobytes()


def test_inputs_live_until_the_batch_is_read(deferred):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    _, comp = _batch(codec, n=2)
    refs = [weakref.ref(c) for c in comp]
    res = codec.decode(comp, uncomp_sizes=[CHUNK] * 2)
    del comp
    gc.collect()
    assert all(r() is not None for r in refs), "the stream may still read them"
    res[0].synchronize()
    gc.collect()
    assert all(r() is None for r in refs)
    assert bytes(res[1]) == DATA[CHUNK:2 * CHUNK]


def test_dropping_an_unread_batch_waits_for_it(deferred):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    _, comp = _batch(codec, n=2)
    waits = _opencomp._pending_waits()
    res = codec.decode(comp, uncomp_sizes=[CHUNK] * 2)
    del res
    codec.synchronize()  # the codec held the batch: read here
    assert _opencomp._pending_waits() == waits + 1
    res = codec.decode(comp, uncomp_sizes=[CHUNK] * 2)
    del res, codec  # nobody reads it: freed after its stream is waited for
    gc.collect()
    assert _opencomp._pending_waits() == waits + 2


def test_unread_batches_are_bounded_without_waiting_for_the_new_one(deferred):
    # 32 unread batches in flight at most: the 33rd call waits once, before
    # its own batch is enqueued, and that wait settles all 32 (same stream),
    # so the next calls do not wait again.  (Before: past 32, every call
    # waited for one batch after enqueuing its own, which on a GPU made each
    # call wait for its own decode.)
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    _, comp = _batch(codec, n=2, corrupt=1)
    src = np.concatenate(comp)
    args = dict(src_offsets=[0, comp[0].size], src_sizes=[c.size for c in comp], out_offsets=[0, CHUNK],
                uncomp_sizes=[CHUNK] * 2)
    out = np.zeros(2 * CHUNK, np.uint8)
    waits = _opencomp._pending_waits()
    for _ in range(32):
        codec.decode(src, out=out, **args)
    assert _opencomp._pending_waits() == waits
    for _ in range(8):
        codec.decode(src, out=out, **args)
    assert _opencomp._pending_waits() == waits + 1  # one wait, at the 33rd call
    with pytest.raises(oc.Error) as e:  # the settled batches' failure is still raised, once per batch
        codec.synchronize()
    assert e.value.chunk == 1
    assert out[:CHUNK].tobytes() == DATA[:CHUNK]


def test_calls_that_must_synchronise_still_raise_in_the_call(deferred):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    _, bad = _batch(codec, corrupt=1)
    waits = _opencomp._pending_waits()
    # sizes unknown: a size query reads them; errors='status' returns statuses
    with pytest.raises(oc.Error, match="chunk 1 of 4"):
        codec.decode(bad)
    res, st = codec.decode(bad, uncomp_sizes=[CHUNK] * 4, errors="status")
    assert st[1] != oc.Status.OK and res[1] is None
    # NVCOMP_NATIVE containers: oc_buffer_decompress synchronises
    native = oc.Codec(algorithm="LZ4")
    comp = np.array(np.asarray(native.encode(DATA[:CHUNK])), copy=True)
    comp[len(comp) // 2:] = 0xFF
    with pytest.raises(oc.Error):
        native.decode(comp, uncomp_sizes=CHUNK)
    assert _opencomp._pending_waits() == waits


def test_host_calls_stay_synchronous_without_the_switch():
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    _, bad = _batch(codec, corrupt=2)
    waits = _opencomp._pending_waits()
    with pytest.raises(oc.Error, match="chunk 2 of 4"):
        codec.decode(bad, uncomp_sizes=[CHUNK] * 4)
    assert _opencomp._pending_waits() == waits


def test_codec_without_a_stream_reports_none_given():
    assert oc.Codec(algorithm="LZ4").cuda_stream == 0


# ---- on a GPU --------------------------------------------------------------

GPU_LZ4 = "LZ4" in oc.algorithms("cuda")


@pytest.fixture
def cp():
    return pytest.importorskip("cupy")


def _device_batch(cp, codec, n=6, corrupt=None, stream=None):
    chunks, comp = _batch(codec, n=n, corrupt=corrupt)
    if stream is None:
        return chunks, [cp.asarray(c) for c in comp]
    with stream:
        return chunks, [cp.asarray(c) for c in comp]


@pytest.mark.gpu
def test_internal_stream_is_per_device_and_not_the_legacy_one():
    s = _opencomp._internal_stream(0)
    assert s not in (0, 1, 2)
    assert _opencomp._internal_stream(0) == s  # made once


@pytest.mark.gpu
@pytest.mark.skipif(not GPU_LZ4, reason="no GPU LZ4")
def test_internal_stream_does_not_wait_for_the_legacy_stream(cp):
    """Non-blocking: a decode on the internal stream finishes while a kernel
    still spins on the legacy default stream (a blocking stream would wait
    for it)."""
    import time

    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    side = cp.cuda.Stream(non_blocking=True)
    chunks, comp = _device_batch(cp, codec, stream=side)
    with side:
        out = cp.zeros(len(chunks) * CHUNK, cp.uint8)
        outs = [out[i * CHUNK:(i + 1) * CHUNK] for i in range(len(chunks))]
    with side:  # the inputs' producer: CuPy names its current stream in CAI v3
        codec.decode(comp, out=outs, uncomp_sizes=[CHUNK] * len(chunks))  # warm: scratch, pinned slots
    codec.synchronize()
    side.synchronize()
    spin = cp.RawKernel(r'''extern "C" __global__ void spin(long long cycles)
        { long long t0 = clock64(); while (clock64() - t0 < cycles) { } }''', "spin")
    with cp.cuda.Stream.null:
        spin((1,), (1,), (np.int64(3_000_000_000),))  # about 1.5 s at 2 GHz
    t0 = time.perf_counter()
    # CuPy names its current stream as the arrays' producer (CAI v3): on the
    # legacy stream the decode would rightly wait for the spin; on `side` it
    # waits for nothing that is still running
    with side:
        res = codec.decode(comp, out=outs, uncomp_sizes=[CHUNK] * len(chunks))
    codec.synchronize()
    took = time.perf_counter() - t0
    cp.cuda.Stream.null.synchronize()
    assert took < 0.5, f"the decode waited {took:.2f} s for the legacy stream"
    assert cp.asnumpy(out).tobytes() == DATA[:len(chunks) * CHUNK]
    assert len(res) == len(chunks)


@pytest.mark.gpu
@pytest.mark.skipif(not GPU_LZ4, reason="no GPU LZ4")
@pytest.mark.parametrize("on_user_stream", [False, True])
def test_device_decode_is_stream_ordered(cp, on_user_stream):
    s = cp.cuda.Stream(non_blocking=True)
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW, **({"cuda_stream": s} if on_user_stream else {}))
    chunks, comp = _device_batch(cp, codec, stream=s)
    waits = _opencomp._pending_waits()
    # CuPy's CAI v3 names its *current* stream, not the one that produced an
    # array: the producer s must be current, and the decode waits for it by event
    with s:
        res = codec.decode(comp, uncomp_sizes=[CHUNK] * len(chunks))
    assert _opencomp._pending_waits() == waits, "the call read its statuses: it synchronised"
    stream = res[0].__cuda_array_interface__["stream"]
    assert stream == (s.ptr if on_user_stream else _opencomp._internal_stream(0))
    back = [cp.asarray(r) for r in res]  # CuPy waits for the exported stream
    for b, c in zip(back, chunks):
        assert cp.asnumpy(b).tobytes() == c.tobytes()
    codec.synchronize()
    assert res[0].__cuda_array_interface__["stream"] is None  # read: nothing pending


@pytest.mark.gpu
@pytest.mark.skipif(not GPU_LZ4, reason="no GPU LZ4")
def test_corrupt_device_chunk_raises_at_the_sync_point(cp):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    chunks, comp = _device_batch(cp, codec, corrupt=4)
    res = codec.decode(comp, uncomp_sizes=[CHUNK] * len(chunks))  # returns: nothing read yet
    with pytest.raises(oc.Error) as e:
        res[0].cpu()
    assert e.value.chunk == 4 and e.value.status != oc.Status.OK
    assert "chunk 4 of 6" in str(e.value)
    codec.synchronize()  # already raised by a result
    # the one-buffer form: raised by Codec.synchronize()
    src = cp.concatenate(comp)
    soffs = [int(x) for x in np.cumsum([0] + [c.size for c in comp])[:-1]]
    out = cp.zeros(len(chunks) * CHUNK, cp.uint8)
    assert codec.decode(src, out=out, src_offsets=soffs, src_sizes=[int(c.size) for c in comp],
                        out_offsets=[i * CHUNK for i in range(len(chunks))],
                        uncomp_sizes=[CHUNK] * len(chunks)) is out
    with pytest.raises(oc.Error) as e:
        codec.synchronize()
    assert e.value.chunk == 4
    assert cp.asnumpy(out[:CHUNK]).tobytes() == DATA[:CHUNK]


@pytest.mark.gpu
@pytest.mark.skipif(not GPU_LZ4, reason="no GPU LZ4")
def test_device_out_without_sizes_is_stream_ordered(cp):
    """Device out= buffers without uncomp_sizes=: the call returns without
    reading a status; the results (the caller's memory) get their decoded
    lengths at the sync point, and a corrupt chunk is raised there."""
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    chunks, comp = _device_batch(cp, codec)
    n, room = len(chunks), CHUNK + 64
    total = cp.zeros(n * room, cp.uint8)
    outs = [total[i * room:(i + 1) * room] for i in range(n)]
    waits = _opencomp._pending_waits()
    res = codec.decode(comp, out=outs)
    assert _opencomp._pending_waits() == waits, "the call read its statuses: it synchronised"
    assert [r.ptr for r in res] == [o.data.ptr for o in outs]
    codec.synchronize()
    assert _opencomp._pending_waits() == waits + 1
    assert [r.buffer_size for r in res] == [CHUNK] * n
    cai = res[0].__cuda_array_interface__
    assert cai["shape"] == (CHUNK,) and cai["stream"] is None
    for o, c in zip(outs, chunks):
        assert cp.asnumpy(o[:CHUNK]).tobytes() == c.tobytes()
    _, bad = _device_batch(cp, codec, corrupt=4)
    res = codec.decode(bad, out=outs)  # returns: nothing read yet
    with pytest.raises(oc.Error) as e:
        res[1].__cuda_array_interface__  # its shape needs the batch: waits, raises the failure
    assert e.value.chunk == 4 and "chunk 4 of 6" in str(e.value)
    codec.synchronize()  # already raised by a result
    # out= buffers that name no stream (as torch's CAI v2): their owner's reads
    # cannot be ordered after the decode, so the call synchronises and raises

    class NoStream:
        def __init__(self, a):
            self._a = a
            cai = dict(a.__cuda_array_interface__)
            cai.pop("stream", None)
            cai["version"] = 2
            self.__cuda_array_interface__ = cai

    with pytest.raises(oc.Error, match="chunk 4 of 6"):
        codec.decode(bad, out=[NoStream(o) for o in outs])
    with pytest.raises(oc.Error, match="chunk 4 of 6"):  # sizes known or not
        codec.decode(bad, out=[NoStream(o[:CHUNK]) for o in outs], uncomp_sizes=[CHUNK] * n)
    res = codec.decode(comp, out=[NoStream(o) for o in outs])
    assert _opencomp._pending_waits() == waits + 2  # one for the CAI read above; none here
    assert [r.buffer_size for r in res] == [CHUNK] * n


@pytest.mark.gpu
@pytest.mark.skipif(not GPU_LZ4, reason="no GPU LZ4")
def test_dlpack_consumer_stream_is_ordered_after_the_decode(cp):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=RAW)
    chunks, comp = _device_batch(cp, codec)
    res = codec.decode(comp, uncomp_sizes=[CHUNK] * len(chunks))
    consumer = cp.cuda.Stream(non_blocking=True)
    with consumer:
        got = cp.from_dlpack(res[2])  # consumer waits on an event of the decode's stream
        total = int(got.astype(cp.int64).sum())
    consumer.synchronize()
    assert total == int(np.frombuffer(chunks[2], np.uint8).astype(np.int64).sum())
    codec.synchronize()
