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
