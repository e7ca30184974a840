import SegmanceAudio
import Testing
@testable import SegmanceEngine

/// An engine on a paced device playing a part from its start, and what it has told the
/// control side so far: its log and, when recorded, the command timings (reports are
/// taken and dropped). `collect` waits for a condition taking them in; a timeout ends the
/// test instead of waiting again on a device that has stopped.
final class PlayingEngine {
    let engine: RealtimeAudioEngine
    var timings: [CommandTiming] = []
    var log: [String] = []

    /// Loads `part` (epoch 1), plays it from 0 (epoch 2) and starts the engine.
    init(_ engine: RealtimeAudioEngine, part: PCMSlice, recordsTimings: Bool = true) throws {
        self.engine = engine
        engine.recordsTimings = recordsTimings
        engine.send(StampedCommand(.load(part), epoch: 1))
        engine.send(StampedCommand(.play(from: 0, countdown: 0), epoch: 2))
        try engine.start()
    }

    /// Takes in the engine's reports, log and timings until `done`.
    func collect(until done: () -> Bool) throws {
        try #require(Replay.wait(engine, timeout: 30, until: done) {
            _ = engine.takeReports()
            log += engine.takeLog()
            timings += engine.takeTimings()
        }, "\(log)")
    }
}
