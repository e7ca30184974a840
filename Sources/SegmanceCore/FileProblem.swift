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

