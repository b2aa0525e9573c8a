"""Codec.decode(one buffer, src_offsets=, src_sizes=, out=one buffer,
out_offsets=, uncomp_sizes=): the batch fast path without per-chunk Python
objects (issue 16).  Real round trips into the caller's buffer, gaps left
untouched, and exact errors on bad offsets, sizes and corrupt chunks."""
import numpy as np
import pytest

import opencomp as oc
from conftest import ALGORITHMS, CORPUS

POISON = 0xEE
DATA = b"".join(d for _, d in CORPUS)[:200_000]


def _chunks(data, n, size):
    return [np.frombuffer(data[i * size:(i + 1) * size], np.uint8) for i in range(n)
            if data[i * size:(i + 1) * size]]


def _packed(codec, chunks):
    comp = [np.asarray(a).view(np.uint8).reshape(-1) for a in codec.encode(chunks)]
    # one source buffer with 3-byte gaps between chunks
    soffs, pos = [], 0
    for c in comp:
        soffs.append(pos)
        pos += c.nbytes + 3
    src = np.zeros(pos, np.uint8)
    for o, c in zip(soffs, comp):
        src[o:o + c.nbytes] = c
    return src, soffs, [c.nbytes for c in comp]


@pytest.mark.parametrize("alg", ALGORITHMS)
def test_packed_round_trip_into_one_buffer(alg):
    data = DATA
    assert len(data) > 12 * 16_384
    chunks = _chunks(data, 13, 16_384)
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    src, soffs, ssizes = _packed(codec, chunks)
    usizes = [c.nbytes for c in chunks]
    ooffs, pos = [], 0
    for s in usizes:
        ooffs.append(pos)
        pos += s + 5
    out = np.full(pos, POISON, np.uint8)
    got = codec.decode(src, out=out, src_offsets=soffs, src_sizes=ssizes, out_offsets=ooffs, uncomp_sizes=usizes)
    assert got is out
    for o, c in zip(ooffs, chunks):
        assert bytes(out[o:o + c.nbytes]) == c.tobytes()
        assert bytes(out[o + c.nbytes:o + c.nbytes + 5]) == bytes([POISON]) * 5


def test_packed_status_mode_names_the_corrupt_chunk():
    data = DATA[:65_536]
    assert len(data) == 65_536
    chunks = _chunks(data, 4, 16_384)
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    src, soffs, ssizes = _packed(codec, chunks)
    src[soffs[2]:soffs[2] + ssizes[2]] = 0xFF  # chunk 2: garbage
    usizes = [c.nbytes for c in chunks]
    ooffs = [i * 16_384 for i in range(4)]
    out = np.zeros(4 * 16_384, np.uint8)
    kw = dict(out=out, src_offsets=soffs, src_sizes=ssizes, out_offsets=ooffs, uncomp_sizes=usizes)
    got, st = codec.decode(src, errors="status", **kw)
    assert got is out
    assert [s == oc.Status.OK for s in st] == [True, True, False, True]
    assert bytes(out[3 * 16_384:]) == chunks[3].tobytes()
    with pytest.raises(oc.Error, match=r"^decode failed for chunk 2 of 4: "):
        codec.decode(src, **kw)


def test_packed_bad_arguments_are_named():
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    src, soffs, ssizes = _packed(codec, [np.arange(100, dtype=np.uint8)])
    out = np.zeros(100, np.uint8)
    ok = dict(out=out, src_offsets=soffs, src_sizes=ssizes, out_offsets=[0], uncomp_sizes=[100])
    with pytest.raises(ValueError, match=r"^chunk 0: src_offsets\[0\] \+ src_sizes\[0\] = 0 \+ %d is past the end "
                       r"of srcs \(%d bytes\)$" % (src.nbytes + 1, src.nbytes)):
        codec.decode(src, **{**ok, "src_sizes": [src.nbytes + 1]})
    with pytest.raises(ValueError, match=r"^chunk 0: out_offsets\[0\] \+ uncomp_sizes\[0\] = 1 \+ 100 is past the "
                       r"end of out \(100 bytes\)$"):
        codec.decode(src, **{**ok, "out_offsets": [1]})
    with pytest.raises(ValueError, match=r"^src_sizes has 2 entries for 1 chunks$"):
        codec.decode(src, **{**ok, "src_sizes": [1, 2]})
    with pytest.raises(ValueError, match=r"^out_offsets\[0\] must be a non-negative int$"):
        codec.decode(src, **{**ok, "out_offsets": [-1]})
    with pytest.raises(ValueError, match=r"^src_offsets= needs src_sizes=, out= \(one buffer\), out_offsets= and "
                       r"uncomp_sizes=$"):
        codec.decode(src, src_offsets=soffs, src_sizes=ssizes, out_offsets=[0], uncomp_sizes=[100])
    with pytest.raises(ValueError, match=r"^src_sizes= and out_offsets= go with src_offsets=$"):
        codec.decode(src, src_sizes=ssizes)
    with pytest.raises(ValueError, match=r"^src_offsets= decodes RAW chunks"):
        oc.Codec(algorithm="LZ4").decode(src, **ok)


