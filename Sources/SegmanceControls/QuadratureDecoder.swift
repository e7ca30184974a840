/// A table-driven quadrature decoder for a mechanical rotary encoder, modelled on the
/// Linux kernel's drivers/input/misc/rotary_encoder.c, detent-aware.
///
/// A state is `A<<1 | B`. Clockwise (+) is "A leads B": 00 → 10 → 11 → 01 → 00.
/// Each transition adds −1, 0 or +1 to an accumulator (`transitions`); a transition
/// that changes both lines at once cannot be told apart and adds 0. A detent is reported
/// only on arrival at a rest state with `|accumulated| >= max(1, steps / 2)`, then the
/// accumulator is cleared. Contact bounce walks back and forth across one transition and
/// nets out to zero, and one lost transition inside a 4-step detent still yields it.
public struct QuadratureDecoder: Equatable, Sendable {
    /// Direction of each transition, indexed by `previous << 2 | current`.
    public static let transitions: [Int8] = [
        //  to 00  01  10  11
        /* 00 */ 0, -1, +1, 0,
        /* 01 */ +1, 0, 0, -1,
        /* 10 */ -1, 0, 0, +1,
        /* 11 */ 0, +1, -1, 0,
    ]

    /// The direction of the transition `previous` → `current` (states `A<<1 | B`).
    public static func direction(from previous: UInt8, to current: UInt8) -> Int {
        Int(transitions[Int((previous & 3) << 2 | (current & 3))])
    }

    /// The state of two line levels.
    public static func state(a: Bool, b: Bool) -> UInt8 {
        (a ? 0b10 : 0) | (b ? 0b01 : 0)
    }

    public let stepsPerDetent: StepsPerDetent
    public let rest: RestState
    /// The current state `A<<1 | B`.
    public private(set) var state: UInt8
    /// Net transitions since the last rest state.
    public private(set) var accumulated = 0

    /// Starts at `initial`, or at the rest state when not given.
    public init(stepsPerDetent: StepsPerDetent, rest: RestState = .low, initial: UInt8? = nil) {
        self.stepsPerDetent = stepsPerDetent
        self.rest = rest
        self.state = (initial ?? (stepsPerDetent == .four ? rest.state : 0)) & 3
    }

    /// Whether the encoder sits at a detent in `state`.
    public func isRest(_ state: UInt8) -> Bool {
        switch stepsPerDetent {
        case .one: true
        case .two: state == 0b00 || state == 0b11
        case .four: state == rest.state
        }
    }

    /// Moves to the state of the given levels; returns the detent it completes: −1, 0 or +1.
    public mutating func update(a: Bool, b: Bool) -> Int {
        update(to: Self.state(a: a, b: b))
    }

    /// Moves to `next` (`A<<1 | B`); returns the detent it completes: −1, 0 or +1.
    public mutating func update(to next: UInt8) -> Int {
        let next = next & 3
        guard next != state else { return 0 }
        accumulated += Self.direction(from: state, to: next)
        state = next
        guard isRest(next) else { return 0 }
        defer { accumulated = 0 }
        return abs(accumulated) >= max(1, stepsPerDetent.rawValue / 2) ? accumulated.signum() : 0
    }
}
