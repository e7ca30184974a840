import Glibc
import LinuxSystem

/// One thing the daemon's loop waits on: the descriptors it brings, the time it must be
/// looked at by, and what to do each pass.
protocol LoopSource: AnyObject {
    /// What to poll for it (descriptor, `POLLIN`/`POLLPRI`); looked at each pass, as the set
    /// may change (an import starts, a pedal is plugged in).
    var descriptors: [(fd: Int32, events: Int16)] { get }
    /// When the loop must look at it at the latest (the monotonic clock's ns), nil: only
    /// when one of its descriptors is ready. May arm what wakes a descriptor instead.
    func deadline(now: Int64) -> Int64?
    /// Once each pass, in the loop's order, with those of its descriptors that were ready
    /// (none when the loop woke for another source or a deadline).
    func handle(ready: [Int32], now: Int64)
}

extension LoopSource {
    var descriptors: [(fd: Int32, events: Int16)] { [] }
    func deadline(now: Int64) -> Int64? { nil }
}

/// The daemon's loop: waits in one `poll` on every source's descriptors until the earliest
/// of their deadlines, then lets each source, in order, handle what is ready and due.
/// Nothing ticks on a grid: with nothing due it waits with no timeout.
final class DaemonLoop {
    private let sources: [LoopSource]
    private let clock: @Sendable () -> Int64
    private let willPoll: ((Int32) -> Void)?
    /// What the last pass polled, and for which source.
    private var pollSet: [pollfd] = []
    private var owners: [Int] = []
    /// Set by a source to end the loop after the pass.
    var stopping = false

    init(_ sources: [LoopSource], clock: @escaping @Sendable () -> Int64, willPoll: ((Int32) -> Void)?) {
        self.sources = sources
        self.clock = clock
        self.willPoll = willPoll
    }

    /// Runs passes until a source sets `stopping`.
    func run() throws(DaemonError) {
        var now = clock()
        while !stopping {
            let timeout = self.timeout(now: now)
            willPoll?(timeout)
            updatePollSet()
            let ready = poll(&pollSet, nfds_t(pollSet.count), timeout)
            if ready < 0 && errno != EINTR {
                throw .system(SystemError("poll", subject: "\(pollSet.count) descriptors"))
            }
            now = clock()
            var readyBySource = [[Int32]](repeating: [], count: sources.count)
            for (i, entry) in pollSet.enumerated() where entry.revents != 0 {
                readyBySource[owners[i]].append(entry.fd)
            }
            for (i, source) in sources.enumerated() { source.handle(ready: readyBySource[i], now: now) }
        }
    }

    /// The `poll` timeout (ms, rounded up; -1: none) until the earliest deadline.
    private func timeout(now: Int64) -> Int32 {
        var earliest: Int64?
        for source in sources {
            guard let due = source.deadline(now: now) else { continue }
            earliest = min(earliest ?? due, due)
        }
        guard let earliest else { return -1 }
        return Int32(clamping: (max(0, earliest - clock()) + 999_999) / 1_000_000)
    }

    /// `POLLIN`, as `pollfd.events` takes it.
    static let readable = Int16(POLLIN)

    /// Rebuilds the poll set from the sources' descriptors when they changed.
    private func updatePollSet() {
        var index = 0
        var same = true
        for (owner, source) in sources.enumerated() {
            for d in source.descriptors {
                same = same && index < pollSet.count && pollSet[index].fd == d.fd
                    && pollSet[index].events == d.events && owners[index] == owner
                index += 1
            }
        }
        if same && index == pollSet.count {
            for i in pollSet.indices { pollSet[i].revents = 0 }
            return
        }
        pollSet = []
        owners = []
        for (owner, source) in sources.enumerated() {
            for d in source.descriptors {
                pollSet.append(pollfd(fd: d.fd, events: d.events, revents: 0))
                owners.append(owner)
            }
        }
    }
}
