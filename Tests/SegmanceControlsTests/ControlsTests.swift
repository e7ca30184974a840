import SegmanceCore
import Testing
@testable import SegmanceControls

@Suite("Controls facade", .tags(.unit))
struct ControlsTests {
    func edge(_ line: Int, _ active: Bool, _ t: Int64) -> ControlInput {
        .edge(Edge(line: line, active: active, timestamp: t))
    }

    /// Every button but select and PREV reports at its release edge, with that edge's timestamp.
    @Test(arguments: [(Line.play, Button.play), (Line.next, .next), (Line.loop, .loop)])
    func pressIsNotDelayed(line: Int, button: Button) {
        var controls = Controls(map: testMap())
        #expect(controls.process(edge(line, true, ms(1000))).isEmpty)
        #expect(controls.process(edge(line, false, ms(1080))) == [TimedEvent(.buttonPressed(button), at: ms(1080))])
        #expect(controls.nextDeadline == nil)
    }

    /// A press is recognised at its release, but it acted when the button went down: its
    /// instant is that edge's timestamp (after a bounce, the first accepted edge); a long
    /// press's too; an encoder detent's is its own.
    @Test func theInstantOfAPressIsItsDownEdge() {
        var again = Controls(map: testMap())
        var events: [TimedEvent] = []
        var instants: [Int64] = []
        for input in bouncyTap(line: Line.loop, at: ms(100), releaseAt: ms(220), bounces: 3) {
            let out = again.process(input)
            events += out
            instants += out.map { again.instant(of: $0) }
        }
        #expect(events == [TimedEvent(.buttonPressed(.loop), at: ms(220))])
        #expect(instants == [ms(100)])
        var held = Controls(map: testMap())
        _ = held.process(edge(Line.prev, true, ms(1000)))
        let long = held.process(.time(ms(1700)))
        #expect(long.map { held.instant(of: $0) } == [ms(1000)])
        let turned = TimedEvent(.encoderTurned(1), at: ms(3000))
        #expect(held.instant(of: turned) == ms(3000))
    }

    /// A press bouncing 0...5 times within 3 ms on press and on release: exactly one press.
    @Test(arguments: 0...5)
    func bouncyPressIsOnePress(bounces: Int) {
        var controls = Controls(map: testMap())
        var events = controls.run(bouncyTap(line: Line.play, at: ms(100), releaseAt: ms(200), bounces: bounces))
        events += controls.process(.time(ms(5000)))
        #expect(events == [TimedEvent(.buttonPressed(.play), at: ms(200))])
        #expect(!controls.isPressed(.play))
    }

    @Test func bouncyLongPressIsOneLongPress() {
        var controls = Controls(map: testMap())
        var events = controls.run(bouncyTap(line: Line.prev, at: ms(100), releaseAt: ms(1500), bounces: 5))
        events += controls.process(.time(ms(5000)))
        #expect(events == [TimedEvent(.buttonLongPressed(.prev), at: ms(700))])
    }

    @Test(arguments: [us(50), ms(1), ms(9)])
    func glitchLeavesTheButtonReleasedAndSilent(width: Int64) {
        var controls = Controls(map: testMap())
        var events = controls.run([edge(Line.play, true, ms(100)), edge(Line.play, false, ms(100) + width)])
        #expect(controls.isPressed(.play))  // until the debounce interval ends
        #expect(controls.nextDeadline == ms(110))
        events += controls.process(.time(ms(110)))
        #expect(!controls.isPressed(.play))
        #expect(controls.nextDeadline == nil)
        events += controls.process(.time(ms(5000)))
        #expect(events.isEmpty)
    }

    @Test func glitchIsSettledByTheNextEdgeToo() {
        var controls = Controls(map: testMap())
        let events = controls.run([
            edge(Line.play, true, ms(100)), edge(Line.play, false, ms(101)),
            edge(Line.play, true, ms(2000)), edge(Line.play, false, ms(2070)),
        ])
        #expect(events == [TimedEvent(.buttonPressed(.play), at: ms(2070))])
    }

