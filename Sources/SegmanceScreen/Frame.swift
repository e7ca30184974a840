/// What a character LCD shows: one byte per cell, exactly as written to the HD44780's
/// DDRAM (0...7 custom glyphs, 0x20...0x7E ASCII, 0xFF the full block, and on an A00 ROM
/// half-width katakana at 0xA1...0xDF).
public struct Frame: Equatable, Sendable {
    public let columns: Int
    public let rows: Int
    public var cells: [UInt8]
    /// When this frame stops being what the screen shows for the same state, as time
    /// alone moves on (the state's clock, ns): the next marquee step or the end of a
    /// notice. Nil when only an event can change it. Not part of equality: two frames
    /// are equal when they show the same cells.
    public var expires: Int64?
    /// The position (frames into the part) at which playback moving on changes this frame
    /// other than in its clock: the next move's cue, the next step of the progress bar.
    /// The clock's whole seconds are left out (the audio side reports each new second as
    /// it plays). Nil when nothing else on it follows the position. Not part of equality.
    public var changesAtPosition: Int64?
    /// The glyphs cells 0...7 show (see `GlyphSet`).
    public var glyphs: GlyphSet = .symbols
    /// Whether the backlight is lit.
    public var backlight = true
    /// A number drawn in `BigDigits` on it, for displays that draw big numbers their own
    /// way (LCDproc's `num` widget). The cells hold it too. Not part of equality.
    public var bigNumber: BigNumber?
    /// The display's character ROM: what text written with `put(_:row:column:)` may use
    /// beyond ASCII (`LCDText`). Not part of equality.
    public var rom: CharacterROM

    /// A number two rows high: its value and where its top left cell is.
    public struct BigNumber: Equatable, Sendable {
        public var value: Int
        public var row: Int
        public var column: Int
        /// Cells it takes on each of its two rows.
        public var width: Int
        public init(value: Int, row: Int, column: Int, width: Int) {
            self.value = value
            self.row = row
            self.column = column
            self.width = width
        }
    }

    /// A blank frame.
    public init(columns: Int, rows: Int, rom: CharacterROM = .ascii) {
        self.columns = columns
        self.rows = rows
        self.rom = rom
        cells = [UInt8](repeating: 0x20, count: columns * rows)
    }

    public static func == (lhs: Frame, rhs: Frame) -> Bool {
        lhs.columns == rhs.columns && lhs.rows == rhs.rows && lhs.cells == rhs.cells
            && lhs.glyphs == rhs.glyphs && lhs.backlight == rhs.backlight
    }

    /// Notes that the frame changes by itself at `time` (the earliest such time is kept).
    public mutating func expire(at time: Int64) {
        expires = min(expires ?? time, time)
    }

    /// Notes that the frame changes when playback reaches `position` (the earliest kept).
    public mutating func change(atPosition position: Int64) {
        changesAtPosition = min(changesAtPosition ?? position, position)
    }

    /// Writes `text` into `width` cells from (row, column), scrolling it when it is too
    /// long (`Marquee`), and notes when it next moves.
    public mutating func scroll(_ text: [UInt8], width: Int, row: Int, column: Int = 0, now: Int64) {
        guard text.count > width else {
            // What `Marquee.window` shows for a text that fits (the text, then blanks),
            // written in place: the loop renders the frame on every wake.
            put(text, row: row, column: column)
            fill(0x20, row: row, columns: (column + text.count)..<(column + max(width, text.count)))
            return
        }
        put(Marquee.window(text, width: width, now: now), row: row, column: column)
        if let step = Marquee.nextStep(count: text.count, width: width, now: now) { expire(at: step) }
    }

    public func row(_ r: Int) -> [UInt8] { Array(cells[r * columns..<(r + 1) * columns]) }

    /// Writes `bytes` from (row, column), clipped to the row.
    public mutating func put(_ bytes: [UInt8], row: Int, column: Int = 0) {
        guard row >= 0, row < rows else { return }
        for (i, b) in bytes.enumerated() where column + i < columns && column + i >= 0 {
            cells[row * columns + column + i] = b
        }
    }

    /// Writes `text` as display bytes (`LCDText`) from (row, column), clipped to the row;
    /// returns how many cells it takes.
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int = 0) -> Int {
        guard LCDText.isPlain(text) else {
            let bytes = LCDText.bytes(text, rom: rom)
            put(bytes, row: row, column: column)
            return bytes.count
        }
        // Plain text is written from its UTF-8 as it is, without an array of its bytes.
        var c = column
        for byte in text.utf8 {
            put(byte, row: row, column: c)
            c += 1
        }
        return c - column
    }

    /// Writes `byte` at (row, column) when that is on the frame.
    public mutating func put(_ byte: UInt8, row: Int, column: Int = 0) {
        guard row >= 0, row < rows, column >= 0, column < columns else { return }
        cells[row * columns + column] = byte
    }

    /// Writes `byte` into the cells `columns` of `row`, clipped to the row.
    mutating func fill(_ byte: UInt8, row: Int, columns range: Range<Int>) {
        guard row >= 0, row < rows else { return }
        for c in range.clamped(to: 0..<columns) { cells[row * columns + c] = byte }
    }

    /// Each row as text, glyphs shown by their Unicode stand-ins, the A00 ROM's katakana as
    /// the half-width katakana (U+FF61...U+FF9F) they are.
    public var text: [String] {
        (0..<rows).map { r in
            String(row(r).map { b -> Character in
                if b < 8 { return glyphs.standIn(b) }
                if b == Glyph.fullBlock { return "█" }
                if let kana = CharacterROM.halfWidth(ofCode: b) { return Character(kana) }
                if b >= 0x80 { return "?" }
                return Character(Unicode.Scalar(b))
            })
        }
    }

    /// A run of changed cells: write `bytes` at (row, column).
    public struct Run: Equatable, Sendable {
        public var row: Int
        public var column: Int
        public var bytes: [UInt8]
        public init(row: Int, column: Int, bytes: [UInt8]) {
            self.row = row
            self.column = column
            self.bytes = bytes
        }
    }

    /// The runs of cells that differ from `old` (everything when the sizes differ), so a
    /// driver writes only what changed, as lcdproc's flush does.
    public func diff(from old: Frame?) -> [Run] {
        var runs: [Run] = []
        for r in 0..<rows {
            var c = 0
            while c < columns {
                let i = r * columns + c
                guard let old, old.columns == columns, old.rows == rows, old.cells[i] == cells[i] else {
                    var end = c + 1
                    while end < columns {
                        let j = r * columns + end
                        if let old, old.columns == columns, old.rows == rows, old.cells[j] == cells[j] { break }
                        end += 1
                    }
                    runs.append(Run(row: r, column: c, bytes: Array(cells[i..<(r * columns + end)])))
                    c = end
                    continue
                }
                c += 1
            }
        }
        return runs
    }
}
