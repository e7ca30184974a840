import Foundation
import Testing
import LinuxI2C
import SegmanceCore
import SegmanceScreen
@testable import CharacterDisplay

final class RecordingDelay: Delay {
    var waits: [Int] = []
    func wait(microseconds: Int) { waits.append(microseconds) }
}

@Suite(.tags(.unit)) struct HD44780Tests {
    static func frame(_ rows: [String], columns: Int, glyphs: [(Int, Int, Glyph)] = []) -> Frame {
        var f = Frame(columns: columns, rows: rows.count)
        for (r, text) in rows.enumerated() { f.put(Array(text.utf8), row: r) }
        for (r, c, g) in glyphs { f.put([g.rawValue], row: r, column: c) }
        return f
    }

    static let cases: [(PCF8574PinMap, Int, Int)] = [
        (.common, 16, 2), (.common, 20, 4), (.lcdprocDefault, 16, 2), (.lcdprocDefault, 20, 4),
    ]

    @Test(arguments: cases)
    func initGlyphsAndFrameDecodeBackToTheFrame(pinMap: PCF8574PinMap, columns: Int, rows: Int) throws {
        let bus = RecordingI2CBus()
        let display = HD44780Display(bus: bus, pinMap: pinMap, columns: columns, rows: rows, delay: RecordingDelay())
        let text = (0..<rows).map { r in String("Row \(r) of the screen, long".prefix(columns)) }
        let frame = Self.frame(text, columns: columns, glyphs: [(0, 0, .play), (rows - 1, columns - 1, .markB)])
        try display.show(frame)
        var model = HD44780Model(pinMap: pinMap, columns: columns, rows: rows)
        model.receive(bus.bytes)
        #expect(model.fourBit && model.twoLines && model.displayOn && model.backlight)
        #expect(model.screen == (0..<rows).map { frame.row($0) })
        #expect(model.glyphs == Glyph.allCases.map(\.pattern))
    }

    @Test(arguments: cases)
    func aSecondFrameWritesOnlyTheChangedRuns(pinMap: PCF8574PinMap, columns: Int, rows: Int) throws {
        let bus = RecordingI2CBus()
        let display = HD44780Display(bus: bus, pinMap: pinMap, columns: columns, rows: rows, delay: RecordingDelay())
        var model = HD44780Model(pinMap: pinMap, columns: columns, rows: rows)
        let first = Self.frame(Array(repeating: "0:12/0:32", count: rows), columns: columns)
        try display.show(first)
        model.receive(bus.bytes)
        bus.clear()
        var second = first
        second.put(Array("3".utf8), row: rows - 1, column: 3)
        second.put([Glyph.loop.rawValue], row: 0, column: columns - 1)
        try display.show(second)
        // Two runs of one cell: (address command + one data byte) × 2, 4 bytes a byte of 8 bits.
        #expect(bus.bytes.count == 2 * (4 + 4))
        model.receive(bus.bytes)
        #expect(model.screen == (0..<rows).map { second.row($0) })
        bus.clear()
        try display.show(second)
        #expect(bus.bytes.isEmpty)
    }

    @Test func theInitSequenceWaitsAsTheDatasheetSays() throws {
        let delay = RecordingDelay()
        let display = HD44780Display(bus: RecordingI2CBus(), columns: 16, rows: 2, delay: delay)
        try display.show(Frame(columns: 16, rows: 2))
        #expect(Array(delay.waits.prefix(5)) == [50_000, 4_500, 150, 150, 150])
        #expect(delay.waits.contains(2_000)) // after clear
        #expect(delay.waits.filter { $0 == 50 }.count >= 5) // every instruction ≥ 37 µs
    }

    /// A frame is drawn with addresses and data only: the bus's own time covers each
    /// instruction's 37 µs, so the LCD thread does not sleep (a sleep is a wake of it).
    @Test func framesAfterTheInitAreDrawnWithoutSleeping() throws {
        let delay = RecordingDelay()
        let bus = RecordingI2CBus()
        let display = HD44780Display(bus: bus, columns: 16, rows: 2, delay: delay)
        try display.show(Self.frame(["Groove", "0:12/0:32"], columns: 16))
        let afterInit = delay.waits.count
        bus.clear()
        try display.show(Self.frame(["Groove", "0:13/0:32"], columns: 16))
        var glyphs = Self.frame(["Groove", "0:14/0:32"], columns: 16)
        glyphs.glyphs = .bigDigits
        try display.show(glyphs)
        #expect(!bus.bytes.isEmpty)
        #expect(delay.waits.count == afterInit)
    }

    @Test func aDisplayThatStopsAnsweringIsReinitialisedWhenItComesBack() throws {
        let bus = RecordingI2CBus()
        let display = HD44780Display(bus: bus, columns: 16, rows: 2, delay: RecordingDelay())
        let frame = Self.frame(["Groove", "0:12/0:32"], columns: 16)
        try display.show(frame)
        bus.failure = I2CError(operation: "ioctl(I2C_SMBUS send byte)", path: "/dev/i2c-1", address: 0x27, errno: 121, reason: "Remote I/O error")
        #expect(throws: I2CError.self) { try display.show(Self.frame(["Finale", "0:00/0:24"], columns: 16)) }
        bus.failure = nil
        bus.clear()
        let next = Self.frame(["Finale", "0:01/0:24"], columns: 16)
        try display.show(next)
        // A controller that lost power starts from scratch: the bytes alone rebuild the screen.
        var model = HD44780Model(pinMap: .common, columns: 16, rows: 2)
        model.receive(bus.bytes)
        #expect(model.screen == [next.row(0), next.row(1)])
    }

    @Test func aRealScreenRendersThroughTheDriver() throws {
        var state = PlayerState(routines: [Routine(title: "Street Jam", parts: [
            Part(title: "Groove", audio: AudioReference("a"), length: 48_000 * 32)])])
        state.transport = .playing
        state.loop = .ab(ABLoop(a: 48_000 * 8, b: 48_000 * 16))
        let frame = Screen.render(state, columns: 20, rows: 4)
        let bus = RecordingI2CBus()
        try HD44780Display(bus: bus, columns: 20, rows: 4, delay: RecordingDelay()).show(frame)
        var model = HD44780Model(pinMap: .common, columns: 20, rows: 4)
        model.receive(bus.bytes)
        #expect(model.screen == (0..<4).map { frame.row($0) })
    }

    @Test func aMissingBusNamesThePath() {
        do {
            _ = try LinuxI2CBus(path: "/dev/i2c-97", address: 0x27)
            Issue.record("opened a bus that does not exist")
        } catch {
            #expect(error.description.hasPrefix("open on /dev/i2c-97 at 0x27: No such file or directory"))
        }
    }
}