    @Test func longPressFiresAtExactlyTheThresholdAndNotAgainAtRelease() {
        var controls = Controls(map: testMap())
        _ = controls.process(edge(Line.play, true, ms(100)))
        #expect(controls.nextDeadline == ms(700))
        #expect(controls.advance(to: ms(700) - 1) == [])
        #expect(controls.advance(to: ms(700)) == [.buttonLongPressed(.play)])
        #expect(controls.nextDeadline == nil)
        #expect(controls.handle(Edge(line: Line.play, active: false, timestamp: ms(1400))) == [])
    }

    @Test func longPressComesFromTheNextEdgeWhenNobodyAdvanced() {
        var controls = Controls(map: testMap())
        let events = controls.run([edge(Line.loop, true, ms(100)), edge(Line.loop, false, ms(3000))])
        #expect(events == [TimedEvent(.buttonLongPressed(.loop), at: ms(700))])
    }

    @Test func doublePressOnSelect() {
        var controls = Controls(map: testMap())
        let events = controls.run([
            edge(Line.select, true, ms(100)), edge(Line.select, false, ms(160)),
            edge(Line.select, true, ms(300)), edge(Line.select, false, ms(360)),
            .time(ms(5000)),
        ])
        #expect(events == [TimedEvent(.buttonDoublePressed(.select), at: ms(360))])
    }

    /// PREV's double press is *Again*; a single PREV press waits the window out, as select's does.
    @Test func doublePressOnPrevAndASinglePressAfterTheWindow() {
        var controls = Controls(map: testMap())
        let double = controls.run([
            edge(Line.prev, true, ms(100)), edge(Line.prev, false, ms(160)),
            edge(Line.prev, true, ms(300)), edge(Line.prev, false, ms(360)),
            .time(ms(5000)),
        ])
        #expect(double == [TimedEvent(.buttonDoublePressed(.prev), at: ms(360))])
        var single = controls.run([edge(Line.prev, true, ms(6000)), edge(Line.prev, false, ms(6060))])
        #expect(single.isEmpty && controls.nextDeadline == ms(6360))
        single += controls.process(.time(ms(6360)))
        #expect(single == [TimedEvent(.buttonPressed(.prev), at: ms(6360))])
    }

    @Test(arguments: 0...5)
    func bouncyDoublePressOnSelect(bounces: Int) {
        var controls = Controls(map: testMap())
        var events = controls.run(bouncyTap(line: Line.select, at: ms(100), releaseAt: ms(170), bounces: bounces))
        events += controls.run(bouncyTap(line: Line.select, at: ms(280), releaseAt: ms(350), bounces: bounces))
        events += controls.process(.time(ms(5000)))
        #expect(events == [TimedEvent(.buttonDoublePressed(.select), at: ms(350))])
    }

    @Test func singlePressOnSelectAfterTheWindow() {
        var controls = Controls(map: testMap())
        var events = controls.run([edge(Line.select, true, ms(100)), edge(Line.select, false, ms(160))])
        #expect(events.isEmpty)
        #expect(controls.nextDeadline == ms(460))
        events += controls.process(.time(ms(459)))
        #expect(events.isEmpty)
        events += controls.process(.time(ms(460)))
        #expect(events == [TimedEvent(.buttonPressed(.select), at: ms(460))])
    }

    @Test func doublePressSetIsConfigurable() {
        var map = testMap()
        map.doublePress = [.loop]
        var controls = Controls(map: map)
        let select = controls.run([edge(Line.select, true, ms(100)), edge(Line.select, false, ms(160))])
        #expect(select == [TimedEvent(.buttonPressed(.select), at: ms(160))])
        let loop = controls.run([edge(Line.loop, true, ms(200)), edge(Line.loop, false, ms(260))])
        #expect(loop.isEmpty)
        #expect(controls.nextDeadline == ms(560))
    }

    @Test func keysBypassDebounce() {
        var controls = Controls(map: testMap())
        var events = controls.keyChanged(.next, pressed: true, timestamp: ms(100))
        events += controls.keyChanged(.next, pressed: false, timestamp: ms(101))
        events += controls.keyChanged(.play, pressed: true, timestamp: ms(200))
        events += controls.advance(to: ms(800))
        #expect(events == [.buttonPressed(.next), .buttonLongPressed(.play)])
    }