@pytest.mark.parametrize("itype", [np.int64, np.uint64])
def test_packed_offsets_as_numpy_arrays(itype):
    """8-byte integer arrays are taken whole (no per-element conversion):
    the same bytes as with lists, and the same named errors."""
    chunks = _chunks(DATA, 5, 16_384)
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    src, soffs, ssizes = _packed(codec, chunks)
    usizes = np.array([c.nbytes for c in chunks], itype)
    ooffs = np.arange(len(chunks), dtype=itype) * 16_384
    out = np.full(len(chunks) * 16_384, POISON, np.uint8)
    got = codec.decode(src, out=out, src_offsets=np.array(soffs, itype), src_sizes=np.array(ssizes, itype),
                       out_offsets=ooffs, uncomp_sizes=usizes)
    assert got is out
    assert bytes(out) == b"".join(c.tobytes() for c in chunks)
    ok = dict(out=out, src_sizes=np.array(ssizes, itype), out_offsets=ooffs, uncomp_sizes=usizes)
    with pytest.raises(ValueError, match=r"^src_sizes has 5 entries for 4 chunks$"):
        codec.decode(src, src_offsets=np.array(soffs[:4], itype), **ok)
    if itype is np.int64:
        bad = np.array(soffs, itype)
        bad[3] = -2
        with pytest.raises(ValueError, match=r"^src_offsets\[3\] must be a non-negative int$"):
            codec.decode(src, src_offsets=bad, **ok)
    # other integer widths go through the sequence path and still work
    got = codec.decode(src, out=out, src_offsets=np.array(soffs, np.int32), src_sizes=ssizes,
                       out_offsets=ooffs.astype(np.uint32), uncomp_sizes=usizes)
    assert bytes(got) == b"".join(c.tobytes() for c in chunks)


# ---- Codec.encode(one buffer, src_offsets=, src_sizes=, out=one buffer, out_offsets=[, out_sizes=]) ----------


def _packed_encode(codec, data, n, size, xp=np):
    """n chunks of `size` from data, 7-byte gaps between them in the source, each
    compressed into its slot of one output buffer (slots spaced by the bound)."""
    src = xp.full(n * (size + 7), POISON, dtype=xp.uint8)
    soffs = [i * (size + 7) for i in range(n)]
    host = np.frombuffer(data[:n * size], np.uint8).reshape(n, size)
    for i, o in enumerate(soffs):
        src[o:o + size] = xp.asarray(host[i])
    bound = 2 * size + 1024  # above every RAW bound of these codecs
    ooffs = [i * (bound + 3) for i in range(n)]
    out = xp.full(n * (bound + 3), POISON, dtype=xp.uint8)
    sizes = codec.encode(src, src_offsets=soffs, src_sizes=[size] * n, out=out, out_offsets=ooffs)
    return src, soffs, out, ooffs, sizes, host


