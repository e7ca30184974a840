import SegmanceCore

/// Turns one button's debounced presses and releases into press, long-press and
/// double-press events.
///
/// - press: released before `longPress`; reported at the release — or, for a button with a
///   double-press window, when that window closes without a second press.
/// - long press: reported the moment the button has been held `longPress` (from
///   `advance(to:)`, or from the next input if that comes later); its release reports nothing.
/// - double press: a second press starting less than `doublePressWindow` after the first
///   release; reported at the second release. If the second press is held into a long
///   press instead, the first press and then the long press are reported.
/// - chord (a button that can be held while the encoder turns, `chordable`): its long
///   press is reported at the release, not while it is held, so that holding it to turn
///   the encoder does not act first; once `chord()` was called for a press (the encoder
///   turned), the press reports nothing at all.
public struct ButtonGesture: Equatable, Sendable {
    public enum Phase: Equatable, Sendable {
        case idle
        /// Down since `since`; `firstRelease` is set when this is the second press of a
        /// possible double press.
        case pressed(since: Int64, firstRelease: Int64?)
        /// Still down after its long press was reported.
        case held
        /// Released once; waiting for the double-press window to close.
        case awaitingSecond(releasedAt: Int64)
        /// Down, and used in a chord: its release reports nothing.
        case chorded
    }

    public let button: Button
    public let longPress: Int64
    /// nil: this button does not recognise double presses and never waits.
    public let doublePressWindow: Int64?
    /// Whether the button makes chords with the encoder (its long press comes at release).
    public let chordable: Bool
    public private(set) var phase: Phase = .idle

    public init(button: Button, longPress: Int64, doublePressWindow: Int64? = nil, chordable: Bool = false) {
        self.button = button
        self.longPress = longPress
        self.doublePressWindow = doublePressWindow
        self.chordable = chordable
    }

    /// Whether the button is down.
    public var isPressed: Bool {
        switch phase {
        case .pressed, .held, .chorded: true
        case .idle, .awaitingSecond: false
        }
    }

    /// When `advance(to:)` will report something, or nil.
    public var deadline: Int64? {
        switch phase {
        case .pressed(let since, _): chordable ? nil : since + longPress
        case .awaitingSecond(let releasedAt): doublePressWindow.map { releasedAt + $0 }
        case .idle, .held, .chorded: nil
        }
    }

    /// The encoder turned while this button is down: the press is part of a chord and
    /// reports nothing of its own. Returns false when the button is up.
    @discardableResult
    public mutating func chord() -> Bool {
        guard isPressed else { return false }
        phase = .chorded
        return true
    }

    /// Reports whatever is due by `now` (a long press, a single press whose window closed).
    public mutating func advance(to now: Int64) -> [TimedEvent] {
        guard let due = deadline, due <= now else { return [] }
        switch phase {
        case .pressed(_, let firstRelease):
            phase = .held
            let long = TimedEvent(.buttonLongPressed(button), at: due)
            return firstRelease == nil ? [long] : [TimedEvent(.buttonPressed(button), at: due), long]
        case .awaitingSecond:
            phase = .idle
            return [TimedEvent(.buttonPressed(button), at: due)]
        case .idle, .held, .chorded:
            return []
        }
    }

    /// The button went down at `timestamp`. A press while already down is ignored.
    public mutating func press(at timestamp: Int64) -> [TimedEvent] {
        let events = advance(to: timestamp)
        switch phase {
        case .idle: phase = .pressed(since: timestamp, firstRelease: nil)
        case .awaitingSecond(let releasedAt): phase = .pressed(since: timestamp, firstRelease: releasedAt)
        case .pressed, .held, .chorded: break
        }
        return events
    }

    /// The button came up at `timestamp`. A release while already up is ignored.
    public mutating func release(at timestamp: Int64) -> [TimedEvent] {
        var events = advance(to: timestamp)
        switch phase {
        case .pressed(let since, nil) where chordable && timestamp - since >= longPress:
            phase = .idle
            events.append(TimedEvent(.buttonLongPressed(button), at: timestamp))
        case .pressed(_, nil):
            if doublePressWindow != nil {
                phase = .awaitingSecond(releasedAt: timestamp)
            } else {
                phase = .idle
                events.append(TimedEvent(.buttonPressed(button), at: timestamp))
            }
        case .pressed(_, .some):
            phase = .idle
            events.append(TimedEvent(.buttonDoublePressed(button), at: timestamp))
        case .held, .chorded:
            phase = .idle
        case .idle, .awaitingSecond:
            break
        }
        return events
    }

    /// The current press was a glitch (the contact opened again within the debounce
    /// interval): forget it, as if it never happened, and come up at `timestamp`.
    public mutating func discardPress(at timestamp: Int64) -> [TimedEvent] {
        var events = advance(to: timestamp)
        switch phase {
        case .pressed(_, nil), .held, .chorded:
            phase = .idle
        case .pressed(_, .some(let firstRelease)):
            phase = .awaitingSecond(releasedAt: firstRelease)
            if let due = deadline, due <= timestamp {
                // The window closed while the glitch was being judged: report the first
                // press now rather than in the past, so events stay in time order.
                phase = .idle
                events.append(TimedEvent(.buttonPressed(button), at: timestamp))
            }
        case .idle, .awaitingSecond:
            break
        }
        return events
    }
}
