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
