import Synchronization

/// The newest entry the reader of a seqlock test has seen, for the writer to stay at most a
/// window ahead. Relaxed on both sides: it paces the writer without ordering anything itself.
final class SeqlockProgress: Sendable {
    let seen: Atomic<Int>

    init(seen: Int) { self.seen = Atomic(seen) }
}
