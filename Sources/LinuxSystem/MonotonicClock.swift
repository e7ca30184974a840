#if canImport(Glibc)
import Glibc
#endif

// The one clock of the appliance. Every target that measures or waits on time reads it
// here, so every timestamp shares one timeline: GPIO edge timestamps are on it (Linux ≥
// 5.7), evdev timestamps once `EVIOCSCLOCKID` selects it, and the core's clock events
// count on it from the daemon's start.

/// CLOCK_MONOTONIC in nanoseconds. Safe on the render thread: a vDSO read, no system call,
/// no allocation, no lock, wrapping arithmetic (no trap path).
@inlinable
public func monotonicNanoseconds() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
}

/// Sleeps until `deadline`, a CLOCK_MONOTONIC time in nanoseconds; a signal does not cut
/// the sleep short. Returns at once when the deadline has passed. No allocation.
@inlinable
public func sleepUntilMonotonic(_ deadline: Int64) {
    var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
    while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
}

/// Sleeps for `nanoseconds` on CLOCK_MONOTONIC (none when not positive); a signal does not
/// cut the sleep short. No allocation.
@inlinable
public func sleepMonotonic(nanoseconds: Int64) {
    guard nanoseconds > 0 else { return }
    sleepUntilMonotonic(monotonicNanoseconds() &+ nanoseconds)
}
