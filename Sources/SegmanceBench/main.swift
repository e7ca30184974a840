// Benchmarks that print figures.
//
//     swift run -c release segmance-bench                 the render function, reducer, twin,
//                                                          SHA-256, import per format, start-to-ready
//     swift run -c release segmance-bench twin|library     one half of that
//     swift run -c release segmance-bench big-stick [--check]   300 routines, 3,000 files: scan, import, memory
//     swift run -c release segmance-bench stretch [--check]      Rubber Band R2/R3 beside SoundTouch at 50/75/150 %
//     … --check                                           exit 1 when a budget is missed
//     Tests/Benchmarks/engine-bench.sh                    the real-time engine beside aplay and MPD
//
// The engine benchmark script calls the subcommands below on a paced ALSA device (latency
// --speed 75 and speed: the 75 % row).
#if canImport(Glibc)
import Glibc
#endif

let command = CommandLine.arguments.dropFirst().first { !$0.hasPrefix("--") } ?? "all"
switch command {
case "all": twinBenchmarks(); libraryBenchmarks()
case "twin": twinBenchmarks()
case "library": libraryBenchmarks()
case "prepare": EngineBenchmarks.prepare(directory: option("dir", "/tmp/segmance-engine-bench"))
case "latency": EngineBenchmarks.latency()
case "daemon": DaemonBenchmark.run()
case "big-stick": BigStickBench.run()
case "stretch": StretchBench.run()
case "speed": SpeedBenchmark.run()
case "stretch-churn": StretchChurn.run()
default: fail("unknown benchmark '\(command)'; one of: all, twin, library, big-stick, stretch, prepare, latency, speed, daemon")
}
BenchBudget.finish()
