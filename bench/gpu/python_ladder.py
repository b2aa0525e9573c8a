#!/usr/bin/env python3
"""python_ladder.py - the batch ladder of oc_gpu_bench through the Python APIs:
opencomp (``opencomp.Codec``) and NVIDIA's ``nvidia.nvcomp.Codec``, on CuPy
device arrays, the very batches the C program times (batch_plan.py, same
"batch_plan" identity), so each Python layer's cost shows beside its kernels.
Rows carry ``"scope": "python"`` and wall-clock times (the call, then a device
synchronisation).

What is timed, per rung (first n chunks of the batch, RAW streams):
  opencomp  encode:  codec.encode(buf, src_offsets=o, src_sizes=s, out=comp_buf, out_offsets=slots, out_sizes=room)
                                 (--offsets device: o, s, slots, room CuPy int64 arrays and comp_sizes= a CuPy
                                 array receiving the sizes, so the call does no per-chunk host work either)
                                 (one buffer in, one out, slots of 2x the chunk + 4 KiB; where the library has no
                                 such call, codec.encode(views), a list of CuPy views of the batch)
            decode:  codec.decode(buf, src_offsets=o, src_sizes=s, out=out_buf, out_offsets=oo,
                                  uncomp_sizes=sizes)   (one buffer in, one out: no per-chunk objects;
                                 --offsets device (default): o, s, oo, sizes are CuPy int64 arrays, so the
                                 library builds the pointer arrays on the GPU; --offsets host: numpy int64)
  nvCOMP    encode:  codec.encode(batch, compression_config=cc)
            decode:  codec.decode(comp, out=batch, decompression_config=dc)
nvCOMP's BatchArrays (nvcomp.as_arrays(buffer, offsets, sizes)) and configs
are built once per rung outside the timing, as its documentation recommends;
opencomp's views, offset and size lists likewise (encode's per-chunk outputs are
packed into one buffer, untimed).  Every decode is checked byte for
byte against the input on the GPU.  The repeat and skip rules are
oc_gpu_bench's (ladder_budget.h): a warm-up unless a call is predicted to
take >= 1 s, timed calls aiming at --target seconds, a rung skipped (and
named) when it would pass --rung-cap or the --budget.  A compression skipped
at a large rung is replaced by one cycle's streams, repeated, for the decode.

The order (issue 16: a Python row for every algorithm at full scale, within the
full-scale run's Python budget): first the top rung (1 GiB) of every cell, chunk
size by chunk size, each chunk size an equal share of --top-share of the budget,
its timed calls at most --top-repeats; its compression is timed only where one
cycle's encode predicts it fits the rung cap (else the decode takes that
cycle's streams, repeated); then, with what is left, the smaller rungs of the
core codecs (lz4, snappy, deflate, zstd, gdeflate).  The other codecs run the
top rung only:
  zlib, gzip          RAW zlib / gzip streams (deflate's kernel, their checksums)
  cascaded, bitcomp, ans  --data-type (as oc_gpu_bench --data-type; give files of that type)
  blosc               c-blosc chunks written on the host by libblosc through the CPU
                      engine, as oc_gpu_bench --blosc writes them (--blosc-cname,
                      --blosc-shuffle, --blosc-typesize, clevel 5): rows carry "blosc",
                      the case name ("lz4 shuffle ts4"), as oc_gpu_bench's do
Deflate's family is compressed at --deflate-level (0: the library's default,
recorded as 0, as oc_gpu_bench records it).  nvCOMP runs the core codecs only.

    python3 bench/gpu/python_ladder.py --append-to RUN.json [options] FILE...   (rows join RUN.json)
    python3 bench/gpu/python_ladder.py --json OUT.json [options] FILE...
    python3 bench/gpu/python_ladder.py --dry-run [options] FILE...            (the plan; no GPU)
"""

import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import batch_plan as bp  # noqa: E402

CORE = ["lz4", "snappy", "deflate", "zstd", "gdeflate"]
CODECS = CORE + ["zlib", "gzip", "cascaded", "bitcomp", "ans", "blosc"]
API_NAMES = {"lz4": "LZ4", "snappy": "Snappy", "deflate": "Deflate", "zstd": "Zstd", "gdeflate": "GDeflate",
             "zlib": "Zlib", "gzip": "Gzip", "cascaded": "Cascaded", "bitcomp": "Bitcomp", "ans": "ANS",
             "blosc": "Blosc"}
DEFLATES = ("deflate", "zlib", "gzip", "gdeflate")
CONTENDERS = {"opencomp": "opencomp-gpu", "nvcomp": "nvcomp-gpu"}
POISON = 0xEE  # output bytes before a decode, and the batch buffer's gaps between chunks


