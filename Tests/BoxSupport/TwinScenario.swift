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
/// Modelled: PLAY from stopped or paused (with the routine's countdown) and to pause,
/// LOOP (mark A, mark B at the current position, which wraps to A at once), NEXT while
/// playing (the next part counts in from its start), encoder ±1 while playing with no
/// A–B loop, the volume (encoder ±1 while PLAY is held, "turn -1 holding play": PLAY goes
/// down before the detent and up after it; the music moves on). Anything else throws: it
/// would need a model it does not have.
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

    public init(countdownSeconds: Int64) {
        self.countdownSeconds = countdownSeconds
    }

    /// The scenario and where its commands land.
    public struct Placement: Equatable, Sendable {
        /// `segmance sim` scenario text.
        public var text: String
        /// Twin frame of each control, in order.
        public var controlFrames: [Int64]
        /// Twin frames at which audio commands apply (marking A sends none).
        public var commandFrames: [Int64]
        /// The twin frame at which the scenario ends.
        public var endFrame: Int64
    }

    public struct Unplaceable: Error, CustomStringConvertible {
        public var description: String
    }

    public func place(_ records: [ControlRecord]) throws(Unplaceable) -> Placement {
        /// Twin frame `frame` sounds part position `position`, and position moves with frames.
        var anchor: (frame: Int64, position: Int64)?
        var markA: Int64?
        var loopOn = false
        var previous: Int64 = 0
        var lines: [String] = []
        var controls: [Int64] = []
        var commands: [Int64] = []

        func fail(_ record: ControlRecord, _ why: String) -> Unplaceable {
            Unplaceable(description: "control \"\(record.action)\" at part \(record.part) frame \(record.frame) (\(record.transport)): \(why)")
        }
        func boundary(for record: ControlRecord) throws(Unplaceable) -> Int64 {
            guard let anchor else { throw fail(record, "the music is not moving in the twin") }
            let frame = anchor.frame + (record.frame - anchor.position)
            guard frame % periodFrames == 0 else {
                throw fail(record, "frame \(frame) is not on a \(periodFrames)-frame boundary of the twin")
            }
            guard frame > previous else { throw fail(record, "it would come before the previous input in the twin") }
            return frame
        }
        let playing = { (record: ControlRecord) in record.transport == "playing" }

        for record in records {
            let frame: Int64
            var command = true
            var pressAtFrame = false
            var loopFrom: Int64?
            switch record.action {
            case "press play" where record.transport == "stopped" || record.transport == "paused":
                let earliest = previous + startGapFrames
                frame = (earliest + periodFrames - 1) / periodFrames * periodFrames
                let onset = frame + countdownSeconds * rate
                anchor = (onset, record.frame)
            case "press play" where playing(record):
                frame = try boundary(for: record)
                anchor = nil
            case "press loop" where playing(record) && markA == nil && !loopOn:
                // A mark is the frame heard as the button went down: the press goes there.
                frame = try boundary(for: record)
                markA = record.frame
                command = false
                pressAtFrame = true
            case "press loop" where playing(record) && markA != nil:
                frame = try boundary(for: record)
                pressAtFrame = true
                loopFrom = markA!
                markA = nil
                loopOn = true
            case "press next" where playing(record):
                frame = try boundary(for: record)
                anchor = (frame + countdownSeconds * rate, 0)
                markA = nil
                loopOn = false
            case "turn +1 holding play" where playing(record), "turn -1 holding play" where playing(record):
                frame = try boundary(for: record)
            case "turn +1" where playing(record) && !loopOn, "turn -1" where playing(record) && !loopOn:
                frame = try boundary(for: record)
                let step = record.action == "turn +1" ? rate : -rate
                anchor = (frame, max(0, record.frame + step))
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
            } else if pressAtFrame {
                // Down at the frame the mark takes; recognised at the release, whose period
                // boundary is where its command applies.
                let button = record.action.split(separator: " ").last!
                let press = frame * 1_000_000_000 / rate
                guard press > previous * 1_000_000_000 / rate else { throw fail(record, "too close to the previous input") }
                let up = press + pressNanoseconds
                lines.append("\(Self.seconds(press))  press \(button)")
                lines.append("\(Self.seconds(up))  release \(button)")
                let recognised = ((up * rate + 999_999_999) / 1_000_000_000 + periodFrames - 1) / periodFrames * periodFrames
                // B is behind the play head by then: the loop wraps to A at once.
                if let a = loopFrom { anchor = (recognised, a) }
                controls.append(frame)
                if command { commands.append(recognised) }
                previous = recognised
                continue
            } else {
                let button = record.action.split(separator: " ").last!
                let press = release - pressNanoseconds
                guard press > previous * 1_000_000_000 / rate else { throw fail(record, "too close to the previous input") }
                lines.append("\(Self.seconds(press))  press \(button)")
                lines.append("\(Self.seconds(release))  release \(button)")
            }
            controls.append(frame)
            if command { commands.append(frame) }
            previous = frame
        }
        let end = previous + tailFrames
        lines.append("\(Self.seconds(end * 1_000_000_000 / rate))  end")
        return Placement(text: lines.joined(separator: "\n") + "\n", controlFrames: controls,
                         commandFrames: commands, endFrame: end)
    }

    /// Nanoseconds as "12.345678901" (the scenario's exact decimal seconds).
    static func seconds(_ nanoseconds: Int64) -> String {
        let fraction = String(nanoseconds % 1_000_000_000)
        return "\(nanoseconds / 1_000_000_000)." + String(repeating: "0", count: 9 - fraction.count) + fraction
    }
}
