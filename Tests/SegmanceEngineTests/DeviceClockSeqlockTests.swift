import ALSA
import LinuxSystem
import Synchronization
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// The device clock's seqlock (`RenderContext.noteDeviceClock` / `PublishedDeviceClock.outputFrame(at:)`) between
/// a writer thread, as the render thread, and the test's thread, as the control side.
@Suite(.tags(.integration)) struct DeviceClockSeqlockTests {
    /// Readings the writer may be ahead of the newest the reader saw.
    static let window = 16
    static let capacity = PublishedDeviceClock.capacity
    /// Reading `k` says output frame k·10⁹ was at the DAC: far more than the frames any
    /// projection in the test adds (under 10⁹ at 48 kHz is 5 hours), so `outputFrame(at:)`
    /// divided by it is the reading used and the rest its projection.
    static let step: Int64 = 1_000_000_000

    /// The writer takes readings 0…N−1 with `noteDeviceClock` (frame k·10⁹, at the time it
    /// reads the clock) while the reader asks `outputFrame(at:)` about now and about the
    /// times it saw the oldest readings kept, which the writer is writing over: every answer
    /// is the frame of a reading in force then, projected from that reading's own time
    /// (never the time of one reading with the frame of another), and what the writer wrote
    /// before taking a reading, a plain word per reading, is there for a reader that got
    /// that reading. Under ThreadSanitizer (`Tests/Sanitizers/run.sh thread`) the reader's
    /// read of that word races with its write unless the `Seqlock`'s releasing store (the
    /// end of `noteDeviceClock`) and acquiring load (the start of `outputFrame(at:)`) order
    /// them (`Tests/Sanitizers/README.md`).
    @Test func theReaderGetsWholeReadingsAndWhatWasWrittenBeforeThem() throws {
        let device = try PCMDevice(name: "null")
        let context = try allocateNullRenderContext(device)
        let count = 20_000
        let words = UnsafeMutablePointer<Int64>.allocate(capacity: count)
        words.initialize(repeating: 0, count: count)
        defer {
            freeNullRenderContext(context)
            words.deallocate()
        }
        let progress = SeqlockProgress(seen: -1)
        // The reader reaches the shared memory as the control side does, never through the
        // render context the writer holds.
        let shared = context.pointee.shared
        let rate = shared.pointee.deviceClock.sampleRate
        let start = monotonicNanoseconds()

        let writer = TestThread {
            for k in 0..<count {
                words[k] = Int64(k) * Self.step
                context.pointee.noteDeviceClock(written: Int64(k) * Self.step, delay: 0, fresh: true)
                while k - progress.seen.load(ordering: .relaxed) > Self.window { sched_yield() }
            }
        }
        // When the reader saw each reading as the newest: that reading is in force then.
        var seenAt = [Int64](repeating: -1, count: count)
        var torn = 0
        var missing = 0
        var distinct = 0
        var oldestRead = 0
        var newest = -1
        var round = 0
        // The reading `frame` was projected from, when it is whole: one in `readings`,
        // projected no further than from the start of the test to `time`.
        func reading(_ frame: Int64, at time: Int64, in readings: ClosedRange<Int>) -> Int? {
            let (k, projected) = frame.quotientAndRemainder(dividingBy: Self.step)
            guard readings.contains(Int(k)), projected >= 0, projected <= (time - start) * rate / 1_000_000_000
            else { return nil }
            return Int(k)
        }
        while newest < count - 1 {
            round += 1
            let now = monotonicNanoseconds()
            if let frame = shared.pointee.deviceClock.outputFrame(at: now) {
                if let k = reading(frame, at: now, in: max(0, newest)...(count - 1)) {
                    if words[k] != Int64(k) * Self.step { missing += 1 }
                    if k > newest {
                        newest = k
                        distinct += 1
                        seenAt[k] = monotonicNanoseconds()
                        progress.seen.store(k, ordering: .relaxed)
                    }
                } else {
                    torn += 1
                }
            } else if newest >= 0 {
                torn += 1
            }
            // The oldest readings kept: the writer's next readings write over them. The writer
            // is at most `window` readings past `newest`, so the last offset is always kept.
            var j = newest - Self.capacity + 1 + round % (Self.window + 1)
            guard j >= 0 else { continue }
            while j < newest && seenAt[j] < 0 { j += 1 }
            // At seenAt[j] reading j was published and the writer had not yet read the clock
            // for reading j + window + 1 (it waits for the reader to see j first).
            let time = seenAt[j]
            // Nil once the writer has written over the reading in force then.
            if let frame = shared.pointee.deviceClock.outputFrame(at: time) {
                if let m = reading(frame, at: time, in: j...(j + Self.window)) {
                    if words[m] != Int64(m) * Self.step { missing += 1 }
                    oldestRead += 1
                } else {
                    torn += 1
                }
            }
        }
        writer.join()
        #expect(torn == 0, "frames from the time of one reading and the frame of another, or from no reading in force")
        #expect(missing == 0, "readings read before what was written ahead of them")
        // The writer was never more than `window` ahead: the reader saw it go by.
        #expect(distinct >= count / (Self.window + 1))
        // Readings about to be written over were read, not only the newest.
        #expect(oldestRead > 0)
    }
}
