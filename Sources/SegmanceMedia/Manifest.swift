import Foundation
import SegmanceCore
import TOMLKit

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
        var moves: [Move]
        /// The `[[part]]` index and the lines of its keys, for messages.
        var index: Int
        var line: Int?
        var fileLine: Int?
        var fromLine: Int?
        var toLine: Int?
        var loopLine: Int?
        /// (move index, line) of every cue, in order.
        var cueLines: [Int?]
    }

    /// A problem found in the manifest text.
    struct Issue: Equatable {
        var line: Int?
        var message: String
    }

    var title: String?
    var subtitle: String?
    var countdown: Int?
    var parts: [PartSpec] = []

    static let topKeys: Set<String> = ["title", "subtitle", "countdown", "part"]
    static let partKeys: Set<String> = ["title", "file", "from", "to", "loop", "moves"]
    static let loopKeys: Set<String> = ["a", "b"]
    static let moveKeys: Set<String> = ["type", "name", "note", "at"]

    /// Parses `text` at `rate`; returns the manifest, or the issues that make it unusable.
    static func parse(_ text: String, rate: Int) -> Result<Manifest, ManifestIssues> {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            return .failure(ManifestIssues([Issue(line: error.source.begin.line,
                                                  message: "TOML syntax error: \(error.description)")]))
        } catch {
            return .failure(ManifestIssues([Issue(line: nil, message: "cannot parse: \(error)")]))
        }
        var reader = ManifestReader(lines: ManifestLines(text), rate: rate)
        let manifest = reader.read(table)
        return reader.issues.isEmpty ? .success(manifest) : .failure(ManifestIssues(reader.issues))
    }
}

/// The issues of a manifest that failed to parse or validate.
struct ManifestIssues: Error {
    var issues: [Manifest.Issue]
    init(_ issues: [Manifest.Issue]) { self.issues = issues }
}

/// Walks a TOML table into a `Manifest`, collecting every issue rather than stopping at one.
private struct ManifestReader {
    let lines: ManifestLines
    let rate: Int
    var issues: [Manifest.Issue] = []

    init(lines: ManifestLines, rate: Int) {
        self.lines = lines
        self.rate = rate
    }

    mutating func read(_ table: TOMLTable) -> Manifest {
        var manifest = Manifest()
        for key in table.keys.sorted() where !Manifest.topKeys.contains(key) {
            issue(lines.line(of: key), "unknown key '\(key)' (known: countdown, part, subtitle, title)")
        }
        manifest.title = string(table, "title", part: nil)
        manifest.subtitle = string(table, "subtitle", part: nil)
        if let value = table["countdown"] {
            let line = lines.line(of: "countdown")
            if let seconds = value.int {
                if Settings.countdownChoices.contains(seconds) {
                    manifest.countdown = seconds
                } else {
                    let choices = Settings.countdownChoices.map(String.init).joined(separator: ", ")
                    issue(line, "countdown \(seconds) is not one of \(choices)")
                }
            } else {
                issue(line, "countdown must be a whole number of seconds, found \(value.type)")
            }
        }
        if let value = table["part"] {
            guard let array = value.array else {
                issue(lines.line(of: "part"), "'part' must be [[part]] tables, found \(value.type)")
                return manifest
            }
            for index in 0..<array.count {
                guard let partTable = array[index].table else {
                    issue(lines.line(ofPart: index), "part \(index + 1) must be a table, found \(array[index].type)")
                    continue
                }
                if let spec = readPart(partTable, index: index) { manifest.parts.append(spec) }
            }
        }
        return manifest
    }

