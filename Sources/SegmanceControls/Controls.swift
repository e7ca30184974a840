import SegmanceCore

/// The input layer: raw GPIO edges, evdev keys and relative counts in, core events out.
///
/// Pure: no I/O and no clock. Time comes only from the inputs' timestamps and from
/// `advance(to:)`; a driver sleeps until `nextDeadline` (or the next edge), then calls
/// `advance(to:)`. Events come out in timestamp order. Inputs whose timestamp is earlier
/// than one already seen are treated as happening at the latest time seen.
///
/// Button lines are debounced (`Debouncer`) and recognised (`ButtonGesture`). Encoder lines
/// are not debounced: the quadrature table itself cancels contact bounce, and a debounce
/// interval would swallow fast turns. A press whose contact opens again within the debounce
/// interval is a glitch and reports nothing. A line that the map names both as an encoder
/// line and as a button is an encoder line (`ControlMap.problems` reports it).
public struct Controls: Sendable {
    public let map: ControlMap
    /// Button lines, sorted by line so that ties resolve the same way every run.
    private var lines: [(line: Int, button: Button, debouncer: Debouncer)]
    /// One recognizer per button, in `Button.allCases` order.
    private var gestures: [ButtonGesture]
    private var decoder: QuadratureDecoder?
    private var encoderA = false
    private var encoderB = false
    private var accelerator: Accelerator
    /// The latest time seen.
    public private(set) var now: Int64 = .min
    /// When each button last went down (debounced: the accepted edge's own timestamp), in
    /// `Button.allCases` order; `.min` before its first press.
    private var pressedAt: [Int64] = Array(repeating: .min, count: Button.allCases.count)

    /// - Parameter levels: the lines' logical levels at start, if the driver read them;
    ///   a button already held at start reports nothing until it is released and pressed again.
    public init(map: ControlMap, levels: [Int: Bool] = [:]) {
        self.map = map
        let encoderLines = map.encoder.map { [$0.a, $0.b] } ?? []
        lines = map.buttons
            .filter { !encoderLines.contains($0.key) }
            .sorted { $0.key < $1.key }
            .map { (line: $0.key, button: $0.value,
                    debouncer: Debouncer(interval: map.timing.debounce, level: levels[$0.key] ?? false)) }
        gestures = Button.allCases.map {
            ButtonGesture(button: $0, longPress: map.timing.longPress,
                          doublePressWindow: map.doublePress.contains($0) ? map.timing.doublePressWindow : nil,
                          chordable: map.chords.contains($0))
        }
        if let encoder = map.encoder {
            var initial: UInt8?
            if let a = levels[encoder.a], let b = levels[encoder.b] {
                initial = QuadratureDecoder.state(a: a, b: b)
            }
            let decoder = QuadratureDecoder(stepsPerDetent: encoder.stepsPerDetent, rest: encoder.rest,
                                            initial: initial)
            self.decoder = decoder
            let state = decoder.state
            encoderA = state & 0b10 != 0
            encoderB = state & 0b01 != 0
        }
        accelerator = Accelerator(table: map.acceleration)
    }

    // MARK: Entry points

    /// A raw GPIO edge. Edges on unmapped lines only move time forward.
    public mutating func handle(_ edge: Edge) -> [Event] {
        process(.edge(edge)).map(\.event)
    }

    /// Reports what is due by `now` (long presses, closed double-press windows, settled lines).
    public mutating func advance(to now: Int64) -> [Event] {
        process(.time(now)).map(\.event)
    }

    /// An already-debounced key change (evdev EV_KEY); no debouncing here.
    public mutating func keyChanged(_ button: Button, pressed: Bool, timestamp: Int64) -> [Event] {
        process(.key(button, pressed: pressed, timestamp: timestamp)).map(\.event)
    }

    /// Already-decoded encoder detents (evdev EV_REL); accelerated like decoded ones.
    public mutating func encoderMoved(by detents: Int, timestamp: Int64) -> [Event] {
        process(.relative(detents, timestamp: timestamp)).map(\.event)
    }

    /// The earliest time at which `advance(to:)` could report something; nil when nothing
    /// is pending.
    public var nextDeadline: Int64? {
        let all = gestures.compactMap(\.deadline) + lines.compactMap(\.debouncer.deadline)
        return all.min()
    }

