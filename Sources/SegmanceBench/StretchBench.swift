import RubberBand
import SegmanceAudio
import SndFile
#if canImport(Glibc)
import Glibc
#endif

/// `segmance-bench stretch [--check]`: the time-stretchers on the same generated material in
/// one run — 20 s of 48 kHz stereo, a 440 Hz tone with a 1 ms click at every whole second —
/// at 50, 75 and 150 %. Rubber Band's engines through the library as the render side runs
/// them (512-frame blocks, start pad fed, start delay dropped); SoundTouch and the rubberband
/// tool as processes on a WAV of the same material (their CPU includes reading and writing
/// it). For each: CPU seconds per minute of output, where the clicks land (the spacing
/// against source seconds over the speed, and against the start), and the tone's pitch.
/// `--check` holds the engine the renderer uses (`Renderer.stretchEngine`, R3 short) to the
/// issue's budgets: ≤ 4 CPU s per audio-minute at 75 %, every click found (19), every
/// 1/speed s with a mean within ±3 ms and each within ±10 ms, the tone 440 ± 3 Hz.
enum StretchBench {
    static let rate = 48_000
    static let seconds = 20

    struct Figures {
        var cpuPerMinute: Double
        var meanInterval: Double
        var worstInterval: Double
        var worstOffset: Double
        var clicks: Int
        var pitch: Double
    }

    static func run() {
        let source = material()
        print("stretch: \(seconds) s of 48 kHz stereo, 440 Hz tone + 1 ms click every second; "
              + "click errors in ms (interval: spacing against 1 s / speed; offset: against the start), pitch in Hz")
        print("engine             speed  CPU s/audio-min  clicks  interval mean  worst  offset worst  pitch")
        for speed in [75, 50, 150] {
            for engine in TimeStretcher.Engine.allCases {
                guard let f = library(engine, speed: speed, source: source) else {
                    BenchBudget.require(engine != Renderer.stretchEngine,
                                        "stretch: \(engine.rawValue) could not be made")
                    continue
                }
                line("rubberband \(engine.rawValue)", speed, f)
                if engine == Renderer.stretchEngine {
                    let chosen = "R3 short at \(speed) %"
                    record(chosen, f, cpuBudget: speed == 75)
                }
            }
            for (name, command) in tools(speed: speed) {
                if let f = tool(command, speed: speed) {
                    line(name, speed, f)
                } else {
                    print("\(name): not installed, skipped")
                }
            }
        }
    }

    /// The renderer's engine's row in the figures file, beside its budgets.
    static func record(_ chosen: String, _ f: Figures, cpuBudget: Bool) {
        func fmt(_ x: Double) -> String { x.isFinite ? String(format: "%.2f", x) : "-" }
        if cpuBudget {
            BenchBudget.record(BenchFigure(
                what: "stretch: \(chosen), CPU s per audio-minute (the library in 512-frame blocks)",
                figure: fmt(f.cpuPerMinute), budget: "≤ 4", met: f.cpuPerMinute <= 4))
        }
        let clicksMet = f.clicks == seconds - 1 && abs(f.meanInterval) <= 3 && f.worstInterval <= 10
            && f.worstOffset <= 10
        BenchBudget.record(BenchFigure(
            what: "stretch: \(chosen), clicks found / spacing error mean, worst / offset worst",
            figure: "\(f.clicks) / \(fmt(f.meanInterval)), \(fmt(f.worstInterval)) / \(fmt(f.worstOffset)) ms",
            budget: "every one, \(seconds - 1) / ±3, ≤ 10 / ≤ 10 ms", met: clicksMet))
        BenchBudget.record(BenchFigure(what: "stretch: \(chosen), the 440 Hz tone", figure: "\(fmt(f.pitch)) Hz",
                                       budget: "440 ± 3 Hz", met: abs(f.pitch - 440) <= 3))
    }

    static func line(_ name: String, _ speed: Int, _ f: Figures) {
        func fmt(_ x: Double, _ width: Int, _ digits: Int = 2) -> String {
            let s = x.isFinite ? String(format: "%.\(digits)f", x) : "-"
            return String(repeating: " ", count: max(0, width - s.count)) + s
        }
        let padded = name + String(repeating: " ", count: max(0, 18 - name.count))
        print("\(padded) \(fmt(Double(speed), 4, 0)) %  \(fmt(f.cpuPerMinute, 15))  \(fmt(Double(f.clicks), 6, 0))"
                + "  \(fmt(f.meanInterval, 13))  \(fmt(f.worstInterval, 5))  \(fmt(f.worstOffset, 12))  "
                + "\(fmt(f.pitch, 6, 1))"
        )
    }

    /// The material, interleaved stereo.
    static func material() -> [Float] {
        var out = [Float](repeating: 0, count: seconds * rate * 2)
        for f in 0..<(seconds * rate) {
            var v = Float(0.3 * sin(2 * Double.pi * 440 * Double(f) / Double(rate)))
            if f % rate < rate / 1000 { v = 0.9 }
            out[2 * f] = v
            out[2 * f + 1] = v
        }
        return out
    }

