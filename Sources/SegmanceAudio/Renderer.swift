import RubberBand
import SegmanceCore

/// The render function: fills interleaved stereo Float32 output from the active part's
/// PCM, the same code for the real-time ALSA thread and for the simulator's virtual time.
///
/// **Real-time safety.** `apply`, `render` and the report accessors other than
/// `takeReports()` never allocate, lock, log, touch the disk, use strings, arrays,
/// existentials or closures, or retain/release anything: all state is a plain struct
/// holding unsafe pointers into storage allocated once in `init` (the click sounds, the
/// report buffer). `Renderer` is a noncopyable struct rather than a class so that the
/// storage has exactly one owner, is freed in `deinit`, and no call on the render path
/// goes through reference counting or dynamic exclusivity checks. It is owned and used by
/// one thread at a time (the real-time thread, or the simulator's loop).
///
/// **Frames.** `clock` counts output frames since creation. A command applied with
/// `apply` takes effect at the first frame of the next `render` call (a period boundary);
/// "t0" below is that frame. Commands apply in the order given. Output sample values:
/// `s` is a source sample, `a = Float(s) / 32768`; `R`, `X` are `config.rampFrames`,
/// `config.crossfadeFrames`; at volume 100 and outside ramps, crossfades and ticks the
/// output is exactly `a` for every sample.
///
/// - **play(from: p, countdown: n)**, n > 0: ticks start at frames `t0 + k·rate`,
///   k = 0..<n, each reported at its onset as `countdownTick(remaining: n-1-k)`; the last
///   is the accented tick. Any audio sounding at t0 ramps out (R frames, gain
///   `(L-i)/R` from its level L). At `t0 + n·rate` audio starts at p with a ramp-in:
///   output frame i of the ramp is `a[p+i] · (i/R)`, reported `started(at: p)`.
///   n == 0: the same start at t0. If audio is sounding then, the start is crossfaded
///   like a seek instead. A `play` during a countdown restarts it.
/// - **playCountIn(from: p, c)**: as `play` with `c.beats` ticks at `t0 + round(k·c.beatFrames)`
///   and the start at `t0 + round(c.beats·c.beatFrames) - c.lead`: the music's beat `c.lead`
///   frames after p sounds exactly one beat after the last tick. The ticks of counts 1 and 5
///   (`c.firstCount` is the first's) are the accented sound.
/// - **playAfter(silence: S, from: p, …)**: as `play` / `playCountIn` with t0 = the
///   command's frame + S: S frames of silence (besides any ramp-out) before the first count,
///   or before the start when there is no count.
/// - **pause**: the audio ramps out (frame i of the ramp: `a[q+i] · ((R-i)/R)` from the
///   pause frame q), the position advancing R frames; then silence and the position
///   holds, reported `position(q+R)`. During a countdown: the countdown and its ticks
///   stop, the position holds at its start.
/// - **stop**: audio ramps out, the countdown is cancelled, the position is 0. A tick
///   sounding when a countdown is cancelled or restarted is cut with an R-frame ramp.
/// - **stopFading(frames: F)**: as stop, the audio fading out over F frames (at least R) in
///   place of the ramp: from the stop frame q at full level, frame i of the fade is
///   `a[q+i] · ((F-i)/F)`, silence from frame F on.
/// - **a part's fade** (`PCMSlice.fadeOut` = D > 0): the last D frames of the part fall
///   linearly to silence, frame p (source frame) scaled by `(frames-p)/D`, before the ramps
///   and the volume.
/// - **seek(to: q)** while audio sounds: crossfade from the old audio (at o) to the new:
///   frame i < X is `a[q+i]·(i/X) + a[o+i]·(1 - i/X)`; otherwise the position just moves.
///   The target is clamped to the part, and into an active loop.
/// - **loop** [A, E): the frame after E-1 is A's audio, crossfaded: frame i < X is
///   `a[A+i]·(i/X) + a[E+i]·(1 - i/X)` (0 past the part's end), then exactly `a[A+i]`;
///   reported `looped`. A loop set after the main voice passed E (by d frames, d less than
///   the loop's length) wraps at once, crossfaded, to A + d. With `countdownBeforeRepeat`
///   n > 0: at E the audio ramps out (from E), `looped` is reported, then a countdown of n
///   ticks with t0 = that frame and a start at A as for `play`. With a pause P > 0 frames
///   the same, with t0 = E's frame + P: exactly P frames of silence (besides the ramp-out) before the ticks, or
///   before A's audio when n == 0. With `passes` m > 0: the pass that reaches E for the
///   m-th time does not wrap: the audio ramps out from E, the position is A, reported
///   `loopFinished`. Passes count from 1 at `setLoop` and `stop`.
/// - **part end**, no loop: if a next part is set, its frame 0 is the very next output
///   frame, no ramp, reported `advanced`; the position counts in the new part and the
///   loop is cleared. Otherwise silence, reported `partEnded`; the position stays at the
///   end.
/// - **setVolume(v)**: the gain `(v/100)²` (exactly 1 at 100) is reached linearly over
///   `config.volumeRampFrames` frames. It scales the audio and the ticks.
/// - **ticks** are added to the output at their exact frames: the first sample of a
///   tick is non-zero.
/// - **setCountWords(w)**: from then on a count sounds as the word of its number (a
///   count in beats: 1...8 in its eight; seconds: the seconds left) where `w` has one,
///   added like a tick from the count's frame (a word's first sample is its onset). A word
///   longer than a beat less R frames ends R frames before the next count, its last 2R
///   frames (before that end) fading linearly to 0.
/// - **announce(w, within: W)**: the first word of `w` is added from t0 as a tick is; one
///   longer than W less R frames is cut to end there, its last 2R frames fading to 0.
/// - While audio advances, `position(p)` is reported at every multiple of
///   `config.positionReportInterval` output frames.
///
/// - **setSpeed(p)**, p ≠ 100: audio started from then on (play, seek, a loop's wrap, the
///   next part) is a stretched stream of the source from that frame at p %, pitch kept:
///   output frame k of the stream is source frame `origin + k·p/100` (rounded down), so
///   positions, loop ends, part ends and reports stay in source frames while ticks,
///   ramps and crossfades stay in output frames. A stream's samples depend only on its
///   PCM, origin and speed (the stretcher is fed the frames before the origin and its
///   start delay dropped), so they do not depend on how calls split the timeline or on a
///   rewind. At 100 % the PCM is read directly, exactly as above.
/// **Play history.** Which source frame each output frame played is kept as a short
/// history of `PlayedSpan`s, an entry wherever the mapping breaks (a start, a wrap, a
/// seek, a pause settling, a part change, a command), so a control's "here" can be the
/// frame the performer heard rather than the one being rendered (`heard(atOutput:)`).
///
/// Reports are stamped with the epoch of the last applied command and with their output
/// frame, and collect in a fixed buffer that the caller drains after each `render`.
public struct Renderer: ~Copyable {
    public let sampleRate: Int
    public let config: RenderConfig
    var state: RenderState
    private let tickStorage: UnsafeMutablePointer<Float>
    private let reportStorage: UnsafeMutablePointer<RenderReport>
    private let stretch: StretchStorage?
    private let historyStorage: UnsafeMutablePointer<PlayedSpan>

