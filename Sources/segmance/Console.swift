#if canImport(Glibc)
import Glibc
#endif

/// Unbuffered writes to the standard streams (the C `FILE*` globals are not Sendable).
enum Console {
    static func out(_ text: String) { write(STDOUT_FILENO, text) }
    static func error(_ text: String) { write(STDERR_FILENO, text) }

    private static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }
}
