#if canImport(Glibc)
import Glibc
#endif

/// What one file may cost: address space, CPU time, no core file, no file written.
enum HelperLimits {
    /// 1 GiB of address space (FFmpeg's tables and one stream's packets fit in a fraction).
    static let addressSpace: rlim_t = 1 << 30
    /// 10 minutes of CPU: hours of audio decode in less on a Pi.
    static let cpuSeconds: rlim_t = 600

    static func apply() {
        var limit = rlimit(rlim_cur: addressSpace, rlim_max: addressSpace)
        setrlimit(Int32(RLIMIT_AS.rawValue), &limit)
        limit = rlimit(rlim_cur: cpuSeconds, rlim_max: cpuSeconds)
        setrlimit(Int32(RLIMIT_CPU.rawValue), &limit)
        limit = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit)
    }
}
