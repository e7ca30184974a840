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

    public init(action: String, part: Int, frame: Int64, transport: String) {
        self.action = action
        self.part = part
        self.frame = frame
        self.transport = transport
    }

    /// The controls of a daemon's log, in order. A control that acts where the music was
    /// heard (LOOP, PREV, a turn) takes the frame of the `control edge:` line after it
    /// ("… heard part 1 frame 95000"), the frame it acted at; others keep the position the
    /// reducer saw.
    public static func records(fromLog lines: [String]) -> [ControlRecord] {
        var records: [ControlRecord] = []
        for line in lines {
            if let record = ControlRecord(logLine: line) {
                records.append(record)
            } else if let edge = line.firstRange(of: "control edge: "), let last = records.last,
                      let heard = line.firstRange(of: " heard part "),
                      let frameMark = line[heard.upperBound...].firstRange(of: " frame "),
                      line[edge.upperBound...].hasPrefix(last.action + " at "),
                      last.action == "press loop" || last.action == "press prev"
                          || (last.action.hasPrefix("turn ") && !last.action.hasSuffix(" holding play")),
                      let frame = Int64(line[frameMark.upperBound...]) {
                records[records.count - 1].frame = frame
            }
        }
        return records
    }

    /// Whether the control acts where the music was heard as it went down (LOOP, PREV, a
    /// detent without PLAY held): its frame is the one the daemon's `control edge:` line gives.
    public var actsWhereHeard: Bool {
        action == "press loop" || action == "press prev" || (action.hasPrefix("turn ") && !action.hasSuffix(" holding play"))
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
/// The daemon logs the part position each control acted at (its render thread's position,
/// a period boundary). The twin applies an input at the first period boundary at or after
/// its time, with the position it has there; while music plays the twin's position moves
/// one frame a frame from a known anchor (the music's start after a countdown, the A of a
/// loop it wrapped to, the target of a seek), so the boundary where it equals the logged
/// position is known exactly, and the input is placed there. A press is released at that
/// boundary (presses are recognised at the release: a long press is still possible until
/// then); an encoder detent completes there.
///
/// Inside an A–B loop a position comes round once a pass: the control is placed in the
/// pass its edge says (`Edges`: where the daemon's render thread was when the button
/// changed, from the kernel's pointers of the loopback card), the one nearest to it.
///
/// Modelled: PLAY from stopped or paused (with the routine's countdown) and to pause,
/// LOOP (mark A, mark B at the current position, which wraps to A at once; the loop then
/// wraps at B), NEXT while playing (the next part counts in from its start), encoder ±1
/// while playing with no A–B loop, the volume (encoder ±1 while PLAY is held, "turn -1
/// holding play": PLAY goes down before the detent and up after it; the music moves on).
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
        /// NEXT: the part ramps out, the next counts in (the daemon first maps the next part
        /// and makes its start resident: up to three periods seen on a loaded host).
        public var part: AudioComparison.CommandKind
        /// The volume chord: a volume ramp (applied later, only the ramp comes later).
        public var volume: AudioComparison.CommandKind
        /// PLAY while playing: the ramp out, then silence within one period more.
        public var pause: AudioComparison.CommandKind

        public init(devicePeriodFrames period: Int, rampFrames ramp: Int) {
            start = .init(name: "start", rampFrames: 0, maxLagGrowth: 0, realigns: true)
            loop = .init(name: "loop", rampFrames: ramp, maxLagGrowth: 2 * period, movesMusic: false)
            seek = .init(name: "seek", rampFrames: ramp, maxLagGrowth: 2 * period)
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

        public init(captureOnset: Int64, renderedThrough: [Int64?]) {
            self.captureOnset = captureOnset
            self.renderedThrough = renderedThrough
        }
    }

    /// The scenario and where its commands land.
    public struct Placement: Equatable, Sendable {
        /// `segmance sim` scenario text.
        public var text: String
        /// Twin frame of each control, in order.
        public var controlFrames: [Int64]
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

    /// Places `records` (the daemon's control log, in order); with `edges`, each control
    /// inside an A–B loop goes in the pass its edge was made in.
    public func place(_ records: [ControlRecord], edges: Edges? = nil) throws(Unplaceable) -> Placement {
        /// Twin frame `frame` sounds part position `position`, and position moves with frames.
        var anchor: (frame: Int64, position: Int64)?
        var markA: Int64?
        /// The A–B loop the music wraps in, from the anchor on (the anchor is at A).
        var loop: Range<Int64>?
        var previous: Int64 = 0
        /// capture frame = twin frame + shift, from the first start's first tick.
        var shift: Int64?
        var lines: [String] = []
        var controls: [Int64] = []
        var commands: [AudioComparison.Command] = []

        func fail(_ record: ControlRecord, _ why: String) -> Unplaceable {
            Unplaceable(description: "control \"\(record.action)\" at part \(record.part) frame \(record.frame) (\(record.transport)): \(why)")
        }
        func boundary(for record: ControlRecord, index: Int, aligned: Bool = true) throws(Unplaceable) -> Int64 {
            guard let anchor else { throw fail(record, "the music is not moving in the twin") }
            var frame = anchor.frame + (record.frame - anchor.position)
            if let loop {
                guard loop.contains(record.frame) else { throw fail(record, "the music loops in \(loop), the frame is outside it") }
                let length = loop.upperBound - loop.lowerBound
                // The first pass after the previous input, or the pass nearest the edge.
                while frame <= previous { frame += length }
                if let edges, let shift, index < edges.renderedThrough.count, let through = edges.renderedThrough[index] {
                    let estimate = through - shift
                    while abs(frame + length - estimate) < abs(frame - estimate) { frame += length }
                }
            }
            guard !aligned || frame % periodFrames == 0 else {
                throw fail(record, "frame \(frame) is not on a \(periodFrames)-frame boundary of the twin")
            }
            guard frame > previous else { throw fail(record, "it would come before the previous input in the twin") }
            return frame
        }
        /// The first nanosecond at which twin frame `frame` is the one sounding (rounded up,
        /// so that the frame heard at an input placed there is `frame` itself).
        func heardInstant(_ frame: Int64) -> Int64 { (frame * 1_000_000_000 + rate - 1) / rate }
        /// The first period boundary at or after the instant `nanoseconds` (where an input
        /// recognised then is applied).
        func recognisedAt(_ nanoseconds: Int64) -> Int64 {
            ((nanoseconds * rate + 999_999_999) / 1_000_000_000 + periodFrames - 1) / periodFrames * periodFrames
        }
        let playing = { (record: ControlRecord) in record.transport == "playing" }

        for (index, record) in records.enumerated() {
            let frame: Int64
            var kind: AudioComparison.CommandKind?
            switch record.action {
            case "press play" where record.transport == "stopped" || record.transport == "paused":
                let earliest = previous + startGapFrames
                frame = (earliest + periodFrames - 1) / periodFrames * periodFrames
                let onset = frame + countdownSeconds * rate
                // The count-in's first tick sounds at the frame the start applies.
                if shift == nil, let edges { shift = edges.captureOnset - frame }
                anchor = (onset, record.frame)
                loop = nil
                kind = kinds.start
            case "press play" where playing(record):
                frame = try boundary(for: record, index: index)
                anchor = nil
                kind = kinds.pause
            case "press loop" where playing(record) && markA == nil && loop == nil:
                // A mark is the frame heard as the button went down (the daemon's `control
                // edge:` line): the press goes down there, recognised at its release.
                let at = try boundary(for: record, index: index, aligned: false)
                let press = heardInstant(at)
                guard press > previous * 1_000_000_000 / rate else { throw fail(record, "too close to the previous input") }
                lines.append("\(Self.seconds(press))  press loop")
                lines.append("\(Self.seconds(press + pressNanoseconds))  release loop")
                markA = record.frame
                controls.append(at)
                previous = recognisedAt(press + pressNanoseconds)
                continue
            case "press loop" where playing(record) && markA != nil:
                // B likewise; the loop arrives at B's release, when the music has gone past
                // B: it wraps to A at once, as far past A as the music had gone past B
                // (RenderState.wrapLoop), and at B after.
                let at = try boundary(for: record, index: index, aligned: false)
                let press = heardInstant(at)
                guard press > previous * 1_000_000_000 / rate, let moving = anchor else {
                    throw fail(record, "too close to the previous input")
                }
                lines.append("\(Self.seconds(press))  press loop")
                lines.append("\(Self.seconds(press + pressNanoseconds))  release loop")
                let applied = recognisedAt(press + pressNanoseconds)
                let a = markA!, b = record.frame
                let over = moving.position + (applied - moving.frame) - b
                anchor = (applied, over > 0 && over < b - a ? a + over : a)
                loop = a ..< b
                markA = nil
                controls.append(at)
                commands.append(AudioComparison.Command(frame: Int(applied), kind: kinds.loop))
                previous = applied
                continue
            case "press next" where playing(record):
                frame = try boundary(for: record, index: index)
                anchor = (frame + countdownSeconds * rate, 0)
                markA = nil
                loop = nil
                kind = kinds.part
            case "turn +1 holding play" where playing(record), "turn -1 holding play" where playing(record):
                frame = try boundary(for: record, index: index)
                kind = kinds.volume
            case "turn +1" where playing(record) && loop == nil, "turn -1" where playing(record) && loop == nil:
                // A seek is relative to the frame heard at the detent (the daemon's `control
                // edge:` line): the detent is recognised there, the seek applied at the next
                // period boundary.
                let at = try boundary(for: record, index: index, aligned: false)
                let detent = heardInstant(at)
                let start = detent - detentNanoseconds * 3 / 4
                guard start > previous * 1_000_000_000 / rate else { throw fail(record, "too close to the previous input") }
                lines.append("\(Self.seconds(start))  turn \(record.action.dropFirst(5).prefix { $0 != " " })")
                let applied = recognisedAt(detent)
                let step = record.action == "turn +1" ? rate : -rate
                anchor = (applied, max(0, record.frame + step))
                controls.append(at)
                commands.append(AudioComparison.Command(frame: Int(applied), kind: kinds.seek))
                previous = applied
                continue
            default:
                throw fail(record, "not modelled by TwinScenario")
            }
            let release = frame * 1_000_000_000 / rate
            if record.action.hasPrefix("turn") {
                // Four quadrature steps a detent; the detent is recognised at the fourth.
                let start = release - detentNanoseconds * 3 / 4
                let chord = record.action.hasSuffix(" holding play")
                let first = chord ? start - pressNanoseconds : start
                guard first > previous * 1_000_000_000 / rate else { throw fail(record, "too close to the previous input") }
                if chord { lines.append("\(Self.seconds(first))  press play") }
                lines.append("\(Self.seconds(start))  turn \(record.action.dropFirst(5).prefix { $0 != " " })")
                if chord { lines.append("\(Self.seconds(release + pressNanoseconds))  release play") }
            } else {
                let button = record.action.split(separator: " ").last!
                let press = release - pressNanoseconds
                guard press > previous * 1_000_000_000 / rate else { throw fail(record, "too close to the previous input") }
                lines.append("\(Self.seconds(press))  press \(button)")
                lines.append("\(Self.seconds(release))  release \(button)")
            }
            controls.append(frame)
            if let kind { commands.append(AudioComparison.Command(frame: Int(frame), kind: kind)) }
            previous = frame
        }
        let end = previous + tailFrames
        lines.append("\(Self.seconds(end * 1_000_000_000 / rate))  end")
        return Placement(text: lines.joined(separator: "\n") + "\n", controlFrames: controls,
                         commands: commands, endFrame: end)
    }

    /// Nanoseconds as "12.345678901" (the scenario's exact decimal seconds).
    static func seconds(_ nanoseconds: Int64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }
}
