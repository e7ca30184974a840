// Benchmarks that print figures.
//
//     swift run -c release segmance-bench                 the render function, reducer, twin,
//                                                          SHA-256, import per format, start-to-ready
//     swift run -c release segmance-bench twin|library     one half of that
//     swift run -c release segmance-bench big-stick [--check]   300 routines, 3,000 files: scan, import, memory
//     … --check                                           exit 1 when a budget is missed
//     Tests/Benchmarks/engine-bench.sh                    the real-time engine beside aplay and MPD
//
// The engine benchmark script calls the subcommands below on a paced ALSA device.
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
case "marks": MarkBenchmark.run()
case "daemon": DaemonBenchmark.run()
case "big-stick": BigStickBench.run()
default: fail("unknown benchmark '\(command)'; one of: all, twin, library, big-stick, prepare, latency, marks, daemon")
}
BenchBudget.finish()