    /// Entries of the play history kept (`playedSpan(at:)`): one per discontinuity, so
    /// far more than the frames of a device buffer ever produce.
    public static let historyCapacity = 256

    /// Allocates all storage the render path will ever use and synthesizes the clicks.
    /// Lengths in `config` below 1 are taken as 1.
    ///
    /// With `deferringStretchers`, `config.stretchVoices` stretchers are not made here: the
    /// owner makes a `StretchStorage` when the speed first leaves 100 % (off the render
    /// thread) and hands its pool over with `attach` before the `setSpeed` that needs it.
    /// Until then `setSpeed` is ignored (100 %). The real-time engine does this, so a
    /// daemon that never changes speed holds no stretcher memory.
    public init(sampleRate: Int = 48_000, config: RenderConfig = RenderConfig(), deferringStretchers: Bool = false) {
        let rate = max(1, sampleRate)
        self.sampleRate = rate
        self.config = config
        let tickLength = TickSynth.length(of: config.tick, sampleRate: rate)
        let accentLength = TickSynth.length(of: config.accent, sampleRate: rate)
        tickStorage = .allocate(capacity: tickLength + accentLength)
        TickSynth.fill(tickStorage, length: tickLength, sound: config.tick, sampleRate: rate)
        TickSynth.fill(tickStorage + tickLength, length: accentLength, sound: config.accent,
                       sampleRate: rate)
        let capacity = max(1, config.reportCapacity)
        reportStorage = .allocate(capacity: capacity)
        let made = deferringStretchers ? nil : StretchStorage.make(count: Self.stretchVoices(config), sampleRate: rate,
                                                                   engine: Self.stretchEngine,
                                                                   ringFrames: config.stretchRingFrames,
                                                                   spares: config.stretchSpares)
        stretch = made
        let pool = made?.pool ?? .empty
        historyStorage = .allocate(capacity: Self.historyCapacity)
        historyStorage.initialize(repeating: PlayedSpan(outputFrame: 0, sourceFrame: 0, rate: 0, epoch: 0, part: 0),
                                  count: Self.historyCapacity)
        func frames(_ n: Int) -> Int32 { Int32(clamping: max(1, n)) }
        state = RenderState(
            rate: Int64(rate), ramp: frames(config.rampFrames),
            crossfade: frames(config.crossfadeFrames), volumeRamp: frames(config.volumeRampFrames),
            positionInterval: Int64(max(0, config.positionReportInterval)),
            tickSound: UnsafePointer(tickStorage), tickLength: Int32(clamping: tickLength),
            accentSound: UnsafePointer(tickStorage + tickLength),
            accentLength: Int32(clamping: accentLength),
            reports: reportStorage, reportCapacity: capacity,
            history: historyStorage, historyCapacity: Self.historyCapacity, pool: pool)
    }

