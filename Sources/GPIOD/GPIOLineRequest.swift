import CGPIOD
import Glibc

/// The pull resistor a line is requested with.
public enum GPIOBias: String, Sendable, CaseIterable {
    /// Leave the bias as the board configured it.
    case asIs = "as-is"
    case disable
    case pullUp = "pull-up"
    case pullDown = "pull-down"
}

/// Lines of one chip requested together for both-edge events
/// (`gpiod_line_request_bulk_both_edges_events_flags`). Releases them on deinit.
///
/// The request is used from one thread at a time; it may move between threads.
public final class GPIOLineRequest: @unchecked Sendable {
    /// The chip; kept open as long as the request lives.
    public let chip: GPIOChip
    /// The offsets of the requested lines, in the order asked for.
    public let offsets: [UInt32]
    /// The event file descriptor of each line, in the order of `offsets`, for poll(2).
    /// They are non-blocking: reading with nothing pending gives no events.
    public let fileDescriptors: [Int32]
    private var bulk: gpiod_line_bulk
    private let subject: String

    /// The most lines one request can hold (`GPIOD_LINE_BULK_MAX_LINES`).
    public static let maximumLines = 64

    /// Requests `lines` of `chip` for both-edge events.
    /// - Parameters:
    ///   - bias: the pull resistor for every line of this request.
    ///   - activeLow: invert the logical level (a button pulling to ground reads 1 when pressed).
    ///   - consumer: the name `gpioinfo` shows as holder.
    public init(chip: GPIOChip, lines selectors: [GPIOLineSelector], bias: GPIOBias = .asIs,
                activeLow: Bool = false, consumer: String = "segmance") throws
    {
        self.chip = chip
        let chipName = chip.name
        var subject = "lines \(selectors.map(\.description).joined(separator: ", ")) on \(chipName)"
        guard !selectors.isEmpty, selectors.count <= Self.maximumLines else {
            throw GPIOError(function: "gpiod_line_bulk_add", subject: subject, errno: EINVAL)
        }
        var bulk = gpiod_line_bulk()
        gpiod_line_bulk_init(&bulk)
        var offsets: [UInt32] = []
        for selector in selectors {
            let line = try chip.lineHandle(selector)
            let offset = gpiod_line_offset(line)
            guard !offsets.contains(offset) else {
                throw GPIOError(function: "gpiod_line_bulk_add",
                                subject: "line \(selector) asked twice on \(chipName)", errno: EINVAL)
            }
            offsets.append(offset)
            gpiod_line_bulk_add(&bulk, line)
        }
        subject = "lines \(offsets.map(String.init).joined(separator: ", ")) on \(chipName)"

        var flags = activeLow ? Int32(GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW) : 0
        switch bias {
        case .asIs: break
        case .disable: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE)
        case .pullUp: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP)
        case .pullDown: flags |= Int32(GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN)
        }
        if gpiod_line_request_bulk_both_edges_events_flags(&bulk, consumer, flags) != 0 {
            let error = Glibc.errno
            // Busy lines are the usual cause (a gpio-keys overlay, another program): say who holds them.
            let holders = offsets.compactMap { offset -> String? in
                guard let info = try? chip.lineInfo(at: offset), info.used else { return nil }
                return "\(offset) held by \"\(info.consumer ?? "kernel")\""
            }
            if !holders.isEmpty { subject += " (" + holders.joined(separator: ", ") + ")" }
            throw GPIOError(function: "gpiod_line_request_bulk_both_edges_events_flags", subject: subject,
                            errno: error)
        }
        self.bulk = bulk

        var fds: [Int32] = []
        for index in offsets.indices {
            let line = Self.line(in: &bulk, at: index)
            let fd = gpiod_line_event_get_fd(line)
            if fd < 0 {
                let error = GPIOError.last("gpiod_line_event_get_fd", "line \(offsets[index]) on \(chipName)")
                gpiod_line_release_bulk(&bulk)
                throw error
            }
            do {
                try GPIOEventReader.makeNonBlocking(fd, subject: "line \(offsets[index]) on \(chipName)")
            } catch {
                gpiod_line_release_bulk(&bulk)
                throw error
            }
            fds.append(fd)
        }
        self.offsets = offsets
        self.fileDescriptors = fds
        self.subject = subject
    }

    deinit {
        gpiod_line_release_bulk(&bulk)
    }

    /// The current logical value (0 or 1, active-low applied) of each line, in the order of
    /// `offsets` (`gpiod_line_get_value_bulk`).
    public func values() throws -> [Int] {
        var values = [Int32](repeating: 0, count: offsets.count)
        if gpiod_line_get_value_bulk(&bulk, &values) != 0 {
            throw GPIOError.last("gpiod_line_get_value_bulk", subject)
        }
        return values.map(Int.init)
    }

    /// The edges pending on the line at `index` of `offsets`, oldest first
    /// (`gpiod_line_event_read_multiple`); empty when none are pending. Never blocks.
    public func readPendingEvents(lineAt index: Int) throws -> [GPIOEdge] {
        let line = Self.line(in: &bulk, at: index)
        let offset = offsets[index]
        var edges: [GPIOEdge] = []
        var buffer = [gpiod_line_event](repeating: gpiod_line_event(), count: GPIOEventReader.batch)
        while true {
            let count = buffer.withUnsafeMutableBufferPointer {
                gpiod_line_event_read_multiple(line, $0.baseAddress, UInt32(GPIOEventReader.batch))
            }
            if count < 0 {
                let error = Glibc.errno
                if error == EAGAIN || error == EWOULDBLOCK { return edges }
                if error == EINTR { continue }
                throw GPIOError(function: "gpiod_line_event_read_multiple",
                                subject: "line \(offset) on \(chip.name)", errno: error)
            }
            edges += buffer.prefix(Int(count)).map { GPIOEventReader.edge($0, offset: offset) }
            if count < GPIOEventReader.batch { return edges }
        }
    }

    private static func line(in bulk: inout gpiod_line_bulk, at index: Int) -> OpaquePointer {
        gpiod_line_bulk_get_line(&bulk, UInt32(index))!
    }
}
