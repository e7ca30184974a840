#if canImport(Glibc)
import Glibc
#endif

func cpuSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func measure(_ body: () -> Void) -> Double {
    let start = cpuSeconds()
    body()
    return cpuSeconds() - start
}

func realtimeNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// `--name value` from the command line, or the default.
func option(_ name: String, _ fallback: String) -> String {
    let arguments = CommandLine.arguments
    guard let i = arguments.firstIndex(of: "--" + name), i + 1 < arguments.count else { return fallback }
    return arguments[i + 1]
}

func fail(_ message: String) -> Never {
    printError("segmance-bench: \(message)\n")
    exit(1)
}

/// Writes to standard error (progress and the engine's log lines; figures go to stdout).
func printError(_ text: String) { writeAll(STDERR_FILENO, text) }

/// Writes to standard output at once, unbuffered.
func printOut(_ text: String) { writeAll(STDOUT_FILENO, text) }

private func writeAll(_ fd: Int32, _ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}
