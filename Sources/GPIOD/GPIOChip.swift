import CGPIOD
import Glibc

/// An open GPIO chip (`/dev/gpiochipN`). Owns its libgpiod handle and closes it on deinit.
///
/// The handle is used from one thread at a time; it may move between threads.
public final class GPIOChip: @unchecked Sendable {
    var handle: OpaquePointer { chip.handle }
    private let chip: GPIOChipHandle
    /// The descriptor the chip was opened by: a path, name, number or label.
    public let openedAs: String

    /// Opens a chip by path, e.g. `/dev/gpiochip0` (`gpiod_chip_open`).
    /// - Parameter devDirectory: where to look for the chips listed in an error.
    public init(path: String, devDirectory: String = "/dev") throws {
        guard let handle = gpiod_chip_open(path) else {
            let error = Glibc.errno
            throw GPIOError(function: "gpiod_chip_open", subject: "chip \"\(path)\"", errno: error,
                            available: .chips(GPIOInventory.chipSummaries(in: devDirectory)))
        }
        self.chip = GPIOChipHandle(handle)
        self.openedAs = path
    }

    /// Opens a chip by number (`0`), name (`gpiochip0`), path (`/dev/gpiochip0`) or label
    /// (`pinctrl-bcm2711`, `gpio-sim.0-node0`) with `gpiod_chip_open_lookup`.
    /// - Parameter devDirectory: where to look for the chips listed in an error.
    public init(lookup descriptor: String, devDirectory: String = "/dev") throws {
        guard let handle = gpiod_chip_open_lookup(descriptor) else {
            var error = Glibc.errno
            // open_lookup ends with a label search that reports "not found" as errno 0 on some
            // versions; a missing chip is ENOENT whatever the path it took.
            if error == 0 { error = ENOENT }
            throw GPIOError(function: "gpiod_chip_open_lookup", subject: "chip \"\(descriptor)\"",
                            errno: error, available: .chips(GPIOInventory.chipSummaries(in: devDirectory)))
        }
        self.chip = GPIOChipHandle(handle)
        self.openedAs = descriptor
    }

    /// The kernel's name for the chip, e.g. `gpiochip0`.
    public var name: String { chip.name }

    /// The driver's label, e.g. `pinctrl-bcm2711` or `gpio-sim.0-node0`.
    public var label: String { chip.label }

    /// How many lines the chip has.
    public var lineCount: Int { chip.lineCount }

    /// The name of every line, by offset; nil for an unnamed line.
    public var lineNames: [String?] { chip.lineNames }

    /// The current state of every line.
    public func lines() -> [GPIOLineInfo] { chip.lines() }

    /// The current state of one line.
    public func lineInfo(at offset: UInt32) throws -> GPIOLineInfo {
        let line = try lineHandle(.offset(offset))
        return try chip.info(line)
    }

    /// The offset of a line, looked up by name (`gpiod_chip_find_line`) or checked against
    /// the chip's line count. A missing line's error lists the chip's named lines.
    public func offset(of selector: GPIOLineSelector) throws -> UInt32 {
        gpiod_line_offset(try lineHandle(selector))
    }

    /// The named lines as `offset name`, for error messages.
    var namedLineSummaries: [String] {
        lineNames.enumerated().compactMap { offset, name in name.map { "\(offset) \($0)" } }
    }

    /// The libgpiod line object; it belongs to the chip and lives as long as the chip.
    func lineHandle(_ selector: GPIOLineSelector) throws -> OpaquePointer {
        switch selector {
        case .offset(let offset):
            guard let line = gpiod_chip_get_line(handle, offset) else {
                let error = Glibc.errno
                throw GPIOError(function: "gpiod_chip_get_line",
                                subject: "line \(offset) on \(name) (\(lineCount) lines)",
                                errno: error, available: .namedLines(namedLineSummaries))
            }
            return line
        case .name(let lineName):
            guard let line = gpiod_chip_find_line(handle, lineName) else {
                var error = Glibc.errno
                if error == 0 { error = ENOENT }
                throw GPIOError(function: "gpiod_chip_find_line", subject: "line \"\(lineName)\" on \(name)",
                                errno: error, available: .namedLines(namedLineSummaries))
            }
            return line
        }
    }
}

/// Owns a `gpiod_chip` handle: the one place that closes it.
final class GPIOChipHandle {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { gpiod_chip_close(handle) }

    var name: String { String(cString: gpiod_chip_name(handle)) }
    var label: String { String(cString: gpiod_chip_label(handle)) }
    var lineCount: Int { Int(gpiod_chip_num_lines(handle)) }

    var lineNames: [String?] {
        (0..<UInt32(lineCount)).map { offset in
            guard let line = gpiod_chip_get_line(handle, offset), let name = gpiod_line_name(line) else {
                return nil
            }
            return String(cString: name)
        }
    }

    func lines() -> [GPIOLineInfo] {
        (0..<UInt32(lineCount)).compactMap { offset in
            gpiod_chip_get_line(handle, offset).flatMap { try? info($0) }
        }
    }

    func info(_ line: OpaquePointer) throws -> GPIOLineInfo {
        // Another process may have requested or released the line since libgpiod read it.
        if gpiod_line_update(line) != 0 {
            throw GPIOError.last("gpiod_line_update", "line \(gpiod_line_offset(line)) on \(name)")
        }
        return GPIOLineInfo(
            offset: gpiod_line_offset(line),
            name: gpiod_line_name(line).map { String(cString: $0) },
            consumer: gpiod_line_consumer(line).map { String(cString: $0) },
            used: gpiod_line_is_used(line))
    }
}