def _list(conv, choices=None):
    def parse(s):
        out = []
        for item in s.split(","):
            v = conv(item.strip())
            if choices is not None and v not in choices:
                raise argparse.ArgumentTypeError("%r is not one of %s" % (item, ", ".join(choices)))
            out.append(v)
        if not out:
            raise argparse.ArgumentTypeError("empty list")
        return out

    return parse


def _bytes(s):
    try:
        return bp.parse_bytes(s)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def _rung(s):
    try:
        return bp.parse_rung(s)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e))


def _positive(conv):
    def parse(s):
        v = conv(s)
        if not v > 0:
            raise argparse.ArgumentTypeError("must be positive: %r" % s)
        return v

    return parse


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="corpus files (the same as oc_gpu_bench's, in the same order)")
    ap.add_argument("--chunks", type=_list(_bytes), default=[64 << 10, 256 << 10, 1 << 20, 4 << 20])
    ap.add_argument("--sizes", type=_list(_rung), default=[0, 1 << 20, 32 << 20, 256 << 20, 1 << 30],
                    help="ladder rungs: 1c, sizes (1M, 1G), all (default 1c,1M,32M,256M,1G)")
    ap.add_argument("--codecs", type=_list(str, CODECS), default=list(CORE),
                    help="%s (default: the first five)" % ",".join(CODECS))
    ap.add_argument("--contenders", type=_list(str, list(CONTENDERS)), default=list(CONTENDERS))
    ap.add_argument("--label", help="the rows' \"file\" (default: \"mix of N files\", as oc_gpu_bench)")
    ap.add_argument("--zstd-level", type=int, default=3, help="opencomp's zstd level (default 3)")
    ap.add_argument("--budget", type=_positive(float), default=150.0, help="seconds for the whole run")
    ap.add_argument("--rung-cap", type=_positive(float), default=3.0, help="most seconds per rung")
    ap.add_argument("--target", type=_positive(float), default=0.25, help="seconds the timed calls aim at")
    ap.add_argument("--max-repeats", type=_positive(int), default=7)
    ap.add_argument("--top-repeats", type=_positive(int), default=3, help="most timed calls at the top rung")
    ap.add_argument("--top-share", type=float, default=0.7,
                    help="share of the budget for the top rungs, first (the rest: the smaller rungs)")
    ap.add_argument("--offsets", choices=["device", "host"], default="device",
                    help="opencomp decode: offset and size arrays in device memory (CuPy) or host memory (numpy)")
    ap.add_argument("--data-type", default="", help="element type of cascaded/bitcomp/ans (<i4, <i8, bf16, ...)")
    ap.add_argument("--deflate-level", type=int, default=0,
                    help="opencomp's deflate/zlib/gzip/gdeflate level (0: the library's default)")
    ap.add_argument("--blosc-cname", default="lz4")
    ap.add_argument("--blosc-shuffle", choices=["shuffle", "bitshuffle"], default="shuffle")
    ap.add_argument("--blosc-typesize", type=_positive(int), default=4)
    ap.add_argument("--blosc-clevel", type=int, default=5)
    out = ap.add_mutually_exclusive_group(required=True)
    out.add_argument("--append-to", metavar="RUN.json", help="add the rows to oc_gpu_bench's run file")
    out.add_argument("--json", metavar="OUT.json", help="write a run file of these rows alone")
    out.add_argument("--dry-run", action="store_true", help="print the plan and exit (no GPU needed)")
    ap.add_argument("--keep-other-labels", action="store_true",
                    help="with --append-to: keep the Python rows of other batch labels (a run per file or case)")
    args = ap.parse_args(argv)
    if any(c > 1 << 31 for c in args.chunks):
        ap.error("chunk sizes up to 2 GiB")
    if len(set(os.path.basename(f) for f in args.files)) != len(args.files):
        ap.error("two files with the same base name: the batch identity could not tell them apart")
    return args


class Budget:
    """ladder_budget.c's rules (bench/gpu/ladder_budget.h), for wall-clock Python calls."""

    def __init__(self, seconds, rung_cap, target, max_repeats, slow=1.0, parallel_chunks=132):
        self.deadline = time.monotonic() + seconds
        self.rung_cap, self.target, self.max_repeats, self.slow = rung_cap, target, max_repeats, slow
        self.parallel = parallel_chunks

    def plan(self, nbytes, chunks, prev):
        """(run, warmup, predicted_s, why) for a rung of nbytes in chunks; prev = (bytes, chunks, seconds) of the
        previous rung of the cell, or (0, 0, 0)."""
        prev_bytes, prev_chunks, prev_s = prev
        pred = 0.0
        if prev_bytes and prev_s and prev_chunks and chunks:
            side = min(chunks, self.parallel) / min(prev_chunks, self.parallel)
            pred = prev_s * nbytes / prev_bytes / max(side, 1.0)
        warm = not pred >= self.slow
        cost = pred * (warm + 1)
        left = self.deadline - time.monotonic()
        if left <= 0:
            return False, warm, pred, "the run's time budget is spent"
        if cost > self.rung_cap:
            return False, warm, pred, "estimated %.1f s > the %.0f s cap per rung" % (cost, self.rung_cap)
        if cost > left:
            return False, warm, pred, "estimated %.1f s, %.1f s of the run's budget left" % (cost, left)
        return True, warm, pred, ""

    def repeats(self, call_s, spent_s, most=None):
        most = self.max_repeats if most is None else min(most, self.max_repeats)
        if not call_s > 0:
            return most
        room = min(self.target, self.rung_cap - spent_s, self.deadline - time.monotonic())
        return max(1, min(most, int(room / call_s)))


