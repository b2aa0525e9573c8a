#!/usr/bin/env python3
"""gdeflate_interop.py - check that our GDeflate pages and nvCOMP's agree.

The full-scale run of 2026-11-27 (bench/gpu/dev/GDEFLATE_NOTES.md) found that
nvCOMP decoded only 374 of 512 of our 64 KiB pages and we 350 of 512 of its
pages, while each library decoded its own; the difference was then found with
this tool (symbol 285: docs/FORMAT.md, "GDeflate").  It brings nvCOMP's pages
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
files, in the same format, to ours_gdeflate_pages.bin (`ours-gpu LEVEL
FILE...` there: the GPU encoder's pages, LEVEL 0 = the default); `nvdecode PAGES.bin
[SECONDS]` (there, same environment as `dump`) decodes each page alone with
nvCOMP and prints, per page that fails, what nvCOMP gave, then a summary
line (exit status 0 when every page decodes exactly).  A bad page can
kill the process's CUDA context (an illegal memory access), so the pages
are decoded in child processes: a child decodes pages from a start page on;
after a page nvCOMP raises on it checks that CUDA still works, and if not it
stops there: that page is tried again alone in a fresh child (to be sure it
is the culprit) and the next child starts after it.  Every page gets its
own verdict, whatever the others do.  About a minute for 176 good pages, a few seconds more per page that
kills the context, 120 s for one that hangs; after SECONDS (default 480)
the pages left are reported as not tried.

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


def ours(files, gpu=False, level=None):
    """Our pages of the files: the CPU engine's encoder, or (gpu) the GPU's
    (device arrays in, one batch), at `level` (None: the default)."""
    import numpy as np
    import opencomp as oc

    raws = pages_of(files)
    kw = {} if level is None else {"level": level}
    codec = oc.Codec(algorithm="GDeflate", bitstream_kind=oc.BitstreamKind.RAW, **kw)
    if gpu:
        import cupy as cp

        enc = codec.encode([cp.asarray(np.frombuffer(r, np.uint8)) for r in raws])
        comps = [cp.asarray(c).view(cp.uint8).reshape(-1).get().tobytes() for c in enc]
    else:
        comps = [bytes(np.asarray(codec.encode(np.frombuffer(r, np.uint8)))) for r in raws]
    write_pages("ours_gdeflate_pages.bin", raws, comps)
    print("%d pages from %d files (%s encoder%s) -> ours_gdeflate_pages.bin" % (
        len(raws), len(files), "GPU" if gpu else "CPU", "" if level is None else ", level %d" % level))


def nvdecode_child(path, start, stop):
    """In a child process: nvCOMP decodes pages start..stop-1 one at a time,
    one line per page ("R <page> ok|differ|raise <text>").  After a page
    nvCOMP raises on, a small CuPy computation tells whether the CUDA context
    still works: if so the child goes on, else it exits 3 (a fresh child
    takes the next page)."""
    import cupy as cp
    import numpy as np
    from nvidia import nvcomp as nv

    codec = nv.Codec(algorithm="GDeflate", bitstream_kind=nv.BitstreamKind.RAW, uncomp_chunk_size=PAGE)
    print("V %s" % nv.__version__, flush=True)
    pages = read_pages(path)
    for i in range(start, min(stop, len(pages))):
        raw, comp = pages[i]
        try:
            d = codec.decode(nv.as_array(cp.asarray(np.frombuffer(comp, np.uint8))))
            got = cp.asarray(d).view(cp.uint8).reshape(-1).get().tobytes()
            cp.cuda.runtime.deviceSynchronize()
        except Exception as e:
            print("R %d raise %s" % (i, " ".join(str(e).split())), flush=True)
            try:
                alive = int(cp.arange(4).sum().get()) == 6
                cp.cuda.runtime.deviceSynchronize()
            except Exception:
                alive = False
            if not alive:
                print("D %d" % i, flush=True)
                sys.exit(3)
            continue
        if got == raw:
            print("R %d ok" % i, flush=True)
        else:
            first = next((k for k in range(min(len(got), len(raw))) if got[k] != raw[k]), min(len(got), len(raw)))
            print("R %d differ nvCOMP gives %d bytes of %d, first difference at %d" % (i, len(got), len(raw), first),
                  flush=True)


def run_child(path, start, stop, timeout):
    """Runs nvdecode_child; returns ({page: verdict}, nvCOMP version or None, how it ended)."""
    import subprocess

    cmd = [sys.executable, os.path.abspath(__file__), "nvdecode-child", path, str(start), str(stop)]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
        out, end = p.stdout, "exit %d" % p.returncode
        if p.returncode not in (0, 3):
            end += ": " + " ".join(p.stderr.split()[-30:])
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        end = "timeout after %d s" % timeout
    got, version = {}, None
    for line in out.splitlines():
        if line.startswith("V "):
            version = line[2:]
        elif line.startswith("R "):
            _, i, verdict = line.split(" ", 2)
            got[int(i)] = verdict
        elif line.startswith("D "):
            end = "the CUDA context died at page " + line[2:]
    return got, version, end


def nvdecode(path, timeout=120, budget=480):
    import time

    n = len(read_pages(path))
    verdict, version, at, t0 = {}, None, 0, time.time()
    while at < n and time.time() - t0 < budget:
        got, v, end = run_child(path, at, n, min(timeout, max(10, budget - (time.time() - t0))))
        if v is None and not got:
            sys.exit("nvdecode: nvCOMP did not start (%s); see the environment in this file's docstring" % end)
        version = version or v
        verdict.update(got)
        if at not in got:  # no verdict for the child's first page: it hung or crashed on it
            verdict[at] = "no result (%s)" % end
            at += 1
            continue
        last = max(got)
        if end.startswith("the CUDA context") and last > at:  # confirm the culprit alone, in a clean context
            alone, _, end1 = run_child(path, last, last + 1, timeout)
            verdict[last] = alone.get(last, "no result alone (%s)" % end1)
            if not verdict[last].startswith("raise"):
                verdict[last] += " (alone; it raised after earlier pages in one process: %s)" % got[last]
        elif end.startswith("timeout") and last + 1 < n:  # it hung on the page after its last verdict
            verdict[last + 1] = "no result (%s)" % end
            last += 1
        at = last + 1
    bad = 0
    for i in range(n):
        if verdict.get(i) != "ok":
            bad += 1
            print("page %3d: %s" % (i, verdict.get(i, "not tried (time budget of %d s spent)" % budget)))
    print("%s: nvCOMP %s: %d of %d pages decode exactly, %d differ or fail" % (path, version, n - bad, n, bad))
    return 1 if bad else 0


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
    elif len(sys.argv) >= 4 and sys.argv[1] == "ours-gpu":
        ours(sys.argv[3:], gpu=True, level=int(sys.argv[2]) or None)
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "nvdecode":
        sys.exit(nvdecode(sys.argv[2], budget=int(sys.argv[3]) if len(sys.argv) == 4 else 480))
    elif len(sys.argv) == 5 and sys.argv[1] == "nvdecode-child":
        nvdecode_child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2]))
    else:
        sys.exit(__doc__)
