import Atomics
import CThreadSanitizer

/// A fixed-capacity, lock-free, single-producer/single-consumer queue of plain values.
///
/// One thread pushes, one other thread peeks and pops; neither ever waits, allocates,
/// locks or retains anything. `Element` must be trivial (plain data, no references): the
/// slots are raw memory and values are copied bit for bit.
///
/// The indices count up forever (wrapping `Int` is out of reach); a slot is
/// `index % capacity`. The producer publishes a filled slot with a releasing store of
/// `tail`; the consumer frees one with a releasing store of `head`. All members are `let`,
/// so both sides use the same value without exclusive access. Storage is allocated in
/// `init` and freed by `destroy()`, which the owner calls once both threads are done.
///
/// Each slot access is also announced to ThreadSanitizer (a no-op without it): in a debug
/// build the copy in and out of a slot is generic code that runs in the Swift runtime,
/// which ThreadSanitizer does not see, so a ring whose orderings were weakened would
/// otherwise race unreported (`Tests/Sanitizers/README.md`).
struct SPSCRing<Element> {
    let capacity: Int
    private let slots: UnsafeMutablePointer<Element>
    /// Next slot to read; written by the consumer only.
    private let head: UnsafeAtomic<Int>
    /// Next slot to write; written by the producer only.
    private let tail: UnsafeAtomic<Int>

    init(capacity: Int) {
        precondition(_isPOD(Element.self), "SPSCRing holds plain data only")
        self.capacity = max(1, capacity)
        slots = .allocate(capacity: self.capacity)
        head = .create(0)
        tail = .create(0)
    }

    /// Frees the storage. Call once, when neither side will touch the ring again.
    func destroy() {
        slots.deallocate()
        head.destroy()
        tail.destroy()
    }

    /// Producer: appends `value`; false when the ring is full (nothing is changed).
    @discardableResult
    func push(_ value: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        if t &- head.load(ordering: .acquiring) >= capacity { return false }
        let slot = slots + t % capacity
        slot.initialize(to: value)
        segmance_tsan_write_range(slot, UInt(MemoryLayout<Element>.size))
        tail.store(t &+ 1, ordering: .releasing)
        return true
    }

    /// Consumer: the oldest value, left in the ring; nil when empty.
    func peek() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let slot = slots + h % capacity
        segmance_tsan_read_range(slot, UInt(MemoryLayout<Element>.size))
        return slot.pointee
    }

    /// Consumer: removes and returns the oldest value; nil when empty.
    func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let slot = slots + h % capacity
        segmance_tsan_read_range(slot, UInt(MemoryLayout<Element>.size))
        let value = slot.move()
        head.store(h &+ 1, ordering: .releasing)
        return value
    }

    /// Values waiting (exact for either side's own view; a snapshot for the other).
    var count: Int { tail.load(ordering: .acquiring) &- head.load(ordering: .acquiring) }
}