    @Test(arguments: [StepsPerDetent.one, .two, .four], [1, -1])
    func encoderDetentsThroughEdges(steps: StepsPerDetent, direction: Int) {
        var controls = Controls(map: testMap(steps: steps, acceleration: []))
        let cycle = direction > 0 ? clockwise : counterclockwise
        let events = controls.run(encoderEdges(cycle + cycle + cycle, at: ms(100), spacing: ms(50)))
        #expect(events.map(\.event) == Array(repeating: .encoderTurned(direction), count: 3 * 4 / steps.rawValue))
    }

    @Test(arguments: [RestState.low, .high])
    func encoderRestingHigh(rest: RestState) {
        var controls = Controls(map: testMap(steps: .four, rest: rest, acceleration: []))
        let start = rest.state
        let order: [UInt8] = [0b00, 0b10, 0b11, 0b01]
        let i = order.firstIndex(of: start)!
        let path = (1...8).map { order[(i + $0) % 4] }
        let events = controls.run(encoderEdges(path, from: start, at: ms(100), spacing: ms(50)))
        #expect(events.map(\.event) == [.encoderTurned(1), .encoderTurned(1)])
    }

    @Test func encoderBounceOnBothLinesNetsOut() {
        var controls = Controls(map: testMap(acceleration: []))
        // A chatters leaving rest, B chatters mid-detent, B chatters again at rest.
        let path: [UInt8] = [0b10, 0b00, 0b10, 0b00, 0b10, 0b11, 0b10, 0b11, 0b01, 0b00, 0b01, 0b00]
        let events = controls.run(encoderEdges(path, at: ms(100), spacing: us(200)))
        #expect(events == [TimedEvent(.encoderTurned(1), at: ms(100) + us(200) * 9)])
    }

    @Test func fastTurnIsAccelerated() {
        var controls = Controls(map: testMap())
        // Detents 100 ms, then 40 ms, then 20 ms apart (4 transitions each).
        var inputs = encoderEdges(clockwise, at: 0, spacing: ms(25))                   // detent at 75
        inputs += encoderEdges(clockwise, at: ms(100), spacing: ms(25))               // detent at 175
        inputs += encoderEdges(clockwise, at: ms(185), spacing: ms(10))               // detent at 215
        inputs += encoderEdges(clockwise, at: ms(220), spacing: ms(5))                // detent at 235
        let events = controls.run(inputs)
        #expect(events.map(\.event) == [.encoderTurned(1), .encoderTurned(1), .encoderTurned(2), .encoderTurned(4)])
        #expect(events.map(\.timestamp) == [ms(75), ms(175), ms(215), ms(235)])
    }

    @Test func relativeCountsAreAccelerated() {
        var controls = Controls(map: testMap())
        var events = controls.encoderMoved(by: 1, timestamp: ms(0))
        events += controls.encoderMoved(by: 1, timestamp: ms(20))
        events += controls.encoderMoved(by: 1, timestamp: ms(60))
        events += controls.encoderMoved(by: -1, timestamp: ms(70))
        events += controls.encoderMoved(by: 0, timestamp: ms(80))
        #expect(events == [.encoderTurned(1), .encoderTurned(4), .encoderTurned(2), .encoderTurned(-1)])
    }

    @Test func unmappedLinesAreIgnored() {
        var controls = Controls(map: testMap())
        let events = controls.run([edge(99, true, ms(100)), edge(99, false, ms(200))])
        #expect(events.isEmpty)
        #expect(controls.nextDeadline == nil)
    }

