/// A stick that appeared, as a quick scan saw it (nothing decoded yet).
public struct StickOffer: Equatable, Sendable {
    /// Where it is mounted (or the folder the twin was given).
    public var path: String
    /// Routine folders found on it.
    public var routines: Int
    /// The performer said not now (long push); the offer stays hidden until the next stick.
    public var dismissed: Bool

    public init(path: String, routines: Int, dismissed: Bool = false) {
        self.path = path
        self.routines = routines
        self.dismissed = dismissed
    }
}

/// How far an import is, for the LCD.
public struct ImportProgress: Equatable, Sendable {
    /// 1-based index of the routine being imported, of `count`.
    public var routine: Int
    public var count: Int
    public var title: String
    /// 0...100 within the routine.
    public var percent: Int

    public init(routine: Int, count: Int, title: String, percent: Int) {
        self.routine = routine
        self.count = count
        self.title = title
        self.percent = percent
    }
}

/// What an import did, routine by routine.
public struct ImportSummary: Equatable, Sendable {
    public var added: Int
    public var replaced: Int
    public var unchanged: Int
    public var failed: Int
    /// Why the import stopped before the end (a full disk, the stick pulled out), if it did.
    public var stopped: String?

    public init(added: Int = 0, replaced: Int = 0, unchanged: Int = 0, failed: Int = 0, stopped: String? = nil) {
        self.added = added
        self.replaced = replaced
        self.unchanged = unchanged
        self.failed = failed
        self.stopped = stopped
    }

    /// The two lines the LCD shows when the import ends.
    public var lines: [String] {
        if let stopped { return ["Import stopped", stopped] }
        if added + replaced == 0 && failed == 0 { return ["Import done", "nothing changed"] }
        var counts: [String] = []
        if added > 0 { counts.append("\(added) new") }
        if replaced > 0 { counts.append("\(replaced) updated") }
        if unchanged > 0 { counts.append("\(unchanged) same") }
        if failed > 0 { counts.append("\(failed) failed") }
        return ["Import done", counts.joined(separator: ", ")]
    }
}
