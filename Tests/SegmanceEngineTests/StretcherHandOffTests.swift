import SegmanceAudio
import Testing
@testable import SegmanceEngine

/// The stretchers' hand-off at a speed change, on the real threads: the first speed other
/// than 100 % has a worker make and warm the stretch voices (`StretcherMaker`), the control
/// side takes them and hands them to the render thread with the speed command through the
/// command ring, whose releasing store (`SPSCRing.push`) and acquiring load (`peek`, `pop`)
/// are the hand-off's fence: everything the worker and the control side wrote into the
/// voices happens before the render thread runs them. Under ThreadSanitizer
/// (`Tests/Sanitizers/run.sh thread`) a hand-off without that fence (push's store relaxed)
/// is reported: 10 data races on the rings' slots in this suite alone; here and without the
/// sanitizer, the stretched audio reaches the paced device with no underrun, in both
/// schedulings.
@Suite(.tags(.integration), .serialized)
struct StretcherHandOffTests {
    init() { EngineTestEnvironment.prepare() }

    @Test(arguments: [false, true])
    func theStretchersMadeForTheFirstSpeedChangeReachTheRenderThreadAndPlay(deepBuffer: Bool) throws {
        let run = try PacedRun("hand-off", seconds: 10, device: .paced(continuous: deepBuffer))
        defer { run.close() }
        let render = Replay.configuration.render
        let configuration = deepBuffer
            ? EngineConfiguration(periodFrames: 1024, periods: 8, realtimePriority: 50, lockMemory: false,
                                  render: render, rewind: RewindTests.rewind)
            : EngineConfiguration(realtimePriority: 50, lockMemory: false, render: render)
        let playing = try PlayingEngine(try RealtimeAudioEngine(output: try run.output(), configuration: configuration),
                                        part: run.part)
        let engine = playing.engine
        try playing.collect { engine.framesHanded >= 12_000 }
        // Not prepared: the worker makes them, the speed change waits for them.
        engine.send(StampedCommand(.setSpeed(80), epoch: 3))
        let changed = engine.framesHanded
        try playing.collect { engine.stretchVoices > 0 && engine.framesHanded >= changed + 48_000 }
        engine.send(StampedCommand(.setSpeed(125), epoch: 4))
        let again = engine.framesHanded
        try playing.collect { engine.framesHanded >= again + 24_000 }
        engine.stop(drain: true)
        playing.log += engine.takeLog()

        #expect(engine.stretchVoices == Renderer.stretchVoices(render))
        #expect(engine.xrunCount == 0, "\(playing.log)")
        #expect(!playing.log.contains { $0.contains("late") }, "\(playing.log)")
        #expect(playing.timings.map(\.firstEpoch).contains(3), "the speed change was applied: \(playing.timings)")
        let truth = try run.truth()
        let gaps = truth.gaps(before: engine.framesHanded)
        #expect(gaps.xruns.isEmpty && gaps.shorts.isEmpty, "underruns \(gaps.xruns), short fetches \(gaps.shorts)")
        // The device played stretched audio: the counting part no longer counts frame by frame
        // after the change (a stretcher's output is not the source's samples), and is not silent.
        let captured = try Replay.s16Samples(run.tapPath)
        // Half a second on, or past the change's crossfade where it applied later (under
        // ThreadSanitizer the worker takes longer to make the stretchers).
        let applied = playing.timings.first { $0.firstEpoch <= 3 && 3 <= $0.lastEpoch }?.frame ?? changed
        let after = Int(max(changed + 24_000, applied + 4_800))
        try #require(captured.count / 2 > after + 4_800)
        let window = (after..<(after + 4_800)).map { XrunTests.frameIndex(captured[2 * $0], captured[2 * $0 + 1]) }
        let counting = zip(window, window.dropFirst()).filter { $1 == $0 + 1 }.count
        // Played plain, every frame counts on; at 80 % the source advances 0.8 frames an output
        // frame, so a stretcher's output (the counting ramp stretched) steps by exactly one at
        // most about 80 % of the time.
        #expect(counting < window.count * 9 / 10, "\(counting) of \(window.count) frames count on: not stretched")
        #expect(window.contains { $0 != XrunTests.frameIndex(0, 0) })
    }
}
