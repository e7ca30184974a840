import SegmanceCore
import Testing
@testable import SegmanceControls

/// PLAY held while the encoder turns: the volume chord. Its detents come as
/// `encoderTurnedHolding(.play, n)`, PLAY reports nothing of its own, and PLAY's long press
/// (stop) comes at the release so that holding it to turn never stops the music first.
@Suite(.tags(.unit)) struct ChordTests {
    func edge(_ line: Int, _ active: Bool, _ t: Int64) -> ControlInput {
        .edge(Edge(line: line, active: active, timestamp: t))
    }

    func chordMap() -> ControlMap {
        var map = testMap()
        map.chords = ControlMap.volumeChord
        return map
    }

    /// One clockwise detent of a 4-step encoder resting low, from `t`, 10 ms a transition.
    func detent(at t: Int64, clockwise: Bool = true) -> [ControlInput] {
        let (first, second) = clockwise ? (Line.a, Line.b) : (Line.b, Line.a)
        return [edge(first, true, t), edge(second, true, t + ms(10)), edge(first, false, t + ms(20)),
                edge(second, false, t + ms(30))]
    }

    @Test func turningWhilePlayIsHeldIsTheChordAndPlayReportsNothing() {
        var controls = Controls(map: chordMap())
        var events = controls.run([edge(Line.play, true, ms(100))])
        #expect(controls.nextDeadline == nil, "no long-press timer while it may become a chord")
        events += controls.run(detent(at: ms(300)) + detent(at: ms(1000)) + detent(at: ms(1500), clockwise: false))
        events += controls.run([edge(Line.play, false, ms(2500)), .time(ms(5000))])
        #expect(events == [
            TimedEvent(.encoderTurnedHolding(.play, 1), at: ms(330)),
            TimedEvent(.encoderTurnedHolding(.play, 1), at: ms(1030)),
            TimedEvent(.encoderTurnedHolding(.play, -1), at: ms(1530)),
        ])
        #expect(!controls.isPressed(.play))
    }

    @Test(arguments: [(ms(80), Event.buttonPressed(.play)), (ms(600), .buttonLongPressed(.play)),
                      (ms(2000), .buttonLongPressed(.play))])
    func withoutATurnPlayIsAPressOrALongPressAtItsRelease(held: Int64, expected: Event) {
        var controls = Controls(map: chordMap())
        var events = controls.run([edge(Line.play, true, ms(100)), .time(ms(100) + held - 1)])
        #expect(events.isEmpty)
        events += controls.run([edge(Line.play, false, ms(100) + held)])
        #expect(events == [TimedEvent(expected, at: ms(100) + held)])
    }

    @Test func turningWithNothingHeldSeeksAsBefore() {
        var controls = Controls(map: chordMap())
        #expect(controls.run(detent(at: ms(100))) == [TimedEvent(.encoderTurned(1), at: ms(130))])
        // Other buttons held do not make chords.
        _ = controls.run([edge(Line.prev, true, ms(500))])
        #expect(controls.run(detent(at: ms(600))).map(\.event) == [.encoderTurned(1)])
    }

    /// LOOP held while the encoder turns: the speed chord (issue 12), LOOP's long press (the
    /// part loop) then comes at its release.
    @Test func turningWhileLoopIsHeldIsTheSpeedChordAndLoopsLongPressComesAtTheRelease() {
        var controls = Controls(map: chordMap())
        var events = controls.run([edge(Line.loop, true, ms(100))])
        #expect(controls.nextDeadline == nil)
        events += controls.run(detent(at: ms(300), clockwise: false))
        events += controls.run([edge(Line.loop, false, ms(900))])
        #expect(events == [TimedEvent(.encoderTurnedHolding(.loop, -1), at: ms(330))])
        events = controls.run([edge(Line.loop, true, ms(2000)), .time(ms(2700))])
        #expect(events.isEmpty, "no long press while LOOP is still down")
        #expect(controls.run([edge(Line.loop, false, ms(2800))]) == [TimedEvent(.buttonLongPressed(.loop), at: ms(2800))])
    }

    @Test func aKeyFromAnInputDeviceChordsToo() {
        var controls = Controls(map: chordMap())
        #expect(controls.keyChanged(.play, pressed: true, timestamp: ms(100)).isEmpty)
        #expect(controls.encoderMoved(by: 2, timestamp: ms(400)) == [.encoderTurnedHolding(.play, 2)])
        #expect(controls.keyChanged(.play, pressed: false, timestamp: ms(900)).isEmpty)
    }

    @Test func theBoardsAndTheTwinsMapsHaveTheVolumeChord() {
        #expect(ControlMap.volumeChord == [.play, .loop])
        #expect(testMap().chords.isEmpty, "a map made without chords has none")
    }
}
