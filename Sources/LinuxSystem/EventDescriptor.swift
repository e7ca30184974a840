import CLinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// A counter in the kernel another thread adds to, to wake a `poll` (`eventfd`, close-on-exec).
/// Closed when this object goes.
public final class EventDescriptor: @unchecked Sendable {
    /// The descriptor to poll: readable while the count is above zero.
    public let fileDescriptor: Int32

    /// A counter starting at `initial`; `nonblocking` makes `take()` return nil instead of
    /// waiting for a count.
    public init(initial: UInt32 = 0, nonblocking: Bool = true) throws(SystemError) {
        fileDescriptor = try syscall("eventfd", "an event counter") { segmance_eventfd(initial, nonblocking ? 1 : 0) }
    }

    deinit { close(fileDescriptor) }

    /// Adds `count` (wakes whoever polls). Safe from any thread, the render thread too: one
    /// `write`, no allocation.
    @inline(__always)
    public func signal(_ count: UInt64 = 1) {
        Self.signal(fileDescriptor, count)
    }

    /// Takes the count and sets it to zero; nil when it was zero (nonblocking) or the read failed.
    @discardableResult
    public func take() -> UInt64? {
        Self.take(fileDescriptor)
    }

    /// Adds `count` to an event counter someone else owns.
    @inline(__always)
    public static func signal(_ descriptor: Int32, _ count: UInt64 = 1) {
        var value = count
        _ = retryingEINTR { write(descriptor, &value, 8) }
    }

    /// Takes the count of an event counter someone else owns; nil when none was taken.
    @discardableResult
    public static func take(_ descriptor: Int32) -> UInt64? {
        var value: UInt64 = 0
        return retryingEINTR { read(descriptor, &value, 8) } == 8 ? value : nil
    }
}
