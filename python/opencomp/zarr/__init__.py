"""zarr-python 3 codecs backed by opencomp: batched, and on the GPU for device buffers.

Drop-in classes for zarr's own compressors.  Each subclasses the stock class,
so the metadata it reads and writes is the stock codec's, byte for byte, and
the chunks are the same standard streams:

=====================  ==============================  ====================
zarr codec name        stock class                     opencomp class
=====================  ==============================  ====================
``zstd``               zarr.codecs.ZstdCodec           ZstdCodec
``gzip``               zarr.codecs.GzipCodec           GzipCodec
``blosc``              zarr.codecs.BloscCodec          BloscCodec
``numcodecs.blosc``    zarr.codecs.numcodecs.Blosc     NumcodecsBlosc
``numcodecs.zstd``     zarr.codecs.numcodecs.Zstd      NumcodecsZstd
``numcodecs.lz4``      zarr.codecs.numcodecs.LZ4       NumcodecsLZ4
``numcodecs.zlib``     zarr.codecs.numcodecs.Zlib      NumcodecsZlib
``numcodecs.gzip``     zarr.codecs.numcodecs.GZip      NumcodecsGZip
=====================  ==============================  ====================

They override zarr's batch ``decode``/``encode`` so that a whole batch of
chunks is ONE opencomp call.  Chunks in host memory run on the CPU engine;
chunks in device memory (``zarr.config.enable_gpu()``: CuPy-backed
``zarr.buffer.gpu`` buffers) decode on the GPU straight into device memory.
Where this opencomp build has no GPU kernel for an algorithm, device chunks
are decoded on the CPU and copied to the device in one copy per batch, with
one ``GpuFallbackWarning``; when the kernel lands, nothing changes for you.

Make them the default for every array opened afterwards::

    import opencomp.zarr
    opencomp.zarr.enable(batch_size=256)   # also: with opencomp.zarr.enable(): ...

``enable`` points zarr's config at these classes (they are registered in the
``zarr.codecs`` entry-point group and on import) and at
``OpencompCodecPipeline``, zarr's batched pipeline plus one thing: a chunk
that fails to decode raises ``ChunkDecodeError`` naming its store key (and the
inner chunk for sharded arrays).  ``codec_pipeline.batch_size`` (zarr's
default: 1) is how many chunks reach a codec per call: raise it, or the codec
sees one chunk at a time.  See docs/ZARR.md.

Importing ``opencomp.zarr`` does not import zarr: the classes and functions
below load it on first use (``pip install opencomp[zarr]``), so code that
never touches zarr runs without it.
"""

__all__ = [
    "BloscCodec",
    "ChunkDecodeError",
    "GpuFallbackWarning",
    "GzipCodec",
    "NumcodecsBlosc",
    "NumcodecsGZip",
    "NumcodecsLZ4",
    "NumcodecsZlib",
    "NumcodecsZstd",
    "OpencompCodecPipeline",
    "ZstdCodec",
    "disable",
    "enable",
    "enabled",
    "CODECS",
]


def __getattr__(name):
    if name.startswith("__") or name == "_impl":
        raise AttributeError(name)
    import importlib

    try:
        _impl = importlib.import_module(__name__ + "._impl")
    except ImportError as e:
        raise ImportError(
            f"opencomp.zarr.{name} needs zarr-python 3 (and numcodecs): pip install opencomp[zarr] ({e})"
        ) from e
    try:
        return getattr(_impl, name)
    except AttributeError:
        raise AttributeError(f"module 'opencomp.zarr' has no attribute {name!r}") from None


def __dir__():
    return sorted(set(globals()) | set(__all__))