@pytest.mark.parametrize("alg", ["LZ4", "Snappy", "Deflate", "Zlib", "Gzip", "Zstd"])
def test_packed_encode_round_trip(alg):
    """The packed encode writes each chunk's stream into its slot (the bytes
    after it untouched), returns the compressed sizes, and its streams are the
    list call's and decode back to the input."""
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    src, soffs, out, ooffs, sizes, host = _packed_encode(codec, DATA, 11, 16_384)
    assert isinstance(sizes, list) and len(sizes) == 11 and all(0 < s for s in sizes)
    ref = codec.encode([host[i] for i in range(11)])
    assert sizes == [int(a.buffer_size) for a in ref]
    room = ooffs[1] - 3  # each slot's room; the 3 bytes after it are past every chunk's capacity
    for o, s, r in zip(ooffs, sizes, ref):
        assert bytes(out[o:o + s]) == bytes(np.asarray(r).view(np.uint8))
        assert bytes(out[o + room:o + room + 3]) == bytes([POISON]) * 3
    dec = np.zeros(11 * 16_384, np.uint8)
    codec.decode(out, src_offsets=ooffs, src_sizes=sizes, out=dec, out_offsets=[i * 16_384 for i in range(11)],
                 uncomp_sizes=[16_384] * 11)
    assert bytes(dec) == DATA[:11 * 16_384]


def test_packed_encode_statuses_and_errors():
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    data = np.frombuffer(DATA[:8192], np.uint8)
    big = np.zeros(10_000, np.uint8)
    # chunk 1 given 20 bytes of room: too small for 4 KiB of corpus, the other chunk still written
    kw = dict(src_offsets=[0, 4096], src_sizes=[4096, 4096], out=big, out_offsets=[0, 9000], out_sizes=[9000, 20])
    sizes, st = codec.encode(data, errors="status", **kw)
    assert st == [oc.Status.OK, oc.Status.OUTPUT_TOO_SMALL] and sizes[0] > 0 and sizes[1] == 0
    assert bytes(codec.decode(big[:sizes[0]], uncomp_sizes=4096)) == DATA[:4096]
    with pytest.raises(oc.Error, match=r"^encode failed for chunk 1 of 2: OUTPUT_TOO_SMALL"):
        codec.encode(data, **kw)
    out = np.zeros(1000, np.uint8)
    with pytest.raises(ValueError, match=r"^chunk 0: out_offsets\[0\] \+ out_sizes\[0\] = 995 \+ 26 is past the end "
                       r"of out \(1000 bytes\)$"):
        codec.encode(data, src_offsets=[0], src_sizes=[10], out=out, out_offsets=[995])
    with pytest.raises(ValueError, match=r"^src_offsets= needs src_sizes=, out= \(one buffer\) and out_offsets=$"):
        codec.encode(data, src_offsets=[0], src_sizes=[10], out_offsets=[0])
    with pytest.raises(ValueError, match=r"^src_sizes=, out_offsets=, out_sizes= and comp_sizes= go with src_offsets=$"):
        codec.encode(data, src_sizes=[10])
    with pytest.raises(ValueError, match=r"^comp_sizes= goes with offset arrays in device memory"):
        codec.encode(data, comp_sizes=np.zeros(2, np.int64), **kw)
    with pytest.raises(ValueError, match=r"^src_offsets= encodes RAW chunks"):
        oc.Codec(algorithm="LZ4").encode(data, src_offsets=[0], src_sizes=[10], out=out, out_offsets=[0])


@pytest.mark.gpu
@pytest.mark.parametrize("alg", ["LZ4", "Snappy", "Zstd", "Deflate"])
def test_packed_encode_on_the_device(cp, alg):
    """The same call on CuPy buffers runs on the GPU: its streams decode back,
    by the packed decode on the device and by the CPU engine."""
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    src, soffs, out, ooffs, sizes, host = _packed_encode(codec, DATA, 9, 16_384, xp=cp)
    dec = cp.zeros(9 * 16_384, dtype=cp.uint8)
    codec.decode(out, src_offsets=ooffs, src_sizes=sizes, out=dec, out_offsets=[i * 16_384 for i in range(9)],
                 uncomp_sizes=[16_384] * 9)
    assert bytes(cp.asnumpy(dec)) == DATA[:9 * 16_384]
    hout = cp.asnumpy(out)
    hdec = np.zeros(9 * 16_384, np.uint8)
    codec.decode(hout, src_offsets=ooffs, src_sizes=sizes, out=hdec, out_offsets=[i * 16_384 for i in range(9)],
                 uncomp_sizes=[16_384] * 9)
    assert bytes(hdec) == DATA[:9 * 16_384]


