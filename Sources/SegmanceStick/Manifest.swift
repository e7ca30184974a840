import Foundation
import SegmanceCore
import TOML

/// A parsed `routine.toml`, before its audio is known.
///
/// All times are frames at the output rate. `from`/`to` are positions in the decoded
/// file; a part's `loop` and its moves' `at` cues are part-relative: 0 is the part's
/// `from`, so moving the cut points does not shift them.
struct Manifest {
    struct PartSpec {
        var title: String?
        var file: String
        var from: Int64?
        var to: Int64?
        var loop: ABLoop?
        /// The part's named loops (`loops = [{ name = "Hit", a = "0:08", b = "0:16" }]`).
        var loops: [NamedLoop] = []
        /// The line of each named loop, in order.
        var loopsLines: [Int] = []
        var moves: [Move]
        /// `tempo` (beats a minute) and `one` (a "1", part-relative): the part's beat grid.
        var grid: BeatGrid?
        /// The `[[part]]` index and the lines of its keys, for messages.
        var index: Int
        var line: Int?
        var fileLine: Int?
        var fromLine: Int?
        var toLine: Int?
        var loopLine: Int?
        /// The line of each move's cue (nil for a move without one), in order.
        var cueLines: [Int?]
        /// False when `from` or `to` is written but unreadable, or they are reversed: the
        /// part's length is unknown, so its loop and cues are not checked against it.
        var cutKnown: Bool = true
        /// The practice speed the part starts at, percent (nil: 100).
        var speed: Int? = nil
        /// The name to show where the display cannot show the title (`short`).
        var short: String? = nil
        /// `lead_in = "2 beats"`: each pass of the part's loop after the first starts this far before A.
        var leadIn: LeadIn? = nil
        /// `ramp = { from = 70, step = 5, every = 1, to = 100 }`: the speed climbs pass by pass.
        var ramp: SpeedRamp? = nil
        /// `fade_out = "2 s"`: the part ends with a fade this many frames long (nil: none).
        var fadeOut: Int64? = nil
        var fadeOutLine: Int? = nil
    }

    /// A problem found in the manifest text.
    struct Issue: Equatable {
        var line: Int?
        var message: String
        /// The `[[part]]` (0-based) it leaves out; nil for the manifest as a whole.
        var part: Int? = nil
    }

    var title: String?
    var subtitle: String?
    /// The name to show where the display cannot show the title (`short = "ボンオドリ"`).
    var short: String?
    var countdown: Int?
    var parts: [PartSpec] = []

    static let topKeys: Set<String> = ["title", "subtitle", "short", "countdown", "part"]
    static let partKeys: Set<String> = ["title", "short", "file", "from", "to", "loop", "loops", "moves", "tempo",
                                          "one", "speed", "lead_in", "ramp", "fade_out"]
    static let rampKeys: Set<String> = ["from", "step", "every", "to"]
    /// The longest fade a part may end with (`fade_out`), in seconds.
    static let maxFadeOutSeconds = 30
    /// The tempi a manifest may give, in beats a minute.
    static let tempoRange: ClosedRange<Double> = 20...400
    static let loopKeys: Set<String> = ["a", "b"]
    static let namedLoopKeys: Set<String> = ["name", "a", "b"]
    static let moveKeys: Set<String> = ["type", "name", "note", "at"]

    /// The most `[[part]]` entries a routine may have.
    static let maxParts = 250
    /// What the TOML parser is allowed for a manifest: its size is checked before reading
    /// (`ManifestFile`); a manifest nests four levels (part, moves, move).
    static let limits = TOMLLimits(maxBytes: ManifestFile.maxBytes, maxDepth: 16)

    /// What reading a manifest gave: nil when its TOML does not parse, else the manifest
    /// with every part that could be read; and every issue found. Issues make the routine
    /// unusable, but the parts that could be read are still checked against their audio
    /// so that every problem is reported at once.
    struct Reading {
        var manifest: Manifest?
        var issues: [Issue]
    }

    /// Parses the bytes of a `routine.toml` at `rate`.
    static func parse(_ bytes: [UInt8], rate: Int) -> Reading {
        let table: TOMLTable
        do {
            table = try TOMLTable(parsing: bytes, limits: limits)
        } catch {
            let message = "TOML syntax error: \(error.reason) (column \(error.column))"
            return Reading(manifest: nil, issues: [Issue(line: error.line, message: message)])
        }
        var reader = ManifestReader(rate: rate)
        let manifest = reader.read(table)
        return Reading(manifest: manifest, issues: reader.issues)
    }

