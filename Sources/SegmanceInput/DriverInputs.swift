import GPIOD
import LinuxInput
import SegmanceControls
import SegmanceCore

/// Feeds what the drivers read into the one `Controls` the appliance has: GPIO edges with
/// their kernel timestamps (debounced and decoded there), and evdev streams from gpio-keys,
/// USB foot pedals, presenter remotes and the kernel's rotary-encoder (already debounced
/// and decoded by the kernel, so they enter as keys and relative moves).
///
/// Each event comes stamped with the instant it acted (`Controls.instant(of:)`: when the
/// button went down, the detent), the kernel timestamp of its edge or key event, where the
/// appliance looks up the frame heard.
public struct DriverInputs {
    public private(set) var controls: Controls
    private var decoders: [String: InputControlDecoder] = [:]

    /// The name an evdev key map uses for the encoder's axis.
    public static let encoderControl = "encoder"

    public init(controls: Controls) {
        self.controls = controls
    }

    /// GPIO edges from lines whose id is the `ControlMap` line number.
    public mutating func gpio(_ events: [GPIOLineEvent<Int>]) -> [TimedEvent] {
        var out: [TimedEvent] = []
        for e in events {
            out += take(controls.process(.edge(Edge(line: e.id, active: e.rising, timestamp: e.timestampNanoseconds))))
        }
        return out
    }

    /// The events the controls returned, each stamped with the instant it acted.
    private func take(_ timed: [TimedEvent]) -> [TimedEvent] {
        timed.map { TimedEvent($0.event, at: controls.instant(of: $0)) }
    }

    /// Registers an input device (by path) with its key map; control names must be
    /// buttons (`play`, `prev`, `next`, `loop`, `select`) or `encoder`.
    public mutating func addDevice(_ path: String, keyMap: KeyMap) throws(DriverInputError) {
        for name in Set(keyMap.keys.values).union(keyMap.axes.values)
        where Button(rawValue: name) == nil && name != Self.encoderControl {
            throw DriverInputError(device: path, control: name)
        }
        decoders[path] = InputControlDecoder(keyMap: keyMap)
    }

    /// Events read from the device at `path`.
    public mutating func evdev(_ path: String, _ events: [InputEvent]) -> [TimedEvent] {
        guard var decoder = decoders[path] else { return [] }
        let decoded = decoder.decode(events)
        decoders[path] = decoder
        return feed(decoded)
    }

    /// The device at `path` went away (a pedal unplugged): keys it held are released, so
    /// nothing stays pressed, and it is forgotten.
    public mutating func removeDevice(_ path: String, at time: Int64) -> [TimedEvent] {
        guard var decoder = decoders.removeValue(forKey: path) else { return [] }
        return feed(decoder.releaseAll(timestampNanoseconds: time))
    }

    /// Lets pending gestures (long press, double-press window) resolve at `now`.
    public mutating func advance(to now: Int64) -> [TimedEvent] {
        take(controls.process(.time(now)))
    }

    private mutating func feed(_ decoded: [InputControlEvent]) -> [TimedEvent] {
        var out: [TimedEvent] = []
        for event in decoded {
            switch event {
            case .pressed(let name, let t):
                guard let b = Button(rawValue: name) else { continue }
                out += take(controls.process(.key(b, pressed: true, timestamp: t)))
            case .released(let name, let t):
                guard let b = Button(rawValue: name) else { continue }
                out += take(controls.process(.key(b, pressed: false, timestamp: t)))
            case .turned(_, let delta, let t):
                out += take(controls.process(.relative(delta, timestamp: t)))
            }
        }
        return out
    }
}

/// A key map naming a control the appliance does not have.
public struct DriverInputError: Error, Equatable, CustomStringConvertible {
    public var device: String
    public var control: String
    public var description: String {
        let controls = Button.allCases.map(\.rawValue) + [DriverInputs.encoderControl]
        return "\(device): no control named '\(control)' (controls: \(controls.joined(separator: ", ")))"
    }
}
