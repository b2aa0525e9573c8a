"""A Codec is a configuration and pickles as one (issue 19): dask and
multiprocessing ship it.  The copy has every setting of the original and
writes the same bytes; a CUDA stream is not carried (the copy uses the
default stream)."""
import pickle

import numpy as np
import pytest

import opencomp


def _data():
    return np.arange(200000, dtype=np.int64) // 7


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(algorithm="Zstd", level=19, uncomp_chunk_size=32768, checksum_policy=4),
        dict(algorithm="LZ4", bitstream_kind=opencomp.BitstreamKind.RAW, num_threads=2),
        dict(algorithm="Deflate", algorithm_type=5),
        dict(algorithm="Cascaded", data_type="<i8", num_rles=1, num_deltas=2, use_bitpack=False),
        dict(algorithm="Cascaded", data_type="<i8", auto_layers=True),
        dict(algorithm="ANS", data_type="<f2", uncomp_chunk_size=65536),
        dict(algorithm="Bitcomp", data_type="<i8", algorithm_type=1),
        dict(),
    ],
)
def test_codec_pickles_with_its_settings(kwargs):
    codec = opencomp.Codec(**kwargs)
    back = pickle.loads(pickle.dumps(codec))
    assert type(back) is opencomp.Codec
    for name in ("algorithm", "level", "bitstream_kind", "checksum_policy", "uncomp_chunk_size", "data_type",
                 "device_id"):
        assert getattr(back, name) == getattr(codec, name), name
    if not kwargs:
        return
    data = _data()
    if kwargs.get("data_type") == "<f2":
        data = np.linspace(-3, 3, 100000).astype(np.float16)
    a = bytes(codec.encode(data))
    b = bytes(back.encode(data))
    assert a == b
    assert np.array_equal(np.asarray(back.decode(a)).view(data.dtype), data)


def test_pickled_codec_drops_the_stream():
    codec = opencomp.Codec(algorithm="Zstd", cuda_stream=0)
    assert pickle.loads(pickle.dumps(codec)).cuda_stream == 0
