#!/usr/bin/env python3
"""ans_words_sim.py - why: the GPU encoder stages each lane's ANS v2 words in
S words of shared memory and codes a tile again when a lane passes S; this
counts the words every lane of every 64 KiB chunk's tiles emits (the v2
encoder of docs/FORMAT.md, exact, in Python) and prints how many tiles
overflow a stage of S words alone, and a stage of 2S shared by lanes 2k and
2k + 1 (one writing up, one down).  Session 12: text 12.3% / 12.1% at 99.

    ans_words_sim.py FILE [CHUNKS]      (|u1 data; minutes for 128 chunks)
"""
import sys
data = open(sys.argv[1], 'rb').read()
CH = 65536; PB = 11; M = 1 << PB
nch = int(sys.argv[2]) if len(sys.argv) > 2 else 32
def table(chunk):
    cnt = [0]*256
    for b in chunk: cnt[b] += 1
    S = len(chunk)
    f = [max(1, c*M//S) if c else 0 for c in cnt]
    s = sum(f)
    if s < M:
        top = max(range(256), key=lambda i: (cnt[i], -i)); f[top] += M - s
    while s > M and sum(f) > M:
        s = sum(f)
        if s <= M: break
        big = max(range(256), key=lambda i: (f[i], -i))
        take = min(s - M, f[big] - 1); f[big] -= take
    c = [0]*256; acc = 0
    for i in range(256): c[i] = acc; acc += f[i]
    return f, c
tiles = 0; ovS = {}; ovP = {}; Ss = [93, 99, 105, 111]
allk = []
for ci in range(nch):
    ch = data[ci*CH:(ci+1)*CH]
    if len(ch) < CH: break
    f, c = table(ch)
    for t in range(4):
        tile = ch[t*16384:(t+1)*16384]
        ks = []
        for l in range(32):
            x = 1 << 31; nw = 0
            for i in range(16384 - 32 + l, -1, -32):
                s = tile[i]; fs = f[s]
                if x >= fs << 52: nw += 1; x >>= 32
                x = (x // fs) * M + (x % fs) + c[s]
            if x >> 32: nw += 1
            ks.append(nw)
        allk += ks
        tiles += 1
        for S in Ss:
            ovS[S] = ovS.get(S, 0) + (max(ks) > S)
            ovP[S] = ovP.get(S, 0) + any(ks[2*j] + ks[2*j+1] > 2*S for j in range(16))
print("tiles", tiles, "mean words a lane %.1f max %d" % (sum(allk)/len(allk), max(allk)))
for S in Ss:
    print("S %d: single %.1f%%  pair %.1f%%" % (S, 100*ovS[S]/tiles, 100*ovP[S]/tiles))
