import Foundation
import LinuxSystem
import SegmanceAudio
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// A mark is the source frame that was sounding at the event's time: on the paced test PCM
/// (`PacedDevice`), in both schedulings, while the loop wraps, seeks jump, a part is loaded
/// and the deep buffer rewinds for them (each that arrives between two refills).
///
/// The truth is the device's, not the engine's: the paced device plays stream frame n at
/// t0 + n / rate on CLOCK_MONOTONIC (its `truth` file gives t0) and writes what it played
/// (its capture; the counting part encodes its frame index in its samples). The engine's
/// heard frame at T (`outputFrame(at:)`, `heard(at:)`) is judged against them. Events are
/// stamped up to 60 ms in the past, as the kernel stamps an edge that the control loop
/// reads later.
@Suite(.tags(.integration), .serialized)
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
        let run = try PacedRun(deepBuffer ? "marks-deep" : "marks", seconds: 30,
                               device: .paced(continuous: deepBuffer))
        defer { run.close() }
        let render = Replay.configuration.render
        let configuration = deepBuffer
            ? EngineConfiguration(periodFrames: 1024, periods: 8, realtimePriority: 50, lockMemory: false,
                                  render: render, rewind: RewindTests.rewind)
            // The default period (128) on eight of them: its three underran on a shared host
            // (load 10–15), and the marks are judged per period of the pointer, not per buffer.
            : EngineConfiguration(periodFrames: 128, periods: 8, realtimePriority: 50, lockMemory: false, render: render)
        let engine = try RealtimeAudioEngine(output: try run.output(), configuration: configuration,
                                             probe: Replay.mallocProbe)
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
                    Comment(rawValue: "\(engine.rewindCount) rewinds (\(engine.refusedRewindCount) refused) "
                        + "for \(script.count) steps: \(log)"))
        }

        let truth = try run.truth()
        let gaps = truth.gaps(before: engine.framesHanded)
        let account = "\(truth.starts.count) starts, underruns at \(gaps.xruns), periods short at \(gaps.shorts)"
        try #require(truth.starts.count == 1 && gaps.xruns.isEmpty && gaps.shorts.isEmpty,
                     "the device played the stream in one go: \(account)")
        let captured = try Replay.s16Samples(run.tapPath)
        let total = captured.count / 2
        func source(_ k: Int) -> Int { XrunTests.frameIndex(captured[2 * k], captured[2 * k + 1]) }
        /// Whether the device played output frame `k` as a plain count (not in a ramp or a
        /// crossfade, whose samples are mixed).
        func plain(_ k: Int) -> Bool {
            k > 0 && k + 1 < total && source(k - 1) == source(k) - 1 && source(k + 1) == source(k) + 1
        }
        // A mixed stretch of the capture is a fade or a crossfade (a fade-out then a fade-in
        // at most): every mark not judged against the capture's count must lie in one.
        let fades = render.crossfadeFrames + render.rampFrames + 2
        func mixedStretch(around k: Int) -> Int {
            var lo = k, hi = k
            while lo > 0 && !plain(lo - 1) && k - lo <= fades { lo -= 1 }
            while hi + 1 < total && !plain(hi + 1) && hi - k <= fades { hi += 1 }
            return hi - lo + 1
        }

        // The device's pointer moves a period at a time, at the period's start; the engine
        // reads it after it moved, so its clock can lag the device's by less than a period and
        // never lead it (one frame of rounding).
        let devicePeriod = Int64(engine.granted.periodFrames)
        var offsets: [Int64] = []
        var errors: [Int] = []
        var unplaced = 0
        var mixed = 0
        var unexplained: [String] = []
        var historyWrong = 0
        var parts = Set<UInt32>()
        for mark in marks {
            // Every mark is judged: one the engine cannot place, or the device had not played,
            // fails.
            guard let heard = mark.heard, let output = mark.output, let n = truth.frame(at: mark.time),
                  n >= 0, Int(n) < total else {
                unplaced += 1
                continue
            }
            parts.insert(heard.part)
            offsets.append(output - n)
            // The history: the source frame the engine's own output frame played.
            if plain(Int(output)), source(Int(output)) != Int(heard.sourceFrame) { historyWrong += 1 }
            guard plain(Int(n)) else {
                mixed += 1
                let stretch = mixedStretch(around: Int(n))
                if stretch > fades { unexplained.append("frame \(n): mixed for \(stretch) frames") }
                continue
            }
            errors.append(abs(Int(heard.sourceFrame) - source(Int(n))))
        }
        errors.sort()
        offsets.sort()
        let p50 = errors[errors.count / 2], p99 = errors[(errors.count * 99) / 100], worst = errors.last ?? 0
        let figures = "output frame − device's frame: min \(offsets.first ?? 0), median \(offsets[offsets.count / 2]), "
            + "max \(offsets.last ?? 0); source error p50 \(p50), p99 \(p99), max \(worst) frames over "
            + "\(errors.count) marks (\(mixed) in fades)"
        #expect(marks.count == 1000)
        #expect(unplaced == 0, "marks not placed: \(unplaced)")
        #expect(offsets.allSatisfy { $0 <= 1 && $0 > -devicePeriod }, "\(figures)")
        #expect(unexplained.isEmpty, "\(unexplained.prefix(5))")
        #expect(historyWrong == 0)
        #expect(parts == [1, 2])
        #expect(p99 <= Self.bound, "\(figures)")
        print("MarkTests deepBuffer=\(deepBuffer): \(figures)")
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
