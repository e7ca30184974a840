import ALSA
import Synchronization
import Testing
@testable import SegmanceAudio
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// The play history's seqlock (`RenderContext.publishHistory` / `PublishedHistory.heard(atOutput:)`) between
/// a writer thread, as the render thread, and the test's thread, as the control side.
@Suite(.tags(.integration)) struct PlayHistorySeqlockTests {
    /// History entries the writer may be ahead of the newest the reader saw.
    static let window = 16
    static let capacity = Renderer.historyCapacity

    /// Entry `k` of the history the writer makes: every word differs from the entry the
    /// same slot held `capacity` entries before (256 is not a multiple of 5), so a read that
    /// mixes the two shows.
    static func span(_ k: Int) -> PlayedSpan {
        PlayedSpan(outputFrame: Int64(k) * 1_000, sourceFrame: Int64(k) * 7 + 3, rate: Double(k % 5) / 2,
                   epoch: UInt32(k), part: UInt32(k) ^ 0x5A5A_5A5A)
    }

    /// What `heard(atOutput: frame)` says when entry `k` is the one that covers `frame`.
    static func heard(_ k: Int, at frame: Int64) -> HeardFrame {
        let span = span(k)
        return HeardFrame(sourceFrame: span.sourceFrame(atOutput: frame), epoch: span.epoch, part: span.part,
                          advancing: span.rate != 0)
    }

    /// The writer adds entries 0…N−1 to the renderer's history, one to three at a time, and
    /// publishes each batch with `publishHistory` while the reader asks `heard(atOutput:)`
    /// about the newest entry and about the oldest ones kept, which the writer is writing
    /// over: every answer is the one the entry that covers the frame gives (never words of
    /// two entries), and what the writer wrote before publishing an entry, a plain word per
    /// entry, is there for a reader that got that entry. Under ThreadSanitizer
    /// (`Tests/Sanitizers/run.sh thread`) the reader's read of that word races with its
    /// write unless the `Seqlock`'s releasing store (the end of `publishHistory`) and
    /// acquiring load (the start of `heard(atOutput:)`) order them (`Tests/Sanitizers/README.md`).
    @Test func theReaderGetsWholeEntriesAndWhatWasWrittenBeforeThem() throws {
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
        let history = context.pointee.renderer.state.history

        let writer = TestThread {
            var k = 0
            while k < count {
                let end = min(count, k + 1 + k % 3)
                for i in k..<end {
                    words[i] = Int64(i) * 1_000 + 1
                    history[i % Self.capacity] = Self.span(i)
                }
                context.pointee.renderer.state.historyCount = end
                context.pointee.publishHistory()
                k = end
                while k - 1 - progress.seen.load(ordering: .relaxed) > Self.window { sched_yield() }
            }
        }
        var torn = 0
        var missing = 0
        var distinct = 0
        var oldestRead = 0
        var newest = -1
        var round = 0
        let beyond = Int64(count) * 1_000
        while newest < count - 1 {
            round += 1
            if let got = shared.pointee.history.heard(atOutput: beyond) {
                let k = Int(got.epoch)
                if k < newest || k >= count || got != Self.heard(k, at: beyond) {
                    torn += 1
                } else if words[k] != Int64(k) * 1_000 + 1 {
                    missing += 1
                }
                if k > newest && k < count {
                    newest = k
                    distinct += 1
                    progress.seen.store(k, ordering: .relaxed)
                }
            }
            // The oldest entries kept: the writer's next batches write over them. The writer is
            // at most window + 3 entries past `newest`, so the last offsets are always kept.
            let j = newest - Self.capacity + 1 + round % (Self.window + 8)
            guard j >= 0 else { continue }
            let frame = Int64(j) * 1_000 + 500
            // Nil once the writer has written over entry j (and so over every older one).
            if let got = shared.pointee.history.heard(atOutput: frame) {
                if got != Self.heard(j, at: frame) {
                    torn += 1
                } else if words[j] != Int64(j) * 1_000 + 1 {
                    missing += 1
                }
                oldestRead += 1
            }
        }
        writer.join()
        #expect(torn == 0, "answers from words of two entries, or from an entry that does not cover the frame")
        #expect(missing == 0, "entries read before what was written ahead of them")
        // The writer was never more than `window` (and a batch) ahead: the reader saw it go by.
        #expect(distinct >= count / (Self.window + 4))
        // Entries about to be written over were read, not only the newest.
        #expect(oldestRead > 0)
    }
}
