/// A part's beat: a steady tempo and where a "1" (the first beat of an eight) falls. One
/// straight grid for the whole part; a part without a steady beat has none, and the rules
/// that use beats fall back to seconds.
public struct BeatGrid: Equatable, Hashable, Sendable {
    /// Where the grid came from.
    public enum Origin: String, CaseIterable, Equatable, Hashable, Sendable {
        /// `tempo` and `one` in the routine's manifest.
        case manifest
        /// Found in the audio at import.
        case detected
        /// The performer moved the "1" on the device.
        case performer
        /// The performer tapped the tempo and the "1" on the device (*Tap tempo*).
        case tapped
    }

    /// Beats of an eight, the dancer's phrase.
    public static let beatsPerEight: Int64 = 8
    /// Positions this close to a beat count as on it (half a millisecond at 48 kHz).
    static let onBeatTolerance = 0.5e-3

    /// Frames per beat at the output rate (120 BPM at 48 kHz: 24000; 127 BPM: 22677.16…).
    public var beatFrames: Double
    /// A part-relative frame of a "1"; the other beats are whole beats from it (it may lie
    /// before the part's start: a pickup).
    public var one: FramePosition
    public var origin: Origin

    public init(beatFrames: Double, one: FramePosition, origin: Origin) {
        self.beatFrames = beatFrames
        self.one = one
        self.origin = origin
    }

    /// The grid of `bpm` beats a minute with a "1" at `one`, at `sampleRate`; nil for a
    /// tempo that is no beat (not positive, not finite).
    public init?(bpm: Double, one: FramePosition, sampleRate: Int64, origin: Origin) {
        guard bpm.isFinite, bpm > 0, sampleRate > 0 else { return nil }
        self.init(beatFrames: 60 * Double(sampleRate) / bpm, one: one, origin: origin)
    }

    /// Beats a minute at `sampleRate`.
    public func bpm(sampleRate: Int64) -> Double { 60 * Double(sampleRate) / beatFrames }

    /// The frame of beat `k` (beat 0 is `one`, beat 8 the next "1").
    public func frame(ofBeat k: Int64) -> FramePosition {
        one + FramePosition((Double(k) * beatFrames).rounded())
    }

    /// Beats from `one` to `frame`, with a fraction.
    public func beats(at frame: FramePosition) -> Double {
        Double(frame - one) / beatFrames
    }

    /// The first beat at or after `frame` (a frame within half a millisecond of a beat is on it).
    public func beat(atOrAfter frame: FramePosition, sampleRate: Int64) -> Int64 {
        let tolerance = Self.onBeatTolerance * Double(sampleRate) / beatFrames
        return Int64((beats(at: frame) - tolerance).rounded(.up))
    }

    /// The beat nearest `frame` among every `every`-th beat from `one` (1: any beat, 8: the "1"s).
    public func nearestBeat(to frame: FramePosition, every: Int64 = 1) -> Int64 {
        let unit = Double(max(1, every))
        return Int64((beats(at: frame) / unit).rounded()) * max(1, every)
    }

    /// Where `frame` is in the eights: the eight (the first "1" at or after the part's
    /// start begins eight 1; a pickup before it is eight 0) and the beat in it, 1...8.
    public func place(of frame: FramePosition) -> (eight: Int64, beat: Int) {
        place(ofBeat: Int64(beats(at: frame).rounded(.down)))
    }

    /// Where in the eights the screen says `frame` is: the beat it has reached, or the one
    /// it is within `shownBeatTolerance` of (a loop's A written on the beat by hand lands a
    /// millisecond before a detected grid's beat, which is ±10 ms; the LCD shows that beat,
    /// not the last of the eight before). `shownBeat` is that beat's number from `one`.
    public func shownPlace(of frame: FramePosition, sampleRate: Int64) -> (eight: Int64, beat: Int, shownBeat: Int64) {
        let ahead = Self.shownBeatTolerance * Double(sampleRate) / beatFrames
        let k = Int64((beats(at: frame) + ahead).rounded(.down))
        let place = place(ofBeat: k)
        return (place.eight, place.beat, k)
    }

    /// The screen's tolerance before a beat (seconds): shorter than an LCD can show.
    public static let shownBeatTolerance = 5e-3

    /// Where beat `k` (from `one`) is in the eights.
    func place(ofBeat k: Int64) -> (eight: Int64, beat: Int) {
        let first = firstOneBeat
        let beat = k - first
        let eight = beat >= 0 ? beat / Self.beatsPerEight + 1 : 0
        let inEight = ((beat % Self.beatsPerEight) + Self.beatsPerEight) % Self.beatsPerEight
        return (eight, Int(inEight) + 1)
    }

    /// The count of beat `k` in its eight, 1...8.
    public func count(ofBeat k: Int64) -> Int {
        Int(((k % Self.beatsPerEight) + Self.beatsPerEight) % Self.beatsPerEight) + 1
    }

    /// The beat (from `one`) of the first "1" at or after the part's start.
    var firstOneBeat: Int64 {
        Int64((beats(at: 0) / Double(Self.beatsPerEight)).rounded(.up)) * Self.beatsPerEight
    }

    /// The same tempo with beat `k` as a "1", set by the performer (a tapped tempo stays tapped).
    public func withOne(atBeat k: Int64) -> BeatGrid {
        BeatGrid(beatFrames: beatFrames, one: frame(ofBeat: k), origin: origin == .tapped ? .tapped : .performer)
    }

    /// Whether the performer set it on the device (a "1" moved, or the tempo tapped).
    public var isSetOnTheBox: Bool { origin == .performer || origin == .tapped }
}

/// What loop marks snap to when the part has a beat grid.
public enum LoopSnap: String, CaseIterable, Equatable, Sendable {
    /// Marks stay where they were pressed.
    case off
    /// The nearest beat: a loop is whole beats.
    case beat
    /// The nearest "1": a loop is whole eights.
    case eight
}

/// What an encoder detent moves by while playing.
public enum TurnUnit: String, CaseIterable, Equatable, Sendable {
    /// `Rules.seekSecondsPerDetent` seconds.
    case seconds
    /// One beat (on the beat), when the part has a grid; else seconds.
    case beats
    /// One eight (to a "1"), when the part has a grid; else seconds.
    case eights
}
