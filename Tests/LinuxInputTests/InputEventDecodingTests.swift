import Testing
@testable import LinuxInput

@Suite("struct input_event decoding", .tags(.unit))
struct InputEventDecodingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var layout: InputEvent.Layout
        var bytes: [UInt8]
        var event: InputEvent
        var action: InputAction
        var testDescription: String { "\(layout) \(action)" }
    }

    static let cases: [Case] = [
        // KEY_SPACE pressed at 12.000345 s.
        Case(layout: .lp64,
             bytes: [12, 0, 0, 0, 0, 0, 0, 0, 0x59, 0x01, 0, 0, 0, 0, 0, 0, 1, 0, 57, 0, 1, 0, 0, 0],
             event: InputEvent(seconds: 12, microseconds: 345, type: 1, code: 57, value: 1),
             action: .keyDown(code: 57)),
        Case(layout: .ilp32,
             bytes: [12, 0, 0, 0, 0x59, 0x01, 0, 0, 1, 0, 57, 0, 1, 0, 0, 0],
             event: InputEvent(seconds: 12, microseconds: 345, type: 1, code: 57, value: 1),
             action: .keyDown(code: 57)),
        // KEY_PAGEDOWN released.
        Case(layout: .lp64,
             bytes: [0x10, 0x27, 0, 0, 0, 0, 0, 0, 0x3f, 0x42, 0x0f, 0, 0, 0, 0, 0, 1, 0, 109, 0, 0, 0, 0, 0],
             event: InputEvent(seconds: 10_000, microseconds: 999_999, type: 1, code: 109, value: 0),
             action: .keyUp(code: 109)),
        Case(layout: .ilp32,
             bytes: [0x10, 0x27, 0, 0, 0x3f, 0x42, 0x0f, 0, 1, 0, 109, 0, 0, 0, 0, 0],
             event: InputEvent(seconds: 10_000, microseconds: 999_999, type: 1, code: 109, value: 0),
             action: .keyUp(code: 109)),
        // KEY_PAGEUP autorepeat.
        Case(layout: .ilp32,
             bytes: [1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 104, 0, 2, 0, 0, 0],
             event: InputEvent(seconds: 1, microseconds: 2, type: 1, code: 104, value: 2),
             action: .keyRepeat(code: 104)),
        // rotary-encoder: REL_X -1 (one step counter-clockwise).
        Case(layout: .lp64,
             bytes: [3, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff],
             event: InputEvent(seconds: 3, microseconds: 4, type: 2, code: 0, value: -1),
             action: .relative(axis: 0, delta: -1)),
        Case(layout: .ilp32,
             bytes: [3, 0, 0, 0, 4, 0, 0, 0, 2, 0, 7, 0, 2, 0, 0, 0],
             event: InputEvent(seconds: 3, microseconds: 4, type: 2, code: 7, value: 2),
             action: .relative(axis: 7, delta: 2)),
        Case(layout: .lp64,
             bytes: [5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
             event: InputEvent(seconds: 5, microseconds: 6, type: 0, code: 0, value: 0),
             action: .syncReport),
        Case(layout: .ilp32,
             bytes: [5, 0, 0, 0, 6, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0],
             event: InputEvent(seconds: 5, microseconds: 6, type: 0, code: 3, value: 0),
             action: .syncDropped),
        // EV_MSC MSC_SCAN, sent by USB keyboards before each key.
        Case(layout: .lp64,
             bytes: [5, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 4, 0, 4, 0, 0x2c, 0, 7, 0],
             event: InputEvent(seconds: 5, microseconds: 6, type: 4, code: 4, value: 0x7002c),
             action: .other),
    ]

    @Test(arguments: cases)
    func decodes(_ example: Case) {
        #expect(example.bytes.count == example.layout.size)
        #expect(InputEvent.decode(example.bytes, layout: example.layout) == [example.event])
        #expect(example.event.action == example.action)
        #expect(example.event.encoded(layout: example.layout) == example.bytes)
    }

    @Test(arguments: InputEvent.Layout.allCases)
    func onlyWholeRecordsAreConsumed(layout: InputEvent.Layout) {
        let first = InputEvent(seconds: 1, microseconds: 10, type: 1, code: 48, value: 1)
        let second = InputEvent(seconds: 1, microseconds: 20, type: 0, code: 0, value: 0)
        let bytes = first.encoded(layout: layout) + second.encoded(layout: layout) + [1, 2, 3]
        let decoded = bytes.withUnsafeBytes { InputEvent.decode($0, layout: layout) }
        #expect(decoded.events == [first, second])
        #expect(decoded.consumed == 2 * layout.size)
    }

    @Test func timestampInNanoseconds() {
        let event = InputEvent(seconds: 7, microseconds: 123_456, type: 1, code: 1, value: 1)
        #expect(event.timestampNanoseconds == 7_123_456_000)
    }

    @Test func nativeLayoutMatchesThisPlatform() {
        // struct input_event is { struct timeval; u16; u16; s32 } on this (64-bit glibc) platform.
        #expect(InputEvent.Layout.native.size == MemoryLayout<timeval>.size + 8)
    }
}

import Glibc

@Suite("ioctl numbers", .tags(.unit))
struct IOControlTests {
    @Test(arguments: [
        (IOControl.evdevGetName(length: 256), UInt(0x8100_4506)), // the kernel's EVIOCGNAME(256)
        (IOControl.evdevGetKeyState(length: 96), UInt(0x8060_4518)), // EVIOCGKEY(96)
        (IOControl.evdevSetClock, UInt(0x4004_45a0)), // EVIOCSCLOCKID
        (IOControl.evdevGrab, UInt(0x4004_4590)), // EVIOCGRAB
        (IOControl.request(direction: IOControl.none, type: "E", number: 0x01, size: 0), UInt(0x4501)),
    ])
    func matchesTheKernel(computed: UInt, kernel: UInt) {
        #expect(computed == kernel)
    }
}
