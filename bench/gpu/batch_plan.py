"""batch_plan.py - the Python twin of bench/gpu/batch_plan.c: which bytes make
up each batch of the GPU benchmark's ladder, so that python_ladder.py times
the very batches oc_gpu_bench times (rows of both carry the same
"batch_plan" identity; bench/test_ladder.py compares the two implementations
on the C program's own output).

Every file is cut into chunks (the last one partial); one cycle is all of
them, the j-th of a file's n chunks at (2j+1)/(2n) of the cycle, ties by file
order; a batch of N chunks is the first N chunks of the cycle repeated.
In a batch buffer chunk i starts at a 256-byte aligned offset.
Standard library only.
"""

import functools

ALIGN = 256
CYCLE = None  # the rung "all": one whole cycle


def _align_up(v):
    return (v + ALIGN - 1) // ALIGN * ALIGN


class Plan:
    """The cycle of files of `sizes` (bytes, each > 0) cut into `chunk`-byte chunks."""

    def __init__(self, sizes, chunk):
        if not sizes or chunk <= 0 or chunk > 1 << 31 or any(s <= 0 for s in sizes):
            raise ValueError("a plan needs files of at least one byte and a chunk size in [1, 2^31]")
        self.chunk_size = chunk
        self.sizes = list(sizes)
        keys = []
        for f, size in enumerate(sizes):
            n = -(-size // chunk)
            keys += [(f, j, n) for j in range(n)]

        def cmp(a, b):
            left, right = (2 * a[1] + 1) * b[2], (2 * b[1] + 1) * a[2]
            if left != right:
                return -1 if left < right else 1
            return (a[0] > b[0]) - (a[0] < b[0])

        keys.sort(key=functools.cmp_to_key(cmp))
        self.order = []
        self.prefix = [0]
        self.aligned = [0]
        for f, j, _ in keys:
            off = j * chunk
            size = min(chunk, sizes[f] - off)
            self.order.append((f, off, size))
            self.prefix.append(self.prefix[-1] + size)
            self.aligned.append(_align_up(self.aligned[-1] + size))
        self.ndistinct = len(self.order)
        self.distinct_bytes = self.prefix[-1]

    def chunk(self, i):
        """(file, offset, size) of chunk i of any batch."""
        return self.order[i % self.ndistinct]

    def bytes(self, n):
        """Uncompressed bytes of the first n chunks."""
        return (n // self.ndistinct) * self.distinct_bytes + self.prefix[n % self.ndistinct]

    def rung_chunks(self, target):
        """Chunks of the rung `target` bytes (0: one chunk; CYCLE: one cycle)."""
        if target is CYCLE:
            return self.ndistinct
        if target == 0:
            return 1
        cycles = (target - 1) // self.distinct_bytes
        rest = target - cycles * self.distinct_bytes
        lo, hi = 1, self.ndistinct
        while lo < hi:
            mid = (lo + hi) // 2
            if self.prefix[mid] >= rest:
                hi = mid
            else:
                lo = mid + 1
        return cycles * self.ndistinct + lo

    def offset(self, i):
        """Byte offset of chunk i in a batch buffer."""
        return (i // self.ndistinct) * self.aligned[-1] + self.aligned[i % self.ndistinct]

    def buffer_bytes(self, n):
        return self.offset(n)

    def plan_id(self, names, n):
        """FNV-1a 64 over "name:offset:size\\n" of the first n chunks, as 16 hex digits."""
        h = 0xCBF29CE484222325
        for i in range(n):
            f, off, size = self.chunk(i)
            for byte in ("%s:%d:%d\n" % (names[f], off, size)).encode():
                h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
        return "%016x" % h


def parse_bytes(s):
    """"64K", "1M", "1G", "256KiB", "4096": bytes (binary units); ValueError otherwise."""
    t = s.strip()
    shift = 0
    for suffix, sh in (("KiB", 10), ("MiB", 20), ("GiB", 30), ("KB", 10), ("MB", 20), ("GB", 30),
                       ("K", 10), ("M", 20), ("G", 30), ("k", 10), ("m", 20), ("g", 30)):
        if t.endswith(suffix) and t[: -len(suffix)].isdigit():
            t, shift = t[: -len(suffix)], sh
            break
    if not t.isdigit() or int(t) == 0:
        raise ValueError("not a byte size: %r" % s)
    return int(t) << shift


def parse_rung(s):
    """"1c" -> 0 (one chunk), "all" -> CYCLE, else parse_bytes."""
    if s == "1c":
        return 0
    if s == "all":
        return CYCLE
    return parse_bytes(s)


def human(n):
    """1073741824 -> "1 GiB", 65536 -> "64 KiB", 1000 -> "1000 B"."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return "%d %s" % (n >> shift, unit)
    return "%d B" % n
