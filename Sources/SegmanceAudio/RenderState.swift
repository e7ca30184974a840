import SegmanceCore

/// What the main voice is doing.
enum MainMode: UInt8 {
    /// Silent, the position holds.
    case idle
    /// Advancing; the envelope rises to full (or is full).
    case playing
    /// Advancing while the envelope falls; holds when it reaches 0.
    case pausing
}

/// The loop in force, in part-relative frames: wrap when the main voice reaches `end`.
struct LoopState {
    var active = false
    var start: Int64 = 0
    var end: Int64 = 0
    var countdown: Int32 = 0
    /// A count in beats before each repeat (in place of `countdown` seconds) when its beats > 0.
    var countIn = RenderCountIn.none
    /// Frames of silence before each repeat (before its ticks).
    var pause: Int64 = 0
    /// Passes before stopping at `end`; 0 = endless.
    var passes: Int32 = 0
    /// The pass playing now, from 1.
    var pass: Int32 = 1
    /// Where each repeat starts: `start`, or a lead-in before it.
    var restart: Int64 = 0
    /// The speed of each pass (`RenderRamp.none`: as set).
    var ramp = RenderRamp.none
}

/// A pending start: `count` ticks at `t0 + round(k·beat)`, then audio from `start` at
/// `t0 + round(count·beat) - lead`. `index` is the next event (a tick while `< count`, else
/// the start). A pause before a loop's repeat is a `t0` that lies ahead. Seconds are
/// beats of `rate` frames with no lead, the last tick accented; in beats, counts 1 and 5.
struct CountdownState {
    var active = false
    var t0: Int64 = 0
    var count: Int32 = 0
    var index: Int32 = 0
    var start: Int64 = 0
    var beat: Double = 0
    var lead: Int64 = 0
    /// The count (1...8) of the first tick in beats; 0 when counting seconds.
    var firstCount: Int32 = 0
}

/// Everything the render side knows, as plain data: no references, no allocation.
/// Pointers point into storage owned by `Renderer`.
struct RenderState {
    let rate: Int64
    let ramp: Int32
    let crossfade: Int32
    let volumeRamp: Int32
    let positionInterval: Int64
    let tickSound: UnsafePointer<Float>
    let tickLength: Int32
    let accentSound: UnsafePointer<Float>
    let accentLength: Int32
    let reports: UnsafeMutablePointer<RenderReport>
    let reportCapacity: Int
    /// The stretchers for speeds other than 100 % (none: the speed stays 100). Set once
    /// (`Renderer.attach`); a restored snapshot keeps the renderer's.
    var pool: StretchPool
    /// The play history, a ring: entry `i` at `history[i % historyCapacity]`.
    let history: UnsafeMutablePointer<PlayedSpan>
    let historyCapacity: Int
    /// Entries written since creation (restored with a snapshot: a rewind forgets the
    /// entries of the frames it renders again, and writes them anew).
    var historyCount = 0
    /// Parts since creation: one more at each load and each advance (`PlayedSpan.part`).
    var part: UInt32 = 0

    var reportCount = 0
    var droppedReports = 0
    var lastPositionReport: Int64 = -1
    /// The clock `primeAhead` last ran at (it runs once per grid point).
    var lastPrime: Int64 = -1

    /// Output frames rendered so far.
    var clock: Int64 = 0
    var epoch: UInt32 = 0

    var main = Voice(.empty)
    var mode = MainMode.idle
    /// Envelope level 0...ramp; the gain of a frame is level/ramp, then the level steps.
    var level: Int32 = 0
    var levelStep: Int32 = 0

    /// The crossfade partner: the audio the main voice left at a loop seam or seek.
    var partner = Voice(.empty)
    var partnerStep: Int32 = 0
    var partnerActive = false

    /// Audio abandoned by stop, load or a counted restart, ramping out on its own: the gain
    /// of a frame is fadingLevel/fadingSpan, then the level steps down by 1.
    var fading = Voice(.empty)
    var fadingLevel: Int32 = 0
    /// The frames of a whole fade-out: the ramp, or a stop's longer fade (`stopFading`).
    var fadingSpan: Int32 = 1

    var loop = LoopState()
    var next: PCMSlice?
    /// Percent of the original tempo for audio started from now on (`setSpeed`).
    var speed: Int32 = 100

    var volumeFrom: Float = 1
    var volumeTo: Float = 1
    var volumeStep: Int32

    var countdown = CountdownState()
    /// Spoken counts in place of ticks (`setCountWords`); `.none` = ticks.
    var words = CountWords.none
    var tick = TickVoice()
    var fadingTick = TickVoice()
    var fadingTickLevel: Int32 = 0
    /// A spoken announcement (`announce`), mixed in as a tick is.
    var announcement = TickVoice()

