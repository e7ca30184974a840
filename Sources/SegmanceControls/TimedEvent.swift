import SegmanceCore

/// A core event with the monotonic time (ns) at which the controls recognised it.
public struct TimedEvent: Equatable, Sendable {
    public var timestamp: Int64
    public var event: Event

    public init(_ event: Event, at timestamp: Int64) {
        self.event = event
        self.timestamp = timestamp
    }
}

/// Anything the controls can be told. Every input carries a monotonic timestamp (ns).
public enum ControlInput: Equatable, Sendable {
    /// A raw GPIO edge; debounced (buttons) or decoded (encoder lines) here.
    case edge(Edge)
    /// An already-debounced key (evdev EV_KEY from gpio-keys, a USB pedal).
    case key(Button, pressed: Bool, timestamp: Int64)
    /// Already-decoded encoder detents (evdev EV_REL from the kernel's rotary-encoder driver).
    case relative(Int, timestamp: Int64)
    /// Only the passing of time.
    case time(Int64)

    /// The input's monotonic timestamp in nanoseconds.
    public var timestamp: Int64 {
        switch self {
        case .edge(let edge): edge.timestamp
        case .key(_, _, let t), .relative(_, let t), .time(let t): t
        }
    }
}
