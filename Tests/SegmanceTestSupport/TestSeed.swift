#if canImport(Glibc)
import Glibc
#endif

/// The seed of a test that draws random values, printed so that a failing run replays:
/// the environment variable `variable` when it is set (CI sets it, so its runs are fixed),
/// else a fresh one.
public enum TestSeed {
    public static func draw(_ label: String, variable: String = "SEGMANCE_TEST_SEED") -> UInt64 {
        let seed = getenv(variable).flatMap { UInt64(String(cString: $0)) } ?? UInt64.random(in: 0...UInt64.max)
        print("\(label): seed \(seed) (replay with \(variable)=\(seed))")
        return seed
    }
}
