/// A control event as the daemon logged it: "control: press loop at part 1 frame 96000
/// (playing)" — what acted, and where the music was when the reducer saw it.
public struct ControlRecord: Equatable, Sendable {
    /// "press loop", "long press next", "turn +1".
    public var action: String
    /// 1-based part.
    public var part: Int
    /// The part position the reducer saw, in frames.
    public var frame: Int64
    /// "stopped", "paused", "playing", "counting down 2".
    public var transport: String
    /// The part position the reducer saw as the control arrived (the control line's frame):
    /// where the render thread was, so where a command the control sends applies (a period
    /// later at most). `frame` too, but for a control that acts where the music was heard.
    public var seen: Int64
    /// The kernel's timestamp of the edge it acted at (CLOCK_MONOTONIC ns: a press's down
    /// edge, a detent), from the `control edge:` line; nil when none was logged.
    public var edgeInstant: Int64?

    public init(action: String, part: Int, frame: Int64, transport: String, seen: Int64? = nil, edgeInstant: Int64? = nil) {
        self.action = action
        self.part = part
        self.frame = frame
        self.transport = transport
        self.seen = seen ?? frame
        self.edgeInstant = edgeInstant
    }

    /// The controls of a daemon's log, in order. A control that acts where the music was
    /// heard (LOOP, PREV, a turn) takes the frame of the `control edge:` line after it
    /// ("… heard part 1 frame 95000"), the frame it acted at, and keeps the position the
    /// reducer saw as `seen`; others act at the position the reducer saw.
    public static func records(fromLog lines: [String]) -> [ControlRecord] {
        var records: [ControlRecord] = []
        for line in lines {
            if let record = ControlRecord(logLine: line) {
                records.append(record)
            } else if let edge = line.firstRange(of: "control edge: "), let last = records.last,
                      line[edge.upperBound...].hasPrefix(last.action + " at "), records[records.count - 1].edgeInstant == nil,
                      let ns = line[edge.upperBound...].dropFirst(last.action.count + 4).split(separator: " ").first,
                      let instant = Int64(ns) {
                records[records.count - 1].edgeInstant = instant
            }
            if let edge = line.firstRange(of: "control edge: "), let last = records.last,
                      let heard = line.firstRange(of: " heard part "),
                      let frameMark = line[heard.upperBound...].firstRange(of: " frame "),
                      line[edge.upperBound...].hasPrefix(last.action + " at "), last.actsWhereHeard,
                      let frame = Int64(line[frameMark.upperBound...]) {
                records[records.count - 1].frame = frame
            }
        }
        return records
    }

    /// Whether the control acts where the music was heard as it went down (LOOP, PREV, a
    /// detent without PLAY or LOOP held: those set the volume and the speed): its frame is the one the daemon's `control edge:` line gives.
    public var actsWhereHeard: Bool {
        action == "press loop" || action == "press prev"
            || (action.hasPrefix("turn ") && !action.hasSuffix(" holding play") && !action.hasSuffix(" holding loop"))
    }

    /// Parses a daemon log line; nil for other lines.
    public init?(logLine: String) {
        guard let marker = logLine.firstRange(of: "control: ") else { return nil }
        let body = logLine[marker.upperBound...]
        guard let at = body.firstRange(of: " at part "),
              let frameMark = body.firstRange(of: " frame "),
              let open = body.firstRange(of: " ("), body.hasSuffix(")"),
              let part = Int(body[at.upperBound..<frameMark.lowerBound]),
              let frame = Int64(body[frameMark.upperBound..<open.lowerBound]) else { return nil }
        self.init(action: String(body[..<at.lowerBound]), part: part, frame: frame,
                  transport: String(body[open.upperBound..<body.index(before: body.endIndex)]))
    }
}

