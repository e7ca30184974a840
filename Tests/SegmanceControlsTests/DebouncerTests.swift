import Testing
@testable import SegmanceControls

@Suite("Debouncer", .tags(.unit))
struct DebouncerTests {
    @Test func firstEdgeIsAcceptedAtOnceWithItsTimestamp() {
        var debouncer = Debouncer(interval: ms(10))
        #expect(debouncer.edge(true, at: ms(100)) == [.init(level: true, timestamp: ms(100), settled: false)])
        #expect(debouncer.level)
        #expect(debouncer.deadline == nil)
    }

    /// A press bouncing `bounces` times within 3 ms, ending closed: one change, no settle.
    @Test(arguments: 0...5)
    func bounceTrainGivesOneChange(bounces: Int) {
        var debouncer = Debouncer(interval: ms(10))
        var changes: [Debouncer.Change] = []
        var level = true
        changes += debouncer.edge(true, at: 0)
        for k in 0..<(2 * bounces) {
            level.toggle()
            changes += debouncer.edge(level, at: us(300) * Int64(k + 1))
        }
        #expect(level == true)
        changes += debouncer.advance(to: ms(50)).map { [$0] } ?? []
        #expect(changes == [.init(level: true, timestamp: 0, settled: false)])
    }

    @Test func changeDuringIntervalSettlesAtItsEnd() {
        var debouncer = Debouncer(interval: ms(10))
        _ = debouncer.edge(true, at: ms(100))
        #expect(debouncer.edge(false, at: ms(101)) == [])
        #expect(debouncer.deadline == ms(110))
        #expect(debouncer.advance(to: ms(109)) == nil)
        #expect(debouncer.advance(to: ms(110)) == .init(level: false, timestamp: ms(110), settled: true))
        #expect(!debouncer.level)
    }

    @Test func settleIsSeenAtTheNextEdgeWithoutAdvance() {
        var debouncer = Debouncer(interval: ms(10))
        _ = debouncer.edge(true, at: ms(100))
        _ = debouncer.edge(false, at: ms(101))
        // Next edge long after: first the settled release, then this edge's press.
        #expect(debouncer.edge(true, at: ms(500)) == [
            .init(level: false, timestamp: ms(110), settled: true),
            .init(level: true, timestamp: ms(500), settled: false),
        ])
    }

    @Test func edgeAtTheEndOfTheIntervalIsAccepted() {
        var debouncer = Debouncer(interval: ms(10))
        _ = debouncer.edge(true, at: 0)
        #expect(debouncer.edge(false, at: ms(10)) == [.init(level: false, timestamp: ms(10), settled: false)])
    }

    @Test func bounceBackToTheAcceptedLevelLeavesNothingPending() {
        var debouncer = Debouncer(interval: ms(10))
        _ = debouncer.edge(true, at: 0)
        _ = debouncer.edge(false, at: ms(1))
        _ = debouncer.edge(true, at: ms(2))
        #expect(debouncer.deadline == nil)
        #expect(debouncer.advance(to: ms(100)) == nil)
        #expect(debouncer.level)
    }
}
