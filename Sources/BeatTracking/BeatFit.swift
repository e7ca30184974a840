import Foundation

/// One straight beat grid through beat times, fitted robustly: a beat tracker's beats
/// wobble around the true beat (aubio corrects its phase in steps), and now and then it
/// slips by a fraction of a beat for a few beats. The fit finds the period near the median
/// interval at which most beats share one phase (a comb over them), then refits by least
/// squares on the beats within a shrinking tolerance of that line. Pure arithmetic.
public struct BeatFit: Equatable, Sendable {
    /// Frames per beat.
    public var period: Double
    /// The frame of beat 0 of the line (`period · k + origin` is beat k).
    public var origin: Double
    /// Beats within `tolerance` of the line, and all the beats given.
    public var inliers: Int
    public var beats: Int
    /// Root mean square distance of the inliers from the line, in frames.
    public var rms: Double

    /// Fits beat times `beats` (frames, ascending); nil for fewer than four beats or no
    /// steady interval. `tolerance` is the largest distance (frames) of an inlier.
    public static func fit(_ beats: [Double], tolerance: Double) -> BeatFit? {
        guard beats.count >= 4 else { return nil }
        let intervals = zip(beats.dropFirst(), beats).map { $0 - $1 }
        guard let median = Self.median(intervals), median > 0 else { return nil }
        // The period near the median interval at which the beats' phases agree best (their
        // mean phase vector is longest): a comb laid over them. Steps small enough that the
        // phase drifts less than a fiftieth of a beat over the whole span.
        let count = max(1, (beats[beats.count - 1] - beats[0]) / median)
        let step = median / (50 * count)
        var best = (strength: -1.0, period: median, phase: 0.0)
        var candidate = median * 0.96
        while candidate <= median * 1.04 {
            var c = 0.0, s = 0.0
            for b in beats {
                let angle = 2 * Double.pi * (b - beats[0]) / candidate
                c += cos(angle)
                s += sin(angle)
            }
            let strength = c * c + s * s
            if strength > best.strength { best = (strength, candidate, atan2(s, c)) }
            candidate += step
        }
        var period = best.period
        var origin = beats[0] + best.phase / (2 * Double.pi) * period
        var index = [Int64](repeating: 0, count: beats.count)
        var used = [Bool](repeating: true, count: beats.count)
        for fraction in [0.15, 0.08, 0.05, 0.04, 0.04] {
            let limit = min(fraction * period, tolerance)
            for i in beats.indices {
                index[i] = Int64(((beats[i] - origin) / period).rounded())
                used[i] = abs(beats[i] - (origin + period * Double(index[i]))) <= limit
            }
            var n = 0.0, sk = 0.0, st = 0.0, skk = 0.0, skt = 0.0
            for i in beats.indices where used[i] {
                let k = Double(index[i])
                n += 1; sk += k; st += beats[i]; skk += k * k; skt += k * beats[i]
            }
            let d = n * skk - sk * sk
            guard n >= 4, d > 0 else { return nil }
            period = (n * skt - sk * st) / d
            origin = (st - period * sk) / n
            guard period > 0 else { return nil }
        }
        var inliers = 0, squares = 0.0
        for i in beats.indices {
            let r = beats[i] - (origin + period * ((beats[i] - origin) / period).rounded())
            if abs(r) <= tolerance {
                inliers += 1
                squares += r * r
            }
        }
        guard inliers > 0 else { return nil }
        return BeatFit(period: period, origin: origin, inliers: inliers, beats: beats.count,
                       rms: (squares / Double(inliers)).squareRoot())
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }
}