/// Places the daemon's control events in the twin so that each acts at the same place in
/// the music: a scenario for `segmance sim`, and the twin frames at which audio commands
/// apply (for `AudioComparison`).
///
/// The daemon logs the part position each control arrived at (its render thread's
/// position, a period boundary: where the command it sends applies). The twin applies an
/// input at the first period boundary at or after its time, with the position it has
/// there; while music plays the twin's position moves one frame a frame (at another speed,
/// speed/100 of a frame) from a known anchor (the music's start after a countdown, the A of
/// a loop it wrapped to, the target of a seek, a speed change), so the boundary where it
/// equals the logged position is known exactly, and the input is placed there. A press is
/// released at that boundary (presses are recognised at the release: a long press is still
/// possible until then); an encoder detent completes there.
///
/// LOOP and a plain detent act where the music was heard as the button went down, a
/// device's buffer behind the render thread, and apply where the render thread was
/// (`ControlRecord.seen`): LOOP goes down in the twin at the instant its heard frame sounds
/// and comes up at the boundary of the position seen; a detent completes at that boundary,
/// with the twin's `latency` (what it hears is what it rendered that many frames before)
/// set so that it hears that frame. With edges the heard frame is what sounded at the
/// kernel's timestamp of the heard edge (`Edges.soundingAtHeardEdge`), or where the capture
/// says it was (`place(_:edges:heard:)`, `HeardMeasurement`); the daemon's logged frame
/// (its `control edge:` line, `ControlRecord.frame`) only without edges.
///
/// Inside an A–B loop a position comes round once a pass: the control is placed in the
/// pass its edge says (`Edges`: where the daemon's render thread was when the button
/// changed, from the kernel's pointers of the loopback card), the one nearest to it.
///
/// Modelled: PLAY from stopped or paused (with the routine's countdown) and to pause,
/// LOOP (mark A, mark B at the current position, which wraps to A at once; the loop then
/// wraps at B), NEXT while playing (the next part counts in from its start) and while paused
/// (nothing sounds), a manifest's loop with a lead-in and a speed ramp played from its A and
/// paused in a later pass (`rampedLoops`), encoder ±1
/// while playing with no A–B loop, the volume (encoder ±1 while PLAY is held, "turn -1
/// holding play": PLAY goes down before the detent and up after it; the music moves on),
/// the speed (encoder ±1 while LOOP is held, with no A–B loop: ±5 %, the same way; or
/// while paused or stopped, for the part's next start).
/// Anything else throws: it would need a model it does not have. Each command carries the
/// kind the audio comparison judges it by (`kinds`).
public struct TwinScenario: Sendable {
    public var rate: Int64 = 48_000
    /// The twin's period (`TwinRun.periodFrames`).
    public var periodFrames: Int64 = 128
    /// The routine's countdown in seconds.
    public var countdownSeconds: Int64
    /// A start from stopped or paused is placed this long after the previous input (or
    /// after the start of the run), in frames: the twin's boot notice has gone by then.
    public var startGapFrames: Int64 = 96_000
    /// How long a press is held in the twin, and the encoder's step time (`VirtualBoard`'s
    /// slow detent: 150 ms a detent, four steps).
    public var pressNanoseconds: Int64 = 80_000_000
    public var detentNanoseconds: Int64 = 150_000_000
    /// Silence left after the last input, in frames.
    public var tailFrames: Int64 = 48_000
    /// What the audio comparison allows each command (`Kinds`).
    public var kinds: Kinds
    /// The loops of the stick's manifest that play with a lead-in or a speed ramp, by part
    /// (1-based): a PLAY from their A plays them pass by pass (`RampedLoop`).
    public var rampedLoops: [Int: RampedLoop] = [:]

    /// A manifest's loop with a lead-in and a speed ramp: the first pass from A at the first
    /// speed, every later one from `restart` (A less the lead-in) at its pass's speed. Where
    /// a position sounds follows the render side (`Voice`): a pass at speed s plays the
    /// frames before B, ⌈(B − start)·100/s⌉ of them, the fraction past B carried into the
    /// next pass only when its speed is the same.
    public struct RampedLoop: Sendable, Equatable {
        public var a: Int64
        public var b: Int64
        public var restart: Int64
        /// Each pass's speed, the last for every pass after.
        public var speeds: [Int64]

        public init(a: Int64, b: Int64, leadIn: Int64, speeds: [Int64]) {
            self.a = a
            self.b = b
            self.restart = a - leadIn
            self.speeds = speeds
        }

        func speed(ofPass n: Int) -> Int64 { speeds[min(n, speeds.count - 1)] }

