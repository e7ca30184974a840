import CLinuxSystem
import Glibc

/// Waits for any of a fixed list of descriptors, as `poll` would, through an epoll set:
/// the descriptors are registered with the kernel once rather than handed to every call
/// (a `poll` hooks the thread onto each one's wait queue and off again on every pass,
/// most of what a pass of the control loop costs in the kernel). The loop makes a new one
/// when its descriptors change (an import, a device), so no registration outlives the list
/// it was made for.
public final class DescriptorWait {
    /// The descriptor, then the `poll` events to wait for (`POLLIN`, `POLLPRI`, …: epoll's
    /// bits are the same).
    public typealias Entry = (fd: Int32, events: Int16)

    private let epoll: Int32
    private var ready: [epoll_event]
    /// Entries epoll refuses (a regular file): `poll` reports them ready for reading and
    /// writing at once, so they are reported so, with those of their events.
    private let alwaysReady: [(index: Int, events: Int16)]

    /// Watches `entries`; `wait` reports them in this order.
    public init(_ entries: [Entry]) throws(DaemonError) {
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw .system("epoll_create1", "the control loop's descriptors", errno) }
        var always: [(index: Int, events: Int16)] = []
        for (index, entry) in entries.enumerated() {
            var event = epoll_event()
            event.events = UInt32(UInt16(bitPattern: entry.events))
            event.data.u64 = UInt64(index)
            guard epoll_ctl(epoll, EPOLL_CTL_ADD, entry.fd, &event) != 0 else { continue }
            let code = errno
            guard code == EPERM else {
                close(epoll)
                throw .system("epoll_ctl", "descriptor \(entry.fd)", code)
            }
            let events = entry.events & Int16(POLLIN | POLLOUT)
            if events != 0 { always.append((index, events)) }
        }
        alwaysReady = always
        ready = [epoll_event](repeating: epoll_event(), count: max(1, entries.count))
    }

    deinit { close(epoll) }

    /// Waits until an entry is ready or `timeout` ms passed (-1: no limit), then sets
    /// `revents[i]` to what entry i is ready for (0: nothing), as `poll` sets its `revents`.
    /// Returns how many are ready, or -1 with `errno` set.
    public func wait(timeout: Int32, revents: inout [Int16]) -> Int32 {
        for i in revents.indices { revents[i] = 0 }
        let count = epoll_wait(epoll, &ready, Int32(ready.count), alwaysReady.isEmpty ? timeout : 0)
        guard count >= 0 else { return count }
        for event in ready.prefix(Int(count)) {
            revents[Int(event.data.u64)] = Int16(truncatingIfNeeded: event.events)
        }
        for entry in alwaysReady { revents[entry.index] |= entry.events }
        return count + Int32(alwaysReady.count)
    }
}
