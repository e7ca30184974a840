/// A control event from a key or knob, named by the configuration's logical control name.
public enum InputControlEvent: Equatable, Sendable {
    case pressed(control: String, timestampNanoseconds: Int64)
    case released(control: String, timestampNanoseconds: Int64)
    /// Movement on a relative axis bound to a control (the encoder): positive is clockwise.
    case turned(control: String, delta: Int, timestampNanoseconds: Int64)
}

/// Which evdev keys and axes stand for which logical controls: a presenter remote's
/// KEY_PAGEDOWN for "next", a foot pedal's KEY_B for "play", a rotary encoder's REL_X for
/// "encoder". The controls layer maps the names to buttons.
public struct KeyMap: Equatable, Sendable {
    /// Key code → control name.
    public var keys: [UInt16: String]
    /// Relative axis code → control name.
    public var axes: [UInt16: String]

    public init(keys: [UInt16: String] = [:], axes: [UInt16: String] = [:]) {
        self.keys = keys
        self.axes = axes
    }

    /// Reads a configuration: `["KEY_PAGEDOWN": "next", "space": "play", "57": "play"]` and
    /// `["REL_X": "encoder"]`. Throws `InputError.unknownCode` naming an unknown key.
    public init(keyNames: [String: String], axisNames: [String: String] = [:]) throws {
        var keys: [UInt16: String] = [:]
        for (name, control) in keyNames {
            guard let code = InputCodes.keyCode(named: name) else { throw InputError.unknownCode(name) }
            keys[code] = control
        }
        var axes: [UInt16: String] = [:]
        for (name, control) in axisNames {
            guard let code = InputCodes.axisCode(named: name) else { throw InputError.unknownCode(name) }
            axes[code] = control
        }
        self.init(keys: keys, axes: axes)
    }

    /// The control a raw event stands for, if it is bound. Autorepeat is ignored: the
    /// controls layer times long presses from press and release.
    public func control(for event: InputEvent) -> InputControlEvent? {
        let time = event.timestampNanoseconds
        switch event.action {
        case .keyDown(let code):
            return keys[code].map { .pressed(control: $0, timestampNanoseconds: time) }
        case .keyUp(let code):
            return keys[code].map { .released(control: $0, timestampNanoseconds: time) }
        case .relative(let axis, let delta):
            return axes[axis].map { .turned(control: $0, delta: Int(delta), timestampNanoseconds: time) }
        case .keyRepeat, .syncReport, .syncDropped, .other:
            return nil
        }
    }
}
