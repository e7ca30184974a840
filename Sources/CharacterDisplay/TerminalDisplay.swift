import SegmanceScreen

/// The LCD drawn in a terminal as a box, glyphs by their Unicode stand-ins. The simulator's
/// display, behind the same protocol as the real ones.
public final class TerminalDisplay: CharacterDisplay {
    public let columns: Int
    public let rows: Int
    /// Lines drawn under the box (key help, status).
    public var footer: [String] = []
    private let write: (String) -> Void

    /// `write` receives the escape sequences and text to print.
    public init(columns: Int, rows: Int, write: @escaping (String) -> Void) {
        self.columns = columns
        self.rows = rows
        self.write = write
    }

    public func show(_ frame: Frame) {
        write(Self.drawing(frame, footer: footer))
    }

    /// The whole screen: home, the box, the footer, clear to the end.
    public static func drawing(_ frame: Frame, footer: [String]) -> String {
        let clearLine = "\u{1B}[K\n"
        let bar = String(repeating: "─", count: frame.columns)
        var out = "\u{1B}[H┌\(bar)┐" + clearLine
        // A dimmed backlight is drawn faint.
        let (dim, normal) = frame.backlight ? ("", "") : ("\u{1B}[2m", "\u{1B}[22m")
        for row in frame.text { out += "│\(dim)\(row)\(normal)│" + clearLine }
        out += "└\(bar)┘" + clearLine + clearLine
        for line in footer { out += line + clearLine }
        return out + "\u{1B}[J"
    }
}