    deinit {
        tickStorage.deallocate()
        reportStorage.deallocate()
        historyStorage.deallocate()
    }

    /// The stretcher engine: Rubber Band R3 with its short window (docs/speed.md).
    public static let stretchEngine = TimeStretcher.Engine.r3Short

    /// The stretch voices `config` asks for (0...8).
    public static func stretchVoices(_ config: RenderConfig) -> Int { max(0, min(8, config.stretchVoices)) }

    /// Makes the stretch voices `config` asks for at `sampleRate`, warmed up (see
    /// `StretchStorage.make`), for `attach`. Nil when it asks for none or one cannot be
    /// made. Allocates: call off the render thread.
    public static func makeStretchers(sampleRate: Int, config: RenderConfig) -> StretchStorage? {
        StretchStorage.make(count: stretchVoices(config), sampleRate: max(1, sampleRate), engine: stretchEngine,
                            ringFrames: config.stretchRingFrames, spares: config.stretchSpares)
    }

    /// Hands the renderer its stretch voices (made with `makeStretchers` by the owner, who
    /// keeps the storage alive as long as the renderer). A renderer that has voices keeps
    /// the ones it has. Real-time safe: a pointer copy.
    public mutating func attach(_ pool: StretchPool) {
        guard state.pool.count == 0 else { return }
        state.pool = pool
    }

    /// Output frames a command may need beyond a deep buffer's rewind guard before its
    /// first chunk is ready: starting a stretched stream (reset, the start pad fed, the start
    /// delay run through) takes about 1.5 ms here, more than a 128-frame guard leaves. 0 when
    /// audio started now plays at 100 % and `next` does not change that.
    public func stretchGuardFrames(before next: RenderCommand?) -> Int {
        // The configured voices, not the attached ones: the command may bring them.
        guard Self.stretchVoices(config) > 0 else { return 0 }
        if case .setSpeed(let p)? = next { return p == 100 && state.speed == 100 ? 0 : Self.stretchStartFrames }
        return state.speed == 100 ? 0 : Self.stretchStartFrames
    }

