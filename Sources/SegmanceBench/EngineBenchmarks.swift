import ALSA
import Histogram
import LinuxSystem
import SegmanceAudio
import SegmanceCore
import SegmanceEngine
import SegmanceMedia
import SegmanceAppliance
import SndFile
#if canImport(Glibc)
import Glibc
#endif

/// The real-time engine's figures, each a subcommand that Tests/Benchmarks/engine-bench.sh
/// runs on a paced ALSA device (jackd's dummy backend behind alsa-lib's jack plugin).
enum EngineBenchmarks {
    static let rate = 48_000

    /// Writes the benchmark's audio into `directory`: 90 s of the demo stick's "Groove"
    /// (48 kHz stereo) as `part.wav` (for aplay), `part.flac` (for MPD) and
    /// `stick/Bench/01 Part.wav` (a stick for `latency`); and the `daemon` benchmark's library.
    static func prepare(directory: String) {
        do {
            try DemoStick.write(to: directory + "/demo")
            let groove = try SoundFile(readingFrom: directory + "/demo/Warm-up Session/02 Groove.flac")
            let once = try groove.readAllInt16()
            let samples = once + once + once
            mkdir(directory + "/stick", 0o755)
            mkdir(directory + "/stick/Bench", 0o755)
            for (path, format) in [("part.wav", SoundFileWriteFormat.wavPCM16), ("part.flac", .flac16),
                                   ("stick/Bench/01 Part.wav", .wavPCM16)] {
                let file = try SoundFile(writingTo: directory + "/" + path, format: format, sampleRate: rate, channels: 2)
                try file.write(samples)
                try file.close()
            }
            try DaemonBenchmark.prepare(directory: directory)
            print("prepared \(samples.count / 2 / rate) s of audio in \(directory)")
        } catch {
            fail("\(error)")
        }
    }

    static func engineConfiguration() -> EngineConfiguration {
        let priority = Int32(option("priority", "70")) ?? 70
        return EngineConfiguration(device: option("device", "default"),
                                   format: PCMSampleFormat(rawValue: option("format", "S16_LE")) ?? .s16LE,
                                   periodFrames: Int(option("period", "128")) ?? 128,
                                   periods: Int(option("periods", "3")) ?? 3,
                                   realtimePriority: priority > 0 ? priority : nil,
                                   lockMemory: option("lock", "1") != "0",
                                   rewind: Int(option("rewind-guard", "")).map {
                                       EngineConfiguration.Rewind(guardFrames: $0,
                                                                  chunkFrames: Int(option("chunk", "128")) ?? 128)
                                   })
    }

    static func startEngine(_ engine: RealtimeAudioEngine) {
        do { try engine.start() } catch { fail("\(error)") }
        for line in engine.takeLog() { printError(line + "\n") }
    }

    // MARK: Input event to first changed sample

    /// Plays the stick's part through the appliance (reducer and all) and sends it
    /// `--events` inputs (seek +1 s, seek -1 s, pause, play, …) 20–45 ms apart. For each:
    /// the time from the input event to the return of the `snd_pcm_writei` that handed
    /// ALSA the first sample it changed (measured on the render thread), and that plus
    /// the audio queued ahead of that sample in the device (`snd_pcm_delay` after the
    /// write, less the frames written after the sample) as the edge-to-sound estimate.
    static func latency() {
        let directory = option("dir", "/tmp/segmance-engine-bench")
        let events = Int(option("events", "1000")) ?? 1000
        let engine: RealtimeAudioEngine
        do { engine = try RealtimeAudioEngine(configuration: engineConfiguration()) } catch { fail("\(error)") }
        engine.recordsTimings = true
        var configuration = Appliance.Configuration()
        configuration.settings = Settings(countdown: 0, volume: 100)
        let appliance: Appliance
        do { appliance = try Appliance(configuration, audio: engine) } catch { fail("\(error)") }
        appliance.importStick(directory + "/stick")
        // `--speed N`: the part at N % (issue 12), set as the LOOP + encoder chord sets it.
        let speed = Int(option("speed", "100")) ?? 100
        if speed != 100 { appliance.send(.encoderTurnedHolding(.loop, (speed - 100) / Player.speedStep)) }
        startEngine(engine)
        let start = monotonicNanoseconds()

        var timings: [CommandTiming] = []
        func run(until deadline: Int64) {
            while true {
                let now = monotonicNanoseconds()
                if now >= deadline { break }
                var fd = pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&fd, 1, Int32(max(1, (deadline - now) / 1_000_000)))
                appliance.pollAudio()
                appliance.advance(to: monotonicNanoseconds() - start)
                timings += engine.takeTimings()
                for line in engine.takeLog() { printError(line + "\n") }
            }
        }
        appliance.send(.buttonPressed(.play))
        run(until: monotonicNanoseconds() + 1_000_000_000)

