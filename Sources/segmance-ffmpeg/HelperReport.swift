import Foundation

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
        FileHandle.standardError.write((lines.map { $0 + "\n" }.joined()).data(using: .utf8)!)
    }
}
