import Glibc

/// The daemon's log: one line per call on standard error, which journald stamps and keeps.
/// Each line starts with its priority as sd-daemon(3) writes it (`<3>` error … `<7>` debug):
/// journald reads the prefix, files the line at that priority and strips it, so
/// `journalctl -u segmance -p warning` finds the problems and nothing of a normal start.
/// A single `write` per line, so lines from the control loop and the workers never mix.
public struct Log: Sendable {
    /// syslog's priorities, as journald takes them from a line's `<N>` prefix.
    public enum Priority: Int, Sendable, Comparable, CaseIterable {
        /// Something failed and is lost or must be done again (a save that failed).
        case error = 3
        /// Something went wrong and the box went on (a refused stick, a file skipped, an underrun).
        case warning = 4
        /// Worth a look though nothing failed (a display that answers again, a stop).
        case notice = 5
        /// What happens in normal use (start-up, controls, imports).
        case info = 6
        /// Detail for whoever chases a problem.
        case debug = 7

        public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
    }

    private let sink: @Sendable (Priority, String) -> Void

    /// Lines go to `sink` with their priority (tests collect them).
    public init(entries sink: @escaping @Sendable (Priority, String) -> Void) { self.sink = sink }

    /// Lines go to `sink` as journald shows them: the text, without the priority.
    public init(_ sink: @escaping @Sendable (String) -> Void) { self.sink = { sink($1) } }

    /// Lines go to standard error, each with its priority prefix.
    public static let standardError = Log.writing(to: STDERR_FILENO)

    /// Lines go to `descriptor`, each as `Log.line` makes it.
    public static func writing(to descriptor: Int32) -> Log {
        Log { priority, text in writeLine(line(priority, text), to: descriptor) }
    }

    /// `text` as written: "<4>stick: …".
    public static func line(_ priority: Priority, _ text: String) -> String { "<\(priority.rawValue)>" + text }

    /// Writes `text` and a newline to `descriptor` in one `write` where the kernel takes it whole.
    public static func writeLine(_ text: String, to descriptor: Int32) {
        let bytes = Array((text + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            offset += n
        }
    }

    public func callAsFunction(_ priority: Priority, _ line: String) { sink(priority, line) }

    /// A line of error priority (SD_ERR): `journalctl -p err` finds it.
    public func error(_ line: String) { sink(.error, line) }
    /// A line of warning priority (SD_WARNING).
    public func warning(_ line: String) { sink(.warning, line) }
    /// A line of notice priority (SD_NOTICE).
    public func notice(_ line: String) { sink(.notice, line) }
    /// A line of info priority (SD_INFO).
    public func info(_ line: String) { sink(.info, line) }
    /// A line of debug priority (SD_DEBUG).
    public func debug(_ line: String) { sink(.debug, line) }
}