    /// Parses `text` at `rate`.
    static func parse(_ text: String, rate: Int) -> Reading {
        parse(Array(text.utf8), rate: rate)
    }
}

/// Walks a TOML table into a `Manifest`, collecting every issue rather than stopping at
/// one. Lines come from the parser: where each key (or `[[part]]` header) was written.
private struct ManifestReader {
    let rate: Int
    var issues: [Manifest.Issue] = []
    /// The `[[part]]` being read: its issues are its own.
    private var part: Int?

    init(rate: Int) {
        self.rate = rate
    }

    mutating func read(_ table: TOMLTable) -> Manifest {
        var manifest = Manifest()
        for key in table.keys.sorted() where !Manifest.topKeys.contains(key) {
            issue(line(table, key), KeySuggestion.unknown(key, in: "", known: Manifest.topKeys))
        }
        manifest.title = string(table, "title")
        manifest.subtitle = string(table, "subtitle")
        manifest.short = string(table, "short")
        if let value = table["countdown"] {
            let line = line(table, "countdown")
            if let seconds = value.int {
                if Settings.countdownChoices.contains(seconds) {
                    manifest.countdown = seconds
                } else {
                    let choices = Settings.countdownChoices.map(String.init).joined(separator: ", ")
                    issue(line, "countdown \(seconds) is not one of \(choices)")
                }
            } else {
                issue(line, "countdown must be a whole number of seconds, found \(value.typeName)")
            }
        }
        if let value = table["part"] {
            guard let array = value.array else {
                issue(line(table, "part"), "'part' must be [[part]] tables, found \(value.typeName)")
                return manifest
            }
            defer { part = nil }
            for (index, element) in array.enumerated() {
                part = index
                guard index < Manifest.maxParts else {
                    part = nil
                    issue(element.position.line,
                          "more than \(Manifest.maxParts) parts: a routine may have at most \(Manifest.maxParts)")
                    break
                }
                guard let partTable = element.table else {
                    issue(element.position.line, "part \(index + 1) must be a table, found \(element.typeName)")
                    continue
                }
                if let spec = readPart(partTable, index: index, header: element.position.line) {
                    manifest.parts.append(spec)
                }
            }
        }
        return manifest
    }

