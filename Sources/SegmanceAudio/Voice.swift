/// A read head on a part's PCM.
struct Voice {
    var base: UnsafePointer<Int16>?
    var frames: Int64
    var pos: Int64

    init(_ pcm: PCMSlice, pos: Int64 = 0) {
        base = pcm.base
        frames = pcm.base == nil ? 0 : pcm.frames
        self.pos = pos
    }

    /// Full scale of Int16: multiplying by this is exact (a power of two), so a sample
    /// played at gain 1 converts back to itself.
    static let scale: Float = 1.0 / 32768.0

    /// The frame at `pos` as floats, 0 outside the PCM (a crossfade or fade-out may read
    /// past the part's end).
    @inline(__always)
    func frame() -> (Float, Float) {
        guard let base, pos >= 0, pos < frames else { return (0, 0) }
        let i = Int(truncatingIfNeeded: pos) &* 2
        return (Float(base[i]) * Voice.scale, Float(base[i &+ 1]) * Voice.scale)
    }
}

/// A click being played from the preallocated tick storage.
struct TickVoice {
    var samples: UnsafePointer<Float>?
    var length: Int32 = 0
    var index: Int32 = 0

    var isActive: Bool { samples != nil && index < length }
}
