// Benchmarks that print figures.
//
//     swift run -c release segmance-bench                 the render function, reducer, twin,
//                                                          SHA-256, import per format, start-to-ready
//     swift run -c release segmance-bench twin|library     one half of that
//     swift run -c release segmance-bench library --only ALAC   the import rows whose format's name contains ALAC
//     swift run -c release segmance-bench big-stick [--check]   300 routines, 3,000 files: scan, import, memory
//     swift run -c release segmance-bench stretch [--check]      Rubber Band R2/R3 beside SoundTouch at 50/75/150 %
//     … --check                                           exit 1 when a budget is missed
//     … --write-figures docs/figures.md                   write this command's figures into the figures file
//     Tests/Benchmarks/engine-bench.sh                    the real-time engine beside aplay and MPD
//
// The engine benchmark script calls the subcommands below on a paced ALSA device (latency
// --speed 75 and speed: the 75 % row).
#if canImport(Glibc)
import Glibc
#endif

// The first argument that is neither an option nor an option's value (every option but
// --check takes one: --dir DIR, --write-figures FILE, …).
let arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.indices.first { i in
    !arguments[i].hasPrefix("--") && (i == 0 || !arguments[i - 1].hasPrefix("--") || arguments[i - 1] == "--check")
}.map { arguments[$0] } ?? "all"
BenchBudget.begin()
func twin() { twinBenchmarks(); BenchBudget.endSection("segmance-bench twin") }
func library() { libraryBenchmarks(); BenchBudget.endSection("segmance-bench library") }
switch command {
case "all": twin(); library()
case "twin": twin()
case "library": library()
case "prepare": EngineBenchmarks.prepare(directory: option("dir", "/tmp/segmance-engine-bench"))
case "latency": EngineBenchmarks.latency()
case "marks": MarkBenchmark.run(); BenchBudget.endSection("segmance-bench marks")
case "daemon": DaemonBenchmark.run()
case "big-stick": BigStickBench.run(); BenchBudget.endSection("segmance-bench big-stick")
case "stretch": StretchBench.run(); BenchBudget.endSection("segmance-bench stretch")
case "speed": SpeedBenchmark.run(); BenchBudget.endSection("segmance-bench speed")
case "stretch-churn": StretchChurn.run(); BenchBudget.endSection("segmance-bench stretch-churn")
default:
    fail(
        "unknown benchmark '\(command)'; one of: all, twin, library, big-stick, stretch, prepare, latency, speed, "
            + "marks, daemon"
    )
}
BenchBudget.finish()
