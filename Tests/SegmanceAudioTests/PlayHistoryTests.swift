import SegmanceCore
import Testing
@testable import SegmanceAudio

/// The play history says, for every output frame, the source frame it played: across a
/// loop's wrap, a seek, a pause's ramp, a part loaded and a part advanced to, and after a
/// restore (a rewind) only what was rendered last counts.
@Suite("Play history", .tags(.unit))
struct PlayHistoryTests {
    nonisolated(unsafe) static let pcm: UnsafePointer<Int16> = {
        let p = UnsafeMutablePointer<Int16>.allocate(capacity: 400_000)
        for i in 0..<400_000 { p[i] = Int16(truncatingIfNeeded: i % 20_000) }
        return UnsafePointer(p)
    }()
    static let first = PCMSlice(base: pcm, frames: 100_000)
    static let second = PCMSlice(base: pcm + 200_000, frames: 80_000)

    /// Commands at output frames: a start, a loop that wraps, a seek, a pause and a play
    /// again, a second part loaded and played, a next part it advances to.
    static let script: [(frame: Int64, command: RenderCommand)] = [
        (0, .load(first)), (0, .play(from: 1_000, countdown: 0)),
        (9_000, .setLoop(start: 5_000, end: 12_000, countdownBeforeRepeat: 0)),
        (40_000, .clearLoop), (41_111, .seek(70_000)), (50_000, .pause), (55_000, .play(from: 60_000, countdown: 0)),
        (65_000, .load(second)), (65_000, .play(from: 75_000, countdown: 0)), (65_000, .setNext(first)),
        (90_000, .stop),
    ]
    static let end: Int64 = 95_000

    /// Renders the script, in `chunk`-frame calls split at the commands' frames.
    static func render(_ renderer: inout Renderer, from: Int64, to: Int64, chunk: Int, epochBase: UInt32 = 0,
                       skip: Set<Int> = []) {
        let out = UnsafeMutablePointer<Float>.allocate(capacity: chunk * 2)
        defer { out.deallocate() }
        var clock = from
        while clock < to {
            for (i, step) in script.enumerated() where step.frame == clock && !skip.contains(i) {
                renderer.apply(StampedCommand(step.command, epoch: epochBase + UInt32(i) + 1))
            }
            let nextCommand = script.map(\.frame).filter { $0 > clock }.min() ?? to
            let n = Int(min(Int64(chunk), min(nextCommand, to) - clock))
            renderer.render(into: out, frames: n)
            clock += Int64(n)
        }
    }

    /// Frame by frame: the position before each frame is the source frame it plays.
    static func truth() -> [(source: Int64, advancing: Bool)] {
        var renderer = Renderer(sampleRate: 48_000, config: .standard(sampleRate: 48_000))
        var out: [(Int64, Bool)] = []
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2)
        defer { buffer.deallocate() }
        for f in 0..<end {
            for (i, step) in script.enumerated() where step.frame == f {
                renderer.apply(StampedCommand(step.command, epoch: UInt32(i) + 1))
            }
            // What `render` settles first thing for this frame (idempotent for one clock).
            renderer.state.processEvents()
            out.append((renderer.state.main.pos, renderer.state.mode != .idle))
            renderer.render(into: buffer, frames: 1)
            _ = renderer.takeReports()
        }
        return out
    }

    @Test(arguments: [128, 1_000, 4_096])
    func everyOutputFrameMapsToTheSourceFrameItPlayed(chunk: Int) {
        let truth = Self.truth()
        var renderer = Renderer(sampleRate: 48_000, config: .standard(sampleRate: 48_000))
        Self.render(&renderer, from: 0, to: Self.end, chunk: chunk)
        #expect(renderer.historyCount < Renderer.historyCapacity)
        var wrong = 0
        for f in 0..<Self.end {
            guard let heard = renderer.heard(atOutput: f) else { wrong += 1; continue }
            let t = truth[Int(f)]
            if heard.advancing != t.advancing || (t.advancing && heard.sourceFrame != t.source) { wrong += 1 }
        }
        #expect(wrong == 0)
        // The loop wrapped: frames after 12 000 played 5 000 again, and the parts are told apart.
        let wraps = (9_000..<40_000).filter { f in renderer.heard(atOutput: Int64(f))?.sourceFrame == 5_000 }
        #expect(wraps.count >= 3)
        #expect(renderer.heard(atOutput: 64_999)?.part == 1 && renderer.heard(atOutput: 65_000)?.part == 2)
        // The second part (80 000 frames) from 75 000 ends after 5 000 frames: the next part follows.
        #expect(renderer.heard(atOutput: 70_000)?.part == 3 && renderer.heard(atOutput: 70_000)?.sourceFrame == 0)
    }

    /// A restore (the deep buffer's rewind) takes the history back with it: frames
    /// rendered again say what they played the second time.
    @Test func afterARestoreOnlyTheFramesRenderedLastCount() {
        let truth = Self.truth()
        var renderer = Renderer(sampleRate: 48_000, config: .standard(sampleRate: 48_000))
        Self.render(&renderer, from: 0, to: 41_111, chunk: 256)
        let snapshot = renderer.snapshot()
        // Something else first (no seek at 41 111, a seek elsewhere later)...
        renderer.apply(StampedCommand(.seek(20_000), epoch: 99))
        Self.render(&renderer, from: 41_111, to: 48_000, chunk: 256, skip: [4])
        let other = renderer.heard(atOutput: 45_000)?.sourceFrame ?? -1
        #expect(other == Int64(20_000 + 45_000 - 41_111), "heard \(other)")
        // ...rewound and rendered as scripted.
        renderer.restore(snapshot)
        Self.render(&renderer, from: 41_111, to: Self.end, chunk: 256)
        var wrong = 0
        for f in 0..<Self.end {
            let t = truth[Int(f)]
            guard let heard = renderer.heard(atOutput: f) else { wrong += 1; continue }
            if heard.advancing != t.advancing || (t.advancing && heard.sourceFrame != t.source) { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    @Test func aFrameBeforeTheHistoryIsNotGuessed() {
        let renderer = Renderer(sampleRate: 48_000, config: .standard(sampleRate: 48_000))
        #expect(renderer.heard(atOutput: 0) == nil)
    }
}
