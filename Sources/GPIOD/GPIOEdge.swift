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
    /// The most edges one read returns (`SGPIO_EDGE_BATCH`, libgpiod 1.6's own limit).
    static let batch = 16
    /// Which libgpiod API this build uses (1 or 2): the event records on the fds differ.
    static let apiVersion = Int(sgpio_api_version())

    /// Makes reads on a line event fd return EAGAIN instead of blocking when nothing is pending.
    static func makeNonBlocking(_ fd: Int32, subject: String) throws {
        let flags = fcntl(fd, F_GETFL)
        if flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 {
            throw GPIOError.last("fcntl", subject)
        }
    }

    /// Drains every edge pending on `fd` (a non-blocking line event fd); an empty result
    /// means nothing was pending.
    static func drain(fd: Int32, offset: UInt32, subject: String) throws -> [GPIOEdge] {
        var edges: [GPIOEdge] = []
        var buffer = [sgpio_edge](repeating: sgpio_edge(), count: batch)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer {
                sgpio_read_edges(fd, $0.baseAddress, UInt32(batch))
            }
            if count < 0 {
                let error = Glibc.errno
                if error == EAGAIN || error == EWOULDBLOCK { return edges }
                if error == EINTR { continue }
                throw GPIOError(function: "gpiod_line_event_read", subject: subject, errno: error)
            }
            for event in buffer.prefix(Int(count)) {
                edges.append(GPIOEdge(offset: offset, rising: event.rising,
                                      timestampNanoseconds: Int64(bitPattern: event.timestamp_ns)))
            }
            if count < batch { return edges }
        }
    }
}
