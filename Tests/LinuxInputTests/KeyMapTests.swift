import Glibc
import Testing
@testable import LinuxInput

@Suite("Key names and key maps", .tags(.integration))
struct KeyMapTests {
    @Test(arguments: [
        ("KEY_SPACE", UInt16(57)), ("KEY_PAGEDOWN", 109), ("KEY_PAGEUP", 104), ("KEY_B", 48),
        ("KEY_ENTER", 28), ("pagedown", 109), ("b", 48), ("BTN_LEFT", 0x110), ("KEY_1", 2),
        ("57", 57), ("0x30", 48), ("KEY_PLAYPAUSE", 164),
    ])
    func keyCodes(name: String, code: UInt16) {
        #expect(InputCodes.keyCode(named: name) == code)
    }

    @Test(arguments: [("REL_X", UInt16(0)), ("dial", 7), ("REL_WHEEL", 8), ("6", 6)])
    func axisCodes(name: String, code: UInt16) {
        #expect(InputCodes.axisCode(named: name) == code)
    }

    @Test(arguments: ["KEY_NOPE", "", "0xZZ", "REL_X", "70000"])
    func unknownKeyNames(name: String) {
        #expect(InputCodes.keyCode(named: name) == nil)
    }

    /// Every name in the table carries the value of the kernel header on this machine.
    @Test(.enabled(if: access("/usr/include/linux/input-event-codes.h", R_OK) == 0))
    func tablesAgreeWithTheKernelHeader() throws {
        let header = try #require(readFile("/usr/include/linux/input-event-codes.h"))
        var defines: [String: UInt16] = [:]
        for line in header.split(separator: "\n") {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard words.count >= 3, words[0] == "#define" else { continue }
            let text = String(words[2])
            let value = text.hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : UInt16(text)
            if let value { defines[String(words[1])] = value }
        }
        for (name, code) in InputCodes.keys + InputCodes.relativeAxes {
            #expect(defines[name] == code, "\(name)")
        }
        #expect(InputCodes.keys.count > 100)
    }

    let map = try! KeyMap(keyNames: ["KEY_PAGEDOWN": "next", "KEY_PAGEUP": "prev", "KEY_B": "play"],
                          axisNames: ["REL_X": "encoder"])

    @Test(arguments: [
        (InputEvent(seconds: 2, microseconds: 5, type: 1, code: 109, value: 1),
         InputControlEvent?.some(.pressed(control: "next", timestampNanoseconds: 2_000_005_000))),
        (InputEvent(seconds: 2, microseconds: 5, type: 1, code: 104, value: 0),
         .released(control: "prev", timestampNanoseconds: 2_000_005_000)),
        (InputEvent(seconds: 2, microseconds: 5, type: 1, code: 48, value: 2), nil), // autorepeat
        (InputEvent(seconds: 2, microseconds: 5, type: 1, code: 57, value: 1), nil), // unbound key
        (InputEvent(seconds: 0, microseconds: 7, type: 2, code: 0, value: -3),
         .turned(control: "encoder", delta: -3, timestampNanoseconds: 7_000)),
        (InputEvent(seconds: 0, microseconds: 7, type: 2, code: 8, value: 1), nil), // unbound axis
        (InputEvent(seconds: 0, microseconds: 7, type: 0, code: 0, value: 0), nil),
    ])
    func controlForEvent(event: InputEvent, expected: InputControlEvent?) {
        #expect(map.control(for: event) == expected)
    }

    @Test func anUnknownNameInAConfigurationIsAnError() throws {
        var caught: InputError?
        do { _ = try KeyMap(keyNames: ["KEY_PAGEDWON": "next"]) } catch let thrown as InputError { caught = thrown }
        let error = try #require(caught)
        #expect(error == .unknownCode("KEY_PAGEDWON"))
        #expect(error.description.contains("\"KEY_PAGEDWON\""))
        #expect(throws: InputError.unknownCode("REL_SPIN")) { try KeyMap(keyNames: [:], axisNames: ["REL_SPIN": "x"]) }
    }

    private func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes += chunk.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

@Suite("Control decoding across lost events and unplugging", .tags(.integration))
struct InputControlDecoderTests {
    static let space: UInt16 = 57, pageDown: UInt16 = 109
    let map = KeyMap(keys: [space: "play", pageDown: "next"])

    func key(_ code: UInt16, _ value: Int32, at microseconds: Int64) -> InputEvent {
        InputEvent(seconds: 0, microseconds: microseconds, type: InputEvent.key, code: code, value: value)
    }

    func sync(_ code: UInt16, at microseconds: Int64) -> InputEvent {
        InputEvent(seconds: 0, microseconds: microseconds, type: InputEvent.synchronization, code: code, value: 0)
    }

    @Test func pressRepeatRelease() {
        var decoder = InputControlDecoder(keyMap: map)
        let controls = decoder.decode([
            key(Self.space, 1, at: 1), sync(0, at: 1),
            key(Self.space, 2, at: 2), sync(0, at: 2),
            key(Self.space, 0, at: 3), sync(0, at: 3),
        ])
        #expect(controls == [
            .pressed(control: "play", timestampNanoseconds: 1_000),
            .released(control: "play", timestampNanoseconds: 3_000),
        ])
        #expect(decoder.held.isEmpty)
    }

    @Test func eventsBetweenADropAndTheNextReportAreDiscardedThenResynchronised() {
        var decoder = InputControlDecoder(keyMap: map)
        #expect(decoder.decode([key(Self.space, 1, at: 1), sync(0, at: 1)]).count == 1)
        let during = decoder.decode([
            sync(InputEvent.synDropped, at: 2),
            key(Self.space, 0, at: 3), key(Self.pageDown, 1, at: 3), // half a report: unreliable
            sync(0, at: 4),
        ])
        #expect(during.isEmpty)
        #expect(decoder.needsResync)
        // The device says: play was let go, next is held.
        let resynced = decoder.resync(pressed: [Self.pageDown, 30], timestampNanoseconds: 5_000)
        #expect(resynced == [
            .released(control: "play", timestampNanoseconds: 5_000),
            .pressed(control: "next", timestampNanoseconds: 5_000),
        ])
        #expect(decoder.held == [Self.pageDown])
        #expect(!decoder.needsResync)
        #expect(decoder.decode([key(Self.pageDown, 0, at: 6)])
            == [.released(control: "next", timestampNanoseconds: 6_000)])
    }

    @Test func unpluggingReleasesHeldControls() {
        var decoder = InputControlDecoder(keyMap: map)
        _ = decoder.decode([key(Self.space, 1, at: 1), key(Self.pageDown, 1, at: 1)])
        #expect(decoder.releaseAll(timestampNanoseconds: 9) == [
            .released(control: "play", timestampNanoseconds: 9),
            .released(control: "next", timestampNanoseconds: 9),
        ])
        #expect(decoder.releaseAll(timestampNanoseconds: 10).isEmpty)
    }

    @Test func aReleaseWithoutAPressIsIgnored() {
        var decoder = InputControlDecoder(keyMap: map)
        #expect(decoder.decode([key(Self.space, 0, at: 1)]).isEmpty)
    }
}
