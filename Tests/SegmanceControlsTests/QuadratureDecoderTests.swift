import Testing
@testable import SegmanceControls

@Suite("Quadrature decoder", .tags(.unit))
struct QuadratureDecoderTests {
    /// All 16 (previous, current) pairs, written as A B levels. Clockwise is A leading B:
    /// 00 → 10 → 11 → 01 → 00.
    @Test(arguments: [
        ("00", "00", 0), ("00", "10", +1), ("00", "01", -1), ("00", "11", 0),
        ("10", "10", 0), ("10", "11", +1), ("10", "00", -1), ("10", "01", 0),
        ("11", "11", 0), ("11", "01", +1), ("11", "10", -1), ("11", "00", 0),
        ("01", "01", 0), ("01", "00", +1), ("01", "11", -1), ("01", "10", 0),
    ])
    func transitionTable(previous: String, current: String, expected: Int) {
        func state(_ s: String) -> UInt8 { UInt8(s, radix: 2)! }
        #expect(QuadratureDecoder.direction(from: state(previous), to: state(current)) == expected)
    }

    @Test func tableHasSixteenEntriesSummingToZero() {
        #expect(QuadratureDecoder.transitions.count == 16)
        #expect(QuadratureDecoder.transitions.reduce(0) { $0 + Int($1) } == 0)
    }

    /// Detents reported after each transition of one full Gray cycle from the rest state.
    @Test(arguments: [
        (StepsPerDetent.one, RestState.low, 1, [1, 1, 1, 1]),
        (.one, .low, -1, [-1, -1, -1, -1]),
        (.two, .low, 1, [0, 1, 0, 1]),
        (.two, .low, -1, [0, -1, 0, -1]),
        (.four, .low, 1, [0, 0, 0, 1]),
        (.four, .low, -1, [0, 0, 0, -1]),
        (.four, .high, 1, [0, 0, 0, 1]),
        (.four, .high, -1, [0, 0, 0, -1]),
    ])
    func oneCycle(steps: StepsPerDetent, rest: RestState, direction: Int, expected: [Int]) {
        var decoder = QuadratureDecoder(stepsPerDetent: steps, rest: rest)
        let start = decoder.state
        // Walk the cycle from wherever the decoder rests, in the given direction.
        let order: [UInt8] = [0b00, 0b10, 0b11, 0b01]
        let startIndex = order.firstIndex(of: start)!
        let path = (1...4).map { order[(startIndex + direction * $0 + 8) % 4] }
        #expect(path.map { decoder.update(to: $0) } == expected)
        #expect(decoder.state == start)
        #expect(decoder.accumulated == 0)
    }

    @Test(arguments: [StepsPerDetent.one, .two, .four], [1, -1])
    func fullDetentSequences(steps: StepsPerDetent, direction: Int) {
        var decoder = QuadratureDecoder(stepsPerDetent: steps)
        let cycle = direction > 0 ? clockwise : counterclockwise
        let detents = (0..<5).flatMap { _ in cycle }.map { decoder.update(to: $0) }
        let perCycle = 4 / steps.rawValue
        #expect(detents.filter { $0 != 0 }.count == 5 * perCycle)
        #expect(detents.allSatisfy { $0 == 0 || $0 == direction })
    }

    /// Contact bounce in the middle of a 4-step detent nets out: still exactly one detent.
    @Test(arguments: [
        // Bounce on A leaving rest: 00 10 00 10 11 01 00
        ("A at start", [0b10, 0b00, 0b10, 0b11, 0b01, 0b00] as [UInt8], 1),
        // Bounce on B in the middle: 00 10 11 10 11 01 00
        ("B mid-detent", [0b10, 0b11, 0b10, 0b11, 0b01, 0b00], 1),
        // Bounce on A in the middle: 00 10 11 01 11 01 00
        ("A mid-detent", [0b10, 0b11, 0b01, 0b11, 0b01, 0b00], 1),
        // Bounce on B arriving at rest, then again at rest: ... 01 00 01 00 01 00
        ("B at rest", [0b10, 0b11, 0b01, 0b00, 0b01, 0b00, 0b01, 0b00], 1),
        // Counterclockwise with bounce on A mid-detent: 00 01 11 01 11 10 00
        ("A mid-detent ccw", [0b01, 0b11, 0b01, 0b11, 0b10, 0b00], -1),
        // Counterclockwise with bounce on B leaving rest: 00 01 00 01 11 10 00
        ("B at start ccw", [0b01, 0b00, 0b01, 0b11, 0b10, 0b00], -1),
    ])
    func bounceNetsOut(_ name: String, path: [UInt8], direction: Int) {
        var decoder = QuadratureDecoder(stepsPerDetent: .four)
        let detents = path.map { decoder.update(to: $0) }
        #expect(detents.filter { $0 != 0 } == [direction], "\(name)")
    }

    @Test(arguments: [StepsPerDetent.one, .two, .four])
    func impossibleTransitionsAreIgnored(steps: StepsPerDetent) {
        var decoder = QuadratureDecoder(stepsPerDetent: steps)
        // Both lines at once, back and forth: no direction can be told.
        let detents = [0b11, 0b00, 0b11, 0b00].map { decoder.update(to: $0) }
        #expect(detents == [0, 0, 0, 0])
        #expect(decoder.accumulated == 0)
        #expect(decoder.state == 0b00)
    }

    @Test func impossibleTransitionDoesNotCountMidway() {
        var decoder = QuadratureDecoder(stepsPerDetent: .four)
        _ = decoder.update(to: 0b10)
        _ = decoder.update(to: 0b01)  // jumped over 11
        #expect(decoder.accumulated == 1)
    }

    /// Missing any one of the three intermediate states of a 4-step detent (two transitions
    /// seen as one impossible jump) still yields the detent.
    @Test(arguments: 0..<3, [1, -1])
    func lostTransitionStillYieldsOneDetent(dropped: Int, direction: Int) {
        var decoder = QuadratureDecoder(stepsPerDetent: .four)
        var path = direction > 0 ? clockwise : counterclockwise
        path.remove(at: dropped)
        let detents = path.map { decoder.update(to: $0) }
        #expect(detents.filter { $0 != 0 } == [direction])
        #expect(decoder.accumulated == 0)
    }

    @Test func repeatedStateIsNotATransition() {
        var decoder = QuadratureDecoder(stepsPerDetent: .one)
        #expect(decoder.update(to: 0b10) == 1)
        #expect(decoder.update(to: 0b10) == 0)
    }

    @Test(arguments: [RestState.low, .high])
    func fourStepsRestsWhereConfigured(rest: RestState) {
        let decoder = QuadratureDecoder(stepsPerDetent: .four, rest: rest)
        #expect(decoder.state == rest.state)
        #expect(decoder.isRest(rest.state))
        #expect(!decoder.isRest(rest.state ^ 0b11))
    }
}