    private mutating func readPart(_ table: TOMLTable, index: Int, header: Int) -> Manifest.PartSpec? {
        let name = "part \(index + 1)"
        for key in table.keys.sorted() where !Manifest.partKeys.contains(key) {
            issue(line(table, key), KeySuggestion.unknown(key, in: " in \(name)", known: Manifest.partKeys))
        }
        let title = string(table, "title")
        let file = string(table, "file")
        if table["file"] == nil { issue(header, "\(name) has no 'file'") }
        let from = time(table, "from", context: name)
        let to = time(table, "to", context: name)
        let toLine = line(table, "to") ?? header
        var cutKnown = (table["from"] == nil || from != nil) && (table["to"] == nil || to != nil)
        if let from, let to, from >= to {
            issue(toLine, "\(name): 'from' \(format(from)) must be before 'to' \(format(to))")
            cutKnown = false
        }

        let speed = readSpeed(table, name: name, header: header)
        let fadeOut = readFadeOut(table, name: name, header: header)

        var loop: ABLoop?
        let loopLine = line(table, "loop") ?? header
        if let value = table["loop"] {
            if let loopTable = value.table {
                for key in loopTable.keys.sorted() where !Manifest.loopKeys.contains(key) {
                    issue(loopLine, KeySuggestion.unknown(key, in: " in the loop of \(name)", known: Manifest.loopKeys))
                }
                let a = time(loopTable, "a", context: "the loop of \(name)", line: loopLine)
                let b = time(loopTable, "b", context: "the loop of \(name)", line: loopLine)
                if loopTable["a"] == nil || loopTable["b"] == nil {
                    issue(loopLine, "the loop of \(name) needs both 'a' and 'b'")
                } else if let a, let b {
                    if b <= a {
                        issue(loopLine, "the loop of \(name): b \(format(b)) must be after a \(format(a))")
                    } else {
                        loop = ABLoop(a: a, b: b)
                    }
                }
            } else {
                issue(loopLine, "the loop of \(name) must be a table like { a = \"0:20\", b = \"0:32\" }, "
                      + "found \(value.typeName)")
            }
        }

        var moves: [Move] = []
        var cueLines: [Int?] = []
        if let value = table["moves"] {
            let movesLine = line(table, "moves") ?? header
            if let array = value.array {
                for (m, element) in array.enumerated() {
                    if let text = element.string {
                        // A move written as its name alone: `moves = ["Roll down", "Spin"]`.
                        if text.trimmingCharacters(in: .whitespaces).isEmpty {
                            issue(element.position.line, "move \(m + 1) of \(name) is an empty name")
                        }
                        moves.append(Move(type: MoveType(""), name: text))
                        cueLines.append(nil)
                        continue
                    }
                    guard let moveTable = element.table else {
                        issue(element.position.line, "move \(m + 1) of \(name) must be a name like \"Spin\" or a table "
                              + "like { name = \"Spin\", at = \"0:12\" }, found \(element.typeName)")
                        continue
                    }
                    let moveLine = element.position.line
                    let cueLine = moveTable["at"] == nil ? nil : line(moveTable, "at")
                    let context = "move \(m + 1) of \(name)"
                    for key in moveTable.keys.sorted() where !Manifest.moveKeys.contains(key) {
                        issue(line(moveTable, key) ?? moveLine,
                              KeySuggestion.unknown(key, in: " in \(context)", known: Manifest.moveKeys))
                    }
                    let type = string(moveTable, "type") ?? ""
                    let moveName = string(moveTable, "name")
                    let note = string(moveTable, "note") ?? ""
                    if moveTable["name"] == nil { issue(moveLine, "\(context) has no 'name'") }
                    let cue = time(moveTable, "at", context: context)
                    moves.append(Move(type: MoveType(type), name: moveName ?? "", note: note, cue: cue))
                    cueLines.append(cueLine)
                }
            } else {
                issue(movesLine,
                      "'moves' of \(name) must be a list like [\"Roll down\", \"Spin\"], found \(value.typeName)")
            }
        }
        let (loops, loopsLines) = namedLoops(table, name: name, header: header)
        let grid = beatGrid(table, name: name, header: header)
        guard let file else { return nil }
        return Manifest.PartSpec(title: title, file: file, from: from, to: to, loop: loop, loops: loops,
                                 loopsLines: loopsLines, moves: moves, grid: grid,
                                 index: index, line: header,
                                 fileLine: line(table, "file") ?? header,
                                 fromLine: line(table, "from") ?? header, toLine: toLine, loopLine: loopLine,
                                 cueLines: cueLines, cutKnown: cutKnown, speed: speed, short: string(table, "short"),
                                 leadIn: leadIn(table, name: name, header: header),
                                 ramp: ramp(table, name: name, header: header),
                                 fadeOut: fadeOut, fadeOutLine: line(table, "fade_out"))
    }

    /// A part's `lead_in`: "2 beats", "1 eight", "2 s", else an issue.
    private mutating func leadIn(_ table: TOMLTable, name: String, header: Int) -> LeadIn? {
        guard let value = table["lead_in"] else { return nil }
        if let text = value.string, let leadIn = LeadIn(text: text) { return leadIn }
        issue(line(table, "lead_in") ?? header, "lead_in of \(name) = \(value.description.clipped) is not a lead-in "
              + "(write \"2 beats\", \"1 eight\" or \"2 s\", 1 to \(LeadIn.maxCount))")
        return nil
    }

