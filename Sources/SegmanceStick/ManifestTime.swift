import Foundation

/// Times written in a manifest: "m:ss", "m:ss.s", "h:mm:ss(.s)" or a bare number of
/// seconds ("12", "12.25"). Parsed as decimal digits, so "1:05.5" at 48 kHz is exactly
/// 3_144_000 frames; fractions finer than a frame round to the nearest frame (half up).
public enum ManifestTime {
    /// The longest time accepted: 100 hours.
    public static let maxSeconds: Int64 = 100 * 3600

    /// The frame count for `text` at `rate`, or nil when `text` is not a valid time.
    public static func frames(_ text: String, rate: Int) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let fields = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        // The last field carries the seconds, with an optional fraction.
        let last = fields[fields.count - 1]
        let secondParts = last.split(separator: ".", omittingEmptySubsequences: false)
        guard secondParts.count <= 2 else { return nil }
        let wholeText = secondParts[0]
        let fractionText = secondParts.count == 2 ? secondParts[1] : ""
        guard isDigits(wholeText), fractionText.allSatisfy(\.isASCIIDigitChar),
              secondParts.count == 1 || !fractionText.isEmpty,
              fractionText.count <= 9 else { return nil }
        guard wholeText.count <= 12, let seconds = Int64(wholeText) else { return nil }
        var total = seconds
        if fields.count >= 2 {
            // Seconds after a colon are two digits below 60: "1:05", not "1:5" or "1:75".
            guard wholeText.count == 2, seconds < 60 else { return nil }
            let minutesText = fields[fields.count - 2]
            guard isDigits(minutesText), minutesText.count <= 12, let minutes = Int64(minutesText) else { return nil }
            if fields.count == 3 {
                guard minutesText.count == 2, minutes < 60,
                      isDigits(fields[0]), fields[0].count <= 12, let hours = Int64(fields[0]) else { return nil }
                total += hours * 3600
            }
            total += minutes * 60
        }
        // Untrusted input: refuse absurd values instead of overflowing.
        guard total <= maxSeconds else { return nil }
        let rate64 = Int64(rate)
        var frames = total * rate64
        if !fractionText.isEmpty, let fraction = Int64(fractionText) {
            var scale: Int64 = 1
            for _ in 0..<fractionText.count { scale *= 10 }
            frames += (fraction * rate64 * 2 + scale) / (scale * 2)
        }
        return frames
    }

    /// A TOML float given as a bare number of seconds: its shortest decimal spelling is
    /// what the author wrote, so parse that rather than multiply the binary value.
    public static func frames(seconds: Double, rate: Int) -> Int64? {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        return frames("\(seconds)", rate: rate)
    }

    /// "m:ss.s" for messages, e.g. 3_144_000 frames at 48 kHz -> "1:05.5".
    public static func format(_ frames: Int64, rate: Int) -> String {
        let tenths = (frames * 10 + Int64(rate) / 2) / Int64(rate)
        let seconds = tenths / 10
        let s = seconds % 60
        let tail = tenths % 10 == 0 ? "" : ".\(tenths % 10)"
        return "\(seconds / 60):\(s < 10 ? "0" : "")\(s)\(tail)"
    }

    private static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy(\.isASCIIDigitChar)
    }
}

extension Character {
    var isASCIIDigitChar: Bool { isASCII && isNumber }
}
