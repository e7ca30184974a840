import Glibc

/// The service manager's notification protocol (`sd_notify`): datagrams such as
/// `READY=1`, `WATCHDOG=1`, `STOPPING=1`, `STATUS=…` sent to the socket named by
/// `NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). Without that variable
/// (not started by systemd with `Type=notify`) every call does nothing.
public final class SystemdNotifier {
    /// Where datagrams go; nil when not under systemd.
    public let socketPath: String?
    /// How often the watchdog wants `WATCHDOG=1` (`WATCHDOG_USEC`, when meant for this
    /// process); nil when the unit has no watchdog.
    public let watchdogInterval: Int64?
    private let fd: Int32

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID` from `environment`.
    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        fd = path == nil ? -1 : socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if forUs, let usec = environment["WATCHDOG_USEC"].flatMap({ Int64($0) }), usec > 0 {
            watchdogInterval = usec * 1000
        } else {
            watchdogInterval = nil
        }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Sends one notification, e.g. `"READY=1\nSTATUS=Ready"`. Returns false if it could
    /// not be sent (no socket, or the manager is gone); the daemon goes on either way.
    @discardableResult
    public func notify(_ state: String) -> Bool {
        guard let path = socketPath, fd >= 0 else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        // An abstract socket's name starts with a NUL byte instead of the '@'.
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { a in
                sendto(fd, message, message.count, Int32(MSG_NOSIGNAL), a, length)
            }
        }
        return sent == message.count
    }
}
