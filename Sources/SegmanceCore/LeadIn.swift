/// A loop's lead-in: each pass after the first starts this far before A, so the dancer gets
/// into the move (`lead_in = "1 eight"`, `"2 beats"`, `"2 s"`). On the part's beat when it has
/// one; a part with no beat counts a beat as a second, as a count-in in beats does.
public struct LeadIn: Equatable, Hashable, Sendable, CustomStringConvertible {
    public enum Unit: String, CaseIterable, Equatable, Hashable, Sendable {
        case beats, eights, seconds
    }

    /// How many units: 1...`maxCount`.
    public var count: Int
    public var unit: Unit

    /// The most units a lead-in may have.
    public static let maxCount = 16
    /// The lead-ins the menu offers, after "Off".
    public static let choices: [LeadIn] = [
        LeadIn(1, .beats), LeadIn(2, .beats), LeadIn(4, .beats), LeadIn(1, .eights), LeadIn(2, .eights),
        LeadIn(1, .seconds), LeadIn(2, .seconds), LeadIn(4, .seconds),
    ]

    public init(_ count: Int, _ unit: Unit) {
        self.count = count
        self.unit = unit
    }

    /// Reads "2 beats", "1 beat", "1 eight", "2 eights", "2 s", "3 seconds"; nil for anything
    /// else, or a count outside 1...`maxCount`.
    public init?(text: String) {
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 2, let count = Int(words[0]), (1...Self.maxCount).contains(count) else { return nil }
        switch words[1].lowercased() {
        case "beat", "beats": unit = .beats
        case "eight", "eights": unit = .eights
        case "s", "sec", "second", "seconds": unit = .seconds
        default: return nil
        }
        self.count = count
    }

    /// As a manifest writes it, and the library keeps it: "2 beats", "1 eight", "2 s".
    public var description: String {
        switch unit {
        case .beats: "\(count) beat\(count == 1 ? "" : "s")"
        case .eights: "\(count) eight\(count == 1 ? "" : "s")"
        case .seconds: "\(count) s"
        }
    }

    /// The lead-in in source frames of a part with `grid` (nil: no beat, a beat is a second).
    public func frames(grid: BeatGrid?, sampleRate: Int64) -> FramePosition {
        let beats: Int64
        switch unit {
        case .seconds: return Int64(count) * sampleRate
        case .beats: beats = Int64(count)
        case .eights: beats = Int64(count) * BeatGrid.beatsPerEight
        }
        guard let grid else { return beats * sampleRate }
        return FramePosition((Double(beats) * grid.beatFrames).rounded())
    }
}
