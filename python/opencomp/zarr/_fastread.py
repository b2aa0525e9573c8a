"""One-copy device reads for OpencompCodecPipeline (imports zarr; CuPy on use).

Under ``zarr.config.enable_gpu()`` zarr's own read path spends about 0.5 ms a
chunk outside the codec: the store read lands in a device buffer (a
host-to-device copy and a synchronisation per chunk), then the chunk is
decoded, viewed and written into the output one at a time (bench/NOTES.md,
"dask across GPUs": 13 ms of Blosc decode in a 148 ms read of 256 chunks).
A batch whose chunks are plain -- the ``bytes`` codec in native byte order,
then ONE opencomp bytes-to-bytes codec (zstd, gzip, zlib, blosc), no
sharding, no array-to-array codec -- is read here instead:

1. the store reads, concurrent as zarr's, into host buffers;
2. one host buffer of all compressed chunks and ONE copy to the device;
3. ONE packed opencomp call decodes every chunk into one device buffer,
   each at its exact size (``uncomp_sizes=``: a stream of another size is
   ``SIZE_MISMATCH``);
4. each chunk's selection is written into the output (one device copy a
   chunk); missing chunks get the fill value, as zarr does.

``plan`` says whether a pipeline qualifies; ``read_batch`` returns False
(nothing written) when the batch must take zarr's path after all: host
output, or chunks the GPU kernel does not serve (Blosc with zlib inside).
A chunk that fails raises the codec's ChunkDecodeError; the pipeline names
its key.
"""

from __future__ import annotations

import sys
from typing import Any, List, Optional, Tuple

import numpy as np

import opencomp

from ..numcodecs._batch import ChunkFailure, describe, is_device_array

# wire formats whose RAW streams carry everything a decoder needs
_FORMATS = ("zstd", "gzip", "zlib", "blosc")


def plan(pipeline: Any) -> Optional[Any]:
    """The opencomp codec of a pipeline that qualifies for the one-copy read, else None."""
    from zarr.codecs import BytesCodec

    if pipeline.array_array_codecs or len(pipeline.bytes_bytes_codecs) != 1:
        return None
    ab = pipeline.array_bytes_codec
    if type(ab) is not BytesCodec:  # sharding, vlen strings, ...: zarr's path
        return None
    endian = getattr(ab, "endian", None)
    if endian is not None and getattr(endian, "value", endian) != sys.byteorder:
        return None
    bb = pipeline.bytes_bytes_codecs[0]
    batch = getattr(bb, "_oc_batch", None)  # an opencomp zarr codec
    if batch is None or batch.fmt not in _FORMATS or batch.zstd_checksum:
        return None
    return bb


def _device_output(out: Any) -> bool:
    try:
        return is_device_array(out.as_ndarray_like())
    except AttributeError:
        return False


async def read_batch(codec: Any, batch_info: List[Any], out: Any, drop_axes: Tuple[int, ...]) -> bool:
    """Read one batch into ``out`` (a device NDBuffer) as the module docstring says."""
    if not batch_info or not _device_output(out):
        return False
    import cupy  # type: ignore
    from zarr.core.buffer import default_buffer_prototype
    from zarr.core.common import concurrent_map
    from zarr.core.config import config
    from zarr.core.codec_pipeline import fill_value_or_default

    for _getter, spec, *_rest in batch_info:
        if spec.dtype.to_native_dtype().hasobject:
            return False
    host_proto = default_buffer_prototype()
    chunk_bytes = await concurrent_map(
        [(getter, host_proto) for getter, *_rest in batch_info],
        lambda getter, proto: getter.get(proto),
        config.get("async.concurrency"),
    )
    present = [i for i, b in enumerate(chunk_bytes) if b is not None]
    decoded: dict = {}
    if present:
        parts = [np.asarray(chunk_bytes[i].as_numpy_array()).reshape(-1).view(np.uint8) for i in present]
        src_sizes = [p.size for p in parts]
        src_offsets = np.cumsum([0] + src_sizes[:-1]).tolist()
        dtypes = [batch_info[i][1].dtype.to_native_dtype() for i in present]
        sizes = [int(np.prod(batch_info[i][1].shape)) * dt.itemsize for i, dt in zip(present, dtypes)]
        out_offsets = np.cumsum([0] + sizes[:-1]).tolist()
        src = cupy.asarray(np.concatenate(parts))  # the one copy
        dst = cupy.empty(max(1, sum(sizes)), dtype=cupy.uint8)
        _, statuses = codec._oc_batch.codec.decode(
            src, src_offsets=src_offsets, src_sizes=src_sizes, out=dst, out_offsets=out_offsets,
            uncomp_sizes=sizes, errors="status")
        if any(s == opencomp.Status.UNSUPPORTED for s in statuses):
            return False  # e.g. Blosc with zlib inside: zarr's path (and the batch engine's CPU fallback)
        for k, s in enumerate(statuses):
            if s != opencomp.Status.OK:
                raise codec._oc_error(ChunkFailure(present[k], s, describe(s)), present[k], len(batch_info))
        for k, i in enumerate(present):
            spec = batch_info[i][1]
            decoded[i] = dst[out_offsets[k]:out_offsets[k] + sizes[k]].view(dtypes[k]).reshape(spec.shape)
    for i, (_getter, spec, chunk_selection, out_selection, *_rest) in enumerate(batch_info):
        chunk = decoded.get(i)
        if chunk is None:
            out[out_selection] = fill_value_or_default(spec)
            continue
        tmp = spec.prototype.nd_buffer.from_ndarray_like(chunk)[chunk_selection]
        if drop_axes:
            tmp = tmp.squeeze(axis=drop_axes)
        out[out_selection] = tmp
    return True
