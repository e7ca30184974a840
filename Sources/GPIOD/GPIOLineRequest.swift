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

/// Lines of one chip requested for both-edge events, each with its own event fd (libgpiod 1:
/// `gpiod_line_request_both_edges_events_flags`; libgpiod 2: one `gpiod_chip_request_lines`
/// per line). Releases them on deinit.
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
    private let lines: [OpaquePointer]
    private let subject: String

    /// The most lines one request can hold.
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
            throw GPIOError(function: "gpiod_line_request", subject: subject, errno: EINVAL)
        }
        var offsets: [UInt32] = []
        for selector in selectors {
            let offset = try chip.offset(of: selector)
            guard !offsets.contains(offset) else {
                throw GPIOError(function: "gpiod_line_request",
                                subject: "line \(selector) asked twice on \(chipName)", errno: EINVAL)
            }
            offsets.append(offset)
        }
        subject = "lines \(offsets.map(String.init).joined(separator: ", ")) on \(chipName)"

        let cBias = switch bias {
        case .asIs: SGPIO_BIAS_AS_IS
        case .disable: SGPIO_BIAS_DISABLE
        case .pullUp: SGPIO_BIAS_PULL_UP
        case .pullDown: SGPIO_BIAS_PULL_DOWN
        }
        var lines: [OpaquePointer] = []
        var fds: [Int32] = []
        func releaseAll() { lines.forEach { sgpio_request_release($0) } }
        for offset in offsets {
            guard let line = sgpio_request_edges(chip.handle, offset, consumer, cBias, activeLow) else {
                let error = Glibc.errno
                releaseAll()
                // Busy lines are the usual cause (a gpio-keys overlay, another program): say who holds them.
                let holders = offsets.compactMap { offset -> String? in
                    guard let info = try? chip.lineInfo(at: offset), info.used else { return nil }
                    return "\(offset) held by \"\(info.consumer ?? "kernel")\""
                }
                if !holders.isEmpty { subject += " (" + holders.joined(separator: ", ") + ")" }
                throw GPIOError(function: "gpiod_line_request", subject: subject, errno: error)
            }
            lines.append(line)
            let fd = sgpio_request_fd(line)
            if fd < 0 {
                let error = GPIOError.last("gpiod_line_event_get_fd", "line \(offset) on \(chipName)")
                releaseAll()
                throw error
            }
            do {
                try GPIOEventReader.makeNonBlocking(fd, subject: "line \(offset) on \(chipName)")
            } catch {
                releaseAll()
                throw error
            }
            fds.append(fd)
        }
        self.lines = lines
        self.offsets = offsets
        self.fileDescriptors = fds
        self.subject = subject
    }

    deinit {
        lines.forEach { sgpio_request_release($0) }
    }

    /// The current logical value (0 or 1, active-low applied) of each line, in the order of
    /// `offsets`.
    public func values() throws -> [Int] {
        try zip(lines, offsets).map { line, offset in
            let value = sgpio_request_value(line, offset)
            if value < 0 { throw GPIOError.last("gpiod_line_get_value", subject) }
            return Int(value)
        }
    }

    /// The edges pending on the line at `index` of `offsets`, oldest first; empty when none
    /// are pending. Never blocks.
    public func readPendingEvents(lineAt index: Int) throws -> [GPIOEdge] {
        try GPIOEventReader.drain(fd: fileDescriptors[index], offset: offsets[index],
                                  subject: "line \(offsets[index]) on \(chip.name)")
    }
}
