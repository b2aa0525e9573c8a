"""GPU tests: device data through cupy and torch (CAI, DLPack, streams),
decode straight into slices of one device buffer, Array.cpu()/cuda(). All
are marked `gpu` and skipped where no GPU (or no CUDA engine) exists; they
run in scripts/gpu-check on the GPU machine."""

import numpy as np
import pytest

import opencomp as oc
from conftest import ALGORITHMS, CORPUS, KINDS

pytestmark = pytest.mark.gpu

DATA = [d for name, d in CORPUS if name != "empty"]
# GDeflate (pages of at most 64 KiB, not the corpus's chunks) has tests of its own below
GPU_ALGORITHMS = [a for a in oc.algorithms("cuda") if a in ALGORITHMS]
CPU_ONLY = [a for a in ALGORITHMS if a not in GPU_ALGORITHMS]


@pytest.fixture
def cp():
    return pytest.importorskip("cupy")


@pytest.fixture
def torch():
    t = pytest.importorskip("torch")
    if not t.cuda.is_available():
        pytest.skip("torch without CUDA")
    return t


@pytest.mark.parametrize("alg", GPU_ALGORITHMS)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_cupy_roundtrip(cp, alg, kind):
    codec = oc.Codec(algorithm=alg, bitstream_kind=kind)
    srcs = [cp.asarray(np.frombuffer(d, np.uint8)) for d in DATA]
    comp = codec.encode(srcs)
    assert all(c.buffer_kind == oc.ArrayBufferKind.STRIDED_DEVICE for c in comp)
    back = codec.decode(comp)
    for b, d in zip(back, DATA):
        assert cp.asarray(b).get().tobytes() == d


@pytest.mark.parametrize("alg", [a for a in ("LZ4", "Snappy", "Zstd", "Deflate") if a in GPU_ALGORITHMS])
def test_wus_headers_on_device_get_the_hosts_verdicts(cp, alg):
    """WITH_UNCOMPRESSED_SIZE on device data: the library writes and reads
    the headers on the GPU (the extension copies none), with the statuses
    host data gets."""
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.WITH_UNCOMPRESSED_SIZE)
    data = DATA[0]
    n = len(data)
    comp = codec.encode(cp.asarray(np.frombuffer(data, np.uint8)))
    good = bytes(comp.cpu())
    assert good[:8] == n.to_bytes(8, "little")

    def hdr(v):
        return v.to_bytes(8, "little") + good[8:]

    variants = [good[:3], hdr(2**64 - 1), hdr(n + 1), hdr(n - 1), good]
    _, host = codec.decode(variants, errors="status")
    res, dev = codec.decode([cp.asarray(np.frombuffer(v, np.uint8)) for v in variants], errors="status")
    assert list(dev) == list(host)
    S = oc.Status
    # a header one byte short: the result is allocated at the header's size,
    # so the stream does not fit it (the CPU engine's verdict)
    assert list(host) == [S.TRUNCATED, S.CORRUPT, S.SIZE_MISMATCH, S.OUTPUT_TOO_SMALL, S.OK]
    assert bytes(res[4].cpu()) == data


@pytest.mark.parametrize("alg", GPU_ALGORITHMS)
def test_gpu_and_cpu_streams_are_interchangeable(cp, alg):
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    host = [bytes(codec.encode(d)) for d in DATA]
    dev = codec.decode([cp.asarray(np.frombuffer(h, np.uint8)) for h in host])
    assert [bytes(x.cpu()) for x in dev] == DATA
    dev_comp = codec.encode([cp.asarray(np.frombuffer(d, np.uint8)) for d in DATA])
    assert [bytes(codec.decode(x.cpu())) for x in dev_comp] == DATA


@pytest.mark.parametrize("alg", GPU_ALGORITHMS)
def test_decode_into_slices_of_one_device_buffer(cp, alg):
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    pages = [np.arange(1000 * (i + 1), dtype=np.float32) for i in range(5)]
    comp = codec.encode([cp.asarray(p) for p in pages])
    total = cp.empty(sum(p.size for p in pages), dtype=cp.float32)
    offs = np.cumsum([0] + [p.size for p in pages])
    outs = [total[offs[i] : offs[i + 1]] for i in range(len(pages))]
    before = oc._opencomp._size_queries()
    res = codec.decode(comp, out=outs, uncomp_sizes=[p.nbytes for p in pages])
    assert oc._opencomp._size_queries() == before
    assert [r.ptr for r in res] == [o.data.ptr for o in outs]
    np.testing.assert_array_equal(total.get(), np.concatenate(pages))
    assert res[0].dtype == np.float32


