import ArgumentParser
import SegmanceCore
import SegmanceLibrary

extension LibraryCommand {
    /// `segmance library settings [KEY=VALUE…]`: the settings saved in the library, shown or
    /// changed (all the assignments in one transaction, as the menu saves them).
    struct SettingsCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "settings",
            abstract: "Show the saved settings, or change them (KEY=VALUE…).",
            discussion: """
            Keys and values: \(SettingAssignment.keys.map { "\($0.name) (\($0.values))" }.joined(separator: ", ")). \
            Every assignment is saved in one transaction, as the menu saves them; a box that \
            loses power meanwhile keeps all the old values or all the new ones.
            """)
        @Argument(help: "Settings to change, e.g. volume=70 countdown=5.") var assignments: [String] = []
        @OptionGroup var options: LibraryOptions
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let changes = try assignments.map(SettingAssignment.init(parsing:))
            let library = try options.open()
            let saved = try library.settings()
            if !changes.isEmpty {
                var settings = saved ?? Settings()
                for change in changes { change.apply(to: &settings) }
                try library.apply(.settings(settings))
            }
            let shown = changes.isEmpty ? saved : try library.settings()
            let rows = shown.map(SettingAssignment.rows) ?? []
            if json { return try printJSON(Dictionary(uniqueKeysWithValues: rows)) }
            if shown == nil { Console.out("No settings saved in \(library.directory) (the defaults apply).\n") }
            for (key, value) in rows { Console.out("\(key) = \(value)\n") }
        }
    }

    /// `segmance library resume [--routine T --part N --frame F]`: where playback resumes.
    struct ResumeCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "resume",
            abstract: "Show where playback resumes, or set it.")
        @Option(help: "The routine's title.") var routine: String?
        @Option(help: "The part's number, from 1.") var part: Int?
        @Option(help: "The position in the part, in frames at the library's rate.") var frame: Int64?
        @OptionGroup var options: LibraryOptions
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let library = try options.open()
            if let routine {
                guard let part, let frame else { throw ValidationError("--routine needs --part and --frame") }
                guard let stored = try library.routine(titled: routine) else {
                    throw CommandError("no routine titled \"\(routine)\" in \(library.directory)")
                }
                let parts = stored.routine.parts
                guard (1...parts.count).contains(part) else {
                    throw CommandError("\"\(routine)\" has parts 1 to \(parts.count), not \(part)")
                }
                guard frame >= 0, frame < parts[part - 1].length else {
                    throw CommandError(
                        "part \(part) of \"\(routine)\" has \(parts[part - 1].length) frames, not \(frame)")
                }
                try library.apply(.resume(ResumePoint(routine: routine, part: part - 1,
                                                      partTitle: parts[part - 1].title, position: frame)))
            } else if part != nil || frame != nil {
                throw ValidationError("--part and --frame need --routine")
            }
            let point = try library.resume()
            if json {
                return try printJSON(point.map { ResumeJSON(routine: $0.routine, part: $0.part + 1,
                                                            partTitle: $0.partTitle, frame: $0.position) })
            }
            guard let point else { return Console.out("No resume point saved in \(library.directory).\n") }
            Console.out(
                "\"\(point.routine)\", part \(point.part + 1) \"\(point.partTitle)\", frame \(point.position)\n")
        }
    }
}

private struct ResumeJSON: Encodable {
    var routine: String
    var part: Int
    var partTitle: String
    var frame: Int64
}

/// One `KEY=VALUE` of `segmance library settings`, checked against what the menu offers.
struct SettingAssignment {
    let apply: (inout Settings) -> Void

