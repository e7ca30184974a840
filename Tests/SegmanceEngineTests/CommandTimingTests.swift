import SegmanceAudio
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// When commands apply: at the next period boundary, or at exactly the frame they carry;
/// one that comes too late applies at once and is logged.
@Suite(.tags(.integration), .serialized) struct CommandTimingTests {
    init() { EngineTestEnvironment.prepare() }

    /// A second of constant audio, never freed (read by the render threads of these tests).
    nonisolated(unsafe) static let pcm: UnsafeMutablePointer<Int16> = {
        let p = UnsafeMutablePointer<Int16>.allocate(capacity: 96_000)
        p.initialize(repeating: 1000, count: 96_000)
        return p
    }()

    func engine(period: Int = 128) throws -> RealtimeAudioEngine {
        var c = EngineConfiguration(device: "null", periodFrames: period, lockMemory: false)
        c.realtimePriority = nil
        let engine = try RealtimeAudioEngine(configuration: c)
        engine.recordsTimings = true
        try engine.start()
        return engine
    }

    func timings(_ engine: RealtimeAudioEngine, count: Int) -> [CommandTiming] {
        var all: [CommandTiming] = []
        Replay.wait(engine, timeout: 30, until: { all.count >= count }) {
            _ = engine.takeReports()
            all += engine.takeTimings()
        }
        return all
    }

    @Test func aPlainCommandAppliesAtAPeriodBoundary() throws {
        let engine = try engine(period: 100)
        defer { engine.stop(drain: false) }
        // One at a time: commands that reach the thread in the same period share a timing.
        var applied: [CommandTiming] = []
        for epoch in UInt32(1)...5 {
            engine.send(StampedCommand(.setVolume(Int32(epoch) * 10), epoch: epoch))
            applied += timings(engine, count: 1)
        }
        try #require(applied.count == 5)
        #expect(applied.map(\.firstEpoch) == [1, 2, 3, 4, 5])
        #expect(applied.allSatisfy { $0.frame % 100 == 0 })
        #expect(applied.allSatisfy { $0.handedThrough > $0.frame + 1 && $0.handedAt > 0 })
    }

    @Test func aTimedCommandAppliesAtItsFrameInsideAPeriod() throws {
        let engine = try engine()
        defer { engine.stop(drain: false) }
        let target = engine.framesHanded + 48_000 + 37
        #expect(engine.send(TimedCommand(StampedCommand(.load(PCMSlice(base: Self.pcm, frames: 48_000)), epoch: 7),
                                         frame: target)))
        #expect(engine.send(TimedCommand(StampedCommand(.play(from: 0, countdown: 0), epoch: 8), frame: target + 1)))
        let applied = timings(engine, count: 1)
        try #require(applied.count == 1)
        #expect(applied[0].frame == target)
        #expect(applied[0].firstEpoch == 7 && applied[0].lastEpoch == 8)
        #expect(!engine.takeLog().contains { $0.contains("late") })
    }

    @Test func aCommandForAFramePastAppliesAtOnceAndIsLogged() throws {
        let engine = try engine()
        defer { engine.stop(drain: false) }
        Replay.wait(engine, timeout: 30, until: { engine.framesHanded >= 10_000 })
        engine.send(TimedCommand(StampedCommand(.setVolume(50), epoch: 3), frame: 5))
        let applied = timings(engine, count: 1)
        try #require(applied.count == 1)
        #expect(applied[0].frame > 5)
        #expect(engine.takeLog().contains { $0.contains("epoch 3 for frame 5 arrived late") })
    }
}