    init(rate: Int64, ramp: Int32, crossfade: Int32, volumeRamp: Int32, positionInterval: Int64,
         tickSound: UnsafePointer<Float>, tickLength: Int32,
         accentSound: UnsafePointer<Float>, accentLength: Int32,
         reports: UnsafeMutablePointer<RenderReport>, reportCapacity: Int,
         history: UnsafeMutablePointer<PlayedSpan>, historyCapacity: Int, pool: StretchPool = .empty) {
        self.rate = rate
        self.ramp = ramp
        self.crossfade = crossfade
        self.volumeRamp = volumeRamp
        self.positionInterval = positionInterval
        self.tickSound = tickSound
        self.tickLength = tickLength
        self.accentSound = accentSound
        self.accentLength = accentLength
        self.reports = reports
        self.reportCapacity = reportCapacity
        self.pool = pool
        self.history = history
        self.historyCapacity = historyCapacity
        self.volumeStep = volumeRamp
    }

    var position: Int64 { countdown.active ? countdown.start : main.pos }

    var isSounding: Bool {
        mode != .idle || fadingLevel > 0 || tick.isActive || fadingTickLevel > 0
            || countdown.active || announcement.isActive
    }

    // MARK: Play history

    /// Starts a history entry at `clock` unless the previous one already describes it.
    @inline(__always)
    mutating func noteSpan() {
        let advancing = mode != .idle && main.base != nil
        let span = PlayedSpan(outputFrame: clock, sourceFrame: main.pos, rate: advancing ? 1 : 0,
                              epoch: epoch, part: part)
        if historyCount > 0 && history[(historyCount &- 1) % historyCapacity].isContinued(by: span) { return }
        history[historyCount % historyCapacity] = span
        historyCount &+= 1
    }

    // MARK: Reports

    mutating func report(_ kind: AudioReport.Kind) {
        if reportCount < reportCapacity {
            (reports + reportCount).initialize(to: RenderReport(AudioReport(epoch: epoch, kind),
                                                                frame: clock))
            reportCount &+= 1
        } else {
            droppedReports &+= 1
        }
    }

    // MARK: Commands

    mutating func apply(_ stamped: StampedCommand) {
        epoch = stamped.epoch
        switch stamped.command {
        case .load(let pcm):
            cancelCountdown()
            handOffToFading()
            main = Voice(pcm)
            main.place(0, speed: speed)
            part &+= 1
            silenceMain()
            loop = LoopState()
            next = nil
        case .play(let from, let count):
            cancelCountdown()
            let p = clampToPart(from)
            if count > 0 {
                handOffToFading()
                silenceMain()
                main.place(p, speed: speed)
            }
            countdown = CountdownState(active: true, t0: clock, count: max(0, count), index: 0,
                                       start: p, beat: Double(rate))
        case .playCountIn(let from, let countIn):
            cancelCountdown()
            let p = clampToPart(from)
            handOffToFading()
            silenceMain()
            main.place(p, speed: speed)
            countdown = CountdownState(active: true, t0: clock, count: max(0, countIn.beats), index: 0, start: p,
                                       beat: countIn.beatFrames, lead: countIn.lead, firstCount: countIn.firstCount)
        case .playAfter(let silence, let from, let count, let countIn):
            cancelCountdown()
            let p = clampToPart(from)
            handOffToFading()
            silenceMain()
            main.place(p, speed: speed)
            let t0 = clock &+ max(0, silence)
            countdown = countIn.beats > 0
                ? CountdownState(active: true, t0: t0, count: countIn.beats, index: 0, start: p,
                                 beat: countIn.beatFrames, lead: countIn.lead, firstCount: countIn.firstCount)
                : CountdownState(active: true, t0: t0, count: max(0, count), index: 0, start: p, beat: Double(rate))
        case .pause:
            if countdown.active {
                let p = countdown.start
                cancelCountdown()
                if mode == .idle { main.place(p, speed: speed) }
            } else {
                cutTick()
            }
            if mode == .playing {
                if level > 0 {
                    mode = .pausing
                    levelStep = -1
                } else {
                    settlePause()
                }
            }
        case .stop:
            stop(fade: ramp)
        case .stopFading(let frames):
            stop(fade: frames < Int64(ramp) ? ramp : Int32(clamping: frames))
        case .seek(let to):
            var p = clampToPart(to)
            if loop.active { p = clamp(p, loop.start, loop.end - 1) }
            if countdown.active {
                countdown.start = p
                if mode == .idle { main.place(p, speed: speed) }
            } else if mode != .idle && level > 0 {
                startCrossfade()
                main.place(p, speed: speed)
            } else {
                main.place(p, speed: speed)
            }
        case .setLoop(let start, let end, let count, let pause, let passes, let countIn, let leadIn, let ramp):
            let s = max(0, start)
            let e = end < main.frames ? end : main.frames
            loop = e > s ? LoopState(active: true, start: s, end: e, countdown: max(0, count), countIn: countIn,
                                     pause: max(0, pause), passes: max(0, passes), pass: 1,
                                     restart: max(0, s &- max(0, leadIn)), ramp: ramp)
                         : LoopState()
        case .clearLoop:
            loop = LoopState()
        case .setNext(let pcm):
            next = pcm
        case .setVolume(let percent):
            let p = percent < 0 ? 0 : (percent > 100 ? 100 : percent)
            volumeFrom = volume()
            volumeTo = Float(p * p) / 10_000
            volumeStep = 0
        case .setSpeed(let percent):
            let p = pool.count == 0 ? 100 : (percent < 50 ? 50 : (percent > 150 ? 150 : percent))
            guard p != speed else { break }
            speed = p
            // The same source frame at the new speed: crossfaded like a seek while sounding.
            if !countdown.active && mode != .idle && level > 0 { startCrossfade() }
            main.place(main.pos, speed: speed)
        case .setCountWords(let words):
            self.words = words
        case .announce(let words, let within):
            guard let (samples, length) = words.word(1) else { break }
            let room = Int32(clamping: max(1, within &- Int64(ramp)))
            announcement = length > room
                ? TickVoice(samples: samples, length: room, index: 0, fadeFrom: max(0, room &- 2 &* ramp))
                : TickVoice(samples: samples, length: length, index: 0)
        }
    }