    /// The keys (as stored in the library) and the values each takes.
    static let keys: [(name: String, values: String)] = [
        ("countdown", choices(Settings.countdownChoices)), ("countdownBeforeRepeat", "0 or 1"),
        ("atPartEnd", PartEndBehavior.allCases.map(\.rawValue).joined(separator: " or ")), ("volume", "0 to 100"),
        ("autoImport", "0 or 1"), ("loopPause", choices(Settings.loopPauseChoices)),
        ("loopPasses", choices(Settings.loopPassesChoices)), ("lightIdle", choices(Settings.lightIdleChoices)),
        ("countdownBeats", choices([0] + Settings.countInBeatChoices)),
        ("loopSnap", LoopSnap.allCases.map(\.rawValue).joined(separator: ", ")),
        ("turnBy", TurnUnit.allCases.map(\.rawValue).joined(separator: ", ")),
        ("countVoice", CountVoice.allCases.map(\.rawValue).joined(separator: ", ")),
        ("stopFade", choices(Settings.stopFadeChoices) + " (milliseconds)"),
    ]

    init(parsing text: String) throws {
        let pieces = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard pieces.count == 2, let key = Self.keys.first(where: { $0.name == pieces[0] }) else {
            throw ValidationError(
                "\(text): not KEY=VALUE with a KEY among \(Self.keys.map(\.name).joined(separator: ", "))")
        }
        let value = pieces[1]
        func bad() -> ValidationError { ValidationError("\(text): \(key.name) takes \(key.values)") }
        func choice(_ choices: [Int]) throws -> Int {
            guard let n = Int(value), choices.contains(n) else { throw bad() }
            return n
        }
        func flag() throws -> Bool {
            guard value == "0" || value == "1" else { throw bad() }
            return value == "1"
        }
        switch key.name {
        case "countdown": let n = try choice(Settings.countdownChoices); apply = { $0.countdown = n }
        case "countdownBeforeRepeat": let b = try flag(); apply = { $0.countdownBeforeRepeat = b }
        case "atPartEnd":
            guard let behavior = PartEndBehavior(rawValue: value) else { throw bad() }
            apply = { $0.atPartEnd = behavior }
        case "volume": let n = try choice(Array(0...100)); apply = { $0.volume = n }
        case "autoImport": let b = try flag(); apply = { $0.autoImport = b }
        case "loopPause": let n = try choice(Settings.loopPauseChoices); apply = { $0.loopPause = n }
        case "loopPasses": let n = try choice(Settings.loopPassesChoices); apply = { $0.loopPasses = n }
        case "lightIdle": let n = try choice(Settings.lightIdleChoices); apply = { $0.lightIdle = n }
        case "countdownBeats": let n = try choice([0] + Settings.countInBeatChoices); apply = { $0.countdownBeats = n }
        case "loopSnap":
            guard let snap = LoopSnap(rawValue: value) else { throw bad() }
            apply = { $0.loopSnap = snap }
        case "turnBy":
            guard let unit = TurnUnit(rawValue: value) else { throw bad() }
            apply = { $0.turnBy = unit }
        case "stopFade": let n = try choice(Settings.stopFadeChoices); apply = { $0.stopFade = n }
        default:
            guard let voice = CountVoice(rawValue: value) else { throw bad() }
            apply = { $0.countVoice = voice }
        }
    }

    func apply(to settings: inout Settings) { apply(&settings) }

    /// The settings as the keys and values above, in that order.
    static func rows(_ s: Settings) -> [(String, String)] {
        [("countdown", "\(s.countdown)"), ("countdownBeforeRepeat", s.countdownBeforeRepeat ? "1" : "0"),
         ("atPartEnd", s.atPartEnd.rawValue), ("volume", "\(s.volume)"), ("autoImport", s.autoImport ? "1" : "0"),
         ("loopPause", "\(s.loopPause)"), ("loopPasses", "\(s.loopPasses)"), ("lightIdle", "\(s.lightIdle)"),
         ("countdownBeats", "\(s.countdownBeats)"), ("loopSnap", s.loopSnap.rawValue), ("turnBy", s.turnBy.rawValue),
         ("countVoice", s.countVoice.rawValue), ("stopFade", "\(s.stopFade)")]
    }

    private static func choices(_ values: [Int]) -> String { values.map(String.init).joined(separator: ", ") }
}
