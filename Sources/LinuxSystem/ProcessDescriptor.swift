import CLinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// A descriptor for a child process that becomes readable once it has ended (`pidfd_open`,
/// close-on-exec), so a `poll` waits for it like any other input. Closed when this object goes.
public final class ProcessDescriptor {
    /// The process.
    public let pid: pid_t
    /// The descriptor to poll.
    public let fileDescriptor: Int32

    /// Opens a descriptor for the process `pid`; `subject` names it in an error.
    public init(pid: pid_t, subject: String? = nil) throws(SystemError) {
        self.pid = pid
        let fd = try syscall("pidfd_open", subject ?? "process \(pid)") { segmance_pidfd_open(pid) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        fileDescriptor = fd
    }

    deinit { close(fileDescriptor) }

    /// Whether the process has ended (the descriptor is readable now; never blocks).
    public var hasEnded: Bool {
        var entry = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        return retryingEINTR { poll(&entry, 1, 0) } == 1 && entry.revents & Int16(POLLIN) != 0
    }

    /// Waits until the process has ended or `milliseconds` passed (-1: no limit); whether it ended.
    public func waitUntilEnded(milliseconds: Int32 = -1) -> Bool {
        var entry = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
        return retryingEINTR { poll(&entry, 1, milliseconds) } == 1 && entry.revents & Int16(POLLIN) != 0
    }
}
