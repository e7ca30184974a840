import SegmanceCore

/// A scripted rehearsal: one action a line, time in seconds from the start.
///
///     0.0   tap play          # press, release 60 ms later
///     4.0   turn +3           # encoder, 3 detents clockwise (add "fast" for a quick flick)
///     6.0   tap loop          # mark A
///     20.0  hold prev 0.8     # long press
///     21.0  bounce next       # a press with contact bounce
///     22.0  double select     # two taps 150 ms apart
///     23.0  chord play +3     # PLAY held while the encoder turns 3 detents (the volume)
///     24.0  speed 75          # the part's speed set to 75 % (as LOOP held + encoder would)
///     24.5  latency 2048      # what sounds from now on was rendered 2048 frames earlier
///     25.0  stick fixtures/stick-1
///     28.0  stick fixtures/class-b label Salsa   # a stick whose volume label is "Salsa"
///     31.0  unstick
///     32.0  split             # made on the box, as its menu entry does it (docs/controls.md):
///     33.0  merge             #   split, merge, rename NAME, delete part, part N, loop add NAME,
///     34.0  move add Spin     #   loop next, move add TYPE, move delete, new routine
///     40.0  end
public struct Scenario: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case tap(Button)
        case hold(Button, seconds: Int64Nanoseconds)
        case bounce(Button)
        case double(Button)
        case press(Button)
        case release(Button)
        case turn(Int, fast: Bool)
        /// The button held while the encoder turns: down, the detents 100 ms later, up
        /// 100 ms after the last.
        case chord(Button, Int)
        /// The part's speed set to this percent, as with LOOP held and the encoder turned
        /// (the detents from the speed then to this one).
        case speed(Int)
        /// The output sounds this many frames after it is rendered, as through a device's
        /// buffer (0 at the start): a control that acts where the music was heard (a mark, a
        /// seek) takes the frame rendered that long before its instant.
        case latency(Int)
        /// A stick mounted from this folder, with this volume label (nil: none).
        case stick(String, label: String? = nil)
        case unstick
        /// Something made on the box (`Edit`), as the menu's entry does it, at the frame heard
        /// at this time: `split`, `merge`, `rename NAME`, `delete part`, `part N`, `loop add NAME`,
        /// `loop next`, `move add TYPE`, `move delete`, `new routine`.
        case edit(Edit)
        /// *Save to stick* into this folder, as if it were the stick that is in.
        case export(String)
        case end
    }

    public struct Step: Equatable, Sendable {
        /// Nanoseconds from the start.
        public var time: Int64
        public var action: Action
        /// 1-based line in the scenario text (0: added by the command line).
        public var line: Int
        public init(time: Int64, action: Action, line: Int) {
            self.time = time
            self.action = action
            self.line = line
        }
    }

    public var steps: [Step]

    /// When the run ends: the `end` action, or 2 s after the last action.
    public var duration: Int64 {
        if let end = steps.first(where: { $0.action == .end }) { return end.time }
        return (steps.last?.time ?? 0) + 2_000_000_000
    }

    /// Parses scenario text; errors name the file and the line.
    public init(parsing text: String, file: String = "scenario") throws(ScenarioError) {
        var steps: [Step] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let content = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = content.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            guard let first = words.first else { continue }
            func fail(_ why: String) -> ScenarioError { ScenarioError(file: file, line: line, reason: why) }
            guard let time = Self.nanoseconds(first) else { throw fail("'\(first)' is not a time in seconds") }
            if let previous = steps.last, time < previous.time {
                throw fail("time \(first) is before the previous line's")
            }
            guard words.count >= 2 else { throw fail("an action is missing after the time") }
            let args = Array(words.dropFirst(2))
            func button() throws(ScenarioError) -> Button {
                guard let name = args.first else { throw fail("'\(words[1])' needs a button (\(Self.buttonNames))") }
                guard let b = Button(rawValue: name) else {
                    throw fail("'\(name)' is not a button (\(Self.buttonNames))")
                }
                return b
            }
            let action: Action
            switch words[1] {
            case "tap": action = .tap(try button())
            case "bounce": action = .bounce(try button())
            case "double": action = .double(try button())
            case "press": action = .press(try button())
            case "release": action = .release(try button())
            case "hold":
                let b = try button()
                guard args.count == 2, let d = Self.nanoseconds(args[1]), d > 0 else {
                    throw fail("hold needs a button and a duration in seconds, e.g. 'hold prev 0.8'")
                }
                action = .hold(b, seconds: d)
            case "turn":
                guard let n = args.first.flatMap({ Int($0.hasPrefix("+") ? String($0.dropFirst()) : $0) }), n != 0
                else { throw fail("turn needs a non-zero number of detents, e.g. 'turn +3' or 'turn -2'") }
                guard args.count == 1 || (args.count == 2 && args[1] == "fast") else {
                    throw fail("turn takes a count and optionally 'fast'")
                }
                action = .turn(n, fast: args.count == 2)
            case "chord":
                let b = try button()
                guard args.count == 2, let n = Int(args[1].hasPrefix("+") ? String(args[1].dropFirst()) : args[1]),
                    n != 0
                else { throw fail("chord needs a button and a non-zero number of detents, e.g. 'chord play +3'") }
                action = .chord(b, n)
            case "speed":
                guard args.count == 1, let n = Int(args[0].hasSuffix("%") ? String(args[0].dropLast()) : args[0]),
                      Rules.speedRange.contains(n), n % Rules.speedStep == 0
                else { throw fail("speed needs a percent from 50 to 150 in steps of 5, e.g. 'speed 75'") }
                action = .speed(n)
            case "latency":
                guard args.count == 1, let n = Int(args[0]), n >= 0
                else { throw fail("latency needs a number of frames from 0 on, e.g. 'latency 2048'") }
                action = .latency(n)
            case "stick":
                guard !args.isEmpty else { throw fail("stick needs a folder") }
                if let at = args.lastIndex(of: "label"), at > 0 {
                    guard at + 1 < args.count else { throw fail("stick DIR label needs a label, e.g. 'label Salsa'") }
                    action = .stick(args[..<at].joined(separator: " "),
                                    label: args[(at + 1)...].joined(separator: " "))
                } else {
                    action = .stick(args.joined(separator: " "))
                }
            case "unstick": action = .unstick
            case "export":
                guard !args.isEmpty else { throw fail("export needs a folder") }
                action = .export(args.joined(separator: " "))
            case "end": action = .end
            case "split", "merge", "rename", "delete", "part", "loop", "move", "new":
                action = .edit(try Self.edit(words[1], args, fail))
            default:
                throw fail(
                    "unknown action '\(words[1])' (tap, hold, bounce, double, press, release, turn, chord, speed, "
                        + "latency, stick, unstick, export, split, merge, rename, delete part, part, loop add, loop "
                        + "next, "
                           + "move add, move delete, new routine, end)")
            }
            steps.append(Step(time: time, action: action, line: line))
        }
        self.steps = steps
    }

    /// The making actions: a name must be one the menu offers (`Names`).
    private static func edit(_ verb: String, _ args: [String],
                             _ fail: (String) -> ScenarioError) throws(ScenarioError) -> Edit {
        let rest = args.dropFirst().joined(separator: " ")
        func name(_ text: String, in list: [String], _ what: String) throws(ScenarioError) -> String {
            guard list.contains(text) else {
                throw fail("'\(text)' is not a \(what) the box offers (\(list.joined(separator: ", ")))")
            }
            return text
        }
        switch (verb, args.first) {
        case ("split", nil): return .split
        case ("merge", nil): return .join
        case ("rename", _?): return .rename(try name(args.joined(separator: " "), in: Names.parts, "name"))
        case ("delete", "part"?) where args.count == 1: return .deletePart
        case ("part", let n?) where args.count == 1:
            guard let number = Int(n), number >= 1 else { throw fail("part needs a part number from 1, e.g. 'part 2'") }
            return .goToPart(number - 1)
        case ("loop", "add"?): return .nameLoop(try name(rest, in: Names.parts, "loop name"))
        case ("loop", "next"?) where args.count == 1: return .nextLoop
        case ("move", "add"?): return .addMove(try name(rest, in: Names.moveTypes, "move type"), at: nil)
        case ("move", "delete"?) where args.count == 1: return .deleteMove
        case ("new", "routine"?) where args.count == 1: return .newRoutine
        default:
            throw fail("'\(([verb] + args).joined(separator: " "))' is not a making action (split, merge, rename NAME, "
                       + "delete part, part N, loop add NAME, loop next, move add TYPE, move delete, new routine)")
        }
    }

    private static let buttonNames = Button.allCases.map(\.rawValue).joined(separator: ", ")

    /// "12", "12.5", "0.060" → nanoseconds, exactly (no floating point).
    static func nanoseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = Int64(parts[0]), whole >= 0, !parts[0].isEmpty else { return nil }
        var nanos: Int64 = 0
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy(\.isNumber),
                  let fraction = Int64(digits) else { return nil }
            var scale: Int64 = 1
            for _ in digits.count..<9 { scale *= 10 }
            nanos = fraction * scale
        }
        return whole * 1_000_000_000 + nanos
    }
}

public typealias Int64Nanoseconds = Int64

/// A scenario line that could not be understood.
public struct ScenarioError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String
    public var description: String { "\(file):\(line): \(reason)" }
}
