import SegmanceCore

/// A command for the render side: plain data only (no strings, arrays or references),
/// so it can cross a lock-free queue and be applied on the real-time thread.
///
/// It mirrors `AudioCommand`; the control side converts with
/// `init?(_:resolve:)`, resolving each `PartAudio` to the PCM it has prepared.
/// Positions are part-relative frames at the output rate.
public enum RenderCommand: Equatable, Sendable {
    /// Make this PCM the part that sounds: any sounding audio ramps out, the countdown is
    /// cancelled, the loop and the next part are cleared, the position is 0, and the
    /// output stays silent until `play`.
    case load(PCMSlice)
    /// Start at `from` after `countdown` seconds of ticks. See `Renderer` for the frames.
    case play(from: Int64, countdown: Int32)
    /// Start at `from` after a count-in in beats. See `Renderer` for the frames.
    case playCountIn(from: Int64, RenderCountIn)
    /// As `play` (or `playCountIn` when `countIn.beats` > 0) with its t0 `silence` frames
    /// after the command's frame.
    case playAfter(silence: Int64, from: Int64, countdown: Int32, countIn: RenderCountIn)
    /// Ramp out (the position advances during the ramp), then hold the position.
    /// Cancels a countdown, holding its start position.
    case pause
    /// Ramp out, cancel any countdown and its ticks, position back to 0.
    case stop
    /// As `stop`, the sounding audio fading out linearly over this many frames (at least the
    /// ramp's) in place of the ramp.
    case stopFading(frames: Int64)
    /// Continue from this frame: crossfaded while audio sounds, else just moved.
    case seek(Int64)
    /// Wrap at `end` back to `start`; with `countdownBeforeRepeat` > 0 count that many
    /// seconds of ticks before each repeat, after `pauseFrames` of silence; with `passes`
    /// > 0 stop at `end` after that many passes (reported `loopFinished`).
    /// With `countIn.beats` > 0 the count before each repeat is in beats (in place of seconds).
    /// With `leadIn` > 0 each repeat starts that many frames before `start` (not before 0); with
    /// a `ramp` each pass plays at its speed, changed on the seam.
    case setLoop(start: Int64, end: Int64, countdownBeforeRepeat: Int32, pauseFrames: Int64 = 0, passes: Int32 = 0,
                 countIn: RenderCountIn = .none, leadIn: Int64 = 0, ramp: RenderRamp = .none)
    /// Play through the loop end.
    case clearLoop
    /// The part to continue with, seamlessly, when this one ends; nil = stop at the end.
    case setNext(PCMSlice?)
    /// Output gain in percent, 0...100; the gain is (percent/100)², ramped.
    case setVolume(Int32)
    /// Playback speed in percent of the original tempo, pitch kept: 50...150 (clamped);
    /// 100 reads the PCM directly. While audio sounds the change is crossfaded like a seek
    /// at the same source frame. Ignored (100 %) by a renderer with no stretch voices.
    case setSpeed(Int32)
    /// Countdowns from now on speak these words (`CountWords`) in place of ticks: a count
    /// in beats the number of the count in its eight, seconds the seconds left. A number
    /// with no word, and `.none`, sound as ticks. A word longer than the time to the next
    /// count is cut to end `config.rampFrames` before it, with a fade of twice that.
    case setCountWords(CountWords)
    /// Sound the first word of these now (an announcement), cut to end `within` frames from
    /// now (less a ramp, fading over two before) when it is longer.
    case announce(CountWords, within: Int64)
}

/// A count-in in beats, as plain data: `beats` counts `beatFrames` output frames apart,
/// the audio starting `lead` frames before the beat after the last count; `firstCount` is
/// the count (1...8) of the first sound, counts 1 and 5 are accented.
public struct RenderCountIn: Equatable, Sendable {
    public var beats: Int32
    public var beatFrames: Double
    public var lead: Int64
    public var firstCount: Int32
    public init(beats: Int32, beatFrames: Double, lead: Int64, firstCount: Int32) {
        self.beats = beats
        self.beatFrames = beatFrames
        self.lead = lead
        self.firstCount = firstCount
    }

    /// No count-in in beats.
    public static let none = RenderCountIn(beats: 0, beatFrames: 0, lead: 0, firstCount: 1)

    /// Converts a core count-in, clamped to what the render side accepts (at most 64 counts,
    /// a beat of at least one frame, a lead within one beat).
    public init(_ countIn: CountIn?) {
        guard let countIn, countIn.beats > 0, countIn.beatFrames.isFinite, countIn.beatFrames >= 1 else {
            self = .none
            return
        }
        self.init(beats: Int32(min(64, countIn.beats)), beatFrames: countIn.beatFrames,
                  lead: min(max(0, countIn.lead), Int64(countIn.beatFrames)),
                  firstCount: Int32((countIn.firstCount - 1) % 8 + 1))
    }
}

