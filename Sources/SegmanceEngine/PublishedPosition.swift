import Atomics

/// The render thread's position for the control side: the part-relative frame and the
/// epoch as one pair under a `Seqlock`, and the control side's watch on it.
struct PublishedPosition: ~Copyable {
    private let seqlock = Seqlock()
    private let frame: UnsafeAtomic<Int64> = .create(0)
    private let epoch: UnsafeAtomic<UInt32> = .create(0)
    /// The control side's watch: the first position published at or past this frame (any
    /// epoch) wakes it once and resets the watch to `Int64.max` (none). The control side
    /// sleeps until what its screen shows next is due, rather than looking again and again.
    let watch: UnsafeAtomic<Int64> = .create(Int64.max)

    init() {}

    deinit {
        seqlock.destroy()
        frame.destroy()
        epoch.destroy()
        watch.destroy()
    }

    /// Control side: a consistent (frame, epoch) pair.
    func read() -> (frame: Int64, epoch: UInt32) {
        seqlock.read { (frame.load(ordering: .relaxed), epoch.load(ordering: .relaxed)) }
    }

    /// Render thread: publishes (frame, epoch). True when it reached the control side's
    /// watch (then reset): the caller wakes the control side.
    @discardableResult
    func publish(_ frame: Int64, _ epoch: UInt32) -> Bool {
        seqlock.write {
            self.frame.store(frame, ordering: .relaxed)
            self.epoch.store(epoch, ordering: .relaxed)
        }
        let watched = watch.load(ordering: .relaxed)
        guard frame >= watched else { return false }
        return watch.compareExchange(expected: watched, desired: Int64.max, ordering: .relaxed).exchanged
    }
}