@pytest.mark.skipif("LZ4" not in GPU_ALGORITHMS, reason="no GPU LZ4")
def test_cai_and_dlpack_export(cp):
    codec = oc.Codec(algorithm="LZ4")
    x = cp.arange(10000, dtype=cp.int32)
    r = codec.decode(codec.encode(x), data_type="<i4")
    cai = r.__cuda_array_interface__
    assert cai["version"] == 3 and cai["typestr"] == "<i4" and cai["shape"] == (10000,)
    assert not hasattr(r, "__array_interface__")
    y = cp.asarray(r)
    assert y.data.ptr == r.ptr
    cp.testing.assert_array_equal(y, x)
    z = cp.from_dlpack(r)
    cp.testing.assert_array_equal(z, x)
    assert r.__dlpack_device__()[0] == 2


@pytest.mark.skipif("Snappy" not in GPU_ALGORITHMS, reason="no GPU Snappy")
def test_torch_tensors(torch):
    codec = oc.Codec(algorithm="Snappy", bitstream_kind=oc.BitstreamKind.RAW)
    t = torch.arange(50000, dtype=torch.int64, device="cuda")
    comp = codec.encode(t)
    out = torch.empty_like(t)
    res = codec.decode(comp, out=out)
    assert res.ptr == out.data_ptr()
    assert torch.equal(out, t)
    u = torch.from_dlpack(codec.decode(comp, data_type="<i8"))
    assert torch.equal(u, t)
    # CPU tensors work through DLPack as well
    c = torch.arange(100, dtype=torch.float32)
    assert torch.equal(torch.from_dlpack(codec.decode(codec.encode(c), data_type="<f4")), c)


@pytest.mark.parametrize("alg", GPU_ALGORITHMS)
def test_codec_on_a_user_stream(cp, alg):
    s = cp.cuda.Stream(non_blocking=True)
    # given as an object, the stream is kept alive by the Codec
    codec = oc.Codec(algorithm=alg, cuda_stream=s, bitstream_kind=oc.BitstreamKind.RAW)
    assert codec.cuda_stream == s.ptr
    with s:
        x = cp.arange(1 << 20, dtype=cp.uint8)
    back = codec.decode(codec.encode(x))
    cp.testing.assert_array_equal(cp.asarray(back), x)
    # given as an int (nvCOMP's way), the caller keeps the stream alive
    t = cp.cuda.Stream(non_blocking=True)
    codec2 = oc.Codec(algorithm=alg, cuda_stream=t.ptr, bitstream_kind=oc.BitstreamKind.RAW)
    cp.testing.assert_array_equal(cp.asarray(codec2.decode(codec2.encode(x))), x)
    del codec2  # before t
    del codec, s
    import gc

    gc.collect()
    cp.testing.assert_array_equal(cp.asarray(back), x)


def test_cpu_cuda_copies(cp):
    a = oc.as_array(np.arange(1000, dtype=np.float64))
    d = a.cuda()
    assert d.buffer_kind == oc.ArrayBufferKind.STRIDED_DEVICE and d.cuda() is d
    np.testing.assert_array_equal(np.asarray(d.cpu()), np.arange(1000, dtype=np.float64))
    e = a.cuda(synchronize=False)
    assert e.__cuda_array_interface__["stream"] is not None
    cp.testing.assert_array_equal(cp.asarray(e), cp.arange(1000, dtype=cp.float64))


