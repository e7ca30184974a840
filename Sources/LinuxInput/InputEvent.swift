/// One `struct input_event` read from an evdev node.
public struct InputEvent: Equatable, Sendable {
    /// The byte layout of `struct input_event`, which follows the kernel's `long`:
    /// `{ long sec; long usec; u16 type; u16 code; s32 value }`.
    public enum Layout: String, CaseIterable, Sendable {
        /// 64-bit userspace (x86_64, arm64): 24 bytes.
        case lp64
        /// 32-bit userspace (armhf): 16 bytes.
        case ilp32

        /// The record size in bytes.
        public var size: Int { self == .lp64 ? 24 : 16 }

        /// The layout of this platform. It follows the word size rather than `timeval`:
        /// with 64-bit `time_t` on 32-bit ARM the kernel still writes 32-bit seconds.
        public static var native: Layout { MemoryLayout<Int>.size == 8 ? .lp64 : .ilp32 }
    }

    public var seconds: Int64
    public var microseconds: Int64
    /// `EV_SYN`, `EV_KEY`, `EV_REL`, …
    public var type: UInt16
    /// The key or axis code (`KEY_SPACE`, `REL_X`, …).
    public var code: UInt16
    /// For keys 1 press, 0 release, 2 autorepeat; for relative axes the movement.
    public var value: Int32

    public init(seconds: Int64, microseconds: Int64, type: UInt16, code: UInt16, value: Int32) {
        self.seconds = seconds
        self.microseconds = microseconds
        self.type = type
        self.code = code
        self.value = value
    }

    /// The event's timestamp in nanoseconds, on the device's clock
    /// (CLOCK_MONOTONIC once `EvdevDevice` has switched it).
    public var timestampNanoseconds: Int64 { seconds * 1_000_000_000 + microseconds * 1_000 }

    /// Event types (`EV_*`).
    public static let synchronization: UInt16 = 0x00
    public static let key: UInt16 = 0x01
    public static let relative: UInt16 = 0x02
    public static let absolute: UInt16 = 0x03
    public static let miscellaneous: UInt16 = 0x04

    /// `SYN_REPORT`: the events since the last report form one state change.
    public static let synReport: UInt16 = 0
    /// `SYN_DROPPED`: the kernel's buffer overflowed; events were lost.
    public static let synDropped: UInt16 = 3
}

/// What an event means for the appliance.
public enum InputAction: Equatable, Sendable {
    case keyDown(code: UInt16)
    case keyUp(code: UInt16)
    /// Autorepeat of a held key: the controls layer times long presses itself.
    case keyRepeat(code: UInt16)
    /// Movement on a relative axis (REL_X from the rotary-encoder driver, REL_DIAL, REL_WHEEL).
    case relative(axis: UInt16, delta: Int32)
    case syncReport
    case syncDropped
    /// Anything else (EV_MSC scan codes, EV_ABS, LEDs).
    case other
}

extension InputEvent {
    /// What the event means.
    public var action: InputAction {
        switch type {
        case Self.key:
            switch value {
            case 0: .keyUp(code: code)
            case 1: .keyDown(code: code)
            default: .keyRepeat(code: code)
            }
        case Self.relative:
            .relative(axis: code, delta: value)
        case Self.synchronization:
            switch code {
            case Self.synReport: .syncReport
            case Self.synDropped: .syncDropped
            default: .other
            }
        default:
            .other
        }
    }

    /// Decodes every complete record at the start of `bytes`; a trailing partial record is
    /// left alone and its bytes are not counted in `consumed`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, layout: Layout = .native)
        -> (events: [InputEvent], consumed: Int)
    {
        let count = bytes.count / layout.size
        var events: [InputEvent] = []
        events.reserveCapacity(count)
        for index in 0..<count {
            let base = index * layout.size
            let seconds: Int64, microseconds: Int64, rest: Int
            switch layout {
            case .lp64:
                seconds = bytes.loadUnaligned(fromByteOffset: base, as: Int64.self)
                microseconds = bytes.loadUnaligned(fromByteOffset: base + 8, as: Int64.self)
                rest = base + 16
            case .ilp32:
                seconds = Int64(bytes.loadUnaligned(fromByteOffset: base, as: Int32.self))
                microseconds = Int64(bytes.loadUnaligned(fromByteOffset: base + 4, as: Int32.self))
                rest = base + 8
            }
            events.append(InputEvent(
                seconds: seconds, microseconds: microseconds,
                type: bytes.loadUnaligned(fromByteOffset: rest, as: UInt16.self),
                code: bytes.loadUnaligned(fromByteOffset: rest + 2, as: UInt16.self),
                value: bytes.loadUnaligned(fromByteOffset: rest + 4, as: Int32.self)))
        }
        return (events, count * layout.size)
    }

    /// Decodes every complete record in `bytes`.
    public static func decode(_ bytes: [UInt8], layout: Layout = .native) -> [InputEvent] {
        bytes.withUnsafeBytes { decode($0, layout: layout).events }
    }

    /// The record as the kernel would write it (uinput takes the same layout).
    public func encoded(layout: Layout = .native) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(layout.size)
        switch layout {
        case .lp64:
            withUnsafeBytes(of: seconds) { bytes += $0 }
            withUnsafeBytes(of: microseconds) { bytes += $0 }
        case .ilp32:
            withUnsafeBytes(of: Int32(truncatingIfNeeded: seconds)) { bytes += $0 }
            withUnsafeBytes(of: Int32(truncatingIfNeeded: microseconds)) { bytes += $0 }
        }
        withUnsafeBytes(of: type) { bytes += $0 }
        withUnsafeBytes(of: code) { bytes += $0 }
        withUnsafeBytes(of: value) { bytes += $0 }
        return bytes
    }
}
