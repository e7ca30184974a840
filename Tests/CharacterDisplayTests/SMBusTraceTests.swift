import Foundation
import Testing
import SegmanceScreen
@testable import CharacterDisplay

@Suite(.tags(.integration)) struct SMBusTraceTests {
    /// A trace recorded in the board in a box (Tests/System): HD44780Display initialising a
    /// 16×2 LCD behind a PCF8574 at 0x27 on i2c-stub (bus 0) and drawing one frame of an
    /// A–B loop playing.
    static let recorded: String = {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        return try! String(contentsOf: here.appendingPathComponent("Fixtures/smbus-trace-16x2.txt"), encoding: .utf8)
    }()

    @Test func theRecordedTraceDecodesToTheScreenItDrew() throws {
        let writes = try SMBusTrace.parse(Self.recorded)
        #expect(writes.count == 452)
        #expect(writes.allSatisfy { $0.adapter == 0 && $0.address == 0x27 && $0.kind == "BYTE" && $0.data.isEmpty })
        let bytes = SMBusTrace.sentBytes(writes, adapter: 0, address: 0x27)
        // The datasheet's init starts with three "8-bit mode" nibbles, E high then low.
        #expect(Array(bytes.prefix(6)) == [0x3C, 0x38, 0x3C, 0x38, 0x3C, 0x38])
        var model = HD44780Model(pinMap: .common, columns: 16, rows: 2)
        model.receive(bytes)
        #expect(model.fourBit && model.twoLines && model.displayOn && model.backlight)
        #expect(model.glyphs == Glyph.allCases.map(\.pattern))
        #expect(model.screen == [
            [Glyph.play.rawValue] + Array(" 1/2 Groove  ".utf8) + [Glyph.markA.rawValue, Glyph.markB.rawValue],
            Array("0:09/0:32       ".utf8),
        ], "\(model.screen.map { String(decoding: $0, as: UTF8.self) })")
    }

    @Test func otherTransactionsAdaptersAndAddressesAreNotSentBytes() throws {
        let trace = """
                  i2cset-126     [001] .....     4.339140: smbus_write: i2c-0 a=027 f=0000 c=c BYTE l=0 []
                  i2cset-129     [001] .....     4.448255: smbus_write: i2c-0 a=027 f=0000 c=10 BYTE_DATA l=1 [55]
                  i2cset-130     [001] .....     4.484696: smbus_write: i2c-0 a=027 f=0000 c=11 WORD_DATA l=2 [34-12]
                  i2cset-131     [001] .....     4.516904: smbus_write: i2c-0 a=026 f=0000 c=1 BYTE l=0 []
                  i2cset-132     [000] .....     4.516999: smbus_write: i2c-1 a=027 f=0000 c=2 BYTE l=0 []
                  i2cset-133     [000] .....     4.517000: smbus_read: i2c-0 a=027 f=0000 c=3 BYTE
                  i2cset-134     [000] .....     4.517100: smbus_write: i2c-0 a=027 f=0000 c=fd BYTE l=0 []
            """
        let writes = try SMBusTrace.parse(trace)
        #expect(writes.count == 6)
        #expect(writes[1] == SMBusWrite(adapter: 0, address: 0x27, command: 0x10, kind: "BYTE_DATA", data: [0x55]))
        #expect(writes[2].data == [0x34, 0x12])
        #expect(SMBusTrace.sentBytes(writes, adapter: 0, address: 0x27) == [0x0C, 0xFD])
    }

    @Test func aTraceThatLostEventsIsRefused() {
        let trace = """
                  i2cset-126     [001] .....     4.339140: smbus_write: i2c-0 a=027 f=0000 c=c BYTE l=0 []
            CPU:1 [LOST 312 EVENTS]
                  i2cset-127     [001] .....     4.375805: smbus_write: i2c-0 a=027 f=0000 c=8 BYTE l=0 []
            """
        #expect(throws: SMBusTraceError(line: 2, reason: "the trace lost events: CPU:1 [LOST 312 EVENTS]")) {
            try SMBusTrace.parse(trace)
        }
    }

    @Test(arguments: [
        ("smbus_write: i2c-0 a=027 f=0000 c=8 BYTE", "expected 6 fields"),
        ("smbus_write: i2c-x a=027 f=0000 c=8 BYTE l=0 []", "expected i2c-<number>, found \"i2c-x\""),
        ("smbus_write: i2c-0 a=027 f=0000 c=1ff BYTE l=0 []", "command c=1ff is more than a byte"),
        ("smbus_write: i2c-0 a=027 f=0000 c=10 BYTE_DATA l=2 [55]", "l=2 but 1 data bytes"),
        ("smbus_write: i2c-0 a=027 f=0000 c=10 BYTE_DATA l=1 [5g]", "data byte \"5g\" is not hexadecimal"),
    ])
    func aMalformedEventNamesItsLineAndTheProblem(line: String, problem: String) throws {
        let text = "# tracer: nop\n  x-1 [000] ..... 1.0: " + line
        let parsed = Result { () throws(SMBusTraceError) in try SMBusTrace.parse(text) }
        guard case .failure(let error) = parsed else {
            Issue.record("parsed without an error: \(parsed)")
            return
        }
        #expect(error.line == 2)
        #expect(error.reason.hasPrefix(problem), "\(error)")
    }
}
