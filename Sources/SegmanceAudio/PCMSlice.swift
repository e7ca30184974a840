/// A part's PCM as the render side reads it: interleaved stereo Int16 at the output
/// rate, part-relative (frame 0 is the part's first frame).
///
/// The memory is owned by the control side, which keeps it mapped (and pre-faulted)
/// for as long as any command naming it may still be applied or rendered.
public struct PCMSlice: Equatable, @unchecked Sendable {
    /// First sample (left channel of frame 0); nil for no audio.
    public var base: UnsafePointer<Int16>?
    /// Number of stereo frames.
    public var frames: Int64
    /// The part ends with a fade: its last `fadeOut` frames fall linearly to silence at its
    /// end (0: no fade; at most `frames`).
    public var fadeOut: Int64

    public init(base: UnsafePointer<Int16>?, frames: Int64, fadeOut: Int64 = 0) {
        self.base = base
        self.frames = base == nil ? 0 : max(0, frames)
        self.fadeOut = min(max(0, fadeOut), self.frames)
    }

    /// No audio.
    public static let empty = PCMSlice(base: nil, frames: 0)

    /// The frames `start ..< start + length` of this PCM (clamped to what exists), e.g. a
    /// part cut from a decoded file: `file.slice(from: part.start, length: part.length)`.
    public func slice(from start: Int64, length: Int64) -> PCMSlice {
        guard let base else { return .empty }
        let s = min(max(0, start), frames)
        let n = min(max(0, length), frames - s)
        return PCMSlice(base: base + Int(s) * 2, frames: n)
    }

    /// This PCM ending with a fade of `frames` (`fadeOut`).
    public func fading(_ frames: Int64) -> PCMSlice {
        PCMSlice(base: base, frames: self.frames, fadeOut: frames)
    }
}