def rungs_of(plan, sizes):
    """[(n, bytes, target)] ascending, one per distinct batch."""
    seen = {}
    for t in sizes:
        target = plan.distinct_bytes if t is bp.CYCLE else t
        n = plan.rung_chunks(target)
        seen.setdefault(n, (n, plan.bytes(n), target))
    return [seen[n] for n in sorted(seen)]


def label_of(args):
    return args.label or "mix of %d files" % len(args.files)


def dry_run(args, sizes):
    names = [os.path.basename(f) for f in args.files]
    print("python_ladder plan: %s, %d bytes; contenders %s; codecs %s" % (
        label_of(args), sum(sizes), ",".join(args.contenders), ",".join(args.codecs)))
    for chunk in args.chunks:
        plan = bp.Plan(sizes, chunk)
        rs = rungs_of(plan, args.sizes)
        print("chunk %s: cycle %d chunks; rungs: %s" % (bp.human(chunk), plan.ndistinct, ", ".join(
            "%d chunks / %d bytes (plan %s)" % (n, b, plan.plan_id(names, n)) for n, b, _ in rs)))
    print("cells: %d (codec x contender x chunk size), budget %.0f s" % (
        len(args.codecs) * len(args.contenders) * len(args.chunks), args.budget))
    return 0


# ---- the GPU part (imports cupy and the libraries only when it runs) ----------------------------------------------


