import ALSA
import SegmanceAudio
import Synchronization
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// The position's seqlock (`PublishedPosition.publish` / `read`) between a writer
/// thread, as the render thread, and the test's thread, as the control side.
@Suite(.tags(.integration)) struct PositionSeqlockTests {
    /// Published positions the writer may be ahead of the last one the reader saw: the
    /// two threads go along together, so the reader reads while the writer writes.
    static let window = 16

    /// The writer publishes positions 1…N (frame k·1000, epoch k) while the reader reads them:
    /// every pair read is one that was published (never the frame of one with the epoch of
    /// another), and what the writer wrote before publishing a position, a plain word per
    /// position, is there for a reader that got that position. Under ThreadSanitizer
    /// (`Tests/Sanitizers/run.sh thread`) the reader's read of that word races with its write
    /// unless the `Seqlock`'s releasing store (the end of `write`, in `publish`) and acquiring
    /// load (the start of `read`) order them (`Tests/Sanitizers/README.md`).
    @Test func theReaderGetsWholePairsAndWhatWasWrittenBeforeThem() throws {
        let device = try PCMDevice(name: "null")
        let context = try allocateNullRenderContext(device)
        let count = 20_000
        let words = UnsafeMutablePointer<Int64>.allocate(capacity: count + 1)
        words.initialize(repeating: 0, count: count + 1)
        defer {
            freeNullRenderContext(context)
            words.deallocate()
        }
        let progress = SeqlockProgress(seen: 0)
        // The reader reaches the shared memory as the control side does, never through the
        // render context the writer holds.
        let shared = context.pointee.shared

        let writer = TestThread {
            for k in 1...count {
                words[k] = Int64(k) * 1_000
                shared.pointee.position.publish(Int64(k) * 1_000, UInt32(k))
                while k - progress.seen.load(ordering: .relaxed) > Self.window { sched_yield() }
            }
        }
        var torn = 0
        var missing = 0
        var distinct = 0
        var last: UInt32 = 0
        while last < count {
            let (frame, epoch) = shared.pointee.position.read()
            if frame != Int64(epoch) * 1_000 || epoch > count {
                torn += 1
            } else if words[Int(epoch)] != frame {
                missing += 1
            }
            if epoch != last {
                distinct += 1
                last = epoch
                progress.seen.store(Int(epoch), ordering: .relaxed)
            }
        }
        writer.join()
        #expect(torn == 0, "pairs read with the frame of one position and the epoch of another")
        #expect(missing == 0, "positions read before what was written ahead of them")
        // The writer was never more than `window` ahead: the reader saw it go by.
        #expect(distinct >= count / (Self.window + 1))
    }
}