        /// Pass `n` (0 the first) of a run whose first pass starts at twin frame `start`:
        /// where it starts in the twin, its first position and its speed.
        func pass(_ n: Int, from start: Int64) -> Anchor {
            var frame = start, phase: Int64 = 0
            for k in 0..<n {
                let from = k == 0 ? a : restart, speed = speed(ofPass: k)
                let need = (b - from) * 100 - phase
                let frames = speed == 100 ? b - from : (need + speed - 1) / speed
                frame += frames
                let over = frames * speed + phase - (b - from) * 100
                phase = speed != 100 && speed == self.speed(ofPass: k + 1) && over >= 0 && over < 100 ? over : 0
            }
            return Anchor(frame: frame, position: n == 0 ? a : restart, speed: speed(ofPass: n), phase: phase)
        }
    }

    /// The comparison's view of each kind of command the rehearsal sends, for a device
    /// whose render thread writes `devicePeriodFrames` a period, with `rampFrames` ramps
    /// and crossfades (`RenderConfig`: 5 ms). The daemon reads the render thread's
    /// position when the control arrives and sends the command at once: a period the
    /// render thread began meanwhile delays it by one. What else may delay it is what the
    /// command does first, on the daemon's thread, before it is sent.
    public struct Kinds: Sendable {
        /// PLAY from stopped or paused: the sound starts anew (its first sound realigns).
        public var start: AudioComparison.CommandKind
        /// LOOP marking B: B is where B was heard, behind the play head when the loop
        /// arrives, so the loop wraps at once, as far past A as the music had gone past B
        /// (a crossfade): the music after the seam is the same however late the loop
        /// arrived, and a later loop only moves its crossfade (as a volume moves its ramp).
        public var loop: AudioComparison.CommandKind
        /// A detent: a seek crossfaded (the daemon first makes the pages at the target resident).
        public var seek: AudioComparison.CommandKind
        /// LOOP held while the encoder turns: the speed, crossfaded into a stretched stream
        /// from the position the render side was at. Applied a period later, the stream
        /// starts from another frame and is other audio (not the same, later): nothing to
        /// allow.
        public var speed: AudioComparison.CommandKind
        /// NEXT: the part ramps out, the next counts in (the daemon first maps the next part
        /// and makes its start resident: up to three periods seen on a loaded host).
        public var part: AudioComparison.CommandKind
        /// The volume chord: a volume ramp (applied later, only the ramp comes later).
        public var volume: AudioComparison.CommandKind
        /// PLAY while playing: the ramp out, then silence within one period more.
        public var pause: AudioComparison.CommandKind

        /// The device's period: how much later than where the daemon saw it a command
        /// applies when the render thread began a period in between.
        public var devicePeriodFrames: Int

        public init(devicePeriodFrames period: Int, rampFrames ramp: Int) {
            devicePeriodFrames = period
            start = .init(name: "start", rampFrames: 0, maxLagGrowth: 0, realigns: true)
            loop = .init(name: "loop", rampFrames: ramp, maxLagGrowth: 2 * period, movesMusic: false)
            seek = .init(name: "seek", rampFrames: ramp, maxLagGrowth: 2 * period)
            speed = .init(name: "speed", rampFrames: ramp, maxLagGrowth: 0)
            part = .init(name: "part", rampFrames: ramp, maxLagGrowth: 4 * period)
            volume = .init(name: "volume", rampFrames: ramp, maxLagGrowth: 2 * period, movesMusic: false)
            pause = .init(name: "pause", rampFrames: ramp, maxLagGrowth: period)
        }
    }

    public init(countdownSeconds: Int64, kinds: Kinds = Kinds(devicePeriodFrames: 512, rampFrames: 240)) {
        self.countdownSeconds = countdownSeconds
        self.kinds = kinds
    }

    /// Where the edges that made the controls were, in the capture's frames.
    public struct Edges: Equatable, Sendable {
        /// Capture frame of the first sound (the first tick of the first start's count-in):
        /// aligns the capture with the twin.
        public var captureOnset: Int64
        /// For each control, the capture frame through which the daemon's render thread had
        /// rendered when its deciding edge was made (nil where unknown).
        public var renderedThrough: [Int64?]
        /// The same, read just after the edge was made (nil where unknown): the edge was
        /// made while the render thread had rendered through a frame between the two.
        public var renderedThroughAfter: [Int64?]
        /// For each control that acts where it was heard, the capture frame sounding at the
        /// kernel's timestamp of its heard edge (LOOP going down, the detent's last step;
        /// nil elsewhere).
        public var soundingAtHeardEdge: [Int64?]

