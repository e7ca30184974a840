import CLinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// A timer on the monotonic clock as a readable descriptor (`timerfd`, nonblocking,
/// close-on-exec): readable once its deadline has passed, so a `poll` waits for it like any
/// other input. Closed when this object goes.
public final class TimerDescriptor {
    /// The descriptor to poll.
    public let fileDescriptor: Int32

    /// A disarmed timer.
    public init() throws(SystemError) {
        fileDescriptor = try syscall("timerfd_create", "a timer") {
            timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        }
    }

    deinit { close(fileDescriptor) }

    /// Fires once at `deadline` (`monotonicNanoseconds()`), then every `interval` ns when given;
    /// a deadline already passed fires at once.
    public func arm(at deadline: Int64, interval: Int64? = nil) throws(SystemError) {
        // A zero it_value disarms: the earliest deadline is 1 ns.
        let first = max(deadline, 1)
        var value = itimerspec(it_interval: Self.timespec(interval ?? 0), it_value: Self.timespec(first))
        _ = try syscall("timerfd_settime", "a timer") {
            timerfd_settime(fileDescriptor, Int32(TFD_TIMER_ABSTIME), &value, nil)
        }
    }

    /// Stops the timer; a pending expiry stays until taken.
    public func disarm() throws(SystemError) {
        var value = itimerspec()
        _ = try syscall("timerfd_settime", "a timer") { timerfd_settime(fileDescriptor, 0, &value, nil) }
    }

    /// How many times it fired since the last call (0: none; never blocks).
    @discardableResult
    public func take() -> UInt64 {
        var count: UInt64 = 0
        return retryingEINTR { read(fileDescriptor, &count, 8) } == 8 ? count : 0
    }

    private static func timespec(_ nanoseconds: Int64) -> Glibc.timespec {
        Glibc.timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }
}
