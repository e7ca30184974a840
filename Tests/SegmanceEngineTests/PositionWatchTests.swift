import MonotonicTime
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

    /// Positions alone wake the control side once a second (at frame 48 000 here, after the
    /// start): a watch on frame 30 000 wakes it once in between, period by period and with
    /// a deep buffer (where the position moves only when the render thread wakes, 7 times a
    /// second).
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
        let deadline = monotonicNanoseconds() + 10_000_000_000
        while monotonicNanoseconds() < deadline {
            var fd = pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&fd, 1, 2_000) > 0 else { continue }
            _ = engine.takeReports()
            let position = engine.position.frame
            woken.append(position)
            if position >= 48_000 { break }
        }
        let between = woken.filter { $0 >= watched && $0 < 48_000 }
        #expect(between.count == 1, "woken once between the watched frame and the next second: \(woken)")
        #expect(woken.contains { $0 >= 48_000 }, "the second's position still wakes it: \(woken)")
        #expect(engine.xrunCount == 0)
    }
}
