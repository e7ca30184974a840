import SegmanceCore
import Testing
@testable import SegmanceEngine

@Suite(.tags(.unit)) struct RenderWarmUpTests {
    /// The warm-up must go through every path the render thread can take, or a first
    /// countdown tick, loop seam or part change could still fault on the real-time thread.
    @Test(arguments: [128, 256])
    func theWarmUpGoesThroughEveryRenderPath(period: Int) {
        let kinds = RenderWarmUp.run(EngineConfiguration(device: "null", periodFrames: period))
        #expect(kinds.contains(.countdownTick(remaining: 0)), "an accented tick")
        #expect(kinds.contains { if case .started = $0 { true } else { false } })
        #expect(kinds.contains { if case .position = $0 { true } else { false } })
        #expect(kinds.filter { $0 == .looped }.count >= 2, "a seamless and a counted loop repeat")
        #expect(kinds.contains(.loopFinished), "a loop's last pass")
        #expect(kinds.contains(.advanced), "the next part took over")
    }
}
