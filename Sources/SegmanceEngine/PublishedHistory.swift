import Atomics
import SegmanceAudio

/// The renderer's play history, published for the control side (which never touches the
/// renderer): entry `i` in the four words from `(i % capacity) · 4` (`PlayedSpan`'s output
/// frame, source frame, rate bits, epoch << 32 | part), `count` entries in all, under a
/// `Seqlock` (`SeqlockedWords`).
struct PublishedHistory: ~Copyable {
    static let capacity = Renderer.historyCapacity
    private let words = SeqlockedWords(capacity: Self.capacity * 4)

    init() {}

    @inline(__always)
    private func word(_ index: Int) -> UnsafeAtomic<Int64> { words.word(index) }

    /// Render thread: publishes the renderer's entries from `synced` on (those written since
    /// the last call, and those a rewind made it write again) and returns the count it
    /// published. No allocation, lock or system call.
    func publish(from renderer: inout Renderer, synced: Int) -> Int {
        let total = renderer.historyCountInPlace()
        let from = min(synced, total)
        guard from != total || words.count.load(ordering: .relaxed) != total else { return total }
        words.seqlock.write {
            var i = max(from, total &- Self.capacity)
            while i < total {
                let span = renderer.playedSpanInPlace(at: i)
                let w = (i % Self.capacity) &* 4
                word(w).store(span.outputFrame, ordering: .relaxed)
                word(w &+ 1).store(span.sourceFrame, ordering: .relaxed)
                word(w &+ 2).store(Int64(bitPattern: span.rate.bitPattern), ordering: .relaxed)
                word(w &+ 3).store(Int64(span.epoch) << 32 | Int64(span.part), ordering: .relaxed)
                i &+= 1
            }
            words.count.store(total, ordering: .relaxed)
        }
        return total
    }

    /// Control side: what output frame `frame` played (only frames the device has played are
    /// final: with rewinds, later ones may change).
    func heard(atOutput frame: Int64) -> HeardFrame? {
        words.seqlock.read {
            let count = words.count.load(ordering: .relaxed)
            return PlayedSpan.heard(atOutput: frame, count: count, capacity: Self.capacity) { i in
                let w = (i % Self.capacity) * 4
                let tags = word(w + 3).load(ordering: .relaxed)
                return PlayedSpan(outputFrame: word(w).load(ordering: .relaxed),
                                  sourceFrame: word(w + 1).load(ordering: .relaxed),
                                  rate: Double(bitPattern: UInt64(bitPattern: word(w + 2).load(ordering: .relaxed))),
                                  epoch: UInt32(truncatingIfNeeded: tags >> 32),
                                  part: UInt32(truncatingIfNeeded: tags))
            }
        }
    }
}
