import Foundation
import SegmanceAudio
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// The engine over a real alsa-lib `type file` PCM hands ALSA exactly the twin's WAV.
///
/// The twin runs the demo scenario on the demo stick in virtual time and records every
/// command with the output frame it applied at; the engine's render thread gets the same
/// commands at the same frames and writes to `file:` (over `null`); the captured bytes are
/// compared with the twin's WAV data, every sample. What this proves: the render thread
/// (queues, exact-frame application, period splitting, conversion, the write loop) turns a
/// command timeline into the same device bytes as the twin. It does not prove that a live
/// control loop applies commands at the twin's frames: live, a command applies at the
/// first period boundary after it is sent.
@Suite(.tags(.integration), .serialized) struct ReplayTests {
    init() { EngineTestEnvironment.prepare() }

    static var demoScenario: String { EngineTestEnvironment.scenarios + "/demo.scenario" }

    /// 128 matches the twin's period (commands fall on boundaries); 100 puts most of them
    /// inside a period, so the thread splits periods at the commands' frames.
    @Test(arguments: [128, 100])
    func fileCaptureEqualsTheTwinsWAVSampleForSample(periodFrames: Int) throws {
        let twin = try Replay.twin(scenario: Self.demoScenario, stick: EngineTestEnvironment.demoStick)
        let kinds = Set(twin.commands.map { Self.kind($0.command.command) })
        #expect(kinds.isSuperset(of: ["load", "play+countdown", "pause", "stop", "seek", "setLoop", "clearLoop",
                                      "setNext"]))
        #expect(twin.samples.contains { $0 != 0 })

        let path = EngineTestEnvironment.scratchFile("replay-\(periodFrames)")
        defer { unlink(path) }
        let frames = Int64(twin.samples.count / 2)
        let run = try Replay.engine(device: EngineTestEnvironment.filePCM(path), commands: twin.commands,
                                    frames: frames, periodFrames: periodFrames)
        #expect(run.granted.periodFrames == periodFrames)
        let captured = try Replay.s16Samples(path)
        #expect(captured.count >= twin.samples.count)
        let n = min(captured.count, twin.samples.count)
        let difference = Replay.firstDifference(captured, twin.samples, count: n)
        #expect(difference == nil, "first differing sample \(difference ?? -1) (frame \((difference ?? 0) / 2))")
        #expect(!run.log.contains { $0.contains("late") }, "\(run.log)")
        #expect(run.xruns == 0)
        #expect(run.allocations == 0)
    }

    /// The comparison is sensitive: the same commands one period later give other bytes.
    @Test func aCommandTimelineShiftedByOnePeriodDoesNotMatch() throws {
        let twin = try Replay.twin(scenario: Self.demoScenario, stick: EngineTestEnvironment.demoStick)
        let shifted = twin.commands.map { TimedCommand($0.command, frame: $0.frame + 128) }
        let path = EngineTestEnvironment.scratchFile("shifted")
        defer { unlink(path) }
        _ = try Replay.engine(device: EngineTestEnvironment.filePCM(path), commands: shifted,
                              frames: Int64(twin.samples.count / 2), probe: nil)
        let captured = try Replay.s16Samples(path)
        let n = min(captured.count, twin.samples.count)
        #expect(Replay.firstDifference(captured, twin.samples, count: n) != nil)
    }

    static func kind(_ command: RenderCommand) -> String {
        switch command {
        case .load: "load"
        case .play(_, let countdown): countdown > 0 ? "play+countdown" : "play"
        case .playCountIn: "play+countIn"
        case .playAfter: "playAfter"
        case .pause: "pause"
        case .stop: "stop"
        case .stopFading: "stopFading"
        case .seek: "seek"
        case .setLoop: "setLoop"
        case .clearLoop: "clearLoop"
        case .setNext: "setNext"
        case .setVolume: "setVolume"
        case .setSpeed: "setSpeed"
        case .setCountWords(let words): words == .none ? "setCountWords(none)" : "setCountWords"
        case .announce: "announce"
        }
    }
}
