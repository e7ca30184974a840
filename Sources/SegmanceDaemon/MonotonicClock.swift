import Glibc

/// CLOCK_MONOTONIC in nanoseconds: the clock of GPIO edge timestamps (Linux ≥ 5.7) and of
/// evdev timestamps once `EVIOCSCLOCKID` is set, so every input shares one timeline.
public func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
