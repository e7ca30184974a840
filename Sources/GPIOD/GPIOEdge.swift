import CGPIOD
import Glibc

/// One edge on one line, with the kernel's timestamp.
public struct GPIOEdge: Equatable, Sendable {
    /// The line's offset on its chip.
    public var offset: UInt32
    /// True for a rising edge (logical level went to 1; active-low already applied).
    public var rising: Bool
    /// The kernel's timestamp of the edge, in nanoseconds (CLOCK_MONOTONIC since Linux 5.7).
    public var timestampNanoseconds: Int64

    public init(offset: UInt32, rising: Bool, timestampNanoseconds: Int64) {
        self.offset = offset
        self.rising = rising
        self.timestampNanoseconds = timestampNanoseconds
    }
}

/// Reads the edges pending on a line event file descriptor without blocking.
enum GPIOEventReader {
    /// libgpiod 1.6 reads at most this many events per call.
    static let batch = 16

    /// Makes reads on a line event fd return EAGAIN instead of blocking when nothing is pending.
    static func makeNonBlocking(_ fd: Int32, subject: String) throws {
        let flags = fcntl(fd, F_GETFL)
        if flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 {
            throw GPIOError.last("fcntl", subject)
        }
    }

    /// Drains every edge pending on `fd` (a non-blocking line event fd) with
    /// `gpiod_line_event_read_fd_multiple`; an empty result means nothing was pending.
    static func drain(fd: Int32, offset: UInt32, subject: String) throws -> [GPIOEdge] {
        var edges: [GPIOEdge] = []
        var buffer = [gpiod_line_event](repeating: gpiod_line_event(), count: batch)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer {
                gpiod_line_event_read_fd_multiple(fd, $0.baseAddress, UInt32(batch))
            }
            if count < 0 {
                let error = Glibc.errno
                if error == EAGAIN || error == EWOULDBLOCK { return edges }
                if error == EINTR { continue }
                throw GPIOError(function: "gpiod_line_event_read_fd_multiple", subject: subject, errno: error)
            }
            for event in buffer.prefix(Int(count)) {
                edges.append(edge(event, offset: offset))
            }
            if count < batch { return edges }
        }
    }

    static func edge(_ event: gpiod_line_event, offset: UInt32) -> GPIOEdge {
        GPIOEdge(offset: offset,
                 rising: event.event_type == Int32(GPIOD_LINE_EVENT_RISING_EDGE),
                 timestampNanoseconds: Int64(event.ts.tv_sec) * 1_000_000_000 + Int64(event.ts.tv_nsec))
    }
}
