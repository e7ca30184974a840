import Foundation
import SegmanceAppliance
import SegmanceAudio
import SegmanceCore
import SegmanceLibrary
import SegmanceStick
import SegmanceTwin
import StickTransfer
#if canImport(Glibc)
import Glibc
#endif

/// Render throughput (× real time per CPU second), reducer events per second, and the
/// whole twin's throughput on the demo stick.
func twinBenchmarks() {
    let rate = 48_000
    let period = 128

    // A 60 s synthetic part (a sine sweep-ish pattern; the values do not matter, the work does).
    let partFrames = 60 * rate
    let pcm = UnsafeMutablePointer<Int16>.allocate(capacity: partFrames * 2)
    for i in 0..<partFrames * 2 { pcm[i] = Int16(truncatingIfNeeded: (i &* 7919) % 20000 - 10000) }
    let slice = PCMSlice(base: UnsafePointer(pcm), frames: Int64(partFrames))

    // 1. The render function alone: playing with an A–B loop and a countdown before each repeat.
    do {
        var renderer = Renderer(sampleRate: rate, config: RenderConfig())
        renderer.apply(StampedCommand(.load(slice), epoch: 1))
        renderer.apply(
            StampedCommand(.setLoop(start: Int64(5 * rate), end: Int64(15 * rate), countdownBeforeRepeat: 3), epoch: 1))
        renderer.apply(StampedCommand(.play(from: 0, countdown: 3), epoch: 1))
        let out = UnsafeMutablePointer<Float>.allocate(capacity: period * 2)
        let audioSeconds = 600.0
        let periods = Int(audioSeconds) * rate / period
        var checksum: Float = 0
        var reports = 0
        let cpu = measure {
            for _ in 0..<periods {
                renderer.render(into: out, frames: period)
                renderer.drainReports { _ in reports += 1 }
                // Reading the output keeps the optimizer from discarding the work.
                checksum += out[0] + out[period * 2 - 1]
            }
        }
        BenchBudget.record(BenchFigure(what: "render function, \(period)-frame periods, A-B loop and countdowns",
                figure:
                    "\(Int(audioSeconds / cpu))x real time per CPU second, "
                        + "\(String(format: "%.2f", cpu / Double(periods) * 1e6)) us per period",
                budget: "", met: nil))
        print(
            "render: \(Int(audioSeconds)) s of audio (A-B loop, countdown before each repeat) in "
                + "\(String(format: "%.3f", cpu)) CPU s = \(Int(audioSeconds / cpu))x real time per CPU second; "
                + "\(String(format: "%.2f", cpu / Double(periods) * 1e6)) us per \(period)-frame period (\(reports) "
                + "reports, checksum \(checksum))"
        )
    }

    // 2. Reducer events per second: a realistic mix of presses, turns, reports and clock ticks.
    do {
        let parts = (0..<8).map { Part(title: "Part \($0)", audio: AudioReference("p\($0)"), length: Int64(60 * rate)) }
        var state = PlayerState(settings: Settings(countdown: 3))
        _ = Rules.reduce(&state, .routinesLoaded([Routine(title: "R", parts: parts),
                                                   Routine(title: "S", parts: parts)]))
        let mix: [Event] = [.buttonPressed(.play), .clock(1), .encoderTurned(2), .buttonPressed(.loop),
                            .clock(2), .buttonPressed(.loop), .buttonPressed(.next), .buttonLongPressed(.loop),
            .buttonPressed(.select), .encoderTurned(1), .buttonLongPressed(.select), .buttonPressed(.prev),
        ]
        let rounds = 200_000
        var effects = 0
        let cpu = measure {
            for r in 0..<rounds {
                for e in mix { effects &+= Rules.reduce(&state, e).count }
                let report = AudioReport(epoch: state.epoch, .position(Int64(r % 1000) * 480))
                effects &+= Rules.reduce(&state, .audio(report)).count
            }
        }
        let events = Double(rounds * (mix.count + 1))
        BenchBudget.record(BenchFigure(what: "reducer, a mix of presses, turns, reports and ticks",
                figure: "\(Int(events / cpu / 1000))k events per CPU second", budget: "", met: nil))
        print(
            "reducer: \(Int(events)) events in \(String(format: "%.3f", cpu)) CPU s = \(Int(events / cpu / 1000))k "
                + "events per second [\(effects % 2)]"
        )
    }

    // 3. The whole twin (controls, reducer, render, screen) on the demo stick and scenario.
    do {
        let dir = "/tmp/segmance-bench-\(getpid())"
        try! DemoStick.write(to: dir + "/stick")
        let text = """
        0.5 tap play
        8.0 bounce next
        21.0 tap loop
        25.0 tap loop
        45.0 hold loop 0.8
        50.0 turn +3 fast
        70.0 hold next 0.8
        71.0 tap play
        120.0 end
        """
        let scenario = try! Scenario(parsing: text)
        var lcdFrames = 0
        var loadCPU = 0.0
        let run = TwinRun()
        let cpu = measure {
            let output = try! run.run(scenario, stick: dir + "/stick") { _, _ in }
            lcdFrames = output.frames.lines.count
        }
        loadCPU = measure { Importer(library: try! Library(directory: dir + "/lib")).run(dir + "/stick") { _ in } }
        BenchBudget.record(BenchFigure(what: "the twin, 120 s demo scenario (import of the stick included)",
                                       figure: "\(Int(120 / cpu))x real time", budget: "", met: nil))
        print(
            "twin: 120 s demo scenario in \(String(format: "%.3f", cpu)) CPU s (of which "
                + "~\(String(format: "%.3f", loadCPU)) s importing the stick) = \(Int(120 / cpu))x real time; "
                + "\(lcdFrames) LCD frames"
        )
        _ = system("rm -rf '\(dir)'")
    }
}

/// Import speed per format and start-to-ready with 200 routines in the library.
func libraryBenchmarks() {
    let dir = "/tmp/segmance-bench-library-\(getpid())"
    // `--only TEXT`: the import rows whose format's name contains TEXT, nothing else.
    guard onlyImports.isEmpty else {
        if !BenchBudget.figuresFile.isEmpty {
            fail("--only measures some import rows: it cannot write the figures file")
        }
        benchImportPerFormat(dir: dir)
        _ = system("rm -rf '\(dir)'")
        return
    }
    benchSHA256()
    benchImportPerFormat(dir: dir)
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("segmance").path
    benchStartToReady(dir: dir, binary: FileManager.default.isExecutableFile(atPath: binary) ? binary : nil)
    _ = system("rm -rf '\(dir)'")
}
