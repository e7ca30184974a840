import CMallocCounter
import Glibc
import LinuxSystem
import Testing

/// What the render thread may call makes no heap call (counted per thread by CMallocCounter).
@Suite(.tags(.integration)) struct RenderThreadSafetyTests {
    @Test func theClockSleepingAndAWakeAllocateNothing() throws {
        let wake = try EventDescriptor()
        segmance_alloc_count_begin()
        let now = monotonicNanoseconds()
        sleepUntilMonotonic(now + 1_000_000)
        sleepMonotonic(nanoseconds: 1_000_000)
        wake.signal()
        EventDescriptor.signal(wake.fileDescriptor, 2)
        let calls = segmance_alloc_count_end()
        #expect(calls == 0)
        #expect(wake.take() == 3)
        #expect(monotonicNanoseconds() - now >= 2_000_000)
    }
}
