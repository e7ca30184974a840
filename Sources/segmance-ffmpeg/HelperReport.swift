#if canImport(Glibc)
import Glibc
#endif

/// The lines the parent reads from standard error once the audio has ended, one fact each,
/// tab-separated (tabs and newlines in texts become spaces):
///   stream  CODEC  TAG  ANNOUNCED-SECONDS|-
///   error   KIND   DETAIL         (open, noaudio, decoder, missingdecoder, protected, read, convert, unreadable)
///   done    SOURCE-FRAMES  PACKETS  BAD-PACKETS  FIRST-BAD-SECONDS|-  FIRST-BAD-MESSAGE
final class HelperReport {
    private var lines: [String] = []

    func add(_ fields: String...) {
        lines.append(fields.map { $0.map { $0 == "\t" || $0 == "\n" ? " " : $0 }.reduce(into: "") { $0.append($1) } }
            .joined(separator: "\t"))
    }

    func flush() {
        writeStandardError(lines.map { $0 + "\n" }.joined())
    }
}

/// Writes `text` to standard error, whole.
func writeStandardError(_ text: String) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes[offset...].withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        offset += n
    }
}
