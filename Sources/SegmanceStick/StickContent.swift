import SegmanceCore

/// A problem found on a stick: which file (relative to the stick root) and why.
public struct StickProblem: Equatable, Sendable, CustomStringConvertible {
    /// Path relative to the stick root ("Salsa/routine.toml"); "" for the root itself.
    public var path: String
    /// What is wrong, for the performer; starts with "line N: " when a line is known.
    public var reason: String
    /// The line in a manifest the problem is on, when known.
    public var line: Int?

    public init(path: String, reason: String, line: Int? = nil) {
        self.path = path
        self.reason = reason
        self.line = line
    }

    public var description: String { "\(path): \(reason)" }
}

/// Everything read from a stick: the routines that loaded (their parts name their audio by
/// an `AudioReference`: the file's path relative to the stick root), and the problems with
/// everything that did not.
public struct StickContent: Sendable {
    public var routines: [Routine]
    public var problems: [StickProblem]
    /// What was read with a guess worth saying, no problem (a file name matched without
    /// regard to case).
    public var notes: [StickProblem]

    public init(routines: [Routine] = [], problems: [StickProblem] = [], notes: [StickProblem] = []) {
        self.routines = routines
        self.notes = notes
        self.problems = problems
    }
}
