#!/usr/bin/env python3
"""wav-difference.py A.wav B.wav BOUND_DB: the sample-wise difference of two 16-bit WAVs of
the same length, its peak and RMS in dBFS (full scale 32768), and the count of samples that
differ. Exits 1 when the peak exceeds BOUND_DB, or the files differ in format or length."""
import math, sys, wave
from array import array

a, b = (wave.open(p) for p in sys.argv[1:3])
bound = float(sys.argv[3])
if a.getparams()[:3] != b.getparams()[:3] or a.getsampwidth() != 2 or a.getnframes() != b.getnframes():
    print(f"format or length differs: {a.getparams()[:4]} vs {b.getparams()[:4]}")
    sys.exit(1)
x, y = array("h"), array("h")
x.frombytes(a.readframes(a.getnframes()))
y.frombytes(b.readframes(b.getnframes()))
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
