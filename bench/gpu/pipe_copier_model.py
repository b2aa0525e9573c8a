"""pipe_copier_model.py - CPU model of the pipe decoder's copier (src/cuda/codecs/lz_common/lz_decode_pipe.cuh, v6c).

Why: the copier's parallel phase is only correct if, inside a round, nothing it
reads is written in the same phase and no two writes share an output byte or a
ring slot.  This model parses real LZ4 (python-lz4) and Snappy (cramjam) chunks
serially into the copier's records, groups them into rounds of random sizes
(the copier must be right for any grouping), asserts those conditions, runs the
phase-1 copies in a shuffled order and the rest in stream order with the same
ring rule as the kernel, and checks the output byte for byte.
Usage: python3 bench/gpu/pipe_copier_model.py FILE...  (no GPU needed)
"""
import random, sys, lz4.block, cramjam
R = 16384
def lz4_records(c, starts):
    ip = 0; op = 0; recs = []
    while True:
        starts.append(ip)
        t = c[ip]; ip += 1
        lit = t >> 4
        if lit == 15:
            while True:
                b = c[ip]; ip += 1; lit += b
                if b != 255: break
        ls = ip; ip += lit
        if ip >= len(c):
            recs.append((op, ls, lit, 0, 0)); op += lit; break
        off = c[ip] | (c[ip+1] << 8); ip += 2
        ml = t & 15
        if ml == 15:
            while True:
                b = c[ip]; ip += 1; ml += b
                if b != 255: break
        ml += 4
        recs.append((op, ls, lit, ml, off)); op += lit + ml
    return recs
def snappy_records(c, starts):
    ip = 0; v = 0; sh = 0
    while True:
        b = c[ip]; ip += 1; v |= (b & 0x7f) << sh; sh += 7
        if not b & 0x80: break
    op = 0; recs = []
    while ip < len(c):
        starts.append(ip)
        t = c[ip]; ip += 1; k = t & 3
        if k == 0:
            l = t >> 2
            if l >= 60:
                nb = l - 59; l = int.from_bytes(c[ip:ip+nb], 'little'); ip += nb
            l += 1
            recs.append((op, ip, l, 0, 0)); ip += l; op += l
        elif k == 1:
            ln = ((t >> 2) & 7) + 4; off = ((t >> 5) << 8) | c[ip]; ip += 1
            recs.append((op, 0, 0, ln, off)); op += ln
        else:
            ln = (t >> 2) + 1; nb = 2 if k == 2 else 4
            off = int.from_bytes(c[ip:ip+nb], 'little'); ip += nb
            recs.append((op, 0, 0, ln, off)); op += ln
    return recs