    @inline(__always)
    func clamp(_ x: Int64, _ lo: Int64, _ hi: Int64) -> Int64 {
        x < lo ? lo : (x > hi ? hi : x)
    }

    func clampToPart(_ p: Int64) -> Int64 { clamp(p, 0, main.frames) }

    /// The volume gain of the current frame.
    @inline(__always)
    func volume() -> Float {
        volumeStep >= volumeRamp
            ? volumeTo
            : volumeFrom + (volumeTo - volumeFrom) * (Float(volumeStep) / Float(volumeRamp))
    }

    mutating func silenceMain() {
        mode = .idle
        level = 0
        levelStep = 0
        partnerActive = false
    }

    /// The main voice's current audio continues in the fading slot, ramping out from its
    /// current level over `span` frames (at the full level; `ramp` unless a stop fades
    /// longer), so the main voice is free at once.
    mutating func handOffToFading(span: Int32? = nil) {
        if mode != .idle && level > 0 {
            let span = span ?? ramp
            fading = main
            fadingSpan = span
            fadingLevel = span == ramp ? level : Int32(clamping: Int64(level) &* Int64(span) / Int64(ramp))
        }
        partnerActive = false
    }

    /// Stops: the sounding audio fades out over `fade` frames, the countdown is cancelled,
    /// the position is 0.
    mutating func stop(fade: Int32) {
        cancelCountdown()
        handOffToFading(span: fade)
        silenceMain()
        main.place(0, speed: speed)
        loop.pass = 1
    }

    /// The main voice's audio becomes the crossfade partner; the caller moves `main.pos`.
    mutating func startCrossfade() {
        partner = main
        partnerStep = 0
        partnerActive = true
    }

    mutating func cancelCountdown() {
        countdown.active = false
        cutTick()
    }

    /// A sounding tick ramps out in its own slot.
    mutating func cutTick() {
        if tick.isActive {
            fadingTick = tick
            fadingTickLevel = ramp
        }
        tick = TickVoice()
    }

    mutating func settlePause() {
        silenceMain()
        report(.position(main.pos))
    }

    // MARK: Events at the current frame

    /// Completes ramps and fires everything due at `clock`. Idempotent for one clock.
    mutating func processEvents() {
        if levelStep > 0 && level >= ramp {
            level = ramp
            levelStep = 0
        }
        if levelStep < 0 && level <= 0 {
            level = 0
            levelStep = 0
            if mode == .pausing { settlePause() }
        }
        if partnerActive && partnerStep >= crossfade { partnerActive = false }
        if !tick.isActive { tick = TickVoice() }
        if fadingTickLevel > 0 && !fadingTick.isActive { fadingTickLevel = 0 }

        // A wrap can start a countdown whose first tick is due now, and a start can land
        // on the part's end: loop until nothing more fires (bounded, for safety).
        var rounds = 0
        while rounds < 8 {
            rounds &+= 1
            var fired = false
            if mode != .idle {
                // At E — or past it, when the loop arrived after the play head had gone by
                // (B marked live: the control side read the position a moment earlier).
                if loop.active && main.pos >= loop.end {
                    wrapLoop()
                    fired = true
                } else if main.pos >= main.frames {
                    reachEnd()
                    fired = true
                }
            }
            if countdown.active && clock == countdownEventClock() {
                countdownEvent()
                fired = true
            }
            if !fired { break }
        }

        if positionInterval > 0 && mode != .idle && clock % positionInterval == 0
            && lastPositionReport != clock {
            lastPositionReport = clock
            report(.position(main.pos))
        }
    }

