import SegmanceCore
import Testing
@testable import SegmanceAudio

/// A snapshot is the whole render state at a frame: restored, the renderer renders the
/// same samples and reports again, whatever it did in between.
@Suite("Snapshots of the render state", .tags(.unit))
struct SnapshotTests {
    nonisolated(unsafe) static let pcm: UnsafePointer<Int16> = {
        let p = UnsafeMutablePointer<Int16>.allocate(capacity: 96_000)
        for i in 0..<96_000 { p[i] = Int16(truncatingIfNeeded: i &* 7 % 20_000 - 10_000) }
        return UnsafePointer(p)
    }()

    func render(_ renderer: inout Renderer, frames: Int) -> [Float] {
        var out = [Float](repeating: 0, count: frames * 2)
        out.withUnsafeMutableBufferPointer { renderer.render(into: $0.baseAddress!, frames: frames) }
        return out
    }

    @Test func restoringRendersTheSameFramesAndReportsAgain() {
        var renderer = Renderer(sampleRate: 48_000, config: .standard(sampleRate: 48_000))
        renderer.apply(StampedCommand(.load(PCMSlice(base: Self.pcm, frames: 48_000)), epoch: 1))
        renderer.apply(StampedCommand(.play(from: 0, countdown: 1), epoch: 2))
        _ = render(&renderer, frames: 40_000)
        renderer.apply(StampedCommand(.setLoop(start: 1_000, end: 9_000, countdownBeforeRepeat: 0), epoch: 3))
        _ = renderer.takeReports()
        let snapshot = renderer.snapshot()
        #expect(snapshot.clock == 40_000 && snapshot.epoch == 3)

        let first = render(&renderer, frames: 20_000)
        let firstReports = renderer.takeReports()
        // Something else happens to the frames after the snapshot...
        renderer.apply(StampedCommand(.seek(30_000), epoch: 4))
        _ = render(&renderer, frames: 5_000)
        // ...and is undone.
        renderer.restore(snapshot)
        #expect(renderer.clock == 40_000 && renderer.epoch == 3 && renderer.reportCount == 0)
        let again = render(&renderer, frames: 20_000)
        #expect(again == first)
        #expect(renderer.takeReports() == firstReports)
        #expect(firstReports.contains { $0.report.kind == .looped })
    }
}