    /// See `stretchGuardFrames`: 16 ms at 48 kHz.
    public static let stretchStartFrames = 768

    /// Whether `setSpeed` can change the speed (the renderer has stretch voices, made in
    /// `init` or attached).
    public var canChangeSpeed: Bool { state.pool.count > 0 }

    /// The speed in percent that audio started now plays at.
    public var speedPercent: Int32 { state.speed }

    /// Applies a command; it takes effect at the first frame of the next `render`.
    /// Real-time safe.
    public mutating func apply(_ command: StampedCommand) {
        state.apply(command)
    }

    /// Writes `frames` interleaved stereo frames (`2 · frames` floats) to `out`.
    /// Real-time safe. The output does not depend on how a timeline is split into calls.
    public mutating func render(into out: UnsafeMutablePointer<Float>, frames: Int) {
        state.render(into: out, frames: frames)
    }

    /// Output frames rendered since creation.
    public var clock: Int64 { state.clock }

    /// Part-relative frame of playback; during a countdown, where audio will start.
    public var position: Int64 { state.position }

    /// The epoch of the last applied command.
    public var epoch: UInt32 { state.epoch }

    /// Whether output may be non-silent without another command: audio advancing or
    /// ramping out, a tick sounding, or a countdown pending.
    public var isSounding: Bool { state.isSounding }

    /// Whether audio is advancing toward full level (not paused, stopped or counting).
    public var isPlaying: Bool { state.mode == .playing }

    /// Whether a countdown with ticks is pending.
    public var isCountingDown: Bool { state.countdown.active && state.countdown.count > 0 }

    // MARK: Play history

    /// Entries of the play history written since creation (a restore goes back to the
    /// count of its snapshot). The newest `Renderer.historyCapacity` are kept.
    public var historyCount: Int { state.historyCount }

    /// History entry `index` (`historyCount - historyCapacity ..< historyCount`, from 0).
    /// Real-time safe.
    public func playedSpan(at index: Int) -> PlayedSpan {
        precondition(index >= 0 && index < state.historyCount && index >= state.historyCount - Self.historyCapacity)
        return state.history[index % Self.historyCapacity]
    }

    /// What output frame `frame` (already rendered) played, from the history; nil when it
    /// lies before the oldest entry kept.
    public func heard(atOutput frame: Int64) -> HeardFrame? {
        let history = state.history
        return PlayedSpan.heard(atOutput: frame, count: state.historyCount, capacity: Self.historyCapacity) {
            history[$0 % Self.historyCapacity]
        }
    }

    // MARK: Reports

    /// Reports collected since the last drain, in order.
    public var reportCount: Int { state.reportCount }

    /// Reports dropped because the buffer was full, since creation.
    public var droppedReports: Int { state.droppedReports }

    /// The report at `index` (0 ..< reportCount).
    public func report(at index: Int) -> RenderReport {
        precondition(index >= 0 && index < state.reportCount)
        return state.reports[index]
    }

    /// Forgets the collected reports.
    public mutating func removeAllReports() {
        state.reportCount = 0
    }

    /// Hands each collected report to `body` in order, then forgets them. Real-time safe
    /// when `body` is.
    public mutating func drainReports(_ body: (RenderReport) -> Void) {
        for i in 0..<state.reportCount { body(state.reports[i]) }
        state.reportCount = 0
    }

    /// The collected reports as an array, then forgets them. Allocates: not for the
    /// real-time thread.
    public mutating func takeReports() -> [RenderReport] {
        var all: [RenderReport] = []
        all.reserveCapacity(state.reportCount)
        for i in 0..<state.reportCount { all.append(state.reports[i]) }
        state.reportCount = 0
        return all
    }
}

extension Renderer: @unchecked Sendable {}