@pytest.mark.skipif("LZ4" not in GPU_ALGORITHMS, reason="no GPU LZ4")
def test_corrupt_device_chunk_is_reported(cp):
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    good = bytes(codec.encode(DATA[0]))
    bad = bytearray(good)
    bad[len(bad) // 2 :] = b"\xff" * (len(bad) - len(bad) // 2)
    srcs = [cp.asarray(np.frombuffer(x, np.uint8)) for x in (good, bytes(bad))]
    res, st = codec.decode(srcs, uncomp_sizes=[len(DATA[0])] * 2, errors="status")
    assert st[0] == oc.Status.OK and st[1] != oc.Status.OK
    assert bytes(res[0].cpu()) == DATA[0]


def test_make_new_stream():
    s = oc.CudaStream.make_new()
    assert s.ptr != 0 and not s.is_special


@pytest.mark.skipif("LZ4" not in GPU_ALGORITHMS, reason="no GPU LZ4")
def test_device_allocator_serves_results_and_scratch(cp):
    calls = []

    def alloc(nbytes, stream):
        assert isinstance(stream, oc.CudaStream)
        calls.append(nbytes)
        return cp.cuda.alloc(max(nbytes, 1))  # a MemoryPointer: has .ptr, frees on collection

    oc.set_device_allocator(alloc)
    try:
        codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
        x = cp.arange(1 << 20, dtype=cp.uint8)
        back = codec.decode(codec.encode(x))
        cp.testing.assert_array_equal(cp.asarray(back), x)
        assert len(calls) >= 2  # at least the two result Arrays
    finally:
        oc.set_device_allocator(None)


def test_gpu_kernel_query_matches_the_engine():
    """opencomp.numcodecs asks the extension's _gpu_kernel whether device
    chunks stay on the GPU (else its one-copy CPU path and one warning): it
    must say yes both ways for every algorithm the CUDA engine lists (the
    deflate family included) and know no unknown name."""
    from opencomp import _opencomp

    for alg in oc.algorithms("cuda"):
        assert _opencomp._gpu_kernel(alg.lower(), False) is True, alg
        assert _opencomp._gpu_kernel(alg.lower(), True) is True, alg
    for alg in ("deflate", "zlib", "gzip"):
        assert _opencomp._gpu_kernel(alg, False) is True and _opencomp._gpu_kernel(alg, True) is True, alg
    assert _opencomp._gpu_kernel("no-such-codec", False) is None


@pytest.mark.parametrize("alg", CPU_ONLY or ["none"])
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.name)
def test_device_data_of_algorithms_without_gpu_kernels(cp, alg, kind):
    """Either the CUDA engine serves them (staged through the host) with the
    right bytes, or the error says UNSUPPORTED for device memory."""
    if alg == "none":
        pytest.skip("every algorithm has GPU kernels")
    codec = oc.Codec(algorithm=alg, bitstream_kind=kind)
    data = DATA[0]
    x = cp.asarray(np.frombuffer(data, np.uint8))
    try:
        comp = codec.encode(x)
    except oc.Error as e:
        assert e.status == oc.Status.UNSUPPORTED and "device memory" in str(e)
        return
    assert comp.buffer_kind == oc.ArrayBufferKind.STRIDED_DEVICE
    assert bytes(codec.decode(comp.cpu())) == data  # the CPU engine reads the GPU's output
    assert bytes(codec.decode(comp).cpu()) == data


def test_gdeflate_pages_encode_on_the_gpu(cp):
    """GDeflate has GPU kernels both ways (it is among oc.algorithms("cuda")):
    pages of device memory encode on the GPU into device pages that the CPU
    engine and the GPU decode to the input, at the default level and at 1."""
    assert "GDeflate" in oc.algorithms("cuda")
    pages = [d[:65536] for d in DATA]
    for level in (None, 1):
        kw = {} if level is None else {"level": level}
        codec = oc.Codec(algorithm="GDeflate", bitstream_kind=oc.BitstreamKind.RAW, **kw)
        comp = codec.encode([cp.asarray(np.frombuffer(p, np.uint8)) for p in pages])
        assert all(c.buffer_kind == oc.ArrayBufferKind.STRIDED_DEVICE for c in comp)
        host = [cp.asarray(c).view(cp.uint8).reshape(-1).get().tobytes() for c in comp]
        assert all(len(h) % 4 == 0 and len(h) >= 128 for h in host)
        assert [bytes(x) for x in codec.decode(host)] == pages  # CPU engine
        assert [bytes(x.cpu()) for x in codec.decode(comp)] == pages  # GPU


