import Atomics

/// Atomic words one thread writes and others read under a `Seqlock`, with a count the
/// writer keeps beside them (entries written so far): the storage of the play history and
/// the device clock the render thread publishes.
struct SeqlockedWords: ~Copyable {
    let seqlock = Seqlock()
    let count: UnsafeAtomic<Int> = .create(0)
    private let words: UnsafeMutablePointer<UnsafeAtomic<Int64>.Storage>
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        words = .allocate(capacity: capacity)
        words.initialize(repeating: UnsafeAtomic<Int64>.Storage(0), count: capacity)
    }

    deinit {
        words.deinitialize(count: capacity)
        words.deallocate()
        seqlock.destroy()
        count.destroy()
    }

    /// Word `index` (`0..<capacity`), loaded and stored relaxed inside the seqlock.
    @inline(__always)
    func word(_ index: Int) -> UnsafeAtomic<Int64> { UnsafeAtomic(at: words + index) }
}
