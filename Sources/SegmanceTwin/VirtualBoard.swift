import SegmanceControls
import SegmanceCore

/// The twin's wiring: which input line is which control, and how the scenario's actions
/// become the edges a real board would produce (with contact bounce where asked).
public struct VirtualBoard: Sendable {
    public var buttonLines: [Button: Int]
    public var encoderA: Int
    public var encoderB: Int
    /// How long a "tap" keeps the button down.
    public var tapNanoseconds: Int64 = 60_000_000
    /// Time between encoder transitions for a slow and a fast turn.
    public var slowDetentNanoseconds: Int64 = 150_000_000
    public var fastDetentNanoseconds: Int64 = 20_000_000

    public init() {
        var lines: [Button: Int] = [:]
        for (i, b) in Button.allCases.enumerated() { lines[b] = i }
        buttonLines = lines
        encoderA = Button.allCases.count
        encoderB = Button.allCases.count + 1
    }

    /// The control map the twin's `Controls` use for this board.
    public var controlMap: ControlMap {
        ControlMap(buttons: Dictionary(uniqueKeysWithValues: buttonLines.map { ($0.value, $0.key) }),
                   encoder: EncoderLines(a: encoderA, b: encoderB, stepsPerDetent: .four, rest: .low),
                   chords: ControlMap.volumeChord)
    }

    /// The edges for one scenario action at `time`.
    public func edges(for action: Scenario.Action, at time: Int64) -> [Edge] {
        switch action {
        case .tap(let b):
            return press(b, at: time) + release(b, at: time + tapNanoseconds)
        case .hold(let b, let duration):
            return press(b, at: time) + release(b, at: time + duration)
        case .press(let b):
            return press(b, at: time)
        case .release(let b):
            return release(b, at: time)
        case .double(let b):
            let second = time + 150_000_000
            return press(b, at: time) + release(b, at: time + tapNanoseconds)
                + press(b, at: second) + release(b, at: second + tapNanoseconds)
        case .bounce(let b):
            // Contact bounce as a scope shows it: a burst of edges over ~3 ms at each change.
            let line = buttonLines[b]!
            var edges: [Edge] = []
            let pattern: [Int64] = [0, 300_000, 700_000, 1_200_000, 2_000_000]
            for (k, dt) in pattern.enumerated() {
                edges.append(Edge(line: line, active: k % 2 == 0, timestamp: time + dt))
            }
            let up = time + tapNanoseconds
            for (k, dt) in pattern.enumerated() {
                edges.append(Edge(line: line, active: k % 2 == 1, timestamp: up + dt))
            }
            return edges
        case .turn(let detents, let fast):
            return turn(detents, fast: fast, at: time)
        case .chord(let b, let detents):
            let turning = time + 100_000_000
            let done = turning + Int64(abs(detents)) * slowDetentNanoseconds
            return press(b, at: time) + turn(detents, fast: false, at: turning) + release(b, at: done + 100_000_000)
        case .speed, .latency, .stick, .unstick, .edit, .export, .end:
            return []
        }
    }

    private func press(_ b: Button, at t: Int64) -> [Edge] { [Edge(line: buttonLines[b]!, active: true, timestamp: t)] }
    private func release(_ b: Button, at t: Int64) -> [Edge] {
        [Edge(line: buttonLines[b]!, active: false, timestamp: t)]
    }

    /// Full quadrature cycles from the rest state (both contacts open). Clockwise, A closes
    /// before B: 00 → 10 → 11 → 01 → 00.
    private func turn(_ detents: Int, fast: Bool, at time: Int64) -> [Edge] {
        let perDetent = fast ? fastDetentNanoseconds : slowDetentNanoseconds
        let step = perDetent / 4
        let cw: [(line: Int, active: Bool)] = [(encoderA, true), (encoderB, true), (encoderA, false), (encoderB, false)]
        let ccw: [(line: Int, active: Bool)] = [
            (encoderB, true), (encoderA, true), (encoderB, false), (encoderA, false),
        ]
        let sequence = detents > 0 ? cw : ccw
        var edges: [Edge] = []
        var t = time
        for _ in 0..<abs(detents) {
            for transition in sequence {
                edges.append(Edge(line: transition.line, active: transition.active, timestamp: t))
                t += step
            }
        }
        return edges
    }
}