def test_gdeflate_pages_decode_on_the_gpu(cp):
    """Pages encoded on the host decode from device
    memory to the same bytes, with the sizes found on the device, and a page
    cut in half gets the CPU engine's status (TRUNCATED)."""
    codec = oc.Codec(algorithm="GDeflate", bitstream_kind=oc.BitstreamKind.RAW)
    pages = [d[:65536] for d in DATA]
    host = [bytes(codec.encode(p)) for p in pages]
    dev = codec.decode([cp.asarray(np.frombuffer(h, np.uint8)) for h in host])
    assert [bytes(x.cpu()) for x in dev] == pages
    cut = host[0][: len(host[0]) // 2]
    _, st_cpu = codec.decode([cut], uncomp_sizes=[len(pages[0])], errors="status")
    _, st_gpu = codec.decode([cp.asarray(np.frombuffer(cut, np.uint8))], uncomp_sizes=[len(pages[0])],
                             errors="status")
    assert st_cpu[0] == oc.Status.TRUNCATED and st_gpu[0] == st_cpu[0]


@pytest.mark.parametrize("alg", GPU_ALGORITHMS)
def test_cupy_packed_decode_into_one_buffer(cp, alg):
    """The one-buffer fast path on the device: every chunk lands at its offset of out, gaps untouched."""
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    chunks = [np.frombuffer(d, np.uint8) for d in DATA]
    comp = [cp.asarray(c).view(cp.uint8).reshape(-1) for c in codec.encode([cp.asarray(c) for c in chunks])]
    soffs = [int(x) for x in np.cumsum([0] + [c.size + 7 for c in comp])[:-1]]
    src = cp.zeros(soffs[-1] + comp[-1].size, cp.uint8)
    for o, c in zip(soffs, comp):
        src[o:o + c.size] = c
    sizes = [c.nbytes for c in chunks]
    ooffs = [int(x) for x in np.cumsum([0] + [s + 3 for s in sizes])[:-1]]
    out = cp.full(ooffs[-1] + sizes[-1] + 3, 0xEE, cp.uint8)
    got = codec.decode(src, out=out, src_offsets=soffs, src_sizes=[int(c.size) for c in comp], out_offsets=ooffs,
                       uncomp_sizes=sizes)
    assert got is out
    host = cp.asnumpy(out)
    for o, c in zip(ooffs, chunks):
        assert host[o:o + c.nbytes].tobytes() == c.tobytes()
        assert host[o + c.nbytes:o + c.nbytes + 3].tobytes() == b"\xee" * 3


def _device_packed(cp, codec, chunks, gap=7):
    """chunks compressed on the GPU, packed into one device buffer with gaps; the offset and size arrays as
    CuPy int64 arrays (what a GPU reader of Parquet pages or zarr shards holds)."""
    comp = [cp.asarray(c).view(cp.uint8).reshape(-1) for c in codec.encode([cp.asarray(c) for c in chunks])]
    soffs = np.cumsum([0] + [int(c.size) + gap for c in comp])[:-1]
    src = cp.zeros(int(soffs[-1]) + int(comp[-1].size), cp.uint8)
    for o, c in zip(soffs.tolist(), comp):
        src[o:o + c.size] = c
    sizes = np.array([c.nbytes for c in chunks], np.int64)
    ooffs = np.cumsum([0] + [int(x) + 3 for x in sizes])[:-1]
    out = cp.full(int(ooffs[-1]) + int(sizes[-1]) + 3, 0xEE, cp.uint8)
    arrs = [cp.asarray(np.asarray(a, np.int64)) for a in (soffs, [int(c.size) for c in comp], ooffs, sizes)]
    return src, out, arrs, ooffs.tolist()


@pytest.mark.parametrize("alg", GPU_ALGORITHMS)
def test_cupy_packed_decode_with_device_offsets(cp, alg):
    """Offsets and sizes already on the GPU (CuPy int64 arrays): the pointer arrays are built there
    (oc_batch_decompress_packed), the call returns out at once, every chunk lands at its offset, the gaps
    stay untouched, and Codec.synchronize() reads the statuses (all OK)."""
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    chunks = [np.frombuffer(d, np.uint8) for d in DATA]
    src, out, (so, ss, oo, us), ooffs = _device_packed(cp, codec, chunks)
    got = codec.decode(src, out=out, src_offsets=so, src_sizes=ss, out_offsets=oo, uncomp_sizes=us)
    assert got is out
    codec.synchronize()
    host = cp.asnumpy(out)
    for o, c in zip(ooffs, chunks):
        assert host[o:o + c.nbytes].tobytes() == c.tobytes()
        assert host[o + c.nbytes:o + c.nbytes + 3].tobytes() == b"\xee" * 3


def test_cupy_device_offsets_statuses_and_errors(cp):
    """Exact per-chunk results with the offsets on the device: a chunk whose source range leaves the buffer
    is INVALID_ARGUMENT and nothing is written for it; a cut stream and a promised size one byte short get
    the host-offset call's statuses for the same chunks; the others decode.  Without errors='status' the deferred batch raises at
    Codec.synchronize(), naming the first failed chunk."""
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    big = max(DATA, key=len)
    chunks = [np.frombuffer(big[i * 4096:(i + 1) * 4096], np.uint8) for i in range(6)]
    src, out, (so, ss, oo, us), ooffs = _device_packed(cp, codec, chunks)
    so[1] = src.size + 5                 # past the end of srcs
    ss[2] = ss[2] // 2                   # a cut stream
    us[3] = us[3] - 1                    # a promised size one short of the stream's
    got, st = codec.decode(src, out=out, src_offsets=so, src_sizes=ss, out_offsets=oo, uncomp_sizes=us,
                           errors="status")
    assert got is out
    # the host-offset call on the same arguments (its own bounds check raises for chunk 1: left out there)
    hso, hss, hoo, hus = (cp.asnumpy(a) for a in (so, ss, oo, us))
    hso[1], hss[1] = 0, 0
    _, hst = codec.decode(src, out=cp.zeros_like(out), src_offsets=hso, src_sizes=hss, out_offsets=hoo,
                          uncomp_sizes=hus, errors="status")
    assert st[1] == oc.Status.INVALID_ARGUMENT
    assert st[2] == hst[2] and st[2] != oc.Status.OK
    assert st[3] == hst[3] and st[3] != oc.Status.OK
    assert [st[i] for i in (0, 4, 5)] == [oc.Status.OK] * 3
    host = cp.asnumpy(out)
    for i in (0, 4, 5):
        assert host[ooffs[i]:ooffs[i] + 4096].tobytes() == chunks[i].tobytes()
    assert host[ooffs[1]:ooffs[1] + 4096].tobytes() == b"\xee" * 4096  # nothing written for chunk 1
    codec.decode(src, out=out, src_offsets=so, src_sizes=ss, out_offsets=oo, uncomp_sizes=us)
    with pytest.raises(oc.Error, match=r"chunk 1 of 6: INVALID_ARGUMENT"):
        codec.synchronize()


def test_cupy_device_offsets_bad_arguments(cp):
    """Argument errors of the device-offset call are named: a host array among device ones, 4-byte
    integers, a 2-D array, another length."""
    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    chunks = [np.frombuffer(DATA[0][:4096], np.uint8)] * 3
    src, out, (so, ss, oo, us), _ = _device_packed(cp, codec, chunks)
    with pytest.raises(ValueError, match=r"^src_sizes is in host memory but src_offsets in device memory"):
        codec.decode(src, out=out, src_offsets=so, src_sizes=cp.asnumpy(ss), out_offsets=oo, uncomp_sizes=us)
    with pytest.raises(ValueError, match=r"^out_offsets must be a 1-D array of 8-byte integers"):
        codec.decode(src, out=out, src_offsets=so, src_sizes=ss, out_offsets=oo.astype(cp.int32),
                     uncomp_sizes=us)
    with pytest.raises(ValueError, match=r"^uncomp_sizes must be a 1-D array of 8-byte integers"):
        codec.decode(src, out=out, src_offsets=so, src_sizes=ss, out_offsets=oo, uncomp_sizes=us.reshape(1, 3))
    with pytest.raises(ValueError, match=r"^src_sizes has 2 entries for 3 chunks"):
        codec.decode(src, out=out, src_offsets=so, src_sizes=ss[:2], out_offsets=oo, uncomp_sizes=us)
    with pytest.raises(ValueError, match=r"^srcs is in host memory"):
        codec.decode(cp.asnumpy(src), out=out, src_offsets=so, src_sizes=ss, out_offsets=oo, uncomp_sizes=us)


def test_cupy_device_offsets_reuse_and_filters(cp):
    """Repeated device-offset calls reuse their result blocks (no device allocation per call once the
    in-flight bound is reached), each call's output right; a shuffle filter (which the library stages:
    the offset arrays copied to the host first) decodes the same bytes."""
    from opencomp import _opencomp

    codec = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW)
    chunks = [np.frombuffer(d, np.uint8) for d in DATA]
    src, out, arrs, ooffs = _device_packed(cp, codec, chunks)
    kw = dict(src_offsets=arrs[0], src_sizes=arrs[1], out_offsets=arrs[2], uncomp_sizes=arrs[3])
    for _ in range(40):
        codec.decode(src, out=out, **kw)
        cp.cuda.runtime.deviceSynchronize()
    before = _opencomp._devblock_allocs()
    for _ in range(70):
        out.fill(0)
        codec.decode(src, out=out, **kw)
        cp.cuda.runtime.deviceSynchronize()
    assert _opencomp._devblock_allocs() == before
    codec.synchronize()
    host = cp.asnumpy(out)
    assert all(host[o:o + c.nbytes].tobytes() == c.tobytes() for o, c in zip(ooffs, chunks))
    filt = oc.Codec(algorithm="LZ4", bitstream_kind=oc.BitstreamKind.RAW, shuffle=1, typesize=4)
    src, out, arrs, ooffs = _device_packed(cp, filt, chunks)
    filt.decode(src, out=out, src_offsets=arrs[0], src_sizes=arrs[1], out_offsets=arrs[2], uncomp_sizes=arrs[3])
    filt.synchronize()
    host = cp.asnumpy(out)
    assert all(host[o:o + c.nbytes].tobytes() == c.tobytes() for o, c in zip(ooffs, chunks))


