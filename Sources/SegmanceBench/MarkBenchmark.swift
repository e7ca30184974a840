import ALSA
import Foundation
import Histogram
import LinuxSystem
import SegmanceAudio
import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// `marks`: how far the source frame a mark takes lies from the frame sounding at the
/// event's time, judged against a clock the engine does not own.
///
/// The engine plays on the paced test PCM (`Tests/PacedPCM`, an ALSA I/O plugin, no server,
/// no sound card): it plays stream frame n at t0 + n / rate on CLOCK_MONOTONIC and writes
/// what it played (its capture) and t0 (its truth file). A part whose samples encode their
/// own frame index plays with a loop that wraps every second, seeks and a part loaded again
/// (each a rewind with the deep buffer). `--events` events are stamped with the monotonic
/// clock 5–20 ms apart (a poll's timeout), each resolved at once with
/// `RealtimeAudioEngine.heard(at:)`, with the position last read beside it.
///
/// Every event is judged: the device's frame at its time (from t0) and the source frame the
/// capture says that frame played. An event whose frame is in a ramp or crossfade (mixed
/// samples) is judged against the nearer count on either side of it, and the mixed stretch
/// must be no longer than the render's fades. The engine's output frame at the event's time
/// must never lead the device's (one frame of rounding; a device clock read ahead fails)
/// and lag it by less than the device's pointer step. `--check` fails unless all of that
/// holds, p99 ≤ 1 ms, every event placed, the device played the stream in one go (no
/// underrun, nothing fetched before it was written) and the engine saw no xrun.
///
/// Options: the engine's (`--period`, `--periods`, `--rewind-guard`, `--format`, …; not
/// `--device`: the device is the paced PCM), `--pointer period|continuous` (the device's
/// pointer moves a period at a time, as alsa-lib's jack plugin's does, or frame by frame as
/// a DMA engine's; the default: continuous with the deep buffer, period otherwise),
/// `--plugin PATH` (the paced PCM's build; the default builds it into `--dir`).
enum MarkBenchmark {
    static let rate = 48_000

