import SegmanceCore
import Testing
@testable import SegmanceAudio

@Suite("Output independent of how calls split the timeline", .tags(.unit))
struct SplitTests {
    /// A busy timeline at 8 kHz: countdown, seeks while playing and paused, a loop with a
    /// counted repeat, volume changes, pause and resume, a restart, the next part.
    func busy(period: Int) -> Take {
        let first = TestPCM(frames: 14_000)
        let second = TestPCM(frames: 6000, seed: 3000)
        defer { first.free(); second.free() }
        var r = Renderer(sampleRate: 8000,
                         config: RenderConfig(rampFrames: 40, crossfadeFrames: 56,
                                              volumeRampFrames: 33, positionReportInterval: 800,
                                              tick: TickSound(frequency: 1000, amplitude: 0.4,
                                                              duration: 0.03)))
        let cues = [
            Cue(0, .load(first.slice)),
            Cue(10, .play(from: 1000, countdown: 2)),
            Cue(17_000, .seek(5000)),
            Cue(17_500, .setVolume(40)),
            Cue(18_003, .setLoop(start: 4000, end: 6500, countdownBeforeRepeat: 1)),
            Cue(20_000, .setVolume(100)),
            Cue(27_777, .pause),
            Cue(27_800, .seek(4200)),
            Cue(29_000, .play(from: 4200, countdown: 0)),
            Cue(29_100, .seek(6000)),
            Cue(29_500, .play(from: 4100, countdown: 1)),
            Cue(31_000, .clearLoop),
            Cue(31_000, .setNext(second.slice)),
            Cue(50_000, .stop),
        ]
        return run(&r, cues, frames: 52_000, period: period)
    }

    @Test("periods of any size give the same samples and reports",
          arguments: [128, 97, 1, 2, 40, 41, 1000, 4099])
    func sameOutput(period: Int) {
        let reference = busy(period: 52_000)
        let take = busy(period: period)
        #expect(take.out == reference.out)
        #expect(take.reports == reference.reports)
    }

    @Test("the busy timeline does what it says")
    func busyTimeline() {
        let take = busy(period: 128)
        let kinds = take.events.map(\.report.kind)
        #expect(kinds.contains(.looped))
        #expect(kinds.contains(.advanced))
        #expect(kinds.filter { $0 == .countdownTick(remaining: 0) }.count >= 3)
        #expect(take.out.allSatisfy { $0.isFinite && abs($0) <= 1 })
        // After the stop's ramp, silence.
        #expect(take.firstSound(50_040..<52_000) == nil)
    }
}
