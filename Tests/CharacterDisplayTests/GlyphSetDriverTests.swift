import Foundation
import Testing
import LinuxI2C
import SegmanceCore
import SegmanceScreen
@testable import CharacterDisplay

/// The drivers carry out what a frame says besides its cells: the glyph set CGRAM must hold
/// (the count-in's big digits) and the backlight.
@Suite(.tags(.unit)) struct GlyphSetDriverTests {
    static let countIn: PlayerState = {
        var state = PlayerState(routines: [Routine(title: "Street Jam", parts: [
            Part(title: "Groove", audio: AudioReference("a"), length: 48_000 * 30),
        ])])
        state.transport = .countingDown(Countdown(remaining: 3, origin: .stopped))
        return state
    }()

    @Test(arguments: HD44780Tests.cases)
    func theHD44780LoadsAFramesGlyphSetAndFollowsItsBacklight(pinMap: PCF8574PinMap, columns: Int, rows: Int) throws {
        let bus = RecordingI2CBus()
        let display = HD44780Display(bus: bus, pinMap: pinMap, columns: columns, rows: rows, delay: RecordingDelay())
        var model = HD44780Model(pinMap: pinMap, columns: columns, rows: rows)
        var state = Self.countIn
        let big = Screen.render(state, columns: columns, rows: rows)
        try display.show(big)
        model.receive(bus.bytes)
        #expect(GlyphSet(patterns: model.glyphs) == .bigDigits)
        #expect(model.screen == (0..<rows).map { big.row($0) })
        // The same set again: CGRAM is not written again (only the changed cell).
        bus.clear()
        state.transport = .countingDown(Countdown(remaining: 2, origin: .stopped))
        try display.show(Screen.render(state, columns: columns, rows: rows))
        let before = model.glyphs
        model.receive(bus.bytes)
        #expect(model.glyphs == before)
        #expect(bus.bytes.count < 200, "\(bus.bytes.count) bytes for a changed numeral")
        // Playing: the symbols again.
        state.transport = .playing
        let playing = Screen.render(state, columns: columns, rows: rows)
        try display.show(playing)
        model.receive(bus.bytes)
        #expect(GlyphSet(patterns: model.glyphs) == .symbols)
        #expect(model.screen == (0..<rows).map { playing.row($0) })
        #expect(model.backlight)
        // Dimmed, and lit again: the PCF8574's backlight bit.
        state.backlight = false
        try display.show(Screen.render(state, columns: columns, rows: rows))
        model.receive(bus.bytes)
        #expect(!model.backlight)
        state.backlight = true
        try display.show(Screen.render(state, columns: columns, rows: rows))
        model.receive(bus.bytes)
        #expect(model.backlight)
    }
}

extension LCDprocClientTests {
    /// The count-in on LCDd: its `num` widgets draw the seconds (the text driver prints
    /// LCDproc's own big numerals), the text beside them is ours; the backlight command is taken.
    @Test(arguments: [(16, 2), (20, 4)])
    func theCountInIsLCDprocsBigNumberAndTheBacklightFollows(columns: Int, rows: Int) throws {
        let server = try Server(columns: columns, rows: rows)
        let client = try server.connect()
        var state = GlyphSetDriverTests.countIn
        let frame = Screen.render(state, columns: columns, rows: rows)
        #expect(frame.bigNumber?.value == 3)
        try client.show(frame)
        // The text driver has no custom characters: LCDd draws its numerals in ASCII.
        let three = rows == 2 ? [" _ ", " _|"] : [" _ ", " _|", " _|", "   "]
        var expected = frame.text.map { String($0.map { $0.isASCII ? $0 : " " }) }
        let column = frame.bigNumber!.column
        for (r, piece) in three.enumerated() {
            var cells = Array(expected[r])
            cells.replaceSubrange(column..<column + 3, with: Array(piece))
            expected[r] = String(cells)
        }
        #expect(server.waitForFrame(expected), "LCDd never showed \(expected)")
        state.transport = .playing
        state.backlight = false
        let playing = Screen.render(state, columns: columns, rows: rows)
        try client.show(playing)
        // The numeral is gone with its widget; LCDd took the backlight command.
        let ascii = (0..<rows).map { r in String(decoding: playing.row(r).map { client.glyphText[$0] ?? $0 }, as: UTF8.self) }
        #expect(server.waitForFrame(ascii), "LCDd never showed \(ascii)")
    }
}

