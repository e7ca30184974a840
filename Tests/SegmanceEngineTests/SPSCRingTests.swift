import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

@Suite(.tags(.unit)) struct SPSCRingTests {
    @Test func firstInFirstOutUpToCapacityThenRefuses() {
        let ring = SPSCRing<Int>(capacity: 4)
        defer { ring.destroy() }
        for i in 0..<4 { #expect(ring.push(i)) }
        #expect(!ring.push(99))
        #expect(ring.peek() == 0)
        #expect(ring.pop() == 0)
        #expect(ring.push(4))
        #expect([ring.pop(), ring.pop(), ring.pop(), ring.pop()] == [1, 2, 3, 4])
        #expect(ring.pop() == nil)
        #expect(ring.peek() == nil)
    }

    final class Box: @unchecked Sendable {
        let ring = SPSCRing<Int>(capacity: 64)
        var received: [Int] = []
        deinit { ring.destroy() }
    }

    /// Two threads, a million values through a small ring: every value arrives once, in order.
    @Test func twoThreadsPassEveryValueInOrder() {
        let box = Box()
        let count = 1_000_000
        var thread = pthread_t()
        let argument = Unmanaged.passRetained(box).toOpaque()
        pthread_create(&thread, nil, { raw in
            let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
            var next = 0
            while next < 1_000_000 {
                if box.ring.push(next) { next += 1 }
            }
            return nil
        }, argument)
        var values: [Int] = []
        values.reserveCapacity(count)
        while values.count < count {
            if let v = box.ring.pop() { values.append(v) }
        }
        pthread_join(thread, nil)
        #expect(values == Array(0..<count))
    }
}
