import ArgumentParser
import SegmanceCore

/// `--countdown`: seconds ("0", "3", "5", …) or a count-in in beats ("beats4", "beats8").
struct CountdownOption: ExpressibleByArgument {
    var seconds: Int
    var beats: Int

    init?(argument: String) {
        if argument.hasPrefix("beats"), let n = Int(argument.dropFirst(5)), Settings.countInBeatChoices.contains(n) {
            seconds = 0
            beats = n
        } else if let n = Int(argument), Settings.countdownChoices.contains(n) {
            seconds = n
            beats = 0
        } else {
            return nil
        }
    }

    static var allValueStrings: [String] {
        Settings.countdownChoices.map(String.init) + Settings.countInBeatChoices.map { "beats\($0)" }
    }

    /// As it is typed, for `--help`'s default.
    var defaultValueDescription: String { beats > 0 ? "beats\(beats)" : "\(seconds)" }
}

extension LoopSnap: ExpressibleByArgument {
    /// As it is typed, for `--help`'s default.
    public var defaultValueDescription: String { rawValue }
}

extension CountVoice: ExpressibleByArgument {
    /// As it is typed, for `--help`'s default.
    public var defaultValueDescription: String { rawValue }
}
