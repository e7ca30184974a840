/// Numerals two rows high and three cells wide, from the `bigDigits` glyph set and the
/// ROM's full block, readable across a studio.
public enum BigDigits {
    /// Cells between two numerals.
    public static let gap = 1

    /// Rows 0 and 1 of `digit` (0...9).
    public static func cells(_ digit: Int) -> (top: [UInt8], bottom: [UInt8]) {
        let u = BigDigitGlyph.upper.rawValue, l = BigDigitGlyph.lower.rawValue
        let b = BigDigitGlyph.both.rawValue, f = Glyph.fullBlock, s: UInt8 = 0x20
        switch digit {
        case 0: return ([f, u, f], [f, l, f])
        case 1: return ([u, f, s], [l, f, l])
        case 2: return ([b, b, f], [f, l, l])
        case 3: return ([b, b, f], [l, l, f])
        case 4: return ([f, l, f], [s, s, f])
        case 5: return ([f, b, b], [l, l, f])
        case 6: return ([f, b, b], [f, l, f])
        case 7: return ([u, u, f], [s, s, f])
        case 8: return ([f, b, f], [f, l, f])
        default: return ([f, b, f], [l, l, f])
        }
    }

    /// The two rows of a non-negative `number`.
    public static func rows(_ number: Int) -> (top: [UInt8], bottom: [UInt8]) {
        var top: [UInt8] = [], bottom: [UInt8] = []
        for (i, ch) in String(max(0, number)).enumerated() {
            if i > 0 {
                top += [UInt8](repeating: 0x20, count: gap)
                bottom += [UInt8](repeating: 0x20, count: gap)
            }
            let d = cells(ch.wholeNumberValue ?? 0)
            top += d.top
            bottom += d.bottom
        }
        return (top, bottom)
    }
}