@pytest.mark.parametrize("alg", ["LZ4", "Snappy", "Zstd", "Cascaded", "Bitcomp", "ANS"])
def test_cupy_packed_encode_with_device_offsets(cp, alg):
    """encode(..., comp_sizes=) with every array on the GPU: returns comp_sizes at once, each stream in its slot
    decodes back (by the device-offset decode) to its chunk; a chunk whose source leaves the buffer is
    INVALID_ARGUMENT with size 0, a slot of 4 bytes OUTPUT_TOO_SMALL; without errors='status' the failure is
    raised by Codec.synchronize()."""
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    big = max(DATA, key=len)
    n, size, slot = 8, 16_384, 2 * 16_384 + 1024
    src = cp.asarray(np.frombuffer(big[:n * size], np.uint8))
    so, ss = (cp.asarray(np.asarray(a, np.int64)) for a in ([i * size for i in range(n)], [size] * n))
    oo, room = (cp.asarray(np.asarray(a, np.int64)) for a in ([i * slot for i in range(n)], [slot] * n))
    comp = cp.full(n * slot, 0xEE, cp.uint8)
    csz = cp.zeros(n, cp.int64)
    got = codec.encode(src, src_offsets=so, src_sizes=ss, out=comp, out_offsets=oo, out_sizes=room, comp_sizes=csz)
    assert got is csz
    codec.synchronize()
    sizes = cp.asnumpy(csz)
    assert all(0 < s <= slot for s in sizes)
    dec = cp.zeros(n * size, cp.uint8)
    codec.decode(comp, src_offsets=oo, src_sizes=csz, out=dec, out_offsets=so, uncomp_sizes=ss)
    codec.synchronize()
    assert bytes(cp.asnumpy(dec)) == big[:n * size]
    so[2] = src.size + 1
    room[5] = 4
    got, st = codec.encode(src, src_offsets=so, src_sizes=ss, out=comp, out_offsets=oo, out_sizes=room,
                           comp_sizes=csz, errors="status")
    assert got is csz
    assert st[2] == oc.Status.INVALID_ARGUMENT and st[5] == oc.Status.OUTPUT_TOO_SMALL
    assert [st[i] for i in (0, 1, 3, 4, 6, 7)] == [oc.Status.OK] * 6
    assert int(csz[2]) == 0
    codec.encode(src, src_offsets=so, src_sizes=ss, out=comp, out_offsets=oo, out_sizes=room, comp_sizes=csz)
    with pytest.raises(oc.Error, match=r"^encode failed for chunk 2 of 8: INVALID_ARGUMENT"):
        codec.synchronize()


