import Foundation
import SegmanceAudio
import SegmanceCore
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// Spoken counts on the real-time engine: the demo rehearsal with the counts spoken (espeak-ng,
/// installed by deploy/install-deps.sh: needed here, never skipped) replayed into the render
/// thread over alsa-lib's `file` PCM gives the twin's bytes exactly, and the render thread
/// makes no heap call while it speaks them (it copies samples loaded before).
@Suite(.tags(.integration), .serialized) struct SpokenReplayTests {
    init() { EngineTestEnvironment.prepare() }

    @Test func theEngineSpeaksTheCountsAsTheTwinDoesWithoutAHeapCall() throws {
        var configuration = Replay.configuration
        configuration.settings.countVoice = .spoken
        let twin = try Replay.twin(scenario: ReplayTests.demoScenario, stick: EngineTestEnvironment.demoStick,
                                   configuration: configuration)
        // The words were handed over, and counts sounded with them.
        let words = twin.commands.compactMap { if case .setCountWords(let w) = $0.command.command { w } else { nil } }
        #expect(words.count == 1 && words.first.map { $0.count == 20 } == true, "\(words)")
        #expect(twin.commands.contains { if case .play(_, let n) = $0.command.command { n > 0 } else { false } })
        #expect(twin.output.log.contains { $0.hasPrefix("spoken counts: 20 words ready") }, "\(twin.output.log)")
        // Not the ticks' bytes.
        let ticks = try Replay.twin(scenario: ReplayTests.demoScenario, stick: EngineTestEnvironment.demoStick)
        #expect(ticks.samples != twin.samples)

        let path = EngineTestEnvironment.scratchFile("spoken-replay")
        defer { unlink(path) }
        let run = try Replay.engine(device: EngineTestEnvironment.filePCM(path), commands: twin.commands,
                                    frames: Int64(twin.samples.count / 2), periodFrames: 100)
        let captured = try Replay.s16Samples(path)
        #expect(captured.count >= twin.samples.count)
        let n = min(captured.count, twin.samples.count)
        let difference = Replay.firstDifference(captured, twin.samples, count: n)
        #expect(difference == nil, "first differing sample \(difference ?? -1) (frame \((difference ?? 0) / 2))")
        #expect(run.xruns == 0)
        #expect(run.allocations == 0)
        withExtendedLifetime(twin.output.appliance) {}
    }

    /// A count-in in beats: the demo's warm-up music as a 120 BPM part with its "1" at 0.25 s,
    /// "5, 6, 7, 8" before it starts and before each repeat of an A–B loop.
    @Test func aSpokenCountInInBeatsBeforeEachRepeatToo() throws {
        let stick = EngineTestEnvironment.scratchFile("spoken-beats")
        let folder = stick + "/Beats"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: stick) }
        try FileManager.default.copyItem(atPath: EngineTestEnvironment.demoStick + "/Warm-up Session/01 Warm-up.wav",
                                         toPath: folder + "/01 Warm-up.wav")
        try "[[part]]\ntitle = \"Warm-up\"\nfile = \"01 Warm-up.wav\"\ntempo = 120\none = \"0:00.25\"\n"
            .write(toFile: folder + "/routine.toml", atomically: false, encoding: .utf8)
        let scenario = stick + "/beats.scenario"
        try "0.0 tap play\n3.3 tap loop\n5.3 tap loop\n14.0 end\n"
            .write(toFile: scenario, atomically: false, encoding: .utf8)
        var configuration = Replay.configuration
        configuration.settings.countVoice = .spoken
        configuration.settings.countdownBeats = 4
        let twin = try Replay.twin(scenario: scenario, stick: stick, configuration: configuration)
        let countIns = twin.commands.filter {
            switch $0.command.command {
            case .playCountIn: true
            case .setLoop(_, _, _, _, _, let countIn, _, _): countIn.beats == 4
            default: false
            }
        }
        #expect(countIns.count >= 2,
                "a count-in at the start and one before each repeat: \(twin.commands.map(\.command.command))")
        #expect(twin.output.log.contains { $0.hasPrefix("spoken counts: 20 words ready") }, "\(twin.output.log)")

        let path = EngineTestEnvironment.scratchFile("spoken-beats-replay")
        defer { unlink(path) }
        let run = try Replay.engine(device: EngineTestEnvironment.filePCM(path), commands: twin.commands,
                                    frames: Int64(twin.samples.count / 2), periodFrames: 128)
        let captured = try Replay.s16Samples(path)
        let n = min(captured.count, twin.samples.count)
        #expect(captured.count >= twin.samples.count)
        let difference = Replay.firstDifference(captured, twin.samples, count: n)
        #expect(difference == nil, "first differing sample \(difference ?? -1) (frame \((difference ?? 0) / 2))")
        #expect(run.xruns == 0)
        #expect(run.allocations == 0)
        withExtendedLifetime(twin.output.appliance) {}
    }
}
