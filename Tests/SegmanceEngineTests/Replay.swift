import ALSA
import CMallocCounter
import Foundation
import LinuxSystem
import Testing
import SegmanceAudio
import SegmanceCore
@testable import SegmanceEngine
import SegmanceAppliance
import SegmanceTwin
#if canImport(Glibc)
import Glibc
#endif

/// A twin run recorded with the frame of every command, and its replay into the real-time
/// engine over a real alsa-lib PCM.
struct Replay {
    /// What the twin produced: its WAV samples (the S16 conversion the WAV writer uses)
    /// and the commands with their frames. `output.appliance` keeps the audio alive.
    struct Twin {
        var samples: [Int16]
        var output: TwinRun.Output
        var commands: [TimedCommand] { output.commands }
    }

    /// The appliance configuration the replay tests use: the demo stick's countdown, a
    /// countdown again before each loop repeat, continue into the next part.
    static var configuration: Appliance.Configuration {
        var c = Appliance.Configuration()
        c.settings.countdownBeforeRepeat = true
        c.settings.atPartEnd = .next
        return c
    }

    /// Runs the scenario in the twin, writes its WAV with `WAVWriter` (as `segmance sim
    /// --wav` does) and returns the WAV's data chunk as samples.
    static func twin(scenario file: String, stick: String,
                     configuration: Appliance.Configuration = Replay.configuration) throws -> Twin {
        let text = try String(contentsOfFile: file, encoding: .utf8)
        var run = TwinRun(configuration: configuration)
        run.recordsCommands = true
        let wav = EngineTestEnvironment.scratchFile("twin") + ".wav"
        defer { unlink(wav) }
        let writer = try WAVWriter(path: wav, sampleRate: configuration.sampleRate)
        let output = try run.run(try Scenario(parsing: text, file: file), stick: stick) { buffer, count in
            writer.write(buffer, frames: count)
        }
        try writer.finish()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: wav))
        // A canonical 44-byte header: "data" at 36, then the samples.
        precondition(bytes[36..<40].elementsEqual("data".utf8))
        return Twin(samples: s16Samples(bytes.dropFirst(44)), output: output)
    }

    /// What the engine did.
    struct EngineRun {
        var log: [String]
        var reports: [AudioReport]
        var xruns: Int
        var allocations: Int?
        var framesHanded: Int64
        var granted: PCMConfiguration
    }

    /// The malloc counter, as a probe around the render thread's body.
    static let mallocProbe = RenderThreadProbe(begin: segmance_alloc_count_begin, end: segmance_alloc_count_end)

    /// Starts an engine on `device`, feeds it `commands` at their frames (as many as the
    /// ring takes, more as it frees up), lets it hand at least `frames` frames to ALSA,
    /// then stops it with a drain.
    static func engine(device: String, commands: [TimedCommand], frames: Int64, periodFrames: Int = 128,
                       format: PCMSampleFormat = .s16LE, probe: RenderThreadProbe? = mallocProbe) throws -> EngineRun {
        var configuration = EngineConfiguration(device: device, format: format, periodFrames: periodFrames,
                                                lockMemory: false, commandCapacity: 64,
                                                render: Self.configuration.render)
        configuration.realtimePriority = nil
        let engine = try RealtimeAudioEngine(configuration: configuration, probe: probe)
        var next = 0
        while next < commands.count, engine.send(commands[next]) { next += 1 }
        try engine.start()
        var reports: [AudioReport] = []
        var log: [String] = []
        wait(engine, until: { engine.framesHanded >= frames && next == commands.count || !engine.isRunningOK(log) }) {
            while next < commands.count, engine.send(commands[next]) { next += 1 }
            reports += engine.takeReports()
            log += engine.takeLog()
        }
        engine.stop(drain: true)
        reports += engine.takeReports()
        log += engine.takeLog()
        return EngineRun(log: log, reports: reports, xruns: engine.xrunCount, allocations: engine.probeResult,
                         framesHanded: engine.framesHanded, granted: engine.granted)
    }

    /// Waits on the engine's eventfd until `done`, calling `each` after every wake. Gives
    /// up with a recorded issue after `timeout` seconds, so a broken engine fails the test
    /// instead of hanging the run.
    @discardableResult
    static func wait(_ engine: RealtimeAudioEngine, timeout: Double = 120,
                     sourceLocation: SourceLocation = #_sourceLocation,
                     until done: () -> Bool, each: () -> Void = {}) -> Bool {
        let deadline = monotonicNanoseconds() + Int64(timeout * 1e9)
        while !done() {
            if monotonicNanoseconds() > deadline {
                Issue.record("timed out after \(timeout) s waiting for the engine", sourceLocation: sourceLocation)
                return false
            }
            waitForWake(engine)
            each()
        }
        return true
    }

    /// Blocks until the engine's eventfd is readable, or 100 ms (then the caller looks
    /// at the frame count again).
    static func waitForWake(_ engine: RealtimeAudioEngine) {
        var fd = pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, 100)
    }

    /// The captured bytes as S16 samples.
    static func s16Samples(_ path: String) throws -> [Int16] {
        s16Samples(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func s16Samples(_ data: Data) -> [Int16] {
        let count = data.count / 2
        var samples = [Int16](repeating: 0, count: count)
        samples.withUnsafeMutableBytes { _ = data.prefix(count * 2).copyBytes(to: $0) }
        return samples.map { Int16(littleEndian: $0) }
    }

    /// The first index where two sample arrays differ, nil when equal over `count`.
    static func firstDifference(_ a: [Int16], _ b: [Int16], count: Int) -> Int? {
        for i in 0..<count where a[i] != b[i] { return i }
        return nil
    }
}

extension RealtimeAudioEngine {
    /// False once the log says the render thread stopped.
    func isRunningOK(_ log: [String]) -> Bool {
        !log.contains { $0.contains("render thread stopped") }
    }
}
