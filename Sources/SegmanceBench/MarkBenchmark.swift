import ALSA
import Histogram
import MonotonicTime
import SegmanceAudio
import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// `marks`: how far the source frame a mark takes lies from the frame sounding at the
/// event's time, beside the position last read (what a mark took before: the render
/// side's position at its last period or refill).
///
/// A part whose samples encode their own frame index plays through a `type file` tap in
/// front of `--device`, with a loop that wraps every second, seeks and a part loaded
/// again (each a rewind with the deep buffer). `--events` events are stamped with the
/// monotonic clock 5–20 ms apart (a poll's timeout); each is resolved at once with
/// `RealtimeAudioEngine.heard(at:)`, and the position last read is taken with it. The
/// truth: the frames the device's output may have been at at the event's time, by its
/// readings before and after it (its delay read just after its pointer moved; it plays at
/// most at the rate, less when it stalls), and the source frames the tap's file says those
/// output frames played.
enum MarkBenchmark {
    static let rate = 48_000

    static func run() {
        let directory = option("dir", "/tmp/segmance-engine-bench")
        let events = Int(option("events", "1000")) ?? 1000
        let configuration = EngineBenchmarks.engineConfiguration()
        let tap = directory + "/marks-tap.raw"
        unlink(tap)
        let engine: RealtimeAudioEngine
        do {
            // The tap's private configuration reads the one `--device` is defined in.
            let include = getenv("ALSA_CONFIG_PATH").map { "<\(String(cString: $0))>\n" } ?? "</usr/share/alsa/alsa.conf>\n"
            let output = try PCMDevice(name: "segbench_marks_tap", definitions: include + """
                pcm.segbench_marks_tap {
                    type file
                    file "\(tap)"
                    format raw
                    slave.pcm "\(configuration.device)"
                }
                """)
            engine = try RealtimeAudioEngine(output: output, configuration: configuration)
        } catch {
            fail("\(error)")
        }
        let seconds = 40
        let frames = seconds * rate
        let pcm = UnsafeMutablePointer<Int16>.allocate(capacity: frames * 2)
        defer { pcm.deallocate() }
        for f in 0..<frames {
            pcm[2 * f] = Int16(f % 20_000 - 10_000)
            pcm[2 * f + 1] = Int16(f / 20_000 - 50)
        }
        let part = PCMSlice(base: pcm, frames: Int64(frames))
        engine.send(StampedCommand(.load(part), epoch: 1))
        engine.send(StampedCommand(.play(from: 0, countdown: 0), epoch: 2))
        engine.send(StampedCommand(.setLoop(start: 48_000, end: 96_000, countdownBeforeRepeat: 0), epoch: 3))
        EngineBenchmarks.startEngine(engine)

        // Every two seconds of events: the loop cleared and a seek, a part loaded again, seeks.
        let script: [[RenderCommand]] = [
            [.clearLoop, .seek(300_000)], [.load(part), .play(from: 600_000, countdown: 0)], [.seek(200_000)],
            [.setLoop(start: 250_000, end: 298_000, countdownBeforeRepeat: 0)], [.clearLoop, .seek(900_000)],
        ]
        var epoch: UInt32 = 3
        var marks: [(time: Int64, heard: Int64?, read: Int64)] = []
        var readings: [Int64: Int64] = [:]
        var generator = SystemRandomNumberGenerator()
        while engine.framesHanded < 24_000 { waitForEngine(engine, milliseconds: 10) }
        var nextCommand = engine.framesHanded + 2 * Int64(rate)
        var step = 0
        while marks.count < events {
            waitForEngine(engine, milliseconds: Int32.random(in: 5...20, using: &generator))
            if engine.framesHanded >= nextCommand {
                for command in script[step % script.count] {
                    epoch += 1
                    engine.send(StampedCommand(command, epoch: epoch))
                }
                step += 1
                nextCommand += 2 * Int64(rate)
            }
            let now = monotonicNanoseconds()
            let heard = engine.heard(at: now)
            let read = engine.position.frame
            marks.append((now, heard?.sourceFrame, read))
            for r in engine.deviceReadings() { readings[r.time] = r.frame }
        }
        // What the device holds plays out, so every mark's frame is in the tap.
        engine.stop(drain: true)
        for line in engine.takeLog() { printError(line + "\n") }

        let source = capturedSourceFrames(tap, format: engine.granted.format)
        unlink(tap)
        let sorted = readings.sorted { $0.key < $1.key }
        // Between the readings r1 before T and r2 after it the frame at T lies in
        // [max(f1, f2 - (t2 - T)·rate), min(f1 + (T - t1)·rate, f2)]: the device consumes at
        // most `rate` frames a second, less when it stalls, never goes back.
        func sounding(_ time: Int64) -> ClosedRange<Int64>? {
            guard let after = sorted.firstIndex(where: { $0.key > time }), after > 0 else { return nil }
            let (t1, f1) = sorted[after - 1], (t2, f2) = sorted[after]
            let lo = max(f1, f2 - (t2 - time) * Int64(rate) / 1_000_000_000)
            let hi = min(f1 + (time - t1) * Int64(rate) / 1_000_000_000, f2)
            return min(lo, hi)...max(lo, hi)
        }
        func played(_ k: Int64) -> Int? {
            let k = Int(k)
            guard k > 0, k + 1 < source.count else { return nil }
            let s = source[k]
            return source[k - 1] == s - 1 && source[k + 1] == s + 1 ? s : nil
        }
        var heardError = Histogram<UInt64>(highestTrackableValue: 100_000_000, numberOfSignificantValueDigits: .three)
        var readError = Histogram<UInt64>(highestTrackableValue: 100_000_000, numberOfSignificantValueDigits: .three)
        var spanWidth = Histogram<UInt64>(highestTrackableValue: 100_000_000, numberOfSignificantValueDigits: .three)
        var unclear = 0
        var unresolved = 0
        for mark in marks {
            guard let span = sounding(mark.time) else {
                unclear += 1
                continue
            }
            let truths = span.compactMap(played)
            guard !truths.isEmpty else {
                unclear += 1
                continue
            }
            guard let heard = mark.heard else {
                unresolved += 1
                continue
            }
            // Against the nearest frame the device may have been at; in microseconds of audio.
            func error(_ frame: Int64) -> UInt64 {
                UInt64(truths.map { abs(Int(frame) - $0) }.min()!) * 1_000_000 / UInt64(rate)
            }
            heardError.record(error(heard))
            spanWidth.record(UInt64(span.upperBound - span.lowerBound) * 1_000_000 / UInt64(rate))
            readError.record(error(mark.read))
        }
        func ms(_ us: UInt64) -> String { String(format2: Double(us) / 1000) }
        let scheduling = engine.configuration.rewind.map {
            "deep buffer (\(engine.granted.periodFrames) × \(engine.granted.periodCount), guard \($0.guardFrames), "
                + "\(engine.rewindCount) rewinds)"
        } ?? "period by period (\(engine.granted.periodFrames) × \(engine.granted.periodCount))"
        print("marks: \(heardError.totalCount) of \(events) events on \(engine.device.name), \(scheduling); "
            + "\(unclear) in a ramp or crossfade, \(unresolved) unresolved; xruns \(engine.xrunCount)")
        print("marks: heard at the event's time vs the frame sounding then: p50 \(ms(heardError.valueAtPercentile(50))) ms, "
            + "p99 \(ms(heardError.valueAtPercentile(99))) ms, max \(ms(heardError.max)) ms (budget 1 ms p99)")
        print("marks: the device's readings around an event pin the frame sounding then to a span of p50 "
            + "\(ms(spanWidth.valueAtPercentile(50))) ms, p99 \(ms(spanWidth.valueAtPercentile(99))) ms, "
            + "max \(ms(spanWidth.max)) ms (a mark is judged against its nearest frame)")
        print("marks: position last read (before) vs the frame sounding: p50 \(ms(readError.valueAtPercentile(50))) ms, "
            + "p99 \(ms(readError.valueAtPercentile(99))) ms, max \(ms(readError.max)) ms")
        BenchBudget.require(heardError.valueAtPercentile(99) <= 1_000 && unresolved == 0,
                            "a mark against the frame sounding: p99 \(ms(heardError.valueAtPercentile(99))) ms "
                                + "(budget 1 ms), \(unresolved) unresolved")
    }

    /// Polls the engine's wake descriptor at most `milliseconds` and drains what it reported.
    static func waitForEngine(_ engine: RealtimeAudioEngine, milliseconds: Int32) {
        var fd = pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, milliseconds)
        _ = engine.takeReports()
    }

    /// The source frame index of each captured frame (the part's samples encode it).
    static func capturedSourceFrames(_ path: String, format: PCMSampleFormat) -> [Int] {
        guard let file = fopen(path, "rb") else { fail("marks: cannot read the tap \(path)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        func sample(_ i: Int) -> Int {
            switch format {
            case .s16LE:
                return Int(Int16(bitPattern: UInt16(bytes[2 * i]) | UInt16(bytes[2 * i + 1]) << 8))
            case .s32LE:
                let v = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[4 * i + $1]) << (8 * $1) }
                return Int(Int32(bitPattern: v) >> 16)
            case .floatLE:
                let v = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[4 * i + $1]) << (8 * $1) }
                return Int((Float(bitPattern: v) * 32768).rounded())
            }
        }
        let frames = bytes.count / (2 * format.bytesPerSample)
        return (0..<frames).map { (sample(2 * $0 + 1) + 50) * 20_000 + sample(2 * $0) + 10_000 }
    }
}