    static func run() {
        let directory = option("dir", "/tmp/segmance-engine-bench")
        let events = Int(option("events", "1000")) ?? 1000
        guard option("device", "") == "" else { fail("marks plays on the paced test PCM; --device is not used") }
        let configuration = EngineBenchmarks.engineConfiguration()
        let pointer = option("pointer", configuration.rewind == nil ? "period" : "continuous")
        guard pointer == "period" || pointer == "continuous" else {
            fail("marks: --pointer is period or continuous, not \(pointer)")
        }
        let plugin = option("plugin", "").isEmpty ? buildPlugin(into: directory + "/paced") : option("plugin", "")
        let capture = directory + "/marks-capture.raw", truthPath = directory + "/marks-truth.txt"
        unlink(capture)
        unlink(truthPath)
        let engine: RealtimeAudioEngine
        do {
            let output = try PCMDevice(name: "segbench_paced", definitions: """
                pcm_type.segpaced { lib "\(plugin)" }
                pcm.segbench_paced {
                    type segpaced
                    capture "\(capture)"
                    truth "\(truthPath)"
                    pointer \(pointer)
                }
                """)
            engine = try RealtimeAudioEngine(output: output, configuration: configuration)
        } catch {
            fail("marks: the paced PCM (\(plugin)): \(error)")
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
        var marks: [(time: Int64, heard: Int64?, output: Int64?, read: Int64)] = []
        var generator = SystemRandomNumberGenerator()
        // Half a second played (by the engine's account: it only decides when events begin).
        while (engine.outputFrame(at: monotonicNanoseconds()) ?? 0) < 24_000 { waitForEngine(engine, milliseconds: 10) }
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
            marks.append((now, engine.heard(at: now)?.sourceFrame, engine.outputFrame(at: now), engine.position.frame))
        }
        // What the device holds plays out, so every mark's frame is in the capture.
        engine.stop(drain: true)
        for line in engine.takeLog() { printError(line + "\n") }

        let truth: PacedTruth
        do { truth = try PacedTruth(path: truthPath) } catch { fail("\(error)") }
        let source = capturedSourceFrames(capture, format: engine.granted.format)
        unlink(capture)
        unlink(truthPath)
        func plain(_ k: Int) -> Bool {
            k > 0 && k + 1 < source.count && source[k - 1] == source[k] - 1 && source[k + 1] == source[k] + 1
        }
        // A mixed stretch of the capture is a ramp or a crossfade (a fade-out then a fade-in at
        // most): the counts on either side of it, carried to `k`, are what may sound there.
        let fades = engine.configuration.render.crossfadeFrames + engine.configuration.render.rampFrames + 2
        func candidates(around k: Int) -> [Int] {
            var lo = k, hi = k
            while lo > 0 && !plain(lo - 1) && k - lo <= fades { lo -= 1 }
            while hi + 1 < source.count && !plain(hi + 1) && hi - k <= fades { hi += 1 }
            guard hi - lo + 1 <= fades else { return [] }
            return (lo > 0 ? [source[lo - 1] + (k - lo + 1)] : [])
                + (hi + 1 < source.count ? [source[hi + 1] - (hi + 1 - k)] : [])
        }
        // The device's pointer moves a period at a time (or a frame): the engine reads it after
        // it moved, so its clock lags the device's by less than that and never leads it.
        let pointerStep = Int64(pointer == "period" ? engine.granted.periodFrames : 1)
        let lagBound = pointerStep + Int64(rate / 1000)
        var heardError = Histogram<UInt64>(highestTrackableValue: 100_000_000, numberOfSignificantValueDigits: .three)
        var readError = Histogram<UInt64>(highestTrackableValue: 100_000_000, numberOfSignificantValueDigits: .three)
        var offsets: [Int64] = []
        var mixed = 0
        var unplaced: [String] = []
        func us(_ frames: Int) -> UInt64 { UInt64(frames) * 1_000_000 / UInt64(rate) }
        for mark in marks {
            guard let heard = mark.heard, let output = mark.output else {
                unplaced.append("at \(mark.time): the engine placed no frame")
                continue
            }
            guard let n = truth.frame(at: mark.time), n > 0, Int(n) + 1 < source.count else {
                unplaced.append("at \(mark.time): the device had not played it (\(source.count) frames captured)")
                continue
            }
            offsets.append(output - n)
            let truths = plain(Int(n)) ? [source[Int(n)]] : candidates(around: Int(n))
            guard !truths.isEmpty else {
                unplaced.append("frame \(n): mixed for longer than a ramp and a crossfade (\(fades) frames)")
                continue
            }
            if !plain(Int(n)) { mixed += 1 }
            heardError.record(us(truths.map { abs(Int(heard) - $0) }.min()!))
            readError.record(us(truths.map { abs(Int(mark.read) - $0) }.min()!))
        }
        offsets.sort()
        func ms(_ us: UInt64) -> String { String(format2: Double(us) / 1000) }
        let scheduling = engine.configuration.rewind.map {
            "deep buffer (\(engine.granted.periodFrames) × \(engine.granted.periodCount), guard \($0.guardFrames), "
                + "\(engine.rewindCount) rewinds)"
        } ?? "period by period (\(engine.granted.periodFrames) × \(engine.granted.periodCount))"
        let gaps = truth.gaps(before: engine.framesHanded)
        let played = "\(truth.starts.count) start(s), underruns at \(gaps.xruns), short fetches at \(gaps.shorts)"
        print("marks: \(heardError.totalCount) of \(events) events judged on the paced PCM (\(pointer) pointer), "
            + "\(scheduling); \(mixed) in a ramp or crossfade (judged against the count beside it), "
            + "\(unplaced.count) unplaced; xruns \(engine.xrunCount); the device: \(played)")
        print("marks: heard at the event's time vs the frame the device played then: p50 "
            + "\(ms(heardError.valueAtPercentile(50))) ms, p99 \(ms(heardError.valueAtPercentile(99))) ms, "
            + "max \(ms(heardError.max)) ms (budget 1 ms p99)")
        print("marks: the engine's output frame − the device's, frames: min \(offsets.first ?? 0), median "
            + "\(offsets.isEmpty ? 0 : offsets[offsets.count / 2]), max \(offsets.last ?? 0) "
            + "(never ahead: ≤ 1; lag < \(lagBound): the pointer's step and 1 ms)")
        print("marks: position last read (before) vs the frame played: p50 \(ms(readError.valueAtPercentile(50))) ms, "
            + "p99 \(ms(readError.valueAtPercentile(99))) ms, max \(ms(readError.max)) ms")
        for line in unplaced.prefix(5) { print("marks: unplaced \(line)") }
        BenchBudget.require(heardError.totalCount == UInt64(events) && unplaced.isEmpty,
                            "every mark judged: \(heardError.totalCount) of \(events), \(unplaced.count) unplaced")
        BenchBudget.require(heardError.valueAtPercentile(99) <= 1_000,
            "a mark against the frame played: p99 \(ms(heardError.valueAtPercentile(99))) ms (budget 1 ms)")
        BenchBudget.require(offsets.allSatisfy { $0 <= 1 && $0 > -lagBound },
            "the engine's clock against the device's: \(offsets.first ?? 0)…\(offsets.last ?? 0) frames "
                + "(budget: never ahead, behind by < \(lagBound))")
        BenchBudget.require(
            truth.starts.count == 1 && gaps.xruns.isEmpty && gaps.shorts.isEmpty && engine.xrunCount == 0,
            "the stream played in one go: \(played), \(engine.xrunCount) xruns")
    }