# ---- per-device binding (docs/API.md, device_id=) -------------------------


def _ndev(cp):
    return cp.cuda.runtime.getDeviceCount()


def test_codec_bound_to_another_device_refuses_the_data(cp, torch):
    """device_id= binds a Codec: data on another device raises, naming both
    (one GPU is enough: device_id=1 never holds data on device 0)."""
    x = cp.asarray(np.frombuffer(DATA[0], np.uint8))
    with pytest.raises(ValueError, match=r"device 0 but this Codec was made with device_id=1"):
        oc.Codec("LZ4", device_id=1).encode(x)
    t = torch.frombuffer(bytearray(DATA[0]), dtype=torch.uint8).cuda(0)  # DLPack names its device
    with pytest.raises(ValueError, match=r"device 0 but this Codec was made with device_id=1"):
        oc.Codec("LZ4", device_id=1).encode(t)
    assert oc.Codec("LZ4", device_id=0).decode(oc.Codec("LZ4", device_id=0).encode(x)).cpu().tobytes() == DATA[0]


@pytest.mark.parametrize("alg", ["LZ4", "Zstd"])
def test_unbound_codec_follows_the_data_to_every_device(cp, alg):
    """One Codec, data on each GPU in turn: every call runs on the data's
    device and its results live there (needs two GPUs to test more than one)."""
    codec = oc.Codec(alg)
    assert codec.device_id == -1
    for dev in range(_ndev(cp)):
        with cp.cuda.Device(dev):
            src = cp.asarray(np.frombuffer(DATA[0], np.uint8))
        comp = codec.encode(src)
        back = codec.decode(comp)
        assert back.__dlpack_device__() == (2, dev)
        assert back.cpu().tobytes() == DATA[0]


