import LinuxSystem
import SegmanceAudio
import SegmanceCore
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// The control side's position watch (`wakeWhenPosition(reaches:)`): the daemon's loop
/// sleeps until what its screen shows next (the next beat, a cue) is due, and the render
/// thread wakes it when the position it publishes gets there, instead of the loop looking
/// again every 20 ms while the position it read is a render wake old.
// jackd2 is a test dependency (deploy/install-deps.sh); without it there is no paced PCM.
@Suite(.serialized, .enabled(if: JackServer.isInstalled, "jackd2 is not installed: no paced PCM"))
struct PositionWatchTests {
    init() { EngineTestEnvironment.prepare() }

    /// Positions alone do not wake the control side: a watch on frame 30 000 wakes it once,
    /// within a few chunks of that frame being played, period by period and with a deep
    /// buffer (where the render thread refills only 7 times a second: it wakes for the
    /// watched frame on its own, from the positions of the chunks it rendered).
    @Test(arguments: [false, true])
    func theRenderThreadWakesTheControlSideWhenThePositionReachesTheWatchedFrame(deepBuffer: Bool) throws {
        let run = try PacedRun("position-watch-\(deepBuffer)", seconds: 4)
        defer { run.close() }
        let configuration = EngineConfiguration(periodFrames: deepBuffer ? 1024 : 128, periods: deepBuffer ? 8 : 3,
                                                realtimePriority: 50, lockMemory: false,
                                                rewind: deepBuffer ? RewindTests.rewind : nil)
        let engine = try RealtimeAudioEngine(output: try EngineTestEnvironment.jackTap(run.tapPath),
                                             configuration: configuration)
        #expect(engine.send(TimedCommand(StampedCommand(.load(run.part), epoch: 1), frame: 0)))
        #expect(engine.send(TimedCommand(StampedCommand(.play(from: 0, countdown: 0), epoch: 2), frame: 0)))
        let watched: Int64 = 30_000
        engine.wakeWhenPosition(reaches: watched)
        try engine.start()
        defer { engine.stop(drain: false) }

        var woken: [Int64] = []
        // 2.5 s: past the watched frame, before the part's end (a report that wakes it).
        let deadline = monotonicNanoseconds() + 2_500_000_000
        while monotonicNanoseconds() < deadline {
            var fd = pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&fd, 1, 100) > 0 else { continue }
            _ = engine.takeReports()
            woken.append(engine.position.frame)
        }
        let after = woken.filter { $0 >= watched }
        #expect(after.count == 1, "woken once from the watched frame on: \(woken)")
        // Before, a deep buffer's wake came with the next refill: up to 6,144 frames late.
        #expect(after.allSatisfy { $0 - watched < 1_024 }, "woken within 1,024 frames of it: \(woken)")
        #expect(engine.position.frame > 90_000, "it played on: \(engine.position.frame)")
        #expect(engine.xrunCount == 0)
    }
}