    func countdownEventClock() -> Int64 {
        let at = countdown.t0 &+ Int64((Double(countdown.index) * countdown.beat).rounded())
        return countdown.index < countdown.count ? at : at &- countdown.lead
    }

    mutating func wrapLoop() {
        if loop.passes > 0 && loop.pass >= loop.passes && mode == .playing {
            // The last pass: the audio ramps out from the end, the place goes back to A.
            handOffToFading()
            silenceMain()
            main.place(loop.start, speed: speed)
            loop.pass = 1
            report(.loopFinished)
            return
        }
        report(.looped)
        if loop.pass < Int32.max { loop.pass &+= 1 }
        // A ramp's next pass plays whole at its speed: changed here, on the seam.
        if let passSpeed = loop.ramp.speed(ofPass: loop.pass), pool.count > 0 { speed = passSpeed }
        if (loop.countdown > 0 || loop.countIn.beats > 0 || loop.pause > 0) && mode == .playing {
            handOffToFading()
            silenceMain()
            main.place(loop.restart, speed: speed)
            countdown = loop.countIn.beats > 0
                ? CountdownState(active: true, t0: clock &+ loop.pause, count: loop.countIn.beats, index: 0,
                                 start: loop.restart, beat: loop.countIn.beatFrames, lead: loop.countIn.lead,
                                 firstCount: loop.countIn.firstCount)
                : CountdownState(active: true, t0: clock &+ loop.pause, count: loop.countdown, index: 0,
                                 start: loop.restart, beat: Double(rate))
        } else {
            // A loop set after the play head passed its end (B marked where it was heard,
            // the head a buffer ahead) goes on as far past A: a loop of whole beats keeps
            // the beat across its first seam too. A stretched stream at the same speed
            // carries the fraction of a frame it went past B.
            let over = main.pos &- loop.end
            let carry = main.speed == speed ? main.overshoot(past: loop.end) : 0
            startCrossfade()
            main.place(over > 0 && over < loop.end &- loop.restart ? loop.restart &+ over : loop.restart,
                       speed: speed, phase: carry)
        }
    }

    mutating func reachEnd() {
        if mode == .pausing {
            settlePause()
            return
        }
        if let n = next, n.base != nil, n.frames > 0 {
            main = Voice(n)
            main.place(0, speed: speed)
            part &+= 1
            next = nil
            loop = LoopState()
            report(.advanced)
        } else {
            next = nil
            silenceMain()
            report(.partEnded)
        }
    }

    /// A word that ends a ramp before the next count: cut there, fading over the two
    /// ramps before its new end, when it is longer (a fast tempo).
    func spokenCount(_ samples: UnsafePointer<Float>, length: Int32) -> TickVoice {
        let beat = countdown.beat < 1 ? Int64(1) : (countdown.beat > 1e12 ? Int64(1e12) : Int64(countdown.beat))
        let room = Int32(clamping: max(1, beat &- Int64(ramp)))
        guard length > room else { return TickVoice(samples: samples, length: length, index: 0) }
        return TickVoice(samples: samples, length: room, index: 0, fadeFrom: max(0, room &- 2 &* ramp))
    }

    mutating func countdownEvent() {
        if countdown.index < countdown.count {
            let remaining = countdown.count - 1 - countdown.index
            if tick.isActive { cutTick() }
            let accented: Bool
            if countdown.firstCount > 0 {
                let count = (countdown.firstCount &- 1 &+ countdown.index) % 8 &+ 1
                accented = count == 1 || count == 5
            } else {
                accented = remaining == 0
            }
            let number =
                countdown.firstCount > 0 ? (countdown.firstCount &- 1 &+ countdown.index) % 8 &+ 1 : remaining &+ 1
            if let word = words.word(number) {
                tick = spokenCount(word.0, length: word.1)
            } else {
                tick = accented
                    ? TickVoice(samples: accentSound, length: accentLength, index: 0)
                    : TickVoice(samples: tickSound, length: tickLength, index: 0)
            }
            report(.countdownTick(remaining: Int(remaining)))
            countdown.index &+= 1
        } else {
            countdown.active = false
            let p = clampToPart(countdown.start)
            if mode != .idle && level > 0 {
                startCrossfade()
                levelStep = level < ramp ? 1 : 0
            } else {
                level = 0
                levelStep = 1
            }
            main.place(p, speed: speed)
            mode = .playing
            report(.started(at: p))
        }
    }
}
