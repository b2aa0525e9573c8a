#!/usr/bin/env python3
"""gdeflate_interop.py - find where our GDeflate pages and nvCOMP's part.

The full-scale run of 2026-11-27 (bench/gpu/dev/GDEFLATE_NOTES.md) found that
nvCOMP decodes only 374 of 512 of our 64 KiB pages and we 350 of 512 of its
pages, while each library decodes its own.  This tool brings nvCOMP's pages
to a machine without a GPU, where our CPU decoder (the reference of the GPU
one) can be taken apart on them:

  THERE (the GPU machine; carry .gpu/bench-deps and this tree):
    mkdir -p /tmp/s && for t in .gpu/bench-deps/nvcomp*.tar.xz; do tar -xJf $t -C /tmp/s; done
    PYTHONPATH=/tmp/s LD_LIBRARY_PATH=/tmp/s/nvidia/libnvcomp/lib64 \\
      python3 bench/gpu/dev/gdeflate_interop.py dump FILE... > /dev/null
    -> $OUT/nv_gdeflate_pages.bin (one call of about a minute)
  HERE (opencomp installed):
    python3 bench/gpu/dev/gdeflate_interop.py check nv_gdeflate_pages.bin
    -> per page: our status and, when it decodes, the first differing byte

The other direction: `ours FILE...` (here) writes our pages of the same
files, in the same format, to ours_gdeflate_pages.bin; `nvdecode
ours_gdeflate_pages.bin` (there) decodes each page alone with nvCOMP and
prints, per page, whether it gives back the raw bytes.

File format (little-endian): u32 page count, then per page u32 raw length,
the raw bytes, u32 nvCOMP's compressed length, its bytes.
"""
import os
import struct
import sys

PAGE = 65536


def pages_of(files, per_file=16):
    """Up to per_file 64 KiB pages from the start of each file."""
    out = []
    for f in files:
        data = open(f, "rb").read()
        for i in range(0, min(len(data), per_file * PAGE), PAGE):
            out.append(data[i : i + PAGE])
    return out


def dump(files):
    import cupy as cp
    import numpy as np
    from nvidia import nvcomp as nv

    raws = pages_of(files)
    buf = cp.asarray(np.frombuffer(b"".join(raws), np.uint8))
    offs, sizes = [], []
    at = 0
    for r in raws:
        offs.append(at)
        sizes.append(len(r))
        at += len(r)
    codec = nv.Codec(algorithm="GDeflate", bitstream_kind=nv.BitstreamKind.RAW, uncomp_chunk_size=PAGE)
    comp = codec.encode(nv.as_arrays(buf, offs, sizes), compression_config=codec.compression_config(sizes))
    comps = [cp.asarray(comp[i]).view(cp.uint8).reshape(-1).get().tobytes() for i in range(len(raws))]
    path = os.path.join(os.environ.get("OUT", "."), "nv_gdeflate_pages.bin")
    write_pages(path, raws, comps)
    print("%d pages from %d files, nvCOMP %s -> %s" % (len(raws), len(files), nv.__version__, path))


def write_pages(path, raws, comps):
    parts = [struct.pack("<I", len(raws))]
    for raw, c in zip(raws, comps):
        parts += [struct.pack("<I", len(raw)), raw, struct.pack("<I", len(c)), c]
    open(path, "wb").write(b"".join(parts))


def ours(files):
    import numpy as np
    import opencomp as oc

    raws = pages_of(files)
    codec = oc.Codec(algorithm="GDeflate", bitstream_kind=oc.BitstreamKind.RAW)
    comps = [bytes(np.asarray(codec.encode(np.frombuffer(r, np.uint8)))) for r in raws]
    write_pages("ours_gdeflate_pages.bin", raws, comps)
    print("%d pages from %d files -> ours_gdeflate_pages.bin" % (len(raws), len(files)))


def nvdecode(path):
    import cupy as cp
    import numpy as np
    from nvidia import nvcomp as nv

    codec = nv.Codec(algorithm="GDeflate", bitstream_kind=nv.BitstreamKind.RAW, uncomp_chunk_size=PAGE)
    bad = 0
    for i, (raw, comp) in enumerate(read_pages(path)):
        try:
            d = codec.decode(nv.as_array(cp.asarray(np.frombuffer(comp, np.uint8))))
            got = cp.asarray(d).view(cp.uint8).reshape(-1).get().tobytes()
        except Exception as e:
            bad += 1
            print("page %3d: %d -> %d bytes: nvCOMP: %s" % (i, len(raw), len(comp), e))
            continue
        if got != raw:
            bad += 1
            first = next((k for k in range(min(len(got), len(raw))) if got[k] != raw[k]), min(len(got), len(raw)))
            print("page %3d: %d -> %d bytes: nvCOMP gives %d bytes, first difference at %d"
                  % (i, len(raw), len(comp), len(got), first))
    print("%s: nvCOMP %s: %d pages differ or fail" % (path, nv.__version__, bad))


def read_pages(path):
    b = open(path, "rb").read()
    (n,) = struct.unpack_from("<I", b, 0)
    at, pages = 4, []
    for _ in range(n):
        (rl,) = struct.unpack_from("<I", b, at)
        raw = b[at + 4 : at + 4 + rl]
        at += 4 + rl
        (cl,) = struct.unpack_from("<I", b, at)
        comp = b[at + 4 : at + 4 + cl]
        at += 4 + cl
        pages.append((raw, comp))
    return pages


def check(path):
    import numpy as np
    import opencomp as oc

    codec = oc.Codec(algorithm="GDeflate", bitstream_kind=oc.BitstreamKind.RAW)
    bad = 0
    for i, (raw, comp) in enumerate(read_pages(path)):
        try:
            got = bytes(np.asarray(codec.decode(np.frombuffer(comp, np.uint8), uncomp_sizes=[len(raw)])))
        except Exception as e:  # our status, as the Python API reports it
            bad += 1
            print("page %3d: %d -> %d bytes: %s" % (i, len(raw), len(comp), e))
            continue
        if got != raw:
            bad += 1
            first = next((k for k in range(min(len(got), len(raw))) if got[k] != raw[k]), min(len(got), len(raw)))
            print("page %3d: decodes to different bytes (%d of %d; first difference at %d)"
                  % (i, len(got), len(raw), first))
    print("%s: %d pages differ or fail" % (path, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "dump":
        dump(sys.argv[2:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "ours":
        ours(sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "nvdecode":
        nvdecode(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    else:
        sys.exit(__doc__)
