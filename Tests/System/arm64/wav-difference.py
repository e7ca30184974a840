#!/usr/bin/env python3
"""wav-difference.py A.wav B.wav BOUND_DB: the sample-wise difference of two 16-bit WAVs of
the same length, its peak and RMS in dBFS (full scale 32768), and the count of samples that
differ. Exits 1 when the peak exceeds BOUND_DB, or the files differ in format or length.
Files named .pcm are read as raw 16-bit little-endian samples (the library's media files)."""
import math, sys, wave
from array import array

def samples(path):
    out = array("h")
    if path.endswith(".pcm"):
        with open(path, "rb") as f:
            out.frombytes(f.read())
        return ("pcm",), out
    w = wave.open(path)
    if w.getsampwidth() != 2:
        return w.getparams()[:4], None
    out.frombytes(w.readframes(w.getnframes()))
    return w.getparams()[:3], out

(pa, x), (pb, y) = (samples(p) for p in sys.argv[1:3])
bound = float(sys.argv[3])
if pa != pb or x is None or y is None or len(x) != len(y):
    print(f"format or length differs: {pa} vs {pb}")
    sys.exit(1)
peak = total = differing = 0
for u, v in zip(x, y):
    d = u - v
    if d:
        differing += 1
        total += d * d
        peak = max(peak, abs(d))
db = lambda v: "-inf" if v == 0 else f"{20 * math.log10(v / 32768):.1f}"
rms = math.sqrt(total / len(x)) if x else 0
print(f"{differing} of {len(x)} samples differ; peak {db(peak)} dBFS ({peak} LSB), RMS {db(rms)} dBFS")
sys.exit(0 if peak == 0 or 20 * math.log10(peak / 32768) <= bound else 1)
