import CGPIOD
import Glibc

/// An open GPIO chip (`/dev/gpiochipN`). Owns its libgpiod handle and closes it on deinit.
///
/// The handle is used from one thread at a time; it may move between threads.
public final class GPIOChip: @unchecked Sendable {
    /// The libgpiod API this build was compiled against: 1 (libgpiod 1.6, Debian 12) or 2
    /// (libgpiod 2.x, Debian 13 and Raspberry Pi OS), chosen by the header installed.
    public static let libgpiodAPI = GPIOEventReader.apiVersion

    var handle: OpaquePointer { chip.handle }
    private let chip: GPIOChipHandle
    /// The descriptor the chip was opened by: a path, name, number or label.
    public let openedAs: String

    /// Opens a chip by path, e.g. `/dev/gpiochip0` (`gpiod_chip_open`).
    /// - Parameter devDirectory: where to look for the chips listed in an error.
    public convenience init(path: String, devDirectory: String = "/dev") throws {
        self.init(GPIOChipHandle(try GPIOChipHandle.open(path, devDirectory: devDirectory)), openedAs: path)
    }

    /// Opens a chip by number (`0`), name (`gpiochip0`), path (`/dev/gpiochip0`) or label
    /// (`pinctrl-bcm2711`, `gpio-sim.0-node0`), as libgpiod 1's `gpiod_chip_open_lookup` did.
    /// - Parameter devDirectory: where the chips are, and where to look for those listed in an error.
    public convenience init(lookup descriptor: String, devDirectory: String = "/dev") throws {
        let dev = devDirectory.hasSuffix("/") ? devDirectory : devDirectory + "/"
        var path: String?
        if descriptor.hasPrefix("/") {
            path = descriptor
        } else if let number = UInt32(descriptor) {
            path = dev + "gpiochip\(number)"
        } else if descriptor.hasPrefix("gpiochip"), access(dev + descriptor, F_OK) == 0 {
            path = dev + descriptor
        }
        if let path {
            self.init(GPIOChipHandle(try GPIOChipHandle.open(path, devDirectory: devDirectory)), openedAs: descriptor)
            return
        }
        for path in GPIOInventory.chipPaths(in: devDirectory) {
            guard let handle = sgpio_chip_open(path) else { continue }
            let chip = GPIOChipHandle(handle)
            if chip.label == descriptor {
                self.init(chip, openedAs: descriptor)
                return
            }
        }
        throw GPIOError(function: "label lookup", subject: "chip \"\(descriptor)\"", errno: ENOENT,
                        available: .chips(GPIOInventory.chipSummaries(in: devDirectory)))
    }

    private init(_ chip: GPIOChipHandle, openedAs: String) {
        self.chip = chip
        self.openedAs = openedAs
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
        try chip.info(try self.offset(of: .offset(offset)))
    }

    /// The offset of a line, looked up by name or checked against the chip's line count. A
    /// missing line's error lists the chip's named lines.
    public func offset(of selector: GPIOLineSelector) throws -> UInt32 {
        switch selector {
        case .offset(let offset):
            guard offset < lineCount else {
                throw GPIOError(function: "gpiod_chip_get_line",
                                subject: "line \(offset) on \(name) (\(lineCount) lines)",
                                errno: EINVAL, available: .namedLines(namedLineSummaries))
            }
            return offset
        case .name(let lineName):
            let offset = sgpio_line_find(handle, lineName)
            guard offset >= 0 else {
                let error = Glibc.errno
                throw GPIOError(function: "gpiod_chip_find_line", subject: "line \"\(lineName)\" on \(name)",
                                errno: error, available: .namedLines(namedLineSummaries))
            }
            return UInt32(offset)
        }
    }

    /// The named lines as `offset name`, for error messages.
    var namedLineSummaries: [String] {
        lineNames.enumerated().compactMap { offset, name in name.map { "\(offset) \($0)" } }
    }
}

/// Owns a `gpiod_chip` handle: the one place that closes it.
final class GPIOChipHandle {
    let handle: OpaquePointer
    private let identity: sgpio_chip_info

    init(_ handle: OpaquePointer) {
        self.handle = handle
        var identity = sgpio_chip_info()
        _ = sgpio_chip_get_info(handle, &identity)
        self.identity = identity
    }

    deinit { sgpio_chip_close(handle) }

    /// Opens the chip at `path`; the error lists the chips in `devDirectory`.
    static func open(_ path: String, devDirectory: String) throws -> OpaquePointer {
        guard let handle = sgpio_chip_open(path) else {
            let error = Glibc.errno
            throw GPIOError(function: "gpiod_chip_open", subject: "chip \"\(path)\"", errno: error,
                            available: .chips(GPIOInventory.chipSummaries(in: devDirectory)))
        }
        return handle
    }

    var name: String { CText.string(identity.name) }
    var label: String { CText.string(identity.label) }
    var lineCount: Int { Int(identity.lines) }

    var lineNames: [String?] {
        (0..<UInt32(lineCount)).map { offset in
            guard let line = try? info(offset) else { return nil }
            return line.name
        }
    }

    func lines() -> [GPIOLineInfo] {
        (0..<UInt32(lineCount)).compactMap { try? info($0) }
    }

    func info(_ offset: UInt32) throws -> GPIOLineInfo {
        var line = sgpio_line_info()
        if sgpio_line_get_info(handle, offset, &line) != 0 {
            throw GPIOError.last("gpiod_line_update", "line \(offset) on \(name)")
        }
        return GPIOLineInfo(
            offset: offset,
            name: line.named ? CText.string(line.name) : nil,
            consumer: line.has_consumer ? CText.string(line.consumer) : nil,
            used: line.used)
    }
}

/// Text from the shim's fixed-size C character arrays.
enum CText {
    /// The NUL-terminated text of a `char[32]`, imported as a tuple.
    static func string<Tuple>(_ characters: Tuple) -> String {
        withUnsafeBytes(of: characters) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
