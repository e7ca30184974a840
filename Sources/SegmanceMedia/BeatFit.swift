/// One straight beat grid through beat times, fitted robustly: a beat tracker's beats
/// wobble around the true beat (aubio corrects its phase in steps), and now and then it
/// slips by a fraction of a beat for a few beats. The fit numbers the beats by their
/// intervals, takes the median slope over pairs at least eight beats apart and the median
/// offset (Theil–Sen), then refits by least squares on the beats within a shrinking
/// tolerance of the line. Pure arithmetic.
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
        // Number the beats by their intervals: a skipped beat is two.
        var index = [Int64](repeating: 0, count: beats.count)
        for i in 1..<beats.count {
            index[i] = index[i - 1] + max(1, Int64((intervals[i - 1] / median).rounded()))
        }
        var slopes: [Double] = []
        for i in 0..<beats.count {
            var j = i + 1
            while j < beats.count && slopes.count < 200_000 {
                let span = index[j] - index[i]
                if span >= 8 { slopes.append((beats[j] - beats[i]) / Double(span)) }
                j += 1
            }
        }
        var period = Self.median(slopes) ?? median
        guard period > 0 else { return nil }
        var origin = Self.median(beats.indices.map { beats[$0] - period * Double(index[$0]) }) ?? beats[0]
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