@Suite(.tags(.unit)) struct TerminalDisplayTests {
    @Test func drawsTheFrameAsABoxWithGlyphStandIns() {
        var frame = Frame(columns: 16, rows: 2)
        frame.put([Glyph.pause.rawValue, 0x20] + Array("1/3 Intro".utf8), row: 0)
        var written = ""
        let display = TerminalDisplay(columns: 16, rows: 2) { written += $0 }
        display.footer = ["q quit"]
        display.show(frame)
        let lines = written.replacingOccurrences(of: "\u{1B}[K", with: "").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "\u{1B}[H┌────────────────┐")
        #expect(lines[1] == "│‖ 1/3 Intro     │")
        #expect(lines[2] == "│                │")
        #expect(lines[3] == "└────────────────┘")
        #expect(lines[5] == "q quit")
    }
}

@Suite(.tags(.unit)) struct ResilientDisplayTests {
    @Test func aDisplayThatStopsAnsweringIsRetriedLoggedAndNeverFatal() throws {
        let bus = RecordingI2CBus()
        let hd = HD44780Display(bus: bus, columns: 16, rows: 2, delay: RecordingDelay())
        var log: [String] = []
        let display = ResilientDisplay(hd, retryInterval: 1_000_000_000) { log.append($0) }
        var frame = Frame(columns: 16, rows: 2)
        frame.put(Array("Groove".utf8), row: 0)
        display.show(frame, now: 0)
        #expect(!display.isFailing)

        bus.failure = I2CError(operation: "ioctl(I2C_SMBUS send byte)", path: "/dev/i2c-1", address: 0x27, errno: 121, reason: "Remote I/O error")
        frame.put(Array("0:01".utf8), row: 1)
        display.show(frame, now: 100_000_000)   // fails: logged once
        display.show(frame, now: 200_000_000)   // within the interval: not even tried
        display.retry(now: 600_000_000)
        #expect(display.isFailing && display.failures == 1)
        display.retry(now: 1_100_000_000)       // tried again, still failing, not logged again
        #expect(display.failures == 2)
        #expect(log == ["display failed: ioctl(I2C_SMBUS send byte) on /dev/i2c-1 at 0x27: Remote I/O error; retrying every 1000 ms, playback goes on"])

        bus.failure = nil
        bus.clear()
        frame.put(Array("0:02".utf8), row: 1)
        display.show(frame, now: 2_200_000_000) // back: re-initialised, whole frame drawn
        #expect(!display.isFailing)
        #expect(log.last == "display answers again after 2100 ms")
        var model = HD44780Model(pinMap: .common, columns: 16, rows: 2)
        model.receive(bus.bytes)
        #expect(model.screen == [frame.row(0), frame.row(1)])
    }
}
