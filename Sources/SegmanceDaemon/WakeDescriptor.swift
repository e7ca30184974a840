import CLinuxSystem
import Glibc

/// A counter another thread bumps to wake a `poll` (`eventfd`).
public final class WakeDescriptor: @unchecked Sendable {
    public let fileDescriptor: Int32

    public init() throws(DaemonError) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard fd >= 0 else { throw DaemonError.system(function: "eventfd", subject: "a wake descriptor", errno: errno) }
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Wakes whoever polls the descriptor. Safe from any thread.
    public func wake() {
        var one: UInt64 = 1
        _ = write(fileDescriptor, &one, 8)
    }

    /// Clears pending wakes; true if there was any.
    @discardableResult
    public func clear() -> Bool {
        var count: UInt64 = 0
        return read(fileDescriptor, &count, 8) == 8
    }

    /// Clears a counter descriptor someone else owns (an engine's eventfd).
    public static func drain(_ fd: Int32) {
        var count: UInt64 = 0
        _ = read(fd, &count, 8)
    }
}