/// A loop's speed ramp, as plain data: pass p (from 1) plays at `from + step·⌊(p-1)/every⌋`
/// percent, at most `to`; `step` 0 is no ramp.
public struct RenderRamp: Equatable, Sendable {
    public var from: Int32
    public var step: Int32
    public var every: Int32
    public var to: Int32
    public init(from: Int32, step: Int32, every: Int32, to: Int32) {
        self.from = from
        self.step = step
        self.every = every
        self.to = to
    }

    /// No ramp.
    public static let none = RenderRamp(from: 100, step: 0, every: 1, to: 100)

    /// Converts a core ramp, clamped to the render side's speeds (50...150).
    public init(_ ramp: SpeedRamp?) {
        guard let ramp, ramp.step > 0 else {
            self = .none
            return
        }
        self.init(from: Int32(min(150, max(50, ramp.from))), step: Int32(min(100, ramp.step)),
                  every: Int32(min(1000, max(1, ramp.every))), to: Int32(min(150, max(50, ramp.to))))
    }

    /// The speed of pass `pass` (from 1); nil with no ramp.
    @inline(__always)
    func speed(ofPass pass: Int32) -> Int32? {
        guard step > 0 else { return nil }
        let steps = Int64(max(0, pass &- 1)) / Int64(max(1, every))
        let speed = Int64(from) &+ Int64(step) &* min(steps, 1000)
        return Int32(min(Int64(to), speed))
    }
}

/// A render command and the epoch it opens: reports are stamped with the epoch of the
/// last command applied.
public struct StampedCommand: Equatable, Sendable {
    public var command: RenderCommand
    public var epoch: UInt32
    public init(_ command: RenderCommand, epoch: UInt32) {
        self.command = command
        self.epoch = epoch
    }
}

extension RenderCommand {
    /// Converts a core command; call on the control side only (it may allocate).
    ///
    /// `resolve` returns the prepared PCM of a part, nil when it has none; the
    /// conversion then fails (returns nil) so the control side can report the problem.
    /// Counts and percents are clamped to what the render side accepts. `words` are the
    /// spoken counts prepared for `setCountVoice(.spoken)` (`.none`: counts sound as ticks).
    public init?(_ command: AudioCommand, words: CountWords = .none, announcement: CountWords = .none,
                 resolve: (PartAudio) -> PCMSlice?) {
        switch command {
        case .load(let part):
            guard let pcm = resolve(part) else { return nil }
            self = .load(pcm.fading(part.fadeOut))
        case .play(let from, let countdown):
            self = .play(from: from, countdown: Int32(clamping: max(0, countdown)))
        case .countIn(let from, let countIn):
            let converted = RenderCountIn(countIn)
            self = converted.beats > 0 ? .playCountIn(from: from, converted) : .play(from: from, countdown: 0)
        case .playAfter(let silence, let from, let countdown, let countIn):
            self = .playAfter(silence: max(0, silence), from: from, countdown: Int32(clamping: max(0, countdown)),
                              countIn: RenderCountIn(countIn))
        case .pause:
            self = .pause
        case .stop:
            self = .stop
        case .stopFading(let frames):
            self = .stopFading(frames: max(0, frames))
        case .seek(let to):
            self = .seek(to)
        case .setLoop(let region?):
            self = .setLoop(start: region.range.lowerBound, end: region.range.upperBound,
                            countdownBeforeRepeat: Int32(clamping: max(0, region.countdownBeforeRepeat)),
                            pauseFrames: max(0, region.pauseBeforeRepeat),
                            passes: Int32(clamping: max(0, region.passes)),
                            countIn: RenderCountIn(region.countInBeforeRepeat),
                            leadIn: max(0, region.leadIn), ramp: RenderRamp(region.ramp))
        case .setLoop(nil):
            self = .clearLoop
        case .setNext(let part?):
            guard let pcm = resolve(part) else { return nil }
            self = .setNext(pcm.fading(part.fadeOut))
        case .setNext(nil):
            self = .setNext(nil)
        case .setVolume(let percent):
            self = .setVolume(Int32(min(100, max(0, percent))))
        case .setSpeed(let percent):
            self = .setSpeed(Int32(min(150, max(50, percent))))
        case .setCountVoice(let voice):
            self = .setCountWords(voice == .spoken ? words : .none)
        case .announce(_, let within):
            guard announcement.count > 0 else { return nil }
            self = .announce(announcement, within: max(0, within))
        }
    }
}