    /// The instant a control event acted: for a button's press, long press or double
    /// press, when the button (last) went down — the moment the performer pressed, which
    /// may be long before the release that recognised it; for the encoder, its detent.
    /// Call it for the events just returned, before the next input.
    public func instant(of event: TimedEvent) -> Int64 {
        switch event.event {
        case .buttonPressed(let b), .buttonLongPressed(let b), .buttonDoublePressed(let b):
            let down = pressedAt[index(of: b)]
            return down == .min || down > event.timestamp ? event.timestamp : down
        default:
            return event.timestamp
        }
    }

    /// Whether `button` is down (debounced).
    public func isPressed(_ button: Button) -> Bool {
        gestures[index(of: button)].isPressed
    }

    /// Any input; returns the events it causes with the time each was recognised.
    public mutating func process(_ input: ControlInput) -> [TimedEvent] {
        let time = max(input.timestamp, now)
        var events = runDeadlines(through: time)
        now = time
        switch input {
        case .edge(let edge):
            events += lineChanged(edge.line, active: edge.active, at: time)
        case .key(let button, let pressed, _):
            let i = index(of: button)
            if pressed && !gestures[i].isPressed { pressedAt[i] = time }
            events += pressed ? gestures[i].press(at: time) : gestures[i].release(at: time)
        case .relative(let detents, _):
            events += turned(detents, at: time)
        case .time:
            break
        }
        return events
    }

    // MARK: Internals

    private func index(of button: Button) -> Int {
        Button.allCases.firstIndex(of: button)!
    }

    /// Fires every deadline up to `time`, earliest first; on a tie, gestures (in button
    /// order) before settling lines (in line order), as an edge at a deadline comes after it.
    private mutating func runDeadlines(through time: Int64) -> [TimedEvent] {
        var events: [TimedEvent] = []
        while true {
            var earliest: (time: Int64, gesture: Int?, line: Int?)?
            for (i, gesture) in gestures.enumerated() {
                if let due = gesture.deadline, due <= time, due < earliest?.time ?? .max {
                    earliest = (due, i, nil)
                }
            }
            for (i, entry) in lines.enumerated() {
                if let due = entry.debouncer.deadline, due <= time, due < earliest?.time ?? .max {
                    earliest = (due, nil, i)
                }
            }
            guard let earliest else { return events }
            if let g = earliest.gesture {
                events += gestures[g].advance(to: earliest.time)
            } else if let l = earliest.line, let change = lines[l].debouncer.advance(to: earliest.time) {
                events += apply(change, to: lines[l].button)
            }
        }
    }

    private mutating func lineChanged(_ line: Int, active: Bool, at time: Int64) -> [TimedEvent] {
        if let encoder = map.encoder, line == encoder.a || line == encoder.b, var decoder {
            if line == encoder.a { encoderA = active } else { encoderB = active }
            let detent = decoder.update(a: encoderA, b: encoderB)
            self.decoder = decoder
            return turned(detent, at: time)
        }
        guard let l = lines.firstIndex(where: { $0.line == line }) else { return [] }
        var events: [TimedEvent] = []
        for change in lines[l].debouncer.edge(active, at: time) {
            events += apply(change, to: lines[l].button)
        }
        return events
    }

    private mutating func apply(_ change: Debouncer.Change, to button: Button) -> [TimedEvent] {
        let i = index(of: button)
        if change.level {
            if !gestures[i].isPressed { pressedAt[i] = change.timestamp }
            return gestures[i].press(at: change.timestamp)
        }
        // A release that settled at the end of the press's own debounce interval means
        // the contact was closed for less than that interval: a spike, not a press.
        return change.settled ? gestures[i].discardPress(at: change.timestamp)
                              : gestures[i].release(at: change.timestamp)
    }

    private mutating func turned(_ detents: Int, at time: Int64) -> [TimedEvent] {
        let steps = accelerator.turn(detents, at: time)
        guard steps != 0 else { return [] }
        // A chord: the first chord button held (in button order) takes the detents.
        for i in gestures.indices where gestures[i].chordable && gestures[i].chord() {
            return [TimedEvent(.encoderTurnedHolding(gestures[i].button, steps), at: time)]
        }
        return [TimedEvent(.encoderTurned(steps), at: time)]
    }
}