        let cycle: [Event] = [.encoderTurned(1), .encoderTurned(-1), .buttonPressed(.play), .buttonPressed(.play)]
        var eventOfEpoch: [UInt32: Int] = [:]
        var sentAt: [Int64] = []
        var generator = SystemRandomNumberGenerator()
        for i in 0..<events {
            run(until: monotonicNanoseconds() + Int64.random(in: 20_000_000...45_000_000, using: &generator))
            let before = appliance.state.epoch
            let t0 = monotonicNanoseconds()
            appliance.send(cycle[i % cycle.count])
            sentAt.append(t0)
            var e = before &+ 1
            while e != appliance.state.epoch &+ 1 {
                eventOfEpoch[e] = i
                e &+= 1
            }
        }
        run(until: monotonicNanoseconds() + 200_000_000)
        engine.stop(drain: false)

        var inside = Histogram<UInt64>(highestTrackableValue: 10_000_000, numberOfSignificantValueDigits: .three)
        var toSound = Histogram<UInt64>(highestTrackableValue: 10_000_000, numberOfSignificantValueDigits: .three)
        var delays = Histogram<UInt64>(highestTrackableValue: 10_000_000, numberOfSignificantValueDigits: .three)
        var measured = Set<Int>()
        for timing in timings {
            var e = timing.firstEpoch
            while true {
                if let i = eventOfEpoch[e], !measured.contains(i) {
                    measured.insert(i)
                    let handed = UInt64(max(0, timing.handedAt - sentAt[i]) / 1000)
                    let delay = UInt64(timing.framesAheadOfChange * 1_000_000 / engine.granted.rate)
                    inside.record(handed)
                    delays.record(delay)
                    toSound.record(handed + delay)
                }
                if e == timing.lastEpoch { break }
                e &+= 1
            }
        }
        func ms(_ us: UInt64) -> String { String(format2: Double(us) / 1000) }
        let period = Double(engine.granted.periodFrames) * 1000 / Double(engine.granted.rate)
        print("latency: \(measured.count) of \(events) input events measured (seek, pause, play) on \(engine.device.name), "
            + (speed != 100 ? "speed \(speed) % (Rubber Band \(Renderer.stretchEngine.rawValue)), " : "")
            + "period \(engine.granted.periodFrames) frames (\(String(format2: period)) ms) × \(engine.granted.periodCount); "
            + "render thread " + (engine.scheduling?.fifoPriority.map { "SCHED_FIFO \($0)" } ?? "normal priority")
            + (engine.configuration.rewind.map {
                "; deep buffer, rewinds to \($0.guardFrames) frames past the play head in \($0.chunkFrames)-frame chunks "
                    + "(\(engine.rewindCount) rewinds, \(engine.refusedRewindCount) refused)"
            } ?? ""))
        print("latency: input event -> first changed sample handed to ALSA: p50 \(ms(inside.valueAtPercentile(50))) ms, "
            + "p99 \(ms(inside.valueAtPercentile(99))) ms, max \(ms(inside.max)) ms")
        print("latency: audio queued ahead of that sample (snd_pcm_delay after the write, less the frames after it): p50 \(ms(delays.valueAtPercentile(50))) ms, "
            + "p99 \(ms(delays.valueAtPercentile(99))) ms")
        print("latency: edge -> sound estimate (handed + delay): p50 \(ms(toSound.valueAtPercentile(50))) ms, "
            + "p99 \(ms(toSound.valueAtPercentile(99))) ms (budgets: engine_bench.py's table); xruns \(engine.xrunCount)")
        // For Tests/Benchmarks/engine_bench.py's budgets: the same figures, machine-read.
        print("latency-figures: handed_p50_ms=\(ms(inside.valueAtPercentile(50))) handed_p99_ms=\(ms(inside.valueAtPercentile(99))) "
            + "sound_p50_ms=\(ms(toSound.valueAtPercentile(50))) sound_p99_ms=\(ms(toSound.valueAtPercentile(99))) "
            + "chunk_ms=\(String(format2: Double(engine.configuration.rewind?.chunkFrames ?? engine.granted.periodFrames) * 1000 / Double(engine.granted.rate))) "
            + "xruns=\(engine.xrunCount) measured=\(measured.count) events=\(events)")
    }
}

extension String {
    /// Two decimals, without Foundation.
    init(format2 value: Double) {
        let hundredths = Int((value * 100).rounded())
        let fraction = abs(hundredths % 100)
        self = "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
