import CharacterDisplay
import Dispatch
import SegmanceScreen
import Synchronization
import Testing
@testable import SegmanceDaemon

/// The LCD's thread draws the frames handed ahead to it at their times, without the loop.
/// Time is a virtual clock the tests move; the thread says what it waits for before each
/// wait (`willPoll`), and the tests wait for that, not for the wall clock.
@Suite(.tags(.unit)) struct DisplayWorkerTests {
    /// The virtual clock, each frame shown (its first row) with the clock then, and each wait
    /// the thread is about to make.
    final class Rig: CharacterDisplay, @unchecked Sendable {
        let columns = 16
        let rows = 2
        let now = Mutex<Int64>(0)
        let shown = Mutex<[(text: String, at: Int64)]>([])
        let polls = Mutex<[Int64]>([])
        let drew = DispatchSemaphore(value: 0)
        let polled = DispatchSemaphore(value: 0)
        var worker: DisplayWorker!

        init() throws {
            worker = try DisplayWorker(ResilientDisplay(self, log: { _ in }), clock: { [unowned self] in now.withLock { $0 } },
                                       willPoll: { [unowned self] timeout in
                                           polls.withLock { $0.append(timeout) }
                                           polled.signal()
                                       })
            try worker.start()
            try waitForPoll()
        }

        func show(_ frame: Frame) throws {
            let text = String(decoding: frame.row(0), as: UTF8.self).trimmingCharacters(in: .whitespaces)
            let at = now.withLock { $0 }
            shown.withLock { $0.append((text, at)) }
            drew.signal()
        }

        /// Moves the clock to `time` and lets the thread look.
        func move(to time: Int64) {
            now.withLock { $0 = time }
            worker.clockMoved()
        }

        /// Waits for the thread's next wait; returns how long it is for.
        @discardableResult
        func waitForPoll() throws -> Int64 {
            try #require(polled.wait(timeout: .now() + 5) == .success, "the LCD's thread did not come back to wait")
            return polls.withLock { $0.last! }
        }

        var texts: [String] { shown.withLock { $0.map(\.text) } }

        /// Ends the thread and lets the worker go: it draws on this rig, which holds it.
        func stop() {
            worker.stop()
            worker = nil
        }
    }

    static func frame(_ text: String) -> Frame {
        var frame = Frame(columns: 16, rows: 2)
        _ = frame.put(text, row: 0, column: 0)
        return frame
    }

    static let second: Int64 = 1_000_000_000

    /// Each frame handed ahead is drawn when the clock reaches its time (up to the 1 ms a
    /// timer may fire early), not before; the thread sleeps until the next one is due; of
    /// several due at once (the thread was late), only the newest is drawn.
    @Test func framesHandedAheadAreDrawnEachAtItsTimeAndNotBefore() throws {
        let rig = try Rig()
        defer { rig.stop() }
        let early = DisplayWorker.earlyNanoseconds
        rig.worker.post(Self.frame("now"), upcoming: [(10 * Self.second, Self.frame("one")), (20 * Self.second, Self.frame("two")),
                                                      (30 * Self.second, Self.frame("three")), (40 * Self.second, Self.frame("four"))])
        #expect(try rig.waitForPoll() == 10 * Self.second - early)
        #expect(rig.texts == ["now"])
        // A second before its time (and its early millisecond): not drawn, the wait a second.
        rig.move(to: 9 * Self.second - early)
        #expect(try rig.waitForPoll() == Self.second)
        #expect(rig.texts == ["now"], "drawn before its time")
        rig.move(to: 10 * Self.second - early)
        #expect(try rig.waitForPoll() == 10 * Self.second)
        #expect(rig.shown.withLock { $0.map(\.text) } == ["now", "one"])
        // Late past "two" and "three": "three" only.
        rig.move(to: 35 * Self.second)
        #expect(try rig.waitForPoll() == 5 * Self.second - early)
        #expect(rig.texts == ["now", "one", "three"])
        rig.move(to: 40 * Self.second)
        #expect(try rig.waitForPoll() == -1)
        #expect(rig.shown.withLock { $0.map { "\($0.text)@\($0.at / Self.second)" } } == ["now@0", "one@9", "three@35", "four@40"])
    }

    /// A new post replaces what is left of the frames handed before: the old ones are not
    /// drawn; frames handed with nothing to draw now are drawn at their times.
    @Test func aNewPostReplacesTheFramesHandedBefore() throws {
        let rig = try Rig()
        defer { rig.stop() }
        rig.worker.post(Self.frame("playing"), upcoming: [(10 * Self.second, Self.frame("stale"))])
        try rig.waitForPoll()
        rig.worker.post(Self.frame("paused"))
        #expect(try rig.waitForPoll() == -1)
        rig.move(to: 11 * Self.second)
        try rig.waitForPoll()
        #expect(rig.texts == ["playing", "paused"])
        rig.worker.post(nil, upcoming: [(20 * Self.second, Self.frame("a"))])
        try rig.waitForPoll()
        rig.worker.post(nil, upcoming: [(20 * Self.second, Self.frame("b")), (30 * Self.second, Self.frame("c"))])
        #expect(try rig.waitForPoll() == 9 * Self.second - DisplayWorker.earlyNanoseconds)
        rig.move(to: 20 * Self.second)
        try rig.waitForPoll()
        rig.move(to: 30 * Self.second)
        try rig.waitForPoll()
        #expect(rig.texts == ["playing", "paused", "b", "c"])
    }

    /// A frame handed ahead whose time has come is drawn when a post with nothing to draw
    /// now replaces the list before the thread's timer for it fired: the loop wakes at the
    /// time of the last frame it handed and takes that frame as shown. (It was dropped, and
    /// the box's LCD went from 0:03 to 0:05.)
    @Test func aFrameHandedAheadAndDueIsDrawnWhenAPostReplacesTheListAtItsTime() throws {
        let rig = try Rig()
        defer { rig.stop() }
        rig.worker.post(Self.frame("0:03"), upcoming: [(10 * Self.second, Self.frame("0:04"))])
        try rig.waitForPoll()
        // The clock reaches 0:04's time without waking the thread (its timer not fired yet).
        rig.now.withLock { $0 = 10 * Self.second }
        rig.worker.post(nil, upcoming: [(11 * Self.second, Self.frame("0:05"))])
        try rig.waitForPoll()
        #expect(rig.texts == ["0:03", "0:04"])
        rig.move(to: 11 * Self.second)
        try rig.waitForPoll()
        #expect(rig.texts == ["0:03", "0:04", "0:05"])
    }

    /// A frame posted and, before the thread took it, a post that only hands frames ahead
    /// (the loop passed again, nothing changed on screen): the frame is still drawn. (It was
    /// lost, and in the box the A mark reached the LCD late.) And frames handed ahead after
    /// the thread ran out of them are taken at once (the LCD's clock stood still in the box).
    @Test func aFramePostedIsDrawnEvenWhenFramesAheadFollowBeforeTheThreadTookIt() throws {
        let rig = try Rig()
        defer { rig.stop() }
        var lost: [Int] = []
        for i in 0..<200 {
            rig.worker.post(Self.frame("frame \(i)"))
            rig.worker.post(nil, upcoming: [(1_000 * Self.second, Self.frame("later"))])
            if rig.drew.wait(timeout: .now() + 1) == .timedOut || rig.texts.last != "frame \(i)" { lost.append(i) }
        }
        #expect(lost.isEmpty, "frames never drawn: \(lost)")
        rig.worker.post(Self.frame("still"))
        #expect(rig.drew.wait(timeout: .now() + 5) == .success)
        // Drain the waits so far: the next one is the thread's after the post below.
        while rig.polled.wait(timeout: .now()) == .success {}
        let now = rig.now.withLock { $0 }
        rig.worker.post(nil, upcoming: [(now + Self.second, Self.frame("next second"))])
        var wait = try rig.waitForPoll()
        while wait != Self.second - DisplayWorker.earlyNanoseconds { wait = try rig.waitForPoll() }
        rig.move(to: now + Self.second)
        #expect(rig.drew.wait(timeout: .now() + 5) == .success)
        #expect(rig.texts.last == "next second")
    }
}
