"""device_id= without a GPU: the default follows the data (-1), an explicit
device binds the Codec, both pickle, and host data runs on the CPU engine
whatever the Codec's device (tests/python/test_gpu.py checks the binding on
device data)."""

import pickle

import pytest

import opencomp as oc


def test_default_follows_the_data():
    assert oc.Codec("LZ4").device_id == -1
    assert oc.Codec("LZ4", device_id=-1).device_id == -1
    assert oc.Codec("LZ4", device_id=3).device_id == 3


@pytest.mark.parametrize("dev", [-1, 0, 2])
def test_device_id_pickles(dev):
    c = pickle.loads(pickle.dumps(oc.Codec("Zstd", device_id=dev)))
    assert c.device_id == dev


@pytest.mark.parametrize("bad", [-2, 1 << 20, "0", 1.0])
def test_bad_device_id_is_refused(bad):
    with pytest.raises((ValueError, TypeError)):
        oc.Codec("LZ4", device_id=bad)


def test_host_data_ignores_the_device():
    data = bytes(range(256)) * 512
    for dev in (-1, 0, 5):
        codec = oc.Codec("LZ4", device_id=dev)
        assert bytes(codec.decode(codec.encode(data))) == data