    /// Builds the paced PCM with `Tests/PacedPCM/build.sh` (beside this source) into `out`.
    static func buildPlugin(into out: String) -> String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() } // MarkBenchmark.swift, SegmanceBench, Sources
        let script = url.appendingPathComponent("Tests/PacedPCM/build.sh").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, out]
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { fail("marks: \(script): \(error)") }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { fail("marks: \(script) failed (\(process.terminationStatus))") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The paced PCM's truth file: when the stream started playing, and its faults.
    struct PacedTruth {
        var starts: [(frame: Int64, time: Int64)] = []
        var shorts: [Int64] = []
        var xruns: [Int64] = []

        init(path: String) throws {
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw BenchError("marks: \(path): the paced PCM wrote no truth file")
            }
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count >= 3, let a = Int64(words[1]), let b = Int64(words[2]) else {
                    throw BenchError("marks: \(path): a line that does not parse: \(line)")
                }
                switch words[0] {
                case "start": starts.append((a, b))
                case "short": shorts.append(a)
                case "xrun": xruns.append(a)
                default: continue
                }
            }
        }

        /// Underruns and short fetches before `end`, the frames handed in all: at `end` the
        /// device ran dry between the render thread's last period and the drain, all played.
        func gaps(before end: Int64) -> (xruns: [Int64], shorts: [Int64]) {
            (xruns.filter { $0 < end }, shorts.filter { $0 < end })
        }

        /// The stream frame the device was playing at CLOCK_MONOTONIC `time`; nil before it started.
        func frame(at time: Int64) -> Int64? {
            guard let start = starts.last(where: { $0.time <= time }) else { return nil }
            return start.frame + (time - start.time) * Int64(MarkBenchmark.rate) / 1_000_000_000
        }
    }

    struct BenchError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Polls the engine's wake descriptor at most `milliseconds` and drains what it reported.
    static func waitForEngine(_ engine: RealtimeAudioEngine, milliseconds: Int32) {
        var fd = pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, milliseconds)
        _ = engine.takeReports()
    }

    /// The source frame index of each captured frame (the part's samples encode it).
    static func capturedSourceFrames(_ path: String, format: PCMSampleFormat) -> [Int] {
        guard let file = fopen(path, "rb") else { fail("marks: cannot read the capture \(path)") }
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