def test_packed_calls_reuse_their_block_safely():
    """The packed calls' per-chunk arrays live in a block the Codec keeps
    between calls (grown when a call has more chunks; a call that finds it
    taken by another thread uses a block of its own): calls of growing and
    shrinking chunk counts, and eight threads on one Codec at once, each get
    exactly their own chunks back; src_offsets may be any iterable."""
    import threading

    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    chunks = _chunks(DATA, 12, 16_384)
    src, soffs, ssizes = _packed(codec, chunks)
    want = [c.tobytes() for c in chunks]

    def decode(k):
        out = np.full(k * 16_384, POISON, np.uint8)
        codec.decode(src, out=out, src_offsets=iter(soffs[:k]), src_sizes=ssizes[:k],
                     out_offsets=[i * 16_384 for i in range(k)], uncomp_sizes=[c.nbytes for c in chunks[:k]])
        return [bytes(out[i * 16_384:i * 16_384 + chunks[i].nbytes]) for i in range(k)]

    for k in (1, 12, 3, 12, 7):
        assert decode(k) == want[:k]
    errors = []

    def worker(seed):
        try:
            for r in range(30):
                k = 1 + (seed * 7 + r) % 12
                if decode(k) != want[:k]:
                    errors.append((seed, r, k))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=worker, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# ---- offsets on the device: the dispatch, checked without a GPU ---------------------------------------


class _FakeCupy(np.ndarray):
    """A host array that says it is device memory, as CuPy's arrays do: a __cuda_array_interface__ and a buffer
    slot too (CuPy's refuses device memory), so the interface must be asked first."""

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.ctypes.data, False), "version": 3,
                "strides": None, "stream": 1}


def _fake(a):
    return np.ascontiguousarray(a).view(_FakeCupy)


@pytest.mark.skipif(oc.cuda_available(), reason="the no-GPU dispatch of device offsets")
def test_device_offsets_dispatch_without_a_gpu():
    """Offset arrays with a CUDA array interface take the device path (the library builds the pointer arrays on
    the GPU): without a GPU that is NO_DEVICE, not the host path's reading of them as ints; its argument checks
    name the argument (a host array among device ones, 4-byte integers, another length), for decode and encode."""
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    buf, out = _fake(np.zeros(64, np.uint8)), _fake(np.zeros(64, np.uint8))
    so, ss, oo, us = (_fake(np.array(v, np.int64)) for v in ([0, 8], [8, 8], [0, 32], [32, 32]))
    with pytest.raises(oc.Error, match="no CUDA device") as ei:
        codec.decode(buf, out=out, src_offsets=so, src_sizes=ss, out_offsets=oo, uncomp_sizes=us)
    assert ei.value.status == oc.Status.NO_DEVICE
    with pytest.raises(ValueError, match=r"^src_sizes is in host memory but src_offsets in device memory"):
        codec.decode(buf, out=out, src_offsets=so, src_sizes=np.array([8, 8], np.int64), out_offsets=oo,
                     uncomp_sizes=us)
    with pytest.raises(ValueError, match=r"^out_offsets must be a 1-D array of 8-byte integers \(int64, uint64\), "
                       r"not <i4 of 1 dimension\(s\)$"):
        codec.decode(buf, out=out, src_offsets=so, src_sizes=ss, out_offsets=_fake(np.array([0, 32], np.int32)),
                     uncomp_sizes=us)
    with pytest.raises(ValueError, match=r"^uncomp_sizes has 1 entries for 2 chunks$"):
        codec.decode(buf, out=out, src_offsets=so, src_sizes=ss, out_offsets=oo, uncomp_sizes=us[:1])
    csz = _fake(np.zeros(2, np.int64))
    with pytest.raises(oc.Error, match="no CUDA device"):
        codec.encode(buf, src_offsets=so, src_sizes=ss, out=out, out_offsets=oo, out_sizes=us, comp_sizes=csz)
    with pytest.raises(ValueError, match=r"^src_offsets= in device memory needs .* comp_sizes="):
        codec.encode(buf, src_offsets=so, src_sizes=ss, out=out, out_offsets=oo, out_sizes=us)