    @Test func eventsComeOutInTimeOrder() {
        var controls = Controls(map: testMap(acceleration: []))
        var inputs: [ControlInput] = [
            edge(Line.play, true, ms(0)),                                   // long press due at 600
            edge(Line.select, true, ms(100)), edge(Line.select, false, ms(150)),  // single due at 450
            edge(Line.next, true, ms(200)), edge(Line.next, false, ms(260)),     // press at once
            edge(Line.prev, true, ms(300)), edge(Line.prev, false, ms(301)),     // glitch, settles at 310
        ]
        inputs += encoderEdges(clockwise, at: ms(900), spacing: ms(1))      // detent at 903
        // Nobody advanced: the encoder edges must first release everything due before them.
        let events = controls.run(inputs)
        #expect(events.map(\.event) == [.buttonPressed(.next), .buttonPressed(.select), .buttonLongPressed(.play),
                                       .encoderTurned(1)])
        #expect(events.map(\.timestamp) == [ms(260), ms(450), ms(600), ms(903)])
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
    }

    @Test func oneAdvanceReleasesSeveralDeadlinesInOrder() {
        var controls = Controls(map: testMap())
        let inputs: [ControlInput] = [
            edge(Line.loop, true, ms(50)),                                   // long at 650
            edge(Line.select, true, ms(0)), edge(Line.select, false, ms(320)), // single at 620
            .key(.play, pressed: true, timestamp: ms(330)),                   // long at 930
        ]
        var events = controls.run(inputs)
        #expect(events.isEmpty)
        events = controls.process(.time(ms(10_000)))
        #expect(events == [TimedEvent(.buttonPressed(.select), at: ms(620)),
                           TimedEvent(.buttonLongPressed(.loop), at: ms(650)),
                           TimedEvent(.buttonLongPressed(.play), at: ms(930))])
    }

    @Test func nextDeadlineFollowsWhatIsPending() {
        var controls = Controls(map: testMap())
        #expect(controls.nextDeadline == nil)
        _ = controls.process(edge(Line.play, true, ms(100)))
        #expect(controls.nextDeadline == ms(700))              // play's long press
        _ = controls.process(edge(Line.select, true, ms(200)))
        _ = controls.process(edge(Line.select, false, ms(201)))
        #expect(controls.nextDeadline == ms(210))              // select's glitch settles
        _ = controls.process(.time(ms(210)))
        #expect(controls.nextDeadline == ms(700))
        _ = controls.process(edge(Line.select, true, ms(300)))
        _ = controls.process(edge(Line.select, false, ms(350)))
        #expect(controls.nextDeadline == ms(650))              // select's double-press window
        _ = controls.process(.time(ms(650)))
        #expect(controls.nextDeadline == ms(700))
        _ = controls.process(.time(ms(700)))
        #expect(controls.nextDeadline == nil)                  // held after its long press
        _ = controls.process(edge(Line.play, false, ms(800)))
        #expect(controls.nextDeadline == nil)
    }

    @Test func timeNeverRunsBackwards() {
        var controls = Controls(map: testMap())
        _ = controls.process(.time(ms(1000)))
        #expect(controls.process(edge(Line.play, true, ms(500))).isEmpty)
        #expect(controls.nextDeadline == ms(1000) + ms(600))  // the press counts from 1000
        let events = controls.run([edge(Line.play, false, ms(1080))])
        #expect(events == [TimedEvent(.buttonPressed(.play), at: ms(1080))])
        #expect(controls.now == ms(1080))
    }

    @Test func initialLevels() {
        // Play held at start and the encoder resting at 11 with 2 steps a detent.
        let map = testMap(steps: .two, acceleration: [])
        var controls = Controls(map: map, levels: [Line.play: true, Line.a: true, Line.b: true])
        #expect(controls.isPressed(.play) == false)
        var events = controls.run([edge(Line.play, false, ms(100))])
        events += controls.run(encoderEdges([0b01, 0b00], from: 0b11, at: ms(200)))
        #expect(events.map(\.event) == [.encoderTurned(1)])
    }

    @Test func aLineMappedTwiceIsAnEncoderLine() {
        var map = testMap(steps: .one, acceleration: [])
        map.buttons[Line.a] = .play
        var controls = Controls(map: map)
        let events = controls.run([edge(Line.a, true, ms(100)), edge(Line.a, false, ms(200))])
        #expect(events.map(\.event) == [.encoderTurned(1), .encoderTurned(-1)])
    }

    @Test func mapProblems() {
        #expect(testMap().problems.isEmpty)
        var map = testMap()
        map.buttons[Line.a] = .loop
        map.encoder?.b = Line.a
        map.timing.longPress = map.timing.debounce
        #expect(map.problems.count == 3)
        #expect(map.problems.contains { $0.contains("both line \(Line.a)") })
        #expect(map.problems.contains { $0.contains("loop button") })
        #expect(map.problems.contains { $0.contains("long press") })
    }
}
