import Foundation
import MonotonicTime
import SegmanceAudio
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// A mark is the source frame that was sounding at the event's time: on the paced device
/// (jackd's dummy backend behind alsa-lib's jack plugin, a `type file` tap in front), in
/// both schedulings, while the loop wraps, seeks jump, a part is loaded and the deep
/// buffer rewinds for them (each that arrives between two refills).
///
/// The truth is the buffer math, not the wall clock: the device's readings (its delay read
/// just after its pointer moved, "output frame f was at the DAC at t") bound where its
/// output was at any time between them, since it plays at most `rate` frames a second and
/// never goes back; the tap's file says which source frame each output frame played (the
/// counting part encodes its frame index in its samples). Events are stamped up to 60 ms
/// in the past, as the kernel stamps an edge that the control loop reads later.
// jackd2 is a test dependency (deploy/install-deps.sh); without it there is no paced PCM.
@Suite(.serialized, .enabled(if: JackServer.isInstalled, "jackd2 is not installed: no paced PCM"))
struct MarkTests {
    init() { EngineTestEnvironment.prepare() }

    /// 1 ms at 48 kHz: the budget of a mark against the frame sounding at the press.
    static let bound = 48

    struct Mark {
        var time: Int64
        var heard: HeardFrame?
        /// The output frame the engine placed at `time`.
        var output: Int64?
    }

