import Glibc

/// Why the daemon could not start or stopped: the call, what it was about, and the reason.
public struct DaemonError: Error, Equatable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }

    /// A failed system call: `function` on `subject`, with the errno text.
    static func system(_ function: String, _ subject: String, _ code: Int32) -> DaemonError {
        DaemonError("\(function) (\(subject)): \(String(cString: strerror(code)))")
    }
}
