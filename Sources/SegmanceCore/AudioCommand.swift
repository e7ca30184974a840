/// The slice of decoded PCM that makes one part: `length` frames from `start`.
public struct PartAudio: Equatable, Hashable, Sendable {
    public var audio: AudioReference
    public var start: FramePosition
    public var length: FramePosition
    /// The part ends with a fade over its last `fadeOut` frames (0: none).
    public var fadeOut: FramePosition
    public init(audio: AudioReference, start: FramePosition, length: FramePosition, fadeOut: FramePosition = 0) {
        self.audio = audio
        self.start = start
        self.length = length
        self.fadeOut = fadeOut
    }
}

/// A count-in in beats: `beats` counts `beatFrames` output frames apart; the music's next
/// beat falls one beat after the last count, its audio starting `lead` output frames
/// before that beat (0 when the start is on a beat; always less than a beat).
public struct CountIn: Equatable, Sendable {
    public var beats: Int
    /// Output frames per beat (the part's beat at the speed playing).
    public var beatFrames: Double
    public var lead: FramePosition
    /// The count the first sound stands for in its eight (5 for "5, 6, 7, 8").
    public var firstCount: Int
    public init(beats: Int, beatFrames: Double, lead: FramePosition, firstCount: Int) {
        self.beats = beats
        self.beatFrames = beatFrames
        self.lead = lead
        self.firstCount = firstCount
    }
}

/// A loop region the audio side wraps at, exactly at `range.upperBound`, back to
/// `range.lowerBound - leadIn`.
public struct LoopRegion: Equatable, Sendable {
    public var range: Range<FramePosition>
    /// Seconds of countdown ticks before each repeat; 0 = wrap seamlessly.
    public var countdownBeforeRepeat: Int
    /// Frames of silence before each repeat (before its ticks, when there are any).
    public var pauseBeforeRepeat: FramePosition
    /// Passes to play before stopping at the end (reported `loopFinished`);
    /// 0 = repeat until changed.
    public var passes: Int
    /// A count-in in beats before each repeat, in place of `countdownBeforeRepeat`'s seconds.
    public var countInBeforeRepeat: CountIn?
    /// Each repeat starts this many frames before `range.lowerBound` (a lead-in; never
    /// before the part's start): the seam goes from the range's end straight there.
    public var leadIn: FramePosition
    /// The speed of each pass, changed on the seam; nil: the speed stays as set.
    public var ramp: SpeedRamp?
    public init(range: Range<FramePosition>, countdownBeforeRepeat: Int = 0,
                pauseBeforeRepeat: FramePosition = 0, passes: Int = 0, countInBeforeRepeat: CountIn? = nil,
                leadIn: FramePosition = 0, ramp: SpeedRamp? = nil) {
        self.range = range
        self.leadIn = leadIn
        self.ramp = ramp
        self.countdownBeforeRepeat = countdownBeforeRepeat
        self.pauseBeforeRepeat = pauseBeforeRepeat
        self.passes = passes
        self.countInBeforeRepeat = countInBeforeRepeat
    }
}

/// What the core asks the audio side to do. Commands are applied in order, at a period
/// boundary. Every command carries an epoch (see `Effect.audio`); reports the audio side
/// sends back are stamped with the epoch of the last command it applied, so the core
/// can ignore reports that were already on their way before a command took effect.
public enum AudioCommand: Equatable, Sendable {
    /// Make this part the one that sounds. Output goes silent (ramped) until `play`.
    case load(PartAudio)
    /// Start at `from`, after `countdown` seconds of ticks (0 = at once).
    case play(from: FramePosition, countdown: Int)
    /// Start at `from` after a count-in in beats (see `CountIn`).
    case countIn(from: FramePosition, CountIn)
    /// As `play` or `countIn` (in beats when `countIn` is given), after `silence` output
    /// frames: a class set's gap.
    case playAfter(silence: FramePosition, from: FramePosition, countdown: Int, countIn: CountIn?)
    /// Ramp out and hold the position.
    case pause
    /// Ramp out, cancel any countdown, forget the position.
    case stop
    /// As `stop`, the audio fading out over this many output frames in place of the ramp.
    case stopFading(FramePosition)
    /// Continue from another frame (crossfaded while playing).
    case seek(to: FramePosition)
    /// Wrap at the end of this region, or play through when nil.
    case setLoop(LoopRegion?)
    /// The part to continue with, seamlessly, when this one ends; nil = stop at the end.
    case setNext(PartAudio?)
    /// Output gain in percent, 0...100.
    case setVolume(Int)
    /// Playback speed in percent of the original tempo, pitch kept (50...150; 100 = as
    /// recorded). Positions stay in source frames.
    case setSpeed(Int)
    /// What countdowns sound like from now on (a count sounding finishes as it began).
    case setCountVoice(CountVoice)
    /// Say `text` now (a class set's next title), ending within `within` output frames.
    case announce(String, within: FramePosition)
}

/// What the audio side reports back, stamped with an epoch.
public struct AudioReport: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// A countdown tick sounded; `remaining` ticks follow it (0 = the accented last one).
        case countdownTick(remaining: Int)
        /// Audio started sounding at this part-relative frame (after any countdown).
        case started(at: FramePosition)
        /// Where playback is now (part-relative frames).
        case position(FramePosition)
        /// The part played to its end and nothing follows: output is silent.
        case partEnded
        /// The part ended and the queued next part took over seamlessly.
        case advanced
        /// A loop wrapped from its end back to its start.
        case looped
        /// A loop played its last pass (`LoopRegion.passes`): the output stopped at its end
        /// and the position is back at its start.
        case loopFinished
    }
    public var epoch: UInt32
    public var kind: Kind
    public init(epoch: UInt32, _ kind: Kind) {
        self.epoch = epoch
        self.kind = kind
    }
}