def test_one_call_cannot_mix_devices(cp, torch):
    if _ndev(cp) < 2:
        pytest.skip("needs two GPUs")
    a = torch.frombuffer(bytearray(DATA[0]), dtype=torch.uint8).cuda(0)
    b = torch.frombuffer(bytearray(DATA[0]), dtype=torch.uint8).cuda(1)
    with pytest.raises(ValueError, match="one call runs on one device"):
        oc.Codec("LZ4").encode([a, b])


def _blosc_device_chunks(cp, data, cnames):
    chunks = []
    for cname in cnames:
        codec = oc.Codec("Blosc", bitstream_kind=oc.BitstreamKind.RAW, cname=cname, shuffle=1, typesize=4)
        chunks.append(cp.asarray(np.frombuffer(bytes(codec.encode(data)), np.uint8)))
    return chunks


def test_blosc_zlib_chunks_decode_on_the_gpu(cp):
    """A device batch of Blosc chunks with lz4, zlib and zstd inside: the GPU
    kernel decodes all of them (zlib through the shared inflate core), so no
    chunk takes the CPU and no GpuFallbackWarning is raised; numcodecs' Blosc
    class decodes a zlib device chunk on the GPU as well."""
    import warnings

    pytest.importorskip("numcodecs")
    import opencomp.numcodecs as ocn
    from opencomp.numcodecs import _batch

    data = (np.arange(200_000, dtype=np.int32) // 7).astype(np.int32)
    chunks = _blosc_device_chunks(cp, data, ("lz4", "zlib", "zstd"))
    outs = [cp.empty(data.nbytes, dtype=cp.uint8) for _ in chunks]
    _, st = oc.Codec("Blosc", bitstream_kind=oc.BitstreamKind.RAW).decode(chunks, out=outs, errors="status")
    assert list(st) == [oc.Status.OK] * 3  # the CPU fallback is the batch engine's, not the Codec's
    assert all(o.get().tobytes() == data.tobytes() for o in outs)
    _batch._gpu_warned.discard("Blosc/partial")
    with warnings.catch_warnings():
        warnings.simplefilter("error", _batch.GpuFallbackWarning)
        res, fails = _batch.BatchCodec("blosc").decode(chunks, [data.nbytes] * 3)
        assert not fails
        for r in res:
            assert isinstance(r, cp.ndarray) and r.get().tobytes() == data.tobytes()
        out = ocn.Blosc(cname="zlib", shuffle=1).decode(chunks[1])
        assert cp.asnumpy(cp.asarray(out)).tobytes() == data.tobytes()


def test_blosc_chunks_the_gpu_does_not_serve_take_the_cpu(cp, monkeypatch):
    """The per-chunk CPU fallback stays for chunks the GPU kernel reports
    UNSUPPORTED (none that c-blosc 1.x writes since zlib moved to the GPU, so
    a stand-in marks chunk 1 so): the batch engine decodes that chunk on the
    CPU (one warning), so every chunk comes back, in device memory."""
    pytest.importorskip("numcodecs")
    from opencomp.numcodecs import _batch

    data = (np.arange(200_000, dtype=np.int32) // 7).astype(np.int32)
    chunks = _blosc_device_chunks(cp, data, ("lz4", "zlib", "zstd"))
    real = _batch.BatchCodec._decode_into

    def gpu_without_chunk_1(self, srcs, sizes, exact, todo, results, failures, device, probe=False):
        got = real(self, srcs, sizes, exact, todo, results, failures, device, probe)
        if device and 1 in todo and results[1] is not None:
            results[1] = None
            failures.append(_batch.ChunkFailure(1, oc.Status.UNSUPPORTED, "stand-in"))
        return got

    monkeypatch.setattr(_batch.BatchCodec, "_decode_into", gpu_without_chunk_1)
    _batch._gpu_warned.discard("Blosc/partial")
    with pytest.warns(_batch.GpuFallbackWarning, match="decoded on the CPU"):
        res, fails = _batch.BatchCodec("blosc").decode(chunks, [data.nbytes] * 3)
    assert not fails
    for r in res:
        assert isinstance(r, cp.ndarray) and r.get().tobytes() == data.tobytes()


def test_stream_device_of_special_streams(cp):
    """nvCOMP: borrow(special) with device_idx -1 is the current device."""
    current = cp.cuda.runtime.getDevice()
    for special in (0, 1, 2):
        assert oc.CudaStream.borrow(special).device == current
        assert oc.CudaStream(special).device == current


def test_stream_device_of_a_real_stream(cp):
    current = cp.cuda.runtime.getDevice()
    s = cp.cuda.Stream(non_blocking=True)
    assert oc.CudaStream.borrow(s.ptr).device == current
    assert oc.CudaStream.borrow(s).device == current  # objects with .ptr
    assert oc.CudaStream.borrow(s.ptr, current).device == current
    assert oc.CudaStream(s.ptr).device == current  # resolved when read
    with pytest.raises(ValueError, match="belongs to device"):
        oc.CudaStream.borrow(s.ptr, current + 1)
    assert oc.CudaStream.make_new().device == current


def test_stream_device_is_the_streams_not_the_current(cp):
    if cp.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("needs two GPUs")
    with cp.cuda.Device(1):
        s = cp.cuda.Stream(non_blocking=True)
    with cp.cuda.Device(0):
        assert oc.CudaStream.borrow(s.ptr).device == 1
        with pytest.raises(ValueError):
            oc.CudaStream.borrow(s.ptr, 0)
        assert oc.CudaStream.make_new(1).device == 1


def test_allocator_gets_the_streams_device(cp):
    seen = []

    def alloc(nbytes, stream):
        seen.append(stream.device)
        return cp.cuda.alloc(max(nbytes, 1))

    oc.set_device_allocator(alloc)
    try:
        codec = oc.Codec(algorithm=oc.algorithms("cuda")[0], bitstream_kind=oc.BitstreamKind.RAW)
        codec.decode(codec.encode(cp.arange(1 << 16, dtype=cp.uint8)))
    finally:
        oc.set_device_allocator(None)
    assert seen and all(d == cp.cuda.runtime.getDevice() for d in seen)


def test_device_allocator_returning_external_memory(cp):
    """nvCOMP's protocol with a stream-ordered pool: cupy memory allocated on
    the stream given, wrapped with it in ExternalMemory."""
    made = []

    def alloc(nbytes, stream):
        with cp.cuda.ExternalStream(stream.ptr, stream.device):
            mem = cp.cuda.alloc(max(nbytes, 1))
        made.append(oc.ExternalMemory(mem, stream))
        return made[-1]

    oc.set_device_allocator(alloc)
    try:
        alg = oc.algorithms("cuda")[0]
        codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
        x = cp.arange(1 << 20, dtype=cp.uint8)
        back = codec.decode(codec.encode(x))
        cp.testing.assert_array_equal(cp.asarray(back), x)
    finally:
        oc.set_device_allocator(None)
    assert made and all(m.stream.device == cp.cuda.runtime.getDevice() for m in made)
    assert any(m.ptr == back.ptr for m in made)
