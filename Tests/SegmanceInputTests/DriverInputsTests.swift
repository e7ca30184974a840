import Testing
import GPIOD
import LinuxInput
import SegmanceControls
import SegmanceCore
@testable import SegmanceInput
#if canImport(Glibc)
import Glibc
#endif

@Suite(.tags(.integration)) struct DriverInputsTests {
    static let ms: Int64 = 1_000_000

    static func controls() -> Controls {
        Controls(map: ControlMap(buttons: [17: .play, 27: .prev, 22: .next, 23: .loop, 24: .select],
                                 encoder: EncoderLines(a: 5, b: 6)))
    }

    static func key(_ code: UInt16, _ value: Int32, at ms: Int64) -> [InputEvent] {
        [InputEvent(seconds: ms / 1000, microseconds: (ms % 1000) * 1000, type: 1, code: code, value: value),
         InputEvent(seconds: ms / 1000, microseconds: (ms % 1000) * 1000, type: 0, code: 0, value: 0)]
    }

    static func rel(_ delta: Int32, at ms: Int64) -> [InputEvent] {
        [InputEvent(seconds: ms / 1000, microseconds: (ms % 1000) * 1000, type: 2, code: 0, value: delta),
         InputEvent(seconds: ms / 1000, microseconds: (ms % 1000) * 1000, type: 0, code: 0, value: 0)]
    }

    /// Each event comes with the instant it acted, the kernel timestamp of its edge: a
    /// tap's press edge (not its release), a detent's own time.
    @Test func eventsComeWithTheKernelTimestampOfTheirPress() {
        var inputs = DriverInputs(controls: Self.controls())
        let down = GPIOLineEvent(id: 23, offset: 23, rising: true, timestampNanoseconds: 1_000 * Self.ms)
        let up = GPIOLineEvent(id: 23, offset: 23, rising: false, timestampNanoseconds: 1_090 * Self.ms)
        #expect(inputs.gpio([down]).isEmpty)
        #expect(inputs.gpio([up]) == [TimedEvent(.buttonPressed(.loop), at: 1_000 * Self.ms)])
    }

    /// A press recognised only by the time passing (a long press, decided on the loop's
    /// deadline) and a pedal pulled mid-press carry their press's instant too: every path
    /// out of the drivers stamps its events, so none reaches the appliance without one.
    @Test func eventsDecidedLaterCarryTheInstantOfTheirPress() throws {
        var inputs = DriverInputs(controls: Self.controls())
        try inputs.addDevice("pedal", keyMap: KeyMap(keyNames: ["KEY_B": "play", "KEY_N": "next"]))
        #expect(inputs.evdev("pedal", Self.key(49, 1, at: 2_000)).isEmpty)
        #expect(inputs.advance(to: 3_000 * Self.ms) == [TimedEvent(.buttonLongPressed(.next), at: 2_000 * Self.ms)])
        #expect(inputs.evdev("pedal", Self.key(49, 0, at: 3_100)).isEmpty)
        #expect(inputs.evdev("pedal", Self.key(48, 1, at: 5_000)).isEmpty)
        #expect(inputs.removeDevice("pedal", at: 5_100 * Self.ms)
                == [TimedEvent(.buttonPressed(.play), at: 5_000 * Self.ms)])
    }

    /// A USB foot pedal and a presenter remote, read through a real file descriptor:
    /// the bytes of struct input_event → evdev decoding → controls → core events.
    @Test func evdevStreamsBecomeButtonEvents() throws {
        var stream: [InputEvent] = []
        stream += Self.key(48, 1, at: 1000) + Self.key(48, 0, at: 1080)   // KEY_B tapped: play
        stream += Self.key(109, 1, at: 2000) + Self.key(109, 2, at: 2300) // KEY_PAGEDOWN held, autorepeat
        stream += Self.key(109, 0, at: 2900)                               // released after 0.9 s: long press
        let path = "/tmp/segmance-evdev-\(getpid())"
        let bytes = stream.flatMap { $0.encoded() }
        let f = fopen(path, "wb")!
        fwrite(bytes, 1, bytes.count, f)
        fclose(f)
        defer { unlink(path) }
        let device = try EvdevDevice(path: path)
        let read = try device.readEvents()
        #expect(read == stream)

        var inputs = DriverInputs(controls: Self.controls())
        try inputs.addDevice(path, keyMap: KeyMap(keyNames: ["KEY_B": "play", "KEY_PAGEDOWN": "next"]))
        var events = inputs.evdev(path, read)
        events += inputs.advance(to: 3000 * Self.ms)
        #expect(events.map(\.event) == [.buttonPressed(.play), .buttonLongPressed(.next)])
        #expect(events.map(\.timestamp) == [1000 * Self.ms, 2000 * Self.ms])
    }

    @Test func theKernelsRotaryEncoderAxisIsAccelerated() throws {
        var inputs = DriverInputs(controls: Self.controls())
        try inputs.addDevice("rotary", keyMap: KeyMap(keyNames: [:], axisNames: ["REL_X": "encoder"]))
        let slow = inputs.evdev("rotary", Self.rel(1, at: 1000) + Self.rel(1, at: 1500))
        #expect(slow == [TimedEvent(.encoderTurned(1), at: 1000 * Self.ms),
                         TimedEvent(.encoderTurned(1), at: 1500 * Self.ms)])
        let fast = inputs.evdev("rotary", Self.rel(1, at: 1510))
        #expect(fast.map(\.event) == [.encoderTurned(4)]) // 10 ms after the last detent: ×4
    }

    @Test func anUnpluggedPedalReleasesWhatItHeld() throws {
        var inputs = DriverInputs(controls: Self.controls())
        try inputs.addDevice("pedal", keyMap: KeyMap(keyNames: ["KEY_B": "play"]))
        #expect(inputs.evdev("pedal", Self.key(48, 1, at: 1000)).isEmpty)
        // Yanked 100 ms into the press: released then, so the press counts and nothing stays down.
        #expect(inputs.removeDevice("pedal", at: 1100 * Self.ms).map(\.event) == [.buttonPressed(.play)])
        #expect(inputs.evdev("pedal", Self.key(48, 1, at: 2000)).isEmpty) // forgotten
        #expect(inputs.advance(to: 5000 * Self.ms).isEmpty)
    }

    @Test func aKeyMapNamingAnUnknownControlIsRefused() throws {
        var inputs = DriverInputs(controls: Self.controls())
        #expect(throws: DriverInputError(device: "pedal", control: "rewind")) {
            try inputs.addDevice("pedal", keyMap: KeyMap(keyNames: ["KEY_B": "rewind"]))
        }
        #expect(DriverInputError(device: "pedal", control: "rewind").description
                == "pedal: no control named 'rewind' (controls: play, prev, next, loop, select, encoder)")
    }

    @Test func gpioEdgesWithBounceBecomeOnePress() {
        var inputs = DriverInputs(controls: Self.controls())
        let t: Int64 = 1_000 * Self.ms
        let bouncy: [(Bool, Int64)] = [(true, 0), (false, 300_000), (true, 700_000), (false, 60 * Self.ms),
                                        (true, 60 * Self.ms + 400_000), (false, 61 * Self.ms)]
        let events = bouncy.map { GPIOLineEvent(id: 17, offset: 17, rising: $0.0, timestampNanoseconds: t + $0.1) }
        #expect(inputs.gpio(events) == [TimedEvent(.buttonPressed(.play), at: t)])
    }
}
