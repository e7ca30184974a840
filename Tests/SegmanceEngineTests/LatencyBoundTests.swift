import LinuxSystem
import SegmanceAudio
import SegmanceTestSupport
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// A bound, not a figure: on a device paced in real time (jackd's dummy backend behind
/// alsa-lib's jack plugin, 128-frame periods × 3), a command reaches ALSA within the period
/// the render thread is waiting to write plus the time to render and write it. So the p99
/// of "command sent → the write that hands ALSA its first changed sample returns" must be
/// at most one period (2.67 ms at 48 kHz) + 1 ms. A render loop that applied commands a
/// period later, waited for a fuller buffer or rendered slowly fails it; a loaded machine
/// does not (the render thread runs SCHED_FIFO where permitted — CI runs as root — and jackd
/// with it; one run stalled by the machine is not enough: the bound is on the median of three
/// runs' p99).
@Suite(.tags(.integration), .serialized, .enabled(if: JackServer.isInstalled, "jackd2 is not installed: no paced PCM"))
struct LatencyBoundTests {
    init() { EngineTestEnvironment.prepare() }

    static let events = 300
    static let runs = 3

    @Test func commandToFirstChangedSampleHandedIsWithinOnePeriodPlusOneMillisecondAtP99() throws {
        var p99s: [Double] = []
        var bound = 0.0
        for run in 0..<Self.runs {
            let (latencies, periodMS) = try Self.measure(run: run)
            try #require(latencies.count == Self.events, "every command measured: \(latencies.count) of \(Self.events)")
            bound = periodMS + 1
            p99s.append(latencies.sorted()[latencies.count * 99 / 100])
        }
        let median = p99s.sorted()[Self.runs / 2]
        print("latency bound: command -> first changed sample handed to ALSA, "
              + "p99 of \(Self.events) commands in each of "
              + "\(Self.runs) runs: " + p99s.map { String(format1: $0) + " ms" }.joined(separator: ", ")
              + "; median \(String(format1: median)) ms (bound: one period + 1 ms = \(String(format1: bound)) ms)")
        #expect(median <= bound, "p99 \(median) ms > one period + 1 ms = \(bound) ms (runs: \(p99s))")
    }

    /// One run: plays a part on the paced device and sends `events` volume changes, one at a
    /// time, each 0–8 ms (a poll deadline on the engine's descriptor) after the previous one
    /// was handed, so they fall anywhere in a period; milliseconds from each send to the
    /// return of the write that handed its first frame.
    static func measure(run number: Int) throws -> (latencies: [Double], periodMS: Double) {
        let run = try PacedRun("latency-bound", seconds: 20)
        defer { run.close() }
        let configuration = EngineConfiguration(realtimePriority: 50, lockMemory: false)
        let playing = try PlayingEngine(try RealtimeAudioEngine(output: try EngineTestEnvironment.jackTap(run.tapPath),
                                                                configuration: configuration),
                                        part: run.part)
        let engine = playing.engine
        defer { engine.stop(drain: false) }
        let period = engine.granted.periodFrames
        try playing.collect { engine.framesHanded >= Int64(20 * period) }
        var generator = SeededGenerator(seed: TestSeed.draw("latency bound, run \(number)"))
        var sentAt: [UInt32: Int64] = [:]
        for i in 0..<events {
            let deadline = monotonicNanoseconds() + Int64.random(in: 0...8_000_000, using: &generator)
            while case let left = deadline - monotonicNanoseconds(), left > 0 {
                var fd = pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&fd, 1, Int32((left + 999_999) / 1_000_000))
                _ = engine.takeReports()
                playing.timings += engine.takeTimings()
            }
            let epoch = UInt32(3 + i)
            sentAt[epoch] = monotonicNanoseconds()
            engine.send(StampedCommand(.setVolume(i % 2 == 0 ? 80 : 100), epoch: epoch))
            // The engine wakes its descriptor when it reports the command handed.
            try playing.collect { playing.timings.contains { $0.lastEpoch >= epoch } }
        }
        var latencies: [Double] = []
        for timing in playing.timings {
            for epoch in timing.firstEpoch...timing.lastEpoch {
                if let sent = sentAt[epoch] { latencies.append(Double(timing.handedAt - sent) / 1e6) }
            }
        }
        return (latencies, Double(period) * 1000 / Double(engine.granted.rate))
    }
}
