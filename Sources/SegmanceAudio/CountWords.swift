/// Spoken counts as the render side reads them: the sound of the number `n` (1...`count`)
/// is `samples[starts[n-1] ..< starts[n]]`, mono at the output rate, its first sample the
/// word's onset. Plain pointers into a `CountWordStorage` the control side keeps alive for
/// as long as a command naming it may be applied or rendered.
public struct CountWords: Equatable, @unchecked Sendable {
    public var samples: UnsafePointer<Float>?
    public var starts: UnsafePointer<Int32>?
    /// The highest number there is a sound for; 0 = none (counts sound as ticks).
    public var count: Int32

    public init(samples: UnsafePointer<Float>?, starts: UnsafePointer<Int32>?, count: Int32) {
        self.samples = samples
        self.starts = starts
        self.count = samples == nil || starts == nil ? 0 : max(0, count)
    }

    /// No words: counts sound as ticks.
    public static let none = CountWords(samples: nil, starts: nil, count: 0)

    /// The sound of `number`, nil when there is none. Real-time safe.
    @inline(__always)
    func word(_ number: Int32) -> (UnsafePointer<Float>, Int32)? {
        guard number >= 1, number <= count, let samples, let starts else { return nil }
        let from = starts[Int(number &- 1)], to = starts[Int(number)]
        guard to > from else { return nil }
        return (samples + Int(from), to &- from)
    }
}

/// Owns the memory of spoken counts (`CountWords`): allocated and filled once, off the
/// render thread, freed when the last owner lets go (never while a renderer may read it).
public final class CountWordStorage: @unchecked Sendable {
    private let samples: UnsafeMutablePointer<Float>
    private let starts: UnsafeMutablePointer<Int32>
    /// The words as the render side reads them.
    public let words: CountWords

    /// `sounds[n-1]` is the sound of the number n, mono at the output rate.
    public init(_ sounds: [[Float]]) {
        let total = sounds.reduce(0) { $0 + $1.count }
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: max(1, total))
        let starts = UnsafeMutablePointer<Int32>.allocate(capacity: sounds.count + 1)
        var at = 0
        for (i, sound) in sounds.enumerated() {
            starts[i] = Int32(clamping: at)
            if !sound.isEmpty {
                sound.withUnsafeBufferPointer { (samples + at).update(from: $0.baseAddress!, count: $0.count) }
            }
            at += sound.count
        }
        starts[sounds.count] = Int32(clamping: at)
        self.samples = samples
        self.starts = starts
        words = CountWords(samples: UnsafePointer(samples), starts: UnsafePointer(starts), count: Int32(sounds.count))
    }

    deinit {
        samples.deallocate()
        starts.deallocate()
    }
}
