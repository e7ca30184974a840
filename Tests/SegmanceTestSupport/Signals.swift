import Foundation

/// Test signals and how alike two signals are.
public enum Signals {
    /// Something music-like, deterministic: a bass line, a chord that changes every half
    /// second and a little noise, so that a lossy codec has work to do and a shift shows.
    /// Interleaved stereo floats (the right side a little quieter).
    public static func music(rate: Int, frames: Int) -> [Float] {
        var out = [Float](repeating: 0, count: frames * 2)
        var noise: UInt32 = 7
        let chords: [[Double]] = [[220, 277.2, 329.6], [196, 246.9, 293.7], [174.6, 220, 261.6], [164.8, 207.7, 246.9]]
        for i in 0..<frames {
            let t = Double(i) / Double(rate)
            let chord = chords[Int(t * 2) % chords.count]
            var v = 0.25 * sin(2 * .pi * chord[0] / 2 * t) * exp(-t.truncatingRemainder(dividingBy: 0.5) * 6)
            for f in chord { v += 0.1 * sin(2 * .pi * f * t) }
            noise = noise &* 1_664_525 &+ 1_013_904_223
            v += Double(Int32(bitPattern: noise)) / Double(Int32.max) * 0.01
            out[2 * i] = Float(v)
            out[2 * i + 1] = Float(v * 0.8)
        }
        return out
    }

    /// The normalised cross-correlation of `decoded` (interleaved stereo Int16, left side)
    /// with `source` (interleaved stereo float, left side) at the best lag within ±`maxLag`
    /// frames, over `window` frames from `start`: 1 for the same waveform, about 0 for
    /// unrelated ones.
    public static func bestCorrelation(_ decoded: [Int16], _ source: [Float], start: Int, window: Int,
                                       maxLag: Int) -> (correlation: Double, lag: Int) {
        let a = (0..<window).map { Double(source[2 * (start + $0)]) }
        let energyA = a.reduce(0) { $0 + $1 * $1 }
        var best = (correlation: -1.0, lag: 0)
        let frames = decoded.count / 2
        a.withUnsafeBufferPointer { a in
            decoded.withUnsafeBufferPointer { d in
                for lag in -maxLag...maxLag {
                    let from = start + lag
                    guard from >= 0, from + window <= frames else { continue }
                    var dot = 0.0, energyB = 0.0
                    for i in 0..<window {
                        let b = Double(d[2 * (from + i)]) / 32768
                        dot += a[i] * b
                        energyB += b * b
                    }
                    let c = dot / max(1e-12, (energyA * energyB).squareRoot())
                    if c > best.correlation { best = (c, lag) }
                }
            }
        }
        return best
    }
}