        public init(captureOnset: Int64, renderedThrough: [Int64?], renderedThroughAfter: [Int64?] = [],
                    soundingAtHeardEdge: [Int64?] = []) {
            self.captureOnset = captureOnset
            self.renderedThrough = renderedThrough
            self.renderedThroughAfter = renderedThroughAfter
            self.soundingAtHeardEdge = soundingAtHeardEdge
        }
    }

    /// The scenario and where its commands land.
    public struct Placement: Equatable, Sendable {
        /// `segmance sim` scenario text.
        public var text: String
        /// Twin frame of each control, in order.
        public var controlFrames: [Int64]
        /// For each control that acts where it was heard, the twin frame that sounds the
        /// frame it heard (nil for the others).
        public var heardFrames: [Int64?] = []
        /// For each control that acts where it was heard, the part position the twin hears
        /// there (nil for the others): what `heard` gave, else what sounded at the heard
        /// edge, else (no edges) the daemon's frame.
        public var heardPositions: [Int64?] = []
        /// For each control that acts where it was heard, the part position sounding at the
        /// kernel's timestamp of its heard edge (`Edges.soundingAtHeardEdge` through the
        /// first start's alignment; `HeardMeasurement.edgePositions` through the capture's
        /// alignment there), nil without one.
        public var edgePositions: [Int64?] = []
        /// The audio commands, where they apply in the twin and their kind (marking A sends none).
        public var commands: [AudioComparison.Command]
        /// Twin frames at which audio commands apply.
        public var commandFrames: [Int64] { commands.map { Int64($0.frame) } }
        /// The twin frame at which the scenario ends.
        public var endFrame: Int64
    }

    public struct Unplaceable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Where the twin's music is: twin frame `frame` sounds part position `position`, and
    /// from there on frame `frame + k` sounds `position + k·speed/100` (rounded down, as
    /// the render side's stretched voice counts).
    struct Anchor {
        var frame: Int64
        var position: Int64
        var speed: Int64 = 100
        /// Hundredths of a frame the stretched stream's grid is ahead (`Voice.phase`).
        var phase: Int64 = 0

        /// The first twin frame at or after `frame` that sounds `target`.
        func firstFrame(sounding target: Int64) -> Int64 {
            let d = target - position
            if speed == 100 || d <= 0 { return frame + d * 100 / speed }
            return frame + (d * 100 - phase + speed - 1) / speed
        }

        func position(at twinFrame: Int64) -> Int64 { position + ((twinFrame - frame) * speed + phase) / 100 }
    }

