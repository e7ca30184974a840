/// The custom characters, uploaded to the HD44780's CGRAM (8 slots, 5×8 dots each).
/// The raw value is the DDRAM code that shows the glyph.
public enum Glyph: UInt8, CaseIterable, Sendable {
    case play = 0, pause, stop, loop, markA, markB, halfBar, note

    /// The ROM's full block (0xFF), used for full progress-bar cells.
    public static let fullBlock: UInt8 = 0xFF

    /// Eight rows, the low five bits of each lit from left (bit 4) to right (bit 0).
    public var pattern: [UInt8] {
        switch self {
        case .play: [0x10, 0x18, 0x1C, 0x1E, 0x1C, 0x18, 0x10, 0x00]
        case .pause: [0x1B, 0x1B, 0x1B, 0x1B, 0x1B, 0x1B, 0x1B, 0x00]
        case .stop: [0x00, 0x1F, 0x1F, 0x1F, 0x1F, 0x1F, 0x00, 0x00]
        case .loop: [0x0D, 0x13, 0x17, 0x10, 0x11, 0x0E, 0x00, 0x00]
        case .markA: [0x1F, 0x1B, 0x15, 0x11, 0x15, 0x15, 0x1F, 0x00]
        case .markB: [0x1F, 0x13, 0x15, 0x13, 0x15, 0x13, 0x1F, 0x00]
        case .halfBar: [0x1C, 0x1C, 0x1C, 0x1C, 0x1C, 0x1C, 0x1C, 0x1C]
        case .note: [0x02, 0x03, 0x02, 0x02, 0x0E, 0x1E, 0x0C, 0x00]
        }
    }

    /// How the glyph is drawn in a terminal and written in frame logs.
    public var standIn: Character {
        switch self {
        case .play: "▶"
        case .pause: "‖"
        case .stop: "■"
        case .loop: "⟲"
        case .markA: "Ⓐ"
        case .markB: "Ⓑ"
        case .halfBar: "▌"
        case .note: "♪"
        }
    }
}

/// The eight CGRAM glyphs a frame is drawn with. The HD44780 has only eight, so each screen
/// uses one set: `symbols` everywhere (transport, loop marks, progress bar, the move's
/// note), `bigDigits` on the count-in, whose numerals two rows high take three slots and
/// keep the two symbols that screen shows (loop, play). A driver loads the set into CGRAM
/// when a frame's set differs from the one loaded.
public enum GlyphSet: UInt8, CaseIterable, Sendable {
    case symbols
    case bigDigits

    /// The patterns of slots 0...7 (8 rows of 5 dots each; unused slots are blank).
    public var patterns: [[UInt8]] {
        switch self {
        case .symbols: Glyph.allCases.map(\.pattern)
        case .bigDigits:
            BigDigitGlyph.allCases.map(\.pattern)
                + Array(repeating: [UInt8](repeating: 0, count: 8), count: 8 - BigDigitGlyph.allCases.count)
        }
    }

    /// How the glyph in `slot` is drawn in a terminal and written in frame logs.
    public func standIn(_ slot: UInt8) -> Character {
        switch self {
        case .symbols: Glyph(rawValue: slot)?.standIn ?? " "
        case .bigDigits: BigDigitGlyph(rawValue: slot)?.standIn ?? " "
        }
    }

    /// The set whose patterns these are (read back from a controller's CGRAM), if any.
    public init?(patterns: [[UInt8]]) {
        guard let found = Self.allCases.first(where: { $0.patterns == patterns }) else { return nil }
        self = found
    }
}

/// The slots of the `bigDigits` set: three pieces numerals are built of, with the ROM's
/// full block (0xFF) for the strokes, as LCDproc's bignum builds them (3 cells wide, 2 rows
/// high), and the two symbols the count-in screen shows.
public enum BigDigitGlyph: UInt8, CaseIterable, Sendable {
    /// A bar along the top of a cell.
    case upper = 0
    /// A bar along the bottom of a cell.
    case lower
    /// Both: the top bar and, at the cell's bottom, the middle bar of 2, 3, 5, 6, 8, 9.
    case both
    case loop
    case play

    public var pattern: [UInt8] {
        switch self {
        case .upper: [0x1F, 0x1F, 0x1F, 0x00, 0x00, 0x00, 0x00, 0x00]
        case .lower: [0x00, 0x00, 0x00, 0x00, 0x00, 0x1F, 0x1F, 0x1F]
        case .both: [0x1F, 0x1F, 0x1F, 0x00, 0x00, 0x00, 0x1F, 0x1F]
        case .loop: Glyph.loop.pattern
        case .play: Glyph.play.pattern
        }
    }

    public var standIn: Character {
        switch self {
        case .upper: "▀"
        case .lower: "▄"
        case .both: "≣"
        case .loop: Glyph.loop.standIn
        case .play: Glyph.play.standIn
        }
    }
}
