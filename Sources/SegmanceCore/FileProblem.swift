/// Something wrong on the last stick, for the problems view: the file (relative to the
/// stick, or the device of a stick that was refused) and the reason, whole.
public struct FileProblem: Equatable, Sendable {
    public var file: String
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }
}

/// The size of the character display, for rules that page text over it.
public struct DisplaySize: Equatable, Sendable {
    public var columns: Int
    public var rows: Int

    public init(columns: Int = 16, rows: Int = 2) {
        self.columns = max(1, columns)
        self.rows = max(1, rows)
    }
}