    static func threadCPU() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The library in 512-frame blocks, as the render side feeds it.
    static func library(_ engine: TimeStretcher.Engine, speed: Int, source: [Float]) -> Figures? {
        guard let s = try? TimeStretcher(sampleRate: rate, engine: engine, maxBlock: 512) else { return nil }
        let h = s.handle
        let frames = source.count / 2
        var inL = [Float](repeating: 0, count: 512), inR = inL
        var outL = [Float](repeating: 0, count: 8192), outR = outL
        var out: [Float] = []
        out.reserveCapacity(frames * 2 * 100 / speed + 65_536)
        let start = threadCPU()
        h.setTimeRatio(100 / Double(speed))
        h.reset()
        var skip = h.startDelay
        var fed = -h.startPad
        while fed < frames {
            for j in 0..<512 {
                let f = fed + j
                inL[j] = f >= 0 && f < frames ? source[2 * f] : 0
                inR[j] = f >= 0 && f < frames ? source[2 * f + 1] : 0
            }
            fed += 512
            inL.withUnsafeBufferPointer { l in inR.withUnsafeBufferPointer { r in
                h.process(left: l.baseAddress!, right: r.baseAddress!, frames: 512)
            } }
            while h.available > 0 {
                let n = outL.withUnsafeMutableBufferPointer { l in outR.withUnsafeMutableBufferPointer { r in
                    h.retrieve(left: l.baseAddress!, right: r.baseAddress!, frames: min(h.available, 8192))
                } }
                guard n > 0 else { break }
                for k in 0..<n {
                    if skip > 0 { skip -= 1; continue }
                    out.append(outL[k])
                    out.append(outR[k])
                }
            }
        }
        let cpu = threadCPU() - start
        return analyse(out, speed: speed, cpu: cpu)
    }

    /// The peers as processes on a WAV of the material: SoundTouch's soundstretch, and the
    /// rubberband tool (R2, and R3 with `-3`).
    static func tools(speed: Int) -> [(String, String)] {
        let change = speed - 100
        let ratio = String(format: "%.6f", 100 / Double(speed))
        return [
            ("soundstretch", "soundstretch IN OUT -tempo=\(change > 0 ? "+" : "")\(change)"),
            ("rubberband tool", "rubberband -q -t \(ratio) IN OUT"),
            ("rubberband -3", "rubberband -q -3 -t \(ratio) IN OUT"),
        ]
    }

    static func tool(_ template: String, speed: Int) -> Figures? {
        let name = String(template.split(separator: " ")[0])
        guard system("command -v \(name) > /dev/null 2>&1") == 0 else { return nil }
        let input = "/tmp/segmance-stretch-in-\(getpid()).wav"
        let output = "/tmp/segmance-stretch-out-\(getpid()).wav"
        defer { unlink(input); unlink(output) }
        do {
            let file = try SoundFile(writingTo: input, format: .wavPCM16, sampleRate: rate, channels: 2)
            try file.write(material().map { Int16(($0 * 32767).rounded()) })
            try file.close()
        } catch {
            fail("stretch: cannot write \(input): \(error)")
        }
        let command = template.replacingOccurrences(of: "IN", with: input).replacingOccurrences(of: "OUT", with: output)
        var before = rusage(), after = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &before)
        guard system(command + " > /dev/null 2>&1") == 0 else { return nil }
        getrusage(RUSAGE_CHILDREN.rawValue, &after)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        let cpu =
            seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) - seconds(before.ru_stime)
        guard let out = try? SoundFile(readingFrom: output).readAllFloat() else { return nil }
        return analyse(out, speed: speed, cpu: cpu)
    }

    /// Click onsets (the first of a burst of steps far above the tone's), their spacing and
    /// offsets against source second n at n·rate·100/speed, and the tone's pitch between them.
    static func analyse(_ out: [Float], speed: Int, cpu: Double) -> Figures {
        let frames = out.count / 2
        var onsets: [Int] = []
        var last = -rate
        for f in 1..<frames where abs(out[2 * f] - out[2 * f - 2]) > 0.076 {
            if f - last > rate / 4 { onsets.append(f) }
            last = f
        }
        let period = Double(rate) * 100 / Double(speed)
        let ms = 1000 / Double(rate)
        let clicks = onsets.filter { $0 > rate / 8 }
        let intervals = zip(clicks.dropFirst(), clicks).map { Double($0 - $1) - period }
        let mean = intervals.isEmpty ? .infinity : intervals.reduce(0, +) / Double(intervals.count) * ms
        let worst = intervals.map { abs($0) * ms }.max() ?? .infinity
        // Offsets: click n (source second n) against n · period.
        let worstOffset = clicks.map { c -> Double in
            let n = (Double(c) / period).rounded()
            return abs(Double(c) - n * period) * ms
        }.max() ?? .infinity
        var pitches: [Double] = []
        for (a, b) in zip(clicks, clicks.dropFirst()) {
            let from = a + (b - a) / 4, to = a + 3 * (b - a) / 4
            var crossings: [Double] = []
            for f in (from + 1)..<to {
                let x = Double(out[2 * f - 2]), y = Double(out[2 * f])
                if x < 0 && y >= 0 { crossings.append(Double(f - 1) + x / (x - y)) }
            }
            if crossings.count > 2 {
                pitches.append(Double(crossings.count - 1) * Double(rate) / (crossings.last! - crossings.first!))
            }
        }
        let pitch = pitches.max { abs($0 - 440) < abs($1 - 440) } ?? .nan
        return Figures(cpuPerMinute: cpu / (Double(frames) / Double(rate)) * 60, meanInterval: mean,
                       worstInterval: worst, worstOffset: worstOffset, clicks: clicks.count, pitch: pitch)
    }
}
