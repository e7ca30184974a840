import Foundation
import SegmanceCore
import TOML

/// A stick's `class.toml` (at its root): the class sets a teacher wrote, each a name, its
/// tracks (a routine's title, or `{ routine = "…", part = 2 }` for one part), the gap between
/// tracks and whether the next title is announced. Every problem names the file, the line,
/// the key and the reason; a set with a problem is left out, the others are kept.
public enum ClassFile {
    /// The file's name, at the stick's root.
    public static let name = "class.toml"
    static let setKeys: Set<String> = ["name", "tracks", "gap", "announce"]
    static let trackKeys: Set<String> = ["routine", "part"]
    /// The most sets, and tracks a set, a class.toml may have.
    static let maxSets = 50
    static let maxTracks = 100

    /// What reading it gave: the sets that could be read, and every problem.
    public struct Reading: Equatable, Sendable {
        public var sets: [ClassSet]
        public var problems: [StickProblem]
    }

    /// Reads `class.toml` in the stick's `root`; nil when it has none.
    public static func read(root: String) -> Reading? {
        let path = root + "/" + name
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        switch ManifestFile.read(path) {
        case .success(let bytes): return parse(bytes)
        case .failure(let refusal):
            let reason = "\(refusal)".replacingOccurrences(of: "routine.toml", with: name)
            return Reading(sets: [], problems: [StickProblem(path: name, reason: reason)])
        }
    }

    /// Parses the bytes of a class.toml.
    public static func parse(_ bytes: [UInt8]) -> Reading {
        var problems: [StickProblem] = []
        func problem(_ line: Int?, _ reason: String) {
            problems.append(StickProblem(path: name, reason: (line.map { "line \($0): " } ?? "") + reason))
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(parsing: bytes, limits: Manifest.limits)
        } catch {
            problem(error.line, "TOML syntax error: \(error.reason) (column \(error.column))")
            return Reading(sets: [], problems: problems)
        }
        for key in table.keys.sorted() where key != "class" {
            problem(table.keyPosition(key)?.line, KeySuggestion.unknown(key, in: "", known: ["class"]))
        }
        guard let value = table["class"] else { return Reading(sets: [], problems: problems) }
        guard let array = value.array else {
            problem(table.keyPosition("class")?.line, "'class' must be [[class]] tables, found \(value.typeName)")
            return Reading(sets: [], problems: problems)
        }
        var sets: [ClassSet] = []
        for (index, element) in array.prefix(maxSets).enumerated() {
            let context = "class \(index + 1)"
            let header = element.position.line
            guard let set = element.table else {
                problem(header, "\(context) must be a table, found \(element.typeName)")
                continue
            }
            let before = problems.count
            func line(_ key: String) -> Int { set.keyPosition(key)?.line ?? header }
            for key in set.keys.sorted() where !setKeys.contains(key) {
                problem(line(key), KeySuggestion.unknown(key, in: " in \(context)", known: setKeys))
            }
            var name = ""
            if let text = set["name"]?.string, !text.trimmingCharacters(in: .whitespaces).isEmpty {
                name = text
            } else {
                problem(line("name"), "\(context) needs a 'name', a text like \"Monday beginners\"")
            }
            var gap = ClassSet.defaultGap
            if let value = set["gap"] {
                if let seconds = seconds(value), (0...ClassSet.maxGap).contains(seconds) {
                    gap = seconds
                } else {
                    problem(line("gap"), "\(context): 'gap' = \(value.description.clipped) is not a gap "
                            + "(write whole seconds like \"3 s\", 0 to \(ClassSet.maxGap))")
                }
            }
            var announce = true
            if let value = set["announce"] {
                if let flag = value.bool { announce = flag } else {
                    problem(line("announce"), "\(context): 'announce' must be true or false, found \(value.typeName)")
                }
            }
            var tracks: [ClassTrack] = []
            if let list = set["tracks"]?.array, !list.isEmpty {
                for (t, entry) in list.prefix(maxTracks).enumerated() {
                    if let track = track(entry, "track \(t + 1) of \(context)", problem) { tracks.append(track) }
                }
            } else {
                problem(line("tracks"), "\(context) needs 'tracks', a list like [\"Warm-up\", \"Salsa\"]")
            }
            if problems.count == before {
                sets.append(ClassSet(name: name, tracks: tracks, gap: gap, announce: announce))
            }
        }
        if array.count > maxSets { problem(value.position.line, "more than \(maxSets) class sets: the rest left out") }
        return Reading(sets: sets, problems: problems)
    }

    /// Whole seconds: `3`, `"3 s"`, `"3s"`, `"3"`.
    static func seconds(_ value: TOMLValue) -> Int? {
        if let n = value.int { return n }
        guard var text = value.string?.trimmingCharacters(in: .whitespaces) else { return nil }
        if text.hasSuffix("s") { text = String(text.dropLast()).trimmingCharacters(in: .whitespaces) }
        return text.allSatisfy(\.isASCIIDigitChar) && !text.isEmpty && text.count < 6 ? Int(text) : nil
    }

    static func track(_ entry: TOMLValue, _ context: String, _ problem: (Int?, String) -> Void) -> ClassTrack? {
        let at = entry.position.line
        if let title = entry.string {
            guard !title.trimmingCharacters(in: .whitespaces).isEmpty else {
                problem(at, "\(context) is an empty title")
                return nil
            }
            return ClassTrack(routine: title)
        }
        guard let table = entry.table else {
            problem(at, "\(context) must be a routine's title or { routine = \"…\", part = 2 }, "
                    + "found \(entry.typeName)")
            return nil
        }
        for key in table.keys.sorted() where !trackKeys.contains(key) {
            problem(at, KeySuggestion.unknown(key, in: " in \(context)", known: trackKeys))
        }
        guard let title = table["routine"]?.string else {
            problem(at, "\(context) needs 'routine', the routine's title")
            return nil
        }
        guard let part = table["part"] else { return ClassTrack(routine: title) }
        guard let n = part.int, n >= 1 else {
            problem(at, "\(context): 'part' = \(part.description.clipped) is not a part number (1 for the first)")
            return nil
        }
        return ClassTrack(routine: title, part: n - 1)
    }
}
