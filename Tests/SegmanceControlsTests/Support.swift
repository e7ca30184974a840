import SegmanceCore
@testable import SegmanceControls

/// Milliseconds in nanoseconds.
func ms(_ value: Int64) -> Int64 { value * 1_000_000 }
/// Microseconds in nanoseconds.
func us(_ value: Int64) -> Int64 { value * 1_000 }

enum Line {
    static let play = 5, prev = 6, next = 13, loop = 19, select = 26
    static let a = 17, b = 27
}

/// A board map like the default profile's, with the given encoder mechanics.
func testMap(steps: StepsPerDetent = .four, rest: RestState = .low,
             acceleration: [AccelerationStep] = AccelerationStep.defaultTable) -> ControlMap {
    ControlMap(
        buttons: [Line.play: .play, Line.prev: .prev, Line.next: .next,
                  Line.loop: .loop, Line.select: .select],
        encoder: EncoderLines(a: Line.a, b: Line.b, stepsPerDetent: steps, rest: rest),
        acceleration: acceleration)
}

extension Controls {
    /// Feeds inputs in order and collects the timed events.
    mutating func run(_ inputs: [ControlInput]) -> [TimedEvent] {
        inputs.flatMap { process($0) }
    }
}

/// A button press with `bounces` extra open/close pairs in the first `span` ns, then held
/// until `releaseAt`, whose release bounces the same way.
func bouncyTap(line: Int, at start: Int64, releaseAt: Int64, bounces: Int,
               span: Int64 = ms(3)) -> [ControlInput] {
    func train(from t0: Int64, level: Bool) -> [ControlInput] {
        var edges = [ControlInput.edge(Edge(line: line, active: level, timestamp: t0))]
        guard bounces > 0 else { return edges }
        let step = span / Int64(2 * bounces)
        for k in 1...(2 * bounces) {
            let active = k.isMultiple(of: 2) ? level : !level
            edges.append(.edge(Edge(line: line, active: active, timestamp: t0 + Int64(k) * step)))
        }
        return edges
    }
    return train(from: start, level: true) + train(from: releaseAt, level: false)
}

/// Edges that walk the encoder through the given states (`A<<1 | B`), one line at a time
/// where the state changes one line, both lines where it changes two.
func encoderEdges(_ states: [UInt8], from start: UInt8 = 0, at t0: Int64,
                  spacing: Int64 = us(500)) -> [ControlInput] {
    var edges: [ControlInput] = []
    var current = start
    var t = t0
    for next in states {
        if (current ^ next) & 0b10 != 0 {
            edges.append(.edge(Edge(line: Line.a, active: next & 0b10 != 0, timestamp: t)))
        }
        if (current ^ next) & 0b01 != 0 {
            edges.append(.edge(Edge(line: Line.b, active: next & 0b01 != 0, timestamp: t)))
        }
        current = next
        t += spacing
    }
    return edges
}

/// One clockwise Gray cycle, starting after `from`: 00 → 10 → 11 → 01 → 00 order.
let clockwise: [UInt8] = [0b10, 0b11, 0b01, 0b00]
let counterclockwise: [UInt8] = [0b01, 0b11, 0b10, 0b00]