class Run:
    def __init__(self, args, cp):
        self.args, self.cp = args, cp
        self.rows, self.skipped, self.failures = [], [], []
        sms = 132
        try:
            sms = int(cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"])
        except Exception:
            pass
        self.budget = Budget(args.budget, args.rung_cap, args.target, args.max_repeats, parallel_chunks=sms)
        self.deadline = self.budget.deadline
        self.copy_gbps = 0.0

    def sync(self):
        self.cp.cuda.runtime.deviceSynchronize()

    def timed(self, fn, nbytes, chunks, prev, what, most=None):
        """Time fn per the budget: (median_s, repeats, warmup, last result) or None (skipped); at most `most`
        timed calls."""
        run, warm, pred, why = self.budget.plan(nbytes, chunks, prev)
        if not run:
            self.skipped.append("python: %s: %s" % (what, why))
            print("  skipped: %s: %s" % (what, why))
            return None
        t0 = time.perf_counter()
        res = None
        call = pred
        if warm:
            s = time.perf_counter()
            res = fn()
            self.sync()
            call = time.perf_counter() - s
        reps = self.budget.repeats(call, time.perf_counter() - t0, most)
        times = []
        for _ in range(reps):
            s = time.perf_counter()
            res = fn()
            self.sync()
            times.append(time.perf_counter() - s)
        return statistics.median(times), reps, int(warm), res


class OpencompLib:
    """opencomp's Python API: lists of CuPy views in, out= slices of one buffer."""

    name = "opencomp-gpu"

    def __init__(self, cp, zstd_level, args=None):
        import opencomp

        self.oc, self.cp, self.zstd_level = opencomp, cp, zstd_level
        self.data_type = getattr(args, "data_type", "") or ""
        self.deflate_level = getattr(args, "deflate_level", 0) or 0
        self.offsets = getattr(args, "offsets", "device") or "device"
        self.dev_encode = self.offsets == "device" and self._device_encode_works()
        self.blosc = None
        self.packed = self._packed_encode_works()
        if args is not None:
            self.blosc = (args.blosc_cname, 1 if args.blosc_shuffle == "shuffle" else 2, args.blosc_typesize,
                          args.blosc_clevel)
        self.known = {a.lower() for a in opencomp.algorithms()}
        self.kernels = {a.lower() for a in opencomp.algorithms("cuda")}

    def _packed_encode_works(self):
        """Whether this opencomp has the one-buffer encode (issue 16, session 9)."""
        import numpy as np

        try:
            c = self.oc.Codec(algorithm="LZ4", bitstream_kind=self.oc.BitstreamKind.RAW)
            c.encode(np.zeros(64, np.uint8), src_offsets=[0], src_sizes=[64], out=np.zeros(512, np.uint8),
                     out_offsets=[0])
            return True
        except TypeError:
            return False

    def supports(self, codec):
        return codec in self.known

    def supports_chunk(self, codec, chunk):
        """GDeflate's RAW streams are pages of at most 64 KiB (docs/FORMAT.md): larger chunks are skipped and
        named, as oc_gpu_bench skips them (compress bound 0)."""
        return codec != "gdeflate" or chunk <= 65536

    def path(self, codec):
        return "gpu-kernel" if codec in self.kernels else "host-staged"

    def level(self, codec):
        if codec == "blosc" and self.blosc:
            return self.blosc[3]
        return self.zstd_level if codec == "zstd" else self.deflate_level if codec in DEFLATES else 0

    def case(self, codec):
        """oc_gpu_bench --blosc's case name of a Blosc row ("lz4 shuffle ts4"), else None."""
        if codec != "blosc" or not self.blosc:
            return None
        return "%s %s ts%d" % (self.blosc[0], "shuffle" if self.blosc[1] == 1 else "bitshuffle", self.blosc[2])

    def api(self):
        enc = ("encode(one buffer, src_offsets=, src_sizes=, out=one buffer, out_offsets=, out_sizes=%s)"
               % (", comp_sizes=; int64 arrays in device memory" if self.dev_encode else "")
               if self.packed else "encode(list of CuPy views)")
        return ("opencomp.Codec(RAW): %s; decode(one buffer, src_offsets=, src_sizes=, "
                "out=one buffer, out_offsets=, uncomp_sizes=; "
                "int64 arrays in %s memory)" % (enc, self.offsets))

    def setup(self, codec, chunk, batch):
        level = self.level(codec) or None
        kw = {}
        if codec in ("cascaded", "bitcomp", "ans") and self.data_type:
            kw["data_type"] = self.data_type
        if codec == "blosc" and self.blosc:
            kw.update(cname=self.blosc[0], shuffle=self.blosc[1], typesize=self.blosc[2])
        self.codec = self.oc.Codec(algorithm=API_NAMES[codec], bitstream_kind=self.oc.BitstreamKind.RAW,
                                   uncomp_chunk_size=chunk, level=level, **kw)
        self.batch = batch
        self.host_encode = codec == "blosc"  # libblosc's chunks, as oc_gpu_bench --blosc writes them

    def _device_encode_works(self):
        """Whether this opencomp encodes with offsets on the device (comp_sizes=; issue 16, session 10)."""
        cp = self.cp
        try:
            c = self.oc.Codec(algorithm="LZ4", bitstream_kind=self.oc.BitstreamKind.RAW)
            a = [cp.asarray([v], dtype=cp.int64) for v in (0, 64, 0, 512)]
            c.encode(cp.zeros(64, cp.uint8), src_offsets=a[0], src_sizes=a[1], out=cp.zeros(512, cp.uint8),
                     out_offsets=a[2], out_sizes=a[3], comp_sizes=cp.zeros(1, cp.int64), errors="status")
            return True
        except Exception:  # noqa: BLE001 - an opencomp without it (TypeError), or any failure: the host path
            return False

    def inputs(self, n):
        if self.host_encode:
            return self.batch.host_views(n)
        if self.packed and self.offsets == "device" and self.dev_encode:
            import numpy as np

            cp = self.cp
            slot = 2 * self.batch.chunk + 4096
            # built on the host and copied (no CuPy kernel: a first-use compile inside the cycle encode that
            # predicts the rung's made call A skip the 64 KiB compression rows as "14.2 s > the cap")
            return _PackedIn(cp.asarray(np.asarray(self.batch.offsets[:n], np.int64)),
                             cp.asarray(np.asarray(self.batch.sizes[:n], np.int64)),
                             cp.empty(n * slot, dtype=cp.uint8), cp.asarray(np.arange(n, dtype=np.int64) * slot),
                             cp.asarray(np.full(n, slot, np.int64)), cp.zeros(n, dtype=cp.int64))
        if self.packed:
            # built outside the timing, as nvCOMP's BatchArrays are: int64 offset and size arrays, and one
            # output buffer of fixed slots (2x the chunk + 4 KiB: above every algorithm's bound)
            import numpy as np

            slot = 2 * self.batch.chunk + 4096
            ooffs = np.arange(n, dtype=np.int64) * slot
            return _PackedIn(np.asarray(self.batch.offsets[:n], np.int64), np.asarray(self.batch.sizes[:n], np.int64),
                             self.cp.empty(n * slot, dtype=self.cp.uint8), ooffs, np.full(n, slot, np.int64))
        return self.batch.in_views[:n]

    def encode(self, inputs):
        if isinstance(inputs, _PackedIn) and inputs.csz is not None:  # device arrays: converted untimed, later
            sizes = self.codec.encode(self.batch.in_buf, src_offsets=inputs.soffs, src_sizes=inputs.ssizes,
                                      out=inputs.buf, out_offsets=inputs.ooffs, out_sizes=inputs.room,
                                      comp_sizes=inputs.csz)
            return (inputs.buf, inputs.ooffs, sizes)
        if isinstance(inputs, _PackedIn):
            sizes = self.codec.encode(self.batch.in_buf, src_offsets=inputs.soffs, src_sizes=inputs.ssizes,
                                      out=inputs.buf, out_offsets=inputs.ooffs, out_sizes=inputs.room)
            return (inputs.buf, inputs.ooffs.tolist(), sizes)
        return self.codec.encode(inputs)

    def comp_sizes(self, comp):
        if isinstance(comp, tuple):
            return _host_list(comp[2])
        return [int(a.buffer_size) for a in comp]

    def comp_views(self, comp):
        if isinstance(comp, tuple):
            buf, offs, sizes = comp
            return [buf[o:o + s] for o, s in zip(_host_list(offs), _host_list(sizes))]
        if self.host_encode:  # host streams: to the device, one copy each (untimed)
            import numpy as np

            return [self.cp.asarray(np.frombuffer(memoryview(a), dtype=np.uint8)) for a in comp]
        return [self.cp.asarray(a).view(self.cp.uint8).reshape(-1) for a in comp]

    def comp_from_buffer(self, buf, offsets, sizes):
        return (buf, list(offsets), list(sizes))

    def decoder(self, comp, n):
        """The fast path a user with a batch in one buffer writes: no per-chunk objects.  encode()'s per-chunk
        Arrays are first packed into one buffer, untimed, as replicate() packs its streams."""
        if not isinstance(comp, tuple):
            views = self.comp_views(comp)
            offs, total = [], 0
            for v in views:
                offs.append(total)
                total += (int(v.size) + 255) // 256 * 256
            buf = self.cp.empty(max(total, 1), dtype=self.cp.uint8)
            for o, v in zip(offs, views):
                buf[o:o + v.size] = v
            comp = (buf, offs, [int(v.size) for v in views])
        buf, soffs, ssizes = comp
        soffs, ssizes = _host_list(soffs), _host_list(ssizes)
        out, ooffs, sizes = self.batch.out_buf, self.batch.offsets[:n], self.batch.sizes[:n]
        # the offset and size lists as int64 arrays, built once outside the timing as nvCOMP's
        # BatchArrays are: the call then copies each whole instead of converting 16k+ ints
        import numpy as np

        soffs, ssizes, ooffs, sizes = (np.asarray(v, dtype=np.int64) for v in (soffs, ssizes, ooffs, sizes))
        if self.offsets == "device":  # issue 16: the pointer arrays built on the GPU, no per-chunk host work
            soffs, ssizes, ooffs, sizes = (self.cp.asarray(v) for v in (soffs, ssizes, ooffs, sizes))
        return lambda: self.codec.decode(buf, out=out, src_offsets=soffs, src_sizes=ssizes, out_offsets=ooffs,
                                         uncomp_sizes=sizes)


def _host_list(x):
    """A list of Python ints from a list, a numpy array or a CuPy array (copied to the host: untimed uses)."""
    if hasattr(x, "get"):
        x = x.get()
    return [int(v) for v in x]


class _PackedIn:
    """The one-buffer encode's arguments for the first n chunks of a batch (csz: the device array receiving the
    sizes when the arrays are on the device, else None)."""

    __slots__ = ("soffs", "ssizes", "buf", "ooffs", "room", "csz")

    def __init__(self, soffs, ssizes, buf, ooffs, room, csz=None):
        self.soffs, self.ssizes, self.buf, self.ooffs, self.room = soffs, ssizes, buf, ooffs, room
        self.csz = csz


class NvcompLib:
    """nvidia.nvcomp: BatchArrays carved from one buffer, configs built once."""

    name = "nvcomp-gpu"

    def __init__(self, cp):
        from nvidia import nvcomp

        self.nv, self.cp = nvcomp, cp
        self.version = getattr(nvcomp, "__version__", "?")

    def supports(self, codec):
        return codec in CORE

    def case(self, codec):
        return None

    def supports_chunk(self, codec, chunk):
        return True

    def path(self, codec):
        return ""

    def level(self, codec):
        return 0

    def api(self):
        return ("nvidia.nvcomp %s Codec(RAW): encode(BatchArray, compression_config=cc); "
                "decode(BatchArray, out=BatchArray, decompression_config=dc)" % self.version)

    def setup(self, codec, chunk, batch):
        self.codec = self.nv.Codec(algorithm=API_NAMES[codec], bitstream_kind=self.nv.BitstreamKind.RAW,
                                   uncomp_chunk_size=chunk)
        self.batch = batch
        self.configs = {}

    def _configs(self, n):
        if n not in self.configs:
            cc = self.codec.compression_config(self.batch.sizes[:n])
            self.configs = {n: (cc, self.codec.decompression_config(cc))}
        return self.configs[n]

    def inputs(self, n):
        b = self.batch
        return (self.nv.as_arrays(b.in_buf, b.offsets[:n], b.sizes[:n]), self._configs(n)[0])

    def encode(self, inputs):
        return self.codec.encode(inputs[0], compression_config=inputs[1])

    def comp_sizes(self, comp):
        return [int(s) for s in comp.buffer_sizes]

    def comp_views(self, comp):
        return [self.cp.asarray(comp[i]).view(self.cp.uint8).reshape(-1) for i in range(len(comp))]

    def comp_from_buffer(self, buf, offsets, sizes):
        return self.nv.as_arrays(buf, list(offsets), list(sizes))

    def decoder(self, comp, n):
        b = self.batch
        out = self.nv.as_arrays(b.out_buf, b.offsets[:n], b.sizes[:n])
        dc = self._configs(n)[1]
        return lambda: self.codec.decode(comp, out=out, decompression_config=dc)


class Batch:
    """The largest batch of one chunk size on the GPU (batch_plan layout, gaps poisoned)."""

    def __init__(self, cp, np, plan, datas, top):
        self.cp = cp
        nbuf = plan.buffer_bytes(top)
        cycle = plan.buffer_bytes(plan.ndistinct)
        host = np.full(max(nbuf, cycle), POISON, dtype=np.uint8)
        for i in range(plan.ndistinct):
            f, off, size = plan.chunk(i)
            o = plan.offset(i)
            host[o:o + size] = np.frombuffer(datas[f], dtype=np.uint8, count=size, offset=off)
        for o in range(cycle, nbuf, cycle):
            k = min(cycle, nbuf - o)
            host[o:o + k] = host[:k]
        self.host = host
        self.chunk = plan.chunk_size
        self.in_buf = cp.asarray(host[:nbuf])
        self.out_buf = cp.empty(nbuf, dtype=cp.uint8)
        self.offsets = [plan.offset(i) for i in range(top)]
        self.sizes = [plan.chunk(i)[2] for i in range(top)]
        self.in_views = [self.in_buf[o:o + s] for o, s in zip(self.offsets, self.sizes)]
        self.out_views = [self.out_buf[o:o + s] for o, s in zip(self.offsets, self.sizes)]

    def host_views(self, n):
        return [self.host[o:o + s] for o, s in zip(self.offsets[:n], self.sizes[:n])]

    def span(self, n):
        return self.offsets[n - 1] + self.sizes[n - 1]

    def clear(self, n):
        self.out_buf[: self.span(n)].fill(POISON)

    def verify(self, n):
        s = self.span(n)
        return bool(self.cp.array_equal(self.out_buf[:s], self.in_buf[:s]))


def replicate(cp, lib, cycle_comp, n):
    """The compressed form of the first n chunks from one cycle's streams, each copied into its own place of one
    buffer (distinct memory, as a real batch would be)."""
    views = lib.comp_views(cycle_comp)
    sizes = [int(v.size) for v in views]
    d = len(views)
    offs, total = [], 0
    for i in range(n):
        offs.append(total)
        total += (sizes[i % d] + 255) // 256 * 256
    buf = cp.empty(max(total, 1), dtype=cp.uint8)
    for i in range(n):
        buf[offs[i]:offs[i] + sizes[i % d]] = views[i % d]
    return lib.comp_from_buffer(buf, offs, [sizes[i % d] for i in range(n)]), sum(sizes[i % d] for i in range(n))


def run_cell(run, lib, codec, chunk, plan, batch, rungs, label, names, top=False):
    """The rungs of one cell; top: the top rung alone, first (the module docstring's order): one cycle's encode
    first, timed, predicts the top rung's, and the timed calls are at most --top-repeats."""
    cp = run.cp
    what = "%s %s %s" % (lib.name, codec, bp.human(chunk))
    lib.setup(codec, chunk, batch)
    cycle_comp = None
    prev_c, prev_d = (0, 0, 0.0), (0, 0, 0.0)
    most = run.args.top_repeats if top else None
    if top:
        m = min(plan.ndistinct, batch_top(batch))
        s = time.perf_counter()
        cycle_comp = lib.encode(lib.inputs(m))
        run.sync()
        prev_c = (plan.bytes(m), m, time.perf_counter() - s)
    for n, nbytes, target in rungs:
        rl = "1 chunk" if n == 1 else "%s (%d chunks)" % (bp.human(nbytes), n)
        inputs = lib.inputs(n)
        if getattr(lib, "host_encode", False):
            t = None  # libblosc on the host: oc_gpu_bench --blosc does not time it either
        else:
            t = run.timed(lambda: lib.encode(inputs), nbytes, n, prev_c, "%s: compression at %s" % (what, rl), most)
        comp, cbytes, note = None, 0, ""
        if t is not None:
            prev_c = (nbytes, n, t[0])
            comp, t = t[3], t[:3]  # the last call's streams feed the decode; keep no other reference
            cbytes = sum(lib.comp_sizes(comp))
        else:
            if cycle_comp is None:
                m = min(plan.ndistinct, batch_top(batch))
                cycle_comp = lib.encode(lib.inputs(m))
                run.sync()
            comp, cbytes = replicate(cp, lib, cycle_comp, n)
            note = "compression not timed at this rung (see skipped); the decoded streams are one cycle's, repeated. "
        batch.clear(n)
        dec = lib.decoder(comp, n)
        d = run.timed(dec, nbytes, n, prev_d, "%s: decompression at %s" % (what, rl), most)
        ok = True
        if d is not None:
            prev_d = (nbytes, n, d[0])
            ok = batch.verify(n)
            if not ok:
                run.failures.append("python: %s: decompression at %s: output differs from the input" % (what, rl))
        del comp
        if t is None and d is None:
            continue
        ratio = nbytes / cbytes
        row = {"file": label, "file_bytes": plan.distinct_bytes, "algorithm": codec, "level": lib.level(codec),
               "chunk_size": chunk, "num_chunks": n, "contender": lib.name, "uncompressed_bytes": nbytes,
               "compressed_bytes": cbytes, "ratio": ratio,
               "compress_gbps": nbytes / t[0] / 1e9 if t else None,
               "decompress_gbps": nbytes / d[0] / 1e9 if d else None,
               "timing": "wall-clock", "repeats": (d or t)[1], "scope": "python", "verified": ok,
               "compress_s": t[0] if t else None, "decompress_s": d[0] if d else None,
               "batch_target": target, "batch_plan": plan.plan_id(names, n), "note": note + lib.api()}
        if t:
            row.update(compress_repeats=t[1], compress_warmup=t[2])
        if d:
            row.update(decompress_repeats=d[1], decompress_warmup=d[2])
            if run.copy_gbps > 0:
                row["decompress_roofline"] = row["decompress_gbps"] / (run.copy_gbps * ratio / (1 + ratio))
        if lib.path(codec):
            row["path"] = lib.path(codec)
        if lib.case(codec):
            row["blosc"] = lib.case(codec)
        if codec in ("cascaded", "bitcomp", "ans") and getattr(lib, "data_type", ""):
            row["data_type"] = lib.data_type
        run.rows.append(row)
        print("  %-13s %-8s %-8s %-24s ratio %7.3f  compress %8s  decompress %8s GB/s%s" % (
            lib.name, codec, bp.human(chunk), rl, ratio,
            "%.2f" % row["compress_gbps"] if t else "-", "%.2f" % row["decompress_gbps"] if d else "-",
            "" if ok else " UNVERIFIED"), flush=True)


def batch_top(batch):
    return len(batch.sizes)


def measure_copy_gbps(cp):
    n = 1 << 30
    a, b = cp.ones(n, dtype=cp.uint8), cp.empty(n, dtype=cp.uint8)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for k in range(6):
        start.record()
        b[...] = a
        stop.record()
        stop.synchronize()
        if k:
            times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    return 2.0 * n / statistics.median(times) / 1e9


def gpu_run(args, datas, sizes):
    import cupy as cp
    import numpy as np

    run = Run(args, cp)
    names = [os.path.basename(f) for f in args.files]
    label = label_of(args)
    base = None
    if args.append_to:
        with open(args.append_to) as f:
            base = json.load(f)
        run.copy_gbps = float((base.get("device") or {}).get("d2d_copy_gbps") or 0)
    if not run.copy_gbps:
        run.copy_gbps = measure_copy_gbps(cp)
    libs, versions = [], {}
    for c in args.contenders:
        try:
            lib = OpencompLib(cp, args.zstd_level, args) if c == "opencomp" else NvcompLib(cp)
            libs.append(lib)
            versions[lib.name] = lib.api()
        except Exception as e:  # a library missing there is a named skip, not a crash
            run.skipped.append("python: %s: cannot use it: %s: %s" % (CONTENDERS[c], type(e).__name__, e))
            print("python: %s not run: %s" % (CONTENDERS[c], e))
    # phase 1: the top rung of every cell, each chunk size an equal share of what is left of --top-share;
    # phase 2: the smaller rungs of the core codecs with the rest of the budget
    nsizes = len(rungs_of(bp.Plan(sizes, args.chunks[0]), args.sizes))
    share = 1.0 if nsizes == 1 else min(1.0, max(0.0, args.top_share))
    phase1_end = time.monotonic() + (run.deadline - time.monotonic()) * share
    for phase in (1, 2):
        for ci, chunk in enumerate(args.chunks):
            if phase == 1:
                now = time.monotonic()
                run.budget.deadline = min(run.deadline, now + (phase1_end - now) / (len(args.chunks) - ci))
            else:
                run.budget.deadline = run.deadline
            plan = bp.Plan(sizes, chunk)
            rungs = rungs_of(plan, args.sizes)
            if phase == 2 and len(rungs) == 1:
                continue
            if time.monotonic() >= run.budget.deadline:
                run.skipped.append("python: %s at %s chunks: the run's time budget is spent"
                                   % ("the top rung" if phase == 1 else "the smaller rungs", bp.human(chunk)))
                continue
            try:
                batch = Batch(cp, np, plan, datas, rungs[-1][0])
            except Exception as e:
                run.failures.append("python: %s chunks: cannot build the batch: %s: %s" % (
                    bp.human(chunk), type(e).__name__, e))
                continue
            for codec in args.codecs:
                if phase == 2 and codec not in CORE:
                    continue  # the other codecs: the top rung only
                for lib in libs:
                    if not lib.supports(codec):
                        if phase == 1 and ci == 0:
                            run.skipped.append("python: %s does not run %s" % (lib.name, codec))
                        continue
                    if not lib.supports_chunk(codec, chunk):
                        if phase == 1:
                            run.skipped.append("python: %s %s %s: the format takes no chunk of that size"
                                               % (lib.name, codec, bp.human(chunk)))
                        continue
                    try:
                        run_cell(run, lib, codec, chunk, plan, batch, rungs[-1:] if phase == 1 else rungs[:-1],
                                 label, names, top=phase == 1)
                    except Exception as e:
                        run.failures.append("python: %s %s %s: %s: %s" % (lib.name, codec, bp.human(chunk),
                                                                          type(e).__name__, str(e)[:300]))
                        print("  FAILED: " + run.failures[-1], flush=True)
                        run.sync()
            del batch
            cp.get_default_memory_pool().free_all_blocks()
            write(args, run, base, versions)
    write(args, run, base, versions)
    bad = [r for r in run.rows if not r["verified"]]
    print("python_ladder: %d rows (%d unverified), %d skipped, %d failures" % (
        len(run.rows), len(bad), len(run.skipped), len(run.failures)))
    return 1 if bad or run.failures else 0


def write(args, run, base, versions):
    if base is not None:
        out = dict(base)
        # this run's rows replace the earlier Python rows; with --keep-other-labels only those of the same batch
        # label (and Blosc case), so that a run per file or per case appends beside the earlier ones
        label, cases = label_of(args), {r.get("blosc") for r in run.rows} or {None}
        out["results"] = [r for r in base["results"] if r.get("scope") != "python" or (
            args.keep_other_labels and (r.get("file") != label or r.get("blosc") not in cases))] + run.rows
        old = (lambda s: False) if args.keep_other_labels else (lambda s: s.startswith("python: "))
        out["skipped"] = [s for s in base.get("skipped", []) if not old(s)] + run.skipped
        out["failures"] = [s for s in base.get("failures", []) if not old(s)] + run.failures
        out["python"] = {"apis": versions, "budget_s": args.budget, "rung_cap_s": args.rung_cap}
        path = args.append_to
    else:
        import cupy as cp

        props = cp.cuda.runtime.getDeviceProperties(0)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        out = {"schema": 1, "tool": "oc-gpu-bench-python", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "commit": os.environ.get("OC_COMMIT", "unknown"), "host": {"cores": os.cpu_count()},
               "device": {"name": name, "sms": props["multiProcessorCount"], "d2d_copy_gbps": run.copy_gbps},
               "skipped": run.skipped, "failures": run.failures, "python": {"apis": versions},
               "results": run.rows}
        path = args.json
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1)
    os.replace(tmp, path)


def main(argv=None):
    args = parse_args(argv)
    datas, sizes = [], []
    for p in args.files:
        try:
            with open(p, "rb") as f:
                d = f.read()
        except OSError as e:
            print("python_ladder: %s" % e, file=sys.stderr)
            return 2
        if not d:
            print("python_ladder: %s is empty" % p, file=sys.stderr)
            return 2
        datas.append(d)
        sizes.append(len(d))
    if args.dry_run:
        return dry_run(args, sizes)
    return gpu_run(args, datas, sizes)


if __name__ == "__main__":
    sys.exit(main())
