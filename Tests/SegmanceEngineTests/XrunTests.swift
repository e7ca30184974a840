import Foundation
import SegmanceAudio
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// A real underrun on a paced device: jackd's dummy backend behind alsa-lib's jack plugin
/// consumes audio in real time; the render thread is made to stall once (a test hook)
/// for longer than the whole buffer, so the device runs dry, `snd_pcm_writei` fails with
/// EPIPE and `snd_pcm_recover` re-prepares it. The xrun is counted and logged from the
/// control side, and the stream goes on where it was: not one frame of the part is lost
/// or repeated in what the engine hands ALSA (captured by a `type file` tap in front of
/// the jack PCM).
// jackd2 is a test dependency (deploy/install-deps.sh); without it there is no paced
// userspace PCM to underrun, so the test says why it is skipped.
@Suite(.tags(.integration), .serialized, .enabled(if: JackServer.isInstalled, "jackd2 is not installed: no paced PCM to underrun"))
struct XrunTests {
    init() { EngineTestEnvironment.prepare() }

    /// A part whose every frame says where it is: left = f % 20000 - 10000, right = f / 20000 - 50.
    static func countingPart(frames: Int) -> UnsafeMutablePointer<Int16> {
        let pcm = UnsafeMutablePointer<Int16>.allocate(capacity: frames * 2)
        for f in 0..<frames {
            pcm[2 * f] = Int16(f % 20_000 - 10_000)
            pcm[2 * f + 1] = Int16(f / 20_000 - 50)
        }
        return pcm
    }

    static func frameIndex(_ left: Int16, _ right: Int16) -> Int { (Int(right) + 50) * 20_000 + Int(left) + 10_000 }

    @Test func aStalledRenderThreadUnderrunsIsCountedRecoversAndPlaysOnWithoutLosingAFrame() throws {
        let run = try PacedRun("xrun", seconds: 10)
        defer { run.close() }
        let path = run.tapPath

        var log: [String] = []
        var handedAtStall: Int64 = 0
        let hooks = HookProbe()
        defer { hooks.destroy() }
        do {
            // SCHED_FIFO where permitted, so a busy machine does not add underruns of its own
            // (if it does anyway, they are recovered like the provoked one and counted).
            let configuration = EngineConfiguration(realtimePriority: 50, lockMemory: false)
            // On a timeout the engine is dropped, not drained.
            let playing = try PlayingEngine(try RealtimeAudioEngine(output: try EngineTestEnvironment.jackTap(path),
                                                                    configuration: configuration, probe: hooks),
                                            part: run.part, recordsTimings: false)
            let engine = playing.engine
            defer { engine.stop(drain: false) }
            defer { log = playing.log }
            try playing.collect { engine.framesHanded >= 24_000 }
            let before = engine.xrunCount
            handedAtStall = engine.framesHanded
            hooks.stallOnce(nanoseconds: 100_000_000) // the buffer holds 8 ms
            try playing.collect { engine.xrunCount > before }
            let afterXrun = engine.framesHanded
            try playing.collect { engine.framesHanded >= afterXrun + 24_000 }
            engine.stop(drain: true)
            playing.log += engine.takeLog()
            #expect(engine.xrunCount > before)
            #expect(engine.position.frame > afterXrun)
        }
        #expect(log.contains { $0.contains("underrun") && $0.contains("recovered") }, "\(log)")

        // Every captured frame after the play ramp is the next frame of the part.
        let captured = try Replay.s16Samples(path)
        let ramp = 240
        #expect(captured.count / 2 > Int(handedAtStall) + 24_000)
        var breaks = 0
        var previous = Self.frameIndex(captured[2 * ramp], captured[2 * ramp + 1])
        for f in (ramp + 1)..<(captured.count / 2) {
            let index = Self.frameIndex(captured[2 * f], captured[2 * f + 1])
            if index != previous + 1 { breaks += 1 }
            previous = index
        }
        #expect(breaks == 0)
    }

    /// A device that stops consuming altogether (its server frozen, like a hung USB DAC)
    /// does not hold up a draining stop: after the buffer's length and a second's margin
    /// the engine drops what is left, says so in its log, and the device is stopped.
    @Test(arguments: [false, true])
    func aDeviceThatStopsConsumingDoesNotHoldUpADrainingStop(deepBuffer: Bool) throws {
        let run = try PacedRun("frozen", seconds: 10)
        defer { run.close() }
        let jack = try #require(run.jack)
        let configuration = deepBuffer
            ? EngineConfiguration(periodFrames: 1024, periods: 8, realtimePriority: 50, lockMemory: false,
                                  rewind: RewindTests.rewind)
            : EngineConfiguration(realtimePriority: 50, lockMemory: false)
        let engine = try RealtimeAudioEngine(output: try EngineTestEnvironment.jackTap(run.tapPath),
                                             configuration: configuration)
        var log: [String] = []
        try withExtendedLifetime(engine) {
            // The device is closed only after the server goes on: closing a jack client
            // talks to its server.
            defer { jack.resume() }
            engine.send(StampedCommand(.load(run.part), epoch: 1))
            engine.send(StampedCommand(.play(from: 0, countdown: 0), epoch: 2))
            try engine.start()
            try #require(Replay.wait(engine, timeout: 30, until: { engine.framesHanded >= 24_000 }) {
                _ = engine.takeReports()
            })
            jack.freeze()
            engine.stop(drain: true)
            log += engine.takeLog()
            #expect(!engine.isRunning)
            #expect(engine.device.state == .setup, "the device was dropped")
        }
        #expect(log.contains { $0.contains("did not play out its buffer") && $0.contains("dropped") }, "\(log)")
    }
}
