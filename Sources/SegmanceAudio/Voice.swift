/// A read head on a part's PCM.
struct Voice {
    var base: UnsafePointer<Int16>?
    var frames: Int64
    /// The source frame playing (at a speed other than 100: `origin + out·speed/100`).
    var pos: Int64
    /// Percent; 100 reads the PCM directly, anything else a stretched stream.
    var speed: Int32 = 100
    /// The stretched stream's frame 0, and output frames read from it so far.
    var origin: Int64 = 0
    var out: Int64 = 0
    /// Hundredths of a source frame the stream's grid is ahead of `origin`: what a loop's
    /// previous pass ran past its end, so passes add up to (B − A)/speed without drift.
    var phase: Int64 = 0
    /// The stretch slot last found running this voice's stream (a hint; -1 none).
    var slot: Int32 = -1
    /// The part's fade at its end (`PCMSlice.fadeOut`): frames before `frames` where it begins.
    var fadeOut: Int64 = 0

    init(_ pcm: PCMSlice, pos: Int64 = 0) {
        base = pcm.base
        frames = pcm.base == nil ? 0 : pcm.frames
        fadeOut = pcm.base == nil ? 0 : min(max(0, pcm.fadeOut), frames)
        self.pos = pos
    }

    /// The first frame of the part's fade at its end (`frames` when it has none).
    var fadeStart: Int64 { frames &- fadeOut }

    /// Whether the voice is in the part's fade at its end.
    @inline(__always)
    var inEndFade: Bool { fadeOut > 0 && pos >= frames &- fadeOut }

    /// The gain of the part's fade at `pos`: `(frames - pos) / fadeOut` in it, 1 before it.
    @inline(__always)
    var endFadeGain: Float {
        let left = frames &- pos
        return left >= fadeOut ? 1 : (left <= 0 ? 0 : Float(left) / Float(fadeOut))
    }

    /// Plays from source frame `p` at `speed` percent: a new stretched stream unless 100.
    mutating func place(_ p: Int64, speed: Int32, phase: Int64 = 0) {
        pos = p
        self.speed = speed
        origin = p
        out = 0
        self.phase = speed == 100 ? 0 : phase
    }

    /// Hundredths of a source frame this stretched voice has gone past `end` (it is at or
    /// past it), or 0 when it is not stretched or went past by a frame or more.
    func overshoot(past end: Int64) -> Int64 {
        guard isStretched else { return 0 }
        let over = out &* Int64(speed) &+ phase &- (end &- origin) &* 100
        return over >= 0 && over < 100 ? over : 0
    }

    var isStretched: Bool { speed != 100 }

    var key: StreamKey { StreamKey(base: base, frames: frames, origin: origin, speed: speed) }

    /// One output frame further along a stretched stream.
    @inline(__always)
    mutating func stepStretched() {
        out &+= 1
        pos = origin &+ (out &* Int64(speed) &+ phase) / 100
    }

    /// Output frames until the source position reaches `target` (0 if it has).
    func outputFrames(until target: Int64) -> Int64 {
        guard target > pos else { return 0 }
        guard isStretched else { return target &- pos }
        // The first k with origin + k·speed/100 >= target, less the frames already read.
        let need = (target &- origin) &* 100 &- phase
        let k = (need &+ Int64(speed) &- 1) / Int64(speed)
        return k &- out
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
        let l = Float(base[i]) * Voice.scale, r = Float(base[i &+ 1]) * Voice.scale
        guard inEndFade else { return (l, r) }
        let g = endFadeGain
        return (l * g, r * g)
    }
}

/// A click (or a spoken count) being played from storage allocated before rendering.
struct TickVoice {
    var samples: UnsafePointer<Float>?
    var length: Int32 = 0
    var index: Int32 = 0
    /// From this index on the sound fades linearly to 0 at `length` (a word cut short to
    /// end before the next count); `Int32.max` = no fade.
    var fadeFrom: Int32 = .max

    /// The gain of the sample at `index`: 1, or the fade's.
    @inline(__always)
    var gain: Float {
        index < fadeFrom ? 1 : Float(length &- index) / Float(length &- fadeFrom)
    }

    var isActive: Bool { samples != nil && index < length }
}
