/// Turns one device's raw events into control events through a key map, keeping track of
/// which bound keys are held so that lost events (`SYN_DROPPED`) and an unplugged device
/// never leave a control pressed.
public struct InputControlDecoder: Equatable, Sendable {
    public var keyMap: KeyMap
    /// Bound keys held down, as far as the events said.
    public private(set) var held: Set<UInt16> = []
    /// True after `SYN_DROPPED` until the next `SYN_REPORT`; events in between are discarded.
    public private(set) var dropping = false
    /// True once a drop has ended: call `resync(pressed:timestampNanoseconds:)` with the
    /// device's key state (`EvdevDevice.pressedKeys()`).
    public private(set) var needsResync = false

    public init(keyMap: KeyMap) {
        self.keyMap = keyMap
    }

    /// The control events in `events`, in order.
    public mutating func decode(_ events: [InputEvent]) -> [InputControlEvent] {
        var controls: [InputControlEvent] = []
        for event in events {
            switch event.action {
            case .syncDropped:
                dropping = true
                continue
            case .syncReport where dropping:
                dropping = false
                needsResync = true
                continue
            default:
                if dropping { continue }
            }
            guard let control = keyMap.control(for: event) else { continue }
            switch event.action {
            case .keyDown(let code):
                if held.insert(code).inserted { controls.append(control) }
            case .keyUp(let code):
                if held.remove(code) != nil { controls.append(control) }
            default:
                controls.append(control)
            }
        }
        return controls
    }

    /// Brings the held keys in line with the device's state after a drop: releases for
    /// keys let go meanwhile, presses for keys pressed meanwhile.
    public mutating func resync(pressed: Set<UInt16>, timestampNanoseconds time: Int64) -> [InputControlEvent] {
        needsResync = false
        let bound = pressed.filter { keyMap.keys[$0] != nil }
        var controls: [InputControlEvent] = []
        for code in held.subtracting(bound).sorted() {
            if let control = keyMap.keys[code] {
                controls.append(.released(control: control, timestampNanoseconds: time))
            }
        }
        for code in bound.subtracting(held).sorted() {
            if let control = keyMap.keys[code] {
                controls.append(.pressed(control: control, timestampNanoseconds: time))
            }
        }
        held = bound
        return controls
    }

    /// Releases every held key: the device is gone.
    public mutating func releaseAll(timestampNanoseconds time: Int64) -> [InputControlEvent] {
        resync(pressed: [], timestampNanoseconds: time)
    }
}