BYTES_MAX = 1024
def run(c, recs, starts, n, rng, mode):
    dst = bytearray(n); ring = bytearray(R)
    def put(p, v): dst[p] = v; ring[p % R] = v
    def warp_match(pos, mo, ml, ro):  # sequential semantics of oc_warp_match_ring
        frm = pos - mo
        for j in range(ml):
            src_p = frm + (j % mo if mo < ml else j)
            if ro: assert ring_valid[src_p % R] == src_p, "ring slot stale"
            put(pos + j, ring[src_p % R] if ro else dst[src_p]); ring_valid[(pos+j) % R] = pos + j
    ring_valid = [-1] * R
    stats = [0] * 8
    def copy_bytes(rd, rs, re_):
        """oc_pipe_copy_bytes, lane by lane: per 32-byte step the element of
        each byte from the OR of the starts in the step (reduce_or + popc),
        match bytes chased through the records; asserts that no read touches
        a byte of its own step and that ring reads find their byte."""
        cnt = len(rd); span = re_ - rs
        S = [r[0] - rs for r in rd]; L = [r[2] for r in rd]; O = [r[4] if r[3] else 0 for r in rd]
        LS = [r[1] for r in rd]
        below = 0; writes = []; done = 0
        for base in range(0, span, 32):
            starts = 0
            for i in range(cnt):
                if base <= S[i] < base + 32: starts |= 1 << (S[i] - base)
            for lane in range(32):
                e = below + bin(starts & (0xffffffff >> (31 - lane))).count('1') - 1
                t = base + lane
                if t >= span: continue
                assert 0 <= e < cnt and S[e] <= t and (e + 1 == cnt or S[e + 1] > t or S[e + 1] == S[e]), "element"
                d = t - S[e]
                if d < L[e]:
                    v = c[LS[e] + d]
                else:
                    kk = d - L[e]; o = O[e]; assert o >= 1
                    u = rs + S[e] + L[e] - o + (kk if kk < o else kk % o)
                    ee = e; steps = 0
                    while True:
                        assert u < rs + t, "chase must move earlier"
                        if u < rs + base:  # written before this step
                            ro = re_ - u <= R
                            if ro: assert ring_valid[u % R] == u, "ring stale (v6d)"
                            v = ring[u % R] if ro else dst[u]
                            break
                        while rd[ee][0] > u: ee -= 1
                        s_, l_ = rd[ee][0], rd[ee][2]; dd = u - s_
                        if dd < l_:
                            v = c[rd[ee][1] + dd]; break
                        o2 = rd[ee][4]; k2 = dd - l_
                        u = s_ + l_ - o2 + (k2 if k2 < o2 else k2 % o2); steps += 1; stats[7] += 1
                writes.append((rs + t, v))
            below += bin(starts).count('1')
            for pos, v in writes[done:]:  # the step's writes after all its reads (any interleaving alike)
                put(pos, v); ring_valid[pos % R] = pos
            done = len(writes)
        assert sorted(w[0] for w in writes) == list(range(rs, re_)), "every byte once"
    i = 0; stats = [0, 0, 0, 0, 0, 0, 0, 0]  # serial, v6c, v6c deps, v6d rounds, rounds, elements, bytes, chase steps
    while i < len(recs):
        if mode == 'kernel':  # the parser's rounds: the elements starting in a 32-byte input window
            cnt = 1
            while i + cnt < len(recs) and cnt < 32 and starts[i + cnt] < starts[i] + 32: cnt += 1
        else:
            cnt = min(rng.randint(1, 32), len(recs) - i)
        rd = recs[i:i+cnt]; i += cnt
        stats[4] += 1; stats[5] += cnt; stats[6] += rd[-1][0] + rd[-1][2] + rd[-1][3] - rd[0][0]
        rs = rd[0][0]; re_ = rd[-1][0] + rd[-1][2] + rd[-1][3]
        if re_ - rs <= BYTES_MAX and (mode == 'v6d' or (re_ - rs <= 48 * cnt)):
            stats[3] += 1
            copy_bytes(rd, rs, re_)
            continue
        if re_ - rs > R:
            stats[0] += 1
            for lo, ls, ll, ml, mo in rd:
                for j in range(ll): put(lo+j, c[ls+j]); ring_valid[(lo+j) % R] = lo+j
                if ml: warp_match(lo+ll, mo, ml, mo + ml <= R)
            continue
        stats[1] += 1
        reads_d, reads_r, writes_d, writes_r = set(), set(), set(), set()
        deps = []
        ph1 = []
        for lo, ls, ll, ml, mo in rd:
            pos = lo + ll
            if ll: ph1.append(('lit', lo, ls, ll))
            if ml:
                s0 = pos - mo; s1 = s0 + min(ml, mo); ro = re_ - s0 <= R
                if s1 > rs: deps.append((pos, mo, ml, ro))
                else: ph1.append(('m', pos, mo, ml, ro))
        # phase 1 hazards: reads of this phase never touch its writes
        for e in ph1:
            if e[0] == 'lit':
                _, lo, ls, ll = e
                for j in range(ll):
                    assert lo+j not in writes_d and (lo+j) % R not in writes_r; writes_d.add(lo+j); writes_r.add((lo+j) % R)
            else:
                _, pos, mo, ml, ro = e
                for j in range(ml):
                    sp = pos - mo + (j % mo)
                    (reads_r.add(sp % R) if ro else reads_d.add(sp))
                    assert pos+j not in writes_d and (pos+j) % R not in writes_r; writes_d.add(pos+j); writes_r.add((pos+j) % R)
        assert not (reads_d & writes_d) and not (reads_r & writes_r), "phase-1 hazard"
        rng.shuffle(ph1)  # any order
        snap_d, snap_r = bytes(dst), bytes(ring)
        for e in ph1:
            if e[0] == 'lit':
                _, lo, ls, ll = e
                for j in range(ll): put(lo+j, c[ls+j]); ring_valid[(lo+j) % R] = lo+j
            else:
                _, pos, mo, ml, ro = e
                for j in range(ml):
                    sp = pos - mo + (j % mo)
                    if ro: assert ring_valid[sp % R] == sp, "ring stale (phase 1)"
                    put(pos+j, ring[sp % R] if ro else dst[sp]); ring_valid[(pos+j) % R] = pos+j
        for pos, mo, ml, ro in deps:
            stats[2] += 1
            warp_match(pos, mo, ml, ro)
    return bytes(dst), stats
rng = random.Random(1)
files = sys.argv[1:]
for f in files:
    tot = {}
    data = open(f, 'rb').read()
    for off in range(0, min(len(data), 40 * 65536), 65536):
        ch = data[off:off+65536]
        for name in ('lz4', 'snappy'):
            starts = []
            if name == 'lz4':
                c = lz4.block.compress(ch, store_size=False); recs = lz4_records(c, starts)
            else:
                c = bytes(cramjam.snappy.compress_raw(ch)); recs = snappy_records(c, starts)
            for mode in ('kernel', 'v6d'):  # the parser's rounds, the kernel's choice; v6d wherever it may run
                out, st = run(c, recs, starts, len(ch), rng, mode)
                assert out == ch, (f, off, name, mode)
                if mode == 'kernel':
                    tot[name] = [a + b for a, b in zip(tot.get(name, [0] * 8), st)]
    for name, t in tot.items():  # the kernel's rounds: how they are copied
        print(f, name, 'ok: rounds %d (serial %d, v6c %d, v6d %d), %.1f elements and %.0f bytes per round, '
              'v6c round-dependent matches %d, v6d chase steps %d' % (t[4], t[0], t[1], t[3], t[5] / t[4], t[6] / t[4], t[2], t[7]))
