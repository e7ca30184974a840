import Glibc

/// The daemon's log: one line per call on standard error, which journald stamps and keeps.
/// A single `write` per line, so lines from the control loop and the workers never mix.
public struct Log: Sendable {
    private let sink: @Sendable (String) -> Void

    /// Lines go to `sink` (tests collect them).
    public init(_ sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    /// Lines go to standard error.
    public static let standardError = Log { line in
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    public func callAsFunction(_ line: String) { sink(line) }

    /// A line of error priority: journald reads the `<3>` prefix (sd-daemon's SD_ERR) and files
    /// it at that priority, so `journalctl -p err` finds it.
    public func error(_ line: String) { sink("<3>" + line) }
}
