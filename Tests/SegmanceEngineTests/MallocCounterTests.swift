import CMallocCounter
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The counter the allocation tests rely on really sees heap calls, per thread.
@Suite(.tags(.unit)) struct MallocCounterTests {
    @Test func countsTheCallingThreadsHeapCalls() {
        segmance_alloc_count_begin()
        let p = malloc(64)
        free(p)
        let array = [Int](repeating: 1, count: 100)
        let n = segmance_alloc_count_end()
        #expect(array.count == 100)
        #expect(n >= 3)
    }

    @Test func countsNothingBetweenEndAndBegin() {
        segmance_alloc_count_begin()
        let n = segmance_alloc_count_end()
        let p = malloc(64)
        free(p)
        #expect(n == 0)
    }
}
