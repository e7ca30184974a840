import SegmanceAudio
import SegmanceCore
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// The engine's two rings with their own element types, each between two threads as the
/// engine runs them: the command ring (control thread → render thread, `QueuedCommand`)
/// and the event ring (render thread → control thread, `RenderEvent`). A ring of 8 slots
/// carries many times that, so the consumer pops while the producer still pushes: every
/// value is handed across, while both run, through a slot the other side used before.
/// Under ThreadSanitizer (`Tests/Sanitizers/run.sh thread`) each hand-over is checked: a
/// slot's read races with its write unless `tail`'s releasing store and acquiring load
/// order them, and its next write with that read unless `head`'s do
/// (`Tests/Sanitizers/README.md`).
@Suite(.tags(.unit)) struct SPSCRingThreadTests {
    @Test func theCommandRingHandsEveryCommandOverWholeAndInOrder() {
        let count = 50_000
        let received = Self.handOver(count, capacity: 8, Self.command)
        #expect(received.count == count)
        let wrong = received.indices.filter {
            let expected = Self.command($0)
            return received[$0].command != expected.command || received[$0].frame != expected.frame
        }
        #expect(wrong.isEmpty, "commands received other than sent, first at \(wrong.first ?? -1)")
    }

    @Test func theEventRingHandsEveryEventOverWholeAndInOrder() {
        let count = 50_000
        let received = Self.handOver(count, capacity: 8, Self.event)
        #expect(received.count == count)
        let wrong = received.indices.filter { !Self.same(received[$0], Self.event($0)) }
        #expect(wrong.isEmpty, "events received other than sent, first at \(wrong.first ?? -1)")
    }

    /// Command `i` of a sequence that goes through the cases of every size.
    static func command(_ i: Int) -> QueuedCommand {
        let n = Int64(i)
        let command: RenderCommand = switch i % 4 {
        case 0: .seek(n)
        case 1: .setLoop(start: n, end: n + 48_000, countdownBeforeRepeat: 2, pauseFrames: 7, passes: 3,
                         countIn: RenderCountIn(beats: 4, beatFrames: 24_000.5, lead: n % 1_000, firstCount: 5))
        case 2: .load(PCMSlice(base: nil, frames: n))
        default: .setVolume(Int32(i % 101))
        }
        return QueuedCommand(command: StampedCommand(command, epoch: UInt32(truncatingIfNeeded: i)),
                             frame: i % 2 == 0 ? n * 128 : QueuedCommand.nextBoundary)
    }

    /// Event `i` of a sequence of reports, timings and late commands.
    static func event(_ i: Int) -> RenderEvent {
        let n = Int64(i)
        let epoch = UInt32(truncatingIfNeeded: i)
        return switch i % 3 {
        case 0: .report(RenderReport(AudioReport(epoch: epoch, .position(n)), frame: n))
        case 1: .applied(CommandTiming(firstEpoch: epoch, lastEpoch: epoch &+ 1, frame: n, handedAt: n * 1_000,
                                       handedThrough: n + 128, delayFrames: i % 384))
        default: .late(epoch: epoch, frame: n, appliedAt: n + 1)
        }
    }

    static func same(_ a: RenderEvent, _ b: RenderEvent) -> Bool {
        switch (a, b) {
        case let (.report(x), .report(y)): x == y
        case let (.applied(x), .applied(y)): x == y
        case let (.late(e1, f1, a1), .late(e2, f2, a2)): e1 == e2 && f1 == f2 && a1 == a2
        case let (.xrun(x), .xrun(y)): x == y
        case let (.failed(c1, x), .failed(c2, y)): c1 == c2 && x == y
        default: false
        }
    }

    /// `make(0)`, `make(1)`, … `make(count - 1)` pushed by a thread of their own into a ring of
    /// `capacity` and popped on this one as they come; each side yields the processor while the
    /// ring is full or empty. The values popped, in order.
    static func handOver<Element>(_ count: Int, capacity: Int, _ make: @escaping (Int) -> Element) -> [Element] {
        let ring = SPSCRing<Element>(capacity: capacity)
        defer { ring.destroy() }
        let producer = TestThread {
            var i = 0
            while i < count {
                if ring.push(make(i)) { i += 1 } else { sched_yield() }
            }
        }
        var received: [Element] = []
        received.reserveCapacity(count)
        while received.count < count {
            if let value = ring.pop() { received.append(value) } else { sched_yield() }
        }
        producer.join()
        return received
    }
}
