import SegmanceCore

/// Decoded audio in the output format: interleaved stereo Int16 at `sampleRate`.
///
/// The storage is allocated once and never moves or changes after construction, so the
/// audio render side may keep `baseAddress` and read it by pointer for as long as it holds
/// a reference to the buffer.
public final class PCMBuffer: @unchecked Sendable {
    /// Interleaved channels per frame (always 2).
    public static let channels = 2

    /// Frames (sample pairs).
    public let frames: Int64
    /// Frames per second.
    public let sampleRate: Int
    /// The first sample; valid for the buffer's lifetime. `frames * 2` samples follow.
    public let baseAddress: UnsafePointer<Int16>
    private let storage: UnsafeMutableBufferPointer<Int16>

    /// Takes ownership of `storage`, whose first `frames * 2` samples are the audio.
    init(adopting storage: UnsafeMutableBufferPointer<Int16>, frames: Int64, sampleRate: Int) {
        precondition(Int64(storage.count) >= frames * 2)
        self.storage = storage
        self.frames = frames
        self.sampleRate = sampleRate
        // A zero-capacity allocation may have no address; keep one valid sample around.
        self.baseAddress = UnsafePointer(storage.baseAddress!)
    }

    /// Copies interleaved stereo samples (`samples.count` must be even).
    public convenience init(interleaved samples: [Int16], sampleRate: Int) {
        precondition(samples.count % 2 == 0, "interleaved stereo needs an even sample count")
        let storage = UnsafeMutableBufferPointer<Int16>.allocate(capacity: max(2, samples.count))
        storage.initialize(repeating: 0)
        _ = storage.initialize(from: samples)
        self.init(adopting: storage, frames: Int64(samples.count / 2), sampleRate: sampleRate)
    }

    deinit { storage.deallocate() }

    /// Calls `body` with the samples (`frames * 2` of them, interleaved L R).
    public func withUnsafeSamples<R>(_ body: (UnsafeBufferPointer<Int16>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: baseAddress, count: Int(frames) * 2))
    }

    /// A copy of the samples, for tests and tools.
    public var samples: [Int16] { withUnsafeSamples { Array($0) } }

    /// The sample of `channel` (0 = left, 1 = right) at `frame`.
    public subscript(frame: Int64, channel: Int) -> Int16 {
        precondition(frame >= 0 && frame < frames && (0...1).contains(channel))
        return baseAddress[Int(frame) * 2 + channel]
    }

    /// Duration in seconds (for messages; positions stay in frames).
    public var seconds: Double { Double(frames) / Double(sampleRate) }
}

/// Grows interleaved stereo Int16 storage, then hands it to a `PCMBuffer` without copying.
final class PCMBufferBuilder {
    private var finished = false
    private var storage: UnsafeMutableBufferPointer<Int16>
    private(set) var frames = 0
    let sampleRate: Int

    init(expectedFrames: Int, sampleRate: Int) {
        storage = .allocate(capacity: max(2, expectedFrames * 2))
        self.sampleRate = sampleRate
    }

    /// Appends stereo Int16 frames unchanged.
    func append(stereo samples: UnsafeBufferPointer<Int16>) {
        reserve(frames: frames + samples.count / 2)
        var out = frames * 2
        for value in samples {
            storage[out] = value
            out += 1
        }
        frames = out / 2
    }

    private func reserve(frames needed: Int) {
        guard needed * 2 > storage.count else { return }
        let bigger = UnsafeMutableBufferPointer<Int16>.allocate(capacity: max(needed * 2, storage.count * 3 / 2))
        // Pointer to pointer: Debian 13's Swift 6.0.3 binds initialize(fromContentsOf:) of a
        // Slice to a Foundation overload that this target does not link.
        if frames > 0 { bigger.baseAddress!.initialize(from: storage.baseAddress!, count: frames * 2) }
        storage.deallocate()
        storage = bigger
    }

    deinit {
        if !finished { storage.deallocate() }
    }

    /// Finishes: the buffer owns the storage from here on. Do not use the builder after.
    func finish() -> PCMBuffer {
        precondition(!finished)
        finished = true
        return PCMBuffer(adopting: storage, frames: Int64(frames), sampleRate: sampleRate)
    }
}