    /// A part's `ramp`: `{ from = 70, step = 5, every = 1, to = 100 }` (`every` 1 when left
    /// out), else an issue.
    private mutating func ramp(_ table: TOMLTable, name: String, header: Int) -> SpeedRamp? {
        guard let value = table["ramp"] else { return nil }
        let at = line(table, "ramp") ?? header
        guard let ramp = value.table else {
            issue(at, "ramp of \(name) must be a table like { from = 70, step = 5, every = 1, to = 100 }, "
                  + "found \(value.typeName)")
            return nil
        }
        for key in ramp.keys.sorted() where !Manifest.rampKeys.contains(key) {
            issue(line(ramp, key) ?? at,
                  KeySuggestion.unknown(key, in: " in the ramp of \(name)", known: Manifest.rampKeys))
        }
        var numbers: [String: Int] = ["every": 1]
        for key in ["from", "step", "every", "to"] {
            guard let number = ramp[key] else {
                if key != "every" { issue(at, "the ramp of \(name) has no '\(key)'") }
                continue
            }
            guard let whole = number.int else {
                issue(line(ramp, key) ?? at, "the ramp of \(name): '\(key)' must be a whole number, "
                      + "found \(number.typeName)")
                return nil
            }
            numbers[key] = whole
        }
        guard let from = numbers["from"], let step = numbers["step"], let every = numbers["every"],
              let to = numbers["to"] else { return nil }
        if let problem = SpeedRamp.problem(from: from, step: step, every: every, to: to) {
            issue(at, "the ramp of \(name): \(problem)")
            return nil
        }
        return SpeedRamp(from: from, step: step, every: every, to: to)
    }


    /// A part's `fade_out`: seconds with their unit ("2 s", "1.5 s"), or a bare number of
    /// seconds, from 0 to `Manifest.maxFadeOutSeconds`; else an issue (nil: no fade).
    private mutating func readFadeOut(_ table: TOMLTable, name: String, header: Int) -> Int64? {
        guard let value = table["fade_out"] else { return nil }
        var frames: Int64?
        var found = value.description.clipped
        if let text = value.string {
            var number = text.trimmingCharacters(in: .whitespaces)
            if number.hasSuffix("s") { number = String(number.dropLast()).trimmingCharacters(in: .whitespaces) }
            if number.first?.isASCIIDigitChar == true, !number.contains(":") {
                frames = ManifestTime.frames(number, rate: rate)
            }
        } else if let seconds = value.integer, seconds >= 0 {
            frames = ManifestTime.frames("\(seconds)", rate: rate)
        } else if let seconds = value.float {
            frames = ManifestTime.frames(seconds: seconds, rate: rate)
        } else {
            found = "a \(value.typeName)"
        }
        let limit = Int64(Manifest.maxFadeOutSeconds * rate)
        if let frames, frames <= limit { return frames == 0 ? nil : frames }
        issue(line(table, "fade_out") ?? header, "\(name): 'fade_out' = \(found) is not a fade "
              + "(write seconds like \"2 s\", 0 to \(Manifest.maxFadeOutSeconds))")
        return nil
    }

    /// A part's `loops`: named A–B loops, `[{ name = "Hit", a = "0:08", b = "0:16" }]`.
    private mutating func namedLoops(_ table: TOMLTable, name: String, header: Int) -> ([NamedLoop], [Int]) {
        guard let value = table["loops"] else { return ([], []) }
        let at = line(table, "loops") ?? header
        guard let array = value.array else {
            issue(at, "'loops' of \(name) must be a list like [{ name = \"Hit\", a = \"0:08\", b = \"0:16\" }], "
                  + "found \(value.typeName)")
            return ([], [])
        }
        var loops: [NamedLoop] = []
        var lines: [Int] = []
        for (n, element) in array.enumerated() {
            let context = "loop \(n + 1) of \(name)"
            let here = element.position.line
            guard let loopTable = element.table else {
                issue(here, "\(context) must be a table like { name = \"Hit\", a = \"0:08\", b = \"0:16\" }, "
                      + "found \(element.typeName)")
                continue
            }
            for key in loopTable.keys.sorted() where !Manifest.namedLoopKeys.contains(key) {
                issue(line(loopTable, key) ?? here,
                      KeySuggestion.unknown(key, in: " in \(context)", known: Manifest.namedLoopKeys))
            }
            let loopName = string(loopTable, "name") ?? ""
            if loopTable["name"] == nil { issue(here, "\(context) has no 'name'") }
            let a = time(loopTable, "a", context: context, line: here)
            let b = time(loopTable, "b", context: context, line: here)
            if loopTable["a"] == nil || loopTable["b"] == nil {
                issue(here, "\(context) needs both 'a' and 'b'")
            } else if let a, let b {
                if b <= a {
                    issue(here, "\(context): b \(format(b)) must be after a \(format(a))")
                } else {
                    loops.append(NamedLoop(name: loopName, loop: ABLoop(a: a, b: b)))
                    lines.append(here)
                }
            }
        }
        return (loops, lines)
    }

