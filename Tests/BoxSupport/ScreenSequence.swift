/// Compares what an LCD showed, screen after screen as its controller received the bytes,
/// with the frames the twin rendered for the same inputs.
///
/// What must be equal: the sequence of distinct screens, in order, every cell — the
/// transport glyph, the part "2/3", the loop glyphs, "Ready in 3", titles, notices.
/// What may differ: the digits of a clock ("0:05/0:20"): the daemon samples the position
/// at other instants than the twin, so one screen may show a second the other skipped.
/// Those digits are masked (`#`) before comparing. Between two frames the LCD passes
/// through screens where only some of the changed cells are written yet (the driver sends
/// the changed runs one after the other); a screen whose every cell is that of the frame
/// before or of the frame after is such a redraw, and is allowed. When the two frames use
/// different glyph sets (the count-in's big digits and the symbols), the driver loads CGRAM
/// before it writes the cells: for a moment a cell that showed a custom glyph shows the new
/// set's glyph of the same code (or nothing, where the new set leaves that code free), so in
/// such a redraw a glyph or a blank where the frame before had a glyph is allowed too.
public enum ScreenSequence {
    /// A screen: its rows as text (glyphs by their stand-ins).
    public typealias Screen = [String]

    /// `screen` with the digits of every "m:ss" clock masked.
    public static func normalize(_ screen: Screen) -> Screen {
        func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }
        return screen.map { row in
            var cells = Array(row)
            var i = 0
            while i < cells.count {
                guard isDigit(cells[i]) else {
                    i += 1
                    continue
                }
                var j = i
                while j < cells.count, isDigit(cells[j]) { j += 1 }
                // Digits, ':' and two digits: a clock.
                if j + 2 < cells.count, cells[j] == ":", isDigit(cells[j + 1]), isDigit(cells[j + 2]) {
                    for k in [Int](i..<j) + [j + 1, j + 2] { cells[k] = "#" }
                    i = j + 3
                } else {
                    i = j
                }
            }
            return String(cells)
        }
    }

    /// `screens` without consecutive repeats.
    public static func collapse(_ screens: [Screen]) -> [Screen] {
        var out: [Screen] = []
        for screen in screens where screen != out.last { out.append(screen) }
        return out
    }

    /// Whether every cell of `screen` is that of `from` or of `to` — a digit counting as a
    /// masked clock digit (`#`): a clock half written is not yet a clock to `normalize`.
    public static func isRedraw(_ screen: Screen, from: Screen, to: Screen) -> Bool {
        guard screen.count == from.count, screen.count == to.count else { return false }
        let reload = usesBigDigits(from) != usesBigDigits(to)
        for ((row, a), b) in zip(zip(screen, from), to) {
            let cells = Array(row), before = Array(a), after = Array(b)
            guard cells.count == before.count, cells.count == after.count else { return false }
            for k in cells.indices where cells[k] != before[k] && cells[k] != after[k] {
                let digit = cells[k].isASCII && cells[k].isNumber
                if digit && (before[k] == "#" || after[k] == "#") { continue }
                // A slot the new set leaves free shows as a blank.
                if reload && glyphStandIns.contains(before[k]) && (glyphStandIns.contains(cells[k]) || cells[k] == " ") { continue }
                return false
            }
        }
        return true
    }

    /// The stand-ins of every custom glyph of both sets (`GlyphSet`; BoxSupportTests checks
    /// them against SegmanceScreen's).
    public static let glyphStandIns: Set<Character> = ["▶", "‖", "■", "⟲", "Ⓐ", "Ⓑ", "▌", "♪", "▀", "▄", "≣"]
    /// The stand-ins of the pieces numerals are built of: only the `bigDigits` set has them.
    public static let bigDigitPieces: Set<Character> = ["▀", "▄", "≣"]

    /// Whether a screen shows pieces of big digits.
    static func usesBigDigits(_ screen: Screen) -> Bool {
        screen.contains { $0.contains { bigDigitPieces.contains($0) } }
    }

    /// nil when `observed` (the LCD, in order, redraws included) shows exactly `expected`
    /// (the twin's frames, in order); otherwise what went wrong, with the screens around it.
    public static func mismatch(observed: [Screen], expected: [Screen]) -> String? {
        let shown = collapse(observed.map(normalize))
        let frames = collapse(expected.map(normalize))
        guard !frames.isEmpty else { return "the twin rendered no frames" }
        var j = 0
        var seen = false
        func text(_ s: Screen) -> String { "|" + s.joined(separator: "|") + "|" }
        for (k, screen) in shown.enumerated() {
            if screen == frames[j] { seen = true; continue }
            if j + 1 < frames.count, screen == frames[j + 1] {
                j += 1
                continue
            }
            if j + 1 < frames.count, isRedraw(screen, from: frames[j], to: frames[j + 1]) { continue }
            let around = shown[max(0, k - 2)..<min(shown.count, k + 3)].map(text).joined(separator: " ")
            return "LCD screen \(k + 1) of \(shown.count) \(text(screen)) is not twin frame \(j + 1) "
                + "\(text(frames[j]))" + (j + 1 < frames.count ? ", nor frame \(j + 2) \(text(frames[j + 1])), nor a redraw between them" : "")
                + "; the LCD around it: \(around)"
        }
        guard seen || j > 0 else { return "the LCD never showed the twin's first frame \(text(frames[0]))" }
        if j + 1 < frames.count {
            return "the LCD stopped at twin frame \(j + 1) \(text(frames[j])); never shown: "
                + frames[(j + 1)...].map(text).joined(separator: " ")
        }
        return nil
    }
}

extension ScreenSequence {
    /// The screens of a twin frame log (`segmance sim --frames`): lines "   12.345 |row|row|",
    /// rows of `columns` characters.
    public static func parseFrameLog(_ text: String, columns: Int) -> [Screen] {
        text.split(separator: "\n").compactMap { line in
            guard let bar = line.firstIndex(of: "|") else { return nil }
            var rest = Array(line[line.index(after: bar)...])
            var rows: [String] = []
            while rest.count >= columns + 1, rest[columns] == "|" {
                rows.append(String(rest[0..<columns]))
                rest.removeFirst(columns + 1)
            }
            return rows.isEmpty ? nil : rows
        }
    }
}
