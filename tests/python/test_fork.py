"""A Codec used before fork() keeps working in the child (issue 11 item 3:
the child hung forever waiting for the parent's worker threads), as in
multiprocessing 'fork' pools and PyTorch DataLoader workers."""

import multiprocessing as mp
import os

import numpy as np
import pytest

import opencomp as oc

DATA = np.arange(1 << 18, dtype=np.int64)
CODEC = oc.Codec(algorithm="Zstd", bitstream_kind=oc.BitstreamKind.RAW)
CHUNKS = CODEC.encode([DATA[i::4].copy() for i in range(4)])  # used, so the pool exists


def _decode_in_child(i):
    back = CODEC.decode(CHUNKS)  # several chunks: the thread pool runs them
    return [bytes(b) for b in back] == [DATA[j::4].tobytes() for j in range(4)]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() here")
def test_codec_used_before_fork_works_in_fork_pool():
    CODEC.decode(CHUNKS)  # the parent's thread pool is running
    with mp.get_context("fork").Pool(2) as pool:
        result = pool.map_async(_decode_in_child, range(4))
        assert result.get(timeout=60) == [True] * 4
    assert [bytes(b) for b in CODEC.decode(CHUNKS)] == [DATA[i::4].tobytes() for i in range(4)]