    /// A part's `speed`: a percent on the grid of `Rules.speedRange`, else an issue.
    private mutating func readSpeed(_ table: TOMLTable, name: String, header: Int) -> Int? {
        guard let value = table["speed"] else { return nil }
        let found: String
        if let percent = value.int {
            if Rules.speedRange.contains(percent) && percent % Rules.speedStep == 0 { return percent }
            found = String(percent)
        } else {
            found = value.typeName
        }
        issue(line(table, "speed") ?? header,
              "speed of \(name) must be a percent from 50 to 150 in steps of 5, found \(found)")
        return nil
    }

    /// `tempo = 120` and `one = "0:00.25"`: the part's beat grid. `one` alone is a problem;
    /// `tempo` alone has its "1" at the part's start.
    private mutating func beatGrid(_ table: TOMLTable, name: String, header: Int) -> BeatGrid? {
        let one = time(table, "one", context: name, signed: true)
        let oneWritten = table["one"] != nil
        guard let value = table["tempo"] else {
            if oneWritten { issue(line(table, "one") ?? header, "\(name): 'one' needs a 'tempo'") }
            return nil
        }
        let at = line(table, "tempo") ?? header
        var bpm = 0.0
        if let number = value.float {
            bpm = number
        } else if let number = value.integer {
            bpm = Double(number)
        } else {
            issue(at, "\(name): 'tempo' = a \(value.typeName) is not a tempo (write beats a minute, 20 to 400)")
            return nil
        }
        guard Manifest.tempoRange.contains(bpm) else {
            issue(at,
                  "\(name): 'tempo' = \(value.description.clipped) is not a tempo (write beats a minute, 20 to 400)")
            return nil
        }
        if oneWritten && one == nil { return nil }
        return BeatGrid(bpm: bpm, one: one ?? 0, sampleRate: Int64(rate), origin: .manifest)
    }

    /// The line `key` was written on.
    private func line(_ table: TOMLTable, _ key: String) -> Int? { table.keyPosition(key)?.line }

    private mutating func issue(_ line: Int?, _ message: String) {
        issues.append(Manifest.Issue(line: line, message: message, part: part))
    }

    private func format(_ frames: Int64) -> String { ManifestTime.format(frames, rate: rate) }

    private mutating func string(_ table: TOMLTable, _ key: String) -> String? {
        guard let value = table[key] else { return nil }
        if let text = value.string { return text }
        issue(line(table, key), "'\(key)' must be a string, found \(value.typeName)")
        return nil
    }

    /// A time value: a string ("1:05.5", "65.5"), a number of seconds, or a TOML local time.
    /// `signed`: a "-" before it is allowed (a "1" before the part's start, a pickup).
    private mutating func time(_ table: TOMLTable, _ key: String, context: String, line given: Int? = nil,
                               signed: Bool = false) -> Int64? {
        guard let value = table[key] else { return nil }
        let at = given ?? line(table, key)
        var frames: Int64?
        var shown = value.description.clipped
        if let text = value.string {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if signed, trimmed.hasPrefix("-") {
                frames = ManifestTime.frames(String(trimmed.dropFirst()), rate: rate).map { -$0 }
            } else {
                frames = ManifestTime.frames(text, rate: rate)
            }
        } else if let seconds = value.integer {
            let limit = ManifestTime.maxSeconds
            if (signed ? -limit : 0)...limit ~= seconds { frames = seconds * Int64(rate) }
        } else if let seconds = value.float {
            frames = signed && seconds < 0 ? ManifestTime.frames(seconds: -seconds, rate: rate).map { -$0 }
                : ManifestTime.frames(seconds: seconds, rate: rate)
        } else if let clock = value.time {
            frames = ManifestTime.frames(
                String(format: "%d:%02d:%02d.%09d", clock.hour, clock.minute, clock.second, clock.nanosecond),
                rate: rate)
        } else {
            shown = "a \(value.typeName)"
        }
        if frames == nil {
            issue(at,
                  "\(context): '\(key)' = \(shown) is not a time (write \"m:ss\", \"m:ss.s\", \"h:mm:ss\" or seconds)")
        }
        return frames
    }
}

extension String {
    /// At most 60 characters of a text from a stick, for a message ("…" when cut).
    var clipped: String {
        let scalars = unicodeScalars
        guard scalars.count > 60 else { return self }
        var out = String.UnicodeScalarView(scalars.prefix(59))
        out.append("…")
        return String(out)
    }
}
