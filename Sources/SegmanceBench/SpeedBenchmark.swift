import CMallocCounter
import LinuxSystem
import SegmanceAppliance
import SegmanceAudio
import SegmanceCore
import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// `speed`: the engine playing the prepared part through the appliance at a practice speed
/// (issue 12), on the device and scheduling of the `--device`/`--period`/… options. First
/// `--steady` seconds (60) at 75 % beside the same at 100 %, for CPU seconds per audio-minute
/// (the whole process: render thread, stretchers, control side); then `--seconds` (600) with
/// the speed changed every `--every` seconds (5) through 75, 50, 100, 150, 125, 60 %, as the
/// LOOP + encoder chord does. Prints the xruns of the whole run and the heap calls the render
/// thread made (a malloc interposer counting on that thread only). `--check`: at 75 % at most
/// 4 CPU s per audio-minute, no xrun, no heap call.
enum SpeedBenchmark {
    static func run() {
        let directory = option("dir", "/tmp/segmance-engine-bench")
        let steady = Double(option("steady", "60")) ?? 60
        let seconds = Double(option("seconds", "600")) ?? 600
        let every = Double(option("every", "5")) ?? 5
        let engine: RealtimeAudioEngine
        let probe = RenderThreadProbe(begin: segmance_alloc_count_begin, end: segmance_alloc_count_end)
        do { engine = try RealtimeAudioEngine(configuration: EngineBenchmarks.engineConfiguration(), probe: probe) }
        catch { fail("\(error)") }
        var configuration = Appliance.Configuration()
        configuration.settings = Settings(countdown: 0, volume: 100)
        configuration.render = engine.configuration.render
        let appliance: Appliance
        do { appliance = try Appliance(configuration, audio: engine) } catch { fail("\(error)") }
        appliance.importStick(directory + "/stick")
        EngineBenchmarks.startEngine(engine)
        let start = monotonicNanoseconds()
        // The engine's line on the first speed change: how long it waited for the stretchers
        // (made on a worker thread while this loop ran on).
        var firstChange: String?
        func run(for duration: Double) {
            let deadline = monotonicNanoseconds() + Int64(duration * 1e9)
            while true {
                let now = monotonicNanoseconds()
                if now >= deadline { break }
                var fd = pollfd(fd: engine.wakeDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&fd, 1, Int32(max(1, (deadline - now) / 1_000_000)))
                appliance.pollAudio()
                appliance.advance(to: monotonicNanoseconds() - start)
                for line in engine.takeLog() {
                    printError(line + "\n")
                    if firstChange == nil, line.contains("waited") { firstChange = line }
                }
            }
        }
        func setSpeed(_ percent: Int) {
            let detents = (percent - appliance.state.speedPercent) / Player.speedStep
            if detents != 0 { appliance.send(.encoderTurnedHolding(.loop, detents)) }
        }
        // The part loops, so it plays for as long as the run lasts.
        appliance.send(.buttonLongPressed(.loop))
        appliance.send(.buttonPressed(.play))
        run(for: 2)
        var cpu: [Int: Double] = [:]
        for percent in [100, 75] {
            setSpeed(percent)
            run(for: 2)
            let c0 = cpuSeconds()
            run(for: steady)
            cpu[percent] = (cpuSeconds() - c0) * 60 / steady
        }
        let cycle = [75, 50, 100, 150, 125, 60]
        var changes = 0
        let soakStart = monotonicNanoseconds()
        while Double(monotonicNanoseconds() - soakStart) / 1e9 < seconds {
            setSpeed(cycle[changes % cycle.count])
            changes += 1
            run(for: every)
        }
        engine.stop(drain: false)
        let heap = engine.probeResult ?? -1
        let at75 = cpu[75] ?? .nan, at100 = cpu[100] ?? .nan
        let mode = engine.configuration.rewind.map { "deep buffer, guard \($0.guardFrames)" } ?? "period by period"
        print("speed: \(engine.device.name), period \(engine.granted.periodFrames) × \(engine.granted.periodCount), \(mode); "
            + "stretcher Rubber Band \(Renderer.stretchEngine.rawValue)")
        print("speed: CPU s per audio-minute (process, \(Int(steady)) s windows): 75 % \(String(format2: at75)), "
            + "100 % \(String(format2: at100)) (budget at 75 %: 4)")
        print("speed: \(Int(seconds)) s changing speed every \(String(format2: every)) s (\(changes) changes through "
            + "\(cycle.map { "\($0)" }.joined(separator: ", ")) %): xruns \(engine.xrunCount) over the whole run, "
            + "heap calls on the render thread \(heap)")
        print("speed: the first change to 75 %: \(firstChange ?? "no wait logged") "
            + "(the stretchers made on a worker thread, this loop running meanwhile)")
        BenchBudget.require(at75 <= 4, "speed: \(at75) CPU s per audio-minute at 75 % > 4")
        BenchBudget.require(engine.xrunCount == 0, "speed: \(engine.xrunCount) xruns")
        BenchBudget.require(heap == 0, "speed: \(heap) heap calls on the render thread")
    }
}