    @Test(arguments: [false, true])
    func aMarkIsTheFrameSoundingAtTheEventsTime(deepBuffer: Bool) throws {
        let run = try PacedRun(deepBuffer ? "marks-deep" : "marks", seconds: 30)
        defer { run.close() }
        let render = Replay.configuration.render
        let configuration = deepBuffer
            ? EngineConfiguration(periodFrames: 1024, periods: 8, realtimePriority: 50, lockMemory: false,
                                  render: render, rewind: RewindTests.rewind)
            : EngineConfiguration(realtimePriority: 50, lockMemory: false, render: render)
        let engine = try RealtimeAudioEngine(output: try EngineTestEnvironment.jackTap(run.tapPath),
                                             configuration: configuration, probe: Replay.mallocProbe)
        engine.send(StampedCommand(.load(run.part), epoch: 1))
        engine.send(StampedCommand(.play(from: 0, countdown: 0), epoch: 2))
        engine.send(StampedCommand(.setLoop(start: 48_000, end: 96_000, countdownBeforeRepeat: 0), epoch: 3))
        try engine.start()

        // Commands with the frames handed before each: wraps, a seek, a new part, seeks.
        let script: [(after: Int64, commands: [RenderCommand])] = [
            (5 * 48_000, [.clearLoop, .seek(300_000)]),
            (8 * 48_000, [.load(run.part), .play(from: 600_000, countdown: 0)]),
            (10 * 48_000, [.seek(200_000)]),
            (12 * 48_000, [.seek(400_000)]),
        ]
        var next = 0
        var epoch: UInt32 = 3
        var marks: [Mark] = []
        var readings: [Int64: Int64] = [:]
        var random = SplitMix(seed: deepBuffer ? 2 : 1)
        var log: [String] = []
        try #require(Replay.wait(engine, timeout: 60, until: { marks.count >= 1000 && next == script.count }) {
            _ = engine.takeReports()
            log += engine.takeLog()
            let handed = engine.framesHanded
            if next < script.count, handed >= script[next].after {
                for command in script[next].commands {
                    epoch += 1
                    engine.send(StampedCommand(command, epoch: epoch))
                }
                next += 1
            }
            guard handed >= 24_000 else { return }
            let now = monotonicNanoseconds()
            for r in engine.deviceReadings() { readings[r.time] = r.frame }
            for _ in 0..<10 where marks.count < 1000 {
                let time = now - Int64(random.next() % 60_000_000)
                marks.append(Mark(time: time, heard: engine.heard(at: time), output: engine.outputFrame(at: time)))
            }
        }, "\(log)")
        engine.stop(drain: true)
        log += engine.takeLog()
        try #require(engine.xrunCount == 0, "an underrun breaks the device's line: \(log)")
        #expect(engine.probeResult == 0, "heap calls on the render thread")
        if deepBuffer {
            // A step whose commands arrive while the render thread is refilling is rendered
            // in that refill, with nothing to rewind (seen once in a full suite: 3 for 4):
            // every step but one rewinds.
            #expect(engine.rewindCount >= script.count - 1,
                    "\(engine.rewindCount) rewinds (\(engine.refusedRewindCount) refused) for \(script.count) steps: \(log)")
        }

        let captured = try Replay.s16Samples(run.tapPath)
        let total = captured.count / 2
        func source(_ k: Int) -> Int { XrunTests.frameIndex(captured[2 * k], captured[2 * k + 1]) }
        /// The source frame output frame `k` played, where the capture says so plainly (not
        /// in a ramp or a crossfade, whose samples are mixed).
        func played(_ k: Int64) -> Int? {
            let k = Int(k)
            guard k > 0, k + 1 < total else { return nil }
            let s = source(k)
            return source(k - 1) == s - 1 && source(k + 1) == s + 1 ? s : nil
        }
        // The device's account of its clock: its readings, "output frame f was at the DAC at
        // t", each taken just after its pointer moved, are all that says where it was. It
        // consumes at most `rate` frames a second, less when it stalls (the dummy backend
        // does not catch up a late cycle), never goes back: between the readings r1 before
        // T and r2 after it, the frame at T lies in [max(f1, f2 - (t2 - T)·rate),
        // min(f1 + (T - t1)·rate, f2)]. A mark is judged against the nearest frame of that
        // span (exact when the device kept time; the span is the stall otherwise).
        let sorted = readings.sorted { $0.key < $1.key }
        func sounding(_ time: Int64) -> ClosedRange<Int64>? {
            guard let after = sorted.firstIndex(where: { $0.key > time }), after > 0 else { return nil }
            let (t1, f1) = sorted[after - 1], (t2, f2) = sorted[after]
            let lo = max(f1, f2 - (t2 - time) * 48_000 / 1_000_000_000)
            let hi = min(f1 + (time - t1) * 48_000 / 1_000_000_000, f2)
            return min(lo, hi)...max(lo, hi)
        }

        var errors: [Int] = []
        var spans: [Int64] = []
        var unclear = 0
        var historyWrong = 0
        var parts = Set<UInt32>()
        for mark in marks {
            guard let heard = mark.heard, let output = mark.output else {
                errors.append(Int.max)
                continue
            }
            parts.insert(heard.part)
            // The history: the source frame the engine's own output frame played.
            if let truth = played(output), truth != Int(heard.sourceFrame) { historyWrong += 1 }
            // The whole mark: against the source frame at the device's line.
            guard let span = sounding(mark.time) else {
                unclear += 1
                continue
            }
            spans.append(span.upperBound - span.lowerBound)
            let truths = span.compactMap(played)
            guard !truths.isEmpty else {
                unclear += 1
                continue
            }
            errors.append(truths.map { abs(Int(heard.sourceFrame) - $0) }.min()!)
        }
        errors.sort()
        let p50 = errors[errors.count / 2], p99 = errors[(errors.count * 99) / 100], worst = errors.last ?? 0
        // Not judged against wide spans: most events are pinned to a frame or a few.
        spans.sort()
        #expect(spans[spans.count / 2] <= Int64(Self.bound), "span p50 \(spans[spans.count / 2]) frames")
        #expect(marks.count == 1000)
        #expect(historyWrong == 0)
        #expect(unclear <= 50, "marks in a ramp or a crossfade: \(unclear)")
        #expect(parts == [1, 2])
        #expect(p99 <= Self.bound, "p50 \(p50), p99 \(p99), max \(worst) frames over \(errors.count) marks")
    }
}

/// A small deterministic generator (SplitMix64), so each run marks at the same offsets.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> Int64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int64(bitPattern: (z ^ (z >> 31)) >> 1)
    }
}
