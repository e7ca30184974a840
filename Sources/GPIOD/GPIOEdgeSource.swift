import CGPIOD
import Glibc

/// An edge on a line the caller named with its own id (a button, an encoder phase).
public struct GPIOLineEvent<ID: Hashable & Sendable>: Equatable, Sendable {
    /// The caller's id of the line.
    public var id: ID
    /// The line's offset on its chip.
    public var offset: UInt32
    /// True for a rising edge (logical level went to 1; active-low already applied).
    public var rising: Bool
    /// The kernel's timestamp of the edge, in nanoseconds (CLOCK_MONOTONIC since Linux 5.7).
    public var timestampNanoseconds: Int64

    public init(id: ID, offset: UInt32, rising: Bool, timestampNanoseconds: Int64) {
        self.id = id
        self.offset = offset
        self.rising = rising
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// Waits for edges on requested lines, possibly of several chips and requests, with one
/// poll(2) over all their event fds, and hands them back in kernel timestamp order.
///
/// Used from one thread at a time; it may move between threads.
public final class GPIOEdgeSource<ID: Hashable & Sendable>: @unchecked Sendable {
    /// One requested line and the id its events carry.
    public struct Line {
        public var request: GPIOLineRequest
        public var offset: UInt32
        public var id: ID

        public init(request: GPIOLineRequest, offset: UInt32, id: ID) {
            self.request = request
            self.offset = offset
            self.id = id
        }
    }

    struct Watched {
        var fd: Int32
        var offset: UInt32
        var id: ID
    }

    private let watched: [Watched]
    private var pollSet: [pollfd]
    // Keeps the requests (and so the fds) alive as long as the source.
    private let owners: [AnyObject]

    /// Watches the given lines; each offset must belong to its request.
    public convenience init(_ lines: [Line]) throws {
        var watched: [Watched] = []
        for line in lines {
            guard let index = line.request.offsets.firstIndex(of: line.offset) else {
                throw GPIOError(function: "GPIOEdgeSource",
                                subject: "line \(line.offset) on \(line.request.chip.name), not in its request "
                                    + "(\(line.request.offsets.map(String.init).joined(separator: ", ")))",
                                errno: EINVAL)
            }
            watched.append(Watched(fd: line.request.fileDescriptors[index], offset: line.offset, id: line.id))
        }
        self.init(watching: watched, owners: lines.map(\.request))
    }

    /// Watches every line of one request, named by `ids` (offset → id).
    public convenience init(request: GPIOLineRequest, ids: [UInt32: ID]) throws {
        try self.init(ids.sorted { $0.key < $1.key }.map { Line(request: request, offset: $0.key, id: $0.value) })
    }

    /// Watches raw line event fds; the fds must outlive the source (held by `owners`).
    init(watching watched: [Watched], owners: [AnyObject]) {
        self.watched = watched
        self.owners = owners
        self.pollSet = watched.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
    }

    /// The event fds, for a caller that polls them together with other sources and then
    /// calls `readPending()`.
    public var fileDescriptors: [Int32] { watched.map(\.fd) }

    /// Blocks until at least one edge arrives or the timeout passes, then returns every
    /// pending edge in timestamp order. Empty on timeout or when a signal interrupts the wait.
    /// - Parameter timeoutNanoseconds: nil waits without limit; 0 only looks.
    public func wait(timeoutNanoseconds: Int64?) throws -> [GPIOLineEvent<ID>] {
        let milliseconds = Self.pollMilliseconds(timeoutNanoseconds)
        let ready = pollSet.withUnsafeMutableBufferPointer {
            poll($0.baseAddress, nfds_t($0.count), milliseconds)
        }
        if ready < 0 {
            let error = Glibc.errno
            if error == EINTR { return [] }
            throw GPIOError(function: "poll", subject: "\(watched.count) GPIO line event fds", errno: error)
        }
        if ready == 0 { return [] }
        var events: [(sequence: Int, event: GPIOLineEvent<ID>)] = []
        for (index, entry) in pollSet.enumerated() where entry.revents != 0 {
            if entry.revents & Int16(POLLNVAL | POLLERR) != 0 {
                throw GPIOError(function: "poll", subject: "line \(watched[index].offset) (\(watched[index].id))",
                                errno: entry.revents & Int16(POLLNVAL) != 0 ? EBADF : EIO)
            }
            try read(index, into: &events)
        }
        return ordered(events)
    }

    /// Every edge pending now on any line, in timestamp order; never blocks.
    public func readPending() throws -> [GPIOLineEvent<ID>] {
        var events: [(sequence: Int, event: GPIOLineEvent<ID>)] = []
        for index in watched.indices {
            try read(index, into: &events)
        }
        return ordered(events)
    }

    /// poll(2)'s timeout: milliseconds rounded up, so a wait is never shorter than asked.
    static func pollMilliseconds(_ nanoseconds: Int64?) -> Int32 {
        guard let asked = nanoseconds else { return -1 }
        let nanoseconds = max(asked, 0)
        let milliseconds = nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1)
        return Int32(min(milliseconds, Int64(Int32.max)))
    }

    private func read(_ index: Int, into events: inout [(sequence: Int, event: GPIOLineEvent<ID>)]) throws {
        let line = watched[index]
        let edges = try GPIOEventReader.drain(fd: line.fd, offset: line.offset,
                                              subject: "line \(line.offset) (\(line.id))")
        for edge in edges {
            events.append((events.count, GPIOLineEvent(id: line.id, offset: edge.offset, rising: edge.rising,
                                                       timestampNanoseconds: edge.timestampNanoseconds)))
        }
    }

    // Lines are read one after the other; the kernel timestamps say what happened first.
    // Ties keep the read order, so one line's edges never swap.
    private func ordered(_ events: [(sequence: Int, event: GPIOLineEvent<ID>)]) -> [GPIOLineEvent<ID>] {
        events.sorted {
            ($0.event.timestampNanoseconds, $0.sequence) < ($1.event.timestampNanoseconds, $1.sequence)
        }.map(\.event)
    }
}