    /// Places `records` (the daemon's control log, in order); with `edges`, each control
    /// inside an A–B loop goes in the pass its edge was made in, and a control that acts
    /// where it was heard hears what sounded at its heard edge (`Edges.soundingAtHeardEdge`,
    /// a capture frame, taken to the twin's frames by the first start's alignment), not the
    /// daemon's frame; with `heard` (part positions by control, measured from the capture:
    /// `HeardMeasurement`), it hears those.
    public func place(_ records: [ControlRecord], edges: Edges? = nil,
                      heard measured: [Int64?] = []) throws(Unplaceable) -> Placement {
        var anchor: Anchor?
        var markA: Int64?
        /// The A–B loop the music wraps in, from the anchor on (the anchor is at A).
        var loop: Range<Int64>?
        /// A manifest's loop with a lead-in and a ramp, playing since twin frame `start`; its
        /// `shift` takes the twin's frames to the capture's (from the PLAY's edge: a start is
        /// placed after the previous input, not where the box's came).
        var ramped: (loop: RampedLoop, start: Int64, shift: Int64?)?
        /// NEXT while paused shows the routine's title for 3 s; the box's PLAY waits for the clock.
        var titleShowing = false
        /// The pass of `ramped` the last control was placed in.
        var rampedPass: Anchor?
        var previous: Int64 = 0
        /// capture frame = twin frame + shift, from the first start's first tick.
        var shift: Int64?
        /// The twin's `latency` (frames between rendering and sounding), as last set.
        var latency: Int64 = 0
        /// Each part's speed as set in this run (1-based part → percent; 100 when not set).
        var speeds: [Int: Int64] = [:]
        var lines: [String] = []
        var controls: [Int64] = []
        var heard: [Int64?] = Array(repeating: nil, count: records.count)
        var heardPositions: [Int64?] = Array(repeating: nil, count: records.count)
        var edgePositions: [Int64?] = Array(repeating: nil, count: records.count)
        /// Whether a control heard what sounded at its edge (not a measured or logged frame).
        var heardAtAnEdge = false
        var commands: [AudioComparison.Command] = []

        func fail(_ record: ControlRecord, _ why: String) -> Unplaceable {
            Unplaceable(description: "control \"\(record.action)\" at part \(record.part) frame \(record.frame) (\(record.transport)): \(why)")
        }
        /// The twin frame that sounds part position `position` for `record`: on a period
        /// boundary (where an input applies) unless not `aligned` (where it was heard).
        func boundary(_ position: Int64, for record: ControlRecord, index: Int,
                      aligned: Bool = true) throws(Unplaceable) -> Int64 {
            guard var anchor else { throw fail(record, "the music is not moving in the twin") }
            var frame = anchor.firstFrame(sounding: position)
            if let ramped {
                // The pass after the previous input that sounds it (the one nearest the edge).
                var estimate: Int64?
                if let edges, let shift = ramped.shift ?? shift, index < edges.renderedThrough.count,
                   let through = edges.renderedThrough[index] {
                    estimate = through - shift
                }
                var best: Anchor?, bestFrame: Int64 = 0
                for n in 0..<64 {
                    let pass = ramped.loop.pass(n, from: ramped.start)
                    guard position >= pass.position, position < ramped.loop.b else { continue }
                    let at = pass.firstFrame(sounding: position)
                    guard at > previous else { continue }
                    if best == nil { (best, bestFrame) = (pass, at) }
                    guard let estimate else { break }
                    if abs(at - estimate) < abs(bestFrame - estimate) { (best, bestFrame) = (pass, at) }
                }
                guard let best else { throw fail(record, "no pass of the loop \(ramped.loop) sounds it") }
                (anchor, frame) = (best, bestFrame)
                rampedPass = best
            }
            if let loop {
                guard anchor.speed == 100 else { throw fail(record, "an A–B loop at \(anchor.speed) % is not modelled") }
                guard loop.contains(position) else { throw fail(record, "the music loops in \(loop), the frame is outside it") }
                let length = loop.upperBound - loop.lowerBound
                // The first pass after the previous input, or the pass nearest the edge.
                while frame <= previous { frame += length }
                if let edges, let shift, index < edges.renderedThrough.count, let through = edges.renderedThrough[index] {
                    let estimate = through - shift
                    while abs(frame + length - estimate) < abs(frame - estimate) { frame += length }
                }
            }
            if aligned && anchor.speed == 100 && heardAtAnEdge {
                // The twin's music is a pointer step off the daemon's since a mark was made
                // where an edge said: the position comes at the next boundary (the placement
                // `HeardMeasurement` measures against, not the final one).
                frame = (frame + periodFrames - 1) / periodFrames * periodFrames
            } else if aligned && anchor.speed == 100 {
                guard frame % periodFrames == 0 else {
                    throw fail(record, "frame \(frame) is not on a \(periodFrames)-frame boundary of the twin")
                }
            } else if aligned {
                // At another speed a position sounds for one or two frames: the boundary among them.
                let first = frame
                frame = (frame + periodFrames - 1) / periodFrames * periodFrames
                guard anchor.position(at: frame) == position else {
                    throw fail(record, "no \(periodFrames)-frame boundary of the twin sounds position \(position) at \(anchor.speed) % (from frame \(first))")
                }
            }
            guard frame > previous else { throw fail(record, "it would come before the previous input in the twin") }
            return frame
        }
        /// The first nanosecond at which twin frame `frame` is the one sounding (rounded up,
        /// so that the frame heard at an input placed there is `frame` itself).
        func heardInstant(_ frame: Int64) -> Int64 { (frame * 1_000_000_000 + rate - 1) / rate }
        /// How much later than where the daemon saw it a command applied: the first of none,
        /// one or two device periods (a period the render thread began in between, or the
        /// work a command needs first) for which `fits` holds; nil for none.
        func appliedLate(_ fits: (Int64) -> Bool) -> Int64? {
            (0...2).map { Int64($0) * Int64(kinds.devicePeriodFrames) }.first(where: fits)
        }
        /// Where a control that acts where it was heard heard the music: the twin frame and
        /// the part position there. From `measured`, else from the capture at its heard
        /// edge, else (no edges) the daemon's frame; the edge's position is kept beside.
        func heardPlace(_ record: ControlRecord, index: Int) throws(Unplaceable) -> (frame: Int64, position: Int64) {
            guard let moving = anchor else { throw fail(record, "the music is not moving in the twin") }
            if let edges, let shift, index < edges.soundingAtHeardEdge.count, let sounding = edges.soundingAtHeardEdge[index] {
                guard loop == nil else { throw fail(record, "heard inside an A–B loop: not modelled") }
                let frame = sounding - shift
                guard frame >= moving.frame else { throw fail(record, "its heard edge (twin frame \(frame)) is before the music") }
                edgePositions[index] = moving.position(at: frame)
            }
            let position: Int64
            if index < measured.count, let p = measured[index] { position = p }
            else if let p = edgePositions[index] {
                position = p
                heardAtAnEdge = true
            }
            else { position = record.frame }
            heardPositions[index] = position
            return (try boundary(position, for: record, index: index, aligned: false), position)
        }
        let playing = { (record: ControlRecord) in record.transport == "playing" }
        func after(_ instant: Int64, _ record: ControlRecord) throws(Unplaceable) {
            guard instant > previous * 1_000_000_000 / rate else { throw fail(record, "too close to the previous input") }
        }
        /// LOOP acts where it was heard (the daemon's `control edge:` line, its down edge)
        /// and is recognised at its release, where the daemon saw the render thread's
        /// position (`seen`: a device's buffer and the press later): pressed at the instant
        /// the heard frame sounds in the twin, released at the boundary that sounds `seen`.
        /// Returns that boundary, where its command applies.
        func heardPress(_ record: ControlRecord, index: Int) throws(Unplaceable) -> (applied: Int64, position: Int64) {
            let (at, position) = try heardPlace(record, index: index)
            heard[index] = at
            let recognised = try boundary(record.seen, for: record, index: index)
            let press = heardInstant(at + latency), release = recognised * 1_000_000_000 / rate
            try after(press, record)
            guard release > press else { throw fail(record, "the position seen (\(record.seen)) does not follow the one heard") }
            lines.append("\(Self.seconds(press))  press loop")
            lines.append("\(Self.seconds(release))  release loop")
            return (recognised, position)
        }

        for (index, record) in records.enumerated() {
            let frame: Int64
            var kind: AudioComparison.CommandKind?
            if ramped != nil && !record.action.hasPrefix("press play") {
                throw fail(record, "in a loop with a lead-in or a ramp: only PLAY (a pause) is modelled")
            }
            switch record.action {
            case "press play" where record.transport == "stopped" || record.transport == "paused":
                // After NEXT while paused, once the title's 3 s are over (the box's silence is
                // longer still: it waits for the sound to end before NEXT, the clock before PLAY).
                let earliest = previous + (titleShowing ? 3 * rate + rate / 2 : startGapFrames)
                titleShowing = false
                frame = (earliest + periodFrames - 1) / periodFrames * periodFrames
                let onset = frame + countdownSeconds * rate
                // The count-in's first tick sounds at the frame the start applies.
                if shift == nil, let edges { shift = edges.captureOnset - frame }
                anchor = Anchor(frame: onset, position: record.frame, speed: speeds[record.part] ?? 100)
                loop = nil
                ramped = nil
                if let manifest = rampedLoops[record.part], record.frame == manifest.a {
                    var local: Int64?
                    if let edges, index < edges.renderedThrough.count, let through = edges.renderedThrough[index] {
                        local = through - frame
                    }
                    ramped = (manifest, onset, local)
                    anchor = manifest.pass(0, from: onset)
                }
                kind = kinds.start
            case "press play" where playing(record):
                // The pause, where the daemon saw the music or a device period later when its
                // render thread began one in between (the pause kind allows one). Where it
                // applied matters beyond its own ramp when the part is played again: the
                // music goes on from where it stopped. The next control's position, paused,
                // says where that was: the position the ramp out ended at.
                frame = try boundary(record.frame, for: record, index: index)
                let period = Int64(kinds.devicePeriodFrames), ramp = Int64(kinds.pause.rampFrames)
                var late: Int64 = 0
                if index + 1 < records.count, case let next = records[index + 1], next.part == record.part,
                   next.transport == "paused", let moving = ramped == nil ? anchor : rampedPass {
                    // Heard at an edge, the twin's music is off the daemon's: the pause where seen.
                    guard let found = appliedLate({ moving.position(at: frame + $0 + ramp) == next.frame })
                            ?? (heardAtAnEdge ? 0 : nil) else {
                        throw fail(record, "paused at \(next.frame), not where a pause here or up to two periods later ends")
                    }
                    guard found <= period else {
                        throw fail(record, "paused \(found) frames after where the daemon saw PLAY: more than a period")
                    }
                    late = found
                }
                anchor = nil
                ramped = nil
                let release = (frame + late) * 1_000_000_000 / rate
                try after(release - pressNanoseconds, record)
                lines.append("\(Self.seconds(release - pressNanoseconds))  press play")
                lines.append("\(Self.seconds(release))  release play")
                // Held to its edge where the daemon saw it; its command where it applied.
                controls.append(frame)
                commands.append(AudioComparison.Command(frame: Int(frame + late), kind: kinds.pause))
                previous = frame + late
                continue
            case "press loop" where playing(record) && markA == nil && loop == nil:
                let (recognised, a) = try heardPress(record, index: index)
                markA = a
                controls.append(recognised)
                previous = recognised
                continue
            case "press loop" where playing(record) && markA != nil:
                // B likewise; the loop arrives where the daemon saw the music, past B: it
                // wraps to A at once, as far past A as the music had gone past B
                // (RenderState.wrapLoop), and at B after.
                let (applied, b) = try heardPress(record, index: index)
                let a = markA!
                let over = record.seen - b
                anchor = Anchor(frame: applied, position: over > 0 && over < b - a ? a + over : a)
                loop = a ..< b
                markA = nil
                controls.append(applied)
                commands.append(AudioComparison.Command(frame: Int(applied), kind: kinds.loop))
                previous = applied
                continue
            case "press next" where record.transport == "stopped" || record.transport == "paused":
                // Nothing sounds: the next part waits at its start (or its loop's A).
                frame = (previous + startGapFrames / 2 + periodFrames - 1) / periodFrames * periodFrames
                titleShowing = true
                anchor = nil
                markA = nil
                loop = nil
                ramped = nil
            case "press next" where playing(record):
                frame = try boundary(record.frame, for: record, index: index)
                anchor = Anchor(frame: frame + countdownSeconds * rate, position: 0, speed: speeds[record.part + 1] ?? 100)
                markA = nil
                loop = nil
                kind = kinds.part
            case "turn +1 holding play" where playing(record), "turn -1 holding play" where playing(record):
                frame = try boundary(record.frame, for: record, index: index)
                kind = kinds.volume
            case "turn +1 holding loop" where record.transport == "paused" || record.transport == "stopped",
                 "turn -1 holding loop" where record.transport == "paused" || record.transport == "stopped":
                // The speed while the music stands: nothing sounds, so nothing to compare;
                // the part's next start plays at it. Placed a chord's length after the
                // previous input.
                let speed = min(150, max(50, (speeds[record.part] ?? 100) + (record.action.hasPrefix("turn +") ? 5 : -5)))
                speeds[record.part] = speed
                let earliest = previous + (pressNanoseconds * 2 + detentNanoseconds) * rate / 1_000_000_000
                frame = (earliest + periodFrames - 1) / periodFrames * periodFrames
                kind = nil
            case "turn +1 holding loop" where playing(record) && loop == nil,
                 "turn -1 holding loop" where playing(record) && loop == nil:
                // The speed, 5 % a detent: from the position the render thread was at on, at
                // the new speed — where the daemon saw it, or a device period or two later
                // when the render thread began one in between. The next control's position
                // says which (only one of them puts it on the twin's grid at 95 %; where more
                // would, the earliest is taken), and the twin changes speed there.
                frame = try boundary(record.frame, for: record, index: index)
                let speed = min(150, max(50, anchor!.speed + (record.action.hasPrefix("turn +") ? 5 : -5)))
                speeds[record.part] = speed
                var late: Int64 = 0
                if index + 1 < records.count, case let next = records[index + 1], next.part == record.part, playing(next) {
                    late = appliedLate { late in
                        let moved = Anchor(frame: frame + late, position: anchor!.position(at: frame + late), speed: speed)
                        let at = (moved.firstFrame(sounding: next.seen) + periodFrames - 1) / periodFrames * periodFrames
                        return moved.position(at: at) == next.seen
                    } ?? 0
                }
                // Where the music is when it applies: a period or two on at the old speed.
                let from = anchor!.position(at: frame + late)
                anchor = Anchor(frame: frame + late, position: from, speed: speed)
                let applied = frame + late
                let start = applied * 1_000_000_000 / rate - detentNanoseconds * 3 / 4
                try after(start - pressNanoseconds, record)
                lines.append("\(Self.seconds(start - pressNanoseconds))  press loop")
                lines.append("\(Self.seconds(start))  turn \(record.action.dropFirst(5).prefix { $0 != " " })")
                lines.append("\(Self.seconds(applied * 1_000_000_000 / rate + pressNanoseconds))  release loop")
                // Held to its edge where the daemon saw it; its command where it applied.
                controls.append(frame)
                commands.append(AudioComparison.Command(frame: Int(applied), kind: kinds.speed))
                previous = applied
                continue
            case "turn +1" where playing(record) && loop == nil, "turn -1" where playing(record) && loop == nil:
                // A seek is relative to the frame heard at the detent (the daemon's `control
                // edge:` line) and applies where the daemon saw the render thread (`seen`, a
                // device's buffer later): the detent is placed there, and the twin's latency
                // set so that the frame it hears then is the daemon's.
                let (at, from) = try heardPlace(record, index: index)
                heard[index] = at
                let applied = try boundary(record.seen, for: record, index: index)
                let detent = applied * 1_000_000_000 / rate
                let heardLatency = detent * rate / 1_000_000_000 - at
                guard heardLatency >= 0 else { throw fail(record, "heard after the position the daemon saw (\(record.seen))") }
                let start = detent - detentNanoseconds * 3 / 4
                try after(start, record)
                if heardLatency != latency { lines.append("\(Self.seconds(start))  latency \(heardLatency)") }
                latency = heardLatency
                lines.append("\(Self.seconds(start))  turn \(record.action.dropFirst(5))")
                let step = record.action == "turn +1" ? rate : -rate
                anchor = Anchor(frame: applied, position: max(0, from + step), speed: anchor!.speed)
                controls.append(applied)
                commands.append(AudioComparison.Command(frame: Int(applied), kind: kinds.seek))
                previous = applied
                continue
            default:
                throw fail(record, "not modelled by TwinScenario")
            }
            let release = frame * 1_000_000_000 / rate
            if record.action.hasPrefix("turn") {
                // Four quadrature steps a detent; the detent is recognised at the fourth. A
                // chord's button goes down a press before the detent, up a press after it.
                let start = release - detentNanoseconds * 3 / 4
                let held = record.action.firstRange(of: " holding ").map { String(record.action[$0.upperBound...]) }
                let first = held == nil ? start : start - pressNanoseconds
                try after(first, record)
                if let held { lines.append("\(Self.seconds(first))  press \(held)") }
                lines.append("\(Self.seconds(start))  turn \(record.action.dropFirst(5).prefix { $0 != " " })")
                if let held { lines.append("\(Self.seconds(release + pressNanoseconds))  release \(held)") }
            } else {
                let button = record.action.split(separator: " ").last!
                let press = release - pressNanoseconds
                try after(press, record)
                lines.append("\(Self.seconds(press))  press \(button)")
                lines.append("\(Self.seconds(release))  release \(button)")
            }
            controls.append(frame)
            if let kind { commands.append(AudioComparison.Command(frame: Int(frame), kind: kind)) }
            previous = frame
        }
        let end = previous + tailFrames
        lines.append("\(Self.seconds(end * 1_000_000_000 / rate))  end")
        return Placement(text: lines.joined(separator: "\n") + "\n", controlFrames: controls, heardFrames: heard,
                         heardPositions: heardPositions, edgePositions: edgePositions, commands: commands, endFrame: end)
    }

    /// Nanoseconds as "12.345678901" (the scenario's exact decimal seconds).
    public static func seconds(_ nanoseconds: Int64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }
}
