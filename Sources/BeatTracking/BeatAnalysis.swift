import Aubio
#if canImport(Glibc)
import Glibc
#endif

/// One part's beat detection as the sound comes: stereo 16-bit frames fed in chunks of any
/// size are averaged down to the detector's analysis rate and mixed to mono, run through
/// aubio's beat tracker and the onset energy, and `finish()` concludes as
/// `BeatDetector.detect` does. Keeps no sound, only the beats and one energy value per
/// 10 ms. Not thread-safe: one thread feeds it.
public final class BeatAnalysis {
    public let detector: BeatDetector
    /// The part frame the first frame fed is.
    public let start: Int
    /// Frames fed so far.
    public private(set) var frames = 0
    private let tracker: BeatTracker
    private let decimation: Int
    private let energyFrame: Int
    private let scale: Float
    /// Frames short of a whole group of `decimation`, carried to the next chunk.
    private var carry: [Int16] = []
    private var mono: [Float] = []
    private var energySum: Float = 0
    private var energyCount = 0
    private var energy: [Float] = []

    /// An analysis whose first frame is part frame `start`; opens libaubio the first time.
    public init(_ detector: BeatDetector, start: Int) throws(AubioError) {
        self.detector = detector
        self.start = start
        decimation = detector.decimation
        energyFrame = detector.energyFrame
        scale = 1 / (Float(32768) * 2 * Float(decimation))
        tracker = try BeatTracker(sampleRate: detector.sampleRate / decimation, windowSize: detector.hop * 4,
                                  hopSize: detector.hop)
        carry.reserveCapacity(decimation * 2)
    }

    /// Feeds interleaved stereo frames (an even count of samples).
    public func feed(_ stereo: UnsafeBufferPointer<Int16>) {
        guard let base = stereo.baseAddress, stereo.count >= 2 else { return }
        let count = stereo.count / 2
        frames += count
        var at = 0
        let group = decimation * 2
        mono.removeAll(keepingCapacity: true)
        if !carry.isEmpty {
            let take = min(group - carry.count, count * 2)
            carry.append(contentsOf: UnsafeBufferPointer(start: base, count: take))
            at = take
            if carry.count == group {
                var sum: Int32 = 0
                for v in carry { sum += Int32(v) }
                mono.append(Float(sum) * scale)
                carry.removeAll(keepingCapacity: true)
            }
        }
        let whole = (count * 2 - at) / group
        mono.reserveCapacity(mono.count + whole)
        for i in 0..<whole {
            let p = base + at + i * group
            var sum: Int32 = 0
            for j in 0..<group { sum += Int32(p[j]) }
            mono.append(Float(sum) * scale)
        }
        at += whole * group
        if at < count * 2 { carry.append(contentsOf: UnsafeBufferPointer(start: base + at, count: count * 2 - at)) }
        mono.withUnsafeBufferPointer { tracker.feed($0) }
        for v in mono {
            energySum += v * v
            energyCount += 1
            if energyCount == energyFrame {
                energy.append(log10(1e-9 + energySum / Float(energyFrame)))
                energySum = 0
                energyCount = 0
            }
        }
    }

    /// What the sound fed shows.
    public func finish() -> BeatDetection {
        detector.conclude(beats: tracker.beats, flux: Self.flux(energy), start: start)
    }

    /// Half-wave rectified rise of the log energy over two 10 ms frames.
    static func flux(_ energy: [Float]) -> [Float] {
        let n = energy.count
        guard n > 2 else { return [] }
        var flux = [Float](repeating: 0, count: n)
        for h in 2..<n { flux[h] = max(0, energy[h] - energy[h - 2]) }
        return flux
    }
}
