import SegmanceCore
import Testing
@testable import SegmanceControls

@Suite("Button gestures", .tags(.unit))
struct ButtonGestureTests {
    let long = ms(600)
    let window = ms(300)

    /// Release times relative to the press, around the long-press threshold.
    @Test(arguments: [
        (ms(60), Event.buttonPressed(.play)),
        (ms(599), .buttonPressed(.play)),
        (ms(600), .buttonLongPressed(.play)),
        (ms(2000), .buttonLongPressed(.play)),
    ])
    func pressOrLongPressByHoldTime(held: Int64, expected: Event) {
        var gesture = ButtonGesture(button: .play, longPress: long)
        let t0 = ms(1000)
        var events = gesture.press(at: t0)
        events += gesture.release(at: t0 + held)
        #expect(events.map(\.event) == [expected])
        #expect(events.first?.timestamp == min(t0 + held, t0 + long))
        #expect(gesture.phase == .idle)
    }

    @Test func longPressFiresAtExactlyTheThresholdAndNotAgainAtRelease() {
        var gesture = ButtonGesture(button: .prev, longPress: long)
        _ = gesture.press(at: ms(10))
        #expect(gesture.deadline == ms(610))
        #expect(gesture.advance(to: ms(610) - 1) == [])
        #expect(gesture.advance(to: ms(610)) == [TimedEvent(.buttonLongPressed(.prev), at: ms(610))])
        #expect(gesture.deadline == nil)
        #expect(gesture.advance(to: ms(5000)) == [])
        #expect(gesture.release(at: ms(5000)) == [])
    }

    @Test(arguments: [ms(50), ms(299)])
    func doublePress(gap: Int64) {
        var gesture = ButtonGesture(button: .select, longPress: long, doublePressWindow: window)
        var events = gesture.press(at: 0) + gesture.release(at: ms(80))
        #expect(events.isEmpty)
        #expect(gesture.deadline == ms(80) + window)
        events += gesture.press(at: ms(80) + gap) + gesture.release(at: ms(80) + gap + ms(70))
        #expect(events == [TimedEvent(.buttonDoublePressed(.select), at: ms(80) + gap + ms(70))])
        #expect(gesture.deadline == nil)
    }

    @Test func singlePressIsReportedWhenTheWindowCloses() {
        var gesture = ButtonGesture(button: .select, longPress: long, doublePressWindow: window)
        _ = gesture.press(at: 0)
        _ = gesture.release(at: ms(80))
        #expect(gesture.advance(to: ms(379)) == [])
        #expect(gesture.advance(to: ms(380)) == [TimedEvent(.buttonPressed(.select), at: ms(380))])
    }

    @Test func secondPressAtTheWindowsEndIsANewPress() {
        var gesture = ButtonGesture(button: .select, longPress: long, doublePressWindow: window)
        var events = gesture.press(at: 0) + gesture.release(at: ms(80))
        events += gesture.press(at: ms(380)) + gesture.release(at: ms(450))
        events += gesture.advance(to: ms(2000))
        #expect(events == [TimedEvent(.buttonPressed(.select), at: ms(380)),
                           TimedEvent(.buttonPressed(.select), at: ms(750))])
    }

    @Test func secondPressHeldLongReportsTheFirstPressThenTheLongPress() {
        var gesture = ButtonGesture(button: .select, longPress: long, doublePressWindow: window)
        var events = gesture.press(at: 0) + gesture.release(at: ms(80))
        events += gesture.press(at: ms(200)) + gesture.release(at: ms(1500))
        #expect(events == [TimedEvent(.buttonPressed(.select), at: ms(800)),
                           TimedEvent(.buttonLongPressed(.select), at: ms(800))])
    }

    @Test func discardedPressLeavesNoTrace() {
        var gesture = ButtonGesture(button: .play, longPress: long)
        var events = gesture.press(at: 0) + gesture.discardPress(at: ms(10))
        events += gesture.advance(to: ms(5000))
        #expect(events.isEmpty)
        #expect(gesture.phase == .idle)
    }

    @Test func discardedSecondPressFallsBackToTheSinglePress() {
        var gesture = ButtonGesture(button: .select, longPress: long, doublePressWindow: window)
        var events = gesture.press(at: 0) + gesture.release(at: ms(80))
        events += gesture.press(at: ms(100)) + gesture.discardPress(at: ms(110))
        events += gesture.advance(to: ms(1000))
        #expect(events == [TimedEvent(.buttonPressed(.select), at: ms(380))])
    }

    @Test func discardAfterTheWindowClosedReportsAtTheDiscardTime() {
        var gesture = ButtonGesture(button: .select, longPress: long, doublePressWindow: window)
        var events = gesture.press(at: 0) + gesture.release(at: ms(80))
        events += gesture.press(at: ms(375)) + gesture.discardPress(at: ms(385))
        #expect(events == [TimedEvent(.buttonPressed(.select), at: ms(385))])
        #expect(gesture.phase == .idle)
    }

    @Test func repeatedPressOrReleaseIsIgnored() {
        var gesture = ButtonGesture(button: .next, longPress: long)
        var events = gesture.release(at: 0)
        events += gesture.press(at: ms(10)) + gesture.press(at: ms(20))
        events += gesture.release(at: ms(100)) + gesture.release(at: ms(110))
        #expect(events == [TimedEvent(.buttonPressed(.next), at: ms(100))])
    }
}
