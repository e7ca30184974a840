/// One track of a class set: a routine played whole, or one of its parts.
public struct ClassTrack: Equatable, Hashable, Sendable {
    /// The routine's title (titles are unique in the library).
    public var routine: String
    /// The part's index in the routine; nil: the whole routine, part after part.
    public var part: Int?
    public init(routine: String, part: Int? = nil) {
        self.routine = routine
        self.part = part
    }
}

/// A class set: tracks played in order, with a gap of silence between them in which the next
/// title may be announced and the count-in sounds (`ClassRules`).
public struct ClassSet: Equatable, Sendable {
    public var name: String
    public var tracks: [ClassTrack]
    /// Seconds from a track's last sample to the next one's first (the count-in included).
    public var gap: Int
    /// The next title is spoken at the start of the gap.
    public var announce: Bool
    public init(name: String, tracks: [ClassTrack], gap: Int = ClassSet.defaultGap, announce: Bool = true) {
        self.name = name
        self.tracks = tracks
        self.gap = gap
        self.announce = announce
    }

    /// The gap a set made on the box has, and one a class.toml leaves out.
    public static let defaultGap = 5
    /// The longest gap a set may have, in seconds.
    public static let maxGap = 120
}

/// A class set under way: which track, and the gap before it while that runs.
public struct ClassRun: Equatable, Sendable {
    /// Index into `PlayerState.classSets`.
    public var set: Int
    /// The track playing, or coming after the gap.
    public var track: Int
    /// In the gap before `track`: when its first sample is due (monotonic ns); nil while it plays.
    public var gapUntil: Int64?
    public init(set: Int, track: Int, gapUntil: Int64? = nil) {
        self.set = set
        self.track = track
        self.gapUntil = gapUntil
    }
}