    private mutating func readPart(_ table: TOMLTable, index: Int) -> Manifest.PartSpec? {
        let name = "part \(index + 1)"
        let header = lines.line(ofPart: index)
        for key in table.keys.sorted() where !Manifest.partKeys.contains(key) {
            issue(lines.line(of: key, part: index) ?? header,
                  "unknown key '\(key)' in \(name) (known: file, from, loop, moves, title, to)")
        }
        let title = string(table, "title", part: index)
        let file = string(table, "file", part: index)
        if table["file"] == nil { issue(header, "\(name) has no 'file'") }
        let from = time(table, "from", part: index, context: name)
        let to = time(table, "to", part: index, context: name)
        let toLine = lines.line(of: "to", part: index) ?? header
        if let from, let to, from >= to {
            issue(toLine, "\(name): 'from' \(format(from)) must be before 'to' \(format(to))")
        }

        var loop: ABLoop?
        let loopLine = lines.line(of: "loop", part: index) ?? header
        if let value = table["loop"] {
            if let loopTable = value.table {
                for key in loopTable.keys.sorted() where !Manifest.loopKeys.contains(key) {
                    issue(loopLine, "unknown key '\(key)' in the loop of \(name) (known: a, b)")
                }
                let a = time(loopTable, "a", part: index, context: "the loop of \(name)", line: loopLine)
                let b = time(loopTable, "b", part: index, context: "the loop of \(name)", line: loopLine)
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
                issue(loopLine, "the loop of \(name) must be a table like { a = \"0:20\", b = \"0:32\" }, found \(value.type)")
            }
        }

        var moves: [Move] = []
        var cueLines: [Int?] = []
        var cueCount = 0
        if let value = table["moves"] {
            let movesLine = lines.line(of: "moves", part: index) ?? header
            if let array = value.array {
                for m in 0..<array.count {
                    guard let moveTable = array[m].table else {
                        issue(movesLine, "move \(m + 1) of \(name) must be a table, found \(array[m].type)")
                        continue
                    }
                    let cueLine = moveTable["at"] == nil ? nil
                        : (lines.line(of: "at", part: index, occurrence: cueCount) ?? movesLine)
                    if moveTable["at"] != nil { cueCount += 1 }
                    let context = "move \(m + 1) of \(name)"
                    for key in moveTable.keys.sorted() where !Manifest.moveKeys.contains(key) {
                        issue(movesLine, "unknown key '\(key)' in \(context) (known: at, name, note, type)")
                    }
                    let type = string(moveTable, "type", part: index, line: movesLine) ?? ""
                    let moveName = string(moveTable, "name", part: index, line: movesLine)
                    let note = string(moveTable, "note", part: index, line: movesLine) ?? ""
                    if moveTable["name"] == nil { issue(movesLine, "\(context) has no 'name'") }
                    let cue = time(moveTable, "at", part: index, context: context, line: cueLine)
                    moves.append(Move(type: MoveType(type), name: moveName ?? "", note: note, cue: cue))
                    cueLines.append(cueLine)
                }
            } else {
                issue(movesLine, "'moves' of \(name) must be an array of tables, found \(value.type)")
            }
        }
        guard let file else { return nil }
        return Manifest.PartSpec(title: title, file: file, from: from, to: to, loop: loop, moves: moves,
                                 index: index, line: header,
                                 fileLine: lines.line(of: "file", part: index) ?? header,
                                 fromLine: lines.line(of: "from", part: index) ?? header, toLine: toLine, loopLine: loopLine,
                                 cueLines: cueLines)
    }

    private mutating func issue(_ line: Int?, _ message: String) {
        issues.append(Manifest.Issue(line: line, message: message))
    }

    private func format(_ frames: Int64) -> String { ManifestTime.format(frames, rate: rate) }

    private mutating func string(_ table: TOMLTable, _ key: String, part: Int?, line: Int? = nil) -> String? {
        guard let value = table[key] else { return nil }
        if let text = value.string { return text }
        issue(line ?? lines.line(of: key, part: part), "'\(key)' must be a string, found \(value.type)")
        return nil
    }

    /// A time value: a string ("1:05.5", "65.5"), a number of seconds, or a TOML local time.
    private mutating func time(_ table: TOMLTable, _ key: String, part: Int?, context: String,
                               line: Int? = nil) -> Int64? {
        guard let value = table[key] else { return nil }
        let at = line ?? lines.line(of: key, part: part)
        var frames: Int64?
        var shown = "\(value)"
        if let text = value.string {
            shown = "\"\(text)\""
            frames = ManifestTime.frames(text, rate: rate)
        } else if let seconds = value.int, seconds >= 0, Int64(seconds) <= ManifestTime.maxSeconds {
            frames = Int64(seconds) * Int64(rate)
        } else if let seconds = value.double {
            frames = ManifestTime.frames(seconds: seconds, rate: rate)
        } else if let clock = value.time {
            frames = ManifestTime.frames(
                String(format: "%d:%02d:%02d.%09d", clock.hour, clock.minute, clock.second, clock.nanoSecond),
                rate: rate)
        } else {
            shown = "a \(value.type)"
        }
        if frames == nil {
            issue(at, "\(context): '\(key)' = \(shown) is not a time (write \"m:ss\", \"m:ss.s\", \"h:mm:ss\" or seconds)")
        }
        return frames
    }
}
