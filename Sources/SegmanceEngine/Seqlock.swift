import Atomics

/// A sequence counter guarding words one thread writes and others read without a lock,
/// shaped like the kernel's `seqcount_t`: the writer makes the count odd, writes, and makes
/// it even again; a reader reads between two loads of the count and retries while it was
/// odd or changed. The guarded words must be atomics (read relaxed) so a reader that races
/// a writer reads torn values, never undefined ones, and throws them away.
///
/// Orderings, as `write_seqcount_begin`/`_end` and `read_seqcount_begin`/`_retry`: the
/// writer's first increment is followed by a releasing fence (the words cannot be seen
/// before the count is odd) and its second is a releasing store (the words are seen before
/// the count is even); a reader's first load is acquiring (what was written before that
/// even count is seen) and an acquiring fence precedes its second (the words are read
/// before it). One writer at a time; the writer never waits, allocates or calls the system.
struct Seqlock {
    private let sequence: UnsafeAtomic<Int>

    init() { sequence = .create(0) }

    /// Frees the counter; call once, when neither side will use it again.
    func destroy() { sequence.destroy() }

    /// Writer: runs `body`, which stores the guarded words, inside an odd count.
    @inline(__always)
    func write<Result>(_ body: () -> Result) -> Result {
        let s = sequence.load(ordering: .relaxed)
        sequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        let result = body()
        sequence.store(s &+ 2, ordering: .releasing)
        return result
    }

    /// Reader: runs `body`, which loads the guarded words, until it ran with no write
    /// begun or ended meanwhile, and returns what that run returned.
    @inline(__always)
    func read<Result>(_ body: () -> Result) -> Result {
        while true {
            let s = sequence.load(ordering: .acquiring)
            if s & 1 != 0 { continue }
            let result = body()
            atomicMemoryFence(ordering: .acquiring)
            if sequence.load(ordering: .relaxed) == s { return result }
        }
    }
}
