import Foundation

/// Finds the line of a key in a manifest's text, so validation messages can point at it.
/// TOMLKit reports positions only for syntax errors; this is a textual search that
/// understands `[[part]]` sections and falls back to nil when the layout is unusual.
struct ManifestLines {
    private let lines: [Substring]
    /// 0-based line indexes of the `[[part]]` headers.
    private let partHeaders: [Int]

    init(_ text: String) {
        let all = text.split(separator: "\n", omittingEmptySubsequences: false)
        lines = all
        partHeaders = all.indices.filter {
            all[$0].trimmingCharacters(in: .whitespaces).hasPrefix("[[part]]")
        }
    }

    /// The 1-based line of the `occurrence`-th `key =` in the top level (part nil) or in
    /// the `part`-th `[[part]]` section.
    func line(of key: String, part: Int? = nil, occurrence: Int = 0) -> Int? {
        let region: Range<Int>
        if let part {
            guard part < partHeaders.count else { return nil }
            let start = partHeaders[part]
            let end = lines.indices[(start + 1)...].first { isTableHeader(lines[$0]) } ?? lines.count
            region = start..<end
        } else {
            region = 0..<(lines.indices.first { isTableHeader(lines[$0]) } ?? lines.count)
        }
        var seen = 0
        for index in region where Self.mentions(lines[index], key: key) {
            if seen == occurrence { return index + 1 }
            seen += 1
        }
        return nil
    }

    /// The 1-based line of the `part`-th `[[part]]` header.
    func line(ofPart part: Int) -> Int? {
        part < partHeaders.count ? partHeaders[part] + 1 : nil
    }

    private func isTableHeader(_ line: Substring) -> Bool {
        line.trimmingCharacters(in: .whitespaces).hasPrefix("[")
    }

    private static func mentions(_ line: Substring, key: String) -> Bool {
        let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var search = code.startIndex
        while let found = code.range(of: key, range: search..<code.endIndex) {
            let before = found.lowerBound == code.startIndex ? " " : code[code.index(before: found.lowerBound)]
            let after = code[found.upperBound...].drop { $0 == " " || $0 == "\t" }
            if (before == " " || before == "\t" || before == "{" || before == ",") && after.first == "=" {
                return true
            }
            search = found.upperBound
        }
        return false
    }
}
