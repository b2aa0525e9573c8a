"""Against NVIDIA's own package (nvidia.nvcomp, on the GPU machine): RAW
streams written by either decode with the other, nvCOMP's Array objects are
accepted by our Codec as they are (CAI), and the same script runs with either
module by changing the import.  Marked `gpu`; skipped without nvidia.nvcomp."""

import numpy as np
import pytest

import opencomp as oc
from conftest import CORPUS

pytestmark = pytest.mark.gpu

ALGS = ["LZ4", "Snappy", "Zstd", "Deflate"]
DATA = [d for name, d in CORPUS if name not in ("empty",)]


@pytest.fixture
def nv():
    return pytest.importorskip("nvidia.nvcomp")


@pytest.fixture
def cp():
    return pytest.importorskip("cupy")


def to_dev(cp, b):
    return cp.asarray(np.frombuffer(bytes(b), np.uint8))


@pytest.mark.parametrize("alg", ALGS)
def test_ours_decoded_by_nvcomp(nv, cp, alg):
    ours = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW).encode(DATA)  # CPU engine
    theirs = nv.Codec(algorithm=alg, bitstream_kind=nv.BitstreamKind.RAW)
    dec = theirs.decode(nv.as_arrays([to_dev(cp, x) for x in ours]))
    assert [cp.asarray(d).get().tobytes() for d in dec] == DATA


@pytest.mark.parametrize("level", [None, 1])
def test_gdeflate_gpu_pages_decoded_by_nvcomp(nv, cp, level):
    """GDeflate pages our GPU encoder writes (64 KiB at most; the default
    level and the fast one) decode with nvCOMP's GDeflate to the input."""
    pages = [d[:65536] for d in DATA]
    kw = {} if level is None else {"level": level}
    codec = oc.Codec(algorithm="GDeflate", bitstream_kind=oc.BitstreamKind.RAW, **kw)
    ours = codec.encode([to_dev(cp, p) for p in pages])  # the GPU encoder
    theirs = nv.Codec(algorithm="GDeflate", bitstream_kind=nv.BitstreamKind.RAW, uncomp_chunk_size=65536)
    dec = theirs.decode(nv.as_arrays([cp.asarray(c).view(cp.uint8).reshape(-1) for c in ours]))
    assert [cp.asarray(d).get().tobytes() for d in dec] == pages


@pytest.mark.parametrize("alg", ALGS)
def test_nvcomp_decoded_by_ours(nv, cp, alg):
    theirs = nv.Codec(algorithm=alg, bitstream_kind=nv.BitstreamKind.RAW)
    enc = theirs.encode(nv.as_arrays([to_dev(cp, d) for d in DATA]))
    host = [cp.asarray(e).get().tobytes() for e in enc]
    codec = oc.Codec(algorithm=alg, bitstream_kind=oc.BitstreamKind.RAW)
    assert [bytes(x) for x in codec.decode(host)] == DATA  # CPU engine
    if alg in oc.algorithms("cuda"):
        # nvCOMP's own Array objects go in as they are (through their CUDA array interface)
        dev = codec.decode(list(enc), uncomp_sizes=[len(d) for d in DATA])
        assert [bytes(x.cpu()) for x in dev] == DATA


def _pipeline(mod, cp, alg):
    """nvCOMP-style user code; only `mod` differs."""
    codec = mod.Codec(algorithm=alg, bitstream_kind=mod.BitstreamKind.RAW)
    arrays = mod.as_arrays([to_dev(cp, d) for d in DATA])
    enc = codec.encode(arrays)
    dec = codec.decode(enc)
    return [cp.asarray(d).get().tobytes() for d in dec]


@pytest.mark.parametrize("alg", ["LZ4", "Snappy"])
def test_same_script_with_either_module(nv, cp, alg):
    if alg not in oc.algorithms("cuda"):
        pytest.skip(f"no GPU {alg} in this build")
    assert _pipeline(nv, cp, alg) == DATA
    assert _pipeline(oc, cp, alg) == DATA
