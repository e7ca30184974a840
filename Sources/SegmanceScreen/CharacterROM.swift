/// Which characters a display shows beyond printable ASCII: the character ROM of its
/// HD44780, as the board profile names it (`display.rom`).
public enum CharacterROM: String, CaseIterable, Sendable {
    /// Printable ASCII only: LCDproc, whose server maps bytes for its own driver, and an
    /// HD44780 whose ROM is not known.
    case ascii
    /// The HD44780's common Japanese ROM (A00): ASCII, and half-width katakana at 0xA1–0xDF
    /// with the voiced marks (゛ 0xDE, ゜ 0xDF) as cells of their own.
    case a00 = "A00"

    /// The ROM's code for the half-width katakana `scalar` (U+FF61–U+FF9F), if it has one.
    public func code(ofHalfWidth scalar: Unicode.Scalar) -> UInt8? {
        guard self == .a00, (0xFF61...0xFF9F).contains(scalar.value) else { return nil }
        return UInt8(scalar.value - Self.halfWidthOffset)
    }

    /// The half-width katakana an A00 code 0xA1–0xDF shows (how a frame prints it), if any.
    public static func halfWidth(ofCode code: UInt8) -> Unicode.Scalar? {
        guard (0xA1...0xDF).contains(code) else { return nil }
        return Unicode.Scalar(UInt32(code) + halfWidthOffset)
    }

    /// U+FF61 (｡) is 0xA1 in the A00 ROM, and the two run in the same order to U+FF9F (ﾟ).
    static let halfWidthOffset: UInt32 = 0xFF61 - 0xA1
}
